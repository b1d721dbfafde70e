package ingest

import (
	"bufio"
	"bytes"
	stdjson "encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// openHands reads OpenHands V0 event streams: evaluation output.jsonl (one
// instance per line: {instance_id, instruction, metadata, history, metrics,
// error, test_result, …}; the older resolver output {issue, history, metrics,
// success, …} too), a bare JSON list of events (tests/runtime/trajs/*.json),
// or one such instance or {"trajectory": [events]} as a whole-file document.
// One run per instance or list; run id = instance_id, else "owner/repo#number"
// of a resolver issue, else the file's base name (plus "#line" per JSONL line).
//
// An event is {id, timestamp, source, message, cause?} plus either action
// with args or observation with content and extras; legacy resolver histories
// hold flat args-only dicts without id or timestamp (and the oldest evaluation
// outputs [action, observation] pairs, which are flattened). Timestamps have
// no zone and are read as UTC. Event.Line is the instance's line for JSONL,
// the line where the event starts for whole-file documents.
//
// Steps per run:
//  1. Decode the instance (a malformed JSONL line is one reject, the other
//     lines still import), then each history event on its own: an event that
//     does not decode, or has neither action nor observation, is rejected and
//     skipped.
//  2. Actions. system → system event, followed by its tools when listed
//     (one system event with role tools: ToolDefinitions); a user message →
//     user event; recall, change_agent_state and other non-agent actions are
//     bookkeeping and skipped. Every other agent action is the output of one
//     model call: actions whose tool_call_metadata.model_response share an id are one
//     call (RunBuilder.Call; parallel tool calls), an action without one is a
//     call of its own (NewCall). The call's text is the response's message
//     content (and reasoning_content), else args.thought (args.content for a
//     message); its tool call is named by tool_call_metadata.function_name
//     (else the action type) with the arguments the model sent (from the
//     response's tool_calls, else args without OpenHands' bookkeeping keys).
//  3. Observations become tool results linked by tool_call_metadata.
//     tool_call_id, else by cause = the action's id (used as call id), else —
//     legacy histories without ids — by position. Run output keeps the
//     metadata prefix/suffix the model sees and its exit code (-1 = none);
//     oh_aci edits use formatted_output_and_error. Unlinked error
//     observations are error events; recall observations add the microagent
//     knowledge and instructions the model sees as a user event;
//     agent_state_changed and null observations are not shown to the model.
//  4. Usage per model call: the response's usage (prompt_tokens includes cache
//     reads and writes), else the instance's metrics.token_usages entry with
//     that response_id, else the difference of the cumulative
//     llm_metrics.accumulated_token_usage since the previous snapshot. With
//     no per-call usage at all, the instance's accumulated_token_usage are the
//     run totals (usage_estimated). Cost: metrics.accumulated_cost.
//  5. Context management: a condensation action (forgotten_event_ids, or
//     forgotten_events_start_id…end_id, and an optional summary) is a
//     compaction event with a summary op (a context_op event with a
//     truncation op when it has no summary), detail "forgot N events", and
//     tokens_before = the prompt of the last measured call; a
//     condensation_request is a context_op event whose trigger ("request")
//     goes to the condensation that follows.
//  6. End: a finish action → finished; agent_state_changed finished / error /
//     stopped|paused|rejected → finished / error / interrupted (a user
//     message or running again clears it); error texts about the context window → context_overflow;
//     the instance's error field ("Agent reached maximum iteration" →
//     step_limit, budget → cost_limit, context window → context_overflow,
//     else error) overrides. Outcome: test_result.report.resolved (or
//     test_result.resolved, resolved, the resolver's success).
type openHands struct{ formatInfo }

// Detect accepts a JSON list whose first element is a V0 event (an object
// with an action or observation string and an id or source), or an object
// (a JSONL line or a whole document) whose "history" (or "trajectory") array
// starts with one (or an instance_id and an empty history). SWE-agent
// histories hold role messages and its trajectory
// steps have no id/source, so they are not claimed; neither are SDK events
// (they have a "kind").
func (openHands) Detect(_ string, head []byte) bool {
	head = trimHead(head)
	if len(head) == 0 {
		return false
	}
	dec := stdjson.NewDecoder(bytes.NewReader(head))
	t, err := dec.Token()
	if err != nil {
		return false
	}
	switch t {
	case stdjson.Delim('['):
		if t, err := dec.Token(); err != nil || t != stdjson.Delim('{') {
			return false
		}
		return ohDetectEvent(dec, true)
	case stdjson.Delim('{'):
		return ohDetectRecord(dec)
	}
	return false
}

// ohDetectRecord scans the keys of an object whose '{' was just read for a
// history or trajectory array of V0 events.
func ohDetectRecord(dec *stdjson.Decoder) bool {
	instance := false
	for {
		key, ok, _ := nextKey(dec)
		if !ok {
			return false
		}
		instance = instance || key == "instance_id"
		if key != "history" && key != "trajectory" {
			if _, err := skipValue(dec); err != nil {
				return false
			}
			continue
		}
		isArray, err := enter(dec, stdjson.Delim('['))
		if err != nil {
			return false
		}
		if !isArray {
			continue
		}
		el, err := dec.Token()
		if err != nil {
			return false
		}
		if el == stdjson.Delim(']') { // an instance whose agent never started
			return instance && key == "history"
		}
		if el == stdjson.Delim('[') { // [action, observation] pairs
			if el, err = dec.Token(); err != nil {
				return false
			}
		}
		if el != stdjson.Delim('{') {
			return false
		}
		return ohDetectEvent(dec, key == "trajectory")
	}
}

// ohDetectEvent scans the keys of an object whose '{' was just read and
// reports whether it is a V0 event: an action or observation string, no role
// (a chat message) and no kind (an SDK event); strict also wants an id or a
// source. A head that ends inside the object decides on the keys seen.
func ohDetectEvent(dec *stdjson.Decoder, strict bool) bool {
	var actObs, idSrc, foreign bool
	for {
		key, ok, _ := nextKey(dec)
		if !ok {
			break
		}
		switch key {
		case "action", "observation":
			v, err := skipValue(dec)
			if err != nil {
				return actObs && (idSrc || !strict) && !foreign
			}
			if s, ok := v.(string); ok && s != "" {
				actObs = true
			}
			continue
		case "id", "source":
			idSrc = true
		case "role", "kind":
			foreign = true
		}
		if _, err := skipValue(dec); err != nil {
			break
		}
	}
	return actObs && (idSrc || !strict) && !foreign
}

// ohResponse is the part of tool_call_metadata.model_response that is used.
type ohResponse struct {
	ID      string `json:"id"`
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content          json.RawMessage `json:"content"`
			ReasoningContent json.RawMessage `json:"reasoning_content"`
			ToolCalls        []oaToolCall    `json:"tool_calls"`
		} `json:"message"`
	} `json:"choices"`
	Usage *ohLiteUsage `json:"usage"`
}

