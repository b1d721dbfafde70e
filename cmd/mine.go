package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/trajmine/trajmine/behavior"
	"github.com/trajmine/trajmine/eventlog"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/mining"
	"github.com/trajmine/trajmine/schema"
)

// MineOptions are the flags of trajmine mine.
type MineOptions struct {
	Activity  string
	By        string
	Top       int
	Compare   []string
	Models    []string
	Harnesses []string
	Outcome   string
	From, To  string // --from, --to: run start bounds
	ModelFile string
	Export    string
	Out       io.Writer
	JSON      bool
	// NoProfiles skips the behaviour profiles, which read every event's
	// text, and mines through store.EventLog, which reads only the columns
	// process discovery needs.
	NoProfiles bool

	mode     mining.Mode
	outcome  mining.Outcome
	from, to time.Time
}

// parseWhen parses a --from/--to value: a date (UTC midnight) or an RFC
// 3339 time.
func parseWhen(flag, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse("2006-01-02", v); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, flagErrorf("%s: %q is neither a date (2006-01-02) nor an RFC 3339 time", flag, v)
	}
	return t, nil
}

// NewMineCmd builds `trajmine mine`.
func NewMineCmd(d *Deps, runF func(*MineOptions) error) *cobra.Command {
	o := &MineOptions{}
	c := &cobra.Command{
		Use:   "mine",
		Short: "Process maps of agent and manage_context behaviour; XES, OCEL 2.0 and DOT export",
		Long: `Mine the runs as an event log: case = run, activity = the tool call's action
class (--activity class, trajmine classes), its tool name (tool) or tool and
target kind (tool-target); context operations are activities too
(context.disable, context.enable, compaction, summary, …). Events are ordered
by timestamp, then seq.

Prints the top variants (distinct activity sequences with count, share and
cumulative coverage), the busiest edges of the directly-follows graph (count,
and the median time and tokens between the two events), the heuristics net
(dependency a⇒b = (|a>b| − |b>a|)/(|a>b| + |b>a| + 1), threshold 0.9), the
fitness of every run against that net (token replay: 1 − ½ missing/consumed −
½ remaining/produced; or against --model-file, lines 'a -> b', 'start a',
'end z'), and the manage_context and compaction behaviour profile per model
family (ops per 100 calls, tokens freed per op, shallow share, re-enable and
thrash rates, net saving, label selective / shallow / never / thrasher).

--model, --harness, --from and --to select the runs, for the maps, the
behaviour profiles and the exports (--from and --to bound the run's start:
from ≤ start < to; a run without a logged start is left out when either is
set); --outcome selects the runs the maps are drawn from.

--compare A B compares two groups of runs, each one of resolved, failed,
dtoc (runs with manage_context ops), no-dtoc, model=FAMILY, harness=NAME or
format=NAME: the edges and variants whose share differs most, with a
two-proportion z. --by model prints variants and edges per model family.
--export xes|ocel|dot FILE writes the log as XES (IEEE 1849), OCEL 2.0 JSON or
the DFG as Graphviz DOT ('-' for stdout).

--no-profiles leaves out the behaviour profiles: they read every event's text
(which later call used which hidden output), while the process discovery
alone reads a few columns of the tool calls and results, several times
faster on a large store (BENCHMARKS.md).`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, args []string) error {
			o.Out = c.OutOrStdout()
			var err error
			if o.mode, err = mining.ParseMode(o.Activity); err != nil {
				return flagErrorf("--activity: %v", err)
			}
			if o.outcome, err = mining.ParseOutcome(o.Outcome); err != nil {
				return flagErrorf("--outcome: %v", err)
			}
			if o.from, err = parseWhen("--from", o.From); err != nil {
				return err
			}
			if o.to, err = parseWhen("--to", o.To); err != nil {
				return err
			}
			if !o.from.IsZero() && !o.to.IsZero() && !o.from.Before(o.to) {
				return flagErrorf("--from must be before --to")
			}
			switch o.By {
			case "", "model":
			default:
				return flagErrorf("--by must be model")
			}
			if len(o.Compare) != 0 && len(o.Compare) != 2 {
				return flagErrorf("--compare takes two groups: --compare A --compare B (or --compare A,B)")
			}
			for _, g := range o.Compare {
				if _, err := mineGroup(g); err != nil {
					return flagErrorf("--compare: %v", err)
				}
			}
			if o.Export != "" {
				kind, file, ok := strings.Cut(o.Export, ":")
				if !ok || file == "" || (kind != "xes" && kind != "ocel" && kind != "dot") {
					return flagErrorf("--export must be xes:FILE, ocel:FILE or dot:FILE")
				}
			}
			if o.Top <= 0 {
				return flagErrorf("--top must be ≥ 1")
			}
			if runF != nil {
				return runF(o)
			}
			st, err := d.open(c.Context(), true)
			if err != nil {
				return err
			}
			defer st.Close()
			return mineRun(c.Context(), st, o)
		},
	}
	c.Flags().StringVar(&o.Activity, "activity", "class", "activity names: class, tool or tool-target")
	c.Flags().StringVar(&o.By, "by", "", "also mine per model family (model)")
	c.Flags().IntVar(&o.Top, "top", 10, "variants, edges and deviations to print")
	c.Flags().StringSliceVar(&o.Compare, "compare", nil, "two groups to compare: resolved, failed, dtoc, no-dtoc, model=F, harness=H, format=F")
	c.Flags().StringSliceVar(&o.Models, "model", nil, "keep runs of these model families")
	c.Flags().StringSliceVar(&o.Harnesses, "harness", nil, "keep runs of these harnesses")
	c.Flags().StringVar(&o.Outcome, "outcome", "", "keep runs with this outcome: resolved, failed or unknown")
	c.Flags().StringVar(&o.From, "from", "", "keep runs started at or after this date (2006-01-02) or RFC 3339 time")
	c.Flags().StringVar(&o.To, "to", "", "keep runs started before this date or time")
	c.Flags().StringVar(&o.ModelFile, "model-file", "", "check conformance against this model (lines 'a -> b', 'start a', 'end z')")
	c.Flags().StringVar(&o.Export, "export", "", "write the log: xes:FILE, ocel:FILE or dot:FILE ('-' = stdout)")
	c.Flags().BoolVar(&o.JSON, "json", false, "print JSON")
	c.Flags().BoolVar(&o.NoProfiles, "no-profiles", false, "skip the behaviour profiles (reads no event text: faster)")
	return c
}

