package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/schema"
)

// Store is an open trajmine database.
type Store struct {
	db       *sql.DB
	path     string
	readOnly bool
	cfg      Config // as opened, for the raw handle's options

	mu       sync.Mutex
	inflight map[string]string // run id → sha of the file claiming it, not yet committed
	// runIDs holds every run id committed when it was loaded and every
	// one committed since (ClaimRunID: an id not in it is free without a
	// query); nil until the run ids looked up one by one would cost more
	// than loading them (knownRunIDs), counted in lookups against the runs
	// stored, stored (-1 until counted)
	runIDs  map[string]bool
	lookups int64
	stored  int64

	quickMu sync.Mutex
	quick   map[string][]quickEntry // sources by path, for Unchanged and replaceOlder (loaded on first use)
	shas    map[string]int          // sources rows per sha256, for Seen (loaded with quick)

	raw rawHandle // DuckDB's own handle, for chunk reads (chunks.go)

	lake *lakeState // set by OpenLake (lake.go)

	spans atomic.Pointer[runSpans] // where each run's rows lie, on a read-only store (IndexRuns)
}

var _ ingest.Sink = (*Store)(nil)

// Config says which database to open.
type Config struct {
	Path     string // "" = in-memory
	ReadOnly bool   // open an existing file read-only (no schema changes)
	Conns    int    // max open connections; 0 = no limit (one per file being imported, plus one)
	// MemoryLimit caps DuckDB's memory (its buffer pool caches every block
	// a scan reads, up to 80 % of RAM by default): a DuckDB size such as
	// "2GB". "" means DefaultMemoryLimit.
	MemoryLimit string
	// Sandbox opens the database for untrusted queries (trajmine sql): read
	// only, no access to files, URLs, other databases or extensions, and the
	// configuration locked (sandboxOptions). It implies ReadOnly for a file.
	Sandbox bool

	spill string // a sandbox's max_temp_directory_size, fixed by Open (sandboxSpill)
}

func (c Config) memoryLimit() string {
	if c.MemoryLimit == "" {
		return DefaultMemoryLimit
	}
	return c.MemoryLimit
}

// storageVersionValue is the storage_compatibility_version option, the
// on-disk format of new database files: v1.2.0 is the first with zstd
// string compression, and files in it are readable by DuckDB 1.2 and later.
const storageVersionValue = "v1.2.0"

// DefaultMemoryLimit is DuckDB's memory cap unless Config says otherwise:
// scans stream, so a larger pool only caches blocks already read.
const DefaultMemoryLimit = "2GB"

// Open opens (creating if needed) the database and ensures its schema.
func Open(ctx context.Context, c Config) (*Store, error) {
	dsn := c.Path
	if c.Path != "" {
		if c.ReadOnly {
			if _, err := os.Stat(c.Path); err != nil {
				return nil, fmt.Errorf("open database %s: %w (run trajmine ingest first)", c.Path, err)
			}
		} else if dir := filepath.Dir(c.Path); dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, fmt.Errorf("create database directory: %w", err)
			}
		}
	}
	// zstd columns (schema.Column.Compression) need storage format 1.2 or
	// later; a file DuckDB creates is written in that format, an existing
	// one keeps its own (read back as it was written, only slower).
	if c.Sandbox {
		c.ReadOnly = true
		c.spill = sandboxSpill(c.Path) // once: rawDB must pass the same options again
	}
	limit := c.memoryLimit()
	if strings.ContainsAny(limit, "'\\;&?=") {
		return nil, fmt.Errorf("open database %s: memory limit %q is not a size", c.Path, limit)
	}
	sep := "?"
	for _, kv := range dsnOptions(c) {
		dsn += sep + kv[0] + "=" + kv[1]
		sep = "&"
	}
	db, err := sql.Open("duckdb", dsn)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", c.Path, err)
	}
	// Each file's import holds a connection for its transaction, and lookups
	// (Seen) need one more; so the pool is unbounded unless Conns says
	// otherwise, and the number of parallel files bounds it in practice.
	db.SetMaxOpenConns(c.Conns)
	s := &Store{db: db, path: c.Path, readOnly: c.ReadOnly, cfg: c, inflight: map[string]string{}, stored: -1}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open database %s: %w", c.Path, err)
	}
	if !c.Sandbox { // a sandbox sets it in the DSN, before locking the configuration
		if _, err := db.ExecContext(ctx, "SET memory_limit = '"+limit+"'"); err != nil {
			db.Close()
			return nil, fmt.Errorf("open database %s: memory limit %q: %w", c.Path, limit, err)
		}
	}
	if !c.ReadOnly {
		if err := s.EnsureSchema(ctx); err != nil {
			db.Close()
			return nil, err
		}
	} else if !c.Sandbox && c.Path != "" {
		// the readers' queries name every column: say what to do rather
		// than fail on the first one an earlier version did not write
		have, err := s.columns(ctx)
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("open database %s: %w", c.Path, err)
		}
		if miss := missingColumns(have); len(miss) > 0 {
			db.Close()
			what := miss[0]
			if len(miss) > 1 {
				what += fmt.Sprintf(" and %d more", len(miss)-1)
			}
			return nil, fmt.Errorf("open database %s: an earlier version of trajmine wrote it (no column %s): open it for writing once (trajmine ingest of any path, diagnose or simulate) to bring it up to date", c.Path, what)
		}
	}
	return s, nil
}