type ohCallMeta struct {
	FunctionName  string          `json:"function_name"`
	ToolCallID    string          `json:"tool_call_id"`
	ModelResponse json.RawMessage `json:"model_response"`
}

// ohEvent is one V0 history event.
type ohEvent struct {
	ID          json.RawMessage `json:"id"`
	Timestamp   any             `json:"timestamp"`
	Source      string          `json:"source"`
	Message     json.RawMessage `json:"message"`
	Cause       json.RawMessage `json:"cause"`
	Action      string          `json:"action"`
	Observation string          `json:"observation"`
	Args        json.RawMessage `json:"args"`
	Content     json.RawMessage `json:"content"`
	Extras      json.RawMessage `json:"extras"`
	CallMeta    json.RawMessage `json:"tool_call_metadata"`
	LLMMetrics  json.RawMessage `json:"llm_metrics"`
	Success     *bool           `json:"success"`
}

// ohInstance is one evaluation (or resolver) output record.
type ohInstance struct {
	InstanceID json.RawMessage `json:"instance_id"`
	Metadata   json.RawMessage `json:"metadata"`
	History    json.RawMessage `json:"history"`
	Trajectory json.RawMessage `json:"trajectory"`
	Metrics    json.RawMessage `json:"metrics"`
	Error      json.RawMessage `json:"error"`
	TestResult json.RawMessage `json:"test_result"`
	Issue      json.RawMessage `json:"issue"`
	Success    json.RawMessage `json:"success"`
	Resolved   json.RawMessage `json:"resolved"`
	events     []ohRawEvent    // history, flattened
}

// ohRawEvent is one history event's JSON and its line in the file.
type ohRawEvent struct {
	raw  []byte
	line int64
	idx  int
}

// ohLine is one decoded JSONL line (decoded in parallel).
type ohLine struct {
	inst   *ohInstance
	reject string // set for a malformed line; inst is nil for an empty one
}

