package simulate

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestParseWindow: every spelling the --window flags accept, and bad input
// with an error that says what is wrong.
func TestParseWindow(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Window
		err  string // a substring of the error; "" none
	}{
		{in: "own", want: OwnWindow},
		{in: " OWN ", want: OwnWindow},
		{in: "unbounded", want: Unbounded},
		{in: "none", want: Unbounded},
		{in: "Unbounded", want: Unbounded},
		{in: "200000", want: 200_000},
		{in: "200_000", want: 200_000},
		{in: "32k", want: 32_000},
		{in: "32K", want: 32_000},
		{in: "128_k", err: "not a number of tokens"},
		{in: "1m", want: 1_000_000},
		{in: "2M", want: 2_000_000},
		{in: "1", want: 1},
		{in: "9223372036854775807", want: 9223372036854775807},
		{in: "", err: "empty window"},
		{in: "  ", err: "empty window"},
		{in: "0", err: `window "0" holds no tokens`},
		{in: "0k", err: `window "0k" holds no tokens`},
		{in: "-1", err: `window "-1" is not a number of tokens (200000, 128k), own or unbounded`},
		{in: "1.5m", err: "not a number of tokens"},
		{in: "32kb", err: "not a number of tokens"},
		{in: "k", err: "not a number of tokens"},
		{in: "_32", err: "not a number of tokens"},
		{in: "32__000", err: "not a number of tokens"},
		{in: "+32", err: "not a number of tokens"},
		{in: "twelve", err: `window "twelve" is not a number of tokens`},
		{in: "9223372036854775808", err: "too large"},
		{in: "9223372036854776k", err: "too large"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseWindow(tc.in)
			switch {
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("ParseWindow(%q) = %v, %v; want error containing %q", tc.in, got, err, tc.err)
			case tc.err == "" && err != nil:
				t.Fatalf("ParseWindow(%q): %v", tc.in, err)
			case tc.err == "" && got != tc.want:
				t.Fatalf("ParseWindow(%q) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

// TestParseWindows: a comma list in Compare order (own, sizes up,
// unbounded), without repeats; empty is each run's own; one bad item fails
// the list.
func TestParseWindows(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []Window
		err  bool
	}{
		{in: "", want: []Window{OwnWindow}},
		{in: "unbounded,131072, own,20480,20_480", want: []Window{OwnWindow, 20_480, 131_072, Unbounded}},
		{in: "none,32k,own", want: []Window{OwnWindow, 32_000, Unbounded}},
		{in: "32k,,64k", err: true},
		{in: "32k,0", err: true},
	} {
		got, err := ParseWindows(tc.in)
		if (err != nil) != tc.err || !slices.Equal(got, tc.want) {
			t.Errorf("ParseWindows(%q) = %v, %v; want %v (error %v)", tc.in, got, err, tc.want, tc.err)
		}
	}
}

// TestWindowMeaning: what each window resolves to for a run, how it is
// spelled and ordered, and its JSON, which reads back to the same window.
func TestWindowMeaning(t *testing.T) {
	for _, tc := range []struct {
		w                  Window
		ownKnown, ownUnkn  int64 // Resolve(200000), Resolve(0)
		str, json          string
		fixed              int64
		isFixed            bool
		lessThanUnbounded  bool
		greaterThanOwnWind bool
	}{
		{w: OwnWindow, ownKnown: 200_000, ownUnkn: 0, str: "own", json: `"own"`, lessThanUnbounded: true},
		{w: Unbounded, ownKnown: 0, ownUnkn: 0, str: "unbounded", json: `"unbounded"`, greaterThanOwnWind: true},
		{w: Tokens(32_000), ownKnown: 32_000, ownUnkn: 32_000, str: "32000", json: `32000`, fixed: 32_000, isFixed: true, lessThanUnbounded: true, greaterThanOwnWind: true},
		{w: Tokens(1_000_000), ownKnown: 1_000_000, ownUnkn: 1_000_000, str: "1000000", json: `1000000`, fixed: 1_000_000, isFixed: true, lessThanUnbounded: true, greaterThanOwnWind: true},
	} {
		t.Run(tc.str, func(t *testing.T) {
			if a, b := tc.w.Resolve(200_000), tc.w.Resolve(0); a != tc.ownKnown || b != tc.ownUnkn {
				t.Errorf("Resolve(200000), Resolve(0) = %d, %d; want %d, %d", a, b, tc.ownKnown, tc.ownUnkn)
			}
			if n, ok := tc.w.Fixed(); n != tc.fixed || ok != tc.isFixed {
				t.Errorf("Fixed() = %d, %v; want %d, %v", n, ok, tc.fixed, tc.isFixed)
			}
			if s := tc.w.String(); s != tc.str {
				t.Errorf("String() = %q, want %q", s, tc.str)
			}
			if back, err := ParseWindow(tc.w.String()); err != nil || back != tc.w {
				t.Errorf("ParseWindow(String()) = %v, %v", back, err)
			}
			b, err := json.Marshal(tc.w)
			if err != nil || string(b) != tc.json {
				t.Errorf("json = %s, %v; want %s", b, err, tc.json)
			}
			var back Window = 7
			if err := json.Unmarshal(b, &back); err != nil || back != tc.w {
				t.Errorf("json round trip = %v, %v", back, err)
			}
			if got := tc.w.Compare(Unbounded) < 0; got != tc.lessThanUnbounded {
				t.Errorf("Compare(Unbounded) < 0 = %v", got)
			}
			if got := tc.w.Compare(OwnWindow) > 0; got != tc.greaterThanOwnWind {
				t.Errorf("Compare(OwnWindow) > 0 = %v", got)
			}
			if tc.w.Compare(tc.w) != 0 {
				t.Errorf("Compare(itself) != 0")
			}
		})
	}
	if Tokens(20_000).Compare(Tokens(30_000)) >= 0 || Tokens(30_000).Compare(Tokens(20_000)) <= 0 {
		t.Errorf("fixed windows do not order by size")
	}
	var z Options
	if z.Window != OwnWindow {
		t.Errorf("the zero Options replay at %v, want each run's own", z.Window)
	}
	for _, bad := range []string{`0`, `-1`, `"0"`, `"big"`, `true`, `1.5`} {
		var w Window
		if err := json.Unmarshal([]byte(bad), &w); err == nil {
			t.Errorf("json %s read as %v, want an error", bad, w)
		}
	}
}

// TestTokensPanics: a fixed window of no tokens is a programming error.
func TestTokensPanics(t *testing.T) {
	for _, n := range []int64{0, -1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Tokens(%d) did not panic", n)
				}
			}()
			Tokens(n)
		}()
	}
}

