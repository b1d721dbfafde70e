package simulate

import (
	"math"

	"github.com/trajmine/trajmine/diagnose"
)

// Mode is how an item is rendered in the prompt.
type Mode uint8

// Render modes.
const (
	Full        Mode = iota
	Placeholder      // replaced by a short stand-in text
	Truncated        // head and tail kept, the middle cut
	Dropped          // removed without a trace
	Summarized       // removed, its content folded into a summary stand-in
)

var modeNames = [...]string{"full", "placeholder", "truncated", "dropped", "summarized"}

func (m Mode) String() string { return modeNames[m] }

// Policy is a context policy. Reset is called once per replayed run, then
// Before once per model call t = 0, 1, … after the items first visible to
// call t were admitted (in full) and before the prompt is measured; Before
// re-renders items through the Sim's methods. Policies keep per-run state
// in their own fields and must be deterministic.
type Policy interface {
	// Name is the canonical spec, e.g. "halflife(activate=0.5,keep=4,cap=8000)".
	Name() string
	Reset(s *Sim)
	Before(t int, s *Sim)
}

// OverflowHandler is implemented by policies that act when a call's prompt
// does not fit (provider truncation, a harness's overflow recovery). It may
// re-render items; the prompt is measured again afterwards.
type OverflowHandler interface {
	OnOverflow(t int, s *Sim)
}

// Status is how a replayed run ended.
type Status string

// Statuses.
const (
	// Survived: every logged call fit and the log says the run finished.
	Survived Status = "survived"
	// Censored: every logged call fit but the logged run stopped without
	// finishing; what it would have done next is not in the data.
	Censored Status = "censored"
	// Overflow: a call's prompt plus its output exceeded the window; the run
	// ends there.
	Overflow Status = "overflow"
)

// Loss is why a run is lost under what ran at a replay's window
// (RunResult.BaselineOverflow).
type Loss string

// Losses.
const (
	// LossNone: what ran gets through at this window.
	LossNone Loss = ""
	// LossLogged: the log ended on window length (diagnose's end reason,
	// explicit or inferred) and the replay's window is the run's own or
	// smaller: the run died in its log.
	LossLogged Loss = "logged"
	// LossWindow: the replay's window is below the one the run ran at (its
	// own window, or, when that is unknown, the window that let it send
	// its logged prompts) and the as-logged replay overflows there: a
	// call the run sent does not fit, so at this window it dies at that
	// call even though its log got past it (and perhaps finished).
	LossWindow Loss = "window"
	// LossReplayed: at the run's own window or a larger one, the log did
	// not finish and the as-logged replay overflows (the token model puts
	// one of its calls over the window).
	LossReplayed Loss = "replayed"
)

