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
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/schema"
)

// The fixtures in testdata/openhands are hand-written, one topic each:
//
//	eval.jsonl    evaluation output: parallel tool calls of one response with
//	              reasoning and usage, an action measured only by llm_metrics,
//	              recall, condensations (summary, request + range), a context
//	              window error, usage from metrics.token_usages, finish,
//	              rejected history events and rejected lines.
//	legacy.jsonl  resolver output (flat args-only history without ids: linked
//	              by position) and [action, observation] pairs with a budget error.
//	trajs.json    a bare event list (tests/runtime/trajs): agent messages,
//	              exit code -1, finish then the user goes on, user_rejected,
//	              agent_state stopped.
//	broken.json   a whole-file document with a syntax error on line 3.

func ohTS(t *testing.T, s string) *time.Time {
	t.Helper()
	ts, err := time.Parse("2006-01-02T15:04:05.999999999", s)
	if err != nil {
		t.Fatal(err)
	}
	return &ts
}

func ohI64(v int64) *int64 { return &v }

func ohF64(v float64) *float64 { return &v }

func ohBool(v bool) *bool { return &v }

func ohParse(t *testing.T, format, path string) *ingest.MemSink {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sink, err := ingest.Parse(context.Background(), format, path, data, nil)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return sink
}

// ohReject is a reject without its raw text, and with the reason cut before
// any decoder message.
type ohReject struct {
	Line   int64
	Reason string
}

func ohRejects(rs []schema.Reject) []ohReject {
	var out []ohReject
	for _, r := range rs {
		reason := r.Reason
		if i := strings.Index(reason, ": "); i >= 0 && !strings.HasPrefix(reason, "history[") {
			reason = reason[:i]
		}
		out = append(out, ohReject{r.Line, reason})
	}
	return out
}

// ohWant is what one fixture file imports to.
type ohWant struct {
	runs    []schema.Run
	events  []schema.Event
	usage   []schema.Usage
	outputs []schema.ToolOutput
	ops     []schema.ContextOp
	rejects []ohReject
}

