package cmd

import (
	"strings"
	"testing"

	"github.com/trajmine/trajmine/recommend"
)

// TestWriteRecommendTable: the candidate table at natural width, laid out
// by hand (apart from table.go): the mark column (1), CANDIDATE (9, the
// header) and EXCLUDED BY (11) left-aligned, the numbers right-aligned
// under their headers, an indent of 2 and gaps of 2; a "·" or "→" only
// where the family has one, else no mark column.
func TestWriteRecommendTable(t *testing.T) {
	r := recommend.Result{Family: "fam", Runs: 20, Train: 15, HeldOut: 5, Policy: "halflife", Best: "halflife", Why: "recommended: halflife",
		Candidates: []recommend.Candidate{
			{Spec: "keep-all", Rule: "no gain", Ratio: 1.01, TokensSaved: -40, Lost: 1},
			{Spec: "halflife", Eligible: true, Ratio: 0.5, TokensSaved: 12345, Saved: 2, ReinvPer100: 1.5},
		}}
	var b strings.Builder
	if err := writeRecommend(&b, []recommend.Result{r}, 0, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"\nfam (20 runs): recommended: halflife\n",
		"\n     CANDIDATE  TOKENS SAVED  RATIO  RUNS SAVED  LOST  REINV/100 CALLS  EXCLUDED BY\n",
		"\n  →  halflife         12,345  0.500           2     0              1.5  -\n",
		"\n     keep-all            -40  1.010           0     1              0.0  no gain\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("lacks %q:\n%s", want, b.String())
		}
	}
	// no mark: no mark column
	r.Policy, r.Best, r.Insufficient = "", "", true
	b.Reset()
	_ = writeRecommend(&b, []recommend.Result{r}, 0, false)
	if want := "\n  halflife         12,345  0.500           2     0              1.5  -\n"; !strings.Contains(b.String(), want) {
		t.Errorf("lacks %q:\n%s", want, b.String())
	}
}
