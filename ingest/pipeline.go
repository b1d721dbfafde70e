package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/trajmine/trajmine/schema"
)

// This file holds Files' pipeline (issue 18): files are read, hashed and
// parsed on every core, while one committer takes their results in the
// order of the sorted file list, so that an ingest stores the same rows in
// the same order, under the same run ids, whatever the number of workers
// and however their work interleaves; it is the ingest of the files one by
// one, in path order, with many small files per commit.
//
// Memory is bounded: at most inFlight files are between being handed to a
// worker and being taken by the committer (parsed in memory and waiting, or
// being parsed), each at most Options.SmallFile bytes when read into
// memory; the committer hands each small file, parsed, to the writer, which
// adds it to the sink's open batch (BatchSink) and drops it: the records
// wait in the sink's transaction, not in memory here. A larger file is
// never held: it is hashed ahead, then streamed into its own transaction
// when its turn comes, after the batch before it is committed.

// A batch of small files is committed when it holds batchFiles files or
// batchSource bytes of source, when a large file's turn comes, and at the
// end. Each commit costs DuckDB a checkpoint that rewrites the last, partly
// filled row group of every table it appended to, so few large batches
// import many small files at close to the rate of one big file
// (BENCHMARKS.md, issues 18 and 33); the cap bounds what a failed batch
// makes the writer read and import again (redo).
var (
	batchFiles        = 4096
	batchSource int64 = 1 << 30
)

// writerQueue is how many parsed small files may wait for the writer.
const writerQueue = 4

// inFlightPerWorker is how many files per worker may be in flight between
// the dispatch and the committer.
const inFlightPerWorker = 4

// outcome is what a worker hands the committer for one file: nothing (the
// file was skipped or failed, already counted), a small file parsed in
// memory, or a large file waiting for its turn to stream its import.
type outcome struct {
	buf  *Buffered
	path string // with buf: the path Files found the file under
	// A file imported in its own transaction (large, or without a
	// BatchSink): its source, importer and, for a small one, its bytes.
	src  *schema.Source
	im   Importer
	data []byte
	// turn is answered by the committer when such a file's turn comes:
	// true to import it, false when an earlier file had the same content.
	turn chan bool
	done chan struct{} // closed by the worker when the large file's import ended
	// lazy: a large file hashed while it is imported (hashlazy.go); the
	// committer cannot tell whether its content was met before, so claim,
	// set when its turn comes, does that once the hash is known.
	lazy  bool
	claim func(key string) bool
}

// pipeline is one Files call's shared state.
type pipeline struct {
	ctx      context.Context
	sink     Sink
	o        *Options
	oo       Options // o with Warn serialised
	forced   Importer
	small    int64
	explicit map[string]bool
	quick    QuickSink
	batch    BatchSink // nil: every file in its own transaction

	mu    sync.Mutex // guards sum and o.Warn
	sum   Summary
	fatal atomic.Pointer[error]
}

func (p *pipeline) fail(err error) {
	p.failed(err)
	p.done()
}

func (p *pipeline) skip() {
	p.skipped()
	p.done()
}

func (p *pipeline) imported(src *schema.Source) {
	p.stored(src)
	p.done()
}

// failed, skipped and stored are fail, skip and imported for a file whose
// Options.Done was called before (batched: when it joined the open batch).

func (p *pipeline) failed(err error) {
	p.mu.Lock()
	p.sum.Failed++
	p.sum.Errors = append(p.sum.Errors, err)
	p.mu.Unlock()
}

func (p *pipeline) skipped() {
	p.mu.Lock()
	p.sum.Skipped++
	p.mu.Unlock()
}

func (p *pipeline) stored(src *schema.Source) {
	p.mu.Lock()
	if IsOutcomeFormat(src.Format) {
		p.sum.OutcomeFiles++
		p.sum.OutcomeRows += src.Outcomes
	}
	p.sum.Files++
	p.sum.Runs += src.Runs
	p.sum.Events += src.Events
	p.sum.Rejects += src.Rejects
	p.sum.Repairs += src.Repairs
	p.sum.Bytes += src.Bytes
	p.mu.Unlock()
}

// done tells Options.Done that a file is done with.
func (p *pipeline) done() {
	if p.o.Done != nil {
		p.o.Done()
	}
}

func (p *pipeline) progress(n int64) {
	if p.o.Progress != nil {
		p.o.Progress(n)
	}
}

