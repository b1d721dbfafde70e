package mining_test

import (
	"bytes"
	"math"
	"testing"
	"time"

	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/mining"
)

// TestCompare: group A = c1..c3 of simple (a b c, a c b, a b c), group B =
// a d ×2 and a b c ×1.
//
// Edge a → b: A has it in 2/3 cases, B in 1/3: diff 1/3; pooled p̂ = 3/6 =
// 0.5, z = (1/3) / √(0.25 · (1/3 + 1/3)) = (1/3) / √(1/6) = 0.8165,
// p = erfc(0.8165/√2) = 0.4142. Edge a → d: 0/3 against 2/3: diff −2/3,
// p̂ = 1/3, z = (−2/3) / √((2/9)(2/3)) = −1.7321. Variant a d: same shares.
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
	ab := find(c.Edges, "a -> b")
	if !near(ab.Diff, 1.0/3) || math.Abs(ab.Z-0.8165) > 1e-4 || math.Abs(ab.P-0.4142) > 1e-4 || ab.CasesA != 2 || ab.CasesB != 1 {
		t.Errorf("a -> b = %+v", ab)
	}
	ad := find(c.Edges, "a -> d")
	if !near(ad.Diff, -2.0/3) || math.Abs(ad.Z+1.7321) > 1e-4 {
		t.Errorf("a -> d = %+v", ad)
	}
	if c.Edges[0].Key != "a -> d" && c.Edges[0].Key != "d -> ■" {
		t.Errorf("largest difference first: %+v", c.Edges[0])
	}
	if v := find(c.Variants, "a, d"); !near(v.Diff, -2.0/3) {
		t.Errorf("variant a, d = %+v", v)
	}
	if s := find(c.Edges, "▶ -> a"); s.Z != 0 || s.P != 1 || s.Diff != 0 {
		t.Errorf("▶ -> a (in every case of both) = %+v", s)
	}
	var buf bytes.Buffer
	must(t, c.WriteText(&buf, 0))
	testutil.Golden(t, buf.String(), "testdata/compare.golden")

	// empty groups do not divide by zero
	e := mining.Compare("x", mining.NewLog(), "y", b)
	for _, d := range e.Edges {
		if d.Z != 0 || math.IsNaN(d.ShareA) {
			t.Errorf("empty group: %+v", d)
		}
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
