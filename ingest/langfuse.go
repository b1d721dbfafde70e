package ingest

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/trajmine/trajmine/schema"
)

// langfuse reads Langfuse public-API exports: {trace, observations} (the
// trace as GET /api/public/traces/{id} returns it, with its observations),
// a bare trace with embedded observations, lists of those, or an
// observations list {data:[…]} (grouped by traceId); one run per trace.
//
// Steps per trace:
//  1. Sort the observations by startTime (file order on ties).
//  2. A GENERATION is one model call (RunBuilder.Call with the observation
//     id), except a wrapper whose descendants include a GENERATION (the
//     Vercel AI SDK's ai.generateText around ai.generateText.doGenerate) and
//     an empty marker (no input, output or usage, as BeeAI's
//     chat.success/finish events). Its input, a JSON value or JSON text in
//     the shape of whatever SDK logged it (OpenAI chat or Responses items,
//     Anthropic blocks, LangChain dicts, OTel GenAI parts, Vercel prompts),
//     repeats the history, so only items not added before are added (see
//     gaiEmitter.input); its output is added as the call's outputs. Usage
//     from usageDetails: input, output and the cache and reasoning details;
//     Langfuse prices each key separately, so when total counts the cache
//     keys on top of input, the prompt is input + cache reads + cache writes.
//  3. A TOOL observation is one tool result, linked to the model's call by
//     an id found in its metadata attributes (gen_ai.tool.call.id,
//     ai.toolCall.id) or payload (tool_call_id, toolCallId, tool_use_id,
//     call_id), else to the oldest unanswered call of that tool name
//     (preferring equal arguments). A SPAN (or AGENT, CHAIN …) is a tool
//     execution only when it is linked that way: by id, or by name when it
//     has no children (LangGraph logs tools as SPANs). A tool no model output
//     announced gets its own tool_call event.
//  4. End: level ERROR on the root observation or the last model call →
//     error (context_overflow when the message says so); else the last
//     call's finish reason (stop → finished); else inferred from the last
//     event.
type langfuse struct{ formatInfo }

// Detect accepts a JSON object (or a list of them) that is a Langfuse trace
// ({trace:{id, projectId, timestamp …}} or the trace itself) or an
// observations list {data:[{traceId, type, startTime …}]}.
func (langfuse) Detect(_ string, head []byte) bool {
	t := trimHead(head)
	if len(t) > 0 && t[0] == '[' {
		t = t[jsonWS(t, 1):]
	}
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	keys := headKeys(t, 64)
	for _, k := range keys {
		switch {
		case k.name == "trace" && k.kind == '{':
			if lfTraceKeys(headKeys(t[k.off:], 64)) {
				return true
			}
		case k.name == "data" && k.kind == '[':
			i := jsonWS(t, k.off+1)
			if i < len(t) && t[i] == '{' {
				inner := headKeys(t[i:], 64)
				return lfTraceKeys(inner) || lfObservationKeys(inner)
			}
		}
	}
	return lfTraceKeys(keys)
}

func lfKeySet(keys []headKey) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k.name] = true
	}
	return m
}

// lfTraceKeys reports whether an object's leading keys are a Langfuse trace's.
func lfTraceKeys(keys []headKey) bool {
	m := lfKeySet(keys)
	return m["id"] && m["projectId"] && (m["timestamp"] || m["observations"])
}

// lfObservationKeys reports whether an object's leading keys are a Langfuse observation's.
func lfObservationKeys(keys []headKey) bool {
	m := lfKeySet(keys)
	return m["traceId"] && m["type"] && (m["startTime"] || m["parentObservationId"])
}

// lfTrace is one trace to import.
type lfTrace struct {
	id   string
	obs  []map[string]any
	line int64
}

