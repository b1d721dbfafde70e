package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/internal/testutil"
)

// TestSandboxEngine runs statements that would write or reach outside the
// store straight on a sandboxed store's connection, without CheckQuery:
// DuckDB's own settings (sandboxOptions) must refuse each, so that the
// statement check is a second wall, not the only one. (The one hole in
// the first wall, a COPY to the store's own file, WAL or temporary
// directory, is CheckQuery's: TestCheckQuery.)
func TestSandboxEngine(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := newStoreFile(t, dir)
	victim := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(victim, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := testutil.DirSums(t, dir)
	s, err := Open(ctx, Config{Path: path, Sandbox: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	q := func(x string) string { return strings.ReplaceAll(x, "DIR", dir) }
	tests := []struct{ query, msg string }{
		{q("COPY (SELECT 'x') TO 'DIR/notes.txt'"), "file system operations are disabled"},
		{q("COPY (SELECT 'x') TO 'DIR/store.duckdb' (FORMAT csv)"), "file system operations are disabled"},
		{q("ATTACH 'DIR/other.duckdb' AS o"), "file system operations are disabled"},
		{q("EXPORT DATABASE 'DIR/export'"), "file system operations are disabled"},
		{"SELECT * FROM read_text('/etc/hostname')", "file system operations are disabled"},
		{"INSTALL httpfs", "file system operations are disabled"},
		{"SET enable_external_access = true", "configuration has been locked"},
		{"SET max_temp_directory_size = '1TB'", "configuration has been locked"},
		{"RESET lock_configuration", "configuration has been locked"},
		{"DELETE FROM runs", "read-only"},
		{"DROP TABLE events", "read-only"},
		{"CREATE TABLE t AS SELECT 1", "read-only"},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			_, err := s.DB().ExecContext(ctx, tc.query)
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("err = %v; want one mentioning %q", err, tc.msg)
			}
		})
	}
	after := testutil.DirSums(t, dir)
	for name, sum := range before {
		if after[name] != sum {
			t.Errorf("%s changed", name)
		}
	}
}

// TestCheckQuery: a statement that only reads passes; any other is
// refused by name, the COPY repros of issue 31 among them, however
// they are written; several statements are refused by count.
func TestCheckQuery(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := newStoreFile(t, dir)
	s, err := Open(ctx, Config{Path: path, Sandbox: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	q := func(x string) string { return strings.ReplaceAll(x, "DIR", dir) }
	tests := []struct{ query, err string }{ // err "" = allowed
		{"SELECT count(*) FROM runs", ""},
		{"from runs", ""},
		{"SHOW TABLES", ""},
		{"SUMMARIZE events", ""},
		{"PRAGMA database_size", ""},
		{"SELECT 1;", ""},
		{q("COPY (SELECT 'x' AS a) TO 'DIR/store.duckdb' (FORMAT csv, USE_TMP_FILE false)"), "COPY is refused"},
		{q("/* hidden */ copy (SELECT 'x' AS a) TO 'DIR/store.duckdb.wal' (FORMAT parquet)"), "COPY is refused"},
		{q("EXPLAIN ANALYZE COPY (SELECT 1) TO 'DIR/store.duckdb' (FORMAT csv, USE_TMP_FILE false)"), "EXPLAIN is refused"},
		{"EXPLAIN SELECT 1", "EXPLAIN is refused"},
		{"CALL pragma_version()", "CALL is refused"},
		{"PRAGMA force_checkpoint", "PRAGMA is refused"},
		{"SELECT 1; SELECT 2", "2 statements"},
		{"SELEKT 1", "syntax error"},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			err := s.CheckQuery(tc.query)
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("err = %v; want one mentioning %q", err, tc.err)
			}
		})
	}
}

// newStoreFile creates an empty store file in dir and returns its path.
func newStoreFile(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "store.duckdb")
	s, err := Open(context.Background(), Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	return path
}
