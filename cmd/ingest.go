package cmd

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/trajmine/trajmine/analysis"
	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/textfmt"
	"github.com/trajmine/trajmine/schema"
)

// IngestOptions are the flags and arguments of trajmine ingest.
type IngestOptions struct {
	Inputs    []string
	Format    string
	Strict    bool
	Tokenizer string
	Workers   int
	Rehash    bool
	JSON      bool
	Shard     string   // --shard i/n (with --lake)
	Tags      []string // --tag KEY=VALUE: given to every run under the PATHs
	Out, Err  io.Writer
	Width     int // the summary line's wrap (0: one line)
	Progress  bool

	// MaxDecompressed caps what one archive may decompress to (negative: none).
	MaxDecompressed byteSize
}

// NewIngestCmd builds `trajmine ingest`.
func NewIngestCmd(d *Deps, runF func(*IngestOptions) error) *cobra.Command {
	o := &IngestOptions{}
	c := &cobra.Command{
		Use:   "ingest [--format auto|NAME] [--strict] [PATH...]",
		Short: "Import agent logs (files or directories) into the database",
		Long: `Import agent logs into the database. Directories are walked recursively;
each file's format is detected (see trajmine formats) unless --format names
one. With no PATH it imports the standard places of every agent it reads
that exist, on Linux and macOS (README, "Where trajmine looks"), and says on
stderr which it found; when there are none, it exits 1. Files are parsed in parallel and stored in path order (the same rows and
run ids as importing them one by one); each file's import is all-or-nothing,
and a file already imported (same sha256) is skipped: of two files with the
same content, the first in path order is kept. A file whose content changed
since it was imported replaces its earlier runs. A file recorded with the same
path and size, and not modified since its import, is skipped without being
read (the quick check make and rsync use); --rehash reads and hashes it.

A malformed record is reported as file:line: reason on stderr, kept in the
rejects table, and the rest of the file still imports; --strict makes it fatal
for its file (nothing from that file is kept, exit status 1).

Only regular files are read: a FIFO, socket or device found in a directory is
skipped with a warning, and one named on the command line fails (exit status
1) without being opened for reading. A directory that cannot be read is
reported and counted as failed; the rest of the tree still imports. Each
file's sources row covers exactly the bytes imported: a file that grows
during the ingest is imported as it was when hashed, and one rewritten in
place fails and can be ingested again.

An Inspect .eval archive may decompress to at most --max-decompressed bytes
in all (default 1GiB; "none" for no cap). One over the cap is not imported:
the message names the cap, and the other files import. Archive members are
decompressed one at a time, so memory stays within about 10× the largest
member.

Outcome files beside the logs (SWE-bench report.json and results.json,
preds.json, Harbor and terminal-bench results; see trajmine outcomes) are
imported as outcome rows, never as unknown formats, and after every import
the runs are given their outcomes from all the rows stored (runs.resolved,
score, outcome_source), whichever came first; the summary says how many
outcome files were read and how many runs were given an outcome.

After the import, runs an older version imported get their tool calls'
action classes and their system-prompt flag as this version stores them;
the runs that disable outputs (DTOC) get their tool
outputs' uses stored (tables uses_runs and output_uses: which later call
used which output, and by which later call), and then every run its
context-management profile (table run_profiles: what trajmine mine's
behaviour section pools), which trajmine mine then reads instead of the
events; runs whose uses and profile are stored for their current source
and this version are left alone, so a second ingest adds nothing.

--tag KEY=VALUE (repeatable) records a condition for the runs of the
PATHs, for trajmine compare --by tag:KEY: every run whose log is a PATH
or lies under one carries the tag, those imported earlier and later too
(tagging a PATH again with a KEY replaces its value; a run under two
tagged PATHs takes the nearer one's). The tags are kept in the table
tags (path, key, value); a lake holds none.

With --lake DIR (a Parquet lake, README "Scale-out"), --shard i/n imports
only the files of shard i: a file's shard is the FNV-1a 64-bit hash of its
path relative to the PATH argument it was found under (slash-separated; a
file named as an argument: its base name), modulo n. So n processes given
the same PATHs, on any machines and mount points, split the files without
coordination, and each writes its own part files (DIR/<table>/shard=i-of-n/)
with no shared lock; re-running shard i replaces shard i's parts, importing
what changed as a database file would. A run id is made unique within its
shard (id@sha8 for a second file claiming it); a run id two shards claim, or
one file's bytes imported by two shards under two paths, are resolved by the
lake's readers as one process importing the files in path order would store
them (README, Scale-out).`,
		Example: `  trajmine ingest ~/.claude/projects ~/.codex/sessions
  trajmine ingest --tag dtoc=on runs/dtoc-on && trajmine ingest --tag dtoc=off runs/dtoc-off
  trajmine ingest --lake lake/ --shard 3/16 /data/runs
  trajmine ingest --format openai-messages --tokenizer o200k_base runs.jsonl`,
		Args: usageArgs(cobra.ArbitraryArgs),
		RunE: func(c *cobra.Command, args []string) error {
			o.Inputs, o.Out, o.Err, o.Width = args, c.OutOrStdout(), c.ErrOrStderr(), d.width()
			o.Progress = d.ErrIsTTY()
			if runF != nil {
				return runF(o)
			}
			return ingestRun(c.Context(), d, o)
		},
	}
	c.Flags().StringVar(&o.Format, "format", "auto", "input format, or auto to detect per file")
	c.Flags().BoolVar(&o.Strict, "strict", false, "a malformed record aborts its file")
	c.Flags().StringVar(&o.Tokenizer, "tokenizer", "chars4", "token estimator: chars4, o200k_base, cl100k_base")
	c.Flags().IntVar(&o.Workers, "workers", 0, "files parsed in parallel (default: number of CPUs)")
	c.Flags().BoolVar(&o.Rehash, "rehash", false, "hash every file, even those imported unchanged since (same path, size, older modification time)")
	c.Flags().BoolVar(&o.JSON, "json", false, "print the summary as JSON")
	c.Flags().StringVar(&o.Shard, "shard", "", "with --lake: import shard i of n of the files (i/n, 0-based)")
	c.Flags().StringArrayVar(&o.Tags, "tag", nil, "give every run under the PATHs this tag, KEY=VALUE (repeatable; trajmine compare --by tag:KEY)")
	o.MaxDecompressed = ingest.DefaultMaxDecompressed
	c.Flags().Var(&o.MaxDecompressed, "max-decompressed", `what one archive (.eval) may decompress to: bytes, or with a unit (KiB, MiB, GiB, KB, MB, GB), or "none"`)
	return c
}

