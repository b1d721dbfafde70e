package simulate

import (
	"math"
)

// compactVariant is a harness's auto-compaction.
type compactVariant uint8

const (
	compactClaudeCode compactVariant = iota
	compactCodex
	compactOpenHands
	compactGemini
	compactGoose
)

// compact is auto-compaction with a deterministic summary stand-in (see the
// Def docs of compact-*). The summary-size model, for every variant:
//
//	summary = clamp(a + b × summarized, min, cap)
//
// where summarized is the tokens removed from the prompt plus the previous
// summary. Each compaction counts one summarizer call whose input is the
// prompt at that moment plus the summarization template and whose output is
// the summary (no cache).
type compact struct {
	variant   compactVariant
	threshold float64 // fraction of the window (0 = the variant's formula)
	maxSize   int     // openhands: events in the view
	preserve  float64 // gemini: share of characters kept verbatim
	a, b      float64
	lo, cap   int64
	template  int64
	extra     int64 // fixed text added with the summary (continuation notes)
	files     int   // claude-code: recently read files re-attached
	fileTok   int64
	filesTok  int64
	userTok   int64 // codex: recent user messages kept

	next        arrivals
	live        []int32 // admitted, not head, not summarized; position order
	prevPrompt  int64
	prevOutput  int64
	compactedAt int
}

func (p *compact) Reset(*Sim) {
	p.next, p.live, p.prevPrompt, p.prevOutput, p.compactedAt = 0, p.live[:0], 0, 0, -1
}

// limit is the trigger in tokens for window w.
func (p *compact) limit(w int64) float64 {
	if p.threshold > 0 {
		return p.threshold * float64(w)
	}
	// claude-code: effective window − min(max output, 20,000) − 13,000 buffer
	// (167,000 at 200k); below 100k windows that leaves too little room, so
	// the 200k ratio (83.5 %) is used there.
	if w >= 100_000 {
		return float64(w - 20_000 - 13_000)
	}
	return 0.835 * float64(w)
}

func (p *compact) Before(t int, s *Sim) {
	for _, i := range p.next.upTo(s.Tr, t) {
		if !s.Tr.Items[i].Head {
			p.live = append(p.live, i)
		}
	}
	trigger := false
	switch p.variant {
	case compactOpenHands:
		// OpenHands counts events in the view: head + summary + live
		view := len(p.live) + 1
		if s.SummaryTokens() > 0 {
			view++
		}
		trigger = view > p.maxSize
	default:
		// the previous call's usage: its prompt plus its output
		trigger = s.WindowTokens > 0 && t > 0 && float64(p.prevPrompt+p.prevOutput) >= p.limit(s.WindowTokens)
	}
	if trigger {
		p.compact(t, s)
	}
	p.prevPrompt, p.prevOutput = s.Prompt(), s.Output(t)
}

// OnOverflow compacts reactively (a harness's recovery from a context error)
// unless the call already compacted.
func (p *compact) OnOverflow(t int, s *Sim) {
	if p.compactedAt != t && len(p.live) > 0 {
		p.compact(t, s)
		p.prevPrompt = s.Prompt()
	}
}

