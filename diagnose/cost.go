package diagnose

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/trajmine/trajmine/schema"
)

// Cost sources.
const (
	CostLogged  = "logged"  // the run's own cost_usd
	CostPriced  = "priced"  // usage × the price table
	CostUnknown = "unknown" // no logged cost and no price (or no usage) for the run
)

// Price is one model's list price in USD per million tokens.
type Price struct {
	Input      float64 `json:"input" yaml:"input"`             // uncached input
	Output     float64 `json:"output" yaml:"output"`           // output, reasoning included
	CacheRead  float64 `json:"cache_read" yaml:"cache_read"`   // cache hit
	CacheWrite float64 `json:"cache_write" yaml:"cache_write"` // cache write, 5-minute TTL where the vendor has tiers
	// CacheWrite1h is the cache-write price at Anthropic's 1-hour TTL
	// (2× input); 0 where the vendor has no such tier.
	CacheWrite1h float64 `json:"cache_write_1h,omitempty" yaml:"cache_write_1h"`
}

// Prices maps a model family (as ingest.ModelFamily names it) or a more
// specific model-name prefix ("claude-opus-4-5") to its price. Lookup prefers
// the most specific entry; see Prices.Lookup.
type Prices map[string]Price

// knownPrices is the embedded price table: standard (non-batch, non-priority)
// API list prices, short-context tier where a vendor has two. Vendors that do
// not charge for cache writes (OpenAI, DeepSeek) or bill cache storage per hour
// instead (Google) have CacheWrite = Input. Override with LoadPrices.
var knownPrices = Prices{
	// Anthropic: platform.claude.com/docs/en/about-claude/pricing ("Base input | 5m cache writes | 1h cache writes | Cache hits | Output", per MTok;
	// 5-minute writes 1.25×, 1-hour writes 2×, hits 0.1× the base input)
	"claude-opus-4":     {Input: 15, Output: 75, CacheRead: 1.5, CacheWrite: 18.75, CacheWrite1h: 30}, // Opus 4 / 4.1
	"claude-opus-4-5":   {Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25, CacheWrite1h: 10},   // same page, Opus 4.5
	"claude-opus-4-6":   {Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25, CacheWrite1h: 10},   // same page, Opus 4.6
	"claude-opus-4-7":   {Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25, CacheWrite1h: 10},   // same page, Opus 4.7
	"claude-opus-4-8":   {Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25, CacheWrite1h: 10},   // same page, Opus 4.8
	"claude-sonnet-4":   {Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75, CacheWrite1h: 6},    // same page, Sonnet 4 / 4.5 / 4.6 (≤ 200K prompt)
	"claude-3.7-sonnet": {Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75, CacheWrite1h: 6},    // same page, Sonnet 3.7
	"claude-3.5-sonnet": {Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75, CacheWrite1h: 6},    // same page (deprecated models), Sonnet 3.5
	"claude-haiku-4":    {Input: 1, Output: 5, CacheRead: 0.1, CacheWrite: 1.25, CacheWrite1h: 2},     // same page, Haiku 4.5
	"claude-3.5-haiku":  {Input: 0.8, Output: 4, CacheRead: 0.08, CacheWrite: 1, CacheWrite1h: 1.6},   // same page, Haiku 3.5
	"claude-3-opus":     {Input: 15, Output: 75, CacheRead: 1.5, CacheWrite: 18.75, CacheWrite1h: 30}, // same page, Opus 3
	"claude-3-haiku":    {Input: 0.25, Output: 1.25, CacheRead: 0.03, CacheWrite: 0.3, CacheWrite1h: 0.5},
	// OpenAI: platform.openai.com/docs/pricing ("Input | Cached input | Output", per 1M tokens; no cache-write charge)
	"gpt-5":        {Input: 1.25, Output: 10, CacheRead: 0.125, CacheWrite: 1.25},
	"gpt-5-mini":   {Input: 0.25, Output: 2, CacheRead: 0.025, CacheWrite: 0.25},
	"gpt-5-nano":   {Input: 0.05, Output: 0.4, CacheRead: 0.005, CacheWrite: 0.05},
	"gpt-5.1":      {Input: 1.25, Output: 10, CacheRead: 0.125, CacheWrite: 1.25},  // same page, gpt-5.1 and gpt-5.1-codex
	"gpt-5.2":      {Input: 1.75, Output: 14, CacheRead: 0.175, CacheWrite: 1.75},  // same page, gpt-5.2
	"gpt-4.1":      {Input: 2, Output: 8, CacheRead: 0.5, CacheWrite: 2},           // same page, gpt-4.1 (75% cache discount)
	"gpt-4.1-mini": {Input: 0.4, Output: 1.6, CacheRead: 0.1, CacheWrite: 0.4},     // same page
	"gpt-4.1-nano": {Input: 0.1, Output: 0.4, CacheRead: 0.025, CacheWrite: 0.1},   // same page
	"gpt-4o":       {Input: 2.5, Output: 10, CacheRead: 1.25, CacheWrite: 2.5},     // same page, gpt-4o (50% cache discount)
	"gpt-4o-mini":  {Input: 0.15, Output: 0.6, CacheRead: 0.075, CacheWrite: 0.15}, // same page
	"o3":           {Input: 2, Output: 8, CacheRead: 0.5, CacheWrite: 2},           // same page, o3
	"o3-mini":      {Input: 1.1, Output: 4.4, CacheRead: 0.55, CacheWrite: 1.1},    // same page, o3-mini
	"o4-mini":      {Input: 1.1, Output: 4.4, CacheRead: 0.275, CacheWrite: 1.1},   // same page, o4-mini
	// Google: ai.google.dev/gemini-api/docs/pricing (paid tier, prompts ≤ 200K; "context caching" price as cache read)
	"gemini-2.5-pro":        {Input: 1.25, Output: 10, CacheRead: 0.125, CacheWrite: 1.25},
	"gemini-2.5-flash":      {Input: 0.3, Output: 2.5, CacheRead: 0.03, CacheWrite: 0.3},
	"gemini-2.5-flash-lite": {Input: 0.1, Output: 0.4, CacheRead: 0.01, CacheWrite: 0.1},
	"gemini-2.0-flash":      {Input: 0.1, Output: 0.4, CacheRead: 0.025, CacheWrite: 0.1},
	"gemini-3-pro":          {Input: 2, Output: 12, CacheRead: 0.2, CacheWrite: 2}, // same page, gemini-3-pro-preview
	// DeepSeek: api-docs.deepseek.com/quick_start/pricing (deepseek-chat / -reasoner: "cache hit | cache miss | output")
	"deepseek": {Input: 0.28, Output: 0.42, CacheRead: 0.028, CacheWrite: 0.28},
}

