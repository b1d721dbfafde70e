package analysis

import (
	"fmt"
	"strings"

	"github.com/trajmine/trajmine/internal/textfmt"
	"github.com/trajmine/trajmine/recommend"
	"github.com/trajmine/trajmine/simulate"
)

// WindowVerdict is the window what-if's answer at window (a --window N
// below the windows the runs ran at), one sentence, "" when no run is lost
// under what ran there because of it (simulate.LossWindow): how many runs
// would have died at N under what ran, and how many the policy that
// recommend's gates choose among those that carry some through
// (recommend.Choose: no run lost, re-invocations within the limit, cost
// CI below what ran's) carries to their logged end, at what cost. It is
// the choice over all runs, before the held-out check that recommend (and
// so the headline's next sentence and the page's card) makes:
//
//	At N tokens, X of the Y runs would have died under what ran (…), and P would have carried Z of them to their logged end at cost ×C; …
//
// where X is as-logged's as_logged_overflow at N (Xw of them
// as_logged_overflow_at_window: their logged prompts exceed N), Z the
// policy's saved, C its cost ratio with prompt caching and its CI
// (Agg.CostCachedRatio; its effective ratio when no run is priced). Nothing is said past a run's logged
// end: what the agent would have done after it is not in the data.
//
// aggs are simulate's comparison rows; only those over all runs (no group)
// at window count.
func WindowVerdict(aggs []simulate.Agg, window simulate.Window) string {
	tokens, fixed := window.Fixed()
	if !fixed {
		return ""
	}
	var base *simulate.Agg
	var rows []simulate.Agg
	for i, a := range aggs {
		if a.Window != window || a.Group != "" {
			continue
		}
		if a.Policy == simulate.AsLoggedName {
			base = &aggs[i]
		}
	}
	if base == nil || base.BaselineOverflowAtWindow == 0 {
		return ""
	}
	for _, a := range aggs { // the candidates: no references (as-logged, keep-all), no oracle
		if a.Window == window && a.Group == "" && a.Policy != simulate.AsLoggedName && a.Policy != "keep-all" && !strings.Contains(a.Policy, "oracle") {
			rows = append(rows, a)
		}
	}
	n := textfmt.Thousands(tokens)
	why := fmt.Sprintf("their logged prompts exceed %s, below the windows they ran at", n)
	if base.BaselineOverflow == 1 {
		why = fmt.Sprintf("its logged prompts exceed %s, below the window it ran at", n)
	}
	if logged := base.BaselineOverflow - base.BaselineOverflowAtWindow; logged > 0 {
		ended := textfmt.Thousands(int64(logged)) + " ended on window length in their logs"
		if logged == 1 {
			ended = "1 ended on window length in its log"
		}
		why = fmt.Sprintf("%s because their logged prompts exceed %s, below the windows they ran at; %s", textfmt.Thousands(int64(base.BaselineOverflowAtWindow)), n, ended)
	}
	s := fmt.Sprintf("At %s tokens, %s of the %s would have died under what ran (%s)", n, textfmt.Thousands(int64(base.BaselineOverflow)), runsOf(base.Runs), why)
	var opts []recommend.Option
	for _, a := range rows {
		if a.Saved > 0 {
			opts = append(opts, OptionOf(a))
		}
	}
	if len(opts) == 0 {
		return s + ", and no replayed policy would have carried any of them to its logged end."
	}
	// the policy named is the one recommend's gates choose among those
	// that carry some through (recommend.Choose, as the headline's
	// decision): no run lost, re-invocations within the limit, the upper
	// end of the cost CI below what ran's
	c := recommend.Choose(opts, recommend.Gates{MaxReinvPer100: recommend.DefaultMaxReinv})
	if c.Index < 0 {
		return s + fmt.Sprintf(", and %s would have carried some of them to their logged end, but none %s without losing a run or passing %d re-invocations per 100 calls; what the agents would have done after their logged ends is unknown.",
			textfmt.Plural(len(opts), "replayed policy", "replayed policies"), cheaperText(c.Currency, true), recommend.DefaultMaxReinv)
	}
	o := opts[c.Index]
	short := o.Spec
	if p, err := simulate.Parse(o.Spec); err == nil {
		short = simulate.Short(p)
	}
	return fmt.Sprintf("%s, and, replayed over all runs, %s would have carried %s of them to their logged end at %s; what the agents would have done after their logged ends is unknown.",
		s, short, textfmt.Thousands(int64(o.Saved)), recommend.FigureText(c.Currency, o.Objective(c.Currency)))
}

// reportWindowVerdict is WindowVerdict at the report's window (one
// explicit --window; "" at each run's own).
func reportWindowVerdict(rep *Report) string {
	if ws := rep.Simulation.Windows; len(ws) == 1 {
		return WindowVerdict(rep.Simulation.Comparison, ws[0])
	}
	return ""
}
