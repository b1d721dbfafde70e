package cmd

import (
	"errors"

	"github.com/trajmine/trajmine/simulate"
)

// windowValue is a --window flag holding one simulate.Window as
// simulate.ParseWindow reads it (own, unbounded or none, 200000, 128k):
// the command's options hold the value the analyses and the engine take,
// unchanged. Commands whose figures are shares of a window (diagnose,
// report) refuse unbounded.
type windowValue struct {
	w         *simulate.Window
	unbounded bool // "unbounded" is accepted
}

// windowVar is the --window flag of a command that holds one window in w.
func windowVar(w *simulate.Window, unbounded bool) *windowValue {
	return &windowValue{w: w, unbounded: unbounded}
}

func (v *windowValue) String() string { return v.w.String() }
func (v *windowValue) Type() string   { return "window" }

// Set reads s (simulate.ParseWindow); pflag names the flag in the error.
func (v *windowValue) Set(s string) error {
	w, err := simulate.ParseWindow(s)
	if err != nil {
		return err
	}
	if w == simulate.Unbounded && !v.unbounded {
		return errors.New("no unbounded window here: occupancy is a share of a window (give a number of tokens, or own)")
	}
	*v.w = w
	return nil
}

// windowTokens is w's number of tokens when it is a fixed window, else 0.
func windowTokens(w simulate.Window) int64 {
	n, _ := w.Fixed()
	return n
}