// mineGroup turns a --compare group into a case predicate.
func mineGroup(spec string) (func(*mining.Case, bool) bool, error) {
	k, v, _ := strings.Cut(spec, "=")
	switch {
	case spec == "resolved":
		return func(c *mining.Case, _ bool) bool { return c.Resolved != nil && *c.Resolved }, nil
	case spec == "failed":
		return func(c *mining.Case, _ bool) bool { return c.Resolved != nil && !*c.Resolved }, nil
	case spec == "dtoc":
		return func(_ *mining.Case, dtoc bool) bool { return dtoc }, nil
	case spec == "no-dtoc":
		return func(_ *mining.Case, dtoc bool) bool { return !dtoc }, nil
	case k == "model" && v != "":
		return func(c *mining.Case, _ bool) bool { return c.ModelFamily == v }, nil
	case k == "harness" && v != "":
		return func(c *mining.Case, _ bool) bool { return c.Harness == v }, nil
	case k == "format" && v != "":
		return func(c *mining.Case, _ bool) bool { return c.Format == v }, nil
	}
	return nil, fmt.Errorf("unknown group %q (resolved, failed, dtoc, no-dtoc, model=F, harness=H, format=F)", spec)
}

// mineJSON is mine's result.
type mineJSON struct {
	Activity    string                `json:"activity"`
	Cases       int                   `json:"cases"`
	Events      int                   `json:"events"`
	Variants    []mining.Variant      `json:"variants"`
	DFG         *mining.DFG           `json:"dfg"`
	Heuristics  *mining.HeuristicsNet `json:"heuristics"`
	Conformance *mining.Conformance   `json:"conformance"`
	Comparison  *mining.Comparison    `json:"comparison,omitempty"`
	ByModel     []mineGroupJSON       `json:"by_model,omitempty"`
	Behaviour   []behavior.Group      `json:"behaviour"`
}

