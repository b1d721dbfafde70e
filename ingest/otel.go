package ingest

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/big"
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
type otel struct{}

func init() { register(40, otel{}) }

func (otel) Name() string { return "otel-genai-spans" }

func (otel) Describe() string {
	return "OpenTelemetry GenAI spans (any-agent AgentTrace JSON, OTLP/JSON resourceSpans, JSON lines): per-call usage from gen_ai.usage.*, span timestamps, tool-call ids when logged (else linked by order), no compaction events, end from finish reasons/status"
}

// Detect accepts a JSON object whose leading keys include resourceSpans, or
// spans next to gen_ai.* attributes; JSON lines whose first line is such an
// object or one span; or an array of spans with gen_ai.* attributes.
func (otel) Detect(_ string, head []byte) bool {
	t := gaiTrimHead(head)
	if len(t) == 0 {
		return false
	}
	genai := bytes.Contains(head, []byte(`"gen_ai.`))
	if t[0] == '[' {
		i := jsonWS(t, 1)
		return i < len(t) && t[i] == '{' && genai && otelSpanKeys(gaiScanKeys(t[i:], 64))
	}
	if t[0] != '{' {
		return false
	}
	keys := gaiScanKeys(t, 64)
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
func otelSpanKeys(keys []gaiKey) bool {
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
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("read %s: %w", f.Path(), err)
	}
	recs, err := gaiRecords(f, data)
	if err != nil {
		return err
	}
	var spans []*otelSpan
	finished := map[string]bool{} // trace ids whose AgentTrace has a final_output
	for _, rec := range recs {
		v, err := gaiDecodeAny(rec.raw)
		if err != nil {
			if err := f.Reject(rec.line, "invalid JSON: "+err.Error(), rec.raw); err != nil {
				return err
			}
			continue
		}
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

// otlp reads an OTLP/JSON ExportTraceServiceRequest's resourceSpans.
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
	if st, ok := m["status"].(map[string]any); ok {
		s.status = otelStatus(st["status_code"])
		s.statusMsg = gaiString(st["description"])
	}
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
	if st, ok := m["status"].(map[string]any); ok {
		s.status = otelStatus(st["code"])
		s.statusMsg = gaiString(st["message"])
	}
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

// otelAnyValue reads an OTLP AnyValue.
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
	f         *File
	b         *RunBuilder
	e         *gaiEmitter
	cost      float64
	hasCost   bool
	finish    string // finish reason of the last model call
	callErr   string // error of the last model call ("" if none)
	callErred bool
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
	case st.callErred:
		gaiErrorEnd(b, st.callErr)
	case gaiFinishEnd(b, st.finish):
	case final:
		b.SetEnd(schema.EndFinished, "final_output")
	default:
		st.e.inferEnd()
	}
	if st.hasCost {
		c := st.cost
		b.Run.CostUSD = &c
	}
	return b.Finish()
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
			st.cost += c
			st.hasCost = true
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
	idx := make([]int, 0, len(msgs))
	for i := range msgs {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	out := make([]any, 0, len(idx))
	for _, i := range idx {
		m := msgs[i]
		if cs := calls[i]; len(cs) > 0 {
			js := make([]int, 0, len(cs))
			for j := range cs {
				js = append(js, j)
			}
			sort.Ints(js)
			list := make([]any, 0, len(js))
			for _, j := range js {
				list = append(list, cs[j])
			}
			m["tool_calls"] = list
		}
		out = append(out, m)
	}
	return out
}

// ---------------------------------------------------------------------------
// Helpers shared by the otel-genai-spans, langfuse-trace-export and
// opencode-sse-events importers (prefix gai: generic GenAI payloads).

// gaiMaxTokens bounds one call's logged counts; larger values are not a real
// log and would overflow the run's sums.
const gaiMaxTokens = 1 << 40

// gaiRecord is one JSON record of a file: the whole document, or one line.
type gaiRecord struct {
	raw   []byte
	line  int64
	whole bool
}

// gaiRecords splits a file into JSON records: the whole file when it is one
// JSON document; else JSON lines (also server-sent-event "data: …" lines),
// rejecting lines that do not parse; else one reject at the syntax error and
// no records.
func gaiRecords(f *File, data []byte) ([]gaiRecord, error) {
	t := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	if len(t) == 0 {
		return nil, nil
	}
	if json.Valid(t) {
		line := int64(bytes.Count(data[:bytes.Index(data, t[:1])], []byte("\n"))) + 1
		return []gaiRecord{{raw: t, line: line, whole: true}}, nil
	}
	type cand struct {
		raw  []byte
		line int64
	}
	var lines []cand
	valid := 0
	for i, l := range bytes.Split(data, []byte("\n")) {
		l = bytes.TrimSpace(l)
		if len(l) == 0 || bytes.HasPrefix(l, []byte(":")) || bytes.HasPrefix(l, []byte("event:")) ||
			bytes.HasPrefix(l, []byte("id:")) || bytes.HasPrefix(l, []byte("retry:")) {
			continue
		}
		if p, ok := bytes.CutPrefix(l, []byte("data:")); ok {
			l = bytes.TrimSpace(p)
			if len(l) == 0 || string(l) == "[DONE]" {
				continue
			}
		}
		if len(lines) < 8 && len(l) > 0 && (l[0] == '{' || l[0] == '[') && json.Valid(l) {
			valid++
		}
		lines = append(lines, cand{l, int64(i + 1)})
	}
	if len(lines) < 2 || valid == 0 {
		var v any
		err := json.Unmarshal(t, &v)
		msg := "invalid JSON"
		if err != nil {
			msg += ": " + err.Error()
		}
		return nil, f.Reject(gaiSyntaxLine(data, err), msg, data)
	}
	out := make([]gaiRecord, 0, len(lines))
	for _, l := range lines {
		if !json.Valid(l.raw) {
			if err := f.Reject(l.line, "invalid JSON line", l.raw); err != nil {
				return nil, err
			}
			continue
		}
		out = append(out, gaiRecord{raw: l.raw, line: l.line})
	}
	return out, nil
}

// gaiSyntaxLine is the 1-based line of a JSON syntax error in data (1 when
// the error has no offset).
func gaiSyntaxLine(data []byte, err error) int64 {
	se, ok := err.(*json.SyntaxError)
	if !ok || se.Offset <= 0 {
		return 1
	}
	off := min(int(se.Offset), len(data))
	return int64(bytes.Count(data[:off], []byte("\n"))) + 1
}

// gaiDecodeAny decodes JSON into plain values, numbers as json.Number.
func gaiDecodeAny(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// gaiRaw re-encodes a decoded value for a reject.
func gaiRaw(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte(fmt.Sprint(v))
	}
	return b
}

// gaiJSON encodes a value as canonical JSON.
func gaiJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return CanonicalJSON(b)
}

