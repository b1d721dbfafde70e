package counterfactual_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/counterfactual"
)

// runRE is a word run of the Words documentation: the bytes [A-Za-z0-9_./:-].
var runRE = regexp.MustCompile(`[A-Za-z0-9_./:-]+`)

// refWords is an independent reading of the rules of Words (regexp and
// strings functions, none of the package's byte classes), for FuzzWords.
func refWords(s string) []tok {
	var out []tok
	for _, loc := range runRE.FindAllStringIndex(s, -1) {
		w := strings.TrimRight(s[loc[0]:loc[1]], ".:-")
		if refDistinctive(w) {
			out = append(out, tok{loc[0], w})
		}
	}
	return out
}

func refDistinctive(w string) bool {
	const lower, upper, digits = "abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789"
	letter := strings.ContainsAny(w, lower+upper)
	digit := strings.ContainsAny(w, digits)
	if (!letter && !digit) || len(w) > counterfactual.MaxWord {
		return false
	}
	if strings.Trim(w, digits) == "" {
		return len(w) >= 3 // a number of 3 or more digits
	}
	if len(w) < counterfactual.MinWord {
		return false
	}
	return strings.ContainsAny(w, "_/") || strings.Contains(w[1:], ".") ||
		(strings.ContainsAny(w, lower) && strings.ContainsAny(w[1:], upper)) ||
		(letter && digit)
}

// FuzzWords checks Words against refWords on arbitrary text.
func FuzzWords(f *testing.F) {
	for _, s := range []string{
		"see pkg/server.go:12: handleRequest_2 failed", "x.py:12:: a-b- --- ....", "404 42 1142. utf-8 sha256 README Hello",
		".bashrc _a_ /x/ a.b. camelCase: TypeName- x86_64", strings.Repeat("a_", 101) + " " + strings.Repeat("b/", 100),
		"naïve_word ab\x00cd_ef 1.25",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if diff := cmp.Diff(refWords(s), collect(counterfactual.Words(s))); diff != "" {
			t.Fatalf("Words(%q) differs from the reference (-want +got):\n%s", s, diff)
		}
	})
}
