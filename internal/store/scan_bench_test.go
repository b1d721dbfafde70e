package store_test

import (
	"context"
	"os"
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
