package compare_test

import (
	"strings"
	"testing"
	"time"

	"github.com/trajmine/trajmine/compare"
)

// TestParseGroup: accepted groups match the runs they should, rejected
// ones name what is wrong.
func TestParseGroup(t *testing.T) {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	run := compare.Run{ID: "r", Model: "claude-sonnet-4", Raw: "anthropic/claude-sonnet-4.6", Harness: "opencode",
		Path: "exp/dtoc-on/deepswe/run1.jsonl", Started: &start, Tags: map[string]string{"dtoc": "on", "seed": "1"}}
	for _, tc := range []struct {
		spec  string
		name  string
		match bool
	}{
		{"on=tag:dtoc=on", "on", true},
		{"off=tag:dtoc=off", "off", false},
		{"x=model=claude-sonnet-4", "x", true},
		{"x=model=claude-*", "x", true},
		{"x=model=ANTHROPIC/claude-sonnet-4.6", "x", true}, // the model as logged, case folded
		{"x=model=gpt-*", "x", false},
		{"x=harness=open*", "x", true},
		{"x=path=exp/dtoc-on", "x", true}, // a folder of the run's path
		{"x=exp/dtoc-on", "x", true},      // a bare term is a path glob
		{"x=exp/*-on", "x", true},
		{"x=exp/dtoc-o", "x", false}, // a prefix that is no folder
		{"x=exp/dtoc-on/deepswe/run1.jsonl", "x", true},
		{"x=since=2026-03-01", "x", true},
		{"x=since=2026-03-02", "x", false},
		{"x=until=2026-03-01T12:00:00Z", "x", false}, // until is exclusive
		{"x=until=2026-03-01T12:00:01Z", "x", true},
		{"x=model=claude-*, tag:seed=1 ,path=exp", "x", true},
		{"x=model=claude-*,tag:seed=2", "x", false},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			g, err := compare.ParseGroup(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			if g.Name != tc.name || g.Filter.Match(&run) != tc.match {
				t.Errorf("name %q, match %v; want %q, %v", g.Name, g.Filter.Match(&run), tc.name, tc.match)
			}
		})
	}
	untimed := compare.Run{ID: "u"}
	if g, _ := compare.ParseGroup("x=until=2030-01-01"); g.Filter.Match(&untimed) {
		t.Error("a run with no start matches a date term")
	}
	for _, tc := range []struct{ spec, msg string }{
		{"nameonly", "want NAME=FILTER"},
		{"=model=x", "want NAME=FILTER"},
		{"a,b=model=x", "may not hold"},
		{"x=", "term 1 is empty"},
		{"x=model=a,,harness=b", "term 2 is empty"},
		{"x=colour=red", `unknown key "colour"`},
		{"x=model=", "empty model"},
		{"x=since=yesterday", "neither a date"},
		{"x=tag:=on", "needs a key"},
		{"x=path=[", "bad pattern"},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			_, err := compare.ParseGroup(tc.spec)
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("err %v, want %q", err, tc.msg)
			}
		})
	}
}

func TestParseBy(t *testing.T) {
	for _, tc := range []struct {
		by string
		ok bool
	}{{"model", true}, {"harness", true}, {"manage-context", true}, {"tag:dtoc", true}, {"tag:", false}, {"format", false}, {"", false}} {
		if err := compare.ParseBy(tc.by); (err == nil) != tc.ok {
			t.Errorf("ParseBy(%q) = %v", tc.by, err)
		}
	}
}

// TestAssignExplicit: a run matching two groups counts in the first, a
// run matching none is left out; both are counted.
func TestAssignExplicit(t *testing.T) {
	runs := []compare.Run{{ID: "a", Path: "x/a"}, {ID: "b", Path: "y/b"}, {ID: "c", Path: "z/c"}}
	g := compare.Grouping{Groups: []compare.Group{mustGroup(t, "first=x"), mustGroup(t, "second=*/[ab]")}}
	a := g.Assign(runs)
	if a.Of[0] != 0 || a.Of[1] != 1 || a.Of[2] != -1 || a.Overlap != 1 || a.Left != 1 {
		t.Errorf("assignment %+v", a)
	}
}

// FuzzParseGroup: any input either parses or returns an error; never a
// panic, and a parsed group has a name and at least one term.
func FuzzParseGroup(f *testing.F) {
	for _, s := range []string{"on=tag:dtoc=on", "x=model=claude-*,harness=codex", "old=since=2026-01-01,until=2026-02-01T00:00:00Z", "p=runs/[a-c]*", "=", "a=b=c=d", "x=path=["} {
		f.Add(s)
	}
	run := compare.Run{ID: "r", Model: "m", Path: "a/b/c", Tags: map[string]string{"k": "v"}}
	f.Fuzz(func(t *testing.T, s string) {
		g, err := compare.ParseGroup(s)
		if err != nil {
			return
		}
		if g.Name == "" || len(g.Filter.Terms) == 0 {
			t.Fatalf("ParseGroup(%q) = %+v without error", s, g)
		}
		g.Filter.Match(&run)
	})
}
