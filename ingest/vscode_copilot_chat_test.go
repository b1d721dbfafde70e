package ingest_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/schema"
)

const vsFormat = "vscode-copilot-chat"

// TestVSCodeCopilotChatFixtures imports the sessions of
// testdata/agents/vscode-copilot-chat (a real JSON session, four JSONL
// mutation logs) and checks them against the hand counts of its
// counts.json: a user event per request; a model call per tool-call
// round, or, where the log has none (model_calls null), one per request;
// tool calls and their results linked by id; no usage logged.
func TestVSCodeCopilotChatFixtures(t *testing.T) {
	tests := []struct {
		file, id, model string
		lastText        string // the text of the run's last assistant event
	}{
		{"splitrail__copilot.json", "f56f201a-672e-4cc5-ada9-4736258cc586", "", ""},
		{"agentsview__simple_mutations.jsonl", "jsonl-001", "copilot/gpt-4o", "Hi from JSONL!"},
		{"agentsview__tool_calls.jsonl", "jsonl-tools", "copilot/gpt-4o", "Done."},
		{"agentsview__multi_push.jsonl", "jsonl-multi", "copilot/gpt-4o", "Answer 2"},
		// the set mutation replaces the response's first item
		{"agentsview__set_mutation.jsonl", "jsonl-set", "copilot/gpt-4o", "Complete answer"},
	}
	counts := agentCounts(t, "vscode-copilot-chat")
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			c := counts["chatSessions/"+tc.file]
			hand := c.Runs[0]
			path := filepath.Join("testdata", "agents", "vscode-copilot-chat", "chatSessions", tc.file)
			m := pkParse(t, vsFormat, path, path)
			requests := cnt(c.Requests)
			if hand.Requests != nil {
				requests = *hand.Requests
			}
			turns := requests // one model call per request (step 4)
			if hand.ModelCalls != nil {
				turns = *hand.ModelCalls
			}
			model := firstNonEmpty(hand.Model, tc.model)
			want := []pkRun{{ID: tc.id, Harness: vsFormat, Model: model, End: schema.EndFinished, Source: schema.SourceInferred, Detail: inferredFinished,
				Turns: turns, Estimated: true}}
			pkCheck(t, "runs", want, pkRuns(m))
			users, last := int64(0), ""
			for _, e := range m.Events {
				switch e.Kind {
				case schema.KindUser:
					users++
				case schema.KindAssistant:
					last = e.Text
				}
			}
			if users != requests {
				t.Errorf("%d user events, want %d (requests)", users, requests)
			}
			if tc.lastText != "" && last != tc.lastText {
				t.Errorf("last assistant text %q, want %q", last, tc.lastText)
			}
			calls, results, linked := eventCounts(m)
			if calls != cnt(hand.ToolCalls) || results != cnt(hand.ToolResults) || linked != cnt(hand.ToolResultsLinked) {
				t.Errorf("%d tool calls, %d results, %d linked; want %d, %d, %d", calls, results, linked, cnt(hand.ToolCalls), cnt(hand.ToolResults), cnt(hand.ToolResultsLinked))
			}
			pkCheck(t, "rejects", []pkReject{}, pkRejects(m))
		})
	}
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// vsLogRules is a hand-written mutation log: a mutation before the
// snapshot, pushes (one cutting the requests at index 1 first), a push
// into a response, a set of a result, a delete, a cancellation, and five
// bad lines.
const vsLogRules = `{"kind":1,"k":["customTitle"],"v":"early"}
{"kind":0,"v":{"version":3,"sessionId":"s1","customTitle":"t","requests":[]}}
{"kind":2,"k":["requests"],"v":[{"requestId":"r1","timestamp":1770650031889,"message":{"text":"Q1"},"response":[{"value":"A1"}],"modelId":"m"}]}
{"kind":2,"k":["requests"],"v":[{"requestId":"r2","timestamp":1770650041889,"message":{"text":"Q2"},"response":[{"value":"A2"}],"modelId":"m"}]}
{"kind":2,"k":["requests"],"i":1,"v":[{"requestId":"r2b","timestamp":1770650051889,"message":{"text":"Q2b"},"response":[{"value":"A2b"}],"modelId":"m"}]}
{"kind":2,"k":["requests",0,"response"],"v":[{"kind":"toolInvocationSerialized","toolId":"copilot_readFile","toolCallId":"tc1"},{"value":" more"}]}
{"kind":1,"k":["requests",1,"result"],"v":{"timings":{"totalElapsed":2000},"errorDetails":{"message":"rate limited"}}}
{"kind":3,"k":["requests",0,"modelId"]}
{"kind":1,"k":["requests",5,"x"],"v":1}
{"kind":2,"k":["customTitle"],"v":["x"]}
{"kind":9,"k":["x"]}
{"kind":1,"k":[],"v":1}
{"kind":1,"k":["requests",1,"isCanceled"],"v":true}
{"k":["x"],"v":1}
`

