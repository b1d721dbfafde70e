// Package textfmt formats numbers and text the same way wherever trajmine
// prints them (the terminal, the HTML page, the verdict sentences), so
// that a figure reads the same in every place it appears.
//
// There is one formatter per kind of number, each with a fixed rule:
//
//	count        Thousands        1,234,567 (CountOf: "1 run", "3 runs")
//	percent      Pct              12.3% (one decimal; PctBound, PctCI for CIs)
//	ratio        Ratio            0.928 (three decimals; × what ran)
//	dollars      Dollars          $1,234.57 at or above $1, $0.0123 below, <$0.0001
//	tokens       Tokens           999, 12.3k, 123k, 1.23M (three significant digits)
//	duration     Duration         850 ms, 12.3 s, 4m05s, 2h03m, 3d04h
//	bytes        Bytes            512 B, 1.5 kB, 3.0 MB (1,024-based)
//	a CI         RatioWithCI      0.928 [0.880, <1.000]; PctWithCI 12.3% [8.0%, 17.1%]
//
// A ratio against what ran (cost ×, tokens ×) is always a Ratio, in
// sentences as in tables ("cost × 0.928 [0.880, 0.970]"); a share of a
// whole (of runs, of tokens) is a Pct.
//
// Decimals are rounded half away from zero on the float's exact value, as
// JavaScript's "Number.prototype.toFixed" does, so that JS, the same rules
// for the page (JS, checked against these in headless Chromium), prints
// the same digits.
package textfmt

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

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
// "1 run", "3 runs", "10,000 runs". The plural adds "s"; Plural takes
// both forms.
func CountOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return Thousands(int64(n)) + " " + noun + "s"
}

// Plural is n with one (n is 1) or many: Plural(2, "family", "families")
// is "2 families".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Thousands(int64(n)) + " " + many
}
