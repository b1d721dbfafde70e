package recommend

import (
	"fmt"
	"strings"
	"testing"
)

// TestDecideRefusesTrainedOnHeldOut checks Options.TrainedOn: a held-out
// run (by the split TestDecideChoosesOnTrainingOnly computes by hand: of
// r0..r15 at every 4, r1, r5, r9, r10 and r14 are held out) that a model
// was trained on is an error naming it and the split to retrain with;
// training runs in the set are fine.
func TestDecideRefusesTrainedOnHeldOut(t *testing.T) {
	g, err := NewGrid([]string{"keep-all"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	o := Outcome{Effective: 1000, Baseline: 1000, KeepAll: 1000, Calls: 10}
	fam := FamilyOutcomes{Name: "f"}
	for k := range 16 {
		fam.Runs = append(fam.Runs, RunOutcome{RunID: fmt.Sprintf("r%d", k), Cands: []Outcome{o, o}})
	}
	set := func(ids ...string) map[string]bool {
		m := map[string]bool{}
		for _, id := range ids {
			m[id] = true
		}
		return m
	}
	for _, tc := range []struct {
		name    string
		trained map[string]bool
		every   uint32
		want    []string // substrings of the error; none: no error
	}{
		{"no model", nil, 0, nil},
		{"training runs only", set("r0", "r2", "r3", "r15", "elsewhere"), 0, nil},
		{"one held-out run", set("r0", "r5"), 0, []string{"1 held-out run is (r5)", "--holdout-every 4", "mod 4 = 0"}},
		{"many, sorted, three named", set("r14", "r9", "r1", "r5", "r10"), 0, []string{"5 held-out runs are (r1, r10, r14, …)"}},
		// every 1 holds out every run: r0 is then held out
		{"the split's every is used", set("r0"), 1, []string{"1 held-out run is (r0)", "--holdout-every 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Decide([]FamilyOutcomes{fam}, g, Options{TrainedOn: tc.trained, HoldoutEvery: tc.every, MinHeldOut: 1, MinTrain: 1})
			if len(tc.want) == 0 {
				if err != nil || len(res) != 1 {
					t.Fatalf("Decide: %v (%d results), want one result", err, len(res))
				}
				return
			}
			if err == nil {
				t.Fatalf("Decide: no error, want one with %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
