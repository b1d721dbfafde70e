package simulate

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/trajmine/trajmine/counterfactual"
	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/mining"
	"github.com/trajmine/trajmine/schema"
)

// ItemKind is the kind of a prompt item.
type ItemKind uint8

// Item kinds.
const (
	ItemSystem ItemKind = iota
	ItemUser
	ItemAssistant
	ItemReasoning
	ItemToolCall
	ItemToolResult
)

var itemKindNames = [...]string{"system", "user", "assistant", "reasoning", "tool_call", "tool_result"}

func (k ItemKind) String() string { return itemKindNames[k] }

// Action classes of tool calls and results, as package actions names them.
const (
	ClassOther uint8 = iota
	ClassRead
	ClassSearch
	ClassEdit
	ClassExecute
	ClassTest
	ClassContext
	ClassSubmit
)

// ClassNames maps class codes to names.
var ClassNames = [...]string{"other", "read", "search", "edit", "execute", "test", "context", "submit"}

// ClassCode returns the code of a class name (ClassOther when unknown).
func ClassCode(name string) uint8 {
	for i, n := range ClassNames {
		if n == name {
			return uint8(i)
		}
	}
	return ClassOther
}

// Target kinds of a tool call's target (Item.Target): mining.TargetKind of
// the call's normalised target (schema.Event.Target), coarsened — every
// file extension is TargetFile, and a command line and a search query are
// both TargetCommand (mining.TargetKind's "cmd"; the action class tells a
// search from an execution).
const (
	TargetNone uint8 = iota
	TargetFile
	TargetDir
	TargetGlob
	TargetURL
	TargetCommand
)

// TargetNames maps target kind codes to names.
var TargetNames = [...]string{"none", "file", "dir", "glob", "url", "cmd"}

// TargetCode returns the target kind of a normalised tool call target.
func TargetCode(target string) uint8 {
	switch k := mining.TargetKind(target); k {
	case "":
		return TargetNone
	case "url":
		return TargetURL
	case "cmd":
		return TargetCommand
	case "glob":
		return TargetGlob
	case "dir":
		return TargetDir
	default: // "file" or an extension
		return TargetFile
	}
}

// Item is one prompt item of a Trace.
type Item struct {
	Seq    int64
	Since  int32 // the first model call whose prompt holds the item
	Kind   ItemKind
	Class  uint8  // action class of a tool call, or of the call that produced a tool result
	Target uint8  // target kind (TargetNames) of a tool call, or of the call that produced a tool result
	Head   bool   // part of the protected head: system items and the first user item
	Call   int32  // tool results: index in Items of the tool call that produced it; -1 when unknown
	Tokens int32  // full rendering, in tokens
	Chars  int32  // full rendering, in characters
	Lines  int32  // lines of text (tool results), for placeholders that name them
	Tool   string // tool name (tool calls and results)
	Key    string // tool key (tool results): what manage_context names
	// Envelope is the tokens of the DTOC envelope a tool result is logged
	// in (Tokens include them); 0 when the log shows none.
	Envelope int32
	// Carried marks a reasoning item the log does not record but bills: the
	// output tokens of a call beyond its recorded output items (see fitTokens).
	Carried bool
	// Until, when > 0, is the last call whose prompt holds the item whatever
	// the policy (carried reasoning goes when a new user message comes).
	Until int32
}

// LoggedOp is one logged visibility change of a tool result (a DTOC
// manage_context disable or enable, or a harness masking of one output).
type LoggedOp struct {
	Item    int32 // index in Items
	From    int32 // first call the change applies to
	Visible bool  // enable (true) or disable (false)
	// After is what the log says the output holds once hidden (a masking or
	// truncation op's tokens_after), in tokens; 0 when it does not say.
	After int32
	// DTOC: a manage_context disable or enable, the agent's own (left out
	// of the run without its manage_context calls, see WithoutContextCalls).
	DTOC bool
}