// DefaultPrices returns a copy of the embedded price table.
func DefaultPrices() Prices {
	p := make(Prices, len(knownPrices))
	for k, v := range knownPrices {
		p[k] = v
	}
	return p
}

// LoadPrices reads a price file and returns the embedded table with the
// file's entries added or replacing the embedded ones. The file is YAML or
// JSON (JSON is YAML): a map from model family (or model-name prefix) to
// prices in USD per million tokens, e.g.
//
//	claude-sonnet-4: {input: 3, output: 15, cache_read: 0.3, cache_write: 3.75}
//	my-local-model:  {input: 0, output: 0}
//
// An entry replaces the embedded one as a whole; omitted fields are 0.
// Negative prices are an error.
func LoadPrices(r io.Reader) (Prices, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("price file: %w", err)
	}
	var file map[string]Price
	if err := yaml.Unmarshal(b, &file); err != nil {
		return nil, fmt.Errorf("price file: %w", err)
	}
	p := DefaultPrices()
	for k, v := range file {
		if v.Input < 0 || v.Output < 0 || v.CacheRead < 0 || v.CacheWrite < 0 || v.CacheWrite1h < 0 {
			return nil, fmt.Errorf("price file: %s: negative price", k)
		}
		p[strings.ToLower(strings.TrimSpace(k))] = v
	}
	return p, nil
}

