package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/trajmine/trajmine/schema"
)

// A lake is a directory of Hive-partitioned Parquet files holding the
// store's tables, written by many trajmine processes at once and read by
// DuckDB, Spark or Trino without trajmine:
//
//	DIR/<table>/shard=<i>-of-<n>/part-<generation>.parquet
//	DIR/_trajmine/<group>/shard=<i>-of-<n>.json   (the shard's commit record)
//
// Three kinds of writer (LakeGroup) own the tables: ingest the importers'
// tables (schema.Tables), simulate sim_runs and sim_calls, diagnose
// diag_runs, diag_calls and diag_rent. A writer of shard i of n works in a
// private DuckDB file in a temporary directory (the normal schema; its own
// tables loaded from shard i's committed parts, the other tables as views
// over the lake), and CommitLake writes its tables as one new generation of
// part files, each to a hidden temporary name first and renamed into place,
// then the commit record (renamed into place: the commit point), then
// removes the shard's earlier generations. No lock is shared: two writers
// never write the same file unless they are the same shard of the same
// group. A writer that dies before its commit record leaves the committed
// generation as it was (and at most hidden temporary files, removed by the
// shard's next commit).
//
// trajmine's readers (OpenLake without Write) open a DuckDB file in a
// temporary directory with one view per table over exactly the files the
// commit records name, so a reader never sees a generation half-committed.
// Other engines read DIR/<table>/ with Hive partitioning (the partition
// column shard is the only column not in schema); they see a shard's new
// generation beside its old one only in the moment between the renames and
// the removal, or until a writer that died in that moment is re-run.

// LakeGroup names the writer that owns a set of a lake's tables.
type LakeGroup string

// The lake's writers.
const (
	LakeIngest   LakeGroup = "ingest"   // sources, runs, events, usage, tool_outputs, context_ops, rejects; uses_runs, output_uses, run_profiles
	LakeSimulate LakeGroup = "simulate" // sim_runs, sim_calls
	LakeDiagnose LakeGroup = "diagnose" // diag_runs, diag_calls, diag_rent
)

// lakeGroups lists every group, in the order readers load them.
var lakeGroups = []LakeGroup{LakeIngest, LakeSimulate, LakeDiagnose}

// Tables are the group's tables.
func (g LakeGroup) Tables() []schema.Table {
	switch g {
	case LakeIngest:
		return append(slices.Clone(schema.Tables), schema.IngestDerived...)
	case LakeSimulate:
		return schema.SimTables
	case LakeDiagnose:
		return schema.DiagTables
	}
	return nil
}

// LakeMeta is the directory, inside a lake, of the commit records; its
// leading underscore makes Spark, Hive and Trino skip it.
const LakeMeta = "_trajmine"

// ErrNotLake is returned for a directory that is not a lake.
var ErrNotLake = errors.New("not a trajmine lake")

// LakeConfig says which lake to open and what the process writes.
type LakeConfig struct {
	Dir string
	// Write is the group this process writes (its tables, of shard Shard
	// of Shards, replaced by CommitLake); "" opens the lake to read.
	Write         LakeGroup
	Shard, Shards int
	// Scratch makes the analysis tables (sim_*, diag_*) of a reader empty
	// tables that take writes and are dropped on Close: trajmine report
	// recomputes and writes them, and a lake keeps only what simulate and
	// diagnose commit.
	Scratch bool
	// Sandbox opens a reader for untrusted queries (trajmine sql): external
	// access limited to the lake's committed files, no extensions, the
	// configuration locked; CheckQuery admits only a SELECT.
	Sandbox     bool
	MemoryLimit string
}

// lakeState is what a Store opened on a lake keeps.
type lakeState struct {
	cfg LakeConfig
	tmp string // the temporary directory of the working database

	events     string // the select of the events view, copied by lakeScanReady; "" none
	eventsOnce sync.Once
	eventsErr  error
}

// lakeRecord is a shard's commit record.
type lakeRecord struct {
	Tool       string               `json:"tool"` // "trajmine"
	Group      LakeGroup            `json:"group"`
	Shard      int                  `json:"shard"`
	Shards     int                  `json:"shards"`
	Generation string               `json:"generation"`
	WrittenAt  time.Time            `json:"written_at"`
	Tables     map[string]lakeTable `json:"tables"`
}

