package ingest

import (
	"strconv"
	"strings"
	"time"

	"github.com/trajmine/trajmine/schema"
)

// The GenAI event emitter (gaiEmitter), shared by the otel-genai-spans,
// langfuse-trace-export and opencode importers: it turns normalised messages
// into events, links results to calls and infers how a run ended.

// gaiCallState is a tool call the emitter added.
type gaiCallState struct {
	id, name, args string
	done           bool
}

// gaiEmitter adds messages to a run. Logs of this kind repeat the whole
// prompt at every model call, so the emitter keeps the multiset of items it
// has added (system texts, user texts, assistant turns, tool results) and adds
// from a prompt only the items that occur in it more often than they were
// added. Tool calls it added wait for their results, which tool spans find
// by id or, without one, by tool name in call order.
type gaiEmitter struct {
	b        *RunBuilder
	emitted  map[string]int
	calls    map[string]*gaiCallState
	pending  []*gaiCallState
	lastKind schema.EventKind
}

func newGaiEmitter(b *RunBuilder) *gaiEmitter {
	return &gaiEmitter{b: b, emitted: map[string]int{}, calls: map[string]*gaiCallState{}}
}

func (e *gaiEmitter) add(ev schema.Event) error {
	e.lastKind = ev.Kind
	return e.b.Add(ev)
}

// gaiItem is one unit of de-duplication: a system text, a user text, an
// assistant turn or a tool result.
type gaiItem struct {
	key string
	msg *gaiMsg    // assistant turns
	res *gaiResult // tool results
	txt string     // system and user texts
	knd schema.EventKind
}

func gaiItems(m *gaiMsg) []gaiItem {
	var out []gaiItem
	switch m.role {
	case "system":
		if m.text != "" {
			out = append(out, gaiItem{key: "s\x00" + m.text, txt: m.text, knd: schema.KindSystem})
		}
	case "assistant":
		if m.text == "" && m.reasoning == "" && len(m.calls) == 0 {
			break
		}
		var k strings.Builder
		k.WriteString("a\x00")
		ids := len(m.calls) > 0
		for _, c := range m.calls {
			ids = ids && c.id != ""
		}
		if ids {
			for _, c := range m.calls {
				k.WriteString(c.id + "\x00")
			}
		} else {
			k.WriteString(m.text + "\x00")
			for _, c := range m.calls {
				k.WriteString(c.name + "\x00" + c.args + "\x00")
			}
		}
		out = append(out, gaiItem{key: k.String(), msg: m})
	default:
		if m.text != "" {
			out = append(out, gaiItem{key: "u\x00" + m.text, txt: m.text, knd: schema.KindUser})
		}
	}
	for i := range m.results {
		r := &m.results[i]
		k := "r\x00" + r.id
		if r.id == "" {
			k += "\x00" + r.text
		}
		out = append(out, gaiItem{key: k, res: r})
	}
	return out
}

// input adds the items of a prompt that were not added before.
func (e *gaiEmitter) input(msgs []gaiMsg, ts *time.Time, line int64) error {
	occ := map[string]int{}
	for i := range msgs {
		for _, it := range gaiItems(&msgs[i]) {
			occ[it.key]++
			if occ[it.key] <= e.emitted[it.key] {
				continue
			}
			if err := e.item(it, ts, line, ""); err != nil {
				return err
			}
		}
	}
	return nil
}

// output adds a model call's output; tool calls without an id get
// idPrefix#n so that their results can be linked.
func (e *gaiEmitter) output(msgs []gaiMsg, ts *time.Time, line int64, idPrefix string) error {
	for i := range msgs {
		for _, it := range gaiItems(&msgs[i]) {
			if err := e.item(it, ts, line, idPrefix); err != nil {
				return err
			}
		}
	}
	return nil
}

func (e *gaiEmitter) item(it gaiItem, ts *time.Time, line int64, idPrefix string) error {
	e.emitted[it.key]++
	switch {
	case it.res != nil:
		return e.result(it.res.id, it.res.name, it.res.text, it.res.isError, ts, line)
	case it.msg != nil:
		m := it.msg
		if m.reasoning != "" {
			if err := e.add(schema.Event{Kind: schema.KindReasoning, Role: "assistant", TS: ts, Line: line, Text: m.reasoning}); err != nil {
				return err
			}
		}
		if m.text != "" {
			if err := e.add(schema.Event{Kind: schema.KindAssistant, Role: "assistant", TS: ts, Line: line, Text: m.text}); err != nil {
				return err
			}
		}
		for _, c := range m.calls {
			if c.id == "" && idPrefix != "" {
				c.id = idPrefix + "#" + strconv.Itoa(len(e.pending))
			}
			if err := e.call(c, ts, line); err != nil {
				return err
			}
		}
		return nil
	}
	role := "user"
	if it.knd == schema.KindSystem {
		role = "system"
	}
	return e.add(schema.Event{Kind: it.knd, Role: role, TS: ts, Line: line, Text: it.txt})
}

