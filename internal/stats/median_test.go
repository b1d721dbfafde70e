package stats_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"gonum.org/v1/gonum/stat"

	"github.com/trajmine/trajmine/internal/stats"
)

func TestMedian(t *testing.T) {
	inf, nan, max := math.Inf(1), math.NaN(), math.MaxFloat64
	for _, tc := range []struct {
		name string
		xs   []float64
		want float64
	}{
		{"nil", nil, nan},
		{"empty", []float64{}, nan},
		{"one", []float64{7}, 7},
		{"two", []float64{1, 2}, 1.5},
		// R: median(c(3,1,2)) → 2
		{"odd unsorted", []float64{3, 1, 2}, 2},
		// R: median(c(4,1,3,2)) → 2.5
		{"even unsorted", []float64{4, 1, 3, 2}, 2.5},
		{"duplicates", []float64{5, 1, 5, 5, 2}, 5},
		{"even duplicate middle", []float64{1, 3, 3, 9}, 3},
		{"negatives", []float64{-1, -10, -3, -2}, -2.5},
		{"NaN", []float64{1, nan, 3}, nan},
		{"infinities", []float64{-inf, 1, inf}, 1},
		{"opposite infinities in the middle", []float64{-inf, inf}, nan},
		{"large values do not overflow", []float64{max, max / 2}, 0.75 * max},
		{"equal large values", []float64{max, max}, max},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.xs)
			got := stats.Median(in)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateNaNs()); diff != "" {
				t.Errorf("Median(%v) (-want +got):\n%s", tc.xs, diff)
			}
			if diff := cmp.Diff(tc.xs, in, cmpopts.EquateNaNs()); diff != "" {
				t.Errorf("Median modified its input (-before +after):\n%s", diff)
			}
		})
	}
}

func TestBootstrapMedianCIEdges(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name   string
		xs     []float64
		b      int
		level  float64
		lo, hi float64
	}{
		{"empty", nil, 100, 0.95, nan, nan},
		{"one value", []float64{4}, 100, 0.95, 4, 4},
		{"constant", []float64{2, 2, 2, 2}, 100, 0.95, 2, 2},
		{"NaN", []float64{1, nan, 3}, 100, 0.95, nan, nan},
		{"B zero", []float64{1, 2, 3}, 0, 0.95, nan, nan},
		{"level zero", []float64{1, 2, 3}, 100, 0, nan, nan},
		{"level one", []float64{1, 2, 3}, 100, 1, nan, nan},
		{"level NaN", []float64{1, 2, 3}, 100, nan, nan, nan},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lo, hi := stats.BootstrapMedianCI(tc.xs, tc.b, tc.level, 1)
			if diff := cmp.Diff([2]float64{tc.lo, tc.hi}, [2]float64{lo, hi}, cmpopts.EquateNaNs()); diff != "" {
				t.Errorf("BootstrapMedianCI (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBootstrapMedianCI(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 0))
	normal := make([]float64, 501)
	for i := range normal {
		normal[i] = rng.NormFloat64()
	}
	skewed := make([]float64, 1000)
	for i := range skewed {
		skewed[i] = math.Exp(2 * rng.NormFloat64()) // log-normal, like token costs
	}
	ties := make([]float64, 300)
	for i := range ties {
		ties[i] = float64(rng.IntN(5))
	}
	for _, tc := range []struct {
		name  string
		xs    []float64
		b     int
		level float64
	}{
		{"two values", []float64{1, 2}, 200, 0.95},
		{"normal odd n", normal, 1000, 0.95},
		{"log-normal even n", skewed, 1000, 0.9},
		{"heavy ties", ties, 500, 0.99},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.xs)
			lo, hi := stats.BootstrapMedianCI(in, tc.b, tc.level, 7)
			lo2, hi2 := stats.BootstrapMedianCI(in, tc.b, tc.level, 7)
			if lo != lo2 || hi != hi2 {
				t.Errorf("same seed gave [%v, %v] then [%v, %v]", lo, hi, lo2, hi2)
			}
			if m := stats.Median(tc.xs); !(lo <= m && m <= hi) {
				t.Errorf("CI [%v, %v] does not contain the median %v", lo, hi, m)
			}
			if !slices.Equal(in, tc.xs) {
				t.Error("BootstrapMedianCI modified its input")
			}
			// Same documented draws, sorted the slow way.
			wantLo, wantHi := naiveBootstrapMedianCI(tc.xs, tc.b, tc.level, 7)
			if diff := cmp.Diff([2]float64{wantLo, wantHi}, [2]float64{lo, hi}); diff != "" {
				t.Errorf("differs from sort-per-resample bootstrap (-want +got):\n%s", diff)
			}
		})
	}
}

// naiveBootstrapMedianCI follows BootstrapMedianCI's documented steps but
// sorts every resample.
func naiveBootstrapMedianCI(xs []float64, b int, level float64, seed uint64) (lo, hi float64) {
	sorted := slices.Sorted(slices.Values(xs))
	rng := rand.New(rand.NewPCG(seed, 0))
	meds := make([]float64, b)
	buf := make([]float64, len(xs))
	for i := range meds {
		for j := range buf {
			buf[j] = sorted[rng.IntN(len(sorted))]
		}
		meds[i] = stats.Median(buf)
	}
	slices.Sort(meds)
	alpha := (1 - level) / 2
	return stat.Quantile(alpha, stat.Empirical, meds, nil), stat.Quantile(1-alpha, stat.Empirical, meds, nil)
}

func TestBootstrapMedianCIOneResample(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3}
	lo, hi := stats.BootstrapMedianCI(xs, 1, 0.95, 9)
	if lo != hi || !slices.Contains(xs, lo) {
		t.Errorf("B = 1 gave [%v, %v], want one resample's median, a value of %v", lo, hi, xs)
	}
}

func TestBootstrapMedianCISeedMatters(t *testing.T) {
	xs := make([]float64, 200)
	rng := rand.New(rand.NewPCG(3, 0))
	for i := range xs {
		xs[i] = rng.ExpFloat64()
	}
	var distinct int
	lo0, hi0 := stats.BootstrapMedianCI(xs, 200, 0.95, 0)
	for seed := uint64(1); seed <= 10; seed++ {
		if lo, hi := stats.BootstrapMedianCI(xs, 200, 0.95, seed); lo != lo0 || hi != hi0 {
			distinct++
		}
	}
	if distinct == 0 {
		t.Error("10 other seeds all gave the CI of seed 0")
	}
}

// TestBootstrapMedianCICoverage checks that a 90% interval covers the true
// median of N(0, 1) in roughly 90% of 200 deterministic samples of 101.
func TestBootstrapMedianCICoverage(t *testing.T) {
	const trials, n = 200, 101
	rng := rand.New(rand.NewPCG(2024, 0))
	xs := make([]float64, n)
	covered := 0
	for trial := range trials {
		for i := range xs {
			xs[i] = rng.NormFloat64()
		}
		if lo, hi := stats.BootstrapMedianCI(xs, 500, 0.90, uint64(trial)); lo <= 0 && 0 <= hi {
			covered++
		}
	}
	if rate := float64(covered) / trials; rate < 0.80 || rate > 0.98 {
		t.Errorf("90%% CI covered the true median in %.3f of trials, want about 0.90", rate)
	}
}

func BenchmarkBootstrapMedianCI(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 0))
	xs := make([]float64, 10_000)
	for i := range xs {
		xs[i] = math.Exp(rng.NormFloat64())
	}
	b.ReportAllocs()
	for b.Loop() {
		stats.BootstrapMedianCI(xs, 1000, 0.95, 1)
	}
}
