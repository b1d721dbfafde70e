package stats

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// BenjaminiHochberg returns the Benjamini–Hochberg q-value (adjusted
// p-value, R's p.adjust(p, "BH")) of each of the m p-values, in their
// order: with p₍₁₎ ≤ … ≤ p₍ₘ₎ sorted,
//
//	q₍ᵢ₎ = min_{j ≥ i} min(1, m · p₍ⱼ₎ / j)
//
// Rejecting every hypothesis with q ≤ α keeps the expected share of false
// discoveries among the rejections at most α (for independent or
// positively dependent tests). A NaN p-value is left out of m and its q is
// NaN. p is not modified.
func BenjaminiHochberg(p []float64) []float64 {
	q := make([]float64, len(p))
	idx := make([]int, 0, len(p))
	for i, v := range p {
		if math.IsNaN(v) {
			q[i] = math.NaN()
			continue
		}
		idx = append(idx, i)
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(p[a], p[b]) })
	m := float64(len(idx))
	run := 1.0
	for k := len(idx) - 1; k >= 0; k-- {
		i := idx[k]
		run = math.Min(run, math.Min(1, m*p[i]/float64(k+1)))
		q[i] = run
	}
	return q
}

// MannWhitney is the result of a Mann–Whitney U (Wilcoxon rank-sum) test.
type MannWhitney struct {
	U float64 // U of the first sample: Σ its ranks − n₁(n₁+1)/2
	Z float64 // normal approximation with tie and continuity corrections; 0 when undefined
	P float64 // two-sided p-value from Z; 1 when either sample is empty or every value ties
	// RankBiserial is the effect size r = 2U/(n₁n₂) − 1, in [−1, 1]:
	// the probability that a value of the first sample exceeds one of the
	// second, minus the reverse (0 when the samples are alike).
	RankBiserial float64
}

// MannWhitneyU tests, two-sided, whether values of x tend to be larger or
// smaller than values of y (two independent samples):
//
//  1. rank the pooled values (ties get their average rank); R₁ is the sum
//     of x's ranks and U = R₁ − n₁(n₁+1)/2;
//  2. Z = (U − n₁n₂/2 − sign·½) / σ, σ² = n₁n₂/12 · ((N+1) − Σ(t³−t)/(N(N−1)))
//     over groups of t tied values, N = n₁ + n₂ (continuity correction ½
//     towards the mean, as R's wilcox.test(x, y, exact = FALSE, correct = TRUE));
//  3. P = 2·Φ(−|Z|).
//
// NaN values are left out.
func MannWhitneyU(x, y []float64) MannWhitney {
	var vals []float64
	var first []bool
	for _, v := range x {
		if !math.IsNaN(v) {
			vals, first = append(vals, v), append(first, true)
		}
	}
	n1 := len(vals)
	for _, v := range y {
		if !math.IsNaN(v) {
			vals, first = append(vals, v), append(first, false)
		}
	}
	n2 := len(vals) - n1
	if n1 == 0 || n2 == 0 {
		return MannWhitney{P: 1}
	}
	ranks := Ranks(vals)
	var r1 float64
	for i, r := range ranks {
		if first[i] {
			r1 += r
		}
	}
	sorted := slices.Clone(vals)
	slices.Sort(sorted)
	var ties float64
	for i := 0; i < len(sorted); {
		j := i + 1
		for j < len(sorted) && sorted[j] == sorted[i] {
			j++
		}
		if t := float64(j - i); t > 1 {
			ties += t*t*t - t
		}
		i = j
	}
	f1, f2 := float64(n1), float64(n2)
	nn := f1 + f2
	u := r1 - f1*(f1+1)/2
	res := MannWhitney{U: u, RankBiserial: 2*u/(f1*f2) - 1, P: 1}
	v := f1 * f2 / 12 * ((nn + 1) - ties/(nn*(nn-1)))
	if v <= 0 {
		return res
	}
	dev := u - f1*f2/2
	if dev == 0 {
		return res
	}
	res.Z = (dev - math.Copysign(0.5, dev)) / math.Sqrt(v)
	res.P = math.Min(1, 2*distuv.UnitNormal.CDF(-math.Abs(res.Z)))
	return res
}
