package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/mining"
	"github.com/trajmine/trajmine/schema"
)

// writeIrregular writes, through sink, three hand-built runs that exercise
// the builder's token attribution rules: "irr" (a result before its call, a
// repeated call id, calls and results without call ids), "keys" (disable
// and enable ops over tool keys) and "reg" (one call id per call, results
// after their calls).
func writeIrregular(t *testing.T, sink ingest.Sink) {
	t.Helper()
	ctx := context.Background()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	type ev struct {
		kind      schema.EventKind
		call, key string
		tok       int64
		turn      int64
	}
	runs := map[string][]ev{
		"irr": {
			{schema.KindToolCall, "a", "", 10, 0}, {schema.KindToolResult, "a", "", 100, 1},
			{schema.KindToolResult, "b", "", 50, 1}, {schema.KindToolCall, "b", "", 5, 1}, {schema.KindToolResult, "b", "", 7, 2},
			{schema.KindToolCall, "a", "", 3, 2}, {schema.KindToolResult, "a", "", 30, 3},
			{schema.KindToolCall, "", "", 1, 3}, {schema.KindToolCall, "", "", 2, 3}, {schema.KindToolResult, "", "", 9, 4}, {schema.KindToolResult, "", "", 11, 4},
			{schema.KindToolResult, "zz", "", 1000, 4},
		},
		"keys": {
			{schema.KindToolCall, "k1", "", 4, 0}, {schema.KindToolResult, "k1", "K1", 40, 1},
			{schema.KindToolCall, "k2", "", 6, 1}, {schema.KindToolResult, "k2", "K2", 60, 2},
			{schema.KindToolCall, "m", "", 2, 2}, {schema.KindToolResult, "m", "", 3, 3},
		},
		"reg": {
			{schema.KindToolCall, "r1", "", 8, 0}, {schema.KindToolCall, "r2", "", 9, 0},
			{schema.KindToolResult, "r2", "", 90, 1}, {schema.KindToolResult, "r1", "", 80, 1}, {schema.KindToolResult, "r1", "", 81, 1},
		},
	}
	for _, id := range []string{"irr", "keys", "reg"} {
		src := &schema.Source{Path: id + ".jsonl", SHA256: fmt.Sprintf("%064x", len(id)+len(runs[id])), Format: "openai-messages", IngestedAt: t0, Runs: 1, Events: int64(len(runs[id]))}
		tx, err := sink.Begin(ctx, src)
		if err != nil {
			t.Fatal(err)
		}
		run := &schema.Run{RunID: id, SourceFormat: "openai-messages", SourcePath: src.Path, SourceSHA256: src.SHA256, Harness: "h", Model: "m", ModelFamily: "f", EndReason: schema.EndUnknown, EndReasonSource: schema.SourceInferred, NTurns: 5, StartedAt: &t0}
		if err := tx.Run(run); err != nil {
			t.Fatal(err)
		}
		for i, e := range runs[id] {
			ts := t0.Add(time.Duration(i) * time.Second)
			x := &schema.Event{RunID: id, Seq: int64(i), Turn: e.turn, TS: &ts, Kind: e.kind, Role: "tool", ToolName: "read", CallID: e.call, ToolKey: e.key, Target: "f.go", Args: `{}`, EstTokens: e.tok}
			if err := tx.Event(x); err != nil {
				t.Fatal(err)
			}
		}
		if id == "keys" {
			n := int64(len(runs[id]))
			for _, op := range []struct {
				op  schema.OpKind
				key string
			}{{schema.OpDisable, "K1"}, {schema.OpDisable, "K2"}, {schema.OpEnable, "K1"}} {
				if err := tx.ContextOp(&schema.ContextOp{RunID: id, Seq: n - 1, Turn: 3, Op: op.op, ToolKey: op.key, Trigger: "manage_context"}); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := tx.Commit(src); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEventStreamAttribution: result tokens reach the same calls through
// EventStream as through the builder on the records in memory, in the cases
// its rules spell out.
func TestEventStreamAttribution(t *testing.T) {
	var mem ingest.MemSink
	writeIrregular(t, &mem)
	st := newFileStore(t)
	writeIrregular(t, st)
	type row struct {
		Case, Activity string
		Seq, Tokens    int64
	}
	flat := func(l *mining.Log) []row {
		var out []row
		for i, c := range l.Cases {
			for j, a := range l.Trace(i) {
				out = append(out, row{c.ID, a, c.Events[j].Seq, c.Events[j].Tokens})
			}
		}
		return out
	}
	want := flat(memLog(t, &mem, nil))
	// an in-memory store reads through database/sql by default and has
	// no chunks reader
	inMem := newTestStore(t)
	writeIrregular(t, inMem)
	if diff := cmp.Diff(want, flat(storeLog(t, inMem, store.EventStreamOptions{}, nil))); diff != "" {
		t.Errorf("in-memory store, default reader (-mem +store):\n%s", diff)
	}
	if err := inMem.EventStream(context.Background(), store.EventStreamOptions{Reader: "chunks"}, nil); err == nil || !strings.Contains(err.Error(), "in memory") {
		t.Errorf("chunks reader on an in-memory store: %v, want an error saying so", err)
	}
	// events of a run the runs table does not have (as when a run is
	// imported while EventStream reads) are left out
	if _, err := st.DB().Exec(`INSERT INTO events SELECT * REPLACE ('ghost' AS run_id) FROM events WHERE kind = 'tool_call' LIMIT 5`); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := st.EventStream(ctx, store.EventStreamOptions{}, func(*schema.Run, []schema.Event, []schema.ContextOp) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
	check := func(what string) {
		t.Helper()
		for _, reader := range append(store.EventStreamReaders(), "") {
			for _, rng := range []int64{1 << 16, 1, 3, 7} {
				restore := store.SetLogRange(rng)
				got := flat(storeLog(t, st, store.EventStreamOptions{Reader: reader}, nil))
				restore()
				if len(want) < 10 {
					t.Fatalf("only %d events in the in-memory log", len(want))
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s, reader %q, nRanges of %d rows: EventStream's attribution differs from the builder's on the records (-mem +store):\n%s", what, reader, rng, diff)
				}
			}
		}
	}
	check("as imported")
	// the same rows stored interleaved across runs and out of seq order:
	// runs then span ranges and complete out of order
	for _, q := range []string{
		`CREATE TABLE ev_copy AS SELECT * FROM events`,
		`DELETE FROM events`,
		`INSERT INTO events SELECT * FROM ev_copy ORDER BY hash(run_id, seq)`,
		`DROP TABLE ev_copy`,
	} {
		if _, err := st.DB().Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	check("interleaved")
	// the ghost rows stood for a run being imported while EventStream read;
	// gone now, the store is as consistent as an import leaves it (mustCheck)
	if _, err := st.DB().Exec(`DELETE FROM events WHERE run_id = 'ghost'`); err != nil {
		t.Fatal(err)
	}
}