// Lookup returns the price for a model name and its family: the entry named
// exactly by the lower-cased model, else the longest entry (of at least 4
// characters) the model name contains ("claude-opus-4-5" in
// "claude-opus-4-5-20251101") as it is or with its dots as dashes
// ("claude-opus-4-8" in "anthropic/claude-opus-4.8", where the name itself
// contains only the shorter "claude-opus-4"), else the family's entry.
func (p Prices) Lookup(model, family string) (Price, bool) {
	m := strings.ToLower(strings.TrimSpace(model))
	if m != "" {
		if v, ok := p[m]; ok {
			return v, true
		}
		dashed := strings.ReplaceAll(m, ".", "-")
		best := ""
		for k := range p {
			if len(k) >= 4 && (len(k) > len(best) || len(k) == len(best) && k < best) && (strings.Contains(m, k) || strings.Contains(dashed, k)) {
				best = k
			}
		}
		if best != "" {
			return p[best], true
		}
	}
	v, ok := p[family]
	return v, ok
}

// Cost is one run's spend.
type Cost struct {
	USD       float64 `json:"usd"`
	Source    string  `json:"source"`    // CostLogged, CostPriced or CostUnknown
	Uncached  float64 `json:"uncached"`  // the same tokens priced as if nothing was cached; 0 when not priceable
	Estimated bool    `json:"estimated"` // priced from estimated usage (a usage row or the run marked estimated)
	Detail    string  `json:"detail"`    // why the cost is unknown, or which entries priced it
}

// RunCost returns run's spend: the logged cost_usd when the run has one, else
// the usage priced with prices (nil means the embedded table), else unknown.
//
// Each usage row is priced with the entry for its own model (a Claude Code run
// calls Haiku for side tasks), falling back to the run's model and family;
// when there are no usage rows, the run's token totals are priced instead. For
// one row (or the totals), with prices per million tokens:
//
//	USD = ((input − cache_read − cache_write) × Input
//	     + cache_read × CacheRead
//	     + cache_write × CacheWrite
//	     + output × Output) / 1e6
//
// where input includes cache reads and writes (schema.Usage). Reasoning tokens
// are not added: OpenAI's output_tokens already include them (and Anthropic
// bills thinking as output), so output is assumed to contain reasoning_tokens.
// Uncached is (input × Input + output × Output) / 1e6: what the same tokens
// would cost with no cache hits and no cache-write premium. A logged cost
// keeps Uncached when the usage can be priced too.
//
// A row whose model has no price makes the whole run unknown (no partial sums).
func RunCost(run schema.Run, usage []schema.Usage, prices Prices) Cost {
	if prices == nil {
		prices = knownPrices
	}
	priced := priceUsage(run, usage, prices)
	if run.CostUSD != nil && !math.IsNaN(*run.CostUSD) {
		c := Cost{USD: *run.CostUSD, Source: CostLogged, Detail: "cost_usd from the log"}
		if priced.Source == CostPriced {
			c.Uncached = priced.Uncached
		}
		return c
	}
	return priced
}

func priceUsage(run schema.Run, usage []schema.Usage, prices Prices) Cost {
	if len(usage) == 0 {
		if run.InputTokens == 0 && run.OutputTokens == 0 {
			return Cost{Source: CostUnknown, Detail: "no logged cost and no usage"}
		}
		usage = []schema.Usage{{
			Model: run.Model, InputTokens: run.InputTokens, OutputTokens: run.OutputTokens,
			CacheReadTokens: run.CacheReadTokens, CacheWriteTokens: run.CacheWriteTokens,
			Estimated: run.UsageEstimated,
		}}
	}
	c := Cost{Source: CostPriced, Detail: "usage × price table"}
	for _, u := range usage {
		p, ok := prices.Lookup(u.Model, "")
		if !ok {
			p, ok = prices.Lookup(run.Model, run.ModelFamily)
		}
		if !ok {
			m := u.Model
			if m == "" {
				m = run.Model
			}
			return Cost{Source: CostUnknown, Detail: fmt.Sprintf("no price for model %q (family %q)", m, run.ModelFamily)}
		}
		in, cr, cw, out := float64(u.InputTokens), float64(u.CacheReadTokens), float64(u.CacheWriteTokens), float64(u.OutputTokens)
		fresh := max(in-cr-cw, 0)
		c.USD += (fresh*p.Input + cr*p.CacheRead + cw*p.CacheWrite + out*p.Output) / 1e6
		c.Uncached += (in*p.Input + out*p.Output) / 1e6
		c.Estimated = c.Estimated || u.Estimated
	}
	return c
}