// RunResult is one run replayed under one policy at one window.
type RunResult struct {
	RunID  string `json:"run_id"`
	Policy string `json:"policy"`
	// Window is the window the replay was asked for (Options.Window:
	// OwnWindow, Unbounded or Tokens(n)); WindowTokens is what it resolved
	// to for this run (Window.Resolve), in tokens, 0 for none (Unbounded,
	// or the run's own window unknown).
	Window       Window `json:"window"`
	WindowTokens int64  `json:"window_tokens"`

	Calls        int    `json:"calls"` // calls replayed (≤ the logged calls)
	Status       Status `json:"status"`
	OverflowCall int    `json:"overflow_call"` // -1 unless Overflow
	// OverflowLogged: the overflow is the log's own (the run ended on window
	// length, its replayed prompts fit and the policy saved nothing by its
	// last call), at OverflowCall = the last logged call.
	OverflowLogged  bool `json:"overflow_logged"`
	FirstActivation int  `json:"first_activation"` // first call whose prompt the policy changed (stall messages aside); -1 never

	PromptTokens  int64 `json:"prompt_tokens"`   // Σ prompt over replayed calls
	KeepAllTokens int64 `json:"keep_all_tokens"` // Σ keep-all prompt over the same calls (window ignored)
	KeepAllCached int64 `json:"keep_all_cached"` // Σ keep-all cache reads over the same calls (Trace.Cache's rule)
	PeakTokens    int64 `json:"peak_tokens"`
	CachedTokens  int64 `json:"cached_tokens"` // Σ predicted cache reads (Trace.Cache's rule, see cache.go)
	OutputTokens  int64 `json:"output_tokens"` // Σ output of replayed calls
	// UncachedTokens: Σ prompt tokens neither read from nor written to the
	// cache, billed as plain input (OpenAI and Google write nothing; an
	// Anthropic prompt under the minimum is not cached); the rest of the
	// prompts, PromptTokens − CachedTokens − UncachedTokens, is written.
	// KeepAllUncached and AsLoggedUncached are keep-all's and as-logged's.
	UncachedTokens   int64 `json:"uncached_tokens"`
	KeepAllUncached  int64 `json:"keep_all_uncached"`
	AsLoggedUncached int64 `json:"as_logged_uncached"`

	PlaceholdersMax int   `json:"placeholders_max"` // most placeholders present in one prompt
	PlaceholderSum  int64 `json:"placeholder_sum"`  // Σ over calls of placeholders present
	CharsFull       int64 `json:"chars_full"`       // Σ over calls of recorded characters in the prompt, full
	CharsRemoved    int64 `json:"chars_removed"`    // Σ over calls of characters the policy removed

	SummarizerCalls int   `json:"summarizer_calls"`
	SummarizerIn    int64 `json:"summarizer_in"`
	SummarizerOut   int64 `json:"summarizer_out"`

	Reinvocations     int   `json:"reinvocations"`        // predicted re-invocations of hidden or cut outputs
	ReinvocationTok   int64 `json:"reinvocation_tokens"`  // their cost: the output again + one call's prompt
	StallMessages     int   `json:"stall_messages"`       // messages injected by a stall detector (Inject); not an activation
	StallMessageTok   int64 `json:"stall_message_tokens"` // their tokens
	ReadingStop       bool  `json:"reading_stop"`         // the run stopped (overflow or logged end) while reading
	BoundaryCall      int64 `json:"boundary_call"`
	BoundaryEvent     bool  `json:"boundary_event"`
	BoundaryFinished  bool  `json:"boundary_finished"` // the competing outcome of the reading boundary: the run got through its logged calls and the log says it finished
	LoggedCalls       int   `json:"logged_calls"`
	KeepAllOverflowAt int   `json:"keep_all_overflow_call"` // first call keep-all overflows at this window; -1 never

	// The as-logged baseline (see AsLogged) over the same calls, window
	// ignored: its prompts, cached prefixes and summarizer calls, and the
	// first call it overflows at this window (-1 never).
	AsLoggedPromptTokens int64 `json:"as_logged_prompt_tokens"`
	AsLoggedCached       int64 `json:"as_logged_cached"`
	AsLoggedSummIn       int64 `json:"as_logged_summarizer_in"`
	AsLoggedSummOut      int64 `json:"as_logged_summarizer_out"`
	AsLoggedOverflowAt   int   `json:"as_logged_overflow_call"`
	// BaselineOverflow: the run is lost under what ran at this window
	// (BaselineLoss says why): the log ended on window length (diagnose's
	// end reason) and this is the run's own window or a smaller one; or
	// this window is below the one the run ran at and the as-logged replay
	// overflows here (the run's logged prompts exceed it: at this window it
	// dies at that call, whether or not its log finished); or, at its own
	// window or above, the log did not finish and the as-logged replay
	// overflows. Saved: BaselineOverflow and the policy does not overflow
	// (and, when only the log's end says the run died, its prompt at the
	// last logged call is smaller than as-logged's: it freed room where the
	// run died; and, replayed without the agent's manage_context calls, it
	// reaches a logged call at or after the one where the run died: a run
	// that died on a dropped context-only call is not saved): the policy
	// carries the run to its logged end, and what the agent would have done
	// after it is not in the data. Lost: the policy overflows where the
	// as-logged replay does not (and not BaselineOverflow). At the run's
	// own window a run whose log finished is never saved; the as-logged
	// policy itself neither saves nor loses.
	BaselineOverflow bool `json:"baseline_overflow"`
	BaselineLoss     Loss `json:"as_logged_overflow_cause"`
	Saved            bool `json:"saved"`
	Lost             bool `json:"lost"`

	// DroppedContextCalls: the policy replaces the agent's own context
	// management (Replaces), so the run was replayed without its
	// context-only manage_context calls (Trace.WithoutContextCalls); this
	// many of them fall within the replayed part of the run (before the
	// overflow call, or all). Calls + DroppedContextCalls = LoggedCalls
	// when the replay got through. Call indexes (OverflowCall,
	// FirstActivation, KeepAllOverflowAt, BoundaryCall, CallResult.Call)
	// are the logged run's; the As-logged fields cover the same part of
	// the run, dropped calls included. 0 for dtoc and as-logged.
	DroppedContextCalls int `json:"dropped_context_calls"`
	// DroppedContextOutput is the output tokens as-logged spent on that
	// part of the run beyond OutputTokens: the dropped calls' outputs and
	// the removed manage_context tool calls of the calls kept.
	DroppedContextOutput int64 `json:"dropped_context_output_tokens"`
}