// lakeTable is one table's part file in a commit record.
type lakeTable struct {
	File string `json:"file"` // slash-separated, relative to the lake
	Rows int64  `json:"rows"`
}

// ShardDir is the partition directory name of shard i of n: shard=i-of-n.
func ShardDir(i, n int) string { return fmt.Sprintf("shard=%d-of-%d", i, n) }

// parseShardName reads "shard=i-of-n" (with an optional suffix, such as
// ".json", already cut off).
func parseShardName(s string) (i, n int, ok bool) {
	rest, found := strings.CutPrefix(s, "shard=")
	if !found {
		return 0, 0, false
	}
	a, b, found := strings.Cut(rest, "-of-")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !found || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, false
	}
	return i, n, true
}

// readRecords reads the group's commit records.
func readRecords(dir string, g LakeGroup) ([]lakeRecord, error) {
	gd := filepath.Join(dir, LakeMeta, string(g))
	entries, err := os.ReadDir(gd)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("lake %s: %w", dir, err)
	}
	var out []lakeRecord
	for _, e := range entries {
		name, isRec := strings.CutSuffix(e.Name(), ".json")
		if !isRec || e.IsDir() {
			continue // a temporary record being written
		}
		i, n, ok := parseShardName(name)
		if !ok {
			return nil, fmt.Errorf("lake %s: %s: not a commit record name (shard=i-of-n.json)", dir, filepath.Join(gd, e.Name()))
		}
		p := filepath.Join(gd, e.Name())
		b, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed by a writer since the listing
		}
		if err != nil {
			return nil, fmt.Errorf("lake %s: %w", dir, err)
		}
		var r lakeRecord
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("%s: %v", p, err)
		}
		if r.Group != g || r.Shard != i || r.Shards != n {
			return nil, fmt.Errorf("%s: the record says group %q shard %d of %d, its name another", p, r.Group, r.Shard, r.Shards)
		}
		for t, f := range r.Tables {
			if f.File == "" || !filepath.IsLocal(filepath.FromSlash(f.File)) || !strings.HasPrefix(f.File, t+"/") {
				return nil, fmt.Errorf("%s: table %s: file %q is not in the table's directory", p, t, f.File)
			}
		}
		out = append(out, r)
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].Shards != out[b].Shards {
			return out[a].Shards < out[b].Shards
		}
		return out[a].Shard < out[b].Shard
	})
	return out, nil
}

// isLake reports whether dir holds a lake's metadata directory.
func isLake(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, LakeMeta))
	return err == nil && st.IsDir()
}

