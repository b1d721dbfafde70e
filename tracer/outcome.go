package tracer

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/trajmine/trajmine/simulate"
)

// Outcome is the outcome model: for a candidate with features x kept at
// ratio r, the probability that a later use of it loses its evidence (a
// predicted re-invocation) and the log token cost of that re-invocation
// (the output again plus the prompt of the call that needs it).
//
//	P̂(x, r) = (1 − r) · σ(Risk · x)
//	Ĉ(x)    = exp(Cost · x)
//
// σ(Risk · x) is the learned per-tool part: the probability that a later
// content use needs the output at all, which is the single-tool
// counterfactual of dropping it (r = 0) and is known from provenance for
// every decision whatever ratio was chosen, so the fit does not depend on
// what the policy currently keeps. An output kept whole loses nothing
// (P̂(x, 1) = 0, as in the replay), and a cut of 1 − r of it is taken to
// lose a needed use's evidence with probability 1 − r (evidence anywhere
// in it).
type Outcome struct {
	Risk []float64 `json:"risk"` // FeatureDim
	Cost []float64 `json:"cost"` // FeatureDim
	// Fitted on N decisions, Lost of them needed by a later use.
	N    int `json:"n"`
	Lost int `json:"needed"`
}

// sample is one decision as the outcome model sees it.
type sample struct {
	x       []float64
	r       float64
	lost    bool // a later use lost its evidence at r
	needed  bool // a later content use needs it
	logCost float64
}

// P is P̂(x, r).
func (o *Outcome) P(x []float64, r float64) float64 {
	if len(o.Risk) == 0 {
		return 0
	}
	var z float64
	for k, xk := range x {
		z += o.Risk[k] * xk
	}
	return (1 - r) * sigmoid(z)
}

// C is Ĉ(x) in tokens.
func (o *Outcome) C(x []float64) float64 {
	if len(o.Cost) == 0 {
		return 0
	}
	var z float64
	for k, xk := range x {
		z += o.Cost[k] * xk
	}
	return math.Exp(min(z, 40))
}

// Harm is the predicted extra cost, in tokens, of keeping x at r instead
// of whole: (P̂(x, r) − P̂(x, 1)) × Ĉ(x) = P̂(x, r) × Ĉ(x).
func (o *Outcome) Harm(x []float64, r float64) float64 {
	return (o.P(x, r) - o.P(x, 1)) * o.C(x)
}

// fitOutcome fits the outcome model on ss: the logistic part (of needed)
// by Newton's method (fitLogistic) with an L2 penalty l2 × ‖w‖², the cost
// part by ridge regression on the needed samples (gonum mat; the mean log
// cost as a bias when they are fewer than the features). prev seeds the
// logistic fit.
func fitOutcome(ss []sample, prev *Outcome, l2 float64) Outcome {
	d := simulate.FeatureDim
	out := Outcome{N: len(ss)}
	for _, s := range ss {
		if s.needed {
			out.Lost++
		}
	}
	if len(ss) == 0 {
		return out
	}
	out.Risk = fitLogistic(ss, prev, l2)

	// cost: ridge regression of log cost on x over the lost samples
	out.Cost = make([]float64, d)
	var pos []sample
	var mean float64
	for _, s := range ss {
		if s.needed {
			pos = append(pos, s)
			mean += s.logCost
		}
	}
	if len(pos) == 0 {
		return out
	}
	mean /= float64(len(pos))
	if len(pos) <= d {
		out.Cost[0] = mean // feature 0 is the bias
		return out
	}
	var ata mat.SymDense
	x := mat.NewDense(len(pos), d, nil)
	y := mat.NewVecDense(len(pos), nil)
	for i, s := range pos {
		x.SetRow(i, s.x)
		y.SetVec(i, s.logCost)
	}
	ata.SymOuterK(1, x.T())
	for k := range d {
		ata.SetSym(k, k, ata.At(k, k)+1e-3*float64(len(pos)))
	}
	var atb mat.VecDense
	atb.MulVec(x.T(), y)
	var ch mat.Cholesky
	if !ch.Factorize(&ata) {
		out.Cost[0] = mean
		return out
	}
	var w mat.VecDense
	if err := ch.SolveVecTo(&w, &atb); err != nil {
		out.Cost[0] = mean
		return out
	}
	for k := range d {
		out.Cost[k] = w.AtVec(k)
	}
	return out
}

// fitLogistic maximises the mean log-likelihood of "needed" under
// p = σ(w·x), minus l2 × ‖w‖², by Newton's method over gonum mat
// (iteratively reweighted least squares: each step solves
// (XᵀSX/n + 2·l2·I) Δ = score by Cholesky, S = diag(p(1−p)),
// score = Xᵀ(y − p)/n − 2·l2·w), from prev's weights when it has them, for
// at most 6 steps or until ‖Δ‖∞ < 1e-4.
func fitLogistic(ss []sample, prev *Outcome, l2 float64) []float64 {
	d := simulate.FeatureDim
	w := make([]float64, d)
	if prev != nil && len(prev.Risk) == d {
		copy(w, prev.Risk)
	}
	use := ss
	if len(use) == 0 {
		return w
	}
	n := float64(len(use))
	xs := mat.NewDense(len(use), d, nil)
	var h mat.SymDense
	g := mat.NewVecDense(d, nil)
	for range 6 {
		g.Zero()
		gr := g.RawVector().Data
		for i, s := range use {
			var a float64
			for k, xk := range s.x {
				a += w[k] * xk
			}
			p := sigmoid(a)
			y := 0.0
			if s.needed {
				y = 1
			}
			sc := (y - p) / n
			sw := math.Sqrt(max(p*(1-p), 1e-12) / n)
			out := xs.RawRowView(i)
			for k, xk := range s.x {
				gr[k] += sc * xk
				out[k] = sw * xk
			}
		}
		h.SymOuterK(1, xs.T())
		for k := range d {
			gr[k] -= 2 * l2 * w[k]
			h.SetSym(k, k, h.At(k, k)+2*l2)
		}
		var ch mat.Cholesky
		if !ch.Factorize(&h) {
			break
		}
		var step mat.VecDense
		if err := ch.SolveVecTo(&step, g); err != nil {
			break
		}
		var big float64
		for k := range d {
			w[k] += step.AtVec(k)
			big = max(big, math.Abs(step.AtVec(k)))
		}
		if big < 1e-4 {
			break
		}
	}
	return w
}
