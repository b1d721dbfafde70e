package tracer

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/simulate"
)

// Rewards (Options.Reward).
const (
	// RewardCost prices a replay's prompts with the run's prompt-cache
	// rule (the default; see PromptCost).
	RewardCost = "cost"
	// RewardTokens counts prompt tokens as if nothing were cached (the
	// reward before issue 27): R = −(prompt + re-invocation tokens) /
	// keep-all prompt tokens − λ × re-invocations − overflow.
	RewardTokens = "tokens"
)

// StandInPrice is the price a run gets when the price table has no entry
// for its model (the synthetic and planted test runs): 1 per million input
// tokens, and the ratios of the vendor whose cache rule the run has —
// reads 0.1 × input (Anthropic, OpenAI's GPT-5 family and Google's Gemini
// 2.5+ all bill a cache read at a tenth), writes 1.25 × input under
// Anthropic's explicit breakpoints and 1 × (no write charge) otherwise,
// output 5 × input (Claude's ratio). The numbers are ours; only their
// ratios matter to the reward, and the held-out table says how many runs
// were priced so.
func StandInPrice(rule simulate.CacheModel) diagnose.Price {
	p := diagnose.Price{Input: 1, Output: 5, CacheRead: 0.1, CacheWrite: 1}
	if rule.Kind == simulate.CacheExplicit {
		p.CacheWrite = 1.25
	}
	return rule.Price(p)
}

// PriceOf is tr's price: its model's entry of prices (nil: the embedded
// table), as its cache rule bills it (simulate.CacheModel.Price), or
// StandInPrice when the table has none (priced false).
func PriceOf(tr *simulate.Trace, prices diagnose.Prices) (p diagnose.Price, priced bool) {
	if prices == nil {
		prices = diagnose.DefaultPrices()
	}
	if p, ok := prices.Lookup(tr.Model, tr.Family); ok && p.Input > 0 {
		return tr.Cache.Price(p), true
	}
	return StandInPrice(tr.Cache), false
}

// PromptCost is what a replay's prompts cost under its run's cache rule,
// in input tokens (the cost divided by the input price), and what keep-all's
// prompts cost over the same calls:
//
//	cost    = ρr × cached + ρw × written + uncached + re-invocation tokens + summarizer input
//	keepAll = ρr × keep-all cached + ρw × keep-all written + keep-all uncached
//
// with ρr = cache_read / input and ρw = cache_write / input (input when 0)
// of p, cached and written the rule's predicted reads and writes
// (simulate.RunResult.CachedTokens, PromptTokens − CachedTokens −
// UncachedTokens), and re-invocations and summarizer calls billed
// uncached, as simulate.Cost bills them. Output tokens are left out: the
// agent's actions are held fixed, so every policy has the same.
func PromptCost(r *simulate.RunResult, p diagnose.Price) (cost, keepAll float64) {
	rr, rw := cacheRatios(p)
	written := r.PromptTokens - r.CachedTokens - r.UncachedTokens
	cost = rr*float64(r.CachedTokens) + rw*float64(written) + float64(r.UncachedTokens) + float64(r.ReinvocationTok+r.SummarizerIn)
	kaWritten := r.KeepAllTokens - r.KeepAllCached - r.KeepAllUncached
	keepAll = rr*float64(r.KeepAllCached) + rw*float64(kaWritten) + float64(r.KeepAllUncached)
	return cost, keepAll
}

// cacheRatios are p's cache-read and cache-write prices over its input price.
func cacheRatios(p diagnose.Price) (read, write float64) {
	if p.Input <= 0 {
		return 1, 1
	}
	w := p.CacheWrite
	if w == 0 {
		w = p.Input
	}
	return p.CacheRead / p.Input, w / p.Input
}

// objective is the training reward (see the package doc) with each run's price.
type objective struct {
	mode     string
	lambda   float64
	overflow float64
	price    map[*simulate.Trace]diagnose.Price
}

func newObjective(o *Options, traces []*simulate.Trace) *objective {
	ob := &objective{mode: o.Reward, lambda: o.Lambda, overflow: o.Overflow, price: make(map[*simulate.Trace]diagnose.Price, len(traces))}
	prices := o.Prices
	if prices == nil {
		prices = diagnose.DefaultPrices()
	}
	for _, tr := range traces {
		ob.price[tr], _ = PriceOf(tr, prices)
	}
	return ob
}

// scale returns the reward's denominator for a replay of tr (keep-all's
// prompt tokens, or their cost) and the weight of one prompt token a
// compression removes from a later call (1, or the cache-read ratio: a
// token kept in the prompt would have been read from the cache).
func (ob *objective) scale(tr *simulate.Trace, res *simulate.RunResult) (norm, perToken float64) {
	if ob.mode == RewardTokens {
		return float64(max(res.KeepAllTokens, 1)), 1
	}
	_, ka := PromptCost(res, ob.price[tr])
	rr, _ := cacheRatios(ob.price[tr])
	return max(ka, 1), rr
}

