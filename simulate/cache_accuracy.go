package simulate

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/internal/stats"
	"github.com/trajmine/trajmine/internal/textfmt"
	"github.com/trajmine/trajmine/schema"
)

// The cache model against the logs: on every logged call of a run whose
// log states cache reads or writes (Trace.CacheStated), the as-logged
// replay's predicted cache read is compared with the logged one, as a
// share of the call's logged input:
//
//	error = (predicted read − logged read) / logged input
//
// under the run's provider rule (Trace.Cache) and, for comparison, under
// ideal prefix caching (the rule before provider rules existed) on the
// same calls. Where the log states cache writes too (Claude Code's
// cache_creation_input_tokens: a run with a non-zero one), the predicted
// writes are checked the same way. The cost of what ran is priced three
// ways (CacheCosts): the as-logged replay under the rule, the same under
// ideal caching, and the log's own usage × the price table (its logged
// reads and writes); and, where the log states a cost (runs.cost_usd), that.

// CacheCheck is one run's check of the cache model against its log.
type CacheCheck struct {
	// per checked call: (predicted − logged read) / logged input, under
	// the run's rule and under ideal prefix caching
	Err, IdealErr []float64
	// Σ over the checked calls
	Predicted, Ideal, Logged int64
	// WriteErr: per call whose log states writes, (predicted − logged
	// write) / logged input; Σ predicted and logged writes over them
	WriteErr                    []float64
	PredictedWrite, LoggedWrite int64
	// Cost is what ran priced four ways; nil when the run's model or
	// usage has no price
	Cost *CacheCost
}

// CheckCache compares tr's as-logged replay with the cache reads and
// writes its log states (no call is checked when the log states none)
// and prices what ran (CacheCost) with prices (nil: the embedded table);
// run and usage are the run's record and usage rows, tr its trace.
func CheckCache(tr *Trace, run schema.Run, usage []schema.Usage, prices diagnose.Prices) CacheCheck {
	var c CacheCheck
	if !tr.CacheStated {
		return c
	}
	model := tr.asLoggedCalls()
	ideal := tr.asLoggedCallsWith(CacheModel{})
	if cost, ok := cacheCosts(tr, model, ideal, run, usage, prices); ok {
		c.Cost = &cost
	}
	writes := false
	for _, w := range tr.CacheWrite {
		writes = writes || w > 0
	}
	for t := range model {
		if t >= len(tr.CacheRead) || tr.CacheRead[t] < 0 || tr.Logged[t] <= 0 {
			continue
		}
		y := float64(tr.Logged[t])
		c.Err = append(c.Err, float64(model[t].CachedTokens-tr.CacheRead[t])/y)
		c.IdealErr = append(c.IdealErr, float64(ideal[t].CachedTokens-tr.CacheRead[t])/y)
		c.Predicted += model[t].CachedTokens
		c.Ideal += ideal[t].CachedTokens
		c.Logged += tr.CacheRead[t]
		if writes && tr.CacheWrite[t] >= 0 {
			c.WriteErr = append(c.WriteErr, float64(model[t].CacheWriteTokens-tr.CacheWrite[t])/y)
			c.PredictedWrite += model[t].CacheWriteTokens
			c.LoggedWrite += tr.CacheWrite[t]
		}
	}
	return c
}

// CacheCost is one run's cost of what ran, in USD, four ways.
type CacheCost struct {
	Modelled float64 // the as-logged replay priced with its predicted reads and writes (Trace.Cache)
	Ideal    float64 // the same under ideal prefix caching
	Usage    float64 // the log's own usage × the price table (logged reads and writes)
	// Stated is the log's own cost (runs.cost_usd); nil when it states none
	Stated *float64
}

// cacheCosts prices what ran (see CacheCost) with prices (nil: the
// embedded table), model and ideal being the as-logged calls under the
// run's rule and under ideal caching; ok is false when the run's model
// has no price or its usage cannot be priced.
func cacheCosts(tr *Trace, model, ideal []CallResult, run schema.Run, usage []schema.Usage, prices diagnose.Prices) (c CacheCost, ok bool) {
	if prices == nil {
		prices = diagnose.DefaultPrices()
	}
	p, ok := prices.Lookup(run.Model, run.ModelFamily)
	if !ok {
		return c, false
	}
	logged := run
	logged.CostUSD = nil
	u := diagnose.RunCost(logged, usage, prices)
	if u.Source != diagnose.CostPriced {
		return c, false
	}
	c.Usage = u.USD
	c.Modelled = asLoggedRunCost(tr, model, tr.Cache.Price(p))
	c.Ideal = asLoggedRunCost(tr, ideal, p)
	if run.CostUSD != nil && !math.IsNaN(*run.CostUSD) {
		v := *run.CostUSD
		c.Stated = &v
	}
	return c, true
}

