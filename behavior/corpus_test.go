package behavior_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/trajmine/trajmine/behavior"
	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/schema"
)

// TestCorpus profiles every run of the shared corpus (skipped when it is
// absent, except under CI=true) and checks the invariants of each figure;
// the corpus's harness compactions (Claude Code, Codex, OpenHands, …) must
// be found.
func TestCorpus(t *testing.T) {
	dir := testutil.CorpusDir(t)
	sink := &ingest.MemSink{}
	if _, err := ingest.Files(context.Background(), sink, []string{dir}, &ingest.Options{Warn: func(error) {}}); err != nil {
		t.Fatal(err)
	}
	events := map[string][]schema.Event{}
	for _, e := range sink.Events {
		events[e.RunID] = append(events[e.RunID], e)
	}
	usage := map[string][]schema.Usage{}
	for _, u := range sink.Usage {
		usage[u.RunID] = append(usage[u.RunID], u)
	}
	ops := map[string][]schema.ContextOp{}
	for _, op := range sink.ContextOps {
		ops[op.RunID] = append(ops[op.RunID], op)
	}
	var runs []behavior.RunProfile
	compactions := 0
	for _, r := range sink.Runs {
		p := behavior.Run(r, events[r.RunID], usage[r.RunID], ops[r.RunID], nil)
		runs = append(runs, p)
		for _, h := range p.Manage.Hides {
			if h.Saved != h.Freed*h.HiddenCalls || h.HiddenCalls >= p.Calls || h.Age < 0 || h.Freed > h.Tokens {
				t.Errorf("%s: bad hide %+v", r.RunID, h)
			}
		}
		for _, c := range p.Compactions {
			compactions++
			if c.Dropped < 0 || c.DroppedShare < 0 || c.DroppedShare > 1 || c.Fill < 0 || c.RereadTargets > c.ReadTargets || c.Call < 0 || c.Call > p.Calls {
				t.Errorf("%s: bad compaction %+v", r.RunID, c)
			}
		}
	}
	groups := behavior.ByFamily(runs, nil)
	if _, err := json.Marshal(groups); err != nil {
		t.Fatal(err)
	}
	for _, g := range groups {
		if g.Compaction.Compactions > 0 || g.Manage.ToolRuns > 0 {
			t.Logf("%-22s %3d runs: %d compactions (fill median %.2f, dropped median %.0f, re-read share %.2f); manage_context in %d runs, label %s",
				g.Key, g.Runs, g.Compaction.Compactions, g.Compaction.Fill.Median, g.Compaction.Dropped.Median, g.Compaction.RereadShare, g.Manage.ToolRuns, g.Class.Label)
		}
	}
	t.Logf("%d runs, %d families, %d compactions", len(runs), len(groups), compactions)
	if compactions == 0 {
		t.Errorf("no harness compaction found in the corpus")
	}
}