// gaiFirst returns the first of the keys that m has.
func gaiFirst(m map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := m[k]; ok && v != nil {
			return v
		}
	}
	return nil
}

// gaiString returns a string or number value as a string.
func gaiString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

// gaiNumber reads a JSON number or numeric string as json.Number.
func gaiNumber(v any) (json.Number, bool) {
	switch x := v.(type) {
	case json.Number:
		return x, true
	case string:
		s := strings.TrimSpace(x)
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return json.Number(s), true
		}
	case float64:
		return json.Number(strconv.FormatFloat(x, 'f', -1, 64)), true
	}
	return "", false
}

// gaiInt reads a token count: a non-negative integer below gaiMaxTokens.
func gaiInt(v any) (int64, bool) {
	n, ok := gaiNumber(v)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	if err != nil {
		f, ferr := n.Float64()
		if ferr != nil || f != f || f < 0 || f >= gaiMaxTokens {
			return 0, false
		}
		i = int64(f)
	}
	if i < 0 || i >= gaiMaxTokens {
		return 0, false
	}
	return i, true
}

// gaiFloat reads a number or numeric string.
func gaiFloat(v any) (float64, bool) {
	n, ok := gaiNumber(v)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil && f == f
}

// gaiAttrInt returns the first of the keys that holds a token count.
func gaiAttrInt(m map[string]any, keys ...string) (int64, bool) {
	for _, k := range keys {
		if i, ok := gaiInt(m[k]); ok {
			return i, true
		}
	}
	return 0, false
}

