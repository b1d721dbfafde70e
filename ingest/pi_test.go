package ingest_test

import (
	"bufio"
	"bytes"
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

// Helpers shared by the tests of the pi, gemini-cli, cline, kimi and
// openclaw importers (prefix pk).

// pkRun is the part of a run the fixture tests pin down; nullable fields are
// rendered as strings ("" = NULL).
type pkRun struct {
	ID, Parent, Harness, Model string
	End                        schema.EndReason
	Source                     schema.ReasonSource
	Detail                     string
	Turns, In, Out, CR, CW     int64
	Reasoning, UsageCalls      int64
	Estimated                  bool
	Cost                       string
}

func pkRuns(m *ingest.MemSink) []pkRun {
	out := []pkRun{}
	for _, r := range m.Runs {
		row := pkRun{ID: r.RunID, Parent: r.ParentRunID, Harness: r.Harness, Model: r.Model, End: r.EndReason,
			Source: r.EndReasonSource, Detail: r.EndReasonDetail, Turns: r.NTurns, In: r.InputTokens, Out: r.OutputTokens,
			CR: r.CacheReadTokens, CW: r.CacheWriteTokens, Reasoning: r.ReasoningTokens, UsageCalls: r.UsageCalls,
			Estimated: r.UsageEstimated}
		if r.CostUSD != nil {
			row.Cost = strconv.FormatFloat(*r.CostUSD, 'f', -1, 64)
		}
		out = append(out, row)
	}
	return out
}

// pkOp is one context_ops row with both token counts (-1 = NULL).
type pkOp struct {
	Run           string
	Seq, Turn     int64
	Op            schema.OpKind
	Trigger       string
	Before, After int64
	Detail        string
}

func pkOps(m *ingest.MemSink) []pkOp {
	out := []pkOp{}
	n := func(p *int64) int64 {
		if p == nil {
			return -1
		}
		return *p
	}
	for _, c := range m.ContextOps {
		out = append(out, pkOp{c.RunID, c.Seq, c.Turn, c.Op, c.Trigger, n(c.TokensBefore), n(c.TokensAfter), c.Detail})
	}
	return out
}

// pkReject is a reject without its raw text.
type pkReject struct {
	Line   int64
	Reason string
}

func pkRejects(m *ingest.MemSink) []pkReject {
	out := []pkReject{}
	for _, r := range m.Rejects {
		out = append(out, pkReject{r.Line, r.Reason})
	}
	return out
}

// pkParse imports the file at path (given to Parse as name) with format.
func pkParse(t *testing.T, format, path, name string) *ingest.MemSink {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := ingest.Parse(context.Background(), format, name, data, nil)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return m
}

// pkUsesAll returns every usage row with its model and request id.
type pkUse struct {
	Run                      string
	Turn, In, Out, CR, CW, R int64
	Model, RequestID         string
}

func pkUses(m *ingest.MemSink) []pkUse {
	out := []pkUse{}
	for _, u := range m.Usage {
		out = append(out, pkUse{u.RunID, u.Turn, u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.ReasoningTokens, u.Model, u.RequestID})
	}
	return out
}

// pkCheck compares one part of a fixture's import.
func pkCheck[T any](t *testing.T, what string, want, got T) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}

const piFormat = "pi-coding-agent"

