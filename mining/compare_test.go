package mining_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/mining"
)

// TestCompare: group A = c1..c3 of simple (a b c, a c b, a b c), group B =
// a d ×2 and a b c ×1; every figure worked by hand.
//
// Edge a → b is tested on its rate per 100 transitions: A's cases have 2
// transitions each, a → b in c1 and c3: rates 50, 0, 50 (mean 33.333); B's
// 0, 0, 50 (16.667). Welch: both variances 833.33, T = 16.667/√(2·833.33/3)
// = 0.70711, DF = 4, P = 0.51852 (stats TestWelchT). Its presence (2/3
// against 1/3) gives the old z = (1/3)/√(0.25·(2/3)) = 0.8165, p = 0.4142.
// Edge a → d: A 0, 0, 0 against B 100, 100, 0: T = −2, DF = 2, P = 0.18350;
// a → c and c → b: 0, 50, 0 against 0, 0, 0: T = 16.667/16.667 = 1, DF = 2,
// F₂(1) = ½ + 1/(2√3), P = 0.42265. ▶ → a is in every case of both: Fisher
// p = 1; d → ■: 0/3 against 2/3, Fisher 2·(3/15) = 0.4. The 9 edges'
// p-values sorted: 0.18350, 0.4, 0.42265 ×2, 0.51852 ×2, 1 ×3; BH's
// 9·p/rank has its running minimum 9·0.51852/6 = 0.77778 for the first six.
// Variant a, d (repeats collapsed; there are none here): 0/3 against 2/3,
// Fisher p = 0.4.
func TestCompare(t *testing.T) {
	a := mining.NewLog(simple[:3]...)
	b := mining.NewLog([]string{"a", "d"}, []string{"a", "d"}, []string{"a", "b", "c"})
	c := mining.Compare("A", a, "B", b)
	find := func(ds []mining.Difference, key string) mining.Difference {
		for _, d := range ds {
			if d.Key == key {
				return d
			}
		}
		t.Fatalf("no difference %q", key)
		return mining.Difference{}
	}
	close4 := func(x, y float64) bool { return math.Abs(x-y) < 1e-4 }
	ab := find(c.Edges, "a -> b")
	if ab.Test != "rate" || !close4(ab.RateA, 100.0/3) || !close4(ab.RateB, 50.0/3) || !close4(ab.Diff, 50.0/3) || !close4(ab.P, 0.51852) ||
		!close4(ab.T, 0.70711) || ab.DF != 4 || !close4(ab.PresenceZ, 0.8165) || !close4(ab.PresenceP, 0.4142) || !close4(ab.Q, 0.77778) || ab.CasesA != 2 || ab.CasesB != 1 {
		t.Errorf("a -> b = %+v", ab)
	}
	ad := find(c.Edges, "a -> d")
	if !close4(ad.Diff, -200.0/3) || !close4(ad.P, 0.18350) || !close4(ad.Q, 0.77778) {
		t.Errorf("a -> d = %+v", ad)
	}
	if c.Edges[0].Key != "a -> d" {
		t.Errorf("lowest q, then p first: %+v", c.Edges[0])
	}
	if ac := find(c.Edges, "a -> c"); !close4(ac.P, 0.42265) || !close4(ac.T, 1) {
		t.Errorf("a -> c = %+v", ac)
	}
	if s := find(c.Edges, "▶ -> a"); s.Test != "presence" || s.P != 1 || s.Q != 1 || s.Diff != 0 {
		t.Errorf("▶ -> a (in every case of both) = %+v", s)
	}
	if v := find(c.Variants, "a, d"); !close4(v.Diff, -2.0/3) || !close4(v.P, 0.4) {
		t.Errorf("variant a, d = %+v", v)
	}
	if len(c.Edges) != 9 || c.VariantsExact != 3 || c.VariantsCoarse != 3 || c.VariantLevel != mining.LevelCollapsed {
		t.Errorf("%d edges, %d exact and %d %s variants", len(c.Edges), c.VariantsExact, c.VariantsCoarse, c.VariantLevel)
	}
	var buf bytes.Buffer
	must(t, c.WriteText(&buf, 0))
	testutil.Golden(t, buf.String(), "testdata/compare.golden")

	// empty groups do not divide by zero
	e := mining.Compare("x", mining.NewLog(), "y", b)
	for _, d := range e.Edges {
		if d.PresenceZ != 0 || math.IsNaN(d.ShareA) || math.IsNaN(d.P) || math.IsNaN(d.Q) {
			t.Errorf("empty group: %+v", d)
		}
	}
}

