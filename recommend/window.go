package recommend

import "github.com/trajmine/trajmine/simulate"

// WindowWhatIf is one family's window what-if: at a replay Window below the
// windows its runs ran at, how many of them die under what ran, and how
// many of those the training choice carries to their logged end (what the
// agent would have done after it is not in the data), over all the
// family's runs, training and held out.
type WindowWhatIf struct {
	Window int64 `json:"window_tokens"`
	Runs   int   `json:"runs"`
	// Dead: runs lost under what ran at Window (Outcome.Loss set); AtWindow
	// of them only because Window is below the window they ran at
	// (simulate.LossWindow: their logged prompts exceed it)
	Dead     int `json:"as_logged_overflow"`
	AtWindow int `json:"as_logged_overflow_at_window"`
	// Policy is the training choice (Result.Best; "" when there is none or
	// it is what ran), Carried the dead runs it saves; Dead − Carried still
	// die under it.
	Policy  string `json:"policy,omitempty"`
	Carried int    `json:"carried"`
}

// AddWhatIf sets the WhatIf of each result of rs (Decide's, one per family
// of fams, in the same order) when g replays at an explicit window and some
// run of the family dies there because the window is below the one it ran
// at; it leaves the others nil.
func AddWhatIf(rs []Result, fams []FamilyOutcomes, g *Grid) {
	n, ok := g.window.Fixed()
	if !ok {
		return
	}
	specs := g.Specs()
	for i := range rs {
		if i >= len(fams) || fams[i].Name != rs[i].Family {
			return // not Decide's results for fams
		}
		w := WindowWhatIf{Window: n, Runs: len(fams[i].Runs)}
		choice := -1
		if b := rs[i].Best; b != "" && b != simulate.AsLoggedName {
			for ci, s := range specs {
				if s == b {
					choice, w.Policy = ci, b
				}
			}
		}
		for _, r := range fams[i].Runs {
			if len(r.Cands) == 0 || r.Cands[0].Loss == simulate.LossNone {
				continue
			}
			w.Dead++
			if r.Cands[0].Loss == simulate.LossWindow {
				w.AtWindow++
			}
			if choice >= 0 && choice < len(r.Cands) && r.Cands[choice].Saved {
				w.Carried++
			}
		}
		if w.AtWindow > 0 {
			rs[i].WhatIf = &w
		}
	}
}
