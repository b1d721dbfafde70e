package simulate

import (
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/internal/parallel"
	"github.com/trajmine/trajmine/internal/stats"
)

// Row is one run × policy × window result with the run's descriptors and cost.
type Row struct {
	RunResult
	Format, Family, Harness, Model string
	CostUSD, CostCachedUSD         *float64 // nil when the model has no price
	// as-logged's cost on the same calls (window ignored), the reference of the cost ratios
	AsLoggedCostUSD, AsLoggedCostCachedUSD *float64
	// keep-all's cost on the same calls (window ignored), a reference column
	KeepAllCostUSD, KeepAllCostCachedUSD *float64
}

// CostRatio is Σ CostUSD / Σ as-logged cost on the same calls (plain), and
// the same with caching; 0 when nothing was priced.
func (a *Agg) CostRatio() (plain, cached float64) {
	if a.AsLoggedCostUSD > 0 {
		plain = a.CostUSD / a.AsLoggedCostUSD
	}
	if a.AsLoggedCostCachedUSD > 0 {
		cached = a.CostCachedUSD / a.AsLoggedCostCachedUSD
	}
	return plain, cached
}

// AsLoggedCost prices the as-logged baseline on the calls r replayed
// (window ignored): its prompts AsLoggedPromptTokens with AsLoggedCached cached,
// its summarizer calls, and its outputs: the replay's, plus those of the
// manage_context calls a replacing policy's replay dropped
// (DroppedContextOutput).
func AsLoggedCost(r *RunResult, p diagnose.Price) (plain, cached float64) {
	al := RunResult{PromptTokens: r.AsLoggedPromptTokens, CachedTokens: r.AsLoggedCached, UncachedTokens: r.AsLoggedUncached, OutputTokens: r.OutputTokens + r.DroppedContextOutput,
		SummarizerIn: r.AsLoggedSummIn, SummarizerOut: r.AsLoggedSummOut}
	return Cost(&al, p)
}

// EffectiveTokens is what the policy spends on prompts: replayed prompts +
// predicted re-invocations + summarizer input.
func (r *Row) EffectiveTokens() int64 { return r.PromptTokens + r.ReinvocationTok + r.SummarizerIn }

// KeepAllCost prices keep-all on the calls r replayed (window ignored): its
// prompts KeepAllTokens with KeepAllCached read and KeepAllUncached
// neither read nor written, and the same outputs.
func KeepAllCost(r *RunResult, p diagnose.Price) (plain, cached float64) {
	ka := RunResult{PromptTokens: r.KeepAllTokens, CachedTokens: r.KeepAllCached, UncachedTokens: r.KeepAllUncached, OutputTokens: r.OutputTokens}
	return Cost(&ka, p)
}

// Cost prices a result (USD per million tokens in p):
//
//	plain   = (prompt + re-invocation + summarizer input) × input + (output + summarizer output) × output
//	written = prompt − cached − uncached
//	cached  = cached × cache_read + written × cache_write (input when 0) + uncached × input
//	        + (re-invocation + summarizer input) × input + (output + summarizer output) × output
//
// where cached and uncached are the predicted cache reads and the prompt
// tokens neither read nor written (RunResult.UncachedTokens: the provider
// rule's, see cache.go). A re-invocation and a summarizer call are counted
// uncached. For Anthropic's 1-hour TTL pass CacheModel.Price(p).
func Cost(r *RunResult, p diagnose.Price) (plain, cached float64) {
	const m = 1e6
	write := p.CacheWrite
	if write == 0 {
		write = p.Input
	}
	out := float64(r.OutputTokens+r.SummarizerOut) * p.Output / m
	extra := float64(r.ReinvocationTok+r.SummarizerIn) * p.Input / m
	plain = float64(r.PromptTokens)*p.Input/m + extra + out
	written := r.PromptTokens - r.CachedTokens - r.UncachedTokens
	cached = float64(r.CachedTokens)*p.CacheRead/m + float64(written)*write/m + float64(r.UncachedTokens)*p.Input/m + extra + out
	return plain, cached
}

