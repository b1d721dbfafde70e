package cmd

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"

	"github.com/spf13/cobra"

	"github.com/trajmine/trajmine/analysis"
	"github.com/trajmine/trajmine/compare"
	"github.com/trajmine/trajmine/dashboards"
	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/recommend"
	"github.com/trajmine/trajmine/redact"
	"github.com/trajmine/trajmine/schema"
	"github.com/trajmine/trajmine/simulate"
	"github.com/trajmine/trajmine/synth"
)

// ReportOptions are the flags of trajmine report.
type ReportOptions struct {
	Terminal
	Inputs    []string
	Demo      bool
	DemoN     int
	Limit     int
	JSON      bool
	Output    string // the HTML file
	SampleTop int    // runs drawn call by call: the top ones by peak share …
	SampleN   int    // … and this many more by run-id hash
	Err       io.Writer
	Progress  bool
	Window    simulate.Window // --window: every run's context window (the zero value: each run's own)
	Format    string          // --format: the format of every file of PATH... ("auto", "": detect per file)
	Rehash    bool
	All       bool
	Policies  []string // --policy: replayed besides the catalog's defaults
	NoRedact  bool
	Compare   reportCompare // --compare-by, --compare-group: a comparison section on the page
	Full      bool          // --full: every section, not one screen
	// CPUProfile and MemProfile (hidden flags) write pprof profiles of the
	// whole command: where its time and allocations go (BENCHMARKS.md)
	CPUProfile, MemProfile string
	scope                  *reportScope // the runs reported on (reportRun); nil: every run
	dbLabel                string       // the page's database line; "" is the store's path

	// MaxDecompressed caps what one archive may decompress to (see ingest).
	MaxDecompressed byteSize
}

