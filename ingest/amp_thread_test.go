package ingest_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/schema"
)

const ampFormat = "amp-thread"

// TestAmpThreadFixtures imports the Amp threads of testdata/agents/amp and
// checks them against the hand counts of its counts.json: a model call is
// an assistant message (or, with a usageLedger, an event of it); input is
// input + cache_read + cache_write (inputTokens leaves the cache out:
// T-thread-a's first message logs totalInputTokens 12,368 = 10 + 986 +
// 11,372).
func TestAmpThreadFixtures(t *testing.T) {
	tests := []struct {
		file, id, model string
		end             schema.EndReason
		detail          string
	}{
		// the tool result is the last message
		{"T-tooluse.json", "T-tooluse", "", schema.EndUnknown, "log ends before the model's reply"},
		// the assistant messages hold usage only: the user's is the last event
		{"T-thread-a.json", "T-thread-a", "claude-haiku-4-5-20251001", schema.EndUnknown, "log ends before the model's reply"},
		// the ledger event's model; its one message has no content
		{"T-ledger.json", "thread-a", "gpt-5", schema.EndUnknown, "no events"},
	}
	counts := agentCounts(t, "amp")
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			hand := counts[tc.file].Runs[0]
			path := filepath.Join("testdata", "agents", "amp", tc.file)
			m := pkParse(t, ampFormat, path, path)
			want := pkRun{ID: tc.id, Harness: "amp", Model: tc.model, End: tc.end, Source: schema.SourceInferred, Detail: tc.detail, Turns: cnt(hand.ModelCalls), Estimated: true}
			if u := hand.Usage; u != nil {
				want.In, want.Out, want.CR, want.CW = cnt(u.Input)+cnt(u.CacheRead)+cnt(u.CacheWrite), cnt(u.Output), cnt(u.CacheRead), cnt(u.CacheWrite)
				want.UsageCalls, want.Estimated = cnt(hand.ModelCalls), false
			}
			pkCheck(t, "runs", []pkRun{want}, pkRuns(m))
			calls, results, linked := eventCounts(m)
			if calls != cnt(hand.ToolCalls) || results != cnt(hand.ToolResults) || linked != cnt(hand.ToolResultsLinked) {
				t.Errorf("%d tool calls, %d results, %d linked; want %d, %d, %d", calls, results, linked, cnt(hand.ToolCalls), cnt(hand.ToolResults), cnt(hand.ToolResultsLinked))
			}
			pkCheck(t, "rejects", []pkReject{}, pkRejects(m))
		})
	}
}

// ampRulesThread has Amp's own tool_result shape (toolUseID and run: an
// error, a result object, a cancellation) and a usageLedger whose first
// event names its message (messageId 2, with cache counts), the second
// none (it takes the next message without an event: messageId 1, whose
// cache counts it does not take), and the third finds no message left.
const ampRulesThread = `{"v":1,"id":"T-rules","created":1704067200000,
"messages":[
{"role":"user","content":"Run it"},
{"role":"assistant","messageId":1,"content":[{"type":"tool_use","id":"tu1","name":"Bash","input":{"cmd":"make"}},{"type":"tool_use","id":"tu2","name":"Read","input":{"path":"a.go"}},{"type":"tool_use","id":"tu3","name":"Bash","input":{"cmd":"sleep 9"}}],"usage":{"model":"m","inputTokens":5,"outputTokens":6,"cacheCreationInputTokens":7,"cacheReadInputTokens":8}},
{"role":"user","content":[{"type":"tool_result","toolUseID":"tu1","run":{"status":"error","error":{"message":"make: *** failed"}}},{"type":"tool_result","toolUseID":"tu2","run":{"status":"done","result":{"content":"x"}}},{"type":"tool_result","toolUseID":"tu3","run":{"status":"cancelled"}}]},
{"role":"assistant","messageId":2,"content":"Done.","usage":{"model":"m","inputTokens":1,"outputTokens":2,"cacheCreationInputTokens":4,"cacheReadInputTokens":3}}
],
"usageLedger":{"events":[
{"timestamp":"2026-01-02T00:00:01Z","model":"m2","tokens":{"input":10,"output":20},"toMessageId":2},
{"timestamp":"2026-01-02T00:00:00Z","model":"m1","tokens":{"input":30,"output":40}},
{"timestamp":"2026-01-02T00:00:02Z","model":"m3","tokens":{"input":50,"output":60}}
]}}`