// TokenRatio is the run's token ratio: PromptTokens / AsLoggedPromptTokens, its
// prompts against what ran's on the same calls (1 when both are 0;
// sim_runs.as_logged_ratio). Effective tokens over as-logged's are the
// effective ratio (Agg.EffectiveRatio), prompts over keep-all's the
// keep-all ratio (KeepAllRatio).
func (r *RunResult) TokenRatio() float64 {
	if r.AsLoggedPromptTokens == 0 {
		return 1
	}
	return float64(r.PromptTokens) / float64(r.AsLoggedPromptTokens)
}

// BaselineEffective is what the as-logged baseline spends on prompts over
// the same calls: its prompts + its summarizer input (it predicts no
// re-invocation).
func (r *RunResult) BaselineEffective() int64 { return r.AsLoggedPromptTokens + r.AsLoggedSummIn }

// KeepAllRatio is PromptTokens / KeepAllTokens (1 when both are 0): the
// keep-all ratio, against the keep-all reference (the sim_runs column
// token_ratio, named before this ratio was; not the token ratio,
// TokenRatio).
func (r *RunResult) KeepAllRatio() float64 {
	if r.KeepAllTokens == 0 {
		return 1
	}
	return float64(r.PromptTokens) / float64(r.KeepAllTokens)
}

// CharsRemovedShare is CharsRemoved / CharsFull (0 when no characters).
func (r *RunResult) CharsRemovedShare() float64 {
	if r.CharsFull == 0 {
		return 0
	}
	return float64(r.CharsRemoved) / float64(r.CharsFull)
}

// CallResult is one replayed call (the sim_calls table).
type CallResult struct {
	Call         int   `json:"call"`
	PromptTokens int64 `json:"prompt_tokens"`
	CachedTokens int64 `json:"cached_tokens"` // predicted cache read
	// CacheWriteTokens: predicted cache write; the rest of the prompt
	// (prompt − cached − written) is plain input
	CacheWriteTokens int64 `json:"cache_write_tokens"`
	OutputTokens     int64 `json:"output_tokens"`
	Placeholders     int   `json:"placeholders"`
	CharsRemoved     int64 `json:"chars_removed"`
	Overflow         bool  `json:"overflow"`
	SummarizerIn     int64 `json:"summarizer_in"`
	SummarizerOut    int64 `json:"summarizer_out"`
	Reinvocations    int   `json:"reinvocations"`
}

// Options configures a replay.
type Options struct {
	// Window is the window to replay at: the trace's own (OwnWindow, the
	// zero value; none when the trace has none), Unbounded, or Tokens(n).
	Window Window
	// Reserve is the minimum output reserved per call: a call overflows when
	// prompt + max(its output tokens, Reserve) > window.
	Reserve int64
	// Calls, when non-nil, receives one CallResult per replayed call
	// (appended; reuse the slice across runs to avoid allocation).
	Calls *[]CallResult
	// Cache, when non-nil, replaces the trace's prompt-cache rule
	// (Trace.Cache), e.g. &CacheModel{} for ideal prefix caching.
	Cache *CacheModel
}

// Sim is the replay state of one run under one policy. Policies read and
// change renderings through its methods.
type Sim struct {
	Tr           *Trace
	WindowTokens int64 // 0 unbounded
	T            int   // the call being prepared

	mode      []Mode
	tok       []int32 // rendered tokens of admitted items (0 before admission)
	chr       []int32
	head      []int32 // truncated items: characters kept at the head and tail
	tail      []int32
	version   []uint16 // bumps on every rendering change
	reinvVer  []int32  // version at the last predicted re-invocation; -1 none
	asLogged  []bool   // the item is rendered as the log had it (MarkLogged)
	admitted  []bool
	nAdmitted int
	maxPos    int32
	bit       fenwick

	sum, full       int64 // Σ rendered / full tokens of admitted items
	chars, fullChar int64
	placeholders    int
	summary         int64
	injected        int64 // stall messages and other appended text
	injections      int   // Inject calls (stall messages)
	minChanged      int32 // lowest item position changed since the last measurement
	changed         bool  // any change since the last measurement
	activated       bool
	summIn, summOut int64
	summCalls       int
}

