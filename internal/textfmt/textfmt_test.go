package textfmt

import "testing"

func TestFormats(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{Thousands(0), "0"}, {Thousands(999), "999"}, {Thousands(1000), "1,000"}, {Thousands(-1234567), "-1,234,567"},
		{Pct(0.1234), "12.3%"}, {Pct(1), "100.0%"},
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
