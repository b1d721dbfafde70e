package ingest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/schema"
)

// ev is the part of an event the fixture tests pin down.
type ev struct {
	Run    string
	Seq    int64
	Turn   int64
	Kind   schema.EventKind
	Tool   string
	CallID string
	Target string
	Err    bool
}

func evs(m *ingest.MemSink) []ev {
	out := make([]ev, 0, len(m.Events))
	for _, e := range m.Events {
		out = append(out, ev{e.RunID, e.Seq, e.Turn, e.Kind, e.ToolName, e.CallID, e.Target, e.IsError})
	}
	return out
}

type use struct {
	Run                   string
	Turn, In, Out, CR, CW int64
}

func uses(m *ingest.MemSink) []use {
	var out []use
	for _, u := range m.Usage {
		out = append(out, use{u.RunID, u.Turn, u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens})
	}
	return out
}

type op struct {
	Run     string
	Seq     int64
	Turn    int64
	Op      schema.OpKind
	Key     string
	Trigger string
	Before  int64
}

func ops(m *ingest.MemSink) []op {
	var out []op
	for _, c := range m.ContextOps {
		b := int64(-1)
		if c.TokensBefore != nil {
			b = *c.TokensBefore
		}
		out = append(out, op{c.RunID, c.Seq, c.Turn, c.Op, c.ToolKey, c.Trigger, b})
	}
	return out
}

type out struct {
	Run, Key, Tool, Target string
	Turn                   int64
	Err                    bool
}

func outs(m *ingest.MemSink) []out {
	var o []out
	for _, t := range m.ToolOutputs {
		o = append(o, out{t.RunID, t.ToolKey, t.ToolName, t.Target, t.Turn, t.IsError})
	}
	return o
}

func parseFile(t *testing.T, format, path string, o *ingest.Options) *ingest.MemSink {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := ingest.Parse(context.Background(), format, filepath.Base(path), data, o)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return m
}

