package ingest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/trajmine/trajmine/schema"
)

// Importer reads one log format.
type Importer interface {
	// Name is the format's name as used by --format.
	Name() string
	// Describe says in one line what the importer reads.
	Describe() string
	// Detect reports whether a file with this name starting with head is in
	// the importer's format. head is the file's first HeadSize bytes or
	// fewer; when those hold no line end, the HeadSize bytes after the
	// first line follow them, after a "\n" (readHead).
	Detect(name string, head []byte) bool
	// Import reads the whole file, feeding runs built with f.NewRun.
	// Malformed records go to f.Reject; a returned error aborts the file.
	// r is the file without a leading BOM; Files' readers also have
	// ReadAt and Size (over the same bytes), for formats that need random
	// access, such as ZIP archives.
	Import(f *File, r io.Reader) error
}

// formatInfo is the part of an Importer that is data: the name --format
// takes and the one-line description. Importers embed it; formats.go sets
// it where it registers them.
type formatInfo struct{ name, describe string }

func (fi formatInfo) Name() string     { return fi.name }
func (fi formatInfo) Describe() string { return fi.describe }

// HeadSize is how much of a file Detect sees.
const HeadSize = 64 << 10

var (
	registry []Importer
	priority = map[string]int{}
)

// register adds an importer at a detection priority: lower numbers are tried
// first (specific formats before generic ones such as plain message lists).
func register(prio int, im Importer) {
	priority[im.Name()] = prio
	registry = append(registry, im)
	sort.SliceStable(registry, func(i, j int) bool { return priority[registry[i].Name()] < priority[registry[j].Name()] })
}

// Importers returns every registered importer in detection order.
func Importers() []Importer { return append([]Importer(nil), registry...) }

// FormatNames returns the names of all importers.
func FormatNames() []string {
	out := make([]string, len(registry))
	for i, im := range registry {
		out[i] = im.Name()
	}
	return out
}

// Lookup returns the importer named name.
func Lookup(name string) (Importer, error) {
	for _, im := range registry {
		if im.Name() == name {
			return im, nil
		}
	}
	return nil, fmt.Errorf("unknown input format %q (known: %s)", name, strings.Join(FormatNames(), ", "))
}

// genericPriority is the priority from which importers read generic shapes
// (plain message lists) that specific formats may also match.
const genericPriority = 90

// Candidates returns every importer that recognises the file, in priority
// order. A leading UTF-8 byte order mark is not part of what they see.
func Candidates(name string, head []byte) []Importer {
	head, _ = repairJSONText(trimBOM(head)) // as the importer will read it
	var out []Importer
	for _, im := range registry {
		if im.Detect(name, head) {
			out = append(out, im)
		}
	}
	return out
}

// Detect returns the importer auto-detection picks for the file: the one
// specific importer (priority < 90) that recognises it, else the first
// generic one. It returns nil when none does, or when several specific
// importers do (DetectFormat says which).
func Detect(name string, head []byte) Importer {
	im, _ := DetectFormat(name, head)
	return im
}

// DetectFormat is Detect with the reason when there is no pick: an error
// wrapping ErrUnknownFormat naming the formats tried, or ErrAmbiguousFormat
// naming the candidates.
func DetectFormat(name string, head []byte) (Importer, error) {
	specific, generic := candidates(name, head)
	if len(specific) != 1 {
		// no specific format, or several: look again without the lines
		// most of the first ones disagree with (majorityHead), so that
		// one bad line cannot hide a JSONL format or make it ambiguous
		repaired, _ := repairJSONText(trimBOM(head))
		var alt [][]byte
		if i := bytes.IndexByte(repaired, '\n'); i >= HeadSize-1 {
			alt = append(alt, repaired[i+1:]) // the lines after a first line longer than the head (readHead)
		}
		if clean, ok := majorityHead(repaired); ok {
			alt = append(alt, clean)
		}
		if i := bytes.IndexByte(repaired, '\n'); i >= 0 && i < len(repaired)-1 && repaired[0] == '{' {
			// records so long that the head holds too few for a
			// majority: the head without its first line
			alt = append(alt, repaired[i+1:])
		}
		for _, h := range alt {
			if s, _ := candidates(name, h); len(s) == 1 {
				return s[0], nil
			}
		}
	}
	switch {
	case len(specific) == 1:
		return specific[0], nil
	case len(specific) > 1:
		names := make([]string, len(specific))
		for i, im := range specific {
			names[i] = im.Name()
		}
		return nil, fmt.Errorf("%s: %w: %s (choose one with --format)", name, ErrAmbiguousFormat, strings.Join(names, ", "))
	case len(generic) > 0:
		return generic[0], nil
	}
	return nil, unknownFormatError(name)
}

