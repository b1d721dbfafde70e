package ingest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/schema"
)

// The fixtures in testdata/openhands-sdk-v1-events are hand-written:
//
//	full.jsonl    a full_state snapshot naming the conversation, system
//	              prompt, parallel tool calls of one response, an agent error,
//	              a rejected action, cumulative stats of the agent and the
//	              condenser, condensations (summary; request + forget only),
//	              an agent message, execution_status finished.
//	errors.jsonl  rejected lines of every kind, usage under usage id
//	              "agent", a call without llm_response_id, a conversation
//	              error about the context window.

const ohsFormat = "openhands-sdk-v1-events"

func TestOpenHandsSDKFixtures(t *testing.T) {
	ts := func(s string) *time.Time { return ohTS(t, s) }
	const (
		c = "conv-42"
		e = "errors"
	)
	tests := []struct {
		file string
		want ohWant
	}{{
		file: "full.jsonl",
		want: ohWant{
			runs: []schema.Run{{
				RunID: c, Harness: "openhands-sdk", Model: "anthropic/claude-sonnet-4-5", ModelFamily: "claude-sonnet-4", WindowTokens: ohI64(200000),
				StartedAt: ts("2026-01-01T00:00:00"), EndedAt: ts("2026-01-01T00:00:19"),
				EndReason: schema.EndFinished, EndReasonSource: schema.SourceExplicit, EndReasonDetail: "execution_status finished",
				NTurns: 4, InputTokens: 7100, OutputTokens: 390, CacheReadTokens: 1900, CacheWriteTokens: 800, ReasoningTokens: 40, UsageCalls: 4,
				CostUSD: ohF64(1.25), // the last accumulated_cost of the agent (1.0) and of the condenser (0.25)
			}},
			events: []schema.Event{
				{RunID: c, Seq: 0, Turn: 0, TS: ts("2026-01-01T00:00:01"), Kind: schema.KindSystem, Role: "system", Line: 2, Text: "You are OpenHands agent.\nWorking dir: /repo"},
				{RunID: c, Seq: 1, Turn: 0, TS: ts("2026-01-01T00:00:02"), Kind: schema.KindUser, Role: "user", Line: 3, Text: "Fix the tests.\n<skill>testing</skill>"},
				// two ActionEvents of llm_response_id resp-1: one call
				{RunID: c, Seq: 2, Turn: 0, TS: ts("2026-01-01T00:00:06"), Kind: schema.KindReasoning, Role: "assistant", Line: 6, Text: "Two commands at once."},
				{RunID: c, Seq: 3, Turn: 0, TS: ts("2026-01-01T00:00:06"), Kind: schema.KindAssistant, Role: "assistant", Line: 6, Text: "Running both."},
				{RunID: c, Seq: 4, Turn: 0, TS: ts("2026-01-01T00:00:06"), Kind: schema.KindToolCall, Role: "assistant", ToolName: "terminal", CallID: "tc-1",
					Target: "ls", Args: `{"command":"ls","security_risk":"LOW"}`, Line: 6, Text: `terminal {"command":"ls","security_risk":"LOW"}`},
				{RunID: c, Seq: 5, Turn: 0, TS: ts("2026-01-01T00:00:07"), Kind: schema.KindToolCall, Role: "assistant", ToolName: "file_editor", CallID: "tc-2",
					Target: "/repo/x.py", Args: `{"command":"view","path":"/repo/x.py"}`, Line: 7, Text: `file_editor {"command":"view","path":"/repo/x.py"}`},
				{RunID: c, Seq: 6, Turn: 1, TS: ts("2026-01-01T00:00:08"), Kind: schema.KindToolResult, Role: "tool", ToolName: "terminal", CallID: "tc-1", ToolKey: "tc-1",
					Target: "ls", ExitCode: ohI64(0), Line: 8, Text: "x.py"},
				{RunID: c, Seq: 7, Turn: 1, TS: ts("2026-01-01T00:00:09"), Kind: schema.KindToolResult, Role: "tool", ToolName: "file_editor", CallID: "tc-2", ToolKey: "tc-2",
					Target: "/repo/x.py", IsError: true, Line: 9, Text: "File not found: /repo/x.py"},
				// the text's <think> block repeats reasoning_content and is dropped
				{RunID: c, Seq: 8, Turn: 1, TS: ts("2026-01-01T00:00:11"), Kind: schema.KindReasoning, Role: "assistant", Line: 11, Text: "Retry."},
				{RunID: c, Seq: 9, Turn: 1, TS: ts("2026-01-01T00:00:11"), Kind: schema.KindAssistant, Role: "assistant", Line: 11, Text: "Trying again."},
				{RunID: c, Seq: 10, Turn: 1, TS: ts("2026-01-01T00:00:11"), Kind: schema.KindToolCall, Role: "assistant", ToolName: "terminal", CallID: "tc-3",
					Target: "rm -rf /", Args: `{"command":"rm -rf /"}`, Line: 11, Text: `terminal {"command":"rm -rf /"}`},
				{RunID: c, Seq: 11, Turn: 2, TS: ts("2026-01-01T00:00:12"), Kind: schema.KindToolResult, Role: "tool", ToolName: "terminal", CallID: "tc-3", ToolKey: "tc-3",
					Target: "rm -rf /", IsError: true, Line: 12, Text: "Action rejected: too dangerous"},
				// turn 2 is the condenser's call (stats line 13)
				{RunID: c, Seq: 12, Turn: 3, TS: ts("2026-01-01T00:00:14"), Kind: schema.KindCompaction, Role: "system", Line: 14, Text: "Listed files; x.py missing."},
				{RunID: c, Seq: 13, Turn: 3, TS: ts("2026-01-01T00:00:15"), Kind: schema.KindContextOp, Role: "system", Line: 15, Text: "condensation requested (context_limit)"},
				{RunID: c, Seq: 14, Turn: 3, TS: ts("2026-01-01T00:00:16"), Kind: schema.KindContextOp, Role: "system", Line: 16, Text: "condensation: forgot 2 events (a11…r12)"},
				{RunID: c, Seq: 15, Turn: 3, TS: ts("2026-01-01T00:00:18"), Kind: schema.KindAssistant, Role: "assistant", Line: 18, Text: "All tests pass."},
			},
			// each increase of the cumulative stats, given to the call whose output follows
			usage: []schema.Usage{
				{RunID: c, Turn: 0, TS: ts("2026-01-01T00:00:05"), Model: "anthropic/claude-sonnet-4-5", RequestID: "resp-1", InputTokens: 1000, OutputTokens: 100, CacheWriteTokens: 800, ReasoningTokens: 30},
				{RunID: c, Turn: 1, TS: ts("2026-01-01T00:00:10"), Model: "anthropic/claude-sonnet-4-5", RequestID: "resp-2", InputTokens: 1500, OutputTokens: 50, CacheReadTokens: 900},
				{RunID: c, Turn: 2, TS: ts("2026-01-01T00:00:13"), Model: "anthropic/claude-haiku-4-5", InputTokens: 3000, OutputTokens: 200},
				{RunID: c, Turn: 3, TS: ts("2026-01-01T00:00:17"), Model: "anthropic/claude-sonnet-4-5", RequestID: "resp-3", InputTokens: 1600, OutputTokens: 40, CacheReadTokens: 1000, ReasoningTokens: 10},
			},
			outputs: []schema.ToolOutput{
				{RunID: c, ToolKey: "tc-1", CallID: "tc-1", ToolName: "terminal", Target: "ls", Turn: 1, Seq: 6},
				{RunID: c, ToolKey: "tc-2", CallID: "tc-2", ToolName: "file_editor", Target: "/repo/x.py", Turn: 1, Seq: 7, IsError: true},
				{RunID: c, ToolKey: "tc-3", CallID: "tc-3", ToolName: "terminal", Target: "rm -rf /", Turn: 2, Seq: 11, IsError: true},
			},
			// tokens_before: the prompt of the last measured agent call (line 10)
			ops: []schema.ContextOp{
				{RunID: c, Seq: 12, Turn: 3, Op: schema.OpSummary, TokensBefore: ohI64(1500), Trigger: "auto", Detail: "forgot 4 events (a6…e9)"},
				{RunID: c, Seq: 14, Turn: 3, Op: schema.OpTruncation, TokensBefore: ohI64(1500), Trigger: "context_limit", Detail: "forgot 2 events (a11…r12)"},
			},
		},
	}, {
		file: "errors.jsonl",
		want: ohWant{
			runs: []schema.Run{{
				RunID: e, Harness: "openhands-sdk", Model: "gpt-5", ModelFamily: "gpt-5",
				StartedAt: ts("2026-01-02T00:00:01"), EndedAt: ts("2026-01-02T00:00:07"),
				EndReason: schema.EndContextOverflow, EndReasonSource: schema.SourceExplicit,
				EndReasonDetail: "LLMContextWindowExceedError: Conversation history longer than LLM context window limit.",
				NTurns:          1, InputTokens: 10, OutputTokens: 5, UsageCalls: 1,
			}},
			events: []schema.Event{
				{RunID: e, Seq: 0, Turn: 0, TS: ts("2026-01-02T00:00:01"), Kind: schema.KindUser, Role: "user", Line: 6, Text: "Go."},
				{RunID: e, Seq: 1, Turn: 0, TS: ts("2026-01-02T00:00:03"), Kind: schema.KindToolCall, Role: "assistant", ToolName: "terminal", CallID: "tc-9",
					Target: "make", Args: `{"command":"make"}`, Line: 8, Text: `terminal {"command":"make"}`},
				{RunID: e, Seq: 2, Turn: 1, TS: ts("2026-01-02T00:00:04"), Kind: schema.KindToolResult, Role: "tool", ToolName: "terminal", CallID: "tc-9", ToolKey: "tc-9",
					Target: "make", ExitCode: ohI64(2), IsError: true, Line: 9, Text: "make: *** no rule"},
				{RunID: e, Seq: 3, Turn: 1, TS: ts("2026-01-02T00:00:06"), Kind: schema.KindError, Role: "system", IsError: true, Line: 11,
					Text: "LLMContextWindowExceedError: Conversation history longer than LLM context window limit."},
			},
			usage: []schema.Usage{{RunID: e, Turn: 0, TS: ts("2026-01-02T00:00:02"), Model: "gpt-5", InputTokens: 10, OutputTokens: 5}},
			outputs: []schema.ToolOutput{
				{RunID: e, ToolKey: "tc-9", CallID: "tc-9", ToolName: "terminal", Target: "make", Turn: 1, Seq: 2, IsError: true},
			},
			rejects: []ohReject{
				{1, "record is not a JSON object"}, {2, "invalid JSON"}, {3, "record without kind"},
				{4, "invalid ActionEvent"}, {5, "MessageEvent without llm_message"}, {10, "invalid stats"},
			},
		},
	}}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", ohsFormat, tc.file)
			ohCompare(t, ohsFormat, path, ohParse(t, ohsFormat, path), tc.want)
		})
	}
}

