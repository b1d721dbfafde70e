package store_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/schema"
)

// beginCounter is the store counting how each large file's import began:
// before its hash was known (BeginUnhashed) or after (Begin).
type beginCounter struct {
	*store.Store
	unhashed, hashed int
	asked            int // calls of an unhashed import's sha func
}

func (b *beginCounter) Begin(ctx context.Context, src *schema.Source) (ingest.Tx, error) {
	b.hashed++
	return b.Store.Begin(ctx, src)
}

func (b *beginCounter) BeginUnhashed(ctx context.Context, src *schema.Source, sha func() (string, error)) (ingest.Tx, error) {
	b.unhashed++
	return b.Store.BeginUnhashed(ctx, src, func() (string, error) { b.asked++; return sha() })
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestUnhashedImport: a large file is imported before its sha256 is known
// only when no file the store holds, nor an earlier file of the same
// ingest, has its size; its rows carry the file's sha256 (computed here
// with crypto/sha256); a run id another file holds asks for the hash
// early and is stored as id@<sha8>. A file skipped as seen begins no
// transaction: that the copies are skipped (not imported twice) shows
// they were hashed first.
func TestUnhashedImport(t *testing.T) {
	full, err := os.ReadFile(filepath.Join(fixtures, "split_responses.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	part := []byte(strings.Join(strings.SplitAfter(string(full), "\n")[:6], ""))
	// the same size as full, another content (and session id)
	other := []byte(strings.ReplaceAll(string(full), `"sessionId":"s-split"`, `"sessionId":"s-other"`))
	if len(other) != len(full) || string(other) == string(full) {
		t.Fatal("fixture: other must differ from full at the same size")
	}
	type file struct {
		name string
		data []byte
	}
	tests := []struct {
		name                    string
		before                  []file // imported first, by the plain store
		files                   []file // then imported together through beginCounter
		unhashed, hashed, asked int
		skipped                 int
		runs                    map[string]string // run_id → source_sha256 afterwards
	}{
		{
			name: "new size: begun without the hash", files: []file{{"a.jsonl", full}},
			unhashed: 1, runs: map[string]string{"s-split": sha256Hex(full)},
		},
		{
			name: "a copy of an imported file: hashed first, skipped", before: []file{{"a.jsonl", full}}, files: []file{{"b.jsonl", full}},
			skipped: 1, runs: map[string]string{"s-split": sha256Hex(full)},
		},
		{
			name: "a size the store holds, other content: hashed first, imported", before: []file{{"a.jsonl", full}}, files: []file{{"b.jsonl", other}},
			hashed: 1, runs: map[string]string{"s-split": sha256Hex(full), "s-other": sha256Hex(other)},
		},
		{
			name: "the same size twice in one ingest: the second hashed first", files: []file{{"a.jsonl", full}, {"b.jsonl", other}},
			unhashed: 1, hashed: 1, runs: map[string]string{"s-split": sha256Hex(full), "s-other": sha256Hex(other)},
		},
		{
			name: "the same content twice in one ingest: the second skipped", files: []file{{"a.jsonl", full}, {"b.jsonl", full}},
			unhashed: 1, skipped: 1, runs: map[string]string{"s-split": sha256Hex(full)},
		},
		{
			name: "a run id another file holds: hashed early, id@sha8", before: []file{{"a.jsonl", part}}, files: []file{{"b.jsonl", full}},
			unhashed: 1, asked: 1,
			runs: map[string]string{"s-split": sha256Hex(part), "s-split@" + sha256Hex(full)[:8]: sha256Hex(full)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			st := newTestStore(t)
			dir := t.TempDir()
			write := func(fs []file) []string {
				var paths []string
				for _, f := range fs {
					p := filepath.Join(dir, f.name)
					if err := os.WriteFile(p, f.data, 0o644); err != nil {
						t.Fatal(err)
					}
					paths = append(paths, p)
				}
				return paths
			}
			o := &ingest.Options{SmallFile: -1, Workers: 1}
			if len(tt.before) > 0 {
				if _, err := ingest.Files(ctx, st, write(tt.before), o); err != nil {
					t.Fatal(err)
				}
			}
			bc := &beginCounter{Store: st}
			sum, err := ingest.Files(ctx, bc, write(tt.files), o)
			if err != nil || sum.Failed > 0 {
				t.Fatalf("ingest: %v %v", err, sum.Errors)
			}
			if bc.unhashed != tt.unhashed || bc.hashed != tt.hashed || bc.asked != tt.asked {
				t.Errorf("begun unhashed %d, hashed %d, hash asked %d; want %d, %d, %d", bc.unhashed, bc.hashed, bc.asked, tt.unhashed, tt.hashed, tt.asked)
			}
			if sum.Skipped != tt.skipped {
				t.Errorf("skipped %d, want %d", sum.Skipped, tt.skipped)
			}
			got := map[string]string{}
			rows, err := st.DB().QueryContext(ctx, "SELECT run_id, source_sha256 FROM runs")
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			for rows.Next() {
				var id, sha string
				if err := rows.Scan(&id, &sha); err != nil {
					t.Fatal(err)
				}
				got[id] = sha
			}
			if len(got) != len(tt.runs) {
				t.Errorf("runs %v, want %v", got, tt.runs)
			}
			for id, sha := range tt.runs {
				if got[id] != sha {
					t.Errorf("run %s: source_sha256 %q, want %q", id, got[id], sha)
				}
			}
			// every source row's sha256 is its file's
			srcs, err := st.DB().QueryContext(ctx, "SELECT source_path, source_sha256 FROM sources")
			if err != nil {
				t.Fatal(err)
			}
			defer srcs.Close()
			for srcs.Next() {
				var p, sha string
				if err := srcs.Scan(&p, &sha); err != nil {
					t.Fatal(err)
				}
				data, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				if sha != sha256Hex(data) {
					t.Errorf("source %s: sha256 %s, want %s", p, sha, sha256Hex(data))
				}
			}
		})
	}
}

// earlyChange is the store changing the file, in place and at its size,
// just before an unhashed import asks for its hash early: the hash taken
// then is of other bytes than those the import read.
type earlyChange struct {
	*store.Store
	path string
	to   []byte
}

func (e *earlyChange) BeginUnhashed(ctx context.Context, src *schema.Source, sha func() (string, error)) (ingest.Tx, error) {
	return e.Store.BeginUnhashed(ctx, src, func() (string, error) {
		if err := os.WriteFile(e.path, e.to, 0o644); err != nil {
			return "", err
		}
		return sha()
	})
}

// TestUnhashedChangedBeforeEarlyHash: a file imported before its hash is
// known whose bytes change before its hash is asked for early (a run id
// another file holds) fails at the commit, and nothing of it is kept.
func TestUnhashedChangedBeforeEarlyHash(t *testing.T) {
	ctx := context.Background()
	full, err := os.ReadFile(filepath.Join(fixtures, "split_responses.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	part := []byte(strings.Join(strings.SplitAfter(string(full), "\n")[:6], ""))
	st := newTestStore(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	for p, data := range map[string][]byte{a: part, b: full} {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	o := &ingest.Options{SmallFile: -1, Workers: 1}
	if _, err := ingest.Files(ctx, st, []string{a}, o); err != nil {
		t.Fatal(err)
	}
	changed := []byte(strings.Replace(string(full), `"s-split"`, `"s-splat"`, 1))
	sum, err := ingest.Files(ctx, &earlyChange{Store: st, path: b, to: changed}, []string{b}, o)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 1 || len(sum.Errors) != 1 || !strings.Contains(sum.Errors[0].Error(), "changed while it was read") {
		t.Fatalf("failed %d, errors %v; want the one file failed as changed while it was read", sum.Failed, sum.Errors)
	}
	if c := counts(t, st); c["runs"] != 1 || c["sources"] != 1 {
		t.Errorf("after the failed import: %v, want only a.jsonl's run and source", c)
	}
}
