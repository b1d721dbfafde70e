package analysis

import (
	"context"
	"testing"

	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/simulate"
)

// handover is a Pass consumer whose worker does almost nothing: a small
// struct per run, so the benchmark measures the pass's own cost (scan,
// workers, hand-over in scan order) rather than an analysis's.
type handover struct{ n, events int }

type handoverResult struct{ events, usage int }

func (h *handover) Worker() (func(*RunWork) handoverResult, error) {
	return func(w *RunWork) handoverResult { return handoverResult{len(w.Events), len(w.Usage)} }, nil
}

func (h *handover) Add(r handoverResult) error {
	h.n++
	h.events += r.events
	return nil
}

// BenchmarkPass runs the shared pass over the 300-run synthetic store of
// BenchmarkMine: "handover" with a consumer that does nothing per run (the
// pass's own cost), "report" with the analyses trajmine report feeds
// (simulate at each run's own window with the default catalog, diagnose,
// recommend with its defaults and the behaviour profiles). Compare before
// and after a change to the pass in separate processes:
//
//	go test ./analysis -run '^$' -bench Pass -count 6
func BenchmarkPass(b *testing.B) {
	if testing.Short() {
		b.Skip("builds a 300-run store")
	}
	st := mineBenchStore(b)
	ctx := context.Background()
	env, err := NewEnv(ctx, st)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("handover", func(b *testing.B) {
		for b.Loop() {
			h := &handover{}
			if err := Pass(ctx, st, store.ScanOptions{NoText: true}, env, Of(h)); err != nil {
				b.Fatal(err)
			}
			if h.n != 300 {
				b.Fatalf("%d runs handed over, want 300", h.n)
			}
		}
	})
	b.Run("report", func(b *testing.B) {
		pols, err := WithKeepAll(nil)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			sa, err := NewSimulate(&SimulateOptions{Windows: []simulate.Window{simulate.OwnWindow}, Shards: 1, By: "model"}, pols)
			if err != nil {
				b.Fatal(err)
			}
			da, err := NewDiagnose(&DiagnoseOptions{By: "model"})
			if err != nil {
				b.Fatal(err)
			}
			ra, err := NewRecommend(&RecommendOptions{HoldoutEvery: 4, MaxReinv: 2})
			if err != nil {
				b.Fatal(err)
			}
			ba := NewBehaviour(env, nil)
			if err := Pass(ctx, st, store.ScanOptions{}, env, Of(sa), Of(da), Of(ra), Of(ba)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
