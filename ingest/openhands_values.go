package ingest

import (
	"bytes"
	"math"
	"strings"
	"time"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"
	"github.com/trajmine/trajmine/schema"
)

// Values shared by the openhands and openhands-sdk importers: logged token
// counts, the calls results link to, the run's time span, end reasons
// from text and from states, and lenient readers of raw JSON values.

// ohInt is a logged count: a JSON number (integer or float), anything else 0.
type ohInt int64

// ohMaxTokens bounds one logged count; larger values are not a real log.
const ohMaxTokens = 1 << 40

func (v *ohInt) UnmarshalJSON(b []byte) error {
	*v = 0
	var f float64
	if json.Unmarshal(b, &f) == nil && !math.IsNaN(f) && !math.IsInf(f, 0) && math.Abs(f) <= ohMaxTokens {
		*v = ohInt(f)
	}
	return nil
}

// ohTokens is OpenHands' token usage record (llm_metrics, metrics, SDK stats).
type ohTokens struct {
	Model            string `json:"model"`
	PromptTokens     ohInt  `json:"prompt_tokens"`
	CompletionTokens ohInt  `json:"completion_tokens"`
	CacheReadTokens  ohInt  `json:"cache_read_tokens"`
	CacheWriteTokens ohInt  `json:"cache_write_tokens"`
	ReasoningTokens  ohInt  `json:"reasoning_tokens"`
	ContextWindow    ohInt  `json:"context_window"`
	ResponseID       string `json:"response_id"`
}

// usage returns t as a schema.Usage, or false when a count is implausible.
func (t *ohTokens) usage() (schema.Usage, bool) {
	u := schema.Usage{InputTokens: int64(t.PromptTokens), OutputTokens: int64(t.CompletionTokens),
		CacheReadTokens: int64(t.CacheReadTokens), CacheWriteTokens: int64(t.CacheWriteTokens), ReasoningTokens: int64(t.ReasoningTokens)}
	return u, ohPlausible(u)
}

func ohPlausible(u schema.Usage) bool {
	for _, v := range []int64{u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.ReasoningTokens} {
		if v < 0 || v > ohMaxTokens {
			return false
		}
	}
	return true
}

// sub returns t − prev, count by count (a counter that went back restarts).
func (t ohTokens) sub(prev *ohTokens) ohTokens {
	if prev == nil || t.PromptTokens < prev.PromptTokens || t.CompletionTokens < prev.CompletionTokens {
		return t
	}
	d := t
	d.PromptTokens -= prev.PromptTokens
	d.CompletionTokens -= prev.CompletionTokens
	d.CacheReadTokens = max(0, d.CacheReadTokens-prev.CacheReadTokens)
	d.CacheWriteTokens = max(0, d.CacheWriteTokens-prev.CacheWriteTokens)
	d.ReasoningTokens = max(0, d.ReasoningTokens-prev.ReasoningTokens)
	return d
}

func (t *ohTokens) zero() bool {
	return t.PromptTokens == 0 && t.CompletionTokens == 0 && t.CacheReadTokens == 0 && t.CacheWriteTokens == 0 && t.ReasoningTokens == 0
}

// ohCall is an emitted tool call that results link to.
type ohCall struct {
	callID, name, target string
}

// ohSpan is the first and last timestamp of a run's records, including the
// ones that add no event (state changes, stats).
type ohSpan struct{ first, last *time.Time }

func (s *ohSpan) note(ts *time.Time) {
	if ts == nil {
		return
	}
	if s.first == nil || ts.Before(*s.first) {
		s.first = ts
	}
	if s.last == nil || ts.After(*s.last) {
		s.last = ts
	}
}

// set makes s the run's start and end.
func (s *ohSpan) set(r *schema.Run) {
	r.StartedAt, r.EndedAt = s.first, s.last
}

// ohEndFromText reads an end reason from an error text.
func ohEndFromText(s string, def schema.EndReason) schema.EndReason {
	l := strings.ToLower(s)
	switch {
	case IsOverflowText(s) || ohOverflow(s):
		return schema.EndContextOverflow
	case strings.Contains(l, "maximum iteration") || strings.Contains(l, "max iteration") || strings.Contains(l, "iteration limit"):
		return schema.EndStepLimit
	case strings.Contains(l, "budget") || strings.Contains(l, "maximum cost"):
		return schema.EndCostLimit
	}
	return def
}

// ohFinished sets the run's end to finished, a state reported again (each
// agent step may log it) keeping the first report's detail.
func ohFinished(b *RunBuilder, detail string) {
	if b.Run.EndReasonSource != schema.SourceExplicit || b.Run.EndReason != schema.EndFinished {
		b.SetEnd(schema.EndFinished, detail)
	}
}

// ohResume forgets an explicit end the run went on after (the agent is
// running again); a context overflow stays.
func ohResume(b *RunBuilder) {
	if b.Run.EndReason != schema.EndContextOverflow {
		resumeRun(b)
	}
}

// ohOverflow matches OpenHands' own context-window error names.
func ohOverflow(s string) bool {
	return containsAnyFold(s, []string{"contextwindowexceed", "context window exceeded"})
}

// ohModelArgs returns an action's args without the keys OpenHands adds, as
// canonical JSON (CanonicalJSON, the form every call's args are stored in).
func ohModelArgs(args map[string]json.RawMessage) string {
	kept := make(map[string]json.RawMessage, len(args))
	for k, v := range args {
		if !ohBookkeeping[k] {
			kept[k] = v
		}
	}
	b, _ := json.Marshal(kept)
	return CanonicalJSON(b)
}

// ohObject decodes a JSON object into its fields (nil when it is not one).
func ohObject(raw json.RawMessage) map[string]json.RawMessage {
	if ohIsNull(raw) {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// ohText returns a JSON string's value ("" for anything else).
func ohText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

func ohBool(raw json.RawMessage) bool {
	var v bool
	return json.Unmarshal(raw, &v) == nil && v
}

func ohIsNull(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// ohMetrics is a Metrics dump: an action's llm_metrics or an instance's metrics.
type ohMetrics struct {
	AccumulatedCost       *float64          `json:"accumulated_cost"`
	AccumulatedTokenUsage *ohTokens         `json:"accumulated_token_usage"`
	Costs                 []json.RawMessage `json:"costs"`
	TokenUsages           []ohTokens        `json:"token_usages"`
}

// ohLiteUsage is a LiteLLM "ChatCompletion" usage.
type ohLiteUsage struct {
	PromptTokens        ohInt `json:"prompt_tokens"`
	CompletionTokens    ohInt `json:"completion_tokens"`
	CacheCreation       ohInt `json:"cache_creation_input_tokens"`
	CacheRead           ohInt `json:"cache_read_input_tokens"`
	PromptTokensDetails *struct {
		CachedTokens ohInt `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens ohInt `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

func (l *ohLiteUsage) usage() (schema.Usage, bool) {
	u := schema.Usage{InputTokens: int64(l.PromptTokens), OutputTokens: int64(l.CompletionTokens),
		CacheReadTokens: int64(l.CacheRead), CacheWriteTokens: int64(l.CacheCreation)}
	if u.CacheReadTokens == 0 && l.PromptTokensDetails != nil {
		u.CacheReadTokens = int64(l.PromptTokensDetails.CachedTokens)
	}
	if l.CompletionTokensDetails != nil {
		u.ReasoningTokens = int64(l.CompletionTokensDetails.ReasoningTokens)
	}
	return u, ohPlausible(u)
}