// TestReplayWindowAsGiven: the engine records the window it was given
// unchanged and resolves it alone: a run of 4 calls whose prompts are
// 10,000, 11,000, 13,000 and 16,000 tokens (windowRun: 10,000 + the
// results before), at its own window of 14,000 (overflows at call 3:
// 16,000 > 14,000), unbounded, and fixed windows of 12,000 (call 2) and
// 50,000 (fits).
func TestReplayWindowAsGiven(t *testing.T) {
	tr := windowRun("w", 14_000, 1_000, 2_000, 3_000, 4_000)
	for _, tc := range []struct {
		w        Window
		tokens   int64
		overflow int
	}{
		{OwnWindow, 14_000, 3},
		{Unbounded, 0, -1},
		{Tokens(12_000), 12_000, 2},
		{Tokens(50_000), 50_000, -1},
	} {
		var rp Replayer
		r := rp.Replay(tr, mustParse(t, "keep-all"), Options{Window: tc.w})
		if r.Window != tc.w || r.WindowTokens != tc.tokens || r.OverflowCall != tc.overflow {
			t.Errorf("at %v: Window %v, WindowTokens %d, overflow at %d; want %v, %d, %d", tc.w, r.Window, r.WindowTokens, r.OverflowCall, tc.w, tc.tokens, tc.overflow)
		}
	}
}

// FuzzParseWindow: ParseWindow never panics; what it reads is spelled back
// by String into the same window, resolves to a non-negative number of
// tokens and survives a JSON round trip.
func FuzzParseWindow(f *testing.F) {
	for _, s := range []string{"own", "unbounded", "none", "32k", "1m", "200_000", "0", "-1", "9223372036854775807", "1.5k"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := ParseWindow(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("ParseWindow(%q): empty error", s)
			}
			return
		}
		if back, err := ParseWindow(w.String()); err != nil || back != w {
			t.Fatalf("ParseWindow(%q) = %v; its String %q reads back as %v, %v", s, w, w.String(), back, err)
		}
		if w.Resolve(1000) < 0 {
			t.Fatalf("%v resolves to %d tokens", w, w.Resolve(1000))
		}
		b, err := json.Marshal(w)
		if err != nil {
			t.Fatal(err)
		}
		var back Window
		if err := json.Unmarshal(b, &back); err != nil || back != w {
			t.Fatalf("%v: JSON %s reads back as %v, %v", w, b, back, err)
		}
	})
}
