package store_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
)

// TestExportParquetTouchesOnlyItsFiles is issue 19.6: `export parquet DIR`
// removed DIR/events etc. recursively, files it had not written included.
// Now a non-empty DIR is refused (overwrite or not) unless it holds a
// previous export, and overwrite removes only what that export listed.
func TestExportParquetTouchesOnlyItsFiles(t *testing.T) {
	ctx := context.Background()
	st := newTestStore(t)
	if _, err := ingest.Files(ctx, st, []string{fixtures}, nil); err != nil {
		t.Fatal(err)
	}
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(p string) string {
		t.Helper()
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		return string(b)
	}

	// a directory of the user's own files, one of them where an export writes
	mine := t.TempDir()
	write(filepath.Join(mine, "events", "notes.txt"), "keep me")
	write(filepath.Join(mine, "thesis.tex"), "keep me too")
	for _, overwrite := range []bool{false, true} {
		if _, err := st.ExportParquet(ctx, mine, store.ExportOptions{Overwrite: overwrite}); !errors.Is(err, store.ErrExportNotEmpty) {
			t.Errorf("overwrite=%v into a directory of other files: %v, want ErrExportNotEmpty", overwrite, err)
		}
	}
	if read(filepath.Join(mine, "events", "notes.txt")) != "keep me" || read(filepath.Join(mine, "thesis.tex")) != "keep me too" {
		t.Error("the user's files changed")
	}
	if _, err := os.Stat(filepath.Join(mine, "runs")); err == nil {
		t.Error("a refused export wrote runs/")
	}

	// a new directory, then again without and with overwrite
	dir := filepath.Join(t.TempDir(), "lake")
	first, err := st.ExportParquet(ctx, dir, store.ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.ExportParquet(ctx, dir, store.ExportOptions{}); !errors.Is(err, store.ErrExportNotEmpty) {
		t.Errorf("second export without overwrite: %v, want ErrExportNotEmpty", err)
	}
	// the user drops a file into the export, and replaces one written file
	// by a symlink to a file elsewhere (removing the link must not follow it)
	write(filepath.Join(dir, "events", "my-query.sql"), "SELECT 1")
	outside := filepath.Join(t.TempDir(), "precious.txt")
	write(outside, "precious")
	runs, _ := filepath.Glob(filepath.Join(dir, "runs", "*", "*", "*.parquet"))
	if len(runs) == 0 {
		t.Fatal("no runs parquet written")
	}
	if err := os.Remove(runs[0]); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, runs[0]); err != nil {
		t.Fatal(err)
	}
	second, err := st.ExportParquet(ctx, dir, store.ExportOptions{Overwrite: true})
	if err != nil {
		t.Fatal(err)
	}
	if first["events"] != second["events"] || first["runs"] != second["runs"] {
		t.Errorf("rows: first %v, second %v", first, second)
	}
	if read(filepath.Join(dir, "events", "my-query.sql")) != "SELECT 1" || read(outside) != "precious" {
		t.Error("overwrite removed or followed a file the export had not written")
	}
	n := scalar[int64](t, st, "SELECT count(*) FROM read_parquet(?, hive_partitioning = true)", filepath.Join(dir, "events", "*", "*", "*.parquet"))
	if n != second["events"] {
		t.Errorf("%d events read back after overwrite, want %d (stale files left?)", n, second["events"])
	}
	// a manifest naming a path outside the directory is refused
	write(filepath.Join(dir, store.ExportManifest), `{"files":["../precious.txt"]}`)
	if _, err := st.ExportParquet(ctx, dir, store.ExportOptions{Overwrite: true}); err == nil {
		t.Error("a manifest pointing outside the directory was followed")
	}
}

// TestExportOverwriteStaysInside is issue 31.3: a directory of a previous
// export replaced by a symbolic link to a directory elsewhere made
// --overwrite delete the file of the listed name there (exit 0). Removal
// now happens inside DIR only (os.Root), and a link left in the tree is
// refused before anything is written through it.
func TestExportOverwriteStaysInside(t *testing.T) {
	ctx := context.Background()
	st := newTestStore(t)
	if _, err := ingest.Files(ctx, st, []string{fixtures}, nil); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "lake")
	if _, err := st.ExportParquet(ctx, dir, store.ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	runs, _ := filepath.Glob(filepath.Join(dir, "runs", "*", "*", "*.parquet"))
	if len(runs) == 0 {
		t.Fatal("no runs parquet written")
	}
	// elsewhere: a directory holding a file of the written file's name
	elsewhere := t.TempDir()
	victim := filepath.Join(elsewhere, filepath.Base(runs[0]))
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	// the written file's directory becomes a link to it
	part := filepath.Dir(runs[0])
	if err := os.RemoveAll(part); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, part); err != nil {
		t.Fatal(err)
	}
	_, err := st.ExportParquet(ctx, dir, store.ExportOptions{Overwrite: true})
	if b, rerr := os.ReadFile(victim); rerr != nil || string(b) != "precious" {
		t.Fatalf("the file outside DIR was removed or changed (%v; export: %v)", rerr, err)
	}
	if err != nil {
		t.Logf("export refused: %v", err)
	}
	// whatever happened, nothing was written outside
	if es, _ := os.ReadDir(elsewhere); len(es) != 1 {
		t.Errorf("the export wrote %d entries outside DIR", len(es)-1)
	}

	// a link left in the tree (here a table directory no export listed:
	// the user's own) is refused before anything is written: DuckDB's
	// COPY would write through a link where it writes
	dir2 := filepath.Join(t.TempDir(), "lake2")
	if _, err := st.ExportParquet(ctx, dir2, store.ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	out2 := t.TempDir()
	if err := os.Symlink(out2, filepath.Join(dir2, "events", "linked")); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ExportParquet(ctx, dir2, store.ExportOptions{Overwrite: true}); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("export through a linked table directory: %v, want a refusal naming the link", err)
	}
	if es, _ := os.ReadDir(out2); len(es) != 0 {
		t.Errorf("the export wrote %d entries through the link", len(es))
	}
}
