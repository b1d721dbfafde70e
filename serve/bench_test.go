package serve_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/trajmine/trajmine/analysis"
	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/redact"
	"github.com/trajmine/trajmine/serve"
	"github.com/trajmine/trajmine/synth"
)

// benchDB is the database the conversation benchmarks read:
// $TRAJMINE_BENCH_DB (e.g. trajmine synth -n 1000 DIR, then trajmine
// --db F ingest DIR), else 30 synthetic runs imported into a temporary
// file.
func benchDB(b *testing.B) string {
	if db := os.Getenv("TRAJMINE_BENCH_DB"); db != "" {
		return db
	}
	dir := b.TempDir()
	if _, err := synth.Write(filepath.Join(dir, "logs"), &synth.Options{N: 30, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	db := filepath.Join(dir, "bench.duckdb")
	st, err := store.Open(context.Background(), store.Config{Path: db})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	if _, err := ingest.Files(context.Background(), st, []string{filepath.Join(dir, "logs")}, &ingest.Options{}); err != nil {
		b.Fatal(err)
	}
	return db
}

// BenchmarkConversationOpen is what opening a run's conversation under
// trajmine serve costs: analysis.LoadConversation on the read-only store
// (texts up to serve.ConversationChars, redacted), for runs taken in a
// fixed spread over the store; "join" reads the run's rows as before
// store.IndexRuns (a join over the runs of the events, usage and
// context_ops tables), "indexed" after it (the run's rowid spans), and
// the rows-* benchmarks time store.ConversationRows alone (the reads,
// without building and redacting the view). Each reports its fastest
// and median op besides the mean. BENCHMARKS.md, "Issue 32.9".
//
//	TRAJMINE_BENCH_DB=/tmp/synth1000.duckdb go test ./serve -run '^$' -bench ConversationOpen -benchtime 200x -count 5
func BenchmarkConversationOpen(b *testing.B) {
	ctx := context.Background()
	st, err := store.Open(ctx, store.Config{Path: benchDB(b), ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	runs, err := st.Runs(ctx, store.RunFilter{})
	if err != nil {
		b.Fatal(err)
	}
	red, err := redact.New()
	if err != nil {
		b.Fatal(err)
	}
	// each op's time, for its fastest and median besides the mean (the
	// machine is shared: the mean carries the others' load)
	timed := func(f func(b *testing.B, id string)) func(b *testing.B) {
		return func(b *testing.B) {
			ds := make([]time.Duration, 0, b.N)
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				f(b, runs[(i*7919)%len(runs)].RunID)
				ds = append(ds, time.Since(t0))
			}
			slices.Sort(ds)
			b.ReportMetric(float64(ds[0].Microseconds())/1000, "ms-min")
			b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "ms-median")
		}
	}
	open := timed(func(b *testing.B, id string) {
		if _, err := analysis.LoadConversation(ctx, st, id, &analysis.ConversationOptions{Limit: serve.ConversationChars, Redact: red}); err != nil {
			b.Fatal(err)
		}
	})
	rows := timed(func(b *testing.B, id string) {
		if r, err := st.ConversationRows(ctx, []string{id}, serve.ConversationChars); err != nil || r[id] == nil {
			b.Fatal(err)
		}
	})
	b.Run("join", open)
	b.Run("rows-join", rows)
	if _, err := st.IndexRuns(ctx); err != nil {
		b.Fatal(err)
	}
	b.Run("indexed", open)
	b.Run("rows-indexed", rows)
}
