package ingest_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/schema"
)

const gooseJSONLFormat = "goose-jsonl"

// TestGooseJSONLFixtures imports testdata/agents/goose-jsonl and compares
// each run with the folder's hand counts (counts.json), and the rejects
// with the one SOURCE.md names.
func TestGooseJSONLFixtures(t *testing.T) {
	counts := agentCounts(t, "goose-jsonl")
	tests := []struct {
		file    string
		run     string
		start   time.Time
		rejects []pkReject
	}{
		{"goose-session-analysis__sample_session.jsonl", "goose-session-analysis__sample_session", time.Unix(1650000000, 0).UTC(),
			[]pkReject{{1, "first line is neither Goose's session metadata (description, message_count) nor a message: not read"}}},
		{"goose-session-analysis__notion_excerpt.jsonl", "goose-session-analysis__notion_excerpt", time.Unix(1745363226, 0).UTC(), []pkReject{}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", "agents", "goose-jsonl", tc.file)
			if got := detected(t, path); got != gooseJSONLFormat {
				t.Errorf("detected as %q, want %s", got, gooseJSONLFormat)
			}
			m := pkParse(t, gooseJSONLFormat, path, path)
			hand := counts[tc.file].Runs
			if len(m.Runs) != len(hand) {
				t.Fatalf("%d runs, want %d", len(m.Runs), len(hand))
			}
			r, h := m.Runs[0], hand[0]
			calls, results, linked := eventCounts(m)
			got := []int64{r.NTurns, calls, results, linked, r.UsageCalls}
			want := []int64{cnt(h.ModelCalls), cnt(h.ToolCalls), cnt(h.ToolResults), cnt(h.ToolResultsLinked), 0}
			pkCheck(t, "calls, tool calls, results, linked, usage calls", want, got)
			if r.RunID != tc.run || r.Harness != "goose" {
				t.Errorf("run %q harness %q, want %q goose", r.RunID, r.Harness, tc.run)
			}
			if r.StartedAt == nil || !r.StartedAt.Equal(tc.start) {
				t.Errorf("started %v, want %v", r.StartedAt, tc.start)
			}
			pkCheck(t, "rejects", tc.rejects, pkRejects(m))
		})
	}
}

