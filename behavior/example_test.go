package behavior_test

import (
	"fmt"

	"github.com/trajmine/trajmine/behavior"
	"github.com/trajmine/trajmine/schema"
)

func ExampleRun() {
	window := int64(100000)
	run := schema.Run{RunID: "r1", Model: "gpt-5.5", ModelFamily: "gpt-5.5", NTurns: 6, WindowTokens: &window}
	events := []schema.Event{
		{Seq: 0, Turn: 0, Kind: schema.KindToolCall, ToolName: "read_file", CallID: "c1", Target: "big.py", Args: `{"path":"big.py"}`, EstTokens: 12},
		{Seq: 1, Turn: 1, Kind: schema.KindToolResult, ToolName: "read_file", CallID: "c1", ToolKey: "read_file_1", EstTokens: 8040},
		{Seq: 2, Turn: 2, Kind: schema.KindToolCall, ToolName: "manage_context", CallID: "c2", Args: `{"disable":["read_file_1"],"enable":[]}`, EstTokens: 15},
		{Seq: 3, Turn: 3, Kind: schema.KindToolResult, ToolName: "manage_context", CallID: "c2", ToolKey: "manage_context_2", EstTokens: 12},
	}
	ops := []schema.ContextOp{{RunID: "r1", Seq: 2, Turn: 2, Op: schema.OpDisable, ToolKey: "read_file_1", Trigger: "manage_context"}}
	usage := []schema.Usage{{Turn: 0, InputTokens: 2000}, {Turn: 1, InputTokens: 10050}, {Turn: 2, InputTokens: 10060}}

	p := behavior.Run(run, events, usage, ops, nil)
	op, h := p.Manage.Ops[0], p.Manage.Hides[0]
	fmt.Printf("call %d (fill %.1f%%) disables %s: age %d, frees %d tokens for %d calls = %d saved\n",
		op.Call, 100*op.Fill, h.Key, h.Age, h.Freed, h.HiddenCalls, h.Saved)
	fmt.Printf("cost: %d tokens of overhead rent + a %d-token call\n", op.OverheadRent, op.CallPrompt)

	g := behavior.ByFamily([]behavior.RunProfile{p}, nil)[0]
	fmt.Printf("%s: %.1f manage_context calls per 100 calls, net %d tokens, label %s\n", g.Key, g.Manage.OpsPer100, g.Manage.Net, g.Class.Label)
	// Output:
	// call 2 (fill 10.1%) disables read_file_1: age 1, frees 8000 tokens for 3 calls = 24000 saved
	// cost: 81 tokens of overhead rent + a 10060-token call
	// gpt-5.5: 16.7 manage_context calls per 100 calls, net 13859 tokens, label unknown
}
