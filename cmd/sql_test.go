package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trajmine/trajmine/internal/testutil"
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
	before := testutil.DirSums(t, dir)
	q := func(s string) string { return strings.ReplaceAll(s, "DIR", dir) }
	tests := []struct {
		query string
		msg   string // in the error
	}{
		// a statement that is not a read is refused before it runs
		// (store.CheckQuery); TestSandboxEngine checks that DuckDB's own
		// settings refuse these too, without the check
		{q("COPY (SELECT 'x') TO 'DIR/store.duckdb' (FORMAT csv)"), "COPY is refused"},
		{q("COPY (SELECT 'x') TO 'DIR/notes.txt'"), "file system operations are disabled"}, // refused when bound
		{q("COPY runs TO 'DIR/new.parquet' (FORMAT parquet)"), "file system operations are disabled"},
		{q("ATTACH 'DIR/other.duckdb' AS o (READ_WRITE)"), "ATTACH is refused"},
		{q("EXPORT DATABASE 'DIR/export'"), "file system operations are disabled"},
		{q("SELECT * FROM read_csv('DIR/notes.txt')"), "file system operations are disabled"},
		{"SELECT * FROM read_text('/etc/hostname')", "file system operations are disabled"},
		{"INSTALL httpfs", "INSTALL or LOAD is refused"},
		{"SET enable_external_access = true", "SET is refused"},
		{"SET memory_limit = '64GB'", "SET is refused"},
		{"RESET lock_configuration", "SET is refused"},
		{"PRAGMA threads = 1", "SET is refused"},
		{"DELETE FROM runs", "DELETE is refused"},
		{"DROP TABLE events", "DROP is refused"},
		{"UPDATE runs SET model = 'x'", "UPDATE is refused"},
		{"CREATE TABLE t AS SELECT 1", "CREATE is refused"},
		{"SELECT 1; DELETE FROM runs", "2 statements"},
		{"SELECT 1; SET memory_limit = '1GB'; SELECT 2", "3 statements"},
		{"   ", "0 statements"},
		// issue 31: DuckDB lets a database reach its own file, WAL and
		// temporary directory whatever the sandbox says; only a read runs
		{q("COPY (SELECT 'x' AS a) TO 'DIR/store.duckdb' (FORMAT csv, USE_TMP_FILE false)"), "COPY is refused"},
		{q("COPY (SELECT 'x' AS a) TO 'DIR/store.duckdb' (FORMAT parquet, USE_TMP_FILE false)"), "COPY is refused"},
		{q("COPY (SELECT 'x' AS a) TO 'DIR/store.duckdb.wal' (FORMAT csv)"), "COPY is refused"},
		{q("COPY (SELECT 'x' AS a) TO 'DIR/store.duckdb.wal.checkpoint' (FORMAT csv)"), "COPY is refused"},
		{q("COPY (SELECT 'x' AS a) TO 'DIR/store.duckdb.wal.recovery' (FORMAT csv)"), "COPY is refused"},
		{q("COPY (SELECT range AS a FROM range(100000)) TO 'DIR/store.duckdb.tmp/x.csv'"), "COPY is refused"},
		{q("EXPLAIN ANALYZE COPY (SELECT 'x' AS a) TO 'DIR/store.duckdb' (FORMAT csv, USE_TMP_FILE false)"), "EXPLAIN is refused"},
		{"CHECKPOINT", "CALL is refused"}, // DuckDB binds CHECKPOINT as a call
		{"PRAGMA force_checkpoint", "PRAGMA is refused"},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			_, stderr, code := run(t, d, "sql", tc.query)
			if code == 0 || !strings.Contains(stderr, tc.msg) {
				t.Errorf("exit %d, stderr %q; want a failure mentioning %q", code, stderr, tc.msg)
			}
		})
	}
	after := testutil.DirSums(t, dir)
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
	// and so do the statements DuckDB binds as a SELECT
	for _, query := range []string{"FROM runs", "SHOW TABLES", "DESCRIBE runs", "SUMMARIZE runs",
		"PRAGMA table_info('runs')", "WITH r AS (SELECT 1 AS x) SELECT x FROM r", "VALUES (1)"} {
		if _, stderr, code := run(t, d, "sql", query); code != 0 {
			t.Errorf("%s: exit %d, stderr %q", query, code, stderr)
		}
	}
	// the spill cap is in force: at most 4 GiB (TestSpillCap has the rule;
	// DuckDB's own default is 90 % of the free disk)
	stdout, stderr, code = run(t, d, "sql", "--format", "csv",
		"SELECT current_setting('max_temp_directory_size') AS m")
	var size float64
	var unit string
	if _, err := fmt.Sscanf(strings.TrimPrefix(stdout, "m\n"), "%g %s", &size, &unit); code != 0 || err != nil ||
		!(unit == "KiB" || unit == "MiB" || unit == "GiB" && size <= 4) {
		t.Errorf("spill cap: exit %d, stdout %q, stderr %q; want at most 4 GiB", code, stdout, stderr)
	}
}

