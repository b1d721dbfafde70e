package diagnose

import (
	"cmp"
	"slices"
	"time"

	"github.com/trajmine/trajmine/internal/textfmt"
	"github.com/trajmine/trajmine/schema"
)

// The cross-run summary of a diagnosis, as simulate.Aggregate is
// simulate's: each run's RunResult completed into a RunDiagnosis (Complete),
// then the verdict, the --by groups, the rent by tool, the reading boundary
// and the totals over all of them (Summarize). trajmine diagnose prints a
// Summary, stores its runs in diag_runs, diag_calls and diag_rent, and
// trajmine report's verdict is the same Summary's.

// Verdict is the headline: how many runs ended on window length.
type Verdict struct {
	Runs          int     `json:"runs"`
	WindowEnds    int     `json:"window_ends"`
	Share         float64 `json:"share"`
	Explicit      int     `json:"explicit"`
	Inferred      int     `json:"inferred"`
	UnknownWindow int     `json:"unknown_window"`
	// Copies are runs left out (every usage row a copy of another run's);
	// Runs does not count them.
	Copies int `json:"copies"`
	// The window what-if (RunResult.WhatIf), at a --window below the own
	// window of WhatIfRuns runs: WhatIfWindow is that window, WindowDeaths
	// the runs among them that did not end on window length in their logs
	// but have a call whose logged prompt plus output exceeds it (they
	// would have died at that call). 0 without such a window.
	WhatIfWindow int64 `json:"what_if_window,omitempty"`
	WhatIfRuns   int   `json:"what_if_runs,omitempty"`
	WindowDeaths int   `json:"window_deaths,omitempty"`
	// BoundaryFound: the reading-boundary survival curve fell to ≤ 50 % at
	// call BoundaryCall.
	BoundaryFound bool  `json:"reading_boundary_found"`
	BoundaryCall  int64 `json:"reading_boundary_call"`
	// TopRentTool holds TopRentShare of all runs' token rent; empty when no
	// tool output has rent. The system prompt and tool definitions are not
	// tools: their shares are SystemPromptShare and ToolDefinitionsShare
	// (0 where no log shows them).
	TopRentTool          string  `json:"top_rent_tool"`
	TopRentShare         float64 `json:"top_rent_share"`
	SystemPromptShare    float64 `json:"system_prompt_share"`
	ToolDefinitionsShare float64 `json:"tool_definitions_share"`
}

// RunDiagnosis is one run's diagnosis with its rent, re-reads, stalls and
// reading-boundary input.
type RunDiagnosis struct {
	RunResult
	RentTotal           int64 `json:"rent_total"`            // Σ over tool outputs, system prompt and tool definitions
	RentSystemPrompt    int64 `json:"rent_system_prompt"`    // part of RentTotal
	RentToolDefinitions int64 `json:"rent_tool_definitions"` // part of RentTotal
	ReReadsVisible      int64 `json:"rereads_visible"`
	ReReadsHidden       int64 `json:"rereads_hidden"`
	ReReadsPending      int64 `json:"rereads_pending"`
	Stalls              int64 `json:"stalls"`  // repeats of a (command, failing output) pair beyond the first
	Repeats             int64 `json:"repeats"` // repeats of a (command, output) pair that did not fail
	StoppedWhileReading bool  `json:"stopped_while_reading"`
	BoundaryCall        int64 `json:"boundary_call"`     // the run's last call (n_turns)
	BoundaryEvent       bool  `json:"boundary_event"`    // not finished and stopped while reading
	BoundaryFinished    bool  `json:"boundary_finished"` // finished (competing); neither: censored
	Cost                Cost  `json:"cost"`
	Resolved            *bool `json:"resolved"` // the task outcome when known (runs.resolved)
	// ContinuesRunID: the run this one resumed or forked (store.CopiesSQL);
	// CopiedCalls of its usage rows are copies counted there, and Copy: all
	// of them (the run is left out of the cross-run figures).
	ContinuesRunID string `json:"continues_run_id,omitempty"`
	CopiedCalls    int64  `json:"copied_calls"`
	Copy           bool   `json:"copy"`

	// RentByTool is the run's rent per tool, with the prefix rows (diag_rent).
	RentByTool []ToolRent `json:"rent_by_tool"`

	startedAt *time.Time // for the order of trajmine runs
}

