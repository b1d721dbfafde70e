package counterfactual_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/counterfactual"
	"github.com/trajmine/trajmine/schema"
)

func TestSpearman(t *testing.T) {
	tests := []struct {
		name string
		x, y []float64
		want float64
	}{
		{"same order", []float64{1, 2, 3, 4}, []float64{10, 20, 30, 40}, 1},
		{"reversed", []float64{1, 2, 3}, []float64{9, 5, 1}, -1},
		// ranks x = 1 2 3 4, y = 2 1 4 3: d² = 1+1+1+1 = 4, ρ = 1 − 6·4/(4·15) = 0.6
		{"one swap each half", []float64{1, 2, 3, 4}, []float64{2, 1, 4, 3}, 0.6},
		// y ranks with a tie: 1, 2.5, 2.5; x 1 2 3: Pearson of (1,2,3) and
		// (1,2.5,2.5): means 2 and 2; Σdxdy = (−1)(−1)+0+1·0.5 = 1.5;
		// Σdx² = 2, Σdy² = 1+0.25+0.25 = 1.5; ρ = 1.5/√3 ≈ 0.8660
		{"ties", []float64{1, 2, 3}, []float64{0, 7, 7}, 1.5 / math.Sqrt(3)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := counterfactual.Spearman(tc.x, tc.y); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("Spearman = %v, want %v", got, tc.want)
			}
		})
	}
	if got := counterfactual.Spearman([]float64{1, 1, 1}, []float64{1, 2, 3}); !math.IsNaN(got) {
		t.Errorf("constant side: %v, want NaN", got)
	}
}

func TestSpearmanCI(t *testing.T) {
	const z975 = 1.959963984540054 // standard normal 0.975 quantile
	tests := []struct {
		name   string
		rho    float64
		n      int
		ok     bool
		lo, hi float64
	}{
		// atanh(0.5) = ln 3 / 2; σ² = (1 + 0.125)/(28 − 3) = 0.045
		{"n 28", 0.5, 28, true, math.Tanh(math.Log(3)/2 - z975*math.Sqrt(0.045)), math.Tanh(math.Log(3)/2 + z975*math.Sqrt(0.045))},
		// atanh(−0.2) = ln(0.8/1.2)/2; σ² = (1 + 0.02)/(103 − 3) = 0.0102
		{"negative", -0.2, 103, true, math.Tanh(math.Log(0.8/1.2)/2 - z975*math.Sqrt(0.0102)), math.Tanh(math.Log(0.8/1.2)/2 + z975*math.Sqrt(0.0102))},
		{"n 3", 0.5, 3, false, 0, 0},
		{"rho 1", 1, 50, false, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lo, hi, ok := counterfactual.SpearmanCI(tc.rho, tc.n, 0.95)
			if ok != tc.ok || math.Abs(lo-tc.lo) > 1e-12 || math.Abs(hi-tc.hi) > 1e-12 {
				t.Errorf("SpearmanCI = %v, %v, %v; want %v, %v, %v", lo, hi, ok, tc.lo, tc.hi, tc.ok)
			}
		})
	}
}

// ev is one event of run r of the planted logs (ToolKey = CallID).
func ev(turn int64, k schema.EventKind, tool, id, target, args, text string) schema.Event {
	return schema.Event{RunID: "r", Turn: turn, Kind: k, ToolName: tool, CallID: id, ToolKey: id, Target: target, Args: args, Text: text}
}

// seq numbers events in order.
func seq(events ...schema.Event) []schema.Event {
	for i := range events {
		events[i].Seq = int64(i)
	}
	return events
}

