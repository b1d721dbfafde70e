package ingest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/schema"
)

const cxeFormat = "codex-exec-json"

// The fixtures in testdata/codex-exec-json:
//
//	tools.jsonl               every item type of the current format, a turn's
//	                          usage on its last model call, a failed turn
//	                          (context window) after a transient error event
//	legacy_interrupted.jsonl  Codex 0.4x items (item_type, assistant_message),
//	                          no thread.started, a turn with usage but no
//	                          items, malformed lines, a log cut inside a turn
func TestCodexExecFixtures(t *testing.T) {
	const tools, legacy = "thr-tools", "legacy_interrupted"
	tests := []struct {
		file    string
		runs    []mxRun
		events  []mxEv
		usage   []use
		outputs []out
		rejects []mxReject
	}{{
		file: "tools.jsonl",
		runs: []mxRun{{ID: tools, Turns: 4, UsageCalls: 0, In: 24000, Out: 900, CacheR: 18000,
			End: schema.EndContextOverflow, Source: schema.SourceExplicit,
			Detail: "turn.failed: Your input exceeds the context window of this model. Please adjust your input and try again."}},
		events: []mxEv{
			{tools, 0, 0, 3, schema.KindReasoning, "", "", "", false, ""},
			{tools, 1, 0, 4, schema.KindToolCall, "todo_list", "item_1", "", false, ""},
			{tools, 2, 0, 5, schema.KindToolCall, "command_execution", "item_2", "go test ./...", false, ""},
			{tools, 3, 1, 7, schema.KindToolResult, "command_execution", "item_2", "go test ./...", true, "1"},
			// file_change is logged only when completed: call and result on one line
			{tools, 4, 1, 8, schema.KindToolCall, "file_change", "item_3", "pkg/add.go, pkg/add_test.go", false, ""},
			{tools, 5, 2, 8, schema.KindToolResult, "file_change", "item_3", "pkg/add.go, pkg/add_test.go", false, ""},
			// a plan update is a call of the model
			{tools, 6, 2, 9, schema.KindToolCall, "todo_list", "item_1", "", false, ""},
			{tools, 7, 2, 10, schema.KindToolCall, "mcp__docs__search", "item_4", "go test -run", false, ""},
			{tools, 8, 3, 11, schema.KindToolResult, "mcp__docs__search", "item_4", "go test -run", false, ""},
			{tools, 9, 3, 12, schema.KindToolCall, "web_search", "item_5", "golang table driven tests", false, ""},
			{tools, 10, 3, 13, schema.KindAssistant, "", "", "", false, ""},
			{tools, 11, 4, 17, schema.KindError, "", "", "", true, ""},
			{tools, 12, 4, 18, schema.KindError, "", "", "", true, ""},
		},
		// the turn's usage covers calls 0-3; it sits on the last
		usage: []use{{tools, 3, 24000, 900, 18000, 0}},
		outputs: []out{
			{tools, "item_2", "command_execution", "go test ./...", 1, true},
			{tools, "item_3", "file_change", "pkg/add.go, pkg/add_test.go", 2, false},
			{tools, "item_4", "mcp__docs__search", "go test -run", 3, false},
		},
	}, {
		file: "legacy_interrupted.jsonl",
		runs: []mxRun{{ID: legacy, Turns: 4, UsageCalls: 1, In: 1700, Out: 70, CacheR: 1024,
			End: schema.EndInterrupted, Source: schema.SourceInferred, Detail: "log ends inside a turn"}},
		events: []mxEv{
			{legacy, 0, 1, 4, schema.KindReasoning, "", "", "", false, ""},
			{legacy, 1, 1, 5, schema.KindToolCall, "command_execution", "item_1", "cat note.txt", false, ""},
			{legacy, 2, 2, 6, schema.KindToolResult, "command_execution", "item_1", "cat note.txt", false, "0"},
			{legacy, 3, 2, 7, schema.KindAssistant, "", "", "", false, ""},
			{legacy, 4, 3, 12, schema.KindReasoning, "", "", "", false, ""},
		},
		// the first turn logged usage but no items: a call of its own
		usage:   []use{{legacy, 0, 500, 10, 0, 0}, {legacy, 2, 1200, 60, 1024, 0}},
		outputs: []out{{legacy, "item_1", "command_execution", "cat note.txt", 2, false}},
		rejects: []mxReject{{8, "item.completed without an item object"}, {11, "record is not a JSON object"}},
	}}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			m := parseFile(t, cxeFormat, filepath.Join("testdata", cxeFormat, tc.file), nil)
			mxCheck(t, m, tc.runs, tc.events, tc.usage, tc.outputs, nil, tc.rejects)
		})
	}
	m := parseFile(t, cxeFormat, filepath.Join("testdata", cxeFormat, "tools.jsonl"), nil)
	for seq, want := range map[int64]string{
		3:  "--- FAIL: TestAdd (0.00s)\nFAIL\n",
		5:  "update pkg/add.go\nadd pkg/add_test.go\ncompleted",
		8:  "-run selects tests by regexp",
		10: "Fixed add and added a test.",
	} {
		if got := mxText(t, m, tools, seq); got != want {
			t.Errorf("event %d text = %q, want %q", seq, got, want)
		}
	}
}

