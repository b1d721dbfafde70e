package tracer_test

import (
	"context"
	"testing"

	"github.com/trajmine/trajmine/tracer"
)

// BenchmarkTrain is the training-time target's benchmark (BENCHMARKS.md,
// "TRACER offline": 1,000 synthetic runs in under 60 s; scripts/bench-tracer.sh
// measures that end to end): one epoch on 100 planted runs, distinct runs
// each (PlantedTraces), at the default options otherwise.
func BenchmarkTrain(b *testing.B) {
	trs := tracer.PlantedTraces(100, 7)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tracer.Train(context.Background(), trs, &tracer.Options{Seed: 1, Epochs: 1}, nil); err != nil {
			b.Fatal(err)
		}
	}
}