// candidates is Candidates split at genericPriority.
func candidates(name string, head []byte) (specific, generic []Importer) {
	for _, im := range Candidates(name, head) {
		if priority[im.Name()] < genericPriority {
			specific = append(specific, im)
		} else {
			generic = append(generic, im)
		}
	}
	return specific, generic
}

// Options configure an import. A nil *Options means defaults.
type Options struct {
	Format    string    // "" or "auto": detect per file
	Strict    bool      // a malformed record aborts its file
	Estimator Estimator // default CharsPerToken
	Workers   int       // files parsed in parallel; default GOMAXPROCS
	// Warn receives each non-fatal problem (*SyntaxError for bad records).
	Warn func(error)
	// Progress, when set, is called with the number of bytes just read.
	Progress func(n int64)
	// Skipped, when set, is called instead of Progress with the size of
	// each file skipped without being read (the QuickSink check), so that
	// a rate over Progress counts only bytes read.
	Skipped func(n int64)
	// Done, when set, is called once for each file when it is done with:
	// imported, skipped (already imported, or not a log) or failed.
	Done func()
	// SmallFile is the size up to which files are parsed in memory and
	// committed in batches when the sink is a BatchSink (default 4 MiB;
	// negative: never).
	SmallFile int64
	// Rehash hashes every file, even those the sink (a QuickSink) says were
	// imported unchanged.
	Rehash bool
	// MaxDecompressed caps the bytes one archive (an Inspect .eval) may
	// decompress to, all members together (default DefaultMaxDecompressed;
	// negative: no cap). An archive over the cap fails as a whole, with a
	// message naming the cap, and the other files import.
	MaxDecompressed int64
	// Select, when set, keeps only the files it returns true for (given
	// each path as the walk found it); the others are neither read nor
	// counted. trajmine ingest --shard uses it to split the files.
	Select func(path string) bool
	// Outcomes imports outcome files only (IsOutcomeFormat; trajmine
	// outcomes): a walk also considers .csv and .tsv files, a file found
	// by the walk in another format or none is skipped without a warning,
	// and a file named that is not an outcome file fails.
	Outcomes bool

	walk         walkFunc          // for tests: filepath.WalkDir when nil
	afterPrepare func(path string) // for tests: called between hashing and import
	noRepair     bool              // for the benchmark of repairTx: records reach the sink unrepaired
	hashFirst    bool              // for tests: hash a large file before its import, not while (hashlazy.go)
}

// DefaultMaxDecompressed is Options.MaxDecompressed's default: 1 GiB.
const DefaultMaxDecompressed = 1 << 30

func (o *Options) maxDecompressed() int64 {
	if o == nil || o.MaxDecompressed == 0 {
		return DefaultMaxDecompressed
	}
	return o.MaxDecompressed
}

// DefaultSmallFile is Options.SmallFile's default.
const DefaultSmallFile = 4 << 20

func (o *Options) est() Estimator {
	if o == nil || o.Estimator == nil {
		return CharsPerToken{}
	}
	return o.Estimator
}

// File is the context of one file's import, passed to Importer.Import.
type File struct {
	Ctx    context.Context
	path   string
	sha    string
	format string
	strict bool
	est    Estimator
	warn   func(error)
	tx     Tx
	// start begins the transaction (and, for a file hashed as it is
	// read, waits for its hash first); run once, by begin, on the first
	// use of tx. startErr is what it returned.
	start    func() error
	startErr error
	// shaOnDemand gives the sha256 of a file whose import began before it
	// was known (hashing.sha), when sha is still empty
	shaOnDemand func() (string, error)

	runs, events, rejects, outcomes int64

	maxDecompressed int64 // Options.MaxDecompressed
	line            int64 // the line being handled by Lines or lineReader (0: none)

	where string // the store row being read ("table T row N", rowWhere), which Reject names instead of a line

	jsonRepairs atomic.Int64 // strings with raw control characters repaired in the JSON read (repair.go)
}

// Path returns the file's path.
func (f *File) Path() string { return f.path }