func (openHands) Import(f *File, r io.Reader) error {
	oh := &ohImport{f: f, base: fileStem(f.Path())}
	br := bufio.NewReaderSize(r, 64<<10)
	first, err := ohPeek(br)
	if err != nil {
		return fmt.Errorf("read %s: %w", f.Path(), err)
	}
	lower := strings.ToLower(f.Path())
	if first == '{' && (strings.HasSuffix(lower, ".jsonl") || strings.HasSuffix(lower, ".ndjson")) {
		return oh.lines(br)
	}
	whole, err := readDocument(f, br)
	if err != nil {
		return err
	}
	data := whole.data
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(data, utf8BOM))
	if len(trimmed) > 0 && trimmed[0] == '{' && !json.Valid(trimmed) {
		return oh.lines(bytes.NewReader(data))
	}
	return oh.document(data)
}

// ohPeek returns the first byte that is not a BOM or white space (0 at EOF).
func ohPeek(br *bufio.Reader) (byte, error) {
	for n := 1; ; n++ {
		b, err := br.Peek(n)
		if len(b) < n {
			if err == io.EOF || err == bufio.ErrBufferFull {
				return 0, nil
			}
			return 0, err
		}
		if n <= 3 && bytes.HasPrefix(utf8BOM, b) {
			continue
		}
		c := b[n-1]
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return c, nil
		}
	}
}

type ohImport struct {
	f    *File
	base string
}

// lines imports one instance per JSONL line.
func (oh *ohImport) lines(r io.Reader) error {
	decode := func(n int64, raw []byte, d *ohLine) string {
		*d = ohDecodeLine(n, raw)
		return d.reject
	}
	return lineReader[ohLine]{decode: decode, parallel: true}.read(oh.f, r, func(n int64, raw []byte, d *ohLine) error {
		if d.inst == nil {
			return nil
		}
		id := oh.base + "#" + strconv.FormatInt(n, 10)
		return oh.run(d.inst, id, n)
	})
}

