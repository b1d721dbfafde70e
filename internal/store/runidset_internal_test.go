package store

import (
	"context"
	"testing"

	"github.com/trajmine/trajmine/schema"
)

// TestRunIDSetLoadedWhenItPays: the set of stored run ids is loaded only
// once the ids looked up one by one reach runIDsPerLookup-th of the runs
// stored (3 runs stored and counted as 4,000 here: the fourth look-up
// loads it, 4 × 1024 ≥ 4,000; claiming a taken id looks up two); before,
// each id is looked up, and an id taken is found taken either way.
func TestRunIDSetLoadedWhenItPays(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, id := range []string{"a", "b", "c"} {
		tx, err := st.Begin(ctx, &schema.Source{Path: id + ".jsonl", SHA256: id, Format: "claude-code"})
		if err != nil {
			t.Fatal(err)
		}
		got, err := tx.ClaimRunID(id)
		if err != nil || got != id {
			t.Fatalf("claim %s: %q, %v", id, got, err)
		}
		if err := tx.Run(&schema.Run{RunID: id, SourceFormat: "claude-code", SourcePath: id + ".jsonl", SourceSHA256: id}); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(&schema.Source{Path: id + ".jsonl", SHA256: id, Format: "claude-code", Runs: 1}); err != nil {
			t.Fatal(err)
		}
	}
	st.runIDs, st.lookups, st.stored = nil, 0, 4000 // as if a large store
	tx, err := st.Begin(ctx, &schema.Source{Path: "d.jsonl", SHA256: "dddddddd", Format: "claude-code"})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for i, c := range []struct {
		id, want string
		loaded   bool
	}{
		{"new1", "new1", false},
		{"a", "a@dddddddd", false}, // taken: look-ups 2 and 3 (a, then a@sha8)
		{"new2", "new2", true},     // look-up 4 loads the set
		{"b", "b@dddddddd", true},
	} {
		got, err := tx.ClaimRunID(c.id)
		if err != nil || got != c.want {
			t.Errorf("claim %d %s: %q, %v; want %q", i, c.id, got, err, c.want)
		}
		if loaded := st.runIDs != nil; loaded != c.loaded {
			t.Errorf("after claim %d (%d look-ups): set loaded %v, want %v", i, st.lookups, loaded, c.loaded)
		}
	}
}
