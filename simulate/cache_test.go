package simulate

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/trajmine/trajmine/diagnose"
)

// cacheTrace is a run of model whose call t's prompt is a system prompt
// of system tokens plus adds[0] + … + adds[t] (call t adds one tool
// result of adds[t] tokens, none when 0), call t logged at seconds[t]
// after 12:00 (nil: no timestamps). Its cache rule is CacheModelFor the
// model's.
func cacheTrace(model string, system int32, adds []int32, seconds []int64) *Trace {
	tr := &Trace{RunID: "c", Model: model, NCalls: len(adds), Finished: true, Cache: CacheModelFor(model, "")}
	tr.Items = append(tr.Items, Item{Seq: 0, Since: 0, Kind: ItemSystem, Head: true, Call: -1, Tokens: system, Chars: 4 * system})
	for t, a := range adds {
		if a > 0 {
			tr.Items = append(tr.Items, Item{Seq: int64(t + 1), Since: int32(t), Kind: ItemToolResult, Call: -1, Tokens: a, Chars: 4 * a, Key: "k" + string(rune('a'+t))})
		}
	}
	if seconds != nil {
		noon := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC).UnixMilli()
		for _, s := range seconds {
			tr.CallTime = append(tr.CallTime, noon+1000*s)
		}
	}
	tr.Finalize()
	return tr
}

