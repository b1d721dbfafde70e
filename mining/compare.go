package mining

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/trajmine/trajmine/internal/stats"
)

// Difference is one edge or variant compared between two groups of cases.
type Difference struct {
	// Key is "a -> b" for an edge (▶ and ■ included), the activities joined
	// by ", " for a variant.
	Key    string  `json:"key"`
	CasesA int     `json:"cases_a"` // cases of group A with the edge / of the variant
	CasesB int     `json:"cases_b"`
	ShareA float64 `json:"share_a"` // CasesA / cases of A: presence
	ShareB float64 `json:"share_b"`
	// Test is how the difference is tested: "rate" (an edge between two
	// activities: Welch's t-test on the per-case rates per 100 transitions)
	// or "presence" (an edge from ▶ or to ■, which every case has once,
	// and a variant: Fisher's exact test on the cases with it).
	Test string `json:"test"`
	// RateA and RateB are, for a rate test, the mean over the group's cases
	// with a transition of 100 × the edge's count / the case's transitions.
	RateA float64 `json:"rate_a"`
	RateB float64 `json:"rate_b"`
	// Diff is the effect size in the test's unit: RateA − RateB (per 100
	// transitions) for a rate test, ShareA − ShareB for a presence test.
	Diff float64 `json:"diff"`
	// T and DF are the rate test's Welch t statistic and degrees of
	// freedom (0 for a presence test).
	T  float64 `json:"t"`
	DF float64 `json:"df"`
	P  float64 `json:"p"` // two-sided p-value of the test, uncorrected
	// Q is the Benjamini–Hochberg q-value of P among all the comparison's
	// edges (for an edge) or variants (for a variant): a difference with
	// Q ≤ 0.05 is reported at a 5 % false discovery rate.
	Q float64 `json:"q"`
	// PresenceZ and PresenceP are the unnormalised test this comparison
	// used before (issue 28.4): two-proportion z on presence, not
	// corrected. Longer runs have more edges by length alone, so it flags
	// edges that only follow run length; kept for reference.
	PresenceZ float64 `json:"presence_z"`
	PresenceP float64 `json:"presence_p"`
}

// Comparison sets two groups of cases side by side.
type Comparison struct {
	A      string `json:"a"` // group names
	B      string `json:"b"`
	CasesA int    `json:"cases_a"`
	CasesB int    `json:"cases_b"`
	// Edges and Variants hold every edge and every variant (at
	// VariantLevel) seen in either group, by Q, then P, then |Diff|
	// (descending), then Key.
	Edges    []Difference `json:"edges"`
	Variants []Difference `json:"variants"`
	// VariantLevel is the level of Variants: CoarseVariants' over both
	// groups' cases (repeats collapsed, else the order of first
	// occurrence), since cases that are each their own variant as logged
	// cannot differ in share.
	VariantLevel VariantLevel `json:"variant_level"`
	// VariantsExact and VariantsCoarse count the distinct variants of the
	// two groups' cases as logged and at VariantLevel.
	VariantsExact  int `json:"variants_exact"`
	VariantsCoarse int `json:"variants_coarse"`
}

// FDR is the false discovery rate at which a Difference is significant
// (Q ≤ FDR).
const FDR = 0.05