// OpenLake opens a lake (see the comment at the top of this file): to read
// (c.Write "") or to write one shard of one group's tables.
func OpenLake(ctx context.Context, c LakeConfig) (*Store, error) {
	if c.Dir == "" {
		return nil, fmt.Errorf("lake: no directory given")
	}
	if st, err := os.Stat(c.Dir); err == nil && !st.IsDir() {
		return nil, fmt.Errorf("lake %s: %w: it is a file (a lake is a directory; a DuckDB file is opened with --db)", c.Dir, ErrNotLake)
	}
	if c.Write != "" {
		if c.Write.Tables() == nil {
			return nil, fmt.Errorf("lake %s: unknown writer %q", c.Dir, c.Write)
		}
		if c.Shards < 1 || c.Shard < 0 || c.Shard >= c.Shards {
			return nil, fmt.Errorf("lake %s: shard %d of %d: need 0 ≤ shard < shards", c.Dir, c.Shard, c.Shards)
		}
		entries, err := os.ReadDir(c.Dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("lake %s: %w", c.Dir, err)
		}
		if len(entries) > 0 && !isLake(c.Dir) {
			return nil, fmt.Errorf("lake %s: %w: it holds files and no %s directory; choose an empty or new directory", c.Dir, ErrNotLake, LakeMeta)
		}
		// MkdirAll is safe when several writers race to create the lake
		if err := os.MkdirAll(filepath.Join(c.Dir, LakeMeta, string(c.Write)), 0o755); err != nil {
			return nil, fmt.Errorf("lake %s: %w", c.Dir, err)
		}
	} else if !isLake(c.Dir) {
		if _, err := os.Stat(c.Dir); err != nil {
			return nil, fmt.Errorf("lake %s: %w (run trajmine ingest --lake %s first)", c.Dir, err, c.Dir)
		}
		return nil, fmt.Errorf("lake %s: %w: no %s directory (run trajmine ingest --lake %s first)", c.Dir, ErrNotLake, LakeMeta, c.Dir)
	}
	recs := map[LakeGroup][]lakeRecord{}
	for _, g := range lakeGroups {
		r, err := readRecords(c.Dir, g)
		if err != nil {
			return nil, err
		}
		recs[g] = r
	}
	if c.Write == LakeIngest {
		// the importers' rows are the data itself: a file's shard follows
		// from n, so shards of another n would duplicate or lose files
		for _, r := range recs[LakeIngest] {
			if r.Shards != c.Shards {
				return nil, fmt.Errorf("lake %s: it holds ingest shards of %d (%s): ingest with --shard i/%d, or into a new lake", c.Dir, r.Shards, ShardDir(r.Shard, r.Shards), r.Shards)
			}
		}
	}
	tmp, err := os.MkdirTemp("", "trajmine-lake-")
	if err != nil {
		return nil, fmt.Errorf("lake %s: working database: %w", c.Dir, err)
	}
	s, err := Open(ctx, Config{Path: filepath.Join(tmp, "work.duckdb"), MemoryLimit: c.MemoryLimit})
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	s.lake = &lakeState{cfg: c, tmp: tmp}
	if err := s.setupLake(ctx, recs); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// setupLake makes each table of the working database: the writer's own
// tables hold its shard's committed rows; the rest are views over the
// committed files (a table with none is an empty table of the schema),
// except events outside a sandbox: Scan and EventStream read it by rowid
// ranges, which a view has not, so its rows are copied into the working
// database (a simulate or diagnose shard's: only its runs' rows).
func (s *Store) setupLake(ctx context.Context, recs map[LakeGroup][]lakeRecord) error {
	c := s.lake.cfg
	var allowed []string
	viewed := map[string]bool{} // ingest tables made views over their files
	renames := false
	if c.Write != LakeIngest {
		var err error
		if renames, err = s.lakeRenames(ctx, recs[LakeIngest]); err != nil {
			return err
		}
	}
	for _, g := range lakeGroups {
		for _, t := range g.Tables() {
			if _, err := s.db.ExecContext(ctx, t.CreateTableSQL()); err != nil {
				return fmt.Errorf("lake: create table %s: %w", t.Name, err)
			}
			var files []string
			for _, r := range recs[g] {
				if f, ok := r.Tables[t.Name]; ok {
					if g == c.Write && (r.Shard != c.Shard || r.Shards != c.Shards) {
						continue
					}
					files = append(files, filepath.Join(c.Dir, filepath.FromSlash(f.File)))
				}
			}
			if len(files) == 0 || c.Scratch && g != LakeIngest {
				continue
			}
			list := sqlStringList(files)
			if g == c.Write {
				// the shard's own rows, to be replaced as in a database file
				parts := fmt.Sprintf("read_parquet(%s, union_by_name = true, hive_partitioning = false)", list)
				if err := s.allowMissing(ctx, t, parts); err != nil {
					return fmt.Errorf("lake %s: load %s: %w", c.Dir, t.Name, err)
				}
				q := fmt.Sprintf("INSERT INTO %s BY NAME SELECT * FROM %s", t.Name, parts)
				if _, err := s.db.ExecContext(ctx, q); err != nil {
					return fmt.Errorf("lake %s: load %s: %w", c.Dir, t.Name, err)
				}
				continue
			}
			if c.Write == LakeIngest {
				continue // an importer sees only its own shard's runs
			}
			allowed = append(allowed, files...)
			sel := lakeSelect(t, list, renames && g == LakeIngest)
			if t.Name == schema.TableEvents && !c.Sandbox {
				s.lake.events = sel // copied into a table by the first Scan or EventStream (lakeScanReady)
			}
			q := fmt.Sprintf("DROP TABLE %s; CREATE VIEW %s AS %s", t.Name, t.Name, sel)
			if _, err := s.db.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("lake %s: view %s: %w", c.Dir, t.Name, err)
			}
			viewed[t.Name] = g == LakeIngest
		}
	}
	if viewed[schema.TableRuns] && viewed[schema.TableUsage] {
		if err := s.lakeMarkCopies(ctx, viewed[schema.TableOutcomes]); err != nil {
			return err
		}
	}
	if c.Write == "" {
		s.readOnly = !c.Scratch
	}
	if c.Sandbox {
		if len(allowed) == 0 {
			allowed = []string{filepath.Join(s.lake.tmp, "none")}
		}
		for _, q := range []string{
			"SET allowed_paths = " + sqlStringList(allowed),
			"SET enable_external_access = false",
			"SET autoinstall_known_extensions = false",
			"SET autoload_known_extensions = false",
			"SET allow_community_extensions = false",
			"SET max_temp_directory_size = '" + sandboxSpill(filepath.Join(s.lake.tmp, "work.duckdb")) + "'",
			"SET lock_configuration = true",
		} {
			if _, err := s.db.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("lake %s: sandbox: %s: %w", c.Dir, q, err)
			}
		}
	}
	return nil
}

