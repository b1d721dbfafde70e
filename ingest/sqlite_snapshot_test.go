package ingest_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/trajmine/trajmine/ingest"
)

// agentConn opens the database at p as the agent does, on one connection
// the test keeps (its locks and its -wal stay while it is open).
func agentConn(t *testing.T, p string, pragmas ...string) *sql.Conn {
	t.Helper()
	db, err := sql.Open("sqlite", p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	for _, s := range pragmas {
		agentExec(t, c, s)
	}
	return c
}

func agentExec(t *testing.T, c *sql.Conn, stmt string) {
	t.Helper()
	if _, err := c.ExecContext(context.Background(), stmt); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

// dirState is each file of dir with its size and modification time.
func dirState(t *testing.T, dir string) map[string]string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = fmt.Sprint(fi.ModTime().Format(time.RFC3339Nano), " ", fi.Mode(), " ", fi.Size())
	}
	return out
}

func runIDs(m *ingest.MemSink) []string {
	var ids []string
	for _, r := range m.Runs {
		ids = append(ids, r.RunID)
	}
	return ids
}

const gooseSession = `INSERT INTO sessions (id, working_dir) VALUES ('wal-session', '/w');
INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp) VALUES ('w1', 'wal-session', 'user', '[{"type":"text","text":"only in the -wal"}]', 1700000100)`

