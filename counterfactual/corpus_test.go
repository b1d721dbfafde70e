package counterfactual_test

import (
	"cmp"
	"context"
	"slices"
	"testing"

	"github.com/trajmine/trajmine/counterfactual"
	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/schema"
)

// TestCorpusUses imports the real SWE-agent and mini-SWE-agent trajectories
// of the shared corpus (skipped when it is absent, except under CI=true) and
// checks that uses of both kinds are found and that every use keeps the
// invariants, evidence offsets pointing at their tokens in the output text;
// and that replaying repeated outputs (every size) gives what scanning them
// again gives, on these runs and on the same runs with outputs repeated.
func TestCorpusUses(t *testing.T) {
	for _, dir := range []string{"swe-agent-traj", "mini-swe-agent"} {
		t.Run(dir, func(t *testing.T) {
			sink := &ingest.MemSink{}
			if _, err := ingest.Files(context.Background(), sink, []string{testutil.Corpus(t, dir)}, nil); err != nil {
				t.Fatal(err)
			}
			if len(sink.Rejects) > 0 {
				t.Fatalf("%d rejects, first %+v", len(sink.Rejects), sink.Rejects[0])
			}
			byRun := map[string][]schema.Event{}
			for _, e := range sink.Events {
				byRun[e.RunID] = append(byRun[e.RunID], e)
			}
			var outputs, used, content, target int
			for _, r := range sink.Runs {
				events := byRun[r.RunID]
				slices.SortStableFunc(events, func(a, b schema.Event) int { return cmp.Compare(a.Seq, b.Seq) })
				uses := counterfactual.Uses(events)
				checkUses(t, events, uses)
				checkReplay(t, events)
				checkReplay(t, repeatOutputs(events))
				for _, u := range uses {
					if u.Kind == counterfactual.UseContent {
						content++
					} else {
						target++
					}
				}
				for _, row := range counterfactual.Summarize(events, uses) {
					outputs++
					if row.Used() {
						used++
					}
				}
			}
			t.Logf("%d runs, %d outputs, %d used; %d content uses, %d target uses", len(sink.Runs), outputs, used, content, target)
			if content == 0 || target == 0 || used == 0 {
				t.Errorf("found %d content and %d target uses, %d used outputs; want some of each", content, target, used)
			}
		})
	}
}
