package behavior_test

import (
	"context"
	"testing"

	"github.com/trajmine/trajmine/behavior"
	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/schema"
	"github.com/trajmine/trajmine/synth"
)

// BenchmarkRun profiles the 40 runs of a planted corpus (every profile) and
// pools them by family; b.N counts passes over all runs.
func BenchmarkRun(b *testing.B) {
	dir := b.TempDir()
	var ps []synth.Profile
	for _, name := range synth.ProfileNames {
		p, _ := synth.DefaultProfile(name)
		ps = append(ps, p)
	}
	if _, err := synth.Write(dir, &synth.Options{N: 40, Seed: 1, Formats: []string{synth.FormatOpenAIMessages}, Profiles: ps}); err != nil {
		b.Fatal(err)
	}
	sink := &ingest.MemSink{}
	if _, err := ingest.Files(context.Background(), sink, []string{dir}, nil); err != nil {
		b.Fatal(err)
	}
	type rec struct {
		events []schema.Event
		usage  []schema.Usage
		ops    []schema.ContextOp
	}
	recs := map[string]*rec{}
	for _, r := range sink.Runs {
		recs[r.RunID] = &rec{}
	}
	for _, e := range sink.Events {
		recs[e.RunID].events = append(recs[e.RunID].events, e)
	}
	for _, u := range sink.Usage {
		recs[u.RunID].usage = append(recs[u.RunID].usage, u)
	}
	for _, op := range sink.ContextOps {
		recs[op.RunID].ops = append(recs[op.RunID].ops, op)
	}
	b.ReportAllocs()
	for b.Loop() {
		runs := make([]behavior.RunProfile, 0, len(sink.Runs))
		for _, r := range sink.Runs {
			x := recs[r.RunID]
			runs = append(runs, behavior.Run(r, x.events, x.usage, x.ops, nil))
		}
		behavior.ByFamily(runs, nil)
	}
}