// allowMissing lets the columns of t that parts (parts an earlier version
// wrote) lack hold NULL, as addMissingColumns adds them to a database
// file: the shard's rows keep NULL there until rewritten (the copied_*
// columns: until its import marks the copies).
func (s *Store) allowMissing(ctx context.Context, t schema.Table, parts string) error {
	rows, err := s.db.QueryContext(ctx, "SELECT column_name FROM (DESCRIBE SELECT * FROM "+parts+")")
	if err != nil {
		return err
	}
	defer rows.Close()
	have := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return err
		}
		have[name] = true
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, c := range t.Columns {
		if !c.Nullable && !have[c.Name] {
			if _, err := s.db.ExecContext(ctx, "ALTER TABLE "+t.Name+" ALTER COLUMN "+c.Name+" DROP NOT NULL"); err != nil {
				return err
			}
		}
	}
	return nil
}

// lakeMarkCopies makes the runs and usage of a reader's working database
// (views over the part files until now) tables, copied from the views, and
// marks the copied usage rows across the lake (markCopies): an ingest
// shard marks the copies among its own files, but a resumed session and
// the one it continues may lie in two shards (or a run id be renamed
// here). Parts an earlier version wrote, without the copied_* columns,
// get them. The copies hold a row per model call and per run, no text.
// Then it applies the outcome rows to the runs across the lake
// (applyOutcomes; outcomes is copied too when it is a view, outcomes
// true): a run and its outcome file may lie in two shards.
func (s *Store) lakeMarkCopies(ctx context.Context, outcomes bool) error {
	tables := []schema.Table{schema.Runs, schema.UsageTable}
	if outcomes {
		tables = append(tables, schema.Outcomes)
	}
	for _, t := range tables {
		cp := t
		cp.Name = "lake_marked_" + t.Name
		cp.Columns = slices.Clone(t.Columns)
		for i := range cp.Columns {
			cp.Columns[i].Nullable = true // parts of an earlier version lack columns
		}
		q := cp.CreateTableSQL() + fmt.Sprintf(" INSERT INTO %s BY NAME SELECT * FROM %s; DROP VIEW %s; ALTER TABLE %s RENAME TO %s",
			cp.Name, t.Name, t.Name, cp.Name, t.Name)
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("lake %s: copy %s: %w", s.lake.cfg.Dir, t.Name, err)
		}
	}
	if _, err := markCopies(ctx, s.db); err != nil {
		return fmt.Errorf("lake %s: %w", s.lake.cfg.Dir, err)
	}
	if _, err := applyOutcomes(ctx, s.db); err != nil {
		return fmt.Errorf("lake %s: %w", s.lake.cfg.Dir, err)
	}
	return nil
}

