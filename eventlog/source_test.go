package eventlog_test

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/trajmine/trajmine/eventlog"
	"github.com/trajmine/trajmine/schema"
)

func TestRecords(t *testing.T) {
	runs := []schema.Run{{RunID: "b"}, {RunID: "a"}}
	events := []schema.Event{
		{RunID: "b", Seq: 2}, {RunID: "a", Seq: 1}, {RunID: "zz", Seq: 0}, {RunID: "b", Seq: 0}, {RunID: "a", Seq: 0},
	}
	ops := []schema.ContextOp{
		{RunID: "b", Seq: 2, Op: schema.OpEnable, ToolKey: "k"},
		{RunID: "b", Seq: 2, Op: schema.OpDisable, ToolKey: "y"},
		{RunID: "b", Seq: 2, Op: schema.OpDisable, ToolKey: "x"},
		{RunID: "b", Seq: 0, Op: schema.OpCompaction},
	}
	evCopy, opCopy := slices.Clone(events), slices.Clone(ops)
	var got []string
	err := eventlog.Records(runs, events, ops)(func(r *eventlog.RunRecords) error {
		s := r.Run.RunID + ":"
		for _, e := range r.Events {
			s += " e" + string(rune('0'+e.Seq))
		}
		for _, o := range r.Ops {
			s += " " + string(o.Op) + "@" + string(rune('0'+o.Seq)) + o.ToolKey
		}
		got = append(got, s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a: e0 e1", "b: e0 e2 compaction@0 disable@2x disable@2y enable@2k"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Records (-want +got):\n%s", diff)
	}
	if !slices.Equal(events, evCopy) || !slices.Equal(ops, opCopy) {
		t.Error("Records modified its input")
	}
}

func TestDefaultActivity(t *testing.T) {
	for _, tc := range []struct {
		e    schema.Event
		want string
	}{
		{schema.Event{Kind: schema.KindToolCall, ToolName: "Read"}, "Read"},
		{schema.Event{Kind: schema.KindToolResult, ToolName: "Read"}, "Read"},
		{schema.Event{Kind: schema.KindToolCall}, "tool_call"},
		{schema.Event{Kind: schema.KindAssistant, ToolName: "ignored"}, "assistant"},
		{schema.Event{Kind: schema.KindCompaction}, "compaction"},
	} {
		if got := eventlog.DefaultActivity(nil, &tc.e); got != tc.want {
			t.Errorf("DefaultActivity(%s %q) = %q, want %q", tc.e.Kind, tc.e.ToolName, got, tc.want)
		}
	}
	if got := eventlog.DefaultOpActivity(nil, &schema.ContextOp{Op: schema.OpDisable}); got != "context.disable" {
		t.Errorf("DefaultOpActivity = %q", got)
	}
}

// TestLogOrder checks the order of events and ops in both formats: ops after
// the event with their seq, an op whose seq no event has before the next
// event, in the order given.
func TestLogOrder(t *testing.T) {
	r := eventlog.RunRecords{
		Run: schema.Run{RunID: "r"},
		Events: []schema.Event{
			{RunID: "r", Seq: 0, Kind: schema.KindUser},
			{RunID: "r", Seq: 2, Kind: schema.KindToolCall, ToolName: "manage_context"},
			{RunID: "r", Seq: 4, Kind: schema.KindAssistant},
		},
		Ops: []schema.ContextOp{
			{RunID: "r", Seq: 1, Op: schema.OpSummary},
			{RunID: "r", Seq: 2, Op: schema.OpDisable, ToolKey: "a"},
			{RunID: "r", Seq: 2, Op: schema.OpEnable, ToolKey: "b"},
			{RunID: "r", Seq: 9, Op: schema.OpContinuation},
		},
	}
	want := []string{"user", "context.summary", "manage_context", "context.disable", "context.enable", "assistant", "context.continuation"}

	xdoc, _ := writeXES(t, []eventlog.RunRecords{r}, nil)
	var got []string
	for _, e := range parseXES(t, xdoc).Traces[0].Events {
		n, _ := e.get("concept:name")
		got = append(got, n)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("XES order (-want +got):\n%s", diff)
	}

	odoc, _ := writeOCEL(t, []eventlog.RunRecords{r}, nil)
	got = got[:0]
	for _, e := range validateOCEL(t, odoc).Events {
		got = append(got, e.Type)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("OCEL order (-want +got):\n%s", diff)
	}
}

func TestDeterministic(t *testing.T) {
	// Same input, same bytes; map iteration order must not leak.
	runs := append(goldenRuns(), synthRuns(3000)...)
	var first [2][]byte
	for i := range 5 {
		var x, o bytes.Buffer
		if _, err := eventlog.WriteXES(context.Background(), &x, slice(runs), nil); err != nil {
			t.Fatal(err)
		}
		if _, err := eventlog.WriteOCEL(context.Background(), &o, slice(runs), &eventlog.Options{TempDir: t.TempDir()}); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = [2][]byte{x.Bytes(), o.Bytes()}
			continue
		}
		if !bytes.Equal(first[0], x.Bytes()) || !bytes.Equal(first[1], o.Bytes()) {
			t.Fatalf("export %d differs from the first", i)
		}
	}
}
