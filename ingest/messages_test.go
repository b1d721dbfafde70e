package ingest_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/schema"
)

const (
	msgOpenAI    = "openai-messages"
	msgAnthropic = "anthropic-messages"
	msgFixtures  = "testdata/messages"
)

// msgEv is the part of an event the fixture tests pin down.
type msgEv struct {
	Run    string
	Seq    int64
	Turn   int64
	Kind   schema.EventKind
	Tool   string
	CallID string
	Target string
	Err    bool
}

func msgEvents(m *ingest.MemSink) []msgEv {
	out := make([]msgEv, 0, len(m.Events))
	for _, e := range m.Events {
		out = append(out, msgEv{e.RunID, e.Seq, e.Turn, e.Kind, e.ToolName, e.CallID, e.Target, e.IsError})
	}
	return out
}

// msgUse is one usage row.
type msgUse struct {
	Run                              string
	Turn, In, Out, CR, CW, Reasoning int64
	Model, RequestID                 string
}

func msgUsage(m *ingest.MemSink) []msgUse {
	out := []msgUse{}
	for _, u := range m.Usage {
		out = append(out, msgUse{u.RunID, u.Turn, u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.ReasoningTokens, u.Model, u.RequestID})
	}
	return out
}

// msgRunRow is the part of a run the tests pin down; nullable fields are
// rendered as strings ("" = NULL).
type msgRunRow struct {
	ID, Harness, Model, Family, Task, Resolved, Window string
	End                                                schema.EndReason
	EndSource                                          schema.ReasonSource
	Detail                                             string
	Turns, In, Out, CR, CW, Reasoning                  int64
	Estimated                                          bool
	Cost, Ended                                        string
}

func msgRuns(m *ingest.MemSink) []msgRunRow {
	out := []msgRunRow{}
	for _, r := range m.Runs {
		row := msgRunRow{ID: r.RunID, Harness: r.Harness, Model: r.Model, Family: r.ModelFamily, Task: r.TaskID,
			End: r.EndReason, EndSource: r.EndReasonSource, Detail: r.EndReasonDetail, Turns: r.NTurns,
			In: r.InputTokens, Out: r.OutputTokens, CR: r.CacheReadTokens, CW: r.CacheWriteTokens, Reasoning: r.ReasoningTokens,
			Estimated: r.UsageEstimated}
		if r.Resolved != nil {
			row.Resolved = strconv.FormatBool(*r.Resolved)
		}
		if r.WindowTokens != nil {
			row.Window = strconv.FormatInt(*r.WindowTokens, 10)
		}
		if r.CostUSD != nil {
			row.Cost = strconv.FormatFloat(*r.CostUSD, 'f', -1, 64)
		}
		if r.EndedAt != nil {
			row.Ended = r.EndedAt.Format("2006-01-02T15:04:05.999Z07:00")
		}
		out = append(out, row)
	}
	return out
}

// msgOut is one tool_outputs row.
type msgOut struct {
	Run, Key, Tool, Target string
	Turn, Chars            int64
}

func msgOuts(m *ingest.MemSink) []msgOut {
	out := []msgOut{}
	for _, o := range m.ToolOutputs {
		out = append(out, msgOut{o.RunID, o.ToolKey, o.ToolName, o.Target, o.Turn, o.Chars})
	}
	return out
}

// msgOp is one context_ops row.
type msgOp struct {
	Run       string
	Seq, Turn int64
	Op        schema.OpKind
	Key       string
}

func msgOps(m *ingest.MemSink) []msgOp {
	out := []msgOp{}
	for _, o := range m.ContextOps {
		out = append(out, msgOp{o.RunID, o.Seq, o.Turn, o.Op, o.ToolKey})
	}
	return out
}

func msgParse(t *testing.T, format, name string, data []byte, o *ingest.Options) *ingest.MemSink {
	t.Helper()
	m, err := ingest.Parse(context.Background(), format, name, data, o)
	if err != nil {
		t.Fatalf("parse %s as %s: %v", name, format, err)
	}
	return m
}

func msgRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func msgHead(data []byte) []byte { return data[:min(len(data), ingest.HeadSize)] }

func TestMessagesDetectFixtures(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"openai_list.json", msgOpenAI},
		{"anthropic_list.json", msgAnthropic},
		{"litellm.json", msgOpenAI},
		{"anthropic_request.json", msgAnthropic},
		{"tau_bench.json", msgOpenAI},
		{"dtoc_openai.jsonl", msgOpenAI},
		{"dtoc_anthropic.jsonl", msgAnthropic},
		{"malformed.jsonl", msgOpenAI},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join(msgFixtures, tc.file)
			im := ingest.Detect(path, msgHead(msgRead(t, path)))
			if im == nil || im.Name() != tc.want {
				t.Fatalf("Detect = %v, want %s", im, tc.want)
			}
		})
	}
}

