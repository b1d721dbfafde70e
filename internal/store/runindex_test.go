package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/internal/store"
)

// TestIndexRuns: on a read-only store, IndexRuns lists every run id,
// sorted; then one run's ConversationRows (read within its rows' spans)
// is what the join over every run reads (before the index, on the same
// file), for each run, whole and cut; a run not held has no entry; a
// writable store is refused.
func TestIndexRuns(t *testing.T) {
	ctx := context.Background()
	path := msgDB(t,
		msgRun{id: "x", model: "gpt-4o", user: "ééééé-long", calls: [][3]string{{"bash", `{"cmd":"ls -la"}`, "0123456789"}}},
		msgRun{id: "z", model: "gpt-4o", user: "no tools"},
		msgRun{id: "y", model: "gpt-4o", user: "hi", calls: [][3]string{{"read", `{}`, "abc"}, {"bash", `{"cmd":"make"}`, "ok"}}})
	st, err := store.Open(ctx, store.Config{Path: path, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ids := []string{"x", "y", "z"}
	before := map[int]map[string]*store.RunRows{}
	for _, n := range []int{0, 4} {
		if before[n], err = st.ConversationRows(ctx, append(ids, "nope"), n); err != nil {
			t.Fatal(err)
		}
	}
	got, err := st.IndexRuns(ctx)
	if err != nil || !cmp.Equal(got, ids) {
		t.Fatalf("IndexRuns = %q, %v; want %q", got, err, ids)
	}
	// hand counts: x and z have a user message and a closing reply, x one
	// call and its output besides, y two
	events := map[string]int{"x": 4, "y": 6, "z": 2}
	for _, n := range []int{0, 4} {
		for _, id := range ids {
			one, err := st.ConversationRows(ctx, []string{id}, n)
			if err != nil {
				t.Fatal(err)
			}
			if len(one) != 1 || len(one[id].Events) != events[id] {
				t.Fatalf("n=%d run %s: %d runs, want 1 with %d events", n, id, len(one), events[id])
			}
			if diff := cmp.Diff(before[n][id], one[id]); diff != "" {
				t.Errorf("n=%d run %s: indexed read differs from the join (-join +indexed):\n%s", n, id, diff)
			}
		}
		if none, err := st.ConversationRows(ctx, []string{"nope"}, n); err != nil || len(none) != 0 {
			t.Errorf("a run not held: %v, %v", none, err)
		}
	}
	if x := before[4]["x"].Events[2].Text; x != "0123" {
		t.Errorf("x's output cut at 4: %q", x)
	}
	rw, err := store.Open(ctx, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	if _, err := rw.IndexRuns(ctx); err == nil || !strings.Contains(err.Error(), "the store is writable") {
		t.Errorf("IndexRuns on a writable store: %v", err)
	}
}
