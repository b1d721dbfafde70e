package ingest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"sync"

	"github.com/trajmine/trajmine/schema"
)

// Hashing a large file while it is imported (issue 33). A file's sha256
// says whether it was imported before, and it names the file's runs, so
// it used to be computed in a pass of its own before the import began: a
// second of one core for a few hundred MB, with the other core idle. Now
// a large file is hashed by a goroutine of its own while the import reads
// and decodes it (both read the same pages from the cache), and the
// file's transaction begins, on the importer's first use of it
// (File.begin), once the hash is known: the sink sees the same Source, the
// same run ids and the same rows as before, and the bytes imported are
// still checked against the hashed ones before the commit
// (sourceReader.verify), by a fingerprint the hasher takes in the same pass
// as the sha256 (newFingerprint): SHA-256 reads the file once.
//
// Whether the content was met before (Sink.Seen, or an earlier file of the
// same ingest) is known only then: such a file is dropped before anything
// of it reaches the sink, after the little the reader and decoders read
// ahead, and counted as skipped, as before.

// A large file may even be imported before its hash is known, hashed by
// the stream the importer reads (sourceReader.sum), when the sink can
// begin it so (UnhashedSink) and no file it holds has the file's size (the
// earlier files of the same Files call are committed before its turn, so
// it holds them too): then no file of the same content can have been
// imported, which is all the hash would have told before the import. The
// sha256 reaches the rows that carry it at the commit; where it is needed
// earlier (a run id another file holds, a run without an id, an outcome
// row), the file is hashed by a read of its own (hashFile), and the commit
// checks that both hashes agree. The file is then read once, and no core
// waits for the hash before the import.

// errSeenLate ends the import of a file hashed while it was read whose
// content turns out to be imported already.
var errSeenLate = errors.New("content already imported")

// hashed is the outcome of hashFile.
type hashed struct {
	sha string
	fp  uint64 // the bytes' fingerprint (newFingerprint)
	n   int64  // bytes hashed: n, or fewer when the file shrank
	err error
}

// fingerprintSeed seeds every fingerprint of the process: the hasher's
// and the stream's of one file must agree, and a file changed under the
// import cannot be made to collide without knowing it.
var fingerprintSeed = maphash.MakeSeed()

// newFingerprint is a 64-bit seeded hash (hash/maphash, several times
// faster than SHA-256) of the bytes written to it, however they are split
// into writes. The hasher takes it beside the sha256, the stream of the
// same bytes takes it alone (sourceReader.useFingerprint): equal
// fingerprints say that the bytes imported are the bytes hashed (but for
// a chance of 2⁻⁶⁴ for bytes changed in between), so the sha256 is theirs.
func newFingerprint() *maphash.Hash {
	var h maphash.Hash
	h.SetSeed(fingerprintSeed)
	return &h
}

// hashFile hashes the first n bytes of the file at path: their sha256 and
// fingerprint, in one read.
func hashFile(path string, n int64) hashed {
	fh, _, err := openRegular(path)
	if err != nil {
		return hashed{err: err}
	}
	defer fh.Close()
	h, fp := sha256.New(), newFingerprint()
	m, err := io.Copy(io.MultiWriter(h, fp), io.NewSectionReader(fh, 0, n))
	if err != nil {
		return hashed{err: fmt.Errorf("hash %s: %w", path, err)}
	}
	return hashed{sha: hex.EncodeToString(h.Sum(nil)), fp: fp.Sum64(), n: m}
}

// streamHashing imports a large file (out.lazy) from r, sr's stream of
// it, while another goroutine hashes it; the transaction begins when the
// hash is known and the content is new (out.claim, the sink's Seen).
func (p *pipeline) streamHashing(path string, out *outcome, sr *sourceReader, r io.Reader, isink Sink) {
	src := out.src
	result := make(chan hashed, 1)
	go func() { result <- hashFile(path, src.Bytes) }()
	var skipped, fatal bool
	ready := func() error {
		h := <-result
		if h.err != nil {
			return h.err
		}
		src.SHA256, src.Bytes = h.sha, h.n
		sr.wantFP = h.fp
		seen, err := p.seen(src)
		if err != nil {
			e := fmt.Errorf("check %s: %w", path, err)
			p.fatal.CompareAndSwap(nil, &e)
			fatal = true
			return e
		}
		if seen || !out.claim(contentKey(src)) {
			skipped = true
			return errSeenLate
		}
		return nil
	}
	err := importWhenHashed(p.ctx, isink, out.im, src, r, &p.oo, &hashing{ready: ready})
	switch {
	case fatal:
	case skipped:
		p.skip()
		p.progress(max(0, src.Bytes-sr.read))
	case err != nil:
		p.fail(err)
	default:
		p.imported(src)
	}
}

// unhashed reports whether out, a large file hashed while it is imported,
// can be imported before its hash is known (UnhashedSink): no file the
// sink holds has its size. The earlier files of this Files call are among
// them: the committer gives a large file its turn only once everything
// before it is committed (or skipped, its content held already).
func (p *pipeline) unhashed(out *outcome) (UnhashedSink, bool) {
	us, ok := p.sink.(UnhashedSink)
	if !ok {
		return nil, false
	}
	seen, err := us.SizeSeen(p.ctx, out.src.Bytes)
	if err != nil || seen { // an error: the hash first, whose check reports it
		return nil, false
	}
	return us, true
}

// streamUnhashed imports a large file (out.lazy) from sr before its hash
// is known (see unhashed): sr hashes the bytes as they are read, the
// commit takes the hash of them all (sourceReader.sum), checked against
// the one hashFile took if one was needed earlier.
func (p *pipeline) streamUnhashed(path string, out *outcome, sr *sourceReader, us UnhashedSink) {
	src := out.src
	early := sync.OnceValues(func() (string, error) {
		h := hashFile(path, src.Bytes)
		if h.err == nil && h.n != src.Bytes {
			h.err = fmt.Errorf("%s shrank while it was read", path)
		}
		return h.sha, h.err
	})
	var asked, skipped bool
	h := &hashing{sha: func() (string, error) { asked = true; return early() }}
	h.begin = func() (Tx, error) {
		tx, err := us.BeginUnhashed(p.ctx, src, h.sha)
		if err != nil {
			return nil, err
		}
		return &verifyTx{Tx: tx, check: func(src *schema.Source) error {
			sha, err := sr.sum(path)
			if err != nil {
				return err
			}
			if asked {
				if e, err := early(); err != nil || e != sha {
					return fmt.Errorf("%s changed while it was read (its %d bytes no longer hash as before); nothing of it was kept, ingest it again", path, src.Bytes)
				}
			}
			src.SHA256 = sha
			if !out.claim(contentKey(src)) { // cannot happen: no earlier file had its size
				skipped = true
				return errSeenLate
			}
			return nil
		}}, nil
	}
	err := importWhenHashed(p.ctx, p.sink, out.im, src, sr, &p.oo, h)
	switch {
	case skipped:
		p.skip()
	case err != nil:
		p.fail(err)
	default:
		p.imported(src)
	}
}