func ohDecodeLine(n int64, raw []byte) ohLine {
	if n == 1 {
		raw = bytes.TrimSpace(bytes.TrimPrefix(raw, utf8BOM))
	}
	if len(raw) == 0 {
		return ohLine{}
	}
	if raw[0] != '{' {
		return ohLine{reject: "record is not a JSON object"}
	}
	inst := &ohInstance{}
	if err := json.Unmarshal(raw, inst); err != nil {
		return ohLine{reject: "invalid JSON: " + decodeErrText(err)}
	}
	list := inst.History
	if ohIsNull(list) {
		list = inst.Trajectory
	}
	if ohIsNull(list) {
		return ohLine{reject: `record without a "history" array`}
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(list, &elems); err != nil {
		return ohLine{reject: "history is not an array: " + decodeErrText(err)}
	}
	inst.events = make([]ohRawEvent, 0, len(elems))
	for i, el := range elems {
		inst.events = ohAppendEvent(inst.events, el, n, i)
	}
	return ohLine{inst: inst}
}

// ohAppendEvent appends a history element, flattening an [action,
// observation] pair.
func ohAppendEvent(out []ohRawEvent, el []byte, line int64, idx int) []ohRawEvent {
	el = bytes.TrimSpace(el)
	if len(el) > 0 && el[0] == '[' {
		var pair []json.RawMessage
		if json.Unmarshal(el, &pair) == nil {
			for _, p := range pair {
				out = append(out, ohRawEvent{raw: p, line: line, idx: idx})
			}
			return out
		}
	}
	return append(out, ohRawEvent{raw: el, line: line, idx: idx})
}

// document imports a whole-file JSON value: a list of events, or one
// instance (or {"trajectory": [...]}) object.
func (oh *ohImport) document(data []byte) error {
	d := newJSONDoc(data)
	ix, doc := d.index(), d.root
	if len(doc.raw) == 0 {
		return nil
	}
	syntax := func(err error) error { return oh.f.Reject(d.errLine(err), "invalid JSON: "+decodeErrText(err), data) }
	inst := &ohInstance{}
	list := doc
	switch doc.raw[0] {
	case '[':
	case '{':
		fields, err := objectFields(doc)
		if err != nil {
			return syntax(err)
		}
		var ok bool
		if list, ok = fields["history"]; !ok || ohIsNull(list.raw) {
			list, ok = fields["trajectory"]
		}
		if !ok || ohIsNull(list.raw) {
			return oh.f.Reject(1, `object without a "history" array`, data)
		}
		for k, dst := range map[string]*json.RawMessage{"instance_id": &inst.InstanceID, "metadata": &inst.Metadata,
			"metrics": &inst.Metrics, "error": &inst.Error, "test_result": &inst.TestResult, "issue": &inst.Issue,
			"success": &inst.Success, "resolved": &inst.Resolved} {
			if s, ok := fields[k]; ok {
				*dst = s.raw
			}
		}
	default:
		return oh.f.Reject(1, "expected a JSON list of events or an object with a history array", data)
	}
	elems, err := arrayElems(list)
	if err != nil {
		if list.off == doc.off {
			return syntax(err)
		}
		return oh.f.Reject(ix.line(list.off), "history is not an array: "+decodeErrText(err), data)
	}
	for i, el := range elems {
		inst.events = ohAppendEvent(inst.events, el.raw, ix.line(el.off), i)
	}
	return oh.run(inst, oh.base, 1)
}

// ohRun is the state of one run's import.
type ohRun struct {
	f           *File
	b           *RunBuilder
	line        int64               // the instance's line
	calls       map[string]*ohCall  // action event id → its tool call
	byCallID    map[string]*ohCall  // tool_call_id → tool call
	queue       []*ohCall           // tool calls of id-less (legacy) actions, unanswered, in order
	respText    map[string]bool     // response ids whose text was added
	tokenUsages map[string]ohTokens // instance metrics.token_usages by response_id
	prevAcc     *ohTokens           // the last accumulated_token_usage snapshot
	accDelta    *ohTokens           // the current event's increase of it
	lastPrompt  *int64              // prompt tokens of the last measured call
	usageTurns  map[int64]bool
	trigger     string // trigger of the next condensation
	cost        float64
	hasCost     bool
	span        ohSpan
}

// run imports one instance (or event list) as one run.
func (oh *ohImport) run(inst *ohInstance, defID string, line int64) error {
	f := oh.f
	id, task := scalarString(inst.InstanceID), ""
	if id != "" {
		task = id
	} else if key := ohIssueKey(inst.Issue); key != "" {
		id, task = key, key
	} else {
		id = defID
	}
	b, err := f.NewRun(strings.Clone(id))
	if err != nil {
		return err
	}
	b.Run.Harness = "openhands"
	b.Run.TaskID = strings.Clone(task)
	o := &ohRun{f: f, b: b, line: line, calls: map[string]*ohCall{}, byCallID: map[string]*ohCall{},
		respText: map[string]bool{}, tokenUsages: map[string]ohTokens{}, usageTurns: map[int64]bool{}}
	var meta struct {
		LLMConfig *struct {
			Model          string `json:"model"`
			MaxInputTokens ohInt  `json:"max_input_tokens"`
		} `json:"llm_config"`
	}
	if !ohIsNull(inst.Metadata) && json.Unmarshal(inst.Metadata, &meta) == nil && meta.LLMConfig != nil {
		b.NoteModel(meta.LLMConfig.Model)
		if w := int64(meta.LLMConfig.MaxInputTokens); w > 0 {
			b.Run.WindowTokens = &w
		}
	}
	var metrics ohMetrics
	hasMetrics := !ohIsNull(inst.Metrics) && json.Unmarshal(inst.Metrics, &metrics) == nil
	if hasMetrics {
		for _, u := range metrics.TokenUsages {
			if u.ResponseID != "" {
				if _, dup := o.tokenUsages[u.ResponseID]; !dup {
					o.tokenUsages[strings.Clone(u.ResponseID)] = u
				}
			}
		}
	}
	for i, ev := range inst.events {
		if i&255 == 255 && f.Ctx != nil {
			if err := f.Ctx.Err(); err != nil {
				return err
			}
		}
		if err := o.event(ev); err != nil {
			return err
		}
	}
	if hasMetrics {
		if metrics.AccumulatedCost != nil && (*metrics.AccumulatedCost > 0 || len(metrics.Costs) > 0) {
			o.cost, o.hasCost = *metrics.AccumulatedCost, true
		}
		if acc := metrics.AccumulatedTokenUsage; acc != nil && len(o.usageTurns) == 0 {
			if u, ok := acc.usage(); ok {
				b.Run.InputTokens, b.Run.OutputTokens = u.InputTokens, u.OutputTokens
				b.Run.CacheReadTokens, b.Run.CacheWriteTokens, b.Run.ReasoningTokens = u.CacheReadTokens, u.CacheWriteTokens, u.ReasoningTokens
			}
		}
	}
	if o.hasCost && !math.IsNaN(o.cost) && !math.IsInf(o.cost, 0) {
		c := o.cost
		b.Run.CostUSD = &c
	}
	if msg := ohText(inst.Error); strings.TrimSpace(msg) != "" {
		b.SetEnd(ohEndFromText(msg, schema.EndError), strings.TrimSpace(msg))
	}
	b.Run.Resolved = ohResolved(inst)
	o.span.set(&b.Run)
	return b.Finish()
}

// ohIssueKey names a resolver issue "owner/repo#number".
func ohIssueKey(raw json.RawMessage) string {
	if ohIsNull(raw) {
		return ""
	}
	var is struct {
		Owner  string          `json:"owner"`
		Repo   string          `json:"repo"`
		Number json.RawMessage `json:"number"`
	}
	if json.Unmarshal(raw, &is) != nil || is.Repo == "" {
		return ""
	}
	key := is.Repo
	if is.Owner != "" {
		key = is.Owner + "/" + key
	}
	if n := scalarString(is.Number); n != "" {
		key += "#" + n
	}
	return key
}

// ohResolved reads the outcome: test_result.report.resolved,
// test_result.resolved, resolved, or the resolver's success.
func ohResolved(inst *ohInstance) *bool {
	var tr struct {
		Report *struct {
			Resolved *bool `json:"resolved"`
		} `json:"report"`
		Resolved *bool `json:"resolved"`
	}
	if !ohIsNull(inst.TestResult) && json.Unmarshal(inst.TestResult, &tr) == nil {
		if tr.Report != nil && tr.Report.Resolved != nil {
			return tr.Report.Resolved
		}
		if tr.Resolved != nil {
			return tr.Resolved
		}
	}
	for _, raw := range []json.RawMessage{inst.Resolved, inst.Success} {
		var v bool
		if !ohIsNull(raw) && json.Unmarshal(raw, &v) == nil {
			return &v
		}
	}
	return nil
}

// event handles one history event.
func (o *ohRun) event(re ohRawEvent) error {
	raw := bytes.TrimSpace(re.raw)
	reject := func(why string) error {
		return o.f.Reject(re.line, fmt.Sprintf("history[%d]: %s", re.idx, why), raw)
	}
	if len(raw) == 0 || raw[0] != '{' {
		return reject("event is not a JSON object")
	}
	var ev ohEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		return reject("invalid event: " + decodeErrText(err))
	}
	if ev.Action == "" && ev.Observation == "" {
		return reject("event without action or observation")
	}
	if ohIsNull(ev.Args) && ohIsNull(ev.Extras) { // legacy: a flat args-only dict
		ev.Args, ev.Extras = raw, raw
	}
	o.accDelta = nil
	if !ohIsNull(ev.LLMMetrics) {
		var m ohMetrics
		if json.Unmarshal(ev.LLMMetrics, &m) == nil {
			if m.AccumulatedCost != nil && *m.AccumulatedCost > 0 {
				o.cost, o.hasCost = *m.AccumulatedCost, true
			}
			if acc := m.AccumulatedTokenUsage; acc != nil {
				d := acc.sub(o.prevAcc)
				o.accDelta, o.prevAcc = &d, acc
				if w := int64(acc.ContextWindow); w > 0 {
					o.b.Run.WindowTokens = &w
				}
			}
		}
	}
	ts := ParseTime(ev.Timestamp)
	o.span.note(ts)
	if ev.Action != "" {
		return o.action(re.line, ts, &ev)
	}
	return o.observation(re.line, ts, &ev)
}