// Totals sums re-reads and stalls over runs.
type Totals struct {
	ReReadsVisible int64 `json:"rereads_visible"`
	ReReadsHidden  int64 `json:"rereads_hidden"`
	ReReadsPending int64 `json:"rereads_pending"`
	Stalls         int64 `json:"stalls"`
	StallRuns      int64 `json:"stall_runs"`
	Repeats        int64 `json:"repeats"`
	RepeatRuns     int64 `json:"repeat_runs"`

	SpendUSD    float64   `json:"spend_usd"` // Σ known run costs
	CostLogged  int64     `json:"cost_logged_runs"`
	CostPriced  int64     `json:"cost_priced_runs"`
	CostUnknown int64     `json:"cost_unknown_runs"`
	PerSolved   PerSolved `json:"per_solved"`
}

// Group is the peak-occupancy summary of one --by group.
type Group struct {
	Key           string  `json:"key"`
	Runs          int     `json:"runs"`
	WindowEnds    int     `json:"window_ends"`
	KnownWindow   int     `json:"known_window"`      // runs whose window is known
	MedianPeak    float64 `json:"median_peak_share"` // over runs with a known window
	MaxPeak       float64 `json:"max_peak_share"`
	RunsPeakGE80  int     `json:"runs_peak_ge_80"`
	MaxPeakTokens int64   `json:"max_peak_tokens"`
}

// Summary is a diagnosis of many runs: what trajmine diagnose --json prints.
type Summary struct {
	Verdict         Verdict         `json:"verdict"`
	By              string          `json:"by"`
	Groups          []Group         `json:"groups"`
	ReadingBoundary ReadingBoundary `json:"reading_boundary"`
	RentByTool      []ToolRent      `json:"rent_by_tool"`
	Totals          Totals          `json:"totals"`
	Runs            []RunDiagnosis  `json:"runs"`
}

// Complete completes one run's diagnosis res (Run) with its
// rent, re-reads, stalls st (Stalls) and reading-boundary input;
// classify gives action classes. The calls of usage that copy another
// run's (schema.Usage.CopyOf) add no rent or re-reads (CopiedCalls).
func Complete(res RunResult, r schema.Run, events []schema.Event, usage []schema.Usage, ops []schema.ContextOp, st RunStalls, classify ClassifyFunc) RunDiagnosis {
	vis := NewVisibility(events, ops, &VisibilityOptions{NCalls: r.NTurns, Copied: CopiedCalls(usage)})
	rent := vis.Rent()
	rr := ReReads(events, vis, func(tool, args string) bool { return classify(r.Harness, tool, args) == "read" })
	b := BoundaryInput(r, res.End, events, classify)
	return RunDiagnosis{RunResult: res, RentTotal: rent.Total, RentSystemPrompt: rent.SystemPrompt, RentToolDefinitions: rent.ToolDefinitions, ReReadsVisible: rr.Visible, ReReadsHidden: rr.Hidden,
		ReReadsPending: rr.Pending, Stalls: st.NStalls, Repeats: st.NRepeats, StoppedWhileReading: b.StoppedWhileReading,
		BoundaryCall: b.Call, BoundaryEvent: b.Event, BoundaryFinished: b.Finished, Resolved: r.Resolved, RentByTool: rent.Tools, startedAt: r.StartedAt}
}

// VerdictOf counts the runs that ended on window length, explicit and
// inferred, those with no known window, and, at a --window below runs' own
// windows, those that would have died there (RunResult.WhatIf).
func VerdictOf(results []RunDiagnosis) Verdict {
	v := Verdict{Runs: len(results)}
	for _, r := range results {
		if r.Occupancy.Window == 0 {
			v.UnknownWindow++
		}
		if r.WhatIf != nil {
			v.WhatIfWindow = r.WhatIf.Window
			v.WhatIfRuns++
			if r.WhatIf.Dies() && !r.End.WindowEnd() {
				v.WindowDeaths++
			}
		}
		if !r.End.WindowEnd() {
			continue
		}
		v.WindowEnds++
		if r.End.Source == "explicit" {
			v.Explicit++
		} else {
			v.Inferred++
		}
	}
	if v.Runs > 0 {
		v.Share = float64(v.WindowEnds) / float64(v.Runs)
	}
	return v
}

func groupKey(r RunDiagnosis, by string) string {
	switch by {
	case "harness":
		return textfmt.OrDash(r.Harness)
	case "format":
		return textfmt.OrDash(r.SourceFormat)
	}
	return textfmt.OrDash(r.ModelFamily)
}