// TestCodexExecThreads checks that each thread is a run, that a resumed
// thread (same id) continues its run, and that item ids restarting in a new
// turn are new calls.
func TestCodexExecThreads(t *testing.T) {
	data := []byte(`{"type":"thread.started","thread_id":"a"}
{"type":"turn.started"}
{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"ls","aggregated_output":"x\n","exit_code":0,"status":"completed"}}
{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":1}}
{"type":"thread.started","thread_id":"b"}
{"type":"turn.started"}
{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"hi"}}
{"type":"turn.completed","usage":{"input_tokens":20,"cached_input_tokens":0,"output_tokens":2}}
{"type":"thread.started","thread_id":"a"}
{"type":"turn.started"}
{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"pwd","aggregated_output":"/\n","exit_code":0,"status":"completed"}}
{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"done"}}
{"type":"turn.completed","usage":{"input_tokens":30,"cached_input_tokens":5,"output_tokens":3}}
`)
	m, err := ingest.Parse(context.Background(), cxeFormat, "threads.jsonl", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []mxEv{
		{"a", 0, 0, 3, schema.KindToolCall, "command_execution", "item_0", "ls", false, ""},
		{"a", 1, 1, 3, schema.KindToolResult, "command_execution", "item_0", "ls", false, "0"},
		{"b", 0, 0, 7, schema.KindAssistant, "", "", "", false, ""},
		{"a", 2, 1, 11, schema.KindToolCall, "command_execution", "item_0", "pwd", false, ""},
		{"a", 3, 2, 11, schema.KindToolResult, "command_execution", "item_0", "pwd", false, "0"},
		{"a", 4, 2, 12, schema.KindAssistant, "", "", "", false, ""},
	}
	if diff := cmp.Diff(want, mxEvents(m)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]use{{"a", 0, 10, 1, 0, 0}, {"a", 2, 30, 3, 5, 0}, {"b", 0, 20, 2, 0, 0}}, uses(m)); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	// the repeated item id gets its own tool output key
	var keys []string
	for _, o := range m.ToolOutputs {
		keys = append(keys, o.ToolKey)
	}
	if diff := cmp.Diff([]string{"item_0", "item_0#2"}, keys); diff != "" {
		t.Errorf("tool output keys (-want +got):\n%s", diff)
	}
}

func TestCodexExecDetect(t *testing.T) {
	mxDetectsExactly(t, cxeFormat, "codex-exec-json")
}

// cxeTruth is an independent reading of a codex exec file.
type cxeTruth struct {
	threads                           map[string]bool
	commands, messages, reasoning     int64
	usageRows, in, out, cached, turns int64
}

func cxeScan(t *testing.T, data []byte) cxeTruth {
	t.Helper()
	tr := cxeTruth{threads: map[string]bool{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var ev struct {
			Type     string `json:"type"`
			ThreadID string `json:"thread_id"`
			Item     struct {
				Type string `json:"type"`
			} `json:"item"`
			Usage *struct {
				In     int64 `json:"input_tokens"`
				Cached int64 `json:"cached_input_tokens"`
				Out    int64 `json:"output_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("scan: %v", err)
		}
		switch ev.Type {
		case "thread.started":
			tr.threads[ev.ThreadID] = true
		case "turn.completed":
			tr.turns++
			if ev.Usage != nil {
				tr.usageRows++
				tr.in += ev.Usage.In
				tr.out += ev.Usage.Out
				tr.cached += ev.Usage.Cached
			}
		case "item.completed":
			switch ev.Item.Type {
			case "command_execution":
				tr.commands++
			case "agent_message":
				tr.messages++
			case "reasoning":
				tr.reasoning++
			}
		}
	}
	return tr
}

// TestCodexExecCorpus imports the recorded files and checks them against an
// independent scan: a run per thread, a call and a result per completed
// command, a usage row per turn.completed with the same totals, every
// message and reasoning item, and the end (finished, explicit).
func TestCodexExecCorpus(t *testing.T) {
	dir := testutil.Corpus(t, "codex-exec-json")
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no codex-exec-json corpus files")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			tr := cxeScan(t, data)
			m := parseFile(t, cxeFormat, f, nil)
			if len(m.Rejects) != 0 {
				t.Fatalf("rejects: %+v", m.Rejects)
			}
			kinds := map[schema.EventKind]int64{}
			for _, e := range m.Events {
				kinds[e.Kind]++
			}
			var in, outTok, cached int64
			for _, r := range m.Runs {
				in, outTok, cached = in+r.InputTokens, outTok+r.OutputTokens, cached+r.CacheReadTokens
				if !tr.threads[r.RunID] {
					t.Errorf("run %s is not a thread of the file", r.RunID)
				}
				if r.EndReason != schema.EndFinished || r.EndReasonSource != schema.SourceExplicit {
					t.Errorf("run %s end %s/%s, want finished/explicit", r.RunID, r.EndReason, r.EndReasonSource)
				}
			}
			got := []int64{int64(len(m.Runs)), kinds[schema.KindToolCall], kinds[schema.KindToolResult], int64(len(m.ToolOutputs)),
				kinds[schema.KindAssistant], kinds[schema.KindReasoning], int64(len(m.Usage)), in, outTok, cached}
			want := []int64{int64(len(tr.threads)), tr.commands, tr.commands, tr.commands,
				tr.messages, tr.reasoning, tr.usageRows, tr.in, tr.out, tr.cached}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("runs, calls, results, outputs, messages, reasoning, usage rows, in, out, cached (-want +got):\n%s", diff)
			}
			// the MANIFEST: 8 events, 4 items
			if n := bytes.Count(bytes.TrimSpace(data), []byte("\n")) + 1; n != 8 {
				t.Errorf("%d events, MANIFEST says 8", n)
			}
		})
	}
}