// Compaction is one harness compaction the log shows: from call Call on,
// the items before index Upto (system items excepted) are replaced by a
// summary of Summary tokens.
type Compaction struct {
	Call int32 // the first call whose prompt is compacted
	Upto int32 // items [0, Upto) were in the history the compaction summarized
	// Summary is the summary's size: the log's tokens after the compaction
	// when it states them, else the summary text the log records (the
	// tokens of its compaction events of at least MinLoggedSummary tokens,
	// × the token model's factor); -1 when neither, and the replay uses the
	// compact-* policies' summary-size model.
	Summary int64
	// Files, when > 0, is how many recently read files the harness
	// re-attaches after the summary (Claude Code: 5, each cut to 5,000
	// tokens, 50,000 in all, as compact-claude-code does): the newest read
	// results among the summarized items stay.
	Files   int
	seq     int64 // the last compaction event's seq (NewTrace)
	keepSeq int64 // items from this seq on were kept verbatim (pi's firstKeptEntryIndex); 0 none
}

// MinLoggedSummary is the fewest tokens of a compaction event's text taken
// as (part of) the logged summary; shorter texts are boundary markers
// ("compact_boundary", "Conversation compacted": at most 16 tokens in the
// shared corpus).
const MinLoggedSummary = 20

// Use is one later use of a tool result (see package counterfactual).
type Use struct {
	Item    int32   // index in Items of the tool result used
	Call    int32   // the call whose prompt needed it
	Content bool    // a content use (else a target use: the same target acted on again)
	Offsets []int32 // content uses: character offsets of the evidence in the output
}

// Trace is one run prepared for replay. Build it with NewTrace, or by hand
// (tests, benchmarks).
type Trace struct {
	RunID, Format, Harness, Model, Family string
	Window                                int64 // the run's own window (log or known-model table); 0 unknown

	Items  []Item  // seq order
	Admit  []int32 // indexes of Items in admission order (Since, then seq)
	Expire []int32 // indexes of Items with Until > 0, by Until
	NCalls int
	Output []int32 // per call: output tokens (logged, else estimated)
	Logged []int64 // per call: logged input tokens (cache reads and writes included); -1 when not logged
	// CacheRead and CacheWrite are, per call, the cache-read and
	// cache-write input tokens the log states (Claude Code
	// cache_read_input_tokens / cache_creation_input_tokens, Codex
	// cached_input_tokens, Gemini cached, OpenAI-style cached_tokens); -1
	// where the call has no logged usage. A log that records no caching
	// states 0 everywhere: CacheStated tells the two apart per run.
	CacheRead, CacheWrite []int64
	// CacheStated: some logged call states a cache read or write, so the
	// run's zeros are misses, not a log without cache fields.
	CacheStated bool
	// CallTime is each call's time in Unix milliseconds as logged (its
	// usage row's timestamp, else that of its first output event); 0 when
	// the log has none. Prompt-cache expiry (CacheModel.TTL) compares the
	// gaps between calls with it.
	CallTime []int64
	// Cache is the provider's prompt-cache rule the replays apply
	// (CacheModelFor the run's model and family; the zero value, ideal
	// prefix caching, for a hand-built trace).
	Cache  CacheModel
	Prefix int64 // hidden prefix tokens (see the package doc)
	Tokens TokenModel
	// Holdout are keep-all's out-of-sample relative errors against the
	// logged input (see fitTokens); the simulator's own accuracy.
	Holdout []float64
	// HoldoutFitted: the holdout model was a least-squares fit (≥ 3 logged
	// calls in the first half), not the raw estimate anchored on one call.
	HoldoutFitted bool
	// FirstCompaction is the first call at or after which the log shows a
	// harness compaction; NCalls when none.
	FirstCompaction int
	// Compactions are the log's harness compactions (summaries,
	// condensations, continuations), by call: what the as-logged replay
	// applies (see AsLogged).
	Compactions []Compaction
	Ops         []LoggedOp // sorted by From, then item
	Uses        []Use      // sorted by Call, then item
	// ReadingAt[k] (k = 0..NCalls): a run stopping before call k stops while
	// reading (diagnose.StoppedWhileReading over the tool calls made before k).
	ReadingAt []bool
	// Stalls are the calls whose prompt first holds a repeated (command,
	// identical output) pair: where a stall detector injects its message.
	Stalls   []int32
	Finished bool // the log says the run finished
	remap    []int32
	keepAll  []int64 // keep-all prompt per call, computed once
	// keep-all's cache reads and writes per call under kaModel (Cache when
	// keepAll was computed), computed with it
	kaCached, kaWrite []int64
	kaModel           CacheModel
	asLogged          []CallResult // the as-logged replay per call, computed once
	WindowEnd         bool         // the run ended on window length (diagnose's end reason)
	// Query is the text of the run's first user message (at most
	// maxQuery bytes): the task, which the learned policy conditions on.
	Query string
	// noCtx is the run without the agent's manage_context calls
	// (WithoutContextCalls); orig, on such a reduced trace, maps each of its
	// calls to the logged run's call.
	noCtx *Trace
	orig  []int32
}

