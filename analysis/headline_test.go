package analysis

import (
	"strings"
	"testing"

	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/recommend"
	"github.com/trajmine/trajmine/simulate"
)

// TestHeadline: the three sentences from hand-made results, one case per
// branch; each figure in them is a field of the input.
func TestHeadline(t *testing.T) {
	asLogged := simulate.Agg{Policy: simulate.AsLoggedName, BaselineOverflow: 3, TotalRatio: 1, TotalLo: 1, TotalHi: 1}
	mask := simulate.Agg{Policy: "mask(n=10,style=swe-agent,unit=observations)", Saved: 2, Lost: 1, TokensSaved: 5000, TotalRatio: 0.8, TotalLo: 0.7, TotalHi: 0.9}
	trunc := simulate.Agg{Policy: "truncate", Saved: 2, TokensSaved: 100, TotalRatio: 0.99, TotalLo: 0.98, TotalHi: 1}
	quiet := simulate.Agg{Policy: "truncate", TokensSaved: 0, TotalRatio: 1}
	saver := simulate.Agg{Policy: "halflife(activate=0.5,keep=4,cap=8000,floor=0,stall=false,stall_tokens=40)", TokensSaved: 12345, TotalRatio: 0.75, TotalLo: 0.7, TotalHi: 0.81, ReinvPer100: 1.5}
	// saves more, but above recommend's re-invocation limit (2 per 100 calls)
	chatty := simulate.Agg{Policy: "mask", TokensSaved: 99999, TotalRatio: 0.5, TotalLo: 0.4, TotalHi: 1.1, ReinvPer100: 4.3}
	for _, tc := range []struct {
		name string
		rep  Report
		want []string
	}{
		{"window ends, a policy saves some",
			Report{Diagnosis: diagnose.Summary{Verdict: diagnose.Verdict{Runs: 10, WindowEnds: 3, Share: 0.3, Explicit: 2, Inferred: 1}},
				// the oracle saves all 3 but is an upper bound: not named
				Simulation: Simulation{Comparison: []simulate.Agg{asLogged, trunc, mask, {Policy: "dtoc-oracle(placeholder=40)", Saved: 3, TokensSaved: 9999}}},
				Recs:       []recommend.Result{{Family: "claude", Policy: mask.Policy, Short: "mask"}, {Family: "gpt", Insufficient: true}}},
			[]string{"3 of 10 runs (30.0%) ended on window length: 2 said so in the log, 1 inferred from the last turn.",
				// mask and truncate both save 2; mask saves more tokens
				"Replayed on the same calls, mask would have carried 2 of the 3 runs lost under what ran through, losing 1 run what ran got through, at 80.0% of what ran's tokens [70.0%, 90.0%].",
				"Next: use mask for claude (trajmine recommend --config HARNESS prints the harness's own setting); 1 model family is short of runs."}},
		{"no window end, a policy saves tokens",
			Report{Diagnosis: diagnose.Summary{Verdict: diagnose.Verdict{Runs: 1, UnknownWindow: 1}},
				Simulation: Simulation{Comparison: []simulate.Agg{{Policy: simulate.AsLoggedName}, quiet, chatty, saver}},
				Recs:       []recommend.Result{{Family: "gpt", Insufficient: true}}},
			[]string{"The run did not end on window length.",
				"No run needed saving; replayed on the same calls, halflife would have used 75.0% of what ran's tokens [70.0%, 81.0%] (12,345 tokens fewer), losing no run, with 1.5 predicted re-invocations per 100 calls.",
				"Next: collect more runs: no model family has the ≥ 10 training and ≥ 5 held-out runs a recommendation needs (trajmine recommend says how many each lacks); 1 run has no known window: give one with --window N."}},
		{"a saving whose CI reaches what ran",
			Report{Diagnosis: diagnose.Summary{Verdict: diagnose.Verdict{Runs: 2}},
				Simulation: Simulation{Comparison: []simulate.Agg{{Policy: simulate.AsLoggedName}, {Policy: "truncate", TokensSaved: 10, TotalRatio: 0.95, TotalLo: 0.9, TotalHi: 1.02}}},
				Recs:       []recommend.Result{{Family: "claude", Policy: "keep-all"}}},
			[]string{"None of the 2 runs ended on window length.",
				"No run needed saving; replayed on the same calls, truncate would have used 95.0% of what ran's tokens [90.0%, 102.0%], a 95% CI that does not exclude no saving (10 tokens fewer), losing no run, with 0.0 predicted re-invocations per 100 calls.",
				"Next: keep your current settings: no policy beat what ran on held-out runs (trajmine recommend shows the candidates)."}},
		{"window ends no policy prevents; keep settings",
			Report{Diagnosis: diagnose.Summary{Verdict: diagnose.Verdict{Runs: 4, WindowEnds: 4, Share: 1, Explicit: 4}},
				Simulation: Simulation{Comparison: []simulate.Agg{{Policy: simulate.AsLoggedName, BaselineOverflow: 4}, quiet}},
				Recs:       []recommend.Result{{Family: "claude", Policy: simulate.AsLoggedName}}},
			[]string{"4 of 4 runs (100.0%) ended on window length: each said so in the log.",
				"Replayed on the same calls, no policy would have carried those runs through: their last calls do not fit even with the history shortened (4 runs lost under what ran at this window).",
				"Next: keep your current settings: no policy beat what ran on held-out runs (trajmine recommend shows the candidates)."}},
	} {
		got := Headline(&tc.rep)
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}
