package diagnose

import (
	"cmp"
	"slices"

	"github.com/trajmine/trajmine/schema"
)

// Span is an inclusive range of model-call indexes (turns) From..To.
type Span struct {
	From int64 `json:"from"`
	To   int64 `json:"to"`
}

// Len returns the number of model calls in s.
func (s Span) Len() int64 { return s.To - s.From + 1 }

// CarriedOutput is one tool output (a tool_result event) and the model calls
// whose prompt carried it.
type CarriedOutput struct {
	ToolKey   string `json:"tool_key"`
	CallID    string `json:"call_id"`
	ToolName  string `json:"tool_name"`
	Target    string `json:"target"`
	Seq       int64  `json:"seq"`
	Call      int64  `json:"call"` // the first call that could see the output
	EstTokens int64  `json:"est_tokens"`
	// Envelope is the DTOC envelope the log wraps the output in
	// (schema.Event.EnvelopeTokens): carried with it, so it pays rent too.
	Envelope int64  `json:"envelope_tokens,omitempty"`
	Spans    []Span `json:"spans"` // disjoint, ascending; empty when no call carried it
}

// Calls returns the number of model calls that carried o.
func (o CarriedOutput) Calls() int64 {
	var n int64
	for _, s := range o.Spans {
		n += s.Len()
	}
	return n
}

// VisibleAt reports whether the prompt of model call turn carried o.
func (o CarriedOutput) VisibleAt(turn int64) bool {
	for _, s := range o.Spans {
		if turn >= s.From && turn <= s.To {
			return true
		}
	}
	return false
}

// VisibilityOptions configures NewVisibility. A nil *VisibilityOptions means defaults.
type VisibilityOptions struct {
	// NCalls is the run's number of model calls (schema.Run.NTurns); the last
	// call is NCalls-1. Zero means infer it from the events (see NewVisibility).
	NCalls int64
	// Copied are the model calls (turns) that copy another run's (a resumed
	// or forked session's log repeats the calls of the run it continues:
	// schema.Usage.CopyOf): they carried what they carried, but their rent
	// and re-reads are counted in that run, so Rent and ReReads leave them
	// out. nil: none.
	Copied map[int64]bool
}

// CopiedCalls are the turns of usage's copied rows (schema.Usage.CopyOf),
// for VisibilityOptions.Copied; nil when none is a copy.
func CopiedCalls(usage []schema.Usage) map[int64]bool {
	var out map[int64]bool
	for _, u := range usage {
		if u.CopyOf != "" {
			if out == nil {
				out = map[int64]bool{}
			}
			out[u.Turn] = true
		}
	}
	return out
}

// Visibility says which tool outputs of one run were in the prompt of each
// model call. Build it with NewVisibility.
type Visibility struct {
	RunID    string          `json:"run_id"`
	LastCall int64           `json:"last_call"` // index of the run's last model call; -1 when there is none
	Outputs  []CarriedOutput `json:"outputs"`   // in seq order
	// Prefix holds the system-prompt and tool-definition events (step 6), in
	// seq order, ToolName RentSystemPrompt or RentToolDefinitions. They are
	// not tool outputs: InPrompt, Output and VisibleAt do not see them.
	Prefix []CarriedOutput `json:"prefix"`
	byKey  map[string]int
	copied map[int64]bool // VisibilityOptions.Copied
	copies []int64        // its turns, ascending
}

// Names under which Rent reports the prompt prefix a log shows.
const (
	// RentSystemPrompt is the rent of system-prompt events
	// (schema.Event.IsSystemPrompt: kind system, role system or developer).
	RentSystemPrompt = "(system prompt)"
	// RentToolDefinitions is the rent of tool-definition events
	// (schema.Event.IsToolDefinitions: kind system, role tools).
	RentToolDefinitions = "(tool definitions)"
)

// IsPrefix reports whether a ToolRent row is the system prompt or the tool
// definitions rather than a tool.
func IsPrefix(tool string) bool { return tool == RentSystemPrompt || tool == RentToolDefinitions }