// TestOutputReReads plants runs whose re-reads are known and checks the
// predicted and observed counts per output under the current rules and
// under the first rules (SetReReadRule1).
func TestOutputReReads(t *testing.T) {
	const aArgs, bArgs = `{"path":"a.go"}`, `{"path":"b.go"}`
	const text1 = "func parse_hdr_v3() calls zeta_helper_9, omega_case_7, kappa_x1, sigma_y2"
	type row = counterfactual.OutputReRead
	tests := []struct {
		name      string
		events    []schema.Event
		isRead    func(tool, args string) bool
		want, old []row // current rules; first rules
	}{{
		// read a.go (event 2, turn 1); call 1 cites parse_hdr_v3 (the
		// first call that saw it: no prediction); call 2 cites
		// zeta_helper_9 and kappa_x1 (a late use of two words,
		// MinEvidence) and call 3 omega_case_7 and sigma_y2 (another);
		// call 3 reads a.go again, same arguments, same text (observed 1,
		// unchanged). First rules: 2 predicted (calls 2 and 3); now 1 (a
		// policy that hid the output would fetch it once)
		name: "once per output",
		events: seq(
			ev(0, schema.KindUser, "", "", "", "", "fix it"),
			ev(0, schema.KindToolCall, "read", "c1", "a.go", aArgs, ""),
			ev(1, schema.KindToolResult, "read", "c1", "", "", text1),
			ev(1, schema.KindAssistant, "", "", "", "", "parse_hdr_v3 is wrong"),
			ev(2, schema.KindAssistant, "", "", "", "", "via zeta_helper_9 and kappa_x1"),
			ev(3, schema.KindAssistant, "", "", "", "", "and omega_case_7, sigma_y2"),
			ev(3, schema.KindToolCall, "read", "c2", "a.go", aArgs, ""),
			ev(4, schema.KindToolResult, "read", "c2", "", "", text1),
		),
		want: []row{{Output: 2, Tool: "read", Predicted: 1, Observed: 1, Unchanged: 1}, {Output: 7, Tool: "read"}},
		old:  []row{{Output: 2, Tool: "read", Predicted: 2, Observed: 1}, {Output: 7, Tool: "read"}},
	}, {
		// an editor tool views a.go then edits it (same tool and target,
		// other arguments): the first rules counted the edit as a re-read;
		// the view of b.go is read again with the same arguments but the
		// text changed (observed, not unchanged)
		name: "edit is no re-read; changed text",
		events: seq(
			ev(0, schema.KindToolCall, "editor", "c1", "a.go", `{"command":"view","path":"a.go"}`, ""),
			ev(1, schema.KindToolResult, "editor", "c1", "", "", "1 old_line_x"),
			ev(1, schema.KindToolCall, "editor", "c2", "a.go", `{"command":"str_replace","path":"a.go"}`, ""),
			ev(2, schema.KindToolResult, "editor", "c2", "", "", "edited"),
			ev(2, schema.KindToolCall, "editor", "c3", "b.go", `{"command":"view","path":"b.go"}`, ""),
			ev(3, schema.KindToolResult, "editor", "c3", "", "", "2 first_text_b"),
			ev(3, schema.KindToolCall, "editor", "c4", "b.go", `{"command":"view","path":"b.go"}`, ""),
			ev(4, schema.KindToolResult, "editor", "c4", "", "", "2 second_text_b"),
		),
		isRead: func(_, args string) bool { return args != `{"command":"str_replace","path":"a.go"}` },
		want:   []row{{Output: 1, Tool: "editor"}, {Output: 5, Tool: "editor", Observed: 1}, {Output: 7, Tool: "editor"}},
		old:    []row{{Output: 1, Tool: "editor", Observed: 1}, {Output: 5, Tool: "editor", Observed: 1}, {Output: 7, Tool: "editor"}},
	}, {
		// reads of other parts of a file are not re-reads; a Bash command
		// run again with another description is
		name: "other range; description",
		events: seq(
			ev(0, schema.KindToolCall, "Read", "c1", "a.go", `{"file_path":"a.go","offset":1}`, ""),
			ev(1, schema.KindToolResult, "Read", "c1", "", "", "part_one"),
			ev(1, schema.KindToolCall, "Read", "c2", "a.go", `{"file_path":"a.go","offset":200}`, ""),
			ev(2, schema.KindToolResult, "Read", "c2", "", "", "part_two"),
			ev(2, schema.KindToolCall, "Bash", "c3", "ls", `{"command":"ls","description":"List files"}`, ""),
			ev(3, schema.KindToolResult, "Bash", "c3", "", "", "a.go b.go"),
			ev(3, schema.KindToolCall, "Bash", "c4", "ls", `{"command":"ls","description":"List again"}`, ""),
			ev(4, schema.KindToolResult, "Bash", "c4", "", "", "a.go b.go"),
		),
		want: []row{{Output: 1, Tool: "Read"}, {Output: 3, Tool: "Read"}, {Output: 5, Tool: "Bash", Observed: 1, Unchanged: 1}, {Output: 7, Tool: "Bash"}},
		old:  []row{{Output: 1, Tool: "Read", Observed: 1}, {Output: 3, Tool: "Read"}, {Output: 5, Tool: "Bash", Observed: 1}, {Output: 7, Tool: "Bash"}},
	}, {
		// a DTOC enable is an observed re-read (unchanged: the same output
		// comes back); isRead leaves out the other tool's output
		name: "enable",
		events: seq(
			ev(0, schema.KindToolCall, "read", "k1", "a.go", aArgs, ""),
			ev(1, schema.KindToolResult, "read", "k1", "", "", "alpha_beta"),
			ev(1, schema.KindToolCall, "grep", "k2", "b.go", bArgs, ""),
			ev(2, schema.KindToolResult, "grep", "k2", "", "", "gamma_delta"),
			ev(2, schema.KindToolCall, "manage_context", "k3", "", `{"enable":["k1"]}`, ""),
		),
		isRead: func(tool, _ string) bool { return tool == "read" },
		want:   []row{{Output: 1, Tool: "read", Observed: 1, Unchanged: 1}},
		old:    []row{{Output: 1, Tool: "read", Observed: 1, Unchanged: 1}}, // (the first rules had no Unchanged; an enable counts alike)
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			uses := counterfactual.Uses(tc.events)
			if diff := cmp.Diff(tc.want, counterfactual.OutputReReads(tc.events, uses, tc.isRead)); diff != "" {
				t.Errorf("OutputReReads (-want +got):\n%s", diff)
			}
			restore := counterfactual.SetReReadRule1(true, true)
			defer restore()
			if diff := cmp.Diff(tc.old, counterfactual.OutputReReads(tc.events, uses, tc.isRead)); diff != "" {
				t.Errorf("first rules (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunReReads(t *testing.T) {
	events := seq(
		ev(0, schema.KindToolCall, "read", "c1", "a.go", `{"path":"a.go"}`, ""),
		ev(1, schema.KindToolResult, "read", "c1", "", "", "alpha_one gamma_three"),
		ev(1, schema.KindToolCall, "grep", "c2", "x", `{"pattern":"x"}`, ""),
		ev(2, schema.KindToolResult, "grep", "c2", "", "", "beta_two"),
		ev(2, schema.KindAssistant, "", "", "", "", "alpha_one gamma_three beta_two"), // late for output 1 only
		ev(2, schema.KindToolCall, "read", "c3", "a.go", `{"path":"a.go"}`, ""),
		ev(3, schema.KindToolResult, "read", "c3", "", "", "alpha_one gamma_three"),
	)
	want := []counterfactual.ToolReReads{{Tool: "grep"}, {Tool: "read", Predicted: 1, Observed: 1}}
	if diff := cmp.Diff(want, counterfactual.RunReReads(events, counterfactual.Uses(events), nil)); diff != "" {
		t.Errorf("RunReReads (-want +got):\n%s", diff)
	}
}

// TestReReadValidation plants four runs of known outputs (a fifth has
// none) and checks every figure against its hand computation.
//
// Outputs (Predicted, Observed, Unchanged) and tool; run-a and run-c are
// held out (FNV-1a-32 of the id is even: 1822270348, 1855825586), run-b
// and run-d are not (1872603205, 1771937491):
//
//	run-a: (1,1,1) read, (1,0) read, (0,0) grep, (0,0) grep   P 2 O 1 n 4
//	run-b: (2,1,0) read, (0,1,1) grep, (0,0) bash             P 2 O 2 n 3
//	run-c: (1,0) bash, (5,2,1) read                           P 6 O 2 n 2
//	run-d: (0,0) read                                         P 0 O 0 n 1
func TestReReadValidation(t *testing.T) {
	type o = counterfactual.OutputReRead
	runs := []struct {
		id   string
		outs []o
	}{
		{"run-a", []o{{Tool: "read", Predicted: 1, Observed: 1, Unchanged: 1}, {Tool: "read", Predicted: 1}, {Tool: "grep"}, {Tool: "grep"}}},
		{"run-b", []o{{Tool: "read", Predicted: 2, Observed: 1}, {Tool: "grep", Observed: 1, Unchanged: 1}, {Tool: "bash"}}},
		{"run-c", []o{{Tool: "bash", Predicted: 1}, {Tool: "read", Predicted: 5, Observed: 2, Unchanged: 1}}},
		{"run-d", []o{{Tool: "read"}}},
		{"run-e", nil},
	}
	var v counterfactual.ReReadValidator
	for _, r := range runs {
		v.Add(r.id, r.outs)
	}
	res := v.Result()

	// per tool, over the runs with an observed re-read (a, b, c), tools
	// with neither left out per run (grep of run-a, bash of run-b): bash
	// 1/0, grep 0/1, read 2+2+5 = 9 / 1+1+2 = 4; predicted ranks bash 2,
	// grep 1, read 3; observed ranks 1, 2, 3: d² = 2, ρ = 1 − 12/24 = 0.5
	wantTools := []counterfactual.ToolReReads{{Tool: "bash", Predicted: 1}, {Tool: "grep", Observed: 1}, {Tool: "read", Predicted: 9, Observed: 4}}
	if diff := cmp.Diff(wantTools, res.Tools); diff != "" || res.Runs != 3 {
		t.Errorf("runs %d, tools (-want +got):\n%s", res.Runs, diff)
	}
	near(t, "per-tool ρ", res.Spearman, 0.5)

	all := res.All
	// 4 runs with outputs, 3 with an observed re-read, 10 outputs,
	// P = 2+2+6+0 = 10, O = 1+2+2+0 = 5, unchanged 1+1+1 = 3, ratio 2
	if all.Runs != 4 || all.RunsObserved != 3 || all.Outputs != 10 || all.Predicted != 10 || all.Observed != 5 || all.Unchanged != 3 {
		t.Errorf("all: runs %d/%d outputs %d P %d O %d U %d; want 4/3 10 10 5 3", all.Runs, all.RunsObserved, all.Outputs, all.Predicted, all.Observed, all.Unchanged)
	}
	near(t, "ratio", all.Ratio, 2)
	// per run: P ranks d 1, a 2.5, b 2.5, c 4; O ranks d 1, a 2, b 3.5,
	// c 3.5; deviations from 2.5: dP (a 0, b 0, c 1.5, d −1.5), dO (−0.5,
	// 1, 1, −1.5): Σ = 1.5 + 2.25 = 3.75, ΣdP² = 4.5, ΣdO² = 4.5, ρ = 5/6
	near(t, "run ρ", all.RunSpearman, 5.0/6)
	// Fisher z: atanh(5/6) = ln(11)/2, σ² = (1 + (25/36)/2)/(4 − 3) = 97/72
	const z975 = 1.959963984540054
	if ci := all.RunSpearmanCI; ci == nil ||
		math.Abs(ci.Lo-math.Tanh(math.Log(11)/2-z975*math.Sqrt(97.0/72))) > 1e-12 ||
		math.Abs(ci.Hi-math.Tanh(math.Log(11)/2+z975*math.Sqrt(97.0/72))) > 1e-12 {
		t.Errorf("run ρ CI = %+v", ci)
	}
	// size baseline: outputs a 4, b 3, c 2, d 1 (ranks 4 3 2 1, dN 1.5,
	// 0.5, −0.5, −1.5) against O ranks 2 3.5 3.5 1 (dO −0.5 1 1 −1.5):
	// Σ = −0.75 + 0.5 − 0.5 + 2.25 = 1.5, ΣdN² = 5, ρ = 1.5/√22.5
	near(t, "size ρ", all.SizeSpearman, 1.5/math.Sqrt(22.5))
	// per output: P 0 ×5 (rank 3), 1 ×3 (7), 2 (9), 5 (10); O 0 ×6
	// (3.5), 1 ×3 (8), 2 (10); means 5.5; Σ dP·dO = 40.5, ΣdP² = 70.5,
	// ΣdO² = 63 (see the points above)
	near(t, "output ρ", all.OutputSpearman, 40.5/math.Sqrt(70.5*63))
	// AUC: positives P 1, 2, 0, 5 against negatives P 0 ×4, 1 ×2: wins
	// (4 + 2·½) + 6 + 4·½ + 6 = 19 of 24
	near(t, "output AUC", all.OutputAUC, 19.0/24)
	if ci := all.OutputAUCCI; ci == nil || ci.Lo > *all.OutputAUC || ci.Hi < *all.OutputAUC {
		t.Errorf("AUC CI %+v does not hold %v", ci, *all.OutputAUC)
	}
	if ci := all.RatioCI; ci == nil || ci.Lo > 2 || ci.Hi < 2 {
		t.Errorf("ratio CI %+v does not hold 2", ci)
	}
	wantCal := []counterfactual.CalibrationBin{
		{Lo: 0, Hi: 0, N: 5, Observed: 1, WithObserved: 1},
		{Lo: 1, Hi: 1, N: 3, Predicted: 3, Observed: 1, WithObserved: 1},
		{Lo: 2, Hi: 2, N: 1, Predicted: 2, Observed: 1, WithObserved: 1},
		{Lo: 3, Hi: 4},
		{Lo: 5, Hi: -1, N: 1, Predicted: 5, Observed: 2, WithObserved: 1},
	}
	if diff := cmp.Diff(wantCal, all.Calibration); diff != "" {
		t.Errorf("calibration (-want +got):\n%s", diff)
	}
	wantRunCal := []counterfactual.CalibrationBin{
		{Lo: 0, Hi: 0, N: 1},
		{Lo: 1, Hi: 2, N: 2, Predicted: 4, Observed: 3, WithObserved: 2},
		{Lo: 3, Hi: 5},
		{Lo: 6, Hi: 10, N: 1, Predicted: 6, Observed: 2, WithObserved: 1},
		{Lo: 11, Hi: -1},
	}
	if diff := cmp.Diff(wantRunCal, all.RunCalibration); diff != "" {
		t.Errorf("run calibration (-want +got):\n%s", diff)
	}

	// held out: run-a and run-c, 6 outputs, P 8, O 3; two runs, both
	// orders agree: ρ 1, no interval under 4 runs; AUC: positives P 1, 5
	// against negatives 1, 0, 0, 1: (2 + 2·½) + 4 = 7 of 8
	held := res.Held
	if held.Runs != 2 || held.Outputs != 6 || held.Predicted != 8 || held.Observed != 3 || held.RunSpearmanCI != nil {
		t.Errorf("held: runs %d outputs %d P %d O %d CI %v; want 2 6 8 3 nil", held.Runs, held.Outputs, held.Predicted, held.Observed, held.RunSpearmanCI)
	}
	near(t, "held ratio", held.Ratio, 8.0/3)
	near(t, "held run ρ", held.RunSpearman, 1)
	near(t, "held AUC", held.OutputAUC, 7.0/8)
	// train: run-b and run-d, 4 outputs, P 2, O 2; AUC: positives P 2, 0
	// against negatives 0, 0: 2 + 2·½ = 3 of 4
	train := res.Train
	if train.Runs != 2 || train.Outputs != 4 || train.Predicted != 2 || train.Observed != 2 {
		t.Errorf("train: runs %d outputs %d P %d O %d; want 2 4 2 2", train.Runs, train.Outputs, train.Predicted, train.Observed)
	}
	near(t, "train ratio", train.Ratio, 1)
	near(t, "train AUC", train.OutputAUC, 3.0/4)

	// deterministic: the same runs added in the reverse order give the
	// same result, bootstrap intervals included
	var again counterfactual.ReReadValidator
	for i := len(runs) - 1; i >= 0; i-- {
		again.Add(runs[i].id, runs[i].outs)
	}
	if diff := cmp.Diff(res, again.Result()); diff != "" {
		t.Errorf("second result differs (-first +second):\n%s", diff)
	}

	var few counterfactual.ReReadValidator
	few.Add("x", []o{{Tool: "read", Predicted: 1, Observed: 1}, {Tool: "grep", Predicted: 2, Observed: 2}})
	if r := few.Result(); r.Spearman != nil {
		t.Errorf("2 tools: spearman %v, want none (fewer than %d)", *r.Spearman, counterfactual.MinValidationTools)
	}
}

// near checks that got is set and within 1e-12 of want.
func near(t *testing.T, what string, got *float64, want float64) {
	t.Helper()
	if got == nil || math.Abs(*got-want) > 1e-12 {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// TestReReadValidationOrder: 30 runs added in two orders give the same
// result, bootstrap intervals included (the runs are drawn by run id).
func TestReReadValidationOrder(t *testing.T) {
	type o = counterfactual.OutputReRead
	var ids []string
	var outs [][]o
	for i := range 30 {
		ids = append(ids, fmt.Sprintf("run-%02d", i))
		var run []o
		for j := range i%4 + 1 {
			run = append(run, o{Tool: "read", Predicted: int64((i + j) % 2), Observed: int64((i * j) % 3 / 2)})
		}
		outs = append(outs, run)
	}
	var fwd, rev counterfactual.ReReadValidator
	for i := range ids {
		fwd.Add(ids[i], outs[i])
		k := len(ids) - 1 - i
		rev.Add(ids[k], outs[k])
	}
	a, b := fwd.Result(), rev.Result()
	if a.All.RatioCI == nil || a.All.OutputAUCCI == nil {
		t.Fatalf("no intervals: %+v", a.All)
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("reverse order differs (-forward +reverse):\n%s", diff)
	}
}
