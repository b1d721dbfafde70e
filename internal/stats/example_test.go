package stats_test

import (
	"fmt"

	"github.com/trajmine/trajmine/internal/stats"
)

func ExampleMedian() {
	fmt.Println(stats.Median([]float64{4, 1, 3, 2}))
	// Output: 2.5
}

func ExampleBootstrapMedianCI() {
	costs := []float64{1.2, 0.8, 3.4, 1.1, 0.9, 2.2, 1.5, 1.0, 1.3, 0.7}
	lo, hi := stats.BootstrapMedianCI(costs, 1000, 0.95, 1)
	m := stats.Median(costs)
	fmt.Printf("median %.2f, contained in its 95%% CI: %v\n", m, lo <= m && m <= hi)
	// Output: median 1.15, contained in its 95% CI: true
}

// Per-task cost of a trimming policy (x) against the baseline (y) on the
// same nine tasks.
func ExampleWilcoxonSignedRank() {
	x := []float64{1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30}
	y := []float64{0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29}
	w, err := stats.WilcoxonSignedRank(x, y)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("N = %d, W = %g, p = %.5f, exact = %v\n", w.N, w.W, w.P, w.Exact)
	// Output: N = 9, W = 40, p = 0.03906, exact = true
}

func ExampleGeoMeanRatio() {
	variant := []float64{80, 45, 300, 12}
	baseline := []float64{100, 50, 400, 15}
	gm, _, _, n := stats.GeoMeanRatio(variant, baseline, 1000, 0.95, 1)
	fmt.Printf("variant costs %.2f× baseline over %d tasks\n", gm, n)
	// Output: variant costs 0.81× baseline over 4 tasks
}
