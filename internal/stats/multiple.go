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

// Welch is the result of Welch's two-sample t-test.
type Welch struct {
	T  float64 // (mean(x) − mean(y)) / √(s²ₓ/nₓ + s²ᵧ/nᵧ)
	DF float64 // Welch–Satterthwaite degrees of freedom
	P  float64 // two-sided p-value from Student's t with DF
}

// WelchT tests, two-sided, whether x and y (independent samples) have the
// same mean, without assuming equal variances:
//
//	T  = (x̄ − ȳ) / √(s²ₓ/nₓ + s²ᵧ/nᵧ)
//	DF = (s²ₓ/nₓ + s²ᵧ/nᵧ)² / ((s²ₓ/nₓ)²/(nₓ−1) + (s²ᵧ/nᵧ)²/(nᵧ−1))
//	P  = 2·(1 − F_DF(|T|))   (gonum distuv.StudentsT)
//
// with s² the unbiased sample variances (R's t.test(x, y)). Fewer than two
// values on a side gives P = 1 (no test); two samples of zero variance
// give P = 1 when their means are equal and 0 otherwise. NaN values are
// left out.
func WelchT(x, y []float64) Welch {
	mv := func(v []float64) (m, s2 float64, n int) {
		for _, a := range v {
			if !math.IsNaN(a) {
				m += a
				n++
			}
		}
		if n == 0 {
			return 0, 0, 0
		}
		m /= float64(n)
		for _, a := range v {
			if !math.IsNaN(a) {
				s2 += (a - m) * (a - m)
			}
		}
		if n > 1 {
			s2 /= float64(n - 1)
		}
		return m, s2, n
	}
	mx, sx, nx := mv(x)
	my, sy, ny := mv(y)
	if nx < 2 || ny < 2 {
		return Welch{P: 1}
	}
	vx, vy := sx/float64(nx), sy/float64(ny)
	se2 := vx + vy
	if se2 == 0 {
		if mx == my {
			return Welch{P: 1}
		}
		return Welch{T: math.Copysign(math.Inf(1), mx-my), DF: float64(nx + ny - 2), P: 0}
	}
	w := Welch{T: (mx - my) / math.Sqrt(se2)}
	w.DF = se2 * se2 / (vx*vx/float64(nx-1) + vy*vy/float64(ny-1))
	w.P = math.Min(1, 2*distuv.StudentsT{Mu: 0, Sigma: 1, Nu: w.DF}.Survival(math.Abs(w.T)))
	return w
}
