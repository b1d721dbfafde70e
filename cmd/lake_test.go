package cmd

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/schema"
	"github.com/trajmine/trajmine/synth"
)

// lakeCollision are the last lakeCorpus's two files claiming one run id,
// in path order: one process keeps the id for the first and names the
// second's run id@sha8.
var lakeCollision [2]string

// lakeCopy are the last lakeCorpus's two byte-identical files, in path
// order: one process imports the first and skips the second.
var lakeCopy [2]string

// lakeCorpus writes a mixed corpus: distinct synth runs of three formats
// and the shared corpus's Claude Code and Codex CLI files.
func lakeCorpus(t *testing.T, n int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "corpus")
	if _, err := synth.Write(filepath.Join(dir, "synth"), &synth.Options{N: n, Seed: 31}); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"claude-code", "codex-cli"} {
		files, _ := filepath.Glob(filepath.Join(testutil.CorpusDir(t), sub, "*"))
		if len(files) == 0 {
			t.Fatalf("no shared corpus files in %s", sub)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			dst := filepath.Join(dir, "shared", sub, filepath.Base(f))
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dst, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	// a second version of one Claude Code session under another path, in
	// another shard of 4: two shards claim its run id
	logs, _ := filepath.Glob(filepath.Join(dir, "synth", "claude-code", "projects", "*", "*.jsonl"))
	for _, f := range logs {
		rel, _ := filepath.Rel(dir, f)
		dup := filepath.Join("copies", filepath.Base(f))
		if IngestShard([]string{dir}, f, 4) == IngestShard([]string{dir}, filepath.Join(dir, dup), 4) {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `"cwd":"`) {
			continue
		}
		b = []byte(strings.Replace(string(b), `"cwd":"`, `"cwd":"/copy`, 1))
		if err := os.MkdirAll(filepath.Join(dir, "copies"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, dup), b, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s is a second version of %s", dup, rel)
		lakeCollision = [2]string{filepath.Join(dir, dup), f}
		break
	}
	if lakeCollision[0] == "" {
		t.Fatal("no Claude Code log to copy into another shard")
	}
	// a byte-identical copy of a Codex log under another path, in another
	// shard: one process imports the first path and skips the second
	logs, _ = filepath.Glob(filepath.Join(dir, "synth", "codex", "*", "*", "*", "*", "*.jsonl"))
	for _, f := range logs {
		cp := filepath.Join(dir, "copies", "same-"+filepath.Base(f))
		if IngestShard([]string{dir}, f, 4) == IngestShard([]string{dir}, cp, 4) {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cp, b, 0o644); err != nil {
			t.Fatal(err)
		}
		lakeCopy = [2]string{cp, f}
		return dir
	}
	t.Fatalf("no Codex log to copy into another shard (of %d)", len(logs))
	return ""
}

// addRewards puts a Harbor verifier/reward.json (an outcome file, keyed by
// the folder above it) in every folder of dir's synth logs, rewards 1 and 0
// by turns: byte-identical files at many paths (path-keyed: each is
// imported), whose rows match runs in other shards.
func addRewards(t *testing.T, dir string) {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(filepath.Join(dir, "synth"), func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || seen[filepath.Dir(p)] {
			return err
		}
		seen[filepath.Dir(p)] = true
		reward := fmt.Sprintf(`{"reward": %d}`, len(seen)%2)
		v := filepath.Join(filepath.Dir(p), "verifier")
		if err := os.MkdirAll(v, 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(v, "reward.json"), []byte(reward), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// runShards runs `trajmine --lake lake ARGS --shard i/n` for i = 0 … n−1
// at once, each with its own Deps (its own working database), and fails on
// any non-zero exit.
func runShards(t *testing.T, lake string, n int, args ...string) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := testDeps(t, nil)
			a := append([]string{"--lake", lake}, args...)
			a = append(a, "--shard", fmt.Sprintf("%d/%d", i, n))
			if _, e, code := run(t, d, a...); code != 0 {
				errs[i] = fmt.Sprintf("shard %d/%d: %v: exit %d: %s", i, n, a, code, e)
			}
		}()
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Fatal(e)
		}
	}
}

// lakeTables are every table a lake holds.
func lakeTables() []schema.Table {
	var out []schema.Table
	for _, g := range []store.LakeGroup{store.LakeIngest, store.LakeSimulate, store.LakeDiagnose} {
		out = append(out, g.Tables()...)
	}
	return out
}

// varying are the columns that differ between two imports of the same files.
var varying = map[string][]string{schema.TableSources: {"ingested_at"}}

// asLogged are the columns of runs or usage with each token count as
// logged (counted + copied) and without the copy marks: an ingest shard
// marks the copies among its own files, trajmine's readers across the
// lake (store.MarkCopies), so plain DuckDB over the files sees the marks
// of a resumed session whose origin is in another shard unmade; what the
// logs say is the same. "" for the other tables.
//
// Likewise the outcomes: a shard applies the outcome rows of its own files
// to its own runs, trajmine's readers across the lake (store.ApplyOutcomes),
// so runs are compared with their log's outcome (log_resolved) and without
// resolved, score and outcome_source, and outcome rows without their
// counts of runs (n_runs, n_applied).
func asLogged(tb schema.Table) string {
	names := tb.ColumnNames()
	if tb.Name == schema.TableOutcomes {
		return strings.Join(slices.DeleteFunc(names, func(c string) bool { return c == "n_runs" || c == "n_applied" }), ", ")
	}
	if tb.Name != schema.TableRuns && tb.Name != schema.TableUsage {
		return ""
	}
	var cols []string
	for _, c := range names {
		switch {
		case c == "copy_of_run_id" || c == "continues_run_id" || strings.HasPrefix(c, "copied_"):
		case tb.Name == schema.TableRuns && (c == "resolved" || c == "score" || c == "outcome_source"):
		case slices.Contains(names, "copied_"+c):
			cols = append(cols, c+" + copied_"+c+" AS "+c)
		default:
			cols = append(cols, c)
		}
	}
	return strings.Join(cols, ", ")
}

// dumpRows is every row of the query, ordered, one string per row.
func dumpRows(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.Query(q + " ORDER BY ALL")
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var out []string
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		cells := make([]string, len(vals))
		for i, v := range vals {
			cells[i] = cellString(v)
		}
		out = append(out, strings.Join(cells, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLakeShardsEqualOneProcess: 4 concurrent shard processes ingesting,
// then simulating, then diagnosing into a lake give, table by table and
// row by row, what one process gives in a DuckDB file. The lake is read by
// plain DuckDB (read_parquet with Hive partitioning, no trajmine code), so
// this is also the test that other engines can read it.
func TestLakeShardsEqualOneProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("imports a corpus five times")
	}
	corpus := lakeCorpus(t, 48)
	addRewards(t, corpus)
	tmp := t.TempDir()
	lake, dbPath := filepath.Join(tmp, "lake"), filepath.Join(tmp, "one.duckdb")
	sim := []string{"simulate", "--policy", "halflife(cap=8000)", "--window", "32768,own"}

	// --workers 1: a run id two files claim goes to the first in path order,
	// in one process as in a shard (parallel workers commit in any order)
	runShards(t, lake, 4, "ingest", "--workers", "1", corpus)
	runShards(t, lake, 4, sim...)
	runShards(t, lake, 4, "diagnose")

	d := testDeps(t, nil)
	d.DB = dbPath
	for _, args := range [][]string{{"ingest", "--workers", "1", corpus}, sim, {"diagnose"}} {
		if _, e, code := run(t, d, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, e)
		}
	}

	one, err := sql.Open("duckdb", dbPath+"?access_mode=read_only")
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	plain, err := sql.Open("duckdb", "") // plain DuckDB: no trajmine code reads the lake
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	reader, err := store.OpenLake(context.Background(), store.LakeConfig{Dir: lake})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	// the colliding files as the lake's plain files say: the second's
	// shard, run id and sha256
	var second struct{ shard, id, sha8 string }
	runsSrc := fmt.Sprintf("read_parquet('%s/runs/*/*.parquet', hive_partitioning = true)", lake)
	if err := plain.QueryRow("SELECT shard, run_id, left(source_sha256, 8) FROM "+runsSrc+" WHERE source_path = ?", lakeCollision[1]).Scan(&second.shard, &second.id, &second.sha8); err != nil {
		t.Fatal(err)
	}
	// the skipped copy: its shard and run ids
	var skipped struct{ shard, ids string }
	if err := plain.QueryRow("SELECT any_value(shard), string_agg('''' || run_id || '''', ',') FROM "+runsSrc+" WHERE source_path = ?", lakeCopy[1]).Scan(&skipped.shard, &skipped.ids); err != nil {
		t.Fatal(err)
	}
	var claims, shardsClaiming int
	if err := plain.QueryRow("SELECT count(*), count(DISTINCT shard) FROM "+runsSrc+" WHERE run_id = ?", second.id).Scan(&claims, &shardsClaiming); err != nil {
		t.Fatal(err)
	}
	if claims != 2 || shardsClaiming != 2 {
		t.Fatalf("run id %s: %d rows in %d shards; the test needs two shards claiming it", second.id, claims, shardsClaiming)
	}
	for _, tb := range lakeTables() {
		t.Run(tb.Name, func(t *testing.T) {
			cols := strings.Join(tb.ColumnNames(), ", ")
			if ex := varying[tb.Name]; len(ex) > 0 {
				cols = "* EXCLUDE (" + strings.Join(ex, ", ") + ")"
			}
			if tb.Name == schema.RunProfiles.Name {
				// a profile names its run as its shard imported it: the run id
				// two shards claim is renamed by the reader, not inside the
				// JSON (mine profiles that run again: the mine --json below)
				cols = `run_id, source_sha256, profiled_by, regexp_replace(profile, '^\{"run_id":"[^"]*",', '{') AS profile`
			}
			src := fmt.Sprintf("read_parquet('%s/%s/*/*.parquet', hive_partitioning = true, union_by_name = true)", lake, tb.Name)
			want := dumpRows(t, one, "SELECT "+cols+" FROM "+tb.Name)
			if len(want) == 0 {
				t.Fatalf("%s is empty in the single-process database: the comparison proves nothing", tb.Name)
			}
			// trajmine's reader: the run id two shards claim resolved
			got := dumpRows(t, reader.DB(), "SELECT "+cols+" FROM "+tb.Name)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s: lake through trajmine (+) differs from one process (-):\n%s", tb.Name, diff)
			}
			// plain DuckDB over the files: the second file's rows (its shard,
			// the id) hold the id as logged, renamed here by hand
			plainSrc := src
			ingestTable := slices.ContainsFunc(store.LakeIngest.Tables(), func(x schema.Table) bool { return x.Name == tb.Name })
			switch {
			case ingestTable && slices.Contains(tb.ColumnNames(), schema.ColRunID):
				src = "(SELECT * FROM " + src + " WHERE NOT (shard = '" + skipped.shard + "' AND run_id IN (" + skipped.ids + ")))"
			case ingestTable:
				src = "(SELECT * FROM " + src + " WHERE NOT (shard = '" + skipped.shard + "' AND source_path = '" + lakeCopy[1] + "'))"
			}
			plainSrc = src
			if slices.Contains(tb.ColumnNames(), schema.ColRunID) && ingestTable {
				rename := func(col string) string {
					return fmt.Sprintf("CASE WHEN shard = '%s' AND %s = '%s' THEN %s || '@%s' ELSE %s END AS %s", second.shard, col, second.id, col, second.sha8, col, col)
				}
				repl := rename("run_id")
				if slices.Contains(tb.ColumnNames(), "parent_run_id") {
					repl += ", " + rename("parent_run_id")
				}
				plainSrc = "(SELECT * REPLACE (" + repl + ") FROM " + src + ")"
			}
			if logged := asLogged(tb); logged != "" {
				cols, want = logged, dumpRows(t, one, "SELECT "+logged+" FROM "+tb.Name)
			}
			got = dumpRows(t, plain, "SELECT "+strings.Replace(cols, "* EXCLUDE (", "* EXCLUDE (shard, ", 1)+" FROM "+plainSrc)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s: lake read by plain DuckDB (+) differs from one process (-):\n%s", tb.Name, diff)
			}
			var shards int
			if err := plain.QueryRow("SELECT count(DISTINCT shard) FROM " + src).Scan(&shards); err != nil {
				t.Fatal(err)
			}
			if shards != 4 && tb.Name != schema.TableRejects && tb.Name != schema.UsesRuns.Name && tb.Name != schema.OutputUses.Name {
				// the corpus's few rejects are in one file, its few runs that
				// disable outputs (whose uses are stored) in one shard
				t.Errorf("%s: %d distinct shard partitions, want 4", tb.Name, shards)
			}
		})
	}

	// the comparison of usage and runs proves the reader marks copies
	// across shards: the second version of a session (lakeCollision) copies
	// the first's responses from another shard, so one process marks more
	// copies than the shards did on their own
	copies := "SELECT count(*) FROM %s WHERE copy_of_run_id IS NOT NULL"
	var inOne, inShards int
	if err := one.QueryRow(fmt.Sprintf(copies, "usage")).Scan(&inOne); err != nil {
		t.Fatal(err)
	}
	if err := plain.QueryRow(fmt.Sprintf(copies, fmt.Sprintf("read_parquet('%s/usage/*/*.parquet')", lake))).Scan(&inShards); err != nil {
		t.Fatal(err)
	}
	if inOne <= inShards {
		t.Errorf("%d copied usage rows in one process, %d marked by the shards: the lake holds no resumed pair across shards", inOne, inShards)
	}
	// and that it applies outcome files across shards: a reward.json and
	// the runs in its folder mostly lie in two shards, so one process
	// gives more runs an outcome from a file than the shards did
	fromFiles := "SELECT count(*) FROM %s WHERE outcome_source <> 'log'"
	if err := one.QueryRow(fmt.Sprintf(fromFiles, "runs")).Scan(&inOne); err != nil {
		t.Fatal(err)
	}
	if err := plain.QueryRow(fmt.Sprintf(fromFiles, fmt.Sprintf("read_parquet('%s/runs/*/*.parquet')", lake))).Scan(&inShards); err != nil {
		t.Fatal(err)
	}
	if inOne <= inShards {
		t.Errorf("%d runs given an outcome by a file in one process, %d by the shards: no outcome file lies in another shard than its runs", inOne, inShards)
	}
	one.Close() // DuckDB refuses the file to the CLI below while open with other options
	// trajmine's own readers over the lake: sql, runs, check, recommend
	q := "SELECT count(*), count(DISTINCT run_id), sum(n_turns) FROM runs"
	d1 := testDeps(t, nil)
	d1.DB = dbPath
	wantOut, _, _ := run(t, d1, "sql", "--format", "csv", q)
	dl := testDeps(t, nil)
	dl.Lake = lake
	gotOut, e, code := run(t, dl, "sql", "--format", "csv", q)
	if code != 0 || gotOut != wantOut {
		t.Errorf("sql over the lake = %q (exit %d, %s), want %q", gotOut, code, e, wantOut)
	}
	// mine: the lake has no stored uses (the database has): the same result
	for _, args := range [][]string{{"check"}, {"recommend"}, {"runs"}, {"diagnose", "--no-save"}, {"mine", "--json"}} {
		wantOut, _, _ := run(t, d1, args...)
		gotOut, e, code := run(t, dl, args...)
		if code != 0 {
			t.Errorf("%v over the lake: exit %d: %s", args, code, e)
		}
		if gotOut != wantOut {
			t.Errorf("%v over the lake differs from the database:\n%s", args, cmp.Diff(wantOut, gotOut))
		}
	}
}