// gaiHexID normalises a trace or span id to lower-case hex: decimal integers
// (any-agent) are converted, "0x" prefixes dropped.
func gaiHexID(v any, width int) string {
	switch x := v.(type) {
	case json.Number:
		n, ok := new(big.Int).SetString(x.String(), 10)
		if !ok || n.Sign() <= 0 {
			return ""
		}
		h := n.Text(16)
		if len(h) < width {
			h = strings.Repeat("0", width-len(h)) + h
		}
		return h
	case string:
		s := strings.ToLower(strings.TrimSpace(x))
		s = strings.TrimPrefix(s, "0x")
		if strings.Trim(s, "0") == "" {
			return ""
		}
		return s
	}
	return ""
}

// gaiUnwrap decodes a value that is JSON text (possibly encoded several
// times over, as Langfuse stores some payloads); other values are returned
// as they are.
func gaiUnwrap(v any) any {
	for range 4 {
		s, ok := v.(string)
		if !ok {
			return v
		}
		t := strings.TrimSpace(s)
		if len(t) < 2 || t[0] != '{' && t[0] != '[' && t[0] != '"' {
			return v
		}
		d, err := gaiDecodeAny([]byte(t))
		if err != nil {
			return v
		}
		v = d
	}
	return v
}

// gaiUnwrapContent unwraps content logged as JSON text of a block list.
func gaiUnwrapContent(v any) any {
	if u := gaiUnwrap(v); u != nil {
		if _, ok := u.([]any); ok {
			return u
		}
		if _, ok := u.(string); ok {
			return u
		}
	}
	return v
}

// gaiArgs renders tool-call arguments as JSON text.
func gaiArgs(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	return gaiJSON(v)
}

// gaiText flattens a payload to the text a model would see: strings as
// they are, content blocks joined, other values as canonical JSON.
func gaiText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	case []any:
		parts := make([]string, 0, len(x))
		for _, e := range x {
			if m, ok := e.(map[string]any); ok {
				if t, ok := m["text"].(string); ok {
					parts = append(parts, t)
					continue
				}
			}
			if t := gaiText(e); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "\n")
	case map[string]any:
		if t, ok := x["text"].(string); ok {
			return t
		}
		if c, ok := x["content"]; ok && c != nil {
			return gaiText(c)
		}
		return gaiJSON(x)
	}
	return fmt.Sprint(v)
}

// gaiCall is a tool call of a model output.
type gaiCall struct{ id, name, args string }

// gaiResult is a tool result.
type gaiResult struct {
	id, name, text string
	isError        bool
}

// gaiMsg is one chat message in a common shape.
type gaiMsg struct {
	role      string // system, user, assistant or tool
	text      string
	reasoning string
	calls     []gaiCall
	results   []gaiResult
	finish    string
}

// gaiMessages reads chat messages from any of the shapes agent frameworks
// log: OpenAI chat (role, content, tool_calls, tool_call_id), Anthropic
// content blocks (text, thinking, tool_use, tool_result), OpenAI Responses
// items and response objects, OTel GenAI parts, LangChain message dicts,
// Vercel AI SDK prompts and tool-call lists, any-agent tool requests, plain
// strings. role is the role of values that do not name one.
func gaiMessages(v any, role string) []gaiMsg {
	return gaiMessagesDepth(gaiUnwrap(v), role, 0)
}

