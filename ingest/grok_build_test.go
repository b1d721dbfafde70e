package ingest_test

import (
	"testing"
	"time"

	"github.com/trajmine/trajmine/schema"
)

func TestGrokBuildFixtures(t *testing.T) {
	const id = "019f6000-0000-7000-8000-000000000001"
	i21Run(t, "grok-build", []i21Case{{
		// chat_history.jsonl: 9 rows → 10 events (the assistant row at line 6
		// has text and a tool call). Model calls: (reasoning, web_search,
		// assistant + read_file) and the last assistant = 2. summary.json:
		// id, parent 019f5000-…; signals.json: window 200000 and
		// contextTokensUsed 12000 as the last call's input.
		file: id + "/chat_history.jsonl",
		runs: []pkRun{{ID: id, Parent: "019f5000-0000-7000-8000-000000000000", Harness: "grok-build", Model: "grok-4.5", End: schema.EndFinished, Source: schema.SourceInferred,
			Detail: inferredFinished, Turns: 2, In: 12000, UsageCalls: 1}},
		events: []ev{
			{id, 0, 0, schema.KindSystem, "", "", "", false},
			{id, 1, 0, schema.KindUser, "", "", "", false},
			{id, 2, 0, schema.KindUser, "", "", "", false},
			{id, 3, 0, schema.KindReasoning, "", "", "", false},
			{id, 4, 0, schema.KindToolCall, "web_search", "ws_1", "Grok Build persistence", false},
			{id, 5, 0, schema.KindAssistant, "", "", "", false},
			{id, 6, 0, schema.KindToolCall, "read_file", "call_1", "src/session/persistence.rs", false},
			{id, 7, 1, schema.KindToolResult, "read_file", "call_1", "src/session/persistence.rs", false},
			{id, 8, 1, schema.KindUser, "", "", "", false},
			{id, 9, 1, schema.KindAssistant, "", "", "", false},
		},
		lines:   []int64{1, 2, 3, 4, 5, 6, 6, 7, 8, 9},
		usage:   []pkUse{{id, 1, 12000, 0, 0, 0, 0, "grok-4.5", ""}},
		outputs: []out{{id, "call_1", "read_file", "src/session/persistence.rs", 1, false}},
	}})
}

// TestGrokBuildSiblings checks what the siblings add (summary.json times,
// signals.json window) and that the chat history imports without them.
func TestGrokBuildSiblings(t *testing.T) {
	m := pkParse(t, "grok-build", "testdata/grok-build/019f6000-0000-7000-8000-000000000001/chat_history.jsonl", "testdata/grok-build/019f6000-0000-7000-8000-000000000001/chat_history.jsonl")
	r := m.Runs[0]
	if r.StartedAt == nil || r.StartedAt.Format(time.RFC3339) != "2026-07-18T10:00:00Z" || r.EndedAt == nil || r.EndedAt.Format(time.RFC3339) != "2026-07-18T10:30:00Z" {
		t.Errorf("start/end = %v/%v, want summary.json's created_at/updated_at", r.StartedAt, r.EndedAt)
	}
	if r.WindowTokens == nil || *r.WindowTokens != 200000 {
		t.Errorf("window = %v, want 200000", r.WindowTokens)
	}
	alone := pkParse(t, "grok-build", "testdata/grok-build/019f6000-0000-7000-8000-000000000001/chat_history.jsonl", "elsewhere/chat_history.jsonl")
	if r := alone.Runs[0]; r.RunID != "elsewhere" || r.ParentRunID != "" || r.InputTokens != 0 || len(alone.Events) != 10 {
		t.Errorf("without siblings: run %s parent %q input %d, %d events; want elsewhere, none, 0, 10", r.RunID, r.ParentRunID, r.InputTokens, len(alone.Events))
	}
}