func (langfuse) Import(f *File, r io.Reader) error {
	c := &lfCollector{f: f, byID: map[string]*lfTrace{}}
	err := gaiEachValue(f, r, func(rec gaiRecord, v any) error {
		return c.doc(v, rec.line, 0)
	})
	if err != nil {
		return err
	}
	for _, tr := range c.traces {
		if err := lfRun(f, tr); err != nil {
			return err
		}
	}
	return nil
}

// lfCollector gathers traces and their observations from documents.
type lfCollector struct {
	f      *File
	traces []*lfTrace
	byID   map[string]*lfTrace
}

func (c *lfCollector) trace(id string, line int64) *lfTrace {
	if id != "" {
		if tr, ok := c.byID[id]; ok {
			return tr
		}
	}
	tr := &lfTrace{id: id, line: line}
	c.traces = append(c.traces, tr)
	if id != "" {
		c.byID[id] = tr
	}
	return tr
}

func (c *lfCollector) doc(v any, line int64, depth int) error {
	if depth > 4 {
		return nil
	}
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if err := c.doc(e, line, depth+1); err != nil {
				return err
			}
		}
		return nil
	case map[string]any:
		if t, ok := x["trace"].(map[string]any); ok {
			obs, ok := x["observations"].([]any)
			if !ok {
				obs, _ = t["observations"].([]any)
			}
			return c.add(c.trace(gaiString(t["id"]), line), obs)
		}
		if d, ok := x["data"].([]any); ok {
			for _, e := range d {
				em, _ := e.(map[string]any)
				if em != nil && em["traceId"] != nil && em["type"] != nil && em["observations"] == nil {
					if err := c.add(c.trace(gaiString(em["traceId"]), line), []any{em}); err != nil {
						return err
					}
					continue
				}
				if err := c.doc(e, line, depth+1); err != nil {
					return err
				}
			}
			return nil
		}
		if obs, ok := x["observations"].([]any); ok && x["id"] != nil {
			return c.add(c.trace(gaiString(x["id"]), line), obs)
		}
	}
	return c.f.Reject(line, "not a Langfuse trace", gaiRaw(v))
}

func (c *lfCollector) add(tr *lfTrace, obs []any) error {
	for i, o := range obs {
		m, ok := o.(map[string]any)
		if !ok {
			if _, isID := o.(string); isID {
				continue // the trace lists observation ids only
			}
			if err := c.f.Reject(tr.line, fmt.Sprintf("observation %d is not an object", i+1), gaiRaw(o)); err != nil {
				return err
			}
			continue
		}
		tr.obs = append(tr.obs, m)
	}
	return nil
}

// lfObs is one observation with what the importer needs of it.
type lfObs struct {
	m          map[string]any
	id, parent string
	typ, name  string
	start, end *time.Time
	line       int64
	attrs      map[string]any
	level      string
	children   int
	wrapper    bool
}

func lfRun(f *File, tr *lfTrace) error {
	obs := make([]*lfObs, 0, len(tr.obs))
	byID := map[string]*lfObs{}
	for i, m := range tr.obs {
		o := &lfObs{m: m, id: gaiString(m["id"]), parent: gaiString(m["parentObservationId"]),
			typ: strings.ToUpper(gaiString(m["type"])), name: gaiString(m["name"]), line: int64(i + 1),
			level: strings.ToUpper(gaiString(m["level"]))}
		o.start, o.end = ParseTime(m["startTime"]), ParseTime(m["endTime"])
		if o.end == nil {
			o.end = o.start
		}
		if md, ok := gaiUnwrap(m["metadata"]).(map[string]any); ok {
			o.attrs, _ = md["attributes"].(map[string]any)
		}
		obs = append(obs, o)
		if o.id != "" {
			byID[o.id] = o
		}
	}
	for _, o := range obs {
		if p := byID[o.parent]; p != nil {
			p.children++
		}
		if o.typ != "GENERATION" {
			continue
		}
		seen := map[string]bool{o.id: true}
		for p := byID[o.parent]; p != nil && !seen[p.id]; p = byID[p.parent] {
			seen[p.id] = true
			if p.typ == "GENERATION" {
				p.wrapper = true
			}
		}
	}
	sort.SliceStable(obs, func(i, j int) bool {
		a, b := obs[i].start, obs[j].start
		if a == nil || b == nil {
			return a != nil && b == nil
		}
		return a.Before(*b)
	})
	id := tr.id
	b, err := f.NewRun(id)
	if err != nil {
		return err
	}
	b.Run.Harness = lfHarness(obs)
	st := &lfState{b: b, e: newGaiEmitter(b)}
	for _, o := range obs {
		if err := st.observation(o); err != nil {
			return err
		}
	}
	switch {
	case st.rootErr != "":
		gaiErrorEnd(b, st.rootErr)
	case st.endOnLastCall(b):
	default:
		st.e.inferEnd()
	}
	return st.finishRun(b)
}

