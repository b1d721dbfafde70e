package diagnose

import (
	"fmt"
	"strings"

	"github.com/trajmine/trajmine/internal/textfmt"
)

// BoundaryClause is the verdict's reading-boundary clause, or why
// there is none, with the runs it rests on.
func BoundaryClause(b ReadingBoundary) string {
	switch {
	case b.Found:
		return fmt.Sprintf("reading boundary at call %s (%s of runs stopped while reading by then, %d of %d runs)",
			textfmt.Thousands(b.Call), textfmt.Pct(b.Share), b.EventsBy, b.Runs)
	case b.Events == 0:
		return "no reading boundary (no unfinished run stopped while reading)"
	case b.Reached:
		return fmt.Sprintf("no reading boundary stated (%s stopped while reading by call %s, but over %d runs, fewer than %d)",
			textfmt.Pct(b.Share), textfmt.Thousands(b.ReachedCall), b.Runs, b.MinRuns)
	}
	return fmt.Sprintf("no reading boundary (%s of %d runs stopped while reading, %d of them; %s needed)", textfmt.Pct(b.Incidence), b.Runs, b.Events, textfmt.Pct(b.Share))
}

// rentClause is the verdict's token-rent clause, or why there is
// none, followed by the system prompt's and tool definitions' shares where
// the logs show them.
func rentClause(v Verdict) string {
	s := "no token rent (no tool output was carried by a later call)"
	if v.TopRentTool != "" {
		s = fmt.Sprintf("%s holds %s of token rent", textfmt.Line(v.TopRentTool, 32), textfmt.Pct(v.TopRentShare))
	}
	var prefix []string
	if v.SystemPromptShare > 0 {
		prefix = append(prefix, "system prompt "+textfmt.Pct(v.SystemPromptShare))
	}
	if v.ToolDefinitionsShare > 0 {
		prefix = append(prefix, "tool definitions "+textfmt.Pct(v.ToolDefinitionsShare))
	}
	if len(prefix) > 0 {
		s += "; " + strings.Join(prefix, " / ") + " of token rent"
	}
	return s
}

// VerdictText is the verdict: one line, and a second when some runs have
// no known window (trajmine diagnose and trajmine report print it; the
// page shows it).
func (d *Summary) VerdictText() string {
	var w strings.Builder
	v := d.Verdict
	fmt.Fprintf(&w, "%s of %s runs (%s) ended on window length (%d explicit, %d inferred); %s; %s\n",
		textfmt.Thousands(int64(v.WindowEnds)), textfmt.Thousands(int64(v.Runs)), textfmt.Pct(v.Share), v.Explicit, v.Inferred,
		BoundaryClause(d.ReadingBoundary), rentClause(v))
	if v.WhatIfRuns > 0 {
		w.WriteString(WhatIfText(v) + "\n")
	}
	if v.UnknownWindow > 0 {
		fmt.Fprintf(&w, "%s runs have no known window (use --window N): their occupancy shares are not computed\n", textfmt.Thousands(int64(v.UnknownWindow)))
	}
	if v.Copies > 0 {
		fmt.Fprintf(&w, "%s runs are copies of another run (resumed or forked, no call of their own) and are counted once, in their origin\n", textfmt.Thousands(int64(v.Copies)))
	}
	return w.String()
}

// WhatIfText is the verdict's window what-if line at a --window below runs'
// own windows (Verdict.WhatIfRuns > 0): how many of the runs that did not
// end on window length would have died there although their logs went on.
func WhatIfText(v Verdict) string {
	n := textfmt.Thousands(v.WhatIfWindow)
	below := "the own windows of " + textfmt.CountOf(v.WhatIfRuns, "run")
	if v.WhatIfRuns == v.Runs {
		below = "every run's own window"
	}
	if v.WindowDeaths == 0 {
		return fmt.Sprintf("at --window %s (below %s) no run that did not end on window length would have died: every logged prompt plus its output fits", n, below)
	}
	return fmt.Sprintf("at --window %s (below %s) %s of the %s that did not end on window length would have died: a logged prompt plus its output exceeds %s tokens, though the log went on past it "+
		"(trajmine simulate --window %d replays which policy carries them to their logged end; what the agents would have done after it is unknown)",
		n, below, textfmt.Thousands(int64(v.WindowDeaths)), textfmt.CountOf(v.Runs-v.WindowEnds, "run"), n, v.WhatIfWindow)
}
