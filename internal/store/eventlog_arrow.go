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

// stringColumn is a VARCHAR column (*array.String; *array.StringView or
// *array.LargeString under other Arrow settings). Value is "" at NULLs.
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
	var h idHashes
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
			if err := appendBatch(rec, idx, &h, out); err != nil {
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

// appendBatch appends one batch of (run_id, seq, ts_us, est_tokens, kind
// code, call_id hash, tool_key hash, tool_name, target, args).
func appendBatch(rec arrow.RecordBatch, idx *runIndex, h *idHashes, out *logRows) error {
	if rec.NumCols() != 10 {
		return fmt.Errorf("events batch has %d columns, want 10", rec.NumCols())
	}
	col := rec.Column
	runIDs, ok0 := col(0).(stringColumn)
	seqs, ok1 := col(1).(*array.Int64)
	tss, ok2 := col(2).(*array.Int64)
	toks, ok3 := col(3).(*array.Int64)
	kinds, ok4 := col(4).(*array.Int8)
	calls, ok5 := col(5).(*array.Uint64)
	keys, ok6 := col(6).(*array.Uint64)
	tools, ok7 := col(7).(stringColumn)
	targets, ok8 := col(8).(stringColumn)
	argv, ok9 := col(9).(stringColumn)
	for i, ok := range []bool{ok0, ok1, ok2, ok3, ok4, ok5, ok6, ok7, ok8, ok9} {
		if !ok {
			return fmt.Errorf("events column %d has type %s", i, col(i).DataType())
		}
	}
	n := int(rec.NumRows())
	out.grow(n)
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
		out.kind = append(out.kind, kindOf(int64(kinds.Value(i))))
		out.callID = append(out.callID, h.str(calls.Value(i), !calls.IsNull(i)))
		out.toolKey = append(out.toolKey, h.str(keys.Value(i), !keys.IsNull(i)))
		out.tool = append(out.tool, tools.Value(i))
		out.target = append(out.target, targets.Value(i))
		out.args = append(out.args, argv.Value(i))
	}
	return nil
}