// TestCacheRules plants one case per provider rule and checks the
// as-logged replay's predicted reads and writes per call, computed by
// hand from the rules (see cache.go).
func TestCacheRules(t *testing.T) {
	tests := []struct {
		name          string
		model         string
		system        int32
		adds          []int32
		seconds       []int64
		ops           []LoggedOp
		reads, writes []int64
	}{
		// OpenAI: a 1,500-token prompt sharing a 1,300-token prefix with
		// the previous one reads ⌊1,300 / 128⌋ × 128 = 1,280; nothing is
		// written (no write charge)
		{"openai 1,300 shared of 1,500", "gpt-5", 1300, []int32{0, 200}, []int64{0, 10}, nil, []int64{0, 1280}, []int64{0, 0}},
		// prompts under 1,024 tokens are not cached
		{"openai prompt under 1,024", "gpt-4o", 600, []int32{0, 300}, []int64{0, 10}, nil, []int64{0, 0}, []int64{0, 0}},
		// a 1,500-token prompt sharing 1,000 tokens: under the 1,024-token minimum hit
		{"openai shared prefix under 1,024", "gpt-5", 1000, []int32{0, 500}, nil, nil, []int64{0, 0}, []int64{0, 0}},
		// 2,000 shared reads 15 × 128 = 1,920; then 6 minutes without a
		// call (over the 5-minute TTL): nothing
		{"openai expires after 6 minutes", "gpt-5", 2000, []int32{0, 500, 500}, []int64{0, 60, 420}, nil, []int64{0, 1920, 0}, []int64{0, 0, 0}},
		// Anthropic within the 5-minute TTL: each call reads the previous
		// prompt (5,000, then 5,500) and writes the rest
		{"anthropic within the TTL", "claude-sonnet-4-5-20250929", 2000, []int32{3000, 500, 500}, []int64{0, 30, 60}, nil,
			[]int64{0, 5000, 5500}, []int64{5000, 500, 500}},
		// after a 6-minute gap the 5-minute cache has expired: the call
		// reads nothing and writes its whole 6,000-token prompt
		{"anthropic expires after 6 minutes", "claude-sonnet-4-5-20250929", 2000, []int32{3000, 500, 500}, []int64{0, 30, 390}, nil,
			[]int64{0, 5000, 0}, []int64{5000, 500, 6000}},
		// Opus 4.5's minimum is 4,096 tokens: the 3,000- and 3,500-token
		// prompts are neither written nor read; the 5,500-token one finds
		// no entry and writes itself
		{"anthropic under the minimum", "claude-opus-4-5-20251101", 2000, []int32{1000, 500, 2000}, nil, nil,
			[]int64{0, 0, 0}, []int64{0, 0, 5500}},
		// the log hides call 1's 1,000-token result at call 3 (a 40-token
		// placeholder): the prompt (4,040) is unchanged up to 3,000, but
		// the only entry at or under 3,000 is the system prompt's (2,000;
		// the others end at 4,000 and 5,000): read 2,000, write 2,040
		{"anthropic reads at a breakpoint", "claude-sonnet-4-20250514", 2000, []int32{1000, 1000, 1000, 0}, nil,
			[]LoggedOp{{Item: 2, From: 3}}, []int64{0, 3000, 4000, 2000}, []int64{3000, 1000, 1000, 2040}},
		// Gemini 3 Pro's minimum is 4,096: a 5,000-token prompt after a
		// 3,000-token one reads nothing (nothing was cached), the next
		// (6,000) reads the 5,000 before it; no write charge
		{"google minimum", "google/gemini-3-pro-preview", 3000, []int32{0, 2000, 1000}, []int64{0, 5, 10}, nil,
			[]int64{0, 0, 5000}, []int64{0, 0, 0}},
		// Gemini 2.5 Flash's minimum is 1,024
		{"google flash", "gemini-2.5-flash", 1500, []int32{0, 500}, nil, nil, []int64{0, 1500}, []int64{0, 0}},
		// no rule known: ideal prefix caching, no expiry even after an hour
		{"ideal", "llama-4-maverick", 2000, []int32{0, 500}, []int64{0, 3600}, nil, []int64{0, 2000}, []int64{2000, 500}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := cacheTrace(tc.model, tc.system, tc.adds, tc.seconds)
			if tc.ops != nil {
				tr.Ops = tc.ops
				tr.Finalize()
			}
			var reads, writes []int64
			for _, c := range tr.asLoggedCalls() {
				reads = append(reads, c.CachedTokens)
				writes = append(writes, c.CacheWriteTokens)
			}
			if !slices.Equal(reads, tc.reads) || !slices.Equal(writes, tc.writes) {
				t.Errorf("%s: reads %v, writes %v; want %v, %v", tr.Cache, reads, writes, tc.reads, tc.writes)
			}
			// every replay applies the rule: keep-all (here as-logged but
			// for the op) and its run totals
			var rp Replayer
			r := rp.Replay(tr, mustParse(t, AsLoggedName), Options{})
			var sr, sw, sp int64
			for i := range reads {
				sr, sw = sr+reads[i], sw+writes[i]
			}
			for _, c := range tr.asLoggedCalls() {
				sp += c.PromptTokens
			}
			if r.CachedTokens != sr || r.UncachedTokens != sp-sr-sw || r.AsLoggedCached != sr || r.AsLoggedUncached != sp-sr-sw {
				t.Errorf("run totals: cached %d uncached %d (as-logged %d, %d), want %d, %d", r.CachedTokens, r.UncachedTokens, r.AsLoggedCached, r.AsLoggedUncached, sr, sp-sr-sw)
			}
		})
	}
}

