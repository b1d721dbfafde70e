package simulate

import (
	"math"
	"slices"
	"testing"

	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/schema"
)

// traceEvents is a four-call run: a system prompt and task, then per call an
// assistant message and a read_file call whose result the next call sees; a
// DTOC disable of the first result at call 2; the second call's message
// uses an identifier from the first result.
func traceEvents() []schema.Event {
	ev := func(seq, turn int64, k schema.EventKind, tok int64, f func(*schema.Event)) schema.Event {
		e := schema.Event{RunID: "r", Seq: seq, Turn: turn, Kind: k, EstTokens: tok, Chars: 4 * tok}
		if f != nil {
			f(&e)
		}
		return e
	}
	call := func(id, path string) func(*schema.Event) {
		return func(e *schema.Event) {
			e.ToolName, e.CallID, e.Target, e.Args = "read_file", id, path, `{"path":"`+path+`"}`
		}
	}
	result := func(id, key, text string) func(*schema.Event) {
		return func(e *schema.Event) { e.ToolName, e.CallID, e.ToolKey, e.Text = "read_file", id, key, text }
	}
	return []schema.Event{
		ev(0, 0, schema.KindSystem, 100, nil),
		ev(1, 0, schema.KindUser, 50, func(e *schema.Event) { e.Text = "fix the bug" }),
		ev(2, 0, schema.KindAssistant, 20, nil),
		ev(3, 0, schema.KindToolCall, 10, call("c1", "a.go")),
		ev(4, 1, schema.KindToolResult, 200, result("c1", "t1", "package a\nfunc parseHeaderLine() {}\n")),
		ev(5, 1, schema.KindAssistant, 20, func(e *schema.Event) { e.Text = "parseHeaderLine is wrong" }),
		ev(6, 1, schema.KindToolCall, 10, call("c2", "b.go")),
		ev(7, 2, schema.KindToolResult, 300, result("c2", "t2", "package b\n")),
		ev(8, 2, schema.KindContextOp, 5, nil),
		ev(9, 2, schema.KindAssistant, 20, nil),
		ev(10, 2, schema.KindToolCall, 10, call("c3", "c.go")),
		ev(11, 3, schema.KindToolResult, 100, result("c3", "t3", "package c\n")),
		ev(12, 3, schema.KindAssistant, 20, nil),
	}
}

func usageRows(inputs, outputs []int64) []schema.Usage {
	var us []schema.Usage
	for t := range inputs {
		us = append(us, schema.Usage{RunID: "r", Turn: int64(t), InputTokens: inputs[t], OutputTokens: outputs[t]})
	}
	return us
}

func TestNewTrace(t *testing.T) {
	events := traceEvents()
	run := schema.Run{RunID: "r", SourceFormat: "f", ModelFamily: "m", NTurns: 4}
	ops := []schema.ContextOp{{RunID: "r", Seq: 8, Turn: 2, Op: schema.OpDisable, ToolKey: "t1"}}
	// logged input = 1000 + 1.5 × estimated items visible: x = 150, 380, 710, 840
	us := usageRows([]int64{1225, 1570, 2065, 2260}, []int64{30, 30, 30, 20})
	tr := NewTrace(run, events, us, ops, diagnose.End{Reason: schema.EndFinished}, nil)

	if tr.NCalls != 4 || len(tr.Items) != 12 {
		t.Fatalf("calls %d items %d, want 4 and 12 (the context_op event is not prompt content)", tr.NCalls, len(tr.Items))
	}
	wantSince := []int32{0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4}
	var since []int32
	for _, it := range tr.Items {
		since = append(since, it.Since)
	}
	if !slices.Equal(since, wantSince) {
		t.Errorf("since = %v, want %v", since, wantSince)
	}
	if !tr.Items[0].Head || !tr.Items[1].Head || tr.Items[2].Head {
		t.Error("head = system and first user only")
	}
	if r := tr.Items[4]; r.Kind != ItemToolResult || r.Call != 3 || r.Class != ClassRead || r.Key != "t1" || r.Lines != 3 {
		t.Errorf("first result = %+v", r)
	}
	if m := tr.Tokens; m.Source != TokensFit || math.Abs(m.Factor-1.5) > 1e-9 || m.Prefix != 1000 || m.Calls != 4 {
		t.Errorf("token model = %+v, want fit 1.5 × items + 1000", m)
	}
	if got := tr.keepAllPrompts(); !slices.Equal(got, []int64{1225, 1570, 2065, 2260}) {
		t.Errorf("keep-all prompts = %v, want the logged inputs", got)
	}
	if len(tr.Holdout) != 2 {
		t.Errorf("holdout errors = %v, want 2 (fitted on calls 0–1, checked on 2–3)", tr.Holdout)
	}
	if want := []LoggedOp{{Item: 4, From: 3, DTOC: true}}; !slices.Equal(tr.Ops, want) {
		t.Errorf("ops = %+v, want %+v", tr.Ops, want)
	}
	if len(tr.Uses) != 1 || tr.Uses[0].Item != 4 || tr.Uses[0].Call != 1 || !tr.Uses[0].Content {
		t.Errorf("uses = %+v, want the first result used at call 1", tr.Uses)
	}
	if !slices.Equal(tr.Output, []int32{30, 30, 30, 20}) {
		t.Errorf("outputs = %v", tr.Output)
	}
	if !slices.Equal(tr.ReadingAt, []bool{false, true, true, true, true}) {
		t.Errorf("reading at = %v", tr.ReadingAt)
	}
}