// SHA256 returns the file's content hash (waiting for it when the file
// is hashed as it is read).
func (f *File) SHA256() string {
	_ = f.begin()
	sha, _ := f.hash()
	return sha
}

// hash returns the file's sha256, asking for it (shaOnDemand) when the
// import began before it was known.
func (f *File) hash() (string, error) {
	if f.sha == "" && f.shaOnDemand != nil {
		sha, err := f.shaOnDemand()
		if err != nil {
			return "", fmt.Errorf("hash %s: %w", f.path, err)
		}
		f.sha = sha
	}
	return f.sha, nil
}

// begin makes sure the transaction has begun (see File.start); every use
// of f.tx and f.sha goes through it. Its error, the same on every call,
// ends the import.
func (f *File) begin() error {
	if f.start != nil {
		start := f.start
		f.start = nil
		f.startErr = start()
	}
	return f.startErr
}

// Estimator returns the token estimator in use.
func (f *File) Estimator() Estimator { return f.est }

// Reject records a malformed record at line (1-based). It returns a non-nil
// error, which the importer must return, only in strict mode.
func (f *File) Reject(line int64, reason string, raw []byte) error {
	if err := f.begin(); err != nil {
		return err
	}
	se := &SyntaxError{File: f.path, Line: line, Where: f.where, Msg: reason}
	if f.where != "" {
		reason = f.where + ": " + reason
	}
	if f.strict {
		return se
	}
	f.rejects++
	if f.warn != nil {
		f.warn(se)
	}
	r := raw
	if len(r) > schema.MaxRejectRaw {
		r = r[:schema.MaxRejectRaw]
	}
	return f.tx.Reject(&schema.Reject{SourcePath: f.path, Line: line, Reason: reason, Raw: strings.ToValidUTF8(string(r), "\uFFFD")})
}

// Outcome records one row of an outcome file (its file and sha256 are
// set here).
func (f *File) Outcome(o *schema.Outcome) error {
	if err := f.begin(); err != nil {
		return err
	}
	sha, err := f.hash()
	if err != nil {
		return err
	}
	o.SourcePath, o.SourceSHA256 = f.path, sha
	f.outcomes++
	return f.tx.Outcome(o)
}

// Lines calls fn for every non-blank line of r (1-based line numbers), without
// a line-length limit. It stops at the first error fn returns and checks the
// context every 1024 lines.
func (f *File) Lines(r io.Reader, fn func(line int64, b []byte) error) error {
	return f.eachLine(r, fn, true)
}

// eachLine is Lines; track says whether it records the line being handled
// in f.line, which only the goroutine that handles lines may do
// (parallelLines' reader goroutine does not: issue 31.7's data race).
func (f *File) eachLine(r io.Reader, fn func(line int64, b []byte) error, track bool) error {
	br := bufio.NewReaderSize(r, 64<<10) // longer lines are joined below
	if track {
		defer func() { f.line = 0 }()
	}
	var line int64
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long, chunk...)
			continue
		}
		if len(long) > 0 {
			chunk = append(long, chunk...)
			long = long[:0]
		}
		if len(chunk) > 0 {
			line++
			if line&1023 == 0 && f.Ctx != nil {
				if cerr := f.Ctx.Err(); cerr != nil {
					return cerr
				}
			}
			b := bytes.TrimSpace(chunk)
			if len(b) > 0 {
				if track {
					f.line = line
				}
				if ferr := fn(line, b); ferr != nil {
					return ferr
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", f.path, err)
		}
	}
}

// Summary reports what Files did.
type Summary struct {
	Files   int   // files imported
	Skipped int   // already imported (same sha256) or not a log
	Failed  int   // files whose import was aborted, directories that could not be read
	Runs    int64 // runs imported
	Events  int64
	Rejects int64
	Repairs int64 // text fields repaired: to valid UTF-8 (schema.RepairUTF8), raw control characters escaped (repairJSONText)
	Bytes   int64
	Errors  []error // one per failed file or unreadable directory

	OutcomeFiles int   // outcome files imported (of Files; IsOutcomeFormat)
	OutcomeRows  int64 // the outcome rows they hold
	// Outcomes is what the sink's ApplyOutcomes did after the imports (an
	// OutcomeSink; zero for another sink).
	Outcomes OutcomeResult
}

