package diagnose_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/schema"
)

// stallResult builds a tool_result with text and an error flag.
func stallResult(seq, turn int64, id, text string, isErr bool) schema.Event {
	return schema.Event{RunID: "r", Seq: seq, Turn: turn, Kind: schema.KindToolResult, ToolName: "bash", CallID: id, ToolKey: id, Text: text, IsError: isErr}
}

// stallArgsCall builds a tool_call with canonical arguments.
func stallArgsCall(seq, turn int64, id, tool, target, args string) schema.Event {
	e := rentCall(seq, turn, id, tool, target)
	e.Args = args
	return e
}

// stallExit builds an unflagged tool_result with an exit code.
func stallExit(seq, turn int64, id, text string, code int64) schema.Event {
	e := stallResult(seq, turn, id, text, false)
	e.ExitCode = &code
	return e
}

func TestEndsInStall(t *testing.T) {
	st := diagnose.RunStalls{Stalls: []diagnose.Stall{{Seqs: []int64{2, 6, 9}}}}
	tests := []struct {
		last int64
		want bool
	}{
		{9, true},  // the third occurrence
		{6, true},  // the second
		{2, false}, // the first occurrence is not yet a repeat
		{12, false},
	}
	for _, tc := range tests {
		if _, got := st.EndsInStall(tc.last); got != tc.want {
			t.Errorf("EndsInStall(%d) = %v, want %v", tc.last, got, tc.want)
		}
	}
}