func TestPiFixtures(t *testing.T) {
	tests := []struct {
		file    string
		runs    []pkRun
		events  []ev
		usage   []use
		outputs []out
		ops     []pkOp
		rejects []pkReject
	}{
		{
			file: "session.jsonl",
			runs: []pkRun{{ID: "pi-s1", Harness: "pi", Model: "claude-opus-4-5", End: schema.EndFinished, Source: schema.SourceInferred,
				Detail: "log ends on an assistant reply without a tool call", Turns: 2, In: 3215, Out: 70, CR: 3000, CW: 200, UsageCalls: 2, Cost: "0.01"}},
			events: []ev{
				{"pi-s1", 0, 0, schema.KindUser, "", "", "", false},
				{"pi-s1", 1, 0, schema.KindReasoning, "", "", "", false},
				{"pi-s1", 2, 0, schema.KindToolCall, "read", "toolu_1", "/repo/src/main.ts", false},
				{"pi-s1", 3, 0, schema.KindToolCall, "bash", "toolu_2", "ls -la /repo", false},
				{"pi-s1", 4, 1, schema.KindToolResult, "read", "toolu_1", "/repo/src/main.ts", false},
				{"pi-s1", 5, 1, schema.KindToolResult, "bash", "toolu_2", "ls -la /repo", true},
				{"pi-s1", 6, 1, schema.KindError, "", "", "", true}, // aborted with nothing: not a model call
				{"pi-s1", 7, 1, schema.KindUser, "", "", "", false},
				{"pi-s1", 8, 1, schema.KindCompaction, "", "", "", false},
				{"pi-s1", 9, 1, schema.KindUser, "", "", "", false}, // bashExecution
				{"pi-s1", 10, 1, schema.KindAssistant, "", "", "", false},
			},
			// input = input + cacheRead + cacheWrite
			usage: []use{{"pi-s1", 0, 1210, 50, 1000, 200}, {"pi-s1", 1, 2005, 20, 2000, 0}},
			outputs: []out{
				{"pi-s1", "toolu_1", "read", "/repo/src/main.ts", 1, false},
				{"pi-s1", "toolu_2", "bash", "ls -la /repo", 1, true},
			},
			ops:     []pkOp{{"pi-s1", 8, 1, schema.OpCompaction, "", 150000, -1, "firstKeptEntryIndex=3"}},
			rejects: []pkReject{{12, "record is not a JSON object"}, {13, "message entry without a message object"}},
		},
		{
			file: "error_end.jsonl",
			runs: []pkRun{{ID: "error_end", Harness: "pi", Model: "claude-sonnet-4-5", End: schema.EndContextOverflow, Source: schema.SourceExplicit,
				Detail: "400 prompt is too long: 210000 tokens > 200000 maximum", Turns: 1, In: 103, Out: 4, CW: 100, UsageCalls: 1}},
			events: []ev{
				{"error_end", 0, 0, schema.KindUser, "", "", "", false},
				{"error_end", 1, 0, schema.KindAssistant, "", "", "", false},
				{"error_end", 2, 1, schema.KindUser, "", "", "", false},
				{"error_end", 3, 1, schema.KindError, "", "", "", true},
			},
			usage:   []use{{"error_end", 0, 103, 4, 0, 100}},
			ops:     []pkOp{},
			rejects: []pkReject{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", piFormat, tc.file)
			m := pkParse(t, piFormat, path, filepath.Base(path))
			pkCheck(t, "runs", tc.runs, pkRuns(m))
			pkCheck(t, "events", tc.events, evs(m))
			pkCheck(t, "usage", tc.usage, uses(m))
			pkCheck(t, "tool outputs", tc.outputs, outs(m))
			pkCheck(t, "context ops", tc.ops, pkOps(m))
			pkCheck(t, "rejects", tc.rejects, pkRejects(m))
		})
	}
}

func TestPiFixtureDetails(t *testing.T) {
	m := pkParse(t, piFormat, "testdata/pi-coding-agent/session.jsonl", "session.jsonl")
	var lines []int64
	var exit string
	for _, e := range m.Events {
		lines = append(lines, e.Line)
		if e.Role == "bashExecution" {
			exit = e.Text
			if e.ExitCode == nil || *e.ExitCode != 0 {
				t.Errorf("bashExecution exit code = %v, want 0", e.ExitCode)
			}
		}
	}
	pkCheck(t, "event lines", []int64{2, 3, 3, 3, 4, 5, 7, 8, 9, 10, 11}, lines)
	pkCheck(t, "bashExecution text", "$ git status\nclean", exit)
	if ts := m.Events[0].TS; ts == nil || ts.UnixMilli() != 1765231201000 {
		t.Errorf("first event ts = %v, want the message's ms timestamp", ts)
	}
}

