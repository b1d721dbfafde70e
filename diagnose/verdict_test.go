package diagnose

import (
	"strings"
	"testing"
)

func TestDiagnoseVerdictClauses(t *testing.T) {
	b := Boundary([]BoundaryRun{{Turn: 23, Event: true}, {Turn: 30}})
	if got, want := boundaryClause(b), "reading boundary at call 23"; got != want {
		t.Errorf("boundary clause = %q, want %q", got, want)
	}
	b = Boundary([]BoundaryRun{{Turn: 30, Event: true}, {Turn: 50}, {Turn: 40}}) // S(30) = 2/3
	if got, want := boundaryClause(b), "no reading boundary (survival stays above 50%)"; got != want {
		t.Errorf("boundary clause = %q, want %q", got, want)
	}
	if got := boundaryClause(Boundary(nil)); !strings.Contains(got, "no unfinished run stopped while reading") {
		t.Errorf("boundary clause = %q", got)
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