// TestAmpThreadRules checks the rules on hand-written threads.
func TestAmpThreadRules(t *testing.T) {
	const id = "T-rules"
	tests := []struct {
		name, doc string
		runs      []pkRun
		events    []ev
		texts     []string
		usage     []pkUse
	}{{
		name: "run results and ledger", doc: ampRulesThread,
		runs: []pkRun{{ID: id, Harness: "amp", Model: "m1", End: schema.EndFinished, Source: schema.SourceInferred, Detail: inferredFinished,
			Turns: 3, In: 30 + 17 + 50, Out: 40 + 20 + 60, CR: 3, CW: 4, UsageCalls: 3}},
		events: []ev{
			{id, 0, 0, schema.KindUser, "", "", "", false},
			{id, 1, 0, schema.KindToolCall, "Bash", "tu1", "make", false},
			{id, 2, 0, schema.KindToolCall, "Read", "tu2", "a.go", false},
			{id, 3, 0, schema.KindToolCall, "Bash", "tu3", "sleep 9", false},
			{id, 4, 1, schema.KindToolResult, "Bash", "tu1", "make", true},
			{id, 5, 1, schema.KindToolResult, "Read", "tu2", "a.go", false},
			{id, 6, 1, schema.KindToolResult, "Bash", "tu3", "sleep 9", false},
			{id, 7, 1, schema.KindAssistant, "", "", "", false},
		},
		texts: []string{"Run it", "", "", "", "make: *** failed", `{"content":"x"}`, "[cancelled]", "Done."},
		usage: []pkUse{
			{Run: id, Turn: 0, In: 30, Out: 40, Model: "m1"},
			{Run: id, Turn: 1, In: 10 + 3 + 4, Out: 20, CR: 3, CW: 4, Model: "m2"},
			{Run: id, Turn: 2, In: 50, Out: 60, Model: "m3"},
		},
	}, {
		// totalInputTokens is the call's input when logged
		name: "total input", doc: `{"id":"T-rules","messages":[{"role":"assistant","content":"hi","usage":{"model":"m","inputTokens":1,"outputTokens":1,"cacheReadInputTokens":2,"cacheCreationInputTokens":3,"totalInputTokens":10}}]}`,
		runs: []pkRun{{ID: id, Harness: "amp", Model: "m", End: schema.EndFinished, Source: schema.SourceInferred, Detail: inferredFinished,
			Turns: 1, In: 10, Out: 1, CR: 2, CW: 3, UsageCalls: 1}},
		events: []ev{{id, 0, 0, schema.KindAssistant, "", "", "", false}},
		texts:  []string{"hi"},
		usage:  []pkUse{{Run: id, Turn: 0, In: 10, Out: 1, CR: 2, CW: 3, Model: "m"}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ingest.Parse(context.Background(), ampFormat, "T-rules.json", []byte(tc.doc), nil)
			if err != nil {
				t.Fatal(err)
			}
			pkCheck(t, "runs", tc.runs, pkRuns(m))
			pkCheck(t, "events", tc.events, evs(m))
			var texts []string
			for _, e := range m.Events {
				if e.Kind == schema.KindToolCall {
					texts = append(texts, "")
				} else {
					texts = append(texts, e.Text)
				}
			}
			pkCheck(t, "texts", tc.texts, texts)
			pkCheck(t, "usage", tc.usage, pkUses(m))
			pkCheck(t, "rejects", []pkReject{}, pkRejects(m))
		})
	}
}

// TestAmpThreadRejects: a bad message is rejected at its line, the rest
// imports.
func TestAmpThreadRejects(t *testing.T) {
	doc := "{\"id\":\"T-x\",\"messages\":[\n1,\n{\"role\":\"system\",\"content\":\"x\"},\n{\"role\":\"user\",\"content\":5},\n{\"role\":\"user\",\"content\":\"hi\"}\n]}"
	m, err := ingest.Parse(context.Background(), ampFormat, "T-x.json", []byte(doc), nil)
	if err != nil {
		t.Fatal(err)
	}
	pkCheck(t, "rejects", []pkReject{{2, "messages[0] is not an object"}, {3, `messages[1]: unknown role "system"`},
		{4, "messages[2]: content is neither text nor a list of blocks"}}, pkRejects(m))
	if len(m.Events) != 1 {
		t.Errorf("%d events, want 1", len(m.Events))
	}
}