// TestStoreWAL: a store in WAL mode whose last transactions are still in
// its -wal (the agent is running) is read with them; the agent's files are
// neither changed nor joined by others; a transaction that reaches only the
// -wal changes the hash, so the store is imported again.
func TestStoreWAL(t *testing.T) {
	dir := t.TempDir()
	p := buildStore(t, dir, "goose/sessions.sql", "sessions.db")
	agent := agentConn(t, p, "PRAGMA journal_mode = WAL", "PRAGMA wal_autocheckpoint = 0")
	agentExec(t, agent, gooseSession)
	mainBefore, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	wal, err := os.Stat(p + "-wal")
	if err != nil || wal.Size() == 0 {
		t.Fatalf("the session is not in a -wal: %v", err)
	}
	before := dirState(t, dir)
	m, sum, warns := ingestPaths(t, nil, p)
	if got := runIDs(m); !slices.Equal(got, []string{"child", "wal-session"}) || sum.Failed != 0 {
		t.Fatalf("runs %q, summary %+v, warnings %q", got, sum, warns)
	}
	st, _ := os.Stat(p)
	if want := st.Size() + wal.Size(); m.Sources[0].Bytes != want {
		t.Errorf("source bytes %d, want the database's and the -wal's %d", m.Sources[0].Bytes, want)
	}
	if after := dirState(t, dir); !mapsEqual(before, after) {
		t.Errorf("the agent's folder changed:\nbefore %v\nafter  %v", before, after)
	}

	agentExec(t, agent, `INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp) VALUES ('w2', 'wal-session', 'assistant', '[{"type":"text","text":"also in the -wal"}]', 1700000101)`)
	if mainAfter, _ := os.ReadFile(p); string(mainAfter) != string(mainBefore) {
		t.Fatal("the database file changed: the test needs the transaction in the -wal only")
	}
	q := &quickMem{MemSink: m}
	sum, err = ingest.Files(context.Background(), q, []string{p}, nil)
	if err != nil || sum.Files != 1 {
		t.Fatalf("second import: %+v, %v", sum, err)
	}
	st, _ = os.Stat(p)
	wal, _ = os.Stat(p + "-wal")
	if want := []int64{st.Size() + wal.Size()}; !slices.Equal(q.asked, want) {
		t.Errorf("the quick check was asked about %v bytes, want the database's and the -wal's %v", q.asked, want)
	}
	if len(m.Sources) != 2 || m.Sources[0].SHA256 == m.Sources[1].SHA256 {
		t.Fatalf("sources %+v: the -wal's new transaction did not change the hash", m.Sources)
	}
	var events int
	for _, e := range m.Events {
		if e.RunID == m.Runs[len(m.Runs)-1].RunID {
			events++
		}
	}
	if events != 2 {
		t.Errorf("the re-imported wal-session has %d events, want 2", events)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestStoreAgentLock: while the agent holds an exclusive lock on its store
// (a write transaction in rollback-journal mode), a reader of the live file
// is refused, but the import reads the snapshot and takes no lock: the
// agent's commit then goes through.
func TestStoreAgentLock(t *testing.T) {
	dir := t.TempDir()
	p := buildStore(t, dir, "kiro/data.sql", "data.sqlite3")
	agent := agentConn(t, p)
	agentExec(t, agent, "BEGIN EXCLUSIVE")
	live, err := sql.Open("sqlite", "file:"+p+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := live.QueryRow("SELECT count(*) FROM conversations_v2").Scan(&n); err == nil {
		t.Fatal("a reader of the live file was not refused: the test proves nothing")
	}
	live.Close()
	m, sum, warns := ingestPaths(t, nil, p)
	if got := runIDs(m); !slices.Equal(got, []string{"sqlite-session"}) {
		t.Fatalf("runs %q, summary %+v, warnings %q", got, sum, warns)
	}
	agentExec(t, agent, "UPDATE conversations_v2 SET updated_at = updated_at + 1")
	agentExec(t, agent, "COMMIT")
}

// TestStoreHotJournal: a store in rollback-journal mode with a write
// transaction in progress whose pages were already written to the database
// (its -journal holds the originals) is read as of its last commit: the
// snapshot's hot journal is rolled back.
func TestStoreHotJournal(t *testing.T) {
	dir := t.TempDir()
	p := buildStore(t, dir, "goose/sessions.sql", "sessions.db")
	agent := agentConn(t, p, "PRAGMA cache_size = 1")
	agentExec(t, agent, "BEGIN")
	agentExec(t, agent, `INSERT INTO sessions (id, working_dir) VALUES ('uncommitted', '/u')`)
	agentExec(t, agent, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 300)
		INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp)
		SELECT 'u' || i, 'uncommitted', 'user', '[{"type":"text","text":"' || hex(randomblob(300)) || '"}]', 1700000200 + i FROM n`)
	agentExec(t, agent, `UPDATE messages SET content_json = '[{"type":"text","text":"rewritten"}]' WHERE session_id = 'child'`)
	if j, err := os.Stat(p + "-journal"); err != nil || j.Size() == 0 {
		t.Fatalf("no -journal: %v", err)
	}
	m, sum, warns := ingestPaths(t, nil, p)
	if got := runIDs(m); !slices.Equal(got, []string{"child"}) || sum.Failed != 0 {
		t.Fatalf("runs %q, summary %+v, warnings %q", got, sum, warns)
	}
	for _, e := range m.Events {
		if e.Text == "rewritten" {
			t.Fatal("an uncommitted change was read")
		}
	}
	agentExec(t, agent, "ROLLBACK")
}

// TestStoreLeavesNoCopy: the snapshots are deleted, of a store imported,
// skipped as already imported, and not claimed.
func TestStoreLeavesNoCopy(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := t.TempDir()
	buildStore(t, dir, "hermes/state.sql", "state.db")
	execSQL(t, filepath.Join(dir, "other.db"), "CREATE TABLE t (x)")
	m, _, _ := ingestPaths(t, nil, dir)
	if _, err := ingest.Files(context.Background(), m, []string{dir}, nil); err != nil {
		t.Fatal(err)
	}
	if len(m.Runs) != 1 {
		t.Errorf("%d runs, want 1", len(m.Runs))
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("left in the temporary directory: %v", ents)
	}
}

// quickMem is a MemSink with the quick check: a path is unchanged when a
// source of it has this size. It records the sizes it is asked about.
type quickMem struct {
	*ingest.MemSink
	asked []int64
}

func (q *quickMem) Unchanged(_ context.Context, path string, size int64, _ time.Time) (bool, error) {
	q.asked = append(q.asked, size)
	for _, s := range q.Sources {
		if s.Path == path && s.Bytes == size {
			return true, nil
		}
	}
	return false, nil
}
