package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/testutil"
)

// lakeFixtures are Claude Code logs to import.
var lakeFixtures = filepath.Join(testutil.RepoRoot(), "ingest", "testdata", "claude-code")

// lakeIngest imports paths into shard 0 of 1 of the lake at dir and
// commits.
func lakeIngest(t *testing.T, dir string, paths ...string) {
	t.Helper()
	ctx := context.Background()
	st, err := OpenLake(ctx, LakeConfig{Dir: dir, Write: LakeIngest, Shard: 0, Shards: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := ingest.Files(ctx, st, paths, &ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CommitLake(ctx); err != nil {
		t.Fatal(err)
	}
}

// lakeRuns is the lake's run ids as trajmine's reader sees them.
func lakeRuns(t *testing.T, dir string) string {
	t.Helper()
	st, err := OpenLake(context.Background(), LakeConfig{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	return queryString(t, st.DB(), "SELECT string_agg(run_id, ',' ORDER BY run_id) FROM runs")
}

// globRuns is the lake's run ids as another engine sees them: every
// *.parquet file under runs/, Hive-partitioned.
func globRuns(t *testing.T, dir string) string {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	return queryString(t, db, fmt.Sprintf("SELECT string_agg(run_id, ',' ORDER BY run_id) FROM read_parquet('%s/runs/*/*.parquet', hive_partitioning = true)", dir))
}

func queryString(t *testing.T, db *sql.DB, q string) string {
	t.Helper()
	var s sql.NullString
	if err := db.QueryRow(q).Scan(&s); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return s.String
}

// TestLakeKillHelper is the child process of TestLakeKilledCommit: it
// imports $LAKE_PATHS into $LAKE_DIR and exits (status 3, no clean-up, as
// if killed) at CommitLake's stage $LAKE_KILL.
func TestLakeKillHelper(t *testing.T) {
	dir, stage := os.Getenv("LAKE_DIR"), os.Getenv("LAKE_KILL")
	if dir == "" {
		t.Skip("child process of TestLakeKilledCommit")
	}
	lakeTestHook = func(s string) {
		if s == stage {
			os.Exit(3)
		}
	}
	lakeIngest(t, dir, strings.Split(os.Getenv("LAKE_PATHS"), ",")...)
	t.Fatal("not killed")
}

// TestLakeKilledCommit: a writer killed while writing its part files, or
// after renaming them but before its commit record, leaves the lake as it
// was for trajmine's readers; killed while writing, no partial file is
// visible to other engines either (the parts are hidden temporary files);
// the shard's next commit removes what the dead writer left.
func TestLakeKilledCommit(t *testing.T) {
	one := filepath.Join(lakeFixtures, "overflow_subagent.jsonl")
	two := filepath.Join(lakeFixtures, "split_responses.jsonl")
	for _, tt := range []struct {
		stage     string
		globSeesA bool // other engines see only the old generation
	}{
		{"part", true},
		{"renamed", false},
	} {
		t.Run(tt.stage, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "lake")
			lakeIngest(t, dir, one)
			before := lakeRuns(t, dir)
			if before == "" {
				t.Fatal("no runs imported")
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestLakeKillHelper$")
			cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir(), "LAKE_DIR="+dir, "LAKE_KILL="+tt.stage, "LAKE_PATHS="+one+","+two)
			out, err := cmd.CombinedOutput()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
				t.Fatalf("child: %v\n%s", err, out)
			}
			if got := lakeRuns(t, dir); got != before {
				t.Errorf("reader after a killed commit sees %q, want %q", got, before)
			}
			if got := globRuns(t, dir); (got == before) != tt.globSeesA {
				t.Errorf("glob after a killed commit sees %q (the committed generation is %q)", got, before)
			}
			lakeIngest(t, dir, one, two)
			after := lakeRuns(t, dir)
			if after == before || !strings.Contains(after, before) {
				t.Errorf("after a new commit the reader sees %q, want %q and the second file's runs", after, before)
			}
			if got := globRuns(t, dir); got != after {
				t.Errorf("glob after the new commit sees %q, want %q", got, after)
			}
			for _, sub := range []string{"runs/shard=0-of-1", "events/shard=0-of-1", LakeMeta + "/ingest"} {
				files, _ := os.ReadDir(filepath.Join(dir, sub))
				if len(files) != 1 {
					var names []string
					for _, f := range files {
						names = append(names, f.Name())
					}
					t.Errorf("%s holds %v, want one file", sub, names)
				}
			}
		})
	}
}

// TestLakeDerivedReshard: simulate and diagnose results of another split
// (shards of another n) are removed when a shard of the new n commits; an
// importer's shards of another n are refused instead.
func TestLakeDerivedReshard(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "lake")
	lakeIngest(t, dir, lakeFixtures)
	commit := func(shard, shards int) {
		st, err := OpenLake(ctx, LakeConfig{Dir: dir, Write: LakeDiagnose, Shard: shard, Shards: shards})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if _, err := st.CommitLake(ctx); err != nil {
			t.Fatal(err)
		}
	}
	commit(0, 2)
	commit(1, 2)
	commit(0, 3)
	for _, gone := range []string{"diag_runs/shard=0-of-2", "diag_runs/shard=1-of-2", LakeMeta + "/diagnose/shard=1-of-2.json"} {
		if _, err := os.Stat(filepath.Join(dir, gone)); err == nil {
			t.Errorf("%s left after a commit of shard 0/3", gone)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, LakeMeta, "diagnose", "shard=0-of-3.json")); err != nil {
		t.Error(err)
	}
	if _, err := OpenLake(ctx, LakeConfig{Dir: dir, Write: LakeIngest, Shard: 0, Shards: 2}); err == nil || !strings.Contains(err.Error(), "holds ingest shards of 1") {
		t.Errorf("ingest shard 0/2 over shards of 1: %v", err)
	}
}

// BenchmarkLakeOpen is a reader's fixed cost: opening a lake of 4 ingest
// shards (the working database, the views, the run-id resolution) and
// copying its events for a scan. scripts/bench-lake.sh measures whole
// commands against one process.
func BenchmarkLakeOpen(b *testing.B) {
	ctx := context.Background()
	dir := filepath.Join(b.TempDir(), "lake")
	files, _ := filepath.Glob(filepath.Join(lakeFixtures, "*.jsonl"))
	for i := range 4 {
		st, err := OpenLake(ctx, LakeConfig{Dir: dir, Write: LakeIngest, Shard: i, Shards: 4})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ingest.Files(ctx, st, files, &ingest.Options{Select: func(p string) bool { return len(p)%4 == i }}); err != nil {
			b.Fatal(err)
		}
		if _, err := st.CommitLake(ctx); err != nil {
			b.Fatal(err)
		}
		st.Close()
	}
	b.ResetTimer()
	for b.Loop() {
		st, err := OpenLake(ctx, LakeConfig{Dir: dir})
		if err != nil {
			b.Fatal(err)
		}
		if err := st.lakeScanReady(ctx); err != nil {
			b.Fatal(err)
		}
		st.Close()
	}
}

// TestLakeOldParts: an ingest shard whose committed parts an earlier
// version wrote (runs and usage without the copy columns) takes a new
// import, and its readers count the resumed pair once (the pair of
// cmd/testdata/resumed: 303 + 700 input, 60 + 90 output; see
// TestResumedPairCountedOnce there).
func TestLakeOldParts(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "lake")
	pair := filepath.Join(testutil.RepoRoot(), "cmd", "testdata", "resumed")
	lakeIngest(t, dir, filepath.Join(pair, "orig.jsonl"))
	recs, err := readRecords(dir, LakeIngest)
	if err != nil || len(recs) != 1 {
		t.Fatalf("records %v, %v", recs, err)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for table, added := range map[string]string{
		"runs":  "continues_run_id, copied_calls, copied_input_tokens, copied_output_tokens, copied_cache_read_tokens, copied_cache_write_tokens, copied_reasoning_tokens",
		"usage": "copy_of_run_id, copied_input_tokens, copied_output_tokens, copied_cache_read_tokens, copied_cache_write_tokens, copied_reasoning_tokens",
	} {
		f := filepath.Join(dir, filepath.FromSlash(recs[0].Tables[table].File))
		if _, err := db.Exec(fmt.Sprintf("COPY (SELECT * EXCLUDE (%s) FROM read_parquet('%s', hive_partitioning = false)) TO '%s.old' (FORMAT parquet)", added, f, f)); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(f+".old", f); err != nil {
			t.Fatal(err)
		}
	}
	lakeIngest(t, dir, pair)
	st, err := OpenLake(ctx, LakeConfig{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for q, want := range map[string]string{
		"SELECT sum(input_tokens) || ',' || sum(output_tokens) FROM usage":                                                          "1003,150",
		"SELECT sum(input_tokens) || ',' || sum(output_tokens) FROM runs":                                                           "1003,150",
		"SELECT string_agg(run_id || ':' || coalesce(continues_run_id, '-') || ':' || copied_calls, ',' ORDER BY run_id) FROM runs": "s-orig:-:0,s-resumed:s-orig:3",
	} {
		if got := queryString(t, st.DB(), q); got != want {
			t.Errorf("%s = %s, want %s", q, got, want)
		}
	}
	if probs, err := st.Check(ctx); err != nil || len(probs) > 0 {
		t.Errorf("check: %v %v", probs, err)
	}
}