// Prompt is the current prompt in tokens: prefix + summary + Σ rendered items + injected messages.
func (s *Sim) Prompt() int64 { return s.Tr.Prefix + s.summary + s.sum + s.injected }

// FullPrompt is what keep-all would send now (no re-rendering, no summary).
func (s *Sim) FullPrompt() int64 { return s.Tr.Prefix + s.full + s.injected }

// Admitted reports whether item i is in the prompt history (by call T).
func (s *Sim) Admitted(i int32) bool { return s.admitted[i] }

// Mode returns item i's rendering.
func (s *Sim) Mode(i int32) Mode { return s.mode[i] }

// Tokens returns item i's rendered tokens.
func (s *Sim) Tokens(i int32) int32 { return s.tok[i] }

// SummaryTokens is the current summary stand-in's size.
func (s *Sim) SummaryTokens() int64 { return s.summary }

// Output is call t's output tokens.
func (s *Sim) Output(t int) int64 { return int64(s.Tr.Output[t]) }

func (s *Sim) set(i int32, m Mode, tok, chr int32) {
	if !s.admitted[i] || (s.mode[i] == m && s.tok[i] == tok && s.chr[i] == chr) {
		return
	}
	if s.mode[i] == Placeholder {
		s.placeholders--
	}
	if m == Placeholder {
		s.placeholders++
	}
	d := int64(tok) - int64(s.tok[i])
	s.sum += d
	s.bit.add(int(i), d)
	s.chars += int64(chr) - int64(s.chr[i])
	s.mode[i], s.tok[i], s.chr[i] = m, tok, chr
	s.version[i]++
	s.markChanged(i)
}

func (s *Sim) markChanged(i int32) {
	s.changed = true
	s.activated = true
	s.minChanged = min(s.minChanged, i)
}

// Restore renders item i in full.
func (s *Sim) Restore(i int32) {
	it := &s.Tr.Items[i]
	s.head[i], s.tail[i] = 0, 0
	s.set(i, Full, it.Tokens, it.Chars)
}

// SetPlaceholder replaces item i by a stand-in of tok tokens and chr characters.
func (s *Sim) SetPlaceholder(i int32, tok, chr int32) { s.set(i, Placeholder, tok, chr) }

// Drop removes item i without a trace.
func (s *Sim) Drop(i int32) { s.set(i, Dropped, 0, 0) }

// Summarize removes item i; its content counts as folded into the summary.
func (s *Sim) Summarize(i int32) { s.set(i, Summarized, 0, 0) }

// Truncate keeps keep characters of item i — the first head of them and
// the rest from its end — plus a marker of markerTok tokens and markerChr
// characters. Tokens scale with the characters kept:
//
//	tokens = ceil(full tokens × keep / full chars) + markerTok
//
// A keep at or above the item's length renders it in full.
func (s *Sim) Truncate(i int32, keep, head int32, markerTok, markerChr int32) {
	it := &s.Tr.Items[i]
	if keep >= it.Chars || it.Chars <= 0 {
		s.Restore(i)
		return
	}
	keep = max(keep, 0)
	head = min(max(head, 0), keep)
	tok := int32((int64(it.Tokens)*int64(keep)+int64(it.Chars)-1)/int64(it.Chars)) + markerTok
	if tok >= it.Tokens {
		// the marker costs more than the cut saves: keep it whole
		s.Restore(i)
		return
	}
	s.head[i], s.tail[i] = head, keep-head
	s.set(i, Truncated, tok, keep+markerChr)
}

// MarkLogged says whether item i is now rendered as the log itself had it
// (a replay of the log's own manage_context ops). Uses of such an item
// predict no re-invocation: whatever the agent did about it is in the log.
func (s *Sim) MarkLogged(i int32, v bool) { s.asLogged[i] = v }

// SetSummary replaces the summary stand-in (0 removes it). The summary sits
// right after the protected head, so it breaks the cached prefix there.
func (s *Sim) SetSummary(tokens int64, at int32) {
	if tokens == s.summary {
		return
	}
	s.summary = tokens
	s.markChanged(at)
}

