package mining

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// Difference is one edge or variant compared between two groups of cases.
type Difference struct {
	// Key is "a -> b" for an edge (▶ and ■ included), the activities joined
	// by ", " for a variant.
	Key    string  `json:"key"`
	CasesA int     `json:"cases_a"` // cases of group A with the edge / of the variant
	CasesB int     `json:"cases_b"`
	ShareA float64 `json:"share_a"` // CasesA / cases of A
	ShareB float64 `json:"share_b"`
	Diff   float64 `json:"diff"` // ShareA − ShareB: the effect size
	Z      float64 `json:"z"`    // two-proportion z statistic
	P      float64 `json:"p"`    // two-sided p-value of Z under the normal approximation
}

// Comparison sets two groups of cases side by side.
type Comparison struct {
	A      string `json:"a"` // group names
	B      string `json:"b"`
	CasesA int    `json:"cases_a"`
	CasesB int    `json:"cases_b"`
	// Edges and Variants hold every edge and variant seen in either group,
	// by |Diff| (descending), then |Z| (descending), then Key.
	Edges    []Difference `json:"edges"`
	Variants []Difference `json:"variants"`
}

// Compare compares the cases of a and b (named nameA and nameB; typically
// two Filter results of one log: resolved against failed, with
// context.disable against without, one model family against another).
//
// The unit is the case: an edge's share of a group is the fraction of its
// cases in which the edge occurs at least once; a variant's share is the
// fraction of cases that follow it. For shares p_A = x_A/n_A and
// p_B = x_B/n_B:
//
//	Diff = p_A − p_B
//	Z    = Diff / √(p̂ (1 − p̂) (1/n_A + 1/n_B)),  p̂ = (x_A + x_B) / (n_A + n_B)
//	P    = erfc(|Z| / √2)
//
// Z is 0 when its denominator is (a share of 0 or 1 in both groups, or an
// empty group). Cases are assumed independent; with many edges compared,
// small p-values are expected by chance (no multiple-testing correction).
func Compare(nameA string, a *Log, nameB string, b *Log) *Comparison {
	c := &Comparison{A: nameA, B: nameB, CasesA: len(a.Cases), CasesB: len(b.Cases)}
	ea, eb := edgeCases(a), edgeCases(b)
	c.Edges = differences(ea, eb, c.CasesA, c.CasesB)
	va, vb := variantCases(a), variantCases(b)
	c.Variants = differences(va, vb, c.CasesA, c.CasesB)
	return c
}

func edgeCases(l *Log) map[string]int {
	out := map[string]int{}
	for _, e := range NewDFG(l).Edges {
		out[quoteName(e.From)+" -> "+quoteName(e.To)] = e.Cases
	}
	return out
}

func variantCases(l *Log) map[string]int {
	out := map[string]int{}
	for _, v := range Variants(l) {
		names := make([]string, len(v.Activities))
		for i, a := range v.Activities {
			names[i] = quoteName(a)
		}
		out[strings.Join(names, ", ")] = v.Count
	}
	return out
}

func differences(a, b map[string]int, na, nb int) []Difference {
	var out []Difference
	add := func(k string) {
		d := Difference{Key: k, CasesA: a[k], CasesB: b[k]}
		d.ShareA, d.ShareB = share(d.CasesA, na), share(d.CasesB, nb)
		d.Diff = d.ShareA - d.ShareB
		d.Z, d.P = twoProportionZ(d.CasesA, na, d.CasesB, nb)
		out = append(out, d)
	}
	for k := range a {
		add(k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			add(k)
		}
	}
	slices.SortFunc(out, func(x, y Difference) int {
		if c := cmp.Compare(math.Abs(y.Diff), math.Abs(x.Diff)); c != 0 {
			return c
		}
		if c := cmp.Compare(math.Abs(y.Z), math.Abs(x.Z)); c != 0 {
			return c
		}
		return cmp.Compare(x.Key, y.Key)
	})
	return out
}

func share(x, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(x) / float64(n)
}

// twoProportionZ returns the pooled two-proportion z statistic and its
// two-sided p-value (1 when z is 0 by convention of an undefined test).
func twoProportionZ(xa, na, xb, nb int) (z, p float64) {
	if na == 0 || nb == 0 {
		return 0, 1
	}
	pa, pb := float64(xa)/float64(na), float64(xb)/float64(nb)
	pool := float64(xa+xb) / float64(na+nb)
	se := math.Sqrt(pool * (1 - pool) * (1/float64(na) + 1/float64(nb)))
	if se == 0 {
		return 0, 1
	}
	z = (pa - pb) / se
	return z, math.Erfc(math.Abs(z) / math.Sqrt2)
}