// reward is the replay's reward (see the package doc).
func (ob *objective) reward(tr *simulate.Trace, res *simulate.RunResult) float64 {
	var r float64
	if ob.mode == RewardTokens {
		ka := float64(max(res.KeepAllTokens, 1))
		r = -float64(res.PromptTokens+res.ReinvocationTok) / ka
	} else {
		c, ka := PromptCost(res, ob.price[tr])
		r = -c / max(ka, 1)
	}
	r -= ob.lambda * float64(res.Reinvocations)
	if res.Status == simulate.Overflow {
		r -= ob.overflow
	}
	return r
}

// UniformGrid are the retention ratios TuneUniform tries.
var UniformGrid = []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}

// Tuned is TRACER's uniform baseline (tracer-uniform) at the ratio with
// the best mean training reward (the reward the learned policy is trained
// on), at the model's trigger and keep.
type Tuned struct {
	Spec   string      `json:"spec"`   // tracer-uniform(r=…,trigger=…,keep=…)
	R      float64     `json:"r"`      // the chosen ratio
	Reward float64     `json:"reward"` // its mean reward on the training runs
	Grid   []TunePoint `json:"grid"`   // every ratio tried, in UniformGrid order
}

// TunePoint is one ratio's mean reward on the training runs.
type TunePoint struct {
	R      float64 `json:"r"`
	Reward float64 `json:"reward"`
}

// uniformSpec is tracer-uniform at ratio r, trigger and keep.
func uniformSpec(r, trigger float64, keep int) string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	return fmt.Sprintf("tracer-uniform(r=%s,trigger=%s,keep=%d)", f(r), f(trigger), keep)
}

// TuneUniform replays traces (the training runs) under tracer-uniform at
// every ratio of UniformGrid, at o's trigger, keep and window, and returns
// the ratio with the best mean reward (o.Reward's): TRACER's uniform
// baseline tuned on the same runs and by the same objective as the learned
// policy. Ties go to the larger ratio (the smaller change).
func TuneUniform(traces []*simulate.Trace, o *Options) (Tuned, error) {
	oo := o.withDefaults()
	if err := oo.check(); err != nil {
		return Tuned{}, err
	}
	if len(traces) == 0 {
		return Tuned{}, fmt.Errorf("tune uniform: no runs")
	}
	ob := newObjective(&oo, traces)
	sums := make([][]float64, len(traces)) // per run, per ratio
	ws := make([]*worker, max(1, min(runtimeProcs(), len(traces))))
	for k := range ws {
		ws[k] = &worker{}
	}
	var perr error
	parallel(ws, len(traces), func(w *worker, i int) {
		sums[i] = make([]float64, len(UniformGrid))
		for k, r := range UniformGrid {
			p, err := simulate.Parse(uniformSpec(r, oo.Trigger, oo.Keep))
			if err != nil {
				perr = err // the same spec fails on every worker
				return
			}
			res := w.rp.Replay(traces[i], p, simulate.Options{Window: oo.Window, Reserve: oo.Reserve})
			sums[i][k] = ob.reward(traces[i], &res)
		}
	})
	if perr != nil {
		return Tuned{}, fmt.Errorf("tune uniform: %w", perr)
	}
	t := Tuned{R: -1, Reward: math.Inf(-1)}
	for k, r := range UniformGrid {
		var s float64
		for i := range traces {
			s += sums[i][k]
		}
		s /= float64(len(traces))
		t.Grid = append(t.Grid, TunePoint{R: r, Reward: s})
	}
	for k := len(t.Grid) - 1; k >= 0; k-- { // ties: the larger ratio
		if t.Grid[k].Reward > t.Reward {
			t.R, t.Reward = t.Grid[k].R, t.Grid[k].Reward
		}
	}
	t.Spec = uniformSpec(t.R, oo.Trigger, oo.Keep)
	return t, nil
}

// FamilyWarning says why applying m (read from path) to runs of family is
// outside what it was trained on: a family none of its training runs had,
// or a model file that records no family (written before trajmine recorded
// it); "" when the family is among its training families.
func (m *Model) FamilyWarning(path, family string) string {
	t := &m.Training
	if len(t.Families) == 0 {
		return fmt.Sprintf("tracer(model=%s) records no training family (written before trajmine recorded it): it may be applied to runs of %s it never saw; retrain to record it", path, family)
	}
	if _, ok := t.Families[family]; ok {
		return ""
	}
	var fams []string
	for _, f := range slices.Sorted(maps.Keys(t.Families)) {
		fams = append(fams, fmt.Sprintf("%s (%d runs)", f, t.Families[f]))
	}
	digest := t.Digest
	if len(digest) > 12 {
		digest = digest[:12]
	}
	return fmt.Sprintf("tracer(model=%s) was trained on %s, runs_sha256 %s…, not on %s: its retention there is extrapolated from other models' runs",
		path, strings.Join(fams, ", "), digest, family)
}
