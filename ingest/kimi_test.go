package ingest_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/schema"
)

const kimiFormat = "kimi-cli-wire"

func TestKimiFixtures(t *testing.T) {
	tests := []struct {
		path    string // also the name given to Parse: the run id comes from it
		runs    []pkRun
		events  []ev
		lines   []int64
		usage   []use
		outputs []out
		rejects []pkReject
	}{
		{
			path: "testdata/kimi-cli-wire/sess-k1/agents/main/wire.jsonl",
			runs: []pkRun{{ID: "sess-k1", Harness: "kimi-cli", Model: "kimi-code/kimi-for-coding", End: schema.EndFinished, Source: schema.SourceInferred,
				Detail: "last step ended with end_turn", Turns: 2, In: 325, Out: 15, CR: 200, CW: 5, UsageCalls: 2}},
			events: []ev{
				{"sess-k1", 0, 0, schema.KindSystem, "", "", "", false},
				{"sess-k1", 1, 0, schema.KindUser, "", "", "", false},
				{"sess-k1", 2, 0, schema.KindReasoning, "", "", "", false},
				{"sess-k1", 3, 0, schema.KindToolCall, "Read", "tc1", "/p/a.ts", false},
				{"sess-k1", 4, 1, schema.KindToolResult, "Read", "tc1", "/p/a.ts", false},
				// the appended user message repeating the prompt is skipped; the injection is kept
				{"sess-k1", 5, 1, schema.KindUser, "", "", "", false},
				{"sess-k1", 6, 1, schema.KindAssistant, "", "", "", false},
			},
			lines: []int64{2, 4, 6, 7, 8, 12, 14},
			// input = inputOther + inputCacheRead + inputCacheCreation
			usage:   []use{{"sess-k1", 0, 155, 10, 50, 5}, {"sess-k1", 1, 170, 5, 150, 0}},
			outputs: []out{{"sess-k1", "tc1", "Read", "/p/a.ts", 1, false}},
			rejects: []pkReject{{17, "record is not a JSON object"}, {18, "context.append_loop_event without an event object"}},
		},
		{
			// usage over a whole turn of two steps: run totals only, no usage rows
			path: "testdata/kimi-cli-wire/turn_usage.jsonl",
			runs: []pkRun{{ID: "turn_usage", Harness: "kimi-cli", Model: "kimi-k2", End: schema.EndInterrupted, Source: schema.SourceExplicit,
				Detail: "turn cancelled", Turns: 2, In: 700, Out: 30, CR: 300, Estimated: true}},
			events: []ev{
				{"turn_usage", 0, 0, schema.KindSystem, "", "", "", false},
				{"turn_usage", 1, 0, schema.KindUser, "", "", "", false},
				{"turn_usage", 2, 0, schema.KindToolCall, "Bash", "t1", "make test", false},
				{"turn_usage", 3, 1, schema.KindToolResult, "Bash", "t1", "make test", true},
				{"turn_usage", 4, 1, schema.KindAssistant, "", "", "", false},
			},
			lines:   []int64{1, 2, 4, 5, 8},
			outputs: []out{{"turn_usage", "t1", "Bash", "make test", 1, true}},
			rejects: []pkReject{},
		},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(filepath.Dir(tc.path))+"/"+filepath.Base(tc.path), func(t *testing.T) {
			m := pkParse(t, kimiFormat, tc.path, tc.path)
			pkCheck(t, "runs", tc.runs, pkRuns(m))
			pkCheck(t, "events", tc.events, evs(m))
			var lines []int64
			for _, e := range m.Events {
				lines = append(lines, e.Line)
			}
			pkCheck(t, "event lines", tc.lines, lines)
			pkCheck(t, "usage", tc.usage, uses(m))
			pkCheck(t, "tool outputs", tc.outputs, outs(m))
			pkCheck(t, "context ops", []pkOp{}, pkOps(m))
			pkCheck(t, "rejects", tc.rejects, pkRejects(m))
		})
	}
}

