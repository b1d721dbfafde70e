package ingest_test

import (
	"testing"

	"github.com/trajmine/trajmine/schema"
)

func TestCursorAgentFixtures(t *testing.T) {
	const id = "agent-sessions__large"
	i21Run(t, "cursor-agent-transcripts", []i21Case{
		{
			// tool_use blocks have no id: the calls are call-1 and call-2, and
			// the results t1 and t2 answer them in order (keys t1, t2)
			file: "agent-sessions__large.jsonl",
			runs: []pkRun{{ID: id, Harness: "cursor", End: schema.EndFinished, Source: schema.SourceInferred, Detail: inferredFinished, Turns: 5, Estimated: true}},
			events: []ev{
				{id, 0, 0, schema.KindUser, "", "", "", false},
				{id, 1, 0, schema.KindReasoning, "", "", "", false},
				{id, 2, 0, schema.KindAssistant, "", "", "", false},
				{id, 3, 0, schema.KindToolCall, "Bash", "call-1", "ls -la", false},
				{id, 4, 1, schema.KindToolResult, "Bash", "call-1", "ls -la", false},
				{id, 5, 1, schema.KindAssistant, "", "", "", false},
				{id, 6, 2, schema.KindUser, "", "", "", false},
				{id, 7, 2, schema.KindToolCall, "Read", "call-2", "file1.txt", false},
				{id, 8, 3, schema.KindToolResult, "Read", "call-2", "file1.txt", false},
				{id, 9, 3, schema.KindAssistant, "", "", "", false},
				{id, 10, 4, schema.KindUser, "", "", "", false},
				{id, 11, 4, schema.KindAssistant, "", "", "", false},
			},
			lines:   []int64{1, 2, 2, 2, 3, 4, 5, 6, 7, 8, 9, 10},
			outputs: []out{{id, "t1", "Bash", "ls -la", 1, false}, {id, "t2", "Read", "file1.txt", 3, false}},
		},
		{
			// the Agent tool call that spawns parent/subagents/child.jsonl
			file: "parent.jsonl",
			runs: []pkRun{{ID: "parent", Harness: "cursor", End: schema.EndUnknown, Source: schema.SourceInferred, Detail: "log ends on a tool call without its result", Turns: 1, Estimated: true}},
		},
		{
			file: "parent/subagents/child.jsonl",
			runs: []pkRun{{ID: "parent/child", Parent: "parent", Harness: "cursor", End: schema.EndFinished, Source: schema.SourceInferred, Detail: inferredFinished, Turns: 1, Estimated: true}},
		},
	})
}