// NewReportCmd builds `trajmine report`, the main job.
func NewReportCmd(d *Deps, runF func(*ReportOptions) error) *cobra.Command {
	o := &ReportOptions{}
	c := &cobra.Command{
		Use:   "report [PATH...]",
		Short: "Ingest agent logs and report on them (the main job)",
		Long: `Ingest agent logs and report on them. With no PATH it reads the logs found in
the standard places of every agent it reads, on Linux and macOS
(~/.claude/projects, ~/.codex/sessions, ~/.gemini/tmp, Goose's sessions.db,
VS Code's extension storage …: README, "Where trajmine looks"), and says on
stderr which it found.

The report covers the runs of the log files under PATH... (or the standard
places), whether imported now or earlier, not the rest of the database;
--all covers every run in the database. The first line printed states the
scope: how many runs from how many files, and how many the database holds.
diag_runs, diag_calls, diag_rent, sim_runs and sim_calls are replaced with
the results of the runs reported on.

Where the standard places hold no log (they are missing, empty, or hold no
file of a known format) and no PATH is given, it generates a demo corpus
(trajmine synth, --demo-sessions sessions, seed 1), imports it into a database of
its own in a temporary directory (removed afterwards: the demo never mixes
with the runs of --db) and reports on that, saying so on the first line;
--demo does so whatever the standard places hold. When the inputs give no
run (missing, unreadable or of no known format), it exits 1 and writes no
page; when some inputs fail to import, it reports on the rest and exits 1,
as trajmine ingest does.

It prints one screen: the scope, the ingest summary (lines rejected are
counted there, and trajmine rejects lists them), the answer in three
sentences (how many runs ended on window length; the policy to apply, with
its figures on held-out runs, or why none is named; what to do next), the
top policies by cost against what ran (the replay of every catalog policy
at each run's own window: trajmine simulate; --window N replays, diagnoses
and recommends at N instead) and where the rest is. --full adds every table:
the diagnose verdict, the whole comparison with its accuracy lines, each
model family's recommendation, the agents' behaviour (trajmine mine),
totals per format and the runs table. It writes one self-contained HTML file (-o,
default ./report.html; its path is the last line printed): the verdict,
occupancy curves, reading-boundary survival per policy, the policy
comparison per model family, the tokens each tool's outputs kept in later
prompts, trajmine recommend's choices and a run drill-down with each run's
conversation (messages, tool calls and outputs, context operations,
per-call tokens and cost; as many runs as fit the page's budget, texts
cut at 500 characters: trajmine serve shows every run's whole). The page works offline (ECharts is embedded;
it requests nothing) and every figure on it comes from the same functions
and tables as the CLI (diag_runs, diag_calls, diag_rent, sim_runs,
sim_calls, which report writes). Per-call curves are drawn for a sample of
runs (--sample-top by peak share, plus --sample more chosen by run-id
hash), as the page states; every other figure covers all the runs
reported on. sim_calls
holds the sample's calls (trajmine simulate writes every run's).

With --window N below the windows the runs ran at, the report answers the
window what-if (could these runs move to an N-token model?): its second
sentence says how many runs would have died at N under what ran (a call
whose logged prompt plus output exceeds N, though the log went on) and how
many the policy it names carries to their logged end, at what cost against
what ran; what the agents would have done after their logged ends is not in
the data, so nothing past them is claimed.

All analyses share one read of the store: each run is read once and its
diagnosis, replay trace and counterfactual uses are computed once. When
stderr is a terminal, a progress bar follows ingest and then each stage:
the shared pass (runs), the sample's replays, the tables and aggregates,
the page.

Secrets in the log text the page shows (tool-output previews, targets,
tool and run names, end-reason explanations: API keys, tokens, passwords,
private keys, found by gitleaks' default rules) are replaced with
[REDACTED:<rule>], and the page's header says how many; --no-redact keeps
them. The database is not changed: it keeps the logs as they were.`,
		Args: usageArgs(cobra.ArbitraryArgs),
		RunE: func(c *cobra.Command, args []string) error {
			o.Inputs, o.Err = args, c.ErrOrStderr()
			o.setTerminal(c, d)
			o.Progress = d.ErrIsTTY()
			if o.Output == "" {
				return flagErrorf("--output must name a file")
			}
			if o.Demo && len(args) > 0 {
				return flagErrorf("--demo reports on a generated corpus: it takes no PATH")
			}
			if o.SampleTop < 0 || o.SampleN < 0 {
				return flagErrorf("--sample-top and --sample must be ≥ 0")
			}
			if o.Format != "auto" && o.Format != "" {
				if _, err := ingest.Lookup(o.Format); err != nil {
					return flagErrorf("--format: %v", err)
				}
				if len(args) == 0 {
					return flagErrorf("--format names the format of the files of PATH...: give PATH (the standard places hold many formats)")
				}
			}
			if err := o.Compare.parse(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			stop, err := startProfiles(o.CPUProfile, o.MemProfile)
			if err != nil {
				return err
			}
			err = reportRun(c.Context(), d, o)
			if perr := stop(); err == nil {
				err = perr
			}
			return err
		},
	}
	c.Flags().BoolVar(&o.Demo, "demo", false, "report on a generated demo corpus (in a temporary database) even if local logs exist")
	c.Flags().StringArrayVar(&o.Policies, "policy", nil, "also replay this policy spec besides the catalog's defaults, e.g. 'tracer(model=tracer.json)' (repeatable)")
	c.Flags().BoolVar(&o.All, "all", false, "report on every run in the database, not only those from PATH... (or the standard places)")
	c.Flags().IntVar(&o.DemoN, "demo-sessions", 40, "sessions in the demo corpus")
	c.Flags().BoolVar(&o.Full, "full", false, "print every table (diagnosis, every policy, each family's recommendation, behaviour, formats, runs), not one screen")
	c.Flags().IntVar(&o.Limit, "limit", 25, "runs listed in the table with --full (0 = all)")
	c.Flags().Var(windowVar(&o.Window, false), "window", "context window for every run (diagnose, replay and recommend): tokens (200000, 128k) or own")
	c.Flags().BoolVar(&o.JSON, "json", false, "print JSON (ingest summary, totals per format, all runs; the comparison with --compare-by or --compare-group)")
	c.Flags().StringVarP(&o.Output, "output", "o", "report.html", "the HTML report file")
	c.Flags().IntVar(&o.SampleTop, "sample-top", 10, "runs drawn call by call in the HTML report: the top ones by peak share of the window")
	c.Flags().BoolVar(&o.NoRedact, "no-redact", false, "show secrets found in log text on the page as logged (default: replaced with [REDACTED:<rule>])")
	c.Flags().StringVar(&o.Format, "format", "auto", "input format of every file of PATH..., or auto to detect per file (see trajmine ingest)")
	c.Flags().BoolVar(&o.Rehash, "rehash", false, "hash every log file, even those imported unchanged since (see trajmine ingest)")
	o.MaxDecompressed = ingest.DefaultMaxDecompressed
	c.Flags().Var(&o.MaxDecompressed, "max-decompressed", `what one archive (.eval) may decompress to: bytes, or with a unit (KiB, MiB, GiB, KB, MB, GB), or "none" (see trajmine ingest)`)
	c.Flags().StringVar(&o.CPUProfile, "cpuprofile", "", "write a CPU profile (pprof) of the command to this file")
	c.Flags().StringVar(&o.MemProfile, "memprofile", "", "write a heap profile (pprof, allocations) at the end to this file")
	_ = c.Flags().MarkHidden("cpuprofile")
	_ = c.Flags().MarkHidden("memprofile")
	c.Flags().IntVar(&o.SampleN, "sample", 30, "runs drawn call by call in the HTML report besides the top ones (smallest FNV-1a hash of the run id)")
	o.Compare.flags(c)
	return c
}

func reportRun(ctx context.Context, d *Deps, o *ReportOptions) error {
	if dir := d.lakeDir(); dir != "" {
		return reportLake(ctx, dir, o)
	}
	home, _ := d.HomeDir()
	inputs := o.Inputs
	discovered := len(inputs) == 0
	if discovered && !o.Demo {
		_, places := standardPlaces(d, o.Err)
		files, err := ingest.Expand(places, nil)
		if err != nil {
			return err
		}
		if len(files) == 0 && !(o.All && fileExists(d.dbPath())) {
			return reportDemo(ctx, o, "no logs found in "+standardPlacesText())
		}
		inputs = places
	}
	if o.Demo {
		return reportDemo(ctx, o, "")
	}
	st, err := d.open(ctx, false)
	if err != nil {
		return err
	}
	defer st.Close()
	sum, log := &ingest.Summary{}, newIngestLog(o.Err, true)
	if len(inputs) > 0 {
		if sum, err = runIngest(ctx, st, inputs, &ingest.Options{Format: o.Format, Rehash: o.Rehash, MaxDecompressed: o.MaxDecompressed.cap()}, log, o.Progress); err != nil {
			return err
		}
	}
	runs, files, err := runsUnder(ctx, st, inputs)
	if err != nil {
		return err
	}
	all, err := st.Runs(ctx, store.RunFilter{})
	if err != nil {
		return err
	}
	where := "the given paths"
	if len(inputs) > 0 {
		where = displayPaths(home, inputs)
	}
	db := shownPath(d.dbPath())
	sc := &reportScope{runs: runs, files: files, dbRuns: len(all), from: filesFrom(home, inputs, files)}
	switch {
	case o.All:
		sc.runs, sc.all, sc.from, sc.files = all, true, "database "+db, sourceFiles(all)
		switch {
		case len(runs) > 0:
			sc.note = fmt.Sprintf("--all; %d from %s", len(runs), filesFrom(home, inputs, files))
		case len(inputs) > 0:
			sc.note = "--all; none from " + displayPaths(home, inputs)
		default:
			sc.note = "--all; no logs found in " + standardPlacesText()
		}
	case len(all) == len(runs):
		sc.note = "database " + db + " holds no other runs"
	default:
		sc.note = fmt.Sprintf("database %s holds %d; --all for every run", db, len(all))
	}
	if len(sc.runs) == 0 {
		log.flush() // no scope line: why the inputs gave no run comes first
		switch {
		case discovered && !o.All && sum.Failed == 0:
			// logs in the standard places but none of a known format
			st.Close()
			return reportDemo(ctx, o, fmt.Sprintf("no runs in the %s found in %s", countOf(sum.Files+sum.Skipped, "file"), where))
		case o.All:
			return &exitCodeError{code: exitFailed, msg: "report: database " + db + " holds no runs"}
		case sum.Failed > 0:
			return &exitCodeError{code: exitFailed, msg: fmt.Sprintf("report: no runs from %s: %s failed to import", where, countOf(sum.Failed, "file"))}
		}
		msg := "report: no agent logs in " + where
		if sum.Skipped > 0 {
			msg += fmt.Sprintf(" (%s skipped: not a known log format)", countOf(sum.Skipped, "file"))
		}
		return &exitCodeError{code: exitFailed, msg: msg}
	}
	if err := reportOn(ctx, st, o, sc, sum, log, func(w io.Writer) {
		if len(inputs) > 0 {
			printSummary(w, o.Width, sum, log, true)
		}
	}); err != nil {
		return err
	}
	if sum.Failed > 0 {
		return &exitCodeError{code: exitFailed, msg: fmt.Sprintf("%s failed to import (the report covers the rest)", countOf(sum.Failed, "file"))}
	}
	return nil
}

// reportLake reports on every run of the lake at dir. The analysis tables
// the report writes go to the reader's scratch tables, dropped on close: a
// lake keeps what simulate and diagnose commit.
func reportLake(ctx context.Context, dir string, o *ReportOptions) error {
	if len(o.Inputs) > 0 || o.Demo {
		return flagErrorf("--lake: report reads every run of the lake (as --all) and takes no PATH or --demo; import with trajmine ingest --lake %s --shard i/n PATH", dir)
	}
	st, err := store.OpenLake(ctx, store.LakeConfig{Dir: dir, Scratch: true})
	if err != nil {
		return err
	}
	defer st.Close()
	all, err := st.Runs(ctx, store.RunFilter{})
	if err != nil {
		return err
	}
	if len(all) == 0 {
		return &exitCodeError{code: exitFailed, msg: "report: lake " + dir + " holds no runs"}
	}
	sc := &reportScope{runs: all, all: true, dbRuns: len(all), files: sourceFiles(all), from: "lake " + shownPath(dir), note: "every run of the lake"}
	o.dbLabel = "lake " + dir
	return reportOn(ctx, st, o, sc, &ingest.Summary{}, newIngestLog(o.Err, true), func(io.Writer) {})
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// reportDemo reports on a generated demo corpus (trajmine synth -n DemoN
// --seed 1) imported into a database of its own in a temporary directory,
// removed afterwards with the corpus: the demo never mixes with the
// runs of the user's database. why says why there is a demo ("" for
// --demo).
func reportDemo(ctx context.Context, o *ReportOptions, why string) error {
	dir, err := os.MkdirTemp("", "trajmine-demo-")
	if err != nil {
		return fmt.Errorf("demo corpus: %w", err)
	}
	defer os.RemoveAll(dir)
	corpus := filepath.Join(dir, "corpus")
	m, err := synth.Write(corpus, &synth.Options{N: o.DemoN, Seed: 1})
	if err != nil {
		return fmt.Errorf("demo corpus: %w", err)
	}
	db := filepath.Join(dir, "demo.duckdb")
	st, err := store.Open(ctx, store.Config{Path: db})
	if err != nil {
		return err
	}
	defer st.Close()
	log := newIngestLog(o.Err, true)
	sum, err := runIngest(ctx, st, []string{corpus}, &ingest.Options{}, log, o.Progress)
	if err != nil {
		return err
	}
	runs, err := st.Runs(ctx, store.RunFilter{})
	if err != nil {
		return err
	}
	sc := &reportScope{runs: runs, dbRuns: len(runs), files: len(m.Files), lead: why,
		from: "a generated demo corpus", note: fmt.Sprintf("trajmine synth -n %d --seed 1, in a temporary database removed afterwards", o.DemoN)}
	if why == "" {
		sc.lead = "--demo"
	}
	o.dbLabel = db + " (temporary, removed after the report)"
	return reportOn(ctx, st, o, sc, sum, log, func(w io.Writer) {
		printSynth(w, o.Width, "a temporary directory", m)
		printSummary(w, o.Width, sum, log, false)
	})
}

// reportOn prints the scope's line and what intro prints (under --json,
// the line alone, on stderr), then the import's warnings log held, and
// reports on the scope's runs: the scope line is always the first.
func reportOn(ctx context.Context, st *store.Store, o *ReportOptions, sc *reportScope, sum *ingest.Summary, log *ingestLog, intro func(io.Writer)) error {
	if o.JSON {
		fmt.Fprintln(o.Err, sc.line())
	} else {
		printWrapped(o.Out, o.Width, sc.line())
		intro(o.Out)
	}
	log.flush()
	o.scope = sc
	return writeReport(ctx, st, o, sum)
}

func writeReport(ctx context.Context, st *store.Store, o *ReportOptions, sum *ingest.Summary) error {
	var runs []schema.Run
	if o.scope != nil {
		runs = o.scope.runs
	} else {
		var err error
		if runs, err = st.Runs(ctx, store.RunFilter{}); err != nil {
			return err
		}
	}
	totals := analysis.TotalsByFormat(runs)
	ao, err := o.analysis(len(runs))
	if err != nil {
		return err
	}
	defer reportMemoryLimit(len(runs))()
	var bars *stageBars
	if o.Progress {
		bars = &stageBars{w: rawWriter(o.Err)}
		ao.Progress = bars.update
	}
	res, err := analysis.AnalyseReport(ctx, st, ao)
	bars.finishIfAny()
	if err != nil {
		return err
	}
	sim, recs := res.Simulation, res.Recs
	cmpResult, cmpSection, err := o.Compare.section(ctx, st, o.scanOptions())
	if err != nil {
		return err
	}
	html, err := filepath.Abs(o.Output)
	if err != nil {
		return fmt.Errorf("--output: %w", err)
	}
	writeHTML := func() error {
		if bars != nil {
			bars.page()
			defer bars.finish()
		}
		d := analysis.Page(res, totals, o.sourceText(), cmp.Or(o.dbLabel, st.Path()))
		d.Compare = cmpSection
		// every run's conversation within the page's budget (the rest: trajmine serve)
		if err := analysis.PageConversations(ctx, st, d, res.Redactor, dashboards.ConversationChars, dashboards.ConversationBudget); err != nil {
			return err
		}
		return writeReportHTML(html, d)
	}
	if o.JSON {
		if err := writeHTML(); err != nil {
			return err
		}
		if runs == nil {
			runs = []schema.Run{}
		}
		if err := writeJSON(o.Out, struct {
			Source     string                       `json:"source"`
			Scope      scopeStatement               `json:"scope"`
			Ingest     ingestSummary                `json:"ingest"`
			Formats    []analysis.FormatTotals      `json:"formats"`
			Simulation []simulate.Agg               `json:"simulation"`
			Accuracy   []simulate.AccuracyRow       `json:"simulation_accuracy"`
			Logged     []simulate.LoggedAccuracyRow `json:"simulation_as_logged_accuracy"`
			Runs       []schema.Run                 `json:"runs"`
			HTML       string                       `json:"html_report"`
			Headline   []string                     `json:"headline"`
			Decision   decisionJSON                 `json:"decision"`
			// Comparison is trajmine compare --json's, with
			// --compare-by or --compare-group
			Comparison *compare.Result `json:"comparison,omitempty"`
		}{o.sourceText(), o.scopeStatement(len(runs)), ingestSummaryOf(sum), totals, sim.Comparison, sim.Accuracy, sim.LoggedAccuracy, runs, html, analysis.Headline(res),
			decisionOf(analysis.Decide(recs)), cmpResult}); err != nil {
			return err
		}
		fmt.Fprintf(o.Err, "HTML report: %s\n", html)
		return nil
	}
	rt := &reportText{Terminal: o.Terminal, res: res, runs: runs, totals: totals, window: o.Window, limit: o.Limit}
	write := rt.reportScreen
	if o.Full {
		write = rt.reportFull
	}
	if err := write(); err != nil {
		return err
	}
	if err := writeHTML(); err != nil {
		return err
	}
	// one line, whatever the width: a path to copy whole, the last line printed
	fmt.Fprintf(o.Out, "\nHTML report (self-contained, opens offline): %s\n", html)
	return nil
}

// decisionJSON is the report's decision (analysis.Decide) as report --json
// writes it: the policy the headline and the page's card name for a
// family, with its held-out figures, or none and the reason.
type decisionJSON struct {
	Policy   string             `json:"policy"` // canonical spec; "" none
	Family   string             `json:"model_family,omitempty"`
	Currency recommend.Currency `json:"currency,omitempty"`
	HeldOut  *recommend.Option  `json:"held_out,omitempty"`
	Reason   string             `json:"reason,omitempty"`
	// Families are every family's recommended policy ("" none).
	Families map[string]string `json:"families"`
}

func decisionOf(d analysis.Decision) decisionJSON {
	out := decisionJSON{Policy: d.Policy(), Reason: d.Reason(), Families: map[string]string{}}
	if r := d.Lead; r != nil {
		out.Family, out.Currency, out.HeldOut = r.Family, r.Currency, r.HeldOutFigures
	}
	for _, r := range slices.Concat(d.Named, d.Kept, d.Thin) {
		out.Families[r.Family] = ""
		if r.Recommended() {
			out.Families[r.Family] = r.Policy
		}
	}
	return out
}

// reportHeapBase and reportHeapPerRun are the Go heap report aims to stay
// within (reportMemoryLimit): the shared pass holds a few chunks of event
// text read ahead (≈ 260 MB at 16,384 events a chunk, store's scanChunk)
// and keeps about 25 KB of results a run (sim_runs rows, diagnoses,
// recommend outcomes, the event log mined), about 510 MB live at 10,000
// runs.
const (
	reportHeapBase   = 384 << 20
	reportHeapPerRun = 40 << 10
)

// reportMemoryLimit sets the Go runtime's soft memory limit for a report
// on runs runs (unless $GOMEMLIMIT sets one) and returns the function that
// restores the previous limit. The garbage collector otherwise lets the
// heap grow to twice what is live (GOGC=100), which at 10,000 runs put the
// process's peak RSS, DuckDB's memory included, at 1.8 GB; with the limit
// the heap is collected at about 1.5× what is live near the end of the pass
// instead (BENCHMARKS.md, issue 18), and below that the collector runs as
// before. It is a soft limit: a larger live heap is never refused.
func reportMemoryLimit(runs int) func() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	prev := debug.SetMemoryLimit(reportHeapBase + int64(runs)*reportHeapPerRun)
	return func() { debug.SetMemoryLimit(prev) }
}

// reportTop is how many variants and edges the report prints (trajmine
// mine's default --top is 10; the report keeps the terminal short).
const reportTop = 5

// analysis is what the report's analyses depend on; runs is how many
// the scan selects (the progress bar's total).
func (o *ReportOptions) analysis(runs int) (*analysis.ReportOptions, error) {
	ao := &analysis.ReportOptions{Scan: o.scanOptions(), SampleTop: o.SampleTop, SampleN: o.SampleN, Runs: runs, Window: o.Window, Policies: o.Policies}
	if !o.NoRedact {
		r, err := redact.New()
		if err != nil {
			return nil, err
		}
		ao.Redact = r
	}
	return ao, nil
}

// writeReportHTML writes the page to a temporary file beside path and
// renames it into place, so that a failed write leaves no half page.
func writeReportHTML(path string, d *dashboards.Data) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".report-*.html")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	if err := dashboards.Write(f, d, nil); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