// ohsLine is one SDK event line of the given kind with extra fields.
func ohsLine(kind, fields string) string {
	return `{"id":"x","timestamp":"2026-01-01T00:00:00","source":"environment"` + fields + `,"kind":"` + kind + `"}` + "\n"
}

func TestOpenHandsSDKEnd(t *testing.T) {
	status := func(s string) string {
		return ohsLine("ConversationStateUpdateEvent", `,"key":"execution_status","value":"`+s+`"`)
	}
	user := `{"id":"u","source":"user","llm_message":{"role":"user","content":[{"type":"text","text":"more"}]},"kind":"MessageEvent"}` + "\n"
	tests := []struct {
		name   string
		data   string
		reason schema.EndReason
		detail string
	}{
		{"running", status("running"), schema.EndUnknown, ""},
		{"finished", status("running") + status("finished"), schema.EndFinished, "execution_status finished"},
		{"finished, then the user goes on", status("finished") + user, schema.EndUnknown, ""},
		{"finished, then running again", status("finished") + status("running"), schema.EndUnknown, ""},
		{"stuck", status("stuck"), schema.EndError, "execution_status stuck"},
		{"paused", status("paused"), schema.EndInterrupted, "execution_status paused"},
		{"pause event", ohsLine("PauseEvent", ""), schema.EndInterrupted, "paused"},
		{"finish tool", ohsLine("ActionEvent", `,"tool_name":"finish","tool_call_id":"f","tool_call":{"name":"finish","arguments":"{\"message\": \"ok\"}"},"llm_response_id":"r"`),
			schema.EndFinished, "finish"},
		{"finish tool, then finished", ohsLine("ActionEvent", `,"tool_name":"finish","tool_call_id":"f","llm_response_id":"r"`) + status("finished"),
			schema.EndFinished, "finish"},
		{"error stays over finished", ohsLine("ConversationErrorEvent", `,"code":"RuntimeError","detail":"boom"`) + status("error"), schema.EndError, "RuntimeError: boom"},
		{"iteration limit", ohsLine("ConversationIterationLimitEvent", `,"iteration":50,"max_iterations":50,"detail":"Reached 50 iterations"`) + status("finished"),
			schema.EndFinished, "execution_status finished"},
		{"iteration limit last", status("running") + ohsLine("ConversationIterationLimitEvent", `,"iteration":50,"max_iterations":50,"detail":"Reached 50 iterations"`),
			schema.EndStepLimit, "Reached 50 iterations"},
		{"agent error about the window", ohsLine("AgentErrorEvent", `,"tool_name":"t","tool_call_id":"c","error":"ContextWindowExceededError"`),
			schema.EndContextOverflow, "ContextWindowExceededError"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sink, err := ingest.Parse(context.Background(), ohsFormat, "events.jsonl", []byte(tc.data), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(sink.Runs) != 1 || len(sink.Rejects) != 0 {
				t.Fatalf("got %d runs, %d rejects; want 1, 0", len(sink.Runs), len(sink.Rejects))
			}
			r := sink.Runs[0]
			source := schema.SourceExplicit
			if tc.reason == schema.EndUnknown {
				source = schema.SourceInferred
			}
			got := []string{string(r.EndReason), string(r.EndReasonSource), r.EndReasonDetail}
			want := []string{string(tc.reason), string(source), tc.detail}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("end (-want +got):\n%s", diff)
			}
		})
	}
}

