package ingest

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// The garbage collector while Files runs (issue 33). An ingest allocates
// much and keeps little: each line's strings live until their rows are
// appended. At the default GOGC=100 the collector runs each time the heap
// doubles what is live, and on the 519 MB one-file ingest it took 7–10 %
// of the CPU (BENCHMARKS.md, issue 33, fifth pass). Files raises the
// percent to filesGCPercent, under a soft memory limit of filesGoMemory,
// so that the heap grows further between collections where memory allows:
// on that ingest the collector ran 23 times instead of 35 (2–3 % more
// throughput), and the process's peak RSS (DuckDB's memory most of it)
// stayed within the benchmark's noise of the default's (~530–550 MB; ~15–25
// MB more in a whole trajmine ingest); at 192 MiB it ran 19 times, at
// 30–50 MB more, and at 96 MiB more often than the default.
//
// The limit never makes the collector run more often than the default
// would: while Files runs, the limit is kept at no less than
// twice the live heap plus filesGCMargin (the default's goal and the
// runtime's own memory), read every filesGCTick. Settings of the user's
// ($GOGC, $GOMEMLIMIT) are left alone; Files calls that overlap share one
// tuning, undone when the last one returns.
const (
	filesGCPercent = 200
	filesGoMemory  = 128 << 20
	filesGCMargin  = 32 << 20
	filesGCTick    = 50 * time.Millisecond
)

var filesGC struct {
	mu      sync.Mutex
	running int // Files calls running
	percent int // the settings to restore
	limit   int64
	stop    chan struct{}
	done    chan struct{}
}

// tuneGC raises the GC percent and sets the memory limit for Files (see
// above) and returns the function that restores them.
func tuneGC() (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	g := &filesGC
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.running++; g.running == 1 {
		g.limit = debug.SetMemoryLimit(filesGoMemory)
		g.percent = debug.SetGCPercent(filesGCPercent)
		g.stop, g.done = make(chan struct{}), make(chan struct{})
		go followLiveHeap(liveHeap, g.stop, g.done)
	}
	return func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.running--; g.running == 0 {
			close(g.stop)
			<-g.done
			debug.SetGCPercent(g.percent)
			debug.SetMemoryLimit(g.limit)
		}
	}
}

// liveHeap is the heap the last collection found live.
func liveHeap() uint64 {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return sample[0].Value.Uint64()
}

// followLiveHeap keeps the memory limit at max(filesGoMemory, gcFloor of
// the live heap) until stop is closed.
func followLiveHeap(live func() uint64, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	tick := time.NewTicker(filesGCTick)
	defer tick.Stop()
	set := int64(filesGoMemory)
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		if want := max(filesGoMemory, gcFloor(live())); want != set {
			debug.SetMemoryLimit(want)
			set = want
		}
	}
}

// gcFloor is the least memory limit that lets the heap reach the default
// collector's goal (GOGC=100: twice the live heap) with the runtime's own
// memory beside it.
func gcFloor(live uint64) int64 { return 2*int64(live) + filesGCMargin }
