package store_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/schema"
)

// forModes runs a test with small files committed in batches (the default)
// and with every file streamed in its own transaction.
func forModes(t *testing.T, f func(t *testing.T, small int64)) {
	t.Run("batched", func(t *testing.T) { f(t, 0) })
	t.Run("streamed", func(t *testing.T) { f(t, -1) })
}

func newTestStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), store.Config{Path: ""})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mustCheck(t, st); st.Close() })
	return st
}

// mustCheck fails the test when the store breaks a consistency rule
// (Store.Check): every test's store is checked when the test ends.
func mustCheck(t *testing.T, st *store.Store) {
	t.Helper()
	probs, err := st.Check(context.Background())
	if err != nil {
		t.Errorf("check: %v", err)
	}
	for _, p := range probs {
		t.Errorf("store inconsistent: %v", p)
	}
}

// newFileStore is a store in a database file of its own (the chunks
// reader needs one).
func newFileStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), store.Config{Path: filepath.Join(t.TempDir(), "t.duckdb")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mustCheck(t, st); st.Close() })
	return st
}

func counts(t *testing.T, st *store.Store) map[string]int64 {
	t.Helper()
	c, err := st.Counts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func scalar[T any](t *testing.T, st *store.Store, q string, args ...any) T {
	t.Helper()
	var v T
	if err := st.DB().QueryRowContext(context.Background(), q, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return v
}

var fixtures = filepath.Join(testutil.RepoRoot(), "ingest", "testdata", "claude-code")

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestIngestRoundTripAndIdempotence(t *testing.T) { forModes(t, testIngestRoundTripAndIdempotence) }

func testIngestRoundTripAndIdempotence(t *testing.T, small int64) {
	ctx := context.Background()
	st := newTestStore(t)
	var warnings []string
	opts := &ingest.Options{SmallFile: small, Warn: func(err error) { warnings = append(warnings, err.Error()) }}
	sum, err := ingest.Files(ctx, st, []string{fixtures}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Files != 2 || sum.Failed != 0 || sum.Rejects != 1 {
		t.Fatalf("summary = %+v", sum)
	}
	if len(warnings) != 1 || !strings.HasSuffix(warnings[0], "overflow_subagent.jsonl:9: record is not a JSON object") {
		t.Errorf("warnings = %q", warnings)
	}
	first := counts(t, st)
	want := map[string]int64{"sources": 2, "runs": 3, "events": 20, "usage": 6, "tool_outputs": 5, "context_ops": 3, "rejects": 1, "outcomes": 0}
	if diff := cmp.Diff(want, first); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	// the run row round-trips with its totals
	runs, err := st.Runs(ctx, store.RunFilter{RunID: "s-split"})
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs = %v, %v", runs, err)
	}
	r := runs[0]
	if r.InputTokens != 36315 || r.OutputTokens != 234 || r.CacheReadTokens != 29000 || r.CacheWriteTokens != 7300 || r.NTurns != 3 || r.ModelFamily != "claude-sonnet-4" {
		t.Errorf("run s-split = %+v", r)
	}
	sum, err = ingest.Files(ctx, st, []string{fixtures}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Files != 0 || sum.Skipped != 2 {
		t.Errorf("second ingest summary = %+v, want 2 skipped", sum)
	}
	if diff := cmp.Diff(first, counts(t, st)); diff != "" {
		t.Errorf("re-ingest changed counts (-first +second):\n%s", diff)
	}
}

func TestStrictFailureKeepsNothingFromThatFile(t *testing.T) {
	forModes(t, testStrictFailureKeepsNothingFromThatFile)
}

func testStrictFailureKeepsNothingFromThatFile(t *testing.T, small int64) {
	ctx := context.Background()
	st := newTestStore(t)
	sum, err := ingest.Files(ctx, st, []string{fixtures}, &ingest.Options{Strict: true, SmallFile: small})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Files != 1 || sum.Failed != 1 || len(sum.Errors) != 1 || !strings.Contains(sum.Errors[0].Error(), "overflow_subagent.jsonl:9:") {
		t.Fatalf("summary = %+v", sum)
	}
	c := counts(t, st)
	if c["sources"] != 1 || c["runs"] != 1 || c["rejects"] != 0 {
		t.Errorf("counts after strict failure = %v, want only split_responses.jsonl", c)
	}
	if n := scalar[int64](t, st, "SELECT count(*) FROM events WHERE run_id LIKE 's-main%'"); n != 0 {
		t.Errorf("%d events of the failed file were kept", n)
	}
}

func TestChangedFileReplacesItsRuns(t *testing.T) { forModes(t, testChangedFileReplacesItsRuns) }

func testChangedFileReplacesItsRuns(t *testing.T, small int64) {
	ctx := context.Background()
	st := newTestStore(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "session.jsonl")
	src, _ := os.ReadFile(filepath.Join(fixtures, "split_responses.jsonl"))
	lines := strings.SplitAfter(string(src), "\n")
	if err := os.WriteFile(p, []byte(strings.Join(lines[:6], "")), 0o644); err != nil { // the session so far
		t.Fatal(err)
	}
	if _, err := ingest.Files(ctx, st, []string{p}, &ingest.Options{SmallFile: small}); err != nil {
		t.Fatal(err)
	}
	if n := scalar[int64](t, st, "SELECT n_turns FROM runs"); n != 1 {
		t.Fatalf("partial session turns = %d", n)
	}
	copyFile(t, filepath.Join(fixtures, "split_responses.jsonl"), p) // the session grew
	if _, err := ingest.Files(ctx, st, []string{p}, &ingest.Options{SmallFile: small}); err != nil {
		t.Fatal(err)
	}
	c := counts(t, st)
	if c["runs"] != 1 || c["sources"] != 1 || c["events"] != 11 || c["usage"] != 3 {
		t.Errorf("after re-import of grown file: %v", c)
	}
	if id := scalar[string](t, st, "SELECT run_id FROM runs"); id != "s-split" {
		t.Errorf("run id = %q, want s-split (not suffixed)", id)
	}
}

func TestRunIDCollisionAcrossFiles(t *testing.T) { forModes(t, testRunIDCollisionAcrossFiles) }

func testRunIDCollisionAcrossFiles(t *testing.T, small int64) {
	ctx := context.Background()
	st := newTestStore(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	copyFile(t, filepath.Join(fixtures, "split_responses.jsonl"), a)
	data, _ := os.ReadFile(a)
	// same session id, different content: a different file claims the same run id
	if err := os.WriteFile(b, []byte(strings.Replace(string(data), "Fix the failing test", "Fix the broken test", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Files(ctx, st, []string{a}, &ingest.Options{SmallFile: small}); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Files(ctx, st, []string{b}, &ingest.Options{SmallFile: small}); err != nil {
		t.Fatal(err)
	}
	ids := scalar[string](t, st, "SELECT string_agg(run_id, ',' ORDER BY run_id) FROM runs")
	if !strings.HasPrefix(ids, "s-split,s-split@") {
		t.Errorf("run ids = %q, want s-split and s-split@<sha8>", ids)
	}
	if n := scalar[int64](t, st, "SELECT count(DISTINCT run_id) FROM events"); n != 2 {
		t.Errorf("events belong to %d runs, want 2", n)
	}
}

func TestRollbackDiscardsAppendedRows(t *testing.T) {
	ctx := context.Background()
	st := newTestStore(t)
	tx, err := st.Begin(ctx, &schema.Source{Path: "x", SHA256: "abc"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5000 { // more than one appender chunk
		if err := tx.Event(&schema.Event{RunID: "r", Seq: int64(i), Kind: schema.KindUser, Text: "hello"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if c := counts(t, st); c["events"] != 0 || c["sources"] != 0 {
		t.Errorf("after rollback: %v", c)
	}
}

func TestExportParquet(t *testing.T) {
	ctx := context.Background()
	st := newTestStore(t)
	if _, err := ingest.Files(ctx, st, []string{fixtures}, nil); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	got, err := st.ExportParquet(ctx, dir, store.ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(counts(t, st), got); diff != "" {
		t.Errorf("exported rows (-db +parquet):\n%s", diff)
	}
	for _, tbl := range []string{"runs", "events", "usage", "tool_outputs", "context_ops"} {
		glob := filepath.Join(dir, tbl, "*", "*", "*.parquet")
		n := scalar[int64](t, st, "SELECT count(*) FROM read_parquet(?, hive_partitioning = true) WHERE source_format = 'claude-code' AND model_family <> ''", glob)
		if n != got[tbl] {
			t.Errorf("%s: %d rows read back from %s, want %d", tbl, n, glob, got[tbl])
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "runs", "source_format=claude-code", "model_family=claude-sonnet-4")); err != nil {
		t.Errorf("hive partition directory missing: %v", err)
	}
}

func TestCalibrationPoints(t *testing.T) {
	ctx := context.Background()
	st := newTestStore(t)
	if _, err := ingest.Files(ctx, st, []string{filepath.Join(fixtures, "split_responses.jsonl")}, nil); err != nil {
		t.Fatal(err)
	}
	pts, err := st.CalibrationPoints(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// turns 0 and 1 precede the compaction (turn 2); turn 0 saw seq 0, turn 1
	// saw seq 0–5 (everything of turn 0 and the inputs of turn 1).
	est := func(q string) int64 { return scalar[int64](t, st, q) }
	want := []store.CalibrationPoint{
		{SourceFormat: "claude-code", ModelFamily: "claude-sonnet-4", Estimator: "chars4", Logged: 17003, Estimated: est("SELECT est_tokens FROM events WHERE seq = 0")},
		{SourceFormat: "claude-code", ModelFamily: "claude-sonnet-4", Estimator: "chars4", Logged: 17302, Estimated: est("SELECT sum(est_tokens) FROM events WHERE seq <= 5")},
	}
	if diff := cmp.Diff(want, pts); diff != "" {
		t.Errorf("points (-want +got):\n%s", diff)
	}
}

// TestCorpusIngest is the foundation's acceptance check on the real corpus:
// every well-formed file imports, the malformed line of edge_cases.jsonl is in
// rejects with its line number, and ingesting again changes no count.
func TestCorpusIngest(t *testing.T) {
	ctx := context.Background()
	dirs := []string{testutil.Corpus(t, "claude-code"), testutil.Corpus(t, "codex-cli"), testutil.Corpus(t, "openai-chat-messages")}
	st := newTestStore(t)
	sum, err := ingest.Files(ctx, st, dirs, nil)
	if err != nil {
		t.Fatal(err)
	}
	var all int
	for _, d := range dirs {
		fs, _ := os.ReadDir(d)
		all += len(fs)
	}
	if sum.Failed != 0 || sum.Files != all {
		t.Fatalf("imported %d of %d files, %d failed: %v", sum.Files, all, sum.Failed, sum.Errors)
	}
	n := scalar[int64](t, st, "SELECT count(*) FROM rejects WHERE source_path LIKE '%edge_cases.jsonl' AND line = 11")
	if n != 1 {
		t.Errorf("edge_cases.jsonl:11 rejects = %d, want 1", n)
	}
	codexUsage := scalar[int64](t, st, "SELECT count(*) FROM usage u JOIN runs r USING (run_id) WHERE r.source_format = 'codex-cli'")
	if codexUsage == 0 {
		t.Error("codex runs carry no per-call usage")
	}
	first := counts(t, st)
	sum, err = ingest.Files(ctx, st, dirs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Skipped != all {
		t.Errorf("second ingest skipped %d of %d", sum.Skipped, all)
	}
	if diff := cmp.Diff(first, counts(t, st)); diff != "" {
		t.Errorf("second ingest changed counts:\n%s", diff)
	}
}

// TestTextStoredWithZstd checks that a database file trajmine creates stores
// events.text and events.args with zstd (schema.Column.Compression): DuckDB
// writes them so only in storage format 1.2 or later (storageVersion).
func TestTextStoredWithZstd(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "z.duckdb")
	st, err := store.Open(ctx, store.Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := ingest.Files(ctx, st, []string{fixtures}, &ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.DB().ExecContext(ctx, "CHECKPOINT"); err != nil {
		t.Fatal(err)
	}
	for _, col := range []string{"text", "args"} {
		got := scalar[string](t, st, "SELECT string_agg(DISTINCT compression, ',' ORDER BY compression) FROM pragma_storage_info('events') WHERE column_name = ? AND segment_type = 'VARCHAR'", col)
		if got != "ZSTD" {
			t.Errorf("events.%s stored as %q, want ZSTD", col, got)
		}
	}
}

// TestQuickCheckSkipsUnchangedFiles: a file recorded with the same path and
// size and not modified since its import is skipped without being read;
// one modified since is hashed again; --rehash (Options.Rehash) hashes all.
func TestQuickCheckSkipsUnchangedFiles(t *testing.T) {
	ctx := context.Background()
	st := newTestStore(t)
	p := filepath.Join(t.TempDir(), "session.jsonl")
	copyFile(t, filepath.Join(fixtures, "split_responses.jsonl"), p)
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Files(ctx, st, []string{p}, nil); err != nil {
		t.Fatal(err)
	}
	// same size, other bytes, the old modification time: the quick check
	// calls it unchanged, so its content is not read
	b, _ := os.ReadFile(p)
	changed := strings.ReplaceAll(string(b), "s-split", "s-spl1t")
	if len(changed) != len(b) || changed == string(b) {
		t.Fatal("fixture lacks s-split")
	}
	if err := os.WriteFile(p, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	sum, err := ingest.Files(ctx, st, []string{p}, nil)
	if err != nil || sum.Skipped != 1 || sum.Files != 0 {
		t.Fatalf("quick check: %+v, %v; want the file skipped", sum, err)
	}
	// modified after its import: hashed, and its new content imported
	now := time.Now()
	if err := os.Chtimes(p, now, now); err != nil {
		t.Fatal(err)
	}
	if sum, err := ingest.Files(ctx, st, []string{p}, nil); err != nil || sum.Files != 1 {
		t.Fatalf("modified file: %+v, %v; want it imported", sum, err)
	}
	if id := scalar[string](t, st, "SELECT string_agg(run_id, ',') FROM runs WHERE run_id LIKE 's-spl%'"); id != "s-spl1t" {
		t.Errorf("runs after the modified file's import = %q, want s-spl1t", id)
	}
	// Rehash reads every file: the same content is found by its sha256
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	sum, err = ingest.Files(ctx, st, []string{p}, &ingest.Options{Rehash: true})
	if err != nil || sum.Skipped != 1 {
		t.Fatalf("rehash: %+v, %v", sum, err)
	}
}