// TestCacheRuleCost prices the planted Anthropic expiry (prompts 5,000,
// 5,500 and 6,000; reads 0, 5,000, 0; writes 5,000, 500, 6,000) at
// Sonnet's prices: 5,000 × $0.30 + 11,500 × $3.75 (the 5-minute write,
// 1.25× input) per million = $0.044625; at the 1-hour TTL the writes cost
// $6 (2×): $0.0705; under ideal caching the third call reads 5,500 and
// writes 500: 10,500 × $0.30 + 6,000 × $3.75 = $0.02565.
func TestCacheRuleCost(t *testing.T) {
	p := diagnose.Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75, CacheWrite1h: 6}
	tr := cacheTrace("claude-sonnet-4-5-20250929", 2000, []int32{3000, 500, 500}, []int64{0, 30, 390})
	var rp Replayer
	cost := func(r RunResult, p diagnose.Price) float64 { _, c := Cost(&r, p); return c }
	r := rp.Replay(tr, mustParse(t, AsLoggedName), Options{})
	long := tr.Cache
	long.TTL = time.Hour
	ideal := rp.Replay(tr, mustParse(t, AsLoggedName), Options{Cache: &CacheModel{}})
	for _, c := range []struct {
		name string
		got  float64
		want float64
	}{
		{"5-minute writes", cost(r, tr.Cache.Price(p)), 0.044625},
		{"1-hour writes", cost(r, long.Price(p)), 0.0705},
		{"1-hour writes, no 1-hour price: 2× input", cost(r, long.Price(diagnose.Price{Input: 3, CacheRead: 0.3, CacheWrite: 3.75})), 0.0705},
		{"ideal", cost(ideal, p), 0.02565},
	} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s: $%v, want $%v", c.name, c.got, c.want)
		}
	}
	// OpenAI's unwritten prompt tokens are plain input: a 1,500-token
	// prompt reading 1,280 at gpt-5's $0.125 and 220 at $1.25 (a price
	// file's cache_write for it changes nothing)
	o := cacheTrace("gpt-5", 1300, []int32{0, 200}, nil)
	ro := rp.Replay(o, mustParse(t, AsLoggedName), Options{})
	po := diagnose.Price{Input: 1.25, CacheRead: 0.125, CacheWrite: 99}
	if got, want := cost(ro, po), (1300*1.25+1280*0.125+220*1.25)/1e6; math.Abs(got-want) > 1e-15 {
		t.Errorf("openai: $%v, want $%v", got, want)
	}
}

// TestCacheModelFor names each model's rule.
func TestCacheModelFor(t *testing.T) {
	for _, c := range []struct{ model, family, want string }{
		{"claude-opus-4-5-20251101", "claude-opus-4", "anthropic-explicit(min=4096,ttl=5m0s)"},
		{"anthropic/claude-opus-4.6", "claude-opus-4", "anthropic-explicit(min=4096,ttl=5m0s)"},
		{"claude-opus-4-7", "claude-opus-4", "anthropic-explicit(min=2048,ttl=5m0s)"},
		{"claude-opus-4-8", "claude-opus-4", "anthropic-explicit(min=1024,ttl=5m0s)"},
		{"claude-opus-4-1-20250805", "claude-opus-4", "anthropic-explicit(min=1024,ttl=5m0s)"},
		{"claude-sonnet-4-20250514", "claude-sonnet-4", "anthropic-explicit(min=1024,ttl=5m0s)"},
		{"claude-haiku-4-5-20251001", "claude-haiku-4", "anthropic-explicit(min=4096,ttl=5m0s)"},
		{"claude-3-5-haiku-20241022", "claude-3.5-haiku", "anthropic-explicit(min=2048,ttl=5m0s)"},
		{"", "claude-3-haiku", "anthropic-explicit(min=2048,ttl=5m0s)"},
		{"gpt-5-codex", "gpt-5", "openai-automatic(min=1024,step=128,ttl=5m0s)"},
		{"gpt-4o-2024-08-06", "gpt-4o", "openai-automatic(min=1024,step=128,ttl=5m0s)"},
		{"o4-mini", "o4-mini", "openai-automatic(min=1024,step=128,ttl=5m0s)"},
		{"openai/o3", "o3", "openai-automatic(min=1024,step=128,ttl=5m0s)"},
		{"google/gemini-3-pro-preview", "gemini-3-pro", "google-implicit(min=4096,ttl=24h0m0s)"},
		{"gemini-2.5-pro", "gemini-2.5-pro", "google-implicit(min=4096,ttl=24h0m0s)"},
		{"gemini-2.5-flash", "gemini-2.5-flash", "google-implicit(min=1024,ttl=24h0m0s)"},
		{"deepseek-chat", "deepseek", "ideal"},
		{"openai/gpt-oss-120b", "gpt-oss-120b", "ideal"},
		{"llama-4-maverick", "llama-4", "ideal"},
		{"", "unknown", "ideal"},
	} {
		if got := CacheModelFor(c.model, c.family).String(); got != c.want {
			t.Errorf("CacheModelFor(%q, %q) = %s, want %s", c.model, c.family, got, c.want)
		}
	}
}
