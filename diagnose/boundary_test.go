package diagnose_test

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/schema"
)

// bClassify classifies by tool name only: the tool name is the class.
func bClassify(_, tool, _ string) string { return tool }

// bCalls builds one tool_call per class, in seq order.
func bCalls(classes ...string) []schema.Event {
	var evs []schema.Event
	for i, c := range classes {
		evs = append(evs, schema.Event{RunID: "r", Seq: int64(2 * i), Turn: int64(i), Kind: schema.KindToolCall, ToolName: c},
			schema.Event{RunID: "r", Seq: int64(2*i + 1), Turn: int64(i + 1), Kind: schema.KindToolResult, ToolName: c})
	}
	return evs
}

func TestStoppedWhileReading(t *testing.T) {
	tests := []struct {
		name    string
		classes []string
		want    bool
	}{
		{"no calls", nil, false},
		{"only reads", []string{"read"}, true},
		{"search last", []string{"edit", "execute", "read", "search"}, true},    // last 3: execute read search
		{"edit in last three", []string{"read", "edit", "read", "read"}, false}, // last 3: edit read read
		{"edit before last three", []string{"edit", "read", "read", "execute"}, true},
		{"test in last three", []string{"read", "test", "read"}, false},
		{"submit last", []string{"read", "read", "submit"}, false},
		{"no read in last three", []string{"read", "execute", "context", "other"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := diagnose.StoppedWhileReading("h", bCalls(tc.classes...), bClassify); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	// Default classifier: a view tool is a read.
	if !diagnose.StoppedWhileReading("h", []schema.Event{{Kind: schema.KindToolCall, ToolName: "view"}}, nil) {
		t.Error("default classifier: view should be a read")
	}
}

func TestBoundaryInput(t *testing.T) {
	evs := bCalls("execute", "read")
	fin := diagnose.End{Reason: schema.EndFinished}
	over := diagnose.End{Reason: schema.EndContextOverflow}
	if got := diagnose.BoundaryInput(schema.Run{RunID: "a", NTurns: 7}, over, evs, bClassify); !got.Event || got.Finished || got.Call != 7 {
		t.Errorf("overflow while reading: %+v", got)
	}
	// Finished runs are the competing outcome even when their last calls are reads.
	if got := diagnose.BoundaryInput(schema.Run{RunID: "a", NTurns: 7}, fin, evs, bClassify); got.Event || !got.Finished || !got.StoppedWhileReading {
		t.Errorf("finished: %+v", got)
	}
	// NTurns 0: one more than the largest output event turn (the tool_call at 1).
	if got := diagnose.BoundaryInput(schema.Run{RunID: "a"}, over, evs, bClassify); got.Call != 2 {
		t.Errorf("turn = %d, want 2", got.Call)
	}
}

// TestBoundaryKaplanMeier: the Kaplan–Meier comparison curve (finished runs
// censored) and its boundary K(t) ≤ 1 − Share.
func TestBoundaryKaplanMeier(t *testing.T) {
	ev := func(turn int64) diagnose.BoundaryRun { return diagnose.BoundaryRun{Call: turn, Event: true} }
	cen := func(turn int64) diagnose.BoundaryRun { return diagnose.BoundaryRun{Call: turn} }
	fin := func(turn int64) diagnose.BoundaryRun { return diagnose.BoundaryRun{Call: turn, Finished: true} }
	type km struct {
		Found bool
		Turn  int64
		Curve []diagnose.KMPoint
	}
	tests := []struct {
		name string
		runs []diagnose.BoundaryRun
		want km
	}{
		{name: "empty"},
		{
			// Six runs: events at 2, 4, 4, 8; censored at 3 and 5.
			// t=2: n=6, d=1 → S = 5/6 ≈ 0.8333
			// t=3: n=5, censored 1 → S = 0.8333
			// t=4: n=4, d=2 → S = 5/6 × 2/4 = 5/12 ≈ 0.4167 ≤ 0.5 → boundary 4
			// t=5: n=2, censored 1 → S = 5/12
			// t=8: n=1, d=1 → S = 0
			name: "with censoring",
			runs: []diagnose.BoundaryRun{ev(8), cen(3), ev(4), ev(2), fin(5), ev(4), {Call: 0, Event: true}},
			want: km{true, 4, []diagnose.KMPoint{
				{Call: 2, AtRisk: 6, Events: 1, Survival: 5.0 / 6},
				{Call: 3, AtRisk: 5, Censored: 1, Survival: 5.0 / 6},
				{Call: 4, AtRisk: 4, Events: 2, Survival: 5.0 / 12},
				{Call: 5, AtRisk: 2, Censored: 1, Survival: 5.0 / 12},
				{Call: 8, AtRisk: 1, Events: 1, Survival: 0},
			}},
		},
		{
			// t=1: n=4, censored 2 → S = 1
			// t=10: n=2, d=1, censored 1 → S = 1 × (1 - 1/2) = 0.5 ≤ 0.5 → boundary 10
			name: "event and censored at the same turn",
			runs: []diagnose.BoundaryRun{fin(1), cen(1), ev(10), cen(10)},
			want: km{true, 10, []diagnose.KMPoint{
				{Call: 1, AtRisk: 4, Censored: 2, Survival: 1},
				{Call: 10, AtRisk: 2, Events: 1, Censored: 1, Survival: 0.5},
			}},
		},
		{
			// t=3: n=3, d=1 → S = 2/3; t=5: n=2, censored 2 → S = 2/3: never ≤ 0.5.
			name: "never reaches half",
			runs: []diagnose.BoundaryRun{ev(3), cen(5), fin(5)},
			want: km{false, 0, []diagnose.KMPoint{
				{Call: 3, AtRisk: 3, Events: 1, Survival: 2.0 / 3},
				{Call: 5, AtRisk: 2, Censored: 2, Survival: 2.0 / 3},
			}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := diagnose.BoundaryWith(tc.runs, &diagnose.BoundaryOptions{MinRuns: -1})
			got := km{b.KMFound, b.KMCall, b.Curve}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(0, 1e-12), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// TestBoundary: the Aalen–Johansen boundary with finishing as a competing
// outcome, its share and its minimum number of runs.
func TestBoundary(t *testing.T) {
	ev := func(turn int64) diagnose.BoundaryRun { return diagnose.BoundaryRun{Call: turn, Event: true} }
	cen := func(turn int64) diagnose.BoundaryRun { return diagnose.BoundaryRun{Call: turn} }
	fin := func(turn int64) diagnose.BoundaryRun { return diagnose.BoundaryRun{Call: turn, Finished: true} }
	// Six runs: reading stops at 2, 5, 6; finished at 3 and 7; censored at 4.
	// t=2: n=6, d1=1: F1 = 1·1/6 = 1/6;            S = 5/6
	// t=3: n=5, d2=1: F2 = 5/6·1/5 = 1/6;          S = 5/6·4/5 = 2/3
	// t=4: n=4, censored 1                          S = 2/3
	// t=5: n=3, d1=1: F1 = 1/6 + 2/3·1/3 = 7/18;   S = 2/3·2/3 = 4/9
	// t=6: n=2, d1=1: F1 = 7/18 + 4/9·1/2 = 11/18 ≥ 1/2 → boundary 6; S = 2/9
	// t=7: n=1, d2=1: F2 = 1/6 + 2/9 = 7/18;       S = 0
	// Kaplan–Meier for comparison (finished censored): K(2) = 5/6,
	// K(5) = 5/6·2/3 = 5/9 ≈ 0.56, K(6) = 5/9·1/2 = 5/18 ≈ 0.28: K ≤ 0.5 at 6,
	// K ≤ 0.7 (share 0.3) at 5.
	six := []diagnose.BoundaryRun{ev(6), fin(3), cen(4), ev(2), ev(5), fin(7), {Call: 0, Event: true}}
	sixCIF := []diagnose.CIFPoint{
		{Call: 2, AtRisk: 6, Events: 1, Survival: 5.0 / 6, Incidence: 1.0 / 6},
		{Call: 3, AtRisk: 5, Finished: 1, Survival: 2.0 / 3, Incidence: 1.0 / 6, FinishedIncidence: 1.0 / 6},
		{Call: 4, AtRisk: 4, Censored: 1, Survival: 2.0 / 3, Incidence: 1.0 / 6, FinishedIncidence: 1.0 / 6},
		{Call: 5, AtRisk: 3, Events: 1, Survival: 4.0 / 9, Incidence: 7.0 / 18, FinishedIncidence: 1.0 / 6},
		{Call: 6, AtRisk: 2, Events: 1, Survival: 2.0 / 9, Incidence: 11.0 / 18, FinishedIncidence: 1.0 / 6},
		{Call: 7, AtRisk: 1, Finished: 1, Survival: 0, Incidence: 11.0 / 18, FinishedIncidence: 7.0 / 18},
	}
	tests := []struct {
		name string
		runs []diagnose.BoundaryRun
		o    *diagnose.BoundaryOptions
		want diagnose.ReadingBoundary
	}{
		{
			name: "six runs, minimum 6",
			runs: six, o: &diagnose.BoundaryOptions{MinRuns: 6},
			want: diagnose.ReadingBoundary{Runs: 6, Events: 3, Finished: 2, Censored: 1, Share: 0.5, MinRuns: 6,
				Found: true, Call: 6, Reached: true, ReachedCall: 6, EventsBy: 3, Incidence: 11.0 / 18, CIF: sixCIF, KMFound: true, KMCall: 6},
		},
		{
			// the same runs under the default minimum of 10: reached, not stated
			name: "six runs, default minimum",
			runs: six,
			want: diagnose.ReadingBoundary{Runs: 6, Events: 3, Finished: 2, Censored: 1, Share: 0.5, MinRuns: 10,
				Reached: true, ReachedCall: 6, EventsBy: 3, Incidence: 11.0 / 18, CIF: sixCIF, KMFound: true, KMCall: 6},
		},
		{
			// share 0.3: F1(2) = 1/6 < 0.3 ≤ F1(5) = 7/18 → boundary 5, 2 stops by then
			name: "six runs, share 0.3",
			runs: six, o: &diagnose.BoundaryOptions{Share: 0.3, MinRuns: 6},
			want: diagnose.ReadingBoundary{Runs: 6, Events: 3, Finished: 2, Censored: 1, Share: 0.3, MinRuns: 6,
				Found: true, Call: 5, Reached: true, ReachedCall: 5, EventsBy: 2, Incidence: 11.0 / 18, CIF: sixCIF, KMFound: true, KMCall: 5},
		},
		{
			// One unfinished run of three, the others finished first:
			// t=5: n=3, d2=1: F2 = 1/3, S = 2/3; t=7: n=2, d2=1: F2 = 2/3, S = 1/3;
			// t=9: n=1, d1=1: F1 = 1/3·1 = 1/3 < 1/2 → no boundary.
			// Kaplan–Meier (finished censored) falls to 0 at 9: "boundary 9".
			name: "one unfinished run of three",
			runs: []diagnose.BoundaryRun{fin(5), fin(7), ev(9)}, o: &diagnose.BoundaryOptions{MinRuns: -1},
			want: diagnose.ReadingBoundary{Runs: 3, Events: 1, Finished: 2, Share: 0.5, EventsBy: 1, Incidence: 1.0 / 3,
				KMFound: true, KMCall: 9, CIF: []diagnose.CIFPoint{
					{Call: 5, AtRisk: 3, Finished: 1, Survival: 2.0 / 3, FinishedIncidence: 1.0 / 3},
					{Call: 7, AtRisk: 2, Finished: 1, Survival: 1.0 / 3, FinishedIncidence: 2.0 / 3},
					{Call: 9, AtRisk: 1, Events: 1, Survival: 0, Incidence: 1.0 / 3, FinishedIncidence: 2.0 / 3},
				}},
		},
		{
			name: "empty",
			want: diagnose.ReadingBoundary{Share: 0.5, MinRuns: 10},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := diagnose.BoundaryWith(tc.runs, tc.o)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(0, 1e-12), cmpopts.EquateEmpty(),
				cmpopts.IgnoreFields(diagnose.ReadingBoundary{}, "Curve")); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
	// Deterministic regardless of input order.
	a := diagnose.Boundary([]diagnose.BoundaryRun{ev(2), cen(2), ev(3)})
	b := diagnose.Boundary([]diagnose.BoundaryRun{ev(3), cen(2), ev(2)})
	if !cmp.Equal(a, b) || math.IsNaN(a.Curve[0].Survival) {
		t.Errorf("order dependence: %+v vs %+v", a, b)
	}
}