// ohCompare checks a sink against want; source fields and token estimates
// are not compared.
func ohCompare(t *testing.T, format, path string, sink *ingest.MemSink, want ohWant) {
	t.Helper()
	for i := range want.runs {
		want.runs[i].SourceFormat, want.runs[i].SourcePath = format, path
	}
	opts := cmp.Options{
		cmpopts.IgnoreFields(schema.Run{}, "SourceSHA256", "EstTokens", "Estimator", "ClassifiedBy", "SystemMentionsManageContext"), // the last two: TestBuilderDerives
		cmpopts.IgnoreFields(schema.Event{}, "Chars", "EstTokens", "ActionClass"),
		cmpopts.IgnoreFields(schema.ToolOutput{}, "Chars", "EstTokens"),
		cmpopts.EquateEmpty(),
	}
	if diff := cmp.Diff(want.runs, sink.Runs, opts); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want.events, sink.Events, opts); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want.usage, sink.Usage, opts); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want.outputs, sink.ToolOutputs, opts); diff != "" {
		t.Errorf("tool_outputs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want.ops, sink.ContextOps, opts); diff != "" {
		t.Errorf("context_ops (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want.rejects, ohRejects(sink.Rejects), opts); diff != "" {
		t.Errorf("rejects (-want +got):\n%s", diff)
	}
}

func TestOpenHandsFixtures(t *testing.T) {
	const (
		a = "astropy-1"
		d = "django-2"
	)
	ts := func(s string) *time.Time { return ohTS(t, s) }
	editArgs := `{"command":"str_replace","new_str":"b","old_str":"a","path":"/repo/a.py"}`
	tests := []struct {
		file string
		want ohWant
	}{{
		file: "eval.jsonl",
		want: ohWant{
			runs: []schema.Run{{
				RunID: a, Harness: "openhands", Model: "claude-sonnet-4-20250514", ModelFamily: "claude-sonnet-4", TaskID: a,
				Resolved: ohBool(false), WindowTokens: ohI64(200000),
				StartedAt: ts("2025-05-01T10:00:00"), EndedAt: ts("2025-05-01T10:00:14"),
				EndReason: schema.EndContextOverflow, EndReasonSource: schema.SourceExplicit, EndReasonDetail: "ContextWindowExceededError: prompt is too long",
				NTurns: 2, InputTokens: 2300, OutputTokens: 130, CacheReadTokens: 1100, ReasoningTokens: 20, UsageCalls: 2, CostUSD: ohF64(0.5),
			}, {
				// usage from metrics.token_usages by response id; the model as the responses name it
				RunID: d, Harness: "openhands", Model: "llama-4", ModelFamily: "llama-4", TaskID: d, Resolved: ohBool(true),
				StartedAt: ts("2025-05-02T09:00:00"), EndedAt: ts("2025-05-02T09:00:05"),
				EndReason: schema.EndFinished, EndReasonSource: schema.SourceExplicit, EndReasonDetail: "finish",
				NTurns: 2, InputTokens: 1200, OutputTokens: 30, UsageCalls: 2,
			}},
			events: []schema.Event{
				{RunID: a, Seq: 0, Turn: 0, TS: ts("2025-05-01T10:00:00"), Kind: schema.KindSystem, Role: "system", Line: 1, Text: "You are OpenHands agent."},
				{RunID: a, Seq: 1, Turn: 0, TS: ts("2025-05-01T10:00:01"), Kind: schema.KindUser, Role: "user", Line: 1, Text: "Fix the bug."},
				// the recall action is bookkeeping; its observation adds instructions and knowledge
				{RunID: a, Seq: 2, Turn: 0, TS: ts("2025-05-01T10:00:03"), Kind: schema.KindUser, Role: "user", Line: 1, Text: "Run tests with pytest.\n\nUse git carefully."},
				// one response, two tool calls: one model call
				{RunID: a, Seq: 3, Turn: 0, TS: ts("2025-05-01T10:00:04"), Kind: schema.KindReasoning, Role: "assistant", Line: 1, Text: "I should look around."},
				{RunID: a, Seq: 4, Turn: 0, TS: ts("2025-05-01T10:00:04"), Kind: schema.KindAssistant, Role: "assistant", Line: 1, Text: "Let me look."},
				{RunID: a, Seq: 5, Turn: 0, TS: ts("2025-05-01T10:00:04"), Kind: schema.KindToolCall, Role: "assistant", ToolName: "execute_bash", CallID: "call_a",
					Target: "ls", Args: `{"command":"ls"}`, Line: 1, Text: `execute_bash {"command":"ls"}`},
				{RunID: a, Seq: 6, Turn: 0, TS: ts("2025-05-01T10:00:04"), Kind: schema.KindToolCall, Role: "assistant", ToolName: "str_replace_editor", CallID: "call_b",
					Target: "/repo/a.py", Args: `{"command":"view","path":"/repo/a.py"}`, Line: 1, Text: `str_replace_editor {"command":"view","path":"/repo/a.py"}`},
				{RunID: a, Seq: 7, Turn: 1, TS: ts("2025-05-01T10:00:05"), Kind: schema.KindToolResult, Role: "tool", ToolName: "execute_bash", CallID: "call_a", ToolKey: "call_a",
					Target: "ls", ExitCode: ohI64(0), Line: 1, Text: "a.py\nb.py\n[The command completed with exit code 0.]"},
				{RunID: a, Seq: 8, Turn: 1, TS: ts("2025-05-01T10:00:06"), Kind: schema.KindToolResult, Role: "tool", ToolName: "str_replace_editor", CallID: "call_b", ToolKey: "call_b",
					Target: "/repo/a.py", Line: 1, Text: "1\tprint('a')"},
				// no tool_call_metadata: args.thought is the text, the action id the call id
				{RunID: a, Seq: 9, Turn: 1, TS: ts("2025-05-01T10:00:08"), Kind: schema.KindAssistant, Role: "assistant", Line: 1, Text: "Now fix it."},
				{RunID: a, Seq: 10, Turn: 1, TS: ts("2025-05-01T10:00:08"), Kind: schema.KindToolCall, Role: "assistant", ToolName: "edit", CallID: "8",
					Target: "/repo/a.py", Args: editArgs, Line: 1, Text: "edit " + editArgs},
				{RunID: a, Seq: 11, Turn: 2, TS: ts("2025-05-01T10:00:09"), Kind: schema.KindToolResult, Role: "tool", ToolName: "edit", CallID: "8", ToolKey: "8",
					Target: "/repo/a.py", Line: 1, Text: "The file /repo/a.py has been edited."},
				{RunID: a, Seq: 12, Turn: 2, TS: ts("2025-05-01T10:00:10"), Kind: schema.KindCompaction, Role: "system", Line: 1, Text: "Looked at a.py."},
				{RunID: a, Seq: 13, Turn: 2, TS: ts("2025-05-01T10:00:11"), Kind: schema.KindContextOp, Role: "system", Line: 1, Text: "condensation requested"},
				{RunID: a, Seq: 14, Turn: 2, TS: ts("2025-05-01T10:00:12"), Kind: schema.KindContextOp, Role: "system", Line: 1, Text: "condensation: forgot 2 events (ids 8…9)"},
				{RunID: a, Seq: 15, Turn: 2, TS: ts("2025-05-01T10:00:13"), Kind: schema.KindError, Role: "user", IsError: true, Line: 1,
					Text: "LLMContextWindowExceedError: Conversation history longer than LLM context window limit."},
				{RunID: d, Seq: 0, Turn: 0, TS: ts("2025-05-02T09:00:00"), Kind: schema.KindUser, Role: "user", Line: 2, Text: "Add a test."},
				{RunID: d, Seq: 1, Turn: 0, TS: ts("2025-05-02T09:00:02"), Kind: schema.KindAssistant, Role: "assistant", Line: 2, Text: "Running tests."},
				{RunID: d, Seq: 2, Turn: 0, TS: ts("2025-05-02T09:00:02"), Kind: schema.KindToolCall, Role: "assistant", ToolName: "execute_bash", CallID: "toolu_1",
					Target: "pytest -x", Args: `{"command":"pytest -x"}`, Line: 2, Text: `execute_bash {"command":"pytest -x"}`},
				{RunID: d, Seq: 3, Turn: 1, TS: ts("2025-05-02T09:00:03"), Kind: schema.KindToolResult, Role: "tool", ToolName: "execute_bash", CallID: "toolu_1", ToolKey: "toolu_1",
					Target: "pytest -x", ExitCode: ohI64(1), IsError: true, Line: 2, Text: "1 failed"},
				// the model's finish arguments, not OpenHands' args
				{RunID: d, Seq: 4, Turn: 1, TS: ts("2025-05-02T09:00:04"), Kind: schema.KindToolCall, Role: "assistant", ToolName: "finish", CallID: "toolu_2",
					Args: `{"message":"done"}`, Line: 2, Text: `finish {"message":"done"}`},
			},
			usage: []schema.Usage{
				{RunID: a, Turn: 0, TS: ts("2025-05-01T10:00:04"), Model: "claude-sonnet-4-20250514", RequestID: "resp-1", InputTokens: 1000, OutputTokens: 50, CacheReadTokens: 200, ReasoningTokens: 20},
				// the increase of llm_metrics.accumulated_token_usage since the previous action
				{RunID: a, Turn: 1, TS: ts("2025-05-01T10:00:08"), Model: "claude-sonnet-4-20250514", InputTokens: 1300, OutputTokens: 80, CacheReadTokens: 900},
				{RunID: d, Turn: 0, TS: ts("2025-05-02T09:00:02"), Model: "llama-4", RequestID: "gen-1", InputTokens: 500, OutputTokens: 20},
				{RunID: d, Turn: 1, TS: ts("2025-05-02T09:00:04"), Model: "llama-4", RequestID: "gen-2", InputTokens: 700, OutputTokens: 10},
			},
			outputs: []schema.ToolOutput{
				{RunID: a, ToolKey: "call_a", CallID: "call_a", ToolName: "execute_bash", Target: "ls", Turn: 1, Seq: 7},
				{RunID: a, ToolKey: "call_b", CallID: "call_b", ToolName: "str_replace_editor", Target: "/repo/a.py", Turn: 1, Seq: 8},
				{RunID: a, ToolKey: "8", CallID: "8", ToolName: "edit", Target: "/repo/a.py", Turn: 2, Seq: 11},
				{RunID: d, ToolKey: "toolu_1", CallID: "toolu_1", ToolName: "execute_bash", Target: "pytest -x", Turn: 1, Seq: 3, IsError: true},
			},
			ops: []schema.ContextOp{
				{RunID: a, Seq: 12, Turn: 2, Op: schema.OpSummary, TokensBefore: ohI64(1300), Trigger: "auto", Detail: "forgot 4 events (ids 4…7)"},
				{RunID: a, Seq: 14, Turn: 2, Op: schema.OpTruncation, TokensBefore: ohI64(1300), Trigger: "request", Detail: "forgot 2 events (ids 8…9)"},
			},
			rejects: []ohReject{
				{2, "history[1]: event is not a JSON object"}, {2, "history[2]: event without action or observation"},
				{3, "invalid JSON"}, {4, `record without a "history" array`}, {6, "record is not a JSON object"},
			},
		},
	}, {
		file: "legacy.jsonl",
		want: ohWant{
			runs: []schema.Run{{
				// resolver output: no ids, timestamps or tokens; only costs
				RunID: "acme/app#7", Harness: "openhands", ModelFamily: "unknown", TaskID: "acme/app#7", Resolved: ohBool(false),
				EndReason: schema.EndFinished, EndReasonSource: schema.SourceExplicit, EndReasonDetail: "finish",
				NTurns: 3, UsageEstimated: true, CostUSD: ohF64(0.03),
			}, {
				RunID: "pairs-1", Harness: "openhands", ModelFamily: "unknown", TaskID: "pairs-1",
				StartedAt: ts("2024-06-01T12:00:00"), EndedAt: ts("2024-06-01T12:00:03"),
				EndReason: schema.EndCostLimit, EndReasonSource: schema.SourceExplicit,
				EndReasonDetail: "RuntimeError: Agent reached maximum budget for conversation.Current budget: 1.00, max budget: 1.00",
				NTurns:          1, UsageEstimated: true, CostUSD: ohF64(1),
			}},
			events: []schema.Event{
				{RunID: "acme/app#7", Seq: 0, Turn: 0, Kind: schema.KindUser, Role: "user", Line: 1, Text: "Please fix the issue."},
				{RunID: "acme/app#7", Seq: 1, Turn: 0, Kind: schema.KindAssistant, Role: "assistant", Line: 1, Text: "Run the tests first."},
				{RunID: "acme/app#7", Seq: 2, Turn: 0, Kind: schema.KindToolCall, Role: "assistant", ToolName: "run", Target: "make test",
					Args: `{"command":"make test"}`, Line: 1, Text: `run {"command":"make test"}`},
				{RunID: "acme/app#7", Seq: 3, Turn: 1, Kind: schema.KindToolResult, Role: "tool", ToolName: "run", ToolKey: "t3", Target: "make test",
					ExitCode: ohI64(2), IsError: true, Line: 1, Text: "FAIL: test_app"},
				{RunID: "acme/app#7", Seq: 4, Turn: 1, Kind: schema.KindAssistant, Role: "assistant", Line: 1, Text: "Check Python."},
				{RunID: "acme/app#7", Seq: 5, Turn: 1, Kind: schema.KindToolCall, Role: "assistant", ToolName: "run_ipython",
					Args: `{"code":"print(1)"}`, Line: 1, Text: `run_ipython {"code":"print(1)"}`},
				{RunID: "acme/app#7", Seq: 6, Turn: 2, Kind: schema.KindToolResult, Role: "tool", ToolName: "run_ipython", ToolKey: "t6", Line: 1, Text: "1"},
				{RunID: "acme/app#7", Seq: 7, Turn: 2, Kind: schema.KindAssistant, Role: "assistant", Line: 1, Text: "I could not fix it."},
				{RunID: "acme/app#7", Seq: 8, Turn: 2, Kind: schema.KindToolCall, Role: "assistant", ToolName: "finish",
					Args: `{"outputs":{}}`, Line: 1, Text: `finish {"outputs":{}}`},
				{RunID: "pairs-1", Seq: 0, Turn: 0, TS: ts("2024-06-01T12:00:00"), Kind: schema.KindUser, Role: "user", Line: 2, Text: "Say hi."},
				{RunID: "pairs-1", Seq: 1, Turn: 0, TS: ts("2024-06-01T12:00:02"), Kind: schema.KindAssistant, Role: "assistant", Line: 2, Text: "Saying hi."},
				{RunID: "pairs-1", Seq: 2, Turn: 0, TS: ts("2024-06-01T12:00:02"), Kind: schema.KindToolCall, Role: "assistant", ToolName: "run", CallID: "3",
					Target: "echo hi", Args: `{"command":"echo hi"}`, Line: 2, Text: `run {"command":"echo hi"}`},
				{RunID: "pairs-1", Seq: 3, Turn: 1, TS: ts("2024-06-01T12:00:03"), Kind: schema.KindToolResult, Role: "tool", ToolName: "run", CallID: "3", ToolKey: "3",
					Target: "echo hi", ExitCode: ohI64(0), Line: 2, Text: "hi"},
			},
			outputs: []schema.ToolOutput{
				{RunID: "acme/app#7", ToolKey: "t3", ToolName: "run", Target: "make test", Turn: 1, Seq: 3, IsError: true},
				{RunID: "acme/app#7", ToolKey: "t6", ToolName: "run_ipython", Turn: 2, Seq: 6},
				{RunID: "pairs-1", ToolKey: "3", CallID: "3", ToolName: "run", Target: "echo hi", Turn: 1, Seq: 3},
			},
		},
	}, {
		file: "trajs.json",
		want: ohWant{
			runs: []schema.Run{{
				RunID: "trajs", Harness: "openhands", Model: "gpt-4o", ModelFamily: "gpt-4o", WindowTokens: ohI64(128000),
				StartedAt: ts("2025-02-01T00:00:00"), EndedAt: ts("2025-02-01T00:00:12"),
				// finished, but the user went on; the last turn was stopped
				EndReason: schema.EndInterrupted, EndReasonSource: schema.SourceExplicit, EndReasonDetail: "agent_state stopped",
				NTurns: 4, InputTokens: 250, OutputTokens: 25, UsageCalls: 2, CostUSD: ohF64(0.03),
			}},
			events: []schema.Event{
				{RunID: "trajs", Seq: 0, Turn: 0, TS: ts("2025-02-01T00:00:00"), Kind: schema.KindUser, Role: "user", Line: 2, Text: "List files."},
				{RunID: "trajs", Seq: 1, Turn: 0, TS: ts("2025-02-01T00:00:01"), Kind: schema.KindAssistant, Role: "assistant", Line: 15, Text: "Listing."},
				{RunID: "trajs", Seq: 2, Turn: 0, TS: ts("2025-02-01T00:00:01"), Kind: schema.KindToolCall, Role: "assistant", ToolName: "run", CallID: "1",
					Target: "ls", Args: `{"command":"ls","is_input":false}`, Line: 15, Text: `run {"command":"ls","is_input":false}`},
				// exit code -1 means none
				{RunID: "trajs", Seq: 3, Turn: 1, TS: ts("2025-02-01T00:00:02"), Kind: schema.KindToolResult, Role: "tool", ToolName: "run", CallID: "1", ToolKey: "1",
					Target: "ls", Line: 42, Text: "[Below is the output of the previous command.]\na\nb"},
				{RunID: "trajs", Seq: 4, Turn: 1, TS: ts("2025-02-01T00:00:03"), Kind: schema.KindAssistant, Role: "assistant", Line: 59, Text: "Done listing. Anything else?"},
				{RunID: "trajs", Seq: 5, Turn: 2, TS: ts("2025-02-01T00:00:05"), Kind: schema.KindUser, Role: "user", Line: 82, Text: "Thanks, finish."},
				{RunID: "trajs", Seq: 6, Turn: 2, TS: ts("2025-02-01T00:00:06"), Kind: schema.KindAssistant, Role: "assistant", Line: 93, Text: "Bye."},
				{RunID: "trajs", Seq: 7, Turn: 2, TS: ts("2025-02-01T00:00:06"), Kind: schema.KindToolCall, Role: "assistant", ToolName: "finish", CallID: "6",
					Args: `{"outputs":{}}`, Line: 93, Text: `finish {"outputs":{}}`},
				{RunID: "trajs", Seq: 8, Turn: 3, TS: ts("2025-02-01T00:00:08"), Kind: schema.KindUser, Role: "user", Line: 115, Text: "Wait, delete b."},
				{RunID: "trajs", Seq: 9, Turn: 3, TS: ts("2025-02-01T00:00:10"), Kind: schema.KindToolCall, Role: "assistant", ToolName: "run", CallID: "10",
					Target: "rm b", Args: `{"command":"rm b","is_input":false}`, Line: 137, Text: `run {"command":"rm b","is_input":false}`},
				{RunID: "trajs", Seq: 10, Turn: 4, TS: ts("2025-02-01T00:00:11"), Kind: schema.KindToolResult, Role: "tool", ToolName: "run", CallID: "10", ToolKey: "10",
					Target: "rm b", IsError: true, Line: 161, Text: "Action has been rejected by the user! Reason: not now"},
			},
			usage: []schema.Usage{
				{RunID: "trajs", Turn: 0, TS: ts("2025-02-01T00:00:01"), Model: "gpt-4o", InputTokens: 100, OutputTokens: 10},
				{RunID: "trajs", Turn: 3, TS: ts("2025-02-01T00:00:10"), Model: "gpt-4o", InputTokens: 150, OutputTokens: 15},
			},
			outputs: []schema.ToolOutput{
				{RunID: "trajs", ToolKey: "1", CallID: "1", ToolName: "run", Target: "ls", Turn: 1, Seq: 3},
				{RunID: "trajs", ToolKey: "10", CallID: "10", ToolName: "run", Target: "rm b", Turn: 4, Seq: 10, IsError: true},
			},
		},
	}, {
		file: "broken.json",
		want: ohWant{rejects: []ohReject{{3, "invalid JSON"}}},
	}}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", "openhands", tc.file)
			ohCompare(t, "openhands", path, ohParse(t, "openhands", path), tc.want)
		})
	}
}