func TestClaudeCodeFixtures(t *testing.T) {
	tests := []struct {
		file    string
		events  []ev
		usage   []use
		ops     []op
		outputs []out
		runs    map[string]string // run → "end/source/parent/nturns"
		rejects []int64
	}{
		{
			file: "split_responses.jsonl",
			events: []ev{
				{"s-split", 0, 0, schema.KindUser, "", "", "", false},
				{"s-split", 1, 0, schema.KindReasoning, "", "", "", false},
				{"s-split", 2, 0, schema.KindToolCall, "Read", "toolu_1", "/repo/pkg/parse/parse_test.go", false},
				{"s-split", 3, 1, schema.KindToolResult, "Read", "toolu_1", "/repo/pkg/parse/parse_test.go", false},
				{"s-split", 4, 0, schema.KindToolCall, "Bash", "toolu_2", "go test ./pkg/parse/... -run TestParse", false},
				{"s-split", 5, 1, schema.KindToolResult, "Bash", "toolu_2", "go test ./pkg/parse/... -run TestParse", true},
				{"s-split", 6, 1, schema.KindToolCall, "Read", "toolu_3", "/repo/pkg/parse/parse_test.go", false},
				{"s-split", 7, 2, schema.KindToolResult, "Read", "toolu_3", "/repo/pkg/parse/parse_test.go", false},
				{"s-split", 8, 2, schema.KindCompaction, "", "", "", false},
				{"s-split", 9, 2, schema.KindCompaction, "", "", "", false},
				{"s-split", 10, 2, schema.KindAssistant, "", "", "", false},
			},
			// msg_1 spans three lines (output 8, 8, 171): counted once, output 171.
			usage: []use{{"s-split", 0, 17003, 171, 12000, 5000}, {"s-split", 1, 17302, 60, 17000, 300}, {"s-split", 2, 2010, 3, 0, 2000}},
			ops:   []op{{"s-split", 8, 2, schema.OpCompaction, "", "auto", 17362}, {"s-split", 9, 2, schema.OpSummary, "", "compact-summary", -1}},
			outputs: []out{
				{"s-split", "toolu_1", "Read", "/repo/pkg/parse/parse_test.go", 1, false},
				{"s-split", "toolu_2", "Bash", "go test ./pkg/parse/... -run TestParse", 1, true},
				{"s-split", "toolu_3", "Read", "/repo/pkg/parse/parse_test.go", 2, false},
			},
			runs: map[string]string{"s-split": "finished/inferred//3"},
		},
		{
			// hand-made (testdata/claude-code-split-output/README.md): msg_1's lines carry
			// output_tokens 8, 212, 9; the call's output is the largest, 212
			// (not the last line's 9). Input 4 + 3000 + 9000 = 12004;
			// msg_2: 2 + 60 + 12000 = 12062.
			file: "../claude-code-split-output/split_smaller_last.jsonl",
			events: []ev{
				{"s-max", 0, 0, schema.KindUser, "", "", "", false},
				{"s-max", 1, 0, schema.KindReasoning, "", "", "", false},
				{"s-max", 2, 0, schema.KindAssistant, "", "", "", false},
				{"s-max", 3, 0, schema.KindToolCall, "Read", "toolu_1", "/repo/README.md", false},
				{"s-max", 4, 1, schema.KindToolResult, "Read", "toolu_1", "/repo/README.md", false},
				{"s-max", 5, 1, schema.KindAssistant, "", "", "", false},
			},
			usage:   []use{{"s-max", 0, 12004, 212, 9000, 3000}, {"s-max", 1, 12062, 5, 12000, 60}},
			outputs: []out{{"s-max", "toolu_1", "Read", "/repo/README.md", 1, false}},
			runs:    map[string]string{"s-max": "finished/inferred//2"},
		},
		{
			file: "overflow_subagent.jsonl",
			events: []ev{
				{"s-main", 0, 0, schema.KindContextOp, "", "", "", false},
				{"s-main", 1, 0, schema.KindUser, "", "", "", false},
				{"s-main", 2, 0, schema.KindToolCall, "Task", "toolu_t", "", false},
				{"s-main/agent-a77", 0, 0, schema.KindUser, "", "", "", false},
				{"s-main/agent-a77", 1, 0, schema.KindToolCall, "Glob", "toolu_g", "**/*.toml @ /repo", false},
				{"s-main/agent-a77", 2, 1, schema.KindToolResult, "Glob", "toolu_g", "**/*.toml @ /repo", false},
				{"s-main/agent-a77", 3, 1, schema.KindAssistant, "", "", "", false},
				{"s-main", 3, 1, schema.KindToolResult, "Task", "toolu_t", "", false},
				{"s-main", 4, 1, schema.KindError, "", "", "", true},
			},
			usage: []use{{"s-main", 0, 195005, 40, 195000, 0}, {"s-main/agent-a77", 0, 100, 20, 0, 0}, {"s-main/agent-a77", 1, 130, 5, 0, 0}},
			ops:   []op{{"s-main", 0, 0, schema.OpSummary, "", "legacy-summary", -1}},
			outputs: []out{
				{"s-main/agent-a77", "toolu_g", "Glob", "**/*.toml @ /repo", 1, false},
				{"s-main", "toolu_t", "Task", "", 1, false},
			},
			runs: map[string]string{
				"s-main":           "context_overflow/explicit//1",
				"s-main/agent-a77": "finished/inferred/s-main/2",
			},
			rejects: []int64{9},
		},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			m := parseFile(t, "claude-code", filepath.Join("testdata", "claude-code", tc.file), nil)
			if diff := cmp.Diff(tc.events, evs(m)); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.usage, uses(m)); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.ops, ops(m)); diff != "" {
				t.Errorf("context_ops (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.outputs, outs(m)); diff != "" {
				t.Errorf("tool_outputs (-want +got):\n%s", diff)
			}
			got := map[string]string{}
			for _, r := range m.Runs {
				got[r.RunID] = strings.Join([]string{string(r.EndReason), string(r.EndReasonSource), r.ParentRunID, itoa(r.NTurns)}, "/")
			}
			if diff := cmp.Diff(tc.runs, got); diff != "" {
				t.Errorf("runs (-want +got):\n%s", diff)
			}
			var lines []int64
			for _, r := range m.Rejects {
				lines = append(lines, r.Line)
			}
			if diff := cmp.Diff(tc.rejects, lines); diff != "" {
				t.Errorf("reject lines (-want +got):\n%s", diff)
			}
		})
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestClaudeCodeStrict(t *testing.T) {
	data, err := os.ReadFile("testdata/claude-code/overflow_subagent.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	_, err = ingest.Parse(context.Background(), "claude-code", "overflow_subagent.jsonl", data, &ingest.Options{Strict: true})
	var se *ingest.SyntaxError
	if !asSyntax(err, &se) || se.Line != 9 || se.File != "overflow_subagent.jsonl" {
		t.Fatalf("strict parse error = %v, want overflow_subagent.jsonl:9: …", err)
	}
}

// ccTruth is an independent reading of a Claude Code file's usage: per
// message.id, input fields from its lines and output as the maximum.
type ccTruth struct{ in, out, cacheRead, cacheWrite, firstOut, responses int64 }

func claudeTruth(t *testing.T, path string) map[string]*ccTruth {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	type u struct {
		In, Out, CR, CW int64
	}
	byRun := map[string]*ccTruth{}
	seen := map[string]*u{}
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var rec struct {
			Type      string `json:"type"`
			SessionID string `json:"sessionId"`
			AgentID   string `json:"agentId"`
			Message   struct {
				ID    string `json:"id"`
				Model string `json:"model"`
				Role  string `json:"role"`
				Usage *struct {
					In  int64 `json:"input_tokens"`
					Out int64 `json:"output_tokens"`
					CR  int64 `json:"cache_read_input_tokens"`
					CW  int64 `json:"cache_creation_input_tokens"`
				} `json:"usage"`
			} `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) != nil || rec.Message.Usage == nil || rec.Message.Model == "<synthetic>" {
			continue
		}
		if rec.Type != "assistant" && !(rec.Type == "" && rec.Message.Role == "assistant") {
			continue
		}
		run := rec.SessionID
		if rec.AgentID != "" {
			run += "/agent-" + rec.AgentID
		}
		tr := byRun[run]
		if tr == nil {
			tr = &ccTruth{}
			byRun[run] = tr
		}
		x := rec.Message.Usage
		key := run + "\x00" + rec.Message.ID
		if p, ok := seen[key]; ok {
			if x.Out > p.Out {
				tr.out += x.Out - p.Out
				p.Out = x.Out
			}
			continue
		}
		seen[key] = &u{x.In, x.Out, x.CR, x.CW}
		tr.responses++
		tr.in += x.In + x.CR + x.CW
		tr.cacheRead += x.CR
		tr.cacheWrite += x.CW
		tr.out += x.Out
		tr.firstOut += x.Out
	}
	return byRun
}

// TestClaudeCodeCorpus checks every real Claude Code file: detection, and per
// run the usage totals against an independent de-duplication by message.id.
func TestClaudeCodeCorpus(t *testing.T) {
	dir := testutil.Corpus(t, "claude-code")
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no claude-code corpus files")
	}
	var firstOut, finalOut int64
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if im := ingest.Detect(f, data[:min(len(data), ingest.HeadSize)]); im == nil || im.Name() != "claude-code" {
				t.Fatalf("detected as %v, want claude-code", im)
			}
			m := parseFile(t, "claude-code", f, nil)
			truth := claudeTruth(t, f)
			for _, r := range m.Runs {
				tr := truth[r.RunID]
				if tr == nil {
					if r.InputTokens != 0 || r.OutputTokens != 0 {
						t.Errorf("run %s has usage but the file has no responses for it", r.RunID)
					}
					continue
				}
				got := [5]int64{r.NTurns, r.InputTokens, r.OutputTokens, r.CacheReadTokens, r.CacheWriteTokens}
				want := [5]int64{tr.responses, tr.in, tr.out, tr.cacheRead, tr.cacheWrite}
				if got != want {
					t.Errorf("run %s turns/in/out/cache-read/cache-write = %v, want %v", r.RunID, got, want)
				}
				firstOut += tr.firstOut
				finalOut += r.OutputTokens
			}
			if filepath.Base(f) == "edge_cases.jsonl" {
				found := false
				for _, rj := range m.Rejects {
					if rj.Line == 11 && strings.Contains(rj.Reason, "message is not an object") {
						found = true
					}
				}
				if !found {
					t.Errorf("edge_cases.jsonl:11 (message is a string) not rejected: %+v", m.Rejects)
				}
			} else if len(m.Rejects) > 0 {
				t.Errorf("unexpected rejects: %+v", m.Rejects)
			}
		})
	}
	t.Logf("output tokens over the corpus: final values %d, first-line values %d (%.2f×)", finalOut, firstOut, float64(finalOut)/float64(max(firstOut, 1)))
}
