package cmd

import (
	"bytes"
	"context"
	"github.com/trajmine/trajmine/simulate"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/recommend"
)

// TestWriteRecommendTable: the candidate table at natural width, laid out
// by hand (apart from table.go): the mark column (1), CANDIDATE (9, the
// header) and EXCLUDED BY (11) left-aligned, the numbers right-aligned
// under their headers (95% CI is 14 wide: "[0.850, 0.950]"), an indent of
// 2 and gaps of 2; a "·" or "→" only where the
// family has one, else no mark column; under the table every gate each
// shown candidate failed, with its figure (issue 27: every exclusion said
// where the choice is shown).
func TestWriteRecommendTable(t *testing.T) {
	r := recommend.Result{Family: "fam", Runs: 20, Train: 15, HeldOut: 5, Policy: "halflife", Best: "halflife", Why: "recommended: halflife",
		Choice: recommend.Choice{Currency: recommend.CurrencyCost},
		Candidates: []recommend.Candidate{
			{Option: recommend.Option{Spec: "keep-all", Cost: recommend.Figure{X: 1.02, Lo: 1.01, Hi: 1.03}, Tokens: recommend.Figure{X: 1.01, Lo: 1, Hi: 1.02}, TokensSaved: -40, Lost: 1},
				Rule: "lost", Rules: []string{"lost", "cost"}, Whys: []string{"loses 1 run what ran gets through", "cost × 1.020 [1.010, 1.030], not below what ran"}},
			{Option: recommend.Option{Spec: "halflife", Cost: recommend.Figure{X: 0.9, Lo: 0.85, Hi: 0.95}, Tokens: recommend.Figure{X: 0.5, Lo: 0.45, Hi: 0.55}, TokensSaved: 12345, Saved: 2, ReinvPer100: 1.5},
				Eligible: true},
		}}
	var b strings.Builder
	if err := writeRecommend(&b, []recommend.Result{r}, 0, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"\nfam (20 runs): recommended: halflife\n",
		"\n     CANDIDATE  COST ×          95% CI  TOKENS ×  TOKENS SAVED  RUNS SAVED  LOST  REINV/100 CALLS  EXCLUDED BY\n",
		"\n  →  halflife    0.900  [0.850, 0.950]     0.500        12,345           2     0              1.5  -\n",
		"\n     keep-all    1.020  [1.010, 1.030]     1.010           -40           0     1              0.0  lost, cost\n",
		"\n  not chosen: keep-all: loses 1 run what ran gets through; cost × 1.020 [1.010, 1.030], not below what ran\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("lacks %q:\n%s", want, b.String())
		}
	}
	// no mark: no mark column
	r.Policy, r.Best, r.Insufficient = "", "", true
	b.Reset()
	_ = writeRecommend(&b, []recommend.Result{r}, 0, false)
	if want := "\n  halflife    0.900  [0.850, 0.950]     0.500        12,345           2     0              1.5  -\n"; !strings.Contains(b.String(), want) {
		t.Errorf("lacks %q:\n%s", want, b.String())
	}
}

// TestRecommendAndSimulateRun: recommendRun and simulateRun, called with
// buffers as every command's xRun is tested, print what the commands
// print.
func TestRecommendAndSimulateRun(t *testing.T) {
	d := simulateDB(t)
	want, _, code := run(t, d, "recommend")
	if code != 0 {
		t.Fatal("recommend failed")
	}
	st, err := d.open(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	err = recommendRun(context.Background(), st, &RecommendOptions{Terminal: Terminal{Out: &out}, Err: &errb, HoldoutEvery: recommend.DefaultHoldoutEvery, MaxReinv: recommend.DefaultMaxReinv})
	st.Close()
	if err != nil || out.String() != want {
		t.Errorf("recommendRun: %v\n%s\nwant\n%s", err, out.String(), want)
	}
	want, _, code = run(t, d, "simulate", "--no-save", "--policy", "mask")
	if code != 0 {
		t.Fatal("simulate failed")
	}
	out.Reset()
	o := &SimulateOptions{Terminal: Terminal{Out: &out}, Err: &errb, Policies: []string{"mask"}, NoSave: true, Calls: true, windows: []simulate.Window{simulate.OwnWindow}, shards: 1}
	if err := simulateRun(context.Background(), d, o); err != nil || out.String() != want {
		t.Errorf("simulateRun: %v\n%s\nwant\n%s", err, out.String(), want)
	}
}
