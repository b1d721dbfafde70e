package behavior_test

import (
	"encoding/json"

	"github.com/trajmine/trajmine/schema"
)

// runBuilder builds a hand-made run: events get increasing seqs in the order
// they are added; every call's logged prompt is prompt(turn).
type runBuilder struct {
	dtoc   bool // tool results carry their own key (else key = call id)
	run    schema.Run
	events []schema.Event
	ops    []schema.ContextOp
	usage  []schema.Usage
}

func newRun(id, family string, calls, window int64, prompt func(int64) int64) *runBuilder {
	b := &runBuilder{dtoc: true, run: schema.Run{RunID: id, Model: family, ModelFamily: family, Harness: "test", SourceFormat: "test",
		NTurns: calls, WindowTokens: &window}}
	for t := range calls {
		b.usage = append(b.usage, schema.Usage{RunID: id, Turn: t, InputTokens: prompt(t)})
	}
	return b
}

func (b *runBuilder) add(e schema.Event) *schema.Event {
	e.RunID, e.Seq = b.run.RunID, int64(len(b.events))
	b.events = append(b.events, e)
	return &b.events[len(b.events)-1]
}

// tool adds a tool call made by call turn and its result, seen by call
// turn+1, with the given key and est_tokens; the texts carry no distinctive
// tokens, so the only uses are target uses.
func (b *runBuilder) tool(turn int64, tool, target, key string, tokens int64) {
	id := "c" + key
	if !b.dtoc {
		key = id
	}
	args, _ := json.Marshal(map[string]string{"path": target})
	b.add(schema.Event{Turn: turn, Kind: schema.KindToolCall, ToolName: tool, CallID: id, Target: target, Args: string(args), Text: "call", EstTokens: 10})
	b.add(schema.Event{Turn: turn + 1, Kind: schema.KindToolResult, ToolName: tool, CallID: id, ToolKey: key, Target: target, Text: "result text", EstTokens: tokens})
}

// manage adds a manage_context call made by call turn (callTok tokens, plus
// assistant text of textTok tokens when positive), its ops and its status
// result (statusTok tokens, seen by call turn+1).
func (b *runBuilder) manage(turn int64, disable, enable []string, textTok, callTok, statusTok int64) {
	if textTok > 0 {
		b.add(schema.Event{Turn: turn, Kind: schema.KindAssistant, Text: "tidying", EstTokens: textTok})
	}
	id := "m" + string(rune('a'+len(b.events)))
	args, _ := json.Marshal(map[string][]string{"disable": disable, "enable": enable})
	e := b.add(schema.Event{Turn: turn, Kind: schema.KindToolCall, ToolName: "manage_context", CallID: id, Args: string(args), Text: "manage", EstTokens: callTok})
	for _, k := range disable {
		b.ops = append(b.ops, schema.ContextOp{RunID: b.run.RunID, Seq: e.Seq, Turn: turn, Op: schema.OpDisable, ToolKey: k, Trigger: "manage_context"})
	}
	for _, k := range enable {
		b.ops = append(b.ops, schema.ContextOp{RunID: b.run.RunID, Seq: e.Seq, Turn: turn, Op: schema.OpEnable, ToolKey: k, Trigger: "manage_context"})
	}
	b.add(schema.Event{Turn: turn + 1, Kind: schema.KindToolResult, ToolName: "manage_context", CallID: id, ToolKey: "s" + id, Text: "ok", EstTokens: statusTok})
}

// compaction adds a harness compaction before call turn.
func (b *runBuilder) compaction(turn int64, op schema.OpKind, before, after *int64) {
	e := b.add(schema.Event{Turn: turn, Kind: schema.KindCompaction, Role: "system", Text: "summary", EstTokens: 50})
	b.ops = append(b.ops, schema.ContextOp{RunID: b.run.RunID, Seq: e.Seq, Turn: turn, Op: op, TokensBefore: before, TokensAfter: after, Trigger: "auto"})
}

func ptr(v int64) *int64 { return &v }