// Close closes the database.
func (s *Store) Close() error {
	s.closeRaw()
	err := s.db.Close()
	s.closeLake()
	return err
}

// Path returns the database file ("" for in-memory).
func (s *Store) Path() string { return s.path }

// EnsureSchema creates missing tables.
func (s *Store) EnsureSchema(ctx context.Context) error {
	for _, t := range schema.Tables {
		if _, err := s.db.ExecContext(ctx, t.CreateTableSQL()); err != nil {
			return fmt.Errorf("create table %q: %w", t.Name, err)
		}
	}
	added, err := s.addMissingColumns(ctx)
	if err != nil {
		return err
	}
	for _, ddl := range extraDDL {
		if _, err := s.db.ExecContext(ctx, ddl); err != nil {
			return fmt.Errorf("create %q: %w", ddl, err)
		}
	}
	if added[[2]string{schema.TableRuns, "log_resolved"}] {
		// a database an earlier version wrote: the runs' resolved is
		// their logs' own (no outcome file was applied to them)
		if _, err := s.db.ExecContext(ctx, logOutcomeSQL); err != nil {
			return fmt.Errorf("mark the runs' own outcomes: %w", err)
		}
	}
	if added[[2]string{schema.TableUsage, "copy_of_run_id"}] || added[[2]string{schema.TableRuns, "copied_calls"}] {
		// a database an earlier version wrote counts a resumed
		// session's copied calls twice: mark them now, as ingest would
		if _, err := markCopies(ctx, s.db); err != nil {
			return err
		}
	}
	return nil
}

// addMissingColumns adds to the tables of a database written by an earlier
// version the columns added to the schema since (always at the end, so the
// appenders' column order holds), and returns them (table, column). An
// added column is nullable, holding NULL for the earlier rows: what those
// imports did not count is not claimed as 0.
func (s *Store) addMissingColumns(ctx context.Context) (map[[2]string]bool, error) {
	have, err := s.columns(ctx)
	if err != nil {
		return nil, err
	}
	added := map[[2]string]bool{}
	for _, t := range schema.Tables {
		for _, c := range t.Columns {
			if have[[2]string{t.Name, c.Name}] {
				continue
			}
			if _, err := s.db.ExecContext(ctx, "ALTER TABLE "+t.Name+" ADD COLUMN "+c.Name+" "+c.Type.String()); err != nil {
				return nil, fmt.Errorf("add column %s.%s: %w", t.Name, c.Name, err)
			}
			added[[2]string{t.Name, c.Name}] = true
		}
	}
	return added, nil
}

// columns returns the database's (table, column) pairs.
func (s *Store) columns(ctx context.Context) (map[[2]string]bool, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT table_name, column_name FROM duckdb_columns() WHERE database_name = current_database() AND schema_name = 'main'")
	if err != nil {
		return nil, fmt.Errorf("read columns: %w", err)
	}
	defer rows.Close()
	have := map[[2]string]bool{}
	for rows.Next() {
		var t, c string
		if err := rows.Scan(&t, &c); err != nil {
			return nil, fmt.Errorf("read columns: %w", err)
		}
		have[[2]string{t, c}] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read columns: %w", err)
	}
	return have, nil
}