// Files imports files and directories into sink: see the package doc for the
// steps. Files named explicitly whose format is unknown are errors; files
// found by walking a directory that no importer recognises are skipped with a
// warning. The returned error is non-nil only when the sink itself fails or
// the context ends; per-file failures are in Summary.Errors.
//
// Files are parsed in parallel (Options.Workers) and stored in the order of
// their sorted paths: the tables hold the same rows, in the same order and
// under the same run ids, as an ingest of the files one at a time.
func Files(ctx context.Context, sink Sink, paths []string, o *Options) (*Summary, error) {
	defer tuneGC()() // gctune.go
	if o == nil {
		o = &Options{}
	}
	p := &pipeline{ctx: ctx, sink: sink, o: o, explicit: map[string]bool{}}
	for _, path := range paths {
		if st, err := os.Stat(path); err == nil && !st.IsDir() {
			p.explicit[path] = true
		}
	}
	walk := o.walk
	if walk == nil {
		walk = filepath.WalkDir
	}
	var unread []error // directories the walk could not read
	exts := logExts
	if o.Outcomes {
		exts = append(slices.Clone(logExts), tableExts...)
	}
	files, err := expandExts(paths, func(err error) { unread = append(unread, err) }, walk, exts)
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	if o.Select != nil {
		files = slices.DeleteFunc(files, func(p string) bool { return !o.Select(p) })
	}
	p.sum = Summary{Failed: len(unread), Errors: unread}
	if o.Format != "" && o.Format != "auto" {
		if p.forced, err = Lookup(o.Format); err != nil {
			return nil, err
		}
	}
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	p.oo = *o
	p.oo.Warn = func(err error) {
		if o.Warn != nil {
			p.mu.Lock()
			o.Warn(err)
			p.mu.Unlock()
		}
	}
	p.small = o.SmallFile
	if p.small == 0 {
		p.small = DefaultSmallFile
	}
	if bs, ok := sink.(BatchSink); ok && p.small > 0 {
		p.batch = bs
	}
	p.quick, _ = sink.(QuickSink)
	if o.Rehash {
		p.quick = nil
	}

	// Each file's outcome has its own slot; inFlight bounds how far the
	// dispatch runs ahead of the committer.
	slots := make([]chan *outcome, len(files))
	for i := range slots {
		slots[i] = make(chan *outcome, 1)
	}
	inFlight := make(chan struct{}, inFlightPerWorker*workers)
	type job struct {
		i    int
		path string
	}
	jobs := make(chan job)
	stop := make(chan struct{}) // closed when the committer gives up
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				var out *outcome
				if p.fatal.Load() == nil && ctx.Err() == nil {
					out = p.work(j.path)
				}
				slots[j.i] <- out
				if out != nil && out.turn != nil {
					streamed := false
					select {
					case ok := <-out.turn:
						if ok {
							p.stream(j.path, out)
							streamed = true
						}
					case <-stop:
					}
					if !streamed {
						release(out.im) // a store's snapshot (sqlite.go)
					}
					close(out.done)
				}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for i, path := range files {
			select {
			case inFlight <- struct{}{}:
			case <-stop:
				return
			}
			select {
			case jobs <- job{i, path}:
			case <-stop:
				return
			}
		}
	}()
	p.commit(slots, inFlight)
	close(stop)
	wg.Wait()
	if e := p.fatal.Load(); e != nil {
		return &p.sum, *e
	}
	if err := ctx.Err(); err != nil {
		return &p.sum, err
	}
	if f, ok := sink.(FinishSink); ok {
		if err := f.Finish(ctx); err != nil {
			return &p.sum, err
		}
	}
	if oks, ok := sink.(OutcomeSink); ok {
		res, err := oks.ApplyOutcomes(ctx)
		if err != nil {
			return &p.sum, err
		}
		p.sum.Outcomes = res
	}
	sort.Slice(p.sum.Errors, func(i, j int) bool { return p.sum.Errors[i].Error() < p.sum.Errors[j].Error() })
	return &p.sum, nil
}

// commit takes the outcomes in file order: small files go to the writer,
// which adds them to the open batch; a large file gets its turn after the
// batch before it is committed. A content (sha256) met a second time is
// skipped here, so the first file in path order is the one kept.
func (p *pipeline) commit(slots []chan *outcome, inFlight chan struct{}) {
	// The writer adds each small file to the sink's open batch and
	// commits it (writeBatches) while the next files are parsed.
	toWriter := make(chan batchItem, writerQueue)
	written := make(chan struct{})
	go func() {
		defer close(written)
		p.writeBatches(toWriter)
	}()
	claimed := map[string]bool{}
	// drain waits until every file handed to the writer is committed.
	drain := func() {
		if p.batch == nil {
			return
		}
		done := make(chan struct{})
		toWriter <- batchItem{drained: done}
		<-done
	}
	for i := range slots {
		out := <-slots[i]
		<-inFlight
		if out == nil {
			continue
		}
		if p.fatal.Load() != nil || p.ctx.Err() != nil {
			if out.turn != nil {
				out.turn <- false
				<-out.done
			}
			continue
		}
		if out.lazy {
			drain()
			out.claim = func(key string) bool {
				if claimed[key] {
					return false
				}
				claimed[key] = true
				return true
			}
			out.turn <- true
			<-out.done
			continue
		}
		src := out.src
		if out.buf != nil {
			src = out.buf.Src
		}
		key := contentKey(src)
		if claimed[key] {
			p.skip()
			if out.turn != nil {
				out.turn <- false
				<-out.done
			}
			continue
		}
		claimed[key] = true
		if out.buf != nil {
			toWriter <- batchItem{path: out.path, buf: out.buf}
			continue
		}
		drain()
		out.turn <- true
		<-out.done
	}
	close(toWriter)
	<-written
}

