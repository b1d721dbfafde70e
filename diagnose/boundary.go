package diagnose

import (
	"cmp"
	"slices"
	"strings"

	"github.com/trajmine/trajmine/schema"
)

// BoundaryK is the number of last tool calls examined by StoppedWhileReading.
const BoundaryK = 3

// ClassifyFunc returns the action class name ("read", "search", "edit",
// "execute", "test", "context", "submit" or "other") of one tool call of a
// run with the given harness. cmd passes the actions classifier; diagnose
// itself does not depend on it.
type ClassifyFunc func(harness, tool, args string) string

// fallbackSubmits are the tool names FallbackClassify calls "submit" (the
// actions classifier's submit names without its patterns).
var fallbackSubmits = []string{"submit", "finish", "attempt_completion", "mark_task_complete", "task_complete", "complete_task", "final_answer"}

// FallbackClassify is the ClassifyFunc used when none is given (the real
// classifier is the actions package's, analysis.DefaultClassify, which
// cmd passes): "submit" for the usual submit and finish tool names
// (fallbackSubmits, any case), "read" when DefaultIsRead says so, else
// "other". It knows no searches or edits.
func FallbackClassify(_, tool, args string) string {
	if slices.Contains(fallbackSubmits, strings.ToLower(tool)) {
		return "submit"
	}
	if DefaultIsRead(tool, args) {
		return "read"
	}
	return "other"
}

// StoppedWhileReading reports whether a run's last BoundaryK tool_call events
// (in seq order; fewer when the run has fewer) include at least one read or
// search and no edit, submit or test. A run without tool calls did not stop
// while reading. classify nil means FallbackClassify.
func StoppedWhileReading(harness string, events []schema.Event, classify ClassifyFunc) bool {
	if classify == nil {
		classify = FallbackClassify
	}
	var calls []schema.Event
	for _, e := range events {
		if e.Kind == schema.KindToolCall {
			calls = append(calls, e)
		}
	}
	slices.SortStableFunc(calls, func(a, b schema.Event) int { return cmp.Compare(a.Seq, b.Seq) })
	if len(calls) > BoundaryK {
		calls = calls[len(calls)-BoundaryK:]
	}
	reading := false
	for _, e := range calls {
		switch classify(harness, e.ToolName, e.Args) {
		case "edit", "submit", "test":
			return false
		case "read", "search":
			reading = true
		}
	}
	return reading
}

// BoundaryRun is one run's input to the reading-boundary curves.
type BoundaryRun struct {
	RunID string `json:"run_id"`
	// Call is the run's number of model calls (schema.Run.NTurns): the call
	// at which it stopped, 1-based.
	Call int64 `json:"call"`
	// Event: the run did not finish and stopped while reading (the event of
	// interest).
	Event bool `json:"event"`
	// Finished: the run finished (the competing outcome); never with Event.
	// A run with neither (stopped otherwise, or its end unknown) is censored
	// at Turn.
	Finished bool `json:"finished"`
	// StoppedWhileReading is StoppedWhileReading's answer, whatever the end reason.
	StoppedWhileReading bool `json:"stopped_while_reading"`
}

// BoundaryInput builds a run's BoundaryRun from its diagnosed end reason and
// its events. Turn is run.NTurns, or (when that is 0) one more than the
// largest turn of an output event (assistant, reasoning, tool_call).
func BoundaryInput(run schema.Run, end End, events []schema.Event, classify ClassifyFunc) BoundaryRun {
	t := run.NTurns
	if t <= 0 {
		for _, e := range events {
			if e.Kind.IsOutput() {
				t = max(t, e.Turn+1)
			}
		}
	}
	swr := StoppedWhileReading(run.Harness, events, classify)
	fin := end.Reason == schema.EndFinished
	return BoundaryRun{RunID: run.RunID, Call: t, Event: !fin && swr, Finished: fin, StoppedWhileReading: swr}
}

// KMPoint is one step of a Kaplan–Meier curve: at Call, AtRisk runs had
// Call ≥ this call, Events of them stopped while reading at it and Censored
// were censored at it (finished runs included); Survival is the
// product-limit estimate after it.
type KMPoint struct {
	Call     int64   `json:"call"`
	AtRisk   int64   `json:"at_risk"`
	Events   int64   `json:"events"`
	Censored int64   `json:"censored"`
	Survival float64 `json:"survival"`
}

// CIFPoint is one step of the Aalen–Johansen estimate: at Call, AtRisk runs
// had Call ≥ this call; Events stopped while reading at it, Finished
// finished at it and Censored were censored at it. Survival is the
// all-outcome product-limit estimate after it (still going: neither
// outcome yet); Incidence is the cumulative incidence of stopping while
// reading by Turn and FinishedIncidence that of finishing.
type CIFPoint struct {
	Call              int64   `json:"call"`
	AtRisk            int64   `json:"at_risk"`
	Events            int64   `json:"events"`
	Finished          int64   `json:"finished"`
	Censored          int64   `json:"censored"`
	Survival          float64 `json:"survival"`
	Incidence         float64 `json:"incidence"`
	FinishedIncidence float64 `json:"finished_incidence"`
}

// Defaults of BoundaryOptions.
const (
	// BoundaryShare is the half-life note's "half the trajectories stop
	// while still reading".
	BoundaryShare = 0.5
	// BoundaryMinRuns is the fewest runs a stated boundary may rest on: below
	// it one or two runs decide the turn (one unfinished run of three made a
	// boundary under Kaplan–Meier).
	BoundaryMinRuns = 10
)

// BoundaryOptions configure Boundary; nil means the defaults.
type BoundaryOptions struct {
	Share   float64 // incidence the boundary needs; 0 means BoundaryShare
	MinRuns int64   // fewest runs for a stated boundary; 0 means BoundaryMinRuns, < 0 none
}

