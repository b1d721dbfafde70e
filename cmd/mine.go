package cmd

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/trajmine/trajmine/analysis"

	"github.com/spf13/cobra"

	"github.com/trajmine/trajmine/behavior"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/mining"
	"github.com/trajmine/trajmine/redact"
)

// MineOptions are the flags of trajmine mine.
type MineOptions struct {
	Terminal
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
	// NoRedact writes --export as stored, secrets included (default:
	// redacted, as trajmine show is).
	NoRedact bool
	JSON     bool
	Err      io.Writer // the --no-redact warning
	// NoProfiles skips the behaviour profiles, stored at ingest or read
	// from the events of the runs with context ops (analysis.MineStore);
	// the event log is read through store.EventStream either way.
	NoProfiles bool
	// CPUProfile (a hidden flag) writes a pprof CPU profile of the command.
	CPUProfile string

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
format=NAME. Longer runs have more of every edge, so an edge between two
activities is compared by its rate per run, 100 × its count / the run's
transitions, with Welch's t-test; the edges from the start and to the end
and the variants (repeats collapsed) by the share of runs with them, with
Fisher's exact test; and every p-value is corrected for the number of
edges (or variants) tested: q is the Benjamini–Hochberg q-value, and a
difference is reported at a 5 % false discovery rate when q ≤ 0.05. The
unnormalised, uncorrected presence test is kept as presence_p. When most
runs are variants of their own, the top variants at a coarser level are
printed too: with repeats collapsed, or, when that still leaves more
variants than half the runs, by the order in which each run took up its
activities (the variants --compare compares are at the same level). --by model prints variants and edges per model family.
--export KIND:FILE writes ('-' for stdout): xes, the mined log as XES (IEEE
1849): one trace per run, one event per mined activity (the activities the
DFG counts, by --activity), so that a DFG computed from the file (PM4Py's
discover_dfg, Disco, ProM) is trajmine's; every trace's times strictly
increase: the logged times to the millisecond, an event logged in the same
millisecond as the one before it or without a time 1 ms after it, and a run
that logs no time at all (OpenAI message logs) from 2000-01-01T00:00:00Z on,
1 ms apart (the trace's time_source says logged, adjusted or synthetic, and
time_adjusted how many events moved), so that no tool drops or reorders
them; events-xes, every event and context op of the runs as XES, with their
logged times only (untimed events have none); ocel, the same as OCEL 2.0
JSON; dot, the DFG as Graphviz DOT. The exports are redacted as trajmine
show is: secrets (API keys, tokens, passwords, passwords in URLs, private
keys) in the records' targets, tool keys, ids and names, and in the
mined activity names, are replaced with [REDACTED:<rule>], the
activities of --activity class computed first, from the arguments as
logged. --no-redact writes them as stored, secrets included, and says so
on stderr.

Action classes are those ingest stored with each tool call
(events.action_class); the calls of runs an older trajmine imported (their
classified_by is not this version's classifier) are classified again from
their arguments, which costs reading them.

The behaviour profiles are those trajmine ingest stored for each run (table
run_profiles, computed after the import with this version's code); only
runs without one (imported by an older version; in a lake, a run id two
shards claim) are profiled here, which reads the events of those with
context ops or manage_context calls (without their text where ingest
stored their uses; the system prompts' text only for runs imported before
ingest recorded whether they name manage_context). --no-profiles leaves the profiles out, so that mine
reads only a few columns of the tool calls and results
(BENCHMARKS.md).`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, args []string) error {
			o.setTerminal(c, d)
			o.Err = c.ErrOrStderr()
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
				if _, err := analysis.MineGroup(g); err != nil {
					return flagErrorf("--compare: %v", err)
				}
			}
			if o.Export != "" {
				kind, file, ok := strings.Cut(o.Export, ":")
				if !ok || file == "" || (kind != "xes" && kind != "events-xes" && kind != "ocel" && kind != "dot") {
					return flagErrorf("--export must be xes:FILE, events-xes:FILE, ocel:FILE or dot:FILE")
				}
			}
			if o.Top <= 0 {
				return flagErrorf("--top must be ≥ 1")
			}
			if runF != nil {
				return runF(o)
			}
			stop, err := startProfiles(o.CPUProfile, "")
			if err != nil {
				return err
			}
			err = onStore(c.Context(), d, true, o, mineRun)
			if perr := stop(); err == nil {
				err = perr
			}
			return err
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
	c.Flags().StringVar(&o.Export, "export", "", "write the mined log xes:FILE, every event events-xes:FILE or ocel:FILE, or the DFG dot:FILE ('-' = stdout)")
	c.Flags().BoolVar(&o.NoRedact, "no-redact", false, "write --export's secrets as stored (default: replaced with [REDACTED:<rule>])")
	c.Flags().BoolVar(&o.JSON, "json", false, "print JSON")
	c.Flags().BoolVar(&o.NoProfiles, "no-profiles", false, "skip the behaviour profiles (reads only the event log: faster)")
	c.Flags().StringVar(&o.CPUProfile, "cpuprofile", "", "write a CPU profile (pprof) of the command to this file")
	_ = c.Flags().MarkHidden("cpuprofile")
	return c
}

// analysis is what mining depends on.
func (o *MineOptions) analysis() *analysis.MineOptions {
	return &analysis.MineOptions{Mode: o.mode, Outcome: o.outcome, By: o.By, Compare: o.Compare, Models: o.Models, Harnesses: o.Harnesses,
		From: o.from, To: o.to, ModelFile: o.ModelFile, Export: o.Export, ExportOut: o.Out, NoProfiles: o.NoProfiles}
}

func mineRun(ctx context.Context, st *store.Store, o *MineOptions) error {
	ao := o.analysis()
	if o.Export != "" {
		if o.NoRedact {
			_, file, _ := strings.Cut(o.Export, ":")
			if file == "-" {
				file = "standard output"
			}
			warnNotRedacted(o.Err, file)
		} else {
			red, err := redact.New()
			if err != nil {
				return err
			}
			ao.Redact = red
		}
	}
	out, err := analysis.MineStore(ctx, st, ao)
	if err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(o.Out, out)
	}
	return writeMine(o.Out, out, o)
}

func writeMine(w io.Writer, out analysis.Mined, o *MineOptions) error {
	fmt.Fprintf(w, "mine: %s, %s, activities by %s\n\n", countOf(out.Cases, "run"), countOf(out.Events, "event"), out.Activity)
	if out.Cases == 0 {
		fmt.Fprintln(w, "no runs: import some with trajmine ingest")
		return nil
	}
	fmt.Fprintln(w, "Top variants:")
	// mining renders its variants and conformance at natural width: fitted here
	var b strings.Builder
	if err := mining.WriteVariants(&b, out.Variants, o.Top); err != nil {
		return err
	}
	if out.Cases > 1 && 2*len(out.Variants) > out.Cases {
		// most runs are variants of their own: the coarser variants say more
		how := map[mining.VariantLevel]string{mining.LevelCollapsed: "with repeats collapsed (read, read, edit → read, edit)",
			mining.LevelOrder: "by the order in which each run took up its activities (read, search, read, edit → read, search, edit; repeats collapsed still left more variants than half the runs)"}[out.CoarseLevel]
		fmt.Fprintf(&b, "%s variants in %s runs; %s, %s:\n", thousands(int64(len(out.Variants))), thousands(int64(out.Cases)), how, thousands(int64(len(out.Coarse))))
		if err := mining.WriteVariants(&b, out.Coarse, o.Top); err != nil {
			return err
		}
	}
	printFitted(w, o.Width, b.String())
	fmt.Fprintln(w, "\nBusiest edges (directly-follows):")
	if err := edgesTable(out.DFG, o.Top).write(w, o.Width, o.Bold); err != nil {
		return err
	}
	b.Reset()
	fmt.Fprintf(&b, "\nConformance against the %s: ", map[bool]string{true: "model file", false: "heuristics net"}[o.ModelFile != ""])
	if err := out.Conformance.WriteText(&b, o.Top); err != nil {
		return err
	}
	if out.Comparison != nil {
		fmt.Fprintln(&b)
		if err := out.Comparison.WriteText(&b, o.Top); err != nil {
			return err
		}
	}
	for _, g := range out.ByModel {
		fmt.Fprintf(&b, "\n%s (%s): top variants\n", g.ModelFamily, countOf(g.Cases, "run"))
		if err := mining.WriteVariants(&b, g.Variants, min(o.Top, 5)); err != nil {
			return err
		}
	}
	printFitted(w, o.Width, b.String())
	if o.NoProfiles {
		fmt.Fprintln(w, "\nmanage_context behaviour: not computed (--no-profiles)")
		return nil
	}
	fmt.Fprintln(w, "\nmanage_context behaviour per model family:")
	return behaviourTable(out.Behaviour).write(w, o.Width, o.Bold)
}

// edgesTable is the top busiest edges of d by count, with the share of
// every transition they hold in a footer.
func edgesTable(d *mining.DFG, top int) *table {
	edges := slices.Clone(d.Edges)
	slices.SortStableFunc(edges, func(a, b mining.Edge) int { return b.Count - a.Count })
	t := &table{header: []string{"FROM", "TO", "COUNT"}, min: []int{8, 8, 5}, indent: "  "}
	all, shown := 0, 0
	for i, e := range edges {
		all += e.Count
		if i < top {
			shown += e.Count
			t.add(snippet(e.From, 40), snippet(e.To, 40), thousands(int64(e.Count)))
		}
	}
	if len(edges) > top {
		t.footer = []string{fmt.Sprintf("the %d busiest of %s edges: %s of %s transitions (%s)", top, thousands(int64(len(edges))),
			thousands(int64(shown)), thousands(int64(all)), pct(float64(shown)/float64(max(all, 1))))}
	}
	return t
}

// behaviourTable is the manage_context and compaction profile per model
// family: columns of zeros in every family become a footer line, runs and
// compactions are summed under a rule.
func behaviourTable(gs []behavior.Group) *table {
	t := &table{header: []string{"FAMILY", "RUNS", "OPS/100", "FREED/OP", "SHALLOW", "RE-ENABLE", "THRASH", "COMPACTIONS", "LABEL"},
		min: []int{8, 4, 7, 8, 7, 9, 6, 11, 8}, indent: "  "}
	var runs int
	var comps int64
	for _, g := range gs {
		m := g.Manage
		runs += g.Runs
		comps += g.Compaction.Compactions
		t.add(snippet(orDash(g.Key), 40), thousands(int64(g.Runs)), fmt.Sprintf("%.1f", m.OpsPer100), thousands(int64(m.FreedPerOp.Median+0.5)),
			pct(m.ShallowShare), pct(m.ReEnableRate), pct(m.ThrashShare),
			thousands(g.Compaction.Compactions), string(g.Class.Label))
	}
	if len(gs) > 1 {
		t.totals = []string{"all", thousands(int64(runs)), "", "", "", "", "", thousands(comps), ""}
	}
	t.footer = []string{"OPS/100: manage_context calls per 100 model calls; FREED/OP: median tokens a disabling call freed; SHALLOW: share of disabling calls freeing few tokens; " +
		"RE-ENABLE: enables per disable; THRASH: share of disables re-enabled soon after; COMPACTIONS: logged compactions (trajmine mine --help)."}
	if zero := t.collapse(2, 3, 4, 5, 6, 7); len(zero) > 0 {
		t.footer = append(t.footer, "0 in every family (column left out): "+strings.Join(zero, ", ")+".")
	}
	// at a narrow terminal the family stays whole and the figures the
	// label rests on least give way first
	t.key = t.columns("FAMILY")
	t.optional = t.columns("COMPACTIONS", "FREED/OP", "THRASH", "RE-ENABLE", "SHALLOW")
	t.optionalHint = "trajmine mine --json has every figure"
	return t
}