func TestMessagesDetect(t *testing.T) {
	long := strings.Repeat("x", ingest.HeadSize)
	for _, tc := range []struct {
		name, file, head string
		want             string // "" = neither messages importer claims it
	}{
		{"openai list", "a.json", `[{"role": "user", "content": "hi"}]`, msgOpenAI},
		{"role after content", "a.json", `[{"content": "hi", "role": "system"}]`, msgOpenAI},
		{"openai tool role", "a.json", `[{"role": "user", "content": "x"}, {"role": "tool", "tool_call_id": "1", "content": "y"}]`, msgOpenAI},
		{"anthropic blocks", "a.json", `{"messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x", "content": "y"}]}]}`, msgAnthropic},
		{"anthropic system", "a.json", `{"model": "claude-sonnet-4-5", "system": "be brief", "messages": [{"role": "user", "content": "hi"}]}`, msgAnthropic},
		{"jsonl records", "a.jsonl", `{"run_id": "r1", "messages": [{"role": "user", "content": "hi"}]}` + "\n" + `{"run_id": "r2", "messages": []}`, msgOpenAI},
		{"tau-bench results list", "results.json", `[{"task_id": 1, "reward": 0, "traj": [{"role": "system", "content": "p"}]}]`, msgOpenAI},
		{"head cut after role", "a.json", `[{"role": "user", "content": "` + long, msgOpenAI},
		{"head cut inside first record", "a.jsonl", `{"messages": [{"role": "user", "content": "hi"}], "usage": [{"prompt_tokens": ` + long, msgOpenAI},
		{"claude code line", "s.jsonl", `{"type": "user", "sessionId": "s1", "message": {"role": "user", "content": "hi"}}`, ""},
		{"codex rollout", "rollout.jsonl", `{"timestamp": "2025-01-01T00:00:00Z", "type": "session_meta", "payload": {"id": "x"}}`, ""},
		{"mini-swe-agent object", "a.json", `{"info": {}, "messages": [{"role": "system", "content": "x"}], "trajectory_format": "mini-swe-agent-1"}`, ""},
		{"mini-swe-agent list", "run.traj.json", `[{"role": "system", "content": "x"}]`, ""},
		{"cline sdk session", "s.messages.json", `{"version": 1, "sessionId": "s", "messages": [{"role": "user", "content": []}]}`, ""},
		{"gemini cli", "session.json", `{"sessionId": "s", "messages": [{"id": "1", "type": "user", "content": "hi"}]}`, ""},
		{"openhands events", "basic.json", `[{"id": 0, "source": "user", "message": "hi", "action": "message"}]`, ""},
		{"nested messages", "eval.json", `{"version": 2, "samples": [{"messages": [{"role": "user", "content": "hi"}]}]}`, ""},
		{"messages without role", "a.json", `{"messages": [{"type": "user"}]}`, ""},
		{"unknown role", "a.json", `[{"role": "narrator", "content": "hi"}]`, ""},
		{"empty list", "a.json", `[]`, ""},
		{"list of strings", "a.json", `["user", "assistant"]`, ""},
		{"not json", "a.json", `role: user`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			for _, name := range []string{msgOpenAI, msgAnthropic} {
				im, err := ingest.Lookup(name)
				if err != nil {
					t.Fatal(err)
				}
				if im.Detect(tc.file, []byte(tc.head)) {
					if got != "" {
						t.Fatalf("both %s and %s claim it", got, name)
					}
					got = name
				}
			}
			if got != tc.want {
				t.Errorf("claimed by %q, want %q", got, tc.want)
			}
		})
	}
}

// Events of openai_list.json (and of anthropic_list.json below), shared by
// the rows that read the same file with either importer.
var (
	msgOpenAIListEvents = []msgEv{
		{"openai_list", 0, 0, schema.KindSystem, "", "", "", false},
		{"openai_list", 1, 0, schema.KindSystem, "", "", "", false},
		{"openai_list", 2, 0, schema.KindUser, "", "", "", false},
		{"openai_list", 3, 0, schema.KindReasoning, "", "", "", false},
		{"openai_list", 4, 0, schema.KindToolCall, "bash", "call_a1", "make test", false},
		{"openai_list", 5, 0, schema.KindToolCall, "read_file", "call_a2", "Makefile", false},
		{"openai_list", 6, 1, schema.KindToolResult, "bash", "call_a1", "make test", false},
		{"openai_list", 7, 1, schema.KindToolResult, "read_file", "call_a2", "Makefile", false},
		{"openai_list", 8, 1, schema.KindAssistant, "", "", "", false},
		{"openai_list", 9, 1, schema.KindToolCall, "grep", "call_a3", "func TestParse @ internal", false},
		{"openai_list", 10, 2, schema.KindToolResult, "grep", "call_a3", "func TestParse @ internal", false},
		{"openai_list", 11, 2, schema.KindAssistant, "", "", "", false},
	}
	msgAnthropicListEvents = []msgEv{
		{"anthropic_list", 0, 0, schema.KindUser, "", "", "", false},
		{"anthropic_list", 1, 0, schema.KindReasoning, "", "", "", false},
		{"anthropic_list", 2, 0, schema.KindAssistant, "", "", "", false},
		{"anthropic_list", 3, 0, schema.KindToolCall, "Glob", "toolu_01", "**/*.go", false},
		{"anthropic_list", 4, 0, schema.KindToolCall, "Read", "toolu_02", "/repo/go.mod", false},
		{"anthropic_list", 5, 1, schema.KindToolResult, "Glob", "toolu_01", "**/*.go", false},
		{"anthropic_list", 6, 1, schema.KindToolResult, "Read", "toolu_02", "/repo/go.mod", true},
		{"anthropic_list", 7, 1, schema.KindToolCall, "Bash", "toolu_03", "head -1 go.mod", false},
		{"anthropic_list", 8, 2, schema.KindToolResult, "Bash", "toolu_03", "head -1 go.mod", false},
		{"anthropic_list", 9, 2, schema.KindUser, "", "", "", false},
		{"anthropic_list", 10, 2, schema.KindAssistant, "", "", "", false},
	}
)

