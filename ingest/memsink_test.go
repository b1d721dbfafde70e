package ingest

import (
	"context"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/schema"
)

// TestMemSinkClaimsAcrossOpenTransactions: two files imported at once that
// hold the same run id get distinct ids, as in the store (a claim by a
// transaction not yet committed counts).
func TestMemSinkClaimsAcrossOpenTransactions(t *testing.T) {
	var m MemSink
	ctx := context.Background()
	a, _ := m.Begin(ctx, &schema.Source{SHA256: "aaaaaaaaaaaa"})
	b, _ := m.Begin(ctx, &schema.Source{SHA256: "bbbbbbbbbbbb"})
	ia, _ := a.ClaimRunID("run")
	ib, _ := b.ClaimRunID("run")
	if ia == ib {
		t.Fatalf("both transactions got %q", ia)
	}
	if err := a.Rollback(); err != nil {
		t.Fatal(err)
	}
	c, _ := m.Begin(ctx, &schema.Source{SHA256: "cccccccccccc"})
	if ic, _ := c.ClaimRunID("run"); ic != "run" {
		t.Errorf("after the rollback the id is free again, got %q", ic)
	}
}

// TestMemSinkCheck: each rule Check tests fails on a sink that breaks it
// and only that one.
func TestMemSinkCheck(t *testing.T) {
	ok := func() *MemSink {
		return &MemSink{
			Sources: []schema.Source{{Path: "a", SHA256: "s", Runs: 1, Events: 1}},
			Runs:    []schema.Run{{RunID: "r", SourceSHA256: "s"}},
			Events:  []schema.Event{{RunID: "r", Seq: 0}},
		}
	}
	if err := ok().Check(); err != nil {
		t.Fatalf("consistent sink: %v", err)
	}
	for _, tc := range []struct {
		name   string
		break_ func(m *MemSink)
		msg    string
	}{
		{"orphan event", func(m *MemSink) { m.Events = append(m.Events, schema.Event{RunID: "r@x", Seq: 0}) }, "belongs to no run"},
		{"orphan usage", func(m *MemSink) { m.Usage = append(m.Usage, schema.Usage{RunID: "x"}) }, "belongs to no run"},
		{"orphan output", func(m *MemSink) {
			m.ToolOutputs = append(m.ToolOutputs, schema.ToolOutput{RunID: "x", ToolKey: "k"})
		}, "belongs to no run"},
		{"orphan op", func(m *MemSink) { m.ContextOps = append(m.ContextOps, schema.ContextOp{RunID: "x"}) }, "belongs to no run"},
		{"duplicate run", func(m *MemSink) { m.Runs = append(m.Runs, m.Runs[0]) }, "stored twice"},
		{"duplicate seq", func(m *MemSink) { m.Events = append(m.Events, m.Events[0]) }, "stored twice"},
		{"source count", func(m *MemSink) { m.Sources[0].Events = 2 }, "counts 1 runs and 2 events"},
	} {
		m := ok()
		tc.break_(m)
		if err := m.Check(); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.msg)
		}
	}
}
