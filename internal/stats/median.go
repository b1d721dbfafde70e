package stats

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat"
)

// Median returns the median of xs: the middle value for odd n and the mean of
// the two middle values for even n. It returns NaN for empty xs or when xs
// holds a NaN. xs is not modified.
func Median(xs []float64) float64 {
	if len(xs) == 0 || floats.HasNaN(xs) {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return middle(s)
}

// middle returns the median of sorted, non-empty s.
func middle(s []float64) float64 {
	n := len(s)
	return midpoint(s[(n-1)/2], s[n/2])
}

// midpoint returns (a+b)/2 without overflowing for large finite a, b.
func midpoint(a, b float64) float64 {
	if a == b {
		return a
	}
	m := (a + b) / 2
	if math.IsInf(m, 0) && !math.IsInf(a, 0) && !math.IsInf(b, 0) {
		m = a/2 + b/2
	}
	return m
}

// BootstrapMedianCI returns a percentile bootstrap confidence interval for the
// median of xs at the given level (e.g. 0.95).
//
//  1. Sort a copy of xs once.
//  2. Draw B resamples of len(xs) values with replacement from a math/rand/v2
//     PCG seeded with (seed, 0). A resample is held as a count per sorted
//     position, so its median is found by one cumulative walk over the counts
//     (a counting selection: O(n) per resample, no sort, no allocation).
//  3. Return the (1−level)/2 and (1+level)/2 empirical quantiles of the B
//     medians (gonum stat.Quantile, stat.Empirical).
//
// For len(xs) < 2 it returns (Median(xs), Median(xs)) without drawing. It
// returns (NaN, NaN) when xs holds a NaN, B < 1 or level is not in (0, 1).
// The result depends only on xs, B, level and seed. xs is not modified.
func BootstrapMedianCI(xs []float64, B int, level float64, seed uint64) (lo, hi float64) {
	if len(xs) < 2 {
		m := Median(xs)
		return m, m
	}
	if floats.HasNaN(xs) || !validCI(B, level) {
		return math.NaN(), math.NaN()
	}
	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	n := len(sorted)
	rng := rand.New(rand.NewPCG(seed, 0))
	counts := make([]int32, n)
	meds := make([]float64, B)
	loRank, hiRank := (n-1)/2, n/2 // 0-based ranks of the two middle values
	for b := range meds {
		clear(counts)
		for range n {
			counts[rng.IntN(n)]++
		}
		var a, c float64
		cum, haveA := 0, false
		for i, k := range counts {
			cum += int(k)
			if !haveA && cum > loRank {
				a, haveA = sorted[i], true
			}
			if cum > hiRank {
				c = sorted[i]
				break
			}
		}
		meds[b] = midpoint(a, c)
	}
	return percentileCI(meds, level)
}

// validCI reports whether B resamples at level make a usable interval.
func validCI(B int, level float64) bool {
	return B >= 1 && level > 0 && level < 1
}

// percentileCI sorts stats in place and returns its (1−level)/2 and
// (1+level)/2 empirical quantiles.
func percentileCI(stats []float64, level float64) (lo, hi float64) {
	slices.Sort(stats)
	alpha := (1 - level) / 2
	return stat.Quantile(alpha, stat.Empirical, stats, nil),
		stat.Quantile(1-alpha, stat.Empirical, stats, nil)
}
