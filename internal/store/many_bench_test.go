package store_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/synth"
)

// BenchmarkManyVsBig (issue 18) imports the same Claude Code sessions two
// ways into a new DuckDB file: as many small session files (one per
// session, as real users have them) and as one big JSONL holding the same
// files concatenated in path order (the importer splits sessions by
// sessionId, so both hold the same runs and events, and the same bytes).
// The corpus is `trajmine synth -n $TRAJMINE_BENCH_MANY_N --seed 21
// --formats claude-code --calls 3` (default N 300) built once per process,
// or the directory $TRAJMINE_BENCH_MANY_DIR; the format is claude-code,
// or $TRAJMINE_BENCH_MANY_FORMAT ("auto": detected per file, as trajmine
// ingest does without --format). Both inputs are read once
// before timing (page cache warm for both). Run each in its own process so
// that peak-RSS is its own; scripts/bench-ingest.sh many does so,
// interleaved.
//
//	go test ./internal/store -run '^$' -bench 'ManyVsBig/many$' -benchtime 1x
//	go test ./internal/store -run '^$' -bench 'ManyVsBig/big$' -benchtime 1x
func BenchmarkManyVsBig(b *testing.B) {
	dir, big, size, files := manyCorpus(b)
	ctx := context.Background()
	format := os.Getenv("TRAJMINE_BENCH_MANY_FORMAT")
	if format == "" {
		format = "claude-code"
	}
	for _, c := range []struct {
		name  string
		input string
	}{{"many", dir}, {"big", big}} {
		b.Run(c.name, func(b *testing.B) {
			warm(b, c.input)
			b.SetBytes(size)
			b.ResetTimer()
			var sum *ingest.Summary
			for range b.N {
				b.StopTimer()
				st, err := store.Open(ctx, store.Config{Path: filepath.Join(b.TempDir(), "bench.duckdb")})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				sum, err = ingest.Files(ctx, st, []string{c.input}, &ingest.Options{Format: format})
				if err != nil || sum.Failed > 0 {
					b.Fatalf("ingest: %v %v", err, sum.Errors)
				}
				b.StopTimer()
				st.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(files), "files")
			b.ReportMetric(float64(sum.Runs), "runs")
			b.ReportMetric(peakRSSMB(), "peak-RSS-MB")
		})
	}
}

// manyCorpus returns the session directory, the big file of the same
// bytes, their size and the number of session files.
func manyCorpus(b *testing.B) (dir, big string, size int64, files int) {
	b.Helper()
	dir = os.Getenv("TRAJMINE_BENCH_MANY_DIR")
	root := b.TempDir()
	if dir == "" {
		n := 300
		if v, err := strconv.Atoi(os.Getenv("TRAJMINE_BENCH_MANY_N")); err == nil && v > 0 {
			n = v
		}
		dir = filepath.Join(root, "many")
		if _, err := synth.Write(dir, &synth.Options{N: n, Seed: 21, Formats: []string{synth.FormatClaudeCode}, Calls: 3}); err != nil {
			b.Fatal(err)
		}
	}
	paths, err := ingest.Expand([]string{dir}, nil)
	if err != nil {
		b.Fatal(err)
	}
	sort.Strings(paths)
	big = filepath.Join(root, "big", "all.jsonl")
	if err := os.MkdirAll(filepath.Dir(big), 0o755); err != nil {
		b.Fatal(err)
	}
	out, err := os.Create(big)
	if err != nil {
		b.Fatal(err)
	}
	defer out.Close()
	for _, p := range paths {
		in, err := os.Open(p)
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(out, in)
		in.Close()
		if err != nil {
			b.Fatal(err)
		}
		size += n
	}
	return dir, big, size, len(paths)
}

// warm reads every file under path once, so that the timed import finds
// them in the page cache.
func warm(b *testing.B, path string) {
	b.Helper()
	paths, err := ingest.Expand([]string{path}, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, f)
		f.Close()
	}
}
