package ingest_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/schema"
)

const gmFormat = "gemini-cli"

func TestGeminiFixtures(t *testing.T) {
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
			file: "session.json",
			runs: []pkRun{{ID: "gm-1", Harness: "gemini-cli", Model: "gemini-2.5-pro", End: schema.EndFinished, Source: schema.SourceInferred,
				Detail: "log ends on a model reply without a tool call", Turns: 3, In: 402, Out: 22, CR: 130, Reasoning: 5, UsageCalls: 2}},
			events: []ev{
				{"gm-1", 0, 0, schema.KindUser, "", "", "", false},
				{"gm-1", 1, 0, schema.KindReasoning, "", "", "", false},
				{"gm-1", 2, 0, schema.KindToolCall, "list_directory", "list_directory-1761594964607-802afbb1c1c44", "/repo", false},
				{"gm-1", 3, 1, schema.KindToolResult, "list_directory", "list_directory-1761594964607-802afbb1c1c44", "/repo", false},
				// issued (19:56:10.000) after list_directory completed (19:56:04.700): a second model call
				{"gm-1", 4, 1, schema.KindToolCall, "read_file", "read_file-1761594970000-1e98df976df08", "/repo/a.go", false},
				{"gm-1", 5, 2, schema.KindToolResult, "read_file", "read_file-1761594970000-1e98df976df08", "/repo/a.go", true},
				{"gm-1", 6, 2, schema.KindAssistant, "", "", "", false},
			},
			lines: []int64{7, 13, 13, 13, 13, 13, 83},
			// input + tool → input; output + thoughts → output
			usage: []pkUse{{"gm-1", 0, 102, 15, 40, 0, 5, "gemini-2.5-pro", "g1"}, {"gm-1", 2, 300, 7, 90, 0, 0, "gemini-2.5-pro", "g2"}},
			outputs: []out{
				{"gm-1", "list_directory-1761594964607-802afbb1c1c44", "list_directory", "/repo", 1, false},
				{"gm-1", "read_file-1761594970000-1e98df976df08", "read_file", "/repo/a.go", 2, true},
			},
			rejects: []pkReject{{99, "messages[4] is not an object"}},
		},
		{
			file: "cancelled.json",
			runs: []pkRun{{ID: "gm-2", Harness: "gemini-cli", Model: "gemini-2.5-flash", End: schema.EndInterrupted, Source: schema.SourceExplicit,
				Detail: "[Operation Cancelled] Reason: User cancelled the operation.", Turns: 1, In: 50, Out: 5, UsageCalls: 1}},
			events: []ev{
				{"gm-2", 0, 0, schema.KindUser, "", "", "", false},
				{"gm-2", 1, 0, schema.KindAssistant, "", "", "", false},
				{"gm-2", 2, 0, schema.KindToolCall, "run_shell_command", "run_shell_command-1761595916500-521fefbd026d5", "python", false},
				{"gm-2", 3, 1, schema.KindToolResult, "run_shell_command", "run_shell_command-1761595916500-521fefbd026d5", "python", true},
			},
			lines:   []int64{3, 4, 4, 4},
			usage:   []pkUse{{"gm-2", 0, 50, 5, 0, 0, 0, "gemini-2.5-flash", "g1"}},
			outputs: []out{{"gm-2", "run_shell_command-1761595916500-521fefbd026d5", "run_shell_command", "python", 1, true}},
			rejects: []pkReject{{10, `1 record of type "mystery" not read (the first at this line)`}},
		},
		{
			file:    "broken.json",
			runs:    []pkRun{},
			events:  []ev{},
			usage:   []pkUse{},
			rejects: []pkReject{{6, "invalid JSON: ',' or '}' was expected, got 'o'"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			m := pkParse(t, gmFormat, filepath.Join("testdata", gmFormat, tc.file), tc.file)
			pkCheck(t, "runs", tc.runs, pkRuns(m))
			pkCheck(t, "events", tc.events, evs(m))
			var lines []int64
			for _, e := range m.Events {
				lines = append(lines, e.Line)
			}
			pkCheck(t, "event lines", tc.lines, lines)
			pkCheck(t, "usage", tc.usage, pkUses(m))
			pkCheck(t, "tool outputs", tc.outputs, outs(m))
			pkCheck(t, "context ops", []pkOp{}, pkOps(m))
			pkCheck(t, "rejects", tc.rejects, pkRejects(m))
		})
	}
}

