package ingest_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/schema"
)

// Helpers shared by the otel, langfuse and opencode tests (prefix gai).

// gaiEv is the part of an event the fixture tests compare.
type gaiEv struct {
	Seq, Turn int64
	Kind      schema.EventKind
	Tool      string
	Call      string
	Target    string
	Line      int64
	Err       bool
	Text      string
}

func gaiEvents(m *ingest.MemSink, run string) []gaiEv {
	var out []gaiEv
	for _, e := range m.Events {
		if e.RunID == run {
			out = append(out, gaiEv{e.Seq, e.Turn, e.Kind, e.ToolName, e.CallID, e.Target, e.Line, e.IsError, e.Text})
		}
	}
	return out
}

type gaiUse struct {
	Turn                      int64
	Model, Request            string
	In, Out, Read, Write, Rsn int64
}

func gaiUsage(m *ingest.MemSink, run string) []gaiUse {
	var out []gaiUse
	for _, u := range m.Usage {
		if u.RunID == run {
			out = append(out, gaiUse{u.Turn, u.Model, u.RequestID, u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.ReasoningTokens})
		}
	}
	return out
}

type gaiOut struct {
	Key, Call, Tool, Target string
	Turn, Seq               int64
	Err                     bool
}

func gaiOutputs(m *ingest.MemSink, run string) []gaiOut {
	var out []gaiOut
	for _, o := range m.ToolOutputs {
		if o.RunID == run {
			out = append(out, gaiOut{o.ToolKey, o.CallID, o.ToolName, o.Target, o.Turn, o.Seq, o.IsError})
		}
	}
	return out
}

type gaiOp struct {
	Seq, Turn       int64
	Op              schema.OpKind
	Before, After   int64 // -1: not logged
	Trigger, Detail string
}

func gaiOps(m *ingest.MemSink, run string) []gaiOp {
	val := func(p *int64) int64 {
		if p == nil {
			return -1
		}
		return *p
	}
	var out []gaiOp
	for _, c := range m.ContextOps {
		if c.RunID == run {
			out = append(out, gaiOp{c.Seq, c.Turn, c.Op, val(c.TokensBefore), val(c.TokensAfter), c.Trigger, c.Detail})
		}
	}
	return out
}

// gaiRunRow is the part of a run the fixture tests compare.
type gaiRunRow struct {
	ID, Parent, Harness, Model               string
	Turns, In, Out, Read, Write, Rsn, UCalls int64
	Estimated                                bool
	End                                      schema.EndReason
	Source                                   schema.ReasonSource
	Detail                                   string
	Cost                                     float64 // -1: not logged
	Started                                  string
}

func gaiRuns(m *ingest.MemSink) []gaiRunRow {
	var out []gaiRunRow
	for _, r := range m.Runs {
		row := gaiRunRow{r.RunID, r.ParentRunID, r.Harness, r.Model, r.NTurns, r.InputTokens, r.OutputTokens,
			r.CacheReadTokens, r.CacheWriteTokens, r.ReasoningTokens, r.UsageCalls, r.UsageEstimated,
			r.EndReason, r.EndReasonSource, r.EndReasonDetail, -1, ""}
		if r.CostUSD != nil {
			row.Cost = math.Round(*r.CostUSD*1e9) / 1e9
		}
		if r.StartedAt != nil {
			row.Started = r.StartedAt.UTC().Format(time.RFC3339Nano)
		}
		out = append(out, row)
	}
	return out
}

type gaiReject struct {
	Line   int64
	Reason string
}

func gaiRejects(m *ingest.MemSink) []gaiReject {
	var out []gaiReject
	for _, r := range m.Rejects {
		out = append(out, gaiReject{r.Line, r.Reason})
	}
	return out
}

func gaiParse(t *testing.T, format, path string) *ingest.MemSink {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := ingest.Parse(context.Background(), format, path, data, nil)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	gaiCheckSink(t, m)
	return m
}

