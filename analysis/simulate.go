package analysis

import (
	"context"
	"fmt"
	"slices"

	"github.com/trajmine/trajmine/counterfactual"
	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/textfmt"
	"github.com/trajmine/trajmine/schema"
	"github.com/trajmine/trajmine/simulate"
)

// SimulateOptions are what a replay of the store depends on.
type SimulateOptions struct {
	Windows       []simulate.Window // windows to replay at (simulate.ParseWindows)
	By            string            // also aggregate by model, harness or format; "" not
	Shard, Shards int               // replay the runs of shard Shard of Shards (Shards ≤ 1: all)
	Formats       []string          // only runs of these source formats; nil all
	Reserve       int64             // output tokens reserved per call (when larger than the logged output)
	Prices        string            // price file (LoadPrices)
	Calls         bool              // write sim_calls rows too
	NoSave        bool              // write no table
	// Prompts keeps every replay's prompt tokens per call (compact, in
	// memory: Simulation.CallPrompts), for the page's per-run timeline.
	Prompts bool
}

// WithKeepAll is pols with the references first: keep-all, then
// as-logged, the baseline every comparison is made against (added if
// missing; duplicates by name dropped); no policy means the catalog's
// defaults (simulate.DefaultSpecs).
func WithKeepAll(pols []simulate.Policy) ([]simulate.Policy, error) {
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
	for _, ref := range []string{"keep-all", simulate.AsLoggedName} {
		if p, _ := simulate.Parse(ref); p != nil {
			out = append(out, p)
			seen[p.Name()] = true
		}
	}
	for _, p := range pols {
		if !seen[p.Name()] {
			seen[p.Name()] = true
			out = append(out, p)
		}
	}
	return out, nil
}

// Simulation is simulate's result.
type Simulation struct {
	Runs       int                    `json:"runs"`
	Policies   []SimPolicy            `json:"policies"`
	Windows    []simulate.Window      `json:"windows"`
	Shard      string                 `json:"shard,omitempty"`
	By         string                 `json:"by,omitempty"`
	Comparison []simulate.Agg         `json:"comparison"`
	Groups     []simulate.Agg         `json:"groups,omitempty"`
	Accuracy   []simulate.AccuracyRow `json:"keep_all_accuracy"`
	// LoggedAccuracy is the as-logged baseline's error against the logged
	// input at every logged call, after compactions too, beside keep-all's
	LoggedAccuracy []simulate.LoggedAccuracyRow `json:"as_logged_accuracy"`
	// CacheAccuracy is the cache model against the logs: the as-logged
	// replay's predicted cache reads (and writes) against the logged ones
	// on every call of a log that states them, under the provider rules
	// and under ideal prefix caching, and the cost of what ran modelled
	// against the logged usage and the logs' stated cost
	CacheAccuracy []simulate.CacheAccuracyRow `json:"cache_accuracy"`
	Calibrated    int                         `json:"calibrated_runs"` // runs whose item tokens used a stored calibration factor
	// ContextRuns are the runs that make manage_context calls, and
	// ContextCalls their context-only calls (every tool call
	// manage_context): what the replays of policies that replace the
	// agent's context management drop (simulate.Trace.WithoutContextCalls;
	// per row, sim_runs.dropped_context_calls).
	ContextRuns  int `json:"manage_context_runs"`
	ContextCalls int `json:"context_only_calls"`
	// ReReads: the re-invocation attributor's predicted re-reads against
	// those the logs show, per tool, per run and per output, with their
	// calibration (counterfactual.ReReadValidation)
	ReReads counterfactual.ReReadValidation `json:"reread_validation"`
	Results []simulate.Row                  `json:"results"`
	// prompts are, when SimulateOptions.Prompts, each run's replays'
	// prompt tokens per call (packPrompts), in Windows × Policies order
	prompts map[string][][]byte
}

// CallPrompts is run runID's prompt tokens per logged call (sim_calls.
// prompt_tokens by call; -1 for a logged call the replay did not send, a
// manage_context-only call a replacing policy drops) under the policy spec
// at the first window; nil
// when the replays were not kept (SimulateOptions.Prompts) or the run or
// policy was not replayed.
func (s *Simulation) CallPrompts(runID, spec string) []int64 {
	rs := s.prompts[runID]
	for i, p := range s.Policies {
		if p.Spec == spec && i < len(rs) {
			return unpackPrompts(rs[i])
		}
	}
	return nil
}

// SimPolicy is one replayed policy: its spec and short name.
type SimPolicy struct {
	Spec  string `json:"spec"`
	Short string `json:"short"`
}

// simDone is one run's replays.
type simDone struct {
	rows       []simulate.Row
	calls      [][]simulate.CallResult // per row
	errs       []float64
	logged     simulate.LoggedErrors
	cache      simulate.CacheCheck
	rule       simulate.CacheModel
	fitted     bool
	calibrated bool
	ctxRun     bool // the run makes manage_context calls
	ctxCalls   int  // its context-only calls
	format     string
	family     string
	runID      string
	rereads    []counterfactual.OutputReRead
	prompts    [][]byte // per row, when SimulateOptions.Prompts
}