// ohBookkeeping are args keys OpenHands adds that the model did not send.
var ohBookkeeping = map[string]bool{"thought": true, "action": true, "action_risk": true, "security_risk": true,
	"is_confirmed": true, "confirmation_state": true, "blocking": true, "is_static": true, "cwd": true, "hidden": true,
	"keep_prompt": true, "kernel_init_code": true, "impl_source": true, "translated_ipython_code": true,
	"wait_for_response": true, "image_urls": true, "images_urls": true, "include_extra": true, "timeout": true}

func (o *ohRun) action(line int64, ts *time.Time, ev *ohEvent) error {
	b := o.b
	args := ohObject(ev.Args)
	source := ev.Source
	if source == "" { // legacy: no source; a message waiting for a reply is the agent's
		source = "agent"
		if ev.Action == "message" && !ohBool(args["wait_for_response"]) {
			source = "user"
		}
	}
	switch {
	case ev.Action == "system":
		text := ohText(args["content"])
		if text == "" {
			text = ohText(ev.Message)
		}
		if err := b.Add(schema.Event{Kind: schema.KindSystem, Role: "system", TS: ts, Line: line, Text: text}); err != nil {
			return err
		}
		if e, ok := ToolDefinitions(args["tools"], line); ok { // the system message's tools
			e.TS = ts
			return b.Add(e)
		}
		return nil
	case ev.Action == "message" && source != "agent":
		text := ohText(args["content"])
		if text == "" {
			text = ohText(ev.Message)
		}
		ohResume(o.b)
		return b.Add(schema.Event{Kind: schema.KindUser, Role: "user", TS: ts, Line: line, Text: text})
	case ev.Action == "condensation":
		return o.condensation(line, ts, args)
	case ev.Action == "condensation_request" && ohIsNull(ev.CallMeta):
		o.trigger = "request"
		return b.Add(schema.Event{Kind: schema.KindContextOp, Role: "system", TS: ts, Line: line, Text: "condensation requested"})
	case ev.Action == "recall" || ev.Action == "change_agent_state" || ev.Action == "null" || source != "agent":
		return nil // bookkeeping, not model output
	}
	return o.output(line, ts, ev, args)
}

