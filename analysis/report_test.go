package analysis

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/internal/store"
)

// TestReportProgress: AnalyseReport reports each stage in order, done
// rising by one from 0 to the total: the 12 runs of the pass (Runs), the
// sample (2 top + 3 by hash = 5 runs), then finish's 0 and 1 of 1.
func TestReportProgress(t *testing.T) {
	ctx := context.Background()
	st := synthStore(t, 12, 5)
	runs, err := st.Runs(ctx, store.RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	type step struct {
		Stage       Stage
		Done, Total int
	}
	var got []step
	o := &ReportOptions{SampleTop: 2, SampleN: 3, Runs: len(runs),
		Progress: func(s Stage, done, total int) { got = append(got, step{s, done, total}) }}
	if _, err := AnalyseReport(ctx, st, o); err != nil {
		t.Fatal(err)
	}
	var want []step
	for i := 0; i <= len(runs); i++ {
		want = append(want, step{StagePass, i, len(runs)})
	}
	for i := 0; i <= 5; i++ {
		want = append(want, step{StageSample, i, 5})
	}
	want = append(want, step{StageFinish, 0, 1}, step{StageFinish, 1, 1})
	if len(runs) != 12 {
		t.Fatalf("synth wrote %d runs, want 12", len(runs))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
}

// TestFormatTotalsAdd: every count of a FormatTotals adds, the format
// stays (the report's total row), by hand.
func TestFormatTotalsAdd(t *testing.T) {
	a := FormatTotals{Format: "total", Runs: 2, Calls: 10, InputTokens: 1000, OutputTokens: 50, CacheReadTokens: 400, EstTokens: 900, NoUsage: 1, Overflow: 0, CopiedCalls: 3}
	a.Add(FormatTotals{Format: "codex-cli", Runs: 3, Calls: 7, InputTokens: 2500, OutputTokens: 70, CacheReadTokens: 100, EstTokens: 2000, NoUsage: 0, Overflow: 2, CopiedCalls: 1})
	want := FormatTotals{Format: "total", Runs: 5, Calls: 17, InputTokens: 3500, OutputTokens: 120, CacheReadTokens: 500, EstTokens: 2900, NoUsage: 1, Overflow: 2, CopiedCalls: 4}
	if diff := cmp.Diff(want, a); diff != "" {
		t.Errorf("Add (-want +got):\n%s", diff)
	}
}
