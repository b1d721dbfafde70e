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

// signed returns the differences ±1, ±2, …, ±n, negative where neg(k).
func signed(n int, neg func(k int) bool) []float64 {
	d := make([]float64, n)
	for i := range d {
		k := i + 1
		d[i] = float64(k)
		if neg(k) {
			d[i] = -d[i]
		}
	}
	return d
}

// R reference values come from R 4.2.2, stats::wilcox.test(x, y, paired = TRUE),
// p printed with print(r$p.value, digits = 15). Z is checked by
// TestWilcoxonNormalApproximation and left out here (zeroed before comparing).
func TestWilcoxonSignedRank(t *testing.T) {
	depressionX := []float64{1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30}
	depressionY := []float64{0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29}
	for _, tc := range []struct {
		name string
		x, y []float64
		want stats.Wilcoxon
	}{
		{
			// x <- c(1.83,0.50,1.62,2.48,1.68,1.88,1.55,3.06,1.30)
			// y <- c(0.878,0.647,0.598,2.05,1.06,1.29,1.06,3.14,1.29)
			// wilcox.test(x, y, paired=TRUE)
			//   Wilcoxon signed rank exact test
			//   V = 40, p-value = 0.03906            (p.value 0.0390625)
			// By hand: the negative differences −0.08, −0.147 have ranks 2, 3, so
			// W = 45 − 5 = 40; 10 of the 512 subsets of 1…9 sum to ≤ 5, P = 2·10/512.
			name: "R depression example exact",
			x:    depressionX, y: depressionY,
			want: stats.Wilcoxon{N: 9, W: 40, P: 0.0390625, Exact: true},
		},
		{
			// Same data plus two zero differences: zeros are dropped and the
			// exact distribution of the 9 others is used (R would switch to the
			// normal approximation here; this package does not).
			name: "zero differences dropped",
			x:    append(slices.Clone(depressionX), 4, 0.5),
			y:    append(slices.Clone(depressionY), 4, 0.5),
			want: stats.Wilcoxon{N: 9, W: 40, P: 0.0390625, Exact: true},
		},
		{
			// wilcox.test(c(1,2,3), c(0,0,0), paired=TRUE)
			//   V = 6, p-value = 0.25                 (exact; by hand 2·1/8)
			name: "three positive",
			x:    []float64{1, 2, 3}, y: []float64{0, 0, 0},
			want: stats.Wilcoxon{N: 3, W: 6, P: 0.25, Exact: true},
		},
		{
			// By hand: W = 0, P(W' ≤ 0) = 1/32, P = 2/32.
			name: "five negative",
			x:    []float64{0, 0, 0, 0, 0}, y: []float64{1, 2, 3, 4, 5},
			want: stats.Wilcoxon{N: 5, W: 0, P: 0.0625, Exact: true},
		},
		{
			// By hand: d = 1, 2, −3: W = 3 = mean, 2·P(W' ≤ 3) = 2·5/8 > 1.
			name: "W at the mean",
			x:    []float64{1, 2, 0}, y: []float64{0, 0, 3},
			want: stats.Wilcoxon{N: 3, W: 3, P: 1, Exact: true},
		},
		{
			// d <- (1:20) * ifelse((1:20) %% 4 == 0, -1, 1)
			// wilcox.test(d, rep(0,20), paired=TRUE)
			//   Wilcoxon signed rank exact test
			//   V = 150, p-value = 0.09731            (p.value 0.0973072052001953)
			name: "R n=20 exact",
			x:    signed(20, func(k int) bool { return k%4 == 0 }), y: make([]float64, 20),
			want: stats.Wilcoxon{N: 20, W: 150, P: 0.0973072052001953, Exact: true},
		},
		{
			// N = 50 is exact here; R's default switches to the normal
			// approximation at n >= 50 (p-value = 0.001705), so ask for exact:
			// d <- (1:50) * ifelse((1:50) %% 4 == 0, -1, 1)
			// wilcox.test(d, rep(0,50), paired=TRUE, exact=TRUE)$p.value
			//   0.00133035787239422   (= 2*psignrank(962, 50, lower.tail=FALSE)); V = 963
			name: "R n=50 exact",
			x:    signed(50, func(k int) bool { return k%4 == 0 }), y: make([]float64, 50),
			want: stats.Wilcoxon{N: 50, W: 963, P: 0.00133035787239422, Exact: true},
		},
		{
			// d <- (1:50) * ifelse((1:50) %% 2 == 0, -1, 1)
			// 2*psignrank(625, 50) → 0.90859782248702980; V = 625
			name: "R n=50 exact below the mean",
			x:    signed(50, func(k int) bool { return k%2 == 0 }), y: make([]float64, 50),
			want: stats.Wilcoxon{N: 50, W: 625, P: 0.9085978224870298, Exact: true},
		},
		{
			// x2 <- c(5,7,7,9,4,6,8,8,10,3,6,7); y2 <- c(3,7,5,6,6,4,5,6,7,4,4,4)
			// wilcox.test(x2, y2, paired=TRUE)
			//   Wilcoxon signed rank test with continuity correction
			//   V = 60.5, p-value = 0.01406           (p.value 0.0140565780763794)
			//   warnings: cannot compute exact p-value with ties / with zeroes
			name: "R ties and a zero, normal",
			x:    []float64{5, 7, 7, 9, 4, 6, 8, 8, 10, 3, 6, 7},
			y:    []float64{3, 7, 5, 6, 6, 4, 5, 6, 7, 4, 4, 4},
			want: stats.Wilcoxon{N: 11, W: 60.5, P: 0.0140565780763794},
		},
		{
			// d <- (1:60) * ifelse((1:60) %% 3 == 0, -1, 1)
			// wilcox.test(d, rep(0,60), paired=TRUE)
			//   Wilcoxon signed rank test with continuity correction
			//   V = 1200, p-value = 0.03623           (p.value 0.0362264941787866)
			name: "R n=60 no ties, normal",
			x:    signed(60, func(k int) bool { return k%3 == 0 }), y: make([]float64, 60),
			want: stats.Wilcoxon{N: 60, W: 1200, P: 0.0362264941787866},
		},
		{
			name: "all differences zero",
			x:    []float64{1, 2, 3}, y: []float64{1, 2, 3},
			want: stats.Wilcoxon{P: 1},
		},
		{
			name: "empty",
			want: stats.Wilcoxon{P: 1},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, y := slices.Clone(tc.x), slices.Clone(tc.y)
			got, err := stats.WilcoxonSignedRank(x, y)
			if err != nil {
				t.Fatal(err)
			}
			got.Z = 0
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(1e-12, 0)); diff != "" {
				t.Errorf("WilcoxonSignedRank (-want +got):\n%s", diff)
			}
			if !slices.Equal(x, tc.x) || !slices.Equal(y, tc.y) {
				t.Error("WilcoxonSignedRank modified its input")
			}
		})
	}
}

