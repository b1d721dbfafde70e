package ingest_test

import (
	"context"
	"encoding/json"
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

// The helpers prefixed mx are shared by the tests of the stream-json, web
// export, codex exec and aider importers.

// mxEv is the part of an event the fixture tests pin down.
type mxEv struct {
	Run              string
	Seq, Turn, Line  int64
	Kind             schema.EventKind
	Tool, ID, Target string
	Err              bool
	Exit             string // "" when not logged
}

func mxEvents(m *ingest.MemSink) []mxEv {
	out := make([]mxEv, 0, len(m.Events))
	for _, e := range m.Events {
		x := mxEv{e.RunID, e.Seq, e.Turn, e.Line, e.Kind, e.ToolName, e.CallID, e.Target, e.IsError, ""}
		if e.ExitCode != nil {
			x.Exit = strconv.FormatInt(*e.ExitCode, 10)
		}
		out = append(out, x)
	}
	return out
}

// mxOp is a context op; -1 stands for a missing token count.
type mxOp struct {
	Run           string
	Seq, Turn     int64
	Op            schema.OpKind
	Trigger       string
	Before, After int64
}

func mxOps(m *ingest.MemSink) []mxOp {
	var out []mxOp
	for _, c := range m.ContextOps {
		o := mxOp{c.RunID, c.Seq, c.Turn, c.Op, c.Trigger, -1, -1}
		if c.TokensBefore != nil {
			o.Before = *c.TokensBefore
		}
		if c.TokensAfter != nil {
			o.After = *c.TokensAfter
		}
		out = append(out, o)
	}
	return out
}

// mxRun is the part of a run the fixture tests pin down.
type mxRun struct {
	ID, Parent, Model        string
	Turns, UsageCalls        int64
	In, Out, CacheR, CacheW  int64
	End                      schema.EndReason
	Source                   schema.ReasonSource
	Detail, Cost, Window, At string
}

func mxRuns(m *ingest.MemSink) []mxRun {
	var out []mxRun
	for _, r := range m.Runs {
		x := mxRun{ID: r.RunID, Parent: r.ParentRunID, Model: r.Model, Turns: r.NTurns, UsageCalls: r.UsageCalls,
			In: r.InputTokens, Out: r.OutputTokens, CacheR: r.CacheReadTokens, CacheW: r.CacheWriteTokens,
			End: r.EndReason, Source: r.EndReasonSource, Detail: r.EndReasonDetail}
		if r.CostUSD != nil {
			x.Cost = strconv.FormatFloat(*r.CostUSD, 'f', -1, 64)
		}
		if r.WindowTokens != nil {
			x.Window = strconv.FormatInt(*r.WindowTokens, 10)
		}
		if r.StartedAt != nil {
			x.At = r.StartedAt.Format("2006-01-02T15:04:05Z")
		}
		out = append(out, x)
	}
	return out
}

// mxReject is a reject's line and its reason up to the first colon.
type mxReject struct {
	Line   int64
	Reason string
}

func mxRejects(m *ingest.MemSink) []mxReject {
	var out []mxReject
	for _, r := range m.Rejects {
		reason, _, _ := strings.Cut(r.Reason, ":")
		out = append(out, mxReject{r.Line, reason})
	}
	return out
}

// mxText returns the text of the event of run with seq.
func mxText(t *testing.T, m *ingest.MemSink, run string, seq int64) string {
	t.Helper()
	for _, e := range m.Events {
		if e.RunID == run && e.Seq == seq {
			return e.Text
		}
	}
	t.Fatalf("no event %s/%d", run, seq)
	return ""
}

// mxCheck compares everything a fixture pins down.
func mxCheck(t *testing.T, m *ingest.MemSink, runs []mxRun, events []mxEv, usage []use, outputs []out, ops []mxOp, rejects []mxReject) {
	t.Helper()
	if diff := cmp.Diff(runs, mxRuns(m)); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(events, mxEvents(m)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(usage, uses(m)); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(outputs, outs(m)); diff != "" {
		t.Errorf("tool_outputs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(ops, mxOps(m)); diff != "" {
		t.Errorf("context_ops (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(rejects, mxRejects(m)); diff != "" {
		t.Errorf("rejects (-want +got):\n%s", diff)
	}
}

// mxDetectsExactly checks that the named importer's Detect accepts every
// file of the corpus folder and no file of any other folder, and that
// auto-detection picks it for its folder's files.
func mxDetectsExactly(t *testing.T, name, folder string) {
	t.Helper()
	im, err := ingest.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	root := testutil.CorpusDir(t)
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	mine := 0
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "licenses" {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(root, d.Name(), "*"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			head := data[:min(len(data), ingest.HeadSize)]
			want := d.Name() == folder
			if got := im.Detect(f, head); got != want {
				t.Errorf("%s.Detect(%s/%s) = %v, want %v", name, d.Name(), filepath.Base(f), got, want)
			}
			if want {
				mine++
				if got, err := ingest.DetectFormat(f, head); err != nil || got.Name() != name {
					t.Errorf("DetectFormat(%s/%s) = %v, %v; want %s", d.Name(), filepath.Base(f), got, err, name)
				}
			}
		}
	}
	if folder != "" && mine == 0 {
		t.Errorf("no corpus files in %s", folder)
	}
}

const csFormat = "claude-agent-sdk-stream-json"

func TestClaudeStreamFixtures(t *testing.T) {
	const main, task = "sess-stream", "sess-stream/task-toolu_2"
	const sonnet, haiku = "claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001"
	tests := []struct {
		file    string
		runs    []mxRun
		events  []mxEv
		usage   []use
		outputs []out
		ops     []mxOp
		rejects []mxReject
	}{{
		// claude -p --output-format stream-json: a response split over three
		// lines, a Task sub-agent, a malformed line, compaction, max turns
		file: "max_turns_subagent.jsonl",
		runs: []mxRun{
			// output 121 = 120 (msg_01: max of 8, 8, 120) + 1 (msg_02's placeholder);
			// the result's own total (410) is not summed in
			{ID: main, Model: sonnet, Turns: 2, UsageCalls: 2, In: 18157, Out: 121, CacheR: 16000, CacheW: 2150,
				End: schema.EndStepLimit, Source: schema.SourceExplicit, Detail: "error_max_turns", Cost: "0.1234", Window: "200000", At: "2025-10-01T10:00:05Z"},
			{ID: task, Parent: main, Model: haiku, Turns: 2, UsageCalls: 2, In: 130, Out: 32,
				End: schema.EndFinished, Source: schema.SourceInferred, Detail: "log ends on an assistant reply without a tool call", At: "2025-10-01T10:00:07Z"},
		},
		events: []mxEv{
			{main, 0, 0, 2, schema.KindReasoning, "", "", "", false, ""},
			{main, 1, 0, 3, schema.KindToolCall, "Bash", "toolu_1", "go test ./pkg/parse/...", false, ""},
			{main, 2, 0, 4, schema.KindToolCall, "Task", "toolu_2", "", false, ""},
			{main, 3, 1, 5, schema.KindToolResult, "Bash", "toolu_1", "go test ./pkg/parse/...", true, ""},
			{task, 0, 0, 6, schema.KindUser, "", "", "", false, ""},
			{task, 1, 0, 7, schema.KindToolCall, "Glob", "toolu_s1", "**/config*.go @ /repo", false, ""},
			{task, 2, 1, 8, schema.KindToolResult, "Glob", "toolu_s1", "**/config*.go @ /repo", false, ""},
			{task, 3, 1, 9, schema.KindAssistant, "", "", "", false, ""},
			{main, 4, 1, 10, schema.KindToolResult, "Task", "toolu_2", "", false, ""},
			{main, 5, 1, 12, schema.KindCompaction, "", "", "", false, ""},
			{main, 6, 1, 13, schema.KindCompaction, "", "", "", false, ""},
			{main, 7, 1, 14, schema.KindAssistant, "", "", "", false, ""},
			{main, 8, 1, 16, schema.KindToolCall, "Edit", "toolu_3", "/repo/pkg/parse/parse.go", false, ""},
			{main, 9, 2, 17, schema.KindToolResult, "Edit", "toolu_3", "/repo/pkg/parse/parse.go", false, ""},
		},
		usage: []use{
			{main, 0, 14004, 120, 12000, 2000},
			{main, 1, 4153, 1, 4000, 150},
			{task, 0, 50, 20, 0, 0},
			{task, 1, 80, 12, 0, 0},
		},
		outputs: []out{
			{main, "toolu_1", "Bash", "go test ./pkg/parse/...", 1, true},
			{task, "toolu_s1", "Glob", "**/config*.go @ /repo", 1, false},
			{main, "toolu_2", "Task", "", 1, false},
			{main, "toolu_3", "Edit", "/repo/pkg/parse/parse.go", 2, false},
		},
		ops: []mxOp{
			{main, 5, 1, schema.OpCompaction, "auto", 155000, 4100},
			{main, 6, 1, schema.OpSummary, "compact-summary", -1, -1},
		},
		rejects: []mxReject{{11, "message is not an object"}},
	}, {
		// an SDK cassette (pretty-printed): the prompt is sent before init
		// names the session, the CLI's echo of it (isReplay) is skipped,
		// hooks are skipped, a synthetic API error ends the session
		file: "cassette_overflow.json",
		runs: []mxRun{{ID: "sess-cassette", Model: sonnet, Turns: 1, UsageCalls: 1, In: 9503, Out: 40, CacheR: 9000, CacheW: 500,
			End: schema.EndContextOverflow, Source: schema.SourceExplicit, Detail: "success: Prompt is too long", Cost: "0.02", Window: "200000", At: "2026-01-02T03:04:05Z"}},
		events: []mxEv{
			{"sess-cassette", 0, 0, 30, schema.KindUser, "", "", "", false, ""},
			{"sess-cassette", 1, 0, 70, schema.KindToolCall, "Read", "toolu_c1", "/work/README.md", false, ""},
			{"sess-cassette", 2, 1, 129, schema.KindToolResult, "Read", "toolu_c1", "/work/README.md", false, ""},
			{"sess-cassette", 3, 1, 149, schema.KindError, "", "", "", true, ""},
		},
		usage:   []use{{"sess-cassette", 0, 9503, 40, 9000, 500}},
		outputs: []out{{"sess-cassette", "toolu_c1", "Read", "/work/README.md", 1, false}},
	}}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			m := parseFile(t, csFormat, filepath.Join("testdata", csFormat, tc.file), nil)
			mxCheck(t, m, tc.runs, tc.events, tc.usage, tc.outputs, tc.ops, tc.rejects)
		})
	}
	m := parseFile(t, csFormat, filepath.Join("testdata", csFormat, "max_turns_subagent.jsonl"), nil)
	if got := mxText(t, m, main, 6); !strings.HasPrefix(got, "This session is being continued") {
		t.Errorf("summary event text = %q", got)
	}
}

// TestClaudeStreamEnd maps every result subtype to its end reason.
func TestClaudeStreamEnd(t *testing.T) {
	const head = `{"type":"system","subtype":"init","session_id":"s1","model":"claude-sonnet-4-5","tools":[]}
{"type":"user","message":{"role":"user","content":"hi"},"session_id":"s1","parent_tool_use_id":null}
{"type":"assistant","message":{"id":"m1","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"hello"}],"usage":{"input_tokens":5,"output_tokens":2}},"session_id":"s1","parent_tool_use_id":null}
`
	tests := []struct {
		name, tail string
		end        schema.EndReason
		src        schema.ReasonSource
		detail     string
	}{
		{"success", `{"type":"result","subtype":"success","is_error":false,"result":"hello","session_id":"s1","num_turns":1}`, schema.EndFinished, schema.SourceExplicit, "success"},
		{"max turns", `{"type":"result","subtype":"error_max_turns","is_error":true,"session_id":"s1"}`, schema.EndStepLimit, schema.SourceExplicit, "error_max_turns"},
		{"during execution", `{"type":"result","subtype":"error_during_execution","is_error":true,"session_id":"s1","errors":["API Error: 500 overloaded"]}`, schema.EndError, schema.SourceExplicit, "error_during_execution: API Error: 500 overloaded"},
		{"budget", `{"type":"result","subtype":"error_max_budget_usd","is_error":true,"session_id":"s1","total_cost_usd":5.01}`, schema.EndCostLimit, schema.SourceExplicit, "error_max_budget_usd"},
		{"prompt too long", `{"type":"result","subtype":"success","is_error":true,"result":"Prompt is too long","session_id":"s1"}`, schema.EndContextOverflow, schema.SourceExplicit, "success: Prompt is too long"},
		{"aborted", `{"type":"result","subtype":"success","is_error":false,"result":"","terminal_reason":"aborted_streaming","session_id":"s1"}`, schema.EndInterrupted, schema.SourceExplicit, "aborted_streaming"},
		// a later prompt in the same session: the first result did not end it
		{"next prompt", `{"type":"result","subtype":"success","is_error":false,"session_id":"s1"}
{"type":"user","message":{"role":"user","content":"and now?"},"session_id":"s1","parent_tool_use_id":null}`, schema.EndUnknown, schema.SourceInferred, ""},
		{"no result", ``, schema.EndFinished, schema.SourceInferred, "log ends on an assistant reply without a tool call"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ingest.Parse(context.Background(), csFormat, "end.jsonl", []byte(head+tc.tail+"\n"), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Runs) != 1 || len(m.Rejects) != 0 {
				t.Fatalf("runs %d, rejects %v", len(m.Runs), m.Rejects)
			}
			r := m.Runs[0]
			if r.EndReason != tc.end || r.EndReasonSource != tc.src || r.EndReasonDetail != tc.detail {
				t.Errorf("end = %s/%s %q, want %s/%s %q", r.EndReason, r.EndReasonSource, r.EndReasonDetail, tc.end, tc.src, tc.detail)
			}
		})
	}
}

