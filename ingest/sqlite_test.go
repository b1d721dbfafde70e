package ingest_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/schema"

	_ "modernc.org/sqlite"
)

// agentsDir holds the issue-30 fixtures; the SQLite stores are given as
// SQL (schema and rows reproduced from their sources, SOURCE.md).
const agentsDir = "testdata/agents"

// buildStore executes the fixture's SQL (and then more, if given) into a
// new database at dir/name and returns its path.
func buildStore(t testing.TB, dir, fixture, name string, more ...string) string {
	t.Helper()
	script, err := os.ReadFile(filepath.Join(agentsDir, fixture))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	execSQL(t, p, append([]string{string(script)}, more...)...)
	return p
}

// execSQL runs statements on the database at p (created when missing).
func execSQL(t testing.TB, p string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", p)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("PRAGMA synchronous = OFF"); err != nil { // test speed: one connection, no fsync
		t.Fatal(err)
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
}

// ingestPaths imports paths into a new MemSink, collecting warnings.
func ingestPaths(t *testing.T, o *ingest.Options, paths ...string) (*ingest.MemSink, *ingest.Summary, []string) {
	t.Helper()
	var warns []string
	if o == nil {
		o = &ingest.Options{}
	}
	o.Warn = func(err error) { warns = append(warns, err.Error()) }
	m := &ingest.MemSink{}
	sum, err := ingest.Files(context.Background(), m, paths, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Check(); err != nil {
		t.Fatal(err)
	}
	return m, sum, warns
}

// runCounts are a run's figures as the fixtures' SOURCE.md count them.
type runCounts struct {
	id, format, harness, parent, model string
	turns, toolCalls, results, linked  int64
	in, out, cacheRead, cacheWrite     int64
	reasoning                          int64
	cost                               float64 // -1: none
	usageCalls                         int64
}

func storeRunCounts(m *ingest.MemSink, r *schema.Run) runCounts {
	c := runCounts{id: r.RunID, format: r.SourceFormat, harness: r.Harness, parent: r.ParentRunID, model: r.Model,
		turns: r.NTurns, in: r.InputTokens, out: r.OutputTokens, cacheRead: r.CacheReadTokens, cacheWrite: r.CacheWriteTokens,
		reasoning: r.ReasoningTokens, cost: -1, usageCalls: r.UsageCalls}
	if r.CostUSD != nil {
		c.cost = math.Round(*r.CostUSD*1e10) / 1e10
	}
	calls := map[string]bool{}
	for _, e := range m.Events {
		if e.RunID == r.RunID && e.Kind == schema.KindToolCall {
			c.toolCalls++
			calls[e.CallID] = true
		}
	}
	for _, e := range m.Events {
		if e.RunID == r.RunID && e.Kind == schema.KindToolResult {
			c.results++
			if calls[e.CallID] {
				c.linked++
			}
		}
	}
	return c
}

// TestStoresHandCounts imports each SQLite fixture, built from its SQL, and
// checks every run against the hand counts of its SOURCE.md and
// counts.json. trajmine's input tokens include cache reads and writes:
// where a store counts them apart, the hand-counted input plus both is
// expected.
func TestStoresHandCounts(t *testing.T) {
	for _, tc := range []struct {
		fixture, name string
		want          []runCounts
	}{
		{"goose/sessions.sql", "sessions.db", []runCounts{
			// counts.json: 2 calls (1 compaction), 1 tool call, 1 result linked by id,
			// 140/25/36/12 (input without the cache: total_tokens 160 = 100+20+30+10), cost 0.0165
			{id: "child", format: "goose-sessions-db", harness: "goose", parent: "parent", model: "claude-sonnet-4-6",
				turns: 2, toolCalls: 1, results: 1, linked: 1, in: 140 + 36 + 12, out: 25, cacheRead: 36, cacheWrite: 12, cost: 0.0165, usageCalls: 2},
		}},
		{"opencode-sqlite/opencode.sql", "opencode.db", []runCounts{
			// counts.json: ses_tools 1 call, 1 tool call, 0 results, no usage
			{id: "ses_tools", format: "opencode-db", harness: "opencode", turns: 1, toolCalls: 1, cost: -1},
			// ses_usage: 2 calls, 10,371/137/500/11,969, reasoning 0, cost 0.06505425
			{id: "ses_usage", format: "opencode-db", harness: "opencode", model: "claude-sonnet-4-20250514",
				turns: 2, in: 10371 + 500 + 11969, out: 137, cacheRead: 500, cacheWrite: 11969, cost: 0.06505425, usageCalls: 2},
		}},
		{"hermes/state.sql", "state.db", []runCounts{
			// counts.json: api_call_count 4, no tool calls, 300/70/20/5 (+9 reasoning), cost 0.123
			// estimated; per session only: no per-call usage rows
			{id: "child", format: "hermes-state-db", harness: "hermes", parent: "parent", model: "gpt-5.4",
				turns: 4, in: 300 + 20 + 5, out: 70, cacheRead: 20, cacheWrite: 5, reasoning: 9, cost: 0.123},
		}},
		{"kiro/data.sql", "data.sqlite3", []runCounts{
			// counts.json: 2 calls (history entries), 1 tool call (tool-1), 0 results, no usage
			{id: "sqlite-session", format: "kiro-cli-db", harness: "kiro-cli", turns: 2, toolCalls: 1, cost: -1},
		}},
	} {
		// a store is read the same way whether prepare reads it whole
		// (at most SmallFile bytes) or its head only (SmallFile -1: never whole)
		for _, small := range []int64{0, -1} {
			t.Run(fmt.Sprintf("%s/small=%d", tc.name, small), func(t *testing.T) {
				p := buildStore(t, t.TempDir(), tc.fixture, tc.name)
				m, sum, warns := ingestPaths(t, &ingest.Options{SmallFile: small}, p)
				if sum.Files != 1 || sum.Failed != 0 {
					t.Fatalf("summary %+v, warnings %q", sum, warns)
				}
				if len(m.Runs) != len(tc.want) {
					t.Fatalf("%d runs, want %d", len(m.Runs), len(tc.want))
				}
				for i, w := range tc.want {
					if got := storeRunCounts(m, &m.Runs[i]); got != w {
						t.Errorf("run %d:\n got %+v\nwant %+v", i, got, w)
					}
				}
			})
		}
	}
}

// TestStoreGooseUnknownBlock: the fixture's futureContent block is the one
// reject, named at its table and row, and the rest of the store imports.
func TestStoreGooseUnknownBlock(t *testing.T) {
	p := buildStore(t, t.TempDir(), "goose/sessions.sql", "sessions.db")
	m, _, warns := ingestPaths(t, nil, p)
	want := p + `: table messages row 4: content block type "futureContent" unknown`
	if len(m.Rejects) != 1 || len(warns) != 1 || !strings.HasPrefix(warns[0], want) {
		t.Fatalf("rejects %+v, warnings %q; want one starting %q", m.Rejects, warns, want)
	}
	if r := m.Rejects[0]; !strings.HasPrefix(r.Reason, "table messages row 4: ") {
		t.Errorf("reject reason %q does not name its row", r.Reason)
	}
}

// TestStoreSourceIsWholeFile: a store is one source, its runs all from it,
// and an unchanged store is not imported again.
func TestStoreSourceIsWholeFile(t *testing.T) {
	p := buildStore(t, t.TempDir(), "opencode-sqlite/opencode.sql", "opencode.db")
	m, _, _ := ingestPaths(t, nil, p)
	if len(m.Sources) != 1 || m.Sources[0].Path != p || m.Sources[0].Runs != 2 || m.Sources[0].Format != "opencode-db" {
		t.Fatalf("sources %+v", m.Sources)
	}
	st, _ := os.Stat(p)
	if m.Sources[0].Bytes != st.Size() {
		t.Errorf("source bytes %d, file %d (no -wal)", m.Sources[0].Bytes, st.Size())
	}
	sum, err := ingest.Files(context.Background(), m, []string{p}, nil)
	if err != nil || sum.Files != 0 || sum.Skipped != 1 {
		t.Errorf("second import: %+v, %v; want skipped", sum, err)
	}
}

// TestStoreNotClaimed: a SQLite file no agent keeps is not claimed: named
// on the command line it fails, naming its tables; found by a walk it is
// skipped with a warning.
func TestStoreNotClaimed(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "notes.db")
	execSQL(t, p, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('x')",
		// tables of the same names as Goose's, without its columns
		"CREATE TABLE sessions (id TEXT); CREATE TABLE messages (session_id TEXT, role TEXT, body TEXT)")
	_, sum, _ := ingestPaths(t, nil, p)
	if sum.Failed != 1 || sum.Runs != 0 || len(sum.Errors) != 1 || !errors.Is(sum.Errors[0], ingest.ErrUnknownFormat) ||
		!strings.Contains(sum.Errors[0].Error(), "not an agent store trajmine reads (tables: messages, notes, sessions)") {
		t.Errorf("named: %+v", sum)
	}
	_, sum, warns := ingestPaths(t, nil, dir)
	if sum.Failed != 0 || sum.Skipped != 1 || sum.Runs != 0 || len(warns) != 1 || !strings.Contains(warns[0], "not an agent store") {
		t.Errorf("walked: %+v, warnings %q", sum, warns)
	}
}

