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

func readArrow(ctx context.Context, s *Store, q string, args []any, out *logRows) (func(), error) {
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
		// One goroutine fetches and converts batches (C), the caller's
		// appends them: the two overlap on two cores.
		batches := make(chan arrow.RecordBatch, 4)
		stop := make(chan struct{})
		fetched := make(chan error, 1)
		go func() {
			defer close(batches)
			for rr.Next() {
				rec := rr.RecordBatch()
				rec.Retain()
				select {
				case batches <- rec:
				case <-stop:
					rec.Release()
					fetched <- nil
					return
				}
			}
			fetched <- rr.Err()
		}()
		var aerr error
		for rec := range batches {
			if aerr == nil {
				aerr = appendBatch(rec, out)
				if aerr == nil {
					aerr = ctx.Err()
				}
				if aerr != nil {
					close(stop)
				}
			}
			if aerr == nil && (out.withTarget || out.withArgs) {
				kept = append(kept, rec) // target and args point into it
			} else {
				rec.Release()
			}
		}
		if ferr := <-fetched; aerr == nil {
			aerr = ferr
		}
		return aerr
	})
	return release, err
}

// appendBatch appends one batch of (run_id hash, seq, ts_us, est_tokens, kind
// code, call_id hash, tool_key hash, tool_name, target, args).
func appendBatch(rec arrow.RecordBatch, out *logRows) error {
	if rec.NumCols() != 10 {
		return fmt.Errorf("events batch has %d columns, want 10", rec.NumCols())
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
	for i, ok := range []bool{ok0, ok1, ok2, ok3, ok4, ok5, ok6, ok7, ok8, ok9} {
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
			target = targets.Value(i)
		}
		if out.withArgs {
			arg = argv.Value(i)
		}
		out.add(runIDs.Value(i), seqs.Value(i), ts, toks.Value(i), kindCode(int64(kinds.Value(i))), out.toolID(tools.Value(i)), call, key, target, arg)
	}
	return nil
}
