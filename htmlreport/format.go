package htmlreport

import (
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// thousands formats n with comma separators, as the CLI does.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := false
	if n < 0 {
		neg, s = true, s[1:]
	}
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

// pct formats a share in [0, 1] as a percentage with one decimal, as the CLI does.
func pct(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }

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

// snippet shortens s to at most n runes, marking the cut with "…".
func snippet(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
