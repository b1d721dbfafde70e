package counterfactual

import "github.com/trajmine/trajmine/schema"

// OutputUses is one tool output and how later calls used it (a row of a
// future `trajmine show --uses`).
type OutputUses struct {
	Output      int    `json:"output"` // index in events of the tool_result event
	Seq         int64  `json:"seq"`
	Turn        int64  `json:"turn"` // the first call that saw the output
	ToolKey     string `json:"tool_key"`
	ToolName    string `json:"tool_name"`
	Target      string `json:"target"` // the producing call's target (see Uses, step 2)
	EstTokens   int64  `json:"est_tokens"`
	ContentUses int    `json:"content_uses"` // content uses: events whose tokens came from it
	TargetUses  int    `json:"target_uses"`  // target uses: later calls on the same target
	EnableUses  int    `json:"enable_uses"`  // enable uses: manage_context calls that re-enabled it
	FirstCall   int64  `json:"first_call"`   // earliest call that used it; -1 when unused
	LastCall    int64  `json:"last_call"`    // latest call that used it; -1 when unused
}

// Used reports whether any call used the output.
func (o OutputUses) Used() bool { return o.ContentUses+o.TargetUses+o.EnableUses > 0 }

// Summarize returns one OutputUses per tool_result event of events, in
// event order, counting uses (as returned by Uses for the same events) by
// kind. Uses whose Output is not a tool_result of events are ignored.
func Summarize(events []schema.Event, uses []Use) []OutputUses {
	prod := producers(events)
	row := make([]int32, len(events)) // event index → row + 1
	var out []OutputUses
	for i := range events {
		e := &events[i]
		if e.Kind != schema.KindToolResult {
			continue
		}
		out = append(out, OutputUses{
			Output: i, Seq: e.Seq, Turn: e.Turn, ToolKey: e.ToolKey, ToolName: e.ToolName,
			Target: outputTarget(events, prod, i), EstTokens: e.EstTokens, FirstCall: -1, LastCall: -1,
		})
		row[i] = int32(len(out))
	}
	for _, u := range uses {
		if u.Output < 0 || u.Output >= len(row) || row[u.Output] == 0 {
			continue
		}
		r := &out[row[u.Output]-1]
		switch u.Kind {
		case UseContent:
			r.ContentUses++
		case UseTarget:
			r.TargetUses++
		case UseEnable:
			r.EnableUses++
		default:
			continue
		}
		if r.FirstCall < 0 || u.Call < r.FirstCall {
			r.FirstCall = u.Call
		}
		if u.Call > r.LastCall {
			r.LastCall = u.Call
		}
	}
	return out
}