// gaiCheckSink checks what every import must satisfy: valid records, seq
// 0..n-1 per run, turns and usage within the run's calls, tool outputs for
// tool results only.
func gaiCheckSink(t testing.TB, m *ingest.MemSink) {
	t.Helper()
	runs := map[string]schema.Run{}
	for _, r := range m.Runs {
		if err := schema.Validate(&r); err != nil {
			t.Fatalf("run: %v", err)
		}
		runs[r.RunID] = r
	}
	next := map[string]int64{}
	results := map[string]int{}
	for _, e := range m.Events {
		if err := schema.Validate(&e); err != nil {
			t.Fatalf("event: %v", err)
		}
		r, ok := runs[e.RunID]
		if !ok {
			t.Fatalf("event of unknown run %q", e.RunID)
		}
		if e.Seq != next[e.RunID] {
			t.Fatalf("run %s: seq %d, want %d", e.RunID, e.Seq, next[e.RunID])
		}
		next[e.RunID]++
		if e.Turn > r.NTurns || e.Kind.IsOutput() && e.Turn >= r.NTurns {
			t.Fatalf("run %s: %s event %d in turn %d of %d calls", e.RunID, e.Kind, e.Seq, e.Turn, r.NTurns)
		}
		if e.Kind == schema.KindToolResult {
			results[e.RunID]++
		}
	}
	for _, u := range m.Usage {
		if err := schema.Validate(&u); err != nil {
			t.Fatalf("usage: %v", err)
		}
		if u.Turn >= runs[u.RunID].NTurns {
			t.Fatalf("run %s: usage of turn %d of %d calls", u.RunID, u.Turn, runs[u.RunID].NTurns)
		}
	}
	outs := map[string]int{}
	for _, o := range m.ToolOutputs {
		if err := schema.Validate(&o); err != nil {
			t.Fatalf("tool output: %v", err)
		}
		outs[o.RunID]++
	}
	for id, n := range results {
		if outs[id] != n {
			t.Fatalf("run %s: %d tool results but %d tool outputs", id, n, outs[id])
		}
	}
	for _, c := range m.ContextOps {
		if err := schema.Validate(&c); err != nil {
			t.Fatalf("context op: %v", err)
		}
	}
	for _, r := range m.Rejects {
		if err := schema.Validate(&r); err != nil {
			t.Fatalf("reject: %v", err)
		}
	}
}