func gaiMessagesDepth(v any, role string, depth int) []gaiMsg {
	if depth > 8 {
		return nil
	}
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		if strings.TrimSpace(x) == "" {
			return nil
		}
		return []gaiMsg{{role: role, text: x}}
	case []any:
		if gaiIsCallList(x) {
			m := gaiMsg{role: "assistant"}
			for _, e := range x {
				m.calls = append(m.calls, gaiCallOf(e.(map[string]any)))
			}
			return []gaiMsg{m}
		}
		if gaiIsBlockList(x) {
			m := gaiMsg{role: role}
			gaiBlocks(&m, x)
			return []gaiMsg{m}
		}
		var out []gaiMsg
		for _, e := range x {
			out = append(out, gaiMessagesDepth(gaiUnwrap(e), role, depth+1)...)
		}
		return out
	case map[string]any:
		return gaiObjectDepth(x, role, depth)
	}
	return []gaiMsg{{role: role, text: gaiText(v)}}
}

// gaiIsCallList reports whether a list is a bare list of tool calls
// (Vercel AI SDK [{toolCallId, toolName, input}], any-agent [{tool.name, tool.args}]).
func gaiIsCallList(x []any) bool {
	if len(x) == 0 {
		return false
	}
	for _, e := range x {
		m, ok := e.(map[string]any)
		if !ok || m["role"] != nil {
			return false
		}
		_, vercel := m["toolName"]
		_, aa := m["tool.name"]
		if !vercel && !aa {
			return false
		}
	}
	return true
}

// gaiIsBlockList reports whether a list holds content blocks rather than messages.
func gaiIsBlockList(x []any) bool {
	if len(x) == 0 {
		return false
	}
	for _, e := range x {
		m, ok := e.(map[string]any)
		if !ok || m["role"] != nil {
			return false
		}
		switch gaiString(m["type"]) {
		case "text", "input_text", "output_text", "thinking", "redacted_thinking", "tool_use", "tool_result",
			"tool-call", "tool-result", "tool_call", "tool_call_response", "image", "image_url", "input_image", "file", "uri", "blob":
		default:
			return false
		}
	}
	return true
}

// gaiRole normalises a role (or a LangChain message type).
func gaiRole(s string) string {
	switch strings.ToLower(s) {
	case "system", "developer", "systemmessage":
		return "system"
	case "user", "human", "humanmessage", "humanmessagechunk":
		return "user"
	case "assistant", "ai", "model", "bot", "aimessage", "aimessagechunk":
		return "assistant"
	case "tool", "function", "ipython", "toolmessage", "functionmessage":
		return "tool"
	}
	return ""
}

// gaiObject reads one object: a message, a container of messages or a
// standalone item.
func gaiObject(m map[string]any, role string) []gaiMsg { return gaiObjectDepth(m, role, 0) }