// randomTraces draws n traces of length steps from acts, uniformly, from
// a PCG seeded with seed; plant, when set, replaces each step with
// probability p by the pair plant[0], plant[1].
func randomTraces(seed uint64, n, steps int, acts []string, plant []string, p float64) [][]string {
	rng := rand.New(rand.NewPCG(seed, 7))
	var out [][]string
	for range n {
		var tr []string
		for len(tr) < steps {
			if plant != nil && rng.Float64() < p {
				tr = append(tr, plant...)
				continue
			}
			tr = append(tr, acts[rng.IntN(len(acts))])
		}
		out = append(out, tr)
	}
	return out
}

// TestCompareFalseDiscoveries: 40 cases per group of 40 steps drawn
// uniformly from 8 activities (64 noise edges with the same rate in both
// groups); at 10 % of the steps group A does the pair p → q and group B
// the pair p → r instead (so that the noise edges keep the same share of
// the transitions in both). The uncorrected rate test finds noise edges
// with p < 0.05 (as expected of 64 tests at 5 %); Benjamini–Hochberg keeps
// only the planted edges (p → q, p → r) at q ≤ 0.05.
func TestCompareFalseDiscoveries(t *testing.T) {
	acts := []string{"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7"}
	a := mining.NewLog(randomTraces(1, 40, 40, acts, []string{"p", "q"}, 0.10)...)
	b := mining.NewLog(randomTraces(2, 40, 40, acts, []string{"p", "r"}, 0.10)...)
	c := mining.Compare("A", a, "B", b)
	var rawNoise, qNoise []string
	planted := false
	for _, d := range c.Edges {
		if d.Test != "rate" {
			continue
		}
		isPlanted := d.Key == "p -> q"
		if isPlanted {
			planted = d.Q <= mining.FDR && d.Diff > 0
			continue
		}
		if strings.Contains(d.Key, "p") || strings.Contains(d.Key, "q") || strings.Contains(d.Key, "r") {
			continue // edges into and out of the planted pairs (p → r among them) differ in truth too
		}
		if d.P < 0.05 {
			rawNoise = append(rawNoise, d.Key)
		}
		if d.Q <= mining.FDR {
			qNoise = append(qNoise, d.Key)
		}
	}
	if !planted {
		t.Errorf("the planted edge p -> q is not found at q ≤ %v", mining.FDR)
	}
	if len(rawNoise) == 0 {
		t.Errorf("no noise edge has an uncorrected p < 0.05: the case does not show the need for correction")
	}
	if len(qNoise) > 0 {
		t.Errorf("noise edges at q ≤ %v: %v", mining.FDR, qNoise)
	}
	t.Logf("noise edges with uncorrected p < 0.05: %v", rawNoise)
}

// TestCompareRunLength: failed cases are 4× longer than resolved ones
// (60 against 15 steps) with the same activities at the same rates. On
// presence, nearly every edge of the long cases is present and many of
// the short ones' are not, so the unnormalised test flags most edges; the
// rate per 100 transitions does not grow with length, and no edge reaches
// q ≤ 0.05.
func TestCompareRunLength(t *testing.T) {
	acts := []string{"read", "edit", "test", "search", "run", "think"}
	failed := mining.NewLog(randomTraces(3, 40, 60, acts, nil, 0)...)
	resolved := mining.NewLog(randomTraces(4, 40, 15, acts, nil, 0)...)
	c := mining.Compare("failed", failed, "resolved", resolved)
	presence, flagged := 0, 0
	for _, d := range c.Edges {
		if d.Test != "rate" {
			continue
		}
		if d.PresenceP < 0.05 && d.ShareA > d.ShareB {
			presence++
		}
		if d.Q <= mining.FDR {
			flagged++
		}
	}
	if presence < 20 || flagged != 0 {
		t.Errorf("presence flags %d of 36 edges (want ≥ 20), the normalised test %d (want 0)", presence, flagged)
	}
}

