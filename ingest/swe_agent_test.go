package ingest_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/schema"
)

// The fixtures in testdata/swe-agent-traj are hand-written, one topic each
// (see the README there).

// sweEv is the part of an event the fixture tests pin down.
type sweEv struct {
	Run    string
	Seq    int64
	Turn   int64
	Kind   schema.EventKind
	Role   string
	Tool   string
	CallID string
	Key    string
	Target string
	Line   int64
	Err    bool
}

func sweEvents(m *ingest.MemSink) []sweEv {
	var out []sweEv
	for _, e := range m.Events {
		out = append(out, sweEv{e.RunID, e.Seq, e.Turn, e.Kind, e.Role, e.ToolName, e.CallID, e.ToolKey, e.Target, e.Line, e.IsError})
	}
	return out
}

// sweOp is a context op with its token counts (-1 for NULL).
type sweOp struct {
	Run           string
	Seq, Turn     int64
	Op            schema.OpKind
	Key           string
	Before, After int64
	Trigger       string
	Detail        string
}

func sweOps(m *ingest.MemSink) []sweOp {
	var out []sweOp
	for _, c := range m.ContextOps {
		b, a := int64(-1), int64(-1)
		if c.TokensBefore != nil {
			b = *c.TokensBefore
		}
		if c.TokensAfter != nil {
			a = *c.TokensAfter
		}
		out = append(out, sweOp{c.RunID, c.Seq, c.Turn, c.Op, c.ToolKey, b, a, c.Trigger, c.Detail})
	}
	return out
}

type sweOut struct {
	Run, Key, CallID, Tool, Target string
	Turn, Seq                      int64
}

func sweOutputs(m *ingest.MemSink) []sweOut {
	var out []sweOut
	for _, o := range m.ToolOutputs {
		out = append(out, sweOut{o.RunID, o.ToolKey, o.CallID, o.ToolName, o.Target, o.Turn, o.Seq})
	}
	return out
}

// sweRunRow is the part of a run the fixture tests pin down.
type sweRunRow struct {
	ID, Harness, Model, Family, Task string
	End                              schema.EndReason
	Source                           schema.ReasonSource
	Detail                           string
	Turns, In, Out                   int64
	Cost                             float64 // -1 when NULL
	Estimated                        bool
	UsageCalls                       int64
}

func sweRuns(m *ingest.MemSink) []sweRunRow {
	var out []sweRunRow
	for _, r := range m.Runs {
		c := -1.0
		if r.CostUSD != nil {
			c = *r.CostUSD
		}
		out = append(out, sweRunRow{r.RunID, r.Harness, r.Model, r.ModelFamily, r.TaskID, r.EndReason, r.EndReasonSource, r.EndReasonDetail,
			r.NTurns, r.InputTokens, r.OutputTokens, c, r.UsageEstimated, r.UsageCalls})
	}
	return out
}

// sweReject is a reject without its raw text, the reason cut before any
// decoder message.
type sweReject struct {
	Line   int64
	Reason string
}

func sweRejects(rs []schema.Reject) []sweReject {
	var out []sweReject
	for _, r := range rs {
		reason, _, _ := strings.Cut(r.Reason, ":")
		out = append(out, sweReject{r.Line, reason})
	}
	return out
}

func sweParse(t *testing.T, format, path string) *ingest.MemSink {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := ingest.Parse(context.Background(), format, filepath.Base(path), data, nil)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return m
}

// Token figures in the SWE-agent and mini-SWE-agent tests are the chars4
// estimate, ceil(characters / 4), worked out by hand below (the texts are
// ASCII: characters = bytes), not computed with ingest.CharsPerToken, the
// code under test. Texts shared by the cases:
//
//	"a.py\nb.py\n"                                 10 chars →  3 tokens
//	"Old environment output: (N lines omitted)"     41 chars → 11 tokens (N one digit)
//	"x\n"                                            2 chars →  1 token
//	fileObs                                         55 chars → 14 tokens
//	clipped                                        124 chars → 31 tokens
const (
	tokAB       = 3  // ceil(10/4)
	tokOldN     = 11 // ceil(41/4)
	tokX        = 1  // ceil(2/4)
	tokFileObs  = 14 // ceil(55/4)
	tokClipped  = 31 // ceil(124/4)
	lenFileObs  = 55
	lenClipped  = 124
	lenOldLines = 41
)