// batchItem is what the committer hands the writer: a parsed small file
// (path is the name Files found it under), or drained, closed by the
// writer once every file handed to it before is committed.
type batchItem struct {
	path    string
	buf     *Buffered
	drained chan struct{}
}

// batched is a file in the open batch: what it takes to report it, or to
// import it again, and whether Options.Done was told (done: it joined the
// batch; the progress counts it then, not at the commit, which may come
// after the last file).
type batched struct {
	path string
	src  *schema.Source
	done bool
}

// writeBatches adds the small files to the sink's open batch, in the order
// they come, and commits the batch (see batchFiles); a batch that cannot
// be opened, or whose Add or Commit fails, is rolled back and its files
// imported again one by one (redo).
func (p *pipeline) writeBatches(in <-chan batchItem) {
	var open Batch
	var files []batched
	var size int64
	end := func(err error) {
		if open != nil {
			if err == nil {
				err = open.Commit()
			}
			if err != nil {
				_ = open.Rollback()
			}
		}
		open = nil
		if err != nil {
			p.redo(files, err)
		} else {
			for _, f := range files {
				p.stored(f.src)
			}
		}
		files, size = nil, 0
	}
	for it := range in {
		if it.drained != nil {
			if len(files) > 0 {
				end(nil)
			}
			close(it.drained)
			continue
		}
		files = append(files, batched{path: it.path, src: it.buf.Src})
		size += it.buf.Src.Bytes
		var err error
		if open == nil {
			open, err = p.batch.OpenBatch(p.ctx)
		}
		if err == nil {
			err = open.Add(it.buf)
		}
		if err == nil {
			files[len(files)-1].done = true
			p.done()
		}
		if err != nil || len(files) >= batchFiles || size >= batchSource {
			end(err)
		}
	}
	if len(files) > 0 {
		end(nil)
	}
}

// redo imports the files of a failed batch again, each alone, from disk:
// their records were dropped once added to the batch. One file that
// cannot be stored does not take the others with it; a file whose bytes
// are no longer those parsed before fails. When the import was cancelled,
// every file fails with err.
func (p *pipeline) redo(files []batched, err error) {
	for _, f := range files {
		fail, imported := p.fail, p.imported
		if f.done {
			fail, imported = p.failed, p.stored
		}
		if p.ctx.Err() != nil {
			fail(fmt.Errorf("commit %s: %w", f.src.Path, err))
			continue
		}
		out := p.prepared(f.path, true, f.done)
		if out == nil {
			continue // failed or skipped, counted
		}
		if out.buf == nil || out.buf.Src.SHA256 != f.src.SHA256 {
			if out.buf == nil {
				release(out.im)
			}
			fail(fmt.Errorf("%s changed while it was imported (read again after a failed commit, its bytes differ); nothing of it was kept, ingest it again", f.src.Path))
			continue
		}
		b, err := p.batch.OpenBatch(p.ctx)
		if err == nil {
			if err = b.Add(out.buf); err == nil {
				err = b.Commit()
			}
			if err != nil {
				_ = b.Rollback()
			}
		}
		if err != nil {
			fail(fmt.Errorf("commit %s: %w", f.src.Path, err))
			continue
		}
		imported(out.buf.Src)
	}
}

// work does what can be done for one file before its turn: the quick
// check, reading, detecting and hashing it, the check that the sink has
// not seen its content, and, for a small file, parsing it into memory
// (with a BatchSink) or importing it (without one: in its own transaction,
// when its turn comes). It returns nil when the file is done with (skipped
// or failed, counted).
func (p *pipeline) work(path string) *outcome {
	return p.prepared(path, false, false)
}

