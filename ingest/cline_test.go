package ingest_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/schema"
)

const (
	clSDKFormat      = "cline-sdk-session"
	clCassetteFormat = "cline-http-cassette"
)

func TestClineSDKFixtures(t *testing.T) {
	tests := []struct {
		file    string
		runs    []pkRun
		events  []ev
		lines   []int64
		usage   []use
		outputs []out
		ops     []pkOp
		rejects []pkReject
	}{
		{
			file: "s1.messages.json",
			runs: []pkRun{{ID: "cl-1", Harness: "cline", Model: "anthropic/claude-sonnet-4.5", End: schema.EndFinished, Source: schema.SourceInferred,
				Detail: "log ends on an assistant reply without a tool call", Turns: 3, In: 3500, Out: 85, CR: 3000, CW: 100, UsageCalls: 3, Cost: "0.017"}},
			events: []ev{
				{"cl-1", 0, 0, schema.KindSystem, "", "", "", false},
				{"cl-1", 1, 0, schema.KindUser, "", "", "", false},
				{"cl-1", 2, 0, schema.KindUser, "", "", "", false}, // the file block
				{"cl-1", 3, 0, schema.KindAssistant, "", "", "", false},
				{"cl-1", 4, 0, schema.KindToolCall, "read_files", "tu1", "", false},
				{"cl-1", 5, 1, schema.KindToolResult, "read_files", "tu1", "", false},
				{"cl-1", 6, 1, schema.KindToolCall, "run_commands", "tu2", "npm test", false},
				{"cl-1", 7, 2, schema.KindToolResult, "run_commands", "tu2", "npm test", true},
				{"cl-1", 8, 2, schema.KindAssistant, "", "", "", false},
			},
			lines: []int64{63, 7, 7, 16, 16, 27, 35, 45, 54},
			usage: []use{{"cl-1", 0, 1000, 50, 800, 100}, {"cl-1", 1, 1200, 20, 1000, 0}, {"cl-1", 2, 1300, 15, 1200, 0}},
			outputs: []out{
				{"cl-1", "tu1", "read_files", "", 1, false},
				{"cl-1", "tu2", "run_commands", "npm test", 2, true},
			},
			ops:     []pkOp{},
			rejects: []pkReject{{53, "messages[5] is not an object"}},
		},
		{
			file: "s1.compaction.json",
			runs: []pkRun{{ID: "cl-1/compaction", Parent: "cl-1", Harness: "cline", Model: "mistralai/voxtral-small-24b-2507", End: schema.EndFinished,
				Source: schema.SourceInferred, Detail: "log ends on an assistant reply without a tool call", Turns: 2, In: 3000, Out: 4, CW: 2900, UsageCalls: 1, Cost: "0.0002"}},
			events: []ev{
				{"cl-1/compaction", 0, 0, schema.KindSystem, "", "", "", false},
				{"cl-1/compaction", 1, 0, schema.KindCompaction, "", "", "", false},
				{"cl-1/compaction", 2, 0, schema.KindUser, "", "", "", false},
				{"cl-1/compaction", 3, 0, schema.KindAssistant, "", "", "", false}, // carried over: no usage
				{"cl-1/compaction", 4, 1, schema.KindUser, "", "", "", false},
				{"cl-1/compaction", 5, 1, schema.KindAssistant, "", "", "", false},
			},
			lines:   []int64{32, 7, 13, 14, 22, 23},
			usage:   []use{{"cl-1/compaction", 1, 3000, 4, 0, 2900}},
			ops:     []pkOp{{"cl-1/compaction", 1, 0, schema.OpSummary, "compaction_summary", 21919, -1, ""}},
			rejects: []pkReject{},
		},
		{
			// run metadata only: recognised, no run
			file: "session.json", runs: []pkRun{}, events: []ev{}, ops: []pkOp{}, rejects: []pkReject{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			m := pkParse(t, clSDKFormat, filepath.Join("testdata", clSDKFormat, tc.file), tc.file)
			pkCheck(t, "runs", tc.runs, pkRuns(m))
			pkCheck(t, "events", tc.events, evs(m))
			var lines []int64
			for _, e := range m.Events {
				lines = append(lines, e.Line)
			}
			pkCheck(t, "event lines", tc.lines, lines)
			pkCheck(t, "usage", tc.usage, uses(m))
			pkCheck(t, "tool outputs", tc.outputs, outs(m))
			pkCheck(t, "context ops", tc.ops, pkOps(m))
			pkCheck(t, "rejects", tc.rejects, pkRejects(m))
		})
	}
}