// TestLakeShardRerunIdempotent: re-running a shard replaces its part files
// (one generation left) and leaves the lake's rows as they were.
func TestLakeShardRerunIdempotent(t *testing.T) {
	corpus := lakeCorpus(t, 12)
	lake := filepath.Join(t.TempDir(), "lake")
	runShards(t, lake, 2, "ingest", corpus)
	d := testDeps(t, nil)
	d.Lake = lake
	q := "SELECT run_id, source_sha256, n_turns FROM runs ORDER BY run_id"
	before, _, _ := run(t, d, "sql", "--format", "csv", q)
	if strings.Count(before, "\n") < 10 {
		t.Fatalf("too few runs to test: %q", before)
	}
	if _, e, code := run(t, d, "ingest", "--shard", "1/2", corpus); code != 0 {
		t.Fatalf("re-run: exit %d: %s", code, e)
	}
	if _, e, code := run(t, d, "ingest", "--shard", "1/2", "--rehash", corpus); code != 0 {
		t.Fatalf("re-run --rehash: exit %d: %s", code, e)
	}
	after, _, _ := run(t, d, "sql", "--format", "csv", q)
	if after != before {
		t.Errorf("after re-running shard 1/2:\n%s", cmp.Diff(before, after))
	}
	for _, tb := range schema.Tables {
		parts, _ := filepath.Glob(filepath.Join(lake, tb.Name, "shard=1-of-2", "*"))
		if len(parts) != 1 || !strings.HasSuffix(parts[0], ".parquet") {
			t.Errorf("%s/shard=1-of-2 holds %v, want one part file", tb.Name, parts)
		}
	}
}

