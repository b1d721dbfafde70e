package ingest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// batchLog is a BatchSink over MemSink that logs its transactions: the
// base names of the files added, then "+" (committed) or "x" (rolled
// back). Add fails for the file named failAdd; Commit fails for a batch of
// more than one file holding failCommit, or (cancel) cancels the import's
// context and fails. onAdd runs at each Add.
type batchLog struct {
	MemSink
	failAdd, failCommit string
	cancel              context.CancelFunc
	onAdd               func(name string)
	dones               func() int // Options.Done's calls so far

	mu     sync.Mutex
	txs    []string
	doneAt []int // dones at each commit
}

func (s *batchLog) OpenBatch(context.Context) (Batch, error) { return &logBatch{s: s}, nil }

func (s *batchLog) log(names []string, mark string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.txs = append(s.txs, strings.Join(append(names, mark), " "))
}

type logBatch struct {
	s     *batchLog
	names []string
	bufs  []*Buffered
	ended bool
}

func (b *logBatch) Add(f *Buffered) error {
	name := strings.TrimSuffix(filepath.Base(f.Src.Path), ".jsonl")
	b.names = append(b.names, name)
	if b.s.onAdd != nil {
		b.s.onAdd(name)
	}
	if name == b.s.failAdd {
		return errors.New("cannot store " + name)
	}
	b.bufs = append(b.bufs, f)
	return nil
}

func (b *logBatch) Commit() error {
	if b.s.cancel != nil {
		b.s.cancel()
		return context.Canceled
	}
	if len(b.names) > 1 && b.s.failCommit != "" && strings.Contains(" "+strings.Join(b.names, " ")+" ", " "+b.s.failCommit+" ") {
		return errors.New("cannot commit " + b.s.failCommit)
	}
	b.s.log(b.names, "+")
	b.s.mu.Lock()
	b.s.doneAt = append(b.s.doneAt, b.s.dones())
	b.s.mu.Unlock()
	b.ended = true
	b.s.MemSink.mu.Lock()
	defer b.s.MemSink.mu.Unlock()
	for _, f := range b.bufs {
		b.s.Sources = append(b.s.Sources, *f.Src)
	}
	return nil
}

func (b *logBatch) Rollback() error {
	if !b.ended {
		b.s.log(b.names, "x")
		b.ended = true
	}
	return nil
}