func ingestRun(ctx context.Context, d *Deps, o *IngestOptions) error {
	est, err := ingest.EstimatorByName(o.Tokenizer)
	if err != nil {
		return flagErrorf("--tokenizer: %v", err)
	}
	if o.Format != "auto" && o.Format != "" {
		if _, err := ingest.Lookup(o.Format); err != nil {
			return flagErrorf("--format: %v", err)
		}
	}
	shard, shards, err := parseShard(o.Shard)
	if err != nil {
		return err
	}
	var tags []schema.Tag
	for _, s := range o.Tags {
		t, err := schema.ParseTag(s)
		if err != nil {
			return flagErrorf("--tag: %v", err)
		}
		tags = append(tags, t)
	}
	if len(tags) > 0 && d.lakeDir() != "" {
		return flagErrorf("--tag: a lake holds no tags; tag the runs in a database file (--db)")
	}
	if len(o.Inputs) == 0 { // no PATH: the standard places (places.go)
		if _, o.Inputs = standardPlaces(d, o.Err); len(o.Inputs) == 0 {
			return &exitCodeError{code: exitFailed, msg: "ingest: no PATH given, and no logs in the standard places (" + standardPlacesText() + ")"}
		}
	}
	opts := &ingest.Options{
		Rehash: o.Rehash, MaxDecompressed: o.MaxDecompressed.cap(),
		Format: o.Format, Strict: o.Strict, Estimator: est, Workers: o.Workers,
	}
	var st *store.Store
	if d.lakeDir() != "" {
		st, err = d.openLakeWriter(ctx, store.LakeIngest, shard, shards)
		opts.Select = func(p string) bool { return IngestShard(o.Inputs, p, shards) == shard }
	} else {
		if o.Shard != "" {
			return flagErrorf("--shard needs --lake: shards of a DuckDB file would contend for its lock; write a Parquet lake")
		}
		st, err = d.open(ctx, false)
	}
	if err != nil {
		return err
	}
	defer st.Close()
	log := newIngestLog(o.Err, false)
	sum, err := runIngest(ctx, st, o.Inputs, opts, log, o.Progress)
	if err != nil {
		return err
	}
	// the classes and system-prompt flags of runs an older version
	// imported, the uses of the runs that disable outputs, then every
	// run's behaviour profile (which reads those uses), for trajmine mine; a
	// lake's importer derives its shard's (it holds only its own runs)
	// and commits them with the imported tables
	if _, err := analysis.DeriveClasses(ctx, st); err != nil { // runs an older version imported
		return err
	}
	if _, err := analysis.DeriveUses(ctx, st); err != nil {
		return err
	}
	if _, err := analysis.DeriveProfiles(ctx, st); err != nil {
		return err
	}
	if len(tags) > 0 {
		if err := st.SetTags(ctx, o.Inputs, tags); err != nil {
			return err
		}
	}
	if st.Lake() != "" {
		// files that failed are not in the shard, as they are not in a database file
		if _, err := st.CommitLake(ctx); err != nil {
			return err
		}
	}
	if o.JSON {
		if err := writeJSON(o.Out, ingestSummaryOf(sum)); err != nil {
			return err
		}
	} else {
		printSummary(o.Out, o.Width, sum, log, true)
		if len(tags) > 0 {
			if err := printTagged(ctx, o.Out, st, tags); err != nil {
				return err
			}
		}
	}
	if sum.Failed > 0 {
		return &exitCodeError{code: exitFailed, msg: countOf(sum.Failed, "file") + " failed to import"}
	}
	return nil
}