// TestOpenHandsSDKRunID checks where the run id comes from: a full_state
// snapshot's conversation id, else the file name, or for events.jsonl the
// directory (the SDK's <conversation id>/ folder).
func TestOpenHandsSDKRunID(t *testing.T) {
	status := ohsLine("ConversationStateUpdateEvent", `,"key":"execution_status","value":"running"`)
	full := ohsLine("ConversationStateUpdateEvent", `,"key":"full_state","value":{"id":"c0ffee","execution_status":"idle"}`)
	tests := []struct{ name, path, data, want string }{
		{"full_state", "x/events.jsonl", full + status, "c0ffee"},
		{"events.jsonl", "conversations/5e1f/events.jsonl", status, "5e1f"},
		{"named file", "logs/run-7.jsonl", status, "run-7"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sink, err := ingest.Parse(context.Background(), ohsFormat, tc.path, []byte(tc.data), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(sink.Runs) != 1 || sink.Runs[0].RunID != tc.want {
				t.Errorf("runs %+v, want one with id %q", sink.Runs, tc.want)
			}
		})
	}
}

func TestOpenHandsSDKDetect(t *testing.T) {
	im, err := ingest.Lookup(ohsFormat)
	if err != nil {
		t.Fatal(err)
	}
	system := `{"id":"3f1","timestamp":"2026-01-01T00:00:00","source":"agent","system_prompt":{"type":"text","text":"You are OpenHands agent."},"tools":[` +
		strings.Repeat(`{"name":"terminal","description":"run"},`, 3000) + `{}],"kind":"SystemPromptEvent"}`
	tests := []struct {
		name string
		head string
		want bool
	}{
		{"state update", ohsLine("ConversationStateUpdateEvent", `,"key":"stats","value":{}`), true},
		{"blank lines, then an action", "\n\n" + `{"id":"a","source":"agent","action":{"command":"ls","kind":"TerminalAction"},"tool_call_id":"c","kind":"ActionEvent"}`, true},
		{"system prompt cut off by the head", system[:ingest.HeadSize], true},
		{"unknown kind", `{"id":"a","source":"agent","kind":"SomethingElse"}`, false},
		{"kind without id", `{"source":"agent","kind":"ActionEvent"}`, false},
		{"V0 event", `{"id":1,"timestamp":"t","source":"agent","action":"run","args":{},"tool_call_id":"c"}`, false},
		{"chat message", `{"id":"m","role":"user","content":"hi","llm_response_id":"r"}`, false},
		{"codex rollout", `{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}`, false},
		{"list", `[{"id":"a","kind":"ActionEvent"}]`, false},
		{"empty", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := im.Detect("events.jsonl", []byte(tc.head)); got != tc.want {
				t.Errorf("Detect = %v, want %v", got, tc.want)
			}
		})
	}
	files, _ := filepath.Glob(filepath.Join("testdata", ohsFormat, "*.jsonl"))
	for _, p := range files {
		if strings.HasSuffix(p, "errors.jsonl") {
			continue // its first line is not JSON
		}
		if got := detected(t, p); got != ohsFormat {
			t.Errorf("%s detected as %q, want %s", p, got, ohsFormat)
		}
	}
}

