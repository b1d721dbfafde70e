package behavior

import (
	"cmp"
	"slices"
	"strings"

	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/schema"
)

// ManageRun is one run's use of manage_context.
type ManageRun struct {
	// HasTool reports whether the run had manage_context: it called it, or
	// a tool result carried a DTOC key (a tool_key that is not its call id),
	// or its system prompt or tool definitions mention manage_context.
	HasTool bool `json:"has_tool"`
	// Ops has one entry per manage_context call, in seq order.
	Ops []ManageOp `json:"ops"`
	// Hides has one entry per disabled key (each disable context op), in
	// seq order.
	Hides []Hide `json:"hides"`
	// Enables counts enable context ops (keys enabled).
	Enables int64 `json:"enables"`
}

// ManageOp is one manage_context call: a tool_call event named
// manage_context (or *__manage_context), with the disable and enable context
// ops it carries (same seq).
type ManageOp struct {
	Call     int64    `json:"call"` // the model call that made it
	Seq      int64    `json:"seq"`
	Disabled []string `json:"disabled"` // keys, in argument order
	Enabled  []string `json:"enabled"`
	// Freed is the tokens the call frees: Σ Hide.Freed over its disables.
	Freed int64 `json:"freed"`
	// Shallow: the call disables something and Freed < Options.ShallowTokens.
	Shallow bool `json:"shallow"`
	// Prompt is the prompt tokens of the call (logged input, else estimated:
	// PromptSource) and Fill = Prompt / window (0 when the window is unknown).
	Prompt       int64                 `json:"prompt_tokens"`
	PromptSource diagnose.PromptSource `json:"prompt_source"`
	Fill         float64               `json:"fill"`
	// CallTokens is the est_tokens of the manage_context tool call, plus the
	// assistant text of its call when every tool call of that call is a
	// manage_context call (given to the first such op of the call);
	// StatusTokens the est_tokens of its result (the status message).
	CallTokens   int64 `json:"call_tokens"`
	StatusTokens int64 `json:"status_tokens"`
	// OverheadRent is what the op itself adds to later prompts:
	//
	//	CallTokens × (calls Turn+1 … end) + StatusTokens × (calls from the result's turn … end)
	//
	// where end is the run's last call or the call before the next cut
	// (compaction, summary, continuation).
	OverheadRent int64 `json:"overhead_rent"`
	// CallPrompt is the prompt of the call when it made only manage_context
	// calls (an extra model call the run would not have made without the
	// tool; given to the first op of the call), else 0.
	CallPrompt int64 `json:"call_prompt"`
	// Saved is Σ Hide.Saved over its disables.
	Saved int64 `json:"saved"`
}

// Cost is the op's cost in prompt tokens: OverheadRent + CallPrompt.
func (op ManageOp) Cost() int64 { return op.OverheadRent + op.CallPrompt }

// Hide is one disable of one key: the output it hides, for how long, and
// whether it was wanted back.
type Hide struct {
	Key  string `json:"key"`
	Call int64  `json:"call"` // the manage_context call (ManageOp.Call)
	Seq  int64  `json:"seq"`
	// Found: the key names a tool output of the run that came before the
	// op. Redundant: it was not in the prompt of call Turn (already hidden,
	// cut, or not yet seen), so the disable hides nothing.
	Found     bool `json:"found"`
	Redundant bool `json:"redundant"`
	// Tool and Target are the output's tool name and its call's target;
	// Class the action class of its call (Options.Classify).
	Tool   string `json:"tool"`
	Class  string `json:"class"`
	Target string `json:"target"`
	// OutputCall is the first call that saw the output; Age = Turn −
	// OutputCall, the calls since the output arrived (0: disabled by the
	// first call that saw it).
	OutputCall int64 `json:"output_call"`
	Age        int64 `json:"age"`
	// Tokens is the output's est_tokens and Freed = max(0, Tokens −
	// Options.PlaceholderTokens); 0 for a redundant or unknown key.
	Tokens int64 `json:"tokens"`
	Freed  int64 `json:"freed"`
	// HiddenCalls is how many calls after the op did not carry the output
	// before it came back: calls Turn+1, Turn+2, … while hidden, up to the
	// run's last call or the call before the next cut (compaction, summary,
	// continuation). Saved = Freed × HiddenCalls.
	HiddenCalls int64 `json:"hidden_calls"`
	Saved       int64 `json:"saved"`
	// Reenabled: an enable of the key follows (seq after the disable), made
	// by call Turn + ReenabledAfter (−1 when none). Thrash: ReenabledAfter
	// ≤ Options.ThrashWindow.
	Reenabled      bool  `json:"reenabled"`
	ReenabledAfter int64 `json:"reenabled_after"`
	Thrash         bool  `json:"thrash"`
	// NeededUses counts the uses of the output (counterfactual.Uses: its
	// distinctive words reappear in a later model output, or a later tool
	// call acts on its target) made by calls that did not carry it
	// (Turn+1 … Turn+HiddenCalls); Needed is NeededUses > 0.
	NeededUses int  `json:"needed_uses"`
	Needed     bool `json:"needed"`
}