// missingColumns lists the columns of schema.Tables that have lacks, as
// table.column, in schema order (none when have holds no runs table: an
// empty database file).
func missingColumns(have map[[2]string]bool) []string {
	if !have[[2]string{schema.TableRuns, schema.ColRunID}] {
		return nil
	}
	var out []string
	for _, t := range schema.Tables {
		for _, c := range t.Columns {
			if !have[[2]string{t.Name, c.Name}] {
				out = append(out, t.Name+"."+c.Name)
			}
		}
	}
	return out
}

// extraDDL holds tables written by analysis commands (not importers).
var extraDDL = []string{
	`CREATE TABLE IF NOT EXISTS calibration (
  source_format VARCHAR NOT NULL,
  model_family VARCHAR NOT NULL,
  estimator VARCHAR NOT NULL,
  n_calls BIGINT NOT NULL,
  factor DOUBLE NOT NULL,
  offset_tokens DOUBLE NOT NULL,
  mdape_raw DOUBLE NOT NULL,
  mdape_fitted DOUBLE NOT NULL,
  fitted_at TIMESTAMP NOT NULL
);`,
}

// Seen reports whether a file with this sha256 was imported, by the
// current version of its importer (ingest.ReaderVersion: a file an older
// version read is imported again). The sources
// table is read once, on the first call (or Unchanged's), and kept in step
// with the imports this Store commits (noteSource), so that an ingest of
// many files asks DuckDB nothing per file.
func (s *Store) Seen(ctx context.Context, sha string) (bool, error) {
	s.quickMu.Lock()
	defer s.quickMu.Unlock()
	if err := s.loadSources(ctx); err != nil {
		return false, err
	}
	return s.shas[sha] > 0, nil
}

var _ ingest.PathSeenSink = (*Store)(nil)

// SeenAt reports whether path was imported with content sha256 by the
// current version of its importer (ingest.PathSeenSink: the files of
// path-keyed formats), from the copy of the sources table that Seen reads.
func (s *Store) SeenAt(ctx context.Context, path, sha string) (bool, error) {
	s.quickMu.Lock()
	defer s.quickMu.Unlock()
	if err := s.loadSources(ctx); err != nil {
		return false, err
	}
	for _, e := range s.quick[path] {
		if e.sha == sha && e.current {
			return true, nil
		}
	}
	return false, nil
}

// Unchanged reports whether path was imported with size bytes more than
// ingest.QuickMargin after modified (ingest.QuickSink), from the copy of
// the sources table that Seen reads.
func (s *Store) Unchanged(ctx context.Context, path string, size int64, modified time.Time) (bool, error) {
	s.quickMu.Lock()
	defer s.quickMu.Unlock()
	if err := s.loadSources(ctx); err != nil {
		return false, err
	}
	limit := modified.Add(ingest.QuickMargin)
	for _, e := range s.quick[path] {
		if e.size == size && e.at.After(limit) && e.current {
			return true, nil
		}
	}
	return false, nil
}

