package recommend

import (
	"fmt"
	"math"
	"testing"
)

// fnv1a32 is FNV-1a, 32 bits, written out here (offset basis 2166136261,
// prime 16777619) so that the test's split does not come from the code under
// test's hash/fnv call.
func fnv1a32(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

// TestDecideChoosesOnTrainingOnly checks that the held-out runs measure the
// choice and never make it. The grid is keep-all, mask(n=5), mask(n=10); the
// outcomes are hand-made so that the training runs pick one candidate and
// the same runs plus the held-out ones would pick the other. Each case is a
// way held-out runs could leak into the choice: the effective ratio, the
// overflow losses (eligibility), the runs saved.
//
// Per run keep-all costs 1,000 tokens (Effective = KeepAll = 1000). With the
// 12 runs r0..r11 and HoldoutEvery 4, the held-out runs are those with
// FNV-1a(id) % 4 == 0 (computed by fnv1a32 above: 4 of the 12, which the
// test checks).
func TestDecideChoosesOnTrainingOnly(t *testing.T) {
	g, err := NewGrid([]string{"keep-all", "mask(n=5)", "mask(n=10)"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	held := map[string]bool{}
	for k := range 12 {
		id := fmt.Sprintf("r%d", k)
		ids = append(ids, id)
		held[id] = fnv1a32(id)%4 == 0
	}
	nHeld := 0
	for _, h := range held {
		if h {
			nHeld++
		}
	}
	if nHeld != 4 {
		t.Fatalf("fixture: %d of %d runs held out, want 4 (the comments' arithmetic)", nHeld, len(ids))
	}
	nTrain := len(ids) - nHeld
	ka := Outcome{Effective: 1000, KeepAll: 1000, Calls: 10}
	type pair struct{ m5, m10 Outcome }
	for _, tc := range []struct {
		name        string
		train, held pair
		// want: the training runs' choice and its figures
		want      int // index in the grid: 1 = mask(n=5)
		wantRatio float64 // Σ effective / Σ keep-all of the winner on the training runs
		wantSave  float64 // 1 − the winner's ratio on the held-out runs
		wantSaved int     // held-out runs the winner saves from overflow
	}{
		{
			// training: mask(n=5) 500/1000 = 0.5 beats mask(n=10) 600/1000 = 0.6.
			// held out: mask(n=5) 900, mask(n=10) 100. With them (8 train + 4
			// held out): mask(n=5) (8·500+4·900)/12000 = 0.633 against
			// mask(n=10) (8·600+4·100)/12000 = 0.433, so a leak picks
			// mask(n=10) (it would for any split with h ≥ t/8 held-out runs:
			// 0.5t+0.9h > 0.6t+0.1h ⇔ 0.8h > 0.1t).
			name:      "ratio",
			train:     pair{Outcome{Effective: 500, KeepAll: 1000, Calls: 10}, Outcome{Effective: 600, KeepAll: 1000, Calls: 10}},
			held:      pair{Outcome{Effective: 900, KeepAll: 1000, Calls: 10}, Outcome{Effective: 100, KeepAll: 1000, Calls: 10}},
			want:      1,
			wantRatio: 0.5,
			wantSave:  0.1, // 1 − 900/1000
		},
		{
			// training: mask(n=5) 0.5, no losses, beats mask(n=10) 0.6. Held
			// out: mask(n=5) overflows where keep-all does not (Lost), which
			// on the training runs would make it ineligible.
			name:      "lost",
			train:     pair{Outcome{Effective: 500, KeepAll: 1000, Calls: 10}, Outcome{Effective: 600, KeepAll: 1000, Calls: 10}},
			held:      pair{Outcome{Effective: 500, KeepAll: 1000, Calls: 10, Lost: true}, Outcome{Effective: 600, KeepAll: 1000, Calls: 10}},
			want:      1,
			wantRatio: 0.5,
			wantSave:  0.5, // 1 − 500/1000
		},
		{
			// training: mask(n=5) 0.5 beats mask(n=10) 0.6, neither saves a
			// run. Held out: mask(n=10) saves every run from overflow, and
			// more runs saved wins before the ratio.
			name:      "saved",
			train:     pair{Outcome{Effective: 500, KeepAll: 1000, Calls: 10}, Outcome{Effective: 600, KeepAll: 1000, Calls: 10}},
			held:      pair{Outcome{Effective: 500, KeepAll: 1000, Calls: 10}, Outcome{Effective: 600, KeepAll: 1000, Calls: 10, Saved: true}},
			want:      1,
			wantRatio: 0.5,
			wantSave:  0.5,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fam := FamilyOutcomes{Name: "f"}
			for _, id := range ids {
				p := tc.train
				if held[id] {
					p = tc.held
				}
				fam.Runs = append(fam.Runs, RunOutcome{RunID: id, Cands: []Outcome{ka, p.m5, p.m10}})
			}
			rs, err := Decide([]FamilyOutcomes{fam}, g, Options{Bootstrap: 50})
			if err != nil {
				t.Fatal(err)
			}
			r := rs[0]
			if r.Train != nTrain || r.HeldOut != nHeld {
				t.Fatalf("split %d/%d, want %d/%d", r.Train, r.HeldOut, nTrain, nHeld)
			}
			want := g.Specs()[tc.want]
			if r.Policy != want {
				t.Fatalf("policy %s, want %s (chosen on held-out runs too?): %s", r.Policy, want, r.Why)
			}
			win := r.Candidates[tc.want]
			if math.Abs(win.Ratio-tc.wantRatio) > 1e-9 || win.Lost != 0 || win.Saved != 0 {
				t.Errorf("training figures of %s: ratio %v lost %d saved %d, want %v 0 0", want, win.Ratio, win.Lost, win.Saved, tc.wantRatio)
			}
			if r.Saving == nil || math.Abs(*r.Saving-tc.wantSave) > 1e-9 || r.SavedRuns != tc.wantSaved {
				t.Errorf("held-out saving %v, saved runs %d; want %v, %d", r.Saving, r.SavedRuns, tc.wantSave, tc.wantSaved)
			}
		})
	}
}