// isManageContext reports whether a tool is DTOC's manage_context (also
// under an MCP prefix, "server__manage_context").
func isManageContext(name string) bool {
	return name == "manage_context" || strings.HasSuffix(name, "__manage_context")
}

// manage computes the run's ManageRun:
//
//  1. Every manage_context tool_call event is an op; so is any seq that
//     carries disable or enable context ops without such an event.
//  2. Each disable op is a Hide: the output with that key (the
//     diagnose.Visibility output), whether call Turn carried it, its age,
//     tokens freed, the calls it then stayed hidden (Visibility spans,
//     bounded by the next cut), the first later enable of the key, and the
//     uses made while hidden.
//  3. Each op adds up its hides and gets its prompt, fill and overhead.
func (rc *runCtx) manage() ManageRun {
	m := ManageRun{Ops: []ManageOp{}, Hides: []Hide{}}
	events := rc.events
	rc.callIdx = map[string]int{} // call_id → tool_call event index
	bySeq := map[int64]int{}      // seq → manage op index
	pureTurn := map[int64]bool{}  // turns whose tool calls are all manage_context
	textTok := map[int64]int64{}  // turn → est_tokens of its assistant text
	for i := range events {
		e := &events[i]
		switch {
		case e.Kind == schema.KindAssistant:
			textTok[e.Turn] += e.EstTokens
		case e.Kind == schema.KindToolCall:
			if e.CallID != "" {
				rc.callIdx[e.CallID] = i
			}
			man := isManageContext(e.ToolName)
			if pure, seen := pureTurn[e.Turn]; !seen || pure {
				pureTurn[e.Turn] = man
			}
			if man {
				m.HasTool = true
				bySeq[e.Seq] = len(m.Ops)
				m.Ops = append(m.Ops, ManageOp{Call: e.Turn, Seq: e.Seq, Disabled: []string{}, Enabled: []string{}})
			}
		case e.Kind == schema.KindToolResult && e.CallID != "" && e.ToolKey != e.CallID &&
			!strings.HasPrefix(e.ToolKey, e.CallID+"#"):
			m.HasTool = true // a DTOC envelope key
		case e.Kind == schema.KindSystem && strings.Contains(e.Text, "manage_context"):
			m.HasTool = true
		}
	}
	var keyOps []schema.ContextOp // disable and enable ops, by seq
	enables := map[string][]int{} // key → indexes in keyOps of its enables, ascending
	for _, op := range rc.ops {
		if op.Op != schema.OpDisable && op.Op != schema.OpEnable {
			continue
		}
		m.HasTool = true
		if op.Op == schema.OpEnable {
			enables[op.ToolKey] = append(enables[op.ToolKey], len(keyOps))
		}
		if _, ok := bySeq[op.Seq]; !ok {
			bySeq[op.Seq] = len(m.Ops)
			m.Ops = append(m.Ops, ManageOp{Call: op.Turn, Seq: op.Seq, Disabled: []string{}, Enabled: []string{}})
		}
		keyOps = append(keyOps, op)
	}
	slices.SortStableFunc(m.Ops, func(a, b ManageOp) int { return cmp.Compare(a.Seq, b.Seq) })
	for i, op := range m.Ops {
		bySeq[op.Seq] = i
	}

	// 2. hides
	for n, ko := range keyOps {
		op := &m.Ops[bySeq[ko.Seq]]
		if ko.Op == schema.OpEnable {
			op.Enabled = append(op.Enabled, ko.ToolKey)
			m.Enables++
			continue
		}
		op.Disabled = append(op.Disabled, ko.ToolKey)
		h := Hide{Key: ko.ToolKey, Call: ko.Turn, Seq: ko.Seq, ReenabledAfter: -1}
		if en := enables[h.Key]; len(en) > 0 {
			if j, _ := slices.BinarySearch(en, n); j < len(en) {
				h.Reenabled, h.ReenabledAfter = true, keyOps[en[j]].Turn-h.Call
				h.Thrash = h.ReenabledAfter <= rc.opt.thrash
			}
		}
		if out, ok := rc.v.Output(h.Key); ok && out.Seq < h.Seq {
			h.Found = true
			h.Tool, h.Target, h.OutputCall = out.ToolName, out.Target, out.Call
			h.Age = h.Call - out.Call
			h.Class = rc.classOf(out)
			if out.VisibleAt(h.Call) {
				h.Tokens = out.EstTokens
				h.Freed = max(0, out.EstTokens-rc.opt.placeholder)
				end := rc.bound(out.Seq)
				for t := h.Call + 1; t <= end && !out.VisibleAt(t); t++ {
					h.HiddenCalls++
				}
				h.Saved = h.Freed * h.HiddenCalls
				for _, c := range rc.usesOf(h.Key) {
					if c > h.Call && c <= h.Call+h.HiddenCalls {
						h.NeededUses++
					}
				}
				h.Needed = h.NeededUses > 0
			} else {
				h.Redundant = true
			}
		}
		op.Freed += h.Freed
		op.Saved += h.Saved
		m.Hides = append(m.Hides, h)
	}

	// 3. per op: prompt, fill, overhead
	firstOfTurn := map[int64]bool{}
	for i := range m.Ops {
		op := &m.Ops[i]
		op.Shallow = len(op.Disabled) > 0 && op.Freed < rc.opt.shallow
		op.Prompt, op.PromptSource, op.Fill = rc.prompt(op.Call)
		ev, ok := rc.eventAt(op.Seq)
		if !ok || ev.Kind != schema.KindToolCall {
			continue
		}
		op.CallTokens = ev.EstTokens
		first := !firstOfTurn[op.Call]
		firstOfTurn[op.Call] = true
		if first && pureTurn[op.Call] {
			op.CallTokens += textTok[op.Call]
			op.CallPrompt = op.Prompt
		}
		op.OverheadRent = op.CallTokens * rc.carried(op.Call+1, op.Seq)
		if res, ok := rc.result(ev); ok {
			op.StatusTokens = res.EstTokens
			op.OverheadRent += res.EstTokens * rc.carried(res.Turn, res.Seq)
		}
	}
	return m
}

