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
// directly; target and args are copied out (into an arena), so each batch
// is released once read.
var arrowReader rowReader = readArrow

// stringColumn is a VARCHAR column (*array.String; *array.StringView or
// *array.LargeString under other Arrow settings). Value is "" at NULLs.
type stringColumn interface {
	Value(int) string
	IsNull(int) bool
}

func readArrow(ctx context.Context, s *Store, q string, args []any, out *logRange) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var arena strArena
	return conn.Raw(func(dc any) error {
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
			if err := appendBatch(rr.RecordBatch(), out, &arena); err != nil {
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		return rr.Err()
	})
}

// appendBatch appends one batch of (run_id hash, seq, ts_us, est_tokens, kind
// code, call_id hash, tool_key hash, tool_name, target, args, action_class),
// copying target and args into arena.
func appendBatch(rec arrow.RecordBatch, out *logRange, arena *strArena) error {
	if rec.NumCols() != 11 {
		return fmt.Errorf("events batch has %d columns, want 11", rec.NumCols())
	}
	col := rec.Column
	runIDs, ok0 := col(0).(*array.Uint64)
	seqs, ok1 := col(1).(*array.Int64)
	tss, ok2 := col(2).(*array.Int64)
	toks, ok3 := col(3).(*array.Int64)
	kinds, ok4 := col(4).(*array.Int8)
	calls, ok5 := col(5).(*array.Uint64)
	keys, ok6 := col(6).(*array.Uint64)
	tools, ok7 := col(7).(stringColumn)
	targets, ok8 := col(8).(stringColumn)
	argv, ok9 := col(9).(stringColumn)
	classes, ok10 := col(10).(stringColumn)
	for i, ok := range []bool{ok0, ok1, ok2, ok3, ok4, ok5, ok6, ok7, ok8, ok9, ok10} {
		if !ok {
			return fmt.Errorf("events column %d has type %s", i, col(i).DataType())
		}
	}
	n := int(rec.NumRows())
	for i := range n {
		var ts int64
		if !tss.IsNull(i) {
			ts = tss.Value(i)
		}
		var call, key uint64
		if !calls.IsNull(i) {
			call = calls.Value(i)
		}
		if !keys.IsNull(i) {
			key = keys.Value(i)
		}
		var target, arg string
		if out.withTarget {
			target = arena.clone(targets.Value(i))
		}
		if out.withArgs {
			arg = arena.clone(argv.Value(i))
		}
		out.add(runIDs.Value(i), seqs.Value(i), ts, toks.Value(i), kindCode(int64(kinds.Value(i))), tools.Value(i), call, key, target, arg, classes.Value(i))
	}
	return nil
}
