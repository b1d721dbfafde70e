package ingest_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/schema"
)

// The fixtures in testdata/inspect-ai are hand-written (see its README.md):
//
//	log.json   a .json log (Inspect 0.3.150, Anthropic model: input_tokens
//	           excludes cached tokens): attachments, reasoning blocks, a tool
//	           error, a compaction event, a grader call, a message limit that
//	           cut off a tool result, a context-overflow error, a sample that
//	           is not an object
//	archive/   the members of a .eval archive (Inspect 0.3.190): messages
//	           without ids, an input-sourced assistant message, token and time
//	           limits, numeric scores, a member that is not JSON; the tests zip
//	           it (inspArchive)

// inspArchive zips testdata/inspect-ai/archive into an .eval archive: the
// samples in name order, then header.json (as Inspect writes it last).
func inspArchive(t testing.TB) []byte {
	t.Helper()
	dir := filepath.Join("testdata", "inspect-ai", "archive")
	var names []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		names = append(names, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(names, func(i, j int) bool {
		if (names[i] == "header.json") != (names[j] == "header.json") {
			return names[j] == "header.json"
		}
		return names[i] < names[j]
	})
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(n)))
		if err != nil {
			t.Fatal(err)
		}
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func inspParse(t *testing.T, path string) *ingest.MemSink {
	t.Helper()
	var data []byte
	var err error
	if filepath.Base(path) == "archive.eval" {
		data = inspArchive(t)
	} else if data, err = os.ReadFile(path); err != nil {
		t.Fatal(err)
	}
	sink, err := ingest.Parse(context.Background(), "inspect-ai", path, data, nil)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return sink
}

