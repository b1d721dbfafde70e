package stats_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/trajmine/trajmine/internal/stats"
)

func TestGeoMeanRatioEdges(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	type result struct {
		GM, Lo, Hi float64
		N          int
	}
	for _, tc := range []struct {
		name  string
		x, y  []float64
		b     int
		level float64
		want  result
	}{
		{"empty", nil, nil, 100, 0.95, result{nan, nan, nan, 0}},
		{"length mismatch", []float64{1, 2}, []float64{1}, 100, 0.95, result{nan, nan, nan, 0}},
		{"no positive pair", []float64{0, -1, 2}, []float64{1, 1, 0}, 100, 0.95, result{nan, nan, nan, 0}},
		{"one pair", []float64{6}, []float64{2}, 100, 0.95, result{3, 3, 3, 1}},
		// By hand: ratios 2 and 8 (others skipped), gm = √16 = 4.
		{"skips zero, negative, NaN, Inf", []float64{2, 0, -3, nan, inf, 16}, []float64{1, 5, 1, 1, 1, 2}, 0, 0.95, result{4, nan, nan, 2}},
		// Every resample of a constant ratio has the same mean.
		{"constant ratio", []float64{3, 6, 9, 12}, []float64{2, 4, 6, 8}, 200, 0.95, result{1.5, 1.5, 1.5, 4}},
		{"B zero", []float64{1, 4}, []float64{1, 1}, 0, 0.95, result{2, nan, nan, 2}},
		{"level one", []float64{1, 4}, []float64{1, 1}, 100, 1, result{2, nan, nan, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gm, lo, hi, n := stats.GeoMeanRatio(tc.x, tc.y, tc.b, tc.level, 1)
			got := result{gm, lo, hi, n}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateNaNs(), cmpopts.EquateApprox(1e-12, 0)); diff != "" {
				t.Errorf("GeoMeanRatio (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGeoMeanRatio(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 0))
	const n = 2000
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		y[i] = math.Exp(rng.NormFloat64()) * 1000           // baseline cost
		x[i] = y[i] * 0.8 * math.Exp(0.3*rng.NormFloat64()) // 20% cheaper, noisy
	}
	x[3], y[7] = 0, -1 // skipped
	xs, ys := slices.Clone(x), slices.Clone(y)

	gm, lo, hi, got := stats.GeoMeanRatio(x, y, 1000, 0.95, 3)
	if got != n-2 {
		t.Errorf("n = %d, want %d", got, n-2)
	}
	// Independent: exp of the mean log ratio, summed directly.
	var sum float64
	for i := range x {
		if x[i] > 0 && y[i] > 0 {
			sum += math.Log(x[i] / y[i])
		}
	}
	if want := math.Exp(sum / float64(n-2)); math.Abs(gm-want) > 1e-12*want {
		t.Errorf("gm = %v, want %v", gm, want)
	}
	if !(lo < gm && gm < hi) {
		t.Errorf("CI [%v, %v] does not contain gm %v", lo, hi, gm)
	}
	if !(lo < 0.8 && 0.8 < hi) || hi-lo > 0.05 {
		t.Errorf("CI [%v, %v], want a narrow interval around the true 0.8", lo, hi)
	}
	gm2, lo2, hi2, _ := stats.GeoMeanRatio(x, y, 1000, 0.95, 3)
	if gm2 != gm || lo2 != lo || hi2 != hi {
		t.Errorf("same seed gave (%v, %v, %v) then (%v, %v, %v)", gm, lo, hi, gm2, lo2, hi2)
	}
	if !slices.Equal(x, xs) || !slices.Equal(y, ys) {
		t.Error("GeoMeanRatio modified its input")
	}
}

func TestSumRatio(t *testing.T) {
	x := []float64{50, 100, 300}
	y := []float64{100, 100, 400}
	r, lo, hi := stats.SumRatio(x, y, 500, 0.95, 7)
	if r != 0.75 || lo > r || hi < r || lo < 0.5 || hi > 1 {
		t.Errorf("SumRatio = %v [%v, %v]", r, lo, hi)
	}
	if r2, lo2, hi2 := stats.SumRatio(x, y, 500, 0.95, 7); r2 != r || lo2 != lo || hi2 != hi {
		t.Error("not deterministic")
	}
	if r, _, _ := stats.SumRatio([]float64{1}, []float64{0}, 10, 0.95, 1); !math.IsNaN(r) {
		t.Errorf("zero denominator: %v", r)
	}
	if r, lo, hi := stats.SumRatio([]float64{1}, []float64{4}, 10, 0.95, 1); r != 0.25 || lo != r || hi != r {
		t.Errorf("one pair: %v [%v, %v]", r, lo, hi)
	}
}

// TestPerUnitRatio: cost per unit (a solved task) under a policy against
// another's, by hand, and the bootstrap drawn as SumRatio's.
func TestPerUnitRatio(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	type result struct{ R, Lo, Hi float64 }
	for _, tc := range []struct {
		name       string
		x, u, y, v []float64
		want       result
	}{
		{"length mismatch", []float64{1}, []float64{1, 1}, []float64{1}, []float64{1}, result{nan, nan, nan}},
		{"no unit under the reference", []float64{1, 2}, []float64{1, 1}, []float64{1, 2}, []float64{0, 0}, result{nan, nan, nan}},
		{"one pair", []float64{6}, []float64{1}, []float64{2}, []float64{1}, result{3, 3, 3}},
		// policy: 8 for 1 solved task = 8 a task; reference: 10 for 2 = 5
		// a task; 8 / 5 = 1.6. (Σx / Σy = 0.8: losing a solved task
		// doubles what each costs.)
		{"one pair of two", []float64{8}, []float64{1}, []float64{10}, []float64{2}, result{1.6, 1.6, 1.6}},
		{"no unit under the policy", []float64{3}, []float64{0}, []float64{10}, []float64{1}, result{inf, inf, inf}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, lo, hi := stats.PerUnitRatio(tc.x, tc.u, tc.y, tc.v, 100, 0.95, 1)
			if diff := cmp.Diff(tc.want, result{r, lo, hi}, cmpopts.EquateNaNs(), cmpopts.EquateApprox(1e-12, 0)); diff != "" {
				t.Errorf("PerUnitRatio (-want +got):\n%s", diff)
			}
		})
	}
	// with one unit per pair on both sides it is SumRatio, interval and all
	rng := rand.New(rand.NewPCG(5, 0))
	x, y, one := make([]float64, 50), make([]float64, 50), make([]float64, 50)
	for i := range x {
		x[i], y[i], one[i] = rng.Float64()*10, rng.Float64()*10+1, 1
	}
	r, lo, hi := stats.PerUnitRatio(x, one, y, one, 500, 0.95, 7)
	sr, slo, shi := stats.SumRatio(x, y, 500, 0.95, 7)
	if math.Abs(r-sr) > 1e-12 || math.Abs(lo-slo) > 1e-12 || math.Abs(hi-shi) > 1e-12 {
		t.Errorf("PerUnitRatio with unit weights %v [%v, %v], SumRatio %v [%v, %v]", r, lo, hi, sr, slo, shi)
	}
}
