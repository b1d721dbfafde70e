package compare_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/trajmine/trajmine/compare"
	"github.com/trajmine/trajmine/internal/testutil"
)

func ptrB(b bool) *bool           { return &b }
func ptrF(f float64) *float64     { return &f }
func at(min int) *time.Time       { t := time.Date(2026, 1, 2, 10, min, 0, 0, time.UTC); return &t }
func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// planted is the two-group dataset with known truth: 40 tasks t00…t39 run
// once by model m under "off" and once under "on".
//
//   - off solves t00…t15 (16/40 = 40 %); on solves t00…t27 (28/40 = 70 %):
//     12 discordant pairs, all for on: McNemar p = 2/2¹² = 0.000488.
//   - off costs 1 + 0.25·(i mod 5) dollars; on costs 0.6 × that × (1 ± 0.2),
//   - for even i, − for odd: over every 10 tasks Σ off·(±1) = 0, so
//     Σ on / Σ off = 0.6 exactly (−40 %) while the runs vary.
//   - input tokens: off 100,000 + 10,000·(i mod 5), on 0.7 × that ×
//     (1 ± 0.1): Σ on / Σ off = 0.7 (−30 %); steps 50 and 40 (−20 %);
//     output 5,000 on both (no change); cached 60 % of input on both.
//   - cost per solved task: off Σcost/16, on 0.6·Σcost/28: ratio
//     0.6·16/28 = 0.342857 (−65.7 %).
func planted() []compare.Run {
	var runs []compare.Run
	for i := range 40 {
		task := fmt.Sprintf("t%02d", i)
		s := 1.0
		if i%2 == 1 {
			s = -1
		}
		offCost := 1 + 0.25*float64(i%5)
		offIn := 100000 + 10000*float64(i%5)
		onIn := 0.7 * offIn * (1 + 0.1*s)
		for _, g := range []struct {
			cond   string
			solved bool
			cost   float64
			in     float64
			steps  int64
			dur    float64
		}{
			{"off", i < 16, offCost, offIn, 50, 600},
			{"on", i < 28, 0.6 * offCost * (1 + 0.2*s), onIn, 40, 500},
		} {
			runs = append(runs, compare.Run{ID: g.cond + "-" + task, Task: task, Model: "m", Harness: "h", Path: "runs/" + g.cond + "/" + task + ".jsonl",
				Tags: map[string]string{"dtoc": g.cond}, ManageContext: g.cond == "on", Resolved: ptrB(g.solved), Input: int64(math.Round(g.in)), Output: 5000,
				Cached: int64(math.Round(0.6 * g.in)), Steps: g.steps, Duration: ptrF(g.dur), Cost: ptrF(g.cost), Started: at(i)})
		}
	}
	return runs
}