// seqCmp orders an event against a sequence number, for
// slices.BinarySearchFunc over events in seq order.
func seqCmp(e schema.Event, seq int64) int { return cmp.Compare(e.Seq, seq) }

// eventAt returns the event with sequence number seq.
func (rc *runCtx) eventAt(seq int64) (*schema.Event, bool) {
	i, ok := slices.BinarySearchFunc(rc.events, seq, seqCmp)
	if !ok {
		return nil, false
	}
	return &rc.events[i], true
}

// result returns the tool_result answering the tool call call: the first
// later result with its call_id, else (no call_id) the first later result of
// the same tool.
func (rc *runCtx) result(call *schema.Event) (*schema.Event, bool) {
	i, _ := slices.BinarySearchFunc(rc.events, call.Seq+1, seqCmp)
	for ; i < len(rc.events); i++ {
		e := &rc.events[i]
		if e.Kind != schema.KindToolResult {
			continue
		}
		if call.CallID != "" && e.CallID == call.CallID || call.CallID == "" && e.ToolName == call.ToolName {
			return e, true
		}
	}
	return nil, false
}

// classOf returns the action class of the call that produced out.
func (rc *runCtx) classOf(out diagnose.CarriedOutput) string {
	args := ""
	if i, ok := rc.callIdx[out.CallID]; ok && out.CallID != "" {
		args = rc.events[i].Args
	}
	return rc.opt.classify(rc.run.Harness, out.ToolName, args)
}
