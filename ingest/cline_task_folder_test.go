package ingest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/schema"
)

const ctFormat = "cline-task-folder"

// TestClineTaskFixtures imports the task folders of testdata/agents (Roo
// Code's ui_messages.json alone; a Kilo Code folder with its history) and
// checks them against the hand counts of their counts.json. The rules
// that turn a count into a run field (cline_task_folder.go):
//   - a model call is an api_req_started record (counts.json's
//     model_calls): the run's usage_calls; a folder read from its history
//     has a model call per assistant message, so its n_turns is the
//     history's assistant messages, of which the records' are the first;
//   - tokensIn leaves the cache out: input = input + cache_read +
//     cache_write.
func TestClineTaskFixtures(t *testing.T) {
	tests := []struct {
		folder, task, anchor string
		harness, model       string
		toolTarget           string // the one tool call's target, if any
	}{
		{folder: "roo-code", task: "test-task-peakctx", anchor: "ui_messages.json", harness: "roo-code"},
		{folder: "roo-code", task: "test-task-cmdpair", anchor: "ui_messages.json", harness: "roo-code", toolTarget: "npm test"},
		// the model named by environment_details: glm for the first two
		// calls, kimi for the third (SOURCE.md)
		{folder: "kilo-code", task: "kilo-model-from-api-history", anchor: "api_conversation_history.json", harness: "kilo-code", model: "z-ai/glm-4.5-air:free"},
	}
	for _, tc := range tests {
		t.Run(tc.task, func(t *testing.T) {
			hand := agentCounts(t, tc.folder)["tasks/"+tc.task].Runs[0]
			dir := filepath.Join("testdata", "agents", tc.folder, "tasks", tc.task)
			path := filepath.Join(dir, tc.anchor)
			if got := detected(t, path); got != ctFormat {
				t.Errorf("detected as %q, want %s", got, ctFormat)
			}
			m := pkParse(t, ctFormat, path, path)
			turns := cnt(hand.ModelCalls)
			if hand.AssistantMessages != nil {
				turns = *hand.AssistantMessages
			}
			u := hand.Usage
			want := []pkRun{{ID: tc.task, Harness: tc.harness, Model: tc.model, Turns: turns, UsageCalls: cnt(hand.ModelCalls),
				In: cnt(u.Input) + cnt(u.CacheRead) + cnt(u.CacheWrite), Out: cnt(u.Output), CR: cnt(u.CacheRead), CW: cnt(u.CacheWrite),
				Cost: costString(u.Cost)}}
			got := pkRuns(m)
			for i := range got { // the end is checked by TestClineTaskRules
				got[i].End, got[i].Source, got[i].Detail = "", "", ""
			}
			pkCheck(t, "runs", want, got)
			calls, results, linked := eventCounts(m)
			if calls != cnt(hand.ToolCalls) || results != cnt(hand.ToolResults) || linked != results {
				t.Errorf("%d tool calls, %d results (%d linked); want %d, %d (all linked)", calls, results, linked, cnt(hand.ToolCalls), cnt(hand.ToolResults))
			}
			for _, e := range m.Events {
				if e.Kind == schema.KindToolCall && e.Target != tc.toolTarget {
					t.Errorf("tool call target %q, want %q", e.Target, tc.toolTarget)
				}
			}
			pkCheck(t, "rejects", []pkReject{}, pkRejects(m))
			// the other file of a folder with a history is checked and
			// makes no run (the anchor rule)
			if tc.anchor == "api_conversation_history.json" {
				ui := filepath.Join(dir, "ui_messages.json")
				if got := detected(t, ui); got != ctFormat {
					t.Errorf("ui_messages.json detected as %q, want %s", got, ctFormat)
				}
				if um := pkParse(t, ctFormat, ui, ui); len(um.Runs) != 0 || len(um.Rejects) != 0 {
					t.Errorf("ui_messages.json beside the history: %d runs, %d rejects; want none", len(um.Runs), len(um.Rejects))
				}
			}
		})
	}
}

// TestClineTaskKiloModels checks step 5 of history mode on the Kilo
// fixture: each call's model is the one the environment_details before it
// names (SOURCE.md: glm for turns 1-2, kimi for turn 3, which has no
// request record and so no usage row).
func TestClineTaskKiloModels(t *testing.T) {
	path := filepath.Join("testdata", "agents", "kilo-code", "tasks", "kilo-model-from-api-history", "api_conversation_history.json")
	m := pkParse(t, ctFormat, path, path)
	var models []string
	for _, u := range m.Usage {
		models = append(models, u.Model)
	}
	pkCheck(t, "usage models", []string{"z-ai/glm-4.5-air:free", "z-ai/glm-4.5-air:free"}, models)
}

