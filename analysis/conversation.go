package analysis

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/trajmine/trajmine/dashboards"
	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/internal/parallel"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/textfmt"
	"github.com/trajmine/trajmine/redact"
	"github.com/trajmine/trajmine/schema"
)

// ConversationOptions configure Conversation.
type ConversationOptions struct {
	// Limit is how many characters of each event's text and of each tool
	// call's arguments are kept; 0 keeps them whole.
	Limit int
	// Redact, when set, replaces the secrets of every text shown (as the
	// page's other log text); nil keeps it as logged.
	Redact *redact.Redactor
	// Prices price each call's usage; nil is the embedded table (what
	// trajmine report's diagnose prices with).
	Prices diagnose.Prices

	memo *textMemo // PageConversations': texts redacted once for all runs
}

// Conversation is a run's conversation view (the page's drill-down,
// trajmine serve's conversation endpoint) from its stored rows:
//
//  1. every event in seq order becomes an item: its kind, role, tool,
//     call id, key, target, arguments and text (a tool call's text only
//     when it is more than "name arguments", which importers write), with
//     events.chars and est_tokens as logged; text and arguments are cut at o.Limit
//     characters and redacted (the redaction runs over what is kept and
//     secretMargin bytes more, so that a secret starting in what is kept
//     is replaced even when it runs past the cut);
//  2. each context_ops row is attached to the event of its seq, or
//     becomes an item of kind context_op at its place when no event has
//     that seq;
//  3. an op that names a tool key (a manage_context disable or enable, a
//     masking, a truncation) is also the fate of the tool output with that
//     key (schema.Event.OutputKey): what later happened to it, in log order;
//  4. each usage row is a call with its tokens and its cost: the row
//     priced alone with the price table (diagnose.RunCost's formula: a
//     run's logged total cost is not split per call).
func Conversation(run schema.Run, events []schema.Event, usage []schema.Usage, ops []schema.ContextOp, o *ConversationOptions) dashboards.Conversation {
	if o == nil {
		o = &ConversationOptions{}
	}
	red := o.Redact
	// a name or target whole, redacted (through the memo when there is one)
	str := func(s string) string {
		out, _ := shownText(red, s, 0, o.memo)
		return out
	}
	c := dashboards.Conversation{RunID: str(run.RunID), Events: len(events), Limit: o.Limit, Calls: []dashboards.ConvCall{}, Items: []dashboards.ConvItem{}}
	bare := run
	bare.CostUSD = nil // a call's cost is its usage priced, not the run's logged total
	for _, u := range usage {
		k := dashboards.ConvCall{Turn: u.Turn, Model: str(u.Model), Input: u.InputTokens, Output: u.OutputTokens, CacheRead: u.CacheReadTokens,
			CacheWrite: u.CacheWriteTokens, Reasoning: u.ReasoningTokens, Estimated: u.Estimated}
		if cost := diagnose.RunCost(bare, []schema.Usage{u}, o.Prices); cost.Source == diagnose.CostPriced {
			usd := cost.USD
			k.CostUSD = &usd
		}
		c.Calls = append(c.Calls, k)
	}
	bySeq := make(map[int64]int, len(events))
	byKey := map[string]int{}
	for _, e := range events {
		it := dashboards.ConvItem{Seq: e.Seq, Turn: e.Turn, Kind: string(e.Kind), Role: e.Role, Tool: str(e.ToolName), CallID: str(e.CallID),
			Key: str(e.ToolKey), Target: str(e.Target), Chars: e.Chars, Tokens: e.EstTokens, Error: e.IsError, Exit: e.ExitCode}
		text := e.Text
		if e.Kind == schema.KindToolCall && e.Args != "" && (text == e.Args || text == e.ToolName+" "+e.Args) {
			text = "" // the importer's "name arguments": the item shows both apart
		}
		var cut1, cut2 bool
		it.Text, cut1 = shownText(red, text, o.Limit, o.memo)
		it.Args, cut2 = shownText(red, e.Args, o.Limit, o.memo)
		if it.Cut = cut1 || cut2; it.Cut {
			c.Cut++
		}
		bySeq[e.Seq] = len(c.Items)
		if e.Kind == schema.KindToolResult {
			byKey[e.OutputKey()] = len(c.Items)
		}
		c.Items = append(c.Items, it)
	}
	var extra []dashboards.ConvItem // ops at no event's seq
	for _, op := range ops {
		v := dashboards.ConvOp{Op: string(op.Op), Seq: op.Seq, Turn: op.Turn, Key: str(op.ToolKey), Before: op.TokensBefore, After: op.TokensAfter,
			Trigger: op.Trigger, Detail: str(op.Detail)}
		if i, ok := bySeq[op.Seq]; ok {
			c.Items[i].Ops = append(c.Items[i].Ops, v)
		} else {
			extra = append(extra, dashboards.ConvItem{Seq: op.Seq, Turn: op.Turn, Kind: string(schema.KindContextOp), Ops: []dashboards.ConvOp{v}})
		}
		if i, ok := byKey[op.ToolKey]; ok && op.ToolKey != "" && op.Seq >= c.Items[i].Seq {
			c.Items[i].Fate = append(c.Items[i].Fate, v)
		}
	}
	if len(extra) > 0 {
		c.Items = append(c.Items, extra...)
		slices.SortStableFunc(c.Items, func(a, b dashboards.ConvItem) int { return cmp.Compare(a.Seq, b.Seq) })
	}
	return c
}

