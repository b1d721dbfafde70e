package store_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/schema"
)

// growingStore is the store with a hook in Seen, which ingest calls after
// hashing a file and before importing it: the moment a live session's
// harness appends.
type growingStore struct {
	*store.Store
	grow func()
}

func (g *growingStore) Seen(ctx context.Context, sha string) (bool, error) {
	if g.grow != nil {
		g.grow()
		g.grow = nil
	}
	return g.Store.Seen(ctx, sha)
}

// BeginUnhashed is the same hook where a large file imported before its
// hash is known (ingest.UnhashedSink) begins: Seen is not asked of it.
func (g *growingStore) BeginUnhashed(ctx context.Context, src *schema.Source, sha func() (string, error)) (ingest.Tx, error) {
	if g.grow != nil {
		g.grow()
		g.grow = nil
	}
	return g.Store.BeginUnhashed(ctx, src, sha)
}

// TestFileGrowsDuringIngest is issue 19's repro against DuckDB: a session
// appended to between hashing and import. Its sources row covers exactly the
// bytes imported (the session as hashed: 1 turn), and the next ingest, which
// sees a new size, replaces it with the whole session (3 turns) - nothing is
// lost.
func TestFileGrowsDuringIngest(t *testing.T) { forModes(t, testFileGrowsDuringIngest) }

func testFileGrowsDuringIngest(t *testing.T, small int64) {
	ctx := context.Background()
	st := newTestStore(t)
	p := filepath.Join(t.TempDir(), "session.jsonl")
	full, err := os.ReadFile(filepath.Join(fixtures, "split_responses.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	part := strings.Join(strings.SplitAfter(string(full), "\n")[:6], "")
	if err := os.WriteFile(p, []byte(part), 0o644); err != nil {
		t.Fatal(err)
	}
	g := &growingStore{Store: st, grow: func() {
		if err := os.WriteFile(p, full, 0o644); err != nil { // same inode, appended
			t.Fatal(err)
		}
	}}
	if _, err := ingest.Files(ctx, g, []string{p}, &ingest.Options{SmallFile: small}); err != nil {
		t.Fatal(err)
	}
	if n := scalar[int64](t, st, "SELECT bytes FROM sources"); n != int64(len(part)) {
		t.Errorf("sources.bytes = %d, want the %d bytes hashed and imported", n, len(part))
	}
	if n := scalar[int64](t, st, "SELECT n_turns FROM runs"); n != 1 {
		t.Errorf("turns = %d, want the 1 of the session as hashed", n)
	}
	if _, err := ingest.Files(ctx, st, []string{p}, &ingest.Options{SmallFile: small}); err != nil {
		t.Fatal(err)
	}
	c := counts(t, st)
	if c["runs"] != 1 || c["sources"] != 1 || c["events"] != 11 || c["usage"] != 3 {
		t.Errorf("after the next ingest: %v", c)
	}
	if n := scalar[int64](t, st, "SELECT bytes FROM sources"); n != int64(len(full)) {
		t.Errorf("sources.bytes = %d, want %d", n, len(full))
	}
}