// NewVisibility computes, for one run's events and context ops, which tool
// outputs each model call carried. It does no I/O.
//
// The model, with turn semantics from schema (an input event's turn is the first
// call that sees it; an op's turn is that of its event):
//
//  1. Every tool_result event is an output, identified by its tool_key (its
//     call_id, then "t<seq>", when the key is empty). An output with turn c is
//     carried by calls c, c+1, …, LastCall unless a later step cuts or hides it.
//  2. LastCall is o.NCalls-1 when given, else the largest turn of an output
//     event (assistant, reasoning, tool_call), else the largest turn of any
//     event. Outputs created after the last call are carried by no call.
//  3. Cut: a compaction, summary or continuation op at turn k and seq s removes
//     every output with seq < s from call k on (the summary replaces it), so
//     such an output is carried at most up to call k-1. A masking or truncation
//     op without a tool_key is treated as a cut too, since it names no single
//     output. The first cut after the output wins; nothing restores a cut.
//  4. Hide and restore, per key, applying the key's ops (seq > the output's seq)
//     in seq order, the last one effective at a call winning:
//     a disable op at turn d hides the output from call d+1 on (the op is a
//     manage_context tool call made by call d, so call d still saw the output);
//     an enable op at turn e shows it again from call e+1 on;
//     a masking or truncation op with that tool_key at turn m hides it from
//     call m on (these are inputs, applied before call m); an enable restores
//     it like a disable.
//  5. The carried calls are the union of visible calls in [c, min(LastCall,
//     cut-1)], kept as disjoint ascending Spans.
//  6. Prefix: every system-prompt event (kind system, role system or
//     developer) and tool-definitions event (kind system, role tools) with
//     turn c is carried by calls c … LastCall, up to the first compaction,
//     summary or continuation op after it (seq greater), like an output; it
//     has no key, so disable, enable, masking and truncation ops do not act
//     on it (they remove history, not the prefix). A harness that re-sends
//     its system prompt after a compaction and logs it has the new event
//     carried anew; one that does not log it is not counted, as in the
//     estimated prompt (EstimatedPrompts), which a compaction restarts.
//
// Ops of other runs and ops that precede the output (seq < the output's seq)
// are ignored. Compaction events in events are not read: ops are the source of
// truth for context management.
func NewVisibility(events []schema.Event, ops []schema.ContextOp, o *VisibilityOptions) *Visibility {
	v := &Visibility{LastCall: -1, byKey: map[string]int{}}
	if o != nil && len(o.Copied) > 0 {
		v.copied = o.Copied
		for t := range o.Copied {
			v.copies = append(v.copies, t)
		}
		slices.Sort(v.copies)
	}
	if len(events) > 0 {
		v.RunID = events[0].RunID
	}
	switch {
	case o != nil && o.NCalls > 0:
		v.LastCall = o.NCalls - 1
	default:
		maxOut, maxAny := int64(-1), int64(-1)
		for _, e := range events {
			maxAny = max(maxAny, e.Turn)
			if e.Kind.IsOutput() {
				maxOut = max(maxOut, e.Turn)
			}
		}
		v.LastCall = maxOut
		if maxOut < 0 {
			v.LastCall = maxAny
		}
	}

	sorted := make([]schema.ContextOp, 0, len(ops))
	for _, op := range ops {
		if v.RunID == "" || op.RunID == "" || op.RunID == v.RunID {
			sorted = append(sorted, op)
		}
	}
	slices.SortStableFunc(sorted, func(a, b schema.ContextOp) int { return cmp.Compare(a.Seq, b.Seq) })
	var cuts []schema.ContextOp
	keyOps := map[string][]schema.ContextOp{}
	for _, op := range sorted {
		switch {
		case IsCut(op):
			cuts = append(cuts, op)
		case op.ToolKey != "":
			keyOps[op.ToolKey] = append(keyOps[op.ToolKey], op)
		}
	}

	for _, e := range events {
		if e.IsSystemPrompt() || e.IsToolDefinitions() {
			name := RentSystemPrompt
			if e.IsToolDefinitions() {
				name = RentToolDefinitions
			}
			end := v.LastCall
			for _, c := range cuts {
				if c.Seq > e.Seq && c.Op != schema.OpMasking && c.Op != schema.OpTruncation {
					end = min(end, c.Turn-1)
					break
				}
			}
			p := CarriedOutput{ToolName: name, Seq: e.Seq, Call: e.Turn, EstTokens: e.EstTokens}
			if end >= e.Turn {
				p.Spans = []Span{{e.Turn, end}}
			}
			v.Prefix = append(v.Prefix, p)
			continue
		}
		if e.Kind != schema.KindToolResult {
			continue
		}
		key := e.OutputKey()
		out := CarriedOutput{ToolKey: key, CallID: e.CallID, ToolName: e.ToolName, Target: e.Target,
			Seq: e.Seq, Call: e.Turn, EstTokens: e.EstTokens, Envelope: e.EnvelopeTokens}
		end := v.LastCall
		for _, c := range cuts {
			if c.Seq > e.Seq {
				end = min(end, c.Turn-1)
				break
			}
		}
		out.Spans = rentSpans(e.Turn, end, e.Seq, keyOps[key])
		v.Outputs = append(v.Outputs, out)
	}
	slices.SortStableFunc(v.Outputs, func(a, b CarriedOutput) int { return cmp.Compare(a.Seq, b.Seq) })
	slices.SortStableFunc(v.Prefix, func(a, b CarriedOutput) int { return cmp.Compare(a.Seq, b.Seq) })
	for i, out := range v.Outputs {
		if _, dup := v.byKey[out.ToolKey]; !dup {
			v.byKey[out.ToolKey] = i
		}
	}
	return v
}

