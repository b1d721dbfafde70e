package cmd

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/htmlreport"
	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/mining"
	"github.com/trajmine/trajmine/recommend"
	"github.com/trajmine/trajmine/schema"
	"github.com/trajmine/trajmine/simulate"
	"github.com/trajmine/trajmine/synth"
)

// ReportOptions are the flags of trajmine report.
type ReportOptions struct {
	Inputs    []string
	Demo      bool
	DemoN     int
	Limit     int
	JSON      bool
	Output    string // the HTML file
	SampleTop int    // runs drawn call by call: the top ones by peak share …
	SampleN   int    // … and this many more by run-id hash
	Out, Err  io.Writer
	Progress  bool
	Rehash    bool
	All       bool
	scope     *reportScope // the runs reported on (reportRun); nil: every run
	dbLabel   string       // the page's database line; "" is the store's path
}

// standardPlaces are where agent harnesses keep their logs, relative to $HOME:
// Claude Code, Codex CLI, Gemini CLI, pi, OpenCode (on-disk storage), Cline.
var standardPlaces = []string{".claude/projects", ".codex/sessions", ".gemini/tmp", ".pi/agent/sessions", ".local/share/opencode/storage", ".cline/data/sessions"}

// NewReportCmd builds `trajmine report`, the main job.
func NewReportCmd(d *Deps, runF func(*ReportOptions) error) *cobra.Command {
	o := &ReportOptions{}
	c := &cobra.Command{
		Use:   "report [PATH...]",
		Short: "Ingest agent logs and report on them (the main job)",
		Long: `Ingest agent logs and report on them. With no PATH it reads the logs found in
the standard local places (~/.claude/projects, ~/.codex/sessions, ~/.gemini/tmp,
~/.pi/agent/sessions, ~/.local/share/opencode/storage, ~/.cline/data/sessions).

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

It prints the ingest summary, the diagnose verdict, the replay of every
catalog policy at each run's own window (trajmine simulate), totals per
format and the runs table, and writes one self-contained HTML file (-o,
default ./report.html; its path is the last line printed): the verdict,
occupancy curves, reading-boundary survival per policy, the policy
comparison per model family, token rent by tool, trajmine recommend's
choices and a run drill-down. The page works offline (ECharts is embedded;
it requests nothing) and every figure on it comes from the same functions
and tables as the CLI (diag_runs, diag_calls, diag_rent, sim_runs,
sim_calls, which report writes). Per-call curves are drawn for a sample of
runs (--sample-top by peak share, plus --sample more chosen by run-id
hash), as the page states; every other figure covers all the runs
reported on. sim_calls
holds the sample's calls (trajmine simulate writes every run's).

All analyses share one read of the store: each run is read once and its
diagnosis, replay trace and counterfactual uses are computed once.`,
		Args: usageArgs(cobra.ArbitraryArgs),
		RunE: func(c *cobra.Command, args []string) error {
			o.Inputs, o.Out, o.Err = args, c.OutOrStdout(), c.ErrOrStderr()
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
			if runF != nil {
				return runF(o)
			}
			return reportRun(c.Context(), d, o)
		},
	}
	c.Flags().BoolVar(&o.Demo, "demo", false, "report on a generated demo corpus (in a temporary database) even if local logs exist")
	c.Flags().BoolVar(&o.All, "all", false, "report on every run in the database, not only those from PATH... (or the standard places)")
	c.Flags().IntVar(&o.DemoN, "demo-sessions", 40, "sessions in the demo corpus")
	c.Flags().IntVar(&o.Limit, "limit", 25, "runs listed in the table (0 = all)")
	c.Flags().BoolVar(&o.JSON, "json", false, "print JSON (ingest summary, totals per format, all runs)")
	c.Flags().StringVarP(&o.Output, "output", "o", "report.html", "the HTML report file")
	c.Flags().IntVar(&o.SampleTop, "sample-top", 10, "runs drawn call by call in the HTML report: the top ones by peak share of the window")
	c.Flags().BoolVar(&o.Rehash, "rehash", false, "hash every log file, even those imported unchanged since (see trajmine ingest)")
	c.Flags().IntVar(&o.SampleN, "sample", 30, "runs drawn call by call in the HTML report besides the top ones (smallest FNV-1a hash of the run id)")
	return c
}