func TestPiDetect(t *testing.T) {
	im, err := ingest.Lookup(piFormat)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, head string
		want       bool
	}{
		{"session header", `{"type":"session","id":"x","timestamp":"2025-01-01T00:00:00Z","cwd":"/r"}`, true},
		{"v3 header", `{"type":"session","version":3,"id":"x","timestamp":"2025-01-01T00:00:00Z"}`, true},
		{"message first", `{"type":"message","timestamp":"t","message":{"role":"toolResult","toolCallId":"a"}}`, true},
		{"compaction first", `{"type":"compaction","summary":"s","tokensBefore":5}`, true},
		{"claude code", `{"type":"user","sessionId":"s","message":{"role":"user","content":"hi"}}`, false},
		{"openclaw", `{"type":"agent.start","sessionKey":"agent:main:main","messages":[{"role":"user"}]}`, false},
		{"message of unknown role", `{"type":"message","message":{"role":"narrator"}}`, false},
		{"session without id", `{"type":"session","cwd":"/r"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := im.Detect("x.jsonl", []byte(tc.head)); got != tc.want {
				t.Errorf("Detect = %v, want %v", got, tc.want)
			}
		})
	}
}

// piTruth is an independent reading of a pi session file.
type piTruth struct {
	calls, toolCalls, results, usageRows int64
	in, out, cacheRead, cacheWrite       int64
	tokensBefore                         []int64
}

func piScan(t *testing.T, path string) piTruth {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var tr piTruth
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var e struct {
			Type         string `json:"type"`
			TokensBefore int64  `json:"tokensBefore"`
			Message      struct {
				Role       string            `json:"role"`
				Content    []json.RawMessage `json:"content"`
				StopReason string            `json:"stopReason"`
				Usage      struct{ Input, Output, CacheRead, CacheWrite int64 }
			} `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		switch {
		case e.Type == "compaction":
			tr.tokensBefore = append(tr.tokensBefore, e.TokensBefore)
		case e.Type == "message" && e.Message.Role == "toolResult":
			tr.results++
		case e.Type == "message" && e.Message.Role == "assistant":
			u := e.Message.Usage
			sum := u.Input + u.Output + u.CacheRead + u.CacheWrite
			failed := e.Message.StopReason == "aborted" || e.Message.StopReason == "error"
			if len(e.Message.Content) > 0 || sum > 0 || !failed {
				tr.calls++
			}
			if sum > 0 {
				tr.usageRows++
				tr.in += u.Input + u.CacheRead + u.CacheWrite
				tr.out += u.Output
				tr.cacheRead += u.CacheRead
				tr.cacheWrite += u.CacheWrite
			}
			for _, b := range e.Message.Content {
				if bytes.Contains(b, []byte(`"type":"toolCall"`)) {
					tr.toolCalls++
				}
			}
		}
	}
	return tr
}

// TestPiCorpus checks every real pi file against an independent scan and
// the MANIFEST (484 assistant messages of which 13 are empty aborted/failed
// requests, 454 toolCalls, 2 compactions).
func TestPiCorpus(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testutil.Corpus(t, "pi-coding-agent"), "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no pi corpus files")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			m := pkParse(t, piFormat, f, filepath.Base(f))
			tr := piScan(t, f)
			pkCheck(t, "rejects", []pkReject{}, pkRejects(m))
			if len(m.Runs) != 1 {
				t.Fatalf("runs = %d, want 1", len(m.Runs))
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
			var before []int64
			for _, o := range m.ContextOps {
				if o.Op != schema.OpCompaction || o.TokensBefore == nil {
					t.Errorf("op %+v: want a compaction with tokens_before", o)
					continue
				}
				before = append(before, *o.TokensBefore)
			}
			got := []int64{r.NTurns, calls, results, int64(len(m.Usage)), r.InputTokens, r.OutputTokens, r.CacheReadTokens, r.CacheWriteTokens}
			want := []int64{tr.calls, tr.toolCalls, tr.results, tr.usageRows, tr.in, tr.out, tr.cacheRead, tr.cacheWrite}
			pkCheck(t, "turns/tool calls/results/usage rows/in/out/cache read/cache write", want, got)
			pkCheck(t, "compaction tokens_before", tr.tokensBefore, before)
			if int64(len(m.ToolOutputs)) != results {
				t.Errorf("tool outputs = %d, want %d", len(m.ToolOutputs), results)
			}
			if strings.HasPrefix(filepath.Base(f), "pi-mono__before-compaction") {
				pkCheck(t, "manifest counts", []int64{471, 454, 448, 2}, []int64{r.NTurns, calls, results, int64(len(before))})
				pkCheck(t, "tokens_before", []int64{175004, 185014}, before)
			}
		})
	}
}

// TestPiStrict: in strict mode the first malformed line aborts the file with
// its position.
func TestPiStrict(t *testing.T) {
	data, err := os.ReadFile("testdata/pi-coding-agent/session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	_, err = ingest.Parse(context.Background(), piFormat, "session.jsonl", data, &ingest.Options{Strict: true})
	var se *ingest.SyntaxError
	if !asSyntax(err, &se) || se.Line != 12 || se.Msg != "record is not a JSON object" {
		t.Fatalf("strict parse error = %v, want session.jsonl:12: record is not a JSON object", err)
	}
}
