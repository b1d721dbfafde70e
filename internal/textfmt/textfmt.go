// Package textfmt formats numbers and text the same way wherever trajmine
// prints them (the terminal, the HTML page, the verdict sentences), so
// that a figure reads the same in every place it appears.
package textfmt

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Thousands formats n with comma separators: 1234567 → 1,234,567.
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Pct formats a share in [0, 1] as a percentage with one decimal: 0.1234 → 12.3%.
func Pct(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }

// PctBound formats one end of a confidence interval on a share as Pct
// does, except that a bound that is not zero never prints as zero: a value
// above zero that Pct prints as 0.0% prints "<0.1%", one below zero
// ">-0.1%" (0.0% and -0.0% read as "the CI reaches zero").
func PctBound(f float64) string {
	s := Pct(f)
	switch {
	case f > 0 && s == "0.0%":
		return "<0.1%"
	case f < 0 && (s == "-0.0%" || s == "0.0%"):
		return ">-0.1%"
	}
	return s
}

// PctCI is a CI on a share: "[lo, hi]" with PctBound's bounds.
func PctCI(lo, hi float64) string { return "[" + PctBound(lo) + ", " + PctBound(hi) + "]" }

// Ratio formats a ratio against a reference (× what ran) with three
// decimals: 0.92849 → 0.928.
func Ratio(f float64) string { return fmt.Sprintf("%.3f", f) }

// RatioBound formats one end of a confidence interval on a ratio as Ratio
// does, except that a bound that is not 1 never prints as 1.000: below 1
// it prints "<1.000", above ">1.000" (whether the CI reaches 1, what ran,
// is the question a ratio's CI answers).
func RatioBound(f float64) string {
	s := Ratio(f)
	switch {
	case f < 1 && s == "1.000":
		return "<1.000"
	case f > 1 && s == "1.000":
		return ">1.000"
	}
	return s
}

// RatioCI is a CI on a ratio: "[lo, hi]" with RatioBound's bounds.
func RatioCI(lo, hi float64) string { return "[" + RatioBound(lo) + ", " + RatioBound(hi) + "]" }

// OrDash is s, or "-" when s is empty.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Line returns s on one line (runs of white space become one space), cut
// to n runes with "…", with control characters (terminal escape sequences
// in hostile logs) shown as "?".
func Line(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '?'
		}
		return r
	}, s)
	return Cut(s, n)
}

// Cut shortens s to at most n runes, marking the cut with "…".
func Cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// CountOf is n with its noun, plural unless n is 1, thousands separated:
// "1 run", "3 runs", "10,000 runs".
func CountOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return Thousands(int64(n)) + " " + noun + "s"
}

// Bytes formats a size in bytes: 1536 → 1.5 kB.
func Bytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f kB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