// TraceOptions configures NewTrace.
type TraceOptions struct {
	// Factor is the stored calibration factor (trajmine calibrate) for the
	// run's format and model, used when the run's own usage cannot be fitted
	// (see fitTokens); 0 means 1.
	Factor float64
	// Classify gives a tool call's action class name; nil means
	// diagnose.FallbackClassify.
	Classify diagnose.ClassifyFunc
	// Uses are the run's counterfactual uses; nil computes them.
	Uses []counterfactual.Use
	// Stalls are the run's diagnose.Stalls; nil computes them.
	Stalls *diagnose.RunStalls
}

// NewTrace prepares one run for replay from its records: events in seq
// order, usage rows, context ops, and its diagnosed end. The window is the
// run's own (diagnose.Window without override).
func NewTrace(run schema.Run, events []schema.Event, usage []schema.Usage, ops []schema.ContextOp, end diagnose.End, o *TraceOptions) *Trace {
	if o == nil {
		o = &TraceOptions{}
	}
	factor := o.Factor
	if factor <= 0 {
		factor = 1
	}
	classify := o.Classify
	if classify == nil {
		classify = diagnose.FallbackClassify
	}
	w, _ := diagnose.Window(run, 0)
	tr := &Trace{RunID: run.RunID, Format: run.SourceFormat, Harness: run.Harness, Model: run.Model, Family: run.ModelFamily,
		Window: w, Finished: end.Reason == schema.EndFinished, WindowEnd: end.WindowEnd(),
		Items: make([]Item, 0, len(events))}

	// number of calls: n_turns, else one past the largest output turn
	n := run.NTurns
	for _, e := range events {
		if e.Kind.IsOutput() {
			n = max(n, e.Turn+1)
		}
	}
	for _, u := range usage {
		n = max(n, u.Turn+1)
	}
	tr.NCalls = int(n)
	tr.FirstCompaction = tr.NCalls

	evItem := make([]int32, len(events)) // event index → item index, -1 when not an item
	callItem := map[string]int32{}       // call id → tool call item
	keyItem := map[string]int32{}        // tool key → tool result item
	firstUser := true
	var lastCall int32 = -1
	for i, e := range events {
		evItem[i] = -1
		var k ItemKind
		switch e.Kind {
		case schema.KindSystem:
			k = ItemSystem
		case schema.KindUser:
			k = ItemUser
		case schema.KindAssistant:
			k = ItemAssistant
		case schema.KindReasoning:
			k = ItemReasoning
		case schema.KindToolCall:
			k = ItemToolCall
		case schema.KindToolResult:
			k = ItemToolResult
		case schema.KindError:
			// an error event is prompt content when it is an input (a failed tool, an API error shown to the model)
			k = ItemUser
		case schema.KindCompaction:
			if int(e.Turn) < tr.FirstCompaction {
				tr.FirstCompaction = max(int(e.Turn), 0)
			}
			// consecutive compaction events of one call (a boundary marker
			// and its summary) are one compaction
			c := int32(clamp64(e.Turn, 0, math.MaxInt32))
			text := e.EstTokens
			if text < MinLoggedSummary {
				text = 0 // a boundary marker, not a summary
			}
			if n := len(tr.Compactions); n > 0 && tr.Compactions[n-1].Call == c {
				tr.Compactions[n-1].seq = e.Seq
				tr.Compactions[n-1].Summary += text
			} else {
				tr.Compactions = append(tr.Compactions, Compaction{Call: c, seq: e.Seq, Summary: text})
			}
			continue
		default: // context_op events are not prompt content
			continue
		}
		since := e.Turn
		if e.Kind.IsOutput() {
			since++
		}
		tok := e.SeenTokens() // a DTOC envelope included: the model saw it
		it := Item{Seq: e.Seq, Since: int32(clamp64(since, 0, math.MaxInt32)), Kind: k, Call: -1,
			Tokens: int32(clamp64(tok, 0, math.MaxInt32)), Chars: int32(clamp64(e.Chars, 0, math.MaxInt32)), Tool: e.ToolName}
		switch k {
		case ItemSystem:
			it.Head = true
		case ItemUser:
			it.Head = firstUser
			if firstUser && e.Kind == schema.KindUser {
				tr.Query = strings.Clone(e.Text[:min(len(e.Text), maxQuery)])
			}
			firstUser = false
		case ItemToolCall:
			it.Class = ClassCode(classify(run.Harness, e.ToolName, e.Args))
			it.Target = TargetCode(e.Target)
		case ItemToolResult:
			it.Lines = int32(clamp64(int64(strings.Count(e.Text, "\n")+1), 0, math.MaxInt32))
			it.Key = e.ToolKey
			it.Envelope = int32(clamp64(e.EnvelopeTokens, 0, math.MaxInt32))
			if it.Key == "" {
				it.Key = e.CallID
			}
		}
		idx := int32(len(tr.Items))
		switch k {
		case ItemToolCall:
			if e.CallID != "" {
				callItem[e.CallID] = idx
			}
			lastCall = idx
		case ItemToolResult:
			c, ok := callItem[e.CallID]
			if !ok || e.CallID == "" {
				c = lastCall
			}
			it.Call = c
			it.Target = TargetCode(e.Target) // its own, when no call produced it
			if c >= 0 {
				it.Class = tr.Items[c].Class
				it.Target = tr.Items[c].Target
				if it.Tool == "" {
					it.Tool = tr.Items[c].Tool
				}
			}
			if it.Key != "" {
				keyItem[it.Key] = idx
			}
		}
		evItem[i] = idx
		tr.Items = append(tr.Items, it)
	}
	tr.Admit = admissionOrder(tr.Items)

	// logged input per call; then the token model (see fitTokens) scales the
	// items; then per-call outputs (logged, else the scaled estimate)
	tr.Logged = make([]int64, tr.NCalls)
	for i := range tr.Logged {
		tr.Logged[i] = -1
	}
	for _, u := range usage {
		if u.Turn >= 0 && int(u.Turn) < tr.NCalls && !u.Estimated && u.InputTokens > 0 {
			tr.Logged[u.Turn] = u.InputTokens
		}
	}
	tr.loggedCache(events, usage)
	tr.Cache = CacheModelFor(run.Model, run.ModelFamily)
	// output tokens the log bills beyond the recorded output items (hidden
	// reasoning): a candidate for what later prompts carry (see fitTokens)
	carry := make([]int64, tr.NCalls)
	{
		est := make([]int64, tr.NCalls)
		for _, it := range tr.Items {
			if (it.Kind == ItemAssistant || it.Kind == ItemReasoning || it.Kind == ItemToolCall) && int(it.Since-1) < tr.NCalls && it.Since >= 1 {
				est[it.Since-1] += int64(it.Tokens)
			}
		}
		for _, u := range usage {
			if u.Turn >= 0 && int(u.Turn) < tr.NCalls && !u.Estimated && u.OutputTokens > est[u.Turn] {
				carry[u.Turn] = u.OutputTokens - est[u.Turn]
			}
		}
	}
	tr.fitTokens(factor, carry)
	if tr.remap != nil { // carried-output items were inserted
		for k, v := range keyItem {
			keyItem[k] = tr.remap[v]
		}
		for i, v := range evItem {
			if v >= 0 {
				evItem[i] = tr.remap[v]
			}
		}
		tr.remap = nil
	}
	tr.compactions(events, ops)
	tr.Output = make([]int32, tr.NCalls)
	estOut := make([]int64, tr.NCalls)
	for _, it := range tr.Items {
		if (it.Kind == ItemAssistant || it.Kind == ItemReasoning || it.Kind == ItemToolCall) && int(it.Since-1) < tr.NCalls && it.Since >= 1 {
			estOut[it.Since-1] += int64(it.Tokens)
		}
	}
	for t := range tr.Output {
		tr.Output[t] = int32(min(estOut[t], math.MaxInt32))
	}
	for _, u := range usage {
		if u.Turn >= 0 && int(u.Turn) < tr.NCalls && u.OutputTokens > 0 {
			tr.Output[u.Turn] = int32(min(u.OutputTokens, math.MaxInt32))
		}
	}

	// logged visibility ops on single outputs
	for _, op := range ops {
		idx, ok := keyItem[op.ToolKey]
		if op.ToolKey == "" || !ok || op.Seq < tr.Items[idx].Seq {
			continue
		}
		switch op.Op {
		case schema.OpDisable:
			tr.Ops = append(tr.Ops, LoggedOp{Item: idx, From: int32(op.Turn + 1), Visible: false, DTOC: true})
		case schema.OpEnable:
			tr.Ops = append(tr.Ops, LoggedOp{Item: idx, From: int32(op.Turn + 1), Visible: true, DTOC: true})
		case schema.OpMasking, schema.OpTruncation:
			var after int32
			if op.TokensAfter != nil && *op.TokensAfter > 0 {
				after = int32(min(*op.TokensAfter, math.MaxInt32))
			}
			tr.Ops = append(tr.Ops, LoggedOp{Item: idx, From: int32(op.Turn), Visible: false, After: after})
		}
	}
	slices.SortStableFunc(tr.Ops, func(a, b LoggedOp) int {
		return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.Item, b.Item))
	})

	// uses
	uses := o.Uses
	if uses == nil {
		uses = counterfactual.Uses(events)
	}
	ascii := map[int]bool{} // per output: its text is ASCII, so byte offsets are character offsets
	for _, u := range uses {
		if u.Output < 0 || u.Output >= len(evItem) || evItem[u.Output] < 0 || u.Call < 0 || u.Call >= int64(tr.NCalls) {
			continue
		}
		tu := Use{Item: evItem[u.Output], Call: int32(u.Call), Content: u.Kind == counterfactual.UseContent}
		if len(u.Offsets) > 0 {
			text := events[u.Output].Text
			a, ok := ascii[u.Output]
			if !ok {
				a = isASCII(text)
				ascii[u.Output] = a
			}
			for _, off := range u.Offsets {
				if a {
					tu.Offsets = append(tu.Offsets, min(off, int32(len(text))))
				} else {
					tu.Offsets = append(tu.Offsets, runeOffset(text, off))
				}
			}
		}
		tr.Uses = append(tr.Uses, tu)
	}
	slices.SortStableFunc(tr.Uses, func(a, b Use) int {
		return cmp.Or(cmp.Compare(a.Call, b.Call), cmp.Compare(a.Item, b.Item))
	})

	// reading at each stop point: the last BoundaryK tool calls before call k
	tr.ReadingAt = readingAt(tr)

	// stalls: the call that first sees the repeated pair's result
	st := o.Stalls
	if st == nil {
		s := diagnose.Stalls(events)
		st = &s
	}
	seqItem := map[int64]int32{}
	for i, it := range tr.Items {
		if !it.Carried {
			seqItem[it.Seq] = int32(i)
		}
	}
	for _, s := range st.Stalls {
		for _, seq := range s.ResultSeqs[1:] {
			if i, ok := seqItem[seq]; ok && int(tr.Items[i].Since) < tr.NCalls {
				tr.Stalls = append(tr.Stalls, tr.Items[i].Since)
			}
		}
	}
	slices.Sort(tr.Stalls)
	tr.Stalls = slices.Compact(tr.Stalls)
	tr.keepAllPrompts()
	tr.asLoggedCalls()
	tr.noCtx = tr.withoutContextCalls()
	return tr
}

