package ingest

import (
	"context"

	"github.com/trajmine/trajmine/schema"
)

// Buffered is one small file parsed in memory, waiting to be committed
// together with other small files (see BatchSink).
type Buffered struct {
	Src         *schema.Source
	Runs        []schema.Run
	Events      []schema.Event
	Usage       []schema.Usage
	ToolOutputs []schema.ToolOutput
	ContextOps  []schema.ContextOp
	Rejects     []schema.Reject
	Outcomes    []schema.Outcome
	bytes       int64 // approximate memory held, for batch sizing
}

// The add methods keep one record each (the Tx methods of bufferTx and
// memTx) and count the memory it holds.

func (b *Buffered) addRun(r *schema.Run) {
	b.Runs = append(b.Runs, *r)
	b.bytes += 256
}

func (b *Buffered) addEvent(e *schema.Event) {
	b.Events = append(b.Events, *e)
	b.bytes += int64(len(e.Text)+len(e.Args)) + 200
}

func (b *Buffered) addUsage(u *schema.Usage) {
	b.Usage = append(b.Usage, *u)
	b.bytes += 128
}

func (b *Buffered) addToolOutput(o *schema.ToolOutput) {
	b.ToolOutputs = append(b.ToolOutputs, *o)
	b.bytes += 128
}

func (b *Buffered) addContextOp(c *schema.ContextOp) {
	b.ContextOps = append(b.ContextOps, *c)
	b.bytes += int64(len(c.Detail)) + 128
}

func (b *Buffered) addReject(r *schema.Reject) {
	b.Rejects = append(b.Rejects, *r)
	b.bytes += int64(len(r.Raw)) + 64
}

func (b *Buffered) addOutcome(o *schema.Outcome) {
	b.Outcomes = append(b.Outcomes, *o)
	b.bytes += int64(len(o.Key)+len(o.Detail)) + 128
}

// BatchSink is a Sink that can also store several buffered files in one
// transaction: all of them or none. A sink whose commits are expensive
// (DuckDB's is a durable write, and each commit rewrites the table's last,
// partly filled row group) implements it so that directories of many small
// session files import at the rate of their parsing rather than of their
// commits. Files hands each small file to the open batch as soon as it is
// parsed, in path order, and commits the batch when a large file's turn
// comes, when it holds batchFiles files or batchSource bytes of source, and
// at the end. Each file stays all-or-nothing: a file enters a batch only
// after it parsed completely, and the files of a batch that fails are
// imported again one by one from disk (pipeline.go, redo).
type BatchSink interface {
	Sink
	// OpenBatch starts a transaction that takes buffered files one at a
	// time.
	OpenBatch(ctx context.Context) (Batch, error)
}

// Batch is one open transaction of a BatchSink.
type Batch interface {
	// Add stores one file's records in the transaction, after those of
	// the files added before it. Run ids in the buffer are the log's
	// own; the sink resolves collisions (renaming in its copies of the
	// rows, as ClaimRunID does). The buffer is neither changed nor kept:
	// the caller may drop it once Add returns. After an error the batch
	// can only be rolled back.
	Add(f *Buffered) error
	// Commit stores every file added, or with an error none of them.
	Commit() error
	// Rollback drops the transaction; after Commit it does nothing.
	Rollback() error
}

// bufferTx collects one file's records in memory.
type bufferTx struct {
	b     *Buffered
	ids   map[string]bool
	probe RunIDProbe
}

func newBufferTx(src *schema.Source) *bufferTx {
	return &bufferTx{b: &Buffered{Src: src}, ids: map[string]bool{}}
}

// ClaimRunID only keeps ids unique within the file (as the store does: id,
// id@sha8, id@sha8.N); the sink resolves collisions with other files at
// commit.
func (t *bufferTx) ClaimRunID(id string) (string, error) {
	cand, _ := t.probe.Claim(id, t.b.Src.SHA256, func(c string) (bool, error) { return t.ids[c], nil })
	t.ids[cand] = true
	return cand, nil
}

func (t *bufferTx) Run(r *schema.Run) error               { t.b.addRun(r); return nil }
func (t *bufferTx) Event(e *schema.Event) error           { t.b.addEvent(e); return nil }
func (t *bufferTx) Usage(u *schema.Usage) error           { t.b.addUsage(u); return nil }
func (t *bufferTx) ToolOutput(o *schema.ToolOutput) error { t.b.addToolOutput(o); return nil }
func (t *bufferTx) ContextOp(c *schema.ContextOp) error   { t.b.addContextOp(c); return nil }
func (t *bufferTx) Reject(r *schema.Reject) error         { t.b.addReject(r); return nil }
func (t *bufferTx) Outcome(o *schema.Outcome) error       { t.b.addOutcome(o); return nil }
func (t *bufferTx) Commit(src *schema.Source) error       { t.b.Src = src; return nil }
func (t *bufferTx) Rollback() error                       { t.b = &Buffered{Src: t.b.Src}; return nil }

// bufferSink hands out bufferTx transactions; used by Files for small files.
type bufferSink struct {
	Sink
	last *bufferTx
}

func (s *bufferSink) Begin(_ context.Context, src *schema.Source) (Tx, error) {
	s.last = newBufferTx(src)
	return s.last, nil
}
