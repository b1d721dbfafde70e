package ingest_test

import (
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

const lfFormat = "langfuse-trace-export"

func TestLangfuseFixtures(t *testing.T) {
	tests := []struct {
		file   string
		runs   []gaiRunRow
		events map[string][]gaiEv
		usage  map[string][]gaiUse
		outs   map[string][]gaiOut
	}{
		{
			file: "traces.json",
			runs: []gaiRunRow{
				// the wrapper GENERATION agent-run (usage 999/99) is not a call
				{ID: "trace-one", Harness: "langfuse", Model: "gpt-4.1", Turns: 2, In: 330, Out: 28, Read: 50, UCalls: 2,
					End: schema.EndFinished, Source: schema.SourceExplicit, Detail: "finish_reason: stop", Cost: 0.0007, Started: "2025-06-01T12:00:01Z"},
				{ID: "trace-two", Harness: "langsmith", Model: "claude-sonnet-4-5", Turns: 2, In: 4510, Out: 30, Read: 4000, Write: 500, UCalls: 1,
					End: schema.EndContextOverflow, Source: schema.SourceExplicit, Detail: "prompt is too long: 250000 tokens > 200000 maximum", Cost: -1, Started: "2025-06-01T12:00:01Z"},
			},
			events: map[string][]gaiEv{
				// lines are observation numbers in the file, which lists them out of time order
				"trace-one": {
					{0, 0, schema.KindSystem, "", "", "", 4, false, "You are a file assistant."},
					{1, 0, schema.KindUser, "", "", "", 4, false, "Show main.go and count its lines."},
					{2, 0, schema.KindToolCall, "read_file", "call_r", "main.go", 4, false, `read_file {"path":"main.go"}`},
					{3, 0, schema.KindToolCall, "wc", "call_w", "main.go", 4, false, `wc {"path":"main.go"}`},
					// TOOL with gen_ai.tool.call.id in its metadata
					{4, 1, schema.KindToolResult, "read_file", "call_r", "main.go", 3, false, "package main\n\nfunc main() {}"},
					// TOOL without an id: the pending call of that tool; level ERROR
					{5, 1, schema.KindToolResult, "wc", "call_w", "main.go", 6, true, `{"lines":3}`},
					// the second prompt repeats everything above: only its output is new
					{6, 1, schema.KindAssistant, "", "", "", 1, false, "main.go has 3 lines."},
				},
				"trace-two": {
					{0, 0, schema.KindUser, "", "", "", 2, false, "Grep for TODO"},
					{1, 0, schema.KindReasoning, "", "", "", 2, false, "search first"},
					{2, 0, schema.KindToolCall, "Grep", "toolu_1", "TODO", 2, false, `Grep {"pattern":"TODO"}`},
					// {"input": {...}} around the arguments; the result's content blocks flattened
					{3, 1, schema.KindToolResult, "Grep", "toolu_1", "TODO", 3, false, "a.go:3: TODO fix"},
					{4, 2, schema.KindError, "", "", "", 4, true, "prompt is too long: 250000 tokens > 200000 maximum"},
				},
			},
			usage: map[string][]gaiUse{
				// input excludes the cache keys when total counts them on top
				"trace-one": {{0, "gpt-4.1", "o-gen1", 150, 20, 50, 0, 0}, {1, "gpt-4.1", "o-gen2", 180, 8, 0, 0, 0}},
				"trace-two": {{0, "claude-sonnet-4-5", "p-gen1", 4510, 30, 4000, 500, 0}},
			},
			outs: map[string][]gaiOut{
				"trace-one": {{"call_r", "call_r", "read_file", "main.go", 1, 4, false}, {"call_w", "call_w", "wc", "main.go", 1, 5, true}},
				"trace-two": {{"toolu_1", "toolu_1", "Grep", "TODO", 1, 3, false}},
			},
		},
		{
			file: "observations.json",
			runs: []gaiRunRow{
				{ID: "trace-obs", Harness: "langfuse", Model: "gpt-5", Turns: 1, In: 40, Out: 12, Rsn: 8, UCalls: 1,
					End: schema.EndUnknown, Source: schema.SourceInferred, Cost: -1, Started: "2025-06-01T12:00:01Z"},
			},
			events: map[string][]gaiEv{
				"trace-obs": {
					{0, 0, schema.KindUser, "", "", "", 1, false, "weather in SF?"},
					{1, 0, schema.KindToolCall, "getWeather", "call_sf", "", 1, false, `getWeather {"location":"SF"}`},
					{2, 1, schema.KindToolResult, "getWeather", "call_sf", "", 2, false, `{"temperature":64}`},
				},
			},
			usage: map[string][]gaiUse{"trace-obs": {{0, "gpt-5", "q-gen", 40, 12, 0, 0, 8}}},
			outs:  map[string][]gaiOut{"trace-obs": {{"call_sf", "call_sf", "getWeather", "", 1, 2, false}}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			m := gaiParse(t, lfFormat, filepath.Join("testdata", "langfuse-trace-export", tc.file))
			if diff := cmp.Diff(tc.runs, gaiRuns(m)); diff != "" {
				t.Errorf("runs (-want +got):\n%s", diff)
			}
			for _, r := range tc.runs {
				if diff := cmp.Diff(tc.events[r.ID], gaiEvents(m, r.ID)); diff != "" {
					t.Errorf("run %s events (-want +got):\n%s", r.ID, diff)
				}
				if diff := cmp.Diff(tc.usage[r.ID], gaiUsage(m, r.ID)); diff != "" {
					t.Errorf("run %s usage (-want +got):\n%s", r.ID, diff)
				}
				if diff := cmp.Diff(tc.outs[r.ID], gaiOutputs(m, r.ID)); diff != "" {
					t.Errorf("run %s tool outputs (-want +got):\n%s", r.ID, diff)
				}
			}
			if len(m.ContextOps) != 0 || len(m.Rejects) != 0 {
				t.Errorf("context ops %v, rejects %v; want none", m.ContextOps, m.Rejects)
			}
		})
	}
}

// TestLangfuseShapes covers the payload shapes SDKs log as generation input
// and output.
func TestLangfuseShapes(t *testing.T) {
	gen := func(in, out string) []byte {
		b, _ := json.Marshal(map[string]any{
			"trace":        map[string]any{"id": "t", "projectId": "p", "timestamp": "2025-01-01T00:00:00Z"},
			"observations": []any{map[string]any{"id": "g", "type": "GENERATION", "startTime": "2025-01-01T00:00:01Z", "input": in, "output": out, "usageDetails": map[string]any{"input": 1, "output": 1}}},
		})
		return b
	}
	tests := []struct {
		name, in, out string
		want          []string // kind:text
	}{
		{"plain strings", `"hello"`, `"hi"`, []string{"user:hello", "assistant:hi"}},
		{"vercel prompt with system", `{"system":"be nice","prompt":"q"}`, `"a"`, []string{"system:be nice", "user:q", "assistant:a"}},
		{"langchain dicts", `[{"type":"human","content":"q"}]`, `{"type":"ai","content":"","tool_calls":[{"name":"f","args":{"x":1},"id":"c1"}]}`,
			[]string{"user:q", `tool_call:f {"x":1}`}},
		{"openai responses", `[{"role":"user","content":[{"type":"input_text","text":"q"}]}]`,
			`{"object":"response","id":"resp_1","output":[{"type":"reasoning","summary":[{"type":"summary_text","text":"think"}]},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a"}]}]}`,
			[]string{"user:q", "reasoning:think", "assistant:a"}},
		{"chat completion", `[{"role":"user","content":"q"}]`, `{"id":"chatcmpl-1","choices":[{"message":{"role":"assistant","content":"a"},"finish_reason":"stop"}]}`,
			[]string{"user:q", "assistant:a"}},
		{"otel parts", `[{"role":"user","parts":[{"type":"text","content":"q"}]}]`, `[{"role":"assistant","parts":[{"type":"text","content":"a"}]}]`,
			[]string{"user:q", "assistant:a"}},
		{"structured output", `"q"`, `{"answer":42}`, []string{"user:q", `assistant:{"answer":42}`}},
		{"a tool definition shown as a message is skipped", `[{"role":"user","content":"q"},{"role":"tool","content":{"type":"function","function":{"name":"f"}}}]`, `"a"`,
			[]string{"user:q", "assistant:a"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ingest.Parse(context.Background(), lfFormat, "shape.json", gen(tc.in, tc.out), nil)
			if err != nil {
				t.Fatal(err)
			}
			gaiCheckSink(t, m)
			var got []string
			for _, e := range m.Events {
				got = append(got, string(e.Kind)+":"+e.Text)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLangfuseMalformed(t *testing.T) {
	data := []byte("{\"trace\": {\"id\": \"x\",\n \"projectId\": \"p\",\n \"timestamp\": ]}")
	m, err := ingest.Parse(context.Background(), lfFormat, "bad.json", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Runs) != 0 || len(m.Rejects) != 1 || m.Rejects[0].Line != 3 {
		t.Fatalf("runs %d, rejects %+v; want none and one reject at line 3", len(m.Runs), m.Rejects)
	}
	m, err = ingest.Parse(context.Background(), lfFormat, "odd.json", []byte(`{"trace":{"id":"t","projectId":"p"},"observations":[1,{"id":"g","type":"SPAN"}]}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Runs) != 1 || len(m.Rejects) != 1 || m.Rejects[0].Reason != "observation 1 is not an object" {
		t.Fatalf("runs %d, rejects %+v; want one run and one reject", len(m.Runs), m.Rejects)
	}
}

func TestLangfuseDetect(t *testing.T) {
	im, err := ingest.Lookup(lfFormat)
	if err != nil {
		t.Fatal(err)
	}
	long := `{"trace":{"id":"t","projectId":"p","timestamp":"2025-01-01T00:00:00Z","input":"` + strings.Repeat("x", ingest.HeadSize) + `"},"observations":[]}`
	tests := []struct {
		name, head string
		want       bool
	}{
		{"trace export", `{"trace":{"id":"t","projectId":"p","timestamp":"2025-01-01T00:00:00Z"},"observations":[]}`, true},
		{"trace export cut off by the head", long[:ingest.HeadSize], true},
		{"API trace with its observations", `{"id":"t","projectId":"p","name":"n","timestamp":"2025-01-01T00:00:00Z","observations":[]}`, true},
		{"list of traces", `[{"trace":{"id":"t","projectId":"p","timestamp":"x"},"observations":[]}]`, true},
		{"observations list", `{"data":[{"id":"o","traceId":"t","type":"GENERATION","startTime":"x"}],"meta":{}}`, true},
		{"list of something else", `{"data":[{"id":"o"}]}`, false},
		{"otel spans", `{"spans":[{"name":"call_llm","attributes":{"gen_ai.operation.name":"call_llm"}}]}`, false},
		{"opencode storage session", `{"id":"ses_1","projectID":"p","title":"t","time":{"created":1}}`, false},
		{"chat messages", `[{"role":"user","content":"hi"}]`, false},
		{"empty", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := im.Detect("x.json", []byte(tc.head)); got != tc.want {
				t.Errorf("Detect = %v, want %v", got, tc.want)
			}
		})
	}
	for _, p := range gaiGlob(t, filepath.Join("testdata", "langfuse-trace-export", "*.json")) {
		data, _ := os.ReadFile(p)
		if got := ingest.Detect(p, data[:min(len(data), ingest.HeadSize)]); got == nil || got.Name() != lfFormat {
			t.Errorf("%s detected as %v", p, got)
		}
	}
}

// lfManifest is the corpus MANIFEST's observation types per file.
var lfManifest = map[string]map[string]int{
	"langfuse__claude-agent-2025-12-22.trace.json":     {"GENERATION": 4, "SPAN": 1, "TOOL": 2},
	"langfuse__beeai-2025-08-01.trace.json":            {"SPAN": 24, "GENERATION": 5},
	"langfuse__langgraph-python-2025-08-22.trace.json": {"SPAN": 7, "GENERATION": 2},
	"langfuse__openai-agents-2025-09-30.trace.json":    {"AGENT": 2, "GENERATION": 2, "TOOL": 1},
	"langfuse__vercel-aisdk-2025-11-17.trace.json":     {"GENERATION": 2, "TOOL": 1},
}

// lfCorpusTools is the tool executions of each corpus trace as a reader sees
// them: TOOL observations, and LangGraph's tool SPAN (Web-Search, whose
// output carries the tool_call_id). BeeAI's ReAct tools are text inside the
// assistant messages, not tool calls.
var lfCorpusTools = map[string]int{
	"langfuse__claude-agent-2025-12-22.trace.json":     2,
	"langfuse__beeai-2025-08-01.trace.json":            0,
	"langfuse__langgraph-python-2025-08-22.trace.json": 1,
	"langfuse__openai-agents-2025-09-30.trace.json":    1,
	"langfuse__vercel-aisdk-2025-11-17.trace.json":     1,
}

func TestLangfuseCorpus(t *testing.T) {
	dir := testutil.Corpus(t, "langfuse-trace-export")
	files := gaiGlob(t, filepath.Join(dir, "*.json"))
	if len(files) != len(lfManifest) {
		t.Fatalf("%d corpus files, want %d", len(files), len(lfManifest))
	}
	for _, p := range files {
		name := filepath.Base(p)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			// an independent scan: model calls are GENERATIONs that are not
			// wrappers of other GENERATIONs and log something
			var doc struct {
				Trace struct {
					ID string `json:"id"`
				} `json:"trace"`
				Observations []struct {
					ID, Type            string
					ParentObservationID *string
					Input, Output       any
					UsageDetails        map[string]float64
				} `json:"observations"`
			}
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			types := map[string]int{}
			parentOf := map[string]string{}
			for _, o := range doc.Observations {
				types[o.Type]++
				if o.ParentObservationID != nil {
					parentOf[o.ID] = *o.ParentObservationID
				}
			}
			if diff := cmp.Diff(lfManifest[name], types); diff != "" {
				t.Fatalf("scan disagrees with the MANIFEST (-want +got):\n%s", diff)
			}
			wrapper := map[string]bool{}
			for _, o := range doc.Observations {
				if o.Type == "GENERATION" {
					for p := parentOf[o.ID]; p != ""; p = parentOf[p] {
						wrapper[p] = true
					}
				}
			}
			calls, usage := 0, 0
			var in, out int64
			for _, o := range doc.Observations {
				if o.Type != "GENERATION" || wrapper[o.ID] || o.Input == nil && o.Output == nil && len(o.UsageDetails) == 0 {
					continue
				}
				calls++
				if len(o.UsageDetails) > 0 {
					usage++
					in += int64(o.UsageDetails["input"])
					out += int64(o.UsageDetails["output"])
				}
			}
			m := gaiParse(t, lfFormat, p)
			if len(m.Runs) != 1 || len(m.Rejects) != 0 {
				t.Fatalf("%d runs, %d rejects; want 1 and 0", len(m.Runs), len(m.Rejects))
			}
			r := m.Runs[0]
			if r.RunID != doc.Trace.ID {
				t.Errorf("run id %s, want the trace id %s", r.RunID, doc.Trace.ID)
			}
			if r.NTurns != int64(calls) || len(m.Usage) != usage || r.UsageCalls != int64(usage) || r.InputTokens != in || r.OutputTokens != out {
				t.Errorf("turns %d, usage rows %d (calls %d), tokens %d/%d; want %d, %d, %d/%d",
					r.NTurns, len(m.Usage), r.UsageCalls, r.InputTokens, r.OutputTokens, calls, usage, in, out)
			}
			kinds := map[schema.EventKind]int{}
			called := map[string]bool{}
			for _, e := range m.Events {
				kinds[e.Kind]++
				switch e.Kind {
				case schema.KindToolCall:
					called[e.CallID] = true
				case schema.KindToolResult:
					if !called[e.CallID] {
						t.Errorf("tool result %d (%s) has no earlier call", e.Seq, e.CallID)
					}
				}
			}
			want := lfCorpusTools[name]
			if kinds[schema.KindToolCall] != want || kinds[schema.KindToolResult] != want || len(m.ToolOutputs) != want {
				t.Errorf("tool calls %d, results %d, outputs %d; want %d each", kinds[schema.KindToolCall], kinds[schema.KindToolResult], len(m.ToolOutputs), want)
			}
			if kinds[schema.KindUser] == 0 || kinds[schema.KindAssistant]+kinds[schema.KindToolCall] == 0 {
				t.Errorf("events by kind %v: want the prompt and model outputs", kinds)
			}
			if len(m.ContextOps) != 0 {
				t.Errorf("context ops: %v", m.ContextOps)
			}
		})
	}
}