// lakeScanReady copies the lake's events into a table of the working
// database the first time a Scan or EventStream needs them: they read events by
// rowid ranges, which a view over Parquet has not. A simulate or diagnose
// shard copies only its runs' events. The copy's columns are stored without
// the schema's zstd (the working database is temporary: writing it fast
// matters more than its size).
func (s *Store) lakeScanReady(ctx context.Context) error {
	if s.lake == nil || s.lake.events == "" {
		return nil
	}
	s.lake.eventsOnce.Do(func() {
		c := s.lake.cfg
		t := schema.Events
		t.Columns = slices.Clone(t.Columns)
		for i := range t.Columns {
			t.Columns[i].Compression = ""
		}
		q := "DROP VIEW " + t.Name + "; " + t.CreateTableSQL() + fmt.Sprintf(" INSERT INTO %s BY NAME SELECT * FROM (%s)", t.Name, s.lake.events)
		if c.Write != "" && c.Shards > 1 {
			q += " WHERE run_id IN (" + shardSelect("SELECT run_id FROM "+schema.TableRuns, c.Shard, c.Shards) + ")"
		}
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			s.lake.eventsErr = fmt.Errorf("lake %s: copy %s: %w", c.Dir, t.Name, err)
		}
	})
	return s.lake.eventsErr
}

// lakeRenames resolves, for readers, what ingest shards cannot see of each
// other, as one process importing the files in path order (--workers 1)
// would have stored them:
//
//   - a file whose sha256 another shard imported under a path that sorts
//     first is left out (one process skips it: already imported; for a
//     path-keyed format, ingest.PathKeyed, only the same path is); its
//     (shard, source_path) go to lake_drop_sources, its runs' (shard,
//     run_id) to lake_drop_runs;
//   - of the runs left, a run id two shards claim keeps its id in the file
//     whose path sorts first; the others are renamed id@sha8 (lake_renames:
//     shard, run_id, new_id).
//
// It reports whether there is anything to resolve (nothing: the views
// read the files as they are).
func (s *Store) lakeRenames(ctx context.Context, recs []lakeRecord) (bool, error) {
	list := func(table string) string {
		var files []string
		for _, r := range recs {
			if f, ok := r.Tables[table]; ok {
				files = append(files, filepath.Join(s.lake.cfg.Dir, filepath.FromSlash(f.File)))
			}
		}
		return sqlStringList(files)
	}
	if len(recs) < 2 {
		return false, nil
	}
	read := func(table, cols string) string {
		return `(SELECT ` + cols + `, ` + lakeShardExpr + ` AS shard FROM read_parquet(` + list(table) +
			`, union_by_name = true, hive_partitioning = false, filename = true))`
	}
	q := `CREATE TABLE lake_drop_sources AS
SELECT shard, source_path FROM (
  SELECT *, row_number() OVER (PARTITION BY source_sha256, CASE WHEN source_format IN ` + pathKeyedFormats() + ` THEN source_path END
    ORDER BY source_path, shard) AS k
  FROM ` + read(schema.TableSources, "source_path, source_sha256, source_format") + `)
WHERE k > 1;
CREATE TABLE lake_drop_runs AS
SELECT r.shard, r.run_id FROM ` + read(schema.TableRuns, "run_id, source_path") + ` r JOIN lake_drop_sources USING (shard, source_path);
CREATE TABLE lake_renames AS
WITH r AS (SELECT * FROM ` + read(schema.TableRuns, "run_id, source_path, source_sha256") + ` ANTI JOIN lake_drop_runs USING (shard, run_id)),
     k AS (SELECT *, row_number() OVER (PARTITION BY run_id ORDER BY source_path, shard) AS k
           FROM r WHERE run_id IN (SELECT run_id FROM r GROUP BY run_id HAVING count(*) > 1))
SELECT shard, run_id, run_id || '@' || left(source_sha256, 8) AS new_id FROM k WHERE k > 1`
	if _, err := s.db.ExecContext(ctx, q); err != nil {
		return false, fmt.Errorf("lake %s: resolve run ids: %w", s.lake.cfg.Dir, err)
	}
	var n int
	if err := s.db.QueryRowContext(ctx, "SELECT (SELECT count(*) FROM lake_renames) + (SELECT count(*) FROM lake_drop_sources)").Scan(&n); err != nil {
		return false, fmt.Errorf("lake %s: resolve run ids: %w", s.lake.cfg.Dir, err)
	}
	return n > 0, nil
}

