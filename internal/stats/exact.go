package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/combin"
	"gonum.org/v1/gonum/stat/distuv"
)

// McNemarExact returns the two-sided p-value of McNemar's exact test on
// paired binary outcomes: b pairs where only the first condition succeeded,
// c where only the second did (the discordant pairs; concordant pairs carry
// no information about the difference). Under the null hypothesis each
// discordant pair goes either way with probability ½, so with n = b + c
//
//	p = min(1, 2 · Σ_{i=0}^{min(b,c)} C(n, i) / 2ⁿ)
//
// (the binomial test of b against Binomial(n, ½), doubled: R's
// binom.test(b, n) and mcnemar.exact). The binomial sum is gonum's
// distuv.Binomial CDF. n = 0 gives 1; a negative count gives NaN.
//
// The smallest p-value n discordant pairs can give is 2/2ⁿ (all of them one
// way): 0.0625 for n = 5, 0.03125 for n = 6, so below 6 discordant pairs
// the test can never reach p < 0.05 (MinDiscordant).
func McNemarExact(b, c int) float64 {
	if b < 0 || c < 0 {
		return math.NaN()
	}
	n := b + c
	if n == 0 {
		return 1
	}
	k := min(b, c)
	tail := distuv.Binomial{N: float64(n), P: 0.5}.CDF(float64(k))
	return math.Min(1, 2*tail)
}

// MinDiscordant is the fewest discordant pairs with which McNemar's exact
// test can reach p < 0.05 at all (2/2⁶ = 0.03125; 2/2⁵ = 0.0625).
const MinDiscordant = 6

// FisherExact returns the two-sided p-value of Fisher's exact test on the
// 2×2 table
//
//	        success  failure
//	group 1    a        b
//	group 2    c        d
//
// for two independent groups: with the margins fixed, a follows the
// hypergeometric distribution P(a) = C(a+b, a) C(c+d, c) / C(n, a+c), and p
// is the sum of P(x) over every table x with P(x) ≤ P(a) (× (1 + 1e-7), R's
// fisher.test tolerance for ties in floating point). A negative count gives
// NaN; an empty table 1.
func FisherExact(a, b, c, d int) float64 {
	if a < 0 || b < 0 || c < 0 || d < 0 {
		return math.NaN()
	}
	n := a + b + c + d
	if n == 0 {
		return 1
	}
	r1, c1 := a+b, a+c
	lo, hi := max(0, c1-(n-r1)), min(r1, c1)
	logP := func(x int) float64 {
		return combin.LogGeneralizedBinomial(float64(r1), float64(x)) +
			combin.LogGeneralizedBinomial(float64(n-r1), float64(c1-x)) -
			combin.LogGeneralizedBinomial(float64(n), float64(c1))
	}
	obs := logP(a)
	var p float64
	for x := lo; x <= hi; x++ {
		if lp := logP(x); lp <= obs+math.Log1p(1e-7) {
			p += math.Exp(lp)
		}
	}
	return math.Min(1, p)
}
