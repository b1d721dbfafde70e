package simulate

import (
	"cmp"
	"math"
	"slices"

	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/internal/stats"
)

// Row is one run × policy × window result with the run's descriptors and cost.
type Row struct {
	RunResult
	Format, Family, Harness, Model string
	CostUSD, CostCachedUSD         *float64 // nil when the model has no price
	// keep-all's cost on the same calls (window ignored), the reference of the cost ratios
	KeepAllCostUSD, KeepAllCostCachedUSD *float64
	// OwnWindow: replayed at the run's own window (Window holds it); such
	// rows aggregate together under window -1.
	OwnWindow bool `json:"own_window"`
}

// CostRatio is Σ CostUSD / Σ keep-all cost on the same calls (plain), and
// the same with caching; 0 when nothing was priced.
func (a *Agg) CostRatio() (plain, cached float64) {
	if a.KeepAllCostUSD > 0 {
		plain = a.CostUSD / a.KeepAllCostUSD
	}
	if a.KeepAllCostCachedUSD > 0 {
		cached = a.CostCachedUSD / a.KeepAllCostCachedUSD
	}
	return plain, cached
}

// EffectiveTokens is what the policy spends on prompts: replayed prompts +
// predicted re-invocations + summarizer input.
func (r *Row) EffectiveTokens() int64 { return r.PromptTokens + r.ReinvocationTok + r.SummarizerIn }

// KeepAllCost prices keep-all on the calls r replayed (window ignored): its
// prompts KeepAllTokens with KeepAllCached cached, and the same outputs.
func KeepAllCost(r *RunResult, p diagnose.Price) (plain, cached float64) {
	ka := RunResult{PromptTokens: r.KeepAllTokens, CachedTokens: r.KeepAllCached, OutputTokens: r.OutputTokens}
	return Cost(&ka, p)
}

// Cost prices a result (USD per million tokens in p):
//
//	plain  = (prompt + re-invocation + summarizer input) × input + (output + summarizer output) × output
//	cached = cached × cache_read + (prompt − cached) × cache_write (input when 0)
//	       + (re-invocation + summarizer input) × input + (output + summarizer output) × output
//
// A re-invocation and a summarizer call are counted uncached.
func Cost(r *RunResult, p diagnose.Price) (plain, cached float64) {
	const m = 1e6
	write := p.CacheWrite
	if write == 0 {
		write = p.Input
	}
	out := float64(r.OutputTokens+r.SummarizerOut) * p.Output / m
	extra := float64(r.ReinvocationTok+r.SummarizerIn) * p.Input / m
	plain = float64(r.PromptTokens)*p.Input/m + extra + out
	cached = float64(r.CachedTokens)*p.CacheRead/m + float64(r.PromptTokens-r.CachedTokens)*write/m + extra + out
	return plain, cached
}

// Agg summarises one policy × window (× group) over runs.
type Agg struct {
	Group  string `json:"group,omitempty"`
	Policy string `json:"policy"`
	Window int64  `json:"window"` // -1: each run's own window
	Runs   int    `json:"runs"`

	// token ratio = prompt_tokens / keep_all_tokens per run: median and percentile-bootstrap 95 % CI
	RatioMedian float64 `json:"token_ratio_median"`
	RatioLo     float64 `json:"token_ratio_lo"`
	RatioHi     float64 `json:"token_ratio_hi"`
	// effective ratio adds re-invocations and summarizer input to the policy's side
	EffRatioMedian float64 `json:"effective_ratio_median"`
	// paired Wilcoxon signed-rank of effective tokens against keep-all's on the same calls
	Wilcoxon stats.Wilcoxon `json:"wilcoxon"`

	Overflow        int `json:"overflow"`          // runs that overflowed under the policy
	KeepAllOverflow int `json:"keep_all_overflow"` // runs keep-all overflows at this window
	Saved           int `json:"saved"`             // keep-all overflows, the policy does not
	Lost            int `json:"lost"`              // the policy overflows, keep-all does not
	Survived        int `json:"survived"`
	Censored        int `json:"censored"`

	// the reading boundary of the replayed runs (diagnose.Boundary:
	// Aalen–Johansen, finishing competing, at least BoundaryMinRuns runs)
	BoundaryFound bool  `json:"reading_boundary_found"`
	BoundaryTurn  int64 `json:"reading_boundary_turn"`
	BoundaryRuns  int64 `json:"reading_boundary_events"` // runs that stopped while reading
	// BoundaryKMTurn: the Kaplan–Meier boundary (finished censored) for
	// comparison; 0 when it has none
	BoundaryKMTurn int64 `json:"reading_boundary_km_turn"`

	Activated             int      `json:"activated"`               // runs where the policy changed a prompt (stall messages aside)
	StallMessages         int64    `json:"stall_messages"`          // Σ stall messages injected (RunResult.StallMessages)
	FirstActivationMedian *float64 `json:"first_activation_median"` // over activated runs; nil when none
	CharsRemovedMedian    *float64 `json:"chars_removed_median"`    // median per-run share over activated runs; nil when none
	CharsRemovedAll       float64  `json:"chars_removed_all"`       // Σ removed / Σ full over all runs

	Reinvocations   int64 `json:"reinvocations"`
	ReinvocationTok int64 `json:"reinvocation_tokens"`
	SummarizerCalls int64 `json:"summarizer_calls"`

	Priced        int     `json:"priced_runs"`
	CostUSD       float64 `json:"cost_usd"`        // Σ over priced runs
	CostCachedUSD float64 `json:"cost_cached_usd"` // Σ over priced runs
	// keep-all on the same calls, same runs: the cost ratios' denominators
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
		window        int64
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
		w := r.Window
		if r.OwnWindow {
			w = -1
		}
		k := key{g, r.Policy, w}
		if _, ok := idx[k]; !ok {
			keys = append(keys, k)
		}
		idx[k] = append(idx[k], i)
	}
	slices.SortStableFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.group, b.group), cmp.Compare(a.window, b.window), cmp.Compare(policyOrder[a.policy], policyOrder[b.policy]))
	})
	out := make([]Agg, 0, len(keys))
	for _, k := range keys {
		ix := idx[k]
		a := Agg{Group: k.group, Policy: k.policy, Window: k.window, Runs: len(ix)}
		ratios := make([]float64, 0, len(ix))
		eff := make([]float64, 0, len(ix))
		x := make([]float64, 0, len(ix))
		y := make([]float64, 0, len(ix))
		var act, removed []float64
		var br []diagnose.BoundaryRun
		var cf, cr float64
		for _, i := range ix {
			r := &rows[i]
			ratios = append(ratios, r.TokenRatio())
			e := 1.0
			if r.KeepAllTokens > 0 {
				e = float64(r.EffectiveTokens()) / float64(r.KeepAllTokens)
			}
			eff = append(eff, e)
			x = append(x, float64(r.EffectiveTokens()))
			y = append(y, float64(r.KeepAllTokens))
			switch r.Status {
			case Overflow:
				a.Overflow++
			case Survived:
				a.Survived++
			case Censored:
				a.Censored++
			}
			ko := r.KeepAllOverflowAt >= 0
			if ko {
				a.KeepAllOverflow++
			}
			if ko && r.Status != Overflow {
				a.Saved++
			}
			if !ko && r.Status == Overflow {
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
			}
			br = append(br, r.BoundaryInput())
			a.StallMessages += int64(r.StallMessages)
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
		a.BoundaryFound, a.BoundaryTurn, a.BoundaryRuns, a.BoundaryKMTurn = b.Found, b.Turn, b.Events, b.KMTurn
		out = append(out, a)
	}
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