// Parse imports data with the named format into a MemSink; for tests and
// fuzzing. A sink left inconsistent (MemSink.Check: the rules trajmine
// check tests on a store) is an error.
func Parse(ctx context.Context, format, name string, data []byte, o *Options) (*MemSink, error) {
	im, err := Lookup(format)
	if err != nil {
		return nil, err
	}
	sink := &MemSink{}
	sum := sha256.Sum256(data)
	src := &schema.Source{Path: name, SHA256: hex.EncodeToString(sum[:]), Format: format, Bytes: int64(len(data)), IngestedAt: time.Unix(0, 0)}
	err = importOne(ctx, sink, im, src, bytes.NewReader(trimBOM(data)), o)
	if err == nil {
		err = sink.Check()
	}
	return sink, err
}

func importOne(ctx context.Context, sink Sink, im Importer, src *schema.Source, r io.Reader, o *Options) error {
	return importWhenHashed(ctx, sink, im, src, r, o, nil)
}

// hashing says how the import of a file whose sha256 is not known yet
// begins (hashlazy.go): ready waits for the hash and fills src.SHA256
// before the transaction begins; begin, instead, begins it at once
// (UnhashedSink), and sha gives the hash on demand while src.SHA256 is
// empty.
type hashing struct {
	ready func() error
	begin func() (Tx, error)
	sha   func() (string, error)
}

// importWhenHashed is importOne for a source whose hash may not be known
// yet (hashlazy.go): with h.ready set, the transaction begins on the
// importer's first use of it (File.begin), after ready has filled
// src.SHA256, so the file is read and decoded while it is hashed, and a
// ready error ends the import with nothing begun; with h.begin set, it
// begins at once, without the hash.
func importWhenHashed(ctx context.Context, sink Sink, im Importer, src *schema.Source, r io.Reader, o *Options, h *hashing) error {
	var repairs int64
	f := &File{Ctx: ctx, path: src.Path, sha: src.SHA256, format: im.Name(), est: o.est()}
	f.start = func() error {
		var tx Tx
		var err error
		if h != nil && h.begin != nil {
			f.shaOnDemand = h.sha
			tx, err = h.begin()
		} else {
			if h != nil && h.ready != nil {
				if err := h.ready(); err != nil {
					return err
				}
				f.sha = src.SHA256
			}
			tx, err = sink.Begin(ctx, src)
		}
		if err != nil {
			return fmt.Errorf("begin import of %s: %w", src.Path, err)
		}
		if o == nil || !o.noRepair {
			tx = repairTx{Tx: tx, n: &repairs}
		}
		f.tx = tx
		return nil
	}
	if h == nil || h.ready == nil {
		if err := f.begin(); err != nil {
			return err
		}
	}
	if o != nil {
		f.strict, f.warn = o.Strict, o.Warn
	}
	f.maxDecompressed = o.maxDecompressed()
	if o == nil || !o.noRepair {
		r = jsonInput(r, &f.jsonRepairs)
	}
	err := safeImport(im, f, r)
	if err == nil {
		err = f.begin() // an import that stored nothing still commits its source
	}
	if err != nil {
		if f.tx != nil {
			_ = f.tx.Rollback()
		}
		return err
	}
	tx := f.tx
	repairs += f.jsonRepairs.Load()
	src.Format, src.ReaderVersion = im.Name(), ReaderVersion(im.Name())
	src.Runs, src.Events, src.Rejects, src.Outcomes = f.runs, f.events, f.rejects, f.outcomes
	if err := tx.Commit(src); err != nil {
		_ = tx.Rollback()
		return fmt.Errorf("commit %s: %w", src.Path, err)
	}
	return nil
}

// safeImport turns an importer panic into an error so that one bad file never
// takes down an ingest of thousands; fuzzing makes sure there are none.
func safeImport(im Importer, f *File, r io.Reader) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: importer %s failed: %v", f.path, im.Name(), p)
		}
	}()
	return im.Import(f, r)
}

// logExts are the file name endings a directory walk considers (with the
// SQLite stores' sqliteExts).
var logExts = append([]string{".jsonl", ".json", ".ndjson", ".traj", ".eval", ".md"}, sqliteExts...)

// Expand turns files and directories (walked recursively) into a sorted list
// of candidate log files. A directory that cannot be read is reported to
// warn (when not nil) and the walk goes on; a named path that does not exist
// is an error.
func Expand(paths []string, warn func(error)) ([]string, error) {
	out, err := expand(paths, warn, filepath.WalkDir)
	if err != nil {
		return nil, err
	}
	sort.Strings(out)
	return out, nil
}