// writeTask writes files into dir (made with its parents).
func writeTask(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// copyTask copies the files of a fixture task folder into dir, leaving
// out those named in drop.
func copyTask(t *testing.T, from, dir string, drop ...string) {
	t.Helper()
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, e := range entries {
		if e.IsDir() || slices.Contains(drop, e.Name()) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(b)
	}
	writeTask(t, dir, files)
}

// TestClineTaskHarness imports copies of the fixture task folders placed
// as each extension keeps them (VS Code's globalStorage/<extension id>/
// tasks/<id>/) with Files, as trajmine ingest walks a folder: the harness
// is named by the extension id in the path, else by a history_item.json
// beside (Roo), else by Kilo's request fields, else cline. The Cline
// variant is tested on Roo's layout (no licensed Cline task folder was
// found: testdata/agents/cline/SOURCE.md). Each folder is one run.
func TestClineTaskHarness(t *testing.T) {
	roo := filepath.Join("testdata", "agents", "roo-code", "tasks", "test-task-cmdpair")
	kilo := filepath.Join("testdata", "agents", "kilo-code", "tasks", "kilo-model-from-api-history")
	const gs = "Code/User/globalStorage"
	tests := []struct {
		name, from, under string
		drop              []string
		id, harness       string
	}{
		{"cline by path", roo, gs + "/saoudrizwan.claude-dev/tasks/1700000000000", nil, "test-task-cmdpair", "cline"},
		{"roo-code by path", roo, gs + "/rooveterinaryinc.roo-cline/tasks/1700000000000", nil, "test-task-cmdpair", "roo-code"},
		{"kilo-code by path", kilo, gs + "/kilocode.kilo-code/tasks/1700000000000", nil, "1700000000000", "kilo-code"},
		{"path before fields", kilo, gs + "/saoudrizwan.claude-dev/tasks/1700000000000", nil, "1700000000000", "cline"},
		{"roo-code by history_item.json", roo, "tasks/abc", nil, "test-task-cmdpair", "roo-code"},
		{"kilo-code by request fields", kilo, "tasks/abc", nil, "abc", "kilo-code"},
		{"cline otherwise", roo, "tasks/abc", []string{"history_item.json"}, "abc", "cline"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			copyTask(t, tc.from, filepath.Join(root, filepath.FromSlash(tc.under)), tc.drop...)
			sink := &ingest.MemSink{}
			if _, err := ingest.Files(context.Background(), sink, []string{root}, nil); err != nil {
				t.Fatal(err)
			}
			var got [][2]string
			for _, r := range sink.Runs {
				got = append(got, [2]string{r.RunID, r.Harness})
			}
			pkCheck(t, "runs (id, harness)", [][2]string{{tc.id, tc.harness}}, got)
		})
	}
}

// ctXMLHistory is a hand-written Cline history of the older kind: tool uses
// as XML in the assistant's text, results as "[tool] Result:" text blocks.
// One message per line (message i on line i+2).
const ctXMLHistory = `[
{"role":"user","content":[{"type":"text","text":"<task>\nFix the test\n</task>"},{"type":"text","text":"<environment_details>\n# Current Mode\n<model>m-one</model>\n</environment_details>"}]},
{"role":"assistant","content":[{"type":"text","text":"<thinking>Read a.go first.</thinking>\nReading it.\n<read_file>\n<path>src/a.go</path>\n</read_file>"}]},
{"role":"user","content":[{"type":"text","text":"[read_file for 'src/a.go'] Result:"},{"type":"text","text":"package a"},{"type":"text","text":"<environment_details>\n<model>m-two</model>\n</environment_details>"}]},
{"role":"assistant","content":[{"type":"text","text":"<execute_command>\n<command>go test ./...</command>\n<requires_approval>false</requires_approval>\n</execute_command>\n<write_to_file>\n<path>b.go</path>\n<content>\npackage b\n</content>\n</write_to_file>"}]},
{"role":"user","content":[{"type":"text","text":"[execute_command for 'go test ./...'] Result:\nok  \tx\t0.1s"},{"type":"text","text":"Tool [write_to_file] was not executed because a tool has already been used in this message."}]},
{"role":"assistant","content":"<attempt_completion>\n<result>Fixed.</result>\n</attempt_completion>"}
]`

// ctXMLUI is the ui_messages.json beside ctXMLHistory: three requests (the
// second marked apiProtocol openai, the third naming its model) and one
// bad record, which the history's import passes over.
const ctXMLUI = `[
{"ts":1700000000000,"type":"say","say":"text","text":"Fix the test"},
{"ts":1700000001000,"type":"say","say":"api_req_started","text":"{\"tokensIn\":100,\"tokensOut\":10,\"cacheWrites\":20,\"cacheReads\":30,\"cost\":0.5}"},
"junk",
{"ts":1700000002000,"type":"say","say":"api_req_started","text":"{\"tokensIn\":200,\"tokensOut\":20,\"cacheReads\":40,\"apiProtocol\":\"openai\",\"cost\":0.25}"},
{"ts":1700000003000,"type":"say","say":"api_req_started","modelInfo":{"modelId":"m-three","providerId":"p"},"text":"{\"tokensIn\":300,\"tokensOut\":30}"}
]`

