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
