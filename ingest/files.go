package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/trajmine/trajmine/schema"
)

// This file holds how Files reaches the bytes it imports: the walk, which
// files it opens, and reading exactly the bytes it hashed.

// utf8BOM is the byte order mark some editors and Windows tools put first.
var utf8BOM = []byte("\xef\xbb\xbf")

// trimBOM drops one leading UTF-8 byte order mark.
func trimBOM(b []byte) []byte { return bytes.TrimPrefix(b, utf8BOM) }

// ErrNotRegular is returned (wrapped) for a path that is not a regular
// file: a FIFO, a socket, a device such as /dev/zero. Files never reads
// from one, since a read could block forever or never end.
var ErrNotRegular = errors.New("not a regular file")

// openRegular opens path for reading without blocking (a FIFO opened for
// reading otherwise waits for a writer) and refuses anything but a regular
// file, checked on the open descriptor so that the file read is the file
// checked.
func openRegular(path string) (*os.File, fs.FileInfo, error) {
	fh, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, describeOpenError(path, err)
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, nil, fmt.Errorf("stat %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		fh.Close()
		return nil, nil, notRegular(path, st.Mode())
	}
	return fh, st, nil
}

// describeOpenError is err, an *fs.PathError from opening or examining
// path (it already names the operation and the path: it is not wrapped in
// another), or, for a symbolic link to a missing file, a message saying so.
func describeOpenError(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		if target, lerr := os.Readlink(path); lerr == nil {
			return fmt.Errorf("open %s: a symbolic link to %s, which does not exist: %w", path, target, fs.ErrNotExist)
		}
	}
	return err
}

// notRegular says what path is instead of a regular file.
func notRegular(path string, m fs.FileMode) error {
	what := "special file"
	switch {
	case m&fs.ModeNamedPipe != 0:
		what = "named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		what = "socket"
	case m&fs.ModeCharDevice != 0:
		what = "character device"
	case m&fs.ModeDevice != 0:
		what = "device"
	case m.IsDir():
		what = "directory"
	}
	return fmt.Errorf("%s: skipped, %w: a %s", path, ErrNotRegular, what)
}

// walkFunc is filepath.WalkDir's signature; tests substitute one that
// fails where they want.
type walkFunc func(root string, fn fs.WalkDirFunc) error

// expand is Expand with the walk to use. A directory that cannot be read
// (or an entry that cannot be examined) goes to warn and the walk goes on
// with the rest; only a named path that does not exist is an error.
func expand(paths []string, warn func(error), walk walkFunc) ([]string, error) {
	return expandExts(paths, warn, walk, logExts)
}

// expandExts is expand keeping, of the files a walk finds, those with one
// of the name endings exts.
func expandExts(paths []string, warn func(error), walk walkFunc, exts []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("ingest: %w", describeOpenError(p, err)) // the error names p
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		err = walk(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if warn != nil {
					warn(fmt.Errorf("walk %s: %w", path, err))
				}
				if d != nil && d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				if path != p && strings.HasPrefix(d.Name(), ".") && d.Name() != ".claude" && d.Name() != ".codex" {
					return filepath.SkipDir
				}
				return nil
			}
			for _, ext := range exts {
				if strings.HasSuffix(strings.ToLower(d.Name()), ext) {
					out = append(out, path)
					break
				}
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("walk %s: %w", p, err)
		}
	}
	return out, nil
}

// sourceReader is what Files hands an importer for a file too large to
// hold in memory: the first n bytes of the open file (the bytes prepare
// hashed), read either as a stream or, for importers that need random
// access (ZIP archives), through ReadAt. Streamed bytes are hashed again as
// they go by (or fingerprinted, below); verify hashes whatever was not
// streamed and compares, so that a file changed in place between hashing
// and import fails instead of being stored under a hash of other bytes.
//
// A file hashed while it is imported (hashlazy.go) is checked by
// fingerprint instead (useFingerprint): the hasher takes the sha256 and a
// fingerprint of the bytes in one pass, the stream only the fingerprint,
// so the file's bytes go through SHA-256 once.
type sourceReader struct {
	sec      *io.SectionReader
	base     int64 // bytes skipped before what the importer sees (a BOM)
	h        hash.Hash
	progress func(int64)
	read     int64 // bytes streamed so far
	// byFP: h is a fingerprint (newFingerprint), checked against wantFP
	byFP   bool
	wantFP uint64
}

