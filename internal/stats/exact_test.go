package stats_test

import (
	"math"
	"testing"

	"github.com/trajmine/trajmine/internal/stats"
)

// near reports whether a and b agree to tol (NaN equals NaN).
func nearTol(a, b, tol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= tol
}

// TestMcNemarExact checks the exact p-values against the binomial sums
// worked by hand: p = min(1, 2 · Σ_{i ≤ min(b,c)} C(b+c, i) / 2^(b+c)).
func TestMcNemarExact(t *testing.T) {
	for _, tc := range []struct {
		name string
		b, c int
		want float64
	}{
		{"b=1 c=5: 2(C(6,0)+C(6,1))/64 = 14/64", 1, 5, 14.0 / 64},
		{"symmetric in b and c", 5, 1, 14.0 / 64},
		{"all six one way: 2/64", 0, 6, 2.0 / 64},
		{"all five one way: 2/32, never below 0.05", 0, 5, 2.0 / 32},
		{"b=2 c=8: 2(1+10+45)/1024", 2, 8, 112.0 / 1024},
		{"balanced caps at 1", 3, 3, 1},
		{"no discordant pair", 0, 0, 1},
		{"negative count", -1, 2, math.NaN()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := stats.McNemarExact(tc.b, tc.c); !nearTol(got, tc.want, 1e-12) {
				t.Errorf("McNemarExact(%d, %d) = %v, want %v", tc.b, tc.c, got, tc.want)
			}
		})
	}
	// the rule MinDiscordant states: below it even all pairs one way give p ≥ 0.05
	if p := stats.McNemarExact(0, stats.MinDiscordant-1); p < 0.05 {
		t.Errorf("%d discordant pairs all one way: p = %v < 0.05", stats.MinDiscordant-1, p)
	}
	if p := stats.McNemarExact(0, stats.MinDiscordant); p >= 0.05 {
		t.Errorf("%d discordant pairs all one way: p = %v ≥ 0.05", stats.MinDiscordant, p)
	}
}