// TestClineSDKTexts pins what the model saw of file blocks and of Cline's
// {query, result, success} tool results.
func TestClineSDKTexts(t *testing.T) {
	m := pkParse(t, clSDKFormat, "testdata/cline-sdk-session/s1.messages.json", "s1.messages.json")
	pkCheck(t, "texts", []string{
		"[file /repo/a.ts]\nexport const a = 1;",
		`[{"query":"/repo/a.ts","result":"export const a = 1;","success":true}]`,
		"FAIL a.test.ts",
	}, []string{m.Events[2].Text, m.Events[5].Text, m.Events[7].Text})
}

func TestClineCassetteFixtures(t *testing.T) {
	tests := []struct {
		file    string
		runs    []pkRun
		events  []ev
		lines   []int64
		usage   []pkUse
		outputs []out
		rejects []pkReject
	}{
		{
			file: "cassette.json",
			runs: []pkRun{{ID: "cassette", Harness: "cline", Model: "anthropic/claude-sonnet-4.6", End: schema.EndFinished, Source: schema.SourceExplicit,
				Detail: "attempt_completion", Turns: 2, In: 2100, Out: 50, CR: 1590, CW: 390, Reasoning: 8, UsageCalls: 2}},
			events: []ev{
				{"cassette", 0, 0, schema.KindSystem, "", "", "", false},
				{"cassette", 1, 0, schema.KindUser, "", "", "", false},
				{"cassette", 2, 0, schema.KindReasoning, "", "", "", false},
				{"cassette", 3, 0, schema.KindToolCall, "read_file", "call_1", "/repo/a.go", false},
				{"cassette", 4, 1, schema.KindError, "", "", "", true}, // HTTP 529
				// the next request repeats system and user, then the assistant turn (skipped) and the tool result
				{"cassette", 5, 1, schema.KindToolResult, "read_file", "call_1", "/repo/a.go", false},
				{"cassette", 6, 1, schema.KindAssistant, "", "", "", false},
				{"cassette", 7, 1, schema.KindToolCall, "attempt_completion", "call_2", "", false},
			},
			lines: []int64{12, 12, 12, 12, 22, 42, 42, 42},
			usage: []pkUse{
				{"cassette", 0, 1000, 30, 600, 390, 8, "anthropic/claude-sonnet-4.6", "gen-1"},
				{"cassette", 1, 1100, 20, 990, 0, 0, "anthropic/claude-sonnet-4.6", "gen-2"},
			},
			outputs: []out{{"cassette", "call_1", "read_file", "/repo/a.go", 1, false}},
			rejects: []pkReject{{88, "exchange 5 is not an object"}},
		},
		{
			file: "completion.json",
			runs: []pkRun{{ID: "completion", Harness: "cline", Model: "gpt-4o-mini", End: schema.EndFinished, Source: schema.SourceInferred,
				Detail: "last response finish_reason stop", Turns: 1, In: 12, Out: 3, UsageCalls: 1}},
			events:  []ev{{"completion", 0, 0, schema.KindAssistant, "", "", "", false}},
			lines:   []int64{2},
			usage:   []pkUse{{"completion", 0, 12, 3, 0, 0, 0, "gpt-4o-mini", "chatcmpl-9"}},
			rejects: []pkReject{{29, "response chunk 1: a quoted key was expected, got 'n'"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			m := pkParse(t, clCassetteFormat, filepath.Join("testdata", clCassetteFormat, tc.file), tc.file)
			pkCheck(t, "runs", tc.runs, pkRuns(m))
			pkCheck(t, "events", tc.events, evs(m))
			var lines []int64
			for _, e := range m.Events {
				lines = append(lines, e.Line)
			}
			pkCheck(t, "event lines", tc.lines, lines)
			pkCheck(t, "usage", tc.usage, pkUses(m))
			pkCheck(t, "tool outputs", tc.outputs, outs(m))
			pkCheck(t, "rejects", tc.rejects, pkRejects(m))
		})
	}
	m := pkParse(t, clCassetteFormat, "testdata/cline-http-cassette/cassette.json", "cassette.json")
	pkCheck(t, "joined stream", []string{"Need to read it.", `{"path":"/repo/a.go"}`, "Done: a.go is fine."},
		[]string{m.Events[2].Text, m.Events[3].Args, m.Events[6].Text})
}

func TestClineDetect(t *testing.T) {
	sdk, err := ingest.Lookup(clSDKFormat)
	if err != nil {
		t.Fatal(err)
	}
	cas, err := ingest.Lookup(clCassetteFormat)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, head string
		want       string // "" = neither
	}{
		{"messages file", `{"version": 1, "updated_at": "t", "agent": "lead", "sessionId": "s", "messages": [{"id": "m", "role": "user", "content": []}]}`, clSDKFormat},
		{"session.json", `{"version": 1, "session_id": "s", "status": "completed", "messages_path": "/x.messages.json"}`, clSDKFormat},
		{"gemini recording", `{"sessionId": "s", "projectHash": "h", "messages": [{"id": "1", "type": "user", "content": "hi", "role": "x"}], "agent": 1}`, ""},
		{"atif", `{"schema_version": "ATIF-v1.7", "session_id": "s", "agent": {"name": "x"}, "steps": []}`, ""},
		{"plain messages", `{"messages": [{"role": "user", "content": "hi"}]}`, ""},
		{"nock chat", "[\n\t{\n\t\t\"scope\": \"https://api.cline.bot\",\n\t\t\"method\": \"POST\",\n\t\t\"path\": \"/api/v1/chat/completions\",\n\t\t\"status\": 200,\n\t\t\"response\": \"data: {}\"\n\t}\n]", clCassetteFormat},
		{"nock without chat", `[{"scope": "https://data.cline.bot", "method": "POST", "path": "/flags/", "status": 200, "response": {}}]`, ""},
		{"openhands events", `[{"id": 0, "source": "user", "message": "hi", "action": "message"}]`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			for _, im := range []ingest.Importer{sdk, cas} {
				if im.Detect("x.json", []byte(tc.head)) {
					if got != "" {
						t.Fatalf("claimed by %s and %s", got, im.Name())
					}
					got = im.Name()
				}
			}
			if got != tc.want {
				t.Errorf("claimed by %q, want %q", got, tc.want)
			}
		})
	}
}

