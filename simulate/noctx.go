package simulate

import (
	"sort"
	"strings"
)

// The manage_context counterfactual. A DTOC agent manages its context with
// manage_context tool calls, and each such call costs a whole model call:
// the full prompt is sent again to hide or re-show outputs, and the call's
// arguments and result stay in every later prompt. A harness running a
// policy that replaces the agent's context management (every mechanism but
// logged and dtoc: keep-all, masking, truncation, compaction) does not offer
// the tool, so those calls would not exist. Such a policy is replayed on
// the run without them (Trace.WithoutContextCalls):
//
//   - a context-only call (a model call whose tool calls are all
//     manage_context) is dropped: its prompt is not sent (its input tokens
//     leave the totals), its output items (text, reasoning, the tool calls)
//     and its tool results leave the history, and its output tokens leave
//     the totals; items that arrived after it (a user message) are admitted
//     at the next call that remains;
//   - a manage_context tool call inside a call that also does other work is
//     removed with its result; the call stays, its output tokens less the
//     removed tool call's tokens;
//   - every other action of the agent is held fixed, as in every replay:
//     what it would have done instead the log cannot say.
//
// The token model (factor, hidden prefix, holdout errors) is fitted on the
// run as logged, with its manage_context calls, and applied unchanged to
// the reduced run; keep-all's accuracy against the logged input is measured
// on the logged run. The comparison is with what ran over the same part of
// the run: as-logged's prompts and outputs include the dropped calls (see
// RunResult.DroppedContextCalls). dtoc and as-logged replay the logged run.

// isManageContext reports whether a tool is DTOC's manage_context (also
// under an MCP prefix, server__manage_context), as package counterfactual
// and the importers name it.
func isManageContext(name string) bool {
	return name == "manage_context" || strings.HasSuffix(name, "__manage_context")
}

// contextItem reports whether item it is a manage_context tool call or the
// result of one. The tool's name decides, not its action class: the default
// class rules (package actions) put manage_context in class context with
// plans, todo lists, thinking and sub-agents, which a harness running a
// mechanical policy still offers; and diagnose.FallbackClassify, what
// NewTrace uses without TraceOptions.Classify, has no context class.
func contextItem(it *Item) bool {
	return (it.Kind == ItemToolCall || it.Kind == ItemToolResult) && isManageContext(it.Tool)
}

// isOutput reports whether an item kind is a model call's output.
func isOutput(k ItemKind) bool {
	return k == ItemAssistant || k == ItemReasoning || k == ItemToolCall
}

// replacesContext is Def.ReplacesContext for a mechanism.
func replacesContext(mechanism string) bool {
	return mechanism != MechanismLogged && mechanism != MechanismDtoc
}

// Replaces reports whether p is a catalog policy that replaces the agent's
// own context management (Def.ReplacesContext). Policies built outside the
// catalog replay the run as logged.
func Replaces(p Policy) bool {
	n, ok := p.(interface{ args() *Args })
	if !ok || n.args() == nil || n.args().def == nil {
		return false
	}
	return n.args().def.ReplacesContext
}

// WithoutContextCalls returns the run without the agent's manage_context
// calls (see above), computed once by NewTrace and Finalize; nil when the
// run makes none.
func (tr *Trace) WithoutContextCalls() *Trace { return tr.noCtx }

// DroppedContextCalls is the number of context-only model calls
// WithoutContextCalls drops (0 when the run makes no manage_context call).
func (tr *Trace) DroppedContextCalls() int {
	if tr.noCtx == nil {
		return 0
	}
	return tr.NCalls - tr.noCtx.NCalls
}

