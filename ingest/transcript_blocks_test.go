package ingest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCallLinker(t *testing.T) {
	var q callLinker
	type link struct{ call, key string }
	var got []link
	a := q.call("")          // call-1
	b := q.call("x")         // x
	c := q.call("")          // call-3
	r1, k1 := q.result("x")  // names an open call
	r2, k2 := q.result("t9") // unknown id: the oldest open call, keeping t9 as key
	r3, k3 := q.result("")   // no id: the oldest open call
	r4, k4 := q.result("t7") // nothing open: unlinked under its own id
	got = append(got, link{a, ""}, link{b, ""}, link{c, ""}, link{r1, k1}, link{r2, k2}, link{r3, k3}, link{r4, k4})
	want := []link{{"call-1", ""}, {"x", ""}, {"call-3", ""}, {"x", ""}, {"call-1", "t9"}, {"call-3", ""}, {"t7", ""}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(link{})); diff != "" {
		t.Errorf("links (-want +got):\n%s", diff)
	}
	q.call("")
	q.drop()
	if q.hasOpen() {
		t.Error("drop left calls open")
	}
}

func TestTopKeys(t *testing.T) {
	// a head cut inside the last value still names its key
	got := topKeys([]byte(`{"session_id": "s", "platform": {"a": 1}, "messages": [{"role": "us`))
	if diff := cmp.Diff([]string{"session_id", "platform", "messages"}, got); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	if topKeys([]byte(`[1]`)) != nil {
		t.Error("keys of an array")
	}
}

func TestSiblingPath(t *testing.T) {
	tests := []struct{ path, want string }{
		{"/s/019f/chat_history.jsonl", "/s/019f/summary.json"},
		{"/c/agentsview__current__chat_history.jsonl", "/c/agentsview__current__summary.json"},
		{"/c/history.jsonl", ""},
	}
	for _, tc := range tests {
		if got := siblingPath(tc.path, "chat_history.jsonl", "summary.json"); got != tc.want {
			t.Errorf("siblingPath(%s) = %q, want %q", tc.path, got, tc.want)
		}
	}
}

func TestJSONArgs(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a":1}`, `{"a":1}`},
		{`"{\"command\":\"ls\"}"`, `{"command":"ls"}`},
		{`"ls -la"`, `{"input":"ls -la"}`},
		{`""`, `{}`},
		{`null`, `{}`},
		{`[1]`, `{"input":[1]}`},
	}
	for _, tc := range tests {
		if got := jsonArgs([]byte(tc.in)); got != tc.want {
			t.Errorf("jsonArgs(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
