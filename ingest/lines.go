package ingest

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
)

// lineBatch is a run of consecutive lines handed to one decoder.
type lineBatch[T any] struct {
	first int64    // line number of lines[0]
	nums  []int64  // line numbers (blank lines are skipped)
	lines [][]byte // trimmed line bytes, owned by the batch
	out   []T
	done  chan struct{}
}

const (
	batchLines = 512
	batchBytes = 4 << 20
)

// ParallelLines reads r line by line (as File.Lines does) and decodes the
// lines on up to GOMAXPROCS goroutines, then calls handle for every line in
// file order on the calling goroutine. decode must be pure (it may run
// concurrently and out of order); handle does everything stateful. At most a
// few batches are in flight, so memory stays bounded by the batch size.
//
// Steps:
//  1. a reader goroutine cuts the input into batches of ≤ 512 lines / 4 MB,
//     copying the line bytes, and sends each batch both to the decoders and,
//     in order, to the handler queue;
//  2. decoders fill batch.out and close batch.done;
//  3. the caller takes batches from the queue in order, waits for each to be
//     decoded, and calls handle line by line.
func ParallelLines[T any](f *File, r io.Reader, decode func(line int64, b []byte) T, handle func(line int64, b []byte, v T) error) error {
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
		b.out = make([]T, len(b.lines))
		for i, l := range b.lines {
			b.out[i] = decode(b.nums[i], l)
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
		readErr = f.eachLine(r, func(line int64, b []byte) error {
			if len(cur.nums) == 0 {
				cur.first = line
			}
			cur.nums = append(cur.nums, line)
			cur.lines = append(cur.lines, bytes.Clone(b))
			size += len(b)
			if len(cur.lines) >= batchLines || size >= batchBytes {
				if !send() {
					return errStopped
				}
			}
			return nil
		}, false) // the handler loop below tracks f.line
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
			if herr = handle(b.nums[i], l, b.out[i]); herr != nil {
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