// TestClaudeStreamDetect checks detection of the fixtures, and that the
// claude-code importer (which reads camelCase sessionId) does not claim
// stream-json lines (snake_case session_id).
func TestClaudeStreamDetect(t *testing.T) {
	cc, err := ingest.Lookup("claude-code")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join("testdata", csFormat, "*"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if cc.Detect(f, data) {
			t.Errorf("claude-code claims %s", f)
		}
		if im, err := ingest.DetectFormat(f, data); err != nil || im.Name() != csFormat {
			t.Errorf("DetectFormat(%s) = %v, %v", f, im, err)
		}
	}
	// a Claude Code session line is not stream-json, even with a session_id
	im, _ := ingest.Lookup(csFormat)
	if im.Detect("x.jsonl", []byte(`{"type":"user","sessionId":"a","session_id":"a","message":{"role":"user","content":"hi"}}`)) {
		t.Error("stream-json claims a Claude Code line")
	}
	mxDetectsExactly(t, csFormat, "claude-agent-sdk-stream-json")
}

// csTruth is an independent reading of a cassette: distinct assistant
// message ids, tool_use and tool_result blocks, and the result message.
type csTruth struct {
	responses, toolUses, toolResults, numTurns int64
	in, cacheRead, cacheWrite                  int64 // from the result's usage
	cost                                       float64
	session, subtype                           string
}

