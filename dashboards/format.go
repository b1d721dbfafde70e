package dashboards

import (
	"math"

	"github.com/trajmine/trajmine/internal/textfmt"
)

// The CLI's formats (internal/textfmt), so the page reads as the terminal does.
var (
	thousands = textfmt.Thousands
	pct       = textfmt.Pct
	snippet   = textfmt.Cut
	orDash    = textfmt.OrDash
)

// round3 rounds to 3 decimals (chart data: stable, short JSON).
func round3(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return math.Round(f*1000) / 1000
}

// round4 rounds to 4 decimals.
func round4(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return math.Round(f*10000) / 10000
}