// TestPlantedEffect: compare recovers the planted effect, each interval
// covering the truth, and concludes where the evidence suffices.
func TestPlantedEffect(t *testing.T) {
	for _, by := range []string{"tag:dtoc", compare.ByManageContext} {
		t.Run(by, func(t *testing.T) {
			res, err := compare.Compare(planted(), compare.Grouping{By: by}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Reference != "off" || len(res.Comparisons) != 1 || res.Comparisons[0].Group != "on" {
				t.Fatalf("reference %q, comparisons %+v", res.Reference, res.Comparisons)
			}
			rows := res.Comparisons[0].Rows
			if len(rows) != 1 || rows[0].Model != "m" || rows[0].Paired != 40 || rows[0].Unpaired {
				t.Fatalf("rows %+v", rows)
			}
			r := rows[0]
			s := r.Solve
			if s.N != 40 || s.Group != 28 || s.Ref != 16 || s.B != 12 || s.C != 0 || !near(s.Diff, 0.30, 1e-12) ||
				!near(s.P, 2.0/4096, 1e-12) || s.Verdict != compare.Higher || s.Lo > 0.30 || s.Hi < 0.30 || s.Lo <= 0 {
				t.Errorf("solve %+v", s)
			}
			for _, tc := range []struct {
				name    string
				change  float64
				verdict string
			}{
				{"input tokens", -0.30, compare.Lower},
				{"output tokens", 0, compare.NoDifference},
				{"cached tokens", -0.30, compare.Lower},
				{"steps", -0.20, compare.Lower},
				{"duration", -1.0 / 6, compare.Lower},
				{"cost", -0.40, compare.Lower},
				{compare.PerSolvedName, 0.6*16/28 - 1, compare.Lower},
			} {
				m := r.Metric(tc.name)
				if m.N != 40 || !near(m.Change, tc.change, 1e-9) || m.Lo > tc.change+1e-12 || m.Hi < tc.change-1e-12 || m.Verdict != tc.verdict {
					t.Errorf("%s: %+v, want change %v (%s)", tc.name, m, tc.change, tc.verdict)
				}
			}
			// the cost interval is not a point: the runs vary
			if c := r.Metric("cost"); c.Hi-c.Lo < 0.01 {
				t.Errorf("cost interval %v…%v is a point", c.Lo, c.Hi)
			}
			// Σ off cost = 8 × (1 + 1.25 + 1.5 + 1.75 + 2) = 60
			if pc := r.Metric(compare.PerSolvedName); !near(pc.Ref, 60/16.0, 1e-9) || !near(pc.Group, 0.6*60/28, 1e-9) {
				t.Errorf("cost per solved task %v vs %v, want 60/16 and 36/28", pc.Group, pc.Ref)
			}
		})
	}
}

// TestNotEnoughToConclude: 6 paired tasks with 3 discordant pairs give no
// conclusion on the solve rate and "too few" for every figure; the rule's
// thresholds are what decide (lowering them changes the verdicts).
func TestNotEnoughToConclude(t *testing.T) {
	// on solves a, b, c, d; off solves a, e: b, c, d only on (3), e only off (1)
	solvedOn := map[string]bool{"a": true, "b": true, "c": true, "d": true}
	solvedOff := map[string]bool{"a": true, "e": true}
	var runs []compare.Run
	for i, task := range []string{"a", "b", "c", "d", "e", "f"} {
		runs = append(runs,
			compare.Run{ID: "on-" + task, Task: task, Model: "m", Tags: map[string]string{"c": "on"}, Resolved: ptrB(solvedOn[task]), Input: 700 + int64(i), Steps: 7, Cost: ptrF(0.5)},
			compare.Run{ID: "off-" + task, Task: task, Model: "m", Tags: map[string]string{"c": "off"}, Resolved: ptrB(solvedOff[task]), Input: 1000, Steps: 10, Cost: ptrF(1)})
	}
	for _, tc := range []struct {
		name          string
		o             *compare.Options
		solve, tokens string
	}{
		{"defaults: 4 discordant < 6, 6 pairs < 10", nil, compare.NotEnough, compare.TooFew},
		{"min discordant 4 lets McNemar speak: p = 2·(1+4)/16 = 0.625", &compare.Options{MinDiscordant: 4}, compare.NoDifference, compare.TooFew},
		{"min pairs 6 lets the intervals speak", &compare.Options{MinPairs: 6}, compare.NotEnough, compare.Lower},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := compare.Compare(runs, compare.Grouping{By: "tag:c"}, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			r := res.Comparisons[0].Rows[0]
			if r.Solve.B != 3 || r.Solve.C != 1 || !near(r.Solve.P, 0.625, 1e-12) || r.Solve.Verdict != tc.solve {
				t.Errorf("solve %+v, want verdict %s", r.Solve, tc.solve)
			}
			if m := r.Metric("input tokens"); m.Verdict != tc.tokens {
				t.Errorf("input tokens %+v, want %s", m, tc.tokens)
			}
			if !strings.Contains(r.Sentence, "6 paired tasks") {
				t.Errorf("sentence %q", r.Sentence)
			}
		})
	}
	// six discordant pairs, all one way: p = 2/64 < 0.05, concluded
	var six []compare.Run
	for i := range 6 {
		task := fmt.Sprint(i)
		six = append(six, compare.Run{ID: "on" + task, Task: task, Model: "m", Tags: map[string]string{"c": "on"}, Resolved: ptrB(true)},
			compare.Run{ID: "off" + task, Task: task, Model: "m", Tags: map[string]string{"c": "off"}, Resolved: ptrB(false)})
	}
	res, err := compare.Compare(six, compare.Grouping{By: "tag:c"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Comparisons[0].Rows[0].Solve; s.Verdict != compare.Higher || !near(s.P, 2.0/64, 1e-12) {
		t.Errorf("six discordant pairs: %+v", s)
	}
}

// TestPairing: repeated runs pair in start order, runs left over and runs
// without a task are counted, runs without an outcome leave the solve
// figures, and two models are compared per model and over both.
func TestPairing(t *testing.T) {
	run := func(id, task, model, cond string, min int, resolved *bool) compare.Run {
		return compare.Run{ID: id, Task: task, Model: model, Tags: map[string]string{"c": cond}, Resolved: resolved, Input: 100, Steps: 1, Started: at(min)}
	}
	runs := []compare.Run{
		// model a: task x twice under on (second unpaired), once under off
		run("a-on-x1", "x", "a", "on", 1, ptrB(true)), run("a-on-x2", "x", "a", "on", 5, ptrB(false)), run("a-off-x", "x", "a", "off", 2, ptrB(false)),
		// task y: on has no outcome (left out of the solve figures)
		run("a-on-y", "y", "a", "on", 3, nil), run("a-off-y", "y", "a", "off", 4, ptrB(true)),
		// no task id: never paired
		run("a-on-none", "", "a", "on", 6, ptrB(true)),
		// model b: task x under both (a different model's x: paired within b only)
		run("b-on-x", "x", "b", "on", 7, ptrB(true)), run("b-off-x", "x", "b", "off", 8, ptrB(true)),
		// task z only under off
		run("b-off-z", "z", "b", "off", 9, ptrB(false)),
	}
	res, err := compare.Compare(runs, compare.Grouping{By: "tag:c"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rows := res.Comparisons[0].Rows
	if len(rows) != 3 || rows[0].Model != "a" || rows[1].Model != "b" || rows[2].Model != compare.AllModels {
		t.Fatalf("rows %+v", rows)
	}
	for _, tc := range []struct {
		row                           compare.Row
		paired, leftG, leftR, n, b, c int
		noOutcome                     int
	}{
		{rows[0], 2, 2, 0, 1, 1, 0, 1}, // pairs x (a-on-x1 ✓ vs ✗) and y (no outcome); left: a-on-x2, a-on-none
		{rows[1], 1, 0, 1, 1, 0, 0, 0}, // pair x (✓ ✓); left: b-off-z
		{rows[2], 3, 2, 1, 2, 1, 0, 1},
	} {
		r := tc.row
		if r.Paired != tc.paired || r.LeftGroup != tc.leftG || r.LeftRef != tc.leftR || r.Solve.N != tc.n || r.Solve.B != tc.b || r.Solve.C != tc.c || r.Solve.NoOutcome != tc.noOutcome {
			t.Errorf("%s: paired %d left %d/%d solve %+v", r.Model, r.Paired, r.LeftGroup, r.LeftRef, r.Solve)
		}
	}
	g := res.Groups
	if g[0].Name != "off" || g[0].Runs != 4 || g[1].Runs != 5 || g[1].NoTask != 1 || g[1].NoOutcome != 1 || g[0].Tasks != 3 {
		t.Errorf("groups %+v", g)
	}
	// the matrix: tasks x, y, z × columns a/off, a/on, b/off, b/on
	var b strings.Builder
	for _, c := range res.Matrix.Columns {
		fmt.Fprintf(&b, "%s/%s ", c.Model, c.Group)
	}
	b.WriteString("\n")
	for _, task := range res.Matrix.Tasks {
		b.WriteString(task.Task)
		for _, c := range task.Cells {
			b.WriteString(" " + c.Mark())
		}
		fmt.Fprintf(&b, " differs=%v\n", task.Differs)
	}
	want := "a/off a/on b/off b/on \nx ✗ 1/2 ✓ ✓ differs=true\ny ✓ ? - - differs=false\nz - - ✗ - differs=false\n"
	if b.String() != want || res.Matrix.NoTask != 1 {
		t.Errorf("matrix (no task %d):\n%s\nwant\n%s", res.Matrix.NoTask, b.String(), want)
	}
}

// TestUnpaired: groups with no shared task are compared as independent
// samples with Fisher's exact test: 3/4 against 1/4 solved gives
// p = (C(4,3)C(4,1) + C(4,1)C(4,3) + C(4,4)C(4,0) + C(4,0)C(4,4)) / C(8,4) = 34/70.
func TestUnpaired(t *testing.T) {
	var runs []compare.Run
	for i := range 4 {
		runs = append(runs,
			compare.Run{ID: fmt.Sprint("p", i), Task: fmt.Sprint("p", i), Model: "gpt", Resolved: ptrB(i < 3), Input: 200, Cost: ptrF(2)},
			compare.Run{ID: fmt.Sprint("q", i), Task: fmt.Sprint("q", i), Model: "claude", Resolved: ptrB(i < 1), Input: 100, Cost: ptrF(1)})
	}
	res, err := compare.Compare(runs, compare.Grouping{By: compare.ByModel}, &compare.Options{Reference: "gpt"})
	if err != nil {
		t.Fatal(err)
	}
	rows := res.Comparisons[0].Rows
	if len(rows) != 1 || rows[0].Model != compare.AllModels || !rows[0].Unpaired || res.Comparisons[0].Group != "claude" {
		t.Fatalf("rows %+v", rows)
	}
	r := rows[0]
	if s := r.Solve; s.Test != "fisher-exact" || !near(s.P, 34.0/70, 1e-9) || !near(s.Diff, -0.5, 1e-12) || s.Verdict != compare.NotEnough {
		t.Errorf("solve %+v", s)
	}
	// cost per solved: claude 4/1, gpt 8/3: ratio 1.5
	if m := r.PerSolved; !near(m.Change, 0.5, 1e-12) || m.Verdict != compare.TooFew {
		t.Errorf("cost per solved %+v", m)
	}
	if !strings.Contains(r.Sentence, "no shared task: 4 vs 4 runs compared as independent samples") {
		t.Errorf("sentence %q", r.Sentence)
	}
	if len(res.Matrix.Columns) != 2 || res.Matrix.Columns[0].Model != "" {
		t.Errorf("by model the matrix columns are the groups: %+v", res.Matrix.Columns)
	}
}

// TestCompareErrors: fewer than two groups, an unknown reference and a
// group that matches nothing are errors naming what is wrong.
func TestCompareErrors(t *testing.T) {
	runs := planted()
	for _, tc := range []struct {
		name string
		g    compare.Grouping
		o    *compare.Options
		msg  string
	}{
		{"one model", compare.Grouping{By: compare.ByModel}, nil, "one group (m, 80 runs)"},
		{"no tag", compare.Grouping{By: "tag:nope"}, nil, "no group"},
		{"unknown reference", compare.Grouping{By: "tag:dtoc"}, &compare.Options{Reference: "x"}, `--reference "x": no such group (groups: off, on)`},
		{"empty group", compare.Grouping{Groups: []compare.Group{mustGroup(t, "a=tag:dtoc=on"), mustGroup(t, "b=model=zzz")}}, nil, "no run matches group b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := compare.Compare(runs, tc.g, tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("err %v, want %q", err, tc.msg)
			}
		})
	}
}

func mustGroup(t *testing.T, s string) compare.Group {
	t.Helper()
	g, err := compare.ParseGroup(s)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestSentences: the plain sentences of the planted, the six-task and the
// unpaired comparisons (golden: read the diff).
func TestSentences(t *testing.T) {
	var b strings.Builder
	res, err := compare.Compare(planted(), compare.Grouping{By: "tag:dtoc"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b.WriteString(res.Comparisons[0].Rows[0].Sentence + "\n")
	small := planted()[24:36] // tasks t12…t17 under both: off solves t12…t15, on all six
	res, err = compare.Compare(small, compare.Grouping{By: "tag:dtoc"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b.WriteString(res.Comparisons[0].Rows[0].Sentence + "\n")
	testutil.Golden(t, b.String(), "testdata/sentences.golden")
}

// TestOptionsMatter: every option changes what it should: the seed and
// the number of resamples the intervals, the level their width, Alpha the
// verdict of a p-value between two levels.
func TestOptionsMatter(t *testing.T) {
	cost := func(o *compare.Options) compare.Metric {
		res, err := compare.Compare(planted(), compare.Grouping{By: "tag:dtoc"}, o)
		if err != nil {
			t.Fatal(err)
		}
		return res.Comparisons[0].Rows[0].Metric("cost")
	}
	base := cost(nil)
	for _, tc := range []struct {
		name string
		o    *compare.Options
	}{{"seed", &compare.Options{Seed: 2}}, {"resamples", &compare.Options{B: 300}}} {
		if m := cost(tc.o); m.Lo == base.Lo && m.Hi == base.Hi {
			t.Errorf("%s: the interval did not change: %v…%v", tc.name, m.Lo, m.Hi)
		}
	}
	if m := cost(&compare.Options{Level: 0.8}); m.Hi-m.Lo >= base.Hi-base.Lo {
		t.Errorf("an 80%% interval %v…%v is not narrower than the 95%% one %v…%v", m.Lo, m.Hi, base.Lo, base.Hi)
	}
	// six discordant pairs all one way: p = 2/64 = 0.031, below 0.05, not below 0.01
	var six []compare.Run
	for i := range 6 {
		task := fmt.Sprint(i)
		six = append(six, compare.Run{ID: "on" + task, Task: task, Model: "m", Tags: map[string]string{"c": "on"}, Resolved: ptrB(true)},
			compare.Run{ID: "off" + task, Task: task, Model: "m", Tags: map[string]string{"c": "off"}, Resolved: ptrB(false)})
	}
	res, err := compare.Compare(six, compare.Grouping{By: "tag:c"}, &compare.Options{Alpha: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Comparisons[0].Rows[0].Solve; s.Verdict != compare.NoDifference || res.Rules.Alpha != 0.01 {
		t.Errorf("alpha 0.01: %+v", s)
	}
}