// ohsScanResult is what a plain scan of an events.jsonl expects of its import.
type ohsScanResult struct {
	actions, observations int
	usage                 int   // stats updates where the agent's cumulative counts grew
	prompt, completion    int64 // the agent's last cumulative counts
}

func ohsScan(t *testing.T, data []byte) ohsScanResult {
	t.Helper()
	var res ohsScanResult
	var lastTotal int64 = -1
	for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var ev struct {
			Kind  string `json:"kind"`
			Key   string `json:"key"`
			Value struct {
				UsageToMetrics map[string]struct {
					Acc struct {
						Prompt     int64 `json:"prompt_tokens"`
						Completion int64 `json:"completion_tokens"`
					} `json:"accumulated_token_usage"`
				} `json:"usage_to_metrics"`
			} `json:"value"`
		}
		if err := json.Unmarshal(l, &ev); err != nil && !strings.Contains(err.Error(), "cannot unmarshal string") {
			t.Fatalf("corpus line: %v", err)
		}
		switch {
		case ev.Kind == "ActionEvent":
			res.actions++
		case ev.Kind == "ObservationEvent":
			res.observations++
		case ev.Kind == "ConversationStateUpdateEvent" && ev.Key == "stats":
			acc := ev.Value.UsageToMetrics["default"].Acc
			if total := acc.Prompt + acc.Completion; total != lastTotal {
				lastTotal = total
				res.usage++
				res.prompt, res.completion = acc.Prompt, acc.Completion
			}
		}
	}
	return res
}

