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

func FuzzGptme(f *testing.F) {
	pkFuzz(f, []string{"gptme"}, "testdata/gptme/*/conversation.jsonl")
}
