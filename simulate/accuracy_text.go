package simulate

import (
	"fmt"
	"strings"

	"github.com/trajmine/trajmine/internal/textfmt"
)

// AccuracyText says how keep-all's replayed prompts track the logged input
// (the last row of acc: all formats and models), in one line.
func AccuracyText(acc []AccuracyRow) string {
	var w strings.Builder
	if len(acc) == 0 {
		return "keep-all accuracy: no run has logged per-call input tokens to check against"
	}
	all := acc[len(acc)-1]
	fmt.Fprintf(&w, "keep-all accuracy (out of sample, against logged input): median |error| %.1f%% (signed %+.1f%%, p90 %.1f%%) over %s in %s",
		100*all.MedianAbs, 100*all.MedianSigned, 100*all.P90Abs, textfmt.CountOf(all.Calls, "call"), textfmt.CountOf(all.Runs, "run"))
	if all.MedianAbsFitted != nil && all.FittedCalls < all.Calls {
		fmt.Fprintf(&w, "; %.1f%% over the %s calls of runs long enough to fit (≥ 5 logged calls)", 100**all.MedianAbsFitted, textfmt.Thousands(int64(all.FittedCalls)))
	}
	w.WriteString("; per format and model in --json")
	return w.String()
}
