package simulate

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Window is the context window a replay is asked to run at: each run's own
// (OwnWindow, the zero value), none at all (Unbounded), or a fixed number of
// tokens for every run (Tokens). The same value goes from the --window flag
// (ParseWindow) through the analyses to the engine (Options.Window), which
// alone resolves it against a run (Resolve); no layer gives its bits
// another meaning.
//
// Its JSON is the number of tokens for a fixed window and the strings "own"
// and "unbounded" for the others; String is the flag's spelling.
type Window int64

const (
	// OwnWindow replays each run at its own window (the log's, else the
	// known-model table's; unbounded for a run whose window is unknown).
	// It is the zero value.
	OwnWindow Window = 0
	// Unbounded replays with no window: no call overflows.
	Unbounded Window = -1
)

// Tokens is the fixed window of n tokens for every run. n must be positive
// (a window of no tokens holds no call; OwnWindow and Unbounded name the
// other cases): Tokens panics otherwise, as a programming error; input from
// a user goes through ParseWindow.
func Tokens(n int64) Window {
	if n <= 0 {
		panic(fmt.Sprintf("simulate.Tokens(%d): a window holds a positive number of tokens", n))
	}
	return Window(n)
}

// Fixed is the window's number of tokens and true for a fixed window
// (Tokens); 0 and false for OwnWindow and Unbounded.
func (w Window) Fixed() (int64, bool) {
	if w > 0 {
		return int64(w), true
	}
	return 0, false
}

// Resolve is the window in tokens a replay of a run whose own window is own
// (0: unknown) runs at; 0 means none (no call overflows):
//
//	OwnWindow → own;  Unbounded → 0;  Tokens(n) → n
func (w Window) Resolve(own int64) int64 {
	switch {
	case w == OwnWindow:
		return max(own, 0)
	case w > 0:
		return int64(w)
	}
	return 0
}

// String is the window as ParseWindow reads it: "own", "unbounded", or the
// number of tokens in decimal.
func (w Window) String() string {
	switch {
	case w == OwnWindow:
		return "own"
	case w > 0:
		return strconv.FormatInt(int64(w), 10)
	}
	return "unbounded"
}

// Compare orders windows as the comparison lists them: OwnWindow first,
// then fixed windows from the smallest, then Unbounded (larger than any).
func (w Window) Compare(x Window) int {
	rank := func(v Window) (int, int64) {
		switch {
		case v == OwnWindow:
			return 0, 0
		case v > 0:
			return 1, int64(v)
		}
		return 2, 0
	}
	a, an := rank(w)
	b, bn := rank(x)
	if a != b {
		return a - b
	}
	switch {
	case an < bn:
		return -1
	case an > bn:
		return 1
	}
	return 0
}

// ParseWindow reads one window as the --window flags spell it:
//
//	own                    each run's own window (OwnWindow)
//	unbounded, none        no window (Unbounded)
//	200000, 200_000        a window of that many tokens
//	128k, 1m               thousands and millions of tokens (k = 1,000, m = 1,000,000:
//	                       a provider's "128k" window is 128,000 tokens)
//
// Case and surrounding spaces do not matter. Zero, a negative number, a
// fraction and anything else are an error that says what is accepted.
func ParseWindow(s string) (Window, error) {
	f := strings.ToLower(strings.TrimSpace(s))
	switch f {
	case "own":
		return OwnWindow, nil
	case "unbounded", "none":
		return Unbounded, nil
	case "":
		return 0, errors.New(`empty window: give a number of tokens (200000, 128k), own or unbounded`)
	}
	mult := int64(1)
	switch {
	case strings.HasSuffix(f, "k"):
		mult, f = 1_000, strings.TrimSuffix(f, "k")
	case strings.HasSuffix(f, "m"):
		mult, f = 1_000_000, strings.TrimSuffix(f, "m")
	}
	digits := strings.ReplaceAll(f, "_", "")
	if digits == "" || strings.HasPrefix(f, "_") || strings.HasSuffix(f, "_") || strings.Contains(f, "__") ||
		strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
		return 0, fmt.Errorf("window %q is not a number of tokens (200000, 128k), own or unbounded", strings.TrimSpace(s))
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("window %q is too large", strings.TrimSpace(s))
	}
	if n == 0 {
		return 0, fmt.Errorf("window %q holds no tokens: give a positive number, own (each run's own) or unbounded (no window)", strings.TrimSpace(s))
	}
	return Window(n * mult), nil
}

// ParseWindows reads a comma-separated list of windows (ParseWindow),
// returned in Compare order without repeats; an empty list is OwnWindow.
func ParseWindows(s string) ([]Window, error) {
	if strings.TrimSpace(s) == "" {
		return []Window{OwnWindow}, nil
	}
	var out []Window
	for _, f := range strings.Split(s, ",") {
		w, err := ParseWindow(f)
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	slices.SortFunc(out, Window.Compare)
	return slices.Compact(out), nil
}

// MarshalJSON is the number of tokens of a fixed window, else "own" or
// "unbounded".
func (w Window) MarshalJSON() ([]byte, error) {
	if n, ok := w.Fixed(); ok {
		return strconv.AppendInt(nil, n, 10), nil
	}
	return json.Marshal(w.String())
}

// UnmarshalJSON reads what MarshalJSON writes: a positive number of
// tokens, or a string ParseWindow reads.
func (w *Window) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := ParseWindow(s)
		if err != nil {
			return err
		}
		*w = v
		return nil
	}
	var n int64
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("window: %s is neither a number of tokens nor a string", b)
	}
	if n <= 0 {
		return fmt.Errorf("window: %d tokens: a fixed window is positive (\"own\" and \"unbounded\" name the others)", n)
	}
	*w = Window(n)
	return nil
}