// output adds an agent action: the output of one model call.
func (o *ohRun) output(line int64, ts *time.Time, ev *ohEvent, args map[string]json.RawMessage) error {
	b := o.b
	var meta ohCallMeta
	var resp *ohResponse
	if !ohIsNull(ev.CallMeta) && json.Unmarshal(ev.CallMeta, &meta) == nil && !ohIsNull(meta.ModelResponse) {
		resp = &ohResponse{}
		if json.Unmarshal(meta.ModelResponse, resp) != nil {
			resp = nil
		}
	}
	rid := ""
	if resp != nil {
		rid = resp.ID
	}
	first := true
	if rid != "" {
		first = !o.respText[rid]
		o.respText[strings.Clone(rid)] = true
		b.Call(rid)
	} else {
		b.NewCall()
	}
	if resp != nil {
		b.NoteModel(resp.Model)
	}
	if first {
		var reasoning, text string
		if resp != nil && len(resp.Choices) > 0 {
			m := resp.Choices[0].Message
			reasoning, text = ohText(m.ReasoningContent), ContentText(m.Content)
		} else if ev.Action == "message" {
			if text = ohText(args["content"]); text == "" {
				text = ohText(ev.Message)
			}
		} else if ev.Action != "think" { // think's thought is its argument
			text = ohText(args["thought"])
		}
		if strings.TrimSpace(reasoning) != "" {
			if err := b.Add(schema.Event{Kind: schema.KindReasoning, Role: "assistant", TS: ts, Line: line, Text: reasoning}); err != nil {
				return err
			}
		}
		if strings.TrimSpace(text) != "" {
			if err := b.Add(schema.Event{Kind: schema.KindAssistant, Role: "assistant", TS: ts, Line: line, Text: text}); err != nil {
				return err
			}
		}
		o.usage(ts, rid, resp)
	}
	if ev.Action == "message" {
		return nil
	}
	e := schema.Event{Kind: schema.KindToolCall, Role: "assistant", TS: ts, Line: line, ToolName: meta.FunctionName, CallID: meta.ToolCallID}
	if resp != nil && len(resp.Choices) > 0 {
		calls := resp.Choices[0].Message.ToolCalls
		for i := range calls {
			if calls[i].ID == meta.ToolCallID || meta.ToolCallID == "" && len(calls) == 1 {
				if e.ToolName == "" {
					e.ToolName = calls[i].Function.Name
				}
				e.Args = jsonString(calls[i].Function.Arguments)
				break
			}
		}
	}
	if e.ToolName == "" {
		e.ToolName = ev.Action
	}
	if e.Args == "" {
		e.Args = ohModelArgs(args)
	}
	id := scalarString(ev.ID)
	if e.CallID == "" {
		e.CallID = id
	}
	e.Target = Target(e.ToolName, []byte(e.Args))
	if err := b.Add(e); err != nil {
		return err
	}
	c := &ohCall{callID: strings.Clone(e.CallID), name: strings.Clone(e.ToolName), target: strings.Clone(e.Target)}
	switch {
	case id != "":
		o.calls[strings.Clone(id)] = c
	case ev.Action != "finish": // legacy: results follow by position
		o.queue = append(o.queue, c)
	}
	if meta.ToolCallID != "" {
		o.byCallID[c.callID] = c
	}
	if ev.Action == "finish" {
		b.SetEnd(schema.EndFinished, "finish")
	}
	return nil
}

