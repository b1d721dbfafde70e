package compare_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/compare"
)

// TestPlans: which runs the simulator check replays, under which policy,
// and in which direction.
func TestPlans(t *testing.T) {
	onIDs := func() []string {
		var ids []string
		for _, r := range planted() {
			if r.Tags["dtoc"] == "on" {
				ids = append(ids, r.ID)
			}
		}
		slices.Sort(ids)
		return ids
	}()
	offIDs := func() []string {
		var ids []string
		for _, r := range planted() {
			if r.Tags["dtoc"] == "off" {
				ids = append(ids, r.ID)
			}
		}
		slices.Sort(ids)
		return ids
	}()
	noMC := planted()
	for i := range noMC {
		noMC[i].ManageContext = false
	}
	compacting := planted()
	for i := range compacting {
		if compacting[i].Tags["dtoc"] == "off" {
			compacting[i].ManageContext, compacting[i].Compactions = false, 2
		}
	}
	for _, tc := range []struct {
		name     string
		runs     []compare.Run
		ref      string
		replay   string
		want     *compare.Plan
		wantNote string
	}{
		{"manage_context in the group: its runs without it", planted(), "", "",
			&compare.Plan{Group: "on", Reference: "off", Policy: "keep-all", Mechanism: "manage_context", Replayed: "on", Invert: true, RunIDs: onIDs}, ""},
		{"manage_context in the reference", planted(), "on", "",
			&compare.Plan{Group: "off", Reference: "on", Policy: "keep-all", Mechanism: "manage_context", Replayed: "on", RunIDs: onIDs}, ""},
		{"--replay: the reference under the policy", noMC, "", "mask(n=5)",
			&compare.Plan{Group: "on", Reference: "off", Policy: "mask(n=5)", Mechanism: "--replay", Replayed: "off", RunIDs: offIDs}, ""},
		{"nothing separates the groups", noMC, "", "", nil, "on vs off: no replayable context policy separates the groups"},
		{"mechanisms on both sides", compacting, "", "", nil, "differ by mechanisms on both sides (manage_context in on; compaction in off)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := compare.Compare(tc.runs, compare.Grouping{By: "tag:dtoc"}, &compare.Options{Reference: tc.ref})
			if err != nil {
				t.Fatal(err)
			}
			plans, notes := res.Plans(tc.replay)
			if tc.want == nil {
				if len(plans) != 0 || len(notes) != 1 || !strings.Contains(notes[0], tc.wantNote) {
					t.Errorf("plans %+v, notes %q; want the note %q", plans, notes, tc.wantNote)
				}
				return
			}
			if len(plans) != 1 {
				t.Fatalf("plans %+v, notes %q", plans, notes)
			}
			p := plans[0]
			slices.Sort(p.RunIDs)
			p.Reason = ""
			if p.Group != tc.want.Group || p.Reference != tc.want.Reference || p.Policy != tc.want.Policy || p.Mechanism != tc.want.Mechanism ||
				p.Replayed != tc.want.Replayed || p.Invert != tc.want.Invert || !slices.Equal(p.RunIDs, tc.want.RunIDs) {
				t.Errorf("plan %+v\nwant %+v", p, *tc.want)
			}
		})
	}
}

// TestPlansNotChecked: groups that are models (or harnesses) and groups
// that share no task get no automatic check, and say why; --replay forces
// one on unpaired groups, replaying every reference run.
func TestPlansNotChecked(t *testing.T) {
	var runs []compare.Run
	for i := range 3 {
		runs = append(runs,
			compare.Run{ID: fmt.Sprint("a", i), Task: fmt.Sprint("a", i), Model: "x", Tags: map[string]string{"c": "on"}, ManageContext: true},
			compare.Run{ID: fmt.Sprint("b", i), Task: fmt.Sprint("b", i), Model: "y", Tags: map[string]string{"c": "off"}})
	}
	for _, tc := range []struct {
		name, by, replay, note string
		plans                  int
	}{
		{"by model", compare.ByModel, "", "y vs x: the groups are models, and the simulator replays context policies, not models", 0},
		{"unpaired", "tag:c", "", "on vs off: no shared task: the observed difference mixes the tasks with the condition", 0},
		{"unpaired, forced", "tag:c", "mask", "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := compare.Compare(runs, compare.Grouping{By: tc.by}, nil)
			if err != nil {
				t.Fatal(err)
			}
			plans, notes := res.Plans(tc.replay)
			if len(plans) != tc.plans || tc.note != "" && (len(notes) != 1 || !strings.HasPrefix(notes[0], tc.note)) {
				t.Errorf("plans %+v notes %q", plans, notes)
			}
			if tc.plans == 1 && len(plans[0].RunIDs) != 3 {
				t.Errorf("forced plan replays %v, want the 3 reference runs", plans[0].RunIDs)
			}
		})
	}
}

// TestCheckAgreement: the planted on runs used 30 % fewer input tokens and
// 40 % less cost (observed, with their CIs). A replay that puts their
// keep-all prompts at as-logged / 0.7 and their keep-all cost at as-logged
// / 0.6 (each ± 5 % from run to run) predicts −30 % and −40 % and agrees;
// one where keep-all is as-logged × 1.05 (the runs would have cost about
// the same without DTOC: the agent's behaviour, not the hiding, made the
// difference) predicts −4.8 % and disagrees, and the check then names the
// observed change in steps.
func TestCheckAgreement(t *testing.T) {
	res, err := compare.Compare(planted(), compare.Grouping{By: "tag:dtoc"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	plans, notes := res.Plans("")
	for _, tc := range []struct {
		name     string
		factor   func(i int) float64 // keep-all / as-logged tokens of the i-th replayed run
		cost     func(i int) float64 // and cost
		verdict  string
		predicts float64
	}{
		{"replay right", func(i int) float64 { return (1 + 0.05*float64(i%3-1)) / 0.7 }, func(i int) float64 { return (1 + 0.05*float64(i%3-1)) / 0.6 }, compare.Agree, -0.30},
		{"behaviour changed", func(int) float64 { return 1.05 }, func(int) float64 { return 1.05 }, compare.Disagree, 1/1.05 - 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reps := map[string]compare.Replay{}
			for i, id := range plans[0].RunIDs {
				al, cost := 70000.0+float64(1000*(i%4)), 0.6
				pc := cost * tc.cost(i)
				reps[id] = compare.Replay{AsLogged: al, Policy: al * tc.factor(i), AsLoggedCost: &cost, PolicyCost: &pc}
			}
			res.SetCheck(plans, notes, reps)
			if len(res.Check) != 1 {
				t.Fatalf("checks %+v", res.Check)
			}
			c := res.Check[0]
			if c.Runs != 40 || c.Tokens.Verdict != tc.verdict || c.Cost.Verdict != tc.verdict || !near(c.Tokens.Predicted, tc.predicts, 0.02) {
				t.Errorf("check %+v", c)
			}
			if !near(c.Tokens.Observed, -0.30, 1e-9) || !near(c.Cost.Observed, -0.40, 1e-9) {
				t.Errorf("observed %+v %+v", c.Tokens, c.Cost)
			}
			mentionsSteps := strings.Contains(c.Sentence, "observed steps changed -20.0%")
			if mentionsSteps != (tc.verdict == compare.Disagree) {
				t.Errorf("sentence %q", c.Sentence)
			}
		})
	}
}
