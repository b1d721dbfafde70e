package ingest_test

import (
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

// The fixtures in testdata/atif are hand-written (see testdata/atif/README.md):
//
//	tools.trajectory.json      ids and positional links, reasoning, multimodal
//	                           results, cached tokens, cost, a deterministic
//	                           dispatch, a malformed step, confirmed completion
//	sum.trajectory*.json       linear-history summarization: root, summary
//	                           sub-trajectory and continuation (joined)
//	lin.trajectory*.json       root with two continuations (one run) and the
//	                           summarization of the first continuation
//	exception.trajectory.json  an AgentTimeoutError in extra
//	cutoff.trajectory.json     no session id; final_metrics exceed the steps
//	embedded.trajectory.json   ATIF-v1.7 subagent_trajectories; totals only
//	broken.trajectory.json     not JSON
//	trial.traces.json(l)       Harbor traces exports

func atifTS(t *testing.T, s string) *time.Time {
	t.Helper()
	ts, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return &ts
}

func atifI64(v int64) *int64     { return &v }
func atifF64(v float64) *float64 { return &v }
func atifBool(v bool) *bool      { return &v }

func atifParse(t *testing.T, path string) *ingest.MemSink {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sink, err := ingest.Parse(context.Background(), "atif", path, data, nil)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return sink
}

// atifReject is a reject without its raw text.
type atifReject struct {
	Line   int64
	Reason string
}

func atifRejects(rs []schema.Reject) []atifReject {
	var out []atifReject
	for _, r := range rs {
		out = append(out, atifReject{r.Line, r.Reason})
	}
	return out
}

// atifWant is what one fixture file must import to.
type atifWant struct {
	file    string
	runs    []schema.Run
	events  []schema.Event
	usage   []schema.Usage
	outputs []schema.ToolOutput
	ops     []schema.ContextOp
	rejects []atifReject
}

var atifCmpOpts = cmp.Options{
	cmpopts.IgnoreFields(schema.Run{}, "SourceFormat", "SourcePath", "SourceSHA256", "EstTokens", "Estimator", "ClassifiedBy", "SystemMentionsManageContext"), // the last two: TestBuilderDerives
	cmpopts.IgnoreFields(schema.Event{}, "Chars", "EstTokens", "ActionClass"),
	cmpopts.IgnoreFields(schema.ToolOutput{}, "Chars", "EstTokens"),
	cmpopts.EquateEmpty(),
	cmpopts.EquateApprox(0, 1e-9),
}

func atifCheck(t *testing.T, dir, format string, w atifWant, parse func(*testing.T, string) *ingest.MemSink) {
	t.Helper()
	atifCheckPath(t, filepath.Join("testdata", dir, w.file), format, w, parse)
}

// atifCheckPath is atifCheck for the file at path (w.file is not used).
func atifCheckPath(t *testing.T, path, format string, w atifWant, parse func(*testing.T, string) *ingest.MemSink) {
	t.Helper()
	sink := parse(t, path)
	for _, r := range sink.Runs {
		if r.SourceFormat != format || r.SourcePath != path {
			t.Errorf("run %s: source %s %s", r.RunID, r.SourceFormat, r.SourcePath)
		}
	}
	if diff := cmp.Diff(w.runs, sink.Runs, atifCmpOpts); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(w.events, sink.Events, atifCmpOpts); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(w.usage, sink.Usage, atifCmpOpts); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(w.outputs, sink.ToolOutputs, atifCmpOpts); diff != "" {
		t.Errorf("tool_outputs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(w.ops, sink.ContextOps, atifCmpOpts); diff != "" {
		t.Errorf("context_ops (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(w.rejects, atifRejects(sink.Rejects), atifCmpOpts); diff != "" {
		t.Errorf("rejects (-want +got):\n%s", diff)
	}
}

func TestATIFFixtures(t *testing.T) {
	const (
		tools = "sess-tools"
		sum   = "sess-sum"
		sub   = "sess-sum/summarization-1-summary"
	)
	lsArgs := `{"duration":0.1,"keystrokes":"ls\n"}`
	tests := []atifWant{{
		file: "tools.trajectory.json",
		runs: []schema.Run{{RunID: tools, Harness: "my-agent", Model: "anthropic/claude-sonnet-4-5", ModelFamily: "claude-sonnet-4",
			StartedAt: atifTS(t, "2026-01-02T10:00:00Z"), EndedAt: atifTS(t, "2026-01-02T10:00:14Z"),
			EndReason: schema.EndFinished, EndReasonSource: schema.SourceExplicit, EndReasonDetail: "task_complete confirmed",
			NTurns: 4, UsageCalls: 4, InputTokens: 5650, OutputTokens: 170, CacheReadTokens: 2200, CostUSD: atifF64(0.015)}},
		events: []schema.Event{
			{RunID: tools, Seq: 0, Turn: 0, TS: atifTS(t, "2026-01-02T10:00:00Z"), Kind: schema.KindSystem, Role: "system", Line: 10, Text: "You are a coding agent."},
			{RunID: tools, Seq: 1, Turn: 0, TS: atifTS(t, "2026-01-02T10:00:01Z"), Kind: schema.KindUser, Role: "user", Line: 16, Text: "Fix the failing test."},
			{RunID: tools, Seq: 2, Turn: 0, TS: atifTS(t, "2026-01-02T10:00:05Z"), Kind: schema.KindReasoning, Role: "assistant", Line: 22, Text: "Look at the test first."},
			{RunID: tools, Seq: 3, Turn: 0, TS: atifTS(t, "2026-01-02T10:00:05Z"), Kind: schema.KindAssistant, Role: "assistant", Line: 22, Text: "Reading the test and running it."},
			{RunID: tools, Seq: 4, Turn: 0, TS: atifTS(t, "2026-01-02T10:00:05Z"), Kind: schema.KindToolCall, Role: "assistant", Line: 22,
				ToolName: "read_file", CallID: "tc_read", Target: "pkg/a_test.go", Args: `{"path":"./pkg/a_test.go"}`, Text: `read_file {"path":"./pkg/a_test.go"}`},
			{RunID: tools, Seq: 5, Turn: 0, TS: atifTS(t, "2026-01-02T10:00:05Z"), Kind: schema.KindToolCall, Role: "assistant", Line: 22,
				ToolName: "bash", CallID: "tc_run", Target: "go test ./pkg", Args: `{"command":"go test ./pkg"}`, Text: `bash {"command":"go test ./pkg"}`},
			// results linked by source_call_id, in their own order
			{RunID: tools, Seq: 6, Turn: 1, TS: atifTS(t, "2026-01-02T10:00:05Z"), Kind: schema.KindToolResult, Role: "tool", Line: 22,
				ToolName: "bash", CallID: "tc_run", ToolKey: "tc_run", Target: "go test ./pkg", Text: "FAIL pkg"},
			{RunID: tools, Seq: 7, Turn: 1, TS: atifTS(t, "2026-01-02T10:00:05Z"), Kind: schema.KindToolResult, Role: "tool", Line: 22,
				ToolName: "read_file", CallID: "tc_read", ToolKey: "tc_read", Target: "pkg/a_test.go", Text: "package pkg\n[image]"},
			{RunID: tools, Seq: 8, Turn: 1, TS: atifTS(t, "2026-01-02T10:00:09Z"), Kind: schema.KindAssistant, Role: "assistant", Line: 76, Text: "Analysis: fix it.\nPlan: edit and rerun."},
			{RunID: tools, Seq: 9, Turn: 1, TS: atifTS(t, "2026-01-02T10:00:09Z"), Kind: schema.KindToolCall, Role: "assistant", Line: 76,
				ToolName: "bash_command", CallID: "call_1_1", Target: "sed -i 's/1/2/' pkg/a.go",
				Args: `{"duration":0.1,"keystrokes":"sed -i 's/1/2/' pkg/a.go\n"}`, Text: `bash_command {"duration":0.1,"keystrokes":"sed -i 's/1/2/' pkg/a.go\n"}`},
			{RunID: tools, Seq: 10, Turn: 1, TS: atifTS(t, "2026-01-02T10:00:09Z"), Kind: schema.KindToolCall, Role: "assistant", Line: 76,
				ToolName: "bash_command", CallID: "call_1_2", Target: "go test ./pkg",
				Args: `{"duration":1.0,"keystrokes":"go test ./pkg\n"}`, Text: `bash_command {"duration":1.0,"keystrokes":"go test ./pkg\n"}`},
			// one terminal output for the batch, without source_call_id: linked by position
			{RunID: tools, Seq: 11, Turn: 2, TS: atifTS(t, "2026-01-02T10:00:09Z"), Kind: schema.KindToolResult, Role: "tool", Line: 76,
				ToolName: "bash_command", CallID: "call_1_1", ToolKey: "call_1_1", Target: "sed -i 's/1/2/' pkg/a.go", Text: "ok pkg"},
			// llm_call_count 0: a deterministic dispatch begins no model call
			{RunID: tools, Seq: 12, Turn: 1, TS: atifTS(t, "2026-01-02T10:00:10Z"), Kind: schema.KindToolCall, Role: "assistant", Line: 113,
				ToolName: "git_status", CallID: "auto_1", Args: `{}`, Text: "git_status {}"},
			{RunID: tools, Seq: 13, Turn: 2, TS: atifTS(t, "2026-01-02T10:00:10Z"), Kind: schema.KindToolResult, Role: "tool", Line: 113,
				ToolName: "git_status", CallID: "auto_1", ToolKey: "auto_1", Text: "clean"},
			{RunID: tools, Seq: 14, Turn: 2, TS: atifTS(t, "2026-01-02T10:00:12Z"), Kind: schema.KindAssistant, Role: "assistant", Line: 141,
				Text: `{"analysis": "done", "task_complete": true}`},
			{RunID: tools, Seq: 15, Turn: 3, TS: atifTS(t, "2026-01-02T10:00:14Z"), Kind: schema.KindToolCall, Role: "assistant", Line: 151,
				ToolName: "mark_task_complete", CallID: "call_3_task_complete", Args: `{}`, Text: "mark_task_complete {}"},
			{RunID: tools, Seq: 16, Turn: 4, TS: atifTS(t, "2026-01-02T10:00:14Z"), Kind: schema.KindToolResult, Role: "tool", Line: 151,
				ToolName: "mark_task_complete", CallID: "call_3_task_complete", ToolKey: "call_3_task_complete", Text: "New Terminal Output:\n"},
		},
		usage: []schema.Usage{
			{RunID: tools, Turn: 0, TS: atifTS(t, "2026-01-02T10:00:05Z"), Model: "claude-sonnet-4-5-20250929", InputTokens: 1200, OutputTokens: 80, CacheReadTokens: 1000},
			{RunID: tools, Turn: 1, TS: atifTS(t, "2026-01-02T10:00:09Z"), Model: "anthropic/claude-sonnet-4-5", InputTokens: 1400, OutputTokens: 60, CacheReadTokens: 1200},
			{RunID: tools, Turn: 2, TS: atifTS(t, "2026-01-02T10:00:12Z"), Model: "anthropic/claude-sonnet-4-5", InputTokens: 1500, OutputTokens: 20},
			{RunID: tools, Turn: 3, TS: atifTS(t, "2026-01-02T10:00:14Z"), Model: "anthropic/claude-sonnet-4-5", InputTokens: 1550, OutputTokens: 10},
		},
		outputs: []schema.ToolOutput{
			{RunID: tools, ToolKey: "tc_run", CallID: "tc_run", ToolName: "bash", Target: "go test ./pkg", Turn: 1, Seq: 6},
			{RunID: tools, ToolKey: "tc_read", CallID: "tc_read", ToolName: "read_file", Target: "pkg/a_test.go", Turn: 1, Seq: 7},
			{RunID: tools, ToolKey: "call_1_1", CallID: "call_1_1", ToolName: "bash_command", Target: "sed -i 's/1/2/' pkg/a.go", Turn: 2, Seq: 11},
			{RunID: tools, ToolKey: "auto_1", CallID: "auto_1", ToolName: "git_status", Turn: 2, Seq: 13},
			{RunID: tools, ToolKey: "call_3_task_complete", CallID: "call_3_task_complete", ToolName: "mark_task_complete", Turn: 4, Seq: 16},
		},
		rejects: []atifReject{{135, `step 6: field tool_calls: an array was expected, got "not a list"`}},
	}, {
		// joined with sum.trajectory.cont-1.json beside it
		file: "sum.trajectory.json",
		runs: []schema.Run{{RunID: sum, Harness: "terminus-2", Model: "gpt-5", ModelFamily: "gpt-5",
			StartedAt: atifTS(t, "2026-01-05T08:00:00Z"), EndedAt: atifTS(t, "2026-01-05T08:00:15Z"),
			EndReason: schema.EndFinished, EndReasonSource: schema.SourceExplicit, EndReasonDetail: "task_complete confirmed",
			NTurns: 4, UsageCalls: 4, InputTokens: 7650, OutputTokens: 150}},
		events: []schema.Event{
			{RunID: sum, Seq: 0, TS: atifTS(t, "2026-01-05T08:00:00Z"), Kind: schema.KindUser, Role: "user", Line: 13, Text: "Task: create hello.txt"},
			{RunID: sum, Seq: 1, TS: atifTS(t, "2026-01-05T08:00:04Z"), Kind: schema.KindAssistant, Role: "assistant", Line: 19, Text: "Analysis: start."},
			{RunID: sum, Seq: 2, TS: atifTS(t, "2026-01-05T08:00:04Z"), Kind: schema.KindToolCall, Role: "assistant", Line: 19,
				ToolName: "bash_command", CallID: "call_0_1", Target: "ls", Args: lsArgs, Text: "bash_command " + lsArgs},
			{RunID: sum, Seq: 3, Turn: 1, TS: atifTS(t, "2026-01-05T08:00:04Z"), Kind: schema.KindToolResult, Role: "tool", Line: 19,
				ToolName: "bash_command", CallID: "call_0_1", ToolKey: "call_0_1", Target: "ls", Text: "a.txt"},
			{RunID: sum, Seq: 4, Turn: 1, TS: atifTS(t, "2026-01-05T08:00:09Z"), Kind: schema.KindCompaction, Role: "system", Line: 46,
				Text: "Performed context summarization and handoff to continue task."},
			// sum.trajectory.cont-1.json (lines within that file): the
			// copied steps as the hand-off, then its calls as turns 1-3
			{RunID: sum, Seq: 5, Turn: 1, Kind: schema.KindCompaction, Role: "system", Line: 14, Text: "Task: create hello.txt\n\nSummary: I listed the files."},
			{RunID: sum, Seq: 6, Turn: 1, TS: atifTS(t, "2026-01-05T08:00:12Z"), Kind: schema.KindAssistant, Role: "assistant", Line: 26,
				Text: `{"commands": [{"keystrokes": "touch hello.txt\n"}], "task_complete": false}`},
			{RunID: sum, Seq: 7, Turn: 2, TS: atifTS(t, "2026-01-05T08:00:12Z"), Kind: schema.KindToolResult, Role: "tool", Line: 26, ToolKey: "t7", Text: "done"},
			{RunID: sum, Seq: 8, Turn: 2, TS: atifTS(t, "2026-01-05T08:00:14Z"), Kind: schema.KindAssistant, Role: "assistant", Line: 44,
				Text: `{"commands": [], "task_complete": true}`},
			{RunID: sum, Seq: 9, Turn: 3, TS: atifTS(t, "2026-01-05T08:00:14Z"), Kind: schema.KindToolResult, Role: "tool", Line: 44, ToolKey: "t9", Text: "Are you sure?"},
			{RunID: sum, Seq: 10, Turn: 3, TS: atifTS(t, "2026-01-05T08:00:15Z"), Kind: schema.KindAssistant, Role: "assistant", Line: 62,
				Text: `{"commands": [], "task_complete": true}`},
			{RunID: sum, Seq: 11, Turn: 4, TS: atifTS(t, "2026-01-05T08:00:15Z"), Kind: schema.KindToolResult, Role: "tool", Line: 62, ToolKey: "t11"},
		},
		usage: []schema.Usage{
			{RunID: sum, Turn: 0, TS: atifTS(t, "2026-01-05T08:00:04Z"), Model: "openai/gpt-5", InputTokens: 5000, OutputTokens: 100},
			{RunID: sum, Turn: 1, TS: atifTS(t, "2026-01-05T08:00:12Z"), Model: "gpt-5", InputTokens: 800, OutputTokens: 30},
			{RunID: sum, Turn: 2, TS: atifTS(t, "2026-01-05T08:00:14Z"), Model: "gpt-5", InputTokens: 900, OutputTokens: 10},
			{RunID: sum, Turn: 3, TS: atifTS(t, "2026-01-05T08:00:15Z"), Model: "gpt-5", InputTokens: 950, OutputTokens: 10},
		},
		outputs: []schema.ToolOutput{
			{RunID: sum, ToolKey: "call_0_1", CallID: "call_0_1", ToolName: "bash_command", Target: "ls", Turn: 1, Seq: 3},
			{RunID: sum, ToolKey: "t7", Turn: 2, Seq: 7}, {RunID: sum, ToolKey: "t9", Turn: 3, Seq: 9}, {RunID: sum, ToolKey: "t11", Turn: 4, Seq: 11},
		},
		ops: []schema.ContextOp{
			{RunID: sum, Seq: 4, Turn: 1, Op: schema.OpCompaction, TokensBefore: atifI64(5000), Trigger: "auto",
				Detail: "context_management compaction replace (trajectory.summarization-1-summary.json)"},
			{RunID: sum, Seq: 5, Turn: 1, Op: schema.OpContinuation, TokensBefore: atifI64(5000), TokensAfter: atifI64(800), Trigger: "auto",
				Detail: "continuation 1 of sess-sum: 2 copied steps"},
		},
	}, {
		file: "sum.trajectory.summarization-1-summary.json",
		runs: []schema.Run{{RunID: sub, ParentRunID: sum, Harness: "terminus-2-summarization-summary", Model: "openai/gpt-5", ModelFamily: "gpt-5",
			StartedAt: atifTS(t, "2026-01-05T08:00:06Z"), EndedAt: atifTS(t, "2026-01-05T08:00:08Z"),
			EndReason: schema.EndUnknown, EndReasonSource: schema.SourceInferred, NTurns: 1, UsageCalls: 1, InputTokens: 5100, OutputTokens: 40}},
		events: []schema.Event{
			// the two copied steps, stored once as the hand-off
			{RunID: sub, Seq: 0, Kind: schema.KindContextOp, Role: "system", Line: 14,
				Text: "Task: create hello.txt\n\nAnalysis: start.\nbash_command " + lsArgs + "\na.txt"},
			{RunID: sub, Seq: 1, TS: atifTS(t, "2026-01-05T08:00:06Z"), Kind: schema.KindUser, Role: "user", Line: 46, Text: "Summarize your work."},
			{RunID: sub, Seq: 2, TS: atifTS(t, "2026-01-05T08:00:08Z"), Kind: schema.KindAssistant, Role: "assistant", Line: 52, Text: "I listed the files."},
		},
		usage: []schema.Usage{{RunID: sub, TS: atifTS(t, "2026-01-05T08:00:08Z"), Model: "openai/gpt-5", InputTokens: 5100, OutputTokens: 40}},
		ops:   []schema.ContextOp{{RunID: sub, Op: schema.OpSummary, Trigger: "auto", Detail: "summarization 1 summary for sess-sum: 2 copied steps"}},
	}, {
		// imported with sum.trajectory.json beside it: nothing of its own
		// (alone: TestATIFContinuationAlone)
		file: "sum.trajectory.cont-1.json",
	}, {
		file: "exception.trajectory.json",
		runs: []schema.Run{{RunID: "sess-exc", Harness: "terminus-2", Model: "openai/gpt-5", ModelFamily: "gpt-5",
			EndReason: schema.EndInterrupted, EndReasonSource: schema.SourceExplicit,
			EndReasonDetail: "AgentTimeoutError: Agent execution timed out after 900.0 seconds",
			NTurns:          1, UsageCalls: 1, InputTokens: 300, OutputTokens: 20}},
		events: []schema.Event{
			{RunID: "sess-exc", Seq: 0, Kind: schema.KindUser, Role: "user", Line: 10, Text: "Task: long job"},
			{RunID: "sess-exc", Seq: 1, Kind: schema.KindAssistant, Role: "assistant", Line: 15, Text: "Analysis: wait."},
			{RunID: "sess-exc", Seq: 2, Kind: schema.KindToolCall, Role: "assistant", Line: 15, ToolName: "bash_command", CallID: "call_0_1",
				Target: "sleep 1000", Args: `{"duration":60,"keystrokes":"sleep 1000\n"}`, Text: `bash_command {"duration":60,"keystrokes":"sleep 1000\n"}`},
			{RunID: "sess-exc", Seq: 3, Turn: 1, Kind: schema.KindToolResult, Role: "tool", Line: 15, ToolName: "bash_command", CallID: "call_0_1",
				ToolKey: "call_0_1", Target: "sleep 1000", Text: "$ sleep 1000"},
		},
		usage:   []schema.Usage{{RunID: "sess-exc", Model: "openai/gpt-5", InputTokens: 300, OutputTokens: 20}},
		outputs: []schema.ToolOutput{{RunID: "sess-exc", ToolKey: "call_0_1", CallID: "call_0_1", ToolName: "bash_command", Target: "sleep 1000", Turn: 1, Seq: 3}},
	}, {
		file: "cutoff.trajectory.json",
		// no session id: the run is named after the file; final_metrics count
		// 100 prompt and 30 completion tokens no step records
		runs: []schema.Run{{RunID: "cutoff", Harness: "terminus-2", Model: "openai/gpt-5", ModelFamily: "gpt-5",
			EndReason: schema.EndInterrupted, EndReasonSource: schema.SourceInferred,
			EndReasonDetail: "final_metrics count 100 prompt and 30 completion tokens that no step records: stopped during a step (agent timeout or cancellation)",
			NTurns:          2, UsageCalls: 2, InputTokens: 700, OutputTokens: 80}},
		events: []schema.Event{
			{RunID: "cutoff", Seq: 0, Kind: schema.KindUser, Role: "user", Line: 9, Text: "Task: echo"},
			{RunID: "cutoff", Seq: 1, Kind: schema.KindAssistant, Role: "assistant", Line: 14, Text: "Analysis: echo."},
			{RunID: "cutoff", Seq: 2, Kind: schema.KindToolCall, Role: "assistant", Line: 14, ToolName: "bash_command", CallID: "call_0_1",
				Target: "echo hi", Args: `{"duration":0.1,"keystrokes":"echo hi\n"}`, Text: `bash_command {"duration":0.1,"keystrokes":"echo hi\n"}`},
			{RunID: "cutoff", Seq: 3, Turn: 1, Kind: schema.KindToolResult, Role: "tool", Line: 14, ToolName: "bash_command", CallID: "call_0_1",
				ToolKey: "call_0_1", Target: "echo hi", Text: "hi"},
			{RunID: "cutoff", Seq: 4, Turn: 1, Kind: schema.KindAssistant, Role: "assistant", Line: 40, Text: "Analysis: wait."},
			{RunID: "cutoff", Seq: 5, Turn: 1, Kind: schema.KindToolCall, Role: "assistant", Line: 40, ToolName: "bash_command", CallID: "call_1_1",
				Target: "sleep 5", Args: `{"duration":5.0,"keystrokes":"sleep 5\n"}`, Text: `bash_command {"duration":5.0,"keystrokes":"sleep 5\n"}`},
			{RunID: "cutoff", Seq: 6, Turn: 2, Kind: schema.KindToolResult, Role: "tool", Line: 40, ToolName: "bash_command", CallID: "call_1_1",
				ToolKey: "call_1_1", Target: "sleep 5", Text: "$ sleep 5"},
		},
		usage: []schema.Usage{
			{RunID: "cutoff", Turn: 0, Model: "openai/gpt-5", InputTokens: 600, OutputTokens: 50},
			{RunID: "cutoff", Turn: 1, Model: "openai/gpt-5", InputTokens: 100, OutputTokens: 30},
		},
		outputs: []schema.ToolOutput{
			{RunID: "cutoff", ToolKey: "call_0_1", CallID: "call_0_1", ToolName: "bash_command", Target: "echo hi", Turn: 1, Seq: 3},
			{RunID: "cutoff", ToolKey: "call_1_1", CallID: "call_1_1", ToolName: "bash_command", Target: "sleep 5", Turn: 2, Seq: 6},
		},
	}, {
		file: "embedded.trajectory.json",
		runs: []schema.Run{
			// no step metrics: final_metrics are the totals, no usage rows
			{RunID: "sess-main", Harness: "claude-code", Model: "claude-opus-4-1", ModelFamily: "claude-opus-4",
				EndReason: schema.EndUnknown, EndReasonSource: schema.SourceInferred, NTurns: 2, UsageEstimated: true,
				InputTokens: 9000, OutputTokens: 300, CacheReadTokens: 8000, CostUSD: atifF64(0.12)},
			{RunID: "traj-sub", ParentRunID: "sess-main", Harness: "claude-code-subagent", Model: "claude-haiku-4-5", ModelFamily: "claude-haiku-4",
				EndReason: schema.EndUnknown, EndReasonSource: schema.SourceInferred, NTurns: 1, UsageCalls: 1,
				InputTokens: 2000, OutputTokens: 15, CacheReadTokens: 1500},
		},
		events: []schema.Event{
			{RunID: "sess-main", Seq: 0, Kind: schema.KindUser, Role: "user", Line: 11, Text: "Review the repo."},
			{RunID: "sess-main", Seq: 1, Kind: schema.KindAssistant, Role: "assistant", Line: 16, Text: "Delegating."},
			{RunID: "sess-main", Seq: 2, Kind: schema.KindToolCall, Role: "assistant", Line: 16, ToolName: "Task", CallID: "toolu_1",
				Args: `{"prompt":"list files"}`, Text: `Task {"prompt":"list files"}`},
			{RunID: "sess-main", Seq: 3, Turn: 1, Kind: schema.KindToolResult, Role: "tool", Line: 16, ToolName: "Task", CallID: "toolu_1",
				ToolKey: "toolu_1", Text: "subagent trajectory: traj-sub"},
			{RunID: "sess-main", Seq: 4, Turn: 1, Kind: schema.KindAssistant, Role: "assistant", Line: 43, Text: "All good."},
			{RunID: "traj-sub", Seq: 0, Kind: schema.KindUser, Role: "user", Line: 66, Text: "list files"},
			{RunID: "traj-sub", Seq: 1, Kind: schema.KindToolCall, Role: "assistant", Line: 71, ToolName: "Glob", CallID: "toolu_2",
				Target: "**/*.go", Args: `{"pattern":"**/*.go"}`, Text: `Glob {"pattern":"**/*.go"}`},
			{RunID: "traj-sub", Seq: 2, Turn: 1, Kind: schema.KindToolResult, Role: "tool", Line: 71, ToolName: "Glob", CallID: "toolu_2",
				ToolKey: "toolu_2", Target: "**/*.go", Text: "a.go"},
		},
		usage: []schema.Usage{{RunID: "traj-sub", Model: "claude-haiku-4-5", InputTokens: 2000, OutputTokens: 15, CacheReadTokens: 1500}},
		outputs: []schema.ToolOutput{
			{RunID: "sess-main", ToolKey: "toolu_1", CallID: "toolu_1", ToolName: "Task", Turn: 1, Seq: 3},
			{RunID: "traj-sub", ToolKey: "toolu_2", CallID: "toolu_2", ToolName: "Glob", Target: "**/*.go", Turn: 1, Seq: 2},
		},
	}, {
		file:    "broken.trajectory.json",
		rejects: []atifReject{{6, "invalid JSON: ',' or '}' was expected, got ']'"}},
	}}
	for _, w := range tests {
		t.Run(w.file, func(t *testing.T) { atifCheck(t, "atif", "atif", w, atifParse) })
	}
}

// TestATIFContinuations imports lin.trajectory.json, whose continuations
// .cont-1 and .cont-2 sit beside it (Harbor's linear_history mode): one run
// with one seq and turn numbering, a continuation op at each file boundary,
// the end reason of the last file. The continuation files add nothing of
// their own, and the summarization made in cont-1 is a child of the joined
// run.
func TestATIFContinuations(t *testing.T) {
	const (
		lin = "sess-lin"
		sub = "sess-lin/summarization-2-summary"
	)
	lsArgs := `{"duration":0.1,"keystrokes":"ls\n"}`
	makeArgs := `{"duration":1.0,"keystrokes":"make\n"}`
	testArgs := `{"duration":5.0,"keystrokes":"make test\n"}`
	handoff := "Performed context summarization and handoff to continue task."
	tests := []atifWant{{
		file: "lin.trajectory.json",
		runs: []schema.Run{{RunID: lin, Harness: "terminus-2", Model: "openai/gpt-5", ModelFamily: "gpt-5",
			StartedAt: atifTS(t, "2026-01-06T09:00:00Z"), EndedAt: atifTS(t, "2026-01-06T09:00:20Z"),
			// from lin.trajectory.cont-2.json
			EndReason: schema.EndInterrupted, EndReasonSource: schema.SourceExplicit,
			EndReasonDetail: "AgentTimeoutError: Agent execution timed out after 60.0 seconds",
			NTurns:          3, UsageCalls: 3, InputTokens: 1700, OutputTokens: 120, CostUSD: atifF64(0.019)}},
		events: []schema.Event{
			{RunID: lin, Seq: 0, Turn: 0, TS: atifTS(t, "2026-01-06T09:00:00Z"), Kind: schema.KindUser, Role: "user", Line: 13, Text: "Task: build it"},
			{RunID: lin, Seq: 1, Turn: 0, TS: atifTS(t, "2026-01-06T09:00:02Z"), Kind: schema.KindAssistant, Role: "assistant", Line: 19, Text: "Analysis: look."},
			{RunID: lin, Seq: 2, Turn: 0, TS: atifTS(t, "2026-01-06T09:00:02Z"), Kind: schema.KindToolCall, Role: "assistant", Line: 19,
				ToolName: "bash_command", CallID: "call_0_1", Target: "ls", Args: lsArgs, Text: "bash_command " + lsArgs},
			{RunID: lin, Seq: 3, Turn: 1, TS: atifTS(t, "2026-01-06T09:00:02Z"), Kind: schema.KindToolResult, Role: "tool", Line: 19,
				ToolName: "bash_command", CallID: "call_0_1", ToolKey: "call_0_1", Target: "ls", Text: "src"},
			{RunID: lin, Seq: 4, Turn: 1, TS: atifTS(t, "2026-01-06T09:00:05Z"), Kind: schema.KindCompaction, Role: "system", Line: 48, Text: handoff},
			// lin.trajectory.cont-1.json: lines within that file; its two
			// copied steps are the hand-off
			{RunID: lin, Seq: 5, Turn: 1, Kind: schema.KindCompaction, Role: "system", Line: 14, Text: "Task: build it\n\nSummary: listed src."},
			{RunID: lin, Seq: 6, Turn: 1, TS: atifTS(t, "2026-01-06T09:00:10Z"), Kind: schema.KindAssistant, Role: "assistant", Line: 26, Text: "Analysis: build."},
			{RunID: lin, Seq: 7, Turn: 1, TS: atifTS(t, "2026-01-06T09:00:10Z"), Kind: schema.KindToolCall, Role: "assistant", Line: 26,
				ToolName: "bash_command", CallID: "call_0_1", Target: "make", Args: makeArgs, Text: "bash_command " + makeArgs},
			// the call id repeats the root's: the tool key is made unique
			{RunID: lin, Seq: 8, Turn: 2, TS: atifTS(t, "2026-01-06T09:00:10Z"), Kind: schema.KindToolResult, Role: "tool", Line: 26,
				ToolName: "bash_command", CallID: "call_0_1", ToolKey: "call_0_1#2", Target: "make", Text: "ok"},
			{RunID: lin, Seq: 9, Turn: 2, TS: atifTS(t, "2026-01-06T09:00:15Z"), Kind: schema.KindCompaction, Role: "system", Line: 55, Text: handoff},
			// lin.trajectory.cont-2.json: no copied steps, an empty hand-off
			// at the steps array
			{RunID: lin, Seq: 10, Turn: 2, Kind: schema.KindCompaction, Role: "system", Line: 13},
			{RunID: lin, Seq: 11, Turn: 2, TS: atifTS(t, "2026-01-06T09:00:20Z"), Kind: schema.KindAssistant, Role: "assistant", Line: 14, Text: "Analysis: test."},
			{RunID: lin, Seq: 12, Turn: 2, TS: atifTS(t, "2026-01-06T09:00:20Z"), Kind: schema.KindToolCall, Role: "assistant", Line: 14,
				ToolName: "bash_command", CallID: "call_1_1", Target: "make test", Args: testArgs, Text: "bash_command " + testArgs},
			{RunID: lin, Seq: 13, Turn: 3, TS: atifTS(t, "2026-01-06T09:00:20Z"), Kind: schema.KindToolResult, Role: "tool", Line: 14,
				ToolName: "bash_command", CallID: "call_1_1", ToolKey: "call_1_1", Target: "make test", Text: "PASS"},
		},
		usage: []schema.Usage{
			{RunID: lin, Turn: 0, TS: atifTS(t, "2026-01-06T09:00:02Z"), Model: "openai/gpt-5", InputTokens: 1000, OutputTokens: 50},
			{RunID: lin, Turn: 1, TS: atifTS(t, "2026-01-06T09:00:10Z"), Model: "openai/gpt-5", InputTokens: 400, OutputTokens: 40},
			{RunID: lin, Turn: 2, TS: atifTS(t, "2026-01-06T09:00:20Z"), Model: "openai/gpt-5", InputTokens: 300, OutputTokens: 30},
		},
		outputs: []schema.ToolOutput{
			{RunID: lin, ToolKey: "call_0_1", CallID: "call_0_1", ToolName: "bash_command", Target: "ls", Turn: 1, Seq: 3},
			{RunID: lin, ToolKey: "call_0_1#2", CallID: "call_0_1", ToolName: "bash_command", Target: "make", Turn: 2, Seq: 8},
			{RunID: lin, ToolKey: "call_1_1", CallID: "call_1_1", ToolName: "bash_command", Target: "make test", Turn: 3, Seq: 13},
		},
		ops: []schema.ContextOp{
			{RunID: lin, Seq: 4, Turn: 1, Op: schema.OpCompaction, TokensBefore: atifI64(1000), Trigger: "auto",
				Detail: "context summarization and handoff (trajectory.summarization-1-summary.json)"},
			{RunID: lin, Seq: 5, Turn: 1, Op: schema.OpContinuation, TokensBefore: atifI64(1000), TokensAfter: atifI64(400), Trigger: "auto",
				Detail: "continuation 1 of sess-lin: 2 copied steps"},
			{RunID: lin, Seq: 9, Turn: 2, Op: schema.OpCompaction, TokensBefore: atifI64(400), Trigger: "auto",
				Detail: "context summarization and handoff (trajectory.summarization-2-summary.json)"},
			{RunID: lin, Seq: 10, Turn: 2, Op: schema.OpContinuation, TokensBefore: atifI64(400), TokensAfter: atifI64(300), Trigger: "auto",
				Detail: "continuation 2 of sess-lin"},
		},
	}, {
		file: "lin.trajectory.cont-1.json", // in lin.trajectory.json's run
	}, {
		file: "lin.trajectory.cont-2.json", // in lin.trajectory.json's run
	}, {
		// parent_session_id sess-lin-cont-1, joined into sess-lin
		file: "lin.trajectory.summarization-2-summary.json",
		runs: []schema.Run{{RunID: sub, ParentRunID: lin, Harness: "terminus-2-summarization-summary", Model: "openai/gpt-5", ModelFamily: "gpt-5",
			StartedAt: atifTS(t, "2026-01-06T09:00:12Z"), EndedAt: atifTS(t, "2026-01-06T09:00:14Z"),
			EndReason: schema.EndUnknown, EndReasonSource: schema.SourceInferred, NTurns: 1, UsageCalls: 1, InputTokens: 450, OutputTokens: 20}},
		events: []schema.Event{
			{RunID: sub, Seq: 0, Kind: schema.KindContextOp, Role: "system", Line: 14, Text: "Summary: listed src."},
			{RunID: sub, Seq: 1, TS: atifTS(t, "2026-01-06T09:00:12Z"), Kind: schema.KindUser, Role: "user", Line: 20, Text: "Summarize your work."},
			{RunID: sub, Seq: 2, TS: atifTS(t, "2026-01-06T09:00:14Z"), Kind: schema.KindAssistant, Role: "assistant", Line: 26, Text: "I built it."},
		},
		usage: []schema.Usage{{RunID: sub, TS: atifTS(t, "2026-01-06T09:00:14Z"), Model: "openai/gpt-5", InputTokens: 450, OutputTokens: 20}},
		ops:   []schema.ContextOp{{RunID: sub, Op: schema.OpSummary, Trigger: "auto", Detail: "summarization 2 summary for sess-lin: 1 copied steps"}},
	}}
	for _, w := range tests {
		t.Run(w.file, func(t *testing.T) { atifCheck(t, "atif", "atif", w, atifParse) })
	}
}

// TestATIFContinuationFiles imports a continuation file on its own with
// ingest.Files, as the CLI does: its root sits beside it, so the file is
// imported (a source) but holds no run.
func TestATIFContinuationFiles(t *testing.T) {
	type result struct {
		Files, Skipped, Failed                int
		Runs, Events, Rejects, SourceRuns     int64
		SinkRuns, SinkEvents, SinkOps, Usages int
	}
	tests := []struct {
		file string
		want result
	}{
		{"lin.trajectory.cont-1.json", result{Files: 1}},
		{"lin.trajectory.cont-2.json", result{Files: 1}},
		{"sum.trajectory.cont-1.json", result{Files: 1}},
		// the root itself holds its continuations
		{"lin.trajectory.json", result{Files: 1, Runs: 1, Events: 14, SourceRuns: 1, SinkRuns: 1, SinkEvents: 14, SinkOps: 4, Usages: 3}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			sink := &ingest.MemSink{}
			sum, err := ingest.Files(context.Background(), sink, []string{filepath.Join("testdata", "atif", tc.file)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(sum.Errors) > 0 || len(sink.Sources) != 1 {
				t.Fatalf("errors %v, %d sources", sum.Errors, len(sink.Sources))
			}
			got := result{Files: sum.Files, Skipped: sum.Skipped, Failed: sum.Failed, Runs: sum.Runs, Events: sum.Events, Rejects: sum.Rejects,
				SourceRuns: sink.Sources[0].Runs, SinkRuns: len(sink.Runs), SinkEvents: len(sink.Events), SinkOps: len(sink.ContextOps), Usages: len(sink.Usage)}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("import (-want +got):\n%s", diff)
			}
		})
	}
}

// TestATIFContinuationAlone imports fixtures copied into an empty directory:
// a continuation without its root beside it (or after a gap in the
// numbering) is a child run of the root as before, the root stops at the
// gap, and a summarization of a continuation that is not joined keeps that
// continuation's run as parent.
func TestATIFContinuationAlone(t *testing.T) {
	const (
		sum  = "sess-sum"
		cont = "sess-sum/cont-1"
		lin  = "sess-lin"
		c2   = "sess-lin/cont-2"
		sub  = "sess-lin/summarization-2-summary"
	)
	lsArgs := `{"duration":0.1,"keystrokes":"ls\n"}`
	testArgs := `{"duration":5.0,"keystrokes":"make test\n"}`
	tests := []struct {
		name string
		copy []string // fixtures in the directory
		want atifWant // want.file is the one imported
	}{{
		name: "continuation without root",
		copy: []string{"sum.trajectory.cont-1.json"},
		want: atifWant{
			file: "sum.trajectory.cont-1.json",
			runs: []schema.Run{{RunID: cont, ParentRunID: sum, Harness: "terminus-2", Model: "gpt-5", ModelFamily: "gpt-5",
				StartedAt: atifTS(t, "2026-01-05T08:00:12Z"), EndedAt: atifTS(t, "2026-01-05T08:00:15Z"),
				EndReason: schema.EndFinished, EndReasonSource: schema.SourceExplicit, EndReasonDetail: "task_complete confirmed",
				NTurns: 3, UsageCalls: 3, InputTokens: 2650, OutputTokens: 50}},
			events: []schema.Event{
				{RunID: cont, Seq: 0, Kind: schema.KindCompaction, Role: "system", Line: 14, Text: "Task: create hello.txt\n\nSummary: I listed the files."},
				{RunID: cont, Seq: 1, TS: atifTS(t, "2026-01-05T08:00:12Z"), Kind: schema.KindAssistant, Role: "assistant", Line: 26,
					Text: `{"commands": [{"keystrokes": "touch hello.txt\n"}], "task_complete": false}`},
				{RunID: cont, Seq: 2, Turn: 1, TS: atifTS(t, "2026-01-05T08:00:12Z"), Kind: schema.KindToolResult, Role: "tool", Line: 26, ToolKey: "t2", Text: "done"},
				{RunID: cont, Seq: 3, Turn: 1, TS: atifTS(t, "2026-01-05T08:00:14Z"), Kind: schema.KindAssistant, Role: "assistant", Line: 44,
					Text: `{"commands": [], "task_complete": true}`},
				{RunID: cont, Seq: 4, Turn: 2, TS: atifTS(t, "2026-01-05T08:00:14Z"), Kind: schema.KindToolResult, Role: "tool", Line: 44, ToolKey: "t4", Text: "Are you sure?"},
				{RunID: cont, Seq: 5, Turn: 2, TS: atifTS(t, "2026-01-05T08:00:15Z"), Kind: schema.KindAssistant, Role: "assistant", Line: 62,
					Text: `{"commands": [], "task_complete": true}`},
				{RunID: cont, Seq: 6, Turn: 3, TS: atifTS(t, "2026-01-05T08:00:15Z"), Kind: schema.KindToolResult, Role: "tool", Line: 62, ToolKey: "t6"},
			},
			usage: []schema.Usage{
				{RunID: cont, Turn: 0, TS: atifTS(t, "2026-01-05T08:00:12Z"), Model: "gpt-5", InputTokens: 800, OutputTokens: 30},
				{RunID: cont, Turn: 1, TS: atifTS(t, "2026-01-05T08:00:14Z"), Model: "gpt-5", InputTokens: 900, OutputTokens: 10},
				{RunID: cont, Turn: 2, TS: atifTS(t, "2026-01-05T08:00:15Z"), Model: "gpt-5", InputTokens: 950, OutputTokens: 10},
			},
			outputs: []schema.ToolOutput{
				{RunID: cont, ToolKey: "t2", Turn: 1, Seq: 2}, {RunID: cont, ToolKey: "t4", Turn: 2, Seq: 4}, {RunID: cont, ToolKey: "t6", Turn: 3, Seq: 6},
			},
			ops: []schema.ContextOp{{RunID: cont, Op: schema.OpContinuation, TokensAfter: atifI64(800), Trigger: "auto",
				Detail: "continuation 1 of sess-sum: 2 copied steps"}},
		},
	}, {
		name: "continuation after a gap",
		copy: []string{"lin.trajectory.json", "lin.trajectory.cont-2.json"},
		want: atifWant{
			file: "lin.trajectory.cont-2.json",
			runs: []schema.Run{{RunID: c2, ParentRunID: lin, Harness: "terminus-2", Model: "openai/gpt-5", ModelFamily: "gpt-5",
				StartedAt: atifTS(t, "2026-01-06T09:00:20Z"), EndedAt: atifTS(t, "2026-01-06T09:00:20Z"),
				EndReason: schema.EndInterrupted, EndReasonSource: schema.SourceExplicit,
				EndReasonDetail: "AgentTimeoutError: Agent execution timed out after 60.0 seconds",
				NTurns:          1, UsageCalls: 1, InputTokens: 300, OutputTokens: 30, CostUSD: atifF64(0.004)}},
			events: []schema.Event{
				{RunID: c2, Seq: 0, Kind: schema.KindCompaction, Role: "system", Line: 13},
				{RunID: c2, Seq: 1, TS: atifTS(t, "2026-01-06T09:00:20Z"), Kind: schema.KindAssistant, Role: "assistant", Line: 14, Text: "Analysis: test."},
				{RunID: c2, Seq: 2, TS: atifTS(t, "2026-01-06T09:00:20Z"), Kind: schema.KindToolCall, Role: "assistant", Line: 14,
					ToolName: "bash_command", CallID: "call_1_1", Target: "make test", Args: testArgs, Text: "bash_command " + testArgs},
				{RunID: c2, Seq: 3, Turn: 1, TS: atifTS(t, "2026-01-06T09:00:20Z"), Kind: schema.KindToolResult, Role: "tool", Line: 14,
					ToolName: "bash_command", CallID: "call_1_1", ToolKey: "call_1_1", Target: "make test", Text: "PASS"},
			},
			usage:   []schema.Usage{{RunID: c2, TS: atifTS(t, "2026-01-06T09:00:20Z"), Model: "openai/gpt-5", InputTokens: 300, OutputTokens: 30}},
			outputs: []schema.ToolOutput{{RunID: c2, ToolKey: "call_1_1", CallID: "call_1_1", ToolName: "bash_command", Target: "make test", Turn: 1, Seq: 3}},
			ops: []schema.ContextOp{{RunID: c2, Op: schema.OpContinuation, TokensAfter: atifI64(300), Trigger: "auto",
				Detail: "continuation 2 of sess-lin"}},
		},
	}, {
		name: "root before a gap",
		copy: []string{"lin.trajectory.json", "lin.trajectory.cont-2.json"},
		want: atifWant{
			file: "lin.trajectory.json",
			runs: []schema.Run{{RunID: lin, Harness: "terminus-2", Model: "openai/gpt-5", ModelFamily: "gpt-5",
				StartedAt: atifTS(t, "2026-01-06T09:00:00Z"), EndedAt: atifTS(t, "2026-01-06T09:00:05Z"),
				EndReason: schema.EndUnknown, EndReasonSource: schema.SourceInferred, EndReasonDetail: "continued in trajectory.cont-1.json",
				NTurns: 1, UsageCalls: 1, InputTokens: 1000, OutputTokens: 50, CostUSD: atifF64(0.01)}},
			events: []schema.Event{
				{RunID: lin, Seq: 0, TS: atifTS(t, "2026-01-06T09:00:00Z"), Kind: schema.KindUser, Role: "user", Line: 13, Text: "Task: build it"},
				{RunID: lin, Seq: 1, TS: atifTS(t, "2026-01-06T09:00:02Z"), Kind: schema.KindAssistant, Role: "assistant", Line: 19, Text: "Analysis: look."},
				{RunID: lin, Seq: 2, TS: atifTS(t, "2026-01-06T09:00:02Z"), Kind: schema.KindToolCall, Role: "assistant", Line: 19,
					ToolName: "bash_command", CallID: "call_0_1", Target: "ls", Args: lsArgs, Text: "bash_command " + lsArgs},
				{RunID: lin, Seq: 3, Turn: 1, TS: atifTS(t, "2026-01-06T09:00:02Z"), Kind: schema.KindToolResult, Role: "tool", Line: 19,
					ToolName: "bash_command", CallID: "call_0_1", ToolKey: "call_0_1", Target: "ls", Text: "src"},
				{RunID: lin, Seq: 4, Turn: 1, TS: atifTS(t, "2026-01-06T09:00:05Z"), Kind: schema.KindCompaction, Role: "system", Line: 48,
					Text: "Performed context summarization and handoff to continue task."},
			},
			usage:   []schema.Usage{{RunID: lin, TS: atifTS(t, "2026-01-06T09:00:02Z"), Model: "openai/gpt-5", InputTokens: 1000, OutputTokens: 50}},
			outputs: []schema.ToolOutput{{RunID: lin, ToolKey: "call_0_1", CallID: "call_0_1", ToolName: "bash_command", Target: "ls", Turn: 1, Seq: 3}},
			ops: []schema.ContextOp{{RunID: lin, Seq: 4, Turn: 1, Op: schema.OpCompaction, TokensBefore: atifI64(1000), Trigger: "auto",
				Detail: "context summarization and handoff (trajectory.summarization-1-summary.json)"}},
		},
	}, {
		name: "summarization of a continuation that is not joined",
		copy: []string{"lin.trajectory.json", "lin.trajectory.summarization-2-summary.json"},
		want: atifWant{
			file: "lin.trajectory.summarization-2-summary.json",
			runs: []schema.Run{{RunID: sub, ParentRunID: "sess-lin/cont-1", Harness: "terminus-2-summarization-summary", Model: "openai/gpt-5", ModelFamily: "gpt-5",
				StartedAt: atifTS(t, "2026-01-06T09:00:12Z"), EndedAt: atifTS(t, "2026-01-06T09:00:14Z"),
				EndReason: schema.EndUnknown, EndReasonSource: schema.SourceInferred, NTurns: 1, UsageCalls: 1, InputTokens: 450, OutputTokens: 20}},
			events: []schema.Event{
				{RunID: sub, Seq: 0, Kind: schema.KindContextOp, Role: "system", Line: 14, Text: "Summary: listed src."},
				{RunID: sub, Seq: 1, TS: atifTS(t, "2026-01-06T09:00:12Z"), Kind: schema.KindUser, Role: "user", Line: 20, Text: "Summarize your work."},
				{RunID: sub, Seq: 2, TS: atifTS(t, "2026-01-06T09:00:14Z"), Kind: schema.KindAssistant, Role: "assistant", Line: 26, Text: "I built it."},
			},
			usage: []schema.Usage{{RunID: sub, TS: atifTS(t, "2026-01-06T09:00:14Z"), Model: "openai/gpt-5", InputTokens: 450, OutputTokens: 20}},
			ops:   []schema.ContextOp{{RunID: sub, Op: schema.OpSummary, Trigger: "auto", Detail: "summarization 2 summary for sess-lin/cont-1: 1 copied steps"}},
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, name := range tc.copy {
				data, err := os.ReadFile(filepath.Join("testdata", "atif", name))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			atifCheckPath(t, filepath.Join(dir, tc.want.file), "atif", tc.want, atifParse)
		})
	}
}

func TestATIFTraces(t *testing.T) {
	const a, b, j = "fix-bug__abc", "other__def", "jsonl__1"
	callArgs := `{"command":"ls -la"}`
	tests := []atifWant{{
		file: "trial.traces.json",
		runs: []schema.Run{
			{RunID: a, Harness: "terminus-2", Model: "openai/gpt-5", ModelFamily: "gpt-5", TaskID: "fix-bug", Resolved: atifBool(true),
				StartedAt: atifTS(t, "2026-01-03T09:00:00Z"), EndReason: schema.EndUnknown, EndReasonSource: schema.SourceInferred,
				NTurns: 3, UsageEstimated: true},
			{RunID: b, Harness: "terminus-2", Model: "openai/gpt-5", ModelFamily: "gpt-5", TaskID: "other",
				StartedAt: atifTS(t, "2026-01-03T10:00:00Z"), EndReason: schema.EndInterrupted, EndReasonSource: schema.SourceExplicit,
				EndReasonDetail: "AgentTimeoutError", NTurns: 1, UsageEstimated: true},
		},
		events: []schema.Event{
			{RunID: a, Seq: 0, Kind: schema.KindUser, Role: "user", Line: 2, Text: "Task: fix bug"},
			{RunID: a, Seq: 1, Kind: schema.KindReasoning, Role: "assistant", Line: 2, Text: "look around"},
			{RunID: a, Seq: 2, Kind: schema.KindAssistant, Role: "assistant", Line: 2, Text: "Checking."},
			{RunID: a, Seq: 3, Kind: schema.KindToolCall, Role: "assistant", Line: 2, ToolName: "bash", Target: "ls -la", Args: callArgs, Text: "bash " + callArgs},
			// episode-1 repeats episode-0 and adds the observation and a response
			{RunID: a, Seq: 4, Turn: 1, Kind: schema.KindToolResult, Role: "tool", Line: 3, ToolName: "bash", ToolKey: "t4", Target: "ls -la", Text: "a.go b.go"},
			{RunID: a, Seq: 5, Turn: 1, Kind: schema.KindAssistant, Role: "assistant", Line: 3, Text: "Done."},
			// episode-2 starts a new chat (after summarization)
			{RunID: a, Seq: 6, Turn: 2, Kind: schema.KindCompaction, Role: "system", Line: 4},
			{RunID: a, Seq: 7, Turn: 2, Kind: schema.KindUser, Role: "user", Line: 4, Text: "Summary so far: listed files."},
			{RunID: a, Seq: 8, Turn: 2, Kind: schema.KindAssistant, Role: "assistant", Line: 4, Text: "Continuing."},
			{RunID: b, Seq: 0, Kind: schema.KindUser, Role: "user", Line: 5, Text: "Task: other"},
			{RunID: b, Seq: 1, Kind: schema.KindAssistant, Role: "assistant", Line: 5, Text: "Trying."},
		},
		outputs: []schema.ToolOutput{{RunID: a, ToolKey: "t4", ToolName: "bash", Target: "ls -la", Turn: 1, Seq: 4}},
		ops: []schema.ContextOp{{RunID: a, Seq: 6, Turn: 2, Op: schema.OpCompaction, Trigger: "auto",
			Detail: "episode-2 does not extend the previous episode: 1 of its 4 messages kept"}},
	}, {
		file: "trial.traces.jsonl",
		runs: []schema.Run{{RunID: j, Harness: "terminus-2", Model: "openai/gpt-5", ModelFamily: "gpt-5", TaskID: "jsonl-task", Resolved: atifBool(false),
			EndReason: schema.EndUnknown, EndReasonSource: schema.SourceInferred, NTurns: 2, UsageEstimated: true}},
		events: []schema.Event{
			{RunID: j, Seq: 0, Kind: schema.KindUser, Role: "user", Line: 1, Text: "Task: jsonl"},
			{RunID: j, Seq: 1, Kind: schema.KindAssistant, Role: "assistant", Line: 1, Text: "One."},
			{RunID: j, Seq: 2, Turn: 1, Kind: schema.KindUser, Role: "user", Line: 3, Text: "go on"},
			{RunID: j, Seq: 3, Turn: 1, Kind: schema.KindAssistant, Role: "assistant", Line: 3, Text: "Two."},
		},
		rejects: []atifReject{{2, "invalid traces record: not a JSON object"}},
	}}
	for _, w := range tests {
		t.Run(w.file, func(t *testing.T) { atifCheck(t, "atif", "atif", w, atifParse) })
	}
}

func TestATIFDetect(t *testing.T) {
	im, err := ingest.Lookup("atif")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, file, head string
		want             bool
	}{
		{"trajectory", "x.json", `{"schema_version": "ATIF-v1.5", "session_id": "s", "agent": {}, "steps": []}`, true},
		{"version not first", "x.json", `{"session_id": "s", "schema_version": "ATIF-v1.7"}`, true},
		{"cut-off head", "x.json", "{\n  \"schema_version\": \"ATIF-v1.6\",\n  \"session_id\": \"s\",\n  \"agent\": {\"na", true},
		{"other schema version", "x.json", `{"schema_version": "1.4", "steps": []}`, false},
		{"nested ATIF string", "x.json", `{"data": {"schema_version": "ATIF-v1.6"}}`, false},
		{"traces array", "t.json", `[{"conversations": [{"role": "user", "content": "hi"}], "episode": "episode-0"}]`, true},
		{"traces jsonl", "t.jsonl", `{"conversations": [], "agent": "a", "episode": "episode-3"}` + "\n", true},
		{"traces by name", "run.traces.json", `[{"conversations": [{"role": "user", "content": "`, true},
		{"sharegpt without episode", "data.json", `[{"conversations": [{"from": "human", "value": "hi"}]}]`, false},
		{"messages", "m.json", `[{"role": "user", "content": "hi"}]`, false},
		{"empty", "x.json", "", false},
		{"not JSON", "x.json", "schema_version ATIF-v1.6", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := im.Detect(tc.file, []byte(tc.head)); got != tc.want {
				t.Errorf("Detect = %v, want %v", got, tc.want)
			}
		})
	}
}

// atifScanResult is what a plain reading of an ATIF file expects.
type atifScanResult struct {
	calls, results, usage, ops int
	prompt, completion         int64
}

// atifScan reads an ATIF file independently of the importer: tool calls,
// results and metrics of the steps that are not copied context; one op per
// summarization step, plus the hand-off op of a continuation or
// summarization file.
func atifScan(t *testing.T, data []byte, name string) atifScanResult {
	t.Helper()
	var doc struct {
		Agent struct {
			Extra map[string]any `json:"extra"`
		} `json:"agent"`
		Steps []struct {
			Source      string            `json:"source"`
			Copied      bool              `json:"is_copied_context"`
			ToolCalls   []json.RawMessage `json:"tool_calls"`
			Observation *struct {
				Results []struct {
					Refs []json.RawMessage `json:"subagent_trajectory_ref"`
				} `json:"results"`
			} `json:"observation"`
			Metrics *struct {
				Prompt     *int64 `json:"prompt_tokens"`
				Completion *int64 `json:"completion_tokens"`
			} `json:"metrics"`
		} `json:"steps"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var res atifScanResult
	if strings.Contains(name, ".cont-") || strings.Contains(name, ".summarization-") {
		res.ops++
	}
	for _, s := range doc.Steps {
		if s.Copied {
			continue
		}
		res.calls += len(s.ToolCalls)
		if s.Observation != nil {
			for _, r := range s.Observation.Results {
				if s.Source == "agent" {
					res.results++
				} else if len(r.Refs) > 0 {
					res.ops++
				}
			}
		}
		if s.Source == "agent" && s.Metrics != nil && s.Metrics.Prompt != nil {
			res.usage++
			res.prompt += *s.Metrics.Prompt
			res.completion += *s.Metrics.Completion
		}
	}
	return res
}

// add sums two scans (a run joined from several files).
func (r atifScanResult) add(o atifScanResult) atifScanResult {
	return atifScanResult{r.calls + o.calls, r.results + o.results, r.usage + o.usage, r.ops + o.ops,
		r.prompt + o.prompt, r.completion + o.completion}
}

// atifCorpusRuns is each corpus file's run naming and end, and the
// continuation files beside it that its run holds (joined); a continuation
// that is joined into its root's run imports nothing (none).
var atifCorpusRuns = map[string]struct {
	id, parent string
	end        schema.EndReason
	source     schema.ReasonSource
	joined     []string
	none       bool
}{
	"hello-world-context-summarization-linear-history.trajectory.cont-1.json": {none: true},
	// ends as its continuation does
	"hello-world-context-summarization-linear-history.trajectory.json": {"NORMALIZED_SESSION_ID", "", schema.EndFinished, schema.SourceExplicit,
		[]string{"hello-world-context-summarization-linear-history.trajectory.cont-1.json"}, false},
	"hello-world-context-summarization.trajectory.json":                           {"NORMALIZED_SESSION_ID", "", schema.EndFinished, schema.SourceExplicit, nil, false},
	"hello-world-context-summarization.trajectory.summarization-1-answers.json":   {"NORMALIZED_SESSION_ID/summarization-1-answers", "NORMALIZED_SESSION_ID", schema.EndUnknown, schema.SourceInferred, nil, false},
	"hello-world-context-summarization.trajectory.summarization-1-questions.json": {"NORMALIZED_SESSION_ID/summarization-1-questions", "NORMALIZED_SESSION_ID", schema.EndUnknown, schema.SourceInferred, nil, false},
	"hello-world-context-summarization.trajectory.summarization-1-summary.json":   {"NORMALIZED_SESSION_ID/summarization-1-summary", "NORMALIZED_SESSION_ID", schema.EndUnknown, schema.SourceInferred, nil, false},
	"hello-world-invalid-json.trajectory.json":                                    {"NORMALIZED_SESSION_ID", "", schema.EndFinished, schema.SourceExplicit, nil, false},
	// Harbor keeps the agent timeout in the trial's result.json; the
	// trajectory's final_metrics count the call whose step was never written
	"hello-world-timeout.trajectory.json": {"NORMALIZED_SESSION_ID", "", schema.EndInterrupted, schema.SourceInferred, nil, false},
}

func TestATIFCorpus(t *testing.T) {
	dir := testutil.Corpus(t, "atif")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no trajectories in %s: %v", dir, err)
	}
	for _, p := range files {
		name := filepath.Base(p)
		t.Run(name, func(t *testing.T) {
			w, ok := atifCorpusRuns[name]
			if !ok {
				t.Fatalf("no expectation for %s", name)
			}
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			sink, err := ingest.Parse(context.Background(), "atif", p, data, nil)
			if err != nil {
				t.Fatal(err)
			}
			if w.none {
				if len(sink.Runs) != 0 || len(sink.Events) != 0 || len(sink.Rejects) != 0 {
					t.Fatalf("got %d runs, %d events and %d rejects, want none", len(sink.Runs), len(sink.Events), len(sink.Rejects))
				}
				return
			}
			if len(sink.Runs) != 1 || len(sink.Rejects) != 0 {
				t.Fatalf("got %d runs and %d rejects, want 1 and 0", len(sink.Runs), len(sink.Rejects))
			}
			run := sink.Runs[0]
			want := atifScan(t, data, name)
			for _, c := range w.joined {
				cdata, err := os.ReadFile(filepath.Join(dir, c))
				if err != nil {
					t.Fatal(err)
				}
				want = want.add(atifScan(t, cdata, c))
			}
			got := atifScanResult{usage: len(sink.Usage), ops: len(sink.ContextOps), prompt: run.InputTokens, completion: run.OutputTokens}
			for _, e := range sink.Events {
				switch e.Kind {
				case schema.KindToolCall:
					got.calls++
				case schema.KindToolResult:
					got.results++
				}
			}
			if got != want {
				t.Errorf("import %+v, scan %+v", got, want)
			}
			if len(sink.ToolOutputs) != want.results {
				t.Errorf("%d tool_outputs, want %d", len(sink.ToolOutputs), want.results)
			}
			if run.UsageCalls != int64(want.usage) || run.NTurns != int64(want.usage) {
				t.Errorf("usage_calls %d, n_turns %d, want %d", run.UsageCalls, run.NTurns, want.usage)
			}
			if run.RunID != w.id || run.ParentRunID != w.parent || run.EndReason != w.end || run.EndReasonSource != w.source {
				t.Errorf("run %s (parent %q) ended %s/%s, want %s (parent %q) %s/%s",
					run.RunID, run.ParentRunID, run.EndReason, run.EndReasonSource, w.id, w.parent, w.end, w.source)
			}
			for i, e := range sink.Events {
				if e.Seq != int64(i) {
					t.Errorf("event %d has seq %d", i, e.Seq)
				}
				if e.Kind == schema.KindToolResult && e.CallID != "" && e.ToolName == "" {
					t.Errorf("result %s (line %d) not linked to its call", e.CallID, e.Line)
				}
			}
		})
	}
}

// atifOpTokens is a context op's kind and tokens.
type atifOpTokens struct {
	Op            schema.OpKind
	Before, After *int64
}

// TestATIFCorpusTokens pins the context ops of the two summarization roots:
// the prompt before the hand-off and (in the one-file variant) after it; in
// the linear-history variant the joined continuation's op has both.
func TestATIFCorpusTokens(t *testing.T) {
	dir := testutil.Corpus(t, "atif")
	tests := []struct {
		file string
		ops  []atifOpTokens
	}{
		{"hello-world-context-summarization.trajectory.json", []atifOpTokens{{schema.OpCompaction, atifI64(820), atifI64(1700)}}},
		{"hello-world-context-summarization-linear-history.trajectory.json", []atifOpTokens{
			{schema.OpCompaction, atifI64(820), nil},
			{schema.OpContinuation, atifI64(820), atifI64(1700)},
		}},
		{"hello-world-context-summarization-linear-history.trajectory.cont-1.json", nil},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			sink := atifParse(t, filepath.Join(dir, tc.file))
			var got []atifOpTokens
			for _, op := range sink.ContextOps {
				got = append(got, atifOpTokens{op.Op, op.TokensBefore, op.TokensAfter})
			}
			if diff := cmp.Diff(tc.ops, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("ops (-want +got):\n%s", diff)
			}
		})
	}
}

// atifFuzzCheck fails on any record that does not validate and on turns
// outside the run's calls.
func atifFuzzCheck(t *testing.T, sink *ingest.MemSink) {
	t.Helper()
	turns := map[string]int64{}
	for i := range sink.Runs {
		if err := schema.Validate(&sink.Runs[i]); err != nil {
			t.Fatalf("invalid run: %v", err)
		}
		turns[sink.Runs[i].RunID] = sink.Runs[i].NTurns
	}
	seq := map[string]int64{}
	for i := range sink.Events {
		e := &sink.Events[i]
		if err := schema.Validate(e); err != nil {
			t.Fatalf("invalid event: %v", err)
		}
		n, ok := turns[e.RunID]
		if !ok || e.Seq != seq[e.RunID] || e.Turn > n {
			t.Fatalf("event %s/%d: seq %d turn %d of %d calls (run known: %v)", e.RunID, i, e.Seq, e.Turn, n, ok)
		}
		seq[e.RunID]++
	}
	for i := range sink.Usage {
		u := &sink.Usage[i]
		if err := schema.Validate(u); err != nil {
			t.Fatalf("invalid usage: %v", err)
		}
		if u.Turn >= turns[u.RunID] {
			t.Fatalf("usage of turn %d of %d calls", u.Turn, turns[u.RunID])
		}
	}
	for i := range sink.ToolOutputs {
		if err := schema.Validate(&sink.ToolOutputs[i]); err != nil {
			t.Fatalf("invalid tool output: %v", err)
		}
	}
	for i := range sink.ContextOps {
		if err := schema.Validate(&sink.ContextOps[i]); err != nil {
			t.Fatalf("invalid context op: %v", err)
		}
	}
	for i := range sink.Rejects {
		if err := schema.Validate(&sink.Rejects[i]); err != nil {
			t.Fatalf("invalid reject: %v", err)
		}
	}
}