// ingestLog is what an import says besides its summary: its warnings
// and failed files' errors, printed to errw as they come, or with hold
// (trajmine report: nothing may come before the scope line) kept until
// flush, the lines rejected and the walked files of no known format left
// out (the summary line counts them: rejectText, "skipped"); and the files
// whose records were rejected (ingest.SyntaxError), for the summary line,
// with how many of the rejects were a SQLite store's rows (a
// SyntaxError placed at a table's row, not a line).
type ingestLog struct {
	errw    io.Writer
	hold    bool
	mu      sync.Mutex
	clear   func() // clears the progress bar before a warning is printed
	rejects map[string]bool
	rows    int64
	held    []error
}

func newIngestLog(errw io.Writer, hold bool) *ingestLog {
	return &ingestLog{errw: errw, hold: hold, rejects: map[string]bool{}}
}

func (l *ingestLog) warn(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var se *ingest.SyntaxError
	if errors.As(err, &se) {
		l.rejects[se.File] = true
		if se.Where != "" {
			l.rows++
		}
	}
	switch {
	case !l.hold:
		if l.clear != nil {
			l.clear()
		}
		fmt.Fprintln(l.errw, err)
	case se != nil, errors.Is(err, ingest.ErrUnknownFormat):
	default:
		l.held = append(l.held, err)
	}
}

// flush prints the warnings and errors held.
func (l *ingestLog) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, err := range l.held {
		fmt.Fprintln(l.errw, err)
	}
	l.held = nil
}