// ctNativeHistory is a newer history: tool_use blocks with ids, results as
// marker text blocks and tool_result blocks; ts on every message; no
// ui_messages.json beside it.
const ctNativeHistory = `[
{"role":"user","content":"Rename x","ts":1700000000000},
{"role":"assistant","content":[{"type":"text","text":"Looking."},{"type":"tool_use","id":"toolu_1","name":"read_file","input":{"path":"x.go"}},{"type":"tool_use","id":"toolu_2","name":"list_files","input":{"path":"."}}],"ts":1700000001000},
{"role":"user","content":[{"type":"text","text":"[read_file for 'x.go'] Result:"},{"type":"text","text":"package x"}],"ts":1700000002000},
{"role":"assistant","content":[{"type":"tool_use","id":"toolu_3","name":"execute_command","input":{"command":"go build"}}],"ts":1700000003000},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_3","content":"x.go:1: syntax error","is_error":true},{"type":"text","text":"[list_files for '.'] Result:"},{"type":"text","text":"a.go"}],"ts":1700000004000},
{"role":"assistant","content":[{"type":"text","text":"Done."}],"ts":1700000005000}
]`

// ctUIOnly is a Roo ui_messages.json alone with most record kinds: the
// task, requests (openai-marked, usageMissing, cancelled), reasoning, a
// tool ask, a command with its output in two chunks, a condensation, an
// error, a truncation, and a last partial answer.
const ctUIOnly = `[
{"ts":1700000000000,"type":"say","say":"text","text":"Refactor the parser"},
{"ts":1700000001000,"type":"say","say":"api_req_started","text":"{\"tokensIn\":10,\"tokensOut\":5,\"cacheReads\":100,\"cacheWrites\":50,\"cost\":0.1}"},
{"ts":1700000002000,"type":"say","say":"reasoning","text":"Check the file."},
{"ts":1700000003000,"type":"ask","ask":"tool","text":"{\"tool\":\"readFile\",\"path\":\"p.go\"}"},
{"ts":1700000004000,"type":"say","say":"api_req_started","text":"{\"tokensIn\":20,\"tokensOut\":6,\"cacheReads\":8,\"apiProtocol\":\"openai\"}"},
{"ts":1700000005000,"type":"ask","ask":"command","text":"go test"},
{"ts":1700000006000,"type":"say","say":"command_output","text":"building"},
{"ts":1700000007000,"type":"say","say":"command_output","text":"ok p 0.1s"},
{"ts":1700000008000,"type":"say","say":"condense_context","contextCondense":{"cost":0.01,"prevContextTokens":9000,"newContextTokens":1200,"summary":"Summary of the work."}},
{"ts":1700000009000,"type":"say","say":"api_req_started","text":"{\"tokensIn\":30,\"tokensOut\":7,\"usageMissing\":true,\"inferenceProvider\":\"x\"}"},
{"ts":1700000010000,"type":"say","say":"error","text":"diff failed"},
{"ts":1700000011000,"type":"say","say":"sliding_window_truncation","contextTruncation":{"truncationId":"t","messagesRemoved":4,"prevContextTokens":8000,"newContextTokens":5000}},
{"ts":1700000012000,"type":"say","say":"api_req_started","text":"{\"tokensIn\":40,\"tokensOut\":8,\"cancelReason\":\"user_cancelled\"}"},
{"ts":1700000013000,"type":"say","say":"text","text":"Partial answ"}
]`

