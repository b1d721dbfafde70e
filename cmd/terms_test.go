package cmd

import (
	"fmt"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/internal/glossary"
	"github.com/trajmine/trajmine/recommend"
)

// TestHelpTerms: trajmine help terms (and terms --help) prints every term
// of the glossary with its definition, in the glossary's order (its
// goldens at 100 and 60 columns are TestFittedTables'); the root's help
// lists it as a help topic.
func TestHelpTerms(t *testing.T) {
	d := testDeps(t, nil)
	for _, args := range [][]string{{"help", "terms"}, {"terms", "--help"}} {
		out, stderr, code := run(t, d, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		at := 0
		for _, term := range glossary.Terms {
			i := strings.Index(out[at:], "\n"+term.Name+"\n  "+term.Definition+"\n")
			if i < 0 {
				t.Errorf("%v: no %q with its definition after offset %d", args, term.Name, at)
				continue
			}
			at += i + 1
		}
	}
	// the glossary's figures are the code's (it imports nothing: checked here)
	def := map[string]string{}
	for _, x := range glossary.Terms {
		def[x.Name] = x.Definition
	}
	for _, c := range []struct{ term, want string }{
		{"held-out runs", fmt.Sprintf("mod --holdout-every (%d) is 0", recommend.DefaultHoldoutEvery)},
		{"reading boundary", fmt.Sprintf("at least %d runs", diagnose.BoundaryMinRuns)},
		{"reading boundary", "reaches half the runs"},
		{"stopped while reading", fmt.Sprintf("last %d tool calls", diagnose.BoundaryK)},
		{"CI", "95% confidence interval"},
	} {
		if !strings.Contains(def[c.term], c.want) {
			t.Errorf("%s: %q does not say %q", c.term, def[c.term], c.want)
		}
	}
	if diagnose.BoundaryShare != 0.5 {
		t.Errorf("the reading boundary's share is %v: the glossary says half", diagnose.BoundaryShare)
	}
	root, _, _ := run(t, d, "--help")
	if !strings.Contains(root, "Additional help topics:\n  trajmine terms ") {
		t.Errorf("the root's help does not list terms:\n%s", root)
	}
}
