package tracer

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/internal/stats"
	"github.com/trajmine/trajmine/simulate"
)

func TestSpearman(t *testing.T) {
	for _, tc := range []struct {
		name string
		x, y []float64
		want float64
	}{
		{"monotone", []float64{1, 2, 3, 4}, []float64{10, 20, 25, 100}, 1},
		{"reversed", []float64{1, 2, 3}, []float64{3, 2, 1}, -1},
		// ranks x 1,2,3,4; y 2,1,4,3: 1 − 6·Σd²/(n(n²−1)) = 1 − 6·4/60 = 0.6
		{"swaps", []float64{1, 2, 3, 4}, []float64{2, 1, 4, 3}, 0.6},
	} {
		if got := stats.Spearman(tc.x, tc.y); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: ρ = %v, want %v", tc.name, got, tc.want)
		}
	}
	if got := stats.Ranks([]float64{5, 1, 5, 2}); got[0] != 3.5 || got[1] != 1 || got[2] != 3.5 || got[3] != 2 {
		t.Errorf("ranks with ties = %v, want [3.5 1 3.5 2]", got)
	}
}

func TestTop3(t *testing.T) {
	for _, tc := range []struct {
		name       string
		pred, meas []float64
		want       float64
		ok         bool
	}{
		{"all", []float64{4, 3, 2, 1}, []float64{9, 8, 7, 0}, 1, true},
		{"two of three", []float64{4, 3, 1, 2}, []float64{9, 8, 7, 0}, 2.0 / 3, true},
		{"no consequence", []float64{4, 3, 1, 2}, []float64{0, 0, 0, 0}, 0, false},
	} {
		got, ok := top3(tc.pred, tc.meas)
		if ok != tc.ok || math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: top3 = %v, %v; want %v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// TestFitOutcomeRecovers draws "needed" from σ(w·x) with a known w (whatever
// the ratio) and checks that the fit finds it: P̂(x, 0) = σ(w·x), P̂(x, r) = (1 − r)·P̂(x, 0).
func TestFitOutcomeRecovers(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 0))
	d := simulate.FeatureDim
	w := make([]float64, d)
	w[0], w[1], w[2] = -1, 2.5, -2
	var ss []sample
	for range 20000 {
		x := make([]float64, d)
		x[0] = 1
		x[1+rng.IntN(2)] = 1
		r := rng.Float64()
		var a float64
		for k := range x {
			a += w[k] * x[k]
		}
		ss = append(ss, sample{x: x, r: r, needed: rng.Float64() < sigmoid(a), logCost: 7})
	}
	o := fitOutcome(ss, nil, 1e-5)
	x1 := make([]float64, d)
	x1[0], x1[1] = 1, 1
	x2 := make([]float64, d)
	x2[0], x2[2] = 1, 1
	for _, tc := range []struct {
		name string
		x    []float64
		want float64
	}{{"class 1", x1, sigmoid(1.5)}, {"class 2", x2, sigmoid(-3)}} {
		if got := o.P(tc.x, 0); math.Abs(got-tc.want) > 0.03 {
			t.Errorf("%s: P̂(x, 0) = %.3f, want %.3f ± 0.03", tc.name, got, tc.want)
		}
		if got, want := o.P(tc.x, 0.25), 0.75*o.P(tc.x, 0); math.Abs(got-want) > 1e-12 {
			t.Errorf("%s: P̂(x, 0.25) = %v, want ¾ P̂(x, 0) = %v", tc.name, got, want)
		}
	}
	if got := o.C(x1); math.Abs(math.Log(got)-7) > 0.01 { // the ridge shrinks a little
		t.Errorf("Ĉ = %v, want e⁷", got)
	}
}

func TestAUC(t *testing.T) {
	for _, tc := range []struct {
		name       string
		pred, meas []float64
		want       float64
	}{
		// positives 0.35, 0.8 against negatives 0.1, 0.4: 0.35 beats 0.1 only, 0.8 both: 3 of 4
		{"mixed", []float64{0.1, 0.4, 0.35, 0.8}, []float64{0, 0, 5, 2}, 0.75},
		{"tie counts a half", []float64{1, 1}, []float64{3, 0}, 0.5},
		{"reversed", []float64{2, 1}, []float64{0, 1}, 0},
		{"no positives", []float64{1, 2}, []float64{0, 0}, math.NaN()},
	} {
		got := auc(tc.pred, tc.meas)
		if !(got == tc.want || math.IsNaN(got) && math.IsNaN(tc.want)) {
			t.Errorf("%s: auc = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestOracle checks Attribution.Ceiling's predictor: the positives kept,
// the rest below them in pred's order; a perfect predictor's ρ with 2
// positives of 5 is computed by hand.
func TestOracle(t *testing.T) {
	pred := []float64{0.3, 0.1, 0.9, 0.2, 0.5}
	meas := []float64{0, 0, 40, 0, 10}
	got := oracle(pred, meas)
	// pred ranks 3, 1, 5, 2, 4: zeros at −5 + rank
	want := []float64{-2, -4, 40, -3, 10}
	if !slices.Equal(got, want) {
		t.Fatalf("oracle = %v, want %v", got, want)
	}
	// ranks of got: 3, 1, 5, 2, 4; of meas: 2, 2, 5, 2, 4 (three tied zeros).
	// means 3 and 3; deviations (0, −2, 2, −1, 1) and (−1, −1, 2, −1, 1):
	// Σ products 0+2+4+1+1 = 8, Σ squares 10 and 8: ρ = 8/√80
	if r := stats.Spearman(got, meas); math.Abs(r-8/math.Sqrt(80)) > 1e-12 {
		t.Errorf("ceiling ρ = %v, want 8/√80 = %v", r, 8/math.Sqrt(80))
	}
}

// TestVerdict: the learned policy beats the tuned rule only with a lower
// held-out cost ratio and no more overflows; the sentence says which.
func TestVerdict(t *testing.T) {
	tuned := &Row{Policy: "tracer-uniform(r=0.3,trigger=0.5,keep=1)", CostRatio: 0.95, TokenRatio: 0.8, Overflows: 2}
	for _, tc := range []struct {
		name    string
		learned Row
		says    string
	}{
		{"cheaper", Row{CostRatio: 0.9, TokenRatio: 0.7, Overflows: 2}, "the learned policy costs less than the tuned uniform rule tracer-uniform(r=0.3,trigger=0.5,keep=1) on held-out runs: 0.900× what ran with caching against 0.950×"},
		{"dearer", Row{CostRatio: 0.95, TokenRatio: 0.7, Overflows: 1}, "does not beat the tuned uniform rule tracer-uniform(r=0.3,trigger=0.5,keep=1) on held-out cost: it costs 0.950× what ran with caching, the rule 0.950×"},
		{"cheaper but overflows more", Row{CostRatio: 0.9, TokenRatio: 0.7, Overflows: 3}, "does not beat the tuned uniform rule tracer-uniform(r=0.3,trigger=0.5,keep=1) on held-out runs: it overflows on 3 of them, the rule on 2"},
	} {
		if got := verdict(&tc.learned, tuned, []float64{0.9, 1}, []float64{0.95, 1}); !strings.Contains(got, tc.says) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.says)
		}
	}
}
