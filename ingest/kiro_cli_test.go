package ingest_test

import (
	"context"
	"testing"

	"github.com/trajmine/trajmine/ingest"
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

// TestKiroCLIPairs checks the older history form, [user, assistant] pairs
// (as Amazon Q CLI wrote them), with an execute_bash result in a Json
// block, and the window from model_info.
func TestKiroCLIPairs(t *testing.T) {
	doc := `{"conversation_id": "q1", "model_info": {"model_id": "claude-sonnet-4", "context_window_tokens": 200000},
 "history": [
  [{"content": {"Prompt": {"prompt": "list"}}}, {"ToolUse": {"message_id": "m1", "content": "", "tool_uses": [{"id": "t1", "name": "execute_bash", "args": {"command": "ls"}}]}}],
  [{"content": {"ToolUseResults": {"tool_use_results": [{"tool_use_id": "t1", "content": [{"Json": {"exit_status": "2", "stdout": "", "stderr": "ls: x: No such file"}}], "status": "Success"}]}}},
   {"Response": {"message_id": "m2", "content": "It failed."}}]
 ]}`
	m, err := ingest.Parse(context.Background(), "kiro-cli-sqlite-payload", "q1.json", []byte(doc), nil)
	if err != nil {
		t.Fatal(err)
	}
	pkCheck(t, "events", []ev{
		{"q1", 0, 0, schema.KindUser, "", "", "", false},
		{"q1", 1, 0, schema.KindToolCall, "execute_bash", "t1", "ls", false},
		{"q1", 2, 1, schema.KindToolResult, "execute_bash", "t1", "ls", true}, // exit_status 2
		{"q1", 3, 1, schema.KindAssistant, "", "", "", false},
	}, evs(m))
	pkCheck(t, "lines", []int64{3, 3, 4, 4}, []int64{m.Events[0].Line, m.Events[1].Line, m.Events[2].Line, m.Events[3].Line})
	if r := m.Runs[0]; r.Model != "claude-sonnet-4" || r.WindowTokens == nil || *r.WindowTokens != 200000 {
		t.Errorf("model %q window %v, want claude-sonnet-4, 200000", r.Model, r.WindowTokens)
	}
	if got := m.Events[2].Text; got != "ls: x: No such file" {
		t.Errorf("result text %q", got)
	}
}
