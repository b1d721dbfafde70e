package simulate

import (
	"strconv"
	"strings"
	"time"

	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/schema"
)

// Prompt caching as the vendors document it. Every replay (as-logged,
// keep-all and every policy) predicts, per call, the prompt tokens read
// from the provider's cache and those written to it, with the run's
// provider rule (Trace.Cache, chosen by CacheModelFor from the model name
// and family). What a rule starts from is the prefix of the call's prompt
// unchanged since the previous call ("unchanged": the previous prompt, cut
// at the first item the policy re-rendered, dropped or summarized since; the
// ideal prefix cache of earlier versions). Then, at call t > 0:
//
//  1. Expiry: when the log times both calls (Trace.CallTime) and the gap
//     between them exceeds the rule's TTL, the cache has expired: nothing
//     is read (Anthropic and OpenAI count the TTL from the last use, so a
//     run whose calls follow each other keeps its cache).
//  2. The read, by rule:
//     - CacheExplicit (Anthropic): only what an earlier call wrote at a
//     breakpoint can be read. The harness marks a breakpoint after the
//     system prompt and tools and at the end of every prompt (Claude
//     Code, automatic caching); a call writes an entry at each breakpoint
//     whose prefix is at least MinTokens long, and refreshes the ones it
//     reads. Read = the longest live entry (the end of the previous
//     prompt, the end of the one before it, the system prefix) no longer
//     than the unchanged prefix; write = prompt − read when the prompt is
//     at least MinTokens long, else 0 (nothing is cached, the prompt is
//     billed as plain input).
//     - CacheAutomatic (OpenAI): prompts of at least 1,024 tokens are
//     cached as they are processed, no write charge; a hit is a whole
//     number of 128-token increments of at least 1,024 tokens: read =
//     ⌊unchanged / 128⌋ × 128 when that is ≥ 1,024 and the prompt is
//     ≥ 1,024 tokens, else 0; write = 0.
//     - CacheImplicit (Google): a request of at least MinTokens whose
//     prefix an earlier request of at least MinTokens processed reads it
//     at the cache discount, no write charge: read = unchanged when the
//     prompt and the previous prompt are both ≥ MinTokens, else 0;
//     write = 0. Google guarantees no hit; this is the most it can read.
//     - CacheIdeal (no provider rule known): read = unchanged, write =
//     prompt − read (priced at the cache-write price, the input price
//     when there is none), as before the rules existed.
//  3. The rest of the prompt, prompt − read − write, is plain input.
//
// Call 0 reads nothing. Prices follow in Cost: read × cache_read + write ×
// cache_write (Anthropic's 1-hour TTL: CacheWrite1h, see CacheModel.Price)
// + the rest × input.

// CacheKind is a provider's way of caching prompt prefixes.
type CacheKind uint8

// Cache kinds.
const (
	// CacheIdeal: no provider rule known; the prefix unchanged since the
	// previous call is read, the rest written.
	CacheIdeal CacheKind = iota
	// CacheExplicit: Anthropic's explicit breakpoints (cache_control).
	CacheExplicit
	// CacheAutomatic: OpenAI's automatic prefix caching.
	CacheAutomatic
	// CacheImplicit: Google's implicit caching (Gemini 2.5 and newer).
	CacheImplicit
)

var cacheKindNames = [...]string{"ideal", "anthropic-explicit", "openai-automatic", "google-implicit"}

func (k CacheKind) String() string { return cacheKindNames[k] }

// CacheModel is one provider's prompt-cache rule (see the package's cache
// rules above), with the model's parameters.
type CacheModel struct {
	Kind CacheKind
	// MinTokens: a shorter prompt (Anthropic: prefix up to a breakpoint)
	// is not cached.
	MinTokens int64
	// Increment: a read is a whole number of increments (OpenAI: 128
	// tokens); ≤ 1 any number of tokens.
	Increment int64
	// TTL: a cache unused for longer has expired (by logged call times);
	// 0 never within a run.
	TTL time.Duration
}