// SimulateStore replays every selected run (see the command's help) in
// one shared pass (Pass) and, unless o.NoSave, replaces their rows of
// sim_runs and sim_calls.
func SimulateStore(ctx context.Context, st *store.Store, o *SimulateOptions, pols []simulate.Policy) (Simulation, error) {
	a, err := NewSimulate(o, pols)
	if err != nil {
		return Simulation{}, err
	}
	env, err := NewEnv(ctx, st)
	if err != nil {
		return Simulation{}, err
	}
	so := store.ScanOptions{Shard: o.Shard, Shards: o.Shards, Formats: o.Formats}
	if o.NoSave {
		err = Pass(ctx, st, so, env, Of(a))
	} else {
		err = st.WriteDerived(ctx, a.Tables(func() error { return Pass(ctx, st, so, env, Of(a)) })...)
	}
	if err != nil {
		return a.out, err
	}
	return a.Finish(), nil
}

// Simulate is simulate's part of the shared pass: every policy at every
// window replayed on each run's trace, rows kept in scan order.
type Simulate struct {
	o       *SimulateOptions
	pols    []simulate.Policy
	prices  diagnose.Prices
	out     Simulation
	acc     simulate.Accuracy
	lacc    simulate.LoggedAccuracy
	cacc    simulate.CacheAccuracy
	rereads counterfactual.ReReadValidator
	addCall func(vals ...any) error // writes a sim_calls row while derived's pass runs; nil otherwise
	// rows are collected in chunks (appending to one slice of big rows
	// copied them over and over) and flattened into out.Results once
	chunks [][]simulate.Row
}

// simChunk is the capacity of one chunk of Simulate's rows.
const simChunk = 4096

