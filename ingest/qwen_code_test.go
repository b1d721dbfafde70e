package ingest_test

import (
	"testing"

	"github.com/trajmine/trajmine/schema"
)

func TestQwenCodeFixtures(t *testing.T) {
	const s1, s4, sc = "019f0000-0000-7000-8000-000000000001", "019f0000-0000-7000-8000-000000000004", "qwen-compress"
	i21Run(t, "qwen-code", []i21Case{
		{
			// user (2 text parts, one event), assistant (thought + functionCall),
			// tool_result, assistant text, ui_telemetry (skipped), user
			// notification → 6 events; 2 model calls (uuids …12 and …14)
			file: "agent-sessions__019f0000-0000-7000-8000-000000000001.jsonl",
			runs: []pkRun{{ID: s1, Harness: "qwen-code", Model: "synthetic-model", End: schema.EndUnknown, Source: schema.SourceInferred,
				Detail: "log ends before the model's reply", Turns: 2, Estimated: true}},
			events: []ev{
				{s1, 0, 0, schema.KindUser, "", "", "", false},
				{s1, 1, 0, schema.KindReasoning, "", "", "", false},
				{s1, 2, 0, schema.KindToolCall, "read_file", "synthetic-call-1", "/tmp/as-qwen-fixture/project/README.md", false},
				{s1, 3, 1, schema.KindToolResult, "read_file", "synthetic-call-1", "/tmp/as-qwen-fixture/project/README.md", false},
				{s1, 4, 1, schema.KindAssistant, "", "", "", false},
				{s1, 5, 2, schema.KindUser, "", "", "", false},
			},
			lines: []int64{1, 2, 2, 3, 4, 6},
			usage: []pkUse{},
		},
		{
			// the last non-artifact record is …47 (line 8); its chain is
			// 47 → 46 → 45 → 44 (rewind) → 41, so …42 (line 2) and …43 (line 3)
			// are an abandoned branch. …46 spans lines 6 and 7: one model
			// call, usage 12 in / 4 out from line 7.
			file: "agent-sessions__019f0000-0000-7000-8000-000000000004.jsonl",
			runs: []pkRun{{ID: s4, Harness: "qwen-code", Model: "synthetic-active-model", End: schema.EndFinished, Source: schema.SourceInferred,
				Detail: inferredFinished, Turns: 1, In: 12, Out: 4, UsageCalls: 1}},
			events: []ev{
				{s4, 0, 0, schema.KindUser, "", "", "", false},
				{s4, 1, 0, schema.KindContextOp, "", "", "", false},
				{s4, 2, 0, schema.KindUser, "", "", "", false},
				{s4, 3, 0, schema.KindReasoning, "", "", "", false},
				{s4, 4, 0, schema.KindToolCall, "read_file", "synthetic-active-call", "/tmp/as-qwen-fixture/new-project/README.md", false},
				{s4, 5, 0, schema.KindAssistant, "", "", "", false},
			},
			lines: []int64{1, 4, 5, 6, 7, 7},
			usage: []pkUse{{s4, 0, 12, 4, 0, 0, 0, "synthetic-active-model", "019f0000-0000-7000-8000-000000000046"}},
		},
		{
			// every field trimmed (all uuids equal): one run; the assistant's
			// two text parts (thought false) and a functionCall; empty
			// usageMetadata {} is no usage
			file: "agent-sessions__system_telemetry.jsonl",
			runs: []pkRun{{ID: "[trimmed for fixture]", Harness: "qwen-code", Model: "coder-model", End: schema.EndUnknown, Source: schema.SourceInferred,
				Detail: "log ends before the model's reply", Turns: 1, Estimated: true}},
			usage: []pkUse{},
		},
		{
			// usage: call c2 in 9000 (prompt) out 100 + 20 thoughts = 120, cache 8000;
			// call c5 in 1600 out 30 → run in 10600, out 150, cache 8000, reasoning 20
			file: "compression.jsonl",
			runs: []pkRun{{ID: sc, Harness: "qwen-code", Model: "qwen3-coder-plus", End: schema.EndFinished, Source: schema.SourceInferred,
				Detail: inferredFinished, Turns: 2, In: 10600, Out: 150, CR: 8000, Reasoning: 20, UsageCalls: 2}},
			events: []ev{
				{sc, 0, 0, schema.KindUser, "", "", "", false},
				{sc, 1, 0, schema.KindToolCall, "run_shell_command", "call-a", "go test ./...", false},
				{sc, 2, 1, schema.KindToolResult, "run_shell_command", "call-a", "go test ./...", true},
				{sc, 3, 1, schema.KindCompaction, "", "", "", false},
				{sc, 4, 1, schema.KindAssistant, "", "", "", false},
			},
			lines:   []int64{1, 2, 3, 4, 6},
			usage:   []pkUse{{sc, 0, 9000, 120, 8000, 0, 20, "qwen3-coder-plus", "c2"}, {sc, 1, 1600, 30, 0, 0, 0, "qwen3-coder-plus", "c5"}},
			ops:     []pkOp{{sc, 3, 1, schema.OpCompaction, "auto", 9120, 1500, ""}},
			rejects: []pkReject{{5, "invalid JSON: an object was expected, got an array"}},
		},
	})
}
