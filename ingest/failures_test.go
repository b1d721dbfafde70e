package ingest_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/schema"
)

// TestTextFailures: a tool result whose log gives it neither an error flag
// nor an exit code is marked failed when its text says so, naming the rule
// (actions.InferFailure); a logged flag or exit code wins, and formats
// whose results carry a flag (absent: success) are left as logged.
func TestTextFailures(t *testing.T) {
	const (
		traceback = "Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\nNameError: name 'x' is not defined"
		passing   = "tests/test_errors.py::test_error_message PASSED\n============================== 1 passed in 0.01s ==============================="
	)
	openai := func(result map[string]any) []byte {
		result["role"], result["tool_call_id"] = "tool", "c1"
		b, _ := json.Marshal([]any{
			map[string]any{"role": "user", "content": "run it"},
			map[string]any{"role": "assistant", "content": "", "tool_calls": []any{map[string]any{"id": "c1", "type": "function",
				"function": map[string]any{"name": "bash", "arguments": `{"command":"python a.py"}`}}}},
			result,
		})
		return b
	}
	anthropic := func(text string) []byte {
		b, _ := json.Marshal([]any{
			map[string]any{"role": "user", "content": "run it"},
			map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "c1", "name": "bash", "input": map[string]any{"command": "python a.py"}}}},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "c1", "content": text}}},
		})
		return b
	}
	mini := func(obs string) []byte {
		b, _ := json.Marshal([]any{
			map[string]any{"role": "system", "content": "s"},
			map[string]any{"role": "user", "content": "task"},
			map[string]any{"role": "assistant", "content": "THOUGHT: run\n\n```bash\npython a.py\n```"},
			map[string]any{"role": "user", "content": obs},
		})
		return b
	}
	tests := []struct {
		name, format string
		doc          []byte
		isErr        bool
		rule         string
	}{
		{"openai traceback", "openai-messages", openai(map[string]any{"content": traceback}), true, "traceback"},
		{"openai passing run that says error", "openai-messages", openai(map[string]any{"content": passing}), false, ""},
		{"openai flag logged", "openai-messages", openai(map[string]any{"content": traceback, "is_error": true}), true, ""},
		{"anthropic has a flag", "anthropic-messages", anthropic(traceback), false, ""},
		{"mini return code 0 logged", "mini-swe-agent", mini("<returncode>0</returncode>\n<output>\n" + traceback + "\n</output>"), false, ""},
		{"mini return code 2 logged", "mini-swe-agent", mini("<returncode>2</returncode>\n<output>\nusage: a.py\n</output>"), true, ""},
		{"mini timeout", "mini-swe-agent", mini("The last command <command>python a.py</command> timed out and has been killed."), true, "timeout"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ingest.Parse(context.Background(), tc.format, "f.json", tc.doc, nil)
			if err != nil {
				t.Fatal(err)
			}
			var results []schema.Event
			for _, e := range m.Events {
				if e.Kind == schema.KindToolResult {
					results = append(results, e)
				}
			}
			if len(results) != 1 || len(m.ToolOutputs) != 1 {
				t.Fatalf("got %d tool results, %d outputs; want 1 each", len(results), len(m.ToolOutputs))
			}
			e := results[0]
			if e.IsError != tc.isErr || e.ErrorRule != tc.rule {
				t.Errorf("is_error %v, error_rule %q; want %v, %q", e.IsError, e.ErrorRule, tc.isErr, tc.rule)
			}
			if m.ToolOutputs[0].IsError != tc.isErr {
				t.Errorf("tool_outputs.is_error %v, want %v", m.ToolOutputs[0].IsError, tc.isErr)
			}
			if err := schema.Validate(&e); err != nil {
				t.Error(err)
			}
		})
	}
}
