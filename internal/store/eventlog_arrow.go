//go:build duckdb_arrow

package store

import (
	"context"
	"database/sql/driver"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/duckdb/duckdb-go/v2"
)

// arrowReader reads the events query through DuckDB's Arrow interface
// (built with -tags duckdb_arrow): columns are read from the record batches
// directly, and the strings handed on point into the batches, which are
// kept until release.
var arrowReader rowReader = readArrow

type stringColumn interface {
	Value(int) string
	IsNull(int) bool
}

func readArrow(ctx context.Context, s *Store, q string, args []any, idx *runIndex, out *logRows) (func(), error) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	var kept []arrow.RecordBatch
	release := func() {
		for _, r := range kept {
			r.Release()
		}
		kept = nil
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		dconn, ok := dc.(driver.Conn)
		if !ok {
			return fmt.Errorf("not a driver connection: %T", dc)
		}
		ar, err := duckdb.NewArrowFromConn(dconn)
		if err != nil {
			return err
		}
		rr, err := ar.QueryContext(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rr.Release()
		for rr.Next() {
			rec := rr.RecordBatch()
			if err := appendBatch(rec, idx, out); err != nil {
				return err
			}
			rec.Retain()
			kept = append(kept, rec)
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		return rr.Err()
	})
	return release, err
}

// appendBatch appends one batch of (run_id, seq, ts_us, kind, tool_name,
// call_id, tool_key, target, args, est_tokens).
func appendBatch(rec arrow.RecordBatch, idx *runIndex, out *logRows) error {
	if rec.NumCols() != 10 {
		return fmt.Errorf("events batch has %d columns, want 10", rec.NumCols())
	}
	var strs [10]stringColumn
	var ints [10]*array.Int64
	for c := range 10 {
		switch col := rec.Column(c).(type) {
		case stringColumn:
			strs[c] = col
		case *array.Int64:
			ints[c] = col
		}
	}
	for _, c := range []int{0, 3, 4, 5, 6, 7, 8} {
		if strs[c] == nil {
			return fmt.Errorf("events column %d: got %s, want a string", c, rec.Column(c).DataType())
		}
	}
	for _, c := range []int{1, 2, 9} {
		if ints[c] == nil {
			return fmt.Errorf("events column %d: got %s, want int64", c, rec.Column(c).DataType())
		}
	}
	n := int(rec.NumRows())
	out.grow(n)
	runIDs, seqs, tss, kinds, tools, calls, keys, targets, argv, toks := strs[0], ints[1], ints[2], strs[3], strs[4], strs[5], strs[6], strs[7], strs[8], ints[9]
	for i := range n {
		ri := idx.lookup(runIDs.Value(i))
		if ri < 0 {
			continue
		}
		var ts int64
		if !tss.IsNull(i) {
			ts = tss.Value(i)
		}
		out.run = append(out.run, ri)
		out.seq = append(out.seq, seqs.Value(i))
		out.ts = append(out.ts, ts)
		out.tokens = append(out.tokens, toks.Value(i))
		out.kind = append(out.kind, kindOf(kinds.Value(i)))
		out.tool = append(out.tool, tools.Value(i))
		out.callID = append(out.callID, calls.Value(i))
		out.toolKey = append(out.toolKey, keys.Value(i))
		out.target = append(out.target, targets.Value(i))
		out.args = append(out.args, argv.Value(i))
	}
	return nil
}
