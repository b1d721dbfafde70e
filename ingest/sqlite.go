package ingest

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/trajmine/trajmine/schema"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver: pure Go, no second C library beside DuckDB's
)

// Agents that keep their sessions in a SQLite database (Goose, OpenCode
// 1.4+, Hermes, Kiro CLI) are read from it, a whole database being one
// source file: its runs are replaced when it changes, like a growing JSONL.
//
// Such a file is never opened where the agent keeps it. prepare sees the
// SQLite header (sqliteMagic) and takes a snapshot instead of a head
// (takeSnapshot): the database and its -wal (the transactions not yet
// checkpointed into it) and -journal (a hot rollback journal left by a
// crash) are copied into a private temporary directory, hashed as they are
// copied (the sha256 of the database's bytes, then the -wal's, then the
// -journal's), and copied again when one of them changed during the copy.
// So the agent never meets a lock of ours (a reader of the live file takes
// a SHARED lock that can make a writer's commit fail with SQLITE_BUSY, and
// in WAL mode a read-only reader needs the -shm it may not create), the
// import reads exactly the bytes the hash covers, and a session still in
// the -wal is read and changes the hash. The copy is opened read-only
// (mode=ro, query_only), or read-write when a -journal came with it, so
// that SQLite rolls the hot journal back in the copy; it is deleted after
// the import, or when the file is skipped. Detection opens the copy and
// reads its schema: the first storeImporter whose tables and columns it
// has claims it (claims), and a SQLite file that none claims is of unknown
// format. immutable=1 on the live file was not chosen: it is wrong (and can
// read a torn database) whenever the agent is writing, which cannot be
// known from outside.

// sqliteMagic is how every SQLite 3 database file begins.
const sqliteMagic = "SQLite format 3\x00"

// isSQLite reports whether a file's head is a SQLite database's.
func isSQLite(head []byte) bool { return bytes.HasPrefix(head, []byte(sqliteMagic)) }

// sqliteExts are the file name endings of the SQLite stores a walk
// considers (besides logExts' formats). Stores are recognised by their
// header and tables, not by these names.
var sqliteExts = []string{".db", ".sqlite", ".sqlite3", ".vscdb"}

// storeImporter is an Importer of an agent's SQLite store. Its Detect is
// false (a store is recognised by claims, on a snapshot) and its Import
// reads a database given as bytes (Parse, or a forced format).
type storeImporter interface {
	Importer
	// claims reports whether a database with schema s is this agent's store.
	claims(s dbSchema) bool
	// importDB reads the store's runs from db, opened on a snapshot.
	importDB(f *File, db *sql.DB, s dbSchema) error
}

// dbSchema is a database's tables, each with its columns.
type dbSchema map[string]map[string]bool

// has reports whether table exists with every one of cols.
func (s dbSchema) has(table string, cols ...string) bool {
	t, ok := s[table]
	if !ok {
		return false
	}
	for _, c := range cols {
		if !t[c] {
			return false
		}
	}
	return true
}

// col is column name of table when it exists, else the SQL expression
// fallback (a literal): a query of a store reads the columns an older or
// newer schema lacks as their default.
func (s dbSchema) col(table, name, fallback string) string {
	if s[table][name] {
		return name
	}
	return fallback
}