// Inject appends a message of tok tokens to the history (a stall message):
// it stays in every later prompt and breaks no cached prefix.
// It is counted in RunResult.StallMessages, not as an activation: first
// activation is the policy's own change of the prompt (truncation, masking,
// …), so that a stall detector's messages are reported separately.
func (s *Sim) Inject(tok int64) {
	s.injected += tok
	s.injections++
}

// SummarizerCall counts a summarizer model call of in prompt and out output tokens.
func (s *Sim) SummarizerCall(in, out int64) {
	s.summIn += in
	s.summOut += out
	s.summCalls++
}

// fenwick is a binary indexed tree of int64 over item positions.
type fenwick []int64

func (f fenwick) add(i int, d int64) {
	for i++; i < len(f); i += i & -i {
		f[i] += d
	}
}

// prefix returns Σ of positions < i.
func (f fenwick) prefix(i int) int64 {
	var s int64
	for ; i > 0; i -= i & -i {
		s += f[i]
	}
	return s
}

// Replayer replays traces (one per goroutine).
type Replayer struct {
	s      Sim
	noBase bool // computing the as-logged baseline itself
	cache  cacheState
}

// Replay runs tr under p. It is deterministic and does no I/O. A policy
// that replaces the agent's own context management (Replaces) replays the
// run without its manage_context calls (Trace.WithoutContextCalls),
// compared with what ran over the same part of the logged run.
func (rp *Replayer) Replay(tr *Trace, p Policy, o Options) RunResult {
	full := tr // the logged run: the as-logged baseline's
	if tr.noCtx != nil && !rp.noBase && Replaces(p) {
		tr = tr.noCtx
	}
	callsFrom := 0
	if o.Calls != nil {
		callsFrom = len(*o.Calls)
	}
	s := &rp.s
	s.reset(tr)
	w := o.Window.Resolve(tr.Window)
	s.WindowTokens = w
	res := RunResult{RunID: tr.RunID, Policy: p.Name(), Window: o.Window, WindowTokens: w, OverflowCall: -1, FirstActivation: -1,
		LoggedCalls: full.NCalls, KeepAllOverflowAt: -1, AsLoggedOverflowAt: -1}
	// keep-all's prompts (window ignored) give the keep-all ratio's reference
	keepAll := tr.keepAllPrompts()
	if w > 0 {
		for t, ka := range keepAll {
			if ka+max(int64(tr.Output[t]), o.Reserve) > w {
				res.KeepAllOverflowAt = t
				break
			}
		}
	}
	cm := tr.Cache
	if o.Cache != nil {
		cm = *o.Cache
	}
	system := tr.systemPrefix()
	var base []CallResult
	if !rp.noBase {
		base = full.asLoggedCalls()
		if o.Cache != nil && *o.Cache != full.Cache {
			base = full.asLoggedCallsWith(cm)
		}
		if w > 0 {
			for t, c := range base {
				if c.PromptTokens+max(int64(full.Output[t]), o.Reserve) > w {
					res.AsLoggedOverflowAt = t
					break
				}
			}
		}
	}
	if res.KeepAllOverflowAt < 0 && loggedOverflow(tr, w) {
		res.KeepAllOverflowAt = tr.NCalls - 1
	}
	kaCached, kaWrite := tr.keepAllCache(cm)
	p.Reset(s)
	var prevPrompt int64
	adm, exp := 0, 0
	useIdx := 0
	for t := 0; t < tr.NCalls; t++ {
		s.T = t
		for ; exp < len(tr.Expire) && int(tr.Items[tr.Expire[exp]].Until) < t; exp++ {
			s.expire(tr.Expire[exp])
		}
		for adm < len(tr.Admit) && int(tr.Items[tr.Admit[adm]].Since) <= t {
			if u := tr.Items[tr.Admit[adm]].Until; u == 0 || int(u) >= t {
				s.admit(tr.Admit[adm])
			}
			adm++
		}
		s0, c0 := s.summIn, s.summOut
		p.Before(t, s)
		prompt := s.Prompt()
		reserve := max(int64(tr.Output[t]), o.Reserve)
		if w > 0 && prompt+reserve > w {
			if h, ok := p.(OverflowHandler); ok {
				h.OnOverflow(t, s)
				prompt = s.Prompt()
			}
		}
		overflow := w > 0 && prompt+reserve > w
		// the prefix unchanged since the previous call: everything before
		// the first changed position; the provider's rule reads from it
		var unchanged int64
		if t > 0 {
			unchanged = prevPrompt
			if s.changed && s.minChanged < math.MaxInt32 {
				pre := tr.Prefix + s.bit.prefix(int(s.minChanged))
				unchanged = min(unchanged, pre)
			}
			unchanged = min(unchanged, prompt)
		}
		cached, written := cm.next(&rp.cache, t, tr.callTime(t), prompt, unchanged, system)
		if s.activated && res.FirstActivation < 0 {
			res.FirstActivation = t
		}
		cr := CallResult{Call: t, PromptTokens: prompt, CachedTokens: cached, CacheWriteTokens: written, OutputTokens: int64(tr.Output[t]),
			Placeholders: s.placeholders, CharsRemoved: s.fullChar - s.chars, Overflow: overflow,
			SummarizerIn: s.summIn - s0, SummarizerOut: s.summOut - c0}
		if overflow {
			res.Status, res.OverflowCall = Overflow, t
			if o.Calls != nil {
				*o.Calls = append(*o.Calls, cr)
			}
			break
		}
		// uses of outputs at this call: predicted re-invocations
		for useIdx < len(tr.Uses) && int(tr.Uses[useIdx].Call) < t {
			useIdx++
		}
		for ; useIdx < len(tr.Uses) && int(tr.Uses[useIdx].Call) == t; useIdx++ {
			u := &tr.Uses[useIdx]
			i := u.Item
			if !s.admitted[i] || !s.lost(u) || s.reinvVer[i] == int32(s.version[i]) {
				continue
			}
			s.reinvVer[i] = int32(s.version[i])
			cr.Reinvocations++
			res.Reinvocations++
			res.ReinvocationTok += int64(tr.Items[i].Tokens) + prompt
		}
		res.Calls++
		res.PromptTokens += prompt
		res.KeepAllTokens += keepAll[t]
		if base != nil && tr == full {
			res.AsLoggedPromptTokens += base[t].PromptTokens
			res.AsLoggedCached += base[t].CachedTokens
			res.AsLoggedUncached += base[t].uncached()
			res.AsLoggedSummIn += base[t].SummarizerIn
			res.AsLoggedSummOut += base[t].SummarizerOut
		}
		res.KeepAllCached += kaCached[t]
		res.KeepAllUncached += keepAll[t] - kaCached[t] - kaWrite[t]
		res.PeakTokens = max(res.PeakTokens, prompt)
		res.CachedTokens += cached
		res.UncachedTokens += prompt - cached - written
		res.OutputTokens += int64(tr.Output[t])
		res.PlaceholdersMax = max(res.PlaceholdersMax, s.placeholders)
		res.PlaceholderSum += int64(s.placeholders)
		res.CharsFull += s.fullChar
		res.CharsRemoved += s.fullChar - s.chars
		if o.Calls != nil {
			*o.Calls = append(*o.Calls, cr)
		}
		prevPrompt = prompt
		s.changed, s.minChanged = false, math.MaxInt32
	}
	res.SummarizerCalls, res.SummarizerIn, res.SummarizerOut = s.summCalls, s.summIn, s.summOut
	res.StallMessages, res.StallMessageTok = s.injections, s.injected
	// the log's own overflow: the run ended on window length (diagnose's end
	// reason) although the replayed prompts fit, as when the log's prompt
	// sizes are estimated below what the API counted. At the run's window or
	// a smaller one, a replay whose last prompt is no smaller than keep-all's
	// (the policy saved nothing by then) ends as the log did: an overflow at
	// the last call. A policy that did save may have fitted: censored.
	if res.Status == "" && loggedOverflow(tr, w) && res.Calls == tr.NCalls && prevPrompt >= keepAll[tr.NCalls-1] {
		res.Status, res.OverflowCall, res.OverflowLogged = Overflow, tr.NCalls-1, true
	}
	if res.Status == "" {
		if tr.Finished {
			res.Status = Survived
		} else {
			res.Status = Censored
		}
	}
	if tr != full && base != nil {
		res.reducedBaseline(tr, full, base)
	}
	if !rp.noBase {
		replayed := res.AsLoggedOverflowAt >= 0
		res.BaselineLoss = baselineLoss(tr, w, replayed)
		res.BaselineOverflow = res.BaselineLoss != LossNone
		if res.Policy != AsLoggedName {
			over := res.Status == Overflow
			// where only the log's end says the run died (the replay of what
			// ran fits), a policy saves it by freeing room at the last call
			freed := res.Calls == tr.NCalls && tr.NCalls > 0 && prevPrompt < base[len(base)-1].PromptTokens
			// a replay without the agent's manage_context calls that never
			// reaches the logged call where the run died (it was a dropped
			// context-only call, the last ones of the log) has not shown
			// that the run gets through: what the agent would have sent
			// there instead is not in the log, so it is not saved
			reached := true
			if tr != full {
				died := full.NCalls - 1
				if replayed {
					died = res.AsLoggedOverflowAt
				}
				reached = tr.newCallsBefore(died) < tr.NCalls
			}
			res.Saved = res.BaselineOverflow && !over && (replayed || freed) && reached
			res.Lost = over && !res.BaselineOverflow && !replayed
		}
	}
	// reading boundary input (see diagnose.Boundary): an overflow at call k
	// stops the run after k calls; a run that got through its logged calls
	// keeps its logged stop: finished (the competing outcome) when the log
	// says so, censored when the log says the window ended it (past that
	// point the data cannot say).
	switch {
	case res.OverflowLogged: // the log's stop: after its NCalls calls
		res.BoundaryCall = int64(tr.NCalls)
		res.ReadingStop = tr.ReadingAt[tr.NCalls]
		res.BoundaryEvent = res.ReadingStop
	case res.Status == Overflow:
		res.BoundaryCall = int64(res.OverflowCall)
		res.ReadingStop = tr.ReadingAt[res.OverflowCall]
		res.BoundaryEvent = res.ReadingStop
	default:
		res.BoundaryCall = int64(tr.NCalls)
		res.ReadingStop = tr.ReadingAt[tr.NCalls]
		res.BoundaryEvent = !tr.Finished && !tr.WindowEnd && res.ReadingStop
		res.BoundaryFinished = tr.Finished
	}
	if tr != full {
		// the logged run's call indexes
		res.OverflowCall = tr.origCall(res.OverflowCall, full)
		res.FirstActivation = tr.origCall(res.FirstActivation, full)
		res.KeepAllOverflowAt = tr.origCall(res.KeepAllOverflowAt, full)
		res.BoundaryCall = int64(tr.origCall(int(res.BoundaryCall), full))
		if o.Calls != nil {
			for i := callsFrom; i < len(*o.Calls); i++ {
				(*o.Calls)[i].Call = tr.origCall((*o.Calls)[i].Call, full)
			}
		}
	}
	return res
}

