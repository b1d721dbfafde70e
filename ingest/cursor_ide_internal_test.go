package ingest

import (
	"strings"
	"testing"

	"github.com/trajmine/trajmine/schema"
)

// TestCursorBubbleDecode: the decoder's table of bubbles, read or refused
// with the reason a reject names.
func TestCursorBubbleDecode(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		err       string   // prefix of the error; "" when it decodes
		kinds     []string // the events' kinds
		usage     [2]int64 // input, output; 0/0: none
		model     string
	}{
		{name: "user", raw: `{"type":1,"text":"hi"}`, kinds: []string{"user"}},
		{name: "user without text", raw: `{"type":1,"text":""}`},
		{name: "model text with usage", raw: `{"type":2,"text":"ok","tokenCount":{"inputTokens":3,"outputTokens":4},"modelInfo":{"modelName":"m"}}`,
			kinds: []string{"assistant"}, usage: [2]int64{3, 4}, model: "m"},
		{name: "0/0 is no usage", raw: `{"type":2,"text":"ok","tokenCount":{"inputTokens":0,"outputTokens":0},"modelName":"m2"}`,
			kinds: []string{"assistant"}, model: "m2"},
		{name: "thinking string holding JSON", raw: `{"type":2,"thinking":"{\"reasoning\":\"r\"}"}`, kinds: []string{"reasoning"}},
		{name: "thinking plain string", raw: `{"type":2,"thinking":"plain"}`, kinds: []string{"reasoning"}},
		{name: "tool with result", raw: `{"type":2,"toolFormerData":{"toolCallId":"c","name":"n","rawArgs":"{}","result":"r"}}`,
			kinds: []string{"tool_call", "tool_result"}},
		{name: "tool errored without result", raw: `{"type":2,"toolFormerData":{"name":"n","status":"error"}}`,
			kinds: []string{"tool_call", "tool_result"}},
		{name: "tool pending", raw: `{"type":2,"toolFormerData":{"toolCallId":"c","name":"n","status":"loading"}}`, kinds: []string{"tool_call"}},
		{name: "not JSON", raw: `{"type":2,`, err: "not a bubble: "},
		{name: "no type", raw: `{"text":"x"}`, err: "no type (1 user, 2 model)"},
		{name: "type 0", raw: `{"type":0}`, err: "type 0 is neither 1 (user) nor 2 (model)"},
		{name: "text a number", raw: `{"type":2,"text":5}`, err: "not a bubble: "},
		{name: "an array", raw: `[1]`, err: "not a bubble: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bb, err := decodeCursorBubble([]byte(tc.raw))
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			st := cursorBubbleStep(bb, "b")
			var kinds []string
			for _, e := range st.events {
				kinds = append(kinds, string(e.Kind))
			}
			if strings.Join(kinds, ",") != strings.Join(tc.kinds, ",") {
				t.Errorf("events %v, want %v", kinds, tc.kinds)
			}
			var got [2]int64
			if st.usage != nil {
				got = [2]int64{st.usage.InputTokens, st.usage.OutputTokens}
			}
			if got != tc.usage || st.model != tc.model {
				t.Errorf("usage %v model %q, want %v %q", got, st.model, tc.usage, tc.model)
			}
		})
	}
}

// FuzzCursorIDEBubble decodes a bubble value and turns it into events
// (seeds: the fixtures' bubbles, testdata/fuzz/FuzzCursorIDEBubble). The
// invariants: no panic; a bubble read has type 1 or 2; a user bubble gives
// at most its user event; a tool result follows its call, with its id;
// usage only from a non-zero tokenCount.
func FuzzCursorIDEBubble(f *testing.F) {
	f.Fuzz(func(t *testing.T, raw []byte) {
		bb, err := decodeCursorBubble(raw)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an error without a reason")
			}
			return
		}
		if *bb.Type != 1 && *bb.Type != 2 {
			t.Fatalf("type %d read", *bb.Type)
		}
		st := cursorBubbleStep(bb, "b")
		if *bb.Type == 1 && (len(st.events) > 1 || len(st.events) == 1 && st.events[0].Kind != schema.KindUser || st.usage != nil) {
			t.Fatalf("a user bubble gave %+v", st)
		}
		for i, e := range st.events {
			if e.Kind == schema.KindToolResult && (i == 0 || st.events[i-1].Kind != schema.KindToolCall || st.events[i-1].CallID != e.CallID || e.CallID == "") {
				t.Fatalf("a result without its call: %+v", st.events)
			}
		}
		if st.usage != nil && (bb.TokenCount == nil || bb.TokenCount.InputTokens == 0 && bb.TokenCount.OutputTokens == 0) {
			t.Fatalf("usage %+v from tokenCount %+v", st.usage, bb.TokenCount)
		}
	})
}