func TestInspectFixtures(t *testing.T) {
	const s1, s2, s3, a1, a2 = "EVAL1/s1/1", "EVAL1/2/2", "EVAL1/s3/1", "EV2/1/1", "EV2/2/1"
	ts := func(s string) string { return "2025-06-01T10:00:" + s + "Z" }
	t2 := func(s string) string { return "2026-03-10T12:00:" + s + "Z" }
	tests := []atifWant{{
		file: "log.json",
		runs: []schema.Run{
			// 0.3.150 with an Anthropic model: input_tokens excludes the cache,
			// so 100 + 900 read + 50 written and 300 + 1000 read
			{RunID: s1, Harness: "inspect-ai", Model: "claude-sonnet-4-5-20250929", ModelFamily: "claude-sonnet-4", TaskID: "fixbug/s1",
				Resolved: atifBool(true), StartedAt: atifTS(t, ts("00")), EndedAt: atifTS(t, ts("14")),
				EndReason: schema.EndFinished, EndReasonSource: schema.SourceExplicit, EndReasonDetail: "sample completed",
				NTurns: 2, UsageCalls: 2, InputTokens: 2350, OutputTokens: 30, CacheReadTokens: 1900, CacheWriteTokens: 50, CostUSD: atifF64(0.002)},
			{RunID: s2, Harness: "inspect-ai", Model: "claude-sonnet-4-5-20250929", ModelFamily: "claude-sonnet-4", TaskID: "fixbug/2",
				Resolved: atifBool(false), StartedAt: atifTS(t, ts("20")), EndedAt: atifTS(t, ts("23")),
				EndReason: schema.EndStepLimit, EndReasonSource: schema.SourceExplicit,
				EndReasonDetail: "message limit 2: Sample completed: Exceeded message limit: 2",
				NTurns:          1, UsageCalls: 1, InputTokens: 500, OutputTokens: 5},
			{RunID: s3, Harness: "inspect-ai", Model: "claude-sonnet-4-5-20250929", ModelFamily: "claude-sonnet-4", TaskID: "fixbug/s3",
				StartedAt: atifTS(t, ts("30")), EndedAt: atifTS(t, ts("33")),
				EndReason: schema.EndContextOverflow, EndReasonSource: schema.SourceExplicit,
				EndReasonDetail: "BadRequestError('prompt is too long: 210000 tokens > 200000 maximum')",
				NTurns:          1, UsageCalls: 1, InputTokens: 2000, OutputTokens: 3},
		},
		events: []schema.Event{
			{RunID: s1, Seq: 0, TS: atifTS(t, ts("00")), Kind: schema.KindSystem, Role: "system", Line: 29, Text: "You are a helpful agent."},
			// attachment://aaa resolved from the sample's attachments
			{RunID: s1, Seq: 1, TS: atifTS(t, ts("00")), Kind: schema.KindUser, Role: "user", Line: 34, Text: "Fix the bug in a.py"},
			{RunID: s1, Seq: 2, TS: atifTS(t, ts("03")), Kind: schema.KindReasoning, Role: "assistant", Line: 40, Text: "Need to look."},
			{RunID: s1, Seq: 3, TS: atifTS(t, ts("03")), Kind: schema.KindAssistant, Role: "assistant", Line: 40, Text: "Let me check."},
			{RunID: s1, Seq: 4, TS: atifTS(t, ts("03")), Kind: schema.KindToolCall, Role: "assistant", Line: 40,
				ToolName: "bash", CallID: "tc1", Target: "cat a.py", Args: `{"cmd":"cat a.py"}`, Text: `bash {"cmd":"cat a.py"}`},
			{RunID: s1, Seq: 5, Turn: 1, TS: atifTS(t, ts("08")), Kind: schema.KindToolResult, Role: "tool", Line: 67,
				ToolName: "bash", CallID: "tc1", ToolKey: "tc1", Target: "cat a.py", IsError: true, Text: "Command timed out"},
			// the compaction precedes the call after it
			{RunID: s1, Seq: 6, Turn: 1, TS: atifTS(t, ts("09")), Kind: schema.KindCompaction, Role: "system", Line: 78},
			{RunID: s1, Seq: 7, Turn: 1, TS: atifTS(t, ts("12")), Kind: schema.KindAssistant, Role: "assistant", Line: 78, Text: "Fixed."},
			{RunID: s2, Seq: 0, TS: atifTS(t, ts("20")), Kind: schema.KindUser, Role: "user", Line: 255, Text: "Count files."},
			{RunID: s2, Seq: 1, TS: atifTS(t, ts("22")), Kind: schema.KindToolCall, Role: "assistant", Line: 260,
				ToolName: "bash", CallID: "tc9", Target: "ls | wc -l", Args: `{"cmd":"ls | wc -l"}`, Text: `bash {"cmd":"ls | wc -l"}`},
			// the message limit ended the sample before the result's message
			{RunID: s2, Seq: 2, Turn: 1, TS: atifTS(t, ts("23")), Kind: schema.KindToolResult, Role: "tool", Line: 260,
				ToolName: "bash", CallID: "tc9", ToolKey: "tc9", Target: "ls | wc -l", Text: "3\n"},
			{RunID: s3, Seq: 0, TS: atifTS(t, ts("30")), Kind: schema.KindUser, Role: "user", Line: 345, Text: "Do it.\n[image]"},
			{RunID: s3, Seq: 1, TS: atifTS(t, ts("32")), Kind: schema.KindAssistant, Role: "assistant", Line: 360, Text: "Working."},
			{RunID: s3, Seq: 2, Turn: 1, TS: atifTS(t, ts("33")), Kind: schema.KindError, Role: "system", Line: 360, IsError: true,
				Text: "Error code: 400 - prompt is too long: 210000 tokens > 200000 maximum"},
		},
		usage: []schema.Usage{
			{RunID: s1, Turn: 0, TS: atifTS(t, ts("03")), Model: "claude-sonnet-4-5-20250929", InputTokens: 1050, OutputTokens: 20, CacheReadTokens: 900, CacheWriteTokens: 50},
			{RunID: s1, Turn: 1, TS: atifTS(t, ts("12")), Model: "claude-sonnet-4-5-20250929", InputTokens: 1300, OutputTokens: 10, CacheReadTokens: 1000},
			{RunID: s2, Turn: 0, TS: atifTS(t, ts("22")), Model: "claude-sonnet-4-5-20250929", InputTokens: 500, OutputTokens: 5},
			{RunID: s3, Turn: 0, TS: atifTS(t, ts("32")), Model: "claude-sonnet-4-5-20250929", InputTokens: 2000, OutputTokens: 3},
		},
		outputs: []schema.ToolOutput{
			{RunID: s1, ToolKey: "tc1", CallID: "tc1", ToolName: "bash", Target: "cat a.py", Turn: 1, Seq: 5, IsError: true},
			{RunID: s2, ToolKey: "tc9", CallID: "tc9", ToolName: "bash", Target: "ls | wc -l", Turn: 1, Seq: 2},
		},
		ops: []schema.ContextOp{{RunID: s1, Seq: 6, Turn: 1, Op: schema.OpSummary, TokensBefore: atifI64(5000), TokensAfter: atifI64(1200),
			Trigger: "auto", Detail: "compaction summary inspect"}},
		rejects: []atifReject{{411, "sample 4: not a JSON object"}},
	}, {
		file: "archive.eval",
		runs: []schema.Run{
			// 0.3.190: input_tokens excludes the cache for every provider
			{RunID: a1, Harness: "inspect-ai", Model: "gpt-5-2025-08-07", ModelFamily: "gpt-5", TaskID: "ctf/1", Resolved: atifBool(true),
				StartedAt: atifTS(t, t2("00")), EndedAt: atifTS(t, t2("06")),
				EndReason: schema.EndCostLimit, EndReasonSource: schema.SourceExplicit,
				EndReasonDetail: "token limit 3000: Sample completed: Exceeded token limit: 3000",
				NTurns:          2, UsageCalls: 2, InputTokens: 2100, OutputTokens: 1900, CacheReadTokens: 1800, ReasoningTokens: 700},
			// a score of 0.5 is neither resolved nor not
			{RunID: a2, Harness: "inspect-ai", Model: "gpt-5-2025-08-07", ModelFamily: "gpt-5", TaskID: "ctf/2",
				StartedAt: atifTS(t, t2("10")), EndedAt: atifTS(t, t2("59")),
				EndReason: schema.EndInterrupted, EndReasonSource: schema.SourceExplicit,
				EndReasonDetail: "time limit 60: Sample completed: Exceeded time limit: 60 seconds",
				NTurns:          1, UsageCalls: 1, InputTokens: 50, OutputTokens: 2},
		},
		events: []schema.Event{
			{RunID: a1, Seq: 0, TS: atifTS(t, t2("00")), Kind: schema.KindSystem, Role: "system", Line: 1, Text: "Solve the CTF."},
			{RunID: a1, Seq: 1, TS: atifTS(t, t2("00")), Kind: schema.KindUser, Role: "user", Line: 2, Text: "Find the flag."},
			// an assistant message of the dataset input is context, not a call
			{RunID: a1, Seq: 2, TS: atifTS(t, t2("00")), Kind: schema.KindUser, Role: "assistant", Line: 3, Text: "I will start by listing files."},
			// matched to its model event by the tool call id (no message ids)
			{RunID: a1, Seq: 3, TS: atifTS(t, t2("02")), Kind: schema.KindReasoning, Role: "assistant", Line: 4, Text: "Planning."},
			{RunID: a1, Seq: 4, TS: atifTS(t, t2("02")), Kind: schema.KindToolCall, Role: "assistant", Line: 4,
				ToolName: "python", CallID: "call_A", Args: `{"code":"print(1)"}`, Text: `python {"code":"print(1)"}`},
			{RunID: a1, Seq: 5, Turn: 1, TS: atifTS(t, t2("03")), Kind: schema.KindToolResult, Role: "tool", Line: 5,
				ToolName: "python", CallID: "call_A", ToolKey: "call_A", Text: "1"},
			// matched by its text
			{RunID: a1, Seq: 6, Turn: 1, TS: atifTS(t, t2("06")), Kind: schema.KindAssistant, Role: "assistant", Line: 6, Text: "The flag is picoCTF{x}."},
			{RunID: a2, Seq: 0, TS: atifTS(t, t2("10")), Kind: schema.KindUser, Role: "user", Line: 1, Text: "Wait for it."},
			{RunID: a2, Seq: 1, TS: atifTS(t, t2("12")), Kind: schema.KindAssistant, Role: "assistant", Line: 2, Text: "Waiting."},
		},
		usage: []schema.Usage{
			{RunID: a1, Turn: 0, TS: atifTS(t, t2("02")), Model: "gpt-5-2025-08-07", InputTokens: 1000, OutputTokens: 900, CacheReadTokens: 800, ReasoningTokens: 700},
			{RunID: a1, Turn: 1, TS: atifTS(t, t2("06")), Model: "gpt-5-2025-08-07", InputTokens: 1100, OutputTokens: 1000, CacheReadTokens: 1000},
			{RunID: a2, Turn: 0, TS: atifTS(t, t2("12")), Model: "gpt-5-2025-08-07", InputTokens: 50, OutputTokens: 2},
		},
		outputs: []schema.ToolOutput{{RunID: a1, ToolKey: "call_A", CallID: "call_A", ToolName: "python", Turn: 1, Seq: 5}},
		// the third archive member (samples/3_epoch_1.json) is cut off
		rejects: []atifReject{{3, "samples/3_epoch_1.json: the JSON is cut off: it ends before its value is complete"}},
	}}
	for _, w := range tests {
		t.Run(w.file, func(t *testing.T) { atifCheck(t, "inspect-ai", "inspect-ai", w, inspParse) })
	}
}

