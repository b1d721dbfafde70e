package store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/schema"
)

// TestSameRunIDManyTimes claims one run id 5,000 times in one file's
// transaction (as an .eval whose samples share an id does): every claim gets
// its own id (same, same@sha8, same@sha8.2, …, same@sha8.4999), and the
// time per claim does not grow with the count. Before the probe remembered
// where it stopped this was quadratic (issue 19: 8,000 samples 28 s,
// 100,000 no answer after 900 s).
func TestSameRunIDManyTimes(t *testing.T) {
	const n = 5000
	st := newFileStore(t)
	sha := strings.Repeat("ab", 32)
	tx, err := st.Begin(context.Background(), &schema.Source{Path: "same.eval", SHA256: sha})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	seen := map[string]bool{}
	for i := range n {
		id, err := tx.ClaimRunID("same")
		if err != nil {
			t.Fatal(err)
		}
		if want := ingest.Candidate("same", "abababab", i); id != want {
			t.Fatalf("claim %d = %q, want %q", i, id, want)
		}
		seen[id] = true
	}
	if len(seen) != n || !seen["same@abababab.4999"] {
		t.Errorf("%d distinct ids", len(seen))
	}
}

// BenchmarkSameRunID claims one run id n times in one file's transaction
// on a database file: the time per claim (µs/claim) must not grow with n
// (BENCHMARKS.md, issue 19).
func BenchmarkSameRunID(b *testing.B) {
	for _, n := range []int{2000, 8000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			st := newBenchStore(b)
			defer st.Close()
			for b.Loop() {
				tx, err := st.Begin(context.Background(), &schema.Source{Path: "same.eval", SHA256: strings.Repeat("ab", 32)})
				if err != nil {
					b.Fatal(err)
				}
				for range n {
					if _, err := tx.ClaimRunID("same"); err != nil {
						b.Fatal(err)
					}
				}
				if err := tx.Rollback(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(n), "µs/claim")
		})
	}
}

func newBenchStore(b *testing.B) *store.Store {
	st, err := store.Open(context.Background(), store.Config{Path: filepath.Join(b.TempDir(), "b.duckdb")})
	if err != nil {
		b.Fatal(err)
	}
	return st
}
