package textfmt

import (
	"math"
	"testing"
	"time"
)

// formatCase is one formatter call: what the Go formatter printed, the
// same call in the page's script (JS: trajmineFmt[fn](args...)), and the
// expected text, worked out by hand from the rule.
type formatCase struct {
	got  string
	fn   string
	args []any
	want string
}

// formatCases are the table TestFormats checks in Go and TestJSMatchesGo
// in headless Chromium.
func formatCases() []formatCase {
	ms := func(n float64) time.Duration { return time.Duration(n * 1e6) }
	return []formatCase{
		// counts
		{Thousands(0), "count", []any{0}, "0"},
		{Thousands(999), "count", []any{999}, "999"},
		{Thousands(1000), "count", []any{1000}, "1,000"},
		{Thousands(-1234567), "count", []any{-1234567}, "-1,234,567"},
		{CountOf(1, "run"), "countOf", []any{1, "run"}, "1 run"},
		{CountOf(0, "run"), "countOf", []any{0, "run"}, "0 runs"},
		{CountOf(2, "call"), "countOf", []any{2, "call"}, "2 calls"},
		{CountOf(10000, "run"), "countOf", []any{10000, "run"}, "10,000 runs"},
		{Plural(1, "family", "families"), "plural", []any{1, "family", "families"}, "1 family"},
		{Plural(3, "family", "families"), "plural", []any{3, "family", "families"}, "3 families"},
		// percents: one decimal; a CI bound that is not zero never prints as zero
		{Pct(0.1234), "pct", []any{0.1234}, "12.3%"},
		{Pct(1), "pct", []any{1}, "100.0%"},
		{Pct(-0.0004), "pct", []any{-0.0004}, "-0.0%"},
		{Pct(math.NaN()), "pct", []any{"NaN"}, "-"},
		{PctBound(0.0003), "pctBound", []any{0.0003}, "<0.1%"},
		{PctBound(0.00049), "pctBound", []any{0.00049}, "<0.1%"},
		{PctBound(0.00051), "pctBound", []any{0.00051}, "0.1%"},
		{PctBound(0), "pctBound", []any{0}, "0.0%"},
		{PctBound(-0.0003), "pctBound", []any{-0.0003}, ">-0.1%"},
		{PctBound(-0.00051), "pctBound", []any{-0.00051}, "-0.1%"},
		{PctBound(0.078), "pctBound", []any{0.078}, "7.8%"},
		{PctCI(0.0003, 0.078), "pctCI", []any{0.0003, 0.078}, "[<0.1%, 7.8%]"},
		{PctWithCI(0.123, 0.08, 0.171), "pctWithCI", []any{0.123, 0.08, 0.171}, "12.3% [8.0%, 17.1%]"},
		// ratios: three decimals; a bound that is not 1 never prints as 1.000
		{Ratio(0.92849), "ratio", []any{0.92849}, "0.928"},
		{Ratio(2.2485), "ratio", []any{2.2485}, "2.248"}, // 2.2485 is 2.24849999… in binary
		{Ratio(0.0625), "ratio", []any{0.0625}, "0.063"}, // an exact tie: away from zero (fmt's %.3f gives 0.062)
		{Ratio(math.Inf(1)), "ratio", []any{"Infinity"}, "-"},
		{RatioBound(0.9996), "ratioBound", []any{0.9996}, "<1.000"},
		{RatioBound(0.99951), "ratioBound", []any{0.99951}, "<1.000"},
		{RatioBound(0.9994), "ratioBound", []any{0.9994}, "0.999"},
		{RatioBound(1), "ratioBound", []any{1}, "1.000"},
		{RatioBound(1.0004), "ratioBound", []any{1.0004}, ">1.000"},
		{RatioBound(1.00049), "ratioBound", []any{1.00049}, ">1.000"},
		{RatioBound(1.0006), "ratioBound", []any{1.0006}, "1.001"},
		{RatioBound(0.0003), "ratioBound", []any{0.0003}, "<0.001"}, // not zero
		{RatioBound(0), "ratioBound", []any{0}, "0.000"},
		{RatioCI(0.9, 0.9997), "ratioCI", []any{0.9, 0.9997}, "[0.900, <1.000]"},
		{RatioWithCI(0.928, 0.88, 0.9997), "ratioWithCI", []any{0.928, 0.88, 0.9997}, "0.928 [0.880, <1.000]"},
		// dollars: 2 decimals from $1 (and at 0), 4 below
		{Dollars(0), "dollars", []any{0}, "$0.00"},
		{Dollars(1), "dollars", []any{1}, "$1.00"},
		{Dollars(1234.567), "dollars", []any{1234.567}, "$1,234.57"},
		{Dollars(1.125), "dollars", []any{1.125}, "$1.13"}, // an exact tie: away from zero
		{Dollars(-12.5), "dollars", []any{-12.5}, "-$12.50"},
		{Dollars(0.5), "dollars", []any{0.5}, "$0.5000"},
		{Dollars(0.01234), "dollars", []any{0.01234}, "$0.0123"},
		{Dollars(0.99996), "dollars", []any{0.99996}, "$1.0000"}, // decimals by the size before rounding
		{Dollars(0.00004), "dollars", []any{0.00004}, "<$0.0001"},
		{Dollars(-0.00004), "dollars", []any{-0.00004}, ">-$0.0001"},
		{Dollars(1234567.891), "dollars", []any{1234567.891}, "$1,234,567.89"},
		// tokens: three significant digits
		{Tokens(0), "tokens", []any{0}, "0"},
		{Tokens(999), "tokens", []any{999}, "999"},
		{Tokens(1000), "tokens", []any{1000}, "1.00k"},
		{Tokens(1234), "tokens", []any{1234}, "1.23k"},
		{Tokens(12345), "tokens", []any{12345}, "12.3k"},
		{Tokens(99960), "tokens", []any{99960}, "100k"}, // 99.96k has four digits at one decimal
		{Tokens(123456), "tokens", []any{123456}, "123k"},
		{Tokens(999499), "tokens", []any{999499}, "999k"},
		{Tokens(999500), "tokens", []any{999500}, "1.00M"}, // 999.5k rounds to 1000k
		{Tokens(102735813), "tokens", []any{102735813}, "103M"},
		{Tokens(1500000000), "tokens", []any{1500000000}, "1.50B"},
		{Tokens(-1500), "tokens", []any{-1500}, "-1.50k"},
		// durations (the script takes milliseconds)
		{Duration(0), "duration", []any{0}, "0 ms"},
		{Duration(400 * time.Microsecond), "duration", []any{0.4}, "<1 ms"},
		{Duration(ms(850)), "duration", []any{850}, "850 ms"},
		{Duration(ms(999.4)), "duration", []any{999.4}, "999 ms"},
		{Duration(ms(999.5)), "duration", []any{999.5}, "1.0 s"},
		{Duration(ms(12345)), "duration", []any{12345}, "12.3 s"},
		{Duration(ms(59960)), "duration", []any{59960}, "1m00s"},
		{Duration(ms(245000)), "duration", []any{245000}, "4m05s"},
		{Duration(ms(3599500)), "duration", []any{3599500}, "1h00m"},
		{Duration(ms(7380000)), "duration", []any{7380000}, "2h03m"},
		{Duration(ms(273600000)), "duration", []any{273600000}, "3d04h"},
		{Duration(ms(-1500)), "duration", []any{-1500}, "-1.5 s"},
		// bytes
		{Bytes(512), "bytes", []any{512}, "512 B"},
		{Bytes(1536), "bytes", []any{1536}, "1.5 kB"},
		{Bytes(3 << 20), "bytes", []any{3 << 20}, "3.0 MB"},
		{Bytes(5 << 30), "bytes", []any{5 << 30}, "5.0 GB"},
	}
}

