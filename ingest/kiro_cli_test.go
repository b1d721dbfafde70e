package ingest_test

import (
	"testing"

	"github.com/trajmine/trajmine/schema"
)

func TestKiroCLIFixtures(t *testing.T) {
	const id = "sqlite-session"
	i21Run(t, "kiro-cli-sqlite-payload", []i21Case{{
		// 2 history entries (lines 4 and 28): Prompt + Response, Prompt +
		// ToolUse (empty content, one tool use) → 4 events, 2 model calls
		// (message ids assistant-1, assistant-2); no result is logged
		file: "agentsview__standard_payload.json",
		runs: []pkRun{{ID: id, Harness: "kiro-cli", End: schema.EndUnknown, Source: schema.SourceInferred, Detail: "log ends on a tool call without its result", Turns: 2, Estimated: true}},
		events: []ev{
			{id, 0, 0, schema.KindUser, "", "", "", false},
			{id, 1, 0, schema.KindAssistant, "", "", "", false},
			{id, 2, 1, schema.KindUser, "", "", "", false},
			{id, 3, 1, schema.KindToolCall, "execute_bash", "tool-1", "sed -n '1,120p' internal/parser/kiro.go", false},
		},
		lines:   []int64{4, 4, 28, 28},
		usage:   []pkUse{},
		outputs: []out{},
	}})
}

func FuzzKiroCLI(f *testing.F) {
	pkFuzz(f, []string{"kiro-cli-sqlite-payload"}, "testdata/kiro-cli-sqlite-payload/*.json")
}