// compactions completes Trace.Compactions once the items are scaled: the
// items each one summarized (by seq: those before it, less the tail the
// log says it kept: pi's firstKeptEntryIndex=N in the op's detail, the
// file's entry N, 0-based, on line N+1), the files Claude Code re-attaches,
// and its summary size (see Compaction.Summary) from the ops of its call or
// its scaled event text. Compactions at or past the last call change no
// replayed prompt and are dropped.
func (tr *Trace) compactions(events []schema.Event, ops []schema.ContextOp) {
	out := tr.Compactions[:0]
	for _, c := range tr.Compactions {
		if int(c.Call) >= tr.NCalls {
			continue
		}
		for _, op := range ops {
			if op.Op != schema.OpCompaction || int32(clamp64(op.Turn, 0, math.MaxInt32)) != c.Call {
				continue
			}
			v, ok := strings.CutPrefix(op.Detail, "firstKeptEntryIndex=")
			n, err := strconv.ParseInt(v, 10, 64)
			if !ok || err != nil {
				continue
			}
			for _, e := range events {
				if e.Line >= n+1 && e.Seq < c.seq {
					c.keepSeq = e.Seq
					break
				}
			}
		}
		end := c.seq
		if c.keepSeq > 0 {
			end = c.keepSeq - 1
		}
		c.Upto = int32(sort.Search(len(tr.Items), func(i int) bool { return tr.Items[i].Seq > end }))
		if tr.Harness == "claude-code" {
			c.Files = 5
		}
		est := c.Summary
		c.Summary = -1
		if est > 0 {
			c.Summary = int64(math.Round(float64(est) * tr.Tokens.Factor))
		}
		for _, op := range ops {
			switch op.Op {
			case schema.OpCompaction, schema.OpSummary, schema.OpContinuation:
				if int32(clamp64(op.Turn, 0, math.MaxInt32)) == c.Call && op.TokensAfter != nil && *op.TokensAfter > 0 {
					c.Summary = *op.TokensAfter
				}
			}
		}
		out = append(out, c)
	}
	tr.Compactions = out
}