// loadSources reads the sources table into s.quick and s.shas unless it
// was read already. quickMu must be held.
func (s *Store) loadSources(ctx context.Context) error {
	if s.quick != nil {
		return nil
	}
	rows, err := s.db.QueryContext(ctx, "SELECT "+schema.ColSourcePath+", "+schema.ColSourceSHA256+", bytes, ingested_at, "+schema.ColSourceFormat+", coalesce(reader_version, 1) FROM "+schema.TableSources)
	if err != nil {
		return fmt.Errorf("look up sources: %w", err)
	}
	defer rows.Close()
	q := map[string][]quickEntry{}
	shas := map[string]int{}
	for rows.Next() {
		var p, format string
		var e quickEntry
		var version int64
		if err := rows.Scan(&p, &e.sha, &e.size, &e.at, &format, &version); err != nil {
			return fmt.Errorf("look up sources: %w", err)
		}
		e.current = version >= ingest.ReaderVersion(format)
		q[p] = append(q[p], e)
		if e.current {
			shas[e.sha]++
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("look up sources: %w", err)
	}
	s.quick, s.shas = q, shas
	return nil
}

// earlierImport reports whether path was imported with content other than
// sha, or by an older version of its importer (so replaceOlder has rows to
// delete), from the copy of the sources
// table; when the copy cannot be read it says yes, and replaceOlder asks
// the table.
func (s *Store) earlierImport(ctx context.Context, path, sha string) bool {
	s.quickMu.Lock()
	defer s.quickMu.Unlock()
	if s.loadSources(ctx) != nil {
		return true
	}
	for _, e := range s.quick[path] {
		if e.sha != sha || !e.current {
			return true
		}
	}
	return false
}

// noteSource keeps the copy of the sources table (when loaded) in step
// with a committed import: src replaces the path's earlier rows, as
// replaceOlder does in the table.
func (s *Store) noteSource(src *schema.Source) {
	s.quickMu.Lock()
	defer s.quickMu.Unlock()
	if s.quick == nil {
		return
	}
	for _, e := range s.quick[src.Path] {
		if e.sha != src.SHA256 && e.current {
			if s.shas[e.sha]--; s.shas[e.sha] <= 0 {
				delete(s.shas, e.sha)
			}
		}
	}
	kept := []quickEntry{{sha: src.SHA256, size: src.Bytes, at: src.IngestedAt, current: true}}
	for _, e := range s.quick[src.Path] {
		if e.sha == src.SHA256 && e.current {
			kept = append(kept, e) // the same content imported before: its row stays
		}
	}
	s.quick[src.Path] = kept
	s.shas[src.SHA256]++
}

// quickEntry is one sources row as Unchanged compares it.
type quickEntry struct {
	sha     string
	size    int64
	at      time.Time
	current bool // read by the current version of its importer
}

var _ ingest.QuickSink = (*Store)(nil)

// Begin starts one file's import on its own connection and transaction.
func (s *Store) Begin(ctx context.Context, src *schema.Source) (ingest.Tx, error) {
	return s.begin(ctx, src, nil)
}

var _ ingest.UnhashedSink = (*Store)(nil)

// BeginUnhashed is Begin for a file whose sha256 is not known yet
// (ingest.UnhashedSink; src.SHA256 is empty). Files calls it only when no
// source has the file's size (SizeSeen), so every source of the file's
// path has other content: replaceOlder, given the empty sha256 no row has,
// deletes all of the path's rows, as it would given the file's. The
// transaction holds the file's runs rows until Commit, whose src carries
// the sha256 they are stored with, and calls sha where it needs the hash
// before (ClaimRunID, for a run id another file holds).
func (s *Store) BeginUnhashed(ctx context.Context, src *schema.Source, sha func() (string, error)) (ingest.Tx, error) {
	if src.SHA256 != "" || sha == nil {
		return nil, errors.New("begin unhashed: the source has a sha256, or no way to get it")
	}
	return s.begin(ctx, src, sha)
}

// SizeSeen reports whether a file of size bytes was imported, by any
// version of its importer (ingest.UnhashedSink), from the copy of the
// sources table that Seen reads.
func (s *Store) SizeSeen(ctx context.Context, size int64) (bool, error) {
	s.quickMu.Lock()
	defer s.quickMu.Unlock()
	if err := s.loadSources(ctx); err != nil {
		return false, err
	}
	for _, es := range s.quick {
		for _, e := range es {
			if e.size == size {
				return true, nil
			}
		}
	}
	return false, nil
}

// newTx begins a transaction on a connection of its own.
func (s *Store) newTx(ctx context.Context) (*tx, error) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN TRANSACTION"); err != nil {
		conn.Close()
		return nil, fmt.Errorf("begin: %w", err)
	}
	return &tx{s: s, ctx: ctx, conn: conn, apps: map[string]*duckdb.Appender{}, claimed: map[string]bool{}}, nil
}

// runIDsPerLookup is about how many run ids loading the set of them
// costs as much as one look-up of an id: a look-up scans the runs table
// (0.34 ms when it is empty, 1.4 ms when it holds a million runs), a load
// takes 0.7 µs an id (measured through database/sql, BENCHMARKS.md).
const runIDsPerLookup = 1024

// pendingSHA numbers the transactions begun without a sha256: each claims
// its run ids in Store.inflight under a key of its own.
var pendingSHA atomic.Int64