// prepare opens a regular file (see openRegular), reads its head, detects
// its format and hashes it. A file of at most small bytes is read whole and
// returned, to be imported from memory; for a larger one src.Bytes says how
// many bytes were hashed, and the import reads those.
//
// With only set, a file whose format only refuses fails with an error
// wrapping errNotOutcome before it is hashed.
//
// With lazy, a large file is not hashed here: its source comes back with
// an empty SHA256 and Bytes the file's size when opened, to be hashed while
// it is imported (hashlazy.go).
func prepare(path string, forced Importer, small int64, only func(Importer) bool, lazy bool) (*schema.Source, Importer, []byte, error) {
	fh, st, err := openRegular(path)
	if err != nil {
		return nil, nil, nil, err
	}
	defer fh.Close()
	var buf, head []byte
	var h hash.Hash // for a large file: the hash of its first hashed bytes
	var hashed int64
	whole := false
	if st.Size() <= small {
		// read up to small+1 bytes: a file that grew past small since the
		// stat is hashed and imported as a large one
		b := bytes.NewBuffer(make([]byte, 0, st.Size()+bytes.MinRead)) // no regrowth unless it grew
		_, err = b.ReadFrom(io.LimitReader(fh, small+1))
		buf = b.Bytes()
		whole = int64(len(buf)) <= small
		if err == nil {
			head, err = readHead(bytes.NewReader(buf))
		}
	} else {
		// every byte read for the head is hashed as it is read, the
		// rest after detection
		h = sha256.New()
		cr := &headReader{r: io.TeeReader(fh, h)}
		head, err = readHead(cr)
		hashed = cr.n
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	if _, store := forced.(storeImporter); isSQLite(head) && (forced == nil || store) {
		src, im, err := prepareStore(path, forced, only) // sqlite.go: a snapshot, not the head
		return src, im, nil, err
	}
	im := forced
	if im == nil {
		if im, err = DetectFormat(path, head); err != nil {
			return nil, nil, nil, err
		}
	}
	if only != nil && !only(im) {
		return nil, nil, nil, fmt.Errorf("%s: %w: it is a %s file (trajmine ingest imports it)", path, errNotOutcome, im.Name())
	}
	if lazy && buf == nil {
		src := newSource(path, h, st.Size(), im)
		src.SHA256 = ""
		return src, im, nil, nil
	}
	if h == nil {
		h = sha256.New()
		h.Write(buf)
		hashed = int64(len(buf))
	}
	n := hashed
	if whole {
		return newSource(path, h, n, im), im, buf, nil
	}
	m, err := io.Copy(h, fh)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("hash %s: %w", path, err)
	}
	return newSource(path, h, n+m, im), im, nil, nil
}

// readHead reads what Detect sees of a file: its first HeadSize bytes and,
// when they hold no line end (a first line longer than HeadSize, such as
// one huge or cut-off record), a "\n" and up to HeadSize bytes after the
// end of that line, so that a JSONL format is still detected on the lines
// that follow (issue 30.12). The rest of the long line is read through,
// not kept.
func readHead(r io.Reader) ([]byte, error) {
	head := make([]byte, HeadSize, 2*HeadSize+1)
	n, err := io.ReadFull(r, head)
	head = head[:n]
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		return head, nil
	}
	if err != nil || bytes.IndexByte(head, '\n') >= 0 {
		return head, err
	}
	br := bufio.NewReaderSize(r, HeadSize)
	for {
		_, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF {
			return head, nil
		}
		if err != nil {
			return nil, err
		}
		break
	}
	head = append(head, '\n')
	more := head[len(head) : len(head)+HeadSize]
	m, err := io.ReadFull(br, more)
	head = head[:len(head)+m]
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	return head, err
}

// headReader counts the bytes read through it (for the head, readHead).
type headReader struct {
	r io.Reader
	n int64
}

func (c *headReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func newSource(path string, h hash.Hash, n int64, im Importer) *schema.Source {
	return &schema.Source{
		Path: path, SHA256: hex.EncodeToString(h.Sum(nil)), Format: im.Name(), ReaderVersion: ReaderVersion(im.Name()),
		Bytes: n, IngestedAt: time.Now().UTC().Truncate(time.Microsecond),
	}
}
