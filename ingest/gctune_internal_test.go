package ingest

import (
	"runtime/debug"
	"sync/atomic"
	"testing"
	"time"
)

// TestTuneGC checks the settings Files runs with and that they are undone:
// by the last of overlapping calls, and not at all when $GOGC or
// $GOMEMLIMIT is the user's.
func TestTuneGC(t *testing.T) {
	current := func() (int, int64) {
		p := debug.SetGCPercent(-1)
		debug.SetGCPercent(p)
		return p, debug.SetMemoryLimit(-1) // a negative limit reads it
	}
	p0, l0 := current()
	for _, tc := range []struct {
		name, env   string
		wantPercent int
		wantLimit   int64
	}{
		{"default", "", 200, 128 << 20},
		{"GOGC set", "GOGC", p0, l0},
		{"GOMEMLIMIT set", "GOMEMLIMIT", p0, l0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env != "" {
				t.Setenv(tc.env, "100") // GOMEMLIMIT=100 bytes is not applied: the runtime reads it at start only
			}
			outer := tuneGC()
			inner := tuneGC()
			if p, l := current(); p != tc.wantPercent || l != tc.wantLimit {
				t.Errorf("while Files runs: GC percent %d, limit %d; want %d, %d", p, l, tc.wantPercent, tc.wantLimit)
			}
			inner()
			if p, l := current(); p != tc.wantPercent || l != tc.wantLimit {
				t.Errorf("after the inner call: GC percent %d, limit %d; want %d, %d", p, l, tc.wantPercent, tc.wantLimit)
			}
			outer()
			if p, l := current(); p != p0 || l != l0 {
				t.Errorf("after Files: GC percent %d, limit %d; want %d, %d as before", p, l, p0, l0)
			}
		})
	}
}

// TestFollowLiveHeap checks that the limit follows the live heap up (never
// below what the default collector would let the heap reach) and back
// down to filesGoMemory: live heaps of 10, 150 and 20 MiB give limits of
// 128 (2×10+32 is less), 332 (2×150+32) and 128 MiB.
func TestFollowLiveHeap(t *testing.T) {
	l0 := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(l0)
	debug.SetMemoryLimit(filesGoMemory)
	var live atomic.Uint64
	stop, done := make(chan struct{}), make(chan struct{})
	go followLiveHeap(live.Load, stop, done)
	defer func() { close(stop); <-done }()
	for _, tc := range []struct{ liveMiB, wantMiB int64 }{{10, 128}, {150, 332}, {20, 128}} {
		live.Store(uint64(tc.liveMiB << 20))
		deadline := time.Now().Add(5 * time.Second)
		for debug.SetMemoryLimit(-1) != tc.wantMiB<<20 {
			if time.Now().After(deadline) {
				t.Fatalf("live heap %d MiB: limit %d MiB, want %d", tc.liveMiB, debug.SetMemoryLimit(-1)>>20, tc.wantMiB)
			}
			time.Sleep(filesGCTick / 5)
		}
	}
}