// Output returns the output with tool key key.
func (v *Visibility) Output(key string) (CarriedOutput, bool) {
	i, ok := v.byKey[key]
	if !ok {
		return CarriedOutput{}, false
	}
	return v.Outputs[i], true
}

// VisibleAt reports whether the output with tool key key was in the prompt of
// model call turn. Unknown keys are never visible.
func (v *Visibility) VisibleAt(key string, turn int64) bool {
	o, ok := v.Output(key)
	return ok && o.VisibleAt(turn)
}

// InPrompt returns the tool keys of the outputs carried by model call turn, in seq order.
func (v *Visibility) InPrompt(turn int64) []string {
	var keys []string
	for _, o := range v.Outputs {
		if o.VisibleAt(turn) {
			keys = append(keys, o.ToolKey)
		}
	}
	return keys
}

// IsCut reports whether op removes every older output (NewVisibility
// step 3): a compaction, summary or continuation, or a masking or
// truncation without a tool key.
func IsCut(op schema.ContextOp) bool {
	switch op.Op {
	case schema.OpCompaction, schema.OpSummary, schema.OpContinuation:
		return true
	case schema.OpMasking, schema.OpTruncation:
		return op.ToolKey == ""
	}
	return false
}

// rentSpans returns the visible calls in [from, to] given the key's ops (step 4).
func rentSpans(from, to, seq int64, ops []schema.ContextOp) []Span {
	if to < from {
		return nil
	}
	type change struct {
		at  int64
		vis bool
	}
	changes := []change{{from, true}}
	for _, op := range ops {
		if op.Seq <= seq {
			continue
		}
		var c change
		switch op.Op {
		case schema.OpDisable:
			c = change{op.Turn + 1, false}
		case schema.OpEnable:
			c = change{op.Turn + 1, true}
		case schema.OpMasking, schema.OpTruncation:
			c = change{op.Turn, false}
		default:
			continue
		}
		// Later ops never take effect before earlier ones.
		c.at = max(c.at, changes[len(changes)-1].at)
		if c.at == changes[len(changes)-1].at {
			changes[len(changes)-1].vis = c.vis
			continue
		}
		changes = append(changes, c)
	}
	var spans []Span
	for i, c := range changes {
		if !c.vis || c.at > to {
			continue
		}
		end := to
		if i+1 < len(changes) {
			end = min(end, changes[i+1].at-1)
		}
		lo := max(c.at, from)
		if end < lo {
			continue
		}
		if n := len(spans); n > 0 && spans[n-1].To+1 == lo {
			spans[n-1].To = end
			continue
		}
		spans = append(spans, Span{lo, end})
	}
	return spans
}

// ToolRent is the token rent of one tool: Σ est_tokens × calls carried over its outputs.
type ToolRent struct {
	Tool       string  `json:"tool"`
	Rent       int64   `json:"rent"`
	Share      float64 `json:"share"` // Rent / total rent of the report; 0 when the total is 0
	Outputs    int64   `json:"outputs"`
	Tokens     int64   `json:"tokens"` // Σ est_tokens of the outputs
	MeanTokens float64 `json:"mean_tokens"`
}