func newSourceReader(fh *os.File, n int64, progress func(int64)) *sourceReader {
	return &sourceReader{sec: io.NewSectionReader(fh, 0, n), h: sha256.New(), progress: progress}
}

// useFingerprint makes the stream check its bytes by fingerprint, against
// the one set with wantFP before verify. It must come before any read.
func (s *sourceReader) useFingerprint() { s.h, s.byFP = newFingerprint(), true }

// skipBOM consumes a leading UTF-8 byte order mark, so that the importer
// sees the file from its first character on.
func (s *sourceReader) skipBOM() error {
	b := make([]byte, len(utf8BOM))
	if n, _ := s.sec.ReadAt(b, 0); n < len(b) || !bytes.Equal(b, utf8BOM) {
		return nil
	}
	if _, err := io.ReadFull(s, b); err != nil {
		return err
	}
	s.base = int64(len(b))
	return nil
}

func (s *sourceReader) Read(b []byte) (int, error) {
	n, err := s.sec.Read(b)
	if n > 0 {
		s.read += int64(n)
		s.h.Write(b[:n])
		if s.progress != nil {
			s.progress(int64(n))
		}
	}
	return n, err
}

// ReadAt reads from the hashed bytes (after a skipped BOM) without moving
// the stream.
func (s *sourceReader) ReadAt(b []byte, off int64) (int, error) {
	return s.sec.ReadAt(b, off+s.base)
}

// Size is the number of bytes hashed (less a skipped BOM).
func (s *sourceReader) Size() int64 { return s.sec.Size() - s.base }

// verify reads (and hashes) the rest of the hashed bytes and checks that
// they hash to src's sha256 (or to the fingerprint taken with it).
func (s *sourceReader) verify(src *schema.Source) error {
	if _, err := io.Copy(s.h, s.sec); err != nil {
		return fmt.Errorf("read %s: %w", src.Path, err)
	}
	changed := hex.EncodeToString(s.h.Sum(nil)) != src.SHA256
	if s.byFP {
		changed = s.h.(hash.Hash64).Sum64() != s.wantFP
	}
	if changed {
		return fmt.Errorf("%s changed while it was read (its first %d bytes no longer hash as before); nothing of it was kept, ingest it again", src.Path, src.Bytes)
	}
	return nil
}

// sum reads (and hashes) the rest of the bytes and returns the sha256 of
// all of them: the hash of a file imported before its hash was known
// (hashlazy.go). A file shorter now than when it was opened fails.
func (s *sourceReader) sum(path string) (string, error) {
	m, err := io.Copy(s.h, s.sec)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	if s.read+m != s.sec.Size() {
		return "", fmt.Errorf("%s changed while it was read (it has fewer than its %d bytes now); nothing of it was kept, ingest it again", path, s.sec.Size())
	}
	return hex.EncodeToString(s.h.Sum(nil)), nil
}

// randomAccess is a reader an importer may also read at offsets (a
// *bytes.Reader, or what Files passes for a large file).
type randomAccess interface {
	io.Reader
	io.ReaderAt
	Size() int64
}

// verifySink makes each transaction's Commit first check, with check, that
// the bytes imported are the bytes hashed.
type verifySink struct {
	Sink
	check func(*schema.Source) error
}

func (s *verifySink) Begin(ctx context.Context, src *schema.Source) (Tx, error) {
	tx, err := s.Sink.Begin(ctx, src)
	if err != nil {
		return nil, err
	}
	return &verifyTx{Tx: tx, check: s.check}, nil
}

type verifyTx struct {
	Tx
	check func(*schema.Source) error
}

func (t *verifyTx) Commit(src *schema.Source) error {
	if err := t.check(src); err != nil {
		return err
	}
	return t.Tx.Commit(src)
}
