package analysis

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
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
	c := dashboards.Conversation{RunID: run.RunID, Events: len(events), Limit: o.Limit, Calls: []dashboards.ConvCall{}, Items: []dashboards.ConvItem{}}
	bare := run
	bare.CostUSD = nil // a call's cost is its usage priced, not the run's logged total
	for _, u := range usage {
		k := dashboards.ConvCall{Turn: u.Turn, Model: red.String(u.Model), Input: u.InputTokens, Output: u.OutputTokens, CacheRead: u.CacheReadTokens,
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
		it := dashboards.ConvItem{Seq: e.Seq, Turn: e.Turn, Kind: string(e.Kind), Role: e.Role, Tool: red.String(e.ToolName), CallID: red.String(e.CallID),
			Key: red.String(e.ToolKey), Target: red.String(e.Target), Chars: e.Chars, Tokens: e.EstTokens, Error: e.IsError, Exit: e.ExitCode}
		text := e.Text
		if e.Kind == schema.KindToolCall && e.Args != "" && (text == e.Args || text == e.ToolName+" "+e.Args) {
			text = "" // the importer's "name arguments": the item shows both apart
		}
		var cut1, cut2 bool
		it.Text, cut1 = shownText(red, text, o.Limit)
		it.Args, cut2 = shownText(red, e.Args, o.Limit)
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
		v := dashboards.ConvOp{Op: string(op.Op), Seq: op.Seq, Turn: op.Turn, Key: red.String(op.ToolKey), Before: op.TokensBefore, After: op.TokensAfter,
			Trigger: op.Trigger, Detail: red.String(op.Detail)}
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
const secretMargin = 512

// shownText is s cut at limit characters (0: whole) and redacted, and
// whether it was cut. The markers of the secrets replaced in what is kept
// are added to red's count.
func shownText(red *redact.Redactor, s string, limit int) (string, bool) {
	if s == "" {
		return "", false
	}
	cut := limit > 0 && utf8.RuneCountInString(s) > limit
	if !cut {
		return red.String(s), false // String counts what it replaced
	}
	if red == nil {
		return cutRunes(s, limit), true
	}
	kept := cutRunes(s, limit)
	h, _ := red.Head(s, len(kept)+secretMargin)
	out := cutRunes(h, limit)
	red.Add(redact.Markers(out))
	return out, true
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

// ErrNoRun is LoadConversation's error for a run id the store does not hold.
var ErrNoRun = errors.New("no such run")

// LoadConversation reads run runID's rows from st and builds its
// conversation (Conversation).
func LoadConversation(ctx context.Context, st *store.Store, runID string, o *ConversationOptions) (dashboards.Conversation, error) {
	rs, err := st.Runs(ctx, store.RunFilter{RunID: runID})
	if err != nil {
		return dashboards.Conversation{}, err
	}
	if len(rs) != 1 {
		return dashboards.Conversation{}, fmt.Errorf("run %q: %w", runID, ErrNoRun)
	}
	// with a limit, only the head of each text is read: what is kept and
	// the redaction's margin (a private key's block is read whole, for its
	// rule needs the block's end)
	events, err := st.EventHeads(ctx, runID, headChars(o.Limit))
	if err != nil {
		return dashboards.Conversation{}, err
	}
	for i := range events {
		e := &events[i]
		if o.Limit > 0 && (strings.Contains(e.Text, keyBlock) || strings.Contains(e.Args, keyBlock)) {
			if e.Text, e.Args, err = st.EventText(ctx, runID, e.Seq); err != nil {
				return dashboards.Conversation{}, err
			}
		}
	}
	usage, err := st.Usage(ctx, runID)
	if err != nil {
		return dashboards.Conversation{}, err
	}
	ops, err := st.ContextOps(ctx, runID)
	if err != nil {
		return dashboards.Conversation{}, err
	}
	return Conversation(rs[0], events, usage, ops, o), nil
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
// and redacted on every CPU, a batch at a time.
func PageConversations(ctx context.Context, st *store.Store, d *dashboards.Data, red *redact.Redactor, limit, budget int) error {
	order := conversationOrder(d)
	o := &ConversationOptions{Limit: limit, Redact: red}
	used := 0
	full := false
	batch := 2 * max(1, len(order)/64)
	batch = min(max(batch, 8), 64)
	for at := 0; at < len(order) && !full; at += batch {
		ids := order[at:min(at+batch, len(order))]
		convs := make([]dashboards.Conversation, len(ids))
		sizes := make([]int, len(ids))
		errs := make([]error, len(ids))
		parallel.Start(ctx, len(ids), func(i int) {
			c, err := LoadConversation(ctx, st, ids[i], o)
			if err != nil {
				errs[i] = err
				return
			}
			n, err := dashboards.ConversationSize(&c)
			convs[i], sizes[i], errs[i] = c, n, err
		})()
		if err := ctx.Err(); err != nil {
			return err
		}
		for i := range ids {
			if errs[i] != nil {
				return errs[i]
			}
			if used+sizes[i] > budget {
				full = true
				break
			}
			used += sizes[i]
			d.Conversations = append(d.Conversations, convs[i])
		}
	}
	d.ConversationNote = conversationNote(len(d.Conversations), len(order), limit, budget)
	if red != nil {
		d.Redacted = red.Count()
	}
	return nil
}

// conversationNote states which conversations the page holds.
func conversationNote(n, runs, limit, budget int) string {
	cut := fmt.Sprintf("every text and tool-call argument cut at %s characters", textfmt.Thousands(int64(limit)))
	if n == runs {
		return fmt.Sprintf("This page holds the conversation of every run (%s), %s; trajmine serve shows them whole.", textfmt.Thousands(int64(runs)), cut)
	}
	return fmt.Sprintf("This page holds the conversations of %s of the %s runs (the sampled runs, then the run list's order by peak share, until the page's conversation budget of %s, compressed, was reached), %s; trajmine serve shows every run's, whole.",
		textfmt.Thousands(int64(n)), textfmt.Thousands(int64(runs)), textfmt.Bytes(int64(budget)), cut)
}

// conversationOrder is the order PageConversations fills the page in.
func conversationOrder(d *dashboards.Data) []string {
	known := make(map[string]int, len(d.Runs))
	for i, r := range d.Runs {
		known[r.RunID] = i
	}
	var out []string
	seen := map[string]bool{}
	add := func(id string) {
		if _, ok := known[id]; ok && !seen[id] {
			seen[id] = true
			out = append(out, id)
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