func gaiObjectDepth(m map[string]any, role string, depth int) []gaiMsg {
	// containers
	if msgs, ok := m["messages"].([]any); ok {
		var out []gaiMsg
		if s := gaiString(m["system"]); s != "" {
			out = append(out, gaiMsg{role: "system", text: s})
		}
		return append(out, gaiMessagesDepth(msgs, role, depth+1)...)
	}
	if ch, ok := m["choices"].([]any); ok {
		if len(ch) == 0 {
			return nil
		}
		c, _ := ch[0].(map[string]any)
		if c == nil {
			return nil
		}
		var out []gaiMsg
		if msg, ok := c["message"].(map[string]any); ok {
			out = gaiObjectDepth(msg, "assistant", depth+1)
		} else if t := gaiString(c["text"]); t != "" {
			out = []gaiMsg{{role: "assistant", text: t}}
		}
		for i := range out {
			out[i].finish = gaiString(c["finish_reason"])
		}
		return out
	}
	if items, ok := m["output"].([]any); ok && (gaiString(m["object"]) == "response" || m["role"] == nil && m["content"] == nil && m["type"] == nil) {
		return gaiMessagesDepth(items, "assistant", depth+1)
	}
	typ := gaiString(m["type"])
	switch typ {
	case "function_call", "custom_tool_call", "tool-call", "tool_call", "tool_use", "server_tool_use":
		if m["role"] == nil {
			return []gaiMsg{{role: "assistant", calls: []gaiCall{gaiCallOf(m)}}}
		}
	case "function_call_output", "custom_tool_call_output", "tool-result", "tool_result", "tool_call_response":
		if m["role"] == nil {
			return []gaiMsg{{role: "tool", results: []gaiResult{gaiResultOf(m)}}}
		}
	case "reasoning":
		if m["role"] == nil {
			return []gaiMsg{{role: "assistant", reasoning: gaiReasoning(m)}}
		}
	}
	if p, ok := m["prompt"]; ok && m["role"] == nil && m["content"] == nil {
		var out []gaiMsg
		if s := gaiString(m["system"]); s != "" {
			out = append(out, gaiMsg{role: "system", text: s})
		}
		return append(out, gaiMessagesDepth(gaiUnwrap(p), "user", depth+1)...)
	}
	r := gaiRole(gaiString(m["role"]))
	if r == "" {
		r = gaiRole(typ)
	}
	if r == "" {
		r = role
	}
	msg := gaiMsg{role: r}
	content, hasContent := m["content"]
	if !hasContent || content == nil {
		content, hasContent = m["parts"]
	}
	if !hasContent || content == nil {
		if t, ok := m["text"].(string); ok {
			content, hasContent = t, true
		}
	}
	switch c := content.(type) {
	case string:
		msg.text = c
	case []any:
		gaiBlocks(&msg, c)
	case map[string]any:
		if r == "tool" && m["tool_call_id"] == nil && c["function"] != nil {
			return nil // a tool definition shown as a message (Langfuse ChatML)
		}
		gaiBlocks(&msg, []any{c})
	case nil:
	default:
		msg.text = gaiText(c)
	}
	tcs, _ := m["tool_calls"].([]any)
	if tcs == nil {
		if ak, ok := m["additional_kwargs"].(map[string]any); ok {
			tcs, _ = ak["tool_calls"].([]any)
		}
	}
	for _, tc := range tcs {
		if tm, ok := tc.(map[string]any); ok {
			msg.calls = append(msg.calls, gaiCallOf(tm))
		}
	}
	if fc, ok := m["function_call"].(map[string]any); ok {
		msg.calls = append(msg.calls, gaiCallOf(fc))
	}
	if r == "tool" {
		id := gaiString(gaiFirst(m, "tool_call_id", "toolCallId", "tool_use_id", "call_id"))
		if len(msg.results) == 0 {
			msg.results = []gaiResult{{id: id, name: gaiString(m["name"]), text: msg.text, isError: gaiString(m["status"]) == "error"}}
			msg.text = ""
		}
	}
	msg.finish = gaiString(gaiFirst(m, "finish_reason", "stop_reason", "finishReason"))
	if msg.text == "" && msg.reasoning == "" && msg.calls == nil && msg.results == nil && !hasContent && m["tool_calls"] == nil {
		if m["role"] == nil && typ == "" {
			msg.text = gaiJSON(m) // a structured value: its JSON is what was exchanged
		}
	}
	return []gaiMsg{msg}
}

func gaiReasoning(m map[string]any) string {
	if s, ok := gaiFirst(m, "thinking", "reasoning", "text", "content").(string); ok {
		return s
	}
	if sum, ok := gaiFirst(m, "summary", "content").([]any); ok {
		return gaiText(sum)
	}
	return ""
}

