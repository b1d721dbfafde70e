package glossary

import (
	"slices"
	"strings"
	"testing"
)

// TestTerms: in alphabetical order (case-folded), each once, each with a
// definition that is a sentence, and the terms issue 32 asked for there.
func TestTerms(t *testing.T) {
	names := make([]string, len(Terms))
	for i, x := range Terms {
		names[i] = strings.ToLower(x.Name)
		if x.Definition == "" || !strings.HasSuffix(x.Definition, ".") || strings.ToUpper(x.Definition[:1]) != x.Definition[:1] && !strings.HasPrefix(x.Definition, "--") && !strings.HasPrefix(x.Definition, "Σ") {
			t.Errorf("%s: the definition %q is not a sentence", x.Name, x.Definition)
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("terms out of order: %v", names)
	}
	if c := slices.Compact(slices.Clone(names)); len(c) != len(names) {
		t.Errorf("a term twice: %v", names)
	}
	for _, want := range []string{"as-logged", "keep-all", "tokens × (token ratio)", "cost × (cost ratio)", "cached cost", "reading boundary", "overflow", "placeholder",
		"re-invocation", "held-out runs", "ci", "cumulative incidence", "solve rate", "cost per solved task"} {
		if !slices.Contains(names, want) {
			t.Errorf("no term %q", want)
		}
	}
}
