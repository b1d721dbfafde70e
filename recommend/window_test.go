package recommend

import (
	"testing"

	"github.com/trajmine/trajmine/simulate"
)

// TestRecommendWindowWhatIf: 40 finished runs of 20 read_file calls
// (growing: own window 20,000; results of 1,000–2,499 tokens, so keep-all's
// prompt at call t ≥ 150 + 10 t + 1,000 t and every run passes 10,000
// tokens by call 10). At their own window the replay of what ran passes
// 20,000 around call 14, but the logs finished there, and at its own window
// a finished log is never lost under what ran nor saved: mask(n=3) is
// chosen for its tokens, saves nothing, no window what-if. At 10,000 tokens, below the window they ran at, what ran (no
// context management in these logs) dies in all 40, and mask(n=3) keeps
// every prompt under 150 + 19 × 10 + 3 × 2,499 + 16 placeholders of about
// 11 tokens ≈ 8,000: it carries all 40 to their logged end, is chosen for
// the runs it saves, and the held-out runs count them too.
func TestRecommendWindowWhatIf(t *testing.T) {
	fams := []Family{{Name: "f", Traces: growing("w", 40, 20, false, true)}}
	grid := []string{"keep-all", "mask(n=3)"}
	for _, tc := range []struct {
		name                     string
		window                   simulate.Window
		policy                   string
		trainSaved, heldOutSaved bool // all training / held-out runs saved by mask(n=3)
		dead, atWindow, carried  int
		whatIf                   bool
	}{
		{name: "own window", window: simulate.OwnWindow, policy: "mask(n=3,style=swe-agent,unit=observations)"},
		{name: "unbounded", window: simulate.Unbounded, policy: "mask(n=3,style=swe-agent,unit=observations)"},
		{name: "below it", window: simulate.Tokens(10_000), policy: "mask(n=3,style=swe-agent,unit=observations)", trainSaved: true, heldOutSaved: true, dead: 40, atWindow: 40, carried: 40, whatIf: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := Recommend(fams, Options{Grid: grid, Window: tc.window})
			if err != nil {
				t.Fatal(err)
			}
			r := rs[0]
			if r.Insufficient || r.Policy != tc.policy {
				t.Fatalf("policy %q (insufficient %v): %s; want %s", r.Policy, r.Insufficient, r.Why, tc.policy)
			}
			var mask Candidate
			for _, c := range r.Candidates {
				if c.Spec == tc.policy {
					mask = c
				}
			}
			if got := mask.Saved == r.Train && r.Train > 0; got != tc.trainSaved || !tc.trainSaved && mask.Saved != 0 {
				t.Errorf("training: %d of %d runs saved; want all %v", mask.Saved, r.Train, tc.trainSaved)
			}
			if got := r.SavedRuns == r.HeldOut && r.HeldOut > 0; got != tc.heldOutSaved || !tc.heldOutSaved && r.SavedRuns != 0 || r.LostRuns != 0 {
				t.Errorf("held out: %d of %d saved, %d lost; want all saved %v, none lost", r.SavedRuns, r.HeldOut, r.LostRuns, tc.heldOutSaved)
			}
			if (r.WhatIf != nil) != tc.whatIf {
				t.Fatalf("what-if %+v, want one: %v", r.WhatIf, tc.whatIf)
			}
			if w := r.WhatIf; w != nil {
				want := WindowWhatIf{Window: 10_000, Runs: 40, Dead: tc.dead, AtWindow: tc.atWindow, Policy: tc.policy, Carried: tc.carried}
				if *w != want {
					t.Errorf("what-if %+v, want %+v", *w, want)
				}
			}
		})
	}
}

// TestGridWindowAsGiven: the grid replays at the window it was given, as
// given (NewGrid → Grid.Replay → the engine): what ran's loss on two runs
// of 5 calls whose prompts grow to 4,736 tokens (growing: 150, 1,160,
// 2,261, 3,453 and 4,736, each + 10 output) at their own window of 20,000:
// one whose log ended on window length unfinished (lost at its own window
// or below by its log's word, not at an unbounded one or above it), and one
// that finished (lost only below its window where its prompts do not fit:
// at 3,000, call 3's 3,463).
func TestGridWindowAsGiven(t *testing.T) {
	died := growing("d", 1, 5, false, false)[0]
	died.WindowEnd = true
	finished := growing("f", 1, 5, false, true)[0]
	for _, tc := range []struct {
		window         simulate.Window
		died, finished simulate.Loss
	}{
		{simulate.OwnWindow, simulate.LossLogged, simulate.LossNone},
		{simulate.Unbounded, simulate.LossNone, simulate.LossNone},
		{simulate.Tokens(3_000), simulate.LossLogged, simulate.LossWindow},
		{simulate.Tokens(30_000), simulate.LossNone, simulate.LossNone},
	} {
		g, err := NewGrid([]string{"keep-all"}, tc.window)
		if err != nil {
			t.Fatal(err)
		}
		var rp simulate.Replayer
		d, f := g.Replay(&rp, died, nil).Cands[0], g.Replay(&rp, finished, nil).Cands[0] // as-logged is first
		if d.Loss != tc.died || f.Loss != tc.finished {
			t.Errorf("at %v: what ran loses the runs for %q and %q; want %q and %q", tc.window, d.Loss, f.Loss, tc.died, tc.finished)
		}
	}
}