// TestCoarseVariants: cases that differ only in repeats share a
// collapsed variant; cases that share no path share the order in which
// they took up their activities; CoarseVariants picks the finer level
// where it leaves at most one variant per two cases.
func TestCoarseVariants(t *testing.T) {
	join := func(vs []mining.Variant) string {
		var out []string
		for _, v := range vs {
			out = append(out, fmt.Sprintf("%d:%s", v.Count, strings.Join(v.Activities, " ")))
		}
		return strings.Join(out, " | ")
	}
	repeats := mining.NewLog([]string{"r", "r", "r", "e"}, []string{"r", "e"}, []string{"r", "e", "e", "r"}, []string{"r", "e", "r"})
	if got := join(mining.CollapsedVariants(repeats)); got != "2:r e | 2:r e r" || len(mining.Variants(repeats)) != 4 {
		t.Errorf("collapsed: %s", got)
	}
	if vs, level := mining.CoarseVariants(repeats); level != mining.LevelCollapsed || len(vs) != 2 {
		t.Errorf("coarse: %s at %s", join(vs), level)
	}
	paths := mining.NewLog([]string{"r", "s", "r", "e", "t"}, []string{"r", "e", "s", "e", "t"}, []string{"r", "s", "e", "t", "e"}, []string{"e", "r", "t"})
	if got := join(mining.OrderVariants(paths)); got != "2:r s e t | 1:e r t | 1:r e s t" {
		t.Errorf("order: %s", got)
	}
	if _, level := mining.CoarseVariants(paths); level != mining.LevelOrder {
		t.Errorf("4 collapsed variants in 4 cases: level %s", level)
	}
}

func TestFilter(t *testing.T) {
	l := buildLog(t, nil) // r1: openai, gpt-5, resolved, starts t0; r2: claude-code, claude-opus-4, failed, t0+100s
	ids := func(l *mining.Log) string {
		s := ""
		for _, c := range l.Cases {
			s += c.ID + " "
		}
		return s
	}
	for _, tc := range []struct {
		name string
		f    *mining.Filter
		want string
	}{
		{"nil", nil, "r1 r2 "},
		{"all", &mining.Filter{}, "r1 r2 "},
		{"model", &mining.Filter{ModelFamilies: []string{"claude-opus-4"}}, "r2 "},
		{"harness", &mining.Filter{Harnesses: []string{"openai", "x"}}, "r1 "},
		{"format", &mining.Filter{Formats: []string{"none"}}, ""},
		{"resolved", &mining.Filter{Outcome: mining.OutcomeResolved}, "r1 "},
		{"failed", &mining.Filter{Outcome: mining.OutcomeFailed}, "r2 "},
		{"unknown", &mining.Filter{Outcome: mining.OutcomeUnknown}, ""},
		{"from", &mining.Filter{From: t0.Add(time.Second)}, "r2 "},
		{"to", &mining.Filter{To: t0.Add(100 * time.Second)}, "r1 "},
		{"with", &mining.Filter{With: []string{"context.disable", "nope"}}, "r1 "},
		{"without", &mining.Filter{Without: []string{"context.disable"}}, "r2 "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ids(l.Filter(tc.f)); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	for _, o := range []mining.Outcome{mining.OutcomeAny, mining.OutcomeResolved, mining.OutcomeFailed, mining.OutcomeUnknown} {
		if got, err := mining.ParseOutcome(o.String()); err != nil || got != o {
			t.Errorf("ParseOutcome(%s) = %v, %v", o, got, err)
		}
	}
	if _, err := mining.ParseOutcome("won"); err == nil {
		t.Error("ParseOutcome(won): no error")
	}
	// a filtered log shares activities: the DFG of a part counts only its cases
	if d := mining.NewDFG(l.Filter(&mining.Filter{Outcome: mining.OutcomeFailed})); d.Cases != 1 || d.Events != 3 {
		t.Errorf("filtered DFG %d cases %d events", d.Cases, d.Events)
	}
}
