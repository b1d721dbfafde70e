package ingest

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSnapshotCopiesAgain: a store that changes while it is copied is
// copied again, and given up on after maxCopies copies; the snapshot is
// the bytes of the last copy, hashed database then -wal.
func TestSnapshotCopiesAgain(t *testing.T) {
	for _, tc := range []struct {
		name    string
		changes int // copies after which a byte is appended to the -wal
		wantErr bool
	}{
		{"unchanged", 0, false},
		{"changed during the first copy", 1, false},
		{"changed during every copy", maxCopies, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			defer func() {
				if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
					t.Errorf("left in the temporary directory: %v", ents)
				}
			}()
			dir := t.TempDir()
			p := filepath.Join(dir, "s.db")
			if err := os.WriteFile(p, []byte(sqliteMagic+"db"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p+"-wal", []byte("w"), 0o644); err != nil {
				t.Fatal(err)
			}
			copies := 0
			snapshotCopied = func(int) {
				copies++
				if copies <= tc.changes {
					f, err := os.OpenFile(p+"-wal", os.O_APPEND|os.O_WRONLY, 0)
					if err != nil {
						t.Fatal(err)
					}
					f.WriteString("w")
					f.Close()
				}
			}
			defer func() { snapshotCopied = nil }()
			snap, sum, n, err := takeSnapshot(p)
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), "changed each of the 3 times it was copied") {
					t.Fatalf("error %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer snap.release()
			if copies != tc.changes+1 {
				t.Errorf("%d copies, want %d", copies, tc.changes+1)
			}
			wal := strings.Repeat("w", tc.changes+1)
			want := sha256.Sum256([]byte(sqliteMagic + "db" + wal))
			if sum != hex.EncodeToString(want[:]) || n != int64(len(sqliteMagic+"db"+wal)) {
				t.Errorf("sha %s, %d bytes; want the database then the -wal %q", sum, n, wal)
			}
			if b, _ := os.ReadFile(snap.db + "-wal"); string(b) != wal {
				t.Errorf("snapshot -wal %q, want %q", b, wal)
			}
		})
	}
}

// TestStoreStat: the quick check sees a store with its -wal and -journal
// (their sizes added, the latest time); a file of another kind alone.
func TestStoreStat(t *testing.T) {
	dir := t.TempDir()
	old, recent := time.Unix(1700000000, 0), time.Unix(1700000500, 0)
	write := func(name string, size int, mod time.Time) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	write("a.db", 100, old)
	write("a.db-wal", 20, recent)
	write("a.db-journal", 3, old)
	write("b.jsonl", 100, old)
	write("b.jsonl-wal", 20, recent)
	for _, tc := range []struct {
		name string
		size int64
		mod  time.Time
	}{
		{"a.db", 123, recent},
		{"b.jsonl", 100, old},
	} {
		p := filepath.Join(dir, tc.name)
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if size, mod := storeStat(p, fi); size != tc.size || !mod.Equal(tc.mod) {
			t.Errorf("%s: %d bytes, %v; want %d, %v", tc.name, size, mod, tc.size, tc.mod)
		}
	}
}