// reducedBaseline fills the as-logged figures of a replay of the reduced
// trace r (the run without its manage_context calls) over the same part of
// the logged run: its calls before the overflow call's logged call (all of
// them when the replay got through or the overflow is the log's own),
// dropped calls included, and how many of those were dropped.
func (res *RunResult) reducedBaseline(r, full *Trace, base []CallResult) {
	end := full.NCalls
	if res.Status == Overflow && !res.OverflowLogged {
		end = r.origCall(res.OverflowCall, full)
	}
	var out int64
	for t := 0; t < end; t++ {
		res.AsLoggedPromptTokens += base[t].PromptTokens
		res.AsLoggedCached += base[t].CachedTokens
		res.AsLoggedUncached += base[t].uncached()
		res.AsLoggedSummIn += base[t].SummarizerIn
		res.AsLoggedSummOut += base[t].SummarizerOut
		out += int64(full.Output[t])
	}
	res.DroppedContextOutput = out - res.OutputTokens
	res.DroppedContextCalls = end - r.newCallsBefore(end)
}

// baselineLoss is why the run tr is lost under what ran at window w (0
// unbounded), LossNone when it is not; replayed says whether the as-logged
// replay overflows at w.
//
//  1. The log ended on window length and w is the run's own window or
//     smaller (loggedOverflow), or the as-logged replay overflows: the run
//     died in its log (LossLogged).
//  2. w is below the window the run ran at (its own, or, unknown, the one
//     that let it send its logged prompts) and the as-logged replay
//     overflows: LossWindow, whether or not the log finished.
//  3. The log did not finish and the as-logged replay overflows at w:
//     LossReplayed (at the run's own window or above).
func baselineLoss(tr *Trace, w int64, replayed bool) Loss {
	below := w > 0 && (tr.Window == 0 || w < tr.Window)
	switch {
	case tr.WindowEnd && (loggedOverflow(tr, w) || replayed):
		return LossLogged
	case below && replayed:
		return LossWindow
	case !tr.Finished && replayed:
		return LossReplayed
	}
	return LossNone
}

