package store

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"
)

// TestReadRanges: ranges arrive in order whatever order the readers
// finish in; recycled values come back to the reader of the same ranges;
// a reader's error arrives at its range, after the ranges before it;
// stop leaves no reader running, also when the consumer stops early.
func TestReadWindows(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		n             int64
		readers, head int
	}{{0, 2, 1}, {1, 2, 1}, {17, 2, 1}, {40, 3, 4}, {9, 1, 2}} {
		var running, reused atomic.Int64
		ws := readRanges(ctx, tc.n, tc.readers, tc.head, func(ctx context.Context, w int64, reuse []int64) ([]int64, error) {
			running.Add(1)
			defer running.Add(-1)
			time.Sleep(time.Duration(rand.IntN(300)) * time.Microsecond)
			if reuse != nil {
				if reuse[0]%int64(tc.readers) != w%int64(tc.readers) {
					t.Errorf("rng %d got the value of rng %d, read by another reader", w, reuse[0])
				}
				reused.Add(1)
				return append(reuse[:0], w), nil
			}
			return []int64{w}, nil
		})
		for w := int64(0); w < tc.n; w++ {
			v, err := ws.next(w)
			if err != nil || len(v) != 1 || v[0] != w {
				t.Fatalf("n=%d: rng %d = %v, %v", tc.n, w, v, err)
			}
			ws.recycle(w, v)
		}
		ws.stop()
		if r := running.Load(); r != 0 {
			t.Errorf("n=%d: %d readers still running after stop", tc.n, r)
		}
		if tc.n >= 17 && reused.Load() == 0 {
			t.Errorf("n=%d: no rng value was reused", tc.n)
		}
	}

	// an error at range 5: ranges 0-4 arrive, then the error
	boom := errors.New("boom")
	ws := readRanges(ctx, 20, 2, 1, func(ctx context.Context, w int64, _ int) (int, error) {
		if w == 5 {
			return 0, boom
		}
		return int(w), nil
	})
	for w := int64(0); w < 5; w++ {
		if v, err := ws.next(w); err != nil || v != int(w) {
			t.Fatalf("rng %d = %d, %v", w, v, err)
		}
	}
	if _, err := ws.next(5); !errors.Is(err, boom) {
		t.Errorf("rng 5: %v, want boom", err)
	}
	ws.stop()

	// the consumer stops early: stop cancels readers blocked on their feed
	// or inside read
	var running atomic.Int64
	ws = readRanges(ctx, 1000, 2, 1, func(ctx context.Context, w int64, _ int) (int, error) {
		running.Add(1)
		defer running.Add(-1)
		<-ctx.Done()
		return 0, ctx.Err()
	})
	time.Sleep(time.Millisecond)
	ws.stop()
	if r := running.Load(); r != 0 {
		t.Errorf("%d readers still running after an early stop", r)
	}
}
