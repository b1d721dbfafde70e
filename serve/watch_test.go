package serve

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestSnapshotChanged: the watcher lists a new log file, one that grew,
// one whose modification time moved and a SQLite store whose -wal appeared
// (a watched path naming the file), not an unchanged one, one removed, or
// a file no import would consider; a watched path that does not exist yet
// is skipped, and seen once it does.
func TestSnapshotChanged(t *testing.T) {
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs")
	later := filepath.Join(dir, "later") // created after the first snapshot
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(logs, "same.jsonl"), "{}\n")
	write(filepath.Join(logs, "grows.jsonl"), "{}\n")
	write(filepath.Join(logs, "touched.jsonl"), "{}\n")
	write(filepath.Join(logs, "gone.jsonl"), "{}\n")
	store := filepath.Join(dir, "agent", "sessions.db")
	write(store, "SQLite format 3\x00")
	paths := []string{logs, later, store}
	before := snapshot(paths)
	if len(before) != 5 {
		t.Fatalf("first snapshot: %d files, want 5", len(before))
	}
	write(filepath.Join(logs, "grows.jsonl"), "{}\n{}\n")
	old := before[filepath.Join(logs, "touched.jsonl")].mod
	if err := os.Chtimes(filepath.Join(logs, "touched.jsonl"), old.Add(time.Second), old.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(logs, "gone.jsonl")); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(logs, "sub", "new.jsonl"), "{}\n")
	write(filepath.Join(logs, "notes.txt"), "not a log")
	write(filepath.Join(later, "s.json"), "[]")
	write(store+"-wal", "frames")
	got := changed(before, snapshot(paths))
	want := []string{filepath.Join(later, "s.json"), filepath.Join(logs, "grows.jsonl"), filepath.Join(logs, "sub", "new.jsonl"), filepath.Join(logs, "touched.jsonl"), store}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("changed = %q\nwant %q", got, want)
	}
	if again := snapshot(paths); len(changed(again, snapshot(paths))) != 0 {
		t.Error("two snapshots of files left alone differ")
	}
}