// loggedOverflow reports whether the log's own overflow applies to a replay
// of tr at window w: the run ended on window length and w is its window or
// smaller.
func loggedOverflow(tr *Trace, w int64) bool {
	return tr.WindowEnd && tr.Window > 0 && w > 0 && w <= tr.Window && tr.NCalls > 0
}

// lost reports whether content use u's evidence is gone from the prompt
// under the current rendering: the output is a placeholder, dropped or
// summarized; or truncated with an evidence offset inside the cut middle.
// A target use (the log shows the agent acting on the same target again)
// is never lost: the log itself re-invoked, so nothing is added; nor is a
// use of an output rendered as the log had it (MarkLogged).
func (s *Sim) lost(u *Use) bool {
	if !u.Content || s.asLogged[u.Item] {
		return false
	}
	i := u.Item
	switch s.mode[i] {
	case Full:
		return false
	case Truncated:
		full := s.Tr.Items[i].Chars
		for _, off := range u.Offsets {
			if off >= s.head[i] && off < full-s.tail[i] {
				return true
			}
		}
		return false
	}
	return true
}

// expire removes an item whose time is up whatever the policy (see
// Item.Until): from the prompt and from keep-all's, with no activation.
func (s *Sim) expire(i int32) {
	if !s.admitted[i] {
		return
	}
	d := int64(s.tok[i])
	s.sum -= d
	s.bit.add(int(i), -d)
	s.full -= int64(s.Tr.Items[i].Tokens)
	s.chars -= int64(s.chr[i])
	s.fullChar -= int64(s.Tr.Items[i].Chars)
	if s.mode[i] == Placeholder {
		s.placeholders--
	}
	s.admitted[i] = false
	s.tok[i], s.chr[i] = 0, 0
	s.changed = true
	s.minChanged = min(s.minChanged, i)
}