// lfHarness names the instrumentation that sent the trace (the scope of its
// observations' metadata), else "langfuse".
func lfHarness(obs []*lfObs) string {
	for _, o := range obs {
		if md, ok := gaiUnwrap(o.m["metadata"]).(map[string]any); ok {
			if sc, ok := md["scope"].(map[string]any); ok {
				if n := gaiString(sc["name"]); n != "" {
					return n
				}
			}
		}
	}
	return "langfuse"
}

// lfState is the state of one trace's import.
type lfState struct {
	gaiOutcome
	b       *RunBuilder
	e       *gaiEmitter
	rootErr string
}

func (st *lfState) observation(o *lfObs) error {
	if o.parent == "" && o.level == "ERROR" {
		st.rootErr = gaiString(o.m["statusMessage"])
		if st.rootErr == "" {
			st.rootErr = o.name + " failed"
		}
	}
	switch o.typ {
	case "GENERATION":
		if o.wrapper || o.m["input"] == nil && o.m["output"] == nil && !lfHasUsage(o.m) {
			return nil
		}
		return st.generation(o)
	case "TOOL":
		return st.tool(o, true)
	case "EVENT", "EMBEDDING", "EVALUATOR", "GUARDRAIL":
		return nil
	}
	return st.tool(o, false)
}

func lfHasUsage(m map[string]any) bool {
	ud, _ := m["usageDetails"].(map[string]any)
	u, _ := m["usage"].(map[string]any)
	return len(ud) > 0 || len(u) > 0
}

func (st *lfState) generation(o *lfObs) error {
	b, m := st.b, o.m
	if err := st.e.input(gaiMessages(m["input"], "user"), o.start, o.line); err != nil {
		return err
	}
	b.Call("obs:" + o.id)
	model := gaiString(m["model"])
	b.NoteModel(model)
	outs := gaiMessages(m["output"], "assistant")
	if err := st.e.output(outs, o.end, o.line, "obs:"+o.id); err != nil {
		return err
	}
	if u, ok := lfUsage(m); ok {
		u.TS, u.Model = o.end, model
		if out, ok := gaiUnwrap(m["output"]).(map[string]any); ok {
			u.RequestID = gaiString(out["id"])
		}
		if u.RequestID == "" {
			u.RequestID = o.id
		}
		b.SetUsage(u)
	}
	if c, ok := lfCost(m); ok {
		st.addCost(c)
	}
	st.finish = ""
	for _, msg := range outs {
		if msg.finish != "" {
			st.finish = msg.finish
		}
	}
	if mp, ok := m["modelParameters"].(map[string]any); ok && st.finish == "" {
		st.finish = gaiString(mp["finishReason"])
	}
	st.callErred = o.level == "ERROR"
	if st.callErred {
		st.callErr = gaiString(m["statusMessage"])
		if st.callErr == "" {
			st.callErr = o.name + " failed"
		}
		return st.e.add(schema.Event{Kind: schema.KindError, Role: "system", TS: o.end, Line: o.line, IsError: true, Text: st.callErr})
	}
	return nil
}

