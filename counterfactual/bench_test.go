package counterfactual_test

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/counterfactual"
	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/schema"
	"github.com/trajmine/trajmine/synth"
)

// synthRun is a run of calls model calls: each reads a Go file (every tenth
// re-reads an earlier one) whose output is outBytes of code-like text, and
// says something naming identifiers of earlier outputs.
func synthRun(calls, outBytes int) run {
	r := run{}.
		sys(0, "You are a coding agent. Use read_file, edit and bash.").
		user(0, "Fix the failing test in pkg/server/handler_test.go")
	for t := range calls {
		file := t
		if t%10 == 9 {
			file = t / 2
		}
		path := fmt.Sprintf("pkg/mod%d/file_%d.go", file%7, file)
		var b strings.Builder
		for line := 0; b.Len() < outBytes; line++ {
			fmt.Fprintf(&b, "%d\tfunc (s *Server%d) handleRequest_%d_%d(ctx context.Context, req *api.Request) (int64, error) {\n",
				line+1, file, file, line)
			fmt.Fprintf(&b, "\t\treturn s.store.Lookup(ctx, req.ID, %d) // see docs/design_%d.md\n", 1000+line, file)
		}
		say := "Looking at the code."
		if t > 0 {
			p := t - 1
			say = fmt.Sprintf("handleRequest_%d_%d calls Server%d.Lookup with %d; next I read %s.", p, 2, p, 1003, path)
		}
		r = r.say(int64(t), say).
			call(int64(t), fmt.Sprintf("c%d", t), "read_file", path, fmt.Sprintf(`{"path":%q}`, path)).
			result(int64(t+1), fmt.Sprintf("c%d", t), "read_file", b.String()[:outBytes])
	}
	return r
}

// BenchmarkUses measures Uses over a synthetic run of 200 calls with 2 KiB
// outputs; MB/s counts every Text and Args byte of the run.
func BenchmarkUses(b *testing.B) {
	events := synthRun(200, 2<<10)
	var size int64
	for _, e := range events {
		size += int64(len(e.Text) + len(e.Args))
	}
	if n := len(counterfactual.Uses(events)); n < 200 {
		b.Fatalf("got %d uses, want ≥ 200", n)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		counterfactual.Uses(events)
	}
}

// TestUsesLinear checks that the time Uses takes grows linearly with the
// number of calls, within a factor that tolerates a noisy machine.
func TestUsesLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("timing test")
	}
	measure := func(calls int) float64 {
		events := synthRun(calls, 2<<10)
		r := testing.Benchmark(func(b *testing.B) {
			for b.Loop() {
				counterfactual.Uses(events)
			}
		})
		return float64(r.NsPerOp())
	}
	// the fastest of three interleaved measurements of each size, so that a
	// busy machine slows both alike; 100 sits well between linear (16) and
	// quadratic (256)
	small, big := math.Inf(1), math.Inf(1)
	for range 3 {
		small, big = min(small, measure(200)), min(big, measure(3200))
	}
	ratio := big / small
	t.Logf("16× the calls: %.1f× the time", ratio)
	if ratio > 100 { // 16 when linear, 256 when quadratic
		t.Errorf("16× the calls took %.1f× the time", ratio)
	}
}

// synthRuns generates n distinct synthetic runs (trajmine synth, seed 11:
// every run generated, none repeated), imports them in memory and returns
// each run's events in seq order.
func synthRuns(tb testing.TB, n int) [][]schema.Event {
	tb.Helper()
	dir := tb.TempDir()
	if _, err := synth.Write(dir, &synth.Options{N: n, Seed: 11}); err != nil {
		tb.Fatal(err)
	}
	sink := &ingest.MemSink{}
	if _, err := ingest.Files(context.Background(), sink, []string{dir}, nil); err != nil {
		tb.Fatal(err)
	}
	byRun := map[string][]schema.Event{}
	for _, e := range sink.Events {
		byRun[e.RunID] = append(byRun[e.RunID], e)
	}
	var runs [][]schema.Event
	for _, r := range sink.Runs {
		events := byRun[r.RunID]
		slices.SortStableFunc(events, func(a, b schema.Event) int { return cmp.Compare(a.Seq, b.Seq) })
		runs = append(runs, events)
	}
	return runs
}

// BenchmarkUsesSynth measures Uses over 60 distinct synthetic runs (no
// text repeated across runs, so no run's words are already warm); one op
// is all 60 runs, MB/s counts every Text and Args byte.
func BenchmarkUsesSynth(b *testing.B) {
	runs := synthRuns(b, 60)
	var size int64
	for _, events := range runs {
		for _, e := range events {
			size += int64(len(e.Text) + len(e.Args))
		}
	}
	b.SetBytes(size)
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		for _, events := range runs {
			counterfactual.Uses(events)
		}
	}
	// the process's CPU time per op: steadier than wall time on a machine
	// other work shares
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}