type mineGroupJSON struct {
	ModelFamily string           `json:"model_family"`
	Cases       int              `json:"cases"`
	Variants    []mining.Variant `json:"variants"`
	DFG         *mining.DFG      `json:"dfg"`
}

func mineRun(ctx context.Context, st *store.Store, o *MineOptions) error {
	out, err := mineCompute(ctx, st, o)
	if err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(o.Out, out)
	}
	return writeMine(o.Out, out, o)
}

// mineCompute mines the store (see the command's help) and writes --export.
func mineCompute(ctx context.Context, st *store.Store, o *MineOptions) (mineJSON, error) {
	env, err := newPassEnv(ctx, st)
	if err != nil {
		return mineJSON{}, err
	}
	ma, err := newMineAnalysis(o, env)
	if err != nil {
		return mineJSON{}, err
	}
	if o.NoProfiles {
		// the event log alone: the columns it needs, runs in run_id order
		// (the log and what is mined from it do not depend on the order)
		eo := store.EventLogOptions{Targets: o.mode == mining.ModeToolTarget, Args: o.mode != mining.ModeTool,
			ModelFamilies: o.Models, Harnesses: o.Harnesses}
		err := st.EventLog(ctx, eo, func(run *schema.Run, events []schema.Event, ops []schema.ContextOp) error {
			if !ma.keep(run) {
				return nil
			}
			ma.noteDTOC(run.RunID, ops)
			return ma.b.AddRun(run, events, ops)
		})
		if err != nil {
			return mineJSON{}, err
		}
		return ma.finish(ctx, st, nil)
	}
	// one pass over the store: the event log, the behaviour profiles and
	// which runs use manage_context
	ba := newBehaviourAnalysis(env, ma.keep)
	if err := runPass(ctx, st, store.ScanOptions{}, env, ma, ba); err != nil {
		return mineJSON{}, err
	}
	return ma.finish(ctx, st, ba.groups())
}

func newMineAnalysis(o *MineOptions, env *passEnv) (*mineAnalysis, error) {
	ma := &mineAnalysis{o: o, classify: env.classify, dtoc: map[string]bool{}}
	// the builder classifies the run being added through its runWork's
	// memo, filled on a worker (the add stage is one goroutine)
	class := func(harness, tool, args string) string {
		if ma.cur != nil {
			return ma.cur.classify(harness, tool, args)
		}
		return env.classify(harness, tool, args)
	}
	b, err := mining.NewBuilder(&mining.Options{Mode: o.mode, Class: class})
	if err != nil {
		return nil, err
	}
	keep := func(r *schema.Run) bool {
		if len(o.Models) > 0 && !slices.Contains(o.Models, r.ModelFamily) {
			return false
		}
		if (!o.from.IsZero() || !o.to.IsZero()) && (r.StartedAt == nil || // a run without a start fails a set bound
			!o.from.IsZero() && r.StartedAt.Before(o.from) || !o.to.IsZero() && !r.StartedAt.Before(o.to)) {
			return false
		}
		return len(o.Harnesses) == 0 || slices.Contains(o.Harnesses, r.Harness)
	}
	ma.b, ma.keep = b, keep
	return ma, nil
}