// Compare compares the cases of a and b (named nameA and nameB; typically
// two Filter results of one log: resolved against failed, with
// context.disable against without, one model family against another).
//
// The unit is the case, normalised by its length, and every result is
// corrected for the number of tests:
//
//  1. An edge x → y between two activities is tested on its rate per case,
//     rate = 100 × count(x → y in the case) / transitions of the case
//     (events − 1; cases with fewer than two events have no rate), with
//     Welch's two-sided t-test of group A's mean rate against B's
//     (stats.WelchT); Diff is the difference of the mean rates. A longer
//     case has more of every edge; its rate does not grow with its length.
//     A rank test (Mann–Whitney) would not do: a short case has no
//     transition of most edges, a long one a few of each, so at equal mean
//     rates the short cases' many zeros rank below the long ones' and the
//     test flags run length again (TestCompareRunLength).
//  2. An edge from ▶ or to ■ (once per case) and a variant are tested on
//     presence, x_A of n_A cases against x_B of n_B, with Fisher's exact
//     test (stats.FisherExact); Diff = x_A/n_A − x_B/n_B.
//  3. Variants are the cases' activity sequences with consecutive repeats
//     collapsed (read, read, edit → read, edit: CollapseRepeats), so that
//     cases that differ only in how many times they repeated a step share a
//     variant; when that still leaves more variants than half the cases of
//     both groups, by the order in which each case took up its activities
//     (FirstOccurrences: CoarseVariants' rule over both groups).
//  4. Q: Benjamini–Hochberg over every edge's P (one family) and over every
//     variant's (another): stats.BenjaminiHochberg.
//
// PresenceZ and PresenceP keep the unnormalised, uncorrected test of
// presence (Z = (p_A − p_B)/√(p̂(1−p̂)(1/n_A + 1/n_B)), P = erfc(|Z|/√2)).
func Compare(nameA string, a *Log, nameB string, b *Log) *Comparison {
	c := &Comparison{A: nameA, B: nameB, CasesA: len(a.Cases), CasesB: len(b.Cases)}
	ra, rb := edgeRates(a), edgeRates(b)
	keys := map[string]bool{}
	for k := range ra.cases {
		keys[k] = true
	}
	for k := range rb.cases {
		keys[k] = true
	}
	for k := range keys {
		d := Difference{Key: k, CasesA: ra.cases[k], CasesB: rb.cases[k]}
		d.ShareA, d.ShareB = share(d.CasesA, c.CasesA), share(d.CasesB, c.CasesB)
		d.PresenceZ, d.PresenceP = twoProportionZ(d.CasesA, c.CasesA, d.CasesB, c.CasesB)
		if ra.artificial[k] || rb.artificial[k] {
			d.Test = "presence"
			d.Diff = d.ShareA - d.ShareB
			d.P = stats.FisherExact(d.CasesA, c.CasesA-d.CasesA, d.CasesB, c.CasesB-d.CasesB)
		} else {
			d.Test = "rate"
			xa, xb := ra.samples(k), rb.samples(k)
			d.RateA, d.RateB = meanOf(xa), meanOf(xb)
			d.Diff = d.RateA - d.RateB
			wt := stats.WelchT(xa, xb)
			d.P, d.T, d.DF = wt.P, wt.T, wt.DF
		}
		c.Edges = append(c.Edges, d)
	}
	// the variants of both groups by name (the two logs may intern their
	// activities differently): repeats collapsed, else the order of first
	// occurrence when that leaves more variants than half the cases
	union := func(f func(*Log) []Variant) map[string][2]int {
		m := map[string][2]int{}
		for _, v := range f(a) {
			k := variantName(v.Activities)
			m[k] = [2]int{v.Count, m[k][1]}
		}
		for _, v := range f(b) {
			k := variantName(v.Activities)
			m[k] = [2]int{m[k][0], v.Count}
		}
		return m
	}
	c.VariantLevel = LevelCollapsed
	vcases := union(CollapsedVariants)
	if 2*len(vcases) > c.CasesA+c.CasesB {
		c.VariantLevel, vcases = LevelOrder, union(OrderVariants)
	}
	c.VariantsCoarse = len(vcases)
	exact := map[string]bool{}
	for _, l := range []*Log{a, b} {
		for _, v := range Variants(l) {
			exact[variantName(v.Activities)] = true
		}
	}
	c.VariantsExact = len(exact)
	for k, n := range vcases {
		d := Difference{Key: k, CasesA: n[0], CasesB: n[1], Test: "presence"}
		d.ShareA, d.ShareB = share(d.CasesA, c.CasesA), share(d.CasesB, c.CasesB)
		d.Diff = d.ShareA - d.ShareB
		d.PresenceZ, d.PresenceP = twoProportionZ(d.CasesA, c.CasesA, d.CasesB, c.CasesB)
		d.P = stats.FisherExact(d.CasesA, c.CasesA-d.CasesA, d.CasesB, c.CasesB-d.CasesB)
		c.Variants = append(c.Variants, d)
	}
	for _, ds := range [][]Difference{c.Edges, c.Variants} {
		ps := make([]float64, len(ds))
		for i := range ds {
			ps[i] = ds[i].P
		}
		for i, q := range stats.BenjaminiHochberg(ps) {
			ds[i].Q = q
		}
		slices.SortFunc(ds, func(x, y Difference) int {
			return cmp.Or(cmp.Compare(x.Q, y.Q), cmp.Compare(x.P, y.P), cmp.Compare(math.Abs(y.Diff), math.Abs(x.Diff)), cmp.Compare(x.Key, y.Key))
		})
	}
	return c
}

// variantName is a variant's key: its activities quoted and joined by ", ".
func variantName(acts []string) string {
	names := make([]string, len(acts))
	for i, a := range acts {
		names[i] = quoteName(a)
	}
	return strings.Join(names, ", ")
}

// rates are a log's edges per case: for each edge key, the cases with it,
// and per case with a transition, its rate per 100 transitions.
type rates struct {
	cases      map[string]int       // cases with the edge
	artificial map[string]bool      // edges from ▶ or to ■
	rate       map[string][]float64 // per edge, the rates of the cases with it
	withTrans  int                  // cases with at least one transition
}

// samples is the edge's rate in every case with a transition: the cases
// without the edge at 0.
func (r *rates) samples(k string) []float64 {
	out := make([]float64, 0, r.withTrans)
	out = append(out, r.rate[k]...)
	for len(out) < r.withTrans {
		out = append(out, 0)
	}
	return out
}

func edgeRates(l *Log) *rates {
	r := &rates{cases: map[string]int{}, artificial: map[string]bool{}, rate: map[string][]float64{}}
	name := func(a int32) string { return quoteName(l.Activities[a]) }
	for ci := range l.Cases {
		evs := l.Cases[ci].Events
		if len(evs) == 0 {
			k := quoteName(Start) + " -> " + quoteName(End)
			r.cases[k]++
			r.artificial[k] = true
			continue
		}
		first, last := quoteName(Start)+" -> "+name(evs[0].Activity), name(evs[len(evs)-1].Activity)+" -> "+quoteName(End)
		for _, k := range []string{first, last} {
			r.cases[k]++
			r.artificial[k] = true
		}
		trans := len(evs) - 1
		if trans == 0 {
			continue
		}
		r.withTrans++
		counts := map[string]int{}
		for i := 1; i < len(evs); i++ {
			counts[name(evs[i-1].Activity)+" -> "+name(evs[i].Activity)]++
		}
		for k, n := range counts {
			r.cases[k]++
			r.rate[k] = append(r.rate[k], 100*float64(n)/float64(trans))
		}
	}
	return r
}

func meanOf(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
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