// ohEvalLine is one eval output line with the given history and extra fields.
func ohEvalLine(history string, extra string) []byte {
	return []byte(`{"instance_id":"i-1"` + extra + `,"history":` + history + "}\n")
}

func TestOpenHandsEnd(t *testing.T) {
	const (
		user   = `{"id":1,"source":"user","action":"message","args":{"content":"go"}}`
		finish = `{"id":2,"source":"agent","action":"finish","args":{"thought":"done"}}`
	)
	state := func(s, reason string) string {
		return `{"id":9,"source":"environment","observation":"agent_state_changed","content":"","extras":{"agent_state":"` + s + `","reason":"` + reason + `"}}`
	}
	tests := []struct {
		name   string
		data   []byte
		reason schema.EndReason
		source schema.ReasonSource
		detail string
	}{
		{"no end", ohEvalLine("["+user+"]", ""), schema.EndUnknown, schema.SourceInferred, ""},
		{"finish", ohEvalLine("["+user+","+finish+"]", ""), schema.EndFinished, schema.SourceExplicit, "finish"},
		{"finished state", ohEvalLine("["+user+","+state("finished", "")+"]", ""), schema.EndFinished, schema.SourceExplicit, "agent_state finished"},
		{"finish, then the user goes on", ohEvalLine("["+finish+","+user+"]", ""), schema.EndUnknown, schema.SourceInferred, ""},
		{"error state", ohEvalLine("["+user+","+state("error", "RuntimeError: boom")+"]", ""), schema.EndError, schema.SourceExplicit, "RuntimeError: boom"},
		{"paused", ohEvalLine("["+user+","+state("paused", "")+"]", ""), schema.EndInterrupted, schema.SourceExplicit, "agent_state paused"},
		{"iteration limit", ohEvalLine("["+user+"]", `,"error":"RuntimeError: Agent reached maximum iteration in headless mode. Current iteration: 50, max iteration: 50"`),
			schema.EndStepLimit, schema.SourceExplicit, "RuntimeError: Agent reached maximum iteration in headless mode. Current iteration: 50, max iteration: 50"},
		{"stuck", ohEvalLine("["+user+"]", `,"error":"AgentStuckInLoopError: Agent got stuck in a loop"`),
			schema.EndError, schema.SourceExplicit, "AgentStuckInLoopError: Agent got stuck in a loop"},
		{"eval error overrides finish", ohEvalLine("["+finish+"]", `,"error":"litellm.ContextWindowExceededError: too long"`),
			schema.EndContextOverflow, schema.SourceExplicit, "litellm.ContextWindowExceededError: too long"},
		{"overflow stays after the user", ohEvalLine(`[{"id":3,"source":"agent","observation":"error","content":"ContextWindowExceededError","extras":{}},`+user+"]", ""),
			schema.EndContextOverflow, schema.SourceExplicit, "ContextWindowExceededError"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sink, err := ingest.Parse(context.Background(), "openhands", "output.jsonl", tc.data, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(sink.Runs) != 1 || len(sink.Rejects) != 0 {
				t.Fatalf("got %d runs, %d rejects; want 1, 0", len(sink.Runs), len(sink.Rejects))
			}
			r := sink.Runs[0]
			got := []string{string(r.EndReason), string(r.EndReasonSource), r.EndReasonDetail}
			want := []string{string(tc.reason), string(tc.source), tc.detail}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("end (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOpenHandsDetect(t *testing.T) {
	im, err := ingest.Lookup("openhands")
	if err != nil {
		t.Fatal(err)
	}
	longKey := `{"instance_id":"x","instruction":"` + strings.Repeat("long ", 20000) + `","history":[{"id":0,"source":"user","action":"message"}]}`
	tests := []struct {
		name string
		head string
		want bool
	}{
		{"event list", `[{"id":0,"timestamp":"t","source":"user","message":"hi","action":"message","args":{}}]`, true},
		{"event list, observation first", "[\n  {\n    \"id\": 4,\n    \"cause\": 3,\n    \"observation\": \"run\",\n    \"content\": \"x\"", true},
		{"eval output line", `{"instance_id":"x","test_result":{"git_patch":""},"metadata":{"agent_class":"CodeActAgent"},"history":[{"id":0,"source":"agent","message":"` + strings.Repeat("s", 30000) + `","action":"system"`, true},
		{"resolver output", `{"issue":{"owner":"o"},"history":[{"content":"fix","action":"message"},{"command":"ls","action":"run"}]}`, true},
		{"history of pairs", `{"instance_id":"x","history":[[{"id":1,"source":"user","action":"message"},{"id":2,"observation":"null"}]]}`, true},
		{"trajectory export", `{"trajectory":[{"id":0,"source":"user","action":"message","args":{}}]}`, true},
		{"instance with an empty history", `{"instance_id":"x","history":[],"error":"runtime failed"}`, true},
		{"empty history without an instance", `{"history":[]}`, false},
		{"history cut off by the head", longKey[:ingest.HeadSize], false},
		{"SWE-agent history", `{"environment":"swe_main","history":[{"role":"system","content":"x","agent":"primary"}]}`, false},
		{"SWE-agent trajectory", `{"trajectory":[{"action":"ls","observation":"a","response":"r","thought":"t"}],"history":[]}`, false},
		{"SDK events list", `[{"id":"u","source":"agent","action":{"command":"ls"},"tool_name":"terminal","kind":"ActionEvent"}]`, false},
		{"SDK event line", `{"id":"u","timestamp":"t","source":"environment","key":"execution_status","value":"running","kind":"ConversationStateUpdateEvent"}`, false},
		{"message list", `[{"role":"user","content":"hi"}]`, false},
		{"messages object", `{"messages":[{"role":"user","content":"hi"}]}`, false},
		{"list without id or source", `[{"action":"ls","observation":"a"}]`, false},
		{"not JSON", "history action observation", false},
		{"empty", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := im.Detect("x.json", []byte(tc.head)); got != tc.want {
				t.Errorf("Detect = %v, want %v", got, tc.want)
			}
		})
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "openhands", "*.json*"))
	for _, p := range files {
		if strings.HasSuffix(p, "broken.json") {
			continue // its second element does not parse, but the first is an event
		}
		if got := detected(t, p); got != "openhands" {
			t.Errorf("%s detected as %q, want openhands", p, got)
		}
	}
}

// ohScanRun is what a plain scan of one instance expects of its import.
type ohScanRun struct {
	id            string
	calls         int   // agent actions that are model output with a tool call
	results       int   // observations answering one
	responses     int   // distinct model responses with usage
	prompt, compl int64 // their summed usage
	accPrompt     int64 // metrics.accumulated_token_usage.prompt_tokens, -1 when absent
	costs         int   // len(metrics.costs)
	agentActions  int   // actions with source agent (as the MANIFEST counts them)
}

// ohScan reads an instance's history independently of the importer.
func ohScan(t *testing.T, inst map[string]any, id string) ohScanRun {
	t.Helper()
	res := ohScanRun{id: id, accPrompt: -1}
	hist, _ := inst["history"].([]any)
	seen := map[string]bool{}
	calls := map[string]bool{} // action ids (or positions) with a tool call
	for i, h := range hist {
		ev, ok := h.(map[string]any)
		if !ok {
			t.Fatalf("%s: history[%d] is not an object", id, i)
		}
		action, _ := ev["action"].(string)
		obs, _ := ev["observation"].(string)
		source, _ := ev["source"].(string)
		switch {
		case action != "":
			if source == "agent" {
				res.agentActions++
			}
			if action == "system" || action == "message" || action == "recall" || source == "user" {
				continue
			}
			res.calls++
			calls[ohKey(ev["id"])] = true
			meta, _ := ev["tool_call_metadata"].(map[string]any)
			resp, _ := meta["model_response"].(map[string]any)
			rid, _ := resp["id"].(string)
			usage, _ := resp["usage"].(map[string]any)
			if rid != "" && usage != nil && !seen[rid] {
				seen[rid] = true
				res.responses++
				res.prompt += int64(usage["prompt_tokens"].(float64))
				res.compl += int64(usage["completion_tokens"].(float64))
			}
		case obs != "":
			cause := ev["cause"]
			if cause == nil && ev["id"] == nil && obs != "null" && obs != "agent_state_changed" { // legacy: by position
				res.results++
			} else if cause != nil && calls[ohKey(cause)] {
				res.results++
			}
		}
	}
	if m, ok := inst["metrics"].(map[string]any); ok {
		if acc, ok := m["accumulated_token_usage"].(map[string]any); ok {
			res.accPrompt = int64(acc["prompt_tokens"].(float64))
		}
		costs, _ := m["costs"].([]any)
		res.costs = len(costs)
	}
	return res
}

// ohKey is an event id (or cause) as a map key.
func ohKey(v any) string { b, _ := json.Marshal(v); return string(b) }

// ohCorpusActions are the agent actions per instance the MANIFEST states
// (system prompt included).
var ohCorpusActions = map[string][]int{
	"openhands__multi_swe_bench__examples__output.jsonl": {24, 34, 50},
	"openhands__trajs__basic.json":                       {2},
	"openhands__trajs__basic_interactions.json":          {3},
}

func TestOpenHandsCorpus(t *testing.T) {
	dir := testutil.Corpus(t, "openhands")
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no files in %s: %v", dir, err)
	}
	for _, p := range files {
		name := filepath.Base(p)
		t.Run(name, func(t *testing.T) {
			if got := detected(t, p); got != "openhands" {
				t.Errorf("detected as %q, want openhands", got)
			}
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			// the independent scan: one instance per line, or one event list
			var scans []ohScanRun
			if strings.HasSuffix(name, ".jsonl") {
				for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
					var inst map[string]any
					if err := json.Unmarshal(l, &inst); err != nil {
						t.Fatal(err)
					}
					id, _ := inst["instance_id"].(string)
					if is, ok := inst["issue"].(map[string]any); ok {
						id = is["owner"].(string) + "/" + is["repo"].(string) + "#" + ohKey(is["number"])
					}
					scans = append(scans, ohScan(t, inst, id))
				}
			} else {
				var list []any
				if err := json.Unmarshal(data, &list); err != nil {
					t.Fatal(err)
				}
				scans = append(scans, ohScan(t, map[string]any{"history": list}, strings.TrimSuffix(name, ".json")))
			}
			sink, err := ingest.Parse(context.Background(), "openhands", p, data, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(sink.Rejects) != 0 {
				t.Fatalf("got %d rejects, want 0: %+v", len(sink.Rejects), sink.Rejects)
			}
			ohFuzzCheck(t, sink) // records valid, turns in range
			if len(sink.Runs) != len(scans) {
				t.Fatalf("got %d runs, want %d", len(sink.Runs), len(scans))
			}
			if want, ok := ohCorpusActions[name]; ok {
				for i, w := range want {
					if scans[i].agentActions != w {
						t.Errorf("run %d: scan found %d agent actions, MANIFEST says %d", i, scans[i].agentActions, w)
					}
				}
			}
			for i, run := range sink.Runs {
				s := scans[i]
				t.Logf("%s: scan %+v; import: %d turns, end %s", run.RunID, s, run.NTurns, run.EndReason)
				var calls, results int
				for _, e := range sink.Events {
					if e.RunID != run.RunID {
						continue
					}
					switch e.Kind {
					case schema.KindToolCall:
						calls++
					case schema.KindToolResult:
						results++
						if e.ToolName == "" {
							t.Errorf("%s: result seq %d has no tool name", run.RunID, e.Seq)
						}
					}
				}
				var usage int
				for _, u := range sink.Usage {
					if u.RunID == run.RunID {
						usage++
					}
				}
				got := []any{run.RunID, calls, results, usage, run.InputTokens, run.OutputTokens}
				want := []any{s.id, s.calls, s.results, s.responses, s.prompt, s.compl}
				if s.responses == 0 && s.accPrompt >= 0 { // no per-call usage: the run totals
					want[4], want[5] = s.accPrompt, run.OutputTokens
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("run %d: (run id, tool calls, tool results, usage rows, input, output) (-scan +import):\n%s", i, diff)
				}
				if s.accPrompt >= 0 && s.responses > 0 && run.InputTokens != s.accPrompt {
					t.Errorf("%s: input tokens %d, metrics say %d", run.RunID, run.InputTokens, s.accPrompt)
				}
				if s.costs > 0 && s.responses == 0 && run.NTurns != int64(s.costs) {
					t.Errorf("%s: %d turns, metrics log %d costs (one per call)", run.RunID, run.NTurns, s.costs)
				}
				if s.responses > 0 && run.NTurns < int64(s.responses) {
					t.Errorf("%s: %d turns for %d responses", run.RunID, run.NTurns, s.responses)
				}
				if run.EndReasonSource != schema.SourceExplicit {
					t.Errorf("%s: end reason %s is not from the log", run.RunID, run.EndReason)
				}
			}
			if len(sink.ContextOps) != 0 {
				t.Errorf("got %d context ops, the corpus has no condensation", len(sink.ContextOps))
			}
		})
	}
}

// ohFuzzCheck validates everything a fuzzed import produced.
func ohFuzzCheck(t *testing.T, sink *ingest.MemSink) {
	for _, r := range sink.Records() {
		if err := schema.Validate(r); err != nil {
			t.Fatalf("invalid record: %v", err)
		}
	}
	turns := map[string]int64{}
	for _, r := range sink.Runs {
		turns[r.RunID] = r.NTurns
	}
	for _, e := range sink.Events {
		if n, ok := turns[e.RunID]; !ok || e.Turn > n {
			t.Fatalf("event %s/%d: turn %d of %d calls", e.RunID, e.Seq, e.Turn, n)
		}
	}
	for _, u := range sink.Usage {
		if n := turns[u.RunID]; u.Turn >= n {
			t.Fatalf("usage %s: turn %d of %d calls", u.RunID, u.Turn, n)
		}
	}
}

// TestOpenHandsOddInput covers inputs the fixtures do not: a lone byte-order
// mark, white space, a document that is neither list nor object.
func TestOpenHandsOddInput(t *testing.T) {
	tests := []struct {
		name, path, data string
		rejects          int
	}{
		{"BOM line", "output.jsonl", "\xef\xbb\xbf\n", 0},
		{"BOM line, then an object", "output.jsonl", "\xef\xbb\xbf\n{}\n", 1},
		{"BOM only", "trajs.json", "\xef\xbb\xbf", 0},
		{"blank", "trajs.json", " \n\t", 0},
		{"a string", "trajs.json", `"history"`, 1},
		{"empty list", "trajs.json", `[]`, 0},
		{"object with a non-list history", "one.json", `{"history":{"id":1}}`, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, format := range []string{"openhands", ohsFormat} {
				sink, err := ingest.Parse(context.Background(), format, tc.path, []byte(tc.data), nil)
				if err != nil {
					t.Fatalf("%s: %v", format, err)
				}
				ohFuzzCheck(t, sink)
				if format == "openhands" && len(sink.Rejects) != tc.rejects {
					t.Errorf("got %d rejects, want %d: %+v", len(sink.Rejects), tc.rejects, sink.Rejects)
				}
			}
		})
	}
}