// usage records the usage of the current call: the response's, else the
// instance's token_usages entry, else the accumulated counters' increase.
func (o *ohRun) usage(ts *time.Time, rid string, resp *ohResponse) {
	b := o.b
	var u schema.Usage
	ok := false
	model := ""
	if resp != nil {
		model = resp.Model
		if resp.Usage != nil {
			u, ok = resp.Usage.usage()
		}
	}
	if !ok && rid != "" {
		if t, found := o.tokenUsages[rid]; found {
			u, ok = t.usage()
			if model == "" {
				model = t.Model
			}
		}
	}
	if !ok && o.accDelta != nil && !o.accDelta.zero() {
		u, ok = o.accDelta.usage()
		if model == "" {
			model = o.accDelta.Model
		}
	}
	if !ok || u.InputTokens == 0 && u.OutputTokens == 0 {
		return
	}
	u.TS, u.Model, u.RequestID = ts, model, rid
	b.SetUsage(u)
	o.usageTurns[b.Turns()-1] = true
	in := u.InputTokens
	o.lastPrompt = &in
}

func (o *ohRun) observation(line int64, ts *time.Time, ev *ohEvent) error {
	b := o.b
	extras := ohObject(ev.Extras)
	text := ContentText(ev.Content)
	switch ev.Observation {
	case "agent_state_changed":
		o.agentState(ohText(extras["agent_state"]), ohText(extras["reason"]))
		return nil
	case "null":
		return nil
	case "condense":
		if err := b.Add(schema.Event{Kind: schema.KindCompaction, Role: "user", TS: ts, Line: line, Text: text}); err != nil {
			return err
		}
		return o.op(schema.OpSummary, "condensation observation")
	case "recall":
		if text = ohRecallText(extras); strings.TrimSpace(text) == "" {
			return nil
		}
		return b.Add(schema.Event{Kind: schema.KindUser, Role: "user", TS: ts, Line: line, Text: text})
	}
	var meta ohCallMeta
	if !ohIsNull(ev.CallMeta) {
		_ = json.Unmarshal(ev.CallMeta, &meta)
	}
	var c *ohCall
	switch cause := scalarString(ev.Cause); {
	case meta.ToolCallID != "":
		if c = o.byCallID[meta.ToolCallID]; c == nil {
			c = &ohCall{callID: meta.ToolCallID, name: meta.FunctionName}
		}
	case cause != "":
		c = o.calls[cause]
	case len(ev.ID) == 0 && len(o.queue) > 0:
		c, o.queue = o.queue[0], o.queue[1:]
	}
	isErr := ev.Observation == "error" || ev.Observation == "user_rejected" || ev.Success != nil && !*ev.Success
	var exit *int64
	switch ev.Observation {
	case "run":
		var md struct {
			ExitCode *ohInt `json:"exit_code"`
			Prefix   string `json:"prefix"`
			Suffix   string `json:"suffix"`
		}
		if m := extras["metadata"]; !ohIsNull(m) && json.Unmarshal(m, &md) == nil {
			text = md.Prefix + text + md.Suffix
		}
		if md.ExitCode == nil { // legacy: exit_code beside the content
			var v ohInt
			if raw, ok := extras["exit_code"]; ok && !ohIsNull(raw) && json.Unmarshal(raw, &v) == nil {
				md.ExitCode = &v
			}
		}
		if md.ExitCode != nil && *md.ExitCode != -1 {
			v := int64(*md.ExitCode)
			exit = &v
			isErr = isErr || v != 0
		}
	case "edit":
		if s := ohText(extras["formatted_output_and_error"]); s != "" && ohText(extras["impl_source"]) == "oh_aci" {
			text = s
		}
	}
	if ev.Observation == "error" && (IsOverflowText(text) || ohOverflow(text)) {
		b.SetEnd(schema.EndContextOverflow, strings.TrimSpace(text))
	}
	if c != nil {
		return b.Add(schema.Event{Kind: schema.KindToolResult, Role: "tool", TS: ts, Line: line, CallID: c.callID,
			ToolName: c.name, Target: c.target, Text: text, IsError: isErr, ExitCode: exit})
	}
	if ev.Observation == "error" {
		return b.Add(schema.Event{Kind: schema.KindError, Role: "user", TS: ts, Line: line, Text: text, IsError: true})
	}
	// an observation of no agent action (a command the user ran, …): the
	// model sees it as a user message
	return b.Add(schema.Event{Kind: schema.KindUser, Role: "user", TS: ts, Line: line, Text: text, IsError: isErr, ExitCode: exit})
}