// Documented rules and parameters.
const (
	// Anthropic, platform.claude.com/docs/en/build-with-claude/prompt-caching:
	// "By default, the cache has a 5-minute lifetime", refreshed each time
	// the cached content is used; "ttl": "1h" writes cost 2× the base input
	// price (5-minute writes 1.25×, reads 0.1×).
	anthropicTTL = 5 * time.Minute
	// OpenAI, developers.openai.com/api/docs/guides/prompt-caching and the
	// cookbook's "Prompt Caching 201": caching "is enabled automatically for
	// prompts that are 1024 tokens or longer … with cache hits occurring in
	// increments of 128 tokens"; "cached prefixes generally remain active
	// for 5 to 10 minutes of inactivity" (Azure OpenAI's page: "typically
	// cleared within 5–10 minutes of inactivity and always removed within
	// one hour"). The replay takes the lower end.
	openAIMin       = 1024
	openAIIncrement = 128
	openAITTL       = 5 * time.Minute
	// Google, ai.google.dev/gemini-api/docs/caching (table effective from
	// 8 May 2025, when the corpus's Gemini runs were logged): implicit
	// caching on Gemini 2.5 and newer, minimum input 1,024 tokens for 2.5
	// Flash and 3 Flash Preview, 4,096 for 2.5 Pro and 3 Pro Preview; no
	// saving guaranteed. Vertex AI (cloud.google.com/vertex-ai/generative-ai/
	// docs/context-cache/context-cache-overview): cached prefixes "expire
	// within 24 hours of creation", a 90 % discount on cached tokens.
	geminiFlashMin = 1024
	geminiProMin   = 4096
	googleTTL      = 24 * time.Hour
)

// anthropicMin is the minimum cacheable prompt length per Claude model,
// the first entry the lower-cased model name (dots as dashes) contains:
// platform.claude.com/docs/en/build-with-claude/prompt-caching ("4096
// tokens for Claude Opus 4.6, Claude Opus 4.5 … 1024 tokens for Claude
// Sonnet 4.6, Claude Sonnet 4.5, Claude Opus 4.1, Claude Opus 4, Claude
// Sonnet 4, and Claude Sonnet 3.7 … 4096 tokens for Claude Haiku 4.5 …
// 2048 tokens for Claude Haiku 3.5 and Claude Haiku 3"); Opus 4.8: 1,024
// ("What's new in Claude Opus 4.8": "a lower 1,024-token minimum cacheable
// prompt length"); Opus 4.7: 2,048 (as quoted from the same page in
// dev.to/creeta, "Claude's prompt cache fails silently below 1,024
// tokens"). Any other Claude model: 1,024.
var anthropicMin = []struct {
	name string
	min  int64
}{
	{"opus-4-5", 4096}, {"opus-4-6", 4096}, {"opus-4-7", 2048}, {"opus-4-8", 1024},
	{"haiku-4", 4096}, {"haiku-3", 2048}, {"3-haiku", 2048}, {"3-5-haiku", 2048},
}

// CacheModelFor returns the cache rule of a model (its name and family as
// ingest names them): Claude models Anthropic's explicit breakpoints with
// the 5-minute TTL, GPT and o-series models OpenAI's automatic caching,
// Gemini models Google's implicit caching; any other model the ideal rule.
func CacheModelFor(model, family string) CacheModel {
	m := strings.ReplaceAll(strings.ToLower(model+" "+family), ".", "-")
	switch {
	case strings.Contains(m, "claude"):
		min := int64(1024)
		for _, e := range anthropicMin {
			if strings.Contains(m, e.name) {
				min = e.min
				break
			}
		}
		return CacheModel{Kind: CacheExplicit, MinTokens: min, TTL: anthropicTTL}
	case strings.Contains(m, "gemini"):
		min := int64(geminiProMin)
		if strings.Contains(m, "flash") {
			min = geminiFlashMin
		}
		return CacheModel{Kind: CacheImplicit, MinTokens: min, TTL: googleTTL}
	case openAIModel(m):
		return CacheModel{Kind: CacheAutomatic, MinTokens: openAIMin, Increment: openAIIncrement, TTL: openAITTL}
	}
	return CacheModel{}
}

// openAIModel reports whether a lower-cased model name and family name an
// OpenAI model: gpt-*, codex, or an o-series reasoning model (o1, o3, o4);
// not the open-weight gpt-oss, which other hosts serve with their own
// caching.
func openAIModel(m string) bool {
	if strings.Contains(m, "gpt-oss") {
		return false
	}
	for _, f := range strings.FieldsFunc(m, func(r rune) bool { return r == ' ' || r == '/' || r == ':' }) {
		if strings.HasPrefix(f, "gpt-") || strings.Contains(f, "codex") {
			return true
		}
		if len(f) >= 2 && f[0] == 'o' && f[1] >= '1' && f[1] <= '9' && (len(f) == 2 || f[2] == '-') {
			return true
		}
	}
	return false
}