// asLoggedRunCost prices the as-logged calls of tr with caching (Cost).
func asLoggedRunCost(tr *Trace, calls []CallResult, p diagnose.Price) float64 {
	var r RunResult
	for t, c := range calls {
		r.PromptTokens += c.PromptTokens
		r.CachedTokens += c.CachedTokens
		r.UncachedTokens += c.uncached()
		r.SummarizerIn += c.SummarizerIn
		r.SummarizerOut += c.SummarizerOut
		r.OutputTokens += int64(tr.Output[t])
	}
	_, cached := Cost(&r, p)
	return cached
}

// CacheAccuracyRow is the cache model's accuracy for one source format ×
// model family (Format "*": every row pooled).
type CacheAccuracyRow struct {
	Format string `json:"source_format"`
	Family string `json:"model_family"`
	Rule   string `json:"cache_rule"` // CacheModel.String of the rows' runs ("mixed" when they differ)
	Runs   int    `json:"runs"`
	Calls  int    `json:"calls"`
	// predicted reads against the logged reads, |error| as a share of the
	// logged input: median, p90 (nearest rank), signed median; and
	// Σ predicted / Σ logged
	MedianAbs    float64 `json:"median_abs_error"`
	P90Abs       float64 `json:"p90_abs_error"`
	MedianSigned float64 `json:"median_signed_error"`
	ReadRatio    float64 `json:"read_ratio"`
	// the same under ideal prefix caching (before the provider rules)
	IdealMedianAbs float64 `json:"ideal_median_abs_error"`
	IdealP90Abs    float64 `json:"ideal_p90_abs_error"`
	IdealReadRatio float64 `json:"ideal_read_ratio"`
	// predicted writes where the log states writes (nil when none)
	WriteCalls     int      `json:"write_calls"`
	WriteMedianAbs *float64 `json:"write_median_abs_error"`
	WriteRatio     *float64 `json:"write_ratio"`
	// cost of what ran over the PricedRuns: modelled (the rule), ideal,
	// and the log's usage × the price table; over the StatedRuns, the
	// modelled cost and the cost the logs state
	PricedRuns     int     `json:"priced_runs"`
	ModelledUSD    float64 `json:"modelled_usd"`
	IdealUSD       float64 `json:"ideal_usd"`
	UsageUSD       float64 `json:"usage_usd"`
	StatedRuns     int     `json:"stated_runs"`
	ModelledStated float64 `json:"modelled_stated_usd"`
	StatedUSD      float64 `json:"stated_usd"`
}

// CacheAccuracy accumulates CacheChecks and CacheCosts per format ×
// family.
type CacheAccuracy struct {
	groups map[[2]string]*cacheAcc
}

type cacheAcc struct {
	rule                 string
	runs                 int
	err, ideal, write    []float64
	pred, idl, logged    int64
	pw, lw               int64
	priced, stated       int
	mod, idealUSD, usage float64
	modStated, statedUSD float64
}

// Add records one run: its check (and costs, when priced) under cache
// rule. A run with no checked call is left out.
func (a *CacheAccuracy) Add(format, family string, rule CacheModel, c CacheCheck) {
	if len(c.Err) == 0 {
		return
	}
	if a.groups == nil {
		a.groups = map[[2]string]*cacheAcc{}
	}
	k := [2]string{format, family}
	g := a.groups[k]
	if g == nil {
		g = &cacheAcc{rule: rule.String()}
		a.groups[k] = g
	}
	if g.rule != rule.String() {
		g.rule = "mixed"
	}
	g.runs++
	g.err = append(g.err, c.Err...)
	g.ideal = append(g.ideal, c.IdealErr...)
	g.write = append(g.write, c.WriteErr...)
	g.pred += c.Predicted
	g.idl += c.Ideal
	g.logged += c.Logged
	g.pw += c.PredictedWrite
	g.lw += c.LoggedWrite
	if cost := c.Cost; cost != nil {
		g.priced++
		g.mod += cost.Modelled
		g.idealUSD += cost.Ideal
		g.usage += cost.Usage
		if cost.Stated != nil {
			g.stated++
			g.modStated += cost.Modelled
			g.statedUSD += *cost.Stated
		}
	}
}

