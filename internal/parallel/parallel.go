// Package parallel runs independent pieces of work, numbered 0 to n-1, on
// every CPU. A leaf.
package parallel

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// Start calls fn(i) for every i in [0, n) on min(GOMAXPROCS, n)
// goroutines, each taking the next i in turn, and returns at once. Once ctx
// is done no further i is started. wait returns when every call has
// returned; fn reports what it computed itself (a slot of its own per i,
// or a channel).
func Start(ctx context.Context, n int, fn func(i int)) (wait func()) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(max(runtime.GOMAXPROCS(0), 1), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n || ctx.Err() != nil {
					return
				}
				fn(i)
			}
		}()
	}
	return wg.Wait
}