func TestOpenHandsSDKCorpus(t *testing.T) {
	dir := testutil.Corpus(t, ohsFormat)
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no event logs in %s: %v", dir, err)
	}
	for _, p := range files {
		t.Run(filepath.Base(p), func(t *testing.T) {
			if got := detected(t, p); got != ohsFormat {
				t.Errorf("detected as %q, want %s", got, ohsFormat)
			}
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			sink, err := ingest.Parse(context.Background(), ohsFormat, p, data, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(sink.Runs) != 1 || len(sink.Rejects) != 0 {
				t.Fatalf("got %d runs and %d rejects, want 1 and 0", len(sink.Runs), len(sink.Rejects))
			}
			ohFuzzCheck(t, sink) // records valid, turns in range
			want := ohsScan(t, data)
			run := sink.Runs[0]
			var calls, results int
			for _, e := range sink.Events {
				switch e.Kind {
				case schema.KindToolCall:
					calls++
				case schema.KindToolResult:
					results++
				}
			}
			got := []int64{int64(calls), int64(results), int64(len(sink.Usage)), run.UsageCalls, run.InputTokens, run.OutputTokens}
			exp := []int64{int64(want.actions), int64(want.observations), int64(want.usage), int64(want.usage), want.prompt, want.completion}
			if diff := cmp.Diff(exp, got); diff != "" {
				t.Errorf("(tool calls, tool results, usage rows, usage_calls, input, output) (-scan +import):\n%s", diff)
			}
			if run.NTurns < int64(want.usage) {
				t.Errorf("%d turns for %d measured calls", run.NTurns, want.usage)
			}
		})
	}
}

