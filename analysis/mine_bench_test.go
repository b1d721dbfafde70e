package analysis

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/mining"
	"github.com/trajmine/trajmine/synth"
)

// BenchmarkMine compares default mining (action classes and the
// manage_context behaviour profiles) with discovery alone by tool name
// (--no-profiles --activity tool), on one store of distinct synthetic runs
// (`trajmine synth -n 300 --seed 5`, built once per process), or the
// database $TRAJMINE_BENCH_MINE_DB names (opened read-only). Interleave the
// two in separate processes for figures (scripts/bench-mine.sh runs the
// whole command instead):
//
//	go test ./analysis -run '^$' -bench 'Mine/default$' -benchtime 3x
//	go test ./analysis -run '^$' -bench 'Mine/no-profiles-tool$' -benchtime 3x
func BenchmarkMine(b *testing.B) {
	if testing.Short() {
		b.Skip("builds a 300-run store")
	}
	st := mineBenchStore(b)
	ctx := context.Background()
	for _, c := range []struct {
		name string
		o    MineOptions
	}{
		{"default", MineOptions{Mode: mining.ModeClass}},
		{"no-profiles-tool", MineOptions{Mode: mining.ModeTool, NoProfiles: true}},
		{"no-profiles-class", MineOptions{Mode: mining.ModeClass, NoProfiles: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var events int
			for b.Loop() {
				o := c.o
				out, err := MineStore(ctx, st, &o)
				if err != nil {
					b.Fatal(err)
				}
				events = out.Events
			}
			b.ReportMetric(float64(events), "events")
		})
	}
}

var (
	mineBenchOnce sync.Once
	mineBenchSt   *store.Store
	mineBenchDir  string // the store built, removed by TestMain
	mineBenchErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if mineBenchSt != nil {
		mineBenchSt.Close()
	}
	if mineBenchDir != "" {
		os.RemoveAll(mineBenchDir)
	}
	os.Exit(code)
}

func mineBenchStore(b *testing.B) *store.Store {
	b.Helper()
	mineBenchOnce.Do(func() {
		ctx := context.Background()
		if p := os.Getenv("TRAJMINE_BENCH_MINE_DB"); p != "" {
			mineBenchSt, mineBenchErr = store.Open(ctx, store.Config{Path: p, ReadOnly: true})
			return
		}
		dir, err := os.MkdirTemp("", "trajmine-bench-mine-")
		if err != nil {
			mineBenchErr = err
			return
		}
		mineBenchDir = dir
		corpus := filepath.Join(dir, "corpus")
		if _, err := synth.Write(corpus, &synth.Options{N: 300, Seed: 5}); err != nil {
			mineBenchErr = err
			return
		}
		st, err := store.Open(ctx, store.Config{Path: filepath.Join(dir, "mine.duckdb")})
		if err != nil {
			mineBenchErr = err
			return
		}
		if _, err := ingest.Files(ctx, st, []string{corpus}, nil); err != nil {
			mineBenchErr = err
			return
		}
		os.RemoveAll(corpus)
		mineBenchSt = st
	})
	if mineBenchErr != nil {
		b.Fatal(mineBenchErr)
	}
	return mineBenchSt
}