// TestFisherExact: hypergeometric sums worked by hand. [[3,1],[1,3]]: the
// tables with margins 4/4 have P(x) = C(4,x)²/70 = 1, 16, 36, 16, 1 (/70);
// those as likely as x = 3 or less: (1+16+16+1)/70. [[0,5],[5,0]]: 2/C(10,5).
func TestFisherExact(t *testing.T) {
	for _, tc := range []struct {
		name       string
		a, b, c, d int
		want       float64
	}{
		{"3 1 / 1 3", 3, 1, 1, 3, 34.0 / 70},
		{"0 5 / 5 0", 0, 5, 5, 0, 2.0 / 252},
		{"identical rows", 2, 2, 2, 2, 1},
		{"empty", 0, 0, 0, 0, 1},
		{"negative", 0, -1, 0, 0, math.NaN()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := stats.FisherExact(tc.a, tc.b, tc.c, tc.d); !nearTol(got, tc.want, 1e-9) {
				t.Errorf("FisherExact = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestBenjaminiHochberg: p = 0.01, 0.04, 0.03, 0.005 (m = 4) sort to
// 0.005, 0.01, 0.03, 0.04; m·p/rank = 0.02, 0.02, 0.04, 0.04; the running
// minimum from the largest leaves them so.
func TestBenjaminiHochberg(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    []float64
		want []float64
	}{
		{"four", []float64{0.01, 0.04, 0.03, 0.005}, []float64{0.02, 0.04, 0.04, 0.02}},
		{"monotone step", []float64{0.01, 0.02, 0.03, 0.5}, []float64{0.04, 0.04, 0.04, 0.5}},
		{"capped at 1", []float64{0.9, 0.8}, []float64{0.9, 0.9}},
		{"NaN left out of m", []float64{math.NaN(), 0.5}, []float64{math.NaN(), 0.5}},
		{"none", nil, []float64{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := stats.BenjaminiHochberg(tc.p)
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if !nearTol(got[i], tc.want[i], 1e-12) {
					t.Errorf("q[%d] = %v, want %v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// TestBootstraps: the point estimates by hand, and intervals that must be
// a point where every resample gives the same value.
func TestBootstraps(t *testing.T) {
	type res struct{ r, lo, hi float64 }
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		got  func() res
		want res
	}{
		{"paired mean diff, constant differences", func() res {
			d, lo, hi := stats.PairedMeanDiff([]float64{3, 4, 7}, []float64{1, 2, 5}, 200, 0.95, 1)
			return res{d, lo, hi}
		}, res{2, 2, 2}},
		{"paired mean diff, one pair", func() res {
			d, lo, hi := stats.PairedMeanDiff([]float64{1}, []float64{0}, 200, 0.95, 1)
			return res{d, lo, hi}
		}, res{1, 1, 1}},
		{"paired mean diff, no pair", func() res {
			d, lo, hi := stats.PairedMeanDiff(nil, nil, 200, 0.95, 1)
			return res{d, lo, hi}
		}, res{nan, nan, nan}},
		{"paired mean diff, B = 0", func() res {
			d, lo, hi := stats.PairedMeanDiff([]float64{1, 0}, []float64{0, 0}, 0, 0.95, 1)
			return res{d, lo, hi}
		}, res{0.5, nan, nan}},
		{"two-sample mean diff, constant samples", func() res {
			d, lo, hi := stats.TwoSampleMeanDiff([]float64{1, 1, 1}, []float64{0, 0}, 200, 0.95, 1)
			return res{d, lo, hi}
		}, res{1, 1, 1}},
		{"two-sample mean ratio: (4/2)/(3/3)", func() res {
			r, lo, hi := stats.TwoSampleMeanRatio([]float64{2, 2}, []float64{1, 1, 1}, 200, 0.95, 1)
			return res{r, lo, hi}
		}, res{2, 2, 2}},
		{"two-sample mean ratio, y sums to 0", func() res {
			r, lo, hi := stats.TwoSampleMeanRatio([]float64{2, 2}, []float64{0, 0}, 200, 0.95, 1)
			return res{r, lo, hi}
		}, res{nan, nan, nan}},
		{"two-sample per unit: (2/1)/(2/2)", func() res {
			r, _, _ := stats.TwoSamplePerUnitRatio([]float64{1, 1}, []float64{1, 0}, []float64{1, 1}, []float64{1, 1}, 200, 0.95, 1)
			return res{r, 2, 2}
		}, res{2, 2, 2}},
		{"two-sample per unit, nothing solved in the first", func() res {
			r, _, _ := stats.TwoSamplePerUnitRatio([]float64{1}, []float64{0}, []float64{1}, []float64{1}, 200, 0.95, 1)
			return res{r, 0, 0}
		}, res{math.Inf(1), 0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.got()
			if !nearTol(g.r, tc.want.r, 1e-12) || !nearTol(g.lo, tc.want.lo, 1e-12) || !nearTol(g.hi, tc.want.hi, 1e-12) {
				if !(math.IsInf(g.r, 1) && math.IsInf(tc.want.r, 1)) {
					t.Errorf("got %+v, want %+v", g, tc.want)
				}
			}
		})
	}
	// a resampled interval covers the estimate and is reproducible from the seed
	x, y := []float64{1, 0, 1, 1, 0, 1, 1, 1}, []float64{0, 0, 1, 0, 0, 1, 0, 1}
	d, lo, hi := stats.PairedMeanDiff(x, y, 2000, 0.95, 7)
	d2, lo2, hi2 := stats.PairedMeanDiff(x, y, 2000, 0.95, 7)
	if d != 3.0/8 || lo > d || hi < d || lo != lo2 || hi != hi2 || d2 != d {
		t.Errorf("PairedMeanDiff = %v [%v, %v], again %v [%v, %v]", d, lo, hi, d2, lo2, hi2)
	}
}

// TestWelchT: worked by hand with Student's t in closed form. x = 50, 0,
// 50 and y = 0, 0, 50: means 33.33 and 16.67, both variances 833.33, T =
// 16.667/√(2·833.33/3) = 0.70711, DF = 4; with α = T/√(4+T²) = 1/3,
// F₄(T) = ½ + ¾α(1 − α²/3) = 0.74074, P = 0.51852. x = 0, 0, 0 and y =
// 100, 100, 0: T = −66.667/√(3333.3/3) = −2, DF = 2, F₂(2) = ½ + 2/(2√6),
// P = 0.18350.
func TestWelchT(t *testing.T) {
	for _, tc := range []struct {
		name      string
		x, y      []float64
		tt, df, p float64
	}{
		{"df 4", []float64{50, 0, 50}, []float64{0, 0, 50}, 0.70711, 4, 0.51852},
		{"df 2", []float64{0, 0, 0}, []float64{100, 100, 0}, -2, 2, 0.18350},
		{"no variance, equal means", []float64{1, 1}, []float64{1, 1}, 0, 0, 1},
		{"one value", []float64{1}, []float64{1, 2}, 0, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := stats.WelchT(tc.x, tc.y)
			if !nearTol(got.T, tc.tt, 1e-4) || !nearTol(got.DF, tc.df, 1e-9) || !nearTol(got.P, tc.p, 1e-4) {
				t.Errorf("got %+v, want T %v DF %v P %v", got, tc.tt, tc.df, tc.p)
			}
		})
	}
	if w := stats.WelchT([]float64{1, 1}, []float64{2, 2}); w.P != 0 || !math.IsInf(w.T, -1) {
		t.Errorf("separated without variance: %+v", w)
	}
}