// finish mines the log built in the pass (see the command's help), with the
// behaviour groups of the same runs, and writes --export.
func (ma *mineAnalysis) finish(ctx context.Context, st *store.Store, behaviour []behavior.Group) (mineJSON, error) {
	var out mineJSON
	o, b, dtoc, keep, classify := ma.o, ma.b, ma.dtoc, ma.keep, ma.classify
	log := b.Log()
	if o.outcome != mining.OutcomeAny {
		log = log.Filter(&mining.Filter{Outcome: o.outcome})
	}
	out = mineJSON{Activity: o.mode.String(), Cases: len(log.Cases), Events: log.Events()}
	out.Variants = mining.Variants(log)
	out.DFG = mining.NewDFG(log)
	out.Heuristics = mining.NewHeuristics(log, nil)
	model := out.Heuristics.Model()
	if o.ModelFile != "" {
		fh, err := os.Open(o.ModelFile)
		if err != nil {
			return out, fmt.Errorf("--model-file: %w", err)
		}
		model, err = mining.ParseModel(o.ModelFile, fh)
		fh.Close()
		if err != nil {
			return out, err
		}
	}
	out.Conformance = mining.Conform(log, model)
	if len(o.Compare) == 2 {
		ga, _ := mineGroup(o.Compare[0])
		gb, _ := mineGroup(o.Compare[1])
		a := log.Select(func(c *mining.Case) bool { return ga(c, dtoc[c.ID]) })
		bl := log.Select(func(c *mining.Case) bool { return gb(c, dtoc[c.ID]) })
		out.Comparison = mining.Compare(o.Compare[0], a, o.Compare[1], bl)
	}
	if o.By == "model" {
		var fams []string
		for _, c := range log.Cases {
			if !slices.Contains(fams, c.ModelFamily) {
				fams = append(fams, c.ModelFamily)
			}
		}
		slices.Sort(fams)
		for _, f := range fams {
			sub := log.Filter(&mining.Filter{ModelFamilies: []string{f}})
			out.ByModel = append(out.ByModel, mineGroupJSON{ModelFamily: orDash(f), Cases: len(sub.Cases), Variants: mining.Variants(sub), DFG: mining.NewDFG(sub)})
		}
	}
	out.Behaviour = behaviour
	if o.Export != "" {
		if err := mineExport(ctx, st, o, out.DFG, keep, classify); err != nil {
			return out, err
		}
	}
	return out, nil
}

// mineAnalysis is mine's part of the shared pass: the runs keep selects
// added, in scan order, to the event log being built.
type mineAnalysis struct {
	cur      *runWork // the run being added (add's goroutine only)
	o        *MineOptions
	classify func(harness, tool, args string) string
	b        *mining.Builder
	keep     func(*schema.Run) bool
	dtoc     map[string]bool // runs with manage_context ops
}

func (a *mineAnalysis) worker() (func(*runWork) any, error) {
	return func(w *runWork) any {
		if !a.keep(&w.Run) {
			return nil
		}
		if a.o.mode == mining.ModeClass {
			for i := range w.Events {
				if e := &w.Events[i]; e.Kind == schema.KindToolCall {
					w.classify(w.Run.Harness, e.ToolName, e.Args)
				}
			}
		}
		return w // the Builder copies what it keeps, in add
	}, nil
}

func (a *mineAnalysis) add(v any) error {
	w, ok := v.(*runWork)
	if !ok {
		return nil
	}
	// the worker is done with w: its memo is this goroutine's now
	a.cur = w
	defer func() { a.cur = nil }()
	d := &w.RunData
	a.noteDTOC(d.Run.RunID, d.Ops)
	return a.b.AddRun(&d.Run, d.Events, d.Ops)
}

// noteDTOC records whether the run has manage_context ops.
func (a *mineAnalysis) noteDTOC(runID string, ops []schema.ContextOp) {
	for _, op := range ops {
		if op.Op == schema.OpDisable || op.Op == schema.OpEnable {
			a.dtoc[runID] = true
			return
		}
	}
}

