package store

import (
	"database/sql/driver"
	"fmt"
	"sync"
	"unsafe"
)

// The write queue of one transaction (issue 33): an import's rows reach
// DuckDB's Appender on a goroutine of their own, so that DuckDB's copy of
// each row into its chunks and local storage (a third of the import's
// serial work, BENCHMARKS.md) runs while the importer goes on building the
// next rows. Rows are handed over in batches, in the order they were
// appended, and appended in that order: the tables hold the same rows in
// the same order as with appends on the importer's goroutine.
//
// The connection is used by one goroutine at a time: the writer holds
// connMu while it appends a batch, and the transaction's own queries (the
// run-id look-up, replaceOlder) take it too (tx.useConn).

// queueBatchRows is how many rows are handed to the writer at a time, and
// queueDepth how many such batches may wait for it: the rows in flight are
// bounded (a few thousand, whatever their size).
const (
	queueBatchRows = 128
	queueDepth     = 1
)

// appendFlushRows is how many rows the writer appends to a table's
// Appender before it flushes it into the transaction's local storage.
// DuckDB's Appender holds up to 100,000 rows before it flushes on its own,
// so a file of fewer rows than that per table was moved into local storage
// only by the Appender's Close, in Commit, after the last row, on one core
// (0.18 s of the 519 MB benchmark file's commit, BENCHMARKS.md issue 33,
// fourth pass); flushed as the rows come, that copy overlaps the import.
var appendFlushRows = 16384

// driverValues is vals as the []driver.Value the Appender takes, without
// a copy: driver.Value is declared as any, so the two slice types have the
// same elements in memory. The copy it replaces was a new slice per row
// (39 MB of the 1.16 GB allocated while the 519 MB benchmark file is
// imported, BENCHMARKS.md issue 33, fifth pass). The caller must not
// change vals afterwards: the writer reads it later.
func driverValues(vals []any) []driver.Value {
	return unsafe.Slice((*driver.Value)(unsafe.Pointer(unsafe.SliceData(vals))), len(vals))
}

// queuedRow is one row waiting for its Appender.
type queuedRow struct {
	table string
	vals  []driver.Value
}

// writeQueue is the writer goroutine of one transaction.
type writeQueue struct {
	batches chan []queuedRow
	done    chan struct{} // closed when the writer has appended (or dropped) every batch
	connMu  sync.Mutex    // held while the connection is in use

	mu  sync.Mutex
	err error // the first append error; later rows are dropped
}

// failure is the writer's first error, if any.
func (q *writeQueue) failure() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.err
}

// startQueue starts t's writer goroutine.
func (t *tx) startQueue() {
	q := &writeQueue{batches: make(chan []queuedRow, queueDepth), done: make(chan struct{})}
	t.q = q
	go func() {
		defer close(q.done)
		for b := range q.batches {
			if q.failure() != nil {
				continue // the transaction fails: drain without appending
			}
			q.connMu.Lock()
			err := t.appendRows(b)
			q.connMu.Unlock()
			if err != nil {
				q.mu.Lock()
				q.err = err
				q.mu.Unlock()
			}
		}
	}()
}

// appendRows appends rows to their tables' Appenders (the writer's side).
func (t *tx) appendRows(rows []queuedRow) error {
	for _, r := range rows {
		a, err := t.appender(r.table)
		if err != nil {
			return err
		}
		if err := a.AppendRow(r.vals...); err != nil {
			return fmt.Errorf("append %s row: %w", r.table, err)
		}
		if t.unflushed == nil {
			t.unflushed = map[string]int{}
		}
		t.unflushed[r.table]++
		if t.unflushed[r.table] >= appendFlushRows {
			t.unflushed[r.table] = 0
			if err := a.Flush(); err != nil {
				return fmt.Errorf("flush %s: %w", r.table, err)
			}
		}
	}
	return nil
}

// enqueue hands one row to the writer (batched), starting it on the
// first row; it returns the writer's error once one row failed.
func (t *tx) enqueue(table string, vals []driver.Value) error {
	if t.q == nil {
		t.startQueue()
	} else if err := t.q.failure(); err != nil {
		return err
	}
	if t.pending == nil {
		t.pending = make([]queuedRow, 0, queueBatchRows)
	}
	t.pending = append(t.pending, queuedRow{table, vals})
	if len(t.pending) >= queueBatchRows {
		t.q.batches <- t.pending
		t.pending = nil
	}
	return nil
}

// drain hands the writer the rows still pending, waits until it has
// appended every row and stops it; it returns the writer's error. After
// drain the connection and the Appenders are the caller's again.
func (t *tx) drain() error {
	q := t.q
	if q == nil {
		return nil
	}
	if len(t.pending) > 0 {
		q.batches <- t.pending
		t.pending = nil
	}
	close(q.batches)
	<-q.done
	t.q = nil
	return q.err
}

// useConn runs fn with the transaction's connection, while the writer (if
// running) is not using it.
func (t *tx) useConn(fn func() error) error {
	if t.q == nil {
		return fn()
	}
	t.q.connMu.Lock()
	defer t.q.connMu.Unlock()
	return fn()
}
