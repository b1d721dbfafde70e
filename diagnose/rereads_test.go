package diagnose_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/schema"
)

// rrRun has a re-read while visible (seq 2), one after a compaction (seq 5),
// one within the same call (seq 8), and a non-read of a read target (seq 11).
var rrRun = struct {
	events []schema.Event
	ops    []schema.ContextOp
}{
	events: []schema.Event{
		rentCall(0, 0, "c1", "read_file", "a.go"),
		rentResult(1, 1, "c1", "read_file", 100),
		rentCall(2, 1, "c2", "read_file", "a.go"),
		rentResult(3, 2, "c2", "read_file", 100),
		rentEvent(4, 3, schema.KindContextOp),
		{RunID: "r", Seq: 5, Turn: 3, Kind: schema.KindToolCall, ToolName: "bash", CallID: "c3", Target: "a.go", Args: `{"command":"cat a.go"}`},
		rentResult(6, 4, "c3", "bash", 100),
		rentCall(7, 4, "c4", "read_file", "b.go"),
		rentCall(8, 4, "c5", "read_file", "b.go"),
		rentResult(9, 5, "c4", "read_file", 10),
		rentResult(10, 5, "c5", "read_file", 10),
		{RunID: "r", Seq: 11, Turn: 5, Kind: schema.KindToolCall, ToolName: "bash", CallID: "c6", Target: "a.go", Args: `{"command":"grep x a.go"}`},
		rentResult(12, 6, "c6", "bash", 1),
		rentEvent(13, 6, schema.KindAssistant),
	},
	ops: []schema.ContextOp{rentOp(4, 3, schema.OpCompaction, "")},
}

func TestReReads(t *testing.T) {
	tests := []struct {
		name   string
		isRead func(string, string) bool
		want   diagnose.RunReReads
	}{
		{
			name: "default classifier",
			want: diagnose.RunReReads{RunID: "r", Reads: 5, Visible: 1, Hidden: 1, Pending: 1, List: []diagnose.ReRead{
				{Target: "a.go", Tool: "read_file", PrevSeq: 0, Seq: 2, Call: 1, Kind: diagnose.ReReadVisible, PrevKey: "c1", Visible: true, PrevTool: "read_file"},
				{Target: "a.go", Tool: "bash", PrevSeq: 2, Seq: 5, Call: 3, Kind: diagnose.ReReadHidden, PrevKey: "c2", PrevTool: "read_file"},
				{Target: "b.go", Tool: "read_file", PrevSeq: 7, Seq: 8, Call: 4, Kind: diagnose.ReReadPending, PrevKey: "c4", PrevTool: "read_file"},
			}},
		},
		{
			name:   "caller classifier",
			isRead: func(tool, _ string) bool { return tool == "bash" },
			// c3's output (turn 4) is still in the prompt of call 5.
			want: diagnose.RunReReads{RunID: "r", Reads: 2, Visible: 1, List: []diagnose.ReRead{
				{Target: "a.go", Tool: "bash", PrevSeq: 5, Seq: 11, Call: 5, Kind: diagnose.ReReadVisible, PrevKey: "c3", Visible: true, PrevTool: "bash"},
			}},
		},
	}
	v := diagnose.NewVisibility(rrRun.events, rrRun.ops, nil)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := diagnose.ReReads(rrRun.events, v, tc.isRead)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("ReReads (-want +got):\n%s", diff)
			}
			if got.Total() != got.Visible+got.Hidden+got.Pending {
				t.Errorf("Total = %d", got.Total())
			}
		})
	}
}

