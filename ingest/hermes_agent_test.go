package ingest_test

import (
	"context"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/schema"
)

func TestHermesAgentFixtures(t *testing.T) {
	const id = "20260429_hermes_large"
	i21Run(t, "hermes-agent", []i21Case{{
		// system_prompt (line 11) and the tools list (line 13), then 5 messages: user,
		// assistant (reasoning, text, tool call), tool, assistant,
		// session_meta (skipped)
		file: "agent-sessions__large.json",
		runs: []pkRun{{ID: id, Harness: "hermes", Model: "gpt-5.2", End: schema.EndFinished, Source: schema.SourceInferred, Detail: inferredFinished, Turns: 2, Estimated: true}},
		events: []ev{
			{id, 0, 0, schema.KindSystem, "", "", "", false},
			{id, 1, 0, schema.KindSystem, "", "", "", false},
			{id, 2, 0, schema.KindUser, "", "", "", false},
			{id, 3, 0, schema.KindReasoning, "", "", "", false},
			{id, 4, 0, schema.KindAssistant, "", "", "", false},
			{id, 5, 0, schema.KindToolCall, "shell", "call_001", "pwd", false},
			{id, 6, 1, schema.KindToolResult, "shell", "call_001", "pwd", false},
			{id, 7, 1, schema.KindAssistant, "", "", "", false},
		},
		lines:   []int64{11, 13, 32, 36, 36, 36, 60, 67},
		usage:   []pkUse{},
		outputs: []out{{id, "call_001", "shell", "pwd", 1, false}},
	}})
}

// TestIssue21DocumentRejects checks the positioned rejects of the
// whole-document formats (hermes-agent, kiro-cli-sqlite-payload): a bad
// entry is rejected at its line and the rest imports; a broken document is
// one reject.
func TestIssue21DocumentRejects(t *testing.T) {
	tests := []struct {
		format, doc string
		events      int
		rejects     []pkReject
	}{
		{"hermes-agent", "{\"session_id\": \"h\", \"platform\": \"cli\",\n \"messages\": [\n  1,\n  {\"role\": \"user\", \"content\": \"hi\"},\n  {\"role\": \"robot\"}\n ]}", 1,
			[]pkReject{{3, "messages[0] is not an object"}, {5, `messages[2]: unknown role "robot"`}}},
		{"hermes-agent", "{\"session_id\": \"h\",\n \"platform\": \"cli\", \"messages\": [}", 0, []pkReject{{2, "invalid JSON: a value was expected, got '}'"}}},
		{"kiro-cli-sqlite-payload", "{\"conversation_id\": \"k\", \"history\": [\n \"x\",\n {\"user\": {\"content\": {\"Prompt\": {\"prompt\": \"hi\"}}}},\n {\"user\": {\"content\": {\"Image\": {}}}}\n]}", 1,
			[]pkReject{{2, "history[0] is neither an entry object nor a [user, assistant] pair"}, {4, "history[2]: unknown user content variant"}}},
	}
	for _, tc := range tests {
		t.Run(tc.format, func(t *testing.T) {
			m, err := ingest.Parse(context.Background(), tc.format, "doc.json", []byte(tc.doc), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Events) != tc.events {
				t.Errorf("%d events, want %d", len(m.Events), tc.events)
			}
			pkCheck(t, "rejects", tc.rejects, pkRejects(m))
		})
	}
}
