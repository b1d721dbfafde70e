//go:build unix

package ingest_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trajmine/trajmine/ingest"
)

// filesWithin runs Files, failing the test if it has not returned within
// 20 s (the repro hung forever).
func filesWithin(t *testing.T, paths []string, o *ingest.Options) (*ingest.Summary, *ingest.MemSink, []string) {
	t.Helper()
	var warns []string
	o.Warn = func(err error) { warns = append(warns, err.Error()) }
	sink := &ingest.MemSink{}
	type result struct {
		sum *ingest.Summary
		err error
	}
	done := make(chan result, 1)
	go func() {
		sum, err := ingest.Files(context.Background(), sink, paths, o)
		done <- result{sum, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatal(r.err)
		}
		return r.sum, sink, warns
	case <-time.After(20 * time.Second):
		t.Fatal("ingest hung on a file that is not a regular file")
	}
	return nil, nil, nil
}

const oneRun = `{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]}` + "\n"

// TestSpecialFiles is issue 19's repro: a FIFO in a folder, or /dev/zero
// with --format, hung the ingest forever. What is not a regular file is never
// read: found by the walk it is skipped with a warning, named explicitly it
// fails with the reason; the regular files beside it import.
func TestSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ok.jsonl"), []byte(oneRun), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "zero.jsonl") // a symlink the walk finds, to a device
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		paths   []string
		format  string
		files   int
		skipped int
		warns   []string // exact
		errs    []string // exact
	}{
		{
			name: "walked FIFO and symlink to a device", paths: []string{dir}, files: 1, skipped: 2,
			warns: []string{
				fifo + ": skipped, not a regular file: a named pipe (FIFO)",
				link + ": skipped, not a regular file: a character device",
			},
		},
		{
			name: "walked, format forced", paths: []string{dir}, format: "openai-messages", files: 1, skipped: 2,
			warns: []string{
				fifo + ": skipped, not a regular file: a named pipe (FIFO)",
				link + ": skipped, not a regular file: a character device",
			},
		},
		{
			name: "explicit FIFO", paths: []string{fifo}, format: "openai-messages",
			errs: []string{fifo + ": skipped, not a regular file: a named pipe (FIFO)"},
		},
		{
			name: "/dev/zero with --format", paths: []string{"/dev/zero", filepath.Join(dir, "ok.jsonl")}, format: "openai-messages", files: 1,
			errs: []string{"/dev/zero: skipped, not a regular file: a character device"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sum, sink, warns := filesWithin(t, tc.paths, &ingest.Options{Format: tc.format, Workers: 1})
			if sum.Files != tc.files || sum.Skipped != tc.skipped || sum.Failed != len(tc.errs) || len(sink.Runs) != tc.files {
				t.Errorf("files %d, skipped %d, failed %d, runs %d; want %d, %d, %d, %d", sum.Files, sum.Skipped, sum.Failed, len(sink.Runs), tc.files, tc.skipped, len(tc.errs), tc.files)
			}
			if strings.Join(warns, "\n") != strings.Join(tc.warns, "\n") {
				t.Errorf("warnings\n%s\nwant\n%s", strings.Join(warns, "\n"), strings.Join(tc.warns, "\n"))
			}
			var errs []string
			for _, e := range sum.Errors {
				errs = append(errs, e.Error())
				if !errors.Is(e, ingest.ErrNotRegular) {
					t.Errorf("%v does not wrap ErrNotRegular", e)
				}
			}
			if strings.Join(errs, "\n") != strings.Join(tc.errs, "\n") {
				t.Errorf("errors\n%s\nwant\n%s", strings.Join(errs, "\n"), strings.Join(tc.errs, "\n"))
			}
		})
	}
}

// TestWalkPermissionDenied is the unreadable-directory repro with a real
// chmod 000 (TestWalkUnreadableDirectory injects the error, for root).
func TestWalkPermissionDenied(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("chmod 000 does not stop root from reading; TestWalkUnreadableDirectory covers this case")
	}
	dir := t.TempDir()
	locked := filepath.Join(dir, "locked")
	if err := os.Mkdir(locked, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir, "ok.jsonl"), filepath.Join(locked, "hidden.jsonl")} {
		if err := os.WriteFile(p, []byte(oneRun), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	sum, sink, _ := filesWithin(t, []string{dir}, &ingest.Options{})
	if sum.Files != 1 || sum.Failed != 1 || len(sink.Runs) != 1 {
		t.Errorf("files %d, failed %d, runs %d; want 1, 1, 1", sum.Files, sum.Failed, len(sink.Runs))
	}
	want := "walk " + locked + ": open " + locked + ": permission denied"
	if len(sum.Errors) != 1 || sum.Errors[0].Error() != want {
		t.Errorf("errors %v, want [%s]", sum.Errors, want)
	}
}

// TestDanglingSymlink is issue 31.6: a symbolic link to a missing file
// printed its path twice ("open x: open x: no such file or directory").
// It fails once, saying what it is, and the other files import.
func TestDanglingSymlink(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ok.jsonl"), []byte(oneRun), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "gone.jsonl")
	if err := os.Symlink("/nonexistent/x.jsonl", link); err != nil {
		t.Fatal(err)
	}
	sum, sink, _ := filesWithin(t, []string{dir}, &ingest.Options{Workers: 1})
	if sum.Files != 1 || sum.Failed != 1 || len(sink.Runs) != 1 || len(sum.Errors) != 1 {
		t.Fatalf("files %d, failed %d, runs %d, errors %v; want 1, 1, 1 and one error", sum.Files, sum.Failed, len(sink.Runs), sum.Errors)
	}
	want := "open " + link + ": a symbolic link to /nonexistent/x.jsonl, which does not exist: file does not exist"
	if got := sum.Errors[0].Error(); got != want {
		t.Errorf("error\n%s\nwant\n%s", got, want)
	}
	if strings.Count(sum.Errors[0].Error(), link) != 1 {
		t.Errorf("the path is printed %d times", strings.Count(sum.Errors[0].Error(), link))
	}
}
