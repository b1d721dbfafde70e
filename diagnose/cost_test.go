package diagnose

import (
	"math"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/schema"
)

func costNear(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestRunCost(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	sonnet := schema.Run{RunID: "r", Model: "claude-sonnet-4-5-20250929", ModelFamily: "claude-sonnet-4"}
	cases := []struct {
		name     string
		run      schema.Run
		usage    []schema.Usage
		usd      float64
		uncached float64
		source   string
		est      bool
	}{
		{
			// fresh 1M−600k−200k = 200k ×3 = 0.6; reads 600k×0.3 = 0.18; writes 200k×3.75 = 0.75; out 100k×15 = 1.5
			name:     "anthropic with cache",
			run:      sonnet,
			usage:    []schema.Usage{{InputTokens: 1_000_000, CacheReadTokens: 600_000, CacheWriteTokens: 200_000, OutputTokens: 100_000}},
			usd:      0.6 + 0.18 + 0.75 + 1.5,
			uncached: 3 + 1.5,
			source:   CostPriced,
		},
		{
			name:     "logged cost wins, uncached still priced",
			run:      func() schema.Run { r := sonnet; r.CostUSD = f(1.23); return r }(),
			usage:    []schema.Usage{{InputTokens: 1_000_000, OutputTokens: 0}},
			usd:      1.23,
			uncached: 3,
			source:   CostLogged,
		},
		{
			// gpt-5: 500k fresh ×1.25 = 0.625; 500k cached ×0.125 = 0.0625; 10k out (reasoning included) ×10 = 0.1
			name:     "openai reasoning inside output",
			run:      schema.Run{Model: "gpt-5-2025-08-07", ModelFamily: "gpt-5"},
			usage:    []schema.Usage{{InputTokens: 1_000_000, CacheReadTokens: 500_000, OutputTokens: 10_000, ReasoningTokens: 8_000}},
			usd:      0.625 + 0.0625 + 0.1,
			uncached: 1.25 + 0.1,
			source:   CostPriced,
		},
		{
			// per-row model: haiku side call priced as haiku 4.5, sonnet call as sonnet
			name: "row model overrides run model",
			run:  sonnet,
			usage: []schema.Usage{
				{Model: "claude-haiku-4-5-20251001", InputTokens: 1_000_000, OutputTokens: 1_000_000},
				{Model: "claude-sonnet-4-5-20250929", InputTokens: 1_000_000},
			},
			usd:      1 + 5 + 3,
			uncached: 1 + 5 + 3,
			source:   CostPriced,
		},
		{
			name:     "opus 4.5 more specific than family",
			run:      schema.Run{Model: "claude-opus-4-5-20251101", ModelFamily: "claude-opus-4"},
			usage:    []schema.Usage{{InputTokens: 2_000_000, CacheReadTokens: 1_000_000, OutputTokens: 100_000, Estimated: true}},
			usd:      5 + 0.5 + 2.5,
			uncached: 10 + 2.5,
			source:   CostPriced,
			est:      true,
		},
		{
			// a dotted version (OpenRouter's "anthropic/claude-opus-4.8")
			// is the dashed entry's (Opus 4.8: $5 / $25), not the shorter
			// "claude-opus-4" (Opus 4: $15 / $75) its text contains
			name:     "dotted model name",
			run:      schema.Run{Model: "anthropic/claude-opus-4.8-fast", ModelFamily: "claude-opus-4"},
			usage:    []schema.Usage{{InputTokens: 1_000_000, OutputTokens: 100_000}},
			usd:      5 + 2.5,
			uncached: 5 + 2.5,
			source:   CostPriced,
		},
		{
			// a dotted entry stays the longest match: gpt-5.1 ($1.25), the
			// dashed spelling's gpt-5 notwithstanding
			name:     "dotted entry",
			run:      schema.Run{Model: "gpt-5.2-codex", ModelFamily: "gpt-5.2"},
			usage:    []schema.Usage{{InputTokens: 1_000_000}},
			usd:      1.75,
			uncached: 1.75,
			source:   CostPriced,
		},
		{
			name:     "run totals when no usage rows",
			run:      schema.Run{Model: "o3", ModelFamily: "o3", InputTokens: 1_000_000, CacheReadTokens: 1_000_000, OutputTokens: 1_000_000},
			usd:      0.5 + 8,
			uncached: 2 + 8,
			source:   CostPriced,
		},
		{
			name:   "unknown model",
			run:    schema.Run{Model: "my-local-llm", ModelFamily: "my-local-llm"},
			usage:  []schema.Usage{{InputTokens: 10}},
			source: CostUnknown,
		},
		{
			name:   "no usage, no cost",
			run:    sonnet,
			source: CostUnknown,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := RunCost(c.run, c.usage, nil)
			if got.Source != c.source || !costNear(got.USD, c.usd) || !costNear(got.Uncached, c.uncached) || got.Estimated != c.est {
				t.Fatalf("got %+v, want usd=%v uncached=%v source=%s est=%v", got, c.usd, c.uncached, c.source, c.est)
			}
		})
	}
}

