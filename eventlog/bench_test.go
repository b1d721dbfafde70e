package eventlog_test

import (
	"context"
	"io"
	"testing"

	"github.com/trajmine/trajmine/eventlog"
)

// BenchmarkWrite writes a synthetic 100,000-event input (100 runs of 1,000
// events: tool calls, DTOC-keyed results, manage_context disables, 2 % of
// runs untimed) in each format to io.Discard; MB/s is output bytes.
func BenchmarkWrite(b *testing.B) {
	runs := synthRuns(100_000)
	events := 0
	for _, r := range runs {
		events += len(r.Events) + len(r.Ops)
	}
	for _, tc := range []struct {
		name  string
		write func(context.Context, io.Writer, eventlog.Source, *eventlog.Options) (*eventlog.Stats, error)
	}{
		{"xes", eventlog.WriteXES},
		{"ocel", eventlog.WriteOCEL},
	} {
		b.Run(tc.name, func(b *testing.B) {
			o := &eventlog.Options{TempDir: b.TempDir()}
			st, err := tc.write(context.Background(), io.Discard, slice(runs), o)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(st.Bytes)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := tc.write(context.Background(), io.Discard, slice(runs), o); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}
