package store

import (
	"context"
	"fmt"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/schema"
)

// The batches of small files (ingest.BatchSink): one transaction takes
// many buffered files, one at a time, as the importer parses them.

var _ ingest.BatchSink = (*Store)(nil)

// OpenBatch starts a transaction that stores buffered files one at a time
// (ingest.Batch). Per file, in order: an earlier version of the same path
// is replaced (replaceOlder), each run id is claimed as in a streamed
// import (renamed id@sha8 in the rows appended when another file holds
// it, parent links following), then its rows and its sources row are
// queued for the transaction's writer (appendq.go).
func (s *Store) OpenBatch(ctx context.Context) (ingest.Batch, error) {
	t, err := s.newTx(ctx)
	if err != nil {
		return nil, err
	}
	return &batchTx{t: t}, nil
}

// batchTx is an open batch: the transaction and the sources it holds.
type batchTx struct {
	t    *tx
	srcs []*schema.Source
}

func (b *batchTx) Add(f *ingest.Buffered) error {
	t := b.t
	if t.done {
		return fmt.Errorf("add %s: transaction already finished", f.Src.Path)
	}
	if err := t.useConn(func() error { return t.s.replaceOlder(t.ctx, t.conn, f.Src) }); err != nil {
		return err
	}
	t.sha = f.Src.SHA256
	rename := map[string]string{}
	for i := range f.Runs {
		id := f.Runs[i].RunID
		got, err := t.ClaimRunID(id)
		if err != nil {
			return err
		}
		if got != id {
			rename[id] = got
		}
	}
	if err := t.appendBuffered(f, rename); err != nil {
		return err
	}
	b.srcs = append(b.srcs, f.Src)
	return nil
}

func (b *batchTx) Commit() error {
	t := b.t
	if t.done {
		return fmt.Errorf("commit: transaction already finished")
	}
	if err := t.commitRows(); err != nil {
		return err
	}
	for _, src := range b.srcs {
		t.s.noteSource(src)
	}
	return nil
}

func (b *batchTx) Rollback() error { return b.t.Rollback() }

// CommitBatch stores several buffered files in one transaction: OpenBatch,
// Add of each file in order, Commit; on an error nothing is stored.
func (s *Store) CommitBatch(ctx context.Context, files []*ingest.Buffered) error {
	b, err := s.OpenBatch(ctx)
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := b.Add(f); err != nil {
			_ = b.Rollback()
			return err
		}
	}
	if err := b.Commit(); err != nil {
		_ = b.Rollback()
		return err
	}
	return nil
}

// appendBuffered appends one buffered file's rows, renaming run ids. The
// buffer itself is left as the importer made it (each row is copied before
// its ids change): a caller may retry a failed batch file by file from the
// same buffers (CommitBatch, issue 19), and a rename kept from the failed
// attempt would give a run back its own id while its events kept the
// renamed one.
func (t *tx) appendBuffered(f *ingest.Buffered, rename map[string]string) error {
	id := func(s string) string {
		if r, ok := rename[s]; ok {
			return r
		}
		return s
	}
	if err := appendCopies(f.Runs, func(r *schema.Run) { r.RunID, r.ParentRunID = id(r.RunID), id(r.ParentRunID) }, t.Run); err != nil {
		return err
	}
	if err := appendCopies(f.Events, func(e *schema.Event) { e.RunID = id(e.RunID) }, t.Event); err != nil {
		return err
	}
	if err := appendCopies(f.Usage, func(u *schema.Usage) { u.RunID = id(u.RunID) }, t.Usage); err != nil {
		return err
	}
	if err := appendCopies(f.ToolOutputs, func(o *schema.ToolOutput) { o.RunID = id(o.RunID) }, t.ToolOutput); err != nil {
		return err
	}
	if err := appendCopies(f.ContextOps, func(c *schema.ContextOp) { c.RunID = id(c.RunID) }, t.ContextOp); err != nil {
		return err
	}
	for i := range f.Rejects {
		if err := t.Reject(&f.Rejects[i]); err != nil {
			return err
		}
	}
	for i := range f.Outcomes {
		if err := t.Outcome(&f.Outcomes[i]); err != nil {
			return err
		}
	}
	return t.append(schema.TableSources, f.Src.Values())
}

// appendCopies appends a copy of each of rows with add, after rename has
// changed the copy's run ids; rows keep the ids the importer gave them.
func appendCopies[T any](rows []T, rename func(*T), add func(*T) error) error {
	for _, r := range rows {
		rename(&r)
		if err := add(&r); err != nil {
			return err
		}
	}
	return nil
}
