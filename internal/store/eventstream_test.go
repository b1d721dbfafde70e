package store_test

import (
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/actions"
	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/mining"
	"github.com/trajmine/trajmine/schema"
	"github.com/trajmine/trajmine/synth"
)

// memLog builds a mining log from records imported into memory, the way
// EventStream hands them over: runs by id, tool calls and results and the
// compaction/context_op events by seq, context ops.
func memLog(t testing.TB, mem *ingest.MemSink, o *mining.Options) *mining.Log {
	t.Helper()
	b, err := mining.NewBuilder(o)
	if err != nil {
		t.Fatal(err)
	}
	runs := append([]schema.Run(nil), mem.Runs...)
	sort.Slice(runs, func(i, j int) bool { return runs[i].RunID < runs[j].RunID })
	evs := map[string][]schema.Event{}
	for _, e := range mem.Events {
		switch e.Kind {
		case schema.KindToolCall, schema.KindToolResult, schema.KindCompaction, schema.KindContextOp:
			evs[e.RunID] = append(evs[e.RunID], e)
		}
	}
	ops := map[string][]schema.ContextOp{}
	for _, o := range mem.ContextOps {
		ops[o.RunID] = append(ops[o.RunID], o)
	}
	for i := range runs {
		if err := b.AddRun(&runs[i], evs[runs[i].RunID], ops[runs[i].RunID]); err != nil {
			t.Fatal(err)
		}
	}
	return b.Log()
}

// storeLog builds a mining log from the store through EventStream.
func storeLog(t testing.TB, st *store.Store, o store.EventStreamOptions, mo *mining.Options) *mining.Log {
	t.Helper()
	b, err := mining.NewBuilder(mo)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.EventStream(context.Background(), o, b.AddRun); err != nil {
		t.Fatal(err)
	}
	return b.Log()
}

func mineText(t testing.TB, l *mining.Log) string {
	t.Helper()
	var b bytes.Buffer
	if err := mining.NewDFG(l).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if err := mining.WriteVariants(&b, mining.Variants(l), 0); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func classifier(t testing.TB) mining.ClassFunc {
	c, err := actions.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return func(harness, tool, args string) string {
		cl, _ := c.Classify(harness, tool, args)
		return cl.String()
	}
}

// TestEventStreamRoundTrip: the log built from EventStream equals the log built
// from the same records in memory, for every reader, mode and filter; a
// synthetic corpus brings DTOC manage_context calls, Claude Code
// compactions and parallel tool calls.
func TestEventStreamRoundTrip(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := synth.Write(dir, &synth.Options{N: 12, Seed: 2}); err != nil {
		t.Fatal(err)
	}
	paths := []string{dir, filepath.Join(testutil.RepoRoot(), "ingest", "testdata", "claude-code"), filepath.Join(testutil.RepoRoot(), "ingest", "testdata", "openhands")}
	var mem ingest.MemSink
	if _, err := ingest.Files(ctx, &mem, paths, nil); err != nil {
		t.Fatal(err)
	}
	st := newFileStore(t)
	if _, err := ingest.Files(ctx, st, paths, nil); err != nil {
		t.Fatal(err)
	}
	if len(mem.ContextOps) == 0 {
		t.Fatal("corpus without context ops")
	}
	class := classifier(t)
	for _, reader := range store.EventStreamReaders() {
		for _, tc := range []struct {
			name string
			o    store.EventStreamOptions
			mo   *mining.Options
		}{
			{"tool", store.EventStreamOptions{}, nil},
			{"class", store.EventStreamOptions{Args: true}, &mining.Options{Mode: mining.ModeClass, Class: class}},
			{"tool-target", store.EventStreamOptions{Targets: true, Args: true}, &mining.Options{Mode: mining.ModeToolTarget, Class: class}},
		} {
			t.Run(reader+"/"+tc.name, func(t *testing.T) {
				tc.o.Reader = reader
				want := mineText(t, memLog(t, &mem, tc.mo))
				got := mineText(t, storeLog(t, st, tc.o, tc.mo))
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("EventStream log differs from the in-memory one (-mem +store):\n%s", diff)
				}
				if !strings.Contains(want, "context.disable") || !strings.Contains(want, "compaction") {
					t.Errorf("no context ops in the log:\n%s", want)
				}
			})
		}
		t.Run(reader+"/filter", func(t *testing.T) {
			o := store.EventStreamOptions{Reader: reader, Formats: []string{"claude-code"}, Harnesses: []string{"claude-code"}}
			l := storeLog(t, st, o, nil)
			want := memLog(t, &mem, nil).Filter(&mining.Filter{Formats: []string{"claude-code"}, Harnesses: []string{"claude-code"}})
			if len(l.Cases) == 0 || len(l.Cases) != len(want.Cases) {
				t.Fatalf("%d cases, want %d (> 0)", len(l.Cases), len(want.Cases))
			}
			if diff := cmp.Diff(mineText(t, want), mineText(t, l)); diff != "" {
				t.Errorf("filtered (-mem +store):\n%s", diff)
			}
		})
	}
	if err := st.EventStream(ctx, store.EventStreamOptions{Reader: "csv"}, nil); err == nil {
		t.Error("unknown reader: no error")
	}
	stop := fmt.Errorf("stop")
	if err := st.EventStream(ctx, store.EventStreamOptions{}, func(*schema.Run, []schema.Event, []schema.ContextOp) error { return stop }); err != stop {
		t.Errorf("fn's error not returned: %v", err)
	}
}

