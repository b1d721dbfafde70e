package diagnose

import (
	"fmt"
	"strings"

	"github.com/trajmine/trajmine/internal/textfmt"
)

// BoundaryClause is the verdict's reading-boundary clause, or why
// there is none, with the runs it rests on. Its percentage is the
// cumulative incidence of stopping while reading (Aalen–Johansen,
// finishing a competing outcome), said as such: it counts each run for
// the calls its log reached, so it is not the share of runs seen to stop
// while reading, which the clause gives beside it as a count.
func BoundaryClause(b ReadingBoundary) string {
	const what = "stopping while reading: cumulative incidence"
	switch {
	case b.Found:
		return fmt.Sprintf("reading boundary at call %s (%s %s by then, %d of %s observed)",
			textfmt.Thousands(b.Call), what, textfmt.Pct(b.incidenceAt(b.Call)), b.EventsBy, textfmt.CountOf(int(b.Runs), "run"))
	case b.Events == 0:
		return "no reading boundary (no unfinished run stopped while reading)"
	case b.Reached:
		return fmt.Sprintf("no reading boundary stated (%s %s by call %s, but over %s, fewer than %d)",
			what, textfmt.Pct(b.incidenceAt(b.ReachedCall)), textfmt.Thousands(b.ReachedCall), textfmt.CountOf(int(b.Runs), "run"), b.MinRuns)
	}
	return fmt.Sprintf("no reading boundary (%s %s, %d of %s (%s) observed; %s needed)",
		what, textfmt.Pct(b.Incidence), b.Events, textfmt.CountOf(int(b.Runs), "run"), textfmt.Pct(float64(b.Events)/float64(b.Runs)), textfmt.Pct(b.Share))
}

// incidenceAt is the cumulative incidence of stopping while reading by
// call (the last point of CIF at or before it).
func (b ReadingBoundary) incidenceAt(call int64) float64 {
	f := 0.0
	for _, p := range b.CIF {
		if p.Call > call {
			break
		}
		f = p.Incidence
	}
	return f
}

// rentClause is the verdict's clause on the tokens carried into later
// calls (diagnose's token rent: each tool output's tokens times the
// calls that carried it): the tool whose outputs make up most of them, or
// that none was carried, and the system prompt's and tool definitions'
// shares where the logs show them.
func rentClause(v Verdict) string {
	var prefix []string
	if v.SystemPromptShare > 0 {
		prefix = append(prefix, "the system prompt "+textfmt.Pct(v.SystemPromptShare))
	}
	if v.ToolDefinitionsShare > 0 {
		prefix = append(prefix, "tool definitions "+textfmt.Pct(v.ToolDefinitionsShare))
	}
	if v.TopRentTool == "" {
		s := "no tool output was carried into a later call"
		if len(prefix) > 0 {
			s += "; of the tokens carried, " + strings.Join(prefix, ", ")
		}
		return s
	}
	s := fmt.Sprintf("%s's outputs are %s of the tokens carried into later calls", textfmt.Line(v.TopRentTool, 32), textfmt.Pct(v.TopRentShare))
	if len(prefix) > 0 {
		s += "; " + strings.Join(prefix, ", ")
	}
	return s
}

// VerdictText is the verdict: one line, and a second when some runs have
// no known window (trajmine diagnose and trajmine report print it; the
// page shows it).
func (d *Summary) VerdictText() string {
	var w strings.Builder
	v := d.Verdict
	fmt.Fprintf(&w, "%s of %s (%s) ended on window length (%d explicit, %d inferred); %s; %s\n",
		textfmt.Thousands(int64(v.WindowEnds)), textfmt.CountOf(v.Runs, "run"), textfmt.Pct(v.Share), v.Explicit, v.Inferred,
		BoundaryClause(d.ReadingBoundary), rentClause(v))
	if v.WhatIfRuns > 0 {
		w.WriteString(WhatIfText(v) + "\n")
	}
	if v.UnknownWindow > 0 {
		fmt.Fprintf(&w, "%s no known window (use --window N): %s not computed\n", textfmt.Plural(v.UnknownWindow, "run has", "runs have"),
			map[bool]string{true: "its occupancy share is", false: "their occupancy shares are"}[v.UnknownWindow == 1])
	}
	if v.Copies > 0 {
		fmt.Fprintf(&w, "%s of another run (resumed or forked, no call of its own) and counted once, in its origin\n", textfmt.Plural(v.Copies, "run is a copy", "runs are copies"))
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
