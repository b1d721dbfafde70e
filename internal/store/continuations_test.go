package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/schema"
)

// TestContinuations: a usage row is a copy when another run holds the same
// request id with the same tokens and ended first; the same id with other
// tokens (two fixtures reusing "msg_1") is no copy; estimated rows never are.
func TestContinuations(t *testing.T) {
	ctx := context.Background()
	st := newTestStore(t)
	at := func(h int) *time.Time { v := time.Date(2026, 1, 1, h, 0, 0, 0, time.UTC); return &v }
	type row struct {
		req     string
		in, out int64
		est     bool
	}
	add := func(path, run string, ended *time.Time, rows ...row) {
		tx, err := st.Begin(ctx, &schema.Source{Path: path, SHA256: path})
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Run(&schema.Run{RunID: run, SourcePath: path, SourceSHA256: path, EndedAt: ended, EndReason: schema.EndUnknown, EndReasonSource: schema.SourceInferred, NTurns: int64(len(rows))}); err != nil {
			t.Fatal(err)
		}
		for i, r := range rows {
			if err := tx.Usage(&schema.Usage{RunID: run, Turn: int64(i), RequestID: r.req, InputTokens: r.in, OutputTokens: r.out, Estimated: r.est}); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(&schema.Source{Path: path, SHA256: path, Runs: 1}); err != nil {
			t.Fatal(err)
		}
	}
	add("a", "a", at(1), row{"m1", 100, 10, false}, row{"m2", 200, 20, false})
	// b resumed a (ended later): m1, m2 copied, m3 its own
	add("b", "b", at(3), row{"m1", 100, 10, false}, row{"m2", 200, 20, false}, row{"m3", 300, 30, false})
	// c resumed b: m1, m2 come from a (ended first), m3 from b: origin b
	add("c", "c", at(5), row{"m1", 100, 10, false}, row{"m2", 200, 20, false}, row{"m3", 300, 30, false}, row{"m4", 1, 1, false})
	// d: m1 with other tokens (no copy); m2 estimated (never a copy)
	add("d", "d", at(0), row{"m1", 999, 10, false}, row{"m2", 200, 20, true})
	got, err := st.Continuations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]*store.Continuation{
		"b": {RunID: "b", OriginRunID: "a", Copied: map[string]bool{"m1": true, "m2": true}},
		"c": {RunID: "c", OriginRunID: "b", Copied: map[string]bool{"m1": true, "m2": true, "m3": true}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Continuations (-want +got):\n%s", diff)
	}
}
