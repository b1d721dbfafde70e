package doccheck_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/internal/doccheck"
)

func TestWords(t *testing.T) {
	D, L, B, C := doccheck.Dotted, doccheck.DocLink, doccheck.Backquote, doccheck.Camel
	tests := []struct {
		line string
		want []doccheck.Word
	}{
		{"Page is the page's data from a Report.", nil},
		{"reportData fills it; RecommendStore too", []doccheck.Word{{"reportData", C}, {"RecommendStore", C}}},
		{"see runWork.replayTrace and simulate.Options.Window", []doccheck.Word{{"runWork.replayTrace", D}, {"simulate.Options.Window", D}}},
		{"as [Page] and [*store.Store] say; list[Key] is an index", []doccheck.Word{{"Page", L}, {"store.Store", L}}},
		{"[x] and [0] are no links", nil},
		{"`Page`, `o.Export`, `jsonLines`, `trajmine show --json`", []doccheck.Word{{"Page", B}, {"o.Export", B}, {"jsonLines", B}}},
		{`the "sessionId" key and “ModelEvent” are data`, nil},
		{"an unclosed \" quote before camelCase", []doccheck.Word{{"camelCase", C}}},
		{"IDs, URLs, JSON, DTOC, TRAJMINE_DB, p_A are no code", nil},
		{"https://github.com/x/FooBar and ../pkg/BarBaz, --noRedact, key=FooBar", nil},
		{"#xA and \\uXXXX are escapes", nil},
		{"naïveCase and caféBar are words", nil},
		{"e.g. runs.run_id, i.e.", []doccheck.Word{{"e.g", D}, {"runs.run_id", D}, {"i.e", D}}},
		{"a sentence ends with Page. Then", nil},
		{"2xxCode and 4oMini", nil},
	}
	for _, tc := range tests {
		t.Run(tc.line, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, doccheck.Words(tc.line)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzWords: Words never panics, and every word it returns is in the
// line, shaped as its kind says.
func FuzzWords(f *testing.F) {
	for _, s := range []string{"reportData and runWork.replayTrace", "[Page] `o.Export` \"x\"", "“a” naïveCase [x.Y", "`unclosed [*T.M]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		for _, w := range doccheck.Words(line) {
			if w.Text == "" || !strings.Contains(line, w.Text) {
				t.Fatalf("%q: word %q is not in the line", line, w.Text)
			}
			if w.Kind == doccheck.Dotted && !strings.Contains(w.Text, ".") {
				t.Fatalf("%q: dotted word %q has no dot", line, w.Text)
			}
		}
	})
}