func TestStalls(t *testing.T) {
	tests := []struct {
		name   string
		events []schema.Event
		want   diagnose.RunStalls
	}{
		{
			name: "identical outputs",
			events: []schema.Event{
				rentCall(0, 0, "c1", "bash", "go test"), stallResult(1, 1, "c1", "FAIL x", true),
				rentCall(2, 1, "c2", "bash", "go test"), stallResult(3, 2, "c2", "FAIL x", true),
				rentCall(4, 2, "c3", "bash", "go test"), stallResult(5, 3, "c3", "FAIL y", true),
				rentCall(6, 3, "c4", "bash", "ls"), stallResult(7, 4, "c4", "a b", false),
				rentCall(8, 4, "c5", "bash", "go test"), stallResult(9, 5, "c5", "FAIL x", true),
				rentCall(10, 5, "c6", "bash", "ls"), stallResult(11, 6, "c6", "a b", false),
				rentCall(12, 6, "c7", "bash", ""), stallResult(13, 7, "c7", "a b", false),
				rentCall(14, 7, "c8", "bash", ""), stallResult(15, 8, "c8", "a b", false),
				rentCall(16, 8, "c9", "bash", "ls"), stallResult(17, 9, "c9", "a b", true),
				rentCall(18, 9, "c10", "bash", "ls"), // no result
			},
			// go test failed with "FAIL x" at seqs 0, 2, 8: one stall of 3
			// occurrences, 3-1 = 2 stalls; ls answered "a b" (no error) at 6
			// and 10: a repeat, 2-1 = 1; ls at 16 failed ("a b" flagged) once:
			// its own key, no pair; c7, c8 have no action; c10 no result.
			want: diagnose.RunStalls{RunID: "r", NStalls: 2, NRepeats: 1, Stalls: []diagnose.Stall{
				{Tool: "bash", Target: "go test", Failing: true, IsError: true, Seqs: []int64{0, 2, 8}, ResultSeqs: []int64{1, 3, 9}},
			}, Repeated: []diagnose.Stall{
				{Tool: "bash", Target: "ls", Seqs: []int64{6, 10}, ResultSeqs: []int64{7, 11}},
			}},
		},
		{
			name: "different outputs",
			events: []schema.Event{
				rentCall(0, 0, "c1", "bash", "go test"), stallResult(1, 1, "c1", "FAIL x", true),
				rentCall(2, 1, "c2", "bash", "go test"), stallResult(3, 2, "c2", "FAIL y", true),
				rentCall(4, 2, "c3", "bash", "go test"), stallResult(5, 3, "c3", "FAIL x", false),
				rentCall(6, 3, "c4", "edit", "go test"), stallResult(7, 4, "c4", "FAIL x", true),
			},
			want: diagnose.RunStalls{RunID: "r"},
		},
		{
			name: "results paired by tool key without call ids",
			events: []schema.Event{
				{RunID: "r", Seq: 0, Kind: schema.KindToolCall, ToolName: "bash", ToolKey: "t1", Target: "make"},
				{RunID: "r", Seq: 1, Turn: 1, Kind: schema.KindToolResult, ToolName: "bash", ToolKey: "t1", Text: "E", IsError: true},
				{RunID: "r", Seq: 2, Turn: 1, Kind: schema.KindToolCall, ToolName: "bash", ToolKey: "t2", Target: "make"},
				{RunID: "r", Seq: 3, Turn: 2, Kind: schema.KindToolResult, ToolName: "bash", ToolKey: "t2", Text: "E", IsError: true},
			},
			want: diagnose.RunStalls{RunID: "r", NStalls: 1, Stalls: []diagnose.Stall{
				{Tool: "bash", Target: "make", Failing: true, IsError: true, Seqs: []int64{0, 2}, ResultSeqs: []int64{1, 3}},
			}},
		},
		{
			// 3 different edits of one file, each answered "file updated": three
			// actions, no repeat; the same edit twice is one repeat (2-1).
			name: "edits of one file are different actions",
			events: []schema.Event{
				stallArgsCall(0, 0, "e1", "Edit", "a.go", `{"new":"x","path":"a.go"}`), stallResult(1, 1, "e1", "file updated", false),
				stallArgsCall(2, 1, "e2", "Edit", "a.go", `{"new":"y","path":"a.go"}`), stallResult(3, 2, "e2", "file updated", false),
				stallArgsCall(4, 2, "e3", "Edit", "a.go", `{"new":"z","path":"a.go"}`), stallResult(5, 3, "e3", "file updated", false),
				stallArgsCall(6, 3, "e4", "Edit", "a.go", `{"new":"z","path":"a.go"}`), stallResult(7, 4, "e4", "file updated", false),
			},
			want: diagnose.RunStalls{RunID: "r", NRepeats: 1, Repeated: []diagnose.Stall{
				{Tool: "Edit", Target: "a.go", Seqs: []int64{4, 6}, ResultSeqs: []int64{5, 7}},
			}},
		},
		{
			// the same output with exit code 1 and no is_error flag fails: a
			// stall (2-1 = 1); exit code 0 twice is a repeat (2-1 = 1)
			name: "a non-zero exit code is a failing output",
			events: []schema.Event{
				rentCall(0, 0, "c1", "bash", "make"), stallExit(1, 1, "c1", "boom", 1),
				rentCall(2, 1, "c2", "bash", "make"), stallExit(3, 2, "c2", "boom", 1),
				rentCall(4, 2, "c3", "bash", "ls"), stallExit(5, 3, "c3", "a", 0),
				rentCall(6, 3, "c4", "bash", "ls"), stallExit(7, 4, "c4", "a", 0),
			},
			want: diagnose.RunStalls{RunID: "r", NStalls: 1, NRepeats: 1, Stalls: []diagnose.Stall{
				{Tool: "bash", Target: "make", Failing: true, Seqs: []int64{0, 2}, ResultSeqs: []int64{1, 3}},
			}, Repeated: []diagnose.Stall{
				{Tool: "bash", Target: "ls", Seqs: []int64{4, 6}, ResultSeqs: []int64{5, 7}},
			}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := diagnose.Stalls(tc.events)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(diagnose.Stall{}, "Hash")); diff != "" {
				t.Errorf("Stalls (-want +got):\n%s", diff)
			}
			for _, s := range append(got.Stalls, got.Repeated...) {
				if s.Hash == "" || s.Count() != len(s.Seqs) {
					t.Errorf("stall %+v: empty hash or bad count", s)
				}
			}
		})
	}
}
