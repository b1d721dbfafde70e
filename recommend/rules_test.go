package recommend

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// sixteenRuns returns r0..r15 and which of them are held out at
// HoldoutEvery 4 (FNV-1a(id) % 4 == 0 by fnv1a32, written out in
// holdout_test.go): r1, r5, r9, r10 and r14, 5 held out and 11 training
// runs, just the evidence rules' minimum (≥ 5 held out, ≥ 10 training).
func sixteenRuns(t *testing.T) (ids []string, held map[string]bool) {
	t.Helper()
	held = map[string]bool{}
	var got []string
	for k := range 16 {
		id := fmt.Sprintf("r%d", k)
		ids = append(ids, id)
		if fnv1a32(id)%4 == 0 {
			held[id] = true
			got = append(got, id)
		}
	}
	if want := "r1 r5 r9 r10 r14"; strings.Join(got, " ") != want {
		t.Fatalf("fixture: held-out runs %v, want %s (the comments' arithmetic)", got, want)
	}
	return ids, held
}

// TestDecideHeldOutVeto checks the held-out veto (package doc, step 4): the
// training choice is recommended only when the upper end of its held-out
// ratio's 95 % CI is below 1 (its saving's lower end above zero). No run is
// priced, so the ratio is in tokens.
//
// The grid is as-logged, mask(n=5). On each of the 11 training runs what
// ran costs 1,000 tokens and mask(n=5) 500, so mask(n=5) is the training
// choice (ratio 0.5). On the 5 held-out runs (r1, r5, r9, r10, r14, in that
// order in held) what ran costs 1,000 each and mask(n=5) the case's held
// figures. The CI is a percentile bootstrap over the 5 held-out runs
// (stats.SumRatio, 1,000 resamples, seed 1): a resample draws 5 runs with
// replacement, and when one run differs from the other four (r1 here), the
// resampled saving depends only on k, the times r1 is drawn, k ~
// Binomial(5, 1/5):
//
//	P(k = 0) = 0.8^5 = 0.328
//	P(k ≥ 3) = 10·0.2³·0.8² + 5·0.2⁴·0.8 + 0.2⁵ = 0.0512 + 0.0064 + 0.0003 = 0.058
//	P(k ≥ 4) = 0.0067
//
// so the 2.5th percentile is the k = 0 saving (0.328 ≫ 0.025) and the 97.5th
// the k = 3 saving (0.0067 < 0.025 < 0.058), far enough from the block edges
// that 1,000 resamples land there (the k ≥ 3 count would have to fall
// 4.5 standard deviations below its mean of 58 to move it).
//
// "straddles zero" fails when the veto reads the CI's lower end instead of
// its upper end; "lower end zero" fails when "below 1" becomes "at or
// below 1".
func TestDecideHeldOutVeto(t *testing.T) {
	ids, held := sixteenRuns(t)
	g, err := NewGrid([]string{"mask(n=5)"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	base := Outcome{Effective: 1000, Baseline: 1000, KeepAll: 1000, Calls: 10}
	train := Outcome{Effective: 500, Baseline: 1000, KeepAll: 1000, Calls: 10}
	for _, tc := range []struct {
		name string
		held [5]int64 // mask(n=5)'s tokens on r1, r5, r9, r10, r14 (what ran: 1,000 each)
		// want: the held-out saving 1 − Σ mask / Σ what ran, its CI, and the verdict
		save, lo, hi float64
		vetoed       bool
	}{
		{
			// Σ = 100 + 4·1100 = 4500: saving 1 − 4500/5000 = 0.1. A resample
			// with r1 k times: 1 − (100k + 1100(5 − k))/5000 = 0.2k − 0.1:
			// k = 0 → −0.1, k = 3 → 0.5. The CI [−10 %, 50 %] includes zero
			// (its upper end does not): what ran is kept.
			name:   "straddles zero",
			held:   [5]int64{100, 1100, 1100, 1100, 1100},
			save:   0.1,
			lo:     -0.1,
			hi:     0.5,
			vetoed: true,
		},
		{
			// Σ = 500 + 4·1000 = 4500: saving 0.1; with r1 k times
			// 1 − (500k + 1000(5 − k))/5000 = 0.1k: k = 0 → 0, k = 3 → 0.3.
			// The lower end is zero, not above it: what ran is kept.
			name:   "lower end zero",
			held:   [5]int64{500, 1000, 1000, 1000, 1000},
			save:   0.1,
			lo:     0,
			hi:     0.3,
			vetoed: true,
		},
		{
			// Σ = 100 + 4·900 = 3700: saving 1 − 3700/5000 = 0.26; with r1 k
			// times 1 − (100k + 900(5 − k))/5000 = 0.1 + 0.16k: k = 0 → 0.1,
			// k = 3 → 0.58. The CI [10 %, 58 %] is above zero: recommended.
			name: "above zero",
			held: [5]int64{100, 900, 900, 900, 900},
			save: 0.26,
			lo:   0.1,
			hi:   0.58,
		},
		{
			// every held-out run costs 1,100: saving −0.1 in every resample
			name:   "below zero",
			held:   [5]int64{1100, 1100, 1100, 1100, 1100},
			save:   -0.1,
			lo:     -0.1,
			hi:     -0.1,
			vetoed: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fam := FamilyOutcomes{Name: "f"}
			h := 0
			for _, id := range ids {
				m := train
				if held[id] {
					m = Outcome{Effective: tc.held[h], Baseline: 1000, KeepAll: 1000, Calls: 10}
					h++
				}
				fam.Runs = append(fam.Runs, RunOutcome{RunID: id, Harness: "swe-agent", Cands: []Outcome{base, m}})
			}
			rs, err := Decide([]FamilyOutcomes{fam}, g, Options{})
			if err != nil {
				t.Fatal(err)
			}
			r := rs[0]
			if r.Insufficient || r.Best != "mask(n=5,style=swe-agent,unit=observations)" {
				t.Fatalf("training choice %q (insufficient %v), want mask(n=5): %s", r.Best, r.Insufficient, r.Why)
			}
			if r.Saving == nil || r.SavingLo == nil || r.SavingHi == nil {
				t.Fatalf("no held-out figures: %s", r.Why)
			}
			got := [3]float64{*r.Saving, *r.SavingLo, *r.SavingHi}
			want := [3]float64{tc.save, tc.lo, tc.hi}
			for i := range got {
				if math.Abs(got[i]-want[i]) > 1e-9 {
					t.Errorf("held-out saving [point, lo, hi] = %v, want %v", got, want)
					break
				}
			}
			wantPolicy := r.Best
			if tc.vetoed {
				wantPolicy = "as-logged"
			}
			if r.Policy != wantPolicy {
				t.Errorf("policy %s, want %s: %s", r.Policy, wantPolicy, r.Why)
			}
			if veto := "not recommended: held out, tokens × "; strings.Contains(r.Why, veto) != tc.vetoed || tc.vetoed && !strings.Contains(r.Reason, "not below what ran") {
				t.Errorf("why %q: says %q = %v, want %v", r.Why, veto, !tc.vetoed, tc.vetoed)
			}
		})
	}
}

// TestDecideTieBreak checks the documented order among eligible candidates
// (package doc, step 3; Choose, step 4): the lowest ratio in the currency
// (tokens here: no run is priced) wins, then the most runs saved, then the
// earlier in the grid.
//
// Every one of the 16 runs (training and held out alike, so the held-out
// saving is the training one with a zero-width CI above zero and never
// vetoes) costs 1,000 tokens under what ran; each candidate costs the
// case's tokens on every run, and saves every run from overflow where the
// case says so (all 11 training runs then count as saved). The ratio of a
// candidate costing c is c/1000.
func TestDecideTieBreak(t *testing.T) {
	ids, _ := sixteenRuns(t)
	type cand struct {
		tokens int64
		saved  bool
	}
	for _, tc := range []struct {
		name  string
		grid  []string
		cands []cand // in grid order
		want  string // the training choice (and the recommendation)
	}{
		{
			// 0.6 = 0.6 = 0.6, none saves a run: the first in the grid
			name:  "all equal: first in the grid",
			grid:  []string{"mask(n=5)", "mask(n=10)", "mask(n=20)"},
			cands: []cand{{600, false}, {600, false}, {600, false}},
			want:  "mask(n=5,style=swe-agent,unit=observations)",
		},
		{
			// the same outcomes, the grid reversed: grid order, not the name
			name:  "all equal: grid order, not the spec",
			grid:  []string{"mask(n=20)", "mask(n=10)", "mask(n=5)"},
			cands: []cand{{600, false}, {600, false}, {600, false}},
			want:  "mask(n=20,style=swe-agent,unit=observations)",
		},
		{
			// 0.7, 0.6, 0.6: the lower ratio, then the earlier of the two
			name:  "lowest ratio, then first",
			grid:  []string{"mask(n=5)", "mask(n=10)", "mask(n=20)"},
			cands: []cand{{700, false}, {600, false}, {600, false}},
			want:  "mask(n=10,style=swe-agent,unit=observations)",
		},
		{
			// 0.5 saving none, 0.9 saving 11 runs, 0.6 saving none: the
			// ratio first (issue 27: the objective; runs saved beside it)
			name:  "a lower ratio beats more runs saved",
			grid:  []string{"mask(n=5)", "mask(n=10)", "mask(n=20)"},
			cands: []cand{{500, false}, {900, true}, {600, false}},
			want:  "mask(n=5,style=swe-agent,unit=observations)",
		},
		{
			// 0.6 each; mask(n=20) alone saves the 11 training runs
			name:  "equal ratio: more runs saved",
			grid:  []string{"mask(n=5)", "mask(n=10)", "mask(n=20)"},
			cands: []cand{{600, false}, {600, false}, {600, true}},
			want:  "mask(n=20,style=swe-agent,unit=observations)",
		},
		{
			// 11 runs saved each: the lower ratio, 0.6 against 0.8 and 0.7
			name:  "equal runs saved: lowest ratio",
			grid:  []string{"mask(n=5)", "mask(n=10)", "mask(n=20)"},
			cands: []cand{{800, true}, {700, true}, {600, true}},
			want:  "mask(n=20,style=swe-agent,unit=observations)",
		},
		{
			// 0.6 each, 11 runs saved by the last two: the first of them
			name:  "equal ratio and runs saved: first in the grid",
			grid:  []string{"mask(n=5)", "mask(n=10)", "mask(n=20)"},
			cands: []cand{{600, false}, {600, true}, {600, true}},
			want:  "mask(n=10,style=swe-agent,unit=observations)",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := NewGrid(tc.grid, 0)
			if err != nil {
				t.Fatal(err)
			}
			base := Outcome{Effective: 1000, Baseline: 1000, KeepAll: 1000, Calls: 10}
			fam := FamilyOutcomes{Name: "f"}
			for _, id := range ids {
				outs := []Outcome{base}
				for _, c := range tc.cands {
					outs = append(outs, Outcome{Effective: c.tokens, Baseline: 1000, KeepAll: 1000, Calls: 10, Saved: c.saved})
				}
				fam.Runs = append(fam.Runs, RunOutcome{RunID: id, Harness: "swe-agent", Cands: outs})
			}
			rs, err := Decide([]FamilyOutcomes{fam}, g, Options{Bootstrap: 50})
			if err != nil {
				t.Fatal(err)
			}
			r := rs[0]
			if r.Best != tc.want || r.Policy != tc.want {
				t.Errorf("training choice %s, policy %s; want %s: %s", r.Best, r.Policy, tc.want, r.Why)
			}
			for _, c := range r.Candidates[1:] {
				if !c.Eligible {
					t.Errorf("%s excluded by %q (%s): every candidate should be eligible", c.Spec, c.Rule, c.Why)
				}
			}
		})
	}
}