// String names the rule and its parameters, e.g.
// "openai-automatic(min=1024,step=128,ttl=5m0s)".
func (m CacheModel) String() string {
	if m.Kind == CacheIdeal {
		return m.Kind.String()
	}
	var b strings.Builder
	b.WriteString(m.Kind.String())
	b.WriteString("(min=")
	b.WriteString(strconv.FormatInt(m.MinTokens, 10))
	if m.Increment > 1 {
		b.WriteString(",step=")
		b.WriteString(strconv.FormatInt(m.Increment, 10))
	}
	if m.TTL > 0 {
		b.WriteString(",ttl=")
		b.WriteString(m.TTL.String())
	}
	b.WriteString(")")
	return b.String()
}

// Price is p as the rule bills it: Anthropic writes at the 1-hour TTL at
// CacheWrite1h (2× input when the table has no 1-hour price); every other
// rule p itself.
func (m CacheModel) Price(p diagnose.Price) diagnose.Price {
	if m.Kind == CacheExplicit && m.TTL >= time.Hour {
		w := p.CacheWrite1h
		if w == 0 {
			w = 2 * p.Input
		}
		p.CacheWrite = w
	}
	return p
}

// cacheState is one replay's prompt cache.
type cacheState struct {
	// live Anthropic entries: prefix lengths written or read at the last
	// call (its prompt's end, the entry it read, the system prefix); 0 none
	entries [3]int64
	prev    int64 // the previous call's prompt
	at      int64 // the previous call's time (Unix ms); 0 unknown
}

// next returns call t's read and written prompt tokens under m (see the
// rules above): prompt is the call's prompt, unchanged its prefix
// unchanged since the previous call, system the system breakpoint's
// prefix (hidden prefix + system items), at the call's logged time (Unix
// ms, 0 unknown).
func (m CacheModel) next(st *cacheState, t int, at, prompt, unchanged, system int64) (read, write int64) {
	if t == 0 {
		*st = cacheState{}
	}
	expired := t > 0 && m.TTL > 0 && at > 0 && st.at > 0 && time.Duration(at-st.at)*time.Millisecond > m.TTL
	if t > 0 && !expired {
		read = min(unchanged, prompt)
	}
	switch m.Kind {
	case CacheExplicit:
		var best int64
		if !expired {
			for _, e := range st.entries {
				if e > 0 && e <= read && e > best {
					best = e
				}
			}
		}
		read = best
		st.entries = [3]int64{}
		if prompt >= m.MinTokens {
			write = prompt - read
			st.entries[0] = prompt
			st.entries[1] = read
			if system >= m.MinTokens && system <= prompt {
				st.entries[2] = system
			}
		}
	case CacheAutomatic:
		if inc := max(m.Increment, 1); read > 0 {
			read = read / inc * inc
		}
		if prompt < m.MinTokens || read < m.MinTokens {
			read = 0
		}
	case CacheImplicit:
		if prompt < m.MinTokens || st.prev < m.MinTokens {
			read = 0
		}
	default: // CacheIdeal
		write = prompt - read
	}
	st.prev, st.at = prompt, at
	return read, write
}

// systemPrefix is the Anthropic system breakpoint's prefix: the hidden
// prefix (system prompt and tools the log does not show) plus the system
// items visible from the first call on.
func (tr *Trace) systemPrefix() int64 {
	p := tr.Prefix
	for _, it := range tr.Items {
		if it.Kind != ItemSystem || it.Since > 0 {
			break
		}
		p += int64(it.Tokens)
	}
	return p
}

// loggedCache fills CacheRead, CacheWrite, CacheStated and CallTime from
// the run's usage rows and events.
func (tr *Trace) loggedCache(events []schema.Event, usage []schema.Usage) {
	tr.CacheRead = make([]int64, tr.NCalls)
	tr.CacheWrite = make([]int64, tr.NCalls)
	tr.CallTime = make([]int64, tr.NCalls)
	for t := range tr.CacheRead {
		tr.CacheRead[t], tr.CacheWrite[t] = -1, -1
	}
	for _, u := range usage {
		if u.Turn < 0 || int(u.Turn) >= tr.NCalls || u.Estimated || u.InputTokens <= 0 {
			continue
		}
		tr.CacheRead[u.Turn], tr.CacheWrite[u.Turn] = u.CacheReadTokens, u.CacheWriteTokens
		tr.CacheStated = tr.CacheStated || u.CacheReadTokens > 0 || u.CacheWriteTokens > 0
		if u.TS != nil && !u.TS.IsZero() {
			tr.CallTime[u.Turn] = u.TS.UnixMilli()
		}
	}
	// a call the usage does not time: its first output event's time
	for _, e := range events {
		if e.Turn < 0 || int(e.Turn) >= tr.NCalls || !e.Kind.IsOutput() || e.TS == nil || e.TS.IsZero() || tr.CallTime[e.Turn] != 0 {
			continue
		}
		tr.CallTime[e.Turn] = e.TS.UnixMilli()
	}
}
