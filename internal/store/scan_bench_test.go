package store_test

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/trajmine/trajmine/internal/store"
)

// BenchmarkScanDB times one full Scan (no work per run) of the database at
// $TRAJMINE_BENCH_DB (skipped when unset), with event text and without
// (ScanOptions.NoText): the read that trajmine diagnose pays before any
// analysis. Run each in its own process so that peak-RSS (VmHWM) is its own:
//
//	TRAJMINE_BENCH_DB=diag.duckdb go test ./internal/store -run '^$' -bench 'ScanDB/^text$' -benchtime 1x
//	TRAJMINE_BENCH_DB=diag.duckdb go test ./internal/store -run '^$' -bench 'ScanDB/^notext$' -benchtime 1x
func BenchmarkScanDB(b *testing.B) {
	path := os.Getenv("TRAJMINE_BENCH_DB")
	if path == "" {
		b.Skip("set TRAJMINE_BENCH_DB to a trajmine database")
	}
	for _, tc := range []struct {
		name   string
		noText bool
	}{{"text", false}, {"notext", true}} {
		b.Run(tc.name, func(b *testing.B) {
			ctx := context.Background()
			st, err := store.Open(ctx, store.Config{Path: path, ReadOnly: true})
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			var runs, events int
			for b.Loop() {
				runs, events = 0, 0
				err := st.Scan(ctx, store.ScanOptions{NoText: tc.noText}, func(d *store.RunData) error {
					runs++
					events += len(d.Events)
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(runs), "runs")
			b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(peakRSSMB(), "peak-RSS-MB")
		})
	}
}

// BenchmarkScanChunk times one full Scan with text of $TRAJMINE_BENCH_DB
// (skipped when unset) with Scan's ranges of 16,384 and of 8,192 rowids,
// reporting CPU time (user + system) per scan beside wall time. Run each
// size in its own process, alternating, so that peak-RSS-MB is its own:
//
//	TRAJMINE_BENCH_DB=diag.duckdb go test ./internal/store -run '^$' -bench 'ScanChunk/^16384$' -benchtime 1x
//	TRAJMINE_BENCH_DB=diag.duckdb go test ./internal/store -run '^$' -bench 'ScanChunk/^8192$' -benchtime 1x
func BenchmarkScanChunk(b *testing.B) {
	path := os.Getenv("TRAJMINE_BENCH_DB")
	if path == "" {
		b.Skip("set TRAJMINE_BENCH_DB to a trajmine database")
	}
	for _, chunk := range []int64{16384, 8192} {
		b.Run(strconv.FormatInt(chunk, 10), func(b *testing.B) {
			defer store.SetScanChunk(chunk)()
			ctx := context.Background()
			st, err := store.Open(ctx, store.Config{Path: path, ReadOnly: true})
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			var events int
			cpu0 := cpuTime()
			for b.Loop() {
				events = 0
				if err := st.Scan(ctx, store.ScanOptions{}, func(d *store.RunData) error {
					events += len(d.Events)
					return nil
				}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(events), "events")
			b.ReportMetric(peakRSSMB(), "peak-RSS-MB")
		})
	}
}