// rejectText is the summary's clause on rejected records: "no line
// rejected", or how many lines (of JSONL and JSON files) and rows (of
// SQLite stores, which have no lines) in how many files and, with hint,
// the command that lists them.
func (l *ingestLog) rejectText(rejects int64, hint bool) string {
	if rejects == 0 {
		return "no line rejected"
	}
	var rows int64
	if l != nil {
		rows = min(l.rows, rejects)
	}
	var parts []string
	if lines := rejects - rows; lines > 0 {
		parts = append(parts, textfmt.CountOf(int(lines), "line"))
	}
	if rows > 0 {
		parts = append(parts, textfmt.CountOf(int(rows), "store row"))
	}
	s := strings.Join(parts, " and ") + " rejected"
	if l != nil && len(l.rejects) > 0 {
		s += " in " + countOf(len(l.rejects), "file")
	}
	if hint {
		s += map[bool]string{true: " (trajmine rejects lists it)", false: " (trajmine rejects lists them)"}[rejects == 1]
	}
	return s
}

// runIngest imports inputs into sink, the warnings and errors to log (and
// a progress bar when stderr is a terminal, to log's errw).
func runIngest(ctx context.Context, sink ingest.Sink, inputs []string, opts *ingest.Options, log *ingestLog, progress bool) (*ingest.Summary, error) {
	opts.Warn = log.warn
	if progress {
		files, err := ingest.Expand(inputs, nil)
		if err != nil {
			return nil, err
		}
		var total int64
		for _, f := range files {
			if st, err := os.Stat(f); err == nil {
				total += st.Size()
			}
		}
		b := newIngestBar(rawWriter(log.errw), len(files), total)
		opts.Progress, opts.Skipped, opts.Done = b.read, b.skipped, b.fileDone
		log.clear = func() { _ = b.bar.Clear() }
		defer b.bar.Finish()
	}
	sum, err := ingest.Files(ctx, sink, inputs, opts)
	if sum != nil {
		for _, e := range sum.Errors {
			if log.hold {
				log.held = append(log.held, e)
			} else {
				fmt.Fprintln(log.errw, e)
			}
		}
	}
	return sum, err
}

// printSummary prints an import's summary line wrapped to width; hint:
// the rejected lines are in the database trajmine rejects reads (not a
// report's temporary one).
func printSummary(out io.Writer, width int, s *ingest.Summary, log *ingestLog, hint bool) {
	var w strings.Builder
	fmt.Fprintf(&w, "imported %s (%s): %s, %s", countOf(s.Files, "file"), humanBytes(s.Bytes), countOf(int(s.Runs), "run"), countOf(int(s.Events), "event"))
	sep := ", "
	if s.Rejects > 0 {
		sep = "; "
	}
	fmt.Fprint(&w, sep+log.rejectText(s.Rejects, hint))
	if s.Repairs > 0 {
		fmt.Fprintf(&w, "; %s repaired (invalid UTF-8 as U+FFFD, raw control characters escaped; sources.n_repairs)", countOf(int(s.Repairs), "text field"))
	}
	if s.OutcomeFiles > 0 || s.Outcomes.Changed > 0 {
		fmt.Fprintf(&w, "; %s with %s: %s given an outcome, %s matching no run",
			countOf(s.OutcomeFiles, "outcome file"), countOf(int(s.OutcomeRows), "outcome row"), countOf(int(s.Outcomes.Changed), "run"), countOf(int(s.Outcomes.Unmatched), "row"))
	}
	if s.Skipped > 0 {
		fmt.Fprintf(&w, "; %s skipped (already imported or not a log)", textfmt.Thousands(int64(s.Skipped)))
	}
	if s.Failed > 0 {
		fmt.Fprintf(&w, "; %s failed", textfmt.Thousands(int64(s.Failed)))
	}
	printWrapped(out, width, w.String())
}

// ingestSummary is an import's counts and errors, as ingest --json and
// report --json print them.
type ingestSummary struct {
	Files   int      `json:"files"`
	Skipped int      `json:"skipped"`
	Failed  int      `json:"failed"`
	Runs    int64    `json:"runs"`
	Events  int64    `json:"events"`
	Rejects int64    `json:"rejects"`
	Repairs int64    `json:"repairs"`
	Bytes   int64    `json:"bytes"`
	Errors  []string `json:"errors"`
	// outcome files (trajmine outcomes): those imported, their rows, the
	// runs whose outcome changed, the stored rows that match no run
	OutcomeFiles     int   `json:"outcome_files,omitempty"`
	OutcomeRows      int64 `json:"outcome_rows,omitempty"`
	OutcomeRuns      int64 `json:"outcome_runs_changed,omitempty"`
	OutcomeUnmatched int64 `json:"outcome_rows_unmatched,omitempty"`
}