// TestClineTaskRules checks the reading rules of cline_task_folder.go and
// cline_task_folder_history.go on hand-written task folders, each imported from
// its real path (the files beside it are read).
func TestClineTaskRules(t *testing.T) {
	const id = "1700000000000"
	type ctCase struct {
		name    string
		under   string // the folder's path under a temporary root
		files   map[string]string
		anchor  string
		runs    []pkRun
		events  []ev
		lines   []int64
		usage   []pkUse
		outputs []out
		ops     []pkOp
		args    []string // the tool calls' arguments
	}
	tests := []ctCase{{
		// history mode, XML tool uses: results linked in order, the call
		// a message leaves open dropped; usage by request order (input with
		// the cache added, except for the openai-marked record); models from
		// environment_details, else the record's modelInfo; a last
		// attempt_completion is the end
		name: "xml history", under: "saoudrizwan.claude-dev/tasks/" + id, anchor: "api_conversation_history.json",
		files: map[string]string{"api_conversation_history.json": ctXMLHistory, "ui_messages.json": ctXMLUI},
		runs: []pkRun{{ID: id, Harness: "cline", Model: "m-one", End: schema.EndFinished, Source: schema.SourceExplicit, Detail: "attempt_completion",
			Turns: 3, In: 150 + 200 + 300, Out: 60, CR: 70, CW: 20, UsageCalls: 3, Cost: "0.75"}},
		events: []ev{
			{id, 0, 0, schema.KindUser, "", "", "", false},
			{id, 1, 0, schema.KindUser, "", "", "", false},
			{id, 2, 0, schema.KindReasoning, "", "", "", false},
			{id, 3, 0, schema.KindAssistant, "", "", "", false},
			{id, 4, 0, schema.KindToolCall, "read_file", "call-1", "src/a.go", false},
			{id, 5, 1, schema.KindToolResult, "read_file", "call-1", "src/a.go", false},
			{id, 6, 1, schema.KindUser, "", "", "", false},
			{id, 7, 1, schema.KindToolCall, "execute_command", "call-2", "go test ./...", false},
			{id, 8, 1, schema.KindToolCall, "write_to_file", "call-3", "b.go", false},
			{id, 9, 2, schema.KindToolResult, "execute_command", "call-2", "go test ./...", false},
			{id, 10, 2, schema.KindToolCall, "attempt_completion", "call-4", "", false},
		},
		lines: []int64{2, 2, 3, 3, 3, 4, 4, 5, 5, 6, 7},
		usage: []pkUse{
			{Run: id, Turn: 0, In: 100 + 30 + 20, Out: 10, CR: 30, CW: 20, Model: "m-one"},
			{Run: id, Turn: 1, In: 200, Out: 20, CR: 40, Model: "m-two"},
			{Run: id, Turn: 2, In: 300, Out: 30, Model: "m-three"},
		},
		outputs: []out{{id, "call-1", "read_file", "src/a.go", 1, false}, {id, "call-2", "execute_command", "go test ./...", 2, false}},
		ops:     []pkOp{},
		args:    []string{`{"path":"src/a.go"}`, `{"command":"go test ./...","requires_approval":"false"}`, `{"content":"package b","path":"b.go"}`, `{"result":"Fixed."}`},
	}, {
		// history mode, native tool_use: a marker result answers the open
		// call; a tool_result by id; the list_files call left open is
		// dropped, so the marker answering it later links to nothing; no
		// ui_messages.json: no usage, the end inferred
		name: "native history", under: "tasks/" + id, anchor: "api_conversation_history.json",
		files: map[string]string{"api_conversation_history.json": ctNativeHistory},
		runs: []pkRun{{ID: id, Harness: "cline", End: schema.EndFinished, Source: schema.SourceInferred, Detail: inferredFinished,
			Turns: 3, Estimated: true}},
		events: []ev{
			{id, 0, 0, schema.KindUser, "", "", "", false},
			{id, 1, 0, schema.KindAssistant, "", "", "", false},
			{id, 2, 0, schema.KindToolCall, "read_file", "toolu_1", "x.go", false},
			{id, 3, 0, schema.KindToolCall, "list_files", "toolu_2", ".", false},
			{id, 4, 1, schema.KindToolResult, "read_file", "toolu_1", "x.go", false},
			{id, 5, 1, schema.KindToolCall, "execute_command", "toolu_3", "go build", false},
			{id, 6, 2, schema.KindToolResult, "execute_command", "toolu_3", "go build", true},
			{id, 7, 2, schema.KindToolResult, "list_files", "", "", false},
			{id, 8, 2, schema.KindAssistant, "", "", "", false},
		},
		lines:   []int64{2, 3, 3, 3, 4, 5, 6, 6, 7},
		usage:   []pkUse{},
		outputs: []out{{id, "toolu_1", "read_file", "x.go", 1, false}, {id, "toolu_3", "execute_command", "go build", 2, true}, {id, "t7", "list_files", "", 2, false}},
		ops:     []pkOp{},
		args:    []string{`{"path":"x.go"}`, `{"path":"."}`, `{"command":"go build"}`},
	}, {
		// ui mode: the first say text is the task; each request begins a
		// call; the command's output chunks are one result; Roo's context
		// records are ops; usageMissing leaves a call without usage; the
		// cancelled last request is the end; history_item.json names the
		// run and its parent
		name: "ui alone", under: "rooveterinaryinc.roo-cline/tasks/" + id, anchor: "ui_messages.json",
		files: map[string]string{"ui_messages.json": ctUIOnly, "history_item.json": `{"id":"child-1","parentTaskId":"parent-1","ts":1700000000000,"task":"Refactor the parser"}`},
		runs: []pkRun{{ID: "child-1", Parent: "parent-1", Harness: "roo-code", End: schema.EndInterrupted, Source: schema.SourceExplicit, Detail: "cancelReason: user_cancelled",
			Turns: 4, In: 160 + 20 + 40, Out: 5 + 6 + 8, CR: 108, CW: 50, UsageCalls: 3, Cost: "0.1"}},
		events: []ev{
			{"child-1", 0, 0, schema.KindUser, "", "", "", false},
			{"child-1", 1, 0, schema.KindReasoning, "", "", "", false},
			{"child-1", 2, 0, schema.KindToolCall, "readFile", "call-1", "p.go", false},
			{"child-1", 3, 1, schema.KindToolCall, "execute_command", "call-2", "go test", false},
			{"child-1", 4, 2, schema.KindToolResult, "execute_command", "call-2", "go test", false},
			{"child-1", 5, 2, schema.KindCompaction, "", "", "", false},
			{"child-1", 6, 3, schema.KindError, "", "", "", true},
			{"child-1", 7, 3, schema.KindContextOp, "", "", "", false},
			{"child-1", 8, 3, schema.KindAssistant, "", "", "", false},
		},
		lines: []int64{2, 4, 5, 7, 8, 10, 12, 13, 15},
		usage: []pkUse{
			{Run: "child-1", Turn: 0, In: 10 + 100 + 50, Out: 5, CR: 100, CW: 50},
			{Run: "child-1", Turn: 1, In: 20, Out: 6, CR: 8},
			{Run: "child-1", Turn: 3, In: 40, Out: 8},
		},
		outputs: []out{{"child-1", "call-2", "execute_command", "go test", 2, false}},
		ops: []pkOp{
			{"child-1", 5, 2, schema.OpCompaction, "condense_context", 9000, 1200, "condense_context"},
			{"child-1", 7, 3, schema.OpTruncation, "sliding_window_truncation", 8000, 5000, "sliding_window_truncation: 4 message(s) removed"},
		},
		args: []string{`{"path":"p.go","tool":"readFile"}`, `{"command":"go test"}`},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), filepath.FromSlash(tc.under))
			writeTask(t, dir, tc.files)
			path := filepath.Join(dir, tc.anchor)
			m := pkParse(t, ctFormat, path, path)
			pkCheck(t, "runs", tc.runs, pkRuns(m))
			pkCheck(t, "events", tc.events, evs(m))
			var lines []int64
			var args []string
			for _, e := range m.Events {
				lines = append(lines, e.Line)
				if e.Kind == schema.KindToolCall {
					args = append(args, e.Args)
				}
			}
			pkCheck(t, "lines", tc.lines, lines)
			pkCheck(t, "args", tc.args, args)
			pkCheck(t, "usage", tc.usage, pkUses(m))
			got := outs(m)
			if got == nil {
				got = []out{}
			}
			pkCheck(t, "outputs", tc.outputs, got)
			pkCheck(t, "ops", tc.ops, pkOps(m))
			pkCheck(t, "rejects", []pkReject{}, pkRejects(m))
		})
	}
}