// lfUsage reads an observation's usage: usageDetails, else the legacy usage
// object.
func lfUsage(m map[string]any) (schema.Usage, bool) {
	ud, _ := m["usageDetails"].(map[string]any)
	if len(ud) == 0 {
		ud, _ = m["usage"].(map[string]any)
	}
	if len(ud) == 0 {
		return schema.Usage{}, false
	}
	in, okIn := gaiAttrInt(ud, "input", "prompt_tokens", "input_tokens", "promptTokens")
	out, okOut := gaiAttrInt(ud, "output", "completion_tokens", "output_tokens", "completionTokens")
	if !okIn && !okOut {
		return schema.Usage{}, false
	}
	var u schema.Usage
	for k, v := range ud {
		n, ok := gaiInt(v)
		if !ok {
			continue
		}
		l := strings.ToLower(k)
		switch {
		case strings.Contains(l, "cache_read") || strings.Contains(l, "cached"):
			u.CacheReadTokens += n
		case strings.Contains(l, "cache_creation") || strings.Contains(l, "cache_write"):
			u.CacheWriteTokens += n
		case strings.Contains(l, "reasoning"):
			u.ReasoningTokens += n
		}
	}
	u.InputTokens, u.OutputTokens = in, out
	if total, ok := gaiInt(ud["total"]); ok && u.CacheReadTokens+u.CacheWriteTokens > 0 && total >= in+out+u.CacheReadTokens+u.CacheWriteTokens {
		u.InputTokens += u.CacheReadTokens + u.CacheWriteTokens
	}
	return u, true
}

// lfCost reads an observation's cost.
func lfCost(m map[string]any) (float64, bool) {
	if cd, ok := m["costDetails"].(map[string]any); ok {
		if c, ok := gaiFloat(cd["total"]); ok && c > 0 && c < 1e9 {
			return c, true
		}
	}
	for _, k := range []string{"totalCost", "calculatedTotalCost"} {
		if c, ok := gaiFloat(m[k]); ok && c > 0 && c < 1e9 {
			return c, true
		}
	}
	return 0, false
}

// lfToolID finds a tool-call id in an observation's attributes or payload.
func lfToolID(o *lfObs) string {
	if id := gaiString(gaiFirst(o.attrs, "gen_ai.tool.call.id", "ai.toolCall.id", "tool_call.id", "tool.call_id", "tool_call_id")); id != "" {
		return id
	}
	for _, k := range []string{"output", "input"} {
		if p, ok := gaiUnwrap(o.m[k]).(map[string]any); ok {
			if id := gaiString(gaiFirst(p, "tool_call_id", "toolCallId", "tool_use_id", "call_id")); id != "" {
				return id
			}
		}
	}
	return ""
}

// tool adds a TOOL observation, or a span that executed a tool call.
func (st *lfState) tool(o *lfObs, isTool bool) error {
	e := st.e
	name := gaiString(gaiFirst(o.attrs, "gen_ai.tool.name", "tool.name", "ai.toolCall.name"))
	if name == "" {
		name = o.name
	}
	in := gaiUnwrap(o.m["input"])
	args := gaiArgs(in)
	id := lfToolID(o)
	if !isTool {
		// a span is a tool execution only when it answers a pending call
		switch c := e.calls[id]; {
		case id != "" && c != nil && !c.done:
		case id == "" && o.children == 0 && e.match(name, args) != "":
		default:
			return nil
		}
	}
	if id == "" {
		id = e.matchExact(name, args)
		if im, ok := in.(map[string]any); ok && len(im) == 1 && id == "" {
			for _, v := range im { // {"input": {...}} around the arguments
				id = e.matchExact(name, gaiArgs(v))
			}
		}
	}
	text := gaiText(gaiUnwrap(o.m["output"]))
	return e.tool(id, name, args, text, o.level == "ERROR", o.start, o.end, o.line, "obs:"+o.id)
}
