package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/trajmine/trajmine/ingest"
)

// TestRunRowsReadsItsSpan: after IndexRuns, one run's events are read
// within its span only: a span moved off the run's rows reads none of
// them (the read is by the span, not a scan of every row).
func TestRunRowsReadsItsSpan(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, Config{Path: ":memory:"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	file := filepath.Join(t.TempDir(), "runs.jsonl")
	if err := os.WriteFile(file, []byte(`{"run_id":"a","model":"gpt-4o","messages":[{"role":"user","content":"a0"},{"role":"assistant","content":"a1"}]}
{"run_id":"b","model":"gpt-4o","messages":[{"role":"user","content":"b0"}]}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	if sum, err := ingest.Files(ctx, st, []string{file}, &ingest.Options{}); err != nil || sum.Runs != 2 {
		t.Fatalf("import: %+v, %v", sum, err)
	}
	st.readOnly = true // as a read-only handle: nothing writes from here
	if _, err := st.IndexRuns(ctx); err != nil {
		t.Fatal(err)
	}
	idx := st.spans.Load()
	if sp := idx.events["a"]; sp != (rowSpan{0, 1}) {
		t.Fatalf("a's span = %+v, want rowids 0 to 1 (hand count: its two rows first)", sp)
	}
	rows, err := st.ConversationRows(ctx, []string{"a"}, 0)
	if err != nil || len(rows["a"].Events) != 2 {
		t.Fatalf("a: %+v, %v", rows["a"], err)
	}
	idx.events["a"] = rowSpan{2, 2} // b's row
	if rows, err = st.ConversationRows(ctx, []string{"a"}, 0); err != nil || len(rows["a"].Events) != 0 {
		t.Errorf("a read outside its span: %d events, %v", len(rows["a"].Events), err)
	}
}