// TestStoreDamaged: a store cut short, or a SQLite header followed by
// garbage, fails with an error naming the file, without a panic, and
// leaves the other files' imports alone.
func TestStoreDamaged(t *testing.T) {
	dir := t.TempDir()
	good := buildStore(t, dir, "kiro/data.sql", "a-good.sqlite3")
	src := buildStore(t, t.TempDir(), "goose/sessions.sql", "sessions.db")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	// many long messages after the fixture's: the schema's pages come
	// first, the rows' last; with the last pages overwritten, the schema
	// reads and the messages do not (a file cut short is malformed to
	// SQLite as a whole: its header counts the missing pages)
	var long strings.Builder
	long.WriteString("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 200) " +
		"INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp) " +
		"SELECT 'm' || i, 'child', 'user', '[{\"type\":\"text\",\"text\":\"' || hex(randomblob(400)) || '\"}]', 1700000100 + i FROM n")
	big, err := os.ReadFile(buildStore(t, t.TempDir(), "goose/sessions.sql", "sessions.db", long.String()))
	if err != nil {
		t.Fatal(err)
	}
	damaged := append([]byte(nil), big...)
	for i := len(damaged) - 16*4096; i < len(damaged); i++ {
		damaged[i] = byte(i * 13)
	}
	garbage := append([]byte("SQLite format 3\x00"), make([]byte, 4096)...)
	for i := 16; i < len(garbage); i++ {
		garbage[i] = byte(i * 7)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string // in the error
	}{
		{"cut.db", data[:len(data)/3], "cut.db"},
		{"damaged-rows.db", damaged, "damaged-rows.db: table messages: database disk image is malformed"},
		{"header-only.db", data[:100], "header-only.db"},
		{"garbage.db", garbage, "garbage.db"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name)
			if err := os.WriteFile(p, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			defer os.Remove(p)
			m, sum, warns := ingestPaths(t, nil, good, p)
			if sum.Failed != 1 || len(sum.Errors) != 1 || !strings.Contains(sum.Errors[0].Error(), tc.want) {
				t.Fatalf("summary %+v, warnings %q", sum, warns)
			}
			t.Log(sum.Errors[0])
			if sum.Files != 1 || len(m.Runs) != 1 || m.Runs[0].SourcePath != good {
				t.Errorf("the good store: %d files, runs %+v", sum.Files, m.Runs)
			}
		})
	}
}

