package ingest_test

import (
	"testing"
	"time"

	"github.com/trajmine/trajmine/schema"
)

func TestMistralVibeFixtures(t *testing.T) {
	const id = "def456ghi-0000-0000-0000-000000000000"
	i21Run(t, "mistral-vibe", []i21Case{{
		// 4 messages → 5 events (the first assistant has text and a tool
		// call); meta.json stats: session_prompt_tokens 200 and
		// session_completion_tokens 100 as logged totals
		file: "session_with_tools/messages.jsonl",
		runs: []pkRun{{ID: id, Harness: "mistral-vibe", Model: "mistral-medium-3.5", End: schema.EndFinished, Source: schema.SourceInferred,
			Detail: inferredFinished, Turns: 2, In: 200, Out: 100, Estimated: true}},
		events: []ev{
			{id, 0, 0, schema.KindUser, "", "", "", false},
			{id, 1, 0, schema.KindAssistant, "", "", "", false},
			{id, 2, 0, schema.KindToolCall, "read_file", "call_001", "README.md", false},
			{id, 3, 1, schema.KindToolResult, "read_file", "call_001", "README.md", false},
			{id, 4, 1, schema.KindAssistant, "", "", "", false},
		},
		lines: []int64{1, 2, 2, 3, 4},
		usage: []pkUse{},
	}})
}

// TestMistralVibeMeta checks the times meta.json gives (messages have none).
func TestMistralVibeMeta(t *testing.T) {
	m := pkParse(t, "mistral-vibe", "testdata/mistral-vibe/session_with_tools/messages.jsonl", "testdata/mistral-vibe/session_with_tools/messages.jsonl")
	r := m.Runs[0]
	if r.StartedAt == nil || r.StartedAt.Format(time.RFC3339) != "2026-06-13T11:00:00Z" || r.EndedAt == nil || r.EndedAt.Format(time.RFC3339) != "2026-06-13T11:01:00Z" {
		t.Errorf("start/end = %v/%v, want meta.json's start_time/end_time", r.StartedAt, r.EndedAt)
	}
}