// TestClineTaskTexts checks the texts the rules give: a result's text is
// its marker's rest and the blocks after it (not the environment_details),
// a command's output chunks are joined, XML reasoning and text are split
// at the tool tags.
func TestClineTaskTexts(t *testing.T) {
	root := t.TempDir()
	hist := filepath.Join(root, "h", "tasks", "1")
	writeTask(t, hist, map[string]string{"api_conversation_history.json": ctXMLHistory})
	ui := filepath.Join(root, "u", "tasks", "2")
	writeTask(t, ui, map[string]string{"ui_messages.json": ctUIOnly})
	tests := []struct {
		path string
		seq  int64
		want string
	}{
		{filepath.Join(hist, "api_conversation_history.json"), 2, "Read a.go first."},
		{filepath.Join(hist, "api_conversation_history.json"), 3, "\nReading it.\n"},
		{filepath.Join(hist, "api_conversation_history.json"), 5, "package a"},
		{filepath.Join(hist, "api_conversation_history.json"), 9, "ok  \tx\t0.1s\nTool [write_to_file] was not executed because a tool has already been used in this message."},
		{filepath.Join(ui, "ui_messages.json"), 4, "building\nok p 0.1s"},
		{filepath.Join(ui, "ui_messages.json"), 5, "Summary of the work."},
	}
	for _, tc := range tests {
		m := pkParse(t, ctFormat, tc.path, tc.path)
		if got := m.Events[tc.seq].Text; got != tc.want {
			t.Errorf("%s: event %d text %q, want %q", filepath.Base(tc.path), tc.seq, got, tc.want)
		}
	}
}

// TestClineTaskRejects: a bad record costs that record, rejected at its
// line (a request whose text does not decode is still a call, without
// usage); the rest imports.
func TestClineTaskRejects(t *testing.T) {
	tests := []struct {
		name, file, doc string
		turns, events   int
		rejects         []string // "<line>: <reason prefix>"
	}{
		{"ui records", "ui_messages.json", "[\n{\"ts\":1,\"type\":\"say\",\"say\":\"text\",\"text\":\"task\"},\n7,\n{\"ts\":2,\"type\":\"note\",\"text\":\"x\"},\n{\"ts\":3,\"type\":\"say\",\"say\":\"api_req_started\",\"text\":\"{tokensIn\"},\n{\"ts\":4,\"type\":\"say\",\"say\":\"text\",\"text\":\"answer\"},\n{\"ts\":5,\"type\":\"say\",\"say\":\"text\",\"text\":[\"no\"]}\n]", 1, 2,
			[]string{`3: ui_messages[1] is not an object`, `4: ui_messages[2]: type "note" is neither say nor ask`, `5: ui_messages[3]: api_req_started text: `, `7: ui_messages[5]: `}},
		{"history messages", "api_conversation_history.json", "[\n{\"role\":\"user\",\"content\":\"hi\"},\n{\"role\":\"robot\",\"content\":\"x\"},\n{\"role\":\"assistant\",\"content\":5},\n\"str\",\n{\"role\":\"assistant\",\"content\":\"ok\"}\n]", 1, 2,
			[]string{`3: messages[1]: unknown role "robot"`, `4: messages[2]: content is neither text nor a list of blocks`, `5: messages[3] is not an object`}},
		{"not JSON", "ui_messages.json", "[{\"ts\":1,\n\"type\":", 0, 0, []string{"2: invalid JSON"}},
		{"not an array", "api_conversation_history.json", `{"role":"user"}`, 0, 0, []string{"1: expected a JSON array of messages"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ingest.Parse(context.Background(), ctFormat, filepath.Join(t.TempDir(), "tasks", "x", tc.file), []byte(tc.doc), nil)
			if err != nil {
				t.Fatal(err)
			}
			var turns int64
			for _, r := range m.Runs {
				turns += r.NTurns
			}
			if turns != int64(tc.turns) || len(m.Events) != tc.events || len(m.Usage) != 0 {
				t.Errorf("%d turns, %d events, %d usage rows; want %d, %d, 0", turns, len(m.Events), len(m.Usage), tc.turns, tc.events)
			}
			if len(m.Rejects) != len(tc.rejects) {
				t.Fatalf("rejects %v, want %v", pkRejects(m), tc.rejects)
			}
			for i, r := range m.Rejects {
				if got := fmt.Sprintf("%d: %s", r.Line, r.Reason); !strings.HasPrefix(got, tc.rejects[i]) {
					t.Errorf("reject %d: %q, want %q…", i, got, tc.rejects[i])
				}
			}
		})
	}
}

