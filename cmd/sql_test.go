package cmd

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSQLCannotWrite runs, through `trajmine sql`, each statement that could
// change the store, another store or any other file, or reach the network
// (issue 19's repros), and checks that it fails, and that afterwards the
// store, a second store and the directory are byte for byte as before.
func TestSQLCannotWrite(t *testing.T) {
	dir := t.TempDir()
	d := testDeps(t, nil)
	d.DB = filepath.Join(dir, "store.duckdb")
	if _, stderr, code := run(t, d, "ingest", "--workers", "1", fixtureDir); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	other := filepath.Join(dir, "other.duckdb")
	copyFile(t, d.DB, other)
	victim := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(victim, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := dirSums(t, dir)
	q := func(s string) string { return strings.ReplaceAll(s, "DIR", dir) }
	tests := []struct {
		query string
		msg   string // in the error
	}{
		{q("COPY (SELECT 'x') TO 'DIR/store.duckdb' (FORMAT csv)"), "file system operations are disabled"},
		{q("COPY (SELECT 'x') TO 'DIR/notes.txt'"), "file system operations are disabled"},
		{q("COPY runs TO 'DIR/new.parquet' (FORMAT parquet)"), "file system operations are disabled"},
		{q("ATTACH 'DIR/other.duckdb' AS o (READ_WRITE)"), "file system operations are disabled"},
		{q("EXPORT DATABASE 'DIR/export'"), "file system operations are disabled"},
		{q("SELECT * FROM read_csv('DIR/notes.txt')"), "file system operations are disabled"},
		{"SELECT * FROM read_text('/etc/hostname')", "file system operations are disabled"},
		{"INSTALL httpfs", "file system operations are disabled"},
		{"SET enable_external_access = true", "configuration has been locked"},
		{"SET memory_limit = '64GB'", "configuration has been locked"},
		{"RESET lock_configuration", "configuration has been locked"},
		{"PRAGMA threads = 1", "configuration has been locked"},
		{"DELETE FROM runs", "read-only"},
		{"DROP TABLE events", "read-only"},
		{"UPDATE runs SET model = 'x'", "read-only"},
		{"CREATE TABLE t AS SELECT 1", "read-only"},
		{"SELECT 1; DELETE FROM runs", "2 statements"},
		{"SELECT 1; SET memory_limit = '1GB'; SELECT 2", "3 statements"},
		{"   ", "0 statements"},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			_, stderr, code := run(t, d, "sql", tc.query)
			if code == 0 || !strings.Contains(stderr, tc.msg) {
				t.Errorf("exit %d, stderr %q; want a failure mentioning %q", code, stderr, tc.msg)
			}
		})
	}
	after := dirSums(t, dir)
	for name, sum := range before {
		if after[name] != sum {
			t.Errorf("%s changed", name)
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok {
			t.Errorf("%s was created", name)
		}
	}
	// reading still works, one statement with a trailing ';' included
	stdout, stderr, code := run(t, d, "sql", "--format", "csv", "SELECT count(*) AS n FROM runs WHERE run_id <> ';';")
	if code != 0 || stdout != "n\n3\n" { // the three runs of testdata/runs.stdout
		t.Errorf("read: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// dirSums maps each file under dir to its sha256.
func dirSums(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[p] = sha256.Sum256(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSQLTable: --format table right-aligns numbers (by their SQL type:
// NULL and text columns stay left) and cuts text cells with "…" at the
// width; numbers are never cut. Hand-laid.
func TestSQLTable(t *testing.T) {
	d := testDeps(t, map[string]string{"COLUMNS": "20"})
	d.DB = filepath.Join(t.TempDir(), "x.duckdb")
	if _, stderr, code := run(t, d, "ingest", "--workers", "1", fixtureDir); code != 0 {
		t.Fatal(stderr)
	}
	q := "SELECT * FROM (VALUES ('a-long-text-value-that-goes-on', 7, NULL), ('b', 1234, NULL)) v(name, n, x) ORDER BY n"
	stdout, stderr, code := run(t, d, "sql", q)
	if code != 0 {
		t.Fatal(stderr)
	}
	// 20 columns: n 4 and x 4 (NULL) and two gaps of 2 leave name 8:
	// 7 characters and "…"
	want := "name         n  x\n" +
		"a-long-…     7  NULL\n" +
		"b         1234  NULL\n"
	if stdout != want {
		t.Errorf("got\n%s\nwant\n%s", stdout, want)
	}
}
