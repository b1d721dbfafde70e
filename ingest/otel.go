package ingest

import (
	"bytes"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// otel reads OpenTelemetry GenAI spans: mozilla-ai any-agent AgentTrace JSON
// ({spans:[…], final_output}, spans as the Python SDK writes them) and OTLP/JSON
// exports ({resourceSpans:[{resource, scopeSpans:[{scope, spans}]}]}), as
// one document or as JSON lines; one run per trace id.
//
// Steps:
//  1. Decode the file (a document, or one per line; a line that does not
//     parse is rejected) and turn every span into one shape: trace and span
//     ids as lower-case hex (any-agent logs them as decimal integers), start
//     and end times, attributes as plain values, events, status.
//  2. Group the spans by trace id (in order of first appearance) and sort
//     each trace's spans by start time.
//  3. gen_ai.operation.name chat, text_completion, generate_content (and
//     any-agent's call_llm) is one model call (RunBuilder.Call with the span
//     id): its prompt (gen_ai.system_instructions + gen_ai.input.messages, or
//     the deprecated gen_ai.prompt JSON / gen_ai.prompt.N.* attributes / prompt
//     events) repeats the history, so only the items not yet added are added
//     (see gaiEmitter.input); its completion (gen_ai.output.messages, or
//     gen_ai.completion / gen_ai.completion.N.* / gen_ai.choice events, or
//     any-agent's gen_ai.output) is added as outputs. Usage from
//     gen_ai.usage.input_tokens (or prompt_tokens), output_tokens (or
//     completion_tokens) and the cache_read / cache_creation / reasoning
//     counters; model from gen_ai.response.model, else gen_ai.request.model.
//  4. execute_tool is one tool result (gen_ai.tool.name, gen_ai.tool.call.id,
//     gen_ai.tool.call.arguments / any-agent gen_ai.tool.args,
//     gen_ai.tool.call.result / any-agent gen_ai.output). It is linked to the
//     call by gen_ai.tool.call.id; without one (any-agent) to the oldest call
//     of that tool that has no result yet. A tool span no model output
//     announced gets its own tool_call event.
//  5. End: an error status on an agent span or on the last model call →
//     error (context_overflow when the message says so); the last call's
//     gen_ai.response.finish_reasons stop → finished, length → error;
//     any-agent's final_output → finished. Otherwise inferred from the last
//     event (an assistant text → finished, an unanswered tool call →
//     interrupted).
type otel struct{ formatInfo }

// Detect accepts a JSON object whose leading keys include resourceSpans, or
// spans next to gen_ai.* attributes; JSON lines whose first line is such an
// object or one span; or an array of spans with gen_ai.* attributes.
func (otel) Detect(_ string, head []byte) bool {
	t := trimHead(head)
	if len(t) == 0 {
		return false
	}
	genai := bytes.Contains(head, []byte(`"gen_ai.`))
	if t[0] == '[' {
		i := jsonWS(t, 1)
		return i < len(t) && t[i] == '{' && genai && otelSpanKeys(headKeys(t[i:], 64))
	}
	if t[0] != '{' {
		return false
	}
	keys := headKeys(t, 64)
	for _, k := range keys {
		switch k.name {
		case "resourceSpans", "resource_spans":
			return k.kind == '['
		case "spans":
			if k.kind == '[' && genai {
				return true
			}
		}
	}
	// one span per line
	return genai && otelSpanKeys(keys)
}

// otelSpanKeys reports whether an object's keys are a span's.
func otelSpanKeys(keys []headKey) bool {
	ctx, attrs := false, false
	for _, k := range keys {
		switch k.name {
		case "context", "traceId", "trace_id":
			ctx = true
		case "attributes":
			attrs = true
		}
	}
	return ctx && attrs
}

// otelSpan is one span in the importer's shape.
type otelSpan struct {
	trace, id, parent, name string
	start, end              *time.Time
	startNS                 int64
	attrs                   map[string]any
	events                  []otelEvent
	status, statusMsg       string // status: "error", "ok" or ""
	resource                map[string]any
	scope                   string
	line                    int64
	ord                     int
}

type otelEvent struct {
	name  string
	ts    *time.Time
	attrs map[string]any
}

func (otel) Import(f *File, r io.Reader) error {
	var spans []*otelSpan
	finished := map[string]bool{} // trace ids whose AgentTrace has a final_output
	err := gaiEachValue(f, r, func(rec gaiRecord, v any) error {
		c := &otelCollector{f: f, line: rec.line, whole: rec.whole}
		if err := c.doc(v); err != nil {
			return err
		}
		for _, s := range c.spans {
			s.ord = len(spans)
			spans = append(spans, s)
			if c.final {
				finished[s.trace] = true
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	var order []string
	byTrace := map[string][]*otelSpan{}
	for _, s := range spans {
		if _, ok := byTrace[s.trace]; !ok {
			order = append(order, s.trace)
		}
		byTrace[s.trace] = append(byTrace[s.trace], s)
	}
	for _, id := range order {
		if err := otelRun(f, id, byTrace[id], finished[id]); err != nil {
			return err
		}
	}
	return nil
}

// otelCollector turns one decoded document into spans.
type otelCollector struct {
	f     *File
	line  int64 // the record's line
	whole bool  // the record is the whole file: spans are numbered instead
	n     int64
	spans []*otelSpan
	final bool
}

func (c *otelCollector) next() int64 {
	c.n++
	if c.whole {
		return c.n
	}
	return c.line
}

func (c *otelCollector) doc(v any) error {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if err := c.doc(e); err != nil {
				return err
			}
		}
		return nil
	case map[string]any:
		if rs, ok := gaiFirst(x, "resourceSpans", "resource_spans").([]any); ok {
			return c.otlp(rs)
		}
		if ss, ok := x["spans"].([]any); ok {
			if fo, ok := x["final_output"]; ok && fo != nil {
				c.final = true
			}
			for _, e := range ss {
				if err := c.span(e); err != nil {
					return err
				}
			}
			return nil
		}
		return c.span(x)
	}
	return c.f.Reject(c.next(), "not a span or trace document", gaiRaw(v))
}

// otlp reads the resourceSpans of an OTLP/JSON "ExportTraceServiceRequest".
func (c *otelCollector) otlp(rs []any) error {
	for _, r := range rs {
		rm, _ := r.(map[string]any)
		if rm == nil {
			continue
		}
		var res map[string]any
		if resv, ok := rm["resource"].(map[string]any); ok {
			res = otelKVs(resv["attributes"])
		}
		scopes, _ := gaiFirst(rm, "scopeSpans", "scope_spans", "instrumentationLibrarySpans").([]any)
		for _, sc := range scopes {
			sm, _ := sc.(map[string]any)
			if sm == nil {
				continue
			}
			scope := ""
			if s, ok := gaiFirst(sm, "scope", "instrumentationLibrary").(map[string]any); ok {
				scope = gaiString(s["name"])
			}
			ss, _ := sm["spans"].([]any)
			for _, e := range ss {
				line := c.next()
				em, ok := e.(map[string]any)
				if !ok {
					if err := c.f.Reject(line, "span is not an object", gaiRaw(e)); err != nil {
						return err
					}
					continue
				}
				s := otelFromOTLP(em)
				s.resource, s.scope, s.line = res, scope, line
				c.spans = append(c.spans, s)
			}
		}
	}
	return nil
}

// span reads one span as the Python SDK (and any-agent) writes it, or one
// OTLP span on its own.
func (c *otelCollector) span(v any) error {
	line := c.next()
	m, ok := v.(map[string]any)
	if !ok {
		return c.f.Reject(line, "span is not an object", gaiRaw(v))
	}
	var s *otelSpan
	if _, ok := m["traceId"]; ok {
		s = otelFromOTLP(m)
	} else {
		s = otelFromSDK(m)
	}
	if s.trace == "" && s.id == "" && len(s.attrs) == 0 {
		return c.f.Reject(line, "span without ids or attributes", gaiRaw(v))
	}
	s.line = line
	c.spans = append(c.spans, s)
	return nil
}

func otelFromSDK(m map[string]any) *otelSpan {
	s := &otelSpan{name: gaiString(m["name"])}
	if ctx, ok := m["context"].(map[string]any); ok {
		s.trace, s.id = gaiHexID(ctx["trace_id"], 32), gaiHexID(ctx["span_id"], 16)
	}
	if p, ok := m["parent"].(map[string]any); ok {
		s.parent = gaiHexID(p["span_id"], 16)
	} else if p, ok := m["parent_id"]; ok {
		s.parent = gaiHexID(p, 16)
	}
	s.start, s.startNS = otelTime(m["start_time"])
	s.end, _ = otelTime(m["end_time"])
	s.attrs, _ = m["attributes"].(map[string]any)
	s.setStatus(m["status"], "status_code", "description")
	evs, _ := m["events"].([]any)
	for _, e := range evs {
		if em, ok := e.(map[string]any); ok {
			ev := otelEvent{name: gaiString(em["name"])}
			ev.ts, _ = otelTime(em["timestamp"])
			ev.attrs, _ = em["attributes"].(map[string]any)
			s.events = append(s.events, ev)
		}
	}
	if res, ok := m["resource"].(map[string]any); ok {
		s.resource, _ = res["attributes"].(map[string]any)
	}
	return s
}

func otelFromOTLP(m map[string]any) *otelSpan {
	s := &otelSpan{
		name:   gaiString(m["name"]),
		trace:  gaiHexID(m["traceId"], 32),
		id:     gaiHexID(m["spanId"], 16),
		parent: gaiHexID(m["parentSpanId"], 16),
		attrs:  otelKVs(m["attributes"]),
	}
	s.start, s.startNS = otelTime(m["startTimeUnixNano"])
	s.end, _ = otelTime(m["endTimeUnixNano"])
	s.setStatus(m["status"], "code", "message")
	evs, _ := m["events"].([]any)
	for _, e := range evs {
		if em, ok := e.(map[string]any); ok {
			ev := otelEvent{name: gaiString(em["name"]), attrs: otelKVs(em["attributes"])}
			ev.ts, _ = otelTime(em["timeUnixNano"])
			s.events = append(s.events, ev)
		}
	}
	return s
}

// setStatus reads a span's status object, whose code and message are under
// codeKey and msgKey (the SDK's and OTLP's names differ).
func (s *otelSpan) setStatus(v any, codeKey, msgKey string) {
	if st, ok := v.(map[string]any); ok {
		s.status = otelStatus(st[codeKey])
		s.statusMsg = gaiString(st[msgKey])
	}
}

// otelKVs turns an OTLP attribute list [{key, value:{stringValue|…}}] into a
// map (a map is returned as it is).
func otelKVs(v any) map[string]any {
	if m, ok := v.(map[string]any); ok {
		return m
	}
	list, _ := v.([]any)
	if len(list) == 0 {
		return nil
	}
	out := make(map[string]any, len(list))
	for _, e := range list {
		kv, _ := e.(map[string]any)
		if kv == nil {
			continue
		}
		if k := gaiString(kv["key"]); k != "" {
			out[k] = otelAnyValue(kv["value"], 0)
		}
	}
	return out
}

// otelAnyValue reads an OTLP "AnyValue".
func otelAnyValue(v any, depth int) any {
	m, ok := v.(map[string]any)
	if !ok || depth > 16 {
		return v
	}
	for k, x := range m {
		switch k {
		case "stringValue", "bytesValue":
			return gaiString(x)
		case "intValue", "doubleValue":
			if n, ok := gaiNumber(x); ok {
				return n
			}
			return x
		case "boolValue":
			return x
		case "arrayValue":
			av, _ := x.(map[string]any)
			vals, _ := av["values"].([]any)
			out := make([]any, 0, len(vals))
			for _, e := range vals {
				out = append(out, otelAnyValue(e, depth+1))
			}
			return out
		case "kvlistValue":
			kv, _ := x.(map[string]any)
			out := map[string]any{}
			vals, _ := kv["values"].([]any)
			for _, e := range vals {
				if em, ok := e.(map[string]any); ok {
					if key := gaiString(em["key"]); key != "" {
						out[key] = otelAnyValue(em["value"], depth+1)
					}
				}
			}
			return out
		}
	}
	return nil
}

// otelStatus normalises a status code: "error", "ok" or "".
func otelStatus(v any) string {
	s := strings.ToLower(gaiString(v))
	switch {
	case s == "2" || strings.HasSuffix(s, "error"):
		return "error"
	case s == "1" || strings.HasSuffix(s, "ok"):
		return "ok"
	}
	return ""
}

// otelTime reads a span time: Unix nanoseconds (number or numeric string), or
// an ISO timestamp. It also returns the nanoseconds for sorting.
func otelTime(v any) (*time.Time, int64) {
	if v == nil {
		return nil, 0
	}
	if s, ok := v.(string); ok {
		if _, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil {
			t := ParseTime(s)
			if t == nil {
				return nil, 0
			}
			return t, t.UnixNano()
		}
		v = json.Number(strings.TrimSpace(s))
	}
	n, ok := v.(json.Number)
	if !ok {
		return nil, 0
	}
	if i, err := n.Int64(); err == nil && i > 1e17 { // nanoseconds
		t := time.Unix(0, i).UTC()
		return &t, i
	}
	f, err := n.Float64()
	if err != nil {
		return nil, 0
	}
	t := ParseTime(f)
	if t == nil {
		return nil, 0
	}
	return t, t.UnixNano()
}

// otelModelOps are the gen_ai.operation.name values of a model call.
var otelModelOps = map[string]bool{"chat": true, "text_completion": true, "generate_content": true, "call_llm": true, "completion": true, "generate": true}

// otelRunState is the state of one trace's import.
type otelRunState struct {
	gaiOutcome
	f         *File
	b         *RunBuilder
	e         *gaiEmitter
	agentErr  string
	agentBad  bool
	agentErrs []*otelSpan // failed agent spans, in start order
}

func otelRun(f *File, trace string, spans []*otelSpan, final bool) error {
	key := func(s *otelSpan) int64 { // spans without a start time go last
		if s.startNS == 0 {
			return math.MaxInt64
		}
		return s.startNS
	}
	sort.SliceStable(spans, func(i, j int) bool { return key(spans[i]) < key(spans[j]) })
	b, err := f.NewRun(trace)
	if err != nil {
		return err
	}
	b.Run.Harness = otelHarness(spans)
	st := &otelRunState{f: f, b: b, e: newGaiEmitter(b)}
	for _, s := range spans {
		if err := st.span(s); err != nil {
			return err
		}
	}
	for i := len(st.agentErrs) - 1; i >= 0; i-- { // inner agents end first
		s := st.agentErrs[i]
		if err := st.e.add(schema.Event{Kind: schema.KindError, Role: "system", TS: s.end, Line: s.line, IsError: true, Text: otelErrText(s)}); err != nil {
			return err
		}
	}
	switch {
	case st.agentBad:
		gaiErrorEnd(b, st.agentErr)
	case st.endOnLastCall(b):
	case final:
		b.SetEnd(schema.EndFinished, "final_output")
	default:
		st.e.inferEnd()
	}
	return st.finishRun(b)
}

func otelHarness(spans []*otelSpan) string {
	scope := ""
	for _, s := range spans {
		for k := range s.attrs {
			if strings.HasPrefix(k, "any_agent.") {
				return "any-agent"
			}
		}
		if scope == "" {
			scope = s.scope
		}
	}
	for _, s := range spans {
		if n := gaiString(s.resource["service.name"]); n != "" && !strings.HasPrefix(n, "unknown_service") {
			return n
		}
	}
	if scope != "" {
		return scope
	}
	return "otel"
}

func (st *otelRunState) span(s *otelSpan) error {
	a := s.attrs
	op := strings.ToLower(gaiString(a["gen_ai.operation.name"]))
	_, hasTool := a["gen_ai.tool.name"]
	switch {
	case op == "execute_tool" || op == "" && hasTool && !otelHasUsage(a):
		return st.tool(s)
	case otelModelOps[op] || op == "" && (otelHasUsage(a) || otelHasPrompt(s)):
		return st.call(s)
	case op == "invoke_agent" || op == "create_agent" || op == "invoke_workflow":
		if s.status == "error" {
			// added after the spans it encloses, when the agent ended
			if !st.agentBad { // the outermost agent's error ends the run
				st.agentBad, st.agentErr = true, otelErrText(s)
			}
			st.agentErrs = append(st.agentErrs, s)
		}
	}
	return nil
}

func otelHasUsage(a map[string]any) bool {
	for k := range a {
		if strings.HasPrefix(k, "gen_ai.usage.") && strings.HasSuffix(k, "tokens") {
			return true
		}
	}
	return false
}

func otelHasPrompt(s *otelSpan) bool {
	for _, k := range []string{"gen_ai.input.messages", "gen_ai.prompt", "gen_ai.prompt.0.role", "gen_ai.prompt.0.content"} {
		if _, ok := s.attrs[k]; ok {
			return true
		}
	}
	for _, e := range s.events {
		if e.name == "gen_ai.content.prompt" {
			return true
		}
	}
	return false
}

func otelErrText(s *otelSpan) string {
	for _, e := range s.events {
		if e.name == "exception" {
			if m := gaiString(e.attrs["exception.message"]); m != "" {
				return m
			}
		}
	}
	if s.statusMsg != "" {
		return s.statusMsg
	}
	return "span " + s.name + " failed"
}

func (st *otelRunState) call(s *otelSpan) error {
	b, a := st.b, s.attrs
	if err := st.e.input(otelInput(s), s.start, s.line); err != nil {
		return err
	}
	if s.id != "" {
		b.Call("span:" + s.id)
	} else {
		b.NewCall()
	}
	model := gaiString(a["gen_ai.response.model"])
	if model == "" {
		model = gaiString(a["gen_ai.request.model"])
	}
	b.NoteModel(model)
	outs := otelOutput(s)
	ts := s.end
	if ts == nil {
		ts = s.start
	}
	if err := st.e.output(outs, ts, s.line, "span:"+s.id); err != nil {
		return err
	}
	in, okIn := gaiAttrInt(a, "gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens")
	out, okOut := gaiAttrInt(a, "gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens")
	if okIn || okOut {
		u := schema.Usage{TS: ts, Model: model, RequestID: gaiString(a["gen_ai.response.id"]), InputTokens: in, OutputTokens: out}
		u.CacheReadTokens, _ = gaiAttrInt(a, "gen_ai.usage.cache_read.input_tokens", "gen_ai.usage.cache_read_input_tokens", "gen_ai.usage.input_tokens.cached")
		u.CacheWriteTokens, _ = gaiAttrInt(a, "gen_ai.usage.cache_creation.input_tokens", "gen_ai.usage.cache_creation_input_tokens", "gen_ai.usage.input_tokens.cache_write")
		u.ReasoningTokens, _ = gaiAttrInt(a, "gen_ai.usage.reasoning.output_tokens", "gen_ai.usage.output_tokens.reasoning", "gen_ai.usage.reasoning_tokens")
		b.SetUsage(u)
	}
	for _, k := range []string{"gen_ai.usage.input_cost", "gen_ai.usage.output_cost", "gen_ai.usage.cost"} {
		if c, ok := gaiFloat(a[k]); ok && c >= 0 && c < 1e9 {
			st.addCost(c)
		}
	}
	st.finish = ""
	switch fr := a["gen_ai.response.finish_reasons"].(type) {
	case []any:
		if len(fr) > 0 {
			st.finish = gaiString(fr[len(fr)-1])
		}
	case string:
		st.finish = fr
	}
	if st.finish == "" {
		for _, m := range outs {
			if m.finish != "" {
				st.finish = m.finish
			}
		}
	}
	st.callErred = s.status == "error"
	if st.callErred {
		st.callErr = otelErrText(s)
		return st.e.add(schema.Event{Kind: schema.KindError, Role: "system", TS: ts, Line: s.line, IsError: true, Text: st.callErr})
	}
	return nil
}

func (st *otelRunState) tool(s *otelSpan) error {
	a := s.attrs
	name := gaiString(a["gen_ai.tool.name"])
	if name == "" {
		name = strings.TrimSpace(strings.TrimPrefix(s.name, "execute_tool"))
	}
	args := gaiArgs(gaiFirst(a, "gen_ai.tool.call.arguments", "gen_ai.tool.args", "gen_ai.tool.input"))
	text := ""
	switch v := gaiFirst(a, "gen_ai.tool.call.result", "gen_ai.tool.output", "gen_ai.output").(type) {
	case string:
		text = v // the text the model was given
	default:
		text = gaiText(v)
	}
	isErr := s.status == "error"
	if isErr && text == "" {
		text = otelErrText(s)
	}
	end := s.end
	if end == nil {
		end = s.start
	}
	return st.e.tool(gaiString(a["gen_ai.tool.call.id"]), name, args, text, isErr, s.start, end, s.line, "span:"+s.id)
}

// otelInput returns a model call's prompt.
func otelInput(s *otelSpan) []gaiMsg {
	a := s.attrs
	var out []gaiMsg
	if v, ok := a["gen_ai.system_instructions"]; ok {
		for _, m := range gaiMessages(v, "system") {
			if m.text != "" {
				out = append(out, gaiMsg{role: "system", text: m.text})
			}
		}
	}
	if v := gaiFirst(a, "gen_ai.input.messages", "gen_ai.prompt"); v != nil {
		return append(out, gaiMessages(v, "user")...)
	}
	if flat := otelFlat(a, "gen_ai.prompt."); flat != nil {
		return append(out, gaiMessages(flat, "user")...)
	}
	for _, e := range s.events {
		switch e.name {
		case "gen_ai.content.prompt":
			out = append(out, gaiMessages(e.attrs["gen_ai.prompt"], "user")...)
		case "gen_ai.system.message", "gen_ai.user.message", "gen_ai.assistant.message", "gen_ai.tool.message":
			role := strings.TrimSuffix(strings.TrimPrefix(e.name, "gen_ai."), ".message")
			m := map[string]any{"role": role, "content": gaiUnwrapContent(e.attrs["content"])}
			if tc := gaiUnwrap(e.attrs["tool_calls"]); tc != nil {
				m["tool_calls"] = tc
			}
			if role == "tool" {
				m["tool_call_id"] = e.attrs["id"]
			}
			out = append(out, gaiObject(m, role)...)
		}
	}
	return out
}

// otelOutput returns a model call's completion.
func otelOutput(s *otelSpan) []gaiMsg {
	a := s.attrs
	if v := gaiFirst(a, "gen_ai.output.messages", "gen_ai.completion"); v != nil {
		return gaiMessages(v, "assistant")
	}
	if flat := otelFlat(a, "gen_ai.completion."); flat != nil {
		return gaiMessages(flat, "assistant")
	}
	var out []gaiMsg
	for _, e := range s.events {
		switch e.name {
		case "gen_ai.content.completion":
			out = append(out, gaiMessages(e.attrs["gen_ai.completion"], "assistant")...)
		case "gen_ai.choice":
			msgs := gaiMessages(gaiFirst(e.attrs, "message", "content"), "assistant")
			for i := range msgs {
				msgs[i].finish = gaiString(e.attrs["finish_reason"])
			}
			out = append(out, msgs...)
		}
	}
	if out != nil {
		return out
	}
	if v, ok := a["gen_ai.output"]; ok { // any-agent
		return gaiMessages(v, "assistant")
	}
	return nil
}

// otelFlat rebuilds messages from indexed attributes (OpenLLMetry's
// gen_ai.prompt.0.role, gen_ai.prompt.0.content,
// gen_ai.completion.0.tool_calls.0.name …).
func otelFlat(a map[string]any, prefix string) []any {
	msgs := map[int]map[string]any{}
	calls := map[int]map[int]map[string]any{}
	for k, v := range a {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok {
			continue
		}
		is, field, ok := strings.Cut(rest, ".")
		i, err := strconv.Atoi(is)
		if !ok || err != nil || i < 0 || i > 1<<20 {
			continue
		}
		if msgs[i] == nil {
			msgs[i] = map[string]any{}
		}
		if tc, ok := strings.CutPrefix(field, "tool_calls."); ok {
			js, f2, ok := strings.Cut(tc, ".")
			j, err := strconv.Atoi(js)
			if !ok || err != nil || j < 0 || j > 1<<20 {
				continue
			}
			if calls[i] == nil {
				calls[i] = map[int]map[string]any{}
			}
			if calls[i][j] == nil {
				calls[i][j] = map[string]any{}
			}
			calls[i][j][f2] = v
			continue
		}
		msgs[i][field] = v
	}
	if len(msgs) == 0 {
		return nil
	}
	out := make([]any, 0, len(msgs))
	for _, i := range slices.Sorted(maps.Keys(msgs)) {
		m := msgs[i]
		if cs := calls[i]; len(cs) > 0 {
			list := make([]any, 0, len(cs))
			for _, j := range slices.Sorted(maps.Keys(cs)) {
				list = append(list, cs[j])
			}
			m["tool_calls"] = list
		}
		out = append(out, m)
	}
	return out
}