// TestClineTaskDetect is the detection table: the two run files by their
// names and shapes, and the metadata siblings by their names, their place
// (tasks/<id>/) and their keys.
func TestClineTaskDetect(t *testing.T) {
	tests := []struct {
		name, head string
		want       bool
	}{
		{"tasks/1/api_conversation_history.json", `[{"role":"user","content":[{"type":"text","text":"<task>"}]}]`, true},
		{"tasks/1/api_conversation_history.json", `[]`, true},
		{"tasks/1/api_conversation_history.json", `{"messages":[{"role":"user"}]}`, false},
		{"tasks/1/api_conversation_history.json", `[{"content":"x"}]`, false},
		{"tasks/1/history.json", `[{"role":"user","content":"x"}]`, false},
		{"tasks/1/ui_messages.json", `[{"ts":1700000000000,"type":"say","say":"text","text":"x"}]`, true},
		{"tasks/1/ui_messages.json", `[{"ts":1700000000000,"type":"ask","ask":"tool","text":"x"}]`, true},
		{"tasks/1/ui_messages.json", ` [ ]`, true},
		{"tasks/1/ui_messages.json", `[{"ts":"x","type":"say"}]`, false},
		{"tasks/1/ui_messages.json", `[{"ts":1,"type":"note"}]`, false},
		{"tasks/1/ui_messages.json", `[{"role":"user","content":"x"}]`, false},
		{"tasks/1/messages.json", `[{"ts":1,"type":"say","say":"text"}]`, false},
		// the metadata siblings: claimed in a tasks/<id>/ folder with one
		// of their keys, nothing else so named
		{"tasks/1/task_metadata.json", `{"files_in_context":[]}`, true},
		{"tasks/1/task_metadata.json", `{"model_usage":[],"files_in_context":[]}`, true},
		{"/home/u/.config/Code/User/globalStorage/kilocode.kilo-code/tasks/1/task_metadata.json", `{"environment_history":[]}`, true},
		{"tasks/1/history_item.json", `{"id":"x","ts":1,"task":"t","tokensIn":1}`, true},
		{"tasks/1/history_item.json", `{"number":1,"ts":1}`, true},
		{"tasks/1/history_item.json", `{"number":1}`, false},
		{"tasks/1/history_item.json", `[{"id":"x"}]`, false},
		{"tasks/1/task_metadata.json", `{"files":[]}`, false},
		{"runs/1/task_metadata.json", `{"files_in_context":[]}`, false},
		{"task_metadata.json", `{"files_in_context":[]}`, false},
		{"tasks/1/metadata.json", `{"files_in_context":[]}`, false},
	}
	im, err := ingest.Lookup(ctFormat)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		if got := im.Detect(tc.name, []byte(tc.head)); got != tc.want {
			t.Errorf("Detect(%s, %s) = %v, want %v", tc.name, tc.head, got, tc.want)
		}
	}
}