// TestStoresCountsJSON checks the stores' runs against counts.json itself
// (the hand counts TestStoresHandCounts writes out), run by run in order:
// model calls, tool calls and results, and usage, whose input trajmine
// counts with the cache reads and writes the stores count apart.
func TestStoresCountsJSON(t *testing.T) {
	for _, tc := range []struct{ folder, file, db string }{
		{"goose", "sessions.sql", "sessions.db"},
		{"opencode-sqlite", "opencode.sql", "opencode.db"},
		{"hermes", "state.sql", "state.db"},
		{"kiro", "data.sql", "data.sqlite3"},
	} {
		t.Run(tc.folder, func(t *testing.T) {
			hand := agentCounts(t, tc.folder)[tc.file].Runs
			m, _, _ := ingestPaths(t, nil, buildStore(t, t.TempDir(), tc.folder+"/"+tc.file, tc.db))
			if len(m.Runs) != len(hand) {
				t.Fatalf("%d runs, counts.json has %d", len(m.Runs), len(hand))
			}
			for i, h := range hand {
				got := storeRunCounts(m, &m.Runs[i])
				check := func(what string, got int64, want *int64) {
					if want != nil && got != *want {
						t.Errorf("run %s: %s %d, counts.json %d", runIDAt(m, i), what, got, *want)
					}
				}
				check("model calls", got.turns, h.ModelCalls)
				check("tool calls", got.toolCalls, h.ToolCalls)
				check("tool results", got.results, h.ToolResults)
				check("tool results linked", got.linked, h.ToolResultsLinked)
				u := h.Usage
				if u == nil {
					if got.in+got.out+got.cacheRead+got.cacheWrite != 0 || got.cost != -1 {
						t.Errorf("run %s: usage %+v, counts.json none", runIDAt(m, i), got)
					}
					continue
				}
				in := *u.Input + *u.CacheRead + *u.CacheWrite
				check("input (with the cache)", got.in, &in)
				check("output", got.out, u.Output)
				check("cache read", got.cacheRead, u.CacheRead)
				check("cache write", got.cacheWrite, u.CacheWrite)
				if u.Cost != nil && math.Abs(got.cost-*u.Cost) > 1e-9 {
					t.Errorf("run %s: cost %v, counts.json %v", runIDAt(m, i), got.cost, *u.Cost)
				}
			}
		})
	}
}

func runIDAt(m *ingest.MemSink, i int) string { return m.Runs[i].RunID }
