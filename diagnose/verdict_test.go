package diagnose

import (
	"strings"
	"testing"
)

func TestVerdictClauses(t *testing.T) {
	// ten runs: reading stops at 23 (×5, n=10: F1 = 5/10 = 50%), five finished at 30
	var ten []BoundaryRun
	for range 5 {
		ten = append(ten, BoundaryRun{Turn: 23, Event: true}, BoundaryRun{Turn: 30, Finished: true})
	}
	for _, tc := range []struct {
		runs []BoundaryRun
		want string
	}{
		{ten, "reading boundary at call 23 (50.0% of runs stopped while reading by then, 5 of 10 runs)"},
		// F1(23) = 1/2 but over 2 runs
		{[]BoundaryRun{{Turn: 23, Event: true}, {Turn: 30}},
			"no reading boundary stated (50.0% stopped while reading by call 23, but over 2 runs, fewer than 10)"},
		// F1(30) = 1/3: the finished runs compete
		{[]BoundaryRun{{Turn: 30, Event: true}, {Turn: 50, Finished: true}, {Turn: 40, Finished: true}},
			"no reading boundary (33.3% of 3 runs stopped while reading, 1 of them; 50.0% needed)"},
		{nil, "no reading boundary (no unfinished run stopped while reading)"},
	} {
		if got := BoundaryClause(Boundary(tc.runs)); got != tc.want {
			t.Errorf("boundary clause = %q, want %q", got, tc.want)
		}
	}
	v := Verdict{TopRentTool: "read_file", TopRentShare: 0.38}
	if got, want := rentClause(v), "read_file holds 38.0% of token rent"; got != want {
		t.Errorf("rent clause = %q, want %q", got, want)
	}
	if got := rentClause(Verdict{}); !strings.HasPrefix(got, "no token rent") {
		t.Errorf("rent clause = %q", got)
	}
	for _, tc := range []struct {
		v    Verdict
		want string
	}{
		{Verdict{TopRentTool: "bash", TopRentShare: 0.5, SystemPromptShare: 0.12, ToolDefinitionsShare: 0.05},
			"bash holds 50.0% of token rent; system prompt 12.0% / tool definitions 5.0% of token rent"},
		{Verdict{TopRentTool: "bash", TopRentShare: 0.9, SystemPromptShare: 0.1}, "bash holds 90.0% of token rent; system prompt 10.0% of token rent"},
		{Verdict{ToolDefinitionsShare: 1}, "no token rent (no tool output was carried by a later call); tool definitions 100.0% of token rent"},
	} {
		if got := rentClause(tc.v); got != tc.want {
			t.Errorf("rent clause = %q, want %q", got, tc.want)
		}
	}
}
