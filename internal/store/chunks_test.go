package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/schema"
)

// TestStreamChunks reads a query of every column kind streamChunks hands
// out (integers, NULLs, strings inline and out of line, at the 12-byte
// boundary too, over several
// chunks) and compares it with database/sql's reading of the same query;
// then its errors: wrong column types, a bad query, a failing fn, a
// cancelled context, an in-memory store, a closed one.
func TestStreamChunks(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "c.duckdb")
	st, err := Open(ctx, Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	const q = `SELECT i::BIGINT, CASE WHEN i % 7 = 0 THEN NULL ELSE hash(i) END, (i % 100)::TINYINT,
  CASE WHEN i % 5 = 0 THEN NULL WHEN i % 11 = 0 THEN lpad(i::VARCHAR, 12, 'x') WHEN i % 13 = 0 THEN lpad(i::VARCHAR, 13, 'y')
    WHEN i % 2 = 0 THEN 'short' || i ELSE repeat('long-', i % 9 + 3) || i END
FROM range(?, ?) t(i)`
	types := []colType{colBigInt, colUBigInt, colTinyInt, colVarchar}
	type row struct {
		I    int64
		H    uint64
		HNil bool
		K    int8
		S    string
		SNil bool
	}
	// database/sql's reading is the reference
	var want []row
	rs, err := st.db.QueryContext(ctx, q, int64(10), int64(5000))
	if err != nil {
		t.Fatal(err)
	}
	for rs.Next() {
		var r row
		var h *uint64
		var s *string
		if err := rs.Scan(&r.I, &h, &r.K, &s); err != nil {
			t.Fatal(err)
		}
		r.HNil, r.SNil = h == nil, s == nil
		if h != nil {
			r.H = *h
		}
		if s != nil {
			r.S = *s
		}
		want = append(want, r)
	}
	if err := rs.Close(); err != nil {
		t.Fatal(err)
	}
	var got []row
	chunks := 0
	err = st.streamChunks(ctx, q, []any{int64(10), 5000}, types, func(c *chunk) error {
		chunks++
		is, hs, ks := column[int64](c, 0), column[uint64](c, 1), column[int8](c, 2)
		for i := range c.n {
			r := row{I: is[i], K: ks[i], HNil: c.null(1, i), SNil: c.null(3, i), S: strings.Clone(c.str(3, i))}
			if !r.HNil {
				r.H = hs[i]
			}
			got = append(got, r)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if chunks < 2 || len(want) != 4990 {
		t.Fatalf("%d chunks, %d rows: the test wants several chunks of 4,990 rows", chunks, len(want))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("chunks differ from database/sql (-sql +chunks):\n%s", diff)
	}

	errCases := []struct {
		name, q string
		args    []any
		types   []colType
		fn      func(*chunk) error
		want    string
	}{
		{"column type", q, []any{int64(0), int64(10)}, []colType{colUBigInt, colUBigInt, colTinyInt, colVarchar}, nil, "column 0 has DuckDB type"},
		{"column count", q, []any{int64(0), int64(10)}, types[:2], nil, "4 columns, want 2"},
		{"syntax", "SELEC 1", nil, []colType{colBigInt}, nil, "syntax error"},
		{"runtime", "SELECT error('boom')::BIGINT FROM range(3)", nil, []colType{colBigInt}, nil, "boom"},
		{"argument", "SELECT ?::BIGINT", []any{1.5}, []colType{colBigInt}, nil, "cannot bind a float64"},
		{"fn", q, []any{int64(0), int64(10)}, types, func(*chunk) error { return errors.New("fn failed") }, "fn failed"},
	}
	for _, tc := range errCases {
		fn := tc.fn
		if fn == nil {
			fn = func(*chunk) error { return nil }
		}
		err := st.streamChunks(ctx, tc.q, tc.args, tc.types, fn)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}

	// cancelled while streaming: the query is interrupted and the
	// context's error returned
	cctx, cancel := context.WithCancel(ctx)
	n := 0
	err = st.streamChunks(cctx, "SELECT i FROM range(100000000) t(i)", nil, []colType{colBigInt}, func(*chunk) error {
		if n++; n == 3 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || n > 1000 {
		t.Errorf("cancelled after 3 chunks: error %v after %d chunks, want context.Canceled soon", err, n)
	}

	// a read-only opening of the same file gets its own raw handle
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := st.streamChunks(ctx, "SELECT 1::BIGINT", nil, []colType{colBigInt}, func(*chunk) error { return nil }); err == nil {
		t.Error("closed store: no error")
	}
	ro, err := Open(ctx, Config{Path: path, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	var sum int64
	if err := ro.streamChunks(ctx, "SELECT i FROM range(?) t(i)", []any{100}, []colType{colBigInt}, func(c *chunk) error {
		for _, v := range column[int64](c, 0) {
			sum += v
		}
		return nil
	}); err != nil || sum != 4950 {
		t.Errorf("read-only store: sum %d, error %v; want 4950", sum, err)
	}

	mem, err := Open(ctx, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	if err := mem.streamChunks(ctx, "SELECT 1::BIGINT", nil, []colType{colBigInt}, nil); !errors.Is(err, errNoRaw) {
		t.Errorf("in-memory store: %v, want errNoRaw", err)
	}
}

// TestStrArena: copies equal their originals, share blocks when small and
// stand alone when large.
func TestStrArena(t *testing.T) {
	var a strArena
	var in, out []string
	for i := range 100000 {
		s := fmt.Sprintf("target-%d", i)
		if i%1000 == 0 {
			s = strings.Repeat("x", arenaBlock/8) // larger than a block share
		}
		in = append(in, s)
		out = append(out, a.clone(s))
	}
	if diff := cmp.Diff(in, out); diff != "" {
		t.Errorf("copies differ:\n%s", diff)
	}
	if a.clone("") != "" {
		t.Error("empty string")
	}
}

// TestEventStreamFallsBack: when DuckDB's own handle cannot be had, the
// default reader is database/sql's; asking for chunks then fails with the
// reason.
func TestEventStreamFallsBack(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, Config{Path: filepath.Join(t.TempDir(), "f.duckdb")})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	src := &schema.Source{Path: "r1.jsonl", SHA256: strings.Repeat("ab", 32), Format: "openai-messages"}
	tx, err := st.Begin(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Run(&schema.Run{RunID: "r1", SourceFormat: "openai-messages", SourcePath: src.Path, SourceSHA256: src.SHA256,
		Harness: "h", EndReason: schema.EndUnknown, EndReasonSource: schema.SourceInferred}); err != nil {
		t.Fatal(err)
	}
	for _, e := range []schema.Event{
		{RunID: "r1", Seq: 0, Kind: schema.KindToolCall, ToolName: "Read", CallID: "c1", Target: "a.go", EstTokens: 5},
		{RunID: "r1", Seq: 1, Kind: schema.KindToolResult, ToolName: "Read", CallID: "c1", Text: "body", EstTokens: 7},
	} {
		if err := tx.Event(&e); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(src); err != nil {
		t.Fatal(err)
	}
	read := func(reader string) (string, error) {
		var b strings.Builder
		err := st.EventStream(ctx, EventStreamOptions{Reader: reader, Targets: true}, func(r *schema.Run, evs []schema.Event, _ []schema.ContextOp) error {
			for _, e := range evs {
				fmt.Fprintf(&b, "%s %d %s %s %s %d|", r.RunID, e.Seq, e.Kind, e.ToolName, e.Target, e.EstTokens)
			}
			return nil
		})
		return b.String(), err
	}
	want, err := read("sql")
	if err != nil || want != "r1 0 tool_call Read a.go 5|r1 1 tool_result   7|" {
		t.Fatalf("sql reader: %q, %v", want, err)
	}
	st.raw.once.Do(func() { st.raw.err = errors.New("raw handle: refused") }) // as if the cache had refused
	if got, err := read(""); err != nil || got != want {
		t.Errorf("default reader without a raw handle: %q, %v; want %q", got, err, want)
	}
	if _, err := read("chunks"); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("chunks without a raw handle: %v, want the reason", err)
	}
}