func (s dbSchema) tables() []string {
	out := make([]string, 0, len(s))
	for t := range s {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// readSchema lists the tables of db with their columns.
func readSchema(db *sql.DB) (dbSchema, error) {
	rows, err := db.Query(`SELECT m.name, p.name FROM sqlite_master AS m JOIN pragma_table_info(m.name) AS p WHERE m.type = 'table'`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	s := dbSchema{}
	for rows.Next() {
		var t, c string
		if err := rows.Scan(&t, &c); err != nil {
			return nil, err
		}
		if s[t] == nil {
			s[t] = map[string]bool{}
		}
		s[t][c] = true
	}
	return s, rows.Err()
}

// snapshot is a private copy of a SQLite store.
type snapshot struct {
	dir     string // the temporary directory holding the copy
	db      string // the copy of the database file
	journal bool   // a -journal was copied with it
}

// companions are the files beside a database that hold its content too,
// in the order they are hashed after it.
var companions = []string{"-wal", "-journal"}

// maxCopies is how many times takeSnapshot copies a store that changes
// while it is copied before it gives up.
const maxCopies = 3

// snapshotCopied, when set (by tests), is called after each copy a
// snapshot makes, before the store's files are looked at again.
var snapshotCopied func(attempt int)

// fileState is what takeSnapshot compares before and after a copy: a
// file's size and modification time, or its absence.
type fileState struct {
	exists bool
	size   int64
	mod    time.Time
}

func statFile(path string) (fileState, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fileState{}, nil
	}
	if err != nil {
		return fileState{}, err
	}
	return fileState{exists: true, size: fi.Size(), mod: fi.ModTime()}, nil
}

func statStore(path string) ([]fileState, error) {
	out := make([]fileState, 1+len(companions))
	for i, suffix := range append([]string{""}, companions...) {
		st, err := statFile(path + suffix)
		if err != nil {
			return nil, err
		}
		out[i] = st
	}
	return out, nil
}

// takeSnapshot copies the store at path (with its -wal and -journal) into a
// new temporary directory, hashing what it copies, and copies it again
// (at most maxCopies times) while one of its files changes meanwhile.
func takeSnapshot(path string) (*snapshot, string, int64, error) {
	dir, err := os.MkdirTemp("", "trajmine-sqlite-")
	if err != nil {
		return nil, "", 0, fmt.Errorf("snapshot %s: %w", path, err)
	}
	snap := &snapshot{dir: dir, db: filepath.Join(dir, "store.db")}
	fail := func(err error) (*snapshot, string, int64, error) {
		snap.release()
		return nil, "", 0, err
	}
	for attempt := range maxCopies {
		before, err := statStore(path)
		if err != nil {
			return fail(err)
		}
		h := sha256.New()
		var n int64
		snap.journal = false
		for i, suffix := range append([]string{""}, companions...) {
			if !before[i].exists {
				os.Remove(snap.db + suffix)
				continue
			}
			m, err := copyFile(path+suffix, snap.db+suffix, h)
			if err != nil {
				return fail(err)
			}
			n += m
			snap.journal = snap.journal || suffix == "-journal"
		}
		if snapshotCopied != nil {
			snapshotCopied(attempt)
		}
		after, err := statStore(path)
		if err != nil {
			return fail(err)
		}
		if equalStates(before, after) {
			return snap, hex.EncodeToString(h.Sum(nil)), n, nil
		}
	}
	return fail(fmt.Errorf("%s changed each of the %d times it was copied (the agent is writing it); nothing of it was kept, ingest it again", path, maxCopies))
}

func equalStates(a, b []fileState) bool {
	for i := range a {
		if a[i].exists != b[i].exists || a[i].size != b[i].size || !a[i].mod.Equal(b[i].mod) {
			return false
		}
	}
	return true
}

// copyFile copies the regular file src to dst, writing its bytes to h too.
func copyFile(src, dst string, h io.Writer) (int64, error) {
	in, _, err := openRegular(src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, fmt.Errorf("snapshot %s: %w", src, err)
	}
	n, err := io.Copy(io.MultiWriter(out, h), in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return n, fmt.Errorf("snapshot %s: %w", src, err)
	}
	return n, nil
}

// release deletes the snapshot; it may be called more than once.
func (s *snapshot) release() {
	if s != nil && s.dir != "" {
		os.RemoveAll(s.dir)
		s.dir = ""
	}
}

// open opens the copy: read-only, or, with a hot journal to roll back,
// read-write with every statement read-only.
func (s *snapshot) open() (*sql.DB, error) {
	q := "mode=ro&_pragma=query_only(1)"
	if s.journal {
		q = "_pragma=query_only(1)"
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(s.db), RawQuery: q}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// storeImporters lists the registered store importers in detection order.
func storeImporters() []storeImporter {
	var out []storeImporter
	for _, im := range registry {
		if si, ok := im.(storeImporter); ok {
			out = append(out, si)
		}
	}
	return out
}

// prepareStore is prepare for a SQLite file: it takes a snapshot, detects
// the store's format on it (or takes forced, a storeImporter) and returns
// the source with an importer bound to the snapshot (boundStore). With only
// set (outcome files only), a SQLite file is not one.
func prepareStore(path string, forced Importer, only func(Importer) bool) (*schema.Source, Importer, error) {
	if only != nil && (forced == nil || !only(forced)) {
		return nil, nil, fmt.Errorf("%s: %w: it is a SQLite database (trajmine ingest imports agent stores)", path, errNotOutcome)
	}
	snap, sum, n, err := takeSnapshot(path)
	if err != nil {
		return nil, nil, err
	}
	db, err := snap.open()
	if err != nil {
		snap.release()
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	s, err := readSchema(db)
	db.Close()
	if err != nil {
		snap.release()
		return nil, nil, fmt.Errorf("%s: %w: a SQLite header, but its schema cannot be read: %v", path, ErrUnknownFormat, err)
	}
	si, _ := forced.(storeImporter)
	if si == nil {
		var found []storeImporter
		for _, c := range storeImporters() {
			if c.claims(s) {
				found = append(found, c)
			}
		}
		switch len(found) {
		case 0:
			snap.release()
			return nil, nil, fmt.Errorf("%s: %w: a SQLite database, not an agent store trajmine reads (tables: %s)", path, ErrUnknownFormat, strings.Join(s.tables(), ", "))
		case 1:
			si = found[0]
		default:
			snap.release()
			return nil, nil, fmt.Errorf("%s: %w: %s, %s (choose one with --format)", path, ErrAmbiguousFormat, found[0].Name(), found[1].Name())
		}
	}
	src := &schema.Source{
		Path: path, SHA256: sum, Format: si.Name(), ReaderVersion: ReaderVersion(si.Name()),
		Bytes: n, IngestedAt: time.Now().UTC().Truncate(time.Microsecond),
	}
	return src, &boundStore{storeImporter: si, snap: snap, schema: s}, nil
}

// boundStore is a store importer bound to the snapshot prepareStore took:
// its Import reads the snapshot (not r, which is empty) and deletes it.
type boundStore struct {
	storeImporter
	snap   *snapshot
	schema dbSchema
}

func (b *boundStore) Import(f *File, _ io.Reader) error {
	defer b.snap.release()
	db, err := b.snap.open()
	if err != nil {
		return fmt.Errorf("open %s: %w", f.Path(), err)
	}
	defer db.Close()
	return b.importDB(f, db, b.schema)
}

// release deletes the snapshot of an importer prepare bound to one, for a
// file that is not imported after all (skipped, or the ingest stopped).
func release(im Importer) {
	if b, ok := im.(*boundStore); ok {
		b.snap.release()
	}
}

// importStoreBytes is a store importer's Import: the database's bytes, r,
// are written to a temporary file and read from there.
func importStoreBytes(f *File, r io.Reader, si storeImporter) error {
	dir, err := os.MkdirTemp("", "trajmine-sqlite-")
	if err != nil {
		return err
	}
	snap := &snapshot{dir: dir, db: filepath.Join(dir, "store.db")}
	defer snap.release()
	out, err := os.Create(snap.db)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, r)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", f.Path(), err)
	}
	db, err := snap.open()
	if err != nil {
		return fmt.Errorf("open %s: %w", f.Path(), err)
	}
	defer db.Close()
	s, err := readSchema(db)
	if err != nil {
		return fmt.Errorf("%s: not a readable SQLite database: %w", f.Path(), err)
	}
	return si.importDB(f, db, s)
}

// storeStat is the size and modification time the quick check compares
// for path: for a SQLite store's name (sqliteExts), those of the database
// with its -wal and -journal (sizes added, the latest time), which is what
// its source row's bytes count; for any other file, fi's.
func storeStat(path string, fi fs.FileInfo) (int64, time.Time) {
	size, mod := fi.Size(), fi.ModTime()
	if !hasSQLiteExt(path) {
		return size, mod
	}
	for _, suffix := range companions {
		if st, err := os.Stat(path + suffix); err == nil {
			size += st.Size()
			if st.ModTime().After(mod) {
				mod = st.ModTime()
			}
		}
	}
	return size, mod
}

func hasSQLiteExt(path string) bool {
	name := strings.ToLower(path)
	for _, ext := range sqliteExts {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

// rowWhere names a row of a store's table in a positioned error: "table T
// row N" (N its rowid).
func rowWhere(table string, rowid int64) string {
	return fmt.Sprintf("table %s row %d", table, rowid)
}

// rejectRow records a malformed row of a store as a reject positioned at
// "file: table T row N: reason".
func (f *File) rejectRow(table string, rowid int64, reason string, raw []byte) error {
	prev := f.where
	f.where = rowWhere(table, rowid)
	defer func() { f.where = prev }()
	return f.Reject(0, reason, raw)
}

// queryErr is a failed query or scan of a store's table, positioned at the
// table (the row is not known when the database itself is damaged).
func queryErr(f *File, table string, err error) error {
	return fmt.Errorf("%s: table %s: %w", f.Path(), table, err)
}