// TestEmptyRunWarns: a file whose run holds nothing of the model (no
// output event, no usage row) is stored with a warning (issue 30.10: Amp
// threads read as OpenAI message lists gave such runs and said nothing); a
// run with either is not.
func TestEmptyRunWarns(t *testing.T) {
	thread, ledger := "testdata/agents/amp/T-thread-a.json", "testdata/agents/amp/T-ledger.json"
	tests := []struct {
		format, name, doc string
		warn              bool
	}{
		{ampFormat, "T-e.json", `{"id":"T-e","messages":[]}`, true},
		{ampFormat, "T-e.json", `{"id":"T-e","messages":[{"role":"user","content":"hi"}]}`, true},
		{ampFormat, "T-e.json", `{"id":"T-e","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"}]}`, false},
		// an assistant message with usage and no content
		{ampFormat, "T-e.json", `{"id":"T-e","messages":[{"role":"assistant","usage":{"inputTokens":1}}]}`, false},
		// the Amp threads forced as OpenAI message lists (trajmine ingest
		// --format openai-messages): what detection gave before
		{"openai-messages", thread, "", true},
		{"openai-messages", ledger, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.format+" "+tc.doc, func(t *testing.T) {
			data := []byte(tc.doc)
			if tc.doc == "" {
				data = readFile(t, tc.name)
			}
			var warnings []string
			m, err := ingest.Parse(context.Background(), tc.format, tc.name, data, &ingest.Options{Warn: func(err error) { warnings = append(warnings, err.Error()) }})
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Runs) != 1 {
				t.Fatalf("%d runs, want 1", len(m.Runs))
			}
			want := []string{}
			if tc.warn {
				want = []string{fmt.Sprintf("%s: run %s: empty run (no model output, no usage read as %s)", tc.name, m.Runs[0].RunID, tc.format)}
			}
			if warnings == nil {
				warnings = []string{}
			}
			pkCheck(t, "warnings", want, warnings)
		})
	}
}

// TestAmpThreadDetect is the detection table.
func TestAmpThreadDetect(t *testing.T) {
	tests := []struct {
		name, head string
		want       bool
	}{
		{"T-7f395a45-7fae-4983-8de0-d02e61d30183.json", `{"v":1,"id":"T-7f","messages":[{"role":"user","content":[]}]}`, true},
		{"T-abc.json", `{"id":"T-abc","messages":[{"role":"user","content":"hi"}],"usageLedger":{"events":[]}}`, true},
		{"thread.json", `{"id":"thread-a","usageLedger":{"events":[]},"messages":[`, true},
		{"thread.json", `{"id":"thread-a","messages":[{"role":"user","content":"hi"}]}`, false},
		{"T-abc.json", `{"id":"T-abc","title":"no messages"}`, false},
		{"T-abc.json", `{"id":"T-abc","messages":"x"}`, false},
		{"T-abc.json", `[{"role":"user","content":"hi"}]`, false},
		{"T-abc.jsonl", `{"id":"T-abc","messages":[]}`, false},
	}
	im, err := ingest.Lookup(ampFormat)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		if got := im.Detect(tc.name, []byte(tc.head)); got != tc.want {
			t.Errorf("Detect(%s, %s) = %v, want %v", tc.name, tc.head, got, tc.want)
		}
	}
}

// readFile reads a fixture.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestAgentFixturesDetected checks detection over the fixture folders of
// the importers of issue 30 points 9 and 10: every log is detected as its
// format and recognised by no other importer (generic ones included: the
// Amp threads were read as OpenAI or Anthropic message lists, a Kilo
// history as an OpenAI one); the metadata files of a task folder are
// claimed by the task-folder importer too (siblings it reads nothing from).
func TestAgentFixturesDetected(t *testing.T) {
	formats := map[string]string{"roo-code": ctFormat, "kilo-code": ctFormat, "amp": ampFormat, "vscode-copilot-chat": vsFormat}
	for folder, format := range formats {
		err := filepath.WalkDir(filepath.Join("testdata", "agents", folder), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Name() == "SOURCE.md" || d.Name() == "counts.json" {
				return err
			}
			want := format
			data := readFile(t, p)
			head := data[:min(len(data), ingest.HeadSize)]
			got := ""
			im, derr := ingest.DetectFormat(p, head)
			if im != nil {
				got = im.Name()
			}
			if got != want {
				t.Errorf("%s: detected %q (%v), want %q", p, got, derr, want)
			}
			var foreign []string
			for _, c := range ingest.Candidates(p, head) {
				if c.Name() != want {
					foreign = append(foreign, c.Name())
				}
			}
			if len(foreign) > 0 {
				t.Errorf("%s: also recognised by %s", p, strings.Join(foreign, ", "))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