// Agg summarises one policy × window (× group) over runs. Every
// comparison is against the as-logged baseline (what ran, see AsLogged);
// keep-all is a reference column.
type Agg struct {
	Group  string `json:"group,omitempty"`
	Policy string `json:"policy"`
	Window Window `json:"window"` // the window asked for (RunResult.Window): each run's own, unbounded or fixed
	Runs   int    `json:"runs"`
	// Rank orders the policies of one group × window by the objective:
	// where a run of the group × window is priced, the lowest cost with
	// caching against as-logged (CostCachedRatio; policies with no priced
	// run last), then the most tokens saved; where none is, the most
	// tokens saved (TokensSaved). Ties: fewer runs lost, then catalog order.
	Rank int `json:"rank"`

	// the headline: totals against as-logged over the same calls
	//
	//	effective_tokens           = Σ effective tokens (prompts + predicted re-invocations + summarizer input)
	//	as_logged_effective_tokens = Σ as-logged's effective tokens (its prompts + its summarizer input)
	//	tokens_saved               = as_logged_effective_tokens − effective_tokens
	//	effective_ratio            = effective_tokens / as_logged_effective_tokens, with a run-level percentile-bootstrap 95 % CI
	EffectiveTokens         int64   `json:"effective_tokens"`
	AsLoggedEffectiveTokens int64   `json:"as_logged_effective_tokens"`
	TokensSaved             int64   `json:"tokens_saved"`
	EffectiveRatio          float64 `json:"effective_ratio"`
	EffectiveLo             float64 `json:"effective_ratio_lo"`
	EffectiveHi             float64 `json:"effective_ratio_hi"`
	Calls                   int     `json:"calls"`
	// predicted re-invocations per 100 replayed calls (as-logged predicts none)
	ReinvPer100 float64 `json:"reinvocations_per_100_calls"`

	// per-run token ratio = prompt_tokens / as_logged_prompt_tokens (RunResult.TokenRatio): median and percentile-bootstrap 95 % CI
	RatioMedian float64 `json:"token_ratio_median"`
	RatioLo     float64 `json:"token_ratio_lo"`
	RatioHi     float64 `json:"token_ratio_hi"`
	// per-run effective ratio (effective tokens over as-logged's): median
	EffRatioMedian float64 `json:"effective_ratio_median"`
	// paired Wilcoxon signed-rank of effective tokens against as-logged's on the same calls
	Wilcoxon stats.Wilcoxon `json:"wilcoxon"`

	Overflow         int `json:"overflow"`           // runs that overflowed under the policy
	BaselineOverflow int `json:"as_logged_overflow"` // runs lost under what ran (RunResult.BaselineOverflow)
	// BaselineOverflowAtWindow: of BaselineOverflow, the runs lost only
	// because this window is below the one they ran at (their logged
	// prompts exceed it; RunResult.BaselineLoss LossWindow)
	BaselineOverflowAtWindow int `json:"as_logged_overflow_at_window"`
	// Saved: lost under what ran, the policy gets through (at a run's own
	// window never a run whose log finished)
	Saved int `json:"saved"`
	// SavedAtWindow: of Saved, the runs lost only because this window is
	// below the one they ran at, which the policy carries to their logged
	// end at it; what the agent would have done after is not in the data
	SavedAtWindow int `json:"saved_at_window"`
	Lost          int `json:"lost"` // the policy overflows, what ran did not
	Survived      int `json:"survived"`
	Censored      int `json:"censored"`

	// the keep-all reference: Σ keep-all prompts over the same calls, the
	// policy's Σ prompts over it, and the runs keep-all overflows at this window
	KeepAllTokens   int64   `json:"keep_all_tokens"`
	KeepAllRatio    float64 `json:"keep_all_total_ratio"`
	KeepAllOverflow int     `json:"keep_all_overflow"`

	// the reading boundary of the replayed runs (diagnose.Boundary:
	// Aalen–Johansen, finishing competing, at least BoundaryMinRuns runs)
	BoundaryFound bool  `json:"reading_boundary_found"`
	BoundaryCall  int64 `json:"reading_boundary_call"`
	BoundaryRuns  int64 `json:"reading_boundary_events"` // runs that stopped while reading
	// BoundaryKMCall: the Kaplan–Meier boundary (finished censored) for
	// comparison; 0 when it has none
	BoundaryKMCall int64 `json:"reading_boundary_km_call"`

	Activated             int      `json:"activated"`               // runs where the policy changed a prompt (stall messages aside)
	StallMessages         int64    `json:"stall_messages"`          // Σ stall messages injected (RunResult.StallMessages)
	FirstActivationMedian *float64 `json:"first_activation_median"` // over activated runs; nil when none
	CharsRemovedMedian    *float64 `json:"chars_removed_median"`    // median per-run share over activated runs; nil when none
	CharsRemovedAll       float64  `json:"chars_removed_all"`       // Σ removed / Σ full over all runs

	Reinvocations   int64 `json:"reinvocations"`
	ReinvocationTok int64 `json:"reinvocation_tokens"`
	SummarizerCalls int64 `json:"summarizer_calls"`

	Priced int `json:"priced_runs"`
	// CostCachedRatio is the objective (issue 27): cost with prompt
	// caching against what ran on the same calls, over the priced runs,
	// with a run-level percentile-bootstrap 95 % CI (stats.SumRatio, as
	// EffectiveRatio):
	//
	//	cost_cached_ratio = Σ cost_cached_usd / Σ as_logged_cost_cached_usd   (runs with a price)
	//
	// 0, 0, 0 when no run is priced (Priced 0).
	CostCachedRatio float64 `json:"cost_cached_ratio"`
	CostCachedLo    float64 `json:"cost_cached_ratio_lo"`
	CostCachedHi    float64 `json:"cost_cached_ratio_hi"`
	CostUSD         float64 `json:"cost_usd"`        // Σ over priced runs
	CostCachedUSD   float64 `json:"cost_cached_usd"` // Σ over priced runs
	// as-logged on the same calls, same runs: the cost ratios' denominators
	AsLoggedCostUSD       float64 `json:"as_logged_cost_usd"`
	AsLoggedCostCachedUSD float64 `json:"as_logged_cost_cached_usd"`
	// keep-all on the same calls, same runs: a reference
	KeepAllCostUSD       float64 `json:"keep_all_cost_usd"`
	KeepAllCostCachedUSD float64 `json:"keep_all_cost_cached_usd"`
}

