package ingest_test

import (
	"bytes"
	"context"
	"encoding/json"
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

// The fixtures in testdata/codex are hand-written rollouts, one topic each:
//
//	exec.jsonl      Codex 0.125 order (token_count after the call's outputs):
//	                exec_command + write_stdin on its session, apply_patch as a
//	                custom tool, a repeated token_count, a truncated line.
//	legacy.jsonl    Codex 0.40 order (token_count before the call's outputs):
//	                JSON-string outputs with exit codes, turn_aborted.
//	compact.jsonl   context-window error, compacted, and a user turn logged only
//	                as a user_message event (Codex Desktop).
//	malformed.jsonl rejected lines of every kind, no session_meta.

func codexTS(t *testing.T, s string) *time.Time {
	t.Helper()
	ts, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return &ts
}

func codexI64(v int64) *int64 { return &v }

func codexParse(t *testing.T, path string) *ingest.MemSink {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sink, err := ingest.Parse(context.Background(), "codex-cli", path, data, nil)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return sink
}

// codexReject is a reject without its raw text, and with the reason cut
// before any decoder message.
type codexReject struct {
	Line   int64
	Reason string
}

func codexRejects(rs []schema.Reject) []codexReject {
	var out []codexReject
	for _, r := range rs {
		reason, _, _ := strings.Cut(r.Reason, ":")
		out = append(out, codexReject{r.Line, reason})
	}
	return out
}

func TestCodexFixtures(t *testing.T) {
	patchArgs := `{"input":"*** Begin Patch\n*** Update File: pkg/a.go\n@@\n-return 1\n+return 2\n*** End Patch\n"}`
	legacyPatch := `{"command":["bash","-lc","apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: docs/notes.md\n+hello\n*** End Patch\nPATCH\n"]}`
	tests := []struct {
		file    string
		run     schema.Run
		events  []schema.Event
		usage   []schema.Usage
		outputs []schema.ToolOutput
		ops     []schema.ContextOp
		rejects []codexReject
	}{{
		file: "exec.jsonl",
		run: schema.Run{RunID: "sess-exec", Harness: "codex-cli", Model: "gpt-5.5", ModelFamily: "gpt-5.5", WindowTokens: codexI64(258400),
			StartedAt: codexTS(t, "2026-05-11T07:59:58Z"), EndedAt: codexTS(t, "2026-05-11T08:00:09Z"),
			EndReason: schema.EndFinished, EndReasonSource: schema.SourceExplicit, EndReasonDetail: "task_complete",
			NTurns: 4, UsageCalls: 4, InputTokens: 4600, OutputTokens: 200, CacheReadTokens: 3300, ReasoningTokens: 40},
		events: []schema.Event{
			{Seq: 0, Turn: 0, TS: codexTS(t, "2026-05-11T08:00:01Z"), Kind: schema.KindSystem, Role: "developer", Line: 3, Text: "Sandbox: workspace-write."},
			{Seq: 1, Turn: 0, TS: codexTS(t, "2026-05-11T08:00:02Z"), Kind: schema.KindUser, Role: "user", Line: 5, Text: "run the tests"},
			{Seq: 2, Turn: 0, TS: codexTS(t, "2026-05-11T08:00:03Z"), Kind: schema.KindReasoning, Role: "assistant", Line: 7, Text: "Run go test first."},
			{Seq: 3, Turn: 0, TS: codexTS(t, "2026-05-11T08:00:03Z"), Kind: schema.KindToolCall, Role: "assistant", ToolName: "exec_command", CallID: "call_1",
				Target: "go test ./...", Args: `{"cmd":"go test ./...","workdir":"/repo","yield_time_ms":1000}`, Line: 8,
				Text: `exec_command {"cmd":"go test ./...","workdir":"/repo","yield_time_ms":1000}`},
			{Seq: 4, Turn: 1, TS: codexTS(t, "2026-05-11T08:00:04Z"), Kind: schema.KindToolResult, Role: "tool", ToolName: "exec_command", CallID: "call_1", ToolKey: "call_1",
				Target: "go test ./...", Line: 10, Text: "Chunk ID: a1\nWall time: 1.0 seconds\nProcess running with session ID 42\nOriginal token count: 0\nOutput:\n"},
			// the poll of session 42 gets the target of the exec_command that started it
			{Seq: 5, Turn: 1, TS: codexTS(t, "2026-05-11T08:00:05Z"), Kind: schema.KindToolCall, Role: "assistant", ToolName: "write_stdin", CallID: "call_2",
				Target: "go test ./...", Args: `{"chars":"","session_id":42,"yield_time_ms":1000}`, Line: 12,
				Text: `write_stdin {"chars":"","session_id":42,"yield_time_ms":1000}`},
			{Seq: 6, Turn: 2, TS: codexTS(t, "2026-05-11T08:00:06Z"), Kind: schema.KindToolResult, Role: "tool", ToolName: "write_stdin", CallID: "call_2", ToolKey: "call_2",
				Target: "go test ./...", ExitCode: codexI64(1), IsError: true, Line: 15,
				Text: "Chunk ID: b2\nWall time: 0.5 seconds\nProcess exited with code 1\nOriginal token count: 5\nOutput:\nFAIL pkg 0.01s\n"},
			{Seq: 7, Turn: 2, TS: codexTS(t, "2026-05-11T08:00:07Z"), Kind: schema.KindToolCall, Role: "assistant", ToolName: "apply_patch", CallID: "call_3",
				Target: "pkg/a.go", Args: patchArgs, Line: 17, Text: "apply_patch " + patchArgs},
			{Seq: 8, Turn: 3, TS: codexTS(t, "2026-05-11T08:00:08Z"), Kind: schema.KindToolResult, Role: "tool", ToolName: "apply_patch", CallID: "call_3", ToolKey: "call_3",
				Target: "pkg/a.go", ExitCode: codexI64(0), Line: 19, Text: "Success. Updated the following files:\nM pkg/a.go\n"},
			{Seq: 9, Turn: 3, TS: codexTS(t, "2026-05-11T08:00:09Z"), Kind: schema.KindAssistant, Role: "assistant", Line: 21, Text: "Fixed the test."},
		},
		// one row per distinct token_count; line 14 repeats line 13's total
		usage: []schema.Usage{
			{Turn: 0, TS: codexTS(t, "2026-05-11T08:00:03Z"), Model: "gpt-5.5", InputTokens: 1000, OutputTokens: 100, ReasoningTokens: 40},
			{Turn: 1, TS: codexTS(t, "2026-05-11T08:00:05Z"), Model: "gpt-5.5", InputTokens: 1120, OutputTokens: 30, CacheReadTokens: 1000},
			{Turn: 2, TS: codexTS(t, "2026-05-11T08:00:07Z"), Model: "gpt-5.5", InputTokens: 1200, OutputTokens: 50, CacheReadTokens: 1100},
			{Turn: 3, TS: codexTS(t, "2026-05-11T08:00:09Z"), Model: "gpt-5.5", InputTokens: 1280, OutputTokens: 20, CacheReadTokens: 1200},
		},
		outputs: []schema.ToolOutput{
			{ToolKey: "call_1", CallID: "call_1", ToolName: "exec_command", Target: "go test ./...", Turn: 1, Seq: 4},
			{ToolKey: "call_2", CallID: "call_2", ToolName: "write_stdin", Target: "go test ./...", Turn: 2, Seq: 6, IsError: true},
			{ToolKey: "call_3", CallID: "call_3", ToolName: "apply_patch", Target: "pkg/a.go", Turn: 3, Seq: 8},
		},
		rejects: []codexReject{{16, "invalid JSON"}},
	}, {
		file: "legacy.jsonl",
		run: schema.Run{RunID: "sess-legacy", Harness: "codex-cli", Model: "gpt-5-codex", ModelFamily: "gpt-5", WindowTokens: codexI64(272000),
			StartedAt: codexTS(t, "2025-09-25T01:00:00Z"), EndedAt: codexTS(t, "2025-09-25T01:00:07Z"),
			EndReason: schema.EndInterrupted, EndReasonSource: schema.SourceExplicit, EndReasonDetail: "interrupted",
			NTurns: 3, UsageCalls: 3, InputTokens: 9194, OutputTokens: 206, CacheReadTokens: 8192, ReasoningTokens: 64},
		events: []schema.Event{
			{Seq: 0, Turn: 0, TS: codexTS(t, "2025-09-25T01:00:01Z"), Kind: schema.KindUser, Role: "user", Line: 2, Text: "<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>"},
			{Seq: 1, Turn: 0, TS: codexTS(t, "2025-09-25T01:00:01Z"), Kind: schema.KindUser, Role: "user", Line: 3, Text: "list the files"},
			{Seq: 2, Turn: 0, TS: codexTS(t, "2025-09-25T01:00:02Z"), Kind: schema.KindReasoning, Role: "assistant", Line: 8, Text: "**Listing**"},
			{Seq: 3, Turn: 0, TS: codexTS(t, "2025-09-25T01:00:02Z"), Kind: schema.KindToolCall, Role: "assistant", ToolName: "shell", CallID: "call_a",
				Target: "ls", Args: `{"command":["bash","-lc","ls"],"timeout_ms":120000,"workdir":"."}`, Line: 9,
				Text: `shell {"command":["bash","-lc","ls"],"timeout_ms":120000,"workdir":"."}`},
			{Seq: 4, Turn: 1, TS: codexTS(t, "2025-09-25T01:00:03Z"), Kind: schema.KindToolResult, Role: "tool", ToolName: "shell", CallID: "call_a", ToolKey: "call_a",
				Target: "ls", ExitCode: codexI64(0), Line: 10, Text: "a.go\nb.go\n"},
			{Seq: 5, Turn: 1, TS: codexTS(t, "2025-09-25T01:00:04Z"), Kind: schema.KindToolCall, Role: "assistant", ToolName: "shell", CallID: "call_b",
				Target: "cat missing.txt", Args: `{"command":["bash","-lc","cat missing.txt"],"workdir":"."}`, Line: 13,
				Text: `shell {"command":["bash","-lc","cat missing.txt"],"workdir":"."}`},
			{Seq: 6, Turn: 2, TS: codexTS(t, "2025-09-25T01:00:05Z"), Kind: schema.KindToolResult, Role: "tool", ToolName: "shell", CallID: "call_b", ToolKey: "call_b",
				Target: "cat missing.txt", ExitCode: codexI64(1), IsError: true, Line: 14, Text: "cat: missing.txt: No such file or directory\n"},
			// 0.40 logs an aborted call's items after turn_aborted
			{Seq: 7, Turn: 2, TS: codexTS(t, "2025-09-25T01:00:06Z"), Kind: schema.KindToolCall, Role: "assistant", ToolName: "shell", CallID: "call_c",
				Target: "docs/notes.md", Args: legacyPatch, Line: 18, Text: "shell " + legacyPatch},
			{Seq: 8, Turn: 3, TS: codexTS(t, "2025-09-25T01:00:07Z"), Kind: schema.KindToolResult, Role: "tool", ToolName: "shell", CallID: "call_c", ToolKey: "call_c",
				Target: "docs/notes.md", Line: 19, Text: "patch rejected by user"},
		},
		// each token_count precedes the items of the call it measures
		usage: []schema.Usage{
			{Turn: 0, TS: codexTS(t, "2025-09-25T01:00:02Z"), Model: "gpt-5-codex", InputTokens: 2899, OutputTokens: 100, CacheReadTokens: 2560, ReasoningTokens: 64},
			{Turn: 1, TS: codexTS(t, "2025-09-25T01:00:04Z"), Model: "gpt-5-codex", InputTokens: 3095, OutputTokens: 37, CacheReadTokens: 2560},
			{Turn: 2, TS: codexTS(t, "2025-09-25T01:00:06Z"), Model: "gpt-5-codex", InputTokens: 3200, OutputTokens: 69, CacheReadTokens: 3072},
		},
		outputs: []schema.ToolOutput{
			{ToolKey: "call_a", CallID: "call_a", ToolName: "shell", Target: "ls", Turn: 1, Seq: 4},
			{ToolKey: "call_b", CallID: "call_b", ToolName: "shell", Target: "cat missing.txt", Turn: 2, Seq: 6, IsError: true},
			{ToolKey: "call_c", CallID: "call_c", ToolName: "shell", Target: "docs/notes.md", Turn: 3, Seq: 8},
		},
	}, {
		file: "compact.jsonl",
		// the overflow ended turn t2 only: the user went on in t3, which has no task_complete
		run: schema.Run{RunID: "sess-compact", Harness: "codex-cli", Model: "gpt-5-codex", ModelFamily: "gpt-5", WindowTokens: codexI64(128000),
			StartedAt: codexTS(t, "2025-10-28T04:00:00Z"), EndedAt: codexTS(t, "2025-10-28T04:00:09Z"),
			EndReason: schema.EndUnknown, EndReasonSource: schema.SourceInferred,
			NTurns: 2, UsageCalls: 2, InputTokens: 57000, OutputTokens: 3000},
		events: []schema.Event{
			{Seq: 0, Turn: 0, TS: codexTS(t, "2025-10-28T04:00:02Z"), Kind: schema.KindUser, Role: "user", Line: 4, Text: "build the API"},
			{Seq: 1, Turn: 0, TS: codexTS(t, "2025-10-28T04:00:03Z"), Kind: schema.KindAssistant, Role: "assistant", Line: 5, Text: "API built."},
			{Seq: 2, Turn: 1, TS: codexTS(t, "2025-10-28T04:00:05Z"), Kind: schema.KindUser, Role: "user", Line: 9, Text: "add auth"},
			{Seq: 3, Turn: 1, TS: codexTS(t, "2025-10-28T04:00:06Z"), Kind: schema.KindError, Role: "system", IsError: true, Line: 10,
				Text: "Codex ran out of room in the model's context window. Start a new conversation or clear earlier history before retrying."},
			{Seq: 4, Turn: 1, TS: codexTS(t, "2025-10-28T04:00:07Z"), Kind: schema.KindCompaction, Role: "system", Line: 12, Text: "Summary: the API is built; auth is pending."},
			{Seq: 5, Turn: 1, TS: codexTS(t, "2025-10-28T04:00:08Z"), Kind: schema.KindUser, Role: "user", Line: 14, Text: "add auth, please"},
			{Seq: 6, Turn: 1, TS: codexTS(t, "2025-10-28T04:00:09Z"), Kind: schema.KindAssistant, Role: "assistant", Line: 15, Text: "Auth added."},
		},
		usage: []schema.Usage{
			{Turn: 0, TS: codexTS(t, "2025-10-28T04:00:03Z"), Model: "gpt-5-codex", InputTokens: 48000, OutputTokens: 2000},
			{Turn: 1, TS: codexTS(t, "2025-10-28T04:00:09Z"), Model: "gpt-5-codex", InputTokens: 9000, OutputTokens: 1000},
		},
		ops: []schema.ContextOp{{Seq: 4, Turn: 1, Op: schema.OpCompaction, TokensBefore: codexI64(48000), Trigger: "auto", Detail: "replacement_history: 2 items"}},
	}, {
		file: "malformed.jsonl",
		run: schema.Run{RunID: "malformed", Harness: "codex-cli", Model: "gpt-5", ModelFamily: "gpt-5",
			StartedAt: codexTS(t, "2026-01-01T00:00:03Z"), EndedAt: codexTS(t, "2026-01-01T00:00:04Z"),
			EndReason: schema.EndUnknown, EndReasonSource: schema.SourceInferred, NTurns: 1, UsageCalls: 1, InputTokens: 10, OutputTokens: 3},
		events: []schema.Event{
			{Seq: 0, Turn: 0, TS: codexTS(t, "2026-01-01T00:00:03Z"), Kind: schema.KindUser, Role: "user", Line: 8, Text: "hi"},
			{Seq: 1, Turn: 0, TS: codexTS(t, "2026-01-01T00:00:04Z"), Kind: schema.KindAssistant, Role: "assistant", Line: 10, Text: "hello"},
		},
		usage: []schema.Usage{{Turn: 0, TS: codexTS(t, "2026-01-01T00:00:04Z"), Model: "gpt-5", InputTokens: 10, OutputTokens: 3}},
		rejects: []codexReject{
			{1, "record is not a JSON object"}, {2, "record is not a JSON object"}, {3, "record without type"},
			{4, "record without payload object"}, {5, "record without payload object"}, {7, "message without role"},
			{11, "implausible token count"}, {12, "invalid token_count"},
		},
	}}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", "codex", tc.file)
			sink := codexParse(t, path)
			if len(sink.Runs) != 1 {
				t.Fatalf("got %d runs, want 1", len(sink.Runs))
			}
			id := tc.run.RunID
			tc.run.SourceFormat, tc.run.SourcePath = "codex-cli", path
			for i := range tc.events {
				tc.events[i].RunID = id
			}
			for i := range tc.usage {
				tc.usage[i].RunID = id
			}
			for i := range tc.outputs {
				tc.outputs[i].RunID = id
			}
			for i := range tc.ops {
				tc.ops[i].RunID = id
			}
			opts := cmp.Options{
				cmpopts.IgnoreFields(schema.Run{}, "SourceSHA256", "EstTokens", "Estimator", "ClassifiedBy", "SystemMentionsManageContext"), // the last two: TestBuilderDerives
				cmpopts.IgnoreFields(schema.Event{}, "Chars", "EstTokens", "ActionClass"),
				cmpopts.IgnoreFields(schema.ToolOutput{}, "Chars", "EstTokens"),
				cmpopts.EquateEmpty(),
			}
			if diff := cmp.Diff(tc.run, sink.Runs[0], opts); diff != "" {
				t.Errorf("run (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.events, sink.Events, opts); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.usage, sink.Usage, opts); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.outputs, sink.ToolOutputs, opts); diff != "" {
				t.Errorf("tool_outputs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.ops, sink.ContextOps, opts); diff != "" {
				t.Errorf("context_ops (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.rejects, codexRejects(sink.Rejects), opts); diff != "" {
				t.Errorf("rejects (-want +got):\n%s", diff)
			}
		})
	}
}

// codexLines joins rollout lines {"type": typ, "payload": payload} given as
// type, payload pairs.
func codexLines(pairs ...string) []byte {
	var b bytes.Buffer
	for i := 0; i+1 < len(pairs); i += 2 {
		b.WriteString(`{"timestamp":"2026-01-01T00:00:00Z","type":"` + pairs[i] + `","payload":` + pairs[i+1] + "}\n")
	}
	return b.Bytes()
}

func TestCodexEnd(t *testing.T) {
	const (
		user      = `{"type":"message","role":"user","content":[{"type":"input_text","text":"go on"}]}`
		assistant = `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"}]}`
	)
	tests := []struct {
		name   string
		data   []byte
		reason schema.EndReason
		source schema.ReasonSource
		detail string
	}{
		{"no task events", codexLines("response_item", user, "response_item", assistant),
			schema.EndUnknown, schema.SourceInferred, ""},
		{"task_complete", codexLines("response_item", user, "response_item", assistant, "event_msg", `{"type":"task_complete"}`),
			schema.EndFinished, schema.SourceExplicit, "task_complete"},
		{"aborted after complete", codexLines("event_msg", `{"type":"task_complete"}`, "event_msg", `{"type":"turn_aborted","reason":"interrupted"}`),
			schema.EndInterrupted, schema.SourceExplicit, "interrupted"},
		{"abort then the user goes on", codexLines("event_msg", `{"type":"turn_aborted","reason":"interrupted"}`, "response_item", user, "response_item", assistant),
			schema.EndUnknown, schema.SourceInferred, ""},
		{"abort, then its marker for the model", codexLines("event_msg", `{"type":"turn_aborted","reason":"interrupted"}`,
			"response_item", `{"type":"message","role":"user","content":[{"type":"input_text","text":"<turn_aborted>\nThe user interrupted the previous turn.\n</turn_aborted>"}]}`),
			schema.EndInterrupted, schema.SourceExplicit, "interrupted"},
		{"abort then a new task", codexLines("event_msg", `{"type":"turn_aborted","reason":"replaced"}`, "event_msg", `{"type":"task_started"}`),
			schema.EndUnknown, schema.SourceInferred, ""},
		{"overflow stands over task_complete", codexLines("event_msg", `{"type":"error","message":"context_length_exceeded: input too long"}`, "event_msg", `{"type":"task_complete"}`),
			schema.EndContextOverflow, schema.SourceExplicit, "context_length_exceeded: input too long"},
		{"error", codexLines("event_msg", `{"type":"error","message":"unexpected status 401 Unauthorized"}`),
			schema.EndError, schema.SourceExplicit, "unexpected status 401 Unauthorized"},
		{"stream_error is a retry notice", codexLines("event_msg", `{"type":"stream_error","message":"Reconnecting... 1/5"}`),
			schema.EndUnknown, schema.SourceInferred, ""},
		{"stream_error over the window", codexLines("event_msg", `{"type":"stream_error","message":"Your input exceeds the context window of this model."}`),
			schema.EndContextOverflow, schema.SourceExplicit, "Your input exceeds the context window of this model."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sink, err := ingest.Parse(context.Background(), "codex-cli", "end.jsonl", tc.data, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(sink.Runs) != 1 {
				t.Fatalf("got %d runs, want 1", len(sink.Runs))
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

// TestCodexUserEcho checks that a user_message event adds a user event only
// when no user item carries the same message.
func TestCodexUserEcho(t *testing.T) {
	const (
		item      = `{"type":"message","role":"user","content":[{"type":"input_text","text":"look at this"},{"type":"input_image","image_url":"data:image/png;base64,AA"}]}`
		imageOnly = `{"type":"message","role":"user","content":[{"type":"input_image","image_url":"data:image/png;base64,AA"}]}`
		echo      = `{"type":"user_message","message":"look at this","images":["data:image/png;base64,AA"]}`
		assistant = `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"}]}`
	)
	tests := []struct {
		name string
		data []byte
		want []string // user event texts
	}{
		{"item then echo", codexLines("response_item", item, "event_msg", echo), []string{"look at this\n[input_image]"}},
		{"echo then item", codexLines("event_msg", echo, "response_item", item), []string{"look at this"}},
		{"echo only", codexLines("event_msg", echo, "response_item", assistant, "event_msg", echo), []string{"look at this", "look at this"}},
		{"empty echo of an image", codexLines("response_item", imageOnly, "event_msg", `{"type":"user_message","message":""}`), []string{"[input_image]"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sink, err := ingest.Parse(context.Background(), "codex-cli", "echo.jsonl", tc.data, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range sink.Events {
				if e.Kind == schema.KindUser {
					got = append(got, e.Text)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("user events (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCodexUsageOnly covers token_counts that no output items go with: each
// is a call of its own, and later calls are still told apart.
func TestCodexUsageOnly(t *testing.T) {
	tok := func(total, in int) string {
		return `{"type":"token_count","info":{"total_token_usage":{"total_tokens":` + codexItoa(total) + `},"last_token_usage":{"input_tokens":` + codexItoa(in) + `,"output_tokens":1}}}`
	}
	const (
		user      = `{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}`
		assistant = `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"}]}`
	)
	tests := []struct {
		name  string
		data  []byte
		turns int64
		usage []int64 // input tokens by turn
	}{
		{"no items", codexLines("event_msg", tok(11, 10), "event_msg", tok(32, 20)), 2, []int64{10, 20}},
		// after-outputs order; the second call logged no items (it was aborted)
		{"after, call without items", codexLines(
			"response_item", user, "response_item", assistant, "event_msg", tok(11, 10),
			"response_item", user, "event_msg", tok(32, 20),
			"response_item", user, "response_item", assistant, "event_msg", tok(63, 30)), 3, []int64{10, 20, 30}},
		// before-outputs order; the last token_count has no items after it
		{"before, trailing", codexLines(
			"response_item", user, "event_msg", tok(11, 10), "response_item", assistant,
			"response_item", user, "event_msg", tok(32, 20)), 2, []int64{10, 20}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sink, err := ingest.Parse(context.Background(), "codex-cli", "usage.jsonl", tc.data, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := sink.Runs[0].NTurns; got != tc.turns {
				t.Errorf("n_turns = %d, want %d", got, tc.turns)
			}
			var got []int64
			for i, u := range sink.Usage {
				if u.Turn != int64(i) {
					t.Errorf("usage row %d has turn %d", i, u.Turn)
				}
				got = append(got, u.InputTokens)
			}
			if diff := cmp.Diff(tc.usage, got); diff != "" {
				t.Errorf("usage input tokens (-want +got):\n%s", diff)
			}
		})
	}
}

func codexItoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestCodexDetect(t *testing.T) {
	im, err := ingest.Lookup("codex-cli")
	if err != nil {
		t.Fatal(err)
	}
	meta := `{"timestamp":"2026-05-11T08:26:55.042Z","type":"session_meta","payload":{"id":"x","base_instructions":{"text":"` + strings.Repeat("long ", 20000) + `"}}}` + "\n"
	tests := []struct {
		name string
		head string
		want bool
	}{
		{"session_meta", `{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}` + "\n", true},
		{"session_meta cut off by the head", meta[:ingest.HeadSize], true},
		{"blank lines, then turn_context", "\n  \r\n" + `{"type":"turn_context","payload":{"model":"gpt-5"}}`, true},
		{"payload before type", `{"payload":{"type":"message","content":[{"a":[1,{}]}]},"type":"response_item"}`, true},
		{"compacted first", `{"type":"compacted","payload":{"message":"m"}}`, false},
		{"payload not an object", `{"type":"event_msg","payload":"x"}`, false},
		{"no payload", `{"type":"event_msg","msg":{"type":"token_count"}}`, false},
		{"claude code", `{"type":"user","sessionId":"s","message":{"role":"user","content":"hi"}}`, false},
		{"codex exec --json", `{"type":"thread.started","thread_id":"t"}`, false},
		{"not JSON", "payload type session_meta", false},
		{"array", `[{"type":"session_meta","payload":{}}]`, false},
		{"empty", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := im.Detect("rollout.jsonl", []byte(tc.head)); got != tc.want {
				t.Errorf("Detect = %v, want %v", got, tc.want)
			}
		})
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "codex", "*.jsonl"))
	for _, p := range files {
		if strings.HasSuffix(p, "malformed.jsonl") {
			continue // its first line is not JSON
		}
		if got := detected(t, p); got != "codex-cli" {
			t.Errorf("%s detected as %q, want codex-cli", p, got)
		}
	}
}

// codexScanResult is what a plain scan of a rollout expects of its import.
type codexScanResult struct {
	calls   int               // distinct token_count lines with last_token_usage
	in, out int64             // their summed input and output tokens
	names   map[string]string // call_id → tool name of the call
}

// codexScan reads a rollout independently of the importer.
func codexScan(t *testing.T, data []byte) codexScanResult {
	t.Helper()
	type tokens struct {
		Input  int64 `json:"input_tokens"`
		Output int64 `json:"output_tokens"`
		Total  int64 `json:"total_tokens"`
	}
	type rolloutLine struct {
		Type    string `json:"type"`
		Payload struct {
			Type      string `json:"type"`
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
			CallID    string `json:"call_id"`
			Info      *struct {
				Total *tokens `json:"total_token_usage"`
				Last  *tokens `json:"last_token_usage"`
			} `json:"info"`
		} `json:"payload"`
	}
	res := codexScanResult{names: map[string]string{}}
	prevTotal := int64(-1)
	for _, l := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		var line rolloutLine
		if err := json.Unmarshal(l, &line); err != nil {
			t.Fatalf("corpus line: %v", err)
		}
		p := line.Payload
		switch {
		case line.Type == "response_item" && (p.Type == "function_call" || p.Type == "custom_tool_call"):
			name := p.Name
			if p.Namespace != "" {
				name = strings.TrimSuffix(p.Namespace, "__") + "__" + p.Name
			}
			res.names[p.CallID] = name
		case line.Type == "event_msg" && p.Type == "token_count" && p.Info != nil && p.Info.Last != nil:
			if p.Info.Total != nil {
				if p.Info.Total.Total == prevTotal {
					continue
				}
				prevTotal = p.Info.Total.Total
			}
			res.calls++
			res.in += p.Info.Last.Input
			res.out += p.Info.Last.Output
		}
	}
	return res
}

// codexCorpusTurns is the model calls of each corpus file, and so whether
// every token_count found its call: in the real rollouts each call has one.
var codexCorpusTurns = map[string]struct{ turns, usage int }{
	"agentcmd__rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl": {132, 132}, // 0.40: usage before outputs
	"agentcmd__rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl": {35, 35},
	"codemie__rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl":  {66, 66}, // 0.125: usage after outputs
	"codemie__codex__turn-2.jsonl": {2, 2},
	"codemie__rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl": {20, 0}, // Desktop: no token_count
	"agent-history__SYNTHETIC__session_with_compaction.jsonl":                         {6, 1},  // synthetic: one token_count at the end
	"ccusage__codex__session-alpha.jsonl":                                             {2, 2},  // token_counts only
}

func TestCodexCorpus(t *testing.T) {
	dir := testutil.Corpus(t, "codex-cli")
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no rollouts in %s: %v", dir, err)
	}
	for _, p := range files {
		name := filepath.Base(p)
		t.Run(name, func(t *testing.T) {
			if got := detected(t, p); got != "codex-cli" {
				t.Errorf("detected as %q, want codex-cli", got)
			}
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			sink, err := ingest.Parse(context.Background(), "codex-cli", p, data, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(sink.Runs) != 1 || len(sink.Rejects) != 0 {
				t.Fatalf("got %d runs and %d rejects, want 1 and 0", len(sink.Runs), len(sink.Rejects))
			}
			run := sink.Runs[0]
			want := codexScan(t, data)
			if len(sink.Usage) != want.calls || run.UsageCalls != int64(want.calls) {
				t.Errorf("usage rows = %d, usage_calls = %d, want %d distinct token_count lines", len(sink.Usage), run.UsageCalls, want.calls)
			}
			if run.InputTokens != want.in || run.OutputTokens != want.out {
				t.Errorf("run tokens in/out = %d/%d, want %d/%d", run.InputTokens, run.OutputTokens, want.in, want.out)
			}
			if w, ok := codexCorpusTurns[name]; ok && (run.NTurns != int64(w.turns) || len(sink.Usage) != w.usage) {
				t.Errorf("n_turns/usage = %d/%d, want %d/%d", run.NTurns, len(sink.Usage), w.turns, w.usage)
			}
			outputs := map[int64]bool{} // turns with output items
			execTargets := map[string]bool{}
			for _, e := range sink.Events {
				if e.Kind.IsOutput() {
					outputs[e.Turn] = true
				}
				if e.Kind == schema.KindToolCall && e.ToolName == "exec_command" {
					execTargets[e.Target] = true
				}
			}
			for _, e := range sink.Events {
				if n, ok := want.names[e.CallID]; ok && e.Kind == schema.KindToolResult && e.ToolName != n {
					t.Errorf("result %s (line %d) has tool %q, want %q", e.CallID, e.Line, e.ToolName, n)
				}
				if e.Kind == schema.KindToolCall && e.ToolName == "write_stdin" && (e.Target == "" || !execTargets[e.Target]) {
					t.Errorf("write_stdin %s (line %d) has target %q, not an exec_command's", e.CallID, e.Line, e.Target)
				}
			}
			if len(sink.Events) > 0 {
				for _, u := range sink.Usage {
					if !outputs[u.Turn] {
						t.Errorf("usage of turn %d (ts %v) has no output items", u.Turn, u.TS)
					}
				}
			}
		})
	}
}