// lakeShardExpr is a part file's shard (its directory's name), from
// read_parquet's filename column.
const lakeShardExpr = `regexp_extract(filename, '(shard=[0-9]+-of-[0-9]+)[/\\][^/\\]*$', 1)`

// lakeSelect reads t's part files; with resolve, an ingest table leaves
// out the rows lake_drop_sources and lake_drop_runs name and takes
// lake_renames's new ids (run_id, parent_run_id) for its shard's rows.
func lakeSelect(t schema.Table, list string, resolve bool) string {
	cols := map[string]bool{}
	for _, c := range t.Columns {
		cols[c.Name] = true
	}
	hasRun, hasPath := cols[schema.ColRunID], cols[schema.ColSourcePath]
	if !resolve || !hasRun && !hasPath {
		return fmt.Sprintf("SELECT * FROM read_parquet(%s, union_by_name = true, hive_partitioning = false)", list)
	}
	var repl []string
	join := ""
	if hasRun {
		repl = append(repl, "coalesce(m.new_id, r.run_id) AS run_id")
		join += " LEFT JOIN lake_renames m ON m.shard = r.lake_shard AND m.run_id = r.run_id" +
			" ANTI JOIN lake_drop_runs d ON d.shard = r.lake_shard AND d.run_id = r.run_id"
		if cols["parent_run_id"] {
			repl = append(repl, "coalesce(p.new_id, r.parent_run_id) AS parent_run_id")
			join += " LEFT JOIN lake_renames p ON p.shard = r.lake_shard AND p.run_id = r.parent_run_id"
		}
	} else {
		join += " ANTI JOIN lake_drop_sources ds ON ds.shard = r.lake_shard AND ds.source_path = r.source_path"
	}
	star := "r.* EXCLUDE (filename, lake_shard)"
	if len(repl) > 0 {
		star += " REPLACE (" + strings.Join(repl, ", ") + ")"
	}
	return fmt.Sprintf("SELECT %s FROM (SELECT *, %s AS lake_shard FROM read_parquet(%s, union_by_name = true, hive_partitioning = false, filename = true)) r%s",
		star, lakeShardExpr, list, join)
}

// sqlStringList is paths as a DuckDB list of string literals.
func sqlStringList(paths []string) string {
	q := make([]string, len(paths))
	for i, p := range paths {
		q[i] = "'" + strings.ReplaceAll(p, "'", "''") + "'"
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// Lake returns the lake directory of a store opened with OpenLake ("" for
// a database file).
func (s *Store) Lake() string {
	if s.lake == nil {
		return ""
	}
	return s.lake.cfg.Dir
}

// closeLake removes the working database's directory (after the database
// is closed).
func (s *Store) closeLake() {
	if s.lake != nil {
		os.RemoveAll(s.lake.tmp)
	}
}

// CommitLake writes the writer's tables as shard Shard of Shards: a new
// generation of part files, then the commit record, then the removal of
// the shard's earlier generations (and, for simulate and diagnose, of
// their shards of another n: results of an earlier split). It returns the
// rows written per table.
func (s *Store) CommitLake(ctx context.Context) (map[string]int64, error) {
	if s.lake == nil || s.lake.cfg.Write == "" {
		return nil, errors.New("commit: the store is not a lake writer")
	}
	c := s.lake.cfg
	gen, err := generation()
	if err != nil {
		return nil, err
	}
	shard := ShardDir(c.Shard, c.Shards)
	rec := lakeRecord{Tool: "trajmine", Group: c.Write, Shard: c.Shard, Shards: c.Shards, Generation: gen,
		WrittenAt: time.Now().UTC(), Tables: map[string]lakeTable{}}
	type move struct{ tmp, final string }
	var moves []move
	fail := func(err error) (map[string]int64, error) {
		for _, m := range moves {
			os.Remove(m.tmp)
		}
		return nil, err
	}
	out := map[string]int64{}
	for _, t := range c.Write.Tables() {
		dir := filepath.Join(c.Dir, t.Name, shard)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fail(fmt.Errorf("commit %s: %w", t.Name, err))
		}
		name := "part-" + gen + ".parquet"
		m := move{tmp: filepath.Join(dir, "."+name+".tmp"), final: filepath.Join(dir, name)}
		moves = append(moves, m)
		var n int64
		if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM "+t.Name).Scan(&n); err != nil {
			return fail(fmt.Errorf("commit %s: %w", t.Name, err))
		}
		// an empty table is written too: its file carries the schema
		q := fmt.Sprintf("COPY %s TO '%s' (FORMAT parquet, COMPRESSION zstd)", t.Name, strings.ReplaceAll(m.tmp, "'", "''"))
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return fail(fmt.Errorf("commit %s: %w", t.Name, err))
		}
		out[t.Name] = n
		rec.Tables[t.Name] = lakeTable{File: t.Name + "/" + shard + "/" + name, Rows: n}
		lakeTestHook("part")
	}
	for i, m := range moves {
		if err := os.Rename(m.tmp, m.final); err != nil {
			for _, done := range moves[:i] {
				os.Remove(done.final)
			}
			return fail(fmt.Errorf("commit: %w", err))
		}
	}
	lakeTestHook("renamed")
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return fail(err)
	}
	meta := filepath.Join(c.Dir, LakeMeta, string(c.Write))
	tmp := filepath.Join(meta, "."+shard+"."+gen+".tmp")
	if err := writeSynced(tmp, append(b, '\n')); err != nil {
		return fail(fmt.Errorf("commit: %w", err))
	}
	if err := os.Rename(tmp, filepath.Join(meta, shard+".json")); err != nil {
		os.Remove(tmp)
		return fail(fmt.Errorf("commit: %w", err))
	}
	// committed: what follows only removes files no record names
	s.pruneLake(gen)
	return out, nil
}