// TestOpenHandsOddEvents feeds events with unexpected types and values: none
// may fail the import or yield an invalid record.
func TestOpenHandsOddEvents(t *testing.T) {
	events := []string{
		`{"id":{"a":1},"source":"agent","action":"run","args":null,"tool_call_metadata":"x","llm_metrics":[1]}`,
		`{"id":2,"source":"agent","action":"run","tool_call_metadata":{"model_response":{"id":"r","choices":[],"usage":{"prompt_tokens":1e300,"completion_tokens":-5}}}}`,
		`{"id":3,"source":"agent","action":"run","tool_call_metadata":{"model_response":{"id":"r2","usage":{"prompt_tokens":5,"completion_tokens":1,"cache_read_input_tokens":9,"cache_creation_input_tokens":9}}}}`,
		`{"id":4,"source":"agent","action":"edit","llm_metrics":{"accumulated_token_usage":{"prompt_tokens":"many","completion_tokens":null}}}`,
		`{"id":5,"source":"agent","action":"read","llm_metrics":{"accumulated_cost":-1,"accumulated_token_usage":{"prompt_tokens":10,"completion_tokens":2,"context_window":-3}}}`,
		`{"id":6,"source":"agent","action":"read","llm_metrics":{"accumulated_token_usage":{"prompt_tokens":4,"completion_tokens":1}}}`,
		`{"id":7,"cause":{"x":1},"observation":"run","content":["a",{"text":"b"}],"extras":{"metadata":{"exit_code":"1"}}}`,
		`{"id":8,"cause":99,"observation":"run","content":null,"extras":{"metadata":null,"exit_code":1e30}}`,
		`{"id":9,"source":"agent","action":"condensation","args":{"forgotten_event_ids":[{"a":1},null],"summary":5}}`,
		`{"id":10,"source":"agent","action":"condensation","args":{"forgotten_events_start_id":9,"forgotten_events_end_id":2}}`,
		`{"id":11,"observation":"agent_state_changed","extras":{"agent_state":5}}`,
		`{"id":12,"observation":"recall","extras":{"microagent_knowledge":"x"}}`,
		`{"id":13,"observation":"condense","content":"summary"}`,
		`{"id":14,"source":"agent","action":"message","args":{"content":["not","text"]}}`,
		`{"id":15,"source":"agent","action":"think","args":{"thought":"t"}}`,
		`{"action":"run","command":"ls"}`,
		`{"observation":"run","content":"x","exit_code":-1}`,
		`{"observation":"run","content":"unlinked"}`,
		`[{"action":"run"}, 5]`,
		`{"id":16,"source":"user","action":"run","args":{"command":"ls"}}`,
		`{"id":17,"cause":16,"observation":"run","content":"by the user"}`,
	}
	for i, ev := range events {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			for _, hist := range []string{"[" + ev + "]", "[" + strings.Join(events[:i+1], ",") + "]"} {
				data := ohEvalLine(hist, `,"metrics":{"accumulated_cost":"x","token_usages":[{"response_id":"r2","prompt_tokens":3}]},"test_result":[1],"issue":{"repo":5},"success":"yes"`)
				sink, err := ingest.Parse(context.Background(), "openhands", "output.jsonl", data, nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(sink.Runs) != 1 {
					t.Fatalf("got %d runs, want 1 (rejects %+v)", len(sink.Runs), sink.Rejects)
				}
				ohFuzzCheck(t, sink)
			}
		})
	}
}
