package counterfactual_test

import (
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

func TestReReadValidation(t *testing.T) {
	ev := func(seq, turn int64, k schema.EventKind, tool, id, target, text string) schema.Event {
		return schema.Event{RunID: "r", Seq: seq, Turn: turn, Kind: k, ToolName: tool, CallID: id, ToolKey: id, Target: target, Text: text}
	}
	// read a.go (output 2); the agent cites parse_hdr_v3 at call 1 (the
	// first call that saw it: no prediction), then at call 2 parse_hdr_v3
	// again (the agent's own by then: no use) and zeta_helper_9 for the
	// first time (a late content use: predicted 1); then it reads a.go
	// again (observed 1: a target use of output 2)
	events := []schema.Event{
		ev(0, 0, schema.KindUser, "", "", "", "fix it"),
		ev(1, 0, schema.KindToolCall, "read", "c1", "a.go", ""),
		ev(2, 1, schema.KindToolResult, "read", "c1", "", "func parse_hdr_v3() calls zeta_helper_9"),
		ev(3, 1, schema.KindAssistant, "", "", "", "parse_hdr_v3 is wrong"),
		ev(4, 2, schema.KindAssistant, "", "", "", "still parse_hdr_v3, via zeta_helper_9"),
		ev(5, 2, schema.KindToolCall, "read", "c2", "a.go", ""),
	}
	uses := counterfactual.Uses(events)
	got := counterfactual.RunReReads(events, uses, nil)
	if diff := cmp.Diff([]counterfactual.ToolReReads{{Tool: "read", Predicted: 1, Observed: 1}}, got); diff != "" {
		t.Errorf("RunReReads (-want +got):\n%s", diff)
	}
	// an edit of a.go after the read is a target use, not a re-read
	edited := append(events[:5:5], ev(5, 2, schema.KindToolCall, "edit", "c2", "a.go", ""))
	if got := counterfactual.RunReReads(edited, counterfactual.Uses(edited), nil); len(got) != 1 || got[0].Observed != 0 {
		t.Errorf("edit after read: %+v, want no observed re-read", got)
	}
	// isRead rejecting the read tool leaves nothing
	if got := counterfactual.RunReReads(events, uses, func(string, string) bool { return false }); len(got) != 0 {
		t.Errorf("isRead false: %+v, want none", got)
	}

	var v counterfactual.ReReadValidator
	v.Add([]counterfactual.ToolReReads{{Tool: "bash", Predicted: 9}}) // no observed re-read: left out
	v.Add([]counterfactual.ToolReReads{{Tool: "read", Predicted: 4, Observed: 3}, {Tool: "grep", Predicted: 1, Observed: 1}})
	v.Add([]counterfactual.ToolReReads{{Tool: "read", Predicted: 2, Observed: 1}, {Tool: "edit", Predicted: 3, Observed: 0}, {Tool: "ls"}})
	res := v.Result()
	// summed over the 2 runs with re-reads: edit 3/0, grep 1/1, read 6/4;
	// predicted ranks edit 2, grep 1, read 3; observed ranks edit 1, grep 2,
	// read 3: d² = 1+1+0 = 2, ρ = 1 − 6·2/(3·8) = 0.5
	want := []counterfactual.ToolReReads{{Tool: "edit", Predicted: 3}, {Tool: "grep", Predicted: 1, Observed: 1}, {Tool: "read", Predicted: 6, Observed: 4}}
	if diff := cmp.Diff(want, res.Tools); diff != "" || res.Runs != 2 {
		t.Errorf("runs %d, tools (-want +got):\n%s", res.Runs, diff)
	}
	if res.Spearman == nil || math.Abs(*res.Spearman-0.5) > 1e-12 {
		t.Errorf("spearman = %v, want 0.5", res.Spearman)
	}
	var few counterfactual.ReReadValidator
	few.Add([]counterfactual.ToolReReads{{Tool: "read", Predicted: 1, Observed: 1}, {Tool: "grep", Predicted: 2, Observed: 2}})
	if r := few.Result(); r.Spearman != nil {
		t.Errorf("2 tools: spearman %v, want none (fewer than %d)", *r.Spearman, counterfactual.MinValidationTools)
	}
}