// TestOpenHandsSDKOddEvents feeds events with unexpected types and values:
// none may fail the import or yield an invalid record.
func TestOpenHandsSDKOddEvents(t *testing.T) {
	stats := func(prompt, completion string) string {
		return ohsLine("ConversationStateUpdateEvent", `,"key":"stats","value":{"usage_to_metrics":{"default":{"accumulated_token_usage":{"prompt_tokens":`+
			prompt+`,"completion_tokens":`+completion+`,"cache_read_tokens":50}},"helper":null,"x":{"accumulated_cost":1e300}}}`)
	}
	lines := []string{
		stats("10", "1"),
		stats("5", "1"), // went back: restarts
		stats("1e300", "-1"),
		ohsLine("ConversationStateUpdateEvent", `,"key":"full_state","value":{"id":{"a":1},"stats":"x","agent":{"llm":{"model":5}}}`),
		ohsLine("ConversationStateUpdateEvent", `,"key":"full_state","value":[1]`),
		ohsLine("ConversationStateUpdateEvent", `,"key":"execution_status","value":5`),
		ohsLine("ActionEvent", `,"thought":"plain","reasoning_content":5,"thinking_blocks":"x","tool_call":null,"action":[1],"llm_response_id":5`),
		ohsLine("ActionEvent", `,"thought":[{"text":"<think>a</think>"}],"reasoning_content":"b","tool_call_id":"c","llm_response_id":"r"`),
		ohsLine("ObservationEvent", `,"tool_call_id":"c","observation":{"content":"text","exit_code":-1,"metadata":{"exit_code":7}}`),
		ohsLine("ObservationEvent", `,"tool_call_id":"zz","observation":[1]`),
		ohsLine("MessageEvent", `,"source":"agent","llm_message":{"role":"assistant","content":null,"thinking_blocks":[{"thinking":"t"}]}`),
		ohsLine("Condensation", `,"forgotten_event_ids":[{"a":1}],"summary":5`),
		ohsLine("CondensationRequest", `,"reason":{"x":1}`),
		ohsLine("CondensationSummaryEvent", `,"summary":"s"`),
		ohsLine("AgentErrorEvent", `,"error":"boom"`),
		ohsLine("ConversationErrorEvent", ``),
		ohsLine("ConversationIterationLimitEvent", ``),
		ohsLine("UserRejectObservation", `,"tool_call_id":"c"`),
		ohsLine("SystemPromptEvent", `,"system_prompt":"plain","dynamic_context":[1,2]`),
	}
	for i := range lines {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			for _, data := range []string{lines[i], strings.Join(lines[:i+1], "")} {
				sink, err := ingest.Parse(context.Background(), ohsFormat, "events.jsonl", []byte(data), nil)
				if err != nil {
					t.Fatal(err)
				}
				ohFuzzCheck(t, sink)
			}
		})
	}
}