// TestClineSDKCorpus checks the real Cline SDK files against an independent
// scan (tool_use / tool_result blocks, assistant messages with metrics) and
// the MANIFEST (32 messages, 11 tool_use; the compaction history has 3
// messages; session.json is metadata only).
func TestClineSDKCorpus(t *testing.T) {
	dir := testutil.Corpus(t, "cline-sdk-session")
	for _, tc := range []struct {
		file         string
		msgs         int
		runID        string
		parent       string
		usageRows    int
		tokensBefore int64
	}{
		{"cline-sdk__session.messages.json", 32, "1784094124598_rruoq", "", 16, -1},
		// the carried-over assistant message predates the compaction: no usage
		{"cline-sdk__agentic.compaction.json", 3, "1784094124598_rruoq/compaction", "1784094124598_rruoq", 0, 21919},
		{"cline-sdk__session.json", 0, "", "", 0, -1},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join(dir, tc.file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Messages []struct {
					Role    string `json:"role"`
					Content []struct {
						Type string `json:"type"`
					} `json:"content"`
					Metrics *json.RawMessage `json:"metrics"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			var assistants, toolUse, toolResult int
			for _, msg := range doc.Messages {
				if msg.Role == "assistant" {
					assistants++
				}
				for _, b := range msg.Content {
					switch b.Type {
					case "tool_use":
						toolUse++
					case "tool_result":
						toolResult++
					}
				}
			}
			if len(doc.Messages) != tc.msgs {
				t.Errorf("messages = %d, want %d (MANIFEST)", len(doc.Messages), tc.msgs)
			}
			m := pkParse(t, clSDKFormat, path, tc.file)
			pkCheck(t, "rejects", []pkReject{}, pkRejects(m))
			if tc.runID == "" {
				pkCheck(t, "runs", []pkRun{}, pkRuns(m))
				return
			}
			if len(m.Runs) != 1 || m.Runs[0].RunID != tc.runID || m.Runs[0].ParentRunID != tc.parent {
				t.Fatalf("runs = %+v, want one run %s (parent %q)", pkRuns(m), tc.runID, tc.parent)
			}
			var calls, results int
			for _, e := range m.Events {
				switch e.Kind {
				case schema.KindToolCall:
					calls++
				case schema.KindToolResult:
					results++
				}
			}
			pkCheck(t, "turns/tool calls/results/outputs/usage rows",
				[]int{assistants, toolUse, toolResult, toolResult, tc.usageRows},
				[]int{int(m.Runs[0].NTurns), calls, results, len(m.ToolOutputs), len(m.Usage)})
			if tc.file == "cline-sdk__session.messages.json" && toolUse != 11 {
				t.Errorf("tool_use = %d, want 11 (MANIFEST)", toolUse)
			}
			var before []int64
			for _, o := range m.ContextOps {
				before = append(before, *o.TokensBefore)
			}
			if tc.tokensBefore >= 0 {
				pkCheck(t, "summary op tokens_before", []int64{tc.tokensBefore}, before)
			} else if len(before) != 0 {
				t.Errorf("context ops = %+v, want none", pkOps(m))
			}
		})
	}
}

// TestClineCassetteCorpus checks the real recording against an independent
// scan of its SSE responses: 19 exchanges, 8 chat completions (MANIFEST),
// one model call each with its usage chunk, and the tool calls they stream.
func TestClineCassetteCorpus(t *testing.T) {
	path := filepath.Join(testutil.Corpus(t, "cline-http-cassette"), "cline-cli__subagents.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var xs []struct {
		Path     string          `json:"path"`
		Response json.RawMessage `json:"response"`
	}
	if err := json.Unmarshal(data, &xs); err != nil {
		t.Fatal(err)
	}
	var chats, toolCalls, prompt, completion int64
	for _, x := range xs {
		if !strings.Contains(x.Path, "/chat/completions") {
			continue
		}
		chats++
		var sse string
		if err := json.Unmarshal(x.Response, &sse); err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(sse, "\n") {
			payload, ok := strings.CutPrefix(l, "data: ")
			if !ok || payload == "[DONE]" {
				continue
			}
			var c struct {
				Usage *struct {
					PromptTokens     int64 `json:"prompt_tokens"`
					CompletionTokens int64 `json:"completion_tokens"`
				} `json:"usage"`
			}
			if err := json.Unmarshal([]byte(payload), &c); err != nil {
				t.Fatal(err)
			}
			if c.Usage != nil {
				prompt += c.Usage.PromptTokens
				completion += c.Usage.CompletionTokens
			}
			toolCalls += int64(strings.Count(payload, `"type":"function"`))
		}
	}
	pkCheck(t, "exchanges/chats", []int64{19, 8}, []int64{int64(len(xs)), chats})
	m := pkParse(t, clCassetteFormat, path, filepath.Base(path))
	pkCheck(t, "rejects", []pkReject{}, pkRejects(m))
	if len(m.Runs) != 1 {
		t.Fatalf("runs = %d, want 1", len(m.Runs))
	}
	r := m.Runs[0]
	var calls int64
	for _, e := range m.Events {
		if e.Kind == schema.KindToolCall {
			calls++
		}
	}
	pkCheck(t, "turns/usage rows/tool calls/in/out", []int64{chats, chats, toolCalls, prompt, completion},
		[]int64{r.NTurns, int64(len(m.Usage)), calls, r.InputTokens, r.OutputTokens})
	pkCheck(t, "end", "finished/explicit/attempt_completion", string(r.EndReason)+"/"+string(r.EndReasonSource)+"/"+r.EndReasonDetail)
}
