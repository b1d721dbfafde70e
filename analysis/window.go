package analysis

import (
	"fmt"

	"github.com/trajmine/trajmine/internal/textfmt"
	"github.com/trajmine/trajmine/simulate"
)

// WindowVerdict is the window what-if's answer at window (a --window N
// below the windows the runs ran at), one sentence, "" when no run is lost
// under what ran there because of it (simulate.LossWindow): how many runs
// would have died at N under what ran, and how many the policy the
// headline names (bestIndex: the most runs saved, then the most tokens)
// carries to their logged end, at what cost against what ran:
//
//	At N tokens, X of the Y runs would have died under what ran (…), and P would have carried Z of them to their logged end at cost ×C; …
//
// where X is as-logged's as_logged_overflow at N (Xw of them
// as_logged_overflow_at_window: their logged prompts exceed N), Z the
// policy's saved, C its cost ratio with prompt caching (Agg.CostRatio; its
// token ratio when no run is priced). Nothing is said past a run's logged
// end: what the agent would have done after it is not in the data.
//
// aggs are simulate's comparison rows; only those over all runs (no group)
// at window count.
func WindowVerdict(aggs []simulate.Agg, window int64) string {
	if window <= 0 {
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
	for _, a := range candidateRows(aggs) {
		if a.Window == window {
			rows = append(rows, a)
		}
	}
	n := textfmt.Thousands(window)
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
	best := bestIndex(rows, true)
	if best < 0 {
		return s + ", and no replayed policy would have carried any of them to its logged end."
	}
	a := rows[best]
	cost := fmt.Sprintf("%s of what ran's tokens (no price for the model)", textfmt.Pct(a.TotalRatio))
	if a.Priced > 0 {
		_, cc := a.CostRatio()
		cost = fmt.Sprintf("cost ×%.3f against what ran (prompt caching included)", cc)
	}
	lost := ""
	if a.Lost > 0 {
		lost = fmt.Sprintf(", losing %s what ran gets through", runsOf(a.Lost))
	}
	short := a.Policy
	if p, err := simulate.Parse(a.Policy); err == nil {
		short = simulate.Short(p)
	}
	return fmt.Sprintf("%s, and %s would have carried %s of them to their logged end at %s%s; what the agents would have done after their logged ends is unknown.",
		s, short, textfmt.Thousands(int64(a.Saved)), cost, lost)
}

// reportWindowVerdict is WindowVerdict at the report's window (one
// explicit --window; "" at each run's own).
func reportWindowVerdict(rep *Report) string {
	if ws := rep.Simulation.Windows; len(ws) == 1 {
		return WindowVerdict(rep.Simulation.Comparison, ws[0])
	}
	return ""
}