func (e *gaiEmitter) call(c gaiCall, ts *time.Time, line int64) error {
	if err := e.add(schema.Event{Kind: schema.KindToolCall, Role: "assistant", TS: ts, Line: line, ToolName: c.name, CallID: c.id, Args: c.args}); err != nil {
		return err
	}
	cs := &gaiCallState{id: c.id, name: c.name, args: CanonicalJSON([]byte(c.args))}
	e.pending = append(e.pending, cs)
	if c.id != "" {
		if _, ok := e.calls[c.id]; !ok {
			e.calls[strings.Clone(c.id)] = cs
		}
	}
	return nil
}

func (e *gaiEmitter) result(id, name, text string, isErr bool, ts *time.Time, line int64) error {
	if c := e.calls[id]; c != nil && id != "" {
		c.done = true
		if name == "" {
			name = c.name
		}
	}
	return e.add(schema.Event{Kind: schema.KindToolResult, Role: "tool", TS: ts, Line: line, ToolName: name, CallID: id, IsError: isErr, Text: text})
}

// match returns the id of the oldest call of the tool that has no result
// yet, preferring one whose arguments equal args.
func (e *gaiEmitter) match(name, args string) string {
	canon := CanonicalJSON([]byte(args))
	var first *gaiCallState
	for _, c := range e.pending {
		if c.done || c.id == "" || name != "" && c.name != name {
			continue
		}
		if canon != "" && c.args == canon {
			return c.id
		}
		if first == nil {
			first = c
		}
	}
	if first != nil {
		return first.id
	}
	return ""
}

// matchExact returns the id of the oldest unanswered call of the tool whose
// arguments equal args, or "".
func (e *gaiEmitter) matchExact(name, args string) string {
	canon := CanonicalJSON([]byte(args))
	if canon == "" {
		return ""
	}
	for _, c := range e.pending {
		if !c.done && c.id != "" && (name == "" || c.name == name) && c.args == canon {
			return c.id
		}
	}
	return ""
}

// tool adds one executed tool: its result, linked to the call with this id
// (or the matching pending call); a tool no model output announced first
// gets its call (id fallback when it has none).
func (e *gaiEmitter) tool(id, name, args, text string, isErr bool, start, end *time.Time, line int64, fallback string) error {
	if id == "" {
		id = e.match(name, args)
	}
	if c := e.calls[id]; c == nil || id == "" {
		if id == "" {
			id = fallback
		}
		if err := e.call(gaiCall{id: id, name: name, args: args}, start, line); err != nil {
			return err
		}
	}
	e.emitted["r\x00"+id]++
	return e.result(id, name, text, isErr, end, line)
}

// inferEnd sets an inferred end reason from the last event: an assistant
// text ends a finished run, an unanswered tool call an interrupted one.
func (e *gaiEmitter) inferEnd() {
	r := &e.b.Run
	if r.EndReasonSource == schema.SourceExplicit {
		return
	}
	switch e.lastKind {
	case schema.KindAssistant:
		r.EndReason, r.EndReasonDetail = schema.EndFinished, "last event is an assistant message"
	case schema.KindToolCall:
		r.EndReason, r.EndReasonDetail = schema.EndInterrupted, "last event is a tool call without result"
	}
}

// gaiOutcome is what the model calls of a GenAI trace say about the run's
// cost and end: the sum of their costs, and the last call's finish reason
// and error.
type gaiOutcome struct {
	cost      float64
	hasCost   bool
	finish    string // finish reason of the last model call
	callErr   string // error of the last model call ("" if none)
	callErred bool
}

// addCost adds one call's cost.
func (o *gaiOutcome) addCost(c float64) {
	o.cost += c
	o.hasCost = true
}

// endOnLastCall ends the run as the last model call did: with its error, else
// by its finish reason (gaiFinishEnd). It reports whether it set an end.
func (o *gaiOutcome) endOnLastCall(b *RunBuilder) bool {
	if o.callErred {
		gaiErrorEnd(b, o.callErr)
		return true
	}
	return gaiFinishEnd(b, o.finish)
}

// finishRun sets the run's cost, when a call logged one, and finishes the
// run.
func (o *gaiOutcome) finishRun(b *RunBuilder) error {
	if o.hasCost {
		c := o.cost
		b.Run.CostUSD = &c
	}
	return b.Finish()
}

// gaiErrorEnd records an error end, context_overflow when the text says so.
func gaiErrorEnd(b *RunBuilder, text string) {
	if IsOverflowText(text) {
		b.SetEnd(schema.EndContextOverflow, text)
		return
	}
	b.SetEnd(schema.EndError, text)
}

// gaiFinishEnd maps a model call's finish reason to an end reason; it
// reports whether it set one.
func gaiFinishEnd(b *RunBuilder, finish string) bool {
	switch strings.ToLower(finish) {
	case "stop", "end_turn", "stop_sequence", "completed", "finish_reason_stop":
		b.SetEnd(schema.EndFinished, "finish_reason: "+finish)
	case "length", "max_tokens", "max_output_tokens":
		b.SetEnd(schema.EndError, "finish_reason: "+finish+" (output limit)")
	case "content_filter", "content-filter", "safety", "refusal":
		b.SetEnd(schema.EndError, "finish_reason: "+finish)
	default:
		return false
	}
	return true
}