func TestMessagesFixtures(t *testing.T) {
	const sqlite, tspat, fastapi = "dtoc-sqlite-utils-rolling", "dtoc-ts-pattern-matcheach", "dtoc-fastapi-depends-cache"
	for _, tc := range []struct {
		name, file, format string
		events             []msgEv // nil: not checked here (see TestMessagesDTOC)
		usage              []msgUse
		runs               []msgRunRow
	}{
		{
			name: "a/openai", file: "openai_list.json", format: msgOpenAI,
			events: msgOpenAIListEvents,
			usage:  []msgUse{},
			runs: []msgRunRow{{ID: "openai_list", Harness: msgOpenAI, Family: "unknown", End: schema.EndUnknown, EndSource: schema.SourceInferred,
				Turns: 3, Estimated: true}},
		},
		{
			name: "a/anthropic", file: "anthropic_list.json", format: msgAnthropic,
			events: msgAnthropicListEvents,
			usage:  []msgUse{},
			runs: []msgRunRow{{ID: "anthropic_list", Harness: msgAnthropic, Family: "unknown", End: schema.EndUnknown, EndSource: schema.SourceInferred,
				Turns: 3, Estimated: true}},
		},
		{
			// Either importer reads either dialect; the name only sets the harness.
			name: "a/anthropic read as openai", file: "anthropic_list.json", format: msgOpenAI,
			events: msgAnthropicListEvents,
			usage:  []msgUse{},
			runs: []msgRunRow{{ID: "anthropic_list", Harness: msgOpenAI, Family: "unknown", End: schema.EndUnknown, EndSource: schema.SourceInferred,
				Turns: 3, Estimated: true}},
		},
		{
			name: "b/openai litellm", file: "litellm.json", format: msgOpenAI,
			events: []msgEv{
				{"litellm", 0, 0, schema.KindSystem, "", "", "", false}, // the tool definitions (role tools)
				{"litellm", 1, 0, schema.KindSystem, "", "", "", false},
				{"litellm", 2, 0, schema.KindUser, "", "", "", false},
				{"litellm", 3, 0, schema.KindAssistant, "", "", "", false},
				{"litellm", 4, 0, schema.KindToolCall, "str_replace_editor", "toolu_h1", "/workspace/hello.py", false},
				{"litellm", 5, 1, schema.KindToolResult, "str_replace_editor", "toolu_h1", "/workspace/hello.py", false},
				{"litellm", 6, 1, schema.KindAssistant, "", "", "", false},
				{"litellm", 7, 1, schema.KindToolCall, "terminal", "toolu_h2", "python /workspace/hello.py", false},
			},
			// Only the logged call (the response) has usage; prompt_tokens already includes the cache.
			usage: []msgUse{{"litellm", 1, 5000, 120, 4000, 600, 0, "litellm_proxy/claude-sonnet-4-20250514", "chatcmpl-5f0c1d2e"}},
			runs: []msgRunRow{{ID: "litellm", Harness: "openhands-sdk", Model: "litellm_proxy/claude-sonnet-4-20250514", Family: "claude-sonnet-4",
				Window: "200000", End: schema.EndUnknown, EndSource: schema.SourceInferred, Turns: 2, In: 5000, Out: 120, CR: 4000, CW: 600,
				Cost: "0.0123", Ended: "2025-09-04T19:44:06.5Z"}},
		},
		{
			name: "b/anthropic request", file: "anthropic_request.json", format: msgAnthropic,
			events: []msgEv{
				{"anthropic_request", 0, 0, schema.KindSystem, "", "", "", false},
				{"anthropic_request", 1, 0, schema.KindUser, "", "", "", false},
				{"anthropic_request", 2, 0, schema.KindToolCall, "ci_status", "toolu_r1", "", false},
				{"anthropic_request", 3, 1, schema.KindToolResult, "ci_status", "toolu_r1", "", false},
				{"anthropic_request", 4, 1, schema.KindAssistant, "", "", "", false},
				{"anthropic_request", 5, 1, schema.KindToolCall, "bash", "toolu_r2", "git tag v1.2.0 && git push --tags", false},
				{"anthropic_request", 6, 2, schema.KindToolResult, "bash", "toolu_r2", "git tag v1.2.0 && git push --tags", false},
				{"anthropic_request", 7, 2, schema.KindReasoning, "", "", "", false},
				{"anthropic_request", 8, 2, schema.KindAssistant, "", "", "", false},
			},
			// Anthropic input_tokens exclude the cache: input = input + read + write.
			usage: []msgUse{
				{"anthropic_request", 0, 1250, 30, 0, 1200, 0, "claude-opus-4-1-20250805", ""},
				{"anthropic_request", 1, 1320, 60, 1200, 100, 0, "claude-opus-4-1-20250805", ""},
			},
			runs: []msgRunRow{{ID: "anthropic_request", Harness: msgAnthropic, Model: "claude-opus-4-1-20250805", Family: "claude-opus-4",
				Task: "release-1.2.0", Resolved: "true", End: schema.EndFinished, EndSource: schema.SourceExplicit, Detail: "end_turn",
				Turns: 3, In: 2570, Out: 90, CR: 1200, CW: 1300}},
		},
		{
			name: "b/tau-bench", file: "tau_bench.json", format: msgOpenAI,
			events: []msgEv{
				{"tau_bench", 0, 0, schema.KindSystem, "", "", "", false},
				{"tau_bench", 1, 0, schema.KindUser, "", "", "", false},
				{"tau_bench", 2, 0, schema.KindAssistant, "", "", "", false},
				{"tau_bench", 3, 0, schema.KindToolCall, "get_order_details", "0", "", false},
				{"tau_bench", 4, 1, schema.KindToolResult, "get_order_details", "0", "", false},
				{"tau_bench", 5, 1, schema.KindToolCall, "cancel_pending_order", "0", "", false},
				{"tau_bench", 6, 2, schema.KindToolResult, "cancel_pending_order", "0", "", false},
				{"tau_bench", 7, 2, schema.KindAssistant, "", "", "", false},
				{"tau_bench", 8, 3, schema.KindUser, "", "", "", false},
			},
			usage: []msgUse{},
			runs: []msgRunRow{{ID: "tau_bench", Harness: "tau-bench", Family: "unknown", Task: "7", Resolved: "true",
				End: schema.EndUnknown, EndSource: schema.SourceInferred, Turns: 3, Estimated: true}},
		},
		{
			name: "c/openai jsonl", file: "dtoc_openai.jsonl", format: msgOpenAI,
			usage: []msgUse{
				{sqlite, 0, 1850, 64, 0, 0, 20, "gpt-5.4", ""},
				{sqlite, 1, 2210, 96, 1792, 0, 40, "gpt-5.4", ""},
				{sqlite, 2, 2790, 180, 2176, 0, 120, "gpt-5.4", ""},
				{sqlite, 3, 3120, 70, 2688, 0, 16, "gpt-5.4", ""},
				{sqlite, 4, 2650, 88, 2560, 0, 0, "gpt-5.4", ""},
				{sqlite, 5, 2760, 45, 2560, 0, 0, "gpt-5.4", ""},
				{sqlite, 6, 2950, 90, 2688, 0, 24, "gpt-5.4", ""},
				{sqlite, 7, 2700, 75, 2560, 0, 0, "gpt-5.4", ""},
				// Anthropic-shaped usage in an OpenAI-dialect log.
				{tspat, 0, 1512, 40, 0, 1500, 0, "claude-sonnet-4-6", ""},
				{tspat, 1, 1928, 85, 1500, 420, 0, "claude-sonnet-4-6", ""},
				{tspat, 2, 4826, 30, 1920, 2900, 0, "claude-sonnet-4-6", ""},
				{tspat, 3, 4980, 45, 4820, 150, 0, "claude-sonnet-4-6", ""},
				{tspat, 4, 6679, 110, 4970, 1700, 0, "claude-sonnet-4-6", ""},
			},
			runs: []msgRunRow{
				{ID: sqlite, Harness: msgOpenAI, Model: "gpt-5.4", Family: "gpt-5.4", Task: "sqlite-utils__rolling-window", Resolved: "true",
					Window: "400000", End: schema.EndFinished, EndSource: schema.SourceExplicit, Detail: "finished",
					Turns: 8, In: 21030, Out: 708, CR: 17024, Reasoning: 220},
				{ID: tspat, Harness: msgOpenAI, Model: "claude-sonnet-4-6", Family: "claude-sonnet-4", Task: "ts-pattern__matchEach", Resolved: "false",
					Window: "200000", End: schema.EndStepLimit, EndSource: schema.SourceExplicit, Detail: "max_steps",
					Turns: 5, In: 19925, Out: 310, CR: 13210, CW: 6670},
			},
		},
		{
			name: "c/anthropic jsonl", file: "dtoc_anthropic.jsonl", format: msgAnthropic,
			usage: []msgUse{
				{fastapi, 0, 1820, 55, 0, 1800, 0, "claude-sonnet-4-6", ""},
				{fastapi, 1, 2075, 40, 1800, 260, 0, "claude-sonnet-4-6", ""},
				{fastapi, 2, 4172, 90, 2060, 2100, 0, "claude-sonnet-4-6", ""},
				{fastapi, 3, 4289, 150, 4160, 120, 0, "claude-sonnet-4-6", ""},
				{fastapi, 4, 4491, 35, 4280, 200, 0, "claude-sonnet-4-6", ""},
				{fastapi, 5, 4578, 60, 4480, 90, 0, "claude-sonnet-4-6", ""},
				{fastapi, 6, 4310, 70, 3900, 400, 0, "claude-sonnet-4-6", ""},
			},
			runs: []msgRunRow{{ID: fastapi, Harness: msgAnthropic, Model: "claude-sonnet-4-6", Family: "claude-sonnet-4",
				Task: "fastapi__depends-use-cache", Resolved: "true", Window: "200000", End: schema.EndFinished, EndSource: schema.SourceExplicit,
				Detail: "completed", Turns: 7, In: 25735, Out: 500, CR: 20680, CW: 4970}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := msgParse(t, tc.format, tc.file, msgRead(t, filepath.Join(msgFixtures, tc.file)), nil)
			if len(m.Rejects) != 0 {
				t.Errorf("rejects: %+v", m.Rejects)
			}
			if tc.events != nil {
				if diff := cmp.Diff(tc.events, msgEvents(m)); diff != "" {
					t.Errorf("events (-want +got):\n%s", diff)
				}
			}
			if diff := cmp.Diff(tc.usage, msgUsage(m)); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.runs, msgRuns(m)); diff != "" {
				t.Errorf("runs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMessagesDTOC checks DTOC end to end: envelopes become tool_outputs
// keyed by the orchestrator's tool_key with the inner text (chars are the
// inner result's runes, not the envelope's), and every key of a
// manage_context call becomes one context_ops row (disables first).
func TestMessagesDTOC(t *testing.T) {
	const sqlite, tspat, fastapi = "dtoc-sqlite-utils-rolling", "dtoc-ts-pattern-matcheach", "dtoc-fastapi-depends-cache"
	for _, tc := range []struct {
		file, format string
		events       []msgEv
		outs         []msgOut
		ops          []msgOp
	}{
		{
			file: "dtoc_openai.jsonl", format: msgOpenAI,
			events: []msgEv{
				{sqlite, 0, 0, schema.KindSystem, "", "", "", false},
				{sqlite, 1, 0, schema.KindUser, "", "", "", false},
				{sqlite, 2, 0, schema.KindAssistant, "", "", "", false},
				{sqlite, 3, 0, schema.KindToolCall, "run_tests", "call_01", "tests/test_rolling.py", false},
				{sqlite, 4, 1, schema.KindToolResult, "run_tests", "call_01", "tests/test_rolling.py", true}, // "1 failed, 2 passed in 0.04s": error_rule test-failures (OpenAI tool messages have no flag)
				{sqlite, 5, 1, schema.KindToolCall, "grep", "call_02", "def rolling_window @ sqlite_utils", false},
				{sqlite, 6, 1, schema.KindToolCall, "read_file", "call_03", "sqlite_utils/utils.py", false},
				{sqlite, 7, 2, schema.KindToolResult, "grep", "call_02", "def rolling_window @ sqlite_utils", false},
				{sqlite, 8, 2, schema.KindToolResult, "read_file", "call_03", "sqlite_utils/utils.py", false},
				{sqlite, 9, 2, schema.KindReasoning, "", "", "", false},
				{sqlite, 10, 2, schema.KindToolCall, "read_file", "call_04", "tests/test_rolling.py", false},
				{sqlite, 11, 3, schema.KindToolResult, "read_file", "call_04", "tests/test_rolling.py", false},
				{sqlite, 12, 3, schema.KindAssistant, "", "", "", false},
				{sqlite, 13, 3, schema.KindToolCall, "manage_context", "call_05", "", false},
				{sqlite, 14, 4, schema.KindToolResult, "manage_context", "call_05", "", false},
				{sqlite, 15, 4, schema.KindToolCall, "edit_file", "call_06", "sqlite_utils/utils.py", false},
				{sqlite, 16, 5, schema.KindToolResult, "edit_file", "call_06", "sqlite_utils/utils.py", false},
				{sqlite, 17, 5, schema.KindToolCall, "run_tests", "call_07", "tests/test_rolling.py", false},
				{sqlite, 18, 6, schema.KindToolResult, "run_tests", "call_07", "tests/test_rolling.py", false},
				{sqlite, 19, 6, schema.KindAssistant, "", "", "", false},
				{sqlite, 20, 6, schema.KindToolCall, "manage_context", "call_08", "", false},
				{sqlite, 21, 7, schema.KindToolResult, "manage_context", "call_08", "", false},
				{sqlite, 22, 7, schema.KindAssistant, "", "", "", false},
				{tspat, 0, 0, schema.KindSystem, "", "", "", false},
				{tspat, 1, 0, schema.KindUser, "", "", "", false},
				{tspat, 2, 0, schema.KindToolCall, "glob", "toolu_01", "src/**/*.ts", false},
				{tspat, 3, 1, schema.KindToolResult, "glob", "toolu_01", "src/**/*.ts", false},
				{tspat, 4, 1, schema.KindAssistant, "", "", "", false},
				{tspat, 5, 1, schema.KindToolCall, "read_file", "toolu_02", "src/match.ts", false},
				{tspat, 6, 1, schema.KindToolCall, "read_file", "toolu_03", "src/types/Match.ts", false},
				{tspat, 7, 2, schema.KindToolResult, "read_file", "toolu_02", "src/match.ts", false},
				{tspat, 8, 2, schema.KindToolResult, "read_file", "toolu_03", "src/types/Match.ts", false},
				{tspat, 9, 2, schema.KindToolCall, "manage_context", "toolu_04", "", false},
				{tspat, 10, 3, schema.KindToolResult, "manage_context", "toolu_04", "", false},
				{tspat, 11, 3, schema.KindToolCall, "bash", "toolu_05", "npx vitest run tests/matchEach.test.ts", false},
				{tspat, 12, 4, schema.KindToolResult, "bash", "toolu_05", "npx vitest run tests/matchEach.test.ts", false},
				{tspat, 13, 4, schema.KindReasoning, "", "", "", false},
				{tspat, 14, 4, schema.KindToolCall, "manage_context", "toolu_06", "", false},
				{tspat, 15, 5, schema.KindToolResult, "manage_context", "toolu_06", "", false},
			},
			outs: []msgOut{
				{sqlite, "run_tests_1", "run_tests", "tests/test_rolling.py", 1, 649},
				{sqlite, "grep_1", "grep", "def rolling_window @ sqlite_utils", 2, 61},
				{sqlite, "read_file_1", "read_file", "sqlite_utils/utils.py", 2, 250},
				{sqlite, "read_file_2", "read_file", "tests/test_rolling.py", 3, 298},
				{sqlite, "call_05", "manage_context", "", 4, 117}, // a status report, not an envelope: keyed by call id
				{sqlite, "edit_file_1", "edit_file", "sqlite_utils/utils.py", 5, 44},
				{sqlite, "run_tests_2", "run_tests", "tests/test_rolling.py", 6, 261},
				{sqlite, "call_08", "manage_context", "", 7, 126},
				{tspat, "glob_1", "glob", "src/**/*.ts", 1, 106},
				{tspat, "read_file_1", "read_file", "src/match.ts", 2, 157},
				{tspat, "read_file_2", "read_file", "src/types/Match.ts", 2, 275},
				{tspat, "toolu_04", "manage_context", "", 3, 98},
				{tspat, "bash_1", "bash", "npx vitest run tests/matchEach.test.ts", 4, 218}, // runes, not bytes (❯)
				{tspat, "toolu_06", "manage_context", "", 5, 121},
			},
			ops: []msgOp{
				{sqlite, 13, 3, schema.OpDisable, "read_file_2"},
				{sqlite, 13, 3, schema.OpDisable, "run_tests_1"},
				{sqlite, 20, 6, schema.OpDisable, "grep_1"},
				{sqlite, 20, 6, schema.OpDisable, "read_file_1"},
				{sqlite, 20, 6, schema.OpEnable, "run_tests_1"},
				{tspat, 9, 2, schema.OpDisable, "glob_1"},
				{tspat, 14, 4, schema.OpDisable, "bash_1"},
				{tspat, 14, 4, schema.OpDisable, "read_file_2"},
				{tspat, 14, 4, schema.OpEnable, "glob_1"},
			},
		},
		{
			file: "dtoc_anthropic.jsonl", format: msgAnthropic,
			events: []msgEv{
				{fastapi, 0, 0, schema.KindSystem, "", "", "", false},
				{fastapi, 1, 0, schema.KindUser, "", "", "", false},
				{fastapi, 2, 0, schema.KindReasoning, "", "", "", false},
				{fastapi, 3, 0, schema.KindToolCall, "grep", "toolu_a1", "use_cache @ fastapi/dependencies", false},
				{fastapi, 4, 1, schema.KindToolResult, "grep", "toolu_a1", "use_cache @ fastapi/dependencies", false},
				{fastapi, 5, 1, schema.KindToolCall, "read_file", "toolu_a2", "fastapi/dependencies/utils.py", false},
				{fastapi, 6, 2, schema.KindToolResult, "read_file", "toolu_a2", "fastapi/dependencies/utils.py", false},
				{fastapi, 7, 2, schema.KindAssistant, "", "", "", false},
				{fastapi, 8, 2, schema.KindToolCall, "mcp__dtoc__manage_context", "toolu_a3", "", false},
				{fastapi, 9, 3, schema.KindToolResult, "mcp__dtoc__manage_context", "toolu_a3", "", false},
				{fastapi, 10, 3, schema.KindToolCall, "edit_file", "toolu_a4", "fastapi/dependencies/utils.py", false},
				{fastapi, 11, 4, schema.KindToolResult, "edit_file", "toolu_a4", "fastapi/dependencies/utils.py", false},
				{fastapi, 12, 4, schema.KindToolCall, "bash", "toolu_a5", "pytest tests/test_dependency_cache.py -q", false},
				{fastapi, 13, 5, schema.KindToolResult, "bash", "toolu_a5", "pytest tests/test_dependency_cache.py -q", false},
				{fastapi, 14, 5, schema.KindToolCall, "mcp__dtoc__manage_context", "toolu_a6", "", false},
				{fastapi, 15, 6, schema.KindToolResult, "mcp__dtoc__manage_context", "toolu_a6", "", false},
				{fastapi, 16, 6, schema.KindAssistant, "", "", "", false},
			},
			outs: []msgOut{
				{fastapi, "grep_1", "grep", "use_cache @ fastapi/dependencies", 1, 182},
				{fastapi, "read_file_1", "read_file", "fastapi/dependencies/utils.py", 2, 632}, // envelope inside a text block
				{fastapi, "toolu_a3", "mcp__dtoc__manage_context", "", 3, 29},
				{fastapi, "edit_file_1", "edit_file", "fastapi/dependencies/utils.py", 4, 32}, // object result, compacted
				{fastapi, "bash_1", "bash", "pytest tests/test_dependency_cache.py -q", 5, 22},
				{fastapi, "toolu_a6", "mcp__dtoc__manage_context", "", 6, 60},
			},
			ops: []msgOp{
				{fastapi, 8, 2, schema.OpDisable, "grep_1"},
				{fastapi, 14, 5, schema.OpDisable, "read_file_1"},
				{fastapi, 14, 5, schema.OpDisable, "bash_1"},
				{fastapi, 14, 5, schema.OpEnable, "grep_1"},
			},
		},
	} {
		t.Run(tc.file, func(t *testing.T) {
			m := msgParse(t, tc.format, tc.file, msgRead(t, filepath.Join(msgFixtures, tc.file)), nil)
			if diff := cmp.Diff(tc.events, msgEvents(m)); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.outs, msgOuts(m)); diff != "" {
				t.Errorf("tool_outputs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.ops, msgOps(m)); diff != "" {
				t.Errorf("context_ops (-want +got):\n%s", diff)
			}
			lines := map[string]int64{sqlite: 1, tspat: 2, fastapi: 1}
			for _, e := range m.Events {
				if e.Kind == schema.KindToolResult && strings.Contains(e.Text, `"tool_key"`) {
					t.Errorf("%s/%d: envelope not unwrapped: %.80q", e.RunID, e.Seq, e.Text)
				}
				if e.Line != lines[e.RunID] {
					t.Errorf("%s/%d: line %d, want %d", e.RunID, e.Seq, e.Line, lines[e.RunID])
				}
			}
		})
	}
}

func TestMessagesMalformedLine(t *testing.T) {
	data := msgRead(t, filepath.Join(msgFixtures, "malformed.jsonl"))
	m := msgParse(t, msgOpenAI, "malformed.jsonl", data, nil)
	if len(m.Rejects) != 1 || m.Rejects[0].Line != 3 || m.Rejects[0].SourcePath != "malformed.jsonl" {
		t.Fatalf("rejects = %+v, want one at line 3", m.Rejects)
	}
	var ids []string
	for _, r := range m.Runs {
		ids = append(ids, r.RunID)
	}
	if diff := cmp.Diff([]string{"ok-1", "ok-2", "malformed#5"}, ids); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
	if len(m.Sources) != 1 || m.Sources[0].Runs != 3 || m.Sources[0].Rejects != 1 {
		t.Errorf("source = %+v", m.Sources)
	}

	_, err := ingest.Parse(context.Background(), msgOpenAI, "malformed.jsonl", data, &ingest.Options{Strict: true})
	var se *ingest.SyntaxError
	if !errors.As(err, &se) || se.Line != 3 || se.File != "malformed.jsonl" {
		t.Fatalf("strict: err = %v, want a SyntaxError at line 3", err)
	}
}

// TestMessagesRejects checks that records of the wrong shape are rejected
// with their line, whole, and that the rest of the file still imports.
func TestMessagesRejects(t *testing.T) {
	good := `{"run_id": "good", "messages": [{"role": "user", "content": "hi"}]}`
	for _, tc := range []struct {
		name, file, data string
		lines            []int64 // reject lines
		runs             []string
	}{
		{"no messages", "a.jsonl", good + "\n" + `{"run_id": "x"}`, []int64{2}, []string{"good"}},
		{"messages not a list", "a.jsonl", `{"messages": "hi"}` + "\n" + good, []int64{1}, []string{"good"}},
		{"message not an object", "a.jsonl", good + "\n\n" + `{"messages": [{"role": "user", "content": "a"}, 7]}`, []int64{3}, []string{"good"}},
		{"line not an object", "a.jsonl", `[1, 2]` + "\n" + good, []int64{1}, []string{"good"}},
		{"data after the object", "a.jsonl", good + "\n" + `{"messages": []} {}`, []int64{2}, []string{"good"}},
		{"truncated document", "a.json", "{\n  \"messages\": [\n    {\"role\": \"user\", \"content\": \"hi\"}\n", []int64{3}, nil},
		{"document without messages", "a.json", `{"model": "gpt-4o"}`, []int64{1}, nil},
		{"document of another type", "a.json", `"just a string"`, []int64{1}, nil},
		{"bad record in a list", "r.json", "[\n" + good + ",\n" + `{"traj": 5}` + "\n]", []int64{3}, []string{"good"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := msgParse(t, msgOpenAI, tc.file, []byte(tc.data), nil)
			var lines []int64
			for _, r := range m.Rejects {
				lines = append(lines, r.Line)
			}
			var runs []string
			for _, r := range m.Runs {
				runs = append(runs, r.RunID)
			}
			if diff := cmp.Diff(tc.lines, lines); diff != "" {
				t.Errorf("reject lines (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.runs, runs); diff != "" {
				t.Errorf("runs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMessagesShapes covers input variants not in the fixtures.
func TestMessagesShapes(t *testing.T) {
	traj := `[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]`
	for _, tc := range []struct {
		name, file, data string
		runs             []msgRunRow
		usage            []msgUse
	}{
		{
			name: "tau-bench results list", file: "results.json",
			data: `[{"task_id": 1, "reward": 1, "traj": ` + traj + `}, {"task_id": 2, "reward": 0.5, "traj": ` + traj + `}]`,
			runs: []msgRunRow{
				{ID: "results#1", Harness: "tau-bench", Family: "unknown", Task: "1", Resolved: "true", End: schema.EndUnknown, EndSource: schema.SourceInferred, Turns: 1, Estimated: true},
				{ID: "results#2", Harness: "tau-bench", Family: "unknown", Task: "2", Resolved: "false", End: schema.EndUnknown, EndSource: schema.SourceInferred, Turns: 1, Estimated: true},
			},
			usage: []msgUse{},
		},
		{
			name: "duplicate run ids", file: "d.jsonl",
			data: `{"run_id": "r", "messages": ` + traj + "}\n" + `{"run_id": "r", "messages": ` + traj + "}\n",
			runs: []msgRunRow{
				{ID: "r", Harness: msgOpenAI, Family: "unknown", End: schema.EndUnknown, EndSource: schema.SourceInferred, Turns: 1, Estimated: true},
				{ID: "r#2", Harness: msgOpenAI, Family: "unknown", End: schema.EndUnknown, EndSource: schema.SourceInferred, Turns: 1, Estimated: true},
			},
			usage: []msgUse{},
		},
		{
			name: "jsonl in a .json file", file: "runs.json",
			data: `{"messages": ` + traj + "}\n" + `{"messages": ` + traj + `, "harness": "my-agent", "outcome": {"end_reason": "user_quit"}}`,
			runs: []msgRunRow{
				{ID: "runs#1", Harness: msgOpenAI, Family: "unknown", End: schema.EndUnknown, EndSource: schema.SourceInferred, Turns: 1, Estimated: true},
				// an end reason outside the schema's set is kept as detail only
				{ID: "runs#2", Harness: "my-agent", Family: "unknown", End: schema.EndUnknown, EndSource: schema.SourceInferred, Detail: "user_quit", Turns: 1, Estimated: true},
			},
			usage: []msgUse{},
		},
		{
			name: "anthropic message response", file: "call.json",
			data: `{"messages": [{"role": "user", "content": "hi"}], "response": {"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-3-5-haiku-20241022",
				"content": [{"type": "text", "text": "hello"}], "usage": {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 2}}}`,
			runs: []msgRunRow{{ID: "call", Harness: msgOpenAI, Model: "claude-3-5-haiku-20241022", Family: "claude-3.5-haiku", End: schema.EndUnknown, EndSource: schema.SourceInferred,
				Turns: 1, In: 12, Out: 5, CR: 2}},
			usage: []msgUse{{"call", 0, 12, 5, 2, 0, 0, "claude-3-5-haiku-20241022", "msg_01"}},
		},
		{
			name: "openai responses usage and a usage object", file: "resp.json",
			data: `{"model": "o3", "messages": ` + traj + `, "usage": {"input_tokens": 100, "output_tokens": 40, "input_tokens_details": {"cached_tokens": 64}, "output_tokens_details": {"reasoning_tokens": 30}}}`,
			runs: []msgRunRow{{ID: "resp", Harness: msgOpenAI, Model: "o3", Family: "o3", End: schema.EndUnknown, EndSource: schema.SourceInferred,
				Turns: 1, In: 100, Out: 40, CR: 64, Reasoning: 30}},
			usage: []msgUse{{"resp", 0, 100, 40, 64, 0, 30, "o3", ""}},
		},
		{
			name: "byte order marks", file: "bom.json",
			data:  "\xef\xbb\xbf\n" + traj,
			runs:  []msgRunRow{{ID: "bom", Harness: msgOpenAI, Family: "unknown", End: schema.EndUnknown, EndSource: schema.SourceInferred, Turns: 1, Estimated: true}},
			usage: []msgUse{},
		},
		{
			name: "byte order mark in jsonl", file: "bom.jsonl",
			data:  "\xef\xbb\xbf" + `{"run_id": "b", "messages": ` + traj + "}\n",
			runs:  []msgRunRow{{ID: "b", Harness: msgOpenAI, Family: "unknown", End: schema.EndUnknown, EndSource: schema.SourceInferred, Turns: 1, Estimated: true}},
			usage: []msgUse{},
		},
		{
			name: "negative and null counts", file: "neg.jsonl",
			data: `{"run_id": "n", "window_tokens": -5, "messages": ` + traj + `, "usage": [{"prompt_tokens": -3, "completion_tokens": null, "prompt_tokens_details": {"cached_tokens": 7}}]}`,
			runs: []msgRunRow{{ID: "n", Harness: msgOpenAI, Family: "unknown", End: schema.EndUnknown, EndSource: schema.SourceInferred,
				Turns: 1, In: 7, CR: 7}},
			usage: []msgUse{{"n", 0, 7, 0, 7, 0, 0, "", ""}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := msgParse(t, msgOpenAI, tc.file, []byte(tc.data), nil)
			if len(m.Rejects) != 0 {
				t.Errorf("rejects: %+v", m.Rejects)
			}
			if diff := cmp.Diff(tc.runs, msgRuns(m)); diff != "" {
				t.Errorf("runs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.usage, msgUsage(m)); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
		})
	}
}

// msgCorpusFacts are counted straight from a corpus file, independently of
// the importer.
type msgCorpusFacts struct {
	toolCalls, toolResults int
	usage                  *msgUse // response.usage of a LiteLLM log
}

func msgFacts(t *testing.T, data []byte) msgCorpusFacts {
	t.Helper()
	var doc struct {
		Messages []map[string]any `json:"messages"`
		Traj     []map[string]any `json:"traj"`
		Response *struct {
			Choices []struct {
				Message map[string]any `json:"message"`
			} `json:"choices"`
			Usage struct {
				Prompt  int64 `json:"prompt_tokens"`
				Out     int64 `json:"completion_tokens"`
				Details struct {
					Cached int64 `json:"cached_tokens"`
				} `json:"prompt_tokens_details"`
			} `json:"usage"`
		} `json:"response"`
		RawResponse json.RawMessage `json:"raw_response"`
	}
	var msgs []map[string]any
	if err := json.Unmarshal(data, &msgs); err != nil {
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		msgs = append(doc.Messages, doc.Traj...)
		// The final output is the raw response's when there is one (non-function-calling logs).
		if doc.Response != nil && doc.RawResponse == nil && len(doc.Response.Choices) > 0 {
			msgs = append(msgs, doc.Response.Choices[0].Message)
		}
	}
	var f msgCorpusFacts
	for _, m := range msgs {
		if tc, ok := m["tool_calls"].([]any); ok {
			f.toolCalls += len(tc)
		}
		if m["role"] == "tool" {
			f.toolResults++
		}
	}
	if r := doc.Response; r != nil {
		f.usage = &msgUse{In: r.Usage.Prompt, Out: r.Usage.Out, CR: r.Usage.Details.Cached}
	}
	return f
}

func TestMessagesCorpus(t *testing.T) {
	dir := testutil.Corpus(t, "openai-chat-messages")
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files in %s: %v", dir, err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data := msgRead(t, path)
			im := ingest.Detect(path, msgHead(data))
			if im == nil || im.Name() != msgOpenAI && im.Name() != msgAnthropic {
				t.Fatalf("Detect = %v, want a messages importer", im)
			}
			m := msgParse(t, im.Name(), path, data, nil)
			if len(m.Rejects) != 0 {
				t.Fatalf("rejects: %+v", m.Rejects)
			}
			if len(m.Runs) != 1 {
				t.Fatalf("%d runs, want 1", len(m.Runs))
			}
			facts := msgFacts(t, data)
			calls, results := map[string]bool{}, 0
			for _, e := range m.Events {
				switch e.Kind {
				case schema.KindToolCall:
					calls[e.CallID] = true
				case schema.KindToolResult:
					results++
					if e.ToolName == "" || !calls[e.CallID] {
						t.Errorf("tool result %d (call %q) not linked to a call", e.Seq, e.CallID)
					}
				}
			}
			var nCalls int
			for _, e := range m.Events {
				if e.Kind == schema.KindToolCall {
					nCalls++
				}
			}
			if nCalls != facts.toolCalls || results != facts.toolResults {
				t.Errorf("%d tool calls and %d results, the file has %d and %d", nCalls, results, facts.toolCalls, facts.toolResults)
			}
			if len(m.ToolOutputs) != results {
				t.Errorf("%d tool outputs for %d results", len(m.ToolOutputs), results)
			}
			if facts.usage == nil {
				if len(m.Usage) != 0 {
					t.Errorf("usage rows %+v, the file logs none", m.Usage)
				}
				return
			}
			r := m.Runs[0]
			if r.Harness != "openhands-sdk" || r.WindowTokens == nil || r.CostUSD == nil || r.EndedAt == nil {
				t.Errorf("LiteLLM run metadata: harness %q window %v cost %v ended %v", r.Harness, r.WindowTokens, r.CostUSD, r.EndedAt)
			}
			if len(m.Usage) != 1 {
				t.Fatalf("%d usage rows, want 1 (the logged call)", len(m.Usage))
			}
			u := m.Usage[0]
			got := msgUse{In: u.InputTokens, Out: u.OutputTokens, CR: u.CacheReadTokens}
			if diff := cmp.Diff(*facts.usage, got); diff != "" {
				t.Errorf("usage (-response.usage +got):\n%s", diff)
			}
			if u.Turn != r.NTurns-1 {
				t.Errorf("usage on turn %d, want the last call %d", u.Turn, r.NTurns-1)
			}
		})
	}
}

// TestMessagesCorpusOthers checks that the messages importers, tried last,
// claim no file of another format in the corpus.
func TestMessagesCorpusOthers(t *testing.T) {
	root := testutil.CorpusDir(t)
	files, err := filepath.Glob(filepath.Join(root, "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		if filepath.Base(filepath.Dir(path)) == "openai-chat-messages" || filepath.Base(filepath.Dir(path)) == "licenses" {
			continue
		}
		head := msgHead(msgRead(t, path))
		for _, name := range []string{msgOpenAI, msgAnthropic} {
			im, err := ingest.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			if im.Detect(path, head) {
				t.Errorf("%s claims %s", name, path)
			}
		}
	}
}

func msgCheckSink(t *testing.T, m *ingest.MemSink) {
	t.Helper()
	for _, r := range m.Records() {
		if err := schema.Validate(r); err != nil {
			t.Fatal(err)
		}
	}
	runs := map[string]bool{}
	for _, r := range m.Runs {
		if runs[r.RunID] {
			t.Fatalf("run id %q twice", r.RunID)
		}
		runs[r.RunID] = true
	}
	last := map[string]int64{}
	for _, e := range m.Events {
		if !runs[e.RunID] {
			t.Fatalf("event of unknown run %q", e.RunID)
		}
		if s, ok := last[e.RunID]; ok && e.Seq <= s {
			t.Fatalf("run %s: seq %d after %d", e.RunID, e.Seq, s)
		}
		last[e.RunID] = e.Seq
	}
}
