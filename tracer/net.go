package tracer

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mathext"

	"github.com/trajmine/trajmine/simulate"
)

// net is the policy's parameters θ = [W1, B1, W2, B2] in one slice (the
// layout of simulate.RetentionModel) with a model view aliasing it.
type net struct {
	theta []float64
	m     simulate.RetentionModel
	h, o  []float64
}

func newNet(hidden int) *net {
	d := simulate.FeatureDim
	n := &net{theta: make([]float64, hidden*d+hidden+2*hidden+2)}
	n.m = simulate.RetentionModel{Format: simulate.RetentionFormat, Features: simulate.FeatureNames, Hidden: hidden}
	off := 0
	take := func(k int) []float64 { s := n.theta[off : off+k : off+k]; off += k; return s }
	n.m.W1, n.m.B1, n.m.W2, n.m.B2 = take(hidden*d), take(hidden), take(2*hidden), take(2)
	n.h, n.o = make([]float64, hidden), make([]float64, 2)
	return n
}

// init draws W1 ~ N(0, 1/D), W2 ~ N(0, 0.01²) and sets B2 so that the
// start is Beta(2, 2) (mean 0.5) everywhere.
func (n *net) init(rng *rand.Rand) {
	d := float64(simulate.FeatureDim)
	for k := range n.m.W1 {
		n.m.W1[k] = rng.NormFloat64() / math.Sqrt(d)
	}
	for k := range n.m.W2 {
		n.m.W2[k] = 0.01 * rng.NormFloat64()
	}
	b := math.Log(math.E - 1) // softplus⁻¹(1)
	n.m.B2[0], n.m.B2[1] = b, b
}

// beta is the Beta parameters at x (n.h and n.o hold the forward pass).
func (n *net) beta(x []float64) (a, b float64) { return n.m.Beta(x, n.h, n.o) }

// logBeta is log Beta(r; a, b).
func logBeta(r, a, b float64) float64 {
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	return (a-1)*math.Log(r) + (b-1)*math.Log1p(-r) - la - lb + lab
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// addGrad adds w × ∇θ log Beta(r; α(x), β(x)) to g and returns the log-probability:
//
//	∂/∂α = ψ(α+β) − ψ(α) + log r,  ∂/∂β = ψ(α+β) − ψ(β) + log(1−r)
//	α = softplus(o₀) + 1 ⇒ ∂α/∂o₀ = σ(o₀) (β likewise)
//	o = W2·h + B2, h = tanh(W1·x + B1)
func (n *net) addGrad(g []float64, x []float64, r, w float64) float64 {
	a, b := n.beta(x)
	ps := mathext.Digamma(a + b)
	do0 := (ps - mathext.Digamma(a) + math.Log(r)) * sigmoid(n.o[0]) * w
	do1 := (ps - mathext.Digamma(b) + math.Log1p(-r)) * sigmoid(n.o[1]) * w
	hid, d := n.m.Hidden, simulate.FeatureDim
	gW1, gB1 := g[:hid*d], g[hid*d:hid*d+hid]
	gW2, gB2 := g[hid*d+hid:hid*d+3*hid], g[hid*d+3*hid:]
	gB2[0] += do0
	gB2[1] += do1
	for j := range hid {
		hj := n.h[j]
		gW2[j] += do0 * hj
		gW2[hid+j] += do1 * hj
		dz := (do0*n.m.W2[j] + do1*n.m.W2[hid+j]) * (1 - hj*hj)
		if dz == 0 {
			continue
		}
		gB1[j] += dz
		row := gW1[j*d : (j+1)*d]
		for k, xk := range x {
			if xk != 0 {
				row[k] += dz * xk
			}
		}
	}
	return logBeta(r, a, b)
}

// adam is the Adam optimiser (Kingma & Ba), ascending.
type adam struct {
	lr, b1, b2, eps float64
	m, v            []float64
	t               int
}

func newAdam(n int, lr float64) *adam {
	return &adam{lr: lr, b1: 0.9, b2: 0.999, eps: 1e-8, m: make([]float64, n), v: make([]float64, n)}
}

// step moves theta along g (gradient ascent), g clipped to norm ≤ clip.
func (o *adam) step(theta, g []float64, clip float64) {
	var nrm float64
	for _, x := range g {
		nrm += x * x
	}
	nrm = math.Sqrt(nrm)
	scale := 1.0
	if clip > 0 && nrm > clip {
		scale = clip / nrm
	}
	o.t++
	c1 := 1 - math.Pow(o.b1, float64(o.t))
	c2 := 1 - math.Pow(o.b2, float64(o.t))
	for k := range theta {
		gk := g[k] * scale
		o.m[k] = o.b1*o.m[k] + (1-o.b1)*gk
		o.v[k] = o.b2*o.v[k] + (1-o.b2)*gk*gk
		theta[k] += o.lr * (o.m[k] / c1) / (math.Sqrt(o.v[k]/c2) + o.eps)
	}
}
