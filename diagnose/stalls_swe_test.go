package diagnose_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/schema"
)

// TestStallsSWEAgentFamily imports two hand-written logs of the SWE-agent
// family, whose actions carry no call ids (ingest gives each the id
// "action-<turn>" and its observation the same key), and checks that the
// stalls, repeats, re-reads and the stalled end rule see them:
//
// SWE-agent (ingest/testdata/swe-agent-traj/stall.traj, no exit status):
//
//	seq  turn  event
//	 3    0    bash "cat a.py"       → 4  "def f(): …"          (action-0)
//	 6    1    bash "python a.py"    → 7  Traceback …           (action-1, failed: rule traceback)
//	 9    2    bash "cat a.py"       → 10 "def f(): …"          (action-2)
//	12    3    bash "python a.py"    → 13 Traceback …           (action-3, failed: rule traceback)
//
// one stall (python a.py, seqs 6 and 12: 2 − 1 = 1, its failure inferred
// from the text), one repeat (cat a.py, seqs 3 and 9: 1), one re-read of
// a.py at turn 2 while action-0 (first seen at turn 1) is still in the
// prompt: visible; the run ends on the stall's second occurrence: stalled.
//
// mini-swe-agent (ingest/testdata/mini-swe-agent/stall.traj.json, a bare
// list, no exit status):
//
//	 3    0    pytest -q tests/test_a.py → 4  <returncode>1</returncode> (logged)
//	 6    1    nl -ba tests/test_a.py    → 7  <returncode>0</returncode>
//	 9    2    nl -ba tests/test_a.py    → 10 (same output)
//	12    3    pytest -q tests/test_a.py → 13 (same failing output)
//	15    4    sleep 1000                → 16 timed out and has been killed (rule timeout)
//	18    5    sleep 1000                → 19 (same)
//
// two stalls (pytest: logged exit code; sleep: inferred), 2 × (2 − 1) = 2;
// one repeat (nl); one visible re-read; ends stalled on the sleep.
func TestStallsSWEAgentFamily(t *testing.T) {
	root := filepath.Join(testutil.RepoRoot(), "ingest", "testdata")
	tests := []struct {
		format, file string
		stalls       diagnose.RunStalls
		reads        int64
		visible      int64
	}{{
		format: "swe-agent-traj", file: filepath.Join(root, "swe-agent-traj", "stall.traj"),
		stalls: diagnose.RunStalls{RunID: "stall", NStalls: 1, NRepeats: 1,
			Stalls:   []diagnose.Stall{{Tool: "bash", Target: "python a.py", Failing: true, IsError: true, Inferred: true, Seqs: []int64{6, 12}, ResultSeqs: []int64{7, 13}}},
			Repeated: []diagnose.Stall{{Tool: "bash", Target: "cat a.py", Seqs: []int64{3, 9}, ResultSeqs: []int64{4, 10}}}},
		reads: 2, visible: 1,
	}, {
		format: "mini-swe-agent", file: filepath.Join(root, "mini-swe-agent", "stall.traj.json"),
		stalls: diagnose.RunStalls{RunID: "stall", NStalls: 2, NRepeats: 1,
			Stalls: []diagnose.Stall{
				{Tool: "bash", Target: "pytest -q tests/test_a.py", Failing: true, IsError: true, Seqs: []int64{3, 12}, ResultSeqs: []int64{4, 13}},
				{Tool: "bash", Target: "sleep 1000", Failing: true, IsError: true, Inferred: true, Seqs: []int64{15, 18}, ResultSeqs: []int64{16, 19}},
			},
			Repeated: []diagnose.Stall{{Tool: "bash", Target: "nl -ba tests/test_a.py", Seqs: []int64{6, 9}, ResultSeqs: []int64{7, 10}}}},
		reads: 2, visible: 1,
	}}
	for _, tc := range tests {
		t.Run(tc.format, func(t *testing.T) {
			data, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			m, err := ingest.Parse(context.Background(), tc.format, tc.file, data, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Runs) != 1 {
				t.Fatalf("got %d runs, want 1", len(m.Runs))
			}
			got := diagnose.Stalls(m.Events)
			for _, g := range append(got.Stalls, got.Repeated...) {
				if g.Hash == "" {
					t.Errorf("pair %s %q has no hash", g.Tool, g.Target)
				}
			}
			if diff := cmp.Diff(tc.stalls, got, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(diagnose.Stall{}, "Hash")); diff != "" {
				t.Errorf("stalls (-want +got):\n%s", diff)
			}
			v := diagnose.NewVisibility(m.Events, m.ContextOps, nil)
			rr := diagnose.ReReads(m.Events, v, nil)
			if rr.Reads != tc.reads || rr.Visible != tc.visible || rr.Hidden != 0 || rr.Pending != 0 {
				t.Errorf("re-reads: %d reads, %d visible, %d hidden, %d pending; want %d, %d, 0, 0", rr.Reads, rr.Visible, rr.Hidden, rr.Pending, tc.reads, tc.visible)
			}
			end := diagnose.EndReason(m.Runs[0], m.Events, diagnose.RunOccupancy{})
			if end.Reason != schema.EndStalled || end.Rule != diagnose.RuleStall {
				t.Errorf("end = %s by %s (%s), want stalled by %s", end.Reason, end.Rule, end.Why, diagnose.RuleStall)
			}
		})
	}
}
