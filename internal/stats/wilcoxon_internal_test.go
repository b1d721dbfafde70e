package stats

import (
	"math"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSignedRankCounts checks the dynamic programme against hand counts and
// the known moments of the null distribution: total 2ⁿ, mean n(n+1)/4,
// variance n(n+1)(2n+1)/24, symmetry about the mean.
func TestSignedRankCounts(t *testing.T) {
	// Subsets of {1,2,3} by sum: {} | {1} | {2} | {3},{1,2} | {1,3} | {2,3} | {1,2,3}.
	if diff := cmp.Diff([]float64{1, 1, 1, 2, 1, 1, 1}, signedRankCounts(3)); diff != "" {
		t.Errorf("signedRankCounts(3) (-want +got):\n%s", diff)
	}
	for _, n := range []int{1, 2, 9, 20, 50} {
		t.Run("n="+strconv.Itoa(n), func(t *testing.T) {
			c := signedRankCounts(n)
			fn := float64(n)
			var total, mean, sq float64
			for s, k := range c {
				total += k
				mean += float64(s) * k
				sq += float64(s) * float64(s) * k
			}
			mean /= total
			variance := sq/total - mean*mean
			if total != math.Ldexp(1, n) {
				t.Errorf("total %v, want 2^%d", total, n)
			}
			if want := fn * (fn + 1) / 4; math.Abs(mean-want) > 1e-9*want {
				t.Errorf("mean %v, want %v", mean, want)
			}
			if want := fn * (fn + 1) * (2*fn + 1) / 24; math.Abs(variance-want) > 1e-9*want {
				t.Errorf("variance %v, want %v", variance, want)
			}
			for s := range c {
				if c[s] != c[len(c)-1-s] {
					t.Fatalf("counts not symmetric at %d", s)
				}
			}
		})
	}
}
