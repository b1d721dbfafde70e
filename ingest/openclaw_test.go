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

const ocFormat = "openclaw-telemetry"

// TestOpenClawFixture: lines 1-7 of telemetry.jsonl are covered by the
// history snapshot on line 9 (taken before the prompt of lines 8/9), so the
// main run's first events come from the snapshot (real call ids, outputs and
// usage) and the rest from the telemetry (synthetic call ids, no outputs).
func TestOpenClawFixture(t *testing.T) {
	m := pkParse(t, ocFormat, "testdata/openclaw-telemetry/telemetry.jsonl", "telemetry.jsonl")
	const main, sub = "agent:main:main", "agent:main:subagent:u1"
	pkCheck(t, "runs", []pkRun{
		{ID: main, Harness: "openclaw", Model: "claude-opus-4-8", End: schema.EndUnknown, Source: schema.SourceInferred,
			Turns: 3, In: 8065, Out: 55, CR: 4000, CW: 4060, UsageCalls: 2},
		{ID: sub, Parent: main, Harness: "openclaw", End: schema.EndUnknown, Source: schema.SourceInferred, Turns: 1, Estimated: true},
	}, pkRuns(m))
	pkCheck(t, "events", []ev{
		{sub, 0, 0, schema.KindUser, "", "", "", false},
		{sub, 1, 0, schema.KindToolCall, "exec", "tool.start:13", "echo hi", false},
		{sub, 2, 1, schema.KindToolResult, "exec", "tool.start:13", "echo hi", true},
		{main, 0, 0, schema.KindUser, "", "", "", false},
		{main, 1, 0, schema.KindToolCall, "exec", "tu_1", "ls", false},
		{main, 2, 1, schema.KindToolResult, "exec", "tu_1", "ls", false},
		{main, 3, 1, schema.KindAssistant, "", "", "", false},
		{main, 4, 2, schema.KindUser, "", "", "", false},
		{main, 5, 2, schema.KindToolCall, "sessions_spawn", "tool.start:10", "", false},
		{main, 6, 3, schema.KindToolResult, "sessions_spawn", "tool.start:10", "", false},
	}, pkSortedByRun(evs(m), sub, main))
	var lines []int64
	var times []string
	for _, e := range m.Events {
		if e.RunID == main {
			lines = append(lines, e.Line)
			ts := ""
			if e.TS != nil {
				ts = e.TS.Format("15:04:05")
			}
			times = append(times, ts)
		}
	}
	pkCheck(t, "main event lines", []int64{9, 9, 9, 9, 8, 10, 11}, lines)
	// the prompt of line 8 takes the time of the channel message (line 7)
	pkCheck(t, "main event times", []string{"18:22:31", "18:22:33", "18:22:34", "18:22:35", "18:22:57", "", ""}, times)
	pkCheck(t, "usage", []pkUse{
		{main, 0, 4002, 50, 0, 4000, 0, "claude-opus-4-8", "msg_1"},
		{main, 1, 4063, 5, 4000, 60, 0, "claude-opus-4-8", "msg_2"},
	}, pkUses(m))
	pkCheck(t, "tool outputs", []out{
		{sub, "tool.start:13", "exec", "echo hi", 1, true},
		{main, "tu_1", "exec", "ls", 1, false},
		{main, "tool.start:10", "sessions_spawn", "", 3, false},
	}, pkSortedOuts(outs(m), sub, main))
	pkCheck(t, "rejects", []pkReject{{15, "invalid JSON: a quoted key was expected, got 'b'"}}, pkRejects(m))
}

