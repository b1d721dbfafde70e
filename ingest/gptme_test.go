package ingest_test

import (
	"context"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	json "github.com/trajmine/trajmine/ingest/internal/jsonx"
	"github.com/trajmine/trajmine/schema"
)

func TestGptmeFixtures(t *testing.T) {
	const id = "2026-06-13-write-hello-world"
	i21Run(t, "gptme", []i21Case{{
		// the first reply's block is ```python, which gptme does not run
		// (only ```ipython): no tool call in this sample, so both tool
		// messages are unlinked results (keys t3, t6).
		// usage (openrouter: input includes the cache): in 120 + 200 = 320,
		// out 42 + 15 = 57, cache read 80 + 120 = 200; cost 0.0012 + 0.0008
		file: id + "/conversation.jsonl",
		runs: []pkRun{{ID: id, Harness: "gptme", Model: "openrouter/anthropic/claude-sonnet-4-6", End: schema.EndUnknown, Source: schema.SourceInferred,
			Detail: "log ends before the model's reply", Turns: 2, In: 320, Out: 57, CR: 200, UsageCalls: 2, Cost: "0.002"}},
		events: []ev{
			{id, 0, 0, schema.KindSystem, "", "", "", false},
			{id, 1, 0, schema.KindUser, "", "", "", false},
			{id, 2, 0, schema.KindAssistant, "", "", "", false},
			{id, 3, 1, schema.KindToolResult, "", "", "", false},
			{id, 4, 1, schema.KindUser, "", "", "", false},
			{id, 5, 1, schema.KindAssistant, "", "", "", false},
			{id, 6, 2, schema.KindToolResult, "", "", "", false},
		},
		lines: []int64{1, 2, 3, 4, 5, 6, 7},
		usage: []pkUse{
			{id, 0, 120, 42, 80, 0, 0, "openrouter/anthropic/claude-sonnet-4-6", ""},
			{id, 1, 200, 15, 120, 0, 0, "openrouter/anthropic/claude-sonnet-4-6", ""},
		},
		outputs: []out{{id, "t3", "", "", 1, false}, {id, "t6", "", "", 2, false}},
	}})
}

// TestGptmeBlocks checks the fenced-block rule on hand-written replies.
func TestGptmeBlocks(t *testing.T) {
	tests := []struct {
		name, reply string
		tools       []string // tool name and target of each call
	}{
		{"shell", "Run:\n```shell\nls -la\n```", []string{"shell", "ls -la"}},
		{"save with path", "```save hello.py\nprint(1)\n```\nand\n```bash\npython hello.py\n```", []string{"save", "hello.py"}},
		{"ipython, not python", "```python\nprint(1)\n```\n```ipython\nprint(1)\n```", []string{"ipython", ""}},
		{"not a tool", "```json\n{}\n```\n```\nplain\n```", nil},
		{"unclosed", "```shell\nls", []string{"shell", "ls"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			line, _ := json.Marshal(map[string]any{"role": "assistant", "content": tc.reply, "timestamp": "2026-06-13T10:00:00"})
			m, err := ingest.Parse(context.Background(), "gptme", "conversation.jsonl", line, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range m.Events {
				if e.Kind == schema.KindToolCall {
					got = append(got, e.ToolName, e.Target)
				}
			}
			pkCheck(t, "calls", tc.tools, got)
		})
	}
}

// TestGptmeResults checks how results answer fenced calls: the system
// messages after a reply answer its calls in order; a user message closes
// the calls left open, and a later system message is a system event.
func TestGptmeResults(t *testing.T) {
	log := `{"role": "user", "content": "go", "timestamp": "2026-06-13T10:00:00"}
{"role": "assistant", "content": "` + "```shell\\nls\\n```\\n```ipython\\n1+1\\n```\\n```save a.txt\\nx\\n```" + `", "timestamp": "2026-06-13T10:00:01"}
{"role": "system", "content": "Ran command: ls", "timestamp": "2026-06-13T10:00:02"}
{"role": "system", "content": "Executed code block.", "timestamp": "2026-06-13T10:00:03"}
{"role": "user", "content": "stop", "timestamp": "2026-06-13T10:00:04"}
{"role": "system", "content": "Saved to a.txt", "timestamp": "2026-06-13T10:00:05"}
`
	m, err := ingest.Parse(context.Background(), "gptme", "conversation.jsonl", []byte(log), nil)
	if err != nil {
		t.Fatal(err)
	}
	const id = "conversation"
	pkCheck(t, "events", []ev{
		{id, 0, 0, schema.KindUser, "", "", "", false},
		{id, 1, 0, schema.KindAssistant, "", "", "", false},
		{id, 2, 0, schema.KindToolCall, "shell", "call-1", "ls", false},
		{id, 3, 0, schema.KindToolCall, "ipython", "call-2", "", false},
		{id, 4, 0, schema.KindToolCall, "save", "call-3", "a.txt", false},
		{id, 5, 1, schema.KindToolResult, "shell", "call-1", "ls", false},
		{id, 6, 1, schema.KindToolResult, "ipython", "call-2", "", false},
		{id, 7, 1, schema.KindUser, "", "", "", false},
		{id, 8, 1, schema.KindSystem, "", "", "", false},
	}, evs(m))
}