// TestLakeUsage: the misuses are refused with a message saying what to do.
func TestLakeUsage(t *testing.T) {
	corpus := lakeCorpus(t, 4)
	tmp := t.TempDir()
	lake := filepath.Join(tmp, "lake")
	notLake := filepath.Join(tmp, "other")
	if err := os.MkdirAll(notLake, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(notLake, "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := testDeps(t, nil)
	d.Lake = lake
	if _, e, code := run(t, d, "ingest", "--shard", "0/2", corpus); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, e)
	}
	parts, _ := filepath.Glob(filepath.Join(lake, "runs", "shard=*", "*.parquet"))
	if len(parts) == 0 {
		t.Fatal("no runs part file")
	}
	part := parts[0]
	tests := []struct {
		name string
		db   string
		lake string
		args []string
		code int
		msg  string
	}{
		{"db and lake", "x.duckdb", lake, []string{"runs"}, exitUsage, "--db and --lake: give one"},
		{"shard without lake", filepath.Join(tmp, "x.duckdb"), "", []string{"ingest", "--shard", "0/2", corpus}, exitUsage, "--shard needs --lake"},
		{"bad shard", "", lake, []string{"ingest", "--shard", "2/2", corpus}, exitUsage, "--shard must be i/n"},
		{"other n", "", lake, []string{"ingest", "--shard", "0/3", corpus}, exitFailed, "it holds ingest shards of 2 (shard=0-of-2): ingest with --shard i/2"},
		{"write command", "", lake, []string{"calibrate"}, exitFailed, "only ingest, simulate and diagnose write a lake"},
		{"report with a path", "", lake, []string{"report", corpus}, exitUsage, "report reads every run of the lake"},
		{"not a lake", "", notLake, []string{"ingest", corpus}, exitFailed, "not a trajmine lake: it holds files and no _trajmine directory"},
		{"reader on nothing", "", filepath.Join(tmp, "none"), []string{"runs"}, exitFailed, "run trajmine ingest --lake"},
		{"lake is a file", "", filepath.Join(notLake, "notes.txt"), []string{"runs"}, exitFailed, "it is a file"},
		{"sql COPY over a part", "", lake, []string{"sql", "COPY (SELECT 1 AS x) TO '" + part + "' (FORMAT parquet)"}, exitFailed, "COPY is refused"},
		{"sql COPY elsewhere", "", lake, []string{"sql", "COPY runs TO '" + filepath.Join(lake, "runs", "x.parquet") + "'"}, exitFailed, "disabled by configuration"},
		{"sql other file", "", lake, []string{"sql", "SELECT * FROM read_csv('" + filepath.Join(notLake, "notes.txt") + "')"}, exitFailed, "disabled by configuration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := testDeps(t, nil)
			d.DB, d.Lake = tt.db, tt.lake
			_, e, code := run(t, d, tt.args...)
			if code != tt.code || !strings.Contains(e, tt.msg) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, e, tt.code, tt.msg)
			}
		})
	}
	// $TRAJMINE_LAKE selects the lake; --db overrides it
	d = testDeps(t, map[string]string{"TRAJMINE_LAKE": lake})
	if out, e, code := run(t, d, "sql", "--format", "csv", "SELECT count(*) > 0 FROM runs"); code != 0 || out != "(count_star() > 0)\ntrue\n" {
		t.Errorf("TRAJMINE_LAKE: %q, exit %d, %s", out, code, e)
	}
	d.DB = filepath.Join(tmp, "one.duckdb")
	if _, e, code := run(t, d, "ingest", filepath.Join(corpus, "shared", "codex-cli")); code != 0 {
		t.Fatalf("ingest --db: exit %d: %s", code, e)
	}
	if out, _, code := run(t, d, "sql", "--format", "csv", "SELECT count(DISTINCT source_format) FROM runs"); code != 0 || out != "count(DISTINCT source_format)\n1\n" {
		t.Errorf("--db over TRAJMINE_LAKE: %q, exit %d", out, code)
	}
}