// Flatten moves the collected rows into out.Results.
func (a *Simulate) Flatten() {
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

// NewSimulate prepares replays of pols with o (its price file loaded).
func NewSimulate(o *SimulateOptions, pols []simulate.Policy) (*Simulate, error) {
	out := Simulation{Windows: o.Windows, By: o.By}
	for _, p := range pols {
		out.Policies = append(out.Policies, SimPolicy{Spec: p.Name(), Short: simulate.Short(p)})
	}
	if o.Shards > 1 {
		out.Shard = fmt.Sprintf("%d/%d", o.Shard, o.Shards)
	}
	prices, err := LoadPrices(o.Prices)
	if err != nil {
		return nil, err
	}
	return &Simulate{o: o, pols: pols, prices: prices, out: out}, nil
}

// Tables is the sim_calls and sim_runs replacement for store.WriteDerived
// (of the runs the options select): pass runs the shared pass, during which
// add writes sim_calls rows (when o.Calls); sim_runs follows from the rows
// kept. Further tables may follow in the same transaction.
func (a *Simulate) Tables(pass func() error) []store.Derived {
	o := a.o
	where, whereArgs := store.ScanWhere(store.ScanOptions{Shard: o.Shard, Shards: o.Shards, Formats: o.Formats})
	calls := func(add func(vals ...any) error) error {
		if o.Calls {
			a.addCall = add
			defer func() { a.addCall = nil }()
		}
		return pass()
	}
	return []store.Derived{{Table: schema.SimCalls, Where: where, Args: whereArgs, Rows: calls},
		{Table: schema.SimRuns, Where: where, Args: whereArgs, Rows: a.RunsRows}}
}

// RunsRows writes the sim_runs rows of the pass's results.
func (a *Simulate) RunsRows(add func(vals ...any) error) error {
	a.Flatten()
	for i := range a.out.Results {
		if err := add(simRunValues(&a.out.Results[i])...); err != nil {
			return err
		}
	}
	return nil
}

// Worker replays one run under every policy at every window (Consumer).
func (a *Simulate) Worker() (func(*RunWork) simDone, error) {
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
	var buf []simulate.CallResult // the calls when only their prompts are kept
	return func(w *RunWork) simDone {
		tr := w.Trace()
		res := simDone{errs: simulate.KeepAllErrors(tr), logged: simulate.RunLoggedErrors(tr), fitted: tr.HoldoutFitted, calibrated: w.Calibrated(), format: tr.Format, family: tr.Family,
			ctxRun: tr.WithoutContextCalls() != nil, ctxCalls: tr.DroppedContextCalls(),
			runID: w.Run.RunID,
			rereads: counterfactual.OutputReReads(w.Events, w.Uses(), func(tool, args string) bool {
				c := w.Classify(w.Run.Harness, tool, args)
				return c == "read" || c == "search"
			})}
		res.cache, res.rule = simulate.CheckCache(tr, w.Run, w.Usage, a.prices), tr.Cache
		price, priced := a.prices.Lookup(w.Run.Model, w.Run.ModelFamily)
		price = tr.Cache.Price(price) // Anthropic's 1-hour writes at their price
		for _, win := range o.Windows {
			for _, p := range pols {
				var calls []simulate.CallResult
				opt := simulate.Options{Window: win, Reserve: o.Reserve}
				if keepCalls {
					opt.Calls = &calls
				} else if o.Prompts {
					buf = buf[:0]
					opt.Calls = &buf
				}
				r := rp.Replay(tr, p, opt)
				row := simulate.Row{RunResult: r, Format: w.Run.SourceFormat, Family: w.Run.ModelFamily, Harness: w.Run.Harness, Model: w.Run.Model}
				if priced {
					c, cc := simulate.Cost(&r, price)
					kc, kcc := simulate.KeepAllCost(&r, price)
					ac, acc := simulate.AsLoggedCost(&r, price)
					row.CostUSD, row.CostCachedUSD, row.KeepAllCostUSD, row.KeepAllCostCachedUSD = &c, &cc, &kc, &kcc
					row.AsLoggedCostUSD, row.AsLoggedCostCachedUSD = &ac, &acc
				}
				res.rows = append(res.rows, row)
				res.calls = append(res.calls, calls)
				if o.Prompts {
					cs := buf
					if keepCalls {
						cs = calls
					}
					// by logged call (CallResult.Call): a logged call this
					// replay did not send (a dropped manage_context-only
					// call, simulate.Trace.WithoutContextCalls) is -1
					ps := make([]int64, 0, len(cs))
					for i := range cs {
						for len(ps) < cs[i].Call {
							ps = append(ps, -1)
						}
						ps = append(ps, cs[i].PromptTokens)
					}
					res.prompts = append(res.prompts, packPrompts(ps))
				}
			}
		}
		return res
	}, nil
}

// Add keeps one run's rows, in scan order, writing its sim_calls rows
// when Tables' pass runs (Consumer).
func (a *Simulate) Add(r simDone) error {
	a.out.Runs++
	a.acc.AddErrors(r.format, r.family, r.errs, r.fitted)
	a.rereads.Add(r.runID, r.rereads)
	a.lacc.Add(r.format, r.family, r.logged)
	a.cacc.Add(r.format, r.family, r.rule, r.cache)
	if r.calibrated {
		a.out.Calibrated++
	}
	if r.ctxRun {
		a.out.ContextRuns++
		a.out.ContextCalls += r.ctxCalls
	}
	if r.prompts != nil && len(r.rows) > 0 {
		if a.out.prompts == nil {
			a.out.prompts = map[string][][]byte{}
		}
		a.out.prompts[r.rows[0].RunID] = r.prompts
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
			if err := a.addCall(simCallValues(row.RunID, row.Policy, row.WindowTokens, &r.calls[i][j])...); err != nil {
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

// Finish aggregates the rows: accuracy, the comparison and --by groups.
func (a *Simulate) Finish() Simulation {
	a.Flatten()
	o, out := a.o, a.out
	out.Accuracy = a.acc.Rows()
	out.ReReads = a.rereads.Result()
	out.LoggedAccuracy = a.lacc.Rows()
	out.CacheAccuracy = a.cacc.Rows()
	out.Comparison = simulate.Aggregate(out.Results, simulate.AggOptions{})
	if o.By != "" {
		out.Groups = simulate.Aggregate(out.Results, simulate.AggOptions{Group: func(r *simulate.Row) string {
			switch o.By {
			case "harness":
				return textfmt.OrDash(r.Harness)
			case "format":
				return textfmt.OrDash(r.Format)
			}
			return textfmt.OrDash(r.Family)
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
	var cost, cached, alCost any
	if r.CostUSD != nil {
		cost, cached = *r.CostUSD, *r.CostCachedUSD
	}
	if r.AsLoggedCostUSD != nil {
		alCost = *r.AsLoggedCostUSD
	}
	return []any{r.RunID, r.Policy, r.WindowTokens, r.Format, r.Family, r.Harness, int64(r.LoggedCalls), int64(r.Calls), string(r.Status),
		nullIf(r.OverflowCall, r.OverflowCall < 0), nullIf(r.KeepAllOverflowAt, r.KeepAllOverflowAt < 0), nullIf(r.FirstActivation, r.FirstActivation < 0),
		r.PromptTokens, r.KeepAllTokens, r.KeepAllRatio(), r.PeakTokens, r.CachedTokens, r.OutputTokens, int64(r.PlaceholdersMax),
		r.CharsFull, r.CharsRemoved, r.CharsRemovedShare(), int64(r.SummarizerCalls), r.SummarizerIn, r.SummarizerOut,
		int64(r.Reinvocations), r.ReinvocationTok, cost, cached, r.BoundaryCall, r.BoundaryEvent,
		r.AsLoggedPromptTokens, r.AsLoggedSummIn, nullIf(r.AsLoggedOverflowAt, r.AsLoggedOverflowAt < 0), r.TokenRatio(), r.BaselineOverflow, r.Saved, r.Lost, alCost,
		r.BoundaryFinished, r.OverflowLogged, int64(r.StallMessages), r.StallMessageTok, int64(r.DroppedContextCalls), string(r.BaselineLoss)}
}