// runeOffset converts a byte offset in s to a character offset (the unit of
// Item.Chars), so truncation can tell whether the evidence survived.
func runeOffset(s string, b int32) int32 {
	if int(b) > len(s) {
		b = int32(len(s))
	}
	return int32(utf8.RuneCountInString(s[:b]))
}

// isASCII reports whether s has only ASCII bytes.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// keepAllPrompts returns keep-all's prompt at each call: prefix + Σ tokens
// of the items admitted by then. Computed on first use; Finalize and
// NewTrace compute it so that a trace can be replayed from several
// goroutines.
func (tr *Trace) keepAllPrompts() []int64 {
	if tr.keepAll != nil && len(tr.keepAll) == tr.NCalls {
		return tr.keepAll
	}
	ka := make([]int64, tr.NCalls)
	var sum int64
	j, x := 0, 0
	for t := range ka {
		for ; x < len(tr.Expire) && int(tr.Items[tr.Expire[x]].Until) < t; x++ {
			if it := &tr.Items[tr.Expire[x]]; int(it.Since) < t {
				sum -= int64(it.Tokens)
			}
		}
		for j < len(tr.Admit) && int(tr.Items[tr.Admit[j]].Since) <= t {
			if it := &tr.Items[tr.Admit[j]]; it.Until == 0 || int(it.Until) >= t {
				sum += int64(it.Tokens)
			}
			j++
		}
		ka[t] = tr.Prefix + sum
	}
	tr.keepAll = ka
	tr.kaModel = tr.Cache
	tr.kaCached, tr.kaWrite = tr.keepAllCacheOf(tr.Cache)
	return ka
}

