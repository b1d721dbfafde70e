package stats

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat"
)

// GeoMeanRatio returns the geometric mean gm of x[i]/y[i] over the n pairs in
// which both values are finite and > 0 (other pairs are skipped), and a
// percentile bootstrap interval [lo, hi] for it at the given level.
//
// The bootstrap is the one of [BootstrapMedianCI]: B resamples of the n log
// ratios with replacement from a math/rand/v2 PCG seeded with (seed, 0); the
// statistic is exp of each resample's mean log ratio; lo and hi are the
// (1−level)/2 and (1+level)/2 empirical quantiles.
//
// n < 2 gives lo = hi = gm (NaN when n == 0). lo and hi are NaN when B < 1 or
// level is not in (0, 1). When len(x) != len(y) all three are NaN and n is 0.
func GeoMeanRatio(x, y []float64, B int, level float64, seed uint64) (gm, lo, hi float64, n int) {
	nan := math.NaN()
	if len(x) != len(y) {
		return nan, nan, nan, 0
	}
	logs := make([]float64, 0, len(x))
	for i := range x {
		if x[i] > 0 && y[i] > 0 && !math.IsInf(x[i], 1) && !math.IsInf(y[i], 1) {
			logs = append(logs, math.Log(x[i])-math.Log(y[i]))
		}
	}
	n = len(logs)
	if n == 0 {
		return nan, nan, nan, 0
	}
	gm = math.Exp(stat.Mean(logs, nil))
	if n < 2 {
		return gm, gm, gm, n
	}
	if !validCI(B, level) {
		return gm, nan, nan, n
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	means := make([]float64, B)
	for b := range means {
		var sum float64
		for range n {
			sum += logs[rng.IntN(n)]
		}
		means[b] = sum / float64(n)
	}
	lo, hi = percentileCI(means, level)
	return gm, math.Exp(lo), math.Exp(hi), n
}

// SumRatio returns Σx / Σy (the token-weighted ratio: what a set of runs
// costs under one policy against another) and a percentile bootstrap
// interval for it: B resamples of the pairs (x[i], y[i]) with replacement
// from a math/rand/v2 PCG seeded with (seed, 0), the statistic Σx/Σy of
// each, the (1−level)/2 and (1+level)/2 quantiles. NaN when Σy is 0 or the
// lengths differ; lo = hi = r for fewer than two pairs.
func SumRatio(x, y []float64, B int, level float64, seed uint64) (r, lo, hi float64) {
	nan := math.NaN()
	if len(x) != len(y) {
		return nan, nan, nan
	}
	var sx, sy float64
	for i := range x {
		sx += x[i]
		sy += y[i]
	}
	if sy == 0 {
		return nan, nan, nan
	}
	r = sx / sy
	n := len(x)
	if n < 2 {
		return r, r, r
	}
	if !validCI(B, level) {
		return r, nan, nan
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	rs := make([]float64, 0, B)
	for range B {
		var bx, by float64
		for range n {
			k := rng.IntN(n)
			bx += x[k]
			by += y[k]
		}
		if by > 0 {
			rs = append(rs, bx/by)
		}
	}
	if len(rs) == 0 {
		return r, nan, nan
	}
	lo, hi = percentileCI(rs, level)
	return r, lo, hi
}

// PerUnitRatio returns (Σx / Σu) / (Σy / Σv): what one unit (a solved
// task) costs under one policy against another, where x and y are each
// pair's costs and u and v its units under each (0 or 1 per run for
// solved tasks), and a percentile bootstrap interval for it drawn as
// SumRatio draws its own (the same resamples of the pairs, the same seed),
// so that with u = v = 1 everywhere it is SumRatio's ratio and interval.
// NaN when Σy or Σv is 0 or the lengths differ; +Inf when Σu is 0 and Σx
// is not (no unit under the policy); lo = hi = r for fewer than two pairs.
// A resample with no y or no v is skipped; one with no u is +Inf.
func PerUnitRatio(x, u, y, v []float64, B int, level float64, seed uint64) (r, lo, hi float64) {
	nan := math.NaN()
	n := len(x)
	if len(u) != n || len(y) != n || len(v) != n {
		return nan, nan, nan
	}
	var sx, su, sy, sv float64
	for i := range x {
		sx, su, sy, sv = sx+x[i], su+u[i], sy+y[i], sv+v[i]
	}
	r, ok := perUnit(sx, su, sy, sv)
	if !ok {
		return nan, nan, nan
	}
	if n < 2 {
		return r, r, r
	}
	if !validCI(B, level) {
		return r, nan, nan
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	rs := make([]float64, 0, B)
	for range B {
		var bx, bu, by, bv float64
		for range n {
			k := rng.IntN(n)
			bx, bu, by, bv = bx+x[k], bu+u[k], by+y[k], bv+v[k]
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

// perUnit is (sx / su) / (sy / sv), PerUnitRatio's and
// TwoSamplePerUnitRatio's figure: false when sy or sv is 0; 0 when su and
// sx are 0, +Inf when only su is.
func perUnit(sx, su, sy, sv float64) (float64, bool) {
	if sy == 0 || sv == 0 {
		return math.NaN(), false
	}
	if su == 0 {
		if sx == 0 {
			return 0, true
		}
		return math.Inf(1), true
	}
	return (sx / su) / (sy / sv), true
}