// Synthetic database of the mining benchmarks: `trajmine synth -n
// mineBenchBase --seed 1` imported, then its runs replayed in rounds under new
// run ids until the tool calls and context ops reach mineBenchActivities.
// Each round shifts every timestamp by one hour per round and drops each tool
// call (with its results) with probability 0.08 (PCG seeded by round and
// run), so replayed runs differ from their originals and from each other
// (distinct variants, as in real logs) while keeping the tool mix, output
// sizes and context ops of the synthetic corpus. Event text is left empty:
// nothing that reads the event log selects it.
const (
	mineBenchBase       = 300
	mineBenchActivities = 1_000_000
	mineBenchDrop       = 0.08
)

// mineBenchDB returns the benchmark database, building it on first use in
// $TRAJMINE_BENCH_DIR (default the temporary directory) and keeping it there,
// so that later runs (in their own processes, for a clean peak RSS) only read.
func mineBenchDB(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("TRAJMINE_BENCH_DIR")
	if dir == "" {
		dir = os.TempDir()
	}
	// the schema's fingerprint in the name: a file an earlier schema wrote
	// is not opened (a read-only open of one fails) but built again
	h := fnv.New32a()
	for _, t := range schema.Tables {
		h.Write([]byte(t.CreateTableSQL()))
	}
	path := filepath.Join(dir, fmt.Sprintf("trajmine-bench-mine-%d-%08x.duckdb", mineBenchActivities, h.Sum32()))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	tmp := path + ".tmp"
	os.Remove(tmp)
	if err := buildMineBenchDB(context.Background(), tb.TempDir(), tmp); err != nil {
		os.Remove(tmp)
		tb.Fatalf("build benchmark database: %v", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		tb.Fatal(err)
	}
	return path
}

type benchRun struct {
	run     schema.Run
	events  []schema.Event
	outputs []schema.ToolOutput
	ops     []schema.ContextOp
}

func buildMineBenchDB(ctx context.Context, scratch, path string) error {
	if _, err := synth.Write(scratch, &synth.Options{N: mineBenchBase, Seed: 1}); err != nil {
		return err
	}
	var mem ingest.MemSink
	if _, err := ingest.Files(ctx, &mem, []string{scratch}, nil); err != nil {
		return err
	}
	byID := map[string]*benchRun{}
	var base []*benchRun
	for _, r := range mem.Runs {
		br := &benchRun{run: r}
		byID[r.RunID] = br
		base = append(base, br)
	}
	sort.Slice(base, func(i, j int) bool { return base[i].run.RunID < base[j].run.RunID })
	for _, e := range mem.Events {
		e.Text = ""
		byID[e.RunID].events = append(byID[e.RunID].events, e)
	}
	for _, o := range mem.ToolOutputs {
		byID[o.RunID].outputs = append(byID[o.RunID].outputs, o)
	}
	for _, o := range mem.ContextOps {
		byID[o.RunID].ops = append(byID[o.RunID].ops, o)
	}
	for _, br := range base {
		sort.Slice(br.events, func(i, j int) bool { return br.events[i].Seq < br.events[j].Seq })
	}

	st, err := store.Open(ctx, store.Config{Path: path})
	if err != nil {
		return err
	}
	defer st.Close()
	acts := 0
	for round := 0; acts < mineBenchActivities; round++ {
		src := &schema.Source{Path: fmt.Sprintf("bench/round-%04d", round), SHA256: fmt.Sprintf("%064x", round+1), Format: "bench", IngestedAt: time.Unix(0, 0).UTC()}
		tx, err := st.Begin(ctx, src)
		if err != nil {
			return err
		}
		for i, br := range base {
			n, err := replayRun(tx, br, round, i)
			if err != nil {
				tx.Rollback()
				return err
			}
			acts += n
			src.Runs++
		}
		if err := tx.Commit(src); err != nil {
			return err
		}
	}
	return nil
}

// replayRun appends round's copy of br and returns its activities (tool
// calls not carrying context ops, plus distinct (seq, op) groups).
func replayRun(tx ingest.Tx, br *benchRun, round, idx int) (int, error) {
	rng := rand.New(rand.NewPCG(uint64(round), uint64(idx)))
	shift := time.Duration(round) * time.Hour
	id := func(s string) string {
		if s == "" {
			return ""
		}
		return fmt.Sprintf("%s~%04d", s, round)
	}
	opSeq := map[int64]bool{}
	groups := map[[2]any]bool{}
	for _, o := range br.ops {
		opSeq[o.Seq] = true
		groups[[2]any{o.Seq, o.Op}] = true
	}
	dropCall := map[string]bool{}
	dropSeq := map[int64]bool{}
	acts := len(groups)
	for _, e := range br.events {
		if e.Kind != schema.KindToolCall || opSeq[e.Seq] {
			continue
		}
		if rng.Float64() < mineBenchDrop {
			dropSeq[e.Seq] = true
			if e.CallID != "" {
				dropCall[e.CallID] = true
			}
			continue
		}
		acts++
	}
	r := br.run
	r.RunID, r.ParentRunID = id(r.RunID), id(r.ParentRunID)
	if r.StartedAt != nil {
		t := r.StartedAt.Add(shift)
		r.StartedAt = &t
	}
	if r.EndedAt != nil {
		t := r.EndedAt.Add(shift)
		r.EndedAt = &t
	}
	if err := tx.Run(&r); err != nil {
		return 0, err
	}
	for _, e := range br.events {
		if dropSeq[e.Seq] || e.Kind == schema.KindToolResult && e.CallID != "" && dropCall[e.CallID] {
			dropSeq[e.Seq] = true
			continue
		}
		e.RunID = r.RunID
		if e.TS != nil {
			t := e.TS.Add(shift)
			e.TS = &t
		}
		if err := tx.Event(&e); err != nil {
			return 0, err
		}
	}
	for _, o := range br.outputs {
		if dropSeq[o.Seq] {
			continue
		}
		o.RunID = r.RunID
		if err := tx.ToolOutput(&o); err != nil {
			return 0, err
		}
	}
	for _, o := range br.ops {
		o.RunID = r.RunID
		if err := tx.ContextOp(&o); err != nil {
			return 0, err
		}
	}
	return acts, nil
}

// BenchmarkMine1M times process discovery on a million activities read from
// DuckDB (mineBenchDB: 23,400 runs, 1,003,878 tool calls and context-op
// groups, 2.0 M event rows read): EventStream into a mining.Builder, then the
// DFG, the variants, the heuristics net (defaults) and the token-replay
// fitness of every case against that net. Sub-benchmarks: reader (chunks,
// the default; sql; arrow with -tags duckdb_arrow) × activity mode (tool-target without a
// classifier; class with the actions classifier, memoised per distinct
// arguments: the replayed runs share theirs, so 99 % of the calls hit the
// memo), and the baselines: DuckDB computing the DFG (tool names, context
// ops, count, mean and median time per edge) in SQL with lag/lead range
// functions, and a plain count per run of the same rows. Every
// sub-benchmark, baselines included, makes one call before the timer: the
// first call in the process (DuckDB's first read of the table blocks, the
// CLI's case) is reported apart as cold-s, and ns/op, read-s/op, mine-s/op
// and cpu-s/op are the calls after it, so the ratios are warm against warm. Run each in its own process so that peak RSS (VmHWM)
// is its own:
//
//	go test ./internal/store -run '^$' -bench 'Mine1M/chunks/tool-target$' -benchtime 3x
//	go test ./internal/store -run '^$' -bench 'Mine1M/sql/tool-target$' -benchtime 3x
//	go test -tags duckdb_arrow ./internal/store -run '^$' -bench 'Mine1M/arrow/tool-target$' -benchtime 3x
//	go test ./internal/store -run '^$' -bench 'Mine1M/baseline-sql-dfg$' -benchtime 3x
//
// The first call builds the database (≈ 2.5 min, 300 MB; the schema's fingerprint in the file name, so a schema change builds it again) in
// $TRAJMINE_BENCH_DIR (default the temporary directory) and keeps it for
// the next ones.
func BenchmarkMine1M(b *testing.B) {
	ctx := context.Background()
	path := mineBenchDB(b)
	st, err := store.Open(ctx, store.Config{Path: path, ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	class := classifier(b)
	for _, reader := range store.EventStreamReaders() {
		for _, mode := range []struct {
			name string
			o    store.EventStreamOptions
			mo   *mining.Options
		}{
			{"tool-target", store.EventStreamOptions{Targets: true}, &mining.Options{Mode: mining.ModeToolTarget}},
			{"class", store.EventStreamOptions{Args: true}, &mining.Options{Mode: mining.ModeClass, Class: class}},
		} {
			b.Run(reader+"/"+mode.name, func(b *testing.B) {
				mode.o.Reader = reader
				var events, cases, variants int
				var fit float64
				run := func() (read, mine time.Duration) {
					t0 := time.Now()
					l := storeLog(b, st, mode.o, mode.mo)
					t1 := time.Now()
					mining.NewDFG(l)
					vs := mining.Variants(l)
					h := mining.NewHeuristics(l, nil)
					c := mining.Conform(l, h.Model())
					events, cases, variants, fit = l.Events(), len(l.Cases), len(vs), c.Fitness
					return t1.Sub(t0), time.Since(t1)
				}
				// the first call in the process pays DuckDB's first read
				// of the table blocks (the CLI's case): reported apart
				c0 := cpuTime()
				coldRead, coldMine := run()
				coldCPU := cpuTime() - c0
				b.ResetTimer()
				var read, mine time.Duration
				c0 = cpuTime()
				for b.Loop() {
					r, m := run()
					read += r
					mine += m
				}
				b.ReportMetric((cpuTime()-c0).Seconds()/float64(b.N), "cpu-s/op")
				b.ReportMetric(read.Seconds()/float64(b.N), "read-s/op")
				b.ReportMetric(mine.Seconds()/float64(b.N), "mine-s/op")
				b.ReportMetric((coldRead + coldMine).Seconds(), "cold-s")
				b.ReportMetric(coldRead.Seconds(), "cold-read-s")
				b.ReportMetric(coldCPU.Seconds(), "cold-cpu-s")
				b.ReportMetric(float64(events), "events")
				b.ReportMetric(float64(cases), "cases")
				b.ReportMetric(float64(variants), "variants")
				b.ReportMetric(fit, "fitness")
				b.ReportMetric(peakRSSMB(), "peak-RSS-MB")
			})
		}
	}
	b.Run("baseline-sql-dfg", func(b *testing.B) {
		var edges, steps int64
		run := func() {
			edges, steps = 0, 0
			rows, err := st.DB().QueryContext(ctx, baselineDFGSQL)
			if err != nil {
				b.Fatal(err)
			}
			for rows.Next() {
				var from, to string
				var n int64
				var mean, median *float64
				if err := rows.Scan(&from, &to, &n, &mean, &median); err != nil {
					b.Fatal(err)
				}
				edges++
				steps += n
			}
			if err := rows.Close(); err != nil {
				b.Fatal(err)
			}
		}
		// warmed like the pipeline above: the first call in the process
		// (DuckDB's first read of the table blocks) runs before the timer
		// and is reported apart as cold-s, so ns/op is warm against warm
		t0, c0 := time.Now(), cpuTime()
		run()
		cold, coldCPU := time.Since(t0), cpuTime()-c0
		b.ResetTimer()
		c0 = cpuTime()
		for b.Loop() {
			run()
		}
		b.ReportMetric(cold.Seconds(), "cold-s")
		b.ReportMetric(coldCPU.Seconds(), "cold-cpu-s")
		b.ReportMetric((cpuTime()-c0).Seconds()/float64(b.N), "cpu-s/op")
		b.ReportMetric(float64(edges), "edges")
		b.ReportMetric(float64(steps), "steps")
		b.ReportMetric(peakRSSMB(), "peak-RSS-MB")
	})
	b.Run("baseline-count", func(b *testing.B) {
		var n int64
		run := func() {
			n = 0
			rows, err := st.DB().QueryContext(ctx, `SELECT run_id, count(*) FROM events WHERE starts_with(kind, 'tool_') OR starts_with(kind, 'co') GROUP BY run_id`)
			if err != nil {
				b.Fatal(err)
			}
			for rows.Next() {
				var id string
				var c int64
				if err := rows.Scan(&id, &c); err != nil {
					b.Fatal(err)
				}
				n += c
			}
			if err := rows.Close(); err != nil {
				b.Fatal(err)
			}
		}
		run() // warmed like the others
		b.ResetTimer()
		c0 := cpuTime()
		for b.Loop() {
			run()
		}
		b.ReportMetric((cpuTime()-c0).Seconds()/float64(b.N), "cpu-s/op")
		b.ReportMetric(float64(n), "rows")
		b.ReportMetric(peakRSSMB(), "peak-RSS-MB")
	})
}

// cpuTime is the process's user + system CPU time so far: on a busy machine
// a steadier figure than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// baselineDFGSQL is the directly-follows graph in DuckDB SQL, in tool mode:
// tool calls (those not carrying context ops) and context-op groups per
// (run, seq, op), ordered by seq, with ▶/■ edges, count, mean and median
// seconds between timestamped steps.
const baselineDFGSQL = `WITH ops AS (
  SELECT DISTINCT run_id, seq, op FROM context_ops
), acts AS (
  SELECT e.run_id, e.seq, 0 AS sub, e.ts, e.tool_name AS act FROM events e
  WHERE e.kind = 'tool_call' AND NOT EXISTS (SELECT 1 FROM ops o WHERE o.run_id = e.run_id AND o.seq = e.seq)
  UNION ALL
  SELECT run_id, seq, 1, NULL, CASE WHEN op IN ('disable', 'enable') THEN 'context.' || op ELSE op END FROM ops
), steps AS (
  SELECT run_id, act,
    lag(act, 1, '▶') OVER w AS prv,
    lead(act) OVER w IS NULL AS last,
    epoch_us(ts) - epoch_us(lag(ts) OVER w) AS dt
  FROM acts WINDOW w AS (PARTITION BY run_id ORDER BY seq, sub)
)
SELECT prv, act, count(*), avg(dt) / 1e6, median(dt) / 1e6 FROM steps GROUP BY prv, act
UNION ALL
SELECT act, '■', count(*), NULL, NULL FROM steps WHERE last GROUP BY act`
