package store

import (
	"context"
	"fmt"
	"sync"
)

// ranges reads ranges 0 … n−1 of a query (each a rowid range) on
// several goroutines and hands them over in range order: range w is read
// by reader w mod readers, each reader at most ahead ranges ahead of the
// consumer. Scan and EventStream read the events table this way: DuckDB and
// the row conversion work on as many threads, and the order, so what the
// caller does with it, stays that of one sequential read.
type ranges[T any] struct {
	n       int64
	feeds   []chan rangeResult[T]
	free    []chan T // ranges handed back for reuse
	cancel  context.CancelFunc
	readers sync.WaitGroup
	ctx     context.Context
}

type rangeResult[T any] struct {
	v   T
	err error
}

// readRanges starts the readers. read reads range w, into reuse when it
// is not the zero T (a range handed back with recycle). The caller must
// call stop when done, which cancels and waits for the readers.
func readRanges[T any](ctx context.Context, n int64, readers, ahead int, read func(ctx context.Context, w int64, reuse T) (T, error)) *ranges[T] {
	ctx, cancel := context.WithCancel(ctx)
	ws := &ranges[T]{n: n, feeds: make([]chan rangeResult[T], readers), free: make([]chan T, readers), cancel: cancel, ctx: ctx}
	for k := range ws.feeds {
		ws.feeds[k] = make(chan rangeResult[T], ahead)
		ws.free[k] = make(chan T, ahead+2)
		ws.readers.Add(1)
		go func(k int) {
			defer ws.readers.Done()
			defer close(ws.feeds[k])
			for w := int64(k); w < n; w += int64(readers) {
				var reuse T
				select {
				case reuse = <-ws.free[k]:
				default:
				}
				v, err := read(ctx, w, reuse)
				select {
				case ws.feeds[k] <- rangeResult[T]{v, err}:
				case <-ctx.Done():
					return
				}
				if err != nil {
					return
				}
			}
		}(k)
	}
	return ws
}

// next returns range w; ranges must be taken in order, 0 first.
func (ws *ranges[T]) next(w int64) (T, error) {
	b, ok := <-ws.feeds[w%int64(len(ws.feeds))]
	if !ok {
		var zero T
		return zero, fmt.Errorf("rng %d not read (%w)", w, context.Cause(ws.ctx))
	}
	return b.v, b.err
}

// recycle hands range w's value back to its reader for reuse (dropped if
// the reader has enough).
func (ws *ranges[T]) recycle(w int64, v T) {
	select {
	case ws.free[w%int64(len(ws.free))] <- v:
	default:
	}
}

// stop cancels the readers and waits for them.
func (ws *ranges[T]) stop() {
	ws.cancel()
	ws.readers.Wait()
}