// PerSolved is the spend per resolved task over a set of runs.
type PerSolved struct {
	SpendUSD float64  `json:"spend_usd"` // Σ cost over runs with a known outcome, failed runs included
	Resolved int      `json:"resolved"`
	Failed   int      `json:"failed"`
	Excluded int      `json:"excluded"` // runs with unknown outcome (resolved is NULL): in neither sum
	Unpriced int      `json:"unpriced"` // counted runs whose cost is unknown: they add 0 to SpendUSD
	USD      *float64 `json:"usd"`      // SpendUSD / Resolved; nil when no run was resolved
}

// CostPerSolved divides the total spend of all runs with a known outcome —
// failed runs' spend included, since it was paid to get the solved ones — by
// the number of resolved runs. costs[i] is the cost of runs[i]. Runs whose
// outcome is unknown (Resolved == nil) are excluded from both the spend and
// the count. Runs with an unknown cost count as resolved/failed but add no
// spend; Unpriced says how many. USD is nil when no run was resolved (never
// NaN or Inf).
func CostPerSolved(costs []Cost, runs []schema.Run) PerSolved {
	var ps PerSolved
	for i, r := range runs {
		if r.Resolved == nil {
			ps.Excluded++
			continue
		}
		if *r.Resolved {
			ps.Resolved++
		} else {
			ps.Failed++
		}
		if i >= len(costs) || costs[i].Source == CostUnknown {
			ps.Unpriced++
			continue
		}
		ps.SpendUSD += costs[i].USD
	}
	if ps.Resolved > 0 {
		v := ps.SpendUSD / float64(ps.Resolved)
		ps.USD = &v
	}
	return ps
}

// OwnUsage returns the usage rows of usage whose request id is not in
// copied: the calls a resumed or forked run made itself, not the copies of
// its origin's (see store.CopiesSQL).
func OwnUsage(usage []schema.Usage, copied map[string]bool) []schema.Usage {
	if len(copied) == 0 {
		return usage
	}
	own := make([]schema.Usage, 0, len(usage))
	for _, u := range usage {
		if u.RequestID == "" || !copied[u.RequestID] {
			own = append(own, u)
		}
	}
	return own
}

// OwnCost is RunCost of a run some of whose usage rows are copies of
// another run's (copied request ids): one API response is paid once, by its
// origin. With no copies it is RunCost. Otherwise the run is priced from its
// own rows (OwnUsage) and a logged run cost is not used, since it covers the
// copied calls too; a run whose every row is a copy costs 0.
func OwnCost(run schema.Run, usage []schema.Usage, prices Prices, copied map[string]bool) Cost {
	if len(copied) == 0 {
		return RunCost(run, usage, prices)
	}
	own := OwnUsage(usage, copied)
	if len(own) == 0 {
		return Cost{Source: CostPriced, Detail: fmt.Sprintf("all %d calls are copies of another run's (counted there)", len(usage))}
	}
	if prices == nil {
		prices = knownPrices
	}
	c := priceUsage(run, own, prices)
	if c.Source == CostPriced {
		c.Detail = fmt.Sprintf("own usage × price table (%d copied calls counted in their origin run)", len(usage)-len(own))
	}
	return c
}
