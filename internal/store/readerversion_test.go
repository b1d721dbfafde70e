package store_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/testutil"
)

// TestReaderVersionReimports: a file an older version of its importer read
// (sources.reader_version below ingest.ReaderVersion of its format, or NULL
// for a format past version 1) is read again by the next ingest, its rows
// replaced and not duplicated; a file read by the current version is
// skipped as before, whether the quick check or the hash finds it.
func TestReaderVersionReimports(t *testing.T) {
	if ingest.ReaderVersion("mini-swe-agent") < 2 || ingest.ReaderVersion("codex-cli") != 1 {
		t.Fatal("the test assumes mini-swe-agent past reader version 1 and codex-cli at 1")
	}
	dir := t.TempDir()
	for _, f := range []struct{ from, to string }{
		{filepath.Join(testutil.RepoRoot(), "ingest", "testdata", "mini-swe-agent", "stall.traj.json"), "a.traj.json"},
		{filepath.Join(testutil.RepoRoot(), "ingest", "testdata", "codex", "compact.jsonl"), "b.jsonl"},
	} {
		b, err := os.ReadFile(f.from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f.to), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	forModes(t, func(t *testing.T, small int64) {
		ctx := context.Background()
		path := filepath.Join(t.TempDir(), "s.duckdb")
		open := func() *store.Store {
			st, err := store.Open(ctx, store.Config{Path: path})
			if err != nil {
				t.Fatal(err)
			}
			return st
		}
		st := open()
		defer func() { mustCheck(t, st); st.Close() }()
		o := &ingest.Options{SmallFile: small}
		first, err := ingest.Files(ctx, st, []string{dir}, o)
		if err != nil || first.Files != 2 {
			t.Fatalf("first ingest: %v, %d files", err, first.Files)
		}
		counts := func() [4]int64 {
			return [4]int64{
				scalar[int64](t, st, "SELECT count(*) FROM sources"),
				scalar[int64](t, st, "SELECT count(*) FROM runs"),
				scalar[int64](t, st, "SELECT count(*) FROM events"),
				scalar[int64](t, st, "SELECT count(*) FROM usage"),
			}
		}
		want := counts()
		if v := scalar[int64](t, st, "SELECT reader_version FROM sources WHERE source_format = 'mini-swe-agent'"); v != ingest.ReaderVersion("mini-swe-agent") {
			t.Errorf("recorded reader version %d, want %d", v, ingest.ReaderVersion("mini-swe-agent"))
		}
		// the current reader: both skipped
		if again, err := ingest.Files(ctx, st, []string{dir}, o); err != nil || again.Files != 0 || again.Skipped != 2 {
			t.Errorf("ingest again: %v, %d imported, %d skipped; want 0 and 2", err, again.Files, again.Skipped)
		}
		// as a database written before the column: NULL reads as version 1
		if _, err := st.DB().ExecContext(ctx, "UPDATE sources SET reader_version = NULL"); err != nil {
			t.Fatal(err)
		}
		st.Close() // a new process reads the table anew
		st = open()
		re, err := ingest.Files(ctx, st, []string{dir}, o)
		if err != nil || re.Files != 1 || re.Skipped != 1 {
			t.Fatalf("after the version change: %v, %d imported, %d skipped; want 1 (mini-swe-agent) and 1 (codex-cli)", err, re.Files, re.Skipped)
		}
		if got := counts(); got != want {
			t.Errorf("sources, runs, events, usage = %v after the re-read, want %v (replaced, not added)", got, want)
		}
		if n := scalar[int64](t, st, "SELECT count(*) FROM sources WHERE source_format = 'mini-swe-agent' AND reader_version = ?", ingest.ReaderVersion("mini-swe-agent")); n != 1 {
			t.Errorf("%d current mini-swe-agent sources rows, want 1", n)
		}
		if n := scalar[int64](t, st, "SELECT count(*) FROM sources WHERE source_format = 'codex-cli' AND reader_version IS NULL"); n != 1 {
			t.Errorf("the codex-cli row was rewritten (%d rows left as they were, want 1)", 1-n)
		}
		if again, err := ingest.Files(ctx, st, []string{dir}, o); err != nil || again.Files != 0 {
			t.Errorf("a third ingest imported %d files (%v), want none", again.Files, err)
		}
	})
}
