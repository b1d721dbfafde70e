package dashboards

import (
	"strings"
	"testing"

	"github.com/trajmine/trajmine/internal/testutil"
)

// TestCompareSection renders the comparison section alone (golden: the
// layout of the DTOC paper's Tables 3 and 4) and checks that text from
// logs (a task id, a group name) is escaped.
func TestCompareSection(t *testing.T) {
	d := &Data{Compare: &Compare{
		Title:  "24 runs by tag:dtoc, reference off",
		Groups: []CompareGroup{{Name: "off", Runs: 12, Tasks: 12}, {Name: "on", Runs: 12, Tasks: 12, MCs: 12}},
		Tables: []CompareTable{{Group: "on", Reference: "off", Figures: []string{"solve rate", "input tokens"},
			Models: []CompareModel{{Model: "gpt-5", Pairing: "12 paired tasks", Ref: []string{"66.7%", "46,765"}, Group: []string{"83.3%", "15,842"},
				Change: []string{"+16.7 pts [+0.0, +41.7]", "-66.1% [-68.5%, -63.0%]"}, Verdict: []string{"not enough", "lower"},
				Sentence: "gpt-5, on vs off (12 paired tasks): solve rate 83.3% vs 66.7%."}}}},
		Check:     []string{"simulator check, on vs off: input tokens predicted -66.5%, observed -66.1%: agree."},
		CheckNote: "",
		Matrix: CompareMatrix{Columns: []string{"gpt-5/off", "gpt-5/on"}, Note: "2 tasks, 1 where the groups differ.",
			Rows: []CompareTask{{Task: "t00<script>alert(1)</script>", Marks: []string{"✗", "✓"}, Differs: true}, {Task: "t01", Marks: []string{"✓", "✓"}}}},
		Rules: "Changes are Σ group / Σ reference − 1 over the pairs.",
	}}
	var b strings.Builder
	if err := page.ExecuteTemplate(&b, "compare", view{D: d}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "<script>alert") || !strings.Contains(out, "t00&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("the task id is not escaped:\n%s", out)
	}
	testutil.Golden(t, out, "testdata/compare-section.golden")
	b.Reset()
	if err := page.ExecuteTemplate(&b, "compare", view{D: &Data{}}); err != nil || strings.TrimSpace(b.String()) != "" {
		t.Errorf("no comparison: %q, %v", b.String(), err)
	}
}