func TestKimiRunID(t *testing.T) {
	data := []byte(`{"type":"turn.prompt","input":[{"type":"text","text":"hi"}],"time":1781368649300}`)
	for _, tc := range []struct{ name, id, parent string }{
		{"/home/u/.kimi-code/sessions/wd_x/s-1/agents/main/wire.jsonl", "s-1", ""},
		{"/home/u/.kimi-code/sessions/wd_x/s-1/agents/agent-0/wire.jsonl", "s-1/agent-0", "s-1"},
		{"sample-wire.jsonl", "sample-wire", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ingest.Parse(t.Context(), kimiFormat, tc.name, data, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Runs) != 1 || m.Runs[0].RunID != tc.id || m.Runs[0].ParentRunID != tc.parent {
				t.Errorf("runs = %+v, want %s (parent %q)", pkRuns(m), tc.id, tc.parent)
			}
		})
	}
}

func TestKimiDetect(t *testing.T) {
	im, err := ingest.Lookup(kimiFormat)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, head string
		want       bool
	}{
		{"metadata", `{"type":"metadata","protocol_version":"1.4","created_at":1}`, true},
		{"loop event", `{"type":"context.append_loop_event","event":{"type":"step.begin"}}`, true},
		{"metadata of another tool", `{"type":"metadata","version":"1"}`, false},
		{"claude code", `{"type":"user","sessionId":"s","message":{"role":"user","content":"hi"}}`, false},
		{"openclaw", `{"type":"tool.start","toolName":"exec","sessionKey":"k"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := im.Detect("wire.jsonl", []byte(tc.head)); got != tc.want {
				t.Errorf("Detect = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestKimiCorpus checks the real wire log against an independent scan and
// the MANIFEST (18 records, 3 tool calls): its one usage record covers a
// turn of three steps, so it becomes run totals without usage rows.
func TestKimiCorpus(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testutil.Corpus(t, "kimi-cli-wire"), "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no kimi corpus files")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			fh, err := os.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			defer fh.Close()
			var records, steps, calls, results, in, outTok int64
			sc := bufio.NewScanner(fh)
			for sc.Scan() {
				var r struct {
					Type  string `json:"type"`
					Event struct {
						Type string `json:"type"`
					} `json:"event"`
					Usage struct{ InputOther, Output, InputCacheRead, InputCacheCreation int64 } `json:"usage"`
				}
				if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
					t.Fatal(err)
				}
				records++
				switch r.Event.Type {
				case "step.begin":
					steps++
				case "tool.call":
					calls++
				case "tool.result":
					results++
				}
				if r.Type == "usage.record" {
					in += r.Usage.InputOther + r.Usage.InputCacheRead + r.Usage.InputCacheCreation
					outTok += r.Usage.Output
				}
			}
			m := pkParse(t, kimiFormat, f, filepath.Base(f))
			pkCheck(t, "rejects", []pkReject{}, pkRejects(m))
			if len(m.Runs) != 1 {
				t.Fatalf("runs = %d, want 1", len(m.Runs))
			}
			r := m.Runs[0]
			var gotCalls, gotResults int64
			for _, e := range m.Events {
				switch e.Kind {
				case schema.KindToolCall:
					gotCalls++
				case schema.KindToolResult:
					gotResults++
				}
			}
			pkCheck(t, "turns/tool calls/results/usage rows/in/out", []int64{steps, calls, results, 0, in, outTok},
				[]int64{r.NTurns, gotCalls, gotResults, int64(len(m.Usage)), r.InputTokens, r.OutputTokens})
			if filepath.Base(f) == "codemie__kimi__sample-wire.jsonl" {
				pkCheck(t, "manifest records/tool calls", []int64{18, 3}, []int64{records, calls})
				if !r.UsageEstimated {
					t.Error("usage_estimated = false, want true (turn-scoped usage only)")
				}
			}
		})
	}
}
