package store_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/schema"
)

// TestDiagEnds: the end reasons diag_runs holds, by run id; none before a
// diagnosis is stored.
func TestDiagEnds(t *testing.T) {
	ctx := context.Background()
	st := newTestStore(t)
	got, err := st.DiagEnds(ctx, "")
	if err != nil || len(got) != 0 {
		t.Fatalf("before a diagnosis: %v, %v; want none", got, err)
	}
	rows := []schema.DiagRun{
		{RunID: "a", EndReason: schema.EndFinished, EndReasonSource: schema.SourceInferred, EndRule: "final-answer", EndReasonWhy: "the run ends on the model's reply"},
		{RunID: "b", EndReason: schema.EndStepLimit, EndReasonSource: schema.SourceExplicit, EndRule: "log", EndReasonWhy: "the log says: \"limit\""},
	}
	if err := st.WriteDerived(ctx, store.Derived{Table: schema.DiagRuns, Rows: func(add func(vals ...any) error) error {
		for i := range rows {
			if err := add(rows[i].Values()...); err != nil {
				return err
			}
		}
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	a := store.DiagEnd{Reason: schema.EndFinished, Source: schema.SourceInferred, Rule: "final-answer", Why: "the run ends on the model's reply"}
	b := store.DiagEnd{Reason: schema.EndStepLimit, Source: schema.SourceExplicit, Rule: "log", Why: "the log says: \"limit\""}
	for _, tc := range []struct {
		runID string
		want  map[string]store.DiagEnd
	}{
		{"", map[string]store.DiagEnd{"a": a, "b": b}},
		{"b", map[string]store.DiagEnd{"b": b}},
		{"nope", map[string]store.DiagEnd{}},
	} {
		got, err := st.DiagEnds(ctx, tc.runID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("DiagEnds(%q) (-want +got):\n%s", tc.runID, diff)
		}
	}
}