// mineExport writes --export.
func mineExport(ctx context.Context, st *store.Store, o *MineOptions, dfg *mining.DFG, keep func(*schema.Run) bool, classify func(h, t, a string) string) error {
	kind, file, _ := strings.Cut(o.Export, ":")
	var w io.Writer = o.Out
	if file != "-" {
		fh, err := os.Create(file)
		if err != nil {
			return fmt.Errorf("--export: %w", err)
		}
		defer fh.Close()
		w = fh
	}
	if kind == "dot" {
		return dfg.WriteDOT(w)
	}
	src := func(yield func(*eventlog.RunRecords) error) error {
		return st.Scan(ctx, store.ScanOptions{}, func(d *store.RunData) error {
			if !keep(&d.Run) {
				return nil
			}
			return yield(&eventlog.RunRecords{Run: d.Run, Events: d.Events, Ops: d.Ops})
		})
	}
	eo := &eventlog.Options{OpActivity: func(_ *schema.Run, c *schema.ContextOp) string { return mining.OpActivity(c.Op) }}
	if o.mode == mining.ModeClass {
		eo.Activity = func(r *schema.Run, e *schema.Event) string {
			if e.Kind == schema.KindToolCall || e.Kind == schema.KindToolResult {
				return classify(r.Harness, e.ToolName, e.Args)
			}
			return eventlog.DefaultActivity(r, e)
		}
	}
	var err error
	if kind == "xes" {
		_, err = eventlog.WriteXES(ctx, w, src, eo)
	} else {
		_, err = eventlog.WriteOCEL(ctx, w, src, eo)
	}
	if err != nil {
		return fmt.Errorf("--export %s: %w", kind, err)
	}
	return nil
}

func writeMine(w io.Writer, out mineJSON, o *MineOptions) error {
	fmt.Fprintf(w, "mine: %s runs, %s events, activities by %s\n\n", thousands(int64(out.Cases)), thousands(int64(out.Events)), out.Activity)
	if out.Cases == 0 {
		fmt.Fprintln(w, "no runs: import some with trajmine ingest")
		return nil
	}
	fmt.Fprintln(w, "Top variants:")
	if err := mining.WriteVariants(w, out.Variants, o.Top); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nBusiest edges (directly-follows):")
	writeEdges(w, out.DFG, o.Top)
	fmt.Fprintf(w, "\nConformance against the %s: ", map[bool]string{true: "model file", false: "heuristics net"}[o.ModelFile != ""])
	if err := out.Conformance.WriteText(w, o.Top); err != nil {
		return err
	}
	if out.Comparison != nil {
		fmt.Fprintln(w)
		if err := out.Comparison.WriteText(w, o.Top); err != nil {
			return err
		}
	}
	for _, g := range out.ByModel {
		fmt.Fprintf(w, "\n%s (%s): top variants\n", g.ModelFamily, countOf(g.Cases, "run"))
		if err := mining.WriteVariants(w, g.Variants, min(o.Top, 5)); err != nil {
			return err
		}
	}
	if o.NoProfiles {
		fmt.Fprintln(w, "\nmanage_context behaviour: not computed (--no-profiles)")
		return nil
	}
	fmt.Fprintln(w, "\nmanage_context behaviour per model family:")
	writeBehaviour(w, out.Behaviour)
	return nil
}

func writeEdges(w io.Writer, d *mining.DFG, top int) {
	edges := slices.Clone(d.Edges)
	slices.SortStableFunc(edges, func(a, b mining.Edge) int { return b.Count - a.Count })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  FROM\tTO\tCOUNT\t")
	for i, e := range edges {
		if i == top {
			break
		}
		fmt.Fprintf(tw, "  %s\t%s\t%d\t\n", snippet(e.From, 40), snippet(e.To, 40), e.Count)
	}
	tw.Flush()
}

func writeBehaviour(w io.Writer, gs []behavior.Group) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  FAMILY\tRUNS\tOPS/100\tFREED/OP (MEDIAN)\tSHALLOW\tRE-ENABLE\tTHRASH\tCOMPACTIONS\tLABEL\t")
	for _, g := range gs {
		m := g.Manage
		fmt.Fprintf(tw, "  %s\t%d\t%.1f\t%.0f\t%.0f%%\t%.0f%%\t%.0f%%\t%d\t%s\t\n", orDash(g.Key), g.Runs, m.OpsPer100, m.FreedPerOp.Median,
			100*m.ShallowShare, 100*m.ReEnableRate, 100*m.ThrashShare, g.Compaction.Compactions, g.Class.Label)
	}
	tw.Flush()
}