func (s *Sim) admit(i int32) {
	it := &s.Tr.Items[i]
	s.admitted[i] = true
	s.nAdmitted++
	s.mode[i], s.tok[i], s.chr[i] = Full, it.Tokens, it.Chars
	s.sum += int64(it.Tokens)
	s.full += int64(it.Tokens)
	s.chars += int64(it.Chars)
	s.fullChar += int64(it.Chars)
	s.bit.add(int(i), int64(it.Tokens))
	if i < s.maxPos {
		// admitted before an item already in the prompt: a change there
		s.changed = true
		s.minChanged = min(s.minChanged, i)
	}
	s.maxPos = max(s.maxPos, i)
}

func (s *Sim) reset(tr *Trace) {
	n := len(tr.Items)
	s.Tr = tr
	s.T = 0
	s.mode = resize(s.mode, n)
	s.tok = resize(s.tok, n)
	s.chr = resize(s.chr, n)
	s.head = resize(s.head, n)
	s.tail = resize(s.tail, n)
	s.version = resize(s.version, n)
	s.reinvVer = resize(s.reinvVer, n)
	s.asLogged = resize(s.asLogged, n)
	for i := range s.reinvVer {
		s.reinvVer[i] = -1
	}
	s.admitted = resize(s.admitted, n)
	s.bit = resize(s.bit, n+1)
	s.nAdmitted, s.maxPos = 0, 0
	s.sum, s.full, s.chars, s.fullChar = 0, 0, 0, 0
	s.placeholders = 0
	s.summary, s.injected, s.injections = 0, 0, 0
	s.minChanged, s.changed, s.activated = math.MaxInt32, false, false
	s.summIn, s.summOut, s.summCalls = 0, 0, 0
}

// resize returns a zeroed slice of length n, reusing buf's storage.
func resize[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n)
	}
	buf = buf[:n]
	clear(buf)
	return buf
}

// BoundaryInput is the run's reading-boundary input.
func (r *RunResult) BoundaryInput() diagnose.BoundaryRun {
	return diagnose.BoundaryRun{RunID: r.RunID, Call: r.BoundaryCall, Event: r.BoundaryEvent, Finished: r.BoundaryFinished, StoppedWhileReading: r.ReadingStop}
}

// Boundary turns replay results into the reading-boundary input.
func Boundary(rs []RunResult) []diagnose.BoundaryRun {
	out := make([]diagnose.BoundaryRun, len(rs))
	for i, r := range rs {
		out[i] = r.BoundaryInput()
	}
	return out
}
