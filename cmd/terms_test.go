package cmd

import (
	"strings"
	"testing"

	"github.com/trajmine/trajmine/internal/glossary"
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
	root, _, _ := run(t, d, "--help")
	if !strings.Contains(root, "Additional help topics:\n  trajmine terms ") {
		t.Errorf("the root's help does not list terms:\n%s", root)
	}
}