// secretMargin is how far past a cut text is redacted: a secret (other
// than a private-key block, which redact.Redactor.Head reads to its end)
// that starts in what is kept and is at most this long is replaced whole,
// not shown in part.
const secretMargin = 256

// shownText is s cut at limit characters (0: whole) and redacted, and
// whether it was cut. The markers of the secrets replaced in what is kept
// are added to red's count. With memo set, a text seen before (a system
// prompt every run repeats, a file read again) is not redacted again:
// its result is taken from memo, and its secrets counted again.
func shownText(red *redact.Redactor, s string, limit int, memo *textMemo) (string, bool) {
	if s == "" {
		return "", false
	}
	if memo != nil && red != nil {
		if v, ok := memo.get(s); ok {
			red.Add(v.n)
			return v.out, v.cut
		}
	}
	var v memoVal
	switch cut := limit > 0 && utf8.RuneCountInString(s) > limit; {
	case !cut:
		v.out, v.n = red.Text(s) // Text counts what it replaced
	case red == nil:
		return cutRunes(s, limit), true
	default:
		kept := cutRunes(s, limit)
		h, _ := red.Head(s, len(kept)+secretMargin)
		v.out, v.cut = cutRunes(h, limit), true
		v.n = redact.Markers(v.out)
		red.Add(v.n)
	}
	if memo != nil && red != nil {
		memo.put(s, v)
	}
	return v.out, v.cut
}

// textMemo is what shownText returned for each text redacted (keyed by
// a 64-bit hash of the text with a random seed, and its length),
// shared by the goroutines building a page's conversations.
type textMemo struct {
	seed maphash.Seed
	mu   sync.Mutex
	m    map[memoKey]memoVal
}

type memoKey struct {
	h uint64
	n int
}

type memoVal struct {
	out string
	cut bool
	n   int // secrets replaced in out
}

func newTextMemo() *textMemo {
	return &textMemo{seed: maphash.MakeSeed(), m: map[memoKey]memoVal{}}
}

func (m *textMemo) key(s string) memoKey { return memoKey{maphash.String(m.seed, s), len(s)} }

func (m *textMemo) get(s string) (memoVal, bool) {
	k := m.key(s)
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.m[k]
	return v, ok
}

func (m *textMemo) put(s string, v memoVal) {
	k := m.key(s)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.m[k] = v
}

// cutRunes is s's first n characters.
func cutRunes(s string, n int) string {
	i := 0
	for k := range s {
		if i == n {
			return s[:k]
		}
		i++
	}
	return s
}

// ErrNoRun is LoadConversation's error for a run id the store does not hold.
var ErrNoRun = errors.New("no such run")

// keyBlock starts a private key's block (PEM), whose redaction rule needs
// the block's end.
const keyBlock = "-----BEGIN"

// headChars is how many characters of each text LoadConversation reads
// for a limit: the limit and the redaction's margin (secretMargin bytes
// are at most as many characters); 0 (whole) for no limit.
func headChars(limit int) int {
	if limit <= 0 {
		return 0
	}
	return limit + secretMargin
}

// LoadConversation reads run runID's rows from st and builds its
// conversation (Conversation).
func LoadConversation(ctx context.Context, st *store.Store, runID string, o *ConversationOptions) (dashboards.Conversation, error) {
	cs, err := loadConversations(ctx, st, []string{runID}, o)
	if err != nil {
		return dashboards.Conversation{}, err
	}
	return cs[0], nil
}

// loadConversations builds the conversations of runs ids, in their order,
// from one read of their rows (store.ConversationRows). With a limit,
// only the head of each text is read: what is kept and the redaction's
// margin (headChars).
func loadConversations(ctx context.Context, st *store.Store, ids []string, o *ConversationOptions) ([]dashboards.Conversation, error) {
	if o == nil {
		o = &ConversationOptions{}
	}
	rows, err := st.ConversationRows(ctx, ids, headChars(o.Limit))
	if err != nil {
		return nil, err
	}
	return buildConversations(ctx, st, rows, ids, o)
}

// buildConversations builds the conversations of runs ids from rows, on
// every CPU (the redaction is the costly part). A text with a private
// key's block in its head is read whole first (store.EventText), for the
// key's rule needs the block's end.
func buildConversations(ctx context.Context, st *store.Store, rows map[string]*store.RunRows, ids []string, o *ConversationOptions) ([]dashboards.Conversation, error) {
	for _, id := range ids {
		if rows[id] == nil {
			return nil, fmt.Errorf("run %q: %w", id, ErrNoRun)
		}
	}
	out := make([]dashboards.Conversation, len(ids))
	errs := make([]error, len(ids))
	parallel.Start(ctx, len(ids), func(i int) {
		r := rows[ids[i]]
		for k := range r.Events {
			e := &r.Events[k]
			if o.Limit > 0 && (strings.Contains(e.Text, keyBlock) || strings.Contains(e.Args, keyBlock)) {
				if e.Text, e.Args, errs[i] = st.EventText(ctx, ids[i], e.Seq); errs[i] != nil {
					return
				}
			}
		}
		out[i] = Conversation(r.Run, r.Events, r.Usage, r.Ops, o)
	})()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, errors.Join(errs...)
}