func TestReReadsDTOC(t *testing.T) {
	// k1 is disabled by call 1 (hidden at calls 2..3) and re-enabled by call 3.
	events := append([]schema.Event{}, rentDTOC.events[:10]...)
	events = append(events,
		rentCall(10, 2, "x1", "read_file", "a.go"), // k1 hidden at call 2
		rentCall(11, 4, "x2", "read_file", "a.go"), // k1 visible again at call 4
	)
	v := diagnose.NewVisibility(events, rentDTOC.ops, nil)
	got := diagnose.ReReads(events, v, nil)
	var kinds []diagnose.ReReadKind
	for _, r := range got.List {
		kinds = append(kinds, r.Kind)
	}
	// x1 and x2 have no results, so only k1 can be visible or hidden.
	want := []diagnose.ReReadKind{diagnose.ReReadHidden, diagnose.ReReadVisible}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
	if got.List[1].PrevSeq != 1 {
		t.Errorf("PrevSeq = %d, want 1 (the visible earlier read)", got.List[1].PrevSeq)
	}
}

func TestDefaultIsRead(t *testing.T) {
	tests := []struct {
		tool, args string
		want       bool
	}{
		{"read_file", `{"path":"a"}`, true},
		{"Read", `{}`, true},
		{"view_image", `{}`, true},
		{"open_file", `{}`, true},
		{"edit", `{"path":"a"}`, false},
		{"bash", `{"command":"cat a.go"}`, true},
		{"bash", `{"command":"sed -n 1,20p a.go"}`, true},
		{"bash", `{"command":"sed -i s/a/b/ a.go"}`, false},
		{"bash", `{"command":"nl -ba a.go"}`, true},
		{"bash", `{"command":"go test ./..."}`, false},
		{"shell", `{"command":["bash","-lc","head -5 a.go"]}`, true},
		{"shell", `{"command":["ls","-la"]}`, false},
		{"exec_command", `{"cmd":"tail -n 5 log"}`, true},
		{"bash", `{"command":"bash -lc 'less a.go'"}`, true},
		{"str_replace_editor", `{"command":"view","path":"a"}`, true},
		{"run", `cat a.go`, true},
		{"run", ``, false},
	}
	for _, tc := range tests {
		t.Run(tc.tool+" "+tc.args, func(t *testing.T) {
			if got := diagnose.DefaultIsRead(tc.tool, tc.args); got != tc.want {
				t.Errorf("DefaultIsRead(%q, %q) = %v, want %v", tc.tool, tc.args, got, tc.want)
			}
		})
	}
}

// TestReReadsCopied: the reads of copied calls (a resumed session's copy
// of the run it continues) count in that run: neither as reads nor as
// re-reads here, but a later read of their target is a re-read.
func TestReReadsCopied(t *testing.T) {
	tests := []struct {
		name   string
		copied map[int64]bool
		want   diagnose.RunReReads
	}{
		{
			// calls 0–2 copied: the reads at seq 0 and 2 are the origin's;
			// the cat at call 3 re-reads a.go after the compaction hid c2's
			// output, seq 8 re-reads b.go within call 4
			name: "copied prefix", copied: map[int64]bool{0: true, 1: true, 2: true},
			want: diagnose.RunReReads{RunID: "r", Reads: 3, Hidden: 1, Pending: 1, List: []diagnose.ReRead{
				{Target: "a.go", Tool: "bash", PrevSeq: 2, Seq: 5, Call: 3, Kind: diagnose.ReReadHidden, PrevKey: "c2", PrevTool: "read_file"},
				{Target: "b.go", Tool: "read_file", PrevSeq: 7, Seq: 8, Call: 4, Kind: diagnose.ReReadPending, PrevKey: "c4", PrevTool: "read_file"},
			}},
		},
		{
			name: "every call copied", copied: map[int64]bool{0: true, 1: true, 2: true, 3: true, 4: true, 5: true, 6: true},
			want: diagnose.RunReReads{RunID: "r"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := diagnose.NewVisibility(rrRun.events, rrRun.ops, &diagnose.VisibilityOptions{Copied: tc.copied})
			got := diagnose.ReReads(rrRun.events, v, nil)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("ReReads (-want +got):\n%s", diff)
			}
		})
	}
}