// condensation adds a condensation action and its op.
func (o *ohRun) condensation(line int64, ts *time.Time, args map[string]json.RawMessage) error {
	var ids []json.RawMessage
	if raw := args["forgotten_event_ids"]; !ohIsNull(raw) {
		_ = json.Unmarshal(raw, &ids)
	}
	n := int64(len(ids))
	detail := ""
	if len(ids) > 0 {
		detail = fmt.Sprintf("forgot %d events (ids %s…%s)", n, scalarString(ids[0]), scalarString(ids[len(ids)-1]))
	} else {
		var from, to ohInt
		fromRaw, toRaw := args["forgotten_events_start_id"], args["forgotten_events_end_id"]
		if !ohIsNull(fromRaw) && !ohIsNull(toRaw) && json.Unmarshal(fromRaw, &from) == nil && json.Unmarshal(toRaw, &to) == nil && to >= from {
			detail = fmt.Sprintf("forgot %d events (ids %d…%d)", int64(to-from)+1, from, to)
		} else {
			detail = "forgot 0 events"
		}
	}
	summary := ohText(args["summary"])
	if strings.TrimSpace(summary) != "" {
		if err := o.b.Add(schema.Event{Kind: schema.KindCompaction, Role: "system", TS: ts, Line: line, Text: summary}); err != nil {
			return err
		}
		return o.op(schema.OpSummary, detail)
	}
	if err := o.b.Add(schema.Event{Kind: schema.KindContextOp, Role: "system", TS: ts, Line: line, Text: "condensation: " + detail}); err != nil {
		return err
	}
	return o.op(schema.OpTruncation, detail)
}

// op records a context op on the event just added: tokens_before is the
// prompt of the last measured call.
func (o *ohRun) op(kind schema.OpKind, detail string) error {
	op := schema.ContextOp{Op: kind, Trigger: "auto", Detail: detail}
	if o.trigger != "" {
		op.Trigger, o.trigger = o.trigger, ""
	}
	if o.lastPrompt != nil {
		v := *o.lastPrompt
		op.TokensBefore = &v
	}
	return o.b.Op(op)
}

// agentState maps an "AgentStateChangedObservation" to the run's end.
func (o *ohRun) agentState(state, reason string) {
	b := o.b
	switch state {
	case "finished":
		ohFinished(b, "agent_state finished")
	case "error":
		detail := strings.TrimSpace(reason)
		if detail == "" {
			detail = "agent_state error"
		}
		b.SetEnd(ohEndFromText(reason, schema.EndError), detail)
	case "stopped", "paused", "rejected", "user_rejected":
		detail := "agent_state " + state
		if r := strings.TrimSpace(reason); r != "" {
			detail += ": " + r
		}
		b.SetEnd(schema.EndInterrupted, detail)
	case "running":
		ohResume(o.b)
	}
}

// ohRecallText is what a workspace-context or knowledge recall adds to the
// prompt: instructions and triggered microagent knowledge.
func ohRecallText(extras map[string]json.RawMessage) string {
	var parts []string
	for _, k := range []string{"repo_instructions", "additional_agent_instructions", "conversation_instructions"} {
		if s := strings.TrimSpace(ohText(extras[k])); s != "" {
			parts = append(parts, s)
		}
	}
	var knowledge []struct {
		Name    string `json:"name"`
		Content string `json:"content"`
	}
	if raw := extras["microagent_knowledge"]; !ohIsNull(raw) && json.Unmarshal(raw, &knowledge) == nil {
		for _, k := range knowledge {
			if s := strings.TrimSpace(k.Content); s != "" {
				parts = append(parts, s)
			}
		}
	}
	return strings.Join(parts, "\n\n")
}
