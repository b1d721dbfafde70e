package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/trajmine/trajmine/counterfactual"
	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/schema"
	"github.com/trajmine/trajmine/simulate"
)

// SimulateOptions are the flags of trajmine simulate.
type SimulateOptions struct {
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
	Out        io.Writer

	shard, shards int
	windows       []int64
}

// NewSimulateCmd builds `trajmine simulate`.
func NewSimulateCmd(d *Deps, runF func(*SimulateOptions) error) *cobra.Command {
	o := &SimulateOptions{}
	c := &cobra.Command{
		Use:   "simulate",
		Short: "Replay every run under alternative context policies",
		Long: `Replay every imported run, call by call, under each context policy (trajmine
policies lists them; --policy picks, default all with their defaults) at each
--window, and compare them with keep-all.

At call t the prompt is the run's hidden prefix (logged input minus the
estimated events at its first logged call: system prompt and tool definitions
the log does not show) plus every event before t as the policy renders it:
full, a placeholder, truncated, dropped or folded into a summary. A call
overflows when prompt + its output tokens (or --reserve, if larger) exceed the
window; the run ends there. A run that gets through its logged calls is
"survived" if the log says it finished, else "censored": nothing past a
logged end is extrapolated.

TOKEN RATIO is the median over runs of Σ prompt / Σ keep-all prompt on the
same calls, with a percentile-bootstrap 95 % CI (1,000 resamples, fixed seed).
OVERFLOW counts runs that overflowed; SAVED those keep-all overflows and the
policy does not. BOUNDARY is the reading boundary under the policy: the call
by which half the runs had stopped while reading without finishing
(Aalen–Johansen cumulative incidence, finishing a competing outcome, other
stops censored; stated over at least 10 runs; the Kaplan–Meier turn is
reading_boundary_km_turn in --json). REINV counts predicted
re-invocations: a later use (trajmine counterfactual's provenance) of an
output that was hidden, or cut where the evidence was, at the using call;
each costs the output's tokens plus one call's prompt. COST prices prompts,
re-invocations, summarizer calls and outputs at the input/output prices;
CACHED prices each call's prefix unchanged since the previous call at the
cache-read price and the rest at the cache-write price (trajmine diagnose's
price table; --prices to override). --json adds per-run rows, the paired
Wilcoxon signed-rank test against keep-all and keep-all's error against the
logged input tokens (the simulator's own accuracy).

Results replace sim_runs (one row per run × policy × window) and sim_calls
(one per replayed call; --calls=false skips it) for the runs simulated;
--no-save writes nothing. --shard i/n replays every n-th run (by run_id)
starting at i (0-based), so n processes can split a corpus. Output is
byte-identical for the same database and flags.`,
		Example: `  trajmine simulate
  trajmine simulate --policy keep-all --policy 'halflife(activate=0.5,keep=4,cap=8000)' --window 20480,131072
  trajmine simulate --policy-file policies.yaml --by model --json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, args []string) error {
			o.Out = c.OutOrStdout()
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
			if runF != nil {
				return runF(o)
			}
			pols, err := simulatePolicies(o)
			if err != nil {
				return err
			}
			st, err := d.open(c.Context(), o.NoSave)
			if err != nil {
				return err
			}
			defer st.Close()
			out, err := simulateCompute(c.Context(), st, o, pols)
			if err != nil {
				return err
			}
			if o.JSON {
				return writeJSON(o.Out, out)
			}
			return writeSimulate(o.Out, out)
		},
	}
	c.Flags().StringArrayVar(&o.Policies, "policy", nil, "policy spec, e.g. 'halflife(cap=4000)' (repeatable; default: the whole catalog)")
	c.Flags().StringVar(&o.PolicyFile, "policy-file", "", "YAML/JSON file listing policy specs")
	c.Flags().StringVar(&o.Windows, "window", "", "comma-separated windows in tokens (default: each run's own window; 0 = unbounded)")
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

func parseWindows(s string) ([]int64, error) {
	if strings.TrimSpace(s) == "" {
		return []int64{-1}, nil // -1: each run's own
	}
	var out []int64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "own" {
			out = append(out, -1)
			continue
		}
		n, err := strconv.ParseInt(strings.ReplaceAll(f, "_", ""), 10, 64)
		if err != nil || n < 0 {
			return nil, flagErrorf("--window: %q is not a number of tokens (or own)", f)
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
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
	if len(pols) == 0 {
		for _, s := range simulate.DefaultSpecs() {
			p, err := simulate.Parse(s)
			if err != nil {
				return nil, err
			}
			pols = append(pols, p)
		}
	}
	// keep-all is the reference: always replayed, first
	seen := map[string]bool{}
	out := []simulate.Policy{}
	if ka, _ := simulate.Parse("keep-all"); ka != nil {
		out = append(out, ka)
		seen[ka.Name()] = true
	}
	for _, p := range pols {
		if !seen[p.Name()] {
			seen[p.Name()] = true
			out = append(out, p)
		}
	}
	return out, nil
}

// simulateJSON is simulate's result.
type simulateJSON struct {
	Runs       int                    `json:"runs"`
	Policies   []simulatePolicyJSON   `json:"policies"`
	Windows    []int64                `json:"windows"` // -1 = each run's own
	Shard      string                 `json:"shard,omitempty"`
	By         string                 `json:"by,omitempty"`
	Comparison []simulate.Agg         `json:"comparison"`
	Groups     []simulate.Agg         `json:"groups,omitempty"`
	Accuracy   []simulate.AccuracyRow `json:"keep_all_accuracy"`
	Calibrated int                    `json:"calibrated_runs"` // runs whose item tokens used a stored calibration factor
	// ReReads: the re-invocation attributor's predicted re-reads per tool
	// against those the logs show (counterfactual.ReReadValidation)
	ReReads counterfactual.ReReadValidation `json:"reread_validation"`
	Results []simulate.Row                  `json:"results"`
}

type simulatePolicyJSON struct {
	Spec  string `json:"spec"`
	Short string `json:"short"`
}

// simDone is one run's replays.
type simDone struct {
	rows       []simulate.Row
	calls      [][]simulate.CallResult // per row
	errs       []float64
	fitted     bool
	calibrated bool
	format     string
	family     string
	rereads    []counterfactual.ToolReReads
}

// simulateCompute replays every selected run (see the command's help) in
// one shared pass (runPass) and, unless o.NoSave, replaces their rows of
// sim_runs and sim_calls.
func simulateCompute(ctx context.Context, st *store.Store, o *SimulateOptions, pols []simulate.Policy) (simulateJSON, error) {
	a, err := newSimAnalysis(o, pols)
	if err != nil {
		return simulateJSON{}, err
	}
	env, err := newPassEnv(ctx, st)
	if err != nil {
		return simulateJSON{}, err
	}
	so := store.ScanOptions{Shard: o.shard, Shards: o.shards, Formats: o.Formats}
	if o.NoSave {
		err = runPass(ctx, st, so, env, a)
	} else {
		err = st.WriteDerived(ctx, a.derived(func() error { return runPass(ctx, st, so, env, a) })...)
	}
	if err != nil {
		return a.out, err
	}
	return a.finish(), nil
}

// simAnalysis is simulate's part of the shared pass: every policy at every
// window replayed on each run's trace, rows kept in scan order.
type simAnalysis struct {
	o       *SimulateOptions
	pols    []simulate.Policy
	prices  diagnose.Prices
	out     simulateJSON
	acc     simulate.Accuracy
	rereads counterfactual.ReReadValidator
	addCall func(vals ...any) error // writes a sim_calls row while derived's pass runs; nil otherwise
	// rows are collected in chunks (appending to one slice of big rows
	// copied them over and over) and flattened into out.Results once
	chunks [][]simulate.Row
}

// simChunk is the capacity of one chunk of simAnalysis's rows.
const simChunk = 4096

// flatten moves the collected rows into out.Results.
func (a *simAnalysis) flatten() {
	if len(a.chunks) == 0 {
		return
	}
	n := len(a.out.Results)
	for _, c := range a.chunks {
		n += len(c)
	}
	all := slices.Grow(a.out.Results, n-len(a.out.Results))
	for _, c := range a.chunks {
		all = append(all, c...)
	}
	a.out.Results, a.chunks = all, nil
}

func newSimAnalysis(o *SimulateOptions, pols []simulate.Policy) (*simAnalysis, error) {
	out := simulateJSON{Windows: o.windows, By: o.By}
	for _, p := range pols {
		out.Policies = append(out.Policies, simulatePolicyJSON{Spec: p.Name(), Short: simulate.Short(p)})
	}
	if o.shards > 1 {
		out.Shard = fmt.Sprintf("%d/%d", o.shard, o.shards)
	}
	prices := diagnose.DefaultPrices()
	if o.Prices != "" {
		fh, err := os.Open(o.Prices)
		if err != nil {
			return nil, fmt.Errorf("--prices: %w", err)
		}
		prices, err = diagnose.LoadPrices(fh)
		fh.Close()
		if err != nil {
			return nil, fmt.Errorf("--prices %s: %w", o.Prices, err)
		}
	}
	return &simAnalysis{o: o, pols: pols, prices: prices, out: out}, nil
}

// derived is the sim_calls and sim_runs replacement for store.WriteDerived
// (of the runs the options select): pass runs the shared pass, during which
// add writes sim_calls rows (when o.Calls); sim_runs follows from the rows
// kept. Further tables may follow in the same transaction.
func (a *simAnalysis) derived(pass func() error) []store.Derived {
	o := a.o
	where, whereArgs := store.ScanWhere(store.ScanOptions{Shard: o.shard, Shards: o.shards, Formats: o.Formats})
	calls := func(add func(vals ...any) error) error {
		if o.Calls {
			a.addCall = add
			defer func() { a.addCall = nil }()
		}
		return pass()
	}
	return []store.Derived{{Table: schema.SimCalls, Where: where, Args: whereArgs, Rows: calls},
		{Table: schema.SimRuns, Where: where, Args: whereArgs, Rows: a.runsRows}}
}

// runsRows writes the sim_runs rows of the pass's results.
func (a *simAnalysis) runsRows(add func(vals ...any) error) error {
	a.flatten()
	for i := range a.out.Results {
		if err := add(simRunValues(&a.out.Results[i])...); err != nil {
			return err
		}
	}
	return nil
}

func (a *simAnalysis) worker() (func(*runWork) any, error) {
	o := a.o
	// policies keep per-run state: each worker has its own instances
	pols := make([]simulate.Policy, len(a.pols))
	for i, p := range a.pols {
		var err error
		if pols[i], err = simulate.Fresh(p); err != nil {
			return nil, err
		}
	}
	var rp simulate.Replayer
	keepCalls := o.Calls && !o.NoSave
	return func(w *runWork) any {
		tr := w.replayTrace()
		res := simDone{errs: simulate.KeepAllErrors(tr), fitted: tr.HoldoutFitted, calibrated: w.calibrated(), format: tr.Format, family: tr.Family,
			rereads: counterfactual.RunReReads(w.Events, w.counterUses(), func(tool, args string) bool {
				c := w.classify(w.Run.Harness, tool, args)
				return c == "read" || c == "search"
			})}
		price, priced := a.prices.Lookup(w.Run.Model, w.Run.ModelFamily)
		for _, win := range o.windows {
			own := win < 0
			if own {
				win = tr.Window
			}
			for _, p := range pols {
				var calls []simulate.CallResult
				opt := simulate.Options{Window: win, Reserve: o.Reserve}
				if keepCalls {
					opt.Calls = &calls
				}
				if win == 0 {
					opt.Window = -1 // unbounded, not "the trace's own"
				}
				r := rp.Replay(tr, p, opt)
				if win == 0 {
					r.Window = 0
				}
				row := simulate.Row{RunResult: r, Format: w.Run.SourceFormat, Family: w.Run.ModelFamily, Harness: w.Run.Harness, Model: w.Run.Model, OwnWindow: own}
				if priced {
					c, cc := simulate.Cost(&r, price)
					kc, kcc := simulate.KeepAllCost(&r, price)
					row.CostUSD, row.CostCachedUSD, row.KeepAllCostUSD, row.KeepAllCostCachedUSD = &c, &cc, &kc, &kcc
				}
				res.rows = append(res.rows, row)
				res.calls = append(res.calls, calls)
			}
		}
		return res
	}, nil
}

func (a *simAnalysis) add(v any) error {
	r := v.(simDone)
	a.out.Runs++
	a.acc.AddErrors(r.format, r.family, r.errs, r.fitted)
	a.rereads.Add(r.rereads)
	if r.calibrated {
		a.out.Calibrated++
	}
	for i, row := range r.rows {
		if n := len(a.chunks); n == 0 || len(a.chunks[n-1]) == cap(a.chunks[n-1]) {
			a.chunks = append(a.chunks, make([]simulate.Row, 0, simChunk))
		}
		a.chunks[len(a.chunks)-1] = append(a.chunks[len(a.chunks)-1], row)
		if a.addCall == nil {
			continue
		}
		for j := range r.calls[i] {
			if err := a.addCall(simCallValues(row.RunID, row.Policy, row.Window, &r.calls[i][j])...); err != nil {
				return err
			}
		}
	}
	return nil
}

// simCallValues is one sim_calls row.
func simCallValues(runID, policy string, window int64, c *simulate.CallResult) []any {
	return []any{runID, policy, window, int64(c.Call), c.PromptTokens, c.CachedTokens, c.OutputTokens,
		int64(c.Placeholders), c.CharsRemoved, c.Overflow, c.SummarizerIn, c.SummarizerOut, int64(c.Reinvocations)}
}

// finish aggregates the rows: accuracy, the comparison and --by groups.
func (a *simAnalysis) finish() simulateJSON {
	a.flatten()
	o, out := a.o, a.out
	out.Accuracy = a.acc.Rows()
	out.ReReads = a.rereads.Result()
	out.Comparison = simulate.Aggregate(out.Results, simulate.AggOptions{})
	if o.By != "" {
		out.Groups = simulate.Aggregate(out.Results, simulate.AggOptions{Group: func(r *simulate.Row) string {
			switch o.By {
			case "harness":
				return orDash(r.Harness)
			case "format":
				return orDash(r.Format)
			}
			return orDash(r.Family)
		}})
	}
	return out
}

func simRunValues(r *simulate.Row) []any {
	nullIf := func(v int, null bool) any {
		if null {
			return nil
		}
		return int64(v)
	}
	var cost, cached any
	if r.CostUSD != nil {
		cost, cached = *r.CostUSD, *r.CostCachedUSD
	}
	return []any{r.RunID, r.Policy, r.Window, r.Format, r.Family, r.Harness, int64(r.LoggedCalls), int64(r.Calls), string(r.Status),
		nullIf(r.OverflowCall, r.OverflowCall < 0), nullIf(r.KeepAllOverflowAt, r.KeepAllOverflowAt < 0), nullIf(r.FirstActivation, r.FirstActivation < 0),
		r.PromptTokens, r.KeepAllTokens, r.TokenRatio(), r.PeakTokens, r.CachedTokens, r.OutputTokens, int64(r.PlaceholdersMax),
		r.CharsFull, r.CharsRemoved, r.CharsRemovedShare(), int64(r.SummarizerCalls), r.SummarizerIn, r.SummarizerOut,
		int64(r.Reinvocations), r.ReinvocationTok, cost, cached, r.BoundaryTurn, r.BoundaryEvent,
		r.BoundaryFinished, r.OverflowLogged, int64(r.StallMessages), r.StallMessageTok}
}

func windowLabel(w int64, own bool) string {
	switch {
	case own:
		return "own"
	case w == 0:
		return "none"
	}
	return thousands(w)
}

func writeSimulate(w io.Writer, out simulateJSON) error {
	short := map[string]string{}
	for _, p := range out.Policies {
		short[p.Spec] = p.Short
	}
	var wl []string
	for _, x := range out.Windows {
		wl = append(wl, windowLabel(x, x < 0))
	}
	shard := ""
	if out.Shard != "" {
		shard = " (shard " + out.Shard + ")"
	}
	fmt.Fprintf(w, "simulate: %s runs%s × %d policies × window %s; nothing past a run's logged end is extrapolated\n",
		thousands(int64(out.Runs)), shard, len(out.Policies), strings.Join(wl, ", "))
	if out.Runs == 0 {
		fmt.Fprintln(w, "no runs: import some with trajmine ingest")
		return nil
	}
	writeAccuracyLine(w, out.Accuracy)
	fmt.Fprintln(w)
	writeComparison(w, out.Comparison, short, false)
	if len(out.Groups) > 0 {
		fmt.Fprintf(w, "\nby %s:\n", out.By)
		writeComparison(w, out.Groups, short, true)
	}
	return nil
}

func writeAccuracyLine(w io.Writer, acc []simulate.AccuracyRow) {
	if len(acc) == 0 {
		fmt.Fprintln(w, "keep-all accuracy: no run has logged per-call input tokens to check against")
		return
	}
	all := acc[len(acc)-1]
	fmt.Fprintf(w, "keep-all accuracy (out of sample, against logged input): median |error| %.1f%% (signed %+.1f%%, p90 %.1f%%) over %s calls in %s runs",
		100*all.MedianAbs, 100*all.MedianSigned, 100*all.P90Abs, thousands(int64(all.Calls)), thousands(int64(all.Runs)))
	if all.MedianAbsFitted != nil && all.FittedCalls < all.Calls {
		fmt.Fprintf(w, "; %.1f%% over the %s calls of runs long enough to fit (≥ 5 logged calls)", 100**all.MedianAbsFitted, thousands(int64(all.FittedCalls)))
	}
	fmt.Fprintln(w, "; per format and model in --json")
}

func writeComparison(w io.Writer, aggs []simulate.Agg, short map[string]string, grouped bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "WINDOW\tPOLICY\tRUNS\tACTED\tTOKEN RATIO [95% CI]\tOVERFLOW\tSAVED\tBOUNDARY\tREINV\tCOST ×\tCACHED ×\tCACHED $\t"
	if grouped {
		head = "GROUP\t" + head
	}
	fmt.Fprintln(tw, head)
	for _, a := range aggs {
		wl := windowLabel(a.Window, a.Window < 0)
		b := "-"
		if a.BoundaryFound {
			b = "call " + strconv.FormatInt(a.BoundaryTurn, 10)
		}
		cost, cached, usd := "-", "-", "-"
		if a.Priced > 0 {
			c, cc := a.CostRatio()
			cost, cached, usd = fmt.Sprintf("%.3f", c), fmt.Sprintf("%.3f", cc), fmt.Sprintf("%.2f", a.CostCachedUSD)
		}
		line := fmt.Sprintf("%s\t%s\t%d\t%d\t%.3f [%.3f, %.3f]\t%d\t%d\t%s\t%d\t%s\t%s\t%s\t",
			wl, short[a.Policy], a.Runs, a.Activated, a.RatioMedian, a.RatioLo, a.RatioHi, a.Overflow, a.Saved, b, a.Reinvocations, cost, cached, usd)
		if grouped {
			line = a.Group + "\t" + line
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
}
