package store_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/schema"
)

// TestScanMatchesPerRunQueries checks that the merged cursors of Scan hand
// over exactly what the per-run queries return, for every run, and that
// shards partition the runs.
func TestScanMatchesPerRunQueries(t *testing.T) {
	ctx := context.Background()
	st := newTestStore(t)
	dirs := []string{fixtures,
		filepath.Join(testutil.RepoRoot(), "ingest", "testdata", "codex"),
		filepath.Join(testutil.RepoRoot(), "ingest", "testdata", "openhands")}
	if _, err := ingest.Files(ctx, st, dirs, &ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	runs, err := st.Runs(ctx, store.RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) < 4 {
		t.Fatalf("only %d runs in the fixtures", len(runs))
	}
	want := map[string]store.RunData{}
	for _, r := range runs {
		ev, _ := st.Events(ctx, r.RunID)
		us, _ := st.Usage(ctx, r.RunID)
		ops, _ := st.ContextOps(ctx, r.RunID)
		want[r.RunID] = store.RunData{Run: r, Events: ev, Usage: us, Ops: ops}
	}
	got := map[string]store.RunData{}
	var order []string
	err = st.Scan(ctx, store.ScanOptions{}, func(d *store.RunData) error {
		order = append(order, d.Run.RunID)
		// the slices are kept, not copied: they are the run's own
		got[d.Run.RunID] = store.RunData{Run: d.Run, Events: d.Events, Usage: d.Usage, Ops: d.Ops}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Scan differs from per-run queries (-want +got):\n%s", diff)
	}
	if len(order) != len(runs) {
		t.Fatalf("scan handed over %d runs, want %d", len(order), len(runs))
	}
	// storage order is fixed: a second scan hands the runs over in the same order
	var again []string
	if err := st.Scan(ctx, store.ScanOptions{NoText: true}, func(d *store.RunData) error { again = append(again, d.Run.RunID); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(order, again) {
		t.Fatalf("scan order changed between scans:\n%v\n%v", order, again)
	}

	seen := map[string]int{}
	for shard := range 3 {
		err := st.Scan(ctx, store.ScanOptions{Shard: shard, Shards: 3, NoText: true}, func(d *store.RunData) error {
			seen[d.Run.RunID]++
			for _, e := range d.Events {
				if e.Text != "" {
					t.Errorf("NoText: event %s/%d has text", e.RunID, e.Seq)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(seen) != len(runs) {
		t.Fatalf("shards saw %d runs, want %d", len(seen), len(runs))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("run %s in %d shards", id, n)
		}
	}
	if err := st.Scan(ctx, store.ScanOptions{Shard: 3, Shards: 3}, func(*store.RunData) error { return nil }); err == nil {
		t.Fatal("shard 3 of 3 accepted")
	}
}

func TestWriteDerivedReplacesRows(t *testing.T) {
	ctx := context.Background()
	st := newTestStore(t)
	tbl := schema.Table{Name: "t_derived", Columns: []schema.Column{
		{Name: "k", Type: schema.Varchar}, {Name: "v", Type: schema.BigInt}}}
	write := func(where string, args []any, rows ...[]any) error {
		return st.WriteDerived(ctx, store.Derived{Table: tbl, Where: where, Args: args,
			Rows: func(add func(...any) error) error {
				for _, r := range rows {
					if err := add(r...); err != nil {
						return err
					}
				}
				return nil
			}})
	}
	if err := write("", nil, []any{"a", int64(1)}, []any{"b", int64(2)}); err != nil {
		t.Fatal(err)
	}
	if err := write("k = ?", []any{"a"}, []any{"a", int64(10)}); err != nil {
		t.Fatal(err)
	}
	if got := scalar[int64](t, st, "SELECT sum(v) FROM t_derived"); got != 12 {
		t.Fatalf("sum = %d, want 12 (a replaced, b kept)", got)
	}
	// a bad row rolls the whole write back
	if err := write("", nil, []any{"c", int64(5)}, []any{"d"}); err == nil {
		t.Fatal("short row accepted")
	}
	if got := scalar[int64](t, st, "SELECT sum(v) FROM t_derived"); got != 12 {
		t.Fatalf("after failed write sum = %d, want 12", got)
	}
}

// TestScanStopsOnError: an error from fn stops the scan (its readers
// included) and is returned; the store scans again afterwards.
func TestScanStopsOnError(t *testing.T) {
	ctx := context.Background()
	st := newTestStore(t)
	if _, err := ingest.Files(ctx, st, []string{fixtures, filepath.Join(testutil.RepoRoot(), "ingest", "testdata", "codex")}, &ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	n := 0
	err := st.Scan(ctx, store.ScanOptions{}, func(*store.RunData) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Fatalf("Scan = %v after %d runs, want the fn's error after 1", err, n)
	}
	all := 0
	if err := st.Scan(ctx, store.ScanOptions{}, func(*store.RunData) error { all++; return nil }); err != nil || all < 2 {
		t.Fatalf("second scan: %v, %d runs", err, all)
	}
}

// TestScanRunIDs: RunIDs keeps exactly the listed runs (with all their
// rows, as an unfiltered scan hands them over), an empty list keeps none,
// and ScanWhere selects the same runs.
func TestScanRunIDs(t *testing.T) {
	ctx := context.Background()
	st := newFileStore(t)
	dirs := []string{fixtures, filepath.Join(testutil.RepoRoot(), "ingest", "testdata", "codex")}
	if _, err := ingest.Files(ctx, st, dirs, &ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	all := map[string]store.RunData{}
	var order []string
	if err := st.Scan(ctx, store.ScanOptions{}, func(d *store.RunData) error {
		all[d.Run.RunID] = *d
		order = append(order, d.Run.RunID)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(order) < 4 {
		t.Fatalf("only %d runs in the fixtures", len(order))
	}
	tests := []struct {
		name string
		ids  []string
	}{
		{"none", []string{}},
		{"one", order[1:2]},
		{"two apart", []string{order[len(order)-1], order[0]}},
		{"unknown id ignored", []string{order[2], "no-such-run"}},
		{"every run", order},
	}
	// ranges of 3 rowids: Scan reads only those holding the runs' rows
	for _, chunk := range []int64{0, 3} {
		if chunk > 0 {
			defer store.SetScanChunk(chunk)()
		}
		for _, tc := range tests {
			t.Run(fmt.Sprintf("%s/chunk=%d", tc.name, chunk), func(t *testing.T) {
				want := map[string]store.RunData{}
				for _, id := range tc.ids {
					if d, ok := all[id]; ok {
						want[id] = d
					}
				}
				got := map[string]store.RunData{}
				if err := st.Scan(ctx, store.ScanOptions{RunIDs: tc.ids}, func(d *store.RunData) error {
					got[d.Run.RunID] = *d
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("Scan with RunIDs (-want +got):\n%s", diff)
				}
				where, args := store.ScanWhere(store.ScanOptions{RunIDs: tc.ids})
				if n := scalar[int64](t, st, "SELECT count(*) FROM runs WHERE "+where, args...); n != int64(len(want)) {
					t.Errorf("ScanWhere selects %d runs, want %d", n, len(want))
				}
			})
		}
	}
	if where, _ := store.ScanWhere(store.ScanOptions{}); where != "" {
		t.Errorf("ScanWhere of the zero options = %q, want every run", where)
	}
}

// TestSources: one row per imported file, with the path as given and its
// run count.
func TestSources(t *testing.T) {
	ctx := context.Background()
	st := newTestStore(t)
	sum, err := ingest.Files(ctx, st, []string{fixtures}, &ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srcs, err := st.Sources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	var runs int64
	for _, s := range srcs {
		paths = append(paths, s.Path)
		runs += s.Runs
		if len(s.SHA256) != 64 || s.Bytes == 0 || s.Format != "claude-code" {
			t.Errorf("source %+v", s)
		}
	}
	want := []string{filepath.Join(fixtures, "overflow_subagent.jsonl"), filepath.Join(fixtures, "split_responses.jsonl")}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("source paths (-want +got):\n%s", diff)
	}
	if runs != sum.Runs {
		t.Errorf("sources count %d runs, ingest imported %d", runs, sum.Runs)
	}
}

// TestScanChunksMatchDriver: Scan reads the same runs, events and values
// through DuckDB's C API (a database file's default) as through the
// driver's rows, whole, without text and for a selection of runs, over
// fixtures with timestamps, exit codes, DTOC envelopes and action classes.
func TestScanChunksMatchDriver(t *testing.T) {
	ctx := context.Background()
	st := newFileStore(t)
	root := filepath.Join(testutil.RepoRoot(), "ingest", "testdata")
	dirs := []string{fixtures, filepath.Join(root, "codex"), filepath.Join(root, "messages")}
	if _, err := ingest.Files(ctx, st, dirs, &ingest.Options{Warn: func(error) {}}); err != nil {
		t.Fatal(err)
	}
	read := func(o store.ScanOptions) []store.RunData {
		var out []store.RunData
		if err := st.Scan(ctx, o, func(d *store.RunData) error {
			out = append(out, *d)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	all := read(store.ScanOptions{})
	var ids []string
	var exits, envelopes, classes, stamps int
	for i, d := range all {
		if i%2 == 0 {
			ids = append(ids, d.Run.RunID)
		}
		for _, e := range d.Events {
			if e.ExitCode != nil {
				exits++
			}
			if e.EnvelopeTokens > 0 {
				envelopes++
			}
			if e.ActionClass != "" {
				classes++
			}
			if e.TS != nil {
				stamps++
			}
		}
	}
	if len(all) < 4 || exits == 0 || envelopes == 0 || classes == 0 || stamps == 0 {
		t.Fatalf("fixtures too thin: %d runs, %d exit codes, %d envelopes, %d classes, %d timestamps", len(all), exits, envelopes, classes, stamps)
	}
	for _, o := range []store.ScanOptions{{}, {NoText: true}, {RunIDs: ids}} {
		chunks := read(o)
		restore := store.SetScanViaChunks(false)
		rows := read(o)
		restore()
		if diff := cmp.Diff(rows, chunks); diff != "" {
			t.Errorf("%+v: chunks differ from the driver's rows (-rows +chunks):\n%s", o, diff)
		}
	}
}
