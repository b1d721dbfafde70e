package cmd

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/trajmine/trajmine/analysis"
	"github.com/trajmine/trajmine/compare"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/textfmt"
)

// CompareOptions are the flags of trajmine compare.
type CompareOptions struct {
	Terminal
	By            string
	Groups        []string // --group NAME=FILTER
	Reference     string
	Replay        string
	Prices        string
	B             int
	Seed          uint64
	MinDiscordant int
	MinPairs      int
	AllTasks      bool
	JSON          bool

	grouping compare.Grouping
}

// compareMatrixRows is how many tasks the solve matrix lists without --all.
const compareMatrixRows = 30

// NewCompareCmd builds `trajmine compare`.
func NewCompareCmd(d *Deps, runF func(*CompareOptions) error) *cobra.Command {
	o := &CompareOptions{}
	c := &cobra.Command{
		Use:   "compare (--by model|harness|manage-context|tag:KEY | --group NAME=FILTER...) [flags]",
		Short: "Compare groups of real runs paired by task: solve rate, tokens, steps, duration, cost, with CIs and exact tests",
		Long: `Compare two or more groups of real runs — a condition on against off, one
model against another, a harness setting before and after — as the DTOC
paper reports its evidence (its Tables 3 and 4), from the logs and their
outcomes (trajmine outcomes).

Groups (root runs only; a sub-agent's run is part of its parent's task):
  --by model            one group per model family
  --by harness          one group per harness
  --by tag:KEY          one group per value of a tag given at ingest
                        (trajmine ingest --tag KEY=VALUE PATH...)
  --by manage-context   "on": the runs that call manage_context (DTOC), "off": the others
  --group NAME=FILTER   explicit groups (repeat it): FILTER is comma-separated
                        terms model=PATTERN, harness=PATTERN, path=GLOB,
                        since=DATE, until=DATE, tag:KEY=VALUE; a term without
                        "=" is a path glob, which matches a run whose log or
                        one of its folders it matches (since ≤ start < until).
                        A run matching two groups counts in the first.
One group is the reference (--reference NAME; else one named off, no, false,
0, none, without, baseline, control or before; else the first) and every
other group is compared with it.

Pairing: a run of a group and one of the reference with the same task id
(and the same model family, unless the groups are models) form a pair; a
task run several times pairs in start order. Figures are computed on the
pairs, per model family and over all of them; unpaired runs are counted and
left out. A row with no pair at all compares the two groups' runs as
independent samples (Fisher's exact test, two-sample bootstraps), and says so.

Per row: solve rate (runs with an outcome only; the others are counted),
input, output and cached tokens, steps (model calls), duration (last − first
timestamp), cost (with prompt caching, as trajmine diagnose prices it:
the log's cost_usd, else usage × the price table, --prices) and cost per
solved task (Σ cost of the runs with an outcome / solved). Each change is
Σ group / Σ reference − 1 over the pairs with a 95 % paired bootstrap CI
(--boot resamples of the pairs, --seed; cost per solved task: (Σcost/Σsolved)
ratio); the solve rate's difference in points with its bootstrap CI and
McNemar's exact test on the discordant pairs b and c:
p = min(1, 2·Σ_{i≤min(b,c)} C(b+c, i)/2^(b+c)).

When not to conclude: with fewer than --min-discordant discordant pairs
(default 6: with 5, even all of them one way give p = 0.0625) the solve
rate is "not enough to conclude"; other figures, and unpaired solve rates,
need --min-pairs pairs (default 10; unpaired: runs per group) before an
interval that excludes 0 is called a change.

Simulator check: when the groups differ by a context mechanism trajmine
replays — manage_context calls (DTOC), logged compactions or maskings in
at least half of one side's runs and none of the other's — the runs of the
side that has it are replayed without it (keep-all, which also drops the
agent's manage_context calls), and the predicted change in input tokens and
cost is printed beside the observed one, each with its 95 % CI: they agree
when the intervals overlap. --replay SPEC instead replays the reference's
runs under the policy SPEC (trajmine policies: a compaction threshold,
masking, dtoc-oracle …); --replay none skips the check. A replay holds the
agents' actions fixed: when the agents changed what they did (more steps),
prediction and observation disagree, and the check says how the steps changed.

The solve matrix lists tasks × model and group (✓ solved, ✗ failed, ? no
outcome, - no run, k/n solved of n runs), the tasks where groups differ
first; --all lists every task (--json always does).`,
		Example: `  trajmine ingest --tag dtoc=on runs/on && trajmine ingest --tag dtoc=off runs/off
  trajmine compare --by tag:dtoc
  trajmine compare --group new=since=2026-05-01 --group old=until=2026-05-01 --reference old
  trajmine compare --by manage-context --json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, args []string) error {
			o.setTerminal(c, d)
			switch {
			case o.By != "" && len(o.Groups) > 0:
				return flagErrorf("--by and --group: give one")
			case o.By == "" && len(o.Groups) == 0:
				return flagErrorf("say how to group the runs: --by model|harness|manage-context|tag:KEY, or --group NAME=FILTER twice or more")
			case o.By != "":
				if err := compare.ParseBy(o.By); err != nil {
					return flagErrorf("--by: %v", err)
				}
				o.grouping = compare.Grouping{By: o.By}
			default:
				if len(o.Groups) < 2 {
					return flagErrorf("--group: give two groups or more (the reference and one to compare with it)")
				}
				seen := map[string]bool{}
				for _, s := range o.Groups {
					g, err := compare.ParseGroup(s)
					if err != nil {
						return flagErrorf("--group: %v", err)
					}
					if seen[g.Name] {
						return flagErrorf("--group: the name %q is given twice", g.Name)
					}
					seen[g.Name] = true
					o.grouping.Groups = append(o.grouping.Groups, g)
				}
			}
			if o.B < 100 {
				return flagErrorf("--boot must be ≥ 100")
			}
			if o.MinDiscordant < 1 || o.MinPairs < 2 {
				return flagErrorf("--min-discordant must be ≥ 1 and --min-pairs ≥ 2")
			}
			if runF != nil {
				return runF(o)
			}
			return onStore(c.Context(), d, true, o, compareRun)
		},
	}
	c.Flags().StringVar(&o.By, "by", "", "group by model, harness, manage-context or tag:KEY")
	c.Flags().StringArrayVar(&o.Groups, "group", nil, "an explicit group NAME=FILTER (repeat; FILTER: model=, harness=, path=, since=, until=, tag:KEY=, comma-separated)")
	c.Flags().StringVar(&o.Reference, "reference", "", "the group the others are compared with (default: off, no, baseline, … or the first)")
	c.Flags().StringVar(&o.Replay, "replay", "", "simulator check: replay the reference's runs under this policy spec (none: skip; default: detect)")
	c.Flags().StringVar(&o.Prices, "prices", "", "price file (YAML/JSON, per million tokens; see trajmine diagnose --help)")
	c.Flags().IntVar(&o.B, "boot", compare.DefaultB, "bootstrap resamples")
	c.Flags().Uint64Var(&o.Seed, "seed", compare.DefaultSeed, "bootstrap seed")
	c.Flags().IntVar(&o.MinDiscordant, "min-discordant", 6, "fewest discordant pairs before the solve rate is concluded on")
	c.Flags().IntVar(&o.MinPairs, "min-pairs", compare.DefaultMinPairs, "fewest pairs (unpaired: runs per group) before a change is concluded on")
	c.Flags().BoolVar(&o.AllTasks, "all", false, "list every task of the solve matrix")
	c.Flags().BoolVar(&o.JSON, "json", false, "print JSON")
	return c
}

// analysis is what CompareStore depends on.
func (o *CompareOptions) analysis() *analysis.CompareOptions {
	return &analysis.CompareOptions{Grouping: o.grouping, Replay: o.Replay, Prices: o.Prices,
		Compare: compare.Options{Reference: o.Reference, B: o.B, Seed: o.Seed, MinDiscordant: o.MinDiscordant, MinPairs: o.MinPairs}}
}

func compareRun(ctx context.Context, st *store.Store, o *CompareOptions) error {
	res, err := analysis.CompareStore(ctx, st, o.analysis())
	if err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(o.Out, res)
	}
	return writeCompare(o.Out, res, o.Width, o.Bold, o.AllTasks)
}

// writeCompare prints the comparison: the groups, per comparison a table
// per model row with its sentence, the simulator check, the solve matrix
// and the rules.
func writeCompare(w io.Writer, res *compare.Result, width int, bold, allTasks bool) error {
	how := "explicit groups"
	if res.By != "" {
		how = "--by " + res.By
	}
	runs := 0
	for _, g := range res.Groups {
		runs += g.Runs
	}
	head := fmt.Sprintf("compare: %s runs in %d groups (%s), reference %s", textfmt.Thousands(int64(runs)), len(res.Groups), how, res.Reference)
	if res.Left > 0 {
		head += fmt.Sprintf("; %s runs in no group", textfmt.Thousands(int64(res.Left)))
	}
	if res.Overlap > 0 {
		head += fmt.Sprintf("; %s runs match several groups, counted in the first", textfmt.Thousands(int64(res.Overlap)))
	}
	printWrapped(w, width, head)
	fmt.Fprintln(w)
	gt := &table{header: []string{"GROUP", "RUNS", "TASKS", "NO TASK", "NO OUTCOME", "UNPRICED", "UNTIMED", "MANAGE_CONTEXT", "COMPACTING", "MASKING", "MODELS"}, key: []int{0}, indent: "  "}
	for _, g := range res.Groups {
		gt.add(g.Name, cmpNum(g.Runs), cmpNum(g.Tasks), cmpNum(g.NoTask), cmpNum(g.NoOutcome), cmpNum(g.Unpriced), cmpNum(g.Untimed), cmpNum(g.ManageContext), cmpNum(g.Compactions), cmpNum(g.Maskings), strings.Join(g.Models, ", "))
	}
	if res.By == compare.ByModel {
		gt.dropColumn(10)
	}
	gt.footer = []string{"NO OUTCOME: runs left out of the solve figures; UNPRICED: of the cost figures; UNTIMED: of duration; MANAGE_CONTEXT, COMPACTING, MASKING: runs that call manage_context, compact, mask."}
	if zero := gt.collapse(3, 4, 5, 6, 7, 8, 9); len(zero) > 0 {
		gt.footer = append(gt.footer, "0 in every group (column left out): "+strings.Join(zero, ", ")+".")
	}
	if err := gt.write(w, width, bold); err != nil {
		return err
	}
	for i := range res.Comparisons {
		c := &res.Comparisons[i]
		fmt.Fprintf(w, "\n%s vs %s\n", c.Group, c.Reference)
		for k := range c.Rows {
			r := &c.Rows[k]
			if err := writeCompareRow(w, c, r, width, bold); err != nil {
				return err
			}
			printIndented(w, width, "  ", "  ", r.Sentence)
		}
	}
	fmt.Fprintln(w)
	writeCompareCheck(w, res, width, bold)
	if err := writeSolveMatrix(w, &res.Matrix, res.Reference, width, bold, allTasks); err != nil {
		return err
	}
	r := res.Rules
	fmt.Fprintln(w)
	printWrapped(w, width, fmt.Sprintf("Rules: changes are Σ group / Σ reference − 1 over the pairs, with %s%% paired bootstrap CIs (%s resamples, seed %d; unpaired rows: two-sample); "+
		"the solve rate is tested with McNemar's exact test (unpaired: Fisher's) and concluded on only from %d discordant pairs (unpaired: %d runs with an outcome per group) and p < %s; "+
		"other figures only from %d pairs, when the interval excludes 0 (not enough, too few: below those counts). trajmine compare --help gives every formula.",
		strconv.FormatFloat(100*r.Level, 'f', -1, 64), textfmt.Thousands(int64(r.B)), r.Seed, r.MinDiscordant, r.MinPairs, strconv.FormatFloat(r.Alpha, 'f', -1, 64), r.MinPairs))
	return nil
}

func cmpNum(n int) string { return textfmt.Thousands(int64(n)) }

// writeCompareRow prints one model row's figures: reference, group,
// change, CI, n, verdict.
func writeCompareRow(w io.Writer, c *compare.Comparison, r *compare.Row, width int, bold bool) error {
	title := "model " + r.Model
	if r.Model == compare.AllModels {
		title = "all models"
	}
	if r.Unpaired {
		title += fmt.Sprintf(": no shared task, %d vs %d runs compared as independent samples", r.RunsGroup, r.RunsRef)
	} else {
		title += fmt.Sprintf(": %d paired %s", r.Paired, cmpPlural(r.Paired, "task", "tasks"))
		if r.LeftGroup+r.LeftRef > 0 {
			title += fmt.Sprintf(" (unpaired runs left out: %d of %s, %d of %s)", r.LeftGroup, c.Group, r.LeftRef, c.Reference)
		}
	}
	printWrapped(w, width, title)
	t := &table{header: []string{"FIGURE", strings.ToUpper(c.Reference), strings.ToUpper(c.Group), "CHANGE", "95% CI", "N", "P", "VERDICT"}, key: []int{0}, indent: "  ",
		right: []bool{false, true, true, true, true, true, true, false}}
	s := &r.Solve
	solveN := s.N
	p := "-"
	if s.Verdict != compare.NoOutcomes {
		p = compare.PValue(s.P)
	}
	t.add("solve rate", compare.Pct(s.RateRef), compare.Pct(s.RateGroup), compare.Points(s.Diff), compare.PointsCI(s.Lo, s.Hi), cmpNum(solveN), p, compare.ShortVerdict(s.Verdict))
	for _, m := range append(append([]compare.Metric{}, r.Metrics...), r.PerSolved) {
		t.add(compare.FigureLabel(&m), compare.FigureText(m.Ref, m.Unit), compare.FigureText(m.Group, m.Unit), compare.SignedPct(m.Change), compare.ChangeCI(m.Lo, m.Hi), cmpNum(m.N), "", compare.ShortVerdict(m.Verdict))
	}
	test := fmt.Sprintf("McNemar's exact test on the %d discordant pairs (%d only %s, %d only %s)", s.B+s.C, s.B, c.Group, s.C, c.Reference)
	if r.Unpaired {
		test = "Fisher's exact test"
	}
	if s.Verdict == compare.NoOutcomes {
		test = "no test: no outcomes on one side or both"
	}
	t.footer = []string{"N: pairs with the figure on both sides" + map[bool]string{true: " (unpaired: runs in the smaller group)", false: ""}[r.Unpaired] + "; P: " + test + "."}
	if s.NoOutcome > 0 {
		t.footer = append(t.footer, fmt.Sprintf("%d %s without an outcome left out of the solve rate and cost per solved task.", s.NoOutcome, cmpPlural(s.NoOutcome, "run", "runs")))
	}
	return t.write(w, width, bold)
}

// writeCompareCheck prints the simulator check: a table per check, or the
// note saying why there is none.
func writeCompareCheck(w io.Writer, res *compare.Result, width int, bold bool) {
	if len(res.Check) == 0 {
		printWrapped(w, width, "Simulator check: "+textfmt.OrDash(res.CheckNote)+".")
		return
	}
	for _, c := range res.Check {
		fmt.Fprintf(w, "Simulator check, %s vs %s: %s (%d %s)\n", c.Group, c.Reference, c.Reason, c.Runs, cmpPlural(c.Runs, "run", "runs"))
		t := &table{header: []string{"FIGURE", "PREDICTED", "95% CI", "OBSERVED", "95% CI", "VERDICT"}, key: []int{0}, indent: "  ",
			right: []bool{false, true, false, true, false, false}}
		for _, f := range []struct {
			name string
			fig  compare.Figure
		}{{"input tokens", c.Tokens}, {"cost", c.Cost}} {
			fig := f.fig
			if fig.N == 0 {
				t.add(f.name, "-", "", compare.SignedPct(fig.Observed), compare.ChangeCI(fig.OLo, fig.OHi), "not replayed")
				continue
			}
			v := map[string]string{compare.Agree: "agree", compare.Disagree: "disagree", compare.Unknown: "cannot tell"}[fig.Verdict]
			t.add(f.name, compare.SignedPct(fig.Predicted), compare.ChangeCI(fig.PLo, fig.PHi), compare.SignedPct(fig.Observed), compare.ChangeCI(fig.OLo, fig.OHi), v)
		}
		t.footer = []string{"Agree: the two 95% intervals overlap."}
		if c.Tokens.Verdict == compare.Disagree || c.Cost.Verdict == compare.Disagree {
			t.footer = append(t.footer, fmt.Sprintf("The replay holds the agents' actions fixed; observed steps changed %s %s.", compare.SignedPct(c.Steps.Change), compare.ChangeCI(c.Steps.Lo, c.Steps.Hi)))
		}
		_ = t.write(w, width, bold)
	}
	if res.CheckNote != "" {
		printWrapped(w, width, "Not checked: "+res.CheckNote+".")
	}
}

// writeSolveMatrix prints the tasks × model/group matrix: the tasks where
// groups differ first, then the rest, at most compareMatrixRows without all.
func writeSolveMatrix(w io.Writer, m *compare.Matrix, reference string, width int, bold, all bool) error {
	fmt.Fprintln(w)
	if len(m.Tasks) == 0 {
		printWrapped(w, width, "Solve matrix: no run has a task id.")
		return nil
	}
	header := []string{"TASK"}
	for _, c := range m.Columns {
		if c.Model == "" {
			header = append(header, c.Group)
		} else {
			header = append(header, c.Model+"/"+c.Group)
		}
	}
	differs := 0
	var order []int
	for i, t := range m.Tasks {
		if t.Differs {
			order = append(order, i)
			differs++
		}
	}
	for i, t := range m.Tasks {
		if !t.Differs {
			order = append(order, i)
		}
	}
	shown := len(order)
	if !all {
		shown = min(shown, compareMatrixRows)
	}
	fmt.Fprintf(w, "Solve matrix: %d tasks, %d where the groups differ (listed first)\n", len(m.Tasks), differs)
	right := make([]bool, len(header))
	t := &table{header: header, key: []int{0}, indent: "  ", right: right, optionalHint: "--json has every column"}
	// too many columns to fit: the reference's stay, the others go from the last
	for i := len(header) - 1; i > 0; i-- {
		if m.Columns[i-1].Group != reference {
			t.optional = append(t.optional, i)
		}
	}
	for _, i := range order[:shown] {
		row := []string{m.Tasks[i].Task}
		for _, c := range m.Tasks[i].Cells {
			row = append(row, c.Mark())
		}
		t.add(row...)
	}
	t.footer = []string{"✓ solved, ✗ failed, ? run without an outcome, - no run, k/n: k of n runs with an outcome solved."}
	if shown < len(order) {
		t.footer = append(t.footer, fmt.Sprintf("… and %d more tasks: --all lists every one (--json holds them).", len(order)-shown))
	}
	if m.NoTask > 0 {
		t.footer = append(t.footer, fmt.Sprintf("%d runs without a task id are in no row.", m.NoTask))
	}
	return t.write(w, width, bold)
}

func cmpPlural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