// writeNamedLog writes a one-run openai-messages log whose text is its
// name, padded to pad bytes of text, so that files differ in content.
func writeNamedLog(t *testing.T, dir, name string, pad int) {
	t.Helper()
	text := name + strings.Repeat(".", max(0, pad-len(name)))
	data := `{"messages":[{"role":"user","content":"` + text + `"},{"role":"assistant","content":"ok"}]}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, name+".jsonl"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWriteBatches: the small files go to the sink's open batch in path
// order and are committed together, up to batchFiles files or batchSource
// bytes, and before a large file's turn; a batch that fails is rolled back
// and its files imported again one at a time, from disk (one file that
// cannot be stored does not take the others with it), except when the
// import was cancelled; a file whose bytes changed before it is read again
// fails. Options.Done is told once of each file, of a batched one when it
// joins the batch (before the commit).
func TestWriteBatches(t *testing.T) {
	const fileBytes = 96 // each log below: 16 bytes of text
	names := []string{"a", "b", "c", "d", "e"}
	for _, tc := range []struct {
		name       string
		files      int   // batchFiles (0: the default)
		source     int64 // batchSource (0: the default)
		large      string
		failAdd    string
		failCommit string
		cancel     bool
		rewrite    string // the file rewritten when added
		badLine    string // the file given a line that is not JSON (a warning)
		txs        []string
		doneAt     string // Options.Done's calls at each commit
		stored     string // the base names of the sources stored, in order
		errs       []string
	}{
		{name: "one batch", txs: []string{"a b c d e +"}, doneAt: "[5]", stored: "a b c d e"},
		{name: "batchFiles", files: 2, txs: []string{"a b +", "c d +", "e +"}, doneAt: "[2 4 5]", stored: "a b c d e"},
		{name: "batchSource", source: 3 * fileBytes, txs: []string{"a b c +", "d e +"}, doneAt: "[3 5]", stored: "a b c d e"},
		{name: "a large file's turn", large: "c", txs: []string{"a b +", "d e +"}, doneAt: "[2 5]", stored: "a b c d e"},
		{name: "failed add", failAdd: "b",
			txs: []string{"a b x", "a +", "b x", "c d e +"}, doneAt: "[1 5]", stored: "a c d e", errs: []string{"commit %s/b.jsonl: cannot store b"}},
		{name: "failed commit", failCommit: "c",
			txs: []string{"a b c d e x", "a +", "b +", "c +", "d +", "e +"}, doneAt: "[5 5 5 5 5]", stored: "a b c d e"},
		{name: "a warning once", failCommit: "c", badLine: "b",
			txs: []string{"a b c d e x", "a +", "b +", "c +", "d +", "e +"}, doneAt: "[5 5 5 5 5]", stored: "a b c d e"},
		{name: "changed before the retry", failCommit: "c", rewrite: "d",
			txs: []string{"a b c d e x", "a +", "b +", "c +", "e +"}, doneAt: "[5 5 5 5]", stored: "a b c e",
			errs: []string{"%s/d.jsonl changed while it was imported (read again after a failed commit, its bytes differ); nothing of it was kept, ingest it again"}},
		{name: "cancelled", cancel: true, txs: []string{"a b c d e x"}, doneAt: "[]",
			errs: []string{"commit %s/a.jsonl: context canceled", "commit %s/b.jsonl: context canceled", "commit %s/c.jsonl: context canceled", "commit %s/d.jsonl: context canceled", "commit %s/e.jsonl: context canceled"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.files > 0 {
				defer func(n int) { batchFiles = n }(batchFiles)
				batchFiles = tc.files
			}
			if tc.source > 0 {
				defer func(n int64) { batchSource = n }(batchSource)
				batchSource = tc.source
			}
			dir := t.TempDir()
			for _, n := range names {
				pad := 16
				if n == tc.large {
					pad = 400
				}
				writeNamedLog(t, dir, n, pad)
				if n == tc.badLine {
					f, err := os.OpenFile(filepath.Join(dir, n+".jsonl"), os.O_APPEND|os.O_WRONLY, 0)
					if err != nil {
						t.Fatal(err)
					}
					if _, err := f.WriteString("not json\n"); err != nil {
						t.Fatal(err)
					}
					f.Close()
				}
			}
			if st, err := os.Stat(filepath.Join(dir, "a.jsonl")); err != nil || st.Size() != fileBytes {
				t.Fatalf("a.jsonl: %v, %v bytes; want %d", err, st, fileBytes)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var dones, warns atomic.Int64
			sink := &batchLog{failAdd: tc.failAdd, failCommit: tc.failCommit, dones: func() int { return int(dones.Load()) }}
			if tc.cancel {
				sink.cancel = cancel
			}
			if tc.rewrite != "" {
				sink.onAdd = func(name string) {
					if name == tc.rewrite {
						writeNamedLog(t, dir, name, 20)
					}
				}
			}
			sum, err := Files(ctx, sink, []string{dir}, &Options{Format: "openai-messages", SmallFile: 200, Workers: 2, Done: func() { dones.Add(1) }, Warn: func(error) { warns.Add(1) }})
			if tc.cancel != (err != nil) {
				t.Fatalf("error %v", err)
			}
			if got, want := fmt.Sprintf("%q", sink.txs), fmt.Sprintf("%q", tc.txs); got != want {
				t.Errorf("transactions %s\nwant %s", got, want)
			}
			if got := fmt.Sprint(sink.doneAt); got != tc.doneAt {
				t.Errorf("Options.Done's calls at each commit %s, want %s", got, tc.doneAt)
			}
			if n := dones.Load(); n != int64(len(names)) {
				t.Errorf("Options.Done called %d times, want once for each of the %d files", n, len(names))
			}
			wantWarns := int64(0)
			if tc.badLine != "" {
				wantWarns = 1 // once, though the file was read twice
			}
			if warns.Load() != wantWarns {
				t.Errorf("%d warnings, want %d", warns.Load(), wantWarns)
			}
			var stored []string
			for _, s := range sink.Sources {
				stored = append(stored, strings.TrimSuffix(filepath.Base(s.Path), ".jsonl"))
			}
			if got := strings.Join(stored, " "); got != tc.stored {
				t.Errorf("stored %q, want %q", got, tc.stored)
			}
			var errs []string
			for _, e := range sum.Errors {
				errs = append(errs, e.Error())
			}
			var want []string
			for _, e := range tc.errs {
				want = append(want, fmt.Sprintf(e, dir))
			}
			if fmt.Sprintf("%q", errs) != fmt.Sprintf("%q", want) {
				t.Errorf("errors %q\nwant %q", errs, want)
			}
			if want := len(strings.Fields(tc.stored)); sum.Files != want || sum.Failed != len(tc.errs) {
				t.Errorf("files %d, failed %d; want %d, %d", sum.Files, sum.Failed, want, len(tc.errs))
			}
		})
	}
}