// gaiBlocks adds content blocks to a message.
func gaiBlocks(msg *gaiMsg, blocks []any) {
	add := func(dst *string, s string) {
		if s == "" {
			return
		}
		if *dst != "" {
			*dst += "\n"
		}
		*dst += s
	}
	for _, b := range blocks {
		switch x := b.(type) {
		case string:
			add(&msg.text, x)
		case map[string]any:
			switch t := gaiString(x["type"]); t {
			case "text", "input_text", "output_text", "":
				if s, ok := x["text"].(string); ok {
					add(&msg.text, s)
				} else if s, ok := x["content"].(string); ok {
					add(&msg.text, s)
				} else if t == "" {
					add(&msg.text, gaiText(x))
				}
			case "thinking", "reasoning", "redacted_thinking":
				add(&msg.reasoning, gaiReasoning(x))
			case "tool_use", "server_tool_use", "tool-call", "tool_call", "function_call":
				msg.calls = append(msg.calls, gaiCallOf(x))
			case "tool_result", "tool-result", "tool_call_response", "function_call_output":
				msg.results = append(msg.results, gaiResultOf(x))
			case "refusal":
				add(&msg.text, gaiString(x["refusal"]))
			default:
				add(&msg.text, "["+t+"]")
			}
		}
	}
}

func gaiCallOf(m map[string]any) gaiCall {
	c := gaiCall{id: gaiString(gaiFirst(m, "call_id", "toolCallId", "tool_call_id", "id"))}
	c.name = gaiString(gaiFirst(m, "name", "toolName", "tool.name"))
	args := gaiFirst(m, "arguments", "args", "input", "tool.args")
	if fn, ok := m["function"].(map[string]any); ok {
		if c.name == "" {
			c.name = gaiString(fn["name"])
		}
		if args == nil {
			args = fn["arguments"]
		}
	}
	c.args = gaiArgs(args)
	return c
}

func gaiResultOf(m map[string]any) gaiResult {
	r := gaiResult{id: gaiString(gaiFirst(m, "tool_use_id", "toolCallId", "call_id", "tool_call_id", "id"))}
	r.name = gaiString(gaiFirst(m, "name", "toolName"))
	r.text = gaiText(gaiFirst(m, "content", "output", "result", "response"))
	r.isError = m["is_error"] == true || m["isError"] == true || gaiString(m["status"]) == "error"
	return r
}

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

// gaiKey is one top-level key of a JSON object as gaiScanKeys saw it.
type gaiKey struct {
	name string
	kind byte // first byte of the value
	str  string
	off  int // offset of the value
}

// gaiTrimHead drops a BOM and leading white space.
func gaiTrimHead(head []byte) []byte {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	return head[jsonWS(head, 0):]
}

// gaiSkipValue returns the offset after the value starting at b[i], or -1
// when it is cut off.
func gaiSkipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return jsonSkipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				k := jsonSkipString(b, j)
				if k < 0 {
					return -1
				}
				j = k - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	for j := i; j < len(b); j++ {
		switch b[j] {
		case ',', '}', ']', ' ', '\n', '\r', '\t':
			return j
		}
	}
	return -1
}

// gaiScanKeys reads the leading keys of the JSON object at the start of b
// (at most limit) without decoding values, so that a head cut off inside a
// long value still shows the keys before it. A cut-off value ends the scan
// after its key.
func gaiScanKeys(b []byte, limit int) []gaiKey {
	i := jsonWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil
	}
	i++
	var out []gaiKey
	for len(out) < limit {
		i = jsonWS(b, i)
		if i >= len(b) || b[i] != '"' {
			return out
		}
		end := jsonSkipString(b, i)
		if end < 0 {
			return out
		}
		var name string
		if json.Unmarshal(b[i:end], &name) != nil {
			return out
		}
		i = jsonWS(b, end)
		if i >= len(b) || b[i] != ':' {
			return out
		}
		i = jsonWS(b, i+1)
		if i >= len(b) {
			return out
		}
		k := gaiKey{name: name, kind: b[i], off: i}
		vend := gaiSkipValue(b, i)
		if vend < 0 {
			return append(out, k)
		}
		if b[i] == '"' && vend-i < 512 {
			_ = json.Unmarshal(b[i:vend], &k.str)
		}
		out = append(out, k)
		i = jsonWS(b, vend)
		if i >= len(b) || b[i] != ',' {
			return out
		}
		i++
	}
	return out
}