// Groups is the peak-occupancy summary per group of by (model family,
// harness or format), largest group first.
func Groups(results []RunDiagnosis, by string) []Group {
	idx := map[string]int{}
	var groups []Group
	peaks := map[string][]float64{}
	for _, r := range results {
		k := groupKey(r, by)
		i, ok := idx[k]
		if !ok {
			groups = append(groups, Group{Key: k})
			i = len(groups) - 1
			idx[k] = i
		}
		g := &groups[i]
		g.Runs++
		if r.End.WindowEnd() {
			g.WindowEnds++
		}
		g.MaxPeakTokens = max(g.MaxPeakTokens, r.Occupancy.PeakTokens)
		if r.Occupancy.Window > 0 {
			g.KnownWindow++
			p := r.Occupancy.PeakShare
			peaks[k] = append(peaks[k], p)
			g.MaxPeak = max(g.MaxPeak, p)
			if r.Occupancy.PeakTokens*100 >= r.Occupancy.Window*80 {
				g.RunsPeakGE80++
			}
		}
	}
	for i := range groups {
		ps := peaks[groups[i].Key]
		if len(ps) == 0 {
			continue
		}
		slices.Sort(ps)
		n := len(ps)
		if n%2 == 1 {
			groups[i].MedianPeak = ps[n/2]
		} else {
			groups[i].MedianPeak = (ps[n/2-1] + ps[n/2]) / 2
		}
	}
	slices.SortStableFunc(groups, func(a, b Group) int {
		return cmp.Or(cmp.Compare(b.Runs, a.Runs), cmp.Compare(a.Key, b.Key))
	})
	return groups
}

// Summarize computes the cross-run figures from the runs' diagnoses, put
// in trajmine runs order (started_at, nulls last, then run_id); by groups
// the peak-occupancy summary (model, harness or format). results is sorted
// in place and kept as the Summary's Runs.
func Summarize(results []RunDiagnosis, by string) Summary {
	var out Summary
	slices.SortStableFunc(results, func(a, b RunDiagnosis) int {
		switch {
		case a.startedAt == nil && b.startedAt != nil:
			return 1
		case a.startedAt != nil && b.startedAt == nil:
			return -1
		case a.startedAt != nil:
			if c := a.startedAt.Compare(*b.startedAt); c != 0 {
				return c
			}
		}
		return cmp.Compare(a.RunID, b.RunID)
	})
	if results == nil {
		results = []RunDiagnosis{}
	}
	// a run whose every call is a copy of another run's counts once, there
	counted := make([]RunDiagnosis, 0, len(results))
	for _, r := range results {
		if !r.Copy {
			counted = append(counted, r)
		}
	}
	out = Summary{Verdict: VerdictOf(counted), By: by, Groups: Groups(counted, by), Runs: results}
	out.Verdict.Copies = len(results) - len(counted)
	rents := make([]RunRent, 0, len(results))
	brs := make([]BoundaryRun, 0, len(results))
	costs := make([]Cost, 0, len(results))
	outcomes := make([]schema.Run, 0, len(results)) // only Resolved is read
	for _, r := range counted {
		rents = append(rents, RunRent{RunID: r.RunID, Total: r.RentTotal, Tools: r.RentByTool})
		brs = append(brs, BoundaryRun{RunID: r.RunID, Call: r.BoundaryCall, Event: r.BoundaryEvent, Finished: r.BoundaryFinished, StoppedWhileReading: r.StoppedWhileReading})
		costs = append(costs, r.Cost)
		outcomes = append(outcomes, schema.Run{RunID: r.RunID, Resolved: r.Resolved})
		out.Totals.ReReadsVisible += r.ReReadsVisible
		out.Totals.ReReadsHidden += r.ReReadsHidden
		out.Totals.ReReadsPending += r.ReReadsPending
		out.Totals.Stalls += r.Stalls
		if r.Stalls > 0 {
			out.Totals.StallRuns++
		}
		out.Totals.Repeats += r.Repeats
		if r.Repeats > 0 {
			out.Totals.RepeatRuns++
		}
		switch r.Cost.Source {
		case CostLogged:
			out.Totals.CostLogged++
			out.Totals.SpendUSD += r.Cost.USD
		case CostPriced:
			out.Totals.CostPriced++
			out.Totals.SpendUSD += r.Cost.USD
		default:
			out.Totals.CostUnknown++
		}
	}
	out.Totals.PerSolved = CostPerSolved(costs, outcomes)
	out.RentByTool = RentByTool(rents)
	out.ReadingBoundary = Boundary(brs)
	out.Verdict.BoundaryFound, out.Verdict.BoundaryCall = out.ReadingBoundary.Found, out.ReadingBoundary.Call
	for _, t := range out.RentByTool {
		switch {
		case t.Tool == RentSystemPrompt:
			out.Verdict.SystemPromptShare = t.Share
		case t.Tool == RentToolDefinitions:
			out.Verdict.ToolDefinitionsShare = t.Share
		case out.Verdict.TopRentTool == "" && t.Rent > 0: // sorted by rent
			out.Verdict.TopRentTool, out.Verdict.TopRentShare = t.Tool, t.Share
		}
	}
	return out
}
