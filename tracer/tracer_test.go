package tracer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/trajmine/trajmine/simulate"
	"github.com/trajmine/trajmine/tracer"
)

// TestPlantedTruth trains on the planted corpus and checks, on held-out
// runs, that the policy keeps the reused tool's outputs and cuts the
// never-reused one's (by a margin of 0.5 in mean ratio), and that it
// spends fewer tokens than tool-type-conditional (paired Wilcoxon p < 0.01).
func TestPlantedTruth(t *testing.T) {
	train, held := tracer.Split(tracer.PlantedTraces(200, 1), 4)
	m, err := tracer.Train(context.Background(), train, &tracer.Options{Seed: 1, Epochs: 15}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := tracer.Evaluate(held, m, &tracer.EvalOptions{Seed: 1, Attribution: 100})
	if err != nil {
		t.Fatal(err)
	}
	ratio := map[string]float64{}
	for _, r := range rep.Retention {
		ratio[r.Tool] = r.Ratio
	}
	reused, never := ratio[tracer.PlantedReused], ratio[tracer.PlantedNever]
	if reused-never < 0.5 {
		t.Errorf("held-out mean ratio: %s %.3f, %s %.3f: want the first ≥ the second + 0.5", tracer.PlantedReused, reused, tracer.PlantedNever, never)
	}
	var learned, tooltype tracer.Row
	for _, r := range rep.Rows {
		switch {
		case r.Policy == tracer.LearnedName:
			learned = r
		case len(r.Policy) > 15 && r.Policy[:15] == "tracer-tooltype":
			tooltype = r
		}
	}
	if learned.TokenRatio >= tooltype.TokenRatio || !(tooltype.P < 0.01) || tooltype.Median >= 0 {
		t.Errorf("learned token ratio %.3f vs tool-type %.3f (Wilcoxon p %.3g, median difference %.3f): want lower, p < 0.01",
			learned.TokenRatio, tooltype.TokenRatio, tooltype.P, tooltype.Median)
	}
	if learned.Overflows > tooltype.Overflows {
		t.Errorf("learned overflows %d > tool-type's %d", learned.Overflows, tooltype.Overflows)
	}
	if !(rep.Attr.Spearman > 0.3) {
		t.Errorf("attributor Spearman ρ = %.3f on %d pairs, want > 0.3", rep.Attr.Spearman, rep.Attr.Pairs)
	}
}

func TestTrainDeterministic(t *testing.T) {
	trs := tracer.PlantedTraces(30, 2)
	enc := func(seed uint64) []byte {
		m, err := tracer.Train(context.Background(), trs, &tracer.Options{Seed: seed, Epochs: 3, Hidden: 8}, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b, c := enc(5), enc(5), enc(6)
	if !bytes.Equal(a, b) {
		t.Error("two trainings with seed 5 differ")
	}
	old := runtime.GOMAXPROCS(1)
	one := enc(5)
	runtime.GOMAXPROCS(old)
	if !bytes.Equal(a, one) {
		t.Error("training with GOMAXPROCS=1 differs")
	}
	if bytes.Equal(a, c) {
		t.Error("seeds 5 and 6 give the same model")
	}
}

// TestModelFileReplays checks that a trained model written to a file
// replays through the catalog (tracer(model=FILE)) exactly as Evaluate's
// learned policy does.
func TestModelFileReplays(t *testing.T) {
	trs := tracer.PlantedTraces(20, 3)
	m, err := tracer.Train(context.Background(), trs, &tracer.Options{Seed: 3, Epochs: 2, Hidden: 8}, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/model.json"
	if err := tracer.WriteModel(path, m); err != nil {
		t.Fatal(err)
	}
	p, err := simulate.Parse("tracer(model=" + path + ")")
	if err != nil {
		t.Fatal(err)
	}
	q, err := simulate.NewLearned(&simulate.Mean{M: &m.RetentionModel}, &simulate.LearnedOptions{Trigger: m.Trigger, Keep: m.Keep, Compressor: m.Compressor})
	if err != nil {
		t.Fatal(err)
	}
	var rp simulate.Replayer
	for _, tr := range trs {
		a := rp.Replay(tr, p, simulate.Options{})
		b := rp.Replay(tr, q, simulate.Options{})
		if a.PromptTokens != b.PromptTokens || a.Reinvocations != b.Reinvocations {
			t.Errorf("%s: file policy %d tokens %d reinv, in-memory %d, %d", tr.RunID, a.PromptTokens, a.Reinvocations, b.PromptTokens, b.Reinvocations)
		}
	}
}

// fnv1a32 is FNV-1a, 32 bits, written out (offset basis 2166136261, prime
// 16777619) so the expected split does not come from the code under test.
func fnv1a32(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

// TestSplit checks that Split holds out exactly the runs recommend's rule
// does (FNV-1a-32(run id) mod every = 0), whatever the family, and keeps
// the input order.
func TestSplit(t *testing.T) {
	var trs []*simulate.Trace
	for i := range 40 {
		trs = append(trs, &simulate.Trace{RunID: fmt.Sprintf("run-%02d", i), Family: []string{"x", "y", "z"}[i%3]})
	}
	for _, every := range []uint32{0, 1, 3, 4} {
		t.Run(fmt.Sprint(every), func(t *testing.T) {
			var wantTrain, wantHeld []string
			for _, tr := range trs {
				if every > 0 && fnv1a32(tr.RunID)%every == 0 {
					wantHeld = append(wantHeld, tr.RunID)
				} else {
					wantTrain = append(wantTrain, tr.RunID)
				}
			}
			train, held := tracer.Split(trs, every)
			ids := func(ts []*simulate.Trace) []string {
				var out []string
				for _, tr := range ts {
					out = append(out, tr.RunID)
				}
				return out
			}
			if got := ids(held); !slices.Equal(got, wantHeld) {
				t.Errorf("held out %v, want %v", got, wantHeld)
			}
			if got := ids(train); !slices.Equal(got, wantTrain) {
				t.Errorf("train %v, want %v", got, wantTrain)
			}
		})
	}
}

func TestOutcomeHarm(t *testing.T) {
	// Risk·x = 0 ⇒ σ = ½; Cost·x = log 1000 ⇒ Ĉ = 1000: harm at r = 0.2 is 0.8 × ½ × 1000
	x := make([]float64, simulate.FeatureDim)
	x[0] = 1
	o := tracer.Outcome{Risk: make([]float64, simulate.FeatureDim), Cost: make([]float64, simulate.FeatureDim)}
	o.Cost[0] = math.Log(1000)
	for _, tc := range []struct{ r, want float64 }{{1, 0}, {0.2, 400}, {0, 500}} {
		if got := o.Harm(x, tc.r); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("Harm(r=%v) = %v, want %v", tc.r, got, tc.want)
		}
	}
}
