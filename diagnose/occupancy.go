package diagnose

import (
	"cmp"
	"slices"

	"github.com/trajmine/trajmine/schema"
)

// PromptSource says where a call's prompt size comes from.
type PromptSource string

// Prompt sources.
const (
	PromptLogged    PromptSource = "logged"    // the call's usage row: input tokens incl. cache reads and writes
	PromptEstimated PromptSource = "estimated" // EstimatedPrompts over the event history
)

// CallOccupancy is one model call's prompt against the window.
type CallOccupancy struct {
	Call   int64        `json:"call"`
	Prompt int64        `json:"prompt_tokens"`
	Source PromptSource `json:"source"`
	Share  float64      `json:"share"` // Prompt / window; 0 when the window is unknown
}

// RunOccupancy is a run's prompt sizes over its model calls.
type RunOccupancy struct {
	Window         int64           `json:"window_tokens"` // 0 when unknown
	Calls          []CallOccupancy `json:"calls"`         // by turn
	LoggedCalls    int             `json:"logged_calls"`
	EstimatedCalls int             `json:"estimated_calls"`
	PeakTokens     int64           `json:"peak_tokens"` // the largest single request, never a sum
	PeakCall       int64           `json:"peak_call"`
	PeakShare      float64         `json:"peak_share"`
	Calls50        int             `json:"calls_ge_50"` // calls with a prompt ≥ 50 % of the window
	Calls80        int             `json:"calls_ge_80"`
	Calls95        int             `json:"calls_ge_95"`
	Compactions    []int64         `json:"compaction_calls"` // turns of compaction, summary, continuation and truncation ops
}

// Last returns the run's last model call, and false when it has none.
func (o RunOccupancy) Last() (CallOccupancy, bool) {
	if len(o.Calls) == 0 {
		return CallOccupancy{}, false
	}
	return o.Calls[len(o.Calls)-1], true
}

// occCompactionOps are the context ops that shrink or restart the prompt.
var occCompactionOps = map[schema.OpKind]bool{
	schema.OpCompaction:   true,
	schema.OpSummary:      true,
	schema.OpContinuation: true,
	schema.OpTruncation:   true,
}

// Occupancy computes the prompt size of every model call of run against
// window (0 = unknown). A call is a model call: a turn with model output
// (an assistant, reasoning or tool_call event) or a usage row, and every turn
// with events before the last such turn (the index of a call whose output the
// log does not show). The turns after the last call are not calls: their
// events (the tool result of a submission, a command the user ran, an error)
// were never sent in a prompt, so no prompt is estimated for them. A call's
// prompt is the logged input (incl. cache) when the call has a usage row not
// marked estimated, else the estimated prompt from the event history.
func Occupancy(run schema.Run, events []schema.Event, usage []schema.Usage, ops []schema.ContextOp, window int64) RunOccupancy {
	est := EstimatedPrompts(events)
	logged := map[int64]int64{}
	for _, u := range usage {
		if !u.Estimated {
			logged[u.Turn] = u.InputTokens
		}
	}
	lastCall, anyCall := LastCall(events, usage)
	turns := make([]int64, 0, len(est)+len(usage))
	for t := range est {
		if anyCall && t <= lastCall {
			turns = append(turns, t)
		}
	}
	for _, u := range usage {
		if _, ok := est[u.Turn]; !ok {
			turns = append(turns, u.Turn)
		}
	}
	slices.Sort(turns)
	turns = slices.Compact(turns)

	o := RunOccupancy{Window: max(window, 0), Calls: []CallOccupancy{}, Compactions: []int64{}}
	for _, t := range turns {
		c := CallOccupancy{Call: t, Prompt: est[t], Source: PromptEstimated}
		if in, ok := logged[t]; ok {
			c.Prompt, c.Source = in, PromptLogged
			o.LoggedCalls++
		} else {
			o.EstimatedCalls++
		}
		if o.Window > 0 {
			c.Share = float64(c.Prompt) / float64(o.Window)
			o.Calls50 += occAtLeast(c.Prompt, o.Window, 50)
			o.Calls80 += occAtLeast(c.Prompt, o.Window, 80)
			o.Calls95 += occAtLeast(c.Prompt, o.Window, 95)
		}
		if len(o.Calls) == 0 || c.Prompt > o.PeakTokens { // ties keep the earlier call
			o.PeakTokens, o.PeakCall, o.PeakShare = c.Prompt, c.Call, c.Share
		}
		o.Calls = append(o.Calls, c)
	}
	for _, op := range ops {
		if occCompactionOps[op.Op] {
			o.Compactions = append(o.Compactions, op.Turn)
		}
	}
	slices.SortFunc(o.Compactions, cmp.Compare[int64])
	o.Compactions = slices.Compact(o.Compactions)
	return o
}

// at is o against another window (0 unknown): the same calls with their
// shares of it, the calls at or above 50, 80 and 95 % of it and the peak's
// share recomputed.
func (o RunOccupancy) at(window int64) RunOccupancy {
	a := o
	a.Window = max(window, 0)
	a.Calls = make([]CallOccupancy, len(o.Calls))
	a.Calls50, a.Calls80, a.Calls95, a.PeakShare = 0, 0, 0, 0
	for i, c := range o.Calls {
		c.Share = 0
		if a.Window > 0 {
			c.Share = float64(c.Prompt) / float64(a.Window)
			a.Calls50 += occAtLeast(c.Prompt, a.Window, 50)
			a.Calls80 += occAtLeast(c.Prompt, a.Window, 80)
			a.Calls95 += occAtLeast(c.Prompt, a.Window, 95)
		}
		if c.Call == o.PeakCall && c.Prompt == o.PeakTokens {
			a.PeakShare = c.Share
		}
		a.Calls[i] = c
	}
	return a
}

// LastCall is the index of a run's last model call: the largest turn (the
// events' call index) of a model output event (assistant, reasoning,
// tool_call) or a usage row; false when the run has neither (no model
// call). Events of later turns are inputs no call was sent (see Occupancy).
func LastCall(events []schema.Event, usage []schema.Usage) (int64, bool) {
	var last int64
	found := false
	for _, u := range usage {
		if !found || u.Turn > last {
			last, found = u.Turn, true
		}
	}
	for _, e := range events {
		if e.Kind.IsOutput() && (!found || e.Turn > last) {
			last, found = e.Turn, true
		}
	}
	return last, found
}

// occAtLeast is 1 when prompt ≥ percent % of window, in exact integer arithmetic.
func occAtLeast(prompt, window, percent int64) int {
	if prompt*100 >= window*percent {
		return 1
	}
	return 0
}