// TestNewTraceCarriedOutput: the log bills 500 output tokens per call that
// no event records (hidden reasoning) and later inputs grow by them; the
// carried-output account fits exactly and adds reasoning items.
func TestNewTraceCarriedOutput(t *testing.T) {
	run := schema.Run{RunID: "r", NTurns: 4}
	// x_a = 150, 380, 710, 840; carried 500 per earlier call
	us := usageRows([]int64{1150, 1880, 2710, 3340}, []int64{530, 530, 530, 520})
	tr := NewTrace(run, traceEvents(), us, nil, diagnose.End{}, nil)
	if tr.Tokens.Source != TokensFit+"+carried-output" || tr.Tokens.Prefix != 1000 || math.Abs(tr.Tokens.Factor-1) > 1e-9 {
		t.Fatalf("token model = %+v", tr.Tokens)
	}
	if got := tr.keepAllPrompts(); !slices.Equal(got, []int64{1150, 1880, 2710, 3340}) {
		t.Errorf("keep-all prompts = %v, want the logged inputs", got)
	}
	for _, e := range tr.Holdout {
		if math.Abs(e) > 1e-9 {
			t.Errorf("holdout error %v, want 0", e)
		}
	}
	n := 0
	for _, it := range tr.Items {
		if it.Carried {
			n++
		}
	}
	if n != 4 {
		t.Errorf("%d carried items, want one per call", n)
	}
	if tr.Uses[0].Item != 5 || tr.Items[5].Kind != ItemToolResult {
		t.Errorf("use remapped to item %d (%v)", tr.Uses[0].Item, tr.Items[tr.Uses[0].Item].Kind)
	}
}

func TestNewTraceFallbacks(t *testing.T) {
	run := schema.Run{RunID: "r", NTurns: 4}
	// one logged call: prefix anchored there, calibration factor applied
	tr := NewTrace(run, traceEvents(), usageRows([]int64{2000}, []int64{30}), nil, diagnose.End{}, &TraceOptions{Factor: 2})
	if m := tr.Tokens; m.Source != TokensCalibration || m.Factor != 2 || m.Prefix != 2000-300 {
		t.Errorf("one call = %+v", m)
	}
	// no usage: the estimate as it is
	tr = NewTrace(run, traceEvents(), nil, nil, diagnose.End{}, nil)
	if m := tr.Tokens; m.Source != TokensEstimate || m.Factor != 1 || tr.Prefix != 0 {
		t.Errorf("no usage = %+v", m)
	}
	if !slices.Equal(tr.Output, []int32{30, 30, 30, 20}) {
		t.Errorf("estimated outputs = %v", tr.Output)
	}
	// a compaction stops the fit at its call
	ev := append(traceEvents(), schema.Event{RunID: "r", Seq: 13, Turn: 2, Kind: schema.KindCompaction, Role: "system"})
	tr = NewTrace(run, ev, usageRows([]int64{1225, 1570, 9999, 9999}, []int64{30, 30, 30, 20}), nil, diagnose.End{}, nil)
	if tr.FirstCompaction != 2 || tr.Tokens.Calls != 2 {
		t.Errorf("compaction: first %d, fitted on %d calls", tr.FirstCompaction, tr.Tokens.Calls)
	}
}
