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
	saver := simulate.Agg{Policy: "halflife(activate=0.5,keep=4,cap=8000,floor=0,stall=false,stall_tokens=40)", TokensSaved: 12345, TotalRatio: 0.75, TotalLo: 0.7, TotalHi: 0.81}
	for _, tc := range []struct {
		name string
		rep  Report
		want []string
	}{
		{"window ends, a policy saves some",
			Report{Diagnosis: diagnose.Summary{Verdict: diagnose.Verdict{Runs: 10, WindowEnds: 3, Share: 0.3, Explicit: 2, Inferred: 1}},
				Simulation: Simulation{Comparison: []simulate.Agg{asLogged, trunc, mask}},
				Recs:       []recommend.Result{{Family: "claude", Policy: mask.Policy, Short: "mask"}, {Family: "gpt", Insufficient: true}}},
			[]string{"3 of 10 runs (30.0%) ended on window length: 2 said so in the log, 1 inferred from the last turn.",
				// mask and truncate both save 2; mask saves more tokens
				"Replayed on the same calls, mask would have carried 2 of the 3 runs lost under what ran through, losing 1 run what ran got through, at 80.0% of what ran's tokens [70.0%, 90.0%].",
				"Next: use mask for claude (trajmine recommend --config HARNESS prints the harness's own setting); 1 model family is short of runs."}},
		{"no window end, a policy saves tokens",
			Report{Diagnosis: diagnose.Summary{Verdict: diagnose.Verdict{Runs: 1, UnknownWindow: 1}},
				Simulation: Simulation{Comparison: []simulate.Agg{{Policy: simulate.AsLoggedName}, quiet, saver}},
				Recs:       []recommend.Result{{Family: "gpt", Insufficient: true}}},
			[]string{"The run did not end on window length.",
				"No run needed saving; replayed on the same calls, halflife would have used 75.0% of what ran's tokens [70.0%, 81.0%] (12,345 tokens fewer), losing no run.",
				"Next: collect more runs: no model family has the ≥ 10 training and ≥ 5 held-out runs a recommendation needs (trajmine recommend says how many each lacks); 1 run has no known window: give one with --window N."}},
		{"window ends no policy prevents; keep settings",
			Report{Diagnosis: diagnose.Summary{Verdict: diagnose.Verdict{Runs: 4, WindowEnds: 4, Share: 1, Explicit: 4}},
				Simulation: Simulation{Comparison: []simulate.Agg{{Policy: simulate.AsLoggedName, BaselineOverflow: 4}, quiet}},
				Recs:       []recommend.Result{{Family: "claude", Policy: simulate.AsLoggedName}}},
			[]string{"4 of 4 runs (100.0%) ended on window length: each said so in the log.",
				"Replayed on the same calls, no policy would have carried those runs through: their last calls do not fit even with the history shortened (4 run(s) lost under what ran at this window).",
				"Next: keep your current settings: no policy beat what ran on held-out runs (trajmine recommend shows the candidates)."}},
	} {
		got := Headline(&tc.rep)
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}