// TestOpenClawPairing checks that without ids tool.start/tool.end pair in
// order per sessionKey and toolName, whatever interleaves them.
func TestOpenClawPairing(t *testing.T) {
	data := []byte(`{"type":"agent.start","sessionKey":"k","agentId":"a","prompt":"go"}
{"type":"tool.start","toolName":"exec","params":{"command":"one"},"sessionKey":"k"}
{"type":"tool.start","toolName":"read","params":{"path":"/x"},"sessionKey":"k"}
{"type":"tool.start","toolName":"exec","params":{"command":"two"},"sessionKey":"k"}
{"type":"tool.end","toolName":"exec","success":true,"sessionKey":"k"}
{"type":"tool.end","toolName":"read","success":false,"error":"no such file","sessionKey":"k"}
{"type":"tool.end","toolName":"exec","success":true,"sessionKey":"k"}
{"type":"message.out","channel":"c","content":"done"}
`)
	m, err := ingest.Parse(t.Context(), ocFormat, "pairing.jsonl", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	pkCheck(t, "events", []ev{
		{"k", 0, 0, schema.KindUser, "", "", "", false},
		{"k", 1, 0, schema.KindToolCall, "exec", "tool.start:2", "one", false},
		{"k", 2, 0, schema.KindToolCall, "read", "tool.start:3", "/x", false},
		{"k", 3, 0, schema.KindToolCall, "exec", "tool.start:4", "two", false},
		{"k", 4, 1, schema.KindToolResult, "exec", "tool.start:2", "one", false},
		{"k", 5, 1, schema.KindToolResult, "read", "tool.start:3", "/x", true},
		{"k", 6, 1, schema.KindToolResult, "exec", "tool.start:4", "two", false},
		{"k", 7, 1, schema.KindAssistant, "", "", "", false},
	}, evs(m))
	pkCheck(t, "error text", "no such file", m.Events[5].Text)
	pkCheck(t, "end", "finished/inferred", string(m.Runs[0].EndReason)+"/"+string(m.Runs[0].EndReasonSource))
}

// pkSortedByRun orders events by the given run order, keeping seq order.
func pkSortedByRun(in []ev, runs ...string) []ev {
	var out []ev
	for _, r := range runs {
		for _, e := range in {
			if e.Run == r {
				out = append(out, e)
			}
		}
	}
	return out
}

func pkSortedOuts(in []out, runs ...string) []out {
	var res []out
	for _, r := range runs {
		for _, o := range in {
			if o.Run == r {
				res = append(res, o)
			}
		}
	}
	return res
}

func TestOpenClawDetect(t *testing.T) {
	im, err := ingest.Lookup(ocFormat)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, head string
		want       bool
	}{
		{"channel message", `{"type":"message.in","channel":"telegram","content":"hi","timestamp":1}`, true},
		{"agent start", `{"type":"agent.start","sessionKey":"agent:main:main","agentId":"main","prompt":"hi"}`, true},
		{"type without keys", `{"type":"tool.start","toolName":"exec"}`, false},
		{"pi session", `{"type":"session","id":"x","cwd":"/r"}`, false},
		{"kimi", `{"type":"turn.prompt","input":[]}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := im.Detect("telemetry.jsonl", []byte(tc.head)); got != tc.want {
				t.Errorf("Detect = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestOpenClawCorpus checks the real telemetry against an independent scan
// and the MANIFEST (57 records, 14 tool.start). Every tool.start and tool.end
// must appear once: from the main session's largest snapshot (16 messages,
// 6 tool calls, 6 results, 6 assistant messages with usage) for the part it
// covers, from the telemetry for the rest.
func TestOpenClawCorpus(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testutil.Corpus(t, "openclaw-telemetry"), "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no openclaw corpus files")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			fh, err := os.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			defer fh.Close()
			sessions := map[string]bool{}
			var records, starts, ends, snapUsage int64
			largest := -1
			sc := bufio.NewScanner(fh)
			sc.Buffer(nil, 64<<20)
			for sc.Scan() {
				var r struct {
					Type       string `json:"type"`
					SessionKey string `json:"sessionKey"`
					Messages   []struct {
						Role  string          `json:"role"`
						Usage json.RawMessage `json:"usage"`
					} `json:"messages"`
				}
				if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
					t.Fatal(err)
				}
				records++
				switch r.Type {
				case "tool.start":
					starts++
				case "tool.end":
					ends++
				case "agent.start":
					sessions[r.SessionKey] = true
					if r.SessionKey == "agent:main:main" && len(r.Messages) > largest {
						largest, snapUsage = len(r.Messages), 0
						for _, msg := range r.Messages {
							if msg.Role == "assistant" && msg.Usage != nil {
								snapUsage++
							}
						}
					}
				}
			}
			pkCheck(t, "manifest records/tool.start", []int64{57, 14}, []int64{records, starts})
			m := pkParse(t, ocFormat, f, filepath.Base(f))
			pkCheck(t, "rejects", []pkReject{}, pkRejects(m))
			var calls, results int64
			for _, e := range m.Events {
				switch e.Kind {
				case schema.KindToolCall:
					calls++
				case schema.KindToolResult:
					results++
				}
			}
			pkCheck(t, "runs/tool calls/results/outputs/usage rows", []int64{int64(len(sessions)), starts, ends, ends, snapUsage},
				[]int64{int64(len(m.Runs)), calls, results, int64(len(m.ToolOutputs)), int64(len(m.Usage))})
			for _, r := range m.Runs {
				if r.RunID != "agent:main:main" && r.ParentRunID != "agent:main:main" {
					t.Errorf("run %s: parent %q, want the main session (it called sessions_spawn)", r.RunID, r.ParentRunID)
				}
			}
		})
	}
}