func TestWilcoxonSignedRankErrors(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		x, y       []float64
	}{
		{"length mismatch", "wilcoxon signed-rank: length mismatch: len(x) = 3, len(y) = 2", []float64{1, 2, 3}, []float64{1, 2}},
		{"NaN", "wilcoxon signed-rank: pair 1 is not finite: x = NaN, y = 2", []float64{1, math.NaN()}, []float64{1, 2}},
		{"Inf", "wilcoxon signed-rank: pair 0 is not finite: x = 1, y = +Inf", []float64{1}, []float64{math.Inf(1)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := stats.WilcoxonSignedRank(tc.x, tc.y)
			if err == nil {
				t.Fatal("no error")
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

// normalApprox computes the tie- and continuity-corrected normal
// approximation from the textbook definitions, independently of the package:
// O(n²) average ranks, a map of tie groups and math.Erfc for Φ.
func normalApprox(x, y []float64) (n int, w, z, p float64) {
	var d []float64
	for i := range x {
		if x[i] != y[i] {
			d = append(d, x[i]-y[i])
		}
	}
	n = len(d)
	groups := map[float64]int{}
	for _, v := range d {
		groups[math.Abs(v)]++
	}
	for _, v := range d {
		if v <= 0 {
			continue
		}
		below := 0
		for _, u := range d {
			if math.Abs(u) < math.Abs(v) {
				below++
			}
		}
		w += float64(below) + float64(groups[math.Abs(v)]+1)/2
	}
	var ties float64
	for _, t := range groups {
		ties += float64(t*t*t - t)
	}
	fn := float64(n)
	variance := fn*(fn+1)*(2*fn+1)/24 - ties/48
	dev := w - fn*(fn+1)/4
	corr := 0.0
	if dev > 0 {
		corr = 0.5
	} else if dev < 0 {
		corr = -0.5
	}
	z = (dev - corr) / math.Sqrt(variance)
	p = math.Min(1, math.Erfc(math.Abs(z)/math.Sqrt2))
	return n, w, z, p
}

func TestWilcoxonNormalApproximation(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 0))
	ints := func(n, lo, hi int) []float64 { // many ties, some zeros
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(lo + rng.IntN(hi-lo+1))
		}
		return v
	}
	shifted := func(v []float64, by float64) []float64 {
		out := make([]float64, len(v))
		for i := range v {
			out[i] = v[i] + by
		}
		return out
	}
	base := ints(2000, 0, 20)
	for _, tc := range []struct {
		name string
		x, y []float64
	}{
		{"n=200 ties no shift", ints(200, -5, 5), make([]float64, 200)},
		{"n=500 ties small shift", shifted(ints(500, -4, 4), 1), make([]float64, 500)},
		{"n=2000 ties paired runs", shifted(base, 0.5), ints(2000, 0, 20)},
		{"n=30 ties", ints(30, -3, 3), make([]float64, 30)},
		{"n=60 untied", signed(60, func(k int) bool { return k%3 == 0 }), make([]float64, 60)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := stats.WilcoxonSignedRank(tc.x, tc.y)
			if err != nil {
				t.Fatal(err)
			}
			n, w, z, p := normalApprox(tc.x, tc.y)
			want := stats.Wilcoxon{N: n, W: w, Z: z, P: p}
			if diff := cmp.Diff(want, got, cmpopts.EquateApprox(1e-9, 1e-12)); diff != "" {
				t.Errorf("WilcoxonSignedRank (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWilcoxonExactAgainstNormal checks at N = 50, the largest exact N, that
// the exact p-value is close to the normal approximation across the range of
// W, and that N = 51 switches to the approximation.
func TestWilcoxonExactAgainstNormal(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 0))
	zero := make([]float64, 50)
	for _, q := range []float64{0.02, 0.1, 0.25, 0.35, 0.4, 0.45, 0.5, 0.55, 0.65, 0.8} {
		for rep := range 3 {
			d := signed(50, func(int) bool { return rng.Float64() < q })
			got, err := stats.WilcoxonSignedRank(d, zero)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Exact {
				t.Fatalf("q=%v rep %d: N=50 without ties was not exact", q, rep)
			}
			_, _, z, p := normalApprox(d, zero)
			if math.Abs(got.Z-z) > 1e-12 {
				t.Errorf("q=%v rep %d: Z = %v, want %v", q, rep, got.Z, z)
			}
			// Loosely: within 0.01 overall, within 35% where p is in
			// [0.001, 0.05], and both tiny further out, where the normal
			// tail is known to be poor (e.g. W = 1275: 1.8e-15 vs 7.8e-10).
			diff := math.Abs(got.P - p)
			bad := diff > 0.01 ||
				(p >= 0.001 && p <= 0.05 && diff > 0.35*p) ||
				(p < 0.001 && got.P > 0.001)
			if bad {
				t.Errorf("q=%v rep %d: W=%v exact P = %.6g, normal P = %.6g", q, rep, got.W, got.P, p)
			}
		}
	}
	got, err := stats.WilcoxonSignedRank(signed(51, func(k int) bool { return k%2 == 0 }), make([]float64, 51))
	if err != nil {
		t.Fatal(err)
	}
	if got.Exact {
		t.Error("N=51 used the exact distribution, want the normal approximation")
	}
}

func BenchmarkWilcoxonSignedRank(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 0))
	x, y := make([]float64, 10_000), make([]float64, 10_000)
	for i := range x {
		x[i], y[i] = rng.ExpFloat64(), rng.ExpFloat64()
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := stats.WilcoxonSignedRank(x, y); err != nil {
			b.Fatal(err)
		}
	}
}
