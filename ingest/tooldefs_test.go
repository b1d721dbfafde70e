package ingest_test

import (
	"context"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/schema"
)

func TestToolDefinitions(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		ok   bool
		text string
	}{
		{"openai", `[ {"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}} ]`, true,
			`[{"function":{"name":"bash","parameters":{"type":"object"}},"type":"function"}]`},
		{"anthropic", `[{"name":"read","input_schema":{"type":"object"}}]`, true, `[{"input_schema":{"type":"object"},"name":"read"}]`},
		{"empty array", `[]`, false, ""},
		{"null", `null`, false, ""},
		{"object", `{"todoread": false}`, false, ""},
		{"names only", `["Bash","Edit"]`, false, ""},
		{"broken", `[{"name":`, false, ""},
		{"nothing", ``, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, ok := ingest.ToolDefinitions([]byte(tc.raw), 7)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			if e.Kind != schema.KindSystem || e.Role != schema.RoleToolDefinitions || e.Line != 7 || e.Text != tc.text || !e.IsToolDefinitions() || e.IsSystemPrompt() {
				t.Errorf("event = %+v", e)
			}
		})
	}
}

// TestToolDefinitionsImported checks that the importers whose formats carry
// tool definitions emit exactly one tool-definitions event per run, first
// among its turn-0 inputs, with est_tokens estimated from its text.
func TestToolDefinitionsImported(t *testing.T) {
	const tools = `[{"name":"bash","description":"Run a shell command.","input_schema":{"type":"object","properties":{"command":{"type":"string"}}}}]`
	tests := []struct {
		name, format, file, data string
		want                     int // tool-definitions events
	}{
		{"anthropic request", "anthropic-messages", "req.json",
			`{"model":"claude-sonnet-4-20250514","system":"Be brief.","tools":` + tools + `,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]}`, 1},
		{"openai jsonl record", "openai-messages", "runs.jsonl",
			`{"run_id":"r1","tools":[{"type":"function","function":{"name":"bash","parameters":{"type":"object"}}}],"messages":[{"role":"system","content":"s"},{"role":"user","content":"hi"},{"role":"assistant","content":"ok"}]}` + "\n" +
				`{"run_id":"r2","tools":[],"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"ok"}]}` + "\n", 1},
		{"litellm kwargs", "openai-messages", "call.json",
			`{"messages":[{"role":"user","content":"hi"}],"kwargs":{"tools":` + tools + `},"response":{"id":"c1","choices":[{"message":{"role":"assistant","content":"ok"}}]}}`, 1},
		{"atif agent", "atif", "trajectory.json",
			`{"schema_version":"ATIF-v1.5","session_id":"s1","agent":{"name":"terminus","version":"1","model_name":"gpt-4o","tool_definitions":[{"type":"function","function":{"name":"bash"}}]},` +
				`"steps":[{"step_id":1,"source":"user","message":"hi"},{"step_id":2,"source":"agent","message":"ok"}]}`, 1},
		{"atif without", "atif", "trajectory.json",
			`{"schema_version":"ATIF-v1.5","session_id":"s1","agent":{"name":"terminus","version":"1","model_name":"gpt-4o"},` +
				`"steps":[{"step_id":1,"source":"user","message":"hi"},{"step_id":2,"source":"agent","message":"ok"}]}`, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ingest.Parse(context.Background(), tc.format, tc.file, []byte(tc.data), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Rejects) > 0 {
				t.Fatalf("rejects: %+v", m.Rejects)
			}
			n := 0
			for _, e := range m.Events {
				if !e.IsToolDefinitions() {
					continue
				}
				n++
				if e.Turn != 0 || e.EstTokens != (e.Chars+3)/4 || e.EstTokens == 0 {
					t.Errorf("event turn %d, chars %d, est_tokens %d: want turn 0, est_tokens ceil(chars/4) > 0", e.Turn, e.Chars, e.EstTokens)
				}
				for _, prev := range m.Events {
					if prev.RunID == e.RunID && prev.Seq < e.Seq && !prev.IsSystemPrompt() {
						t.Errorf("event seq %d follows %s event seq %d", e.Seq, prev.Kind, prev.Seq)
					}
				}
			}
			if n != tc.want {
				t.Errorf("%d tool-definitions events, want %d", n, tc.want)
			}
		})
	}
}