// TestVSCodeCopilotLogRules checks the replay of a mutation log
// (vscode_copilot_chat_log.go) and the reading of the session it leaves.
func TestVSCodeCopilotLogRules(t *testing.T) {
	m, err := ingest.Parse(context.Background(), vsFormat, "s1.jsonl", []byte(vsLogRules), nil)
	if err != nil {
		t.Fatal(err)
	}
	end := time.UnixMilli(1770650051889 + 2000).UTC()
	if r := m.Runs; len(r) != 1 || r[0].EndedAt == nil || !r[0].EndedAt.Equal(end) {
		t.Errorf("runs %+v, want one ending at %v (the last request's timestamp + totalElapsed)", r, end)
	}
	pkCheck(t, "runs", []pkRun{{ID: "s1", Harness: vsFormat, Model: "m", End: schema.EndInterrupted, Source: schema.SourceExplicit, Detail: "isCanceled",
		Turns: 2, Estimated: true}}, pkRuns(m))
	pkCheck(t, "events", []ev{
		{"s1", 0, 0, schema.KindUser, "", "", "", false},
		{"s1", 1, 0, schema.KindAssistant, "", "", "", false},
		{"s1", 2, 0, schema.KindToolCall, "copilot_readFile", "tc1", "", false},
		{"s1", 3, 0, schema.KindAssistant, "", "", "", false},
		{"s1", 4, 1, schema.KindUser, "", "", "", false},
		{"s1", 5, 1, schema.KindAssistant, "", "", "", false},
		{"s1", 6, 2, schema.KindError, "", "", "", true},
	}, evs(m))
	var texts []string
	var lines []int64
	for _, e := range m.Events {
		texts = append(texts, e.Text)
		lines = append(lines, e.Line)
	}
	pkCheck(t, "texts", []string{"Q1", "A1", "copilot_readFile {}", " more", "Q2b", "A2b", "rate limited"}, texts)
	pkCheck(t, "lines", []int64{3, 3, 3, 3, 5, 5, 5}, lines)
	pkCheck(t, "rejects", []pkReject{
		{1, "mutation before the initial snapshot"},
		{9, "k: nothing at requests.5"},
		{10, "k: customTitle is not an array"},
		{11, "unknown kind 9"},
		{12, "k is not a non-empty path"},
		{14, "record without a kind"},
	}, pkRejects(m))
}

// TestVSCodeCopilotChatRejects: in the JSON form a request that is not an
// object is rejected at its line and the rest imports.
func TestVSCodeCopilotChatRejects(t *testing.T) {
	doc := "{\"version\":3,\"requesterUsername\":\"u\",\"sessionId\":\"s\",\n\"requests\":[\n1,\n{\"message\":{\"text\":\"hi\"},\"response\":[{\"value\":\"yo\"}],\"timestamp\":1770650031889}\n]}"
	m, err := ingest.Parse(context.Background(), vsFormat, "s.json", []byte(doc), nil)
	if err != nil {
		t.Fatal(err)
	}
	pkCheck(t, "rejects", []pkReject{{3, "requests[0] is not an object"}}, pkRejects(m))
	if len(m.Events) != 2 {
		t.Errorf("%d events, want 2", len(m.Events))
	}
}

