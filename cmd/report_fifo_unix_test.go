//go:build unix

package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReportSkipsFIFO: a FIFO among the logs of trajmine report is skipped
// with a message, also when the database holds an empty source (a FIFO's
// size, 0, then matches it and the report's scope would hash the FIFO,
// which blocks until a writer comes).
func TestReportSkipsFIFO(t *testing.T) {
	d := testDeps(t, nil)
	dir := t.TempDir()
	d.DB = filepath.Join(dir, "x.duckdb")
	logs := filepath.Join(dir, "logs")
	mkdir(t, logs)
	empty := filepath.Join(dir, "empty.jsonl")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run(t, d, "ingest", "--format", "openai-messages", empty); code != exitOK {
		t.Fatalf("ingest of an empty file: exit %d, %s", code, stderr)
	}
	fifo := filepath.Join(logs, "pipe.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	writeRuns(t, filepath.Join(logs, "good.jsonl"), "g-1")
	type result struct {
		stderr string
		code   int
	}
	done := make(chan result, 1)
	go func() {
		_, stderr, code := run(t, d, "report", "-o", filepath.Join(dir, "r.html"), logs)
		done <- result{stderr, code}
	}()
	select {
	case r := <-done:
		if r.code != exitOK || !strings.Contains(r.stderr, fifo+": skipped, not a regular file: a named pipe (FIFO)\n") {
			t.Errorf("exit %d, stderr %q", r.code, r.stderr)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("report hung on a FIFO")
	}
}