// TestClineTaskMoreRules checks the rules TestClineTaskRules leaves out:
// the ends a ui_messages.json states, assistant asks whose text is JSON,
// the tools whose results ui_messages.json holds (MCP, browser, Roo's
// sub-tasks), a record's own reasoning field, and, in history mode, Roo's
// context records placed before the response of the request after them
// and a request left without a response.
func TestClineTaskMoreRules(t *testing.T) {
	const id = "t"
	req := func(ts int, in int) string {
		return `{"ts":` + fmt.Sprint(ts) + `,"type":"say","say":"api_req_started","text":"{\"tokensIn\":` + fmt.Sprint(in) + `}"}`
	}
	ui := func(records ...string) string { return "[\n" + strings.Join(records, ",\n") + "\n]" }
	tests := []struct {
		name   string
		files  map[string]string
		anchor string
		run    pkRun
		kinds  []schema.EventKind
		texts  []string // the events' texts (tool calls: name and arguments)
		turns  []int64
		ops    []pkOp
	}{{
		name: "completion_result ends", anchor: "ui_messages.json",
		files: map[string]string{"ui_messages.json": ui(`{"ts":1,"type":"say","say":"task","text":"Do it"}`, req(2, 10),
			`{"ts":3,"type":"ask","ask":"followup","text":"{\"question\":\"Which file?\",\"options\":[\"a\",\"b\"]}"}`,
			`{"ts":4,"type":"say","say":"user_feedback","text":"a"}`, req(5, 20),
			`{"ts":6,"type":"say","say":"text","reasoning":"a is small","text":"Done with a."}`,
			`{"ts":7,"type":"say","say":"completion_result","text":"Changed a."}`, `{"ts":8,"type":"ask","ask":"completion_result","text":""}`)},
		run:   pkRun{ID: id, Harness: "cline", End: schema.EndFinished, Source: schema.SourceExplicit, Detail: "completion_result", Turns: 2, In: 30, UsageCalls: 2},
		kinds: []schema.EventKind{schema.KindUser, schema.KindAssistant, schema.KindUser, schema.KindReasoning, schema.KindAssistant, schema.KindAssistant},
		texts: []string{"Do it", "Which file?", "a", "a is small", "Done with a.", "Changed a."},
		turns: []int64{0, 0, 1, 1, 1, 1},
		ops:   []pkOp{},
	}, {
		// feedback after the completion: the task went on
		name: "completion_result then feedback", anchor: "ui_messages.json",
		files: map[string]string{"ui_messages.json": ui(`{"ts":1,"type":"say","say":"task","text":"Do it"}`, req(2, 10),
			`{"ts":3,"type":"say","say":"completion_result","text":"Done."}`, `{"ts":4,"type":"say","say":"user_feedback","text":"Again"}`, req(5, 20),
			`{"ts":6,"type":"ask","ask":"plan_mode_respond","text":"{\"response\":\"Plan: b\"}"}`, req(7, 30))},
		run:   pkRun{ID: id, Harness: "cline", End: schema.EndFinished, Source: schema.SourceInferred, Detail: inferredFinished, Turns: 3, In: 60, UsageCalls: 3},
		kinds: []schema.EventKind{schema.KindUser, schema.KindAssistant, schema.KindUser, schema.KindAssistant},
		texts: []string{"Do it", "Done.", "Again", "Plan: b"},
		turns: []int64{0, 0, 1, 1},
		ops:   []pkOp{},
	}, {
		name: "a failed stream ends", anchor: "ui_messages.json",
		files: map[string]string{"ui_messages.json": ui(`{"ts":1,"type":"say","say":"task","text":"Do it"}`,
			`{"ts":2,"type":"say","say":"api_req_started","text":"{\"tokensIn\":5,\"cancelReason\":\"streaming_failed\"}"}`,
			`{"ts":3,"type":"ask","ask":"api_req_failed","text":"529 overloaded"}`)},
		run:   pkRun{ID: id, Harness: "cline", End: schema.EndError, Source: schema.SourceExplicit, Detail: "cancelReason: streaming_failed", Turns: 1, In: 5, UsageCalls: 1},
		kinds: []schema.EventKind{schema.KindUser, schema.KindError},
		texts: []string{"Do it", "529 overloaded"},
		turns: []int64{0, 1},
		ops:   []pkOp{},
	}, {
		// each output answers the latest open call of its tool, not the
		// oldest open call (the read_file call has no result here)
		name: "ui tool results", anchor: "ui_messages.json",
		files: map[string]string{"ui_messages.json": ui(`{"ts":1,"type":"say","say":"task","text":"Do it"}`, req(2, 10),
			`{"ts":3,"type":"say","say":"tool","text":"{\"tool\":\"readFile\",\"path\":\"a.go\"}"}`,
			`{"ts":4,"type":"ask","ask":"use_mcp_server","text":"{\"serverName\":\"gh\",\"toolName\":\"issue\",\"arguments\":\"{}\"}"}`,
			`{"ts":5,"type":"say","say":"mcp_server_response","text":"issue 1"}`,
			`{"ts":6,"type":"say","say":"browser_action_launch","text":"http://localhost:3000"}`,
			`{"ts":7,"type":"say","say":"browser_action_result","text":"{\"logs\":\"\"}"}`,
			`{"ts":8,"type":"ask","ask":"tool","text":"{\"tool\":\"newTask\",\"mode\":\"code\",\"content\":\"sub\"}"}`,
			`{"ts":9,"type":"say","say":"subtask_result","text":"sub done"}`,
			`{"ts":10,"type":"ask","ask":"tool","text":"not json"}`)},
		run: pkRun{ID: id, Harness: "cline", End: schema.EndUnknown, Source: schema.SourceInferred, Detail: "log ends on a tool call without its result", Turns: 1, In: 10, UsageCalls: 1},
		kinds: []schema.EventKind{schema.KindUser, schema.KindToolCall, schema.KindToolCall, schema.KindToolResult, schema.KindToolCall, schema.KindToolResult,
			schema.KindToolCall, schema.KindToolResult, schema.KindToolCall},
		texts: []string{"Do it", `readFile {"path":"a.go","tool":"readFile"}`, `use_mcp_server {"arguments":"{}","serverName":"gh","toolName":"issue"}`, "issue 1",
			`browser_action {"action":"launch","url":"http://localhost:3000"}`, `{"logs":""}`, `newTask {"content":"sub","mode":"code","tool":"newTask"}`, "sub done",
			`tool {"text":"not json"}`},
		// no request record between them: one model call's outputs, the
		// results its inputs
		turns: []int64{0, 0, 0, 1, 0, 1, 0, 1, 0},
		ops:   []pkOp{},
	}, {
		// history mode: the condensation logged between the first and the
		// second request goes before the second response; the third
		// request has no response in the history; the ui's
		// completion_result is the end
		name: "history with ui records", anchor: "api_conversation_history.json",
		files: map[string]string{
			"api_conversation_history.json": `[{"role":"user","content":"Do it"},{"role":"assistant","content":"One."},{"role":"user","content":"More"},{"role":"assistant","content":"Two."}]`,
			"ui_messages.json": ui(`{"ts":1,"type":"say","say":"task","text":"Do it"}`, req(2, 10),
				`{"ts":3,"type":"say","say":"condense_context","contextCondense":{"cost":0,"prevContextTokens":500,"newContextTokens":100,"summary":"S"}}`,
				req(4, 20), req(5, 30), `{"ts":6,"type":"say","say":"completion_result","text":"Two."}`),
		},
		run:   pkRun{ID: id, Harness: "cline", End: schema.EndFinished, Source: schema.SourceExplicit, Detail: "completion_result", Turns: 3, In: 60, UsageCalls: 3},
		kinds: []schema.EventKind{schema.KindUser, schema.KindAssistant, schema.KindUser, schema.KindCompaction, schema.KindAssistant},
		texts: []string{"Do it", "One.", "More", "S", "Two."},
		turns: []int64{0, 0, 1, 1, 1},
		ops:   []pkOp{{id, 3, 1, schema.OpCompaction, "condense_context", 500, 100, "condense_context"}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "tasks", id)
			writeTask(t, dir, tc.files)
			path := filepath.Join(dir, tc.anchor)
			m := pkParse(t, ctFormat, path, path)
			pkCheck(t, "runs", []pkRun{tc.run}, pkRuns(m))
			var kinds []schema.EventKind
			var texts []string
			var turns []int64
			for _, e := range m.Events {
				kinds, texts, turns = append(kinds, e.Kind), append(texts, e.Text), append(turns, e.Turn)
			}
			pkCheck(t, "kinds", tc.kinds, kinds)
			pkCheck(t, "texts", tc.texts, texts)
			pkCheck(t, "turns", tc.turns, turns)
			pkCheck(t, "ops", tc.ops, pkOps(m))
			pkCheck(t, "rejects", []pkReject{}, pkRejects(m))
			calls, results, linked := eventCounts(m)
			if results != linked {
				t.Errorf("%d of %d results linked to a call (%d calls)", linked, results, calls)
			}
		})
	}
}