// TestGooseJSONLRules checks, on HAND-WRITTEN minimal session files (not
// Goose's output: no licensed file with its metadata line was found), the
// rules the fixtures do not exercise: the metadata's accumulated totals
// and last usage, the rejects, and the block types.
func TestGooseJSONLRules(t *testing.T) {
	const (
		meta = `{"working_dir":"/w","description":"d","schedule_id":null,"message_count":4,"total_tokens":130,"input_tokens":100,"output_tokens":30,"accumulated_total_tokens":400,"accumulated_input_tokens":350,"accumulated_output_tokens":50}`
		user = `{"id":"m1","role":"user","created":1700000000,"content":[{"type":"text","text":"hi"}]}`
		asst = `{"id":"m2","role":"assistant","created":1700000005,"content":[{"type":"thinking","thinking":"t","signature":""},{"type":"toolRequest","id":"c1","toolCall":{"status":"success","value":{"name":"developer__shell","arguments":{"command":"ls"}}}}]}`
		resp = `{"id":"m3","role":"user","created":1700000006,"content":[{"type":"toolResponse","id":"c1","toolResult":{"status":"error","error":"denied"}}]}`
		done = `{"id":"m4","role":"assistant","created":1700000009,"content":[{"type":"text","text":"done"}]}`
	)
	type usage struct{ Calls, In, Out, LastIn, LastOut int64 }
	tests := []struct {
		name    string
		log     string
		usage   usage
		kinds   []schema.EventKind
		texts   []string // each event's text, " (failed)" after a failed one's (nil: not compared)
		rejects []pkReject
	}{
		{
			// the metadata's accumulated tokens are the run's totals, its
			// last usage the last call's (100/30 of 350/50)
			name: "metadata totals and last usage", log: meta + "\n" + user + "\n" + asst + "\n" + resp + "\n" + done + "\n",
			usage: usage{Calls: 2, In: 350, Out: 50, LastIn: 100, LastOut: 30},
			kinds: []schema.EventKind{schema.KindUser, schema.KindReasoning, schema.KindToolCall, schema.KindToolResult, schema.KindAssistant},
		},
		{
			// metadata of Goose before April 2025: last usage only, no
			// accumulated tokens — the run's totals are the last call's
			name: "last usage only", log: `{"working_dir":"/w","description":"d","message_count":2,"total_tokens":12,"input_tokens":10,"output_tokens":2}` + "\n" + user + "\n" + done + "\n",
			usage: usage{Calls: 1, In: 10, Out: 2, LastIn: 10, LastOut: 2},
			kinds: []schema.EventKind{schema.KindUser, schema.KindAssistant},
		},
		{
			// no metadata: the first line is a message (Goose's reader
			// takes it so); usage estimated
			name: "no metadata", log: user + "\n" + done + "\n",
			usage: usage{Calls: 1},
			kinds: []schema.EventKind{schema.KindUser, schema.KindAssistant},
		},
		{
			// each bad line is rejected at its line and the rest imports;
			// an unknown block type is named once per file
			name: "rejects",
			log: user + "\n" + meta + "\n" + `{"role":"system","created":1,"content":[]}` + "\n" +
				`{"role":"user","created":1,"content":"text"}` + "\n" + `{"created":1,"content":[]}` + "\n" +
				`{"role":"assistant","created":1700000007,"content":[{"type":"futureBlock","x":1},{"type":"text","text":"a"},{"type":"futureBlock","x":2},{"type":"toolConfirmationRequest","id":"c"}]}` + "\n",
			usage: usage{Calls: 1},
			kinds: []schema.EventKind{schema.KindUser, schema.KindAssistant},
			rejects: []pkReject{
				{2, "session metadata (description, message_count) after the first line: not read"},
				{3, `unknown role "system"`},
				{4, `content is not an array of blocks: an array was expected, got "text"`},
				{5, "message without a role"},
				{6, `content block type "futureBlock" unknown: not imported (further blocks of this type in this file are skipped without a reject)`},
			},
		},
		{
			// an image is "[image]" text, a frontendToolRequest a call, a
			// redactedThinking block (no text) no event, a toolResponse
			// with status error a failed result
			name: "block types",
			log: user + "\n" + `{"role":"assistant","created":1700000001,"content":[{"type":"image","data":"iVBO","mimeType":"image/png"},{"type":"frontendToolRequest","id":"f1","toolCall":{"status":"success","value":{"name":"ui__click","arguments":{}}}},{"type":"redactedThinking","data":"x"}]}` + "\n" +
				`{"role":"user","created":1700000002,"content":[{"type":"toolResponse","id":"f1","toolResult":{"status":"error","error":"denied"}}]}` + "\n",
			usage: usage{Calls: 1},
			kinds: []schema.EventKind{schema.KindUser, schema.KindAssistant, schema.KindToolCall, schema.KindToolResult},
			texts: []string{"hi", "[image]", "ui__click {}", "denied (failed)"}, // a call's text: its name and arguments
		},
		{
			// a tool request Goose could not parse (status error, no name)
			// is an error event, not a call, as goose-sessions-db reads it
			// (an error event begins no model call)
			name:  "failed tool request",
			log:   user + "\n" + `{"role":"assistant","created":1700000001,"content":[{"type":"toolRequest","id":"c9","toolCall":{"status":"error","error":"bad json"}}]}` + "\n",
			usage: usage{Calls: 0},
			kinds: []schema.EventKind{schema.KindUser, schema.KindError},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ingest.Parse(context.Background(), gooseJSONLFormat, "20231114_221320.jsonl", []byte(tc.log), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Runs) != 1 {
				t.Fatalf("%d runs, want 1", len(m.Runs))
			}
			r := m.Runs[0]
			got := usage{Calls: r.NTurns, In: r.InputTokens, Out: r.OutputTokens}
			for _, u := range m.Usage {
				if u.Turn == r.NTurns-1 {
					got.LastIn, got.LastOut = u.InputTokens, u.OutputTokens
				}
			}
			pkCheck(t, "usage", tc.usage, got)
			var kinds []schema.EventKind
			for _, e := range m.Events {
				kinds = append(kinds, e.Kind)
			}
			pkCheck(t, "events", tc.kinds, kinds)
			if tc.texts != nil {
				var texts []string
				for _, e := range m.Events {
					if e.IsError {
						e.Text += " (failed)"
					}
					texts = append(texts, e.Text)
				}
				pkCheck(t, "texts", tc.texts, texts)
			}
			if tc.rejects == nil {
				tc.rejects = []pkReject{}
			}
			pkCheck(t, "rejects", tc.rejects, pkRejects(m))
			if r.RunID != "20231114_221320" {
				t.Errorf("run id %q, want the file name", r.RunID)
			}
		})
	}
}

// TestGooseJSONLDetect checks each rule of goose-jsonl's Detect on
// hand-written heads (HAND-WRITTEN, one rule each).
func TestGooseJSONLDetect(t *testing.T) {
	const msg = `{"role":"user","created":1700000000,"content":[{"type":"text","text":"hi"}]}`
	tests := []struct {
		name, head string
		want       bool
	}{
		{"metadata then a message", `{"working_dir":"/w","description":"d","message_count":1}` + "\n" + msg + "\n", true},
		{"metadata alone (an empty session)", `{"working_dir":"/w","description":"","message_count":0}` + "\n", true},
		{"metadata without working_dir alone", `{"description":"","message_count":0}` + "\n", false},
		{"another first line, then messages", `{"tools":[]}` + "\n" + msg + "\n", true},
		{"another line after the first", msg + "\n" + `{"tools":[]}` + "\n", false},
		{"no created", `{"role":"user","content":[{"type":"text","text":"hi"}]}` + "\n", false},
		{"created not a number", `{"role":"user","created":"2024-01-01","content":[{"type":"text","text":"hi"}]}` + "\n", false},
		{"blocks without a type (Goose before 1.0)", `{"role":"user","created":1,"content":[{"text":"hi"}]}` + "\n", false},
		{"content a string", `{"role":"user","created":1,"content":"hi"}` + "\n", false},
		{"a system role", `{"role":"system","created":1,"content":[]}` + "\n", false},
		{"last line cut by the head", msg + "\n" + `{"role":"assistant","created":17000`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got bool
			for _, im := range ingest.Candidates("s.jsonl", []byte(tc.head)) {
				got = got || im.Name() == gooseJSONLFormat
			}
			if got != tc.want {
				t.Errorf("goose-jsonl claims %q: %v, want %v", tc.head, got, tc.want)
			}
		})
	}
}