// PageConversations fills d.Conversations and d.ConversationNote for
// trajmine report's page: the conversations of as many runs as fit budget
// bytes of the page (dashboards.ConversationSize: compressed, as the page
// carries them; dashboards.ConversationBudget by default), texts cut at
// limit characters, in the order a reader meets them: the sampled runs
// (the one shown first, then the sample's order), then the run list's
// order (peak share of the window, highest first; runs of an unknown
// window last; ties in diagnose's order). The first run that does not fit
// ends the list, so the page holds a prefix of that order. Runs are read
// and redacted on every CPU, pageBatch runs at a time.
func PageConversations(ctx context.Context, st *store.Store, d *dashboards.Data, red *redact.Redactor, limit, budget int) error {
	order := conversationOrder(d)
	o := &ConversationOptions{Limit: limit, Redact: red, memo: newTextMemo()}
	used := 0
	full := false
	for at := 0; at < len(order) && !full; at += pageBatch {
		ids := order[at:min(at+pageBatch, len(order))]
		rows, err := st.ConversationRows(ctx, ids, headChars(limit))
		if err != nil {
			return err
		}
		// built, redacted and compressed on every CPU, a chunk at a
		// time, so that the runs after the budget's end are not built
		for c := 0; c < len(ids) && !full; c += pageChunk {
			chunk := ids[c:min(c+pageChunk, len(ids))]
			convs, err := buildConversations(ctx, st, rows, chunk, o)
			if err != nil {
				return err
			}
			sizes := make([]int, len(chunk))
			errs := make([]error, len(chunk))
			parallel.Start(ctx, len(chunk), func(i int) {
				sizes[i], errs[i] = dashboards.ConversationSize(&convs[i])
			})()
			if err := errors.Join(append(errs, ctx.Err())...); err != nil {
				return err
			}
			for i := range chunk {
				if used+sizes[i] > budget {
					full = true
					break
				}
				used += sizes[i]
				d.Conversations = append(d.Conversations, convs[i])
			}
		}
	}
	d.ConversationNote = conversationNote(len(d.Conversations), len(order), limit, budget)
	if red != nil {
		d.Redacted = red.Count()
	}
	return nil
}

// pageBatch is how many runs' rows PageConversations reads at once: each
// read scans the events table (DuckDB has no index on run_id), so few
// large reads (about 32 MB of text heads each at 500 characters a text)
// cost less than many small ones.
const pageBatch = 256

// pageChunk is how many runs PageConversations builds between two looks
// at the budget.
const pageChunk = 16

// conversationNote states which conversations the page holds.
func conversationNote(n, runs, limit, budget int) string {
	cut := fmt.Sprintf("every text and tool-call argument cut at %s characters", textfmt.Thousands(int64(limit)))
	if n == runs {
		return fmt.Sprintf("This page holds the conversation of every run (%s), %s; trajmine serve shows them whole.", textfmt.Thousands(int64(runs)), cut)
	}
	return fmt.Sprintf("This page holds the conversations of %s of the %s runs (the sampled runs, then the run list's order by peak share, until the page's conversation budget of %s, compressed, was reached), %s; trajmine serve shows every run's, whole.",
		textfmt.Thousands(int64(n)), textfmt.Thousands(int64(runs)), textfmt.Bytes(int64(budget)), cut)
}

// conversationOrder is the order PageConversations fills the page in,
// as the store's run ids (RunRecord.StoreID: the page's ids, the sample's
// as the run list's, may be redacted).
func conversationOrder(d *dashboards.Data) []string {
	known := make(map[string]int, len(d.Runs))
	for i, r := range d.Runs {
		known[r.RunID] = i
	}
	var out []string
	seen := map[string]bool{}
	add := func(id string) {
		i, ok := known[id]
		if !ok {
			return
		}
		if sid := cmp.Or(d.Runs[i].StoreID, id); !seen[sid] {
			seen[sid] = true
			out = append(out, sid)
		}
	}
	if i := dashboards.DefaultRun(d); i >= 0 {
		add(d.Sample[i].RunID)
	}
	for _, s := range d.Sample {
		add(s.RunID)
	}
	rest := make([]int, len(d.Runs))
	for i := range rest {
		rest[i] = i
	}
	share := func(r *dashboards.RunRecord) float64 {
		if r.Window <= 0 {
			return -1
		}
		return r.PeakShare
	}
	slices.SortStableFunc(rest, func(a, b int) int { return cmp.Compare(share(&d.Runs[b]), share(&d.Runs[a])) })
	for _, i := range rest {
		add(d.Runs[i].RunID)
	}
	return out
}
