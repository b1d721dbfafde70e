package store_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/testutil"
)

// TestErrorRuleRoundTrip: events.error_rule, the text rule that marked a
// tool result failed at import, is read back by Events and by Scan (both
// readers); a database written before the column existed gets it on open,
// NULL for its rows, read as "".
func TestErrorRuleRoundTrip(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "t.duckdb")
	st, err := store.Open(ctx, store.Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	// full.traj.json: "sleep 100" timed out (seq 13, rule timeout), the
	// pytest output has <returncode>1</returncode> (logged, no rule);
	// stall.traj.json: two timeouts (seqs 16 and 19)
	dir := filepath.Join(testutil.RepoRoot(), "ingest", "testdata", "mini-swe-agent")
	files := []string{filepath.Join(dir, "full.traj.json"), filepath.Join(dir, "stall.traj.json")}
	if _, err := ingest.Files(ctx, st, files, &ingest.Options{Format: "mini-swe-agent"}); err != nil {
		t.Fatal(err)
	}
	want := map[string]map[int64]string{"repo__issue-7": {13: "timeout"}, "stall": {16: "timeout", 19: "timeout"}}
	rules := func(st *store.Store) map[string]map[int64]string {
		got := map[string]map[int64]string{}
		for id := range want {
			evs, err := st.Events(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range evs {
				if e.ErrorRule != "" {
					if !e.IsError {
						t.Errorf("%s/%d: error_rule %q without is_error", id, e.Seq, e.ErrorRule)
					}
					if got[id] == nil {
						got[id] = map[int64]string{}
					}
					got[id][e.Seq] = e.ErrorRule
				}
			}
		}
		return got
	}
	scanned := func(st *store.Store) map[string]map[int64]string {
		got := map[string]map[int64]string{}
		if err := st.Scan(ctx, store.ScanOptions{}, func(d *store.RunData) error {
			for _, e := range d.Events {
				if e.ErrorRule != "" {
					if got[e.RunID] == nil {
						got[e.RunID] = map[int64]string{}
					}
					got[e.RunID][e.Seq] = e.ErrorRule
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := rules(st); !equalRules(got, want) {
		t.Errorf("Events: error rules %v, want %v", got, want)
	}
	for _, chunks := range []bool{true, false} {
		restore := store.SetScanViaChunks(chunks)
		got := scanned(st)
		restore()
		if !equalRules(got, want) {
			t.Errorf("Scan (chunks %v): error rules %v, want %v", chunks, got, want)
		}
	}
	// an older database: no error_rule column
	if _, err := st.DB().ExecContext(ctx, "ALTER TABLE events DROP COLUMN error_rule"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st, err = store.Open(ctx, store.Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var nulls int
	if err := st.DB().QueryRowContext(ctx, "SELECT count(*) FROM events WHERE error_rule IS NULL").Scan(&nulls); err != nil {
		t.Fatal(err)
	}
	if nulls != 34 { // 14 events of full.traj.json, 20 of stall.traj.json
		t.Errorf("%d events with a NULL error_rule after reopening, want all 34", nulls)
	}
	if got := rules(st); len(got) != 0 {
		t.Errorf("Events after the column was added: error rules %v, want none", got)
	}
	if got := scanned(st); len(got) != 0 {
		t.Errorf("Scan after the column was added: error rules %v, want none", got)
	}
}

func equalRules(a, b map[string]map[int64]string) bool {
	if len(a) != len(b) {
		return false
	}
	for id, m := range a {
		if len(m) != len(b[id]) {
			return false
		}
		for k, v := range m {
			if b[id][k] != v {
				return false
			}
		}
	}
	return true
}