// prepared is work; again (redo: the file is read again after a failed
// batch) leaves the progress, counted the first time, alone, and so does
// done for Options.Done, told the first time.
func (p *pipeline) prepared(path string, again, done bool) *outcome {
	o := p.o
	progress := p.progress
	if again {
		progress = func(int64) {}
	}
	fail, skip := p.fail, p.skip
	if done {
		fail, skip = p.failed, p.skipped
	}
	if p.quick != nil {
		if fi, err := os.Stat(path); err == nil {
			size, mod := storeStat(path, fi) // a SQLite store: with its -wal and -journal
			if same, err := p.quick.Unchanged(p.ctx, path, size, mod); err == nil && same {
				skip()
				if o.Skipped != nil {
					o.Skipped(fi.Size())
				} else {
					progress(fi.Size())
				}
				return nil
			}
		}
	}
	var only func(Importer) bool
	if o.Outcomes {
		only = isOutcome
	}
	src, im, data, err := prepare(path, p.forced, p.small, only, !o.hashFirst)
	if err != nil {
		if o.Outcomes && (errors.Is(err, ErrUnknownFormat) || errors.Is(err, errNotOutcome)) && !p.explicit[path] {
			skip() // trajmine outcomes passes over the logs beside the outcome files
			return nil
		}
		if (errors.Is(err, ErrUnknownFormat) || errors.Is(err, ErrNotRegular)) && !p.explicit[path] {
			skip()
			p.oo.Warn(err)
			return nil
		}
		fail(err)
		return nil
	}
	if src.SHA256 == "" {
		// hashed while it is imported, its content checked then (stream)
		if o.afterPrepare != nil {
			o.afterPrepare(path)
		}
		return &outcome{src: src, im: im, lazy: true, turn: make(chan bool, 1), done: make(chan struct{})}
	}
	seen, err := p.seen(src)
	if err != nil || seen {
		release(im) // a store's snapshot (sqlite.go)
	}
	if err != nil {
		e := fmt.Errorf("check %s: %w", path, err)
		p.fatal.CompareAndSwap(nil, &e)
		return nil
	}
	if seen {
		skip()
		progress(src.Bytes)
		return nil
	}
	if o.afterPrepare != nil {
		o.afterPrepare(path)
	}
	if data == nil || p.batch == nil {
		// streamed (or, without a BatchSink, imported in its own
		// transaction) when its turn comes
		return &outcome{src: src, im: im, data: data, turn: make(chan bool, 1), done: make(chan struct{})}
	}
	// The importer reads exactly the bytes prepare hashed: the copy it
	// kept of the file.
	progress(src.Bytes)
	buf := &bufferSink{Sink: p.sink}
	opts := &p.oo
	if again { // its warnings were given the first time
		quiet := p.oo
		quiet.Warn = func(error) {}
		opts = &quiet
	}
	if err := importOne(p.ctx, buf, im, src, bytes.NewReader(trimBOM(data)), opts); err != nil {
		fail(err)
		return nil
	}
	return &outcome{buf: buf.last.b, path: path}
}

// seen asks the sink whether src was imported: its sha256 anywhere, or,
// for a path-keyed format (PathKeyed), at its path.
func (p *pipeline) seen(src *schema.Source) (bool, error) {
	if PathKeyed(src.Format) {
		if ps, ok := p.sink.(PathSeenSink); ok {
			return ps.SeenAt(p.ctx, src.Path, src.SHA256)
		}
	}
	return p.sink.Seen(p.ctx, src.SHA256)
}

// contentKey is what makes two files one import: their sha256, and for a
// path-keyed format (PathKeyed) their path too.
func contentKey(src *schema.Source) string {
	if PathKeyed(src.Format) {
		return src.SHA256 + "\x00" + src.Path
	}
	return src.SHA256
}

// stream imports a file in its own transaction, in its turn: from the copy
// in memory, or from the file's first src.Bytes bytes, checked against the
// hash before the commit.
func (p *pipeline) stream(path string, out *outcome) {
	src, im, data := out.src, out.im, out.data
	out.data = nil
	var r io.Reader
	isink := p.sink
	if _, store := im.(*boundStore); store {
		p.progress(src.Bytes) // it reads the snapshot prepare hashed (sqlite.go)
		r = bytes.NewReader(nil)
	} else if data != nil {
		p.progress(src.Bytes)
		r = bytes.NewReader(trimBOM(data))
	} else {
		fh, _, err := openRegular(path)
		if err != nil {
			p.fail(err)
			return
		}
		defer fh.Close()
		sr := newSourceReader(fh, src.Bytes, p.o.Progress)
		var us UnhashedSink
		if out.lazy {
			var ok bool
			if us, ok = p.unhashed(out); !ok {
				sr.useFingerprint() // hashed by hashFile, checked by fingerprint
			}
		}
		if err := sr.skipBOM(); err != nil {
			p.fail(fmt.Errorf("read %s: %w", path, err))
			return
		}
		if us != nil {
			p.streamUnhashed(path, out, sr, us)
			return
		}
		r, isink = sr, &verifySink{Sink: p.sink, check: sr.verify}
		if out.lazy {
			p.streamHashing(path, out, sr, r, isink)
			return
		}
	}
	if err := importOne(p.ctx, isink, im, src, r, &p.oo); err != nil {
		p.fail(err)
		return
	}
	p.imported(src)
}
