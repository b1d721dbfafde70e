package tracer

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/trajmine/trajmine/simulate"
)

// TestGradientNumerical checks addGrad's analytic gradient of log Beta(r; α, β)
// against central differences, at random parameters, inputs and ratios.
func TestGradientNumerical(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 0))
	for _, tc := range []struct {
		name   string
		hidden int
		r      float64
		scale  float64 // of W2, B2: how far from the Beta(2,2) start
	}{
		{"start-mid", 4, 0.5, 0.01},
		{"low-ratio", 6, 0.03, 0.8},
		{"high-ratio", 3, 0.97, 1.5},
		{"wide", 16, 0.31, 0.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := newNet(tc.hidden)
			n.init(rng)
			for k := range n.m.W2 {
				n.m.W2[k] = tc.scale * rng.NormFloat64()
			}
			n.m.B2[0], n.m.B2[1] = tc.scale*rng.NormFloat64(), tc.scale*rng.NormFloat64()
			x := make([]float64, simulate.FeatureDim)
			for k := range x {
				x[k] = rng.Float64()*2 - 1
			}
			g := make([]float64, len(n.theta))
			n.addGrad(g, x, tc.r, 1)
			const h = 1e-6
			var worst float64
			for k := range n.theta {
				v := n.theta[k]
				n.theta[k] = v + h
				a, b := n.beta(x)
				fp := logBeta(tc.r, a, b)
				n.theta[k] = v - h
				a, b = n.beta(x)
				fm := logBeta(tc.r, a, b)
				n.theta[k] = v
				num := (fp - fm) / (2 * h)
				if d := math.Abs(num-g[k]) / max(1, math.Abs(num)); d > worst {
					worst = d
				}
			}
			if worst > 1e-5 {
				t.Errorf("worst relative gradient error %.3g > 1e-5", worst)
			}
		})
	}
}

func TestLogBetaExact(t *testing.T) {
	// Beta(1,1) is uniform: density 1; Beta(2,2) at 0.5: 6·0.25 = 1.5; Beta(2,1) at r: 2r
	for _, tc := range []struct{ r, a, b, want float64 }{
		{0.3, 1, 1, 0}, {0.5, 2, 2, math.Log(1.5)}, {0.25, 2, 1, math.Log(0.5)},
	} {
		if got := logBeta(tc.r, tc.a, tc.b); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("logBeta(%v; %v, %v) = %v, want %v", tc.r, tc.a, tc.b, got, tc.want)
		}
	}
}

func TestInitIsBeta22(t *testing.T) {
	n := newNet(8)
	n.init(rand.New(rand.NewPCG(1, 0)))
	for k := range n.m.W2 {
		n.m.W2[k] = 0
	}
	a, b := n.beta(make([]float64, simulate.FeatureDim))
	if math.Abs(a-2) > 1e-12 || math.Abs(b-2) > 1e-12 {
		t.Errorf("start Beta(%v, %v), want Beta(2, 2)", a, b)
	}
}