func TestSWEAgentFixtures(t *testing.T) {
	const (
		fileObs = "[File: a.py (2 lines total)]\n1:def f():\n2:    return 1\n"
		clipped = "Observation: FAILED<response clipped><NOTE>Observations should not exceeded 6 characters. 120 characters were elided.</NOTE>"
		r1      = "repo__issue-1"
		a1, a2  = "repo__issue-2/attempt-1", "repo__issue-2/attempt-2"
	)
	// a clipped output: SWE-agent cut it to max_observation_length when it
	// wrote it; its logged text (124 characters, 31 tokens) is its size, and
	// no context op
	if len(clipped) != lenClipped || len(fileObs) != lenFileObs || len("Old environment output: (2 lines omitted)") != lenOldLines {
		t.Fatal("fixture texts changed: redo the token arithmetic above")
	}
	tests := []struct {
		file    string
		runs    []sweRunRow
		events  []sweEv
		outputs []sweOut
		ops     []sweOp
		rejects []sweReject
		sizes   map[string][2]int64 // tool_outputs chars and est_tokens by key
		parents map[string]string   // parent_run_id by run id, where set
	}{{
		// function calling: ids (one reused), thinking blocks, elisions seen in
		// trajectory[i].messages (the last one after the last call), a clipped
		// observation, an autosubmission after the cost limit
		file: "fncall.traj",
		runs: []sweRunRow{{r1, "swe-agent", "claude-sonnet-4-20250514", "claude-sonnet-4", r1, schema.EndCostLimit, schema.SourceExplicit,
			"submitted (exit_cost)", 4, 12000, 345, 1.5, true, 0}},
		events: []sweEv{
			{r1, 0, 0, schema.KindSystem, "system", "", "", "", "", 9, false},
			{r1, 1, 0, schema.KindUser, "user", "", "", "", "", 10, false},
			{r1, 2, 0, schema.KindReasoning, "assistant", "", "", "", "", 11, false},
			{r1, 3, 0, schema.KindAssistant, "assistant", "", "", "", "", 11, false},
			{r1, 4, 0, schema.KindToolCall, "assistant", "bash", "call_1", "", "ls", 11, false},
			{r1, 5, 1, schema.KindToolResult, "tool", "bash", "call_1", "call_1", "ls", 12, false},
			{r1, 6, 1, schema.KindAssistant, "assistant", "", "", "", "", 13, false},
			{r1, 7, 1, schema.KindToolCall, "assistant", "open", "call_2", "", "a.py", 13, false},
			{r1, 8, 2, schema.KindToolResult, "tool", "open", "call_2", "call_2", "a.py", 14, false},
			// step 1's messages (line 4) show history[3] elided: the call of turn 2 sees it
			{r1, 9, 2, schema.KindContextOp, "system", "", "", "", "", 4, false},
			{r1, 10, 2, schema.KindAssistant, "assistant", "", "", "", "", 15, false},
			{r1, 11, 2, schema.KindToolCall, "assistant", "bash", "call_1", "", "pytest -q", 15, false},
			{r1, 12, 3, schema.KindToolResult, "tool", "bash", "call_1", "call_1#2", "pytest -q", 16, false},
			{r1, 13, 3, schema.KindContextOp, "system", "", "", "", "", 5, false},
			{r1, 14, 3, schema.KindAssistant, "assistant", "", "", "", "", 17, false},
			{r1, 15, 3, schema.KindToolCall, "assistant", "submit", "call_3", "", "", 17, false},
			{r1, 16, 4, schema.KindToolResult, "tool", "submit", "call_3", "call_3", "", 18, false},
			{r1, 17, 4, schema.KindContextOp, "system", "", "", "", "", 6, false},
		},
		outputs: []sweOut{
			{r1, "call_1", "call_1", "bash", "ls", 1, 5},
			{r1, "call_2", "call_2", "open", "a.py", 2, 8},
			{r1, "call_1#2", "call_1", "bash", "pytest -q", 3, 12},
			{r1, "call_3", "call_3", "submit", "", 4, 16},
		},
		sizes: map[string][2]int64{"call_1#2": {lenClipped, tokClipped}}, // clipped when written: its logged size
		ops: []sweOp{
			{r1, 9, 2, schema.OpMasking, "call_1", tokAB, tokOldN, "history-processor", "history[3]: last_n_observations"},
			{r1, 13, 3, schema.OpMasking, "call_2", tokFileObs, tokOldN, "history-processor", "history[5]: last_n_observations"},
			{r1, 17, 4, schema.OpMasking, "call_1#2", tokClipped, tokOldN, "history-processor", "history[7]: last_n_observations"},
		},
	}, {
		// 0.x text actions: demonstrations, ``` and <command> blocks, the last
		// observation only in the trajectory, the context window exceeded
		file: "text.traj",
		runs: []sweRunRow{{"text", "swe-agent", "", "unknown", "", schema.EndContextOverflow, schema.SourceExplicit, "exit_context", 3, 5000, 100, 0.25, true, 0}},
		events: []sweEv{
			{"text", 0, 0, schema.KindSystem, "system", "", "", "", "", 9, false},
			{"text", 1, 0, schema.KindUser, "user", "", "", "", "", 10, false},
			{"text", 2, 0, schema.KindUser, "assistant", "", "", "", "", 11, false}, // a demonstration is input
			{"text", 3, 0, schema.KindUser, "user", "", "", "", "", 12, false},
			{"text", 4, 0, schema.KindAssistant, "assistant", "", "", "", "", 13, false},
			{"text", 5, 0, schema.KindToolCall, "assistant", "create", "action-0", "", "reproduce.py", 13, false},
			{"text", 6, 1, schema.KindToolResult, "user", "create", "action-0", "action-0", "reproduce.py", 14, false},
			{"text", 7, 1, schema.KindAssistant, "assistant", "", "", "", "", 15, false},
			{"text", 8, 1, schema.KindToolCall, "assistant", "edit", "action-1", "", "", 15, false},
			{"text", 9, 2, schema.KindToolResult, "user", "edit", "action-1", "action-1", "", 16, false},
			{"text", 10, 2, schema.KindAssistant, "assistant", "", "", "", "", 17, false},
			{"text", 11, 2, schema.KindToolCall, "assistant", "bash", "action-2", "", "python reproduce.py", 17, false},
			{"text", 12, 3, schema.KindToolResult, "user", "bash", "action-2", "action-2", "python reproduce.py", 6, false},
		},
		outputs: []sweOut{
			{"text", "action-0", "action-0", "create", "reproduce.py", 1, 6},
			{"text", "action-1", "action-1", "edit", "", 2, 9},
			{"text", "action-2", "action-2", "bash", "python reproduce.py", 3, 12},
		},
	}, {
		// RetryAgent: one run per attempt; query-form steps, one a requery
		file: "retry.traj",
		runs: []sweRunRow{
			{a1, "swe-agent", "gpt-4o", "gpt-4o", "repo__issue-2", schema.EndFinished, schema.SourceExplicit, "submitted", 3, 900, 30, 0.5, true, 0},
			{a2, "swe-agent", "gpt-4o", "gpt-4o", "repo__issue-2", schema.EndError, schema.SourceExplicit, "exit_format", 1, 200, 10, 0.1, true, 0},
		},
		events: []sweEv{
			{a1, 0, 0, schema.KindSystem, "system", "", "", "", "", 11, false},
			{a1, 1, 0, schema.KindUser, "user", "", "", "", "", 12, false},
			{a1, 2, 0, schema.KindAssistant, "assistant", "", "", "", "", 13, false},
			{a1, 3, 0, schema.KindToolCall, "assistant", "bash", "a1", "", "ls", 13, false},
			{a1, 4, 1, schema.KindToolResult, "tool", "bash", "a1", "a1", "ls", 14, false},
			{a1, 5, 1, schema.KindAssistant, "assistant", "", "", "", "", 15, false},
			{a1, 6, 1, schema.KindToolCall, "assistant", "bash", "a2", "", "cat x", 15, false},
			{a1, 7, 2, schema.KindToolResult, "tool", "bash", "a2", "a2", "cat x", 16, false},
			// step 3's query (line 8) is the prompt of the third call
			{a1, 8, 2, schema.KindContextOp, "system", "", "", "", "", 8, false},
			{a1, 9, 2, schema.KindAssistant, "assistant", "", "", "", "", 17, false},
			{a1, 10, 2, schema.KindToolCall, "assistant", "submit", "a3", "", "", 17, false},
			{a1, 11, 3, schema.KindToolResult, "tool", "submit", "a3", "a3", "", 18, false},
			{a2, 0, 0, schema.KindSystem, "system", "", "", "", "", 29, false},
			{a2, 1, 0, schema.KindUser, "user", "", "", "", "", 30, false},
			{a2, 2, 0, schema.KindAssistant, "assistant", "", "", "", "", 31, false},
			{a2, 3, 0, schema.KindToolCall, "assistant", "bash", "b1", "", "pwd", 31, false},
			{a2, 4, 1, schema.KindToolResult, "tool", "bash", "b1", "b1", "pwd", 32, false},
		},
		outputs: []sweOut{
			{a1, "a1", "a1", "bash", "ls", 1, 4},
			{a1, "a2", "a2", "bash", "cat x", 2, 7},
			{a1, "a3", "a3", "submit", "", 3, 11},
			{a2, "b1", "b1", "bash", "pwd", 1, 4},
		},
		ops: []sweOp{{a1, 8, 2, schema.OpMasking, "a1", tokX, tokOldN, "history-processor", "history[3]"}},
	}, {
		file: "steps.traj", // no history: events from the steps
		runs: []sweRunRow{{"steps", "swe-agent", "", "unknown", "", schema.EndFinished, schema.SourceExplicit, "exit_forfeit", 2, 0, 0, -1, true, 0}},
		events: []sweEv{
			{"steps", 0, 0, schema.KindAssistant, "assistant", "", "", "", "", 3, false},
			{"steps", 1, 0, schema.KindToolCall, "assistant", "bash", "action-0", "", "ls", 3, false},
			{"steps", 2, 1, schema.KindToolResult, "user", "bash", "action-0", "action-0", "ls", 3, false},
			{"steps", 3, 1, schema.KindAssistant, "assistant", "", "", "", "", 4, false},
			{"steps", 4, 1, schema.KindToolCall, "assistant", "bash", "action-1", "", "exit_forfeit", 4, false},
			{"steps", 5, 2, schema.KindToolResult, "user", "bash", "action-1", "action-1", "exit_forfeit", 4, false},
		},
		outputs: []sweOut{{"steps", "action-0", "action-0", "bash", "ls", 1, 2}, {"steps", "action-1", "action-1", "bash", "exit_forfeit", 2, 5}},
	}, {
		file: "badmsg.traj", // a history message that is not an object
		runs: []sweRunRow{{"badmsg", "swe-agent", "", "unknown", "", schema.EndError, schema.SourceExplicit, "exit_command_timeout", 1, 0, 0, -1, true, 0}},
		events: []sweEv{
			{"badmsg", 0, 0, schema.KindSystem, "system", "", "", "", "", 3, false},
			{"badmsg", 1, 0, schema.KindUser, "user", "", "", "", "", 5, false},
			{"badmsg", 2, 0, schema.KindAssistant, "assistant", "", "", "", "", 6, false},
		},
		rejects: []sweReject{{4, "history message is not an object"}},
	}, {
		// three agents' messages in one history (SWE-agent 0.x subroutines:
		// each sub-agent's history appended after it returns): one run per
		// agent, the sub-agents' runs children of the first agent's, which
		// keeps the exit status and the totals; each agent's actions and
		// observations linked within its own run
		file: "multiagent.traj",
		runs: []sweRunRow{
			{"multiagent", "swe-agent", "", "unknown", "", schema.EndFinished, schema.SourceExplicit, "submitted", 3, 9000, 300, 0.12, true, 0},
			{"multiagent/reproducer", "swe-agent", "", "unknown", "", schema.EndUnknown, schema.SourceInferred, "", 2, 0, 0, -1, true, 0},
			{"multiagent/editor", "swe-agent", "", "unknown", "", schema.EndUnknown, schema.SourceInferred, "", 2, 0, 0, -1, true, 0},
		},
		events: []sweEv{
			{"multiagent", 0, 0, schema.KindSystem, "system", "", "", "", "", 4, false},
			{"multiagent", 1, 0, schema.KindUser, "user", "", "", "", "", 5, false},
			{"multiagent", 2, 0, schema.KindAssistant, "assistant", "", "", "", "", 6, false},
			{"multiagent", 3, 0, schema.KindToolCall, "assistant", "bash", "action-0", "", `reproduce "issue 12"`, 6, false},
			{"multiagent/reproducer", 0, 0, schema.KindSystem, "system", "", "", "", "", 7, false},
			{"multiagent/reproducer", 1, 0, schema.KindUser, "user", "", "", "", "", 8, false},
			{"multiagent/reproducer", 2, 0, schema.KindAssistant, "assistant", "", "", "", "", 9, false},
			{"multiagent/reproducer", 3, 0, schema.KindToolCall, "assistant", "bash", "action-0", "", "python repro.py", 9, false},
			{"multiagent/reproducer", 4, 1, schema.KindToolResult, "user", "bash", "action-0", "action-0", "python repro.py", 10, false},
			{"multiagent/reproducer", 5, 1, schema.KindAssistant, "assistant", "", "", "", "", 11, false},
			{"multiagent/reproducer", 6, 1, schema.KindToolCall, "assistant", "submit", "action-1", "", "", 11, false},
			// the primary's observation of its reproduce action follows the sub-agent's history
			{"multiagent", 4, 1, schema.KindToolResult, "user", "bash", "action-0", "action-0", `reproduce "issue 12"`, 12, false},
			{"multiagent", 5, 1, schema.KindAssistant, "assistant", "", "", "", "", 13, false},
			{"multiagent", 6, 1, schema.KindToolCall, "assistant", "bash", "action-1", "", "edit_file a.py", 13, false},
			{"multiagent/editor", 0, 0, schema.KindSystem, "system", "", "", "", "", 14, false},
			{"multiagent/editor", 1, 0, schema.KindUser, "user", "", "", "", "", 15, false},
			{"multiagent/editor", 2, 0, schema.KindAssistant, "assistant", "", "", "", "", 16, false},
			{"multiagent/editor", 3, 0, schema.KindToolCall, "assistant", "open", "action-0", "", "a.py", 16, false},
			{"multiagent/editor", 4, 1, schema.KindToolResult, "user", "open", "action-0", "action-0", "a.py", 17, false},
			{"multiagent/editor", 5, 1, schema.KindAssistant, "assistant", "", "", "", "", 18, false},
			{"multiagent/editor", 6, 1, schema.KindToolCall, "assistant", "submit", "action-1", "", "", 18, false},
			{"multiagent", 7, 2, schema.KindToolResult, "user", "bash", "action-1", "action-1", "edit_file a.py", 19, false},
			{"multiagent", 8, 2, schema.KindAssistant, "assistant", "", "", "", "", 20, false},
			{"multiagent", 9, 2, schema.KindToolCall, "assistant", "submit", "action-2", "", "", 20, false},
		},
		outputs: []sweOut{
			{"multiagent/reproducer", "action-0", "action-0", "bash", "python repro.py", 1, 4},
			{"multiagent", "action-0", "action-0", "bash", `reproduce "issue 12"`, 1, 4},
			{"multiagent/editor", "action-0", "action-0", "open", "a.py", 1, 4},
			{"multiagent", "action-1", "action-1", "bash", "edit_file a.py", 2, 7},
		},
		parents: map[string]string{"multiagent/reproducer": "multiagent", "multiagent/editor": "multiagent"},
	}, {
		file:    "malformed.traj", // not JSON: one reject at the error, no run
		rejects: []sweReject{{4, "invalid JSON"}},
	}}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			m := sweParse(t, "swe-agent-traj", filepath.Join("testdata", "swe-agent-traj", tc.file))
			if diff := cmp.Diff(tc.runs, sweRuns(m)); diff != "" {
				t.Errorf("runs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.events, sweEvents(m)); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.outputs, sweOutputs(m)); diff != "" {
				t.Errorf("tool_outputs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.ops, sweOps(m)); diff != "" {
				t.Errorf("context_ops (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.rejects, sweRejects(m.Rejects)); diff != "" {
				t.Errorf("rejects (-want +got):\n%s", diff)
			}
			if len(m.Usage) != 0 {
				t.Errorf("got %d usage rows, want none (SWE-agent logs only run totals)", len(m.Usage))
			}
			for _, o := range m.ToolOutputs {
				if w, ok := tc.sizes[o.ToolKey]; ok && (o.Chars != w[0] || o.EstTokens != w[1]) {
					t.Errorf("output %s: %d chars, %d tokens; want %d, %d", o.ToolKey, o.Chars, o.EstTokens, w[0], w[1])
				}
			}
			parents := map[string]string{}
			for _, r := range m.Runs {
				if r.ParentRunID != "" {
					parents[r.RunID] = r.ParentRunID
				}
			}
			if diff := cmp.Diff(tc.parents, parents, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("parents (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSWEAgentTexts pins the texts and arguments of the events of text.traj
// and fncall.traj: the thought around a command block, parsed commands.
func TestSWEAgentTexts(t *testing.T) {
	type text struct{ Kind, Text, Args string }
	tests := []struct {
		file   string
		prefix bool // want is the first events only
		want   []text
	}{{
		file: "text.traj",
		want: []text{
			{"assistant", "Create a script.\n", ""},
			{"tool_call", `create {"filename":"reproduce.py"}`, `{"filename":"reproduce.py"}`},
			{"tool_result", "[File: /repo/reproduce.py (1 lines total)]\n1:\n(Open file: /repo/reproduce.py)\nbash-$", ""},
			{"assistant", "Write it.", ""},
			{"tool_call", `edit {"end_line":1,"replacement_text":"print(1)","start_line":1}`, `{"end_line":1,"replacement_text":"print(1)","start_line":1}`},
			{"tool_result", "[File: /repo/reproduce.py (1 lines total)]\n1:print(1)\n(Open file: /repo/reproduce.py)\nbash-$", ""},
			{"assistant", "Run it.\n", ""},
			{"tool_call", `bash {"command":"python reproduce.py"}`, `{"command":"python reproduce.py"}`},
			{"tool_result", "1\n", ""},
		},
	}, {
		file:   "fncall.traj",
		prefix: true,
		want: []text{
			{"reasoning", "Start by listing.", ""},
			{"assistant", "Let me look.", ""},
			{"tool_call", `bash {"command":"ls"}`, `{"command":"ls"}`},
			{"tool_result", "a.py\nb.py\n", ""},
		},
	}}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			m := sweParse(t, "swe-agent-traj", filepath.Join("testdata", "swe-agent-traj", tc.file))
			var got []text
			for _, e := range m.Events {
				if e.Kind == schema.KindReasoning || e.Kind == schema.KindAssistant || e.Kind == schema.KindToolCall || e.Kind == schema.KindToolResult {
					got = append(got, text{string(e.Kind), e.Text, e.Args})
				}
			}
			if tc.prefix && len(got) > len(tc.want) {
				got = got[:len(tc.want)]
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("texts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSWEAgentActions(t *testing.T) {
	// text actions become the SWE-agent command they name, else bash
	tests := []struct {
		action, tool, args string
	}{
		{"ls -F", "bash", `{"command":"ls -F"}`},
		{`open "src/a b.py" 12`, "open", `{"line_number":12,"path":"src/a b.py"}`},
		{"find_file fields.py src", "find_file", `{"dir":"src","file_name":"fields.py"}`},
		{"search_file 'def f' a.py", "search_file", `{"file":"a.py","search_term":"def f"}`},
		{"edit 3:4\n    x = 1\nend_of_edit", "edit", `{"end_line":4,"replacement_text":"    x = 1","start_line":3}`},
		{"goto 40 extra", "goto", `{"line_number":"40 extra"}`},
		{"scroll_down now", "scroll_down", `{"args":"now"}`},
		{"submit", "submit", `{}`},
	}
	for _, tc := range tests {
		t.Run(tc.action, func(t *testing.T) {
			hist, _ := json.Marshal([]map[string]any{
				{"role": "system", "content": "sys", "agent": "main"},
				{"role": "assistant", "content": "x", "thought": "x", "action": tc.action, "agent": "main"},
			})
			m, err := ingest.Parse(context.Background(), "swe-agent-traj", "a.traj", []byte(`{"history":`+string(hist)+`}`), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range m.Events {
				if e.Kind == schema.KindToolCall {
					if e.ToolName != tc.tool || e.Args != tc.args {
						t.Errorf("call = %s %s, want %s %s", e.ToolName, e.Args, tc.tool, tc.args)
					}
					return
				}
			}
			t.Errorf("no tool call")
		})
	}
}

func TestSWEAgentEnd(t *testing.T) {
	tests := []struct {
		status string
		reason schema.EndReason
		source schema.ReasonSource
	}{
		{"submitted", schema.EndFinished, schema.SourceExplicit},
		{"submitted (exit_context)", schema.EndContextOverflow, schema.SourceExplicit},
		{"exit_cost", schema.EndCostLimit, schema.SourceExplicit},
		{"exit_api", schema.EndError, schema.SourceExplicit},
		{"exit_environment_error", schema.EndError, schema.SourceExplicit},
		{"exit_total_execution_time", schema.EndStepLimit, schema.SourceExplicit},
		{"exit_command", schema.EndFinished, schema.SourceExplicit},
		{"early_exit", schema.EndUnknown, schema.SourceInferred}, // detail kept
	}
	for _, tc := range tests {
		t.Run(tc.status, func(t *testing.T) {
			doc := `{"history":[{"role":"system","content":"s","agent":"main"}],"info":{"exit_status":"` + tc.status + `"}}`
			m, err := ingest.Parse(context.Background(), "swe-agent-traj", "e.traj", []byte(doc), nil)
			if err != nil {
				t.Fatal(err)
			}
			r := m.Runs[0]
			if r.EndReason != tc.reason || r.EndReasonSource != tc.source || r.EndReasonDetail != tc.status {
				t.Errorf("end = %s/%s/%q, want %s/%s/%q", r.EndReason, r.EndReasonSource, r.EndReasonDetail, tc.reason, tc.source, tc.status)
			}
		})
	}
}

func TestSWEAgentDetect(t *testing.T) {
	im, err := ingest.Lookup("swe-agent-traj")
	if err != nil {
		t.Fatal(err)
	}
	bigStep := `{"trajectory": [{"action": "ls", "observation": "` + strings.Repeat("x", ingest.HeadSize) + `"}]}`
	tests := []struct {
		name, file, head string
		want             bool
	}{
		{"steps", "x.json", `{"trajectory": [{"action": "ls", "observation": "a"}], "history": []}`, true},
		{"steps cut off by the head", "x.json", bigStep[:ingest.HeadSize], true},
		{"history with agent", "x.json", `{"history": [{"role": "system", "content": "s", "agent": "main"}]}`, true},
		{"plain history in a .traj", "x.traj", `{"history": [{"role": "system", "content": "s"}]}`, true},
		{"plain history elsewhere", "x.json", `{"history": [{"role": "system", "content": "s"}]}`, false},
		{"plain history with replay_config", "x.json", `{"replay_config": "{}", "history": [{"role": "user", "content": "s"}]}`, true},
		{"retry attempts", "x.json", `{"attempts": [{"history": [{"role": "system", "content": "s", "message_type": "system_prompt"}]}]}`, true},
		{"openhands history", "x.json", `{"instance_id": "i", "history": [{"id": 0, "source": "user", "action": "message", "message": "hi"}]}`, false},
		{"mini-swe-agent", "x.traj.json", `{"info": {"mini_version": "1"}, "messages": [{"role": "system", "content": "s"}]}`, false},
		{"array", "x.traj", `[{"role": "system", "content": "s", "agent": "main"}]`, false},
		{"not JSON", "x.traj", `history trajectory`, false},
		{"empty", "x.traj", ``, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := im.Detect(tc.file, []byte(tc.head)); got != tc.want {
				t.Errorf("Detect = %v, want %v", got, tc.want)
			}
		})
	}
}

// sweManifest is MANIFEST.md's description of each corpus file: steps,
// history messages, assistant/tool calls.
var sweManifest = map[string]struct{ steps, history, calls int }{
	"marshmallow-1867__function_calling_replace_from_source.traj": {13, 28, 13},
	"i_got_id_demo.traj":                           {21, 43, 21},
	"function_calling_simple.traj":                 {0, 12, 5},
	"marshmallow-1867__xml_sys-env_window100.traj": {11, 23, 11},
}

// sweScan reads a trajectory independently of the importer.
type sweScan struct {
	steps, history, assistants, calls int
	elided                            int // distinct history messages shown as "Old environment output" in some step
	elisions                          int // occurrences over all steps
	tokensSent, tokensReceived        int64
	exit                              string
}

func sweScanFile(t *testing.T, data []byte) sweScan {
	t.Helper()
	var doc struct {
		Trajectory []struct {
			Messages []struct {
				Content any `json:"content"`
			} `json:"messages"`
		} `json:"trajectory"`
		History []struct {
			Role      string            `json:"role"`
			Action    *string           `json:"action"`
			ToolCalls []json.RawMessage `json:"tool_calls"`
		} `json:"history"`
		Info struct {
			ExitStatus string `json:"exit_status"`
			ModelStats struct {
				TokensSent     int64 `json:"tokens_sent"`
				TokensReceived int64 `json:"tokens_received"`
			} `json:"model_stats"`
		} `json:"info"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	s := sweScan{steps: len(doc.Trajectory), history: len(doc.History), exit: doc.Info.ExitStatus,
		tokensSent: doc.Info.ModelStats.TokensSent, tokensReceived: doc.Info.ModelStats.TokensReceived}
	for _, h := range doc.History {
		if h.Role != "assistant" {
			continue
		}
		s.assistants++
		switch {
		case len(h.ToolCalls) > 0:
			s.calls += len(h.ToolCalls)
		case h.Action != nil && strings.TrimSpace(*h.Action) != "":
			s.calls++
		}
	}
	elided := map[int]bool{}
	for _, st := range doc.Trajectory {
		for j, m := range st.Messages {
			if c, ok := m.Content.(string); ok && strings.HasPrefix(c, "Old environment output:") {
				s.elisions++
				elided[j] = true
			}
		}
	}
	s.elided = len(elided)
	return s
}

func TestSWEAgentCorpus(t *testing.T) {
	dir := testutil.Corpus(t, "swe-agent-traj")
	files, err := filepath.Glob(filepath.Join(dir, "*.traj"))
	if err != nil || len(files) != len(sweManifest) {
		t.Fatalf("got %d corpus files, want %d: %v", len(files), len(sweManifest), err)
	}
	for _, p := range files {
		name := filepath.Base(p)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if im, err := ingest.DetectFormat(p, data[:min(len(data), ingest.HeadSize)]); err != nil || im.Name() != "swe-agent-traj" {
				t.Errorf("detected as %v (%v), want swe-agent-traj", im, err)
			}
			s := sweScanFile(t, data)
			if w := sweManifest[name]; s.steps != w.steps || s.history != w.history || s.calls != w.calls {
				t.Errorf("scan: %d steps, %d history messages, %d calls; MANIFEST says %+v", s.steps, s.history, s.calls, w)
			}
			m, err := ingest.Parse(context.Background(), "swe-agent-traj", p, data, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Runs) != 1 || len(m.Rejects) != 0 || len(m.Usage) != 0 {
				t.Fatalf("got %d runs, %d rejects, %d usage rows; want 1, 0, 0", len(m.Runs), len(m.Rejects), len(m.Usage))
			}
			r := m.Runs[0]
			if r.NTurns != int64(s.assistants) || r.InputTokens != s.tokensSent || r.OutputTokens != s.tokensReceived || !r.UsageEstimated {
				t.Errorf("run: %d turns, %d/%d tokens, estimated %v; want %d, %d/%d, true",
					r.NTurns, r.InputTokens, r.OutputTokens, r.UsageEstimated, s.assistants, s.tokensSent, s.tokensReceived)
			}
			if s.exit == "submitted" && (r.EndReason != schema.EndFinished || r.EndReasonSource != schema.SourceExplicit) {
				t.Errorf("end = %s/%s, want finished/explicit", r.EndReason, r.EndReasonSource)
			}
			calls, results := map[string]int{}, 0
			for _, e := range m.Events {
				switch e.Kind {
				case schema.KindToolCall:
					calls[e.CallID]++
				case schema.KindToolResult:
					results++
					if e.ToolName == "" {
						t.Errorf("result at seq %d (line %d) not linked to a call", e.Seq, e.Line)
					}
				}
			}
			n := 0
			for _, c := range calls {
				n += c
			}
			// every call has its result, the last one too
			if n != s.calls || results != s.calls || len(m.ToolOutputs) != s.calls {
				t.Errorf("%d tool calls, %d results, %d outputs; want %d each", n, results, len(m.ToolOutputs), s.calls)
			}
			if len(m.ContextOps) != s.elided {
				t.Errorf("%d context ops, want one per elided observation: %d", len(m.ContextOps), s.elided)
			}
			keys := map[string]bool{}
			for _, o := range m.ToolOutputs {
				keys[o.ToolKey] = true
			}
			for _, op := range m.ContextOps {
				if op.Op != schema.OpMasking || !keys[op.ToolKey] || op.TokensBefore == nil || op.TokensAfter == nil {
					t.Errorf("op %+v: want masking of a tool output with tokens", op)
				}
			}
		})
	}
	// MANIFEST: 36 "Old environment output" occurrences in this file, 8 distinct
	data, err := os.ReadFile(filepath.Join(dir, "marshmallow-1867__function_calling_replace_from_source.traj"))
	if err != nil {
		t.Fatal(err)
	}
	if s := sweScanFile(t, data); s.elisions != 36 || s.elided != 8 {
		t.Errorf("scan: %d elisions of %d observations, want 36 of 8", s.elisions, s.elided)
	}
}

// TestSWEAgentElisions checks which prompt differences count as elisions:
// shorter text or an "… omitted" placeholder do, added content does not; a
// history element that is not an object keeps the indexes aligned.
func TestSWEAgentElisions(t *testing.T) {
	msg := func(role, content string) map[string]any {
		m := map[string]any{"role": role, "content": content, "agent": "main", "message_type": "observation"}
		if role == "assistant" {
			m["message_type"], m["action"], m["thought"] = "action", "ls", "t"
		}
		return m
	}
	hist := []any{msg("system", "sys"), msg("user", "task"), msg("assistant", "t"), msg("user", "out1"),
		msg("assistant", "t"), msg("user", "a long second output"), msg("assistant", "t"), msg("user", "out3"), msg("assistant", "t")}
	tests := []struct {
		name  string
		gap   bool   // a non-object element after the system message
		shown [3]any // what the last step's prompt shows for the three outputs
		want  []string
	}{
		{"placeholders", false, [3]any{"Old environment output: (1 lines omitted)", "Old environment output: (1 lines omitted)", "out3"},
			[]string{"masking history[3]", "masking history[5]"}},
		{"cut text", false, [3]any{"out1", "a long", "out3"}, []string{"masking history[5]"}},
		{"added image", false, [3]any{[]any{map[string]any{"type": "text", "text": "out1"}, map[string]any{"type": "image_url"}}, "a long second output", "out3"}, nil},
		{"gap in history", true, [3]any{"out1", "a long second output", "Outdated window with 1 lines omitted"}, []string{"masking history[8]"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := append([]any(nil), hist...)
			if tc.gap {
				h = append(h[:1:1], append([]any{7}, h[1:]...)...)
			}
			prompt := make([]any, 0, len(h))
			outputs := 0
			for _, m := range h {
				mm, ok := m.(map[string]any)
				if !ok {
					prompt = append(prompt, map[string]any{"role": "user", "content": "gap"})
					continue
				}
				c := map[string]any{}
				for k, v := range mm {
					c[k] = v
				}
				if c["role"] == "user" && c["content"] != "task" {
					c["content"] = tc.shown[outputs]
					outputs++
				}
				prompt = append(prompt, c)
			}
			doc, _ := json.Marshal(map[string]any{"history": h, "trajectory": []any{map[string]any{"action": "ls", "observation": "x", "messages": prompt}}})
			m, err := ingest.Parse(context.Background(), "swe-agent-traj", "e.traj", doc, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, op := range m.ContextOps {
				got = append(got, string(op.Op)+" "+op.Detail)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ops (-want +got):\n%s", diff)
			}
			if wantRejects := map[bool]int{false: 0, true: 1}[tc.gap]; len(m.Rejects) != wantRejects {
				t.Errorf("got %d rejects, want %d", len(m.Rejects), wantRejects)
			}
		})
	}
}

// TestSWEAgentAgents: which messages make a history several agents' runs.
func TestSWEAgentAgents(t *testing.T) {
	msg := func(role, agent string, demo bool) map[string]any {
		m := map[string]any{"role": role, "content": "x"}
		if agent != "" {
			m["agent"] = agent
		}
		if demo {
			m["is_demo"] = true
		}
		if role == "assistant" {
			m["thought"], m["action"] = "t", "ls"
		}
		return m
	}
	tests := []struct {
		name string
		hist []any
		want map[string]int // events per run
	}{
		{"one agent", []any{msg("system", "main", false), msg("user", "main", false), msg("assistant", "main", false), msg("user", "main", false)},
			map[string]int{"a": 5}}, // system, user, assistant, tool_call, tool_result
		{"a demonstration logged by another agent", []any{msg("system", "main", false), msg("user", "primary", true), msg("assistant", "primary", true),
			msg("user", "main", false), msg("assistant", "main", false)},
			map[string]int{"a": 6}}, // system, 2 demonstrations (user), user, assistant, tool_call
		{"two agents, one message without a name", []any{msg("system", "main", false), msg("assistant", "main", false),
			msg("system", "sub", false), msg("user", "sub", false), msg("user", "", false)},
			// main: system, assistant, tool_call, and the unnamed observation
			// answers its action; sub: system, user
			map[string]int{"a": 4, "a/sub": 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc, _ := json.Marshal(map[string]any{"history": tc.hist})
			m, err := ingest.Parse(context.Background(), "swe-agent-traj", "a.traj", doc, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]int{}
			for _, e := range m.Events {
				got[e.RunID]++
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("events per run (-want +got):\n%s", diff)
			}
		})
	}
}
