package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/trajmine/trajmine/analysis"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/textfmt"
	"github.com/trajmine/trajmine/simulate"
)

// SimulateOptions are the flags of trajmine simulate.
type SimulateOptions struct {
	Terminal
	Policies   []string
	PolicyFile string
	Windows    string
	By         string
	Shard      string
	Formats    []string
	Reserve    int64
	Prices     string
	Calls      bool
	NoSave     bool
	JSON       bool
	Err        io.Writer // warnings (a learned policy's model families)

	shard, shards int
	windows       []simulate.Window
}

// NewSimulateCmd builds `trajmine simulate`.
func NewSimulateCmd(d *Deps, runF func(*SimulateOptions) error) *cobra.Command {
	o := &SimulateOptions{}
	c := &cobra.Command{
		Use:   "simulate",
		Short: "Replay every run under alternative context policies",
		Long: `Replay every imported run, call by call, under each context policy (trajmine
policies lists them; --policy picks, default all with their defaults) at each
--window, and compare them with what ran: the as-logged baseline, each run
replayed under the context management its log shows (compactions, summaries,
elisions, manage_context ops at the calls they happened), calibrated to the
logged input like every replay; its error against the logged input, after
compactions too, is printed beside keep-all's. Keep-all (nothing ever removed)
is a reference column.

At call t the prompt is the run's hidden prefix (logged input minus the
estimated events at its first logged call: system prompt and tool definitions
the log does not show) plus every event before t as the policy renders it:
full, a placeholder, truncated, dropped or folded into a summary. A call
overflows when prompt + its output tokens (or --reserve, if larger) exceed the
window; the run ends there. A run that gets through its logged calls is
"survived" if the log says it finished, else "censored": nothing past a
logged end is extrapolated.

The table is ranked per window (and --by group) by TOKENS SAVED = Σ as-logged
− Σ policy effective tokens over the runs, on the same calls (effective =
prompts + predicted re-invocations + summarizer input; as-logged counts one
summarizer call per logged compaction), then by runs lost. TOTAL × is
Σ policy / Σ as-logged with a run-level percentile-bootstrap 95 % CI (1,000
resamples, fixed seed). SAVED counts runs lost under what ran that the policy
carries to their logged end (what the agent would have done after it is
unknown). A run is lost under what ran when its log ended on window length
(at its own window or a smaller one); when the window is below the one it ran
at and a call it sent, prompt plus output, does not fit (the window what-if:
--window N below the runs' windows; the log may have finished, and a line
under the table says at N how many of the runs would have died and how many
the policy the report names carries); or when its log did not finish and
as-logged overflows. At a run's own window a run whose log finished is never
saved. LOST counts runs the policy loses where as-logged fits. REINV/100 CALLS are
predicted re-invocations per 100 replayed calls: a later use (trajmine
counterfactual's provenance) of an output that was hidden, or cut where the
evidence was, at the using call; each costs the output's tokens plus one
call's prompt. $ SAVED and COST × price prompts, re-invocations, summarizer
calls and outputs with prompt caching as each provider documents it (the run's
cache rule: Anthropic's explicit breakpoints, reads of what an earlier call
wrote, writes at the 5-minute price, expiry after 5 minutes without a call;
OpenAI's automatic caching of prompts ≥ 1,024 tokens in 128-token steps, no
write charge, expiry after 5 minutes; Google's implicit caching above a
minimum length per model; any other model the prefix unchanged since the
previous call at the cache-read price, the rest at the cache-write price;
expiry by the logged call times; trajmine diagnose's price table, --prices to
override) against as-logged's cost. Under the accuracy lines, the cache model
is checked against the logs: on every call of a log that states cache reads
(Claude Code, Codex, Gemini, OpenAI-style usage), the as-logged replay's
predicted reads against the logged ones, per format and model, before (ideal
prefix caching) and after the provider rules, and the cost of what ran
modelled against its logged usage × prices and the cost the log states. OVERFLOW counts runs that overflowed; VS KEEP-ALL is Σ prompts / Σ
keep-all prompts; BOUNDARY is the reading boundary under the policy: the call
by which half the runs had stopped while reading without finishing
(Aalen–Johansen cumulative incidence, finishing a competing outcome, other
stops censored; stated over at least 10 runs; the Kaplan–Meier turn is
reading_boundary_km_turn in --json). --json adds per-run rows,
the per-run median token ratio with its CI, the paired Wilcoxon signed-rank
test against as-logged, keep-all's totals and both accuracy tables.

A policy that replaces the agent's context management (every mechanism but
dtoc and as-logged; trajmine policies says which) replays a DTOC run without
the agent's manage_context calls, as a harness without the tool would run: a
call whose tool calls are all manage_context is dropped (its prompt, output
and result), a manage_context call inside another call loses just that item;
the agent's other actions are held fixed. As-logged is compared over the same
part of the logged run, dropped calls included. A line under the table counts
the runs and calls; --json has manage_context_runs, context_only_calls and,
per row, dropped_context_calls (sim_runs too).

Results replace sim_runs (one row per run × policy × window) and sim_calls
(one per replayed call; --calls=false skips it) for the runs simulated;
--no-save writes nothing. --shard i/n replays every n-th run (by run_id)
starting at i (0-based), so n processes can split a corpus. With --lake DIR
each shard writes its own part files (DIR/sim_runs/shard=i-of-n/, …; no
shared lock), replacing that shard's earlier results and any shards of
another n; the cross-run table printed covers the shard's runs (the merged
figures: trajmine sql --lake DIR over sim_runs, or simulate --no-save over
the whole lake). Output is byte-identical for the same database and flags.`,
		Example: `  trajmine simulate
  trajmine simulate --policy keep-all --policy 'halflife(activate=0.5,keep=4,cap=8000)' --window 20480,131072
  trajmine simulate --policy-file policies.yaml --by model --json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, args []string) error {
			o.setTerminal(c, d)
			switch o.By {
			case "", "model", "harness", "format":
			default:
				return flagErrorf("--by must be model, harness or format")
			}
			if o.Reserve < 0 {
				return flagErrorf("--reserve must be ≥ 0")
			}
			var err error
			if o.windows, err = parseWindows(o.Windows); err != nil {
				return err
			}
			if o.shard, o.shards, err = parseShard(o.Shard); err != nil {
				return err
			}
			o.Err = c.ErrOrStderr()
			if runF != nil {
				return runF(o)
			}
			return simulateRun(c.Context(), d, o)
		},
	}
	c.Flags().StringArrayVar(&o.Policies, "policy", nil, "policy spec, e.g. 'halflife(cap=4000)' (repeatable; default: the whole catalog)")
	c.Flags().StringVar(&o.PolicyFile, "policy-file", "", "YAML/JSON file listing policy specs")
	c.Flags().StringVar(&o.Windows, "window", "", "comma-separated windows: tokens (200000, 128k), own (each run's own; the default) or unbounded")
	c.Flags().StringVar(&o.By, "by", "", "also break the comparison down by model, harness or format")
	c.Flags().StringVar(&o.Shard, "shard", "", "replay shard i of n (i/n, 0-based)")
	c.Flags().StringSliceVar(&o.Formats, "format", nil, "replay only runs of these source formats (comma-separated or repeated)")
	c.Flags().Int64Var(&o.Reserve, "reserve", 0, "minimum output tokens reserved per call")
	c.Flags().StringVar(&o.Prices, "prices", "", "YAML/JSON price file (USD per million tokens) that adds to or replaces the embedded prices")
	c.Flags().BoolVar(&o.Calls, "calls", true, "write sim_calls (one row per replayed call)")
	c.Flags().BoolVar(&o.NoSave, "no-save", false, "write no tables (opens the database read-only)")
	c.Flags().BoolVar(&o.JSON, "json", false, "print JSON: comparison, per-run results, accuracy")
	return c
}

// simulateRun replays the runs (the lake's shard, with --lake) under the
// policies and prints the comparison: the store is opened to write
// sim_runs and sim_calls, or read-only with --no-save.
func simulateRun(ctx context.Context, d *Deps, o *SimulateOptions) error {
	pols, err := simulatePolicies(o)
	if err != nil {
		return err
	}
	var st *store.Store
	if d.lakeDir() != "" && !o.NoSave {
		st, err = d.openLakeWriter(ctx, store.LakeSimulate, o.shard, o.shards)
	} else {
		st, err = d.open(ctx, o.NoSave)
	}
	if err != nil {
		return err
	}
	defer st.Close()
	out, err := analysis.SimulateStore(ctx, st, o.analysis(), pols)
	if err != nil {
		return err
	}
	if st.Lake() != "" && !o.NoSave {
		if _, err := st.CommitLake(ctx); err != nil {
			return err
		}
	}
	warnModelFamilies(o.Err, learnedFamilies(out.Results))
	if o.JSON {
		return writeJSON(o.Out, out)
	}
	return writeSimulate(o.Out, out, o.Width, o.Bold)
}

// parseWindows reads simulate's --window list (simulate.ParseWindows).
func parseWindows(s string) ([]simulate.Window, error) {
	ws, err := simulate.ParseWindows(s)
	if err != nil {
		return nil, flagErrorf("--window: %v", err)
	}
	return ws, nil
}

func parseShard(s string) (int, int, error) {
	if s == "" {
		return 0, 1, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, flagErrorf("--shard must be i/n with 0 ≤ i < n, e.g. 0/4")
	}
	return i, n, nil
}

func simulatePolicies(o *SimulateOptions) ([]simulate.Policy, error) {
	var pols []simulate.Policy
	if o.PolicyFile != "" {
		fh, err := os.Open(o.PolicyFile)
		if err != nil {
			return nil, fmt.Errorf("--policy-file: %w", err)
		}
		ps, err := simulate.ParseFile(o.PolicyFile, fh)
		fh.Close()
		if err != nil {
			return nil, err
		}
		pols = append(pols, ps...)
	}
	for _, s := range o.Policies {
		p, err := simulate.Parse(s)
		if err != nil {
			return nil, flagErrorf("--policy: %v", err)
		}
		pols = append(pols, p)
	}
	return analysis.WithKeepAll(pols)
}

// learnedFamilies are, per model file of a tracer(model=FILE) policy
// among rows, the runs per model family it was replayed on.
func learnedFamilies(rows []simulate.Row) map[string]map[string]int {
	out := map[string]map[string]int{}
	seen := map[[2]string]bool{}
	for i := range rows {
		path := modelPath(rows[i].Policy)
		if path == "" || seen[[2]string{path, rows[i].RunID}] {
			continue
		}
		seen[[2]string{path, rows[i].RunID}] = true
		if out[path] == nil {
			out[path] = map[string]int{}
		}
		out[path][rows[i].Family]++
	}
	return out
}

// windowLabel is w as the comparison's WINDOW column shows it: own,
// unbounded, or the tokens with separators.
func windowLabel(w simulate.Window) string {
	if n, fixed := w.Fixed(); fixed {
		return thousands(n)
	}
	return w.String()
}

// analysis is what the replay depends on.
func (o *SimulateOptions) analysis() *analysis.SimulateOptions {
	return &analysis.SimulateOptions{Windows: o.windows, By: o.By, Shard: o.shard, Shards: o.shards, Formats: o.Formats,
		Reserve: o.Reserve, Prices: o.Prices, Calls: o.Calls, NoSave: o.NoSave}
}

func writeSimulate(w io.Writer, out analysis.Simulation, width int, bold bool) error {
	short := map[string]string{}
	for _, p := range out.Policies {
		short[p.Spec] = p.Short
	}
	var wl []string
	for _, x := range out.Windows {
		wl = append(wl, windowLabel(x))
	}
	shard := ""
	if out.Shard != "" {
		shard = " (shard " + out.Shard + ")"
	}
	printWrapped(w, width, fmt.Sprintf("simulate: %s%s × %s × window %s; nothing past a run's logged end is extrapolated",
		countOf(out.Runs, "run"), shard, textfmt.Plural(len(out.Policies), "policy", "policies"), strings.Join(wl, ", ")))
	if out.Runs == 0 {
		fmt.Fprintln(w, "no runs: import some with trajmine ingest")
		return nil
	}
	writeAccuracyLine(w, out.Accuracy, out.LoggedAccuracy, width)
	writeCacheAccuracy(w, out.CacheAccuracy, width, bold)
	fmt.Fprintln(w)
	writeComparison(w, out.Comparison, short, false, width, bold)
	for _, x := range out.Windows {
		if s := analysis.WindowVerdict(out.Comparison, x); s != "" {
			printWrapped(w, width, s)
		}
	}
	if len(out.Groups) > 0 {
		fmt.Fprintf(w, "\nby %s:\n", out.By)
		writeComparison(w, out.Groups, short, true, width, bold)
	}
	if out.ContextRuns > 0 {
		fmt.Fprintln(w)
		printWrapped(w, width, contextCallsText(out.ContextRuns, out.ContextCalls))
	}
	return nil
}

// contextCallsText says what the replays of policies that replace the
// agent's context management left out (simulate.Trace.WithoutContextCalls).
func contextCallsText(runs, calls int) string {
	noun := "runs make"
	if runs == 1 {
		noun = "run makes"
	}
	return fmt.Sprintf("%s %s manage_context calls: replays of policies that replace manage_context (every mechanism but dtoc and as-logged) drop the agent's %s context-only calls "+
		"(and its manage_context calls inside other calls); the agent's other actions are held fixed — what it would have done instead the log cannot say",
		thousands(int64(runs)), noun, thousands(int64(calls)))
}

// writeAccuracyLine prints how keep-all and the as-logged baseline track
// the logged input.
// the logged input, wrapped to width (≤ 0: one line each).
func writeAccuracyLine(w io.Writer, acc []simulate.AccuracyRow, logged []simulate.LoggedAccuracyRow, width int) {
	printWrapped(w, width, simulate.AccuracyText(acc), simulate.LoggedAccuracyText(logged))
}

// writeCacheAccuracy prints the cache model against the logs: its line
// (every format and model) and, when the logs state cache reads, the
// table per format and model (simulate.CacheAccuracyRow).
func writeCacheAccuracy(w io.Writer, rows []simulate.CacheAccuracyRow, width int, bold bool) {
	printWrapped(w, width, simulate.CacheAccuracyText(rows))
	if len(rows) == 0 {
		return
	}
	t := &table{header: []string{"FORMAT", "MODEL", "CACHE RULE", "RUNS", "CALLS", "MEDIAN", "P90", "READ ×", "IDEAL MEDIAN", "IDEAL P90", "IDEAL ×", "COST ×", "STATED ×"},
		footer: []string{"MEDIAN, P90: |predicted − logged cache read| / logged input per call; READ × = Σ predicted / Σ logged reads; IDEAL: ideal prefix caching on the same calls;",
			"COST × = modelled cost of what ran / its logged usage × prices; STATED × = modelled / the cost the logs state"}}
	ratio := func(a, b float64, n int) string {
		if n == 0 || b <= 0 {
			return "-"
		}
		return textfmt.Ratio(a / b)
	}
	for _, r := range rows {
		format, family := r.Format, r.Family
		if format == "*" {
			format, family = "all", "all"
		}
		t.add(format, family, r.Rule, thousands(int64(r.Runs)), thousands(int64(r.Calls)),
			pct(r.MedianAbs), pct(r.P90Abs), textfmt.Ratio(r.ReadRatio),
			pct(r.IdealMedianAbs), pct(r.IdealP90Abs), textfmt.Ratio(r.IdealReadRatio),
			ratio(r.ModelledUSD, r.UsageUSD, r.PricedRuns), ratio(r.ModelledStated, r.StatedUSD, r.StatedRuns))
	}
	if gone := t.collapse(t.columns("STATED ×")...); len(gone) > 0 {
		t.footer[1] = strings.TrimSuffix(t.footer[1], "; STATED × = modelled / the cost the logs state") + "; no log states its cost (STATED ×)"
	}
	if width > 0 {
		t.footer = []string{strings.Join(t.footer, " ")}
	}
	t.key = t.columns("FORMAT", "MODEL")
	t.optional = t.columns("IDEAL P90", "STATED ×", "CACHE RULE", "RUNS", "IDEAL ×", "IDEAL MEDIAN", "COST ×", "P90")
	t.optionalHint = "--json has every column; widen the terminal"
	_ = t.write(w, width, bold)
}

// writeComparison prints the headline table, ranked per window (and
// group) by cost with prompt caching where a run is priced (then tokens),
// else by tokens, said so: totals against the as-logged baseline,
// keep-all as a reference. The page's policy table has the same columns,
// names and units (TestComparisonUnitsMatchPage).
func writeComparison(w io.Writer, aggs []simulate.Agg, short map[string]string, grouped bool, width int, bold bool) {
	byCost, unpriced := false, false
	for _, a := range aggs {
		if simulate.RankedByCost(aggs, a.Group, a.Window) {
			byCost = true
		} else {
			unpriced = true
		}
	}
	rank := "ranked by COST ×, then tokens saved"
	switch {
	case byCost && unpriced:
		rank = "ranked by COST × where a run is priced, else (no run priced) by tokens saved"
	case !byCost:
		rank = "no run is priced (no model in the price table): ranked by tokens saved, not cost"
	}
	legend := []string{
		"against as-logged (what ran; Σ over runs, same calls): COST × = Σ policy / Σ as-logged cost with prompt caching over the priced runs (run-level bootstrap 95% CI), $ SAVED their difference;",
		"TOKENS SAVED = Σ as-logged − Σ policy prompt tokens (re-invocations and summaries included), TOKENS × = Σ policy / Σ as-logged (95% CI);",
		"SAVED = runs lost under what ran that the policy carries to their logged end (at a run's own window never a finished log), LOST = the reverse; REINV/100 CALLS = predicted re-invocations per 100 calls;",
		rank + "; VS KEEP-ALL = Σ prompts / Σ keep-all; uncached cost, median ratios and Wilcoxon tests in --json"}
	if width > 0 { // one paragraph, wrapped; at natural width its lines
		legend = []string{strings.Join(legend, " ")}
	}
	printWrapped(w, width, legend...)
	t := &table{header: []string{"WINDOW", "#", "POLICY", "RUNS", "ACTED", "COST ×", "COST 95% CI", "$ SAVED", "TOKENS SAVED", "TOKENS ×", "TOKENS 95% CI", "SAVED", "LOST", "REINV/100 CALLS", "OVERFLOW", "VS KEEP-ALL", "BOUNDARY"}}
	if grouped {
		t.header = append([]string{"GROUP"}, t.header...)
	}
	for _, a := range simulate.Ranked(aggs) {
		wl := windowLabel(a.Window)
		b := "-"
		if a.BoundaryFound {
			b = "call " + strconv.FormatInt(a.BoundaryCall, 10)
		}
		cost, ci, usd := "-", "-", "-"
		if a.Priced > 0 {
			cost, ci = textfmt.Ratio(a.CostCachedRatio), textfmt.RatioCI(a.CostCachedLo, a.CostCachedHi)
			usd = textfmt.Dollars(a.AsLoggedCostCachedUSD - a.CostCachedUSD)
		}
		row := []string{wl, strconv.Itoa(a.Rank), short[a.Policy], thousands(int64(a.Runs)), thousands(int64(a.Activated)), cost, ci, usd, signedThousands(a.TokensSaved),
			textfmt.Ratio(a.EffectiveRatio), textfmt.RatioCI(a.EffectiveLo, a.EffectiveHi), thousands(int64(a.Saved)), thousands(int64(a.Lost)),
			fmt.Sprintf("%.1f", a.ReinvPer100), thousands(int64(a.Overflow)), textfmt.Ratio(a.KeepAllRatio), b}
		if grouped {
			row = append([]string{a.Group}, row...)
		}
		t.add(row...)
	}
	// SAVED, LOST, OVERFLOW and BOUNDARY: left out when nothing is in them
	if gone := t.collapse(t.columns("SAVED", "LOST", "OVERFLOW", "BOUNDARY")...); len(gone) > 0 {
		t.footer = []string{strings.Join(gone, ", ") + ": 0 (or none) for every policy, columns left out"}
	}
	// the policy (and group) names each row: kept whole; at a narrow
	// terminal the reference figures go first, lowest priority first
	t.key = t.columns("GROUP", "POLICY")
	// (a WINDOW the same on every row, which the lines above name, first)
	var optional []string
	if w := t.columns("WINDOW"); len(w) == 1 && len(t.rows) > 0 && !slices.ContainsFunc(t.rows, func(r []string) bool { return r[w[0]] != t.rows[0][w[0]] }) {
		optional = append(optional, "WINDOW")
	}
	t.optional = t.columns(append(optional, "VS KEEP-ALL", "$ SAVED", "ACTED", "OVERFLOW", "BOUNDARY", "TOKENS 95% CI", "TOKENS SAVED", "RUNS", "#", "REINV/100 CALLS", "TOKENS ×", "COST 95% CI")...)
	t.optionalHint = "--json has every column; widen the terminal"
	_ = t.write(w, width, bold)
}

// signedThousands is n with thousands separators, a minus when negative.
func signedThousands(n int64) string {
	if n < 0 {
		return "-" + thousands(-n)
	}
	return thousands(n)
}