func TestInspectMalformed(t *testing.T) {
	tests := []struct {
		name    string
		data    []byte
		rejects []atifReject
	}{
		{"not JSON", []byte("{\n  \"version\": 2,\n  \"eval\": {\"task\": \n}"), []atifReject{{4, "invalid JSON: a value was expected, got '}'"}}},
		{"broken zip", []byte("PK\x03\x04 not really a zip"), []atifReject{{1, "invalid .eval archive: zip: not a valid zip file"}}},
		{"empty", nil, []atifReject{{1, "invalid JSON: the JSON is cut off: it ends before its value is complete"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sink, err := ingest.Parse(context.Background(), "inspect-ai", "x.json", tc.data, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(sink.Runs) != 0 {
				t.Errorf("got %d runs, want 0", len(sink.Runs))
			}
			if diff := cmp.Diff(tc.rejects, atifRejects(sink.Rejects)); diff != "" {
				t.Errorf("rejects (-want +got):\n%s", diff)
			}
		})
	}
}

func TestInspectDetect(t *testing.T) {
	im, err := ingest.Lookup("inspect-ai")
	if err != nil {
		t.Fatal(err)
	}
	archive := inspArchive(t)
	tests := []struct {
		name, file string
		head       []byte
		want       bool
	}{
		{"eval archive", "x.eval", archive, true},
		{"eval archive, other name", "x.zip", archive, true},
		{"zip of other members", "x.zip", []byte("PK\x03\x04\x14\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x07\x00\x00\x00readme"), false},
		{"json log", "x.json", []byte(`{"version": 2, "status": "success", "eval": {"eval_id": "E", "run_id": "R", "created": "2025-01-01", "task": "t"}}`), true},
		{"json log, no eval_id", "x.json", []byte(`{"version": 2, "eval": {"run_id": "R", "created": "2025-01-01", "task": "t", "dataset": {`), true},
		{"eval without task", "x.json", []byte(`{"eval": {"run_id": "R", "created": "2025-01-01"}}`), false},
		{"nested eval", "x.json", []byte(`{"data": {"eval": {"run_id": "R", "created": "c", "task": "t"}}}`), false},
		{"messages", "x.json", []byte(`[{"role": "user", "content": "hi"}]`), false},
		{"empty", "x.eval", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := im.Detect(tc.file, tc.head[:min(len(tc.head), ingest.HeadSize)]); got != tc.want {
				t.Errorf("Detect = %v, want %v", got, tc.want)
			}
		})
	}
}

// inspScanSample is what a plain reading of one sample expects.
type inspScanSample struct {
	messages, calls, results, used int
	in, out, cacheRead             int64
}

// inspScan reads an Inspect log independently of the importer: for each
// sample its messages, tool calls, tool results (tool messages, plus tool
// events answering calls of the final message that have no message) and
// its model_usage totals.
func inspScan(t *testing.T, path string, data []byte) []inspScanSample {
	t.Helper()
	var raws [][]byte
	if strings.HasSuffix(path, ".eval") {
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		for _, zf := range zr.File {
			if !strings.HasPrefix(zf.Name, "samples/") {
				continue
			}
			rc, err := zf.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
			raws = append(raws, b)
		}
	} else {
		var log struct {
			Samples []json.RawMessage `json:"samples"`
		}
		if err := json.Unmarshal(data, &log); err != nil {
			t.Fatal(err)
		}
		for _, s := range log.Samples {
			raws = append(raws, s)
		}
	}
	var out []inspScanSample
	for _, raw := range raws {
		var s struct {
			ID       any `json:"id"`
			Epoch    int `json:"epoch"`
			Messages []struct {
				Role      string `json:"role"`
				ToolCalls []struct {
					ID string `json:"id"`
				} `json:"tool_calls"`
				ToolCallID string `json:"tool_call_id"`
			} `json:"messages"`
			Events []struct {
				Event string `json:"event"`
				ID    any    `json:"id"`
			} `json:"events"`
			ModelUsage map[string]struct {
				In        int64 `json:"input_tokens"`
				Out       int64 `json:"output_tokens"`
				CacheRead int64 `json:"input_tokens_cache_read"`
			} `json:"model_usage"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		r := inspScanSample{messages: len(s.Messages)}
		answered := map[string]bool{}
		for _, m := range s.Messages {
			r.calls += len(m.ToolCalls)
			if m.Role == "tool" {
				r.results++
				answered[m.ToolCallID] = true
			}
			if m.Role == "assistant" {
				r.used++
			}
		}
		if n := len(s.Messages); n > 0 {
			for _, c := range s.Messages[n-1].ToolCalls {
				for _, e := range s.Events {
					if e.Event == "tool" && e.ID == c.ID && !answered[c.ID] {
						r.results++
					}
				}
			}
		}
		for _, u := range s.ModelUsage {
			r.in += u.In
			r.out += u.Out
			r.cacheRead += u.CacheRead
		}
		out = append(out, r)
	}
	return out
}

// inspCorpusEnds is the end reason of every corpus run that did not finish.
var inspCorpusEnds = map[string]schema.EndReason{
	"hhFRFjyT3X2b479az7uSva/56/1": schema.EndStepLimit,
	"hhFRFjyT3X2b479az7uSva/78/1": schema.EndStepLimit,
	"hhFRFjyT3X2b479az7uSva/86/1": schema.EndStepLimit,
}

func TestInspectCorpus(t *testing.T) {
	dir := testutil.Corpus(t, "inspect-ai")
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no logs in %s: %v", dir, err)
	}
	totalMessages, totalCalls := 0, 0
	for _, p := range files {
		name := filepath.Base(p)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			sink, err := ingest.Parse(context.Background(), "inspect-ai", p, data, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(sink.Rejects) != 0 {
				t.Fatalf("got %d rejects, want 0: %+v", len(sink.Rejects), sink.Rejects)
			}
			want := inspScan(t, p, data)
			if len(sink.Runs) != len(want) {
				t.Fatalf("got %d runs, want %d samples", len(sink.Runs), len(want))
			}
			byRun := map[string]*inspScanSample{}
			for i := range sink.Runs {
				w := want[i] // samples import in file order
				byRun[sink.Runs[i].RunID] = &w
				totalMessages += w.messages
				totalCalls += w.calls
			}
			got := map[string]*inspScanSample{}
			for _, r := range sink.Runs {
				got[r.RunID] = &inspScanSample{in: r.InputTokens, out: r.OutputTokens, cacheRead: r.CacheReadTokens, used: int(r.UsageCalls)}
				if r.NTurns != r.UsageCalls {
					t.Errorf("%s: %d calls, %d with usage", r.RunID, r.NTurns, r.UsageCalls)
				}
				wantEnd, ok := inspCorpusEnds[r.RunID]
				if !ok {
					wantEnd = schema.EndFinished
				}
				if r.EndReason != wantEnd || r.EndReasonSource != schema.SourceExplicit || r.Resolved == nil {
					t.Errorf("%s: end %s/%s resolved %v, want %s/explicit and an outcome", r.RunID, r.EndReason, r.EndReasonSource, r.Resolved, wantEnd)
				}
			}
			for _, e := range sink.Events {
				g := got[e.RunID]
				switch e.Kind {
				case schema.KindToolCall:
					g.calls++
				case schema.KindToolResult:
					g.results++
					if e.ToolName == "" {
						t.Errorf("%s: result %s not linked", e.RunID, e.CallID)
					}
				}
			}
			for id, w := range byRun {
				g := got[id]
				if g.calls != w.calls || g.results != w.results || g.used != w.used || g.in != w.in || g.out != w.out || g.cacheRead != w.cacheRead {
					t.Errorf("%s: import calls/results/usage %d/%d/%d tokens %d/%d/%d, scan %d/%d/%d tokens %d/%d/%d", id,
						g.calls, g.results, g.used, g.in, g.out, g.cacheRead, w.calls, w.results, w.used, w.in, w.out, w.cacheRead)
				}
			}
			outputs := 0
			for _, w := range want {
				outputs += w.results
			}
			if len(sink.ToolOutputs) != outputs {
				t.Errorf("%d tool_outputs, want %d", len(sink.ToolOutputs), outputs)
			}
		})
	}
	// MANIFEST: the three logs hold 17 samples with 345 messages and 125
	// tool calls (1+15+1 samples; 10+332+3 messages; 4+121+0 calls)
	if totalMessages != 345 || totalCalls != 125 {
		t.Errorf("corpus has %d messages and %d tool calls, want 345 and 125", totalMessages, totalCalls)
	}
}