func reportRun(ctx context.Context, d *Deps, o *ReportOptions) error {
	home, _ := d.HomeDir()
	inputs := o.Inputs
	discovered := len(inputs) == 0
	if discovered && !o.Demo {
		var places []string
		if home != "" {
			for _, p := range standardPlaces {
				if st, err := os.Stat(filepath.Join(home, p)); err == nil && st.IsDir() {
					places = append(places, filepath.Join(home, p))
				}
			}
		}
		files, err := ingest.Expand(places)
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
	sum := &ingest.Summary{}
	if len(inputs) > 0 {
		if sum, err = runIngest(ctx, st, inputs, &ingest.Options{Rehash: o.Rehash}, o.Err, o.Progress); err != nil {
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
		switch {
		case discovered && !o.All && sum.Failed == 0:
			// logs in the standard places but none of a known format
			st.Close()
			return reportDemo(ctx, o, fmt.Sprintf("no runs in the %s found in %s", countOf(sum.Files+sum.Skipped, "file"), where))
		case o.All:
			return &exitError2{code: exitError, msg: "report: database " + db + " holds no runs"}
		case sum.Failed > 0:
			return &exitError2{code: exitError, msg: fmt.Sprintf("report: no runs from %s: %s failed to import", where, countOf(sum.Failed, "file"))}
		}
		msg := "report: no agent logs in " + where
		if sum.Skipped > 0 {
			msg += fmt.Sprintf(" (%s skipped: not a known log format)", countOf(sum.Skipped, "file"))
		}
		return &exitError2{code: exitError, msg: msg}
	}
	if err := reportOn(ctx, st, o, sc, sum, func(w io.Writer) {
		if len(inputs) > 0 {
			printSummary(w, sum)
		}
	}); err != nil {
		return err
	}
	if sum.Failed > 0 {
		return &exitError2{code: exitError, msg: fmt.Sprintf("%s failed to import (the report covers the rest)", countOf(sum.Failed, "file"))}
	}
	return nil
}

// standardPlacesText lists the standard places, ~/ first.
func standardPlacesText() string {
	return "~/" + strings.Join(standardPlaces, ", ~/")
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
	sum, err := runIngest(ctx, st, []string{corpus}, &ingest.Options{}, o.Err, o.Progress)
	if err != nil {
		return err
	}
	runs, err := st.Runs(ctx, store.RunFilter{})
	if err != nil {
		return err
	}
	sc := &reportScope{runs: runs, dbRuns: len(runs), files: len(m.Files), lead: why,
		from: "a generated demo corpus", note: fmt.Sprintf("trajmine synth -n %d --seed 1; temporary database %s, removed afterwards", o.DemoN, db)}
	if why == "" {
		sc.lead = "--demo"
	}
	o.dbLabel = db + " (temporary, removed after the report)"
	return reportOn(ctx, st, o, sc, sum, func(w io.Writer) {
		printSynth(w, "a temporary directory", m)
		printSummary(w, sum)
	})
}

// reportOn prints the scope's line and what intro prints (under --json,
// the line alone, on stderr) and reports on the scope's runs.
func reportOn(ctx context.Context, st *store.Store, o *ReportOptions, sc *reportScope, sum *ingest.Summary, intro func(io.Writer)) error {
	if o.JSON {
		fmt.Fprintln(o.Err, sc.line())
	} else {
		fmt.Fprintln(o.Out, sc.line())
		intro(o.Out)
	}
	o.scope = sc
	return writeReport(ctx, st, o, sum)
}

// formatTotals aggregates runs per source format for the report.
type formatTotals struct {
	Format          string `json:"source_format"`
	Runs            int64  `json:"runs"`
	Turns           int64  `json:"turns"`
	InputTokens     int64  `json:"input_tokens"`
	OutputTokens    int64  `json:"output_tokens"`
	CacheReadTokens int64  `json:"cache_read_tokens"`
	EstTokens       int64  `json:"est_tokens"`
	NoUsage         int64  `json:"runs_without_usage"`
	Overflow        int64  `json:"runs_context_overflow"`
}

// totalsByFormat sums runs per format, in first-seen order:
//
//	SELECT source_format, count(*), sum(n_turns), sum(input_tokens), … FROM runs GROUP BY source_format
func totalsByFormat(runs []schema.Run) []formatTotals {
	var out []formatTotals
	idx := map[string]int{}
	for _, r := range runs {
		i, ok := idx[r.SourceFormat]
		if !ok {
			out = append(out, formatTotals{Format: r.SourceFormat})
			i = len(out) - 1
			idx[r.SourceFormat] = i
		}
		a := &out[i]
		a.Runs++
		a.Turns += r.NTurns
		a.InputTokens += r.InputTokens
		a.OutputTokens += r.OutputTokens
		a.CacheReadTokens += r.CacheReadTokens
		a.EstTokens += r.EstTokens
		if r.EndReason == schema.EndContextOverflow {
			a.Overflow++
		}
		if r.UsageEstimated {
			a.NoUsage++
		}
	}
	return out
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
	totals := totalsByFormat(runs)
	res, err := reportAnalyse(ctx, st, o)
	if err != nil {
		return err
	}
	diag, sim, recs, mined, mineO := res.diag, res.sim, res.recs, res.mined, res.mineO
	html, err := filepath.Abs(o.Output)
	if err != nil {
		return fmt.Errorf("--output: %w", err)
	}
	writeHTML := func() error {
		data, err := reportData(st, o, totals, diag, sim, recs, mined, res.sample)
		if err != nil {
			return err
		}
		return writeReportHTML(html, data)
	}
	if o.JSON {
		if err := writeHTML(); err != nil {
			return err
		}
		if runs == nil {
			runs = []schema.Run{}
		}
		if err := writeJSON(o.Out, struct {
			Source     string                 `json:"source"`
			Scope      reportScopeJSON        `json:"scope"`
			Ingest     ingestSummaryJSON      `json:"ingest"`
			Formats    []formatTotals         `json:"formats"`
			Simulation []simulate.Agg         `json:"simulation"`
			Accuracy   []simulate.AccuracyRow `json:"simulation_accuracy"`
			Runs       []schema.Run           `json:"runs"`
			HTML       string                 `json:"html_report"`
		}{o.sourceText(), o.scopeJSON(len(runs)), summaryJSON(sum), totals, sim.Comparison, sim.Accuracy, runs, html}); err != nil {
			return err
		}
		fmt.Fprintf(o.Err, "HTML report: %s\n", html)
		return nil
	}
	fmt.Fprintln(o.Out)
	fmt.Fprint(o.Out, "Verdict (trajmine diagnose has the tables): ")
	writeVerdict(o.Out, diag)
	fmt.Fprintln(o.Out)
	fmt.Fprintln(o.Out, "Context policies replayed at each run's own window (trajmine simulate; trajmine policies explains them):")
	writeAccuracyLine(o.Out, sim.Accuracy)
	short := map[string]string{}
	for _, p := range sim.Policies {
		short[p.Spec] = p.Short
	}
	writeComparison(o.Out, sim.Comparison, short, false)
	fmt.Fprintln(o.Out)
	fmt.Fprintln(o.Out, "Recommended policy per model family (trajmine recommend):")
	for _, r := range recs {
		fmt.Fprintf(o.Out, "  %s (%s): %s\n", r.Family, countOf(r.Runs, "run"), r.Why)
	}
	fmt.Fprintf(o.Out, "\nAgent behaviour (trajmine mine): %s runs, %s events by action class; top variants:\n", thousands(int64(mined.Cases)), thousands(int64(mined.Events)))
	if err := mining.WriteVariants(o.Out, mined.Variants, mineO.Top); err != nil {
		return err
	}
	fmt.Fprintln(o.Out, "busiest edges:")
	writeEdges(o.Out, mined.DFG, mineO.Top)
	fmt.Fprintln(o.Out, "manage_context behaviour per model family:")
	writeBehaviour(o.Out, mined.Behaviour)
	fmt.Fprintln(o.Out)
	tw := tabwriter.NewWriter(o.Out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "FORMAT\tRUNS\tTURNS\tLOGGED IN\tLOGGED OUT\tCACHE READ\tEST. EVENT TOKENS\tNO USAGE\tOVERFLOW\t")
	for _, a := range totals {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t\n", a.Format, a.Runs, thousands(a.Turns), thousands(a.InputTokens), thousands(a.OutputTokens), thousands(a.CacheReadTokens), thousands(a.EstTokens), a.NoUsage, a.Overflow)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(o.Out, "\nLOGGED IN/OUT: sums of per-call logged usage (input incl. cache); EST. EVENT TOKENS: sum of est_tokens of all events;\nNO USAGE: runs whose log has no per-call usage; OVERFLOW: runs whose end reason is context_overflow.")
	fmt.Fprintln(o.Out)
	shown := runs
	if o.Limit > 0 && len(shown) > o.Limit {
		shown = shown[:o.Limit]
	}
	if err := writeRunsTable(o.Out, shown); err != nil {
		return err
	}
	if len(shown) < len(runs) {
		fmt.Fprintf(o.Out, "… and %d more (--limit 0 lists all)\n", len(runs)-len(shown))
	}
	if err := writeHTML(); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "\nHTML report (self-contained, opens offline): %s\n", html)
	return nil
}

// reportResults is what trajmine report computes.
type reportResults struct {
	diag   diagnoseJSON
	sim    simulateJSON
	recs   []recommend.Result
	mined  mineJSON
	mineO  *MineOptions
	sample reportSampleOut
}

// reportAnalyse runs trajmine report's analyses in one shared pass over the
// store (runPass): diagnose (trajmine diagnose's defaults, --by model),
// every catalog policy at each run's own window (trajmine simulate), trajmine
// recommend's defaults, the behaviour profiles and trajmine mine's defaults;
// then it draws the sample and replays the sampled runs again for their
// drill-down (reportSample). sim_runs (every run), sim_calls (the sampled
// runs: what the page draws call by call; trajmine simulate writes every
// run's), diag_runs, diag_calls and diag_rent are replaced in one
// transaction. Each figure is the one the stand-alone command computes:
// they run the same analyses, one at a time.
func reportAnalyse(ctx context.Context, st *store.Store, o *ReportOptions) (*reportResults, error) {
	res := &reportResults{}
	env, err := newPassEnv(ctx, st)
	if err != nil {
		return nil, err
	}
	// no per-call rows kept (the sample's come from reportSample); groups by
	// model family, as trajmine simulate --by model
	simO := &SimulateOptions{windows: []int64{-1}, shards: 1, By: "model"}
	pols, err := simulatePolicies(simO)
	if err != nil {
		return nil, err
	}
	sa, err := newSimAnalysis(simO, pols)
	if err != nil {
		return nil, err
	}
	da, err := newDiagAnalysis(&DiagnoseOptions{By: "model"})
	if err != nil {
		return nil, err
	}
	if da.conts, err = st.Continuations(ctx); err != nil { // resumed sessions counted once, as in diagnose
		return nil, err
	}
	ra, err := newRecAnalysis(&RecommendOptions{HoldoutEvery: 4, MaxReinv: 2}) // trajmine recommend's defaults
	if err != nil {
		return nil, err
	}
	res.mineO = &MineOptions{Top: 5, mode: mining.ModeClass} // trajmine mine's defaults
	ma, err := newMineAnalysis(res.mineO, env)
	if err != nil {
		return nil, err
	}
	ba := newBehaviourAnalysis(env, nil) // every run, as recommend and mine (no filter) profile them
	// after the pass, the aggregates (simulate's bootstrap CIs, recommend's
	// choice, the mined models) are computed on one goroutine while this one
	// draws the sample and writes the tables: they read the pass's results
	// and write disjoint fields of res
	var aggErr error
	var agg sync.WaitGroup
	calls := func(add func(vals ...any) error) error {
		if err := runPass(ctx, st, o.scanOptions(), env, sa, da, ra, ba, ma); err != nil {
			return err
		}
		sa.flatten()
		agg.Add(1)
		go func() {
			defer agg.Done()
			res.sim = sa.finish()
			groups := ba.groups()
			if res.recs, aggErr = ra.finish(groups); aggErr != nil {
				return
			}
			res.mined, aggErr = ma.finish(ctx, st, groups)
		}()
		res.diag = da.finish()
		// the sample reads only the rows and the policies, not the aggregates
		rows := simulateJSON{Policies: sa.out.Policies, Results: sa.out.Results}
		res.sample, err = reportSample(ctx, st, o, res.diag, rows, add)
		return err
	}
	tables := append([]store.Derived{{Table: schema.SimCalls, Rows: calls}, {Table: schema.SimRuns, Rows: sa.runsRows}}, diagnoseDerived(&res.diag)...)
	err = st.WriteDerived(ctx, tables...)
	agg.Wait()
	if err != nil {
		return nil, err
	}
	if aggErr != nil {
		return nil, aggErr
	}
	return res, nil
}

// writeReportHTML writes the page to a temporary file beside path and
// renames it into place, so that a failed write leaves no half page.
func writeReportHTML(path string, d *htmlreport.Data) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".report-*.html")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	if err := htmlreport.Write(f, d, nil); err != nil {
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

// reportData fills the HTML report from the results the CLI prints (and the
// tables they are stored in): every figure is the CLI's, converted.
//
//  1. verdict, groups, end reasons, peak shares, rent: diagnoseCompute
//     (diag_runs, diag_calls, diag_rent);
//  2. reading-boundary curves: diagnose's, then diagnose.Boundary over each
//     policy's sim_runs rows (boundary_turn, boundary_event);
//  3. comparison: simulate's over all runs and per model family (trajmine
//     simulate --by model), both computed in reportAnalyse;
//  4. recommendations: recommendCompute;
//  5. the sample (reportSample: htmlreport.SampleRuns over diag_runs): each
//     run's diag_calls, its sim_runs rows, its tool outputs, and its prompts
//     and what each policy did to each output from the run replayed again by
//     the same engine, watching the outputs' renderings (the replay's calls
//     are the sim_calls rows report writes).
//
// fillMined puts trajmine mine's process map (the directly-follows graph),
// top 20 variants and behaviour profiles into the report.
func fillMined(d *htmlreport.Data, m mineJSON) {
	if m.DFG != nil && m.Cases > 0 {
		pm := &htmlreport.ProcessMap{}
		for _, n := range m.DFG.Nodes {
			pm.Nodes = append(pm.Nodes, htmlreport.ProcessNode{ID: n.Name, Label: n.Name, Count: int64(n.Count)})
		}
		for _, e := range m.DFG.Edges {
			pm.Edges = append(pm.Edges, htmlreport.ProcessEdge{From: e.From, To: e.To, Count: int64(e.Count), MeanMS: 1000 * e.MeanSeconds})
		}
		d.ProcessMap = pm
	}
	for i, v := range m.Variants {
		if i == 20 {
			break
		}
		d.Variants = append(d.Variants, htmlreport.Variant{Activities: v.Activities, Runs: int64(v.Count), Share: v.Share})
	}
	for _, g := range m.Behaviour {
		mp := g.Manage
		d.Behaviour = append(d.Behaviour, htmlreport.BehaviourProfile{Family: orDash(g.Key), Label: string(g.Class.Label), Runs: g.Runs,
			Metrics: []htmlreport.Metric{
				{Name: "manage_context ops per 100 calls", Value: mp.OpsPer100},
				{Name: "tokens freed per op (median)", Value: mp.FreedPerOp.Median},
				{Name: "shallow ops", Value: mp.ShallowShare, Unit: "%"},
				{Name: "re-enable rate", Value: mp.ReEnableRate, Unit: "%"},
				{Name: "thrash share", Value: mp.ThrashShare, Unit: "%"},
				{Name: "compactions per 100 calls", Value: g.Compaction.Per100},
			}})
	}
}

func reportData(st *store.Store, o *ReportOptions, totals []formatTotals, diag diagnoseJSON, sim simulateJSON,
	recs []recommend.Result, mined mineJSON, sample reportSampleOut) (*htmlreport.Data, error) {
	d := &htmlreport.Data{
		Title:     "trajmine report",
		Generated: "generated " + time.Now().UTC().Format("2006-01-02 15:04 UTC"),
		Source:    o.sourceText(),
		Database:  cmp.Or(o.dbLabel, st.Path()),
	}
	for _, a := range totals {
		d.Formats = append(d.Formats, htmlreport.FormatTotals(a))
	}
	fillMined(d, mined)
	var vb strings.Builder
	writeVerdict(&vb, diag)
	v, t := diag.Verdict, diag.Totals
	d.Verdict = htmlreport.Verdict{Text: strings.TrimSpace(vb.String()), Runs: v.Runs, WindowEnds: v.WindowEnds, Share: v.Share, Explicit: v.Explicit,
		Inferred: v.Inferred, UnknownWindow: v.UnknownWindow, BoundaryFound: v.BoundaryFound, BoundaryTurn: v.BoundaryTurn, BoundaryEvents: diag.ReadingBoundary.Events,
		TopRentTool: v.TopRentTool, TopRentShare: v.TopRentShare, SystemPromptShare: v.SystemPromptShare, ToolDefinitionsShare: v.ToolDefinitionsShare,
		ReReadsVisible: t.ReReadsVisible, ReReadsHidden: t.ReReadsHidden, ReReadsPending: t.ReReadsPending, Stalls: t.Stalls, StallRuns: t.StallRuns,
		SpendUSD: t.SpendUSD, CostLogged: t.CostLogged, CostPriced: t.CostPriced, CostUnknown: t.CostUnknown, PerSolvedUSD: t.PerSolved.USD,
		Resolved: t.PerSolved.Resolved, Failed: t.PerSolved.Failed, Excluded: t.PerSolved.Excluded}
	for _, g := range diag.Groups {
		d.Groups = append(d.Groups, htmlreport.Group(g))
	}
	ends := map[string]int{}
	for _, r := range diag.Runs {
		ends[string(r.End.Reason)]++
		if r.Occupancy.Window > 0 {
			d.Peaks = append(d.Peaks, r.Occupancy.PeakShare)
		}
	}
	for k, n := range ends {
		d.Ends = append(d.Ends, htmlreport.Count{Label: k, N: n})
	}
	slices.SortFunc(d.Ends, func(a, b htmlreport.Count) int { return cmp.Or(cmp.Compare(b.N, a.N), cmp.Compare(a.Label, b.Label)) })
	for _, r := range diag.RentByTool {
		d.Rent = append(d.Rent, htmlreport.ToolRent(r))
	}

	short := map[string]string{}
	for _, p := range sim.Policies {
		short[p.Spec] = p.Short
		d.Policies = append(d.Policies, htmlreport.Policy{Spec: p.Spec, Short: p.Short})
	}
	d.Boundary = append(d.Boundary, survivalOf("logged", diag.ReadingBoundary))
	byPolicy := map[string][]diagnose.BoundaryRun{}
	for i := range sim.Results {
		r := &sim.Results[i]
		byPolicy[r.Policy] = append(byPolicy[r.Policy], r.BoundaryInput())
	}
	for _, p := range sim.Policies {
		d.Boundary = append(d.Boundary, survivalOf(p.Short, diagnose.Boundary(byPolicy[p.Spec])))
	}
	var acc strings.Builder
	writeAccuracyLine(&acc, sim.Accuracy)
	d.Accuracy = strings.TrimSpace(acc.String())
	for _, a := range slices.Concat(sim.Comparison, sim.Groups) { // Groups: by model family (reportAnalyse)
		c, cc := a.CostRatio()
		d.Comparison = append(d.Comparison, htmlreport.PolicyAgg{Group: a.Group, Policy: short[a.Policy], Runs: a.Runs, Acted: a.Activated,
			Ratio: a.RatioMedian, RatioLo: a.RatioLo, RatioHi: a.RatioHi, Overflow: a.Overflow, KeepAllOverflow: a.KeepAllOverflow, Saved: a.Saved, Lost: a.Lost,
			BoundaryFound: a.BoundaryFound, BoundaryTurn: a.BoundaryTurn, Reinvocations: a.Reinvocations, ReinvocationTokens: a.ReinvocationTok,
			Priced: a.Priced, CostRatio: c, CachedRatio: cc, CostUSD: a.CostUSD, CostCachedUSD: a.CostCachedUSD})
	}
	d.Recommendations = []htmlreport.Recommendation{}
	for _, r := range recs {
		d.Recommendations = append(d.Recommendations, htmlreport.Recommendation{Family: r.Family, Label: r.Label, Runs: r.Runs, Train: r.Train, HeldOut: r.HeldOut,
			Policy: r.Policy, Short: r.Short, PolicyFamily: r.PolicyOf, Saving: r.Saving, SavingLo: r.SavingLo, SavingHi: r.SavingHi, ReinvPer100: r.ReinvPer100,
			SavedRuns: r.SavedRuns, Why: r.Why})
	}

	d.SampleRule, d.Sample = sample.rule, sample.runs
	return d, nil
}

// reportSampleOut is the report's drill-down: the sampling rule and the
// sampled runs.
type reportSampleOut struct {
	rule string
	runs []htmlreport.RunDetail
}

// reportSample draws the sample (htmlreport.SampleRuns over diagnose's
// runs) and builds each sampled run's drill-down (reportRunDetail); add
// receives the sampled runs' sim_calls rows.
func reportSample(ctx context.Context, st *store.Store, o *ReportOptions, diag diagnoseJSON, sim simulateJSON, add func(vals ...any) error) (reportSampleOut, error) {
	var out reportSampleOut
	byRun := map[string][]int{}
	for i := range sim.Results {
		byRun[sim.Results[i].RunID] = append(byRun[sim.Results[i].RunID], i)
	}
	cands := make([]htmlreport.Candidate, len(diag.Runs))
	for i, r := range diag.Runs {
		cands[i] = htmlreport.Candidate{RunID: r.RunID, PeakShare: r.Occupancy.PeakShare, PeakTokens: r.Occupancy.PeakTokens, Known: r.Occupancy.Window > 0}
	}
	picks, rule := htmlreport.SampleRuns(cands, o.SampleTop, o.SampleN)
	out.rule = rule
	pols, err := simulatePolicies(&SimulateOptions{})
	if err != nil {
		return out, err
	}
	for _, p := range picks {
		r := &diag.Runs[p.Index]
		rd, err := reportRunDetail(ctx, st, r, p.Why, sim, byRun[r.RunID], pols, add)
		if err != nil {
			return out, err
		}
		out.runs = append(out.runs, rd)
	}
	return out, nil
}

func survivalOf(name string, b diagnose.ReadingBoundary) htmlreport.Survival {
	// the curve drawn is 1 − the Aalen–Johansen incidence of reading stops
	// (finishing competing), the boundary's own curve
	s := htmlreport.Survival{Name: name, Runs: b.Runs, Events: b.Events, Censored: b.Censored + b.Finished, Found: b.Found, Turn: b.Turn}
	for _, p := range b.CIF {
		s.Curve = append(s.Curve, htmlreport.KMPoint{Turn: p.Turn, AtRisk: p.AtRisk, Events: p.Events, Censored: p.Finished + p.Censored, Survival: 1 - p.Incidence})
	}
	return s
}

// reportRunDetail is one sampled run: its diag_calls, sim_runs rows (rows
// indexes sim.Results), its prompts per policy and call and its tool outputs
// with what each policy did to them, both from the run replayed again
// (reportOutputs); the replay's calls go to add as sim_calls rows.
func reportRunDetail(ctx context.Context, st *store.Store, r *diagnoseRunOut, why string, sim simulateJSON, rows []int,
	pols []simulate.Policy, add func(vals ...any) error) (htmlreport.RunDetail, error) {
	occ := r.Occupancy
	rd := htmlreport.RunDetail{RunID: r.RunID, Model: r.Model, Family: r.ModelFamily, Harness: r.Harness, Format: r.SourceFormat, Window: occ.Window,
		WindowSource: r.WindowSource, PeakTokens: occ.PeakTokens, PeakShare: occ.PeakShare, EndReason: string(r.End.Reason), EndSource: string(r.End.Source),
		EndWhy: r.End.Why, Why: why}
	for _, c := range diagnoseCallRows(r) {
		rd.Calls = append(rd.Calls, htmlreport.Call{Turn: c.Turn, Prompt: c.PromptTokens, Estimated: c.PromptSource == string(diagnose.PromptEstimated), Compaction: c.Compaction})
	}
	outs, acts, replays, err := reportOutputs(ctx, st, r.RunID, pols)
	if err != nil {
		return rd, err
	}
	for _, p := range pols {
		x := replays[p.Name()]
		if add == nil {
			break
		}
		for i := range x.calls {
			if err := add(simCallValues(r.RunID, p.Name(), x.window, &x.calls[i])...); err != nil {
				return rd, err
			}
		}
	}
	short := map[string]string{}
	for _, p := range sim.Policies {
		short[p.Spec] = p.Short
	}
	for _, i := range rows {
		x := &sim.Results[i]
		var prompts []int64
		for _, c := range replays[x.Policy].calls {
			prompts = append(prompts, c.PromptTokens)
		}
		rd.Policies = append(rd.Policies, htmlreport.RunPolicy{Policy: short[x.Policy], Status: string(x.Status), OverflowCall: x.OverflowCall,
			FirstActivation: x.FirstActivation, TokenRatio: x.TokenRatio(), PeakTokens: x.PeakTokens, Reinvocations: x.Reinvocations,
			PlaceholdersMax: x.PlaceholdersMax, CharsRemoved: x.CharsRemovedShare(), Prompts: prompts})
	}
	for i := range outs {
		outs[i].Actions = make([]htmlreport.Action, len(sim.Policies))
		for j, p := range sim.Policies {
			outs[i].Actions[j] = acts[p.Spec][i]
		}
	}
	rd.Outputs = outs
	return rd, nil
}

// reportReplay is one policy's replay of a sampled run: its calls and the
// window of its sim_runs and sim_calls rows.
type reportReplay struct {
	window int64
	calls  []simulate.CallResult
}

// reportOutputs lists a run's tool outputs (tool_result events, seq order)
// and, per policy spec, what the policy first did to each and its replayed
// calls: the run is replayed as trajmine simulate replays it (same trace,
// calibration factor, own window) with each policy wrapped in a watcher
// that notes, after every call's rendering, the outputs no longer in full.
func reportOutputs(ctx context.Context, st *store.Store, runID string, pols []simulate.Policy) ([]htmlreport.ToolOutput, map[string][]htmlreport.Action, map[string]reportReplay, error) {
	rs, err := st.Runs(ctx, store.RunFilter{RunID: runID})
	if err != nil || len(rs) != 1 {
		return nil, nil, nil, cmp.Or(err, fmt.Errorf("run %q not found", runID))
	}
	run := rs[0]
	events, err := st.Events(ctx, runID)
	if err != nil {
		return nil, nil, nil, err
	}
	usage, err := st.Usage(ctx, runID)
	if err != nil {
		return nil, nil, nil, err
	}
	ops, err := st.ContextOps(ctx, runID)
	if err != nil {
		return nil, nil, nil, err
	}
	targets := map[string]string{}
	var outs []htmlreport.ToolOutput
	for _, e := range events {
		switch e.Kind {
		case schema.KindToolCall:
			if e.CallID != "" {
				targets[e.CallID] = e.Target
			}
		case schema.KindToolResult:
			target := e.Target
			if target == "" {
				target = targets[e.CallID]
			}
			outs = append(outs, htmlreport.ToolOutput{Seq: e.Seq, Turn: e.Turn, Tool: e.ToolName, Key: e.ToolKey, Target: target,
				EstTokens: e.EstTokens, Chars: e.Chars, Preview: snippet(e.Text, htmlreport.PreviewChars)})
		}
	}
	tr, win, err := reportTrace(ctx, st, run, events, usage, ops)
	if err != nil {
		return nil, nil, nil, err
	}
	// tool outputs by trace item
	item := map[int32]int{}
	bySeq := map[int64]int{}
	for i, o := range outs {
		bySeq[o.Seq] = i
	}
	for i, it := range tr.Items {
		if it.Kind == simulate.ItemToolResult {
			if k, ok := bySeq[it.Seq]; ok {
				item[int32(i)] = k
			}
		}
	}
	acts := map[string][]htmlreport.Action{}
	replays := map[string]reportReplay{}
	var rp simulate.Replayer
	for _, p := range pols {
		fresh, err := simulate.Fresh(p)
		if err != nil {
			return nil, nil, nil, err
		}
		w := &reportWatch{Policy: fresh, items: item, acts: make([]htmlreport.Action, len(outs))}
		var calls []simulate.CallResult
		opt := simulate.Options{Window: win, Calls: &calls}
		if win == 0 {
			opt.Window = -1 // unbounded, as trajmine simulate replays it
		}
		r := rp.Replay(tr, w, opt)
		if win == 0 {
			r.Window = 0
		}
		acts[p.Name()] = w.acts
		replays[p.Name()] = reportReplay{window: r.Window, calls: calls}
	}
	return outs, acts, replays, nil
}

// reportTrace builds a run's trace as the shared pass does for trajmine
// simulate (runWork.replayTrace: its diagnosed end, calibration factor, the
// actions classifier) and returns the window it replays at (the run's own).
func reportTrace(ctx context.Context, st *store.Store, run schema.Run, events []schema.Event, usage []schema.Usage, ops []schema.ContextOp) (*simulate.Trace, int64, error) {
	classify, err := defaultClassify()
	if err != nil {
		return nil, 0, err
	}
	f := 0.0
	if c, err := st.CalibrationFor(ctx, run.SourceFormat, run.ModelFamily, run.Estimator); err == nil && c != nil && c.Factor > 0 {
		f = c.Factor
	}
	end := diagnose.Run(run, events, usage, ops, 0).End
	tr := simulate.NewTrace(run, events, usage, ops, end, &simulate.TraceOptions{Factor: f, Classify: classify})
	return tr, tr.Window, nil
}

// reportWatch wraps a policy and notes, per tool output, the first call at
// which the output's rendering is not full, and how.
type reportWatch struct {
	simulate.Policy
	items map[int32]int // trace item → output index
	acts  []htmlreport.Action
}

func (w *reportWatch) Before(t int, s *simulate.Sim) {
	w.Policy.Before(t, s)
	w.look(t, s)
}

// OnOverflow forwards to the policy's handler; a policy without one leaves
// the prompt as it is, as the engine does.
func (w *reportWatch) OnOverflow(t int, s *simulate.Sim) {
	if h, ok := w.Policy.(simulate.OverflowHandler); ok {
		h.OnOverflow(t, s)
		w.look(t, s)
	}
}

func (w *reportWatch) look(t int, s *simulate.Sim) {
	for i, k := range w.items {
		if w.acts[k].Mode != "" || !s.Admitted(i) {
			continue
		}
		if m := s.Mode(i); m != simulate.Full {
			w.acts[k] = htmlreport.Action{Mode: m.String(), Call: t}
		}
	}
}