// keepAllCache returns keep-all's cache reads and writes per call under
// rule m: computed with keepAllPrompts for the trace's own rule, else
// now.
func (tr *Trace) keepAllCache(m CacheModel) (cached, written []int64) {
	if m == tr.kaModel && len(tr.kaCached) == tr.NCalls {
		return tr.kaCached, tr.kaWrite
	}
	return tr.keepAllCacheOf(m)
}

// keepAllCacheOf computes keep-all's cache reads and writes under m: the
// prefix of call t's keep-all prompt unchanged since the previous call is
// the previous keep-all prompt (no more than call t's).
func (tr *Trace) keepAllCacheOf(m CacheModel) (cached, written []int64) {
	ka := tr.keepAllPrompts()
	cached, written = make([]int64, len(ka)), make([]int64, len(ka))
	var st cacheState
	system := tr.systemPrefix()
	for t, p := range ka {
		var prev int64
		if t > 0 {
			prev = ka[t-1]
		}
		cached[t], written[t] = m.next(&st, t, tr.callTime(t), p, prev, system)
	}
	return cached, written
}

// callTime is call t's logged time (Unix ms), 0 unknown.
func (tr *Trace) callTime(t int) int64 {
	if t < len(tr.CallTime) {
		return tr.CallTime[t]
	}
	return 0
}