// TestIngestShard: a file's shard is FNV-1a 64 of its path relative to the
// input it was found under (an independent FNV-1a here), modulo n.
func TestIngestShard(t *testing.T) {
	fnv1a := func(s string) uint64 {
		h := uint64(14695981039346656037)
		for i := 0; i < len(s); i++ {
			h ^= uint64(s[i])
			h *= 1099511628211
		}
		return h
	}
	if fnv1a("a") != 0xaf63dc4c8601ec8c { // the published test vector
		t.Fatal("reference FNV-1a is wrong")
	}
	sep := string(filepath.Separator)
	tests := []struct {
		inputs []string
		path   string
		key    string
	}{
		{[]string{"/data/runs"}, "/data/runs/a/b.jsonl", "a/b.jsonl"},
		{[]string{"/data/runs/"}, "/data/runs/a/b.jsonl", "a/b.jsonl"},
		{[]string{"/mnt/x/runs"}, "/mnt/x/runs/a/b.jsonl", "a/b.jsonl"}, // another mount point, same key
		{[]string{"/data", "/data/runs"}, "/data/runs/a/b.jsonl", "a/b.jsonl"},
		{[]string{"/data/runs/a/b.jsonl"}, "/data/runs/a/b.jsonl", "b.jsonl"},
		{[]string{"."}, "a" + sep + "b.jsonl", "a/b.jsonl"},
		{[]string{"./runs"}, "runs" + sep + "c.jsonl", "c.jsonl"},
	}
	for _, tt := range tests {
		for _, n := range []int{1, 4, 16, 1000} {
			want := int(fnv1a(tt.key) % uint64(n))
			if got := IngestShard(tt.inputs, filepath.FromSlash(tt.path), n); got != want {
				t.Errorf("IngestShard(%v, %s, %d) = %d, want %d (key %q)", tt.inputs, tt.path, n, got, want, tt.key)
			}
		}
	}
	// the shards split a corpus: every file in exactly one, none empty
	counts := make([]int, 4)
	for i := range 400 {
		counts[IngestShard([]string{"/c"}, fmt.Sprintf("/c/s%03d.jsonl", i), 4)]++
	}
	for i, c := range counts {
		if c < 60 {
			t.Errorf("shard %d holds %d of 400 files", i, c)
		}
	}
}