// AggOptions configures Aggregate.
type AggOptions struct {
	Bootstrap int    // resamples for CIs (default 1000)
	Seed      uint64 // bootstrap seed (default 1)
	// Group returns a row's group ("" = one group per policy × window).
	Group func(*Row) string
}

// Aggregate summarises rows per group × policy × window, in the order
// group, window, policy (as first seen in rows). Deterministic.
func Aggregate(rows []Row, o AggOptions) []Agg {
	if o.Bootstrap <= 0 {
		o.Bootstrap = 1000
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	type key struct {
		group, policy string
		window        Window
	}
	policyOrder := map[string]int{}
	idx := map[key][]int{}
	var keys []key
	for i := range rows {
		r := &rows[i]
		g := ""
		if o.Group != nil {
			g = o.Group(r)
		}
		if _, ok := policyOrder[r.Policy]; !ok {
			policyOrder[r.Policy] = len(policyOrder)
		}
		k := key{g, r.Policy, r.Window}
		if _, ok := idx[k]; !ok {
			keys = append(keys, k)
		}
		idx[k] = append(idx[k], i)
	}
	slices.SortStableFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.group, b.group), a.window.Compare(b.window), cmp.Compare(policyOrder[a.policy], policyOrder[b.policy]))
	})
	// each group × policy × window is summarised on its own (its bootstrap
	// seeded alike), so they are computed on every CPU, each into its slot
	out := make([]Agg, len(keys))
	parallel.Start(context.Background(), len(keys), func(i int) {
		k := keys[i]
		out[i] = aggregateOne(rows, idx[k], k.group, k.policy, k.window, o)
	})()
	rank(out)
	return out
}

