package analysis

import (
	"context"
	"slices"
	"testing"

	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/simulate"
)

// TestWindowVerdict: the window what-if sentence from hand-made results at
// --window 32,000, one case per branch; each figure is a field of the
// input (the cost ratio 0.9 = 9 / 10 dollars with caching).
func TestWindowVerdict(t *testing.T) {
	const w = 32_000
	base := simulate.Agg{Policy: simulate.AsLoggedName, Window: w, Runs: 5, BaselineOverflow: 3, BaselineOverflowAtWindow: 3, EffectiveRatio: 1}
	// caps prompts: saves 2 of the 3, priced: $9 against what ran's $10 with caching
	capped := simulate.Agg{Policy: "truncate", Window: w, Runs: 5, Saved: 2, SavedAtWindow: 2, TokensSaved: 100, EffectiveRatio: 0.9,
		Priced: 5, CostUSD: 8, AsLoggedCostUSD: 10, CostCachedUSD: 9, AsLoggedCostCachedUSD: 10,
		CostCachedRatio: 0.9, CostCachedLo: 0.85, CostCachedHi: 0.95}
	// cheaper, but loses a run: excluded by recommend's gates, not named
	other := simulate.Agg{Policy: "mask", Window: w, Runs: 5, Saved: 2, SavedAtWindow: 2, TokensSaved: 50, Lost: 1, EffectiveRatio: 0.95,
		Priced: 5, CostCachedRatio: 0.8, CostCachedLo: 0.7, CostCachedHi: 0.9}
	// saves all 3 but an oracle (no agent can run it): not named
	oracle := simulate.Agg{Policy: "dtoc-oracle(placeholder=40)", Window: w, Runs: 5, Saved: 3, TokensSaved: 999}
	unpriced := simulate.Agg{Policy: "truncate", Window: w, Runs: 5, Saved: 1, SavedAtWindow: 1, Lost: 1, EffectiveRatio: 0.875}
	for _, tc := range []struct {
		name   string
		aggs   []simulate.Agg
		window simulate.Window
		want   string
	}{
		{"a policy carries some", []simulate.Agg{base, other, capped, oracle}, w,
			"At 32,000 tokens, 3 of the 5 runs would have died under what ran (their logged prompts exceed 32,000, below the windows they ran at), " +
				"and, replayed over all runs, truncate would have carried 2 of them to their logged end at cost × 0.900 [0.850, 0.950]; what the agents would have done after their logged ends is unknown."},
		// the one policy that carries some loses a run: recommend's gates
		// (recommend.Choose) exclude it, and the sentence names none
		{"unpriced, losing a run, one died in its log", []simulate.Agg{{Policy: simulate.AsLoggedName, Window: w, Runs: 5, BaselineOverflow: 4, BaselineOverflowAtWindow: 3}, unpriced}, w,
			"At 32,000 tokens, 4 of the 5 runs would have died under what ran (3 because their logged prompts exceed 32,000, below the windows they ran at; 1 ended on window length in its log), " +
				"and 1 replayed policy would have carried some of them to their logged end, but none sends fewer prompt tokens than what ran (no run priced; the upper end of the 95% CI below 1) without losing a run or passing 2 re-invocations per 100 calls; what the agents would have done after their logged ends is unknown."},
		{"no policy carries any", []simulate.Agg{base, {Policy: "keep-all", Window: w, Runs: 5}, oracle}, w,
			"At 32,000 tokens, 3 of the 5 runs would have died under what ran (their logged prompts exceed 32,000, below the windows they ran at), and no replayed policy would have carried any of them to its logged end."},
		// only deaths the logs show: no what-if to state (the prevention sentence says it)
		{"no death due to the window", []simulate.Agg{{Policy: simulate.AsLoggedName, Window: w, Runs: 5, BaselineOverflow: 2}, capped}, w, ""},
		{"another window's rows", []simulate.Agg{base, capped}, 64_000, ""},
		{"each run's own window", []simulate.Agg{base, capped}, simulate.OwnWindow, ""},
		{"unbounded", []simulate.Agg{base, capped}, simulate.Unbounded, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := WindowVerdict(tc.aggs, tc.window); got != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
	// the headline's second sentence at the report's --window
	rep := Report{Diagnosis: diagnose.Summary{Verdict: diagnose.Verdict{Runs: 5}},
		Simulation: Simulation{Windows: []simulate.Window{w}, Comparison: []simulate.Agg{base, other, capped, oracle}}}
	if got := Headline(&rep); len(got) != 3 || got[1] != WindowVerdict(rep.Simulation.Comparison, w) {
		t.Errorf("headline %q: want the window what-if second", got)
	}
	// the page's card is recommend's held-out decision (none here: no
	// family has a result), not the all-runs choice the what-if states
	if got := BestPolicy(&rep); got != "" {
		t.Errorf("best policy %q, want none (recommend decided nothing)", got)
	}
}

// TestSimulateWindowsAsGiven: the windows of SimulateOptions reach every
// replay and every comparison row as given (no layer re-maps them): 12
// generated runs (trajmine synth -n 12 --seed 3) under keep-all and
// as-logged at each run's own window, 32,000 tokens and unbounded. Each
// row's window in tokens is what that window means for the run: its own
// window as diagnose resolves it (the log's, else the known-model table's),
// 32,000, or none (0).
func TestSimulateWindowsAsGiven(t *testing.T) {
	ctx := context.Background()
	st := synthStore(t, 12, 3)
	diag, err := DiagnoseStore(ctx, st, &DiagnoseOptions{By: "model"})
	if err != nil {
		t.Fatal(err)
	}
	own := map[string]int64{}
	for _, r := range diag.Runs {
		own[r.RunID] = r.Occupancy.Window
	}
	pols, err := WithKeepAll([]simulate.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	pols = pols[:2] // keep-all, as-logged
	windows := []simulate.Window{simulate.OwnWindow, simulate.Tokens(32_000), simulate.Unbounded}
	sim, err := SimulateStore(ctx, st, &SimulateOptions{Windows: windows, Shards: 1, NoSave: true}, pols)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sim.Windows, windows) {
		t.Errorf("Simulation.Windows = %v, want %v", sim.Windows, windows)
	}
	if len(own) != 12 || len(sim.Results) != 12*len(windows)*len(pols) {
		t.Fatalf("%d runs diagnosed, %d rows; want 12 and %d", len(own), len(sim.Results), 12*len(windows)*len(pols))
	}
	perWindow := map[simulate.Window]int{}
	for _, r := range sim.Results {
		perWindow[r.Window]++
		want := map[simulate.Window]int64{simulate.OwnWindow: own[r.RunID], simulate.Tokens(32_000): 32_000, simulate.Unbounded: 0}[r.Window]
		if r.WindowTokens != want {
			t.Errorf("%s at %v: window_tokens %d, want %d", r.RunID, r.Window, r.WindowTokens, want)
		}
	}
	var aggWindows []simulate.Window
	for _, a := range sim.Comparison {
		if len(aggWindows) == 0 || aggWindows[len(aggWindows)-1] != a.Window {
			aggWindows = append(aggWindows, a.Window)
		}
	}
	if !slices.Equal(aggWindows, windows) {
		t.Errorf("comparison windows %v, want %v", aggWindows, windows)
	}
	for _, w := range windows {
		if perWindow[w] != 12*len(pols) {
			t.Errorf("%d rows at %v, want %d", perWindow[w], w, 12*len(pols))
		}
	}
}
