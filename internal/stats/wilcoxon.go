package stats

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// maxExactN is the largest number of non-zero differences for which
// WilcoxonSignedRank enumerates the exact null distribution.
const maxExactN = 50

// Wilcoxon is the result of a paired Wilcoxon signed-rank test.
type Wilcoxon struct {
	N     int     // pairs with a non-zero difference
	W     float64 // sum of the ranks of the positive differences (R's V)
	Z     float64 // normal approximation with tie and continuity corrections; 0 when N == 0
	P     float64 // two-sided p-value: exact when Exact, else from Z
	Exact bool    // P comes from the exact null distribution
}

// WilcoxonSignedRank tests, two-sided, whether the paired differences x[i]−y[i]
// are symmetric about zero. It returns an error when len(x) != len(y) or a
// value is NaN or infinite.
//
//  1. Form the differences d = x−y and drop the zeros (Wilcoxon's method);
//     N is how many remain. N == 0 gives P = 1.
//  2. Rank |d| ascending, giving tied values their average rank; W is the
//     sum of the ranks of the positive d.
//  3. Z = (W − N(N+1)/4 − sign·½) / σ with
//     σ² = N(N+1)(2N+1)/24 − Σ(t³−t)/48 over groups of t tied |d|
//     (continuity correction ½ towards the mean, as R's correct = TRUE).
//  4. If N ≤ 50 and no |d| are tied, P is exact: the null distribution of W
//     (each rank positive with probability ½) is counted by dynamic
//     programming over rank sums, and P = min(1, 2·P(W' ≥ W)) when W is
//     above the mean N(N+1)/4, else min(1, 2·P(W' ≤ W)).
//     Otherwise P = 2·Φ(−|Z|).
//
// This matches R's wilcox.test(x, y, paired = TRUE) except that R, when
// zeros were dropped, always uses the normal approximation; here the exact
// distribution of the remaining N untied differences is used.
func WilcoxonSignedRank(x, y []float64) (Wilcoxon, error) {
	if len(x) != len(y) {
		return Wilcoxon{}, fmt.Errorf("wilcoxon signed-rank: length mismatch: len(x) = %d, len(y) = %d", len(x), len(y))
	}
	d := make([]float64, 0, len(x))
	for i := range x {
		if !isFinite(x[i]) || !isFinite(y[i]) {
			return Wilcoxon{}, fmt.Errorf("wilcoxon signed-rank: pair %d is not finite: x = %v, y = %v", i, x[i], y[i])
		}
		if v := x[i] - y[i]; v != 0 {
			d = append(d, v)
		}
	}
	n := len(d)
	if n == 0 {
		return Wilcoxon{P: 1}, nil
	}

	// Rank |d| with average ranks for ties.
	slices.SortFunc(d, func(a, b float64) int {
		// |a−b| can overflow to ±Inf, which still compares correctly.
		switch aa, ab := math.Abs(a), math.Abs(b); {
		case aa < ab:
			return -1
		case aa > ab:
			return 1
		}
		return 0
	})
	var w, tieSum float64 // tieSum = Σ(t³−t)
	for i := 0; i < n; {
		j := i + 1
		for j < n && math.Abs(d[j]) == math.Abs(d[i]) {
			j++
		}
		rank := float64(i+1+j) / 2 // mean of ranks i+1 … j
		for _, v := range d[i:j] {
			if v > 0 {
				w += rank
			}
		}
		if t := float64(j - i); t > 1 {
			tieSum += t*t*t - t
		}
		i = j
	}

	fn := float64(n)
	mean := fn * (fn + 1) / 4
	sigma := math.Sqrt(fn*(fn+1)*(2*fn+1)/24 - tieSum/48)
	dev := w - mean
	z := (dev - math.Copysign(0.5, dev)) / sigma
	if dev == 0 {
		z = 0
	}
	r := Wilcoxon{N: n, W: w, Z: z}
	if n <= maxExactN && tieSum == 0 {
		r.Exact = true
		r.P = exactSignedRankP(n, int(w))
	} else {
		r.P = math.Min(1, 2*distuv.UnitNormal.CDF(-math.Abs(z)))
	}
	return r, nil
}

// exactSignedRankP returns the exact two-sided p-value of signed-rank
// statistic w for n untied non-zero differences, as R's wilcox.test does.
func exactSignedRankP(n, w int) float64 {
	counts := signedRankCounts(n)
	var tail float64
	if 4*w > n*(n+1) { // above the mean: upper tail P(W' ≥ w)
		for _, c := range counts[w:] {
			tail += c
		}
	} else {
		for _, c := range counts[:w+1] {
			tail += c
		}
	}
	return math.Min(1, 2*math.Ldexp(tail, -n))
}

// signedRankCounts returns, for s = 0 … n(n+1)/2, the number of subsets of
// {1, …, n} whose elements sum to s: the null distribution of the signed-rank
// statistic times 2ⁿ. Counts are at most 2ⁿ, so float64 holds them exactly
// for n ≤ 53.
func signedRankCounts(n int) []float64 {
	maxSum := n * (n + 1) / 2
	c := make([]float64, maxSum+1)
	c[0] = 1
	for k := 1; k <= n; k++ { // add rank k to every subset of {1, …, k−1}
		for s := k * (k + 1) / 2; s >= k; s-- {
			c[s] += c[s-k]
		}
	}
	return c
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