// aggregateOne summarises the rows ix of rows, one group × policy × window.
func aggregateOne(rows []Row, ix []int, group, policy string, window Window, o AggOptions) Agg {
	a := Agg{Group: group, Policy: policy, Window: window, Runs: len(ix)}
	ratios := make([]float64, 0, len(ix))
	eff := make([]float64, 0, len(ix))
	x := make([]float64, 0, len(ix))
	y := make([]float64, 0, len(ix))
	var prompts int64
	var act, removed []float64
	var br []diagnose.BoundaryRun
	var cf, cr float64
	var cx, cy []float64 // per priced run: the policy's and as-logged's cost with caching
	for _, i := range ix {
		r := &rows[i]
		ratios = append(ratios, r.TokenRatio())
		e := 1.0
		if b := r.BaselineEffective(); b > 0 {
			e = float64(r.EffectiveTokens()) / float64(b)
		}
		eff = append(eff, e)
		x = append(x, float64(r.EffectiveTokens()))
		y = append(y, float64(r.BaselineEffective()))
		a.EffectiveTokens += r.EffectiveTokens()
		a.AsLoggedEffectiveTokens += r.BaselineEffective()
		a.KeepAllTokens += r.KeepAllTokens
		prompts += r.PromptTokens
		a.Calls += r.Calls
		switch r.Status {
		case Overflow:
			a.Overflow++
		case Survived:
			a.Survived++
		case Censored:
			a.Censored++
		}
		if r.KeepAllOverflowAt >= 0 {
			a.KeepAllOverflow++
		}
		if r.BaselineOverflow {
			a.BaselineOverflow++
		}
		atWindow := r.BaselineLoss == LossWindow
		if atWindow {
			a.BaselineOverflowAtWindow++
		}
		if r.Saved {
			a.Saved++
			if atWindow {
				a.SavedAtWindow++
			}
		}
		if r.Lost {
			a.Lost++
		}
		if r.FirstActivation >= 0 {
			a.Activated++
			act = append(act, float64(r.FirstActivation))
			removed = append(removed, r.CharsRemovedShare())
		}
		cf += float64(r.CharsFull)
		cr += float64(r.CharsRemoved)
		a.Reinvocations += int64(r.Reinvocations)
		a.ReinvocationTok += r.ReinvocationTok
		a.SummarizerCalls += int64(r.SummarizerCalls)
		if r.CostUSD != nil {
			a.Priced++
			a.CostUSD += *r.CostUSD
			a.CostCachedUSD += *r.CostCachedUSD
			a.KeepAllCostUSD += *r.KeepAllCostUSD
			a.KeepAllCostCachedUSD += *r.KeepAllCostCachedUSD
			if r.AsLoggedCostUSD != nil {
				a.AsLoggedCostUSD += *r.AsLoggedCostUSD
				a.AsLoggedCostCachedUSD += *r.AsLoggedCostCachedUSD
				cx, cy = append(cx, *r.CostCachedUSD), append(cy, *r.AsLoggedCostCachedUSD)
			}
		}
		br = append(br, r.BoundaryInput())
		a.StallMessages += int64(r.StallMessages)
	}
	a.TokensSaved = a.AsLoggedEffectiveTokens - a.EffectiveTokens
	a.EffectiveRatio, a.EffectiveLo, a.EffectiveHi = stats.SumRatio(x, y, o.Bootstrap, 0.95, o.Seed)
	if math.IsNaN(a.EffectiveRatio) { // no as-logged tokens: nothing to compare
		a.EffectiveRatio, a.EffectiveLo, a.EffectiveHi = 1, 1, 1
	}
	if len(cx) > 0 {
		a.CostCachedRatio, a.CostCachedLo, a.CostCachedHi = stats.SumRatio(cx, cy, o.Bootstrap, 0.95, o.Seed)
		if math.IsNaN(a.CostCachedRatio) { // priced at 0 (a free model): nothing to compare
			a.CostCachedRatio, a.CostCachedLo, a.CostCachedHi = 1, 1, 1
		}
	}
	if a.KeepAllTokens > 0 {
		a.KeepAllRatio = float64(prompts) / float64(a.KeepAllTokens)
	}
	if a.Calls > 0 {
		a.ReinvPer100 = 100 * float64(a.Reinvocations) / float64(a.Calls)
	}
	a.RatioMedian = stats.Median(ratios)
	a.RatioLo, a.RatioHi = stats.BootstrapMedianCI(ratios, o.Bootstrap, 0.95, o.Seed)
	a.EffRatioMedian = stats.Median(eff)
	if w, err := stats.WilcoxonSignedRank(x, y); err == nil {
		a.Wilcoxon = w
	}
	a.FirstActivationMedian = finite(stats.Median(act))
	a.CharsRemovedMedian = finite(stats.Median(removed))
	if cf > 0 {
		a.CharsRemovedAll = cr / cf
	}
	b := diagnose.Boundary(br)
	a.BoundaryFound, a.BoundaryCall, a.BoundaryRuns, a.BoundaryKMCall = b.Found, b.Call, b.Events, b.KMCall
	return a
}

// rank sets Agg.Rank within each group × window (see Agg.Rank): where a
// run is priced, the lowest CostCachedRatio first (unpriced policies last),
// then the most tokens saved; else the most tokens saved; then the fewest
// runs lost, then the order given.
func rank(aggs []Agg) {
	type gw struct {
		g string
		w Window
	}
	by := map[gw][]int{}
	var keys []gw
	for i, a := range aggs {
		k := gw{a.Group, a.Window}
		if _, ok := by[k]; !ok {
			keys = append(keys, k)
		}
		by[k] = append(by[k], i)
	}
	for _, k := range keys {
		ix := by[k]
		priced := slices.ContainsFunc(ix, func(i int) bool { return aggs[i].Priced > 0 })
		cost := func(a *Agg) float64 {
			if a.Priced == 0 {
				return math.Inf(1)
			}
			return a.CostCachedRatio
		}
		slices.SortStableFunc(ix, func(i, j int) int {
			c := 0
			if priced {
				c = cmp.Compare(cost(&aggs[i]), cost(&aggs[j]))
			}
			return cmp.Or(c, cmp.Compare(aggs[j].TokensSaved, aggs[i].TokensSaved), cmp.Compare(aggs[i].Lost, aggs[j].Lost))
		})
		for r, i := range ix {
			aggs[i].Rank = r + 1
		}
	}
}