// ingestSummaryOf is s as printed.
func ingestSummaryOf(s *ingest.Summary) ingestSummary {
	out := ingestSummary{Files: s.Files, Skipped: s.Skipped, Failed: s.Failed, Runs: s.Runs, Events: s.Events, Rejects: s.Rejects, Repairs: s.Repairs, Bytes: s.Bytes, Errors: []string{},
		OutcomeFiles: s.OutcomeFiles, OutcomeRows: s.OutcomeRows, OutcomeRuns: s.Outcomes.Changed, OutcomeUnmatched: s.Outcomes.Unmatched}
	for _, e := range s.Errors {
		out.Errors = append(out.Errors, e.Error())
	}
	return out
}

// byteSize is a size flag: a number of bytes with an optional binary (KiB,
// MiB, GiB, TiB) or decimal (KB, MB, GB, TB) unit, or "none" (stored as -1).
type byteSize int64

var sizeUnits = []struct {
	name string
	n    int64
}{
	{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10},
	{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1},
}

func (s *byteSize) String() string {
	if *s < 0 {
		return "none"
	}
	if *s == 0 {
		return "0"
	}
	best := sizeUnits[len(sizeUnits)-1] // the largest unit that divides s
	for _, u := range sizeUnits {
		if int64(*s)%u.n == 0 && u.n > best.n {
			best = u
		}
	}
	return strconv.FormatInt(int64(*s)/best.n, 10) + best.name
}

func (s *byteSize) Set(v string) error {
	t := strings.TrimSpace(v)
	if strings.EqualFold(t, "none") {
		*s = -1
		return nil
	}
	mult := int64(1)
	for _, u := range sizeUnits {
		if len(t) > len(u.name) && strings.EqualFold(t[len(t)-len(u.name):], u.name) {
			mult, t = u.n, strings.TrimSpace(t[:len(t)-len(u.name)])
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64/mult {
		return fmt.Errorf("%q is not a size: a positive whole number of bytes, with an optional unit (KiB, MiB, GiB, TiB, KB, MB, GB, TB), or none", v)
	}
	*s = byteSize(n * mult)
	return nil
}

func (s *byteSize) Type() string { return "size" }

// cap is the flag as an ingest.Options.MaxDecompressed.
func (s byteSize) cap() int64 { return int64(s) }

// IngestShard is the shard (of n) of the file at path, found under one of
// inputs: FNV-1a 64 of the path relative to the longest input it lies under
// (slash-separated), or of its base name when no input directory holds it,
// modulo n.
func IngestShard(inputs []string, path string, n int) int {
	if n <= 1 {
		return 0
	}
	key := filepath.Base(path)
	best := -1
	cp := filepath.Clean(path)
	for _, in := range inputs {
		root := filepath.Clean(in)
		rel, ok := strings.CutPrefix(cp, root+string(filepath.Separator))
		if root == "." && !filepath.IsAbs(cp) {
			rel, ok = cp, true
		}
		if ok && len(root) > best {
			best, key = len(root), filepath.ToSlash(rel)
		}
	}
	h := fnv.New64a()
	h.Write([]byte(key))
	return int(h.Sum64() % uint64(n))
}

// printTagged says, per tag given, how many runs of the store carry it.
func printTagged(ctx context.Context, w io.Writer, st *store.Store, tags []schema.Tag) error {
	rt, err := st.RunTags(ctx)
	if err != nil {
		return err
	}
	for _, t := range tags {
		n := 0
		for _, kv := range rt {
			if kv[t.Key] == t.Value {
				n++
			}
		}
		fmt.Fprintf(w, "tagged %s=%s: %s run(s) carry it\n", t.Key, t.Value, textfmt.Thousands(int64(n)))
	}
	return nil
}