func TestLoadPrices(t *testing.T) {
	yml := "my-local-llm: {input: 1, output: 2, cache_read: 0.5, cache_write: 1}\nClaude-Sonnet-4: {input: 6, output: 30}\n"
	p, err := LoadPrices(strings.NewReader(yml))
	if err != nil {
		t.Fatal(err)
	}
	if got := p["my-local-llm"]; got != (Price{Input: 1, Output: 2, CacheRead: 0.5, CacheWrite: 1}) {
		t.Fatalf("added entry: %+v", got)
	}
	if got := p["claude-sonnet-4"]; got != (Price{Input: 6, Output: 30}) {
		t.Fatalf("replaced entry: %+v", got)
	}
	if p["gpt-5"] != knownPrices["gpt-5"] || knownPrices["claude-sonnet-4"].Input != 3 {
		t.Fatal("embedded table lost or mutated")
	}
	c := RunCost(schema.Run{Model: "my-local-llm", ModelFamily: "my-local-llm"}, []schema.Usage{{InputTokens: 2_000_000, CacheReadTokens: 1_000_000, OutputTokens: 1_000_000}}, p)
	if c.Source != CostPriced || !costNear(c.USD, 1+0.5+2) {
		t.Fatalf("priced with file: %+v", c)
	}
	j, err := LoadPrices(strings.NewReader(`{"gpt-5": {"input": 2, "output": 20, "cache_read": 0.2, "cache_write": 2}}`))
	if err != nil || j["gpt-5"] != (Price{Input: 2, Output: 20, CacheRead: 0.2, CacheWrite: 2}) {
		t.Fatalf("json: %v %+v", err, j["gpt-5"])
	}
	if _, err := LoadPrices(strings.NewReader("x: {input: -1}")); err == nil {
		t.Fatal("negative price accepted")
	}
	if _, err := LoadPrices(strings.NewReader("x: [")); err == nil {
		t.Fatal("bad yaml accepted")
	}
}

func TestCostPerSolved(t *testing.T) {
	yes, no := true, false
	priced := func(v float64) Cost { return Cost{USD: v, Source: CostPriced} }
	cases := []struct {
		name  string
		costs []Cost
		runs  []schema.Run
		want  PerSolved
		usd   float64 // NaN: want nil
	}{
		{
			name:  "failed spend counts, unknown outcome excluded",
			costs: []Cost{priced(1), priced(2), priced(3), priced(100)},
			runs:  []schema.Run{{Resolved: &yes}, {Resolved: &no}, {Resolved: &yes}, {}},
			want:  PerSolved{SpendUSD: 6, Resolved: 2, Failed: 1, Excluded: 1},
			usd:   3,
		},
		{
			name:  "unpriced run adds nothing",
			costs: []Cost{priced(4), {Source: CostUnknown}},
			runs:  []schema.Run{{Resolved: &yes}, {Resolved: &no}},
			want:  PerSolved{SpendUSD: 4, Resolved: 1, Failed: 1, Unpriced: 1},
			usd:   4,
		},
		{
			name:  "none resolved",
			costs: []Cost{priced(4)},
			runs:  []schema.Run{{Resolved: &no}},
			want:  PerSolved{SpendUSD: 4, Failed: 1},
			usd:   math.NaN(),
		},
		{name: "empty", usd: math.NaN()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := CostPerSolved(c.costs, c.runs)
			u := got.USD
			got.USD = nil
			if got != c.want {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
			if math.IsNaN(c.usd) != (u == nil) || (u != nil && !costNear(*u, c.usd)) {
				t.Fatalf("usd %v, want %v", u, c.usd)
			}
		})
	}
}

func TestOwnCost(t *testing.T) {
	logged := 9.99
	run := schema.Run{RunID: "b", Model: "claude-opus-4-6", CostUSD: &logged}
	usage := []schema.Usage{
		{Turn: 0, Model: "claude-opus-4-6", RequestID: "msg_a", InputTokens: 2_000_000, OutputTokens: 1_000_000}, // a copy
		{Turn: 1, Model: "claude-opus-4-6", RequestID: "msg_new", InputTokens: 1010, CacheReadTokens: 1000, OutputTokens: 50},
	}
	copied := map[string]bool{"msg_a": true}
	tests := []struct {
		name   string
		usage  []schema.Usage
		copied map[string]bool
		usd    float64
		source string
	}{
		// Opus 4.6: $5 input, $0.5 cache read, $25 output per million; the
		// own row: 10 fresh × 5 + 1000 × 0.5 + 50 × 25 = 50 + 500 + 1250 =
		// 1800 per million = $0.0018; the logged $9.99 covers the copy too
		{"one copied, one own row", usage, copied, 0.0018, CostPriced},
		{"every row copied", usage[:1], copied, 0, CostPriced},
		// no copies: the logged cost stands
		{"no copies", usage, nil, 9.99, CostLogged},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := OwnCost(run, tc.usage, nil, tc.copied)
			if math.Abs(c.USD-tc.usd) > 1e-12 || c.Source != tc.source {
				t.Errorf("OwnCost = $%v (%s), want $%v (%s)", c.USD, c.Source, tc.usd, tc.source)
			}
		})
	}
	if got := OwnUsage(usage, copied); len(got) != 1 || got[0].RequestID != "msg_new" {
		t.Errorf("OwnUsage = %+v, want the msg_new row", got)
	}
}
