package store

import (
	"context"
	"database/sql/driver"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/trajmine/trajmine/schema"
)

// TestAppendFlushRows: the writer flushes a table's Appender into the
// transaction's local storage every appendFlushRows rows, so those rows
// are visible to the transaction's own queries before its Commit; the
// rows after the last flush are flushed by the Commit. Counted by hand:
// with 7 rows, a flush every 3 leaves 6 visible before the commit (two
// flushes), a flush every 100 (more than the rows) none, and the commit
// stores all 7 either way.
func TestAppendFlushRows(t *testing.T) {
	for _, tc := range []struct {
		every, rows  int
		beforeCommit int
		afterCommit  int
	}{
		{every: 3, rows: 7, beforeCommit: 6, afterCommit: 7},
		{every: 7, rows: 7, beforeCommit: 7, afterCommit: 7},
		{every: 100, rows: 7, beforeCommit: 0, afterCommit: 7},
	} {
		old := appendFlushRows
		appendFlushRows = tc.every
		func() {
			defer func() { appendFlushRows = old }()
			ctx := context.Background()
			st, err := Open(ctx, Config{Path: ":memory:"})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			src := &schema.Source{Path: "f.jsonl", SHA256: "abc", Format: "openai-messages"}
			itx, err := st.Begin(ctx, src)
			if err != nil {
				t.Fatal(err)
			}
			tx := itx.(*tx)
			for i := range tc.rows {
				if err := tx.Reject(&schema.Reject{SourcePath: src.Path, Line: int64(i + 1), Reason: "r"}); err != nil {
					t.Fatal(err)
				}
			}
			if err := tx.drain(); err != nil { // the writer has appended every row
				t.Fatal(err)
			}
			var n int
			if err := tx.conn.QueryRowContext(ctx, "SELECT count(*) FROM "+schema.TableRejects).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != tc.beforeCommit {
				t.Errorf("every %d: %d rows visible before the commit, want %d", tc.every, n, tc.beforeCommit)
			}
			if err := tx.Commit(src); err != nil {
				t.Fatal(err)
			}
			if err := st.DB().QueryRowContext(ctx, "SELECT count(*) FROM "+schema.TableRejects).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != tc.afterCommit {
				t.Errorf("every %d: %d rows after the commit, want %d", tc.every, n, tc.afterCommit)
			}
		}()
	}
}

// TestDriverValues: a row's values reach the queue as the same elements
// in the same memory (no copy per row), for rows of every value type a
// record's Values returns (strings, integers, floats, booleans, times,
// NULLs) and for empty rows.
func TestDriverValues(t *testing.T) {
	ts := time.Date(2026, 12, 5, 3, 15, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		vals []any
	}{
		{"nil", nil},
		{"empty", []any{}},
		{"one string", []any{"run-1"}},
		{"mixed", []any{"run-1", int64(7), 2.5, true, ts, nil, ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := driverValues(tc.vals)
			if len(got) != len(tc.vals) {
				t.Fatalf("len %d, want %d", len(got), len(tc.vals))
			}
			for i := range tc.vals {
				if got[i] != tc.vals[i] {
					t.Errorf("value %d: %v, want %v", i, got[i], tc.vals[i])
				}
				if &got[i] != (*driver.Value)(&tc.vals[i]) {
					t.Errorf("value %d is a copy, want the row's own element", i)
				}
			}
			if n := testing.AllocsPerRun(100, func() { _ = driverValues(tc.vals) }); n != 0 {
				t.Errorf("%v allocations, want 0", n)
			}
		})
	}
}

// TestFullRowGroupWrittenBeforeCommit: in a store opened for writing, a
// transaction's full row group (DuckDB's 122,880 rows) is written to the
// database file as soon as the writer has flushed it, before the commit
// (writeBufferRowGroups); fewer rows than a row group stay in memory until
// the commit. Both store every row. With DuckDB's default buffer of five
// row groups the file would not grow before the commit in either case.
func TestFullRowGroupWrittenBeforeCommit(t *testing.T) {
	for _, tc := range []struct {
		rows int
		grow bool // the file grows before the commit
	}{
		{rows: 8 * 16384, grow: true}, // 131,072: one full row group and 8,192 rows
		{rows: 16384, grow: false},
	} {
		t.Run(strconv.Itoa(tc.rows), func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "rg.duckdb")
			st, err := Open(ctx, Config{Path: path})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			size := func() int64 {
				fi, err := os.Stat(path)
				if err != nil {
					t.Fatal(err)
				}
				return fi.Size()
			}
			before := size()
			src := &schema.Source{Path: "f.jsonl", SHA256: "abc", Format: "openai-messages"}
			itx, err := st.Begin(ctx, src)
			if err != nil {
				t.Fatal(err)
			}
			tx := itx.(*tx)
			for i := range tc.rows {
				r := &schema.Reject{SourcePath: src.Path, Line: int64(i + 1), Reason: "r", Raw: fmt.Sprintf("line %d: %x", i, uint32(i)*2654435761)}
				if err := tx.Reject(r); err != nil {
					t.Fatal(err)
				}
			}
			if err := tx.drain(); err != nil { // every row appended, flushed every appendFlushRows
				t.Fatal(err)
			}
			if grew := size() > before; grew != tc.grow {
				t.Errorf("file grew before the commit: %v (%d → %d bytes), want %v", grew, before, size(), tc.grow)
			}
			if err := tx.Commit(src); err != nil {
				t.Fatal(err)
			}
			var n int
			if err := st.DB().QueryRowContext(ctx, "SELECT count(*) FROM "+schema.TableRejects).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != tc.rows {
				t.Errorf("%d rows stored, want %d", n, tc.rows)
			}
		})
	}
}