// TestVSCodeCopilotChatDetect is the detection table.
func TestVSCodeCopilotChatDetect(t *testing.T) {
	tests := []struct {
		name, head string
		want       bool
	}{
		// a head cut inside the requests
		{"s.json", `{"version":3,"requesterUsername":"u","responderUsername":"GitHub Copilot","initialLocation":"panel","requests":[{"requestId":"r`, true},
		{"s.json", `{"version":3,"requests":[]}`, false},
		{"s.json", `{"requesterUsername":"u","requests":[]}`, false},
		{"s.json", `{"sessionId":"s","responderUsername":"GitHub Copilot","requests":{}}`, false},
		{"s.jsonl", `{"kind":0,"v":{"version":3,"sessionId":"s","requests":[]}}`, true},
		// a snapshot line cut by the head
		{"s.jsonl", `{"kind":0,"v":{"version":3,"sessionId":"s","requests":[{"requestId":"r1","message":{"te`, true},
		{"s.jsonl", `{"kind":0,"v":{"requests":[]}}`, false},
		{"s.jsonl", `{"kind":1,"v":{"version":3,"sessionId":"s"}}`, false},
		{"s.jsonl", `{"kind":0.5,"v":{"version":3,"sessionId":"s"}}`, false},
		// the lines after a snapshot longer than the head
		{"s.jsonl", "{\"kind\":1,\"k\":[\"customTitle\"],\"v\":\"t\"}\n{\"kind\":2,\"k\":[\"requests\"],\"v\":[]}", true},
		{"s.json", "{\"kind\":1,\"k\":[\"customTitle\"],\"v\":\"t\"}\n{\"kind\":2,\"k\":[\"requests\"],\"v\":[]}", false},
		{"s.jsonl", "{\"kind\":1,\"k\":[\"a\"],\"v\":1,\"type\":\"x\"}", false},
		{"s.jsonl", "{\"kind\":1,\"k\":[\"a\"],\"v\":1}\n{\"type\":\"user\",\"message\":\"x\"}", false},
	}
	im, err := ingest.Lookup(vsFormat)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		if got := im.Detect(tc.name, []byte(tc.head)); got != tc.want {
			t.Errorf("Detect(%s, %s) = %v, want %v", tc.name, tc.head, got, tc.want)
		}
	}
}

// TestVSCodeCopilotChatItems checks step 4 on a request without tool-call
// rounds: markdown values (also markdownContent items) are assistant text
// up to a tool invocation or a thinking item; items of other kinds add
// nothing.
func TestVSCodeCopilotChatItems(t *testing.T) {
	doc := `{"version":3,"responderUsername":"GitHub Copilot","sessionId":"s","requests":[{"message":{"text":"Q"},"timestamp":1770650031889,"modelId":"m","response":[
{"kind":"thinking","value":"hmm"},{"value":"A"},{"kind":"markdownContent","content":{"value":"B"}},{"kind":"inlineReference","inlineReference":{}},
{"kind":"toolInvocationSerialized","toolId":"copilot_findFiles","toolCallId":"tc9"},{"value":"C"}]}]}`
	m, err := ingest.Parse(context.Background(), vsFormat, "s.json", []byte(doc), nil)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []schema.EventKind
	var texts []string
	for _, e := range m.Events {
		kinds, texts = append(kinds, e.Kind), append(texts, e.Text)
	}
	pkCheck(t, "kinds", []schema.EventKind{schema.KindUser, schema.KindReasoning, schema.KindAssistant, schema.KindToolCall, schema.KindAssistant}, kinds)
	pkCheck(t, "texts", []string{"Q", "hmm", "AB", "copilot_findFiles {}", "C"}, texts)
	pkCheck(t, "runs", []pkRun{{ID: "s", Harness: vsFormat, Model: "m", End: schema.EndFinished, Source: schema.SourceInferred, Detail: inferredFinished,
		Turns: 1, Estimated: true}}, pkRuns(m))
}
