package ingest_test

import (
	"testing"

	"github.com/trajmine/trajmine/schema"
)

func TestFactoryDroidExecFixtures(t *testing.T) {
	const id = "sid_stage0_large"
	const cmd = `printf 'line1\nline2\nline3\n'`
	i21Run(t, "factory-droid-exec-stream-json", []i21Case{{
		// 6 events: system (model), message user, message assistant,
		// tool_call c1, tool_result c1 (exitCode 0), completion (finalText
		// → the last assistant reply, explicit end) → 5 events, 2 calls
		file: "agent-sessions__stream_json_large.jsonl",
		runs: []pkRun{{ID: id, Harness: "factory-droid", Model: "droid-model", End: schema.EndFinished, Source: schema.SourceExplicit, Detail: "completion", Turns: 2, Estimated: true}},
		events: []ev{
			{id, 0, 0, schema.KindUser, "", "", "", false},
			{id, 1, 0, schema.KindAssistant, "", "", "", false},
			{id, 2, 0, schema.KindToolCall, "Shell", "c1", cmd, false},
			{id, 3, 1, schema.KindToolResult, "Shell", "c1", cmd, false},
			{id, 4, 1, schema.KindAssistant, "", "", "", false},
		},
		lines:   []int64{2, 3, 4, 5, 6},
		usage:   []pkUse{},
		outputs: []out{{id, "c1", "Shell", cmd, 1, false}},
	}})
}