// TestClineTaskFolderWalkQuiet walks the fixtures' task folders as a user
// walks a tasks folder: the metadata siblings (history_item.json,
// task_metadata.json) are imported silently as the importer's, making no
// run, and no file of a task folder is an unknown format; only the
// fixture's own notes (SOURCE.md, counts.json) are. Runs and files are
// counted by hand from the folders.
func TestClineTaskFolderWalkQuiet(t *testing.T) {
	tests := []struct {
		folder      string
		runs, files int // files imported: every file of the task folders
	}{
		{"roo-code", 2, 4},  // 2 tasks: ui_messages.json + history_item.json each
		{"kilo-code", 1, 3}, // 1 task: history + ui_messages.json + task_metadata.json
	}
	for _, tc := range tests {
		t.Run(tc.folder, func(t *testing.T) {
			var warns []string
			var sink ingest.MemSink
			sum, err := ingest.Files(context.Background(), &sink, []string{filepath.Join("testdata", "agents", tc.folder)},
				&ingest.Options{Warn: func(err error) { warns = append(warns, err.Error()) }})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range warns {
				if strings.Contains(w, string(filepath.Separator)+"tasks"+string(filepath.Separator)) || !strings.Contains(w, "SOURCE.md") && !strings.Contains(w, "counts.json") {
					t.Errorf("warning: %s", w)
				}
			}
			if len(warns) != 2 {
				t.Errorf("%d warnings, want 2 (SOURCE.md, counts.json): %q", len(warns), warns)
			}
			if sum.Runs != int64(tc.runs) || sum.Files != tc.files || sum.Failed != 0 {
				t.Errorf("%d runs from %d files (%d failed), want %d from %d", sum.Runs, sum.Files, sum.Failed, tc.runs, tc.files)
			}
		})
	}
}