// TestSQLTimeout: a query that would run for hours stops at --timeout with
// an error that says so (issue 31), and --timeout 0 is accepted.
func TestSQLTimeout(t *testing.T) {
	d := testDeps(t, nil)
	d.DB = filepath.Join(t.TempDir(), "store.duckdb")
	if _, stderr, code := run(t, d, "ingest", "--workers", "1", fixtureDir); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	start := time.Now()
	_, stderr, code := run(t, d, "sql", "--timeout", "300ms", "SELECT count(*) FROM range(1000000000000)")
	if code == 0 || !strings.Contains(stderr, "stopped after 300ms (--timeout") {
		t.Errorf("exit %d, stderr %q; want the timeout's error", code, stderr)
	}
	if el := time.Since(start); el > 20*time.Second {
		t.Errorf("the query ran %s past a 300ms timeout", el)
	}
	if _, stderr, code := run(t, d, "sql", "--timeout", "-1s", "SELECT 1"); code != 2 || !strings.Contains(stderr, "--timeout must not be negative") {
		t.Errorf("negative timeout: exit %d, stderr %q", code, stderr)
	}
	if stdout, stderr, code := run(t, d, "sql", "--timeout", "0", "--format", "csv", "SELECT 1 AS x"); code != 0 || stdout != "x\n1\n" {
		t.Errorf("--timeout 0: exit %d, stdout %q, stderr %q", code, stdout, stderr)
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

// TestSQLRedacts: a key planted in a run's id and in its tool output is
// printed redacted in every format (the text cell, the id, a list of ids,
// a table cell cut after the redaction), the query itself sees it as
// stored (the WHERE on it finds the row), and stderr says how many were
// replaced; --no-redact prints it as stored with the export's kind of
// warning.
func TestSQLRedacts(t *testing.T) {
	const key = "AKIAX66S2O4A2QPOASTV" // an AWS access key id gitleaks knows
	dir := t.TempDir()
	servedLog(t, filepath.Join(dir, "logs", "a.jsonl"), "release-"+key, "aws_access_key_id = "+key+"\nuploaded")
	d := testDeps(t, map[string]string{"COLUMNS": "200"})
	d.DB = filepath.Join(dir, "t.duckdb")
	if _, stderr, code := run(t, d, "ingest", filepath.Join(dir, "logs")); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	const q = "SELECT run_id, text, list(run_id) OVER () AS ids, seq FROM events WHERE text LIKE '%" + key + "%'"
	const marker = "[REDACTED:aws-access-token]"
	for _, format := range []string{"table", "csv", "json"} {
		stdout, stderr, code := run(t, d, "sql", "--format", format, q)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, stderr)
		}
		if strings.Contains(stdout, key) || !strings.Contains(stdout, "release-"+marker) || !strings.Contains(stdout, "aws_access_key_id = "+marker) {
			t.Errorf("%s: stdout\n%s", format, stdout)
		}
		// hand count: two events hold the key (the user message names the
		// run, and the output); per row the id, the text and the list of
		// the two rows' ids: 2 × 4
		if stderr != "8 occurrences of secrets replaced with [REDACTED:<rule>] (--no-redact keeps them)\n" {
			t.Errorf("%s: stderr %q", format, stderr)
		}
	}
	stdout, stderr, code := run(t, d, "sql", "--no-redact", "--format", "csv", q)
	if code != 0 || strings.Count(stdout, key) != 8 || strings.Contains(stdout, marker) {
		t.Errorf("--no-redact: exit %d, stdout\n%s", code, stdout)
	}
	if stderr != "warning: sql output is not redacted: its text cells are the log text as imported, secrets included (--no-redact)\n" {
		t.Errorf("--no-redact: stderr %q", stderr)
	}
	// a query without secrets says nothing on stderr
	if _, stderr, code := run(t, d, "sql", "SELECT count(*) FROM runs"); code != 0 || stderr != "" {
		t.Errorf("no secret: exit %d, stderr %q", code, stderr)
	}
}