// expiryOrder lists the items with an Until, by Until.
func expiryOrder(items []Item) []int32 {
	var ex []int32
	for i, it := range items {
		if it.Until > 0 {
			ex = append(ex, int32(i))
		}
	}
	slices.SortStableFunc(ex, func(a, b int32) int { return cmp.Compare(items[a].Until, items[b].Until) })
	return ex
}

// arrivals is a policy's position in its trace's admission order
// (Trace.Admit): the items it has seen arrive.
type arrivals int

// upTo moves past the items that arrive by call t (Since ≤ t) and returns
// them, in admission order.
func (a *arrivals) upTo(tr *Trace, t int) []int32 {
	from, n := int(*a), int(*a)
	for n < len(tr.Admit) && int(tr.Items[tr.Admit[n]].Since) <= t {
		n++
	}
	*a = arrivals(n)
	return tr.Admit[from:n]
}

func admissionOrder(items []Item) []int32 {
	ad := make([]int32, len(items))
	for i := range ad {
		ad[i] = int32(i)
	}
	slices.SortStableFunc(ad, func(a, b int32) int { return cmp.Compare(items[a].Since, items[b].Since) })
	return ad
}

// readingAt computes Trace.ReadingAt with diagnose's rule: among the last
// diagnose.BoundaryK tool calls before call k, at least one read or search
// and no edit, test or submit.
func readingAt(tr *Trace) []bool {
	out := make([]bool, tr.NCalls+1)
	var calls []int32 // tool-call items by Since (the call after the one that made them)
	for i, it := range tr.Items {
		if it.Kind == ItemToolCall {
			calls = append(calls, int32(i))
		}
	}
	j := 0
	for k := 0; k <= tr.NCalls; k++ {
		for j < len(calls) && int(tr.Items[calls[j]].Since) <= k {
			j++
		}
		lo := max(0, j-diagnose.BoundaryK)
		reading := false
		for _, c := range calls[lo:j] {
			switch tr.Items[c].Class {
			case ClassEdit, ClassTest, ClassSubmit:
				reading = false
				goto done
			case ClassRead, ClassSearch:
				reading = true
			}
		}
	done:
		out[k] = reading
	}
	return out
}

// Finalize fills the derived fields of a hand-built Trace (Admit, ReadingAt
// when nil, Output and Logged of the right length) and sorts Ops and Uses.
func (tr *Trace) Finalize() {
	tr.Admit = admissionOrder(tr.Items)
	tr.Expire = expiryOrder(tr.Items)
	if tr.FirstCompaction == 0 {
		tr.FirstCompaction = tr.NCalls
	}
	if len(tr.Output) < tr.NCalls {
		tr.Output = append(tr.Output, make([]int32, tr.NCalls-len(tr.Output))...)
	}
	for len(tr.Logged) < tr.NCalls {
		tr.Logged = append(tr.Logged, -1)
	}
	if tr.ReadingAt == nil {
		tr.ReadingAt = readingAt(tr)
	}
	slices.SortStableFunc(tr.Ops, func(a, b LoggedOp) int {
		return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.Item, b.Item))
	})
	slices.SortStableFunc(tr.Uses, func(a, b Use) int {
		return cmp.Or(cmp.Compare(a.Call, b.Call), cmp.Compare(a.Item, b.Item))
	})
	tr.keepAll, tr.asLogged = nil, nil
	tr.keepAllPrompts()
	tr.asLoggedCalls()
	tr.noCtx = tr.withoutContextCalls()
}

// maxQuery is the most bytes of the first user message Trace.Query keeps.
const maxQuery = 4096

func clamp64(v, lo, hi int64) int64 { return min(max(v, lo), hi) }
