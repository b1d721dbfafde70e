package stats

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// Spearman is the Spearman rank correlation of x and y: the Pearson
// correlation (gonum stat.Correlation) of their ranks, ties given their
// average rank. NaN when the lengths differ, there are fewer than 2 values,
// or either side is constant.
func Spearman(x, y []float64) float64 {
	if len(x) != len(y) || len(x) < 2 {
		return math.NaN()
	}
	rx, ry := Ranks(x), Ranks(y)
	if stat.Variance(rx, nil) == 0 || stat.Variance(ry, nil) == 0 {
		return math.NaN()
	}
	return stat.Correlation(rx, ry, nil)
}

// Ranks returns the 1-based ranks of v, ties given their average rank.
func Ranks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(v[a], v[b]) })
	r := make([]float64, len(v))
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && v[idx[j]] == v[idx[i]] {
			j++
		}
		avg := float64(i+j+1) / 2 // ranks i+1 … j
		for k := i; k < j; k++ {
			r[idx[k]] = avg
		}
		i = j
	}
	return r
}