// RunRent is one run's token rent, total and per tool.
type RunRent struct {
	RunID string `json:"run_id"`
	Total int64  `json:"total"`
	// SystemPrompt and ToolDefinitions are the parts of Total of the prompt
	// prefix the log shows (also rows RentSystemPrompt and
	// RentToolDefinitions of Tools); 0 when the log does not show it.
	SystemPrompt    int64      `json:"system_prompt"`
	ToolDefinitions int64      `json:"tool_definitions"`
	Tools           []ToolRent `json:"tools"` // by rent descending, then tool name
}

// ownCalls is the number of calls that carried o, less the copied calls
// (VisibilityOptions.Copied).
func (v *Visibility) ownCalls(o CarriedOutput) int64 {
	n := o.Calls()
	for _, s := range o.Spans {
		lo, _ := slices.BinarySearch(v.copies, s.From)
		hi, _ := slices.BinarySearch(v.copies, s.To+1)
		n -= int64(hi - lo)
	}
	return n
}

// Rent returns the run's token rent: each output's est_tokens times the number
// of model calls that carried it (CarriedOutput.Calls), summed per tool name;
// and the same for the system prompt and tool definitions the log shows
// (Visibility.Prefix), as rows named RentSystemPrompt and
// RentToolDefinitions (Outputs counts their events). Total is the sum of all
// rows, so shares are of the whole rent, prefix included. The part of a
// prompt that no event shows (a system prompt or tool schemas the log
// leaves out) is not counted. The copied calls of a resumed or forked
// session (VisibilityOptions.Copied) pay no rent here: the run they copy
// counts it; what they carried pays for the run's own calls. An output
// only copied calls carried still counts among Outputs and Tokens.
func (v *Visibility) Rent() RunRent {
	acc := map[string]*ToolRent{}
	var sys, defs int64
	for _, o := range v.Prefix {
		r := o.EstTokens * v.ownCalls(o)
		if o.ToolName == RentToolDefinitions {
			defs += r
		} else {
			sys += r
		}
	}
	for _, o := range slices.Concat(v.Prefix, v.Outputs) {
		t := acc[o.ToolName]
		if t == nil {
			t = &ToolRent{Tool: o.ToolName}
			acc[o.ToolName] = t
		}
		t.Rent += (o.EstTokens + o.Envelope) * v.ownCalls(o)
		t.Outputs++
		t.Tokens += o.EstTokens + o.Envelope
	}
	tools := make([]ToolRent, 0, len(acc))
	for _, t := range acc {
		tools = append(tools, *t)
	}
	total := rentFinish(tools)
	return RunRent{RunID: v.RunID, Total: total, SystemPrompt: sys, ToolDefinitions: defs, Tools: tools}
}

// RentByTool aggregates runs' rent per tool name, with shares of the summed total.
func RentByTool(runs []RunRent) []ToolRent {
	acc := map[string]*ToolRent{}
	for _, r := range runs {
		for _, t := range r.Tools {
			a := acc[t.Tool]
			if a == nil {
				a = &ToolRent{Tool: t.Tool}
				acc[t.Tool] = a
			}
			a.Rent += t.Rent
			a.Outputs += t.Outputs
			a.Tokens += t.Tokens
		}
	}
	tools := make([]ToolRent, 0, len(acc))
	for _, t := range acc {
		tools = append(tools, *t)
	}
	rentFinish(tools)
	return tools
}

// rentFinish fills Share and MeanTokens, sorts tools and returns the total rent.
func rentFinish(tools []ToolRent) int64 {
	var total int64
	for _, t := range tools {
		total += t.Rent
	}
	for i := range tools {
		if total > 0 {
			tools[i].Share = float64(tools[i].Rent) / float64(total)
		}
		if tools[i].Outputs > 0 {
			tools[i].MeanTokens = float64(tools[i].Tokens) / float64(tools[i].Outputs)
		}
	}
	slices.SortFunc(tools, func(a, b ToolRent) int {
		if c := cmp.Compare(b.Rent, a.Rent); c != 0 {
			return c
		}
		return cmp.Compare(a.Tool, b.Tool)
	})
	return total
}