// Rows returns the table ordered by format and family, plus a pooled row
// (Format "*") when there is more than one group.
func (a *CacheAccuracy) Rows() []CacheAccuracyRow {
	var out []CacheAccuracyRow
	var all cacheAcc
	keys := make([][2]string, 0, len(a.groups))
	for k := range a.groups {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y [2]string) int { return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1])) })
	for i, k := range keys {
		g := a.groups[k]
		out = append(out, g.row(k[0], k[1]))
		if i == 0 {
			all.rule = g.rule
		} else if all.rule != g.rule {
			all.rule = "mixed"
		}
		all.runs += g.runs
		all.err = append(all.err, g.err...)
		all.ideal = append(all.ideal, g.ideal...)
		all.write = append(all.write, g.write...)
		all.pred += g.pred
		all.idl += g.idl
		all.logged += g.logged
		all.pw += g.pw
		all.lw += g.lw
		all.priced += g.priced
		all.mod += g.mod
		all.idealUSD += g.idealUSD
		all.usage += g.usage
		all.stated += g.stated
		all.modStated += g.modStated
		all.statedUSD += g.statedUSD
	}
	if len(out) > 1 {
		out = append(out, all.row("*", "*"))
	}
	return out
}

// p90 is the nearest-rank 90th percentile of sorted xs.
func p90(sorted []float64) float64 {
	return sorted[min(len(sorted)-1, int(math.Ceil(0.9*float64(len(sorted))))-1)]
}

func ratio(a, b int64) float64 {
	if b == 0 {
		if a == 0 {
			return 1
		}
		return math.Inf(1)
	}
	return float64(a) / float64(b)
}

func (g *cacheAcc) row(format, family string) CacheAccuracyRow {
	abs, iabs := absAll(g.err), absAll(g.ideal)
	signed := slices.Clone(g.err)
	slices.Sort(signed)
	r := CacheAccuracyRow{Format: format, Family: family, Rule: g.rule, Runs: g.runs, Calls: len(g.err),
		MedianAbs: stats.Median(abs), P90Abs: p90(abs), MedianSigned: stats.Median(signed), ReadRatio: ratio(g.pred, g.logged),
		IdealMedianAbs: stats.Median(iabs), IdealP90Abs: p90(iabs), IdealReadRatio: ratio(g.idl, g.logged),
		WriteCalls: len(g.write), PricedRuns: g.priced, ModelledUSD: g.mod, IdealUSD: g.idealUSD, UsageUSD: g.usage,
		StatedRuns: g.stated, ModelledStated: g.modStated, StatedUSD: g.statedUSD}
	if len(g.write) > 0 {
		r.WriteMedianAbs = finite(stats.Median(absAll(g.write)))
		r.WriteRatio = finite(ratio(g.pw, g.lw))
	}
	if math.IsInf(r.ReadRatio, 0) {
		r.ReadRatio = 0
	}
	if math.IsInf(r.IdealReadRatio, 0) {
		r.IdealReadRatio = 0
	}
	return r
}

// CacheAccuracyText says in one line how the cache model's predicted
// reads track the logged ones (the last row of rows: every format and
// model), before and after the provider rules, and the cost of what ran
// against the logs'.
func CacheAccuracyText(rows []CacheAccuracyRow) string {
	if len(rows) == 0 {
		return "cache model: no run's log states cache reads or writes to check against"
	}
	a := rows[len(rows)-1]
	var b strings.Builder
	fmt.Fprintf(&b, "cache model (as-logged replay against the logged cache reads, share of input): median |error| %.1f%% (p90 %.1f%%), Σ %.2f× the logged reads over %s in %s; ideal prefix caching: %.1f%% (p90 %.1f%%), %.2f×",
		100*a.MedianAbs, 100*a.P90Abs, a.ReadRatio, textfmt.CountOf(a.Calls, "call"), textfmt.CountOf(a.Runs, "run"),
		100*a.IdealMedianAbs, 100*a.IdealP90Abs, a.IdealReadRatio)
	if a.PricedRuns > 0 {
		fmt.Fprintf(&b, "; cost of what ran %s modelled against %s from the logged usage × prices (%s)", textfmt.Dollars(a.ModelledUSD), textfmt.Dollars(a.UsageUSD), textfmt.CountOf(a.PricedRuns, "run"))
	}
	if a.StatedRuns > 0 {
		fmt.Fprintf(&b, ", %s against the %s the logs state (%s)", textfmt.Dollars(a.ModelledStated), textfmt.Dollars(a.StatedUSD), textfmt.CountOf(a.StatedRuns, "run"))
	}
	return b.String()
}
