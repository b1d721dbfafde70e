package mining_test

import (
	"bytes"
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/actions"
	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/mining"
	"github.com/trajmine/trajmine/schema"
)

// TestCorpus mines the shared corpus of real trajectories (skipped when it
// is absent, except under CI=true) in every activity mode, checking the
// invariants: the DFG's node counts add up to the log's events and every
// case has one ▶ and one ■ edge; the variants cover every case; replaying
// the log on its own DFG fits exactly; fitness is within [0, 1]; and the
// text forms are deterministic.
func TestCorpus(t *testing.T) {
	dir := testutil.CorpusDir(t)
	var mem ingest.MemSink
	if _, err := ingest.Files(context.Background(), &mem, []string{dir}, nil); err != nil {
		t.Fatal(err)
	}
	c, err := actions.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	class := func(harness, tool, args string) string {
		cl, _ := c.Classify(harness, tool, args)
		return cl.String()
	}
	for _, o := range []*mining.Options{
		{Mode: mining.ModeTool},
		{Mode: mining.ModeClass, Class: class},
		{Mode: mining.ModeToolTarget, Class: class},
	} {
		t.Run(o.Mode.String(), func(t *testing.T) {
			l := corpusLog(t, &mem, o)
			if len(l.Cases) < 50 || l.Events() < 1000 {
				t.Fatalf("corpus log: %d cases, %d events", len(l.Cases), l.Events())
			}
			d := mining.NewDFG(l)
			sum, starts, ends := 0, 0, 0
			for _, n := range d.Nodes {
				sum += n.Count
			}
			for _, e := range d.Edges {
				if e.From == mining.Start {
					starts += e.Count
				}
				if e.To == mining.End {
					ends += e.Count
				}
				if e.Timed > e.Count || e.MeanSeconds < 0 || e.MedianSeconds < 0 {
					t.Errorf("edge %+v", e)
				}
			}
			if sum != l.Events() || d.Events != sum || starts != len(l.Cases) || ends != len(l.Cases) {
				t.Errorf("node counts %d (header %d), events %d, ▶ %d, ■ %d, cases %d", sum, d.Events, l.Events(), starts, ends, len(l.Cases))
			}
			vs := mining.Variants(l)
			if n := len(vs); n == 0 || vs[n-1].Cumulative < 1-1e-9 || vs[n-1].Cumulative > 1+1e-9 {
				t.Errorf("variants do not cover the log: %+v", vs[n-1])
			}
			if f := mining.Conform(l, d.Model(1)); f.Fitness != 1 || f.Fitting != len(l.Cases) {
				t.Errorf("replay on its own DFG: fitness %v, fitting %d/%d", f.Fitness, f.Fitting, len(l.Cases))
			}
			h := mining.NewHeuristics(l, nil)
			f := mining.Conform(l, h.Model())
			for _, cf := range f.Cases {
				if cf.Fitness < 0 || cf.Fitness > 1 {
					t.Errorf("case %s fitness %v", cf.Case, cf.Fitness)
				}
			}
			if o.Mode == mining.ModeClass {
				for _, n := range d.Nodes {
					if !strings.Contains("read search edit execute test context submit other", n.Name) && !strings.Contains(n.Name, ".") && n.Name != "compaction" && n.Name != "summary" && n.Name != "masking" && n.Name != "truncation" && n.Name != "continuation" {
						t.Errorf("class-mode activity %q", n.Name)
					}
				}
			}
			a, b := render(t, l, nil, nil), render(t, corpusLog(t, &mem, o), nil, nil)
			if a != b {
				t.Error("mining the same corpus twice gave different text")
			}
			var buf bytes.Buffer
			must(t, mining.WriteVariants(&buf, vs, 3))
			t.Logf("%s: %d cases, %d events, %d activities, %d edges, %d variants, heuristics %d arcs, fitness %.3f\n%s",
				o.Mode, len(l.Cases), l.Events(), len(d.Nodes), len(d.Edges), len(vs), len(h.Arcs), f.Fitness, buf.String())
		})
	}
}

// corpusLog builds a log from imported records, run by run in id order.
func corpusLog(t *testing.T, mem *ingest.MemSink, o *mining.Options) *mining.Log {
	t.Helper()
	b, err := mining.NewBuilder(o)
	if err != nil {
		t.Fatal(err)
	}
	evs := map[string][]schema.Event{}
	for _, e := range mem.Events {
		if e.Kind == schema.KindToolCall || e.Kind == schema.KindToolResult || e.Kind == schema.KindCompaction || e.Kind == schema.KindContextOp {
			evs[e.RunID] = append(evs[e.RunID], e)
		}
	}
	ops := map[string][]schema.ContextOp{}
	for _, op := range mem.ContextOps {
		ops[op.RunID] = append(ops[op.RunID], op)
	}
	runs := append([]schema.Run(nil), mem.Runs...)
	sort.Slice(runs, func(i, j int) bool { return runs[i].RunID < runs[j].RunID })
	for i := range runs {
		must(t, b.AddRun(&runs[i], evs[runs[i].RunID], ops[runs[i].RunID]))
	}
	return b.Log()
}
