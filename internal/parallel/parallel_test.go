package parallel_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/trajmine/trajmine/internal/parallel"
)

func TestStart(t *testing.T) {
	for _, n := range []int{0, 1, 7, 1000} {
		calls := make([]atomic.Int32, n)
		parallel.Start(context.Background(), n, func(i int) { calls[i].Add(1) })()
		for i := range calls {
			if got := calls[i].Load(); got != 1 {
				t.Errorf("n=%d: fn(%d) called %d times, want 1", n, i, got)
			}
		}
	}
}

func TestStartCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var calls atomic.Int32
	parallel.Start(ctx, 100, func(int) { calls.Add(1) })()
	if got := calls.Load(); got != 0 {
		t.Errorf("cancelled: %d calls, want 0", got)
	}
}
