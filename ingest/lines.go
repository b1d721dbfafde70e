package ingest

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"
)

// Reading primitive 1 of 2: a file line by line (the other is the whole
// document, jsondoc.go). Every line-by-line importer reads through
// lineReader; File.Lines, the same reader without decoding, is left to the
// importers whose decoding of a line depends on what came before it.

// lineReader reads a file line by line: each non-blank line (white space
// trimmed, 1-based line numbers counting blank lines, no length limit) is
// decoded into a fresh T and handed to the handler in file order. A line
// the decoder refuses is rejected at its line (File.Reject) and the handler
// does not see it, so one bad line costs that line only.
//
//	err := lineReader[myRecord]{}.read(f, r, func(line int64, raw []byte, rec *myRecord) error {
//		…
//	})
type lineReader[T any] struct {
	// decode fills v from the line raw, or returns why the line is to be
	// rejected. nil: jsonRecord (a JSON object decoded into T). With
	// parallel it runs on several goroutines and out of order, so it
	// must be pure: everything stateful belongs in the handler.
	decode func(line int64, raw []byte, v *T) (reject string)
	// parallel decodes lines on up to GOMAXPROCS goroutines and hands
	// them to the handler in order on the calling goroutine; at most a
	// few batches of ≤ 512 lines / 4 MB are in flight, so memory stays
	// bounded. For formats whose decoding is most of the work.
	parallel bool
}

// jsonRecord is the default decoder: the line must be a JSON object
// ("record is not a JSON object"), decoded into v ("invalid JSON: <why>").
func jsonRecord[T any](_ int64, raw []byte, v *T) string { return decodeRecord(raw, v) }

// jsonValue decodes a line that may be any JSON value into v (null leaves v
// zero); a line that does not decode is "invalid JSON: <why>". For the
// importers that accepted any value before the object check was shared.
func jsonValue[T any](_ int64, raw []byte, v *T) string {
	if err := json.Unmarshal(raw, v); err != nil {
		return "invalid JSON: " + clipErr(err)
	}
	return badKey(raw)
}

// decodeRecord decodes a line that must hold a JSON object into v. It
// returns why the line is to be rejected ("record is not a JSON object",
// "invalid JSON: <clipped error>", badKey's), or "" when it decoded.
func decodeRecord(raw []byte, v any) string {
	if len(raw) == 0 || raw[0] != '{' {
		return "record is not a JSON object"
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return "invalid JSON: " + clipErr(err)
	}
	return badKey(raw)
}

// badKey says why a record that decoded is still to be rejected: a key
// with an invalid byte ("a key is not valid UTF-8"), whose field the record
// type cannot have read, so that the record is not kept with a field
// silently missing (issue 30.12). Invalid UTF-8 in values is repaired, not
// rejected (repairTx).
func badKey(raw []byte) string {
	if utf8.Valid(raw) || keysValidUTF8(raw, 0, 0) {
		return ""
	}
	return "a key is not valid UTF-8"
}

// read reads r line by line, calling fn for every line the decoder keeps.
// It stops at the first error fn (or, in strict mode, a rejection) returns.
func (lr lineReader[T]) read(f *File, r io.Reader, fn func(line int64, raw []byte, v *T) error) error {
	decode := lr.decode
	if decode == nil {
		decode = jsonRecord[T]
	}
	if lr.parallel {
		return parallelLines(f, r, decode, fn)
	}
	return f.Lines(r, func(line int64, raw []byte) error {
		var v T
		if why := decode(line, raw, &v); why != "" {
			return f.Reject(line, why, raw)
		}
		return fn(line, raw, &v)
	})
}

// lineBatch is a run of consecutive lines handed to one decoder.
type lineBatch[T any] struct {
	first  int64    // line number of lines[0]
	nums   []int64  // line numbers (blank lines are skipped)
	lines  [][]byte // trimmed line bytes, owned by the batch
	out    []T
	reject []string // the decoder's reasons, "" for a line kept
	done   chan struct{}
}

const (
	batchLines = 512
	batchBytes = 4 << 20
)