func gaiGlob(t testing.TB, patterns ...string) []string {
	t.Helper()
	var out []string
	for _, p := range patterns {
		m, err := filepath.Glob(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	return out
}

// ---------------------------------------------------------------------------

func TestOTelFixtures(t *testing.T) {
	const (
		traceA = "5b8efff798038103d269b633813fc60c"
		traceB = "0af7651916cd43dd8448eb211c80319c"
		traceC = "4bf92f3577b34da6a3ce929d0e0e4736"
	)
	tests := []struct {
		file    string
		runs    []gaiRunRow
		events  map[string][]gaiEv
		usage   map[string][]gaiUse
		outs    map[string][]gaiOut
		rejects []gaiReject
	}{
		{
			file: "otlp.json",
			runs: []gaiRunRow{
				{ID: traceA, Harness: "weather-agent", Model: "gpt-4o", Turns: 2, In: 320, Out: 45, Read: 100, UCalls: 2,
					End: schema.EndFinished, Source: schema.SourceExplicit, Detail: "finish_reason: stop", Cost: -1, Started: "2023-11-14T22:13:20.11Z"},
				{ID: traceB, Harness: "opentelemetry.instrumentation.openai", Model: "gpt-3.5-turbo", Turns: 1, In: 12, Out: 1, UCalls: 1,
					End: schema.EndError, Source: schema.SourceExplicit, Detail: "finish_reason: length (output limit)", Cost: -1, Started: "2023-11-14T22:13:20.5Z"},
			},
			events: map[string][]gaiEv{
				traceA: {
					{0, 0, schema.KindSystem, "", "", "", 1, false, "You are a weather bot."},
					{1, 0, schema.KindUser, "", "", "", 1, false, "Weather in Paris and Rome?"},
					{2, 0, schema.KindToolCall, "get_weather", "call_a", "", 1, false, `get_weather {"city":"Paris"}`},
					{3, 0, schema.KindToolCall, "get_weather", "call_b", "", 1, false, `get_weather {"city":"Rome"}`},
					{4, 1, schema.KindToolResult, "get_weather", "call_a", "", 3, false, "Sunny, 24C"},
					{5, 1, schema.KindToolResult, "get_weather", "call_b", "", 4, true, "timeout contacting weather API"},
					// the second prompt repeats system, user, calls and results: none is added again
					{6, 1, schema.KindAssistant, "", "", "", 5, false, "Paris is sunny; Rome is unavailable."},
				},
				traceB: {
					{0, 0, schema.KindSystem, "", "", "", 6, false, "Be terse."},
					{1, 0, schema.KindUser, "", "", "", 6, false, "2+2?"},
					{2, 0, schema.KindAssistant, "", "", "", 6, false, "4"},
				},
			},
			usage: map[string][]gaiUse{
				traceA: {{0, "gpt-4o-2024-08-06", "chatcmpl-1", 120, 30, 100, 0, 0}, {1, "gpt-4o", "", 200, 15, 0, 0, 0}},
				traceB: {{0, "gpt-3.5-turbo", "", 12, 1, 0, 0, 0}},
			},
			outs: map[string][]gaiOut{
				traceA: {{"call_a", "call_a", "get_weather", "", 1, 4, false}, {"call_b", "call_b", "get_weather", "", 1, 5, true}},
			},
		},
		{
			file: "spans.jsonl",
			runs: []gaiRunRow{
				{ID: traceC, Harness: "helper-svc", Model: "gpt-4o-mini", Turns: 1, In: 50, Out: 5, UCalls: 1,
					End: schema.EndContextOverflow, Source: schema.SourceExplicit, Detail: "context_length_exceeded: maximum context length is 8192 tokens",
					Cost: 0.00012, Started: "2025-01-02T10:00:01Z"},
			},
			events: map[string][]gaiEv{
				traceC: {
					{0, 0, schema.KindUser, "", "", "", 3, false, "hi"},
					{1, 0, schema.KindAssistant, "", "", "", 3, false, "hello"},
					// the failed agent span encloses the call: its error comes last
					{2, 1, schema.KindError, "", "", "", 1, true, "context_length_exceeded: maximum context length is 8192 tokens"},
				},
			},
			usage:   map[string][]gaiUse{traceC: {{0, "gpt-4o-mini", "", 50, 5, 0, 0, 0}}},
			rejects: []gaiReject{{2, "invalid JSON line"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			m := gaiParse(t, "otel-genai-spans", filepath.Join("testdata", "otel-genai-spans", tc.file))
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
			if len(m.ContextOps) != 0 {
				t.Errorf("context ops = %v, want none", m.ContextOps)
			}
			if diff := cmp.Diff(tc.rejects, gaiRejects(m)); diff != "" {
				t.Errorf("rejects (-want +got):\n%s", diff)
			}
		})
	}
}

// TestOTelShapes covers attribute spellings on single spans.
func TestOTelShapes(t *testing.T) {
	span := func(attrs string, extra string) []byte {
		return []byte(`{"spans":[{"name":"s","context":{"trace_id":"0x1","span_id":"0x2"},"start_time":1700000000000000000,"end_time":1700000001000000000,"attributes":{` + attrs + `}` + extra + `}]}`)
	}
	tests := []struct {
		name   string
		data   []byte
		kinds  []schema.EventKind
		usage  []gaiUse
		end    schema.EndReason
		source schema.ReasonSource
	}{
		{"current usage names with cache and reasoning",
			span(`"gen_ai.operation.name":"chat","gen_ai.request.model":"m","gen_ai.usage.input_tokens":"1000","gen_ai.usage.output_tokens":20,"gen_ai.usage.cache_read.input_tokens":600,"gen_ai.usage.cache_creation.input_tokens":300,"gen_ai.usage.reasoning.output_tokens":7,"gen_ai.output.messages":"[{\"role\":\"assistant\",\"parts\":[{\"type\":\"reasoning\",\"content\":\"hmm\"},{\"type\":\"text\",\"content\":\"ok\"}]}]"`, ""),
			[]schema.EventKind{schema.KindReasoning, schema.KindAssistant},
			[]gaiUse{{0, "m", "", 1000, 20, 600, 300, 7}}, schema.EndFinished, schema.SourceInferred},
		{"deprecated names; the cache is counted in the prompt",
			span(`"gen_ai.operation.name":"chat","gen_ai.response.model":"r","gen_ai.usage.prompt_tokens":5,"gen_ai.usage.completion_tokens":6,"gen_ai.usage.cache_read_input_tokens":9`, ""),
			nil, []gaiUse{{0, "r", "", 9, 6, 9, 0, 0}}, schema.EndUnknown, schema.SourceInferred},
		{"legacy gen_ai.prompt / gen_ai.completion JSON attributes",
			span(`"gen_ai.operation.name":"chat","gen_ai.prompt":"[{\"role\":\"user\",\"content\":\"q\"}]","gen_ai.completion":"[{\"role\":\"assistant\",\"content\":\"a\",\"finish_reason\":\"stop\"}]"`, ""),
			[]schema.EventKind{schema.KindUser, schema.KindAssistant}, nil, schema.EndFinished, schema.SourceExplicit},
		{"execute_tool without a model output gets its call",
			span(`"gen_ai.operation.name":"execute_tool","gen_ai.tool.name":"bash","gen_ai.tool.call.id":"c1","gen_ai.tool.call.arguments":{"command":"ls"},"gen_ai.tool.call.result":{"stdout":"a"}`, ""),
			[]schema.EventKind{schema.KindToolCall, schema.KindToolResult}, nil, schema.EndUnknown, schema.SourceInferred},
		{"error status on a model call with an exception event",
			span(`"gen_ai.operation.name":"chat"`, `,"status":{"status_code":"ERROR"},"events":[{"name":"exception","attributes":{"exception.message":"rate limited"}}]`),
			[]schema.EventKind{schema.KindError}, nil, schema.EndError, schema.SourceExplicit},
		{"other spans are not calls", span(`"http.method":"GET"`, ""), nil, nil, schema.EndUnknown, schema.SourceInferred},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ingest.Parse(context.Background(), "otel-genai-spans", "shape.json", tc.data, nil)
			if err != nil {
				t.Fatal(err)
			}
			gaiCheckSink(t, m)
			if len(m.Runs) != 1 || m.Runs[0].RunID != "1" {
				t.Fatalf("runs = %+v, want one run 1", m.Runs)
			}
			var kinds []schema.EventKind
			for _, e := range m.Events {
				kinds = append(kinds, e.Kind)
			}
			if diff := cmp.Diff(tc.kinds, kinds); diff != "" {
				t.Errorf("kinds (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.usage, gaiUsage(m, "1")); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
			if r := m.Runs[0]; r.EndReason != tc.end || r.EndReasonSource != tc.source {
				t.Errorf("end = %s (%s), want %s (%s)", r.EndReason, r.EndReasonSource, tc.end, tc.source)
			}
		})
	}
}

func TestOTelMalformed(t *testing.T) {
	data := []byte("{\"spans\": [\n  {\"name\": \"x\",\n  \"attributes\": {\n}\n")
	m, err := ingest.Parse(context.Background(), "otel-genai-spans", "bad.json", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Runs) != 0 || len(m.Rejects) != 1 || m.Rejects[0].Line != 4 {
		t.Fatalf("runs %d, rejects %+v; want none and one reject at line 4 (the value after which a comma is missing)", len(m.Runs), m.Rejects)
	}
	_, err = ingest.Parse(context.Background(), "otel-genai-spans", "bad.jsonl",
		[]byte("{\"spans\":[]}\nnot json\n"), &ingest.Options{Strict: true})
	var se *ingest.SyntaxError
	if !asSyntax(err, &se) || se.Line != 2 {
		t.Fatalf("strict: err = %v, want a syntax error at line 2", err)
	}
}

func TestOTelDetect(t *testing.T) {
	im, err := ingest.Lookup("otel-genai-spans")
	if err != nil {
		t.Fatal(err)
	}
	long := `{"spans":[{"name":"call_llm","attributes":{"gen_ai.operation.name":"call_llm","gen_ai.input.messages":"` + strings.Repeat("x", ingest.HeadSize) + `"}}]}`
	tests := []struct {
		name, head string
		want       bool
	}{
		{"any-agent trace", `{"spans":[{"name":"call_llm","context":{"trace_id":1},"attributes":{"gen_ai.operation.name":"call_llm"}}]}`, true},
		{"any-agent trace cut off by the head", long[:ingest.HeadSize], true},
		{"OTLP export", `{"resourceSpans":[{"resource":{},"scopeSpans":[]}]}`, true},
		{"one span per line", `{"name":"chat","context":{"trace_id":"0x1","span_id":"0x2"},"attributes":{"gen_ai.operation.name":"chat"}}` + "\n", true},
		{"array of spans", `[{"name":"chat","traceId":"ab","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}}]}]`, true},
		{"spans without gen_ai attributes", `{"spans":[{"name":"GET /","attributes":{"http.method":"GET"}}]}`, false},
		{"langfuse trace", `{"trace":{"id":"t","projectId":"p","timestamp":"x","metadata":"{\"gen_ai.system\":\"x\"}"},"observations":[]}`, false},
		{"opencode event", `[{"type":"message.updated","properties":{"info":{"id":"msg_1"}}}]`, false},
		{"chat messages", `[{"role":"user","content":"hi"}]`, false},
		{"not JSON", "spans gen_ai.", false},
		{"empty", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := im.Detect("x.json", []byte(tc.head)); got != tc.want {
				t.Errorf("Detect = %v, want %v", got, tc.want)
			}
		})
	}
	for _, p := range gaiGlob(t, filepath.Join("testdata", "otel-genai-spans", "*.json*")) {
		data, _ := os.ReadFile(p)
		if got := ingest.Detect(p, data[:min(len(data), ingest.HeadSize)]); got == nil || got.Name() != "otel-genai-spans" {
			t.Errorf("%s detected as %v", p, got)
		}
	}
}

// otelManifest is the corpus MANIFEST's span counts per file.
var otelManifest = map[string]map[string]int{
	"any-agent__OPENAI_trace.json":    {"call_llm": 3, "execute_tool": 2, "invoke_agent": 1},
	"any-agent__LANGCHAIN_trace.json": {"call_llm": 4, "execute_tool": 2, "invoke_agent": 1},
	"any-agent__TINYAGENT_trace.json": {"call_llm": 4, "execute_tool": 3, "invoke_agent": 1},
}

func TestOTelCorpus(t *testing.T) {
	dir := testutil.Corpus(t, "otel-genai-spans")
	files := gaiGlob(t, filepath.Join(dir, "*.json"))
	if len(files) != len(otelManifest) {
		t.Fatalf("%d corpus files, want %d", len(files), len(otelManifest))
	}
	for _, p := range files {
		name := filepath.Base(p)
		t.Run(name, func(t *testing.T) {
			// an independent scan: operations, token sums, tool requests
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Spans []struct {
					Attributes map[string]any `json:"attributes"`
				} `json:"spans"`
			}
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			ops := map[string]int{}
			var in, out int64
			requests := 0
			for _, s := range doc.Spans {
				op, _ := s.Attributes["gen_ai.operation.name"].(string)
				ops[op]++
				if op == "call_llm" {
					in += int64(s.Attributes["gen_ai.usage.input_tokens"].(float64))
					out += int64(s.Attributes["gen_ai.usage.output_tokens"].(float64))
					if o, _ := s.Attributes["gen_ai.output"].(string); strings.HasPrefix(o, `[{"tool.name"`) {
						requests += strings.Count(o, `"tool.name"`)
					}
				}
			}
			if diff := cmp.Diff(otelManifest[name], ops); diff != "" {
				t.Fatalf("scan disagrees with the MANIFEST (-want +got):\n%s", diff)
			}
			m := gaiParse(t, "otel-genai-spans", p)
			if len(m.Runs) != 1 || len(m.Rejects) != 0 {
				t.Fatalf("%d runs, %d rejects; want 1 and 0", len(m.Runs), len(m.Rejects))
			}
			r := m.Runs[0]
			kinds := map[schema.EventKind]int{}
			for _, e := range m.Events {
				kinds[e.Kind]++
				if e.Kind == schema.KindToolResult && (e.CallID == "" || e.ToolName == "") {
					t.Errorf("tool result %d not linked to its call", e.Seq)
				}
			}
			want := ops["call_llm"]
			if r.NTurns != int64(want) || len(m.Usage) != want || r.UsageCalls != int64(want) {
				t.Errorf("turns %d, usage rows %d, usage calls %d; want %d call_llm spans", r.NTurns, len(m.Usage), r.UsageCalls, want)
			}
			if r.InputTokens != in || r.OutputTokens != out {
				t.Errorf("tokens in/out %d/%d, want %d/%d", r.InputTokens, r.OutputTokens, in, out)
			}
			// every tool the model requested ran: one call and one result each
			if kinds[schema.KindToolCall] != requests || kinds[schema.KindToolResult] != ops["execute_tool"] || requests != ops["execute_tool"] {
				t.Errorf("tool calls %d, results %d; want %d requests and %d execute_tool spans", kinds[schema.KindToolCall], kinds[schema.KindToolResult], requests, ops["execute_tool"])
			}
			if len(m.ToolOutputs) != ops["execute_tool"] || len(m.ContextOps) != 0 {
				t.Errorf("tool outputs %d, context ops %d", len(m.ToolOutputs), len(m.ContextOps))
			}
			if r.EndReason != schema.EndFinished || r.EndReasonSource != schema.SourceExplicit || r.Harness != "any-agent" || r.CostUSD == nil {
				t.Errorf("run = %+v, want finished (explicit: final_output), harness any-agent, a cost", r)
			}
			if kinds[schema.KindSystem] != 1 || kinds[schema.KindUser] != 1 {
				t.Errorf("events by kind %v: want the prompt once (1 system, 1 user)", kinds)
			}
		})
	}
}