// pruneLake removes the writer's shard's files of other generations and,
// for simulate and diagnose, the group's shards of another n. Errors are
// ignored: a sibling shard may be removing the same files.
func (s *Store) pruneLake(gen string) {
	c := s.lake.cfg
	if c.Write != LakeIngest {
		// records first: a reader then never meets a record whose files are gone
		meta := filepath.Join(c.Dir, LakeMeta, string(c.Write))
		recs, _ := os.ReadDir(meta)
		for _, e := range recs {
			if name, ok := strings.CutSuffix(e.Name(), ".json"); ok {
				if _, n, ok := parseShardName(name); ok && n != c.Shards {
					os.Remove(filepath.Join(meta, e.Name()))
				}
			}
		}
	}
	// commit records a writer of this shard left half-written
	meta := filepath.Join(c.Dir, LakeMeta, string(c.Write))
	if tmps, _ := os.ReadDir(meta); len(tmps) > 0 {
		for _, e := range tmps {
			if strings.HasPrefix(e.Name(), "."+ShardDir(c.Shard, c.Shards)+".") && strings.HasSuffix(e.Name(), ".tmp") {
				os.Remove(filepath.Join(meta, e.Name()))
			}
		}
	}
	keep := "part-" + gen + ".parquet"
	for _, t := range c.Write.Tables() {
		tdir := filepath.Join(c.Dir, t.Name)
		shards, _ := os.ReadDir(tdir)
		for _, sd := range shards {
			i, n, ok := parseShardName(sd.Name())
			if !ok || !sd.IsDir() {
				continue
			}
			mine := i == c.Shard && n == c.Shards
			if !mine && (n == c.Shards || c.Write == LakeIngest) {
				continue // a sibling's
			}
			dir := filepath.Join(tdir, sd.Name())
			files, _ := os.ReadDir(dir)
			for _, f := range files {
				if mine && f.Name() == keep {
					continue
				}
				os.Remove(filepath.Join(dir, f.Name()))
			}
			if !mine {
				os.Remove(dir)
			}
		}
	}
}

// lakeTestHook is called at points of CommitLake (after each part file,
// after the renames); tests set it to kill the process there.
var lakeTestHook = func(stage string) {}

// generation names a commit's files: its UTC time, then 8 random hex
// digits, so names sort by time and two commits never share one.
func generation() (string, error) {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	return time.Now().UTC().Format("20060102T150405.000000000Z") + "-" + hex.EncodeToString(b[:]), nil
}

// writeSynced writes b to path and flushes it to disk before returning.
func writeSynced(path string, b []byte) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := fh.Write(b); err != nil {
		fh.Close()
		return err
	}
	if err := fh.Sync(); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}