func (p *compact) compact(t int, s *Sim) {
	p.compactedAt = t
	n := len(p.live)
	keep := make([]bool, n) // reused rarely: compactions are few
	switch p.variant {
	case compactClaudeCode:
		// re-attach up to `files` most recently read files, each ≤ fileTok, ≤ filesTok in all
		var used int64
		got := 0
		for k := n - 1; k >= 0 && got < p.files; k-- {
			it := &s.Tr.Items[p.live[k]]
			if it.Kind != ItemToolResult || it.Class != ClassRead || s.Mode(p.live[k]) == Summarized {
				continue
			}
			tok := min(int64(it.Tokens), p.fileTok)
			if used+tok > p.filesTok {
				break
			}
			used += tok
			got++
			keep[k] = true
		}
	case compactCodex:
		// recent real user messages, newest first, up to userTok tokens
		var used int64
		for k := n - 1; k >= 0; k-- {
			it := &s.Tr.Items[p.live[k]]
			if it.Kind != ItemUser {
				continue
			}
			if used+int64(it.Tokens) > p.userTok {
				break
			}
			used += int64(it.Tokens)
			keep[k] = true
		}
	case compactOpenHands:
		// the view becomes max_size/2: head + summary + the newest events
		tail := max(p.maxSize/2-2, 0)
		for k := max(n-tail, 0); k < n; k++ {
			keep[k] = true
		}
	case compactGemini:
		// keep from the first user message after (1 − preserve) of the characters
		var total, acc int64
		for _, i := range p.live {
			total += int64(s.Tr.Items[i].Chars)
		}
		split := n
		for k, i := range p.live {
			if float64(acc) >= (1-p.preserve)*float64(total) && s.Tr.Items[i].Kind == ItemUser {
				split = k
				break
			}
			acc += int64(s.Tr.Items[i].Chars)
		}
		for k := split; k < n; k++ {
			keep[k] = true
		}
	case compactGoose:
		// the most recent user message is re-appended
		for k := n - 1; k >= 0; k-- {
			if s.Tr.Items[p.live[k]].Kind == ItemUser {
				keep[k] = true
				break
			}
		}
	}
	in := s.Prompt() + p.template
	if p.variant == compactCodex && s.WindowTokens > 0 {
		in = min(in, s.WindowTokens) // the oldest items are trimmed until the request fits
	}
	summarized := s.SummaryTokens()
	first := int32(math.MaxInt32)
	k2 := 0
	for k, i := range p.live {
		if keep[k] {
			p.live[k2] = i
			k2++
			continue
		}
		summarized += int64(s.Tokens(i))
		first = min(first, i)
		s.Summarize(i)
	}
	p.live = p.live[:k2]
	if p.variant == compactClaudeCode {
		for _, i := range p.live {
			it := &s.Tr.Items[i]
			if it.Kind == ItemToolResult && int64(it.Tokens) > p.fileTok && it.Tokens > 0 {
				keepChars := int32(int64(it.Chars) * p.fileTok / int64(it.Tokens))
				s.Truncate(i, keepChars, keepChars, 0, 0)
			}
		}
	}
	sum := int64(math.Round(p.a + p.b*float64(summarized)))
	sum = min(max(sum, p.lo), p.cap) + p.extra
	s.SummarizerCall(in, sum-p.extra)
	if first == math.MaxInt32 {
		first = 0
	}
	s.SetSummary(sum, first)
}

func newCompact(v compactVariant) func(a *Args) (rules, error) {
	return func(a *Args) (rules, error) {
		p := &compact{variant: v, a: a.Float("summary_a"), b: a.Float("summary_b"), lo: a.Int("summary_min"),
			cap: a.Int("summary_cap"), template: a.Int("template")}
		a.Check(p.a >= 0 && p.b >= 0 && p.lo >= 0 && p.cap >= p.lo, "summary_a, summary_b, summary_min ≥ 0 and summary_cap ≥ summary_min")
		switch v {
		case compactClaudeCode:
			if th := a.String("threshold"); th != "auto" {
				p.threshold = a.Float("threshold")
			}
			p.files, p.fileTok, p.filesTok = int(a.Int("files")), a.Int("file_tokens"), a.Int("files_tokens")
			p.extra = 40 // "This session is being continued from a previous conversation…" preamble
		case compactCodex:
			p.threshold = a.Float("threshold")
			p.userTok = a.Int("user_tokens")
			p.extra = 45 // SUMMARY_PREFIX
		case compactOpenHands:
			p.maxSize = int(a.Int("max_size"))
			a.Check(p.maxSize >= 4, "max_size must be ≥ 4")
		case compactGemini:
			p.threshold = a.Float("threshold")
			p.preserve = a.Float("preserve")
			a.Check(p.preserve >= 0 && p.preserve <= 1, "preserve must be in [0,1]")
			p.extra = 15 // <state_snapshot> wrapper + "Got it. Thanks for the additional context!"
		case compactGoose:
			p.threshold = a.Float("threshold")
			p.extra = 60 // "Your context was compacted…" continuation text
		}
		a.Check(p.threshold >= 0 && p.threshold <= 1, "threshold must be in (0,1]")
		return p, nil
	}
}