// TestGeminiTimes checks the run's times (the file's startTime and
// lastUpdated) and the event timestamps: thoughts and results carry their own.
func TestGeminiTimes(t *testing.T) {
	m := pkParse(t, gmFormat, "testdata/gemini-cli/session.json", "session.json")
	r := m.Runs[0]
	if r.StartedAt == nil || r.EndedAt == nil || r.StartedAt.Format("15:04:05") != "19:56:00" || r.EndedAt.Format("15:04:05") != "19:57:00" {
		t.Errorf("run times = %v .. %v, want 19:56:00 .. 19:57:00", r.StartedAt, r.EndedAt)
	}
	var got []string
	for _, e := range m.Events {
		got = append(got, e.TS.Format("15:04:05.000"))
	}
	pkCheck(t, "event times", []string{"19:56:01.000", "19:56:04.598", "19:56:04.607", "19:56:04.700", "19:56:10.000", "19:56:10.100", "19:56:12.000"}, got)
	pkCheck(t, "result texts", []string{"a.go", "permission denied"}, []string{m.Events[3].Text, m.Events[5].Text})
}

func TestGeminiDetect(t *testing.T) {
	im, err := ingest.Lookup(gmFormat)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, head string
		want       bool
	}{
		{"recording", `{"sessionId": "s", "projectHash": "h", "startTime": "t", "messages": [{"id": "1", "type": "user", "content": "hi"}]}`, true},
		{"cut head", `{"sessionId": "s", "projectHash": "h", "messages": [{"id": "1", "type": "user", "content": "hi`, true},
		{"cline sdk", `{"version": 1, "sessionId": "s", "messages": [{"role": "user", "content": []}]}`, false},
		{"no projectHash", `{"sessionId": "s", "messages": []}`, false},
		{"array", `[{"sessionId": "s", "projectHash": "h", "messages": []}]`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := im.Detect("session.json", []byte(tc.head)); got != tc.want {
				t.Errorf("Detect = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestGeminiCorpus checks every real recording against an independent scan
// (tool calls and results = toolCalls entries, usage rows = gemini messages
// with tokens and their sums) and the MANIFEST (14/18/5 messages with 10/13/3
// tool calls). Model calls are the gemini messages plus the tool-call groups
// that later responses appended to them: in the codemie recording, message
// 1c56e562 holds three read/write calls issued 10 s and 78 s apart, each
// after the previous one completed (2 extra calls).
func TestGeminiCorpus(t *testing.T) {
	extra := map[string]int64{"codemie__session-2025-12-01T21-45-5b959dae.json": 2}
	manifest := map[string][2]int{
		"codemie__session-2025-12-01T21-45-5b959dae.json":  {14, 10},
		"agentcmd__session-2025-10-27T19-55-981c87cb.json": {18, 13},
		"agentcmd__session-2025-10-29T10-36-453aa339.json": {5, 3},
	}
	files, _ := filepath.Glob(filepath.Join(testutil.Corpus(t, "gemini-cli"), "*.json"))
	if len(files) != len(manifest) {
		t.Fatalf("%d gemini corpus files, want %d", len(files), len(manifest))
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				SessionID string `json:"sessionId"`
				Messages  []struct {
					Type      string            `json:"type"`
					ToolCalls []json.RawMessage `json:"toolCalls"`
					Tokens    *struct {
						Input, Output, Cached, Thoughts, Tool int64
					} `json:"tokens"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			var geminis, toolCalls, usageRows, in, outTok, cached int64
			for _, msg := range doc.Messages {
				toolCalls += int64(len(msg.ToolCalls))
				if msg.Type == "gemini" {
					geminis++
				}
				if tk := msg.Tokens; tk != nil {
					usageRows++
					in += tk.Input + tk.Tool
					outTok += tk.Output + tk.Thoughts
					cached += tk.Cached
				}
			}
			pkCheck(t, "manifest messages/tool calls", manifest[name], [2]int{len(doc.Messages), int(toolCalls)})
			m := pkParse(t, gmFormat, f, name)
			pkCheck(t, "rejects", []pkReject{}, pkRejects(m))
			if len(m.Runs) != 1 || m.Runs[0].RunID != doc.SessionID {
				t.Fatalf("runs = %+v, want one run %s", pkRuns(m), doc.SessionID)
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
			got := []int64{r.NTurns, calls, results, int64(len(m.ToolOutputs)), int64(len(m.Usage)), r.InputTokens, r.OutputTokens, r.CacheReadTokens}
			want := []int64{geminis + extra[name], toolCalls, toolCalls, toolCalls, usageRows, in, outTok, cached}
			pkCheck(t, "turns/tool calls/results/outputs/usage rows/in/out/cached", want, got)
			if r.EndReason != schema.EndFinished {
				t.Errorf("end = %s (%s), want finished: every recording ends on a model reply", r.EndReason, r.EndReasonDetail)
			}
		})
	}
}