// withoutContextCalls builds Trace.noCtx (nil when no item is a
// manage_context call or result). The reduced trace's calls are the kept
// calls in order; orig maps each to its call in tr.
func (tr *Trace) withoutContextCalls() *Trace {
	var any bool
	for i := range tr.Items {
		if contextItem(&tr.Items[i]) {
			any = true
			break
		}
	}
	if !any {
		return nil
	}
	// context-only calls: ≥ 1 tool call, all of them manage_context
	tools := make([]int, tr.NCalls)
	ctx := make([]int, tr.NCalls)
	removedOut := make([]int64, tr.NCalls) // tokens of removed tool calls of kept calls
	for i := range tr.Items {
		it := &tr.Items[i]
		if it.Kind != ItemToolCall || it.Since < 1 || int(it.Since) > tr.NCalls {
			continue
		}
		c := it.Since - 1
		tools[c]++
		if contextItem(it) {
			ctx[c]++
			removedOut[c] += int64(it.Tokens)
		}
	}
	drop := make([]bool, tr.NCalls)
	// newIdx[t] = kept calls before call t (t = 0..NCalls): the reduced
	// index of the first kept call at or after t
	newIdx := make([]int32, tr.NCalls+1)
	var orig []int32
	for t := 0; t < tr.NCalls; t++ {
		newIdx[t] = int32(len(orig))
		drop[t] = tools[t] > 0 && ctx[t] == tools[t]
		if !drop[t] {
			orig = append(orig, int32(t))
		}
	}
	newIdx[tr.NCalls] = int32(len(orig))
	mapSince := func(s int32) int32 {
		if s <= 0 {
			return s
		}
		if int(s) > tr.NCalls {
			return s - int32(tr.NCalls) + newIdx[tr.NCalls]
		}
		return newIdx[s]
	}
	// lastKept maps a call u to the reduced index of the last kept call ≤ u (-1 none)
	lastKept := func(u int32) int32 {
		if int(u) >= tr.NCalls {
			return int32(len(orig)) - 1 + (u - int32(tr.NCalls) + 1)
		}
		return newIdx[u+1] - 1
	}

	r := &Trace{RunID: tr.RunID, Format: tr.Format, Harness: tr.Harness, Model: tr.Model, Family: tr.Family, Window: tr.Window,
		NCalls: len(orig), Prefix: tr.Prefix, Tokens: tr.Tokens, Holdout: tr.Holdout, HoldoutFitted: tr.HoldoutFitted,
		Finished: tr.Finished, WindowEnd: tr.WindowEnd, Query: tr.Query, Cache: tr.Cache, CacheStated: tr.CacheStated, orig: orig}
	itemIdx := make([]int32, len(tr.Items)) // old item → new item, -1 removed
	for i := range tr.Items {
		it := tr.Items[i]
		itemIdx[i] = -1
		if contextItem(&it) || (isOutput(it.Kind) && it.Since >= 1 && int(it.Since) <= tr.NCalls && drop[it.Since-1]) {
			continue
		}
		it.Since = mapSince(it.Since)
		if it.Until > 0 {
			it.Until = lastKept(it.Until)
			if it.Until < it.Since {
				continue // every call that held it is gone
			}
		}
		if it.Call >= 0 {
			it.Call = itemIdx[it.Call] // a tool call comes before its results
		}
		itemIdx[i] = int32(len(r.Items))
		r.Items = append(r.Items, it)
	}
	r.Output = make([]int32, len(orig))
	r.Logged = make([]int64, len(orig))
	r.CallTime = make([]int64, len(orig))
	for k, t := range orig {
		r.Output[k] = int32(max(int64(tr.Output[t])-removedOut[t], 0))
		r.Logged[k] = tr.Logged[t]
		r.CallTime[k] = tr.callTime(int(t))
	}
	r.FirstCompaction = int(mapSince(int32(min(tr.FirstCompaction, tr.NCalls))))
	// items [0, Upto) map to the kept items among them
	keptBefore := func(upto int32) int32 {
		var n int32
		for i := int32(0); i < upto && int(i) < len(itemIdx); i++ {
			if itemIdx[i] >= 0 {
				n++
			}
		}
		return n
	}
	for _, c := range tr.Compactions {
		c.Call = mapSince(c.Call)
		c.Upto = keptBefore(c.Upto)
		if int(c.Call) < r.NCalls {
			r.Compactions = append(r.Compactions, c)
		}
	}
	// the agent's own disables and enables are what the counterfactual
	// replaces; the harness's masking and truncation ops stay
	for _, op := range tr.Ops {
		if op.DTOC || itemIdx[op.Item] < 0 {
			continue
		}
		op.Item = itemIdx[op.Item]
		op.From = mapSince(op.From)
		r.Ops = append(r.Ops, op)
	}
	for _, u := range tr.Uses {
		if int(u.Call) >= tr.NCalls || drop[u.Call] || itemIdx[u.Item] < 0 {
			continue // the call whose prompt needed it is gone
		}
		u.Item = itemIdx[u.Item]
		u.Call = newIdx[u.Call]
		r.Uses = append(r.Uses, u)
	}
	for _, s := range tr.Stalls {
		if m := mapSince(s); int(m) < r.NCalls && (len(r.Stalls) == 0 || r.Stalls[len(r.Stalls)-1] != m) {
			r.Stalls = append(r.Stalls, m)
		}
	}
	r.Admit = admissionOrder(r.Items)
	r.Expire = expiryOrder(r.Items)
	r.ReadingAt = readingAt(r)
	r.keepAllPrompts()
	return r
}

// origCall maps a call of the reduced trace r (as a replay of it reports
// it) to the call of the logged run: k < r.NCalls is r.orig[k], r.NCalls
// (past the end) is the logged run's NCalls; -1 stays -1.
func (r *Trace) origCall(k int, full *Trace) int {
	switch {
	case k < 0:
		return k
	case k < len(r.orig):
		return int(r.orig[k])
	}
	return full.NCalls + (k - len(r.orig))
}

// newCallsBefore is the number of r's calls whose logged call is before t.
func (r *Trace) newCallsBefore(t int) int {
	return sort.Search(len(r.orig), func(k int) bool { return int(r.orig[k]) >= t })
}