func TestFormats(t *testing.T) {
	for _, tc := range formatCases() {
		if tc.got != tc.want {
			t.Errorf("%s%v: got %q, want %q", tc.fn, tc.args, tc.got, tc.want)
		}
	}
}

// TestFixed: half away from zero on the exact binary value, as
// Number.prototype.toFixed rounds.
func TestFixed(t *testing.T) {
	tests := []struct {
		x    float64
		d    int
		want string
	}{
		{0.125, 2, "0.13"},  // exact tie
		{1.005, 2, "1.00"},  // 1.00499999999999989…
		{2.5, 0, "3"},       // exact tie
		{-2.5, 0, "-3"},     // away from zero
		{-0.04, 1, "-0.0"},  // keeps its sign
		{0.0001, 2, "0.00"}, // leading zeros
		{123.456, 1, "123.5"},
		{math.NaN(), 1, "-"},
	}
	for _, tc := range tests {
		if got := fixed(tc.x, tc.d); got != tc.want {
			t.Errorf("fixed(%v, %d) = %q, want %q", tc.x, tc.d, got, tc.want)
		}
	}
}

func TestText(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{OrDash(""), "-"}, {OrDash("x"), "x"},
		{Line("a\n\n b\x1b[31m", 20), "a b?[31m"}, {Line("abcdef", 4), "abc…"},
		{Cut("héllo wörld", 5), "héll…"}, {Cut("abc", 3), "abc"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
