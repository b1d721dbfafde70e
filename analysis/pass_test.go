package analysis

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/synth"
)

// orderAnalysis records the runs add receives; its workers take longer on
// every third run, so results come back out of order.
type orderAnalysis struct {
	got  []string
	fail int // add returns an error at this run (1-based); 0 never
}

func (a *orderAnalysis) Worker() (func(*RunWork) string, error) {
	return func(w *RunWork) string {
		if id := w.Run.RunID; id != "" && id[len(id)-1]%3 == 0 {
			time.Sleep(2 * time.Millisecond)
		}
		return w.Run.RunID
	}, nil
}

func (a *orderAnalysis) Add(id string) error {
	a.got = append(a.got, id)
	if len(a.got) == a.fail {
		return errPassTest
	}
	return nil
}

var errPassTest = errors.New("stop here")

// TestPassOrderAndErrors: every analysis receives the runs in scan order
// whatever order the workers finish in, and an error from add stops the
// pass and is returned.
func TestPassOrderAndErrors(t *testing.T) {
	ctx := context.Background()
	st := synthStore(t, 30, 3)
	var want []string
	if err := st.Scan(ctx, store.ScanOptions{NoText: true}, func(d *store.RunData) error {
		want = append(want, d.Run.RunID)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	env, err := NewEnv(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	a, b := &orderAnalysis{}, &orderAnalysis{}
	if err := Pass(ctx, st, store.ScanOptions{}, env, Of(a), Of(b)); err != nil {
		t.Fatal(err)
	}
	if len(want) < 30 || !slices.Equal(a.got, want) || !slices.Equal(b.got, want) {
		t.Fatalf("add order differs from the scan's:\n got %v\nwant %v", a.got, want)
	}
	c := &orderAnalysis{fail: 5}
	if err := Pass(ctx, st, store.ScanOptions{}, env, Of(c)); !errors.Is(err, errPassTest) || len(c.got) != 5 {
		t.Fatalf("Pass = %v after %d runs, want the add error after 5", err, len(c.got))
	}
}

// synthStore is a store in a temporary directory holding `trajmine synth
// -n n --seed seed`, imported; it is closed when the test ends.
func synthStore(t *testing.T, n int, seed uint64) *store.Store {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := synth.Write(dir, &synth.Options{N: n, Seed: seed}); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, store.Config{Path: filepath.Join(dir, "x.duckdb")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := ingest.Files(ctx, st, []string{dir}, nil); err != nil {
		t.Fatal(err)
	}
	return st
}
