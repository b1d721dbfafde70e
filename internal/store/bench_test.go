package store_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/synth"
)

// The big-file benchmarks compare trajmine's Claude Code ingest with DuckDB's
// own read_ndjson of the same file (the baseline named in BENCHMARKS.md). The
// file is built once per process from corpus sessions repeated under new
// session ids; its size is $TRAJMINE_BENCH_MB (default 520) MB. Run each
// benchmark in its own process so that peak-RSS (VmHWM) is its own:
//
//	go test ./internal/store -run '^$' -bench 'BigClaudeCode$' -benchtime 1x
//	go test ./internal/store -run '^$' -bench 'BigReadNDJSON$' -benchtime 1x

var (
	bigOnce sync.Once
	bigPath string
	bigSize int64
	bigErr  error
)

func bigFile(b *testing.B) (string, int64) {
	b.Helper()
	bigOnce.Do(func() {
		if f := os.Getenv("TRAJMINE_BENCH_FILE"); f != "" { // a Claude Code JSONL of the caller's, such as distinct synth sessions
			st, err := os.Stat(f)
			bigPath, bigErr = f, err
			if err == nil {
				bigSize = st.Size()
			}
			return
		}
		mb := int64(520)
		if v := os.Getenv("TRAJMINE_BENCH_MB"); v != "" {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 {
				mb = n
			}
		}
		dir := os.Getenv("TRAJMINE_BENCH_DIR")
		if dir == "" {
			dir = os.TempDir()
		}
		bigPath = filepath.Join(dir, "trajmine-bench-claude-"+strconv.FormatInt(mb, 10)+"mb.jsonl")
		if st, err := os.Stat(bigPath); err == nil && st.Size() >= mb<<20 {
			bigSize = st.Size()
			return
		}
		bigSize, bigErr = testutil.BuildBigClaudeFile(bigPath, testutil.CorpusDir(b)+"/claude-code", mb<<20)
	})
	if bigErr != nil {
		b.Fatal(bigErr)
	}
	return bigPath, bigSize
}

// peakRSSMB reads the process's peak resident set size (VmHWM) in MB.
func peakRSSMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			f := strings.Fields(line)
			if len(f) >= 2 {
				kb, _ := strconv.ParseFloat(f[1], 64)
				return kb / 1024
			}
		}
	}
	return 0
}

func BenchmarkBigClaudeCode(b *testing.B) {
	path, size := bigFile(b)
	ctx := context.Background()
	b.SetBytes(size)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		db := filepath.Join(b.TempDir(), "bench.duckdb")
		st, err := store.Open(ctx, store.Config{Path: db})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		sum, err := ingest.Files(ctx, st, []string{path}, &ingest.Options{Format: "claude-code"})
		if err != nil || sum.Failed > 0 {
			b.Fatalf("ingest: %v %v", err, sum.Errors)
		}
		b.StopTimer()
		b.ReportMetric(float64(sum.Events), "events")
		st.Close()
		b.StartTimer()
	}
	b.ReportMetric(peakRSSMB(), "peak-RSS-MB")
}

func BenchmarkBigReadNDJSON(b *testing.B) {
	path, size := bigFile(b)
	ctx := context.Background()
	b.SetBytes(size)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		db := filepath.Join(b.TempDir(), "bench.duckdb")
		st, err := store.Open(ctx, store.Config{Path: db})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := st.DB().ExecContext(ctx, "CREATE TABLE raw AS SELECT * FROM read_ndjson(?)", path); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		st.Close()
		b.StartTimer()
	}
	b.ReportMetric(peakRSSMB(), "peak-RSS-MB")
}

// reimport is a Sink that never reports a file as seen, so that the same
// corpus files can be imported again and again (each time as new runs).
type reimport struct{ *store.Store }

func (reimport) Seen(context.Context, string) (bool, error) { return false, nil }

// BenchmarkCorpusFormats measures import throughput per format on the shared
// corpus repeated until the whole corpus has been read ≥ 200 MB: every format
// folder is imported the same number of times (reps), each time in full, into
// a new DuckDB file per format. MB/s counts file bytes; files/s shows the
// per-file overhead (detection, hashing, one transaction per file) that
// dominates formats with small files.
//
//	go test ./internal/store -run '^$' -bench CorpusFormats -benchtime 1x
func BenchmarkCorpusFormats(b *testing.B) {
	root := testutil.CorpusDir(b)
	dirs, err := os.ReadDir(root)
	if err != nil {
		b.Fatal(err)
	}
	sizes := map[string]int64{}
	counts := map[string]int{}
	var total int64
	var names []string
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "licenses" {
			continue
		}
		files, _ := os.ReadDir(filepath.Join(root, d.Name()))
		for _, f := range files {
			if info, err := f.Info(); err == nil && !f.IsDir() {
				sizes[d.Name()] += info.Size()
				counts[d.Name()]++
			}
		}
		total += sizes[d.Name()]
		names = append(names, d.Name())
	}
	reps := int((200<<20)/total) + 1
	ctx := context.Background()
	for _, name := range names {
		b.Run(name, func(b *testing.B) {
			dir := filepath.Join(root, name)
			b.SetBytes(sizes[name] * int64(reps))
			for range b.N {
				b.StopTimer()
				st, err := store.Open(ctx, store.Config{Path: filepath.Join(b.TempDir(), "bench.duckdb")})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				for range reps {
					sum, err := ingest.Files(ctx, reimport{st}, []string{dir}, nil)
					if err != nil || sum.Failed > 0 {
						b.Fatalf("ingest %s: %v %v", name, err, sum.Errors)
					}
				}
				b.StopTimer()
				st.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(counts[name]*reps*b.N)/b.Elapsed().Seconds(), "files/s")
			b.ReportMetric(float64(reps), "reps")
		})
	}
}

// BenchmarkManyFiles imports a synthetic corpus of many session files
// (trajmine synth -n 300: ~200 Claude Code and Codex files) with small files
// committed in batches (the default) and with one transaction per file.
//
//	go test ./internal/store -run '^$' -bench ManyFiles -benchtime 3x
func BenchmarkManyFiles(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "corpus")
	m, err := synth.Write(dir, &synth.Options{N: 300, Seed: 3})
	if err != nil {
		b.Fatal(err)
	}
	var size int64
	files := map[string]bool{}
	for _, f := range m.Files {
		files[f.Path] = true
	}
	for p := range files {
		if st, err := os.Stat(filepath.Join(dir, p)); err == nil {
			size += st.Size()
		}
	}
	ctx := context.Background()
	for _, mode := range []struct {
		name  string
		small int64
	}{{"batched", 0}, {"per-file", -1}} {
		b.Run(mode.name, func(b *testing.B) {
			b.SetBytes(size)
			for range b.N {
				b.StopTimer()
				st, err := store.Open(ctx, store.Config{Path: filepath.Join(b.TempDir(), "bench.duckdb")})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				sum, err := ingest.Files(ctx, st, []string{dir}, &ingest.Options{SmallFile: mode.small})
				if err != nil || sum.Failed > 0 {
					b.Fatalf("ingest: %v %v", err, sum.Errors)
				}
				b.StopTimer()
				st.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(len(files)*b.N)/b.Elapsed().Seconds(), "files/s")
		})
	}
}
