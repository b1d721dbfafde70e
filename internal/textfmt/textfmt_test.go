package textfmt

import "testing"

func TestFormats(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{Thousands(0), "0"}, {Thousands(999), "999"}, {Thousands(1000), "1,000"}, {Thousands(-1234567), "-1,234,567"},
		{Pct(0.1234), "12.3%"}, {Pct(1), "100.0%"},
		// a CI bound that is not zero never prints as zero (issue 27: "[0.0%, 7.8%]" for 0.0003)
		{PctBound(0.0003), "<0.1%"}, {PctBound(0.00049), "<0.1%"}, {PctBound(0.00051), "0.1%"}, {PctBound(0), "0.0%"},
		{PctBound(-0.0003), ">-0.1%"}, {PctBound(-0.00051), "-0.1%"}, {PctBound(0.078), "7.8%"},
		{PctCI(0.0003, 0.078), "[<0.1%, 7.8%]"},
		{Ratio(0.92849), "0.928"}, {RatioBound(0.9996), "<1.000"}, {RatioBound(0.99951), "<1.000"}, {RatioBound(0.9994), "0.999"},
		{RatioBound(1), "1.000"}, {RatioBound(1.0004), ">1.000"}, {RatioBound(1.00049), ">1.000"}, {RatioBound(1.0006), "1.001"},
		{RatioCI(0.9, 0.9997), "[0.900, <1.000]"},
		{OrDash(""), "-"}, {OrDash("x"), "x"},
		{Line("a\n\n b\x1b[31m", 20), "a b?[31m"}, {Line("abcdef", 4), "abc…"},
		{Cut("héllo wörld", 5), "héll…"}, {Cut("abc", 3), "abc"},
		{CountOf(1, "run"), "1 run"}, {CountOf(0, "run"), "0 runs"}, {CountOf(2, "call"), "2 calls"}, {CountOf(10000, "run"), "10,000 runs"},
		{Bytes(512), "512 B"}, {Bytes(1536), "1.5 kB"}, {Bytes(3 << 20), "3.0 MB"}, {Bytes(5 << 30), "5.0 GB"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