// parallelLines is lineReader.read with parallel set. Steps:
//  1. a reader goroutine cuts the input into batches of ≤ 512 lines / 4 MB
//     (eachOwnedLine: lines of blocks read for them, not copied) and sends
//     each batch both to the decoders and, in order, to the handler queue;
//  2. decoders fill batch.out and batch.reject and close batch.done;
//  3. the caller takes batches from the queue in order, waits for each to be
//     decoded, and rejects or handles it line by line.
func parallelLines[T any](f *File, r io.Reader, decode func(line int64, raw []byte, v *T) string, handle func(line int64, raw []byte, v *T) error) error {
	workers := max(1, runtime.GOMAXPROCS(0))
	defer func() { f.line = 0 }()
	work := make(chan *lineBatch[T], workers)
	queue := make(chan *lineBatch[T], workers*2)
	stop := make(chan struct{})
	var readErr error
	var panicked atomic.Pointer[error]
	var wg sync.WaitGroup
	decodeBatch := func(b *lineBatch[T]) {
		defer close(b.done)
		defer func() {
			if p := recover(); p != nil { // a decoder bug must not take the process down
				err := fmt.Errorf("%s:%d: decoder failed: %v", f.path, b.first, p)
				panicked.CompareAndSwap(nil, &err)
			}
		}()
		b.out, b.reject = make([]T, len(b.lines)), make([]string, len(b.lines))
		for i, l := range b.lines {
			b.reject[i] = decode(b.nums[i], l, &b.out[i])
		}
	}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				decodeBatch(b)
			}
		}()
	}
	go func() {
		defer close(queue)
		defer close(work)
		cur := &lineBatch[T]{done: make(chan struct{})}
		size := 0
		send := func() bool {
			select {
			case work <- cur:
			case <-stop:
				return false
			}
			select {
			case queue <- cur:
			case <-stop:
				return false
			}
			cur, size = &lineBatch[T]{done: make(chan struct{})}, 0
			return true
		}
		readErr = f.eachOwnedLine(r, lineBlock, func(line int64, b []byte) error {
			if len(cur.nums) == 0 {
				cur.first = line
			}
			cur.nums = append(cur.nums, line)
			cur.lines = append(cur.lines, b)
			size += len(b)
			if len(cur.lines) >= batchLines || size >= batchBytes {
				if !send() {
					return errStopped
				}
			}
			return nil
		}) // the handler loop below tracks f.line
		if readErr == nil && len(cur.lines) > 0 {
			send()
		}
	}()
	var herr error
	for b := range queue {
		<-b.done
		if herr == nil {
			if p := panicked.Load(); p != nil {
				herr = *p
				close(stop)
			}
		}
		if herr != nil {
			continue
		}
		for i, l := range b.lines {
			f.line = b.nums[i]
			if why := b.reject[i]; why != "" {
				herr = f.Reject(b.nums[i], why, l)
			} else {
				herr = handle(b.nums[i], l, &b.out[i])
			}
			if herr != nil {
				close(stop)
				break
			}
		}
	}
	wg.Wait()
	if herr != nil {
		return herr
	}
	if readErr == errStopped {
		return nil
	}
	return readErr
}

var errStopped = io.ErrClosedPipe

// lineBlock is the size of the blocks parallelLines reads lines from, and
// firstLineBlock the size of a file's first block (doubled for each next
// one up to lineBlock, so that a small file gets a small block).
const (
	lineBlock      = 1 << 20
	firstLineBlock = 64 << 10
)

// eachOwnedLine is eachLine (not tracking the line) for a caller that keeps
// the lines: each is a slice of a block read for it (firstLineBlock bytes
// or block when smaller, then each twice the last up to block) and never
// written again, so the bytes are copied once, from the
// reader into the block (a line cut by a block's end is copied into the
// next, which doubles for a line longer than a block), rather than into a
// read buffer and then out of it.
func (f *File) eachOwnedLine(r io.Reader, block int, fn func(line int64, b []byte) error) error {
	var line int64
	var carry []byte // the start of a line cut by the last block's end
	size := min(block, firstLineBlock)
	for {
		blk := make([]byte, len(carry), max(size, 2*len(carry)))
		size = min(2*size, block)
		copy(blk, carry)
		n, err := io.ReadFull(r, blk[len(carry):cap(blk)])
		blk = blk[:len(carry)+n]
		// the last block: at the end, or at a read error (after the lines
		// read before it, the last one cut off, as eachLine)
		last := err != nil
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			err = nil
		} else if err != nil {
			err = fmt.Errorf("read %s: %w", f.path, err)
		}
		for len(blk) > 0 {
			i := bytes.IndexByte(blk, '\n')
			if i < 0 && !last {
				break
			}
			chunk := blk
			if i >= 0 {
				chunk = blk[:i+1]
			}
			blk = blk[len(chunk):]
			line++
			if line&1023 == 0 && f.Ctx != nil {
				if cerr := f.Ctx.Err(); cerr != nil {
					return cerr
				}
			}
			if b := bytes.TrimSpace(chunk); len(b) > 0 {
				if ferr := fn(line, b[:len(b):len(b)]); ferr != nil {
					return ferr
				}
			}
		}
		if last {
			return err
		}
		carry = blk
	}
}