// RankedByCost reports whether the ranking of aggs' group × window g, w
// is by cost (some run priced; see Agg.Rank) rather than by tokens.
func RankedByCost(aggs []Agg, g string, w Window) bool {
	return slices.ContainsFunc(aggs, func(a Agg) bool { return a.Group == g && a.Window == w && a.Priced > 0 })
}

// Ranked returns aggs ordered by group, window and Rank.
func Ranked(aggs []Agg) []Agg {
	out := slices.Clone(aggs)
	slices.SortStableFunc(out, func(a, b Agg) int {
		return cmp.Or(cmp.Compare(a.Group, b.Group), a.Window.Compare(b.Window), cmp.Compare(a.Rank, b.Rank))
	})
	return out
}

// finite returns &v, or nil for NaN and infinities (JSON has no NaN).
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// KeepAllErrors returns keep-all's out-of-sample relative errors against
// the logged input (Trace.Holdout; see fitTokens): where keep-all must
// reproduce the log.
func KeepAllErrors(tr *Trace) []float64 { return tr.Holdout }

// AccuracyRow is keep-all's accuracy for one source format × model family.
type AccuracyRow struct {
	Format       string  `json:"source_format"`
	Family       string  `json:"model_family"`
	Runs         int     `json:"runs"`
	Calls        int     `json:"calls"`
	MedianAbs    float64 `json:"median_abs_error"`    // median |error|
	MedianSigned float64 `json:"median_signed_error"` // median error: > 0 over-estimates
	P90Abs       float64 `json:"p90_abs_error"`
	// FittedCalls are the checked calls of runs long enough for a fitted
	// holdout model (≥ 5 logged calls); MedianAbsFitted their median |error|
	// (nil when none). The other calls check the raw estimate anchored on
	// one call: the estimator's own error.
	FittedCalls     int      `json:"fitted_calls"`
	MedianAbsFitted *float64 `json:"median_abs_error_fitted"`
}

// Accuracy accumulates KeepAllErrors per format × family.
type Accuracy struct {
	errs, fitted map[[2]string][]float64
	runs         map[[2]string]int
}

// Add records one trace's errors.
func (a *Accuracy) Add(tr *Trace) {
	a.AddErrors(tr.Format, tr.Family, KeepAllErrors(tr), tr.HoldoutFitted)
}

// AddErrors records one run's KeepAllErrors; fitted says whether they come
// from a fitted holdout model (Trace.HoldoutFitted).
func (a *Accuracy) AddErrors(format, family string, e []float64, fitted bool) {
	if len(e) == 0 {
		return
	}
	if a.errs == nil {
		a.errs, a.fitted, a.runs = map[[2]string][]float64{}, map[[2]string][]float64{}, map[[2]string]int{}
	}
	k := [2]string{format, family}
	a.errs[k] = append(a.errs[k], e...)
	if fitted {
		a.fitted[k] = append(a.fitted[k], e...)
	}
	a.runs[k]++
}

// Rows returns the accuracy table ordered by format and family, plus an
// "all" row (Format "*") when there is more than one group.
func (a *Accuracy) Rows() []AccuracyRow {
	var out []AccuracyRow
	var all, allFit []float64
	runs := 0
	for k, e := range a.errs {
		out = append(out, accRow(k[0], k[1], a.runs[k], e, a.fitted[k]))
		all = append(all, e...)
		allFit = append(allFit, a.fitted[k]...)
		runs += a.runs[k]
	}
	slices.SortFunc(out, func(x, y AccuracyRow) int {
		return cmp.Or(cmp.Compare(x.Format, y.Format), cmp.Compare(x.Family, y.Family))
	})
	if len(out) > 1 {
		out = append(out, accRow("*", "*", runs, all, allFit))
	}
	return out
}

func accRow(format, family string, runs int, e, fitted []float64) AccuracyRow {
	abs := make([]float64, len(e))
	for i, v := range e {
		abs[i] = math.Abs(v)
	}
	fabs := make([]float64, len(fitted))
	for i, v := range fitted {
		fabs[i] = math.Abs(v)
	}
	slices.Sort(abs)
	p90 := abs[min(len(abs)-1, int(math.Ceil(0.9*float64(len(abs))))-1)]
	return AccuracyRow{Format: format, Family: family, Runs: runs, Calls: len(e),
		MedianAbs: stats.Median(abs), MedianSigned: stats.Median(e), P90Abs: p90,
		FittedCalls: len(fitted), MedianAbsFitted: finite(stats.Median(fabs))}
}