func (s *Store) begin(ctx context.Context, src *schema.Source, sha func() (string, error)) (ingest.Tx, error) {
	t, err := s.newTx(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.replaceOlder(ctx, t.conn, src); err != nil {
		_, _ = t.conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		t.conn.Close()
		return nil, err
	}
	t.sha = src.SHA256
	if sha != nil {
		t.shaOnDemand, t.holdRuns = sha, true
		t.inflightKey = fmt.Sprintf("\x00unhashed %d", pendingSHA.Add(1))
	}
	return t, nil
}

// replaceOlder deletes, inside the file's transaction, what an earlier
// version of the same path imported (a session log that has grown since), so
// a changed file replaces its runs instead of duplicating them:
//
//	DELETE FROM <events|usage|tool_outputs|context_ops> WHERE run_id IN
//	  (SELECT run_id FROM runs WHERE source_path = ? AND source_sha256 <> ?);
//	DELETE FROM runs     WHERE source_path = ? AND source_sha256 <> ?;
//	DELETE FROM rejects  WHERE source_path = ?;
//	DELETE FROM outcomes WHERE source_path = ? AND source_sha256 <> ?;
//	DELETE FROM sources  WHERE source_path = ? AND source_sha256 <> ?;
//
// When the path was imported with the same content by an older version of
// its importer (ingest.ReaderVersion), that import is replaced too: the
// conditions on source_sha256 are dropped, and every row of the path goes.
// A path the sources table (as Store's copy holds it) does not have under
// other content or by an older reader is not looked up.
func (s *Store) replaceOlder(ctx context.Context, conn *sql.Conn, src *schema.Source) error {
	if !s.earlierImport(ctx, src.Path, src.SHA256) {
		return nil
	}
	var other, stale int
	q := "SELECT count(*) FILTER (WHERE source_sha256 <> ?), count(*) FILTER (WHERE source_sha256 = ? AND coalesce(reader_version, 1) < ?) FROM " + schema.TableSources + " WHERE source_path = ?"
	if err := conn.QueryRowContext(ctx, q, src.SHA256, src.SHA256, ingest.ReaderVersion(src.Format), src.Path).Scan(&other, &stale); err != nil {
		return fmt.Errorf("look up earlier import of %s: %w", src.Path, err)
	}
	if other == 0 && stale == 0 {
		return nil
	}
	sha := src.SHA256
	if stale > 0 {
		sha = "" // no row has an empty sha256: every row of the path goes
	}
	old := "SELECT run_id FROM " + schema.TableRuns + " WHERE source_path = ? AND source_sha256 <> ?"
	for _, t := range []string{schema.TableEvents, schema.TableUsage, schema.TableToolOutputs, schema.TableContextOps} {
		if _, err := conn.ExecContext(ctx, "DELETE FROM "+t+" WHERE run_id IN ("+old+")", src.Path, sha); err != nil {
			return fmt.Errorf("replace earlier import of %s: %w", src.Path, err)
		}
	}
	for _, st := range []struct {
		q    string
		args []any
	}{
		{"DELETE FROM " + schema.TableRuns + " WHERE source_path = ? AND source_sha256 <> ?", []any{src.Path, sha}},
		{"DELETE FROM " + schema.TableRejects + " WHERE source_path = ?", []any{src.Path}},
		{"DELETE FROM " + schema.TableOutcomes + " WHERE source_path = ? AND source_sha256 <> ?", []any{src.Path, sha}},
		{"DELETE FROM " + schema.TableSources + " WHERE source_path = ? AND source_sha256 <> ?", []any{src.Path, sha}},
	} {
		if _, err := conn.ExecContext(ctx, st.q, st.args...); err != nil {
			return fmt.Errorf("replace earlier import of %s: %w", src.Path, err)
		}
	}
	return nil
}

type tx struct {
	s       *Store
	ctx     context.Context
	conn    *sql.Conn
	sha     string
	apps    map[string]*duckdb.Appender
	order   []string
	claimed map[string]bool
	probe   ingest.RunIDProbe
	lookup  *sql.Stmt // run-id lookup, prepared on first use
	rows    int
	done    bool
	q       *writeQueue // the writer of the rows (appendq.go), started on the first row
	pending []queuedRow // rows not yet handed to q
	// rows appended to each table's Appender since it was last flushed
	// (appendFlushRows); the writer's, like apps while q runs
	unflushed map[string]int

	// A transaction begun without the file's sha256 (BeginUnhashed):
	// shaOnDemand gives it (once sha is still empty), its runs rows are
	// held in heldRuns until Commit, and its run ids are claimed in
	// Store.inflight under inflightKey until sha is known.
	shaOnDemand func() (string, error)
	holdRuns    bool
	heldRuns    [][]any // schema.Run.Values, source_sha256 (runsSHACol) filled at Commit
	inflightKey string
}

// runsSHACol is the index of source_sha256 among the runs table's columns
// (schema.Run.Values).
var runsSHACol = func() int {
	for i, c := range schema.Runs.Columns {
		if c.Name == schema.ColSourceSHA256 {
			return i
		}
	}
	panic("schema: the runs table has no " + schema.ColSourceSHA256)
}()

// knownRunIDs returns Store.runIDs (Store.mu is held), loaded from the
// committed runs table once the ids looked up one by one (ClaimRunID)
// reach runIDsPerLookup-th of the runs stored, and nil before: a few new
// runs in a large store are looked up, many load the ids once. An id not
// in the set is stored neither there nor by a transaction in flight
// (Store.inflight has those), so it is free. One in it is looked up in
// the transaction's own view, which sees its replaceOlder's deletes: the
// set only ever holds too many ids (those deleted since), never too few.
func (t *tx) knownRunIDs() (map[string]bool, error) {
	s := t.s
	if s.runIDs != nil {
		return s.runIDs, nil
	}
	if s.stored < 0 {
		if err := s.db.QueryRowContext(t.ctx, "SELECT count(*) FROM "+schema.TableRuns).Scan(&s.stored); err != nil {
			return nil, fmt.Errorf("count runs: %w", err)
		}
	}
	if s.lookups++; s.lookups*runIDsPerLookup < s.stored {
		return nil, nil
	}
	ids := map[string]bool{}
	rows, err := s.db.QueryContext(t.ctx, "SELECT "+schema.ColRunID+" FROM "+schema.TableRuns)
	if err != nil {
		return nil, fmt.Errorf("look up run ids: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("look up run ids: %w", err)
		}
		ids[id] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("look up run ids: %w", err)
	}
	s.runIDs = ids
	return ids, nil
}

// owner is what the transaction's run ids are claimed under in
// Store.inflight: its sha256, or its own key while that is not known.
func (t *tx) owner() string {
	if t.sha == "" && t.inflightKey != "" {
		return t.inflightKey
	}
	return t.sha
}

func (t *tx) appender(table string) (*duckdb.Appender, error) {
	if a, ok := t.apps[table]; ok {
		return a, nil
	}
	var a *duckdb.Appender
	err := t.conn.Raw(func(dc any) error {
		var err error
		a, err = duckdb.NewAppenderFromConn(dc.(driver.Conn), "", table)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("appender for %s: %w", table, err)
	}
	t.apps[table] = a
	t.order = append(t.order, table)
	return a, nil
}

// append queues one row for its table's Appender (see writeQueue). vals
// is the row's own slice (each record's Values makes a new one) and is
// queued as it is, not copied (driverValues).
func (t *tx) append(table string, vals []any) error {
	if err := t.enqueue(table, driverValues(vals)); err != nil {
		return err
	}
	t.rows++
	if t.rows&4095 == 0 {
		if err := t.ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

func (t *tx) ClaimRunID(id string) (string, error) {
	s := t.s
	try := func(cand string) (bool, error) {
		if t.claimed[cand] {
			return false, nil // this file already uses it: the importer made two runs with one id
		}
		if owner, ok := s.inflight[cand]; ok && owner != t.owner() {
			return false, nil
		}
		if known, err := t.knownRunIDs(); err != nil {
			return false, err
		} else if known != nil && !known[cand] {
			return true, nil
		}
		// the transaction's own connection sees the deletes of replaceOlder
		if t.lookup == nil {
			var st *sql.Stmt
			err := t.useConn(func() (err error) {
				st, err = t.conn.PrepareContext(t.ctx, "SELECT count(*) FROM "+schema.TableRuns+" WHERE "+schema.ColRunID+" = ?")
				return err
			})
			if err != nil {
				return false, fmt.Errorf("look up run id: %w", err)
			}
			t.lookup = st
		}
		var n int
		if err := t.useConn(func() error { return t.lookup.QueryRowContext(t.ctx, cand).Scan(&n) }); err != nil {
			return false, fmt.Errorf("look up run id: %w", err)
		}
		return n == 0, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.sha == "" && t.shaOnDemand != nil {
		// without the sha256, the id itself when it is free; the probe
		// below would try it first too, and a second claim of it finds
		// it taken (t.claimed) and goes on to id@<sha8> as the probe does
		free, err := try(id)
		if err != nil {
			return "", err
		}
		if free {
			s.inflight[id] = t.owner()
			t.claimed[id] = true
			return id, nil
		}
		sha, err := t.shaOnDemand()
		if err != nil {
			return "", fmt.Errorf("claim run id %q: %w", id, err)
		}
		t.sha = sha
	}
	cand, err := t.probe.Claim(id, t.sha, func(c string) (bool, error) {
		free, err := try(c)
		return !free, err
	})
	if err != nil {
		return "", err
	}
	s.inflight[cand] = t.owner()
	t.claimed[cand] = true
	return cand, nil
}

func (t *tx) Run(r *schema.Run) error {
	if t.holdRuns { // stored at Commit, with the sha256 (BeginUnhashed)
		t.heldRuns = append(t.heldRuns, r.Values())
		return nil
	}
	return t.append(schema.TableRuns, r.Values())
}
func (t *tx) Event(e *schema.Event) error {
	return t.append(schema.TableEvents, e.Values())
}
func (t *tx) Usage(u *schema.Usage) error { return t.append(schema.TableUsage, u.Values()) }
func (t *tx) ToolOutput(o *schema.ToolOutput) error {
	return t.append(schema.TableToolOutputs, o.Values())
}
func (t *tx) ContextOp(c *schema.ContextOp) error {
	return t.append(schema.TableContextOps, c.Values())
}
func (t *tx) Reject(r *schema.Reject) error { return t.append(schema.TableRejects, r.Values()) }
func (t *tx) Outcome(o *schema.Outcome) error {
	return t.append(schema.TableOutcomes, o.Values())
}

func (t *tx) closeAppenders() error {
	var errs []error
	for _, name := range t.order {
		if err := t.apps[name].Close(); err != nil {
			errs = append(errs, fmt.Errorf("flush %s: %w", name, err))
		}
	}
	t.apps, t.order = map[string]*duckdb.Appender{}, nil
	return errors.Join(errs...)
}

// release ends the transaction; committed says whether its run ids are
// now stored (Store.runIDs takes them).
func (t *tx) release(committed bool) {
	if t.lookup != nil {
		t.lookup.Close()
	}
	t.s.mu.Lock()
	for id := range t.claimed { // only this transaction can have claimed them
		delete(t.s.inflight, id)
		if committed && t.s.runIDs != nil {
			t.s.runIDs[id] = true
		}
	}
	t.s.mu.Unlock()
	t.conn.Close()
	t.done = true
}

func (t *tx) Commit(src *schema.Source) error {
	if t.done {
		return errors.New("commit: transaction already finished")
	}
	if t.holdRuns {
		if src.SHA256 == "" {
			return errors.New("commit: the source has no sha256")
		}
		for _, vals := range t.heldRuns {
			vals[runsSHACol] = src.SHA256
			if err := t.append(schema.TableRuns, vals); err != nil {
				return err
			}
		}
		t.heldRuns, t.holdRuns = nil, false
	}
	if err := t.append(schema.TableSources, src.Values()); err != nil {
		return err
	}
	if err := t.commitRows(); err != nil {
		return err
	}
	t.s.noteSource(src)
	return nil
}

// commitRows ends a Commit: the rows still queued are appended, the
// Appenders closed and the transaction committed.
func (t *tx) commitRows() error {
	if err := t.drain(); err != nil {
		return err
	}
	if err := t.closeAppenders(); err != nil {
		return err
	}
	// A context already cancelled must not stop the commit of finished files.
	if _, err := t.conn.ExecContext(context.WithoutCancel(t.ctx), "COMMIT"); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	t.release(true)
	return nil
}

func (t *tx) Rollback() error {
	if t.done {
		return nil
	}
	_ = t.drain()
	_ = t.closeAppenders()
	_, err := t.conn.ExecContext(context.WithoutCancel(t.ctx), "ROLLBACK")
	t.release(false)
	if err != nil {
		return fmt.Errorf("rollback: %w", err)
	}
	return nil
}