func csScan(t *testing.T, data []byte) csTruth {
	t.Helper()
	var doc struct {
		Messages []struct {
			Direction string `json:"direction"`
			Message   struct {
				Type      string  `json:"type"`
				Subtype   string  `json:"subtype"`
				SessionID string  `json:"session_id"`
				IsReplay  bool    `json:"isReplay"`
				NumTurns  int64   `json:"num_turns"`
				Total     float64 `json:"total_cost_usd"`
				Usage     struct {
					In int64 `json:"input_tokens"`
					CR int64 `json:"cache_read_input_tokens"`
					CW int64 `json:"cache_creation_input_tokens"`
				} `json:"usage"`
				Message struct {
					ID      string          `json:"id"`
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			} `json:"message"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var tr csTruth
	ids := map[string]bool{}
	for _, m := range doc.Messages {
		msg := m.Message
		switch msg.Type {
		case "assistant":
			if !ids[msg.Message.ID] {
				ids[msg.Message.ID] = true
				tr.responses++
			}
		case "result":
			tr.numTurns, tr.cost, tr.subtype, tr.session = msg.NumTurns, msg.Total, msg.Subtype, msg.SessionID
			tr.in, tr.cacheRead, tr.cacheWrite = msg.Usage.In+msg.Usage.CR+msg.Usage.CW, msg.Usage.CR, msg.Usage.CW
		}
		var blocks []json.RawMessage
		_ = json.Unmarshal(msg.Message.Content, &blocks) // a string content has no blocks
		for _, c := range blocks {
			var blk struct {
				Type string `json:"type"`
			}
			_ = json.Unmarshal(c, &blk)
			switch blk.Type {
			case "tool_use":
				tr.toolUses++
			case "tool_result":
				tr.toolResults++
			}
		}
	}
	return tr
}

// TestClaudeStreamCorpus imports the recorded cassette and checks it against
// an independent scan: one model call per distinct message id (= the
// result's num_turns), every tool_use and tool_result, and input and cache
// totals equal to the result's usage (output is not compared: the stream
// carries streaming placeholders, 0 and 1, where the result says 415).
func TestClaudeStreamCorpus(t *testing.T) {
	dir := testutil.Corpus(t, "claude-agent-sdk-stream-json")
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			tr := csScan(t, data)
			m := parseFile(t, csFormat, f, nil)
			if len(m.Rejects) != 0 || len(m.Runs) != 1 {
				t.Fatalf("runs %d, rejects %+v", len(m.Runs), m.Rejects)
			}
			r := m.Runs[0]
			var calls, results int64
			for _, e := range m.Events {
				switch e.Kind {
				case schema.KindToolCall:
					calls++
				case schema.KindToolResult:
					results++
				}
			}
			got := []int64{r.NTurns, int64(len(m.Usage)), calls, results, int64(len(m.ToolOutputs)), r.InputTokens, r.CacheReadTokens, r.CacheWriteTokens}
			want := []int64{tr.numTurns, tr.responses, tr.toolUses, tr.toolResults, tr.toolResults, tr.in, tr.cacheRead, tr.cacheWrite}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("turns, usage rows, calls, results, outputs, in, cache read, cache write (-want +got):\n%s", diff)
			}
			if tr.responses != tr.numTurns {
				t.Errorf("scan: %d responses, result says %d turns", tr.responses, tr.numTurns)
			}
			if r.RunID != tr.session || r.CostUSD == nil || *r.CostUSD != tr.cost || r.EndReason != schema.EndFinished || r.EndReasonSource != schema.SourceExplicit {
				t.Errorf("run %s cost %v end %s/%s; want %s cost %v finished/explicit", r.RunID, r.CostUSD, r.EndReason, r.EndReasonSource, tr.session, tr.cost)
			}
		})
	}
}
