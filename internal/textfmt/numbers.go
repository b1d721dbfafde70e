package textfmt

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// fixed is x with d decimals, rounded half away from zero on x's exact
// binary value ("Number.prototype.toFixed"'s rule; fmt's %.*f rounds an
// exact tie such as 0.125 to even); "-" for NaN and ±Inf. A negative x
// that rounds to zero keeps its sign ("-0.0"), as "toFixed" does.
func fixed(x float64, d int) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "-"
	}
	sign := ""
	if x < 0 {
		sign, x = "-", -x
	}
	r := new(big.Rat).SetFloat64(x) // exact
	r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d)), nil)))
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if m.Lsh(m, 1).Cmp(r.Denom()) >= 0 { // remainder ≥ half: away from zero
		q.Add(q, big.NewInt(1))
	}
	s := q.String()
	if d == 0 {
		return sign + s
	}
	if len(s) <= d {
		s = strings.Repeat("0", d-len(s)+1) + s
	}
	return sign + s[:len(s)-d] + "." + s[len(s)-d:]
}

// Thousands formats a count with comma separators: 1234567 → 1,234,567.
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	s = group(s)
	if neg {
		return "-" + s
	}
	return s
}

// group puts comma separators into a string of digits.
func group(s string) string {
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Pct formats a share (of runs, of tokens; 1 is the whole) as a
// percentage with one decimal: 0.1234 → 12.3%.
func Pct(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "-"
	}
	return fixed(100*f, 1) + "%"
}

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

// PctWithCI is a share and its CI: "12.3% [8.0%, 17.1%]".
func PctWithCI(x, lo, hi float64) string { return Pct(x) + " " + PctCI(lo, hi) }

// Ratio formats a ratio against a reference (× what ran) with three
// decimals: 0.92849 → 0.928.
func Ratio(f float64) string { return fixed(f, 3) }

// RatioBound formats one end of a confidence interval on a ratio as Ratio
// does, except that a bound that is not 1 never prints as 1.000: below 1
// it prints "<1.000", above ">1.000" (whether the CI reaches 1, what ran,
// is the question a ratio's CI answers); and one above zero never as
// 0.000, but "<0.001".
func RatioBound(f float64) string {
	s := Ratio(f)
	switch {
	case f > 0 && s == "0.000":
		return "<0.001"
	case f < 1 && s == "1.000":
		return "<1.000"
	case f > 1 && s == "1.000":
		return ">1.000"
	}
	return s
}

// RatioCI is a CI on a ratio: "[lo, hi]" with RatioBound's bounds.
func RatioCI(lo, hi float64) string { return "[" + RatioBound(lo) + ", " + RatioBound(hi) + "]" }

// RatioWithCI is a ratio and its CI, the form every ratio against what
// ran takes in a sentence or a cell: "0.928 [0.880, <1.000]".
func RatioWithCI(x, lo, hi float64) string { return Ratio(x) + " " + RatioCI(lo, hi) }

// Dollars formats an amount in US dollars: two decimals with thousands
// separators at or above $1 ("$1,234.57") and for zero ("$0.00"), four
// below $1 ("$0.0123"), and
// "<$0.0001" for an amount that is not zero but rounds to it (">-$0.0001"
// below zero); the decimals follow the amount's size before rounding.
func Dollars(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "-"
	}
	sign, a := "", x
	if x < 0 {
		sign, a = "-", -x
	}
	d := 4
	if a >= 1 || a == 0 {
		d = 2
	}
	s := fixed(a, d)
	if a > 0 && s == "0.0000" {
		if x < 0 {
			return ">-$0.0001"
		}
		return "<$0.0001"
	}
	whole, frac, _ := strings.Cut(s, ".")
	return sign + "$" + group(whole) + "." + frac
}

// Tokens formats a number of tokens with three significant digits and a
// unit: 999, 1.23k, 12.3k, 123k, 1.23M, 1.23B; a value that rounds up to
// the next unit takes it (999,999 → 1.00M). Exact counts are Thousands.
func Tokens(n int64) string {
	sign, a := "", float64(n)
	if n < 0 {
		sign, a = "-", -a
	}
	if a < 1000 {
		return sign + strconv.FormatFloat(a, 'f', 0, 64)
	}
	units := []string{"k", "M", "B", "T"}
	for i, u := range units {
		v := a / math.Pow(1000, float64(i+1))
		s := ""
		for d := 2; d >= 0; d-- { // three significant digits as printed: 99.96k is 100k
			s = fixed(v, d)
			if f, _ := strconv.ParseFloat(s, 64); f < math.Pow(10, float64(3-d)) {
				break
			}
		}
		if f, _ := strconv.ParseFloat(s, 64); f >= 1000 && i+1 < len(units) {
			continue // 999.5k is 1.00M
		}
		return sign + s + u
	}
	return sign + fixed(a/1e12, 0) + "T"
}

// Duration formats a span: below a second in whole milliseconds ("850
// ms"; "<1 ms" above zero), below a minute in seconds with one decimal
// ("12.3 s"), then minutes and seconds ("4m05s"), hours and minutes
// ("2h03m"), days and hours ("3d04h"); each form is chosen by the value
// rounded as it would print (59.96 s is "1m00s").
func Duration(d time.Duration) string { return durationMS(float64(d) / 1e6) }

// durationMS is Duration of ms milliseconds (the page's unit).
func durationMS(ms float64) string {
	if math.IsNaN(ms) || math.IsInf(ms, 0) {
		return "-"
	}
	if ms < 0 {
		return "-" + durationMS(-ms)
	}
	round := func(x float64) int64 { return int64(math.Floor(x + 0.5)) }
	two := func(n int64) string {
		if n < 10 {
			return "0" + strconv.FormatInt(n, 10)
		}
		return strconv.FormatInt(n, 10)
	}
	if r := round(ms); r < 1000 {
		if r == 0 && ms > 0 {
			return "<1 ms"
		}
		return strconv.FormatInt(r, 10) + " ms"
	}
	if r := round(ms / 100); r < 600 {
		return strconv.FormatInt(r/10, 10) + "." + strconv.FormatInt(r%10, 10) + " s"
	}
	if r := round(ms / 1000); r < 3600 {
		return strconv.FormatInt(r/60, 10) + "m" + two(r%60) + "s"
	}
	if r := round(ms / 60000); r < 1440 {
		return strconv.FormatInt(r/60, 10) + "h" + two(r%60) + "m"
	}
	r := round(ms / 3600000)
	return strconv.FormatInt(r/24, 10) + "d" + two(r%24) + "h"
}

// Bytes formats a size in bytes, 1,024-based with one decimal: 1536 → 1.5 kB.
func Bytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fixed(float64(n)/(1<<30), 1) + " GB"
	case n >= 1<<20:
		return fixed(float64(n)/(1<<20), 1) + " MB"
	case n >= 1<<10:
		return fixed(float64(n)/(1<<10), 1) + " kB"
	}
	return strconv.FormatInt(n, 10) + " B"
}