// TestDiagnoseShardDatabase: on a database file, diagnose --shard i/n
// replaces only its shard's rows, so the shards run one after another fill
// diag_* as one diagnose does.
func TestDiagnoseShardDatabase(t *testing.T) {
	corpus := filepath.Join(t.TempDir(), "c")
	if _, err := synth.Write(corpus, &synth.Options{N: 12, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	dump := func(d *Deps) string {
		out, e, code := run(t, d, "sql", "--format", "csv", "SELECT run_id, n_calls, peak_tokens, end_reason FROM diag_runs ORDER BY run_id")
		if code != 0 {
			t.Fatalf("sql: %s", e)
		}
		return out
	}
	tmp := t.TempDir()
	whole, sharded := testDeps(t, nil), testDeps(t, nil)
	whole.DB, sharded.DB = filepath.Join(tmp, "whole.duckdb"), filepath.Join(tmp, "sharded.duckdb")
	for _, d := range []*Deps{whole, sharded} {
		if _, e, code := run(t, d, "ingest", corpus); code != 0 {
			t.Fatal(e)
		}
	}
	if _, e, code := run(t, whole, "diagnose"); code != 0 {
		t.Fatal(e)
	}
	want := dump(whole)
	if _, e, code := run(t, sharded, "diagnose", "--shard", "0/2"); code != 0 {
		t.Fatal(e)
	}
	half := dump(sharded)
	if n, all := strings.Count(half, "\n"), strings.Count(want, "\n"); n <= 1 || n >= all {
		t.Fatalf("shard 0/2 stored %d of %d lines", n, all)
	}
	out, e, code := run(t, sharded, "diagnose", "--shard", "1/2")
	if code != 0 {
		t.Fatal(e)
	}
	if !strings.HasPrefix(out, "diagnose: shard 1/2: the figures are over this shard's ") {
		t.Errorf("shard output starts %q", out[:min(len(out), 80)])
	}
	if got := dump(sharded); got != want {
		t.Errorf("diag_runs after shards 0/2 and 1/2:\n%s", cmp.Diff(want, got))
	}
}
