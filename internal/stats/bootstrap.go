package stats

import (
	"math"
	"math/rand/v2"
)

// PairedMeanDiff returns the mean of the paired differences x[i] − y[i]
// and a percentile bootstrap interval for it: B resamples of the n pairs
// with replacement from a math/rand/v2 PCG seeded with (seed, 0), the mean
// difference of each, the (1−level)/2 and (1+level)/2 empirical quantiles.
// With x and y 0/1 outcomes it is the difference of two paired success
// rates. NaN when the lengths differ or there is no pair; lo = hi = d for
// one pair; lo and hi NaN when B < 1 or level is not in (0, 1).
func PairedMeanDiff(x, y []float64, B int, level float64, seed uint64) (d, lo, hi float64) {
	nan := math.NaN()
	n := len(x)
	if len(y) != n || n == 0 {
		return nan, nan, nan
	}
	diff := make([]float64, n)
	for i := range x {
		diff[i] = x[i] - y[i]
		d += diff[i]
	}
	d /= float64(n)
	if n < 2 {
		return d, d, d
	}
	if !validCI(B, level) {
		return d, nan, nan
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	means := make([]float64, B)
	for b := range means {
		var s float64
		for range n {
			s += diff[rng.IntN(n)]
		}
		means[b] = s / float64(n)
	}
	lo, hi = percentileCI(means, level)
	return d, lo, hi
}

// TwoSampleMeanDiff is PairedMeanDiff for two independent samples: the
// difference of their means, mean(x) − mean(y), and a percentile bootstrap
// interval from B resamples that draw len(x) values from x and len(y)
// from y, each with replacement (one PCG seeded with (seed, 0), x's draws
// first in each resample). NaN when either sample is empty; lo = hi = d
// when both have one value.
func TwoSampleMeanDiff(x, y []float64, B int, level float64, seed uint64) (d, lo, hi float64) {
	r, lo, hi := twoSample(x, y, B, level, seed, func(sx, sy float64, nx, ny int) (float64, bool) {
		return sx/float64(nx) - sy/float64(ny), true
	})
	return r, lo, hi
}

// TwoSampleMeanRatio returns mean(x) / mean(y) of two independent samples
// and a percentile bootstrap interval drawn as TwoSampleMeanDiff draws
// its own; a resample whose y sums to 0 is skipped. NaN when either sample
// is empty or y sums to 0.
func TwoSampleMeanRatio(x, y []float64, B int, level float64, seed uint64) (r, lo, hi float64) {
	return twoSample(x, y, B, level, seed, func(sx, sy float64, nx, ny int) (float64, bool) {
		if sy == 0 {
			return math.NaN(), false
		}
		return (sx / float64(nx)) / (sy / float64(ny)), true
	})
}

// twoSample computes stat over the sums of x and y, and its percentile
// bootstrap interval over independent resamples of each.
func twoSample(x, y []float64, B int, level float64, seed uint64, stat func(sx, sy float64, nx, ny int) (float64, bool)) (r, lo, hi float64) {
	nan := math.NaN()
	nx, ny := len(x), len(y)
	if nx == 0 || ny == 0 {
		return nan, nan, nan
	}
	var sx, sy float64
	for _, v := range x {
		sx += v
	}
	for _, v := range y {
		sy += v
	}
	r, ok := stat(sx, sy, nx, ny)
	if !ok {
		return nan, nan, nan
	}
	if nx < 2 && ny < 2 {
		return r, r, r
	}
	if !validCI(B, level) {
		return r, nan, nan
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	rs := make([]float64, 0, B)
	for range B {
		var bx, by float64
		for range nx {
			bx += x[rng.IntN(nx)]
		}
		for range ny {
			by += y[rng.IntN(ny)]
		}
		if q, ok := stat(bx, by, nx, ny); ok {
			rs = append(rs, q)
		}
	}
	if len(rs) == 0 {
		return r, nan, nan
	}
	lo, hi = percentileCI(rs, level)
	return r, lo, hi
}

// TwoSamplePerUnitRatio returns (Σx / Σu) / (Σy / Σv) for two independent
// samples (x[i] the cost of run i of the first and u[i] its units, 0 or 1
// solved; y and v the second's) and a percentile bootstrap interval
// drawn as TwoSampleMeanDiff draws its own, resampling (x, u) and (y, v)
// together. NaN when Σy or Σv is 0 or the lengths differ; +Inf when Σu
// is 0 and Σx is not. A resample with no y or no v is skipped.
func TwoSamplePerUnitRatio(x, u, y, v []float64, B int, level float64, seed uint64) (r, lo, hi float64) {
	nan := math.NaN()
	nx, ny := len(x), len(y)
	if len(u) != nx || len(v) != ny || nx == 0 || ny == 0 {
		return nan, nan, nan
	}
	var sx, su, sy, sv float64
	for i := range x {
		sx, su = sx+x[i], su+u[i]
	}
	for i := range y {
		sy, sv = sy+y[i], sv+v[i]
	}
	r, ok := perUnit(sx, su, sy, sv)
	if !ok {
		return nan, nan, nan
	}
	if nx < 2 && ny < 2 {
		return r, r, r
	}
	if !validCI(B, level) {
		return r, nan, nan
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	rs := make([]float64, 0, B)
	for range B {
		var bx, bu, by, bv float64
		for range nx {
			k := rng.IntN(nx)
			bx, bu = bx+x[k], bu+u[k]
		}
		for range ny {
			k := rng.IntN(ny)
			by, bv = by+y[k], bv+v[k]
		}
		if q, ok := perUnit(bx, bu, by, bv); ok {
			rs = append(rs, q)
		}
	}
	if len(rs) == 0 {
		return r, nan, nan
	}
	lo, hi = percentileCI(rs, level)
	return r, lo, hi
}