// ReadingBoundary is the reading boundary of a set of runs: the first call
// by which the cumulative incidence of stopping while reading, with
// finishing as a competing outcome (Aalen–Johansen), reaches Share. The
// Kaplan–Meier curve that censors finished runs is kept for comparison.
type ReadingBoundary struct {
	Runs     int64   `json:"runs"`     // runs the estimate rests on (Call > 0)
	Events   int64   `json:"events"`   // stopped while reading
	Finished int64   `json:"finished"` // finished: the competing outcome
	Censored int64   `json:"censored"` // neither
	Share    float64 `json:"share"`
	MinRuns  int64   `json:"min_runs"`
	// Found: the incidence reaches Share at Call and Runs ≥ MinRuns.
	Found bool  `json:"found"`
	Call  int64 `json:"call"` // the boundary; 0 when not Found
	// Reached: the incidence reaches Share (at ReachedCall) whether or not
	// Runs ≥ MinRuns; Reached && !Found means too few runs to state it.
	Reached     bool  `json:"reached"`
	ReachedCall int64 `json:"reached_call"`
	// EventsBy is the number of runs that stopped while reading by
	// ReachedCall (all of them when not Reached).
	EventsBy int64 `json:"events_by"`
	// Incidence is the final cumulative incidence of stopping while reading
	// (at the last turn).
	Incidence float64    `json:"incidence"`
	CIF       []CIFPoint `json:"incidence_curve"`

	// KMFound, KMCall: the Kaplan–Meier survival of "not stopped while
	// reading", finished runs censored, first ≤ 1 − Share at KMCall (no
	// minimum applies). Curve is that survival curve.
	KMFound bool      `json:"km_found"`
	KMCall  int64     `json:"km_call"`
	Curve   []KMPoint `json:"curve"`
}

// Boundary is BoundaryWith with default options.
func Boundary(runs []BoundaryRun) ReadingBoundary { return BoundaryWith(runs, nil) }

// BoundaryWith computes the reading boundary over runs (runs with Turn ≤ 0
// are ignored). At each distinct Turn t (ascending), with n runs at risk
// (Turn ≥ t), d₁ stopping while reading, d₂ finishing and the rest censored
// at t, and S(t⁻) the all-outcome survival before t:
//
//	F₁(t) = F₁(t⁻) + S(t⁻)·d₁/n      (Aalen–Johansen incidence of reading stops)
//	F₂(t) = F₂(t⁻) + S(t⁻)·d₂/n      (of finishing)
//	S(t)  = S(t⁻)·(1 − (d₁+d₂)/n)
//
// Censored runs leave the risk set after t. The boundary is the smallest t
// with F₁(t) ≥ Share, stated (Found) only when Runs ≥ MinRuns. The
// Kaplan–Meier comparison is K(t) = K(t⁻)·(1 − d₁/n), finished runs
// censored; its boundary is the smallest t with K(t) ≤ 1 − Share. Every
// distinct turn is a point of both curves.
func BoundaryWith(runs []BoundaryRun, o *BoundaryOptions) ReadingBoundary {
	share, minRuns := BoundaryShare, int64(BoundaryMinRuns)
	if o != nil {
		if o.Share > 0 {
			share = o.Share
		}
		if o.MinRuns != 0 {
			minRuns = max(o.MinRuns, 0)
		}
	}
	rb := ReadingBoundary{Share: share, MinRuns: minRuns}
	rs := make([]BoundaryRun, 0, len(runs))
	for _, r := range runs {
		if r.Call > 0 {
			rs = append(rs, r)
		}
	}
	slices.SortStableFunc(rs, func(a, b BoundaryRun) int { return cmp.Compare(a.Call, b.Call) })
	rb.Runs = int64(len(rs))
	const eps = 1e-12 // F₁ is a sum of products: 1/2 may come out a hair below
	atRisk := rb.Runs
	s, f1, f2, km := 1.0, 0.0, 0.0, 1.0
	for i := 0; i < len(rs); {
		p := CIFPoint{Call: rs[i].Call, AtRisk: atRisk}
		for ; i < len(rs) && rs[i].Call == p.Call; i++ {
			switch {
			case rs[i].Event:
				p.Events++
			case rs[i].Finished:
				p.Finished++
			default:
				p.Censored++
			}
		}
		n := float64(p.AtRisk)
		f1 += s * float64(p.Events) / n
		f2 += s * float64(p.Finished) / n
		s *= 1 - float64(p.Events+p.Finished)/n
		if p.Events > 0 {
			km *= 1 - float64(p.Events)/n
		}
		p.Survival, p.Incidence, p.FinishedIncidence = s, f1, f2
		rb.Events += p.Events
		rb.Finished += p.Finished
		rb.Censored += p.Censored
		atRisk -= p.Events + p.Finished + p.Censored
		rb.CIF = append(rb.CIF, p)
		rb.Curve = append(rb.Curve, KMPoint{Call: p.Call, AtRisk: p.AtRisk, Events: p.Events, Censored: p.Finished + p.Censored, Survival: km})
		if !rb.Reached && f1 >= share-eps {
			rb.Reached, rb.ReachedCall, rb.EventsBy = true, p.Call, rb.Events
		}
		if !rb.KMFound && km <= 1-share+eps {
			rb.KMFound, rb.KMCall = true, p.Call
		}
	}
	rb.Incidence = f1
	if !rb.Reached {
		rb.EventsBy = rb.Events
	}
	if rb.Reached && rb.Runs >= minRuns {
		rb.Found, rb.Call = true, rb.ReachedCall
	}
	return rb
}
