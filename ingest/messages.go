package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/trajmine/trajmine/schema"
)

// messagesImporter reads plain chat message lists, in the OpenAI chat-completions
// dialect ({role, content, tool_calls, tool_call_id}) and the Anthropic
// Messages dialect ({role, content: [text|thinking|tool_use|tool_result]}).
// It is registered twice, as "openai-messages" and "anthropic-messages": both
// read both dialects (a log may mix them, e.g. LiteLLM's OpenAI-shaped
// messages with Anthropic content blocks); the name states the dialect
// expected, is the run's default harness, and is what detection picks.
//
// Inputs:
//
//	a) a JSON array of messages: one run named after the file;
//	b) a JSON object with a "messages" (or τ-bench "traj") array: one run.
//	   OpenHands-SDK LiteLLM logs add context_window, response (the call's
//	   ChatCompletion: its message is the final assistant output, its usage
//	   that call's usage; non-function-calling logs also keep raw_response,
//	   the model's own text, which is used instead so that the output matches
//	   the text-emulated tool calls of the history), cost and timestamp
//	   (the call's time: usage ts and run end) — the call logs of one
//	   conversation beside each other are joined into one run, each message
//	   stored once (see litellm.go); τ-bench results add task_id and
//	   reward; Anthropic requests add a top-level "system". A JSON array of
//	   such objects gives one run per element;
//	c) JSONL, one run per line: {"run_id", "model", "messages", "usage": [one
//	   per assistant message], "outcome": {resolved, end_reason, task_id},
//	   "window_tokens", "system", "tools"}.
//
// Steps per run:
//  1. Decode the record and all its messages; a record that is not an object,
//     has no messages array, or holds a message that is not an object is
//     rejected as a whole (for JSONL, that line only), before anything of it
//     is emitted.
//  2. Set the run's metadata: model, harness, task, outcome, window, cost.
//  3. Emit the record's tool definitions ("tools", else LiteLLM's
//     kwargs.tools) as one system event with role tools (ToolDefinitions),
//     a top-level "system" as a system event, then each message:
//     system/developer → system; user text → user; tool_result blocks and
//     role tool/function → tool_result; each assistant message is one model
//     call (RunBuilder.NewCall) whose reasoning (thinking blocks,
//     reasoning_content, reasoning), text, tool_use blocks and tool_calls are
//     its outputs, followed by its usage when logged.
//  4. Finish the run; the builder links results to calls, unwraps DTOC
//     envelopes and turns manage_context calls into context_ops.
type messagesImporter struct {
	formatInfo
	anthropic bool
}

// Names of the two registrations.
const (
	formatOpenAIMessages    = "openai-messages"
	formatAnthropicMessages = "anthropic-messages"
)

// Detect claims a JSON array whose first element is a message (an object with
// a known "role"), or an object (a whole file or the first JSONL line) whose
// "messages" or "traj" array starts with a message. Objects carrying keys of
// other formats (sessionId, payload, history, steps, trajectory_format) and
// SWE-agent *.traj / *.traj.json files, Hermes sessions, Amp threads and
// Cline task histories (api_conversation_history.json) are left to their
// importers. The
// dialect is decided on the head: Anthropic tool_use/tool_result blocks or a
// top-level "system" → anthropic, else openai.
func (m messagesImporter) Detect(name string, head []byte) bool {
	if (hermesAgent{}).Detect(name, head) || (ampThread{}).Detect(name, head) || (clineTask{}).Detect(name, head) {
		return false
	}
	ok, anthropic := sniffMessages(name, head)
	return ok && anthropic == m.anthropic
}

var (
	msgAnthropicBlock = regexp.MustCompile(`"type"\s*:\s*"(?:tool_use|tool_result)"`)
)

// msgRoles are the roles a message list starts with.
var msgRoles = map[string]bool{"system": true, "developer": true, "user": true, "assistant": true, "tool": true, "function": true}

// msgForeignKeys mark top-level objects of other formats that also hold a
// "messages" array (Claude Code, Cline SDK, Gemini CLI, Codex, OpenHands,
// SWE-agent, ATIF, mini-swe-agent).
var msgForeignKeys = map[string]bool{"sessionId": true, "payload": true, "history": true, "steps": true, "trajectory_format": true}

func sniffMessages(name string, head []byte) (ok, anthropic bool) {
	lower := strings.ToLower(name)
	if strings.HasSuffix(lower, ".traj") || strings.HasSuffix(lower, ".traj.json") {
		return false, false
	}
	head = trimHead(head)
	if len(head) == 0 || head[0] != '[' && head[0] != '{' {
		return false, false
	}
	dec := json.NewDecoder(bytes.NewReader(head))
	if _, err := dec.Token(); err != nil {
		return false, false
	}
	var system bool
	if head[0] == '[' {
		if t, err := dec.Token(); err != nil || t != json.Delim('{') {
			return false, false
		}
		ok, system = msgSniffObject(dec, true)
	} else {
		ok, system = msgSniffObject(dec, false)
	}
	if !ok {
		return false, false
	}
	return true, system || msgAnthropicBlock.Match(head)
}

// msgSniffObject scans the keys of an object whose '{' was just read, up to
// and including its '}'. It reports whether the object is a record holding a
// message list (or, when msgOK, is a message itself: it has a known role) and
// whether it has a top-level "system". A head that ends inside the object
// ends the scan with what was seen so far.
func msgSniffObject(dec *json.Decoder, msgOK bool) (ok, system bool) {
	for {
		key, more, _ := nextKey(dec)
		if !more {
			return ok, system
		}
		switch {
		case msgForeignKeys[key]:
			return false, false
		case key == "role" && msgOK:
			v, err := skipValue(dec)
			if err != nil {
				return ok, system
			}
			if s, isStr := v.(string); isStr && msgRoles[strings.ToLower(s)] {
				ok = true
			}
		case key == "messages" || key == "traj":
			isArray, err := enter(dec, json.Delim('['))
			if err != nil {
				return ok, system
			}
			if !isArray {
				continue
			}
			el, err := dec.Token()
			if err != nil || el != json.Delim('{') {
				return ok, system
			}
			if isMsg, _ := msgSniffObject(dec, true); !isMsg {
				return false, false
			}
			ok, msgOK = true, false   // a record, not a message
			if skipRest(dec) != nil { // the rest of the array
				return ok, system
			}
		default:
			if key == "system" {
				system = true
			}
			if _, err := skipValue(dec); err != nil {
				return ok, system
			}
		}
	}
}

// Import reads a message-list file: JSONL when the name says so, or when the
// file is not one JSON value and a later line starts a new object; else one
// JSON document.
func (m messagesImporter) Import(f *File, r io.Reader) error {
	mi := &msgImport{f: f, m: m, base: fileStem(f.Path()), used: map[string]bool{}}
	lower := strings.ToLower(f.Path())
	if strings.HasSuffix(lower, ".jsonl") || strings.HasSuffix(lower, ".ndjson") {
		return f.Lines(r, mi.line)
	}
	whole, err := readDocument(f, r)
	if err != nil {
		return err
	}
	data := whole.data
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(data, utf8BOM))
	if len(trimmed) > 0 && trimmed[0] == '{' && bytes.Contains(trimmed, []byte("\n{")) && !json.Valid(trimmed) {
		return f.Lines(bytes.NewReader(data), mi.line)
	}
	return mi.document(data)
}

type msgImport struct {
	f    *File
	m    messagesImporter
	base string
	used map[string]bool // run ids used in this file
}

// line imports one JSONL record.
func (mi *msgImport) line(n int64, b []byte) error {
	at := func(int) int64 { return n }
	if n == 1 {
		b = bytes.TrimPrefix(b, utf8BOM)
	}
	fields, err := objectFields(jsonSpan{raw: b})
	if err != nil {
		return mi.f.Reject(n, "invalid JSON record: "+clipErr(err), b)
	}
	conv, err := mi.parseRecord(fields, at, mi.base+"#"+strconv.FormatInt(n, 10), n)
	if err != nil {
		return mi.f.Reject(n, clipErr(err), b)
	}
	return mi.emit(conv)
}

// document imports a whole-file JSON array or object.
func (mi *msgImport) document(data []byte) error {
	d := newJSONDoc(data)
	ix, doc := d.index(), d.root
	if len(doc.raw) == 0 {
		return nil
	}
	syntax := func(err error) error { return mi.f.Reject(d.errLine(err), "invalid JSON: "+syntaxReason(err), data) }
	switch doc.raw[0] {
	case '{':
		fields, err := objectFields(doc)
		if err != nil {
			return syntax(err)
		}
		conv, err := mi.parseRecord(fields, ix.line, mi.base, 1)
		if err != nil {
			return mi.f.Reject(1, clipErr(err), data)
		}
		if done, err := mi.litellmJoin(conv, data); done || err != nil {
			return err
		}
		return mi.emit(conv)
	case '[':
		elems, err := arrayElems(doc)
		if err != nil {
			return syntax(err)
		}
		if !msgIsRecordList(elems) {
			conv, err := mi.parseMessages(elems, ix.line)
			if err != nil {
				return mi.f.Reject(1, clipErr(err), data)
			}
			conv.id = mi.base
			conv.harness = mi.m.name
			return mi.emit(conv)
		}
		for i, el := range elems {
			if i&255 == 255 && mi.f.Ctx != nil {
				if err := mi.f.Ctx.Err(); err != nil {
					return err
				}
			}
			n := int64(i + 1)
			fields, err := objectFields(el)
			if err != nil {
				if err := mi.f.Reject(ix.line(el.off), fmt.Sprintf("record %d: %v", n, err), el.raw); err != nil {
					return err
				}
				continue
			}
			conv, err := mi.parseRecord(fields, ix.line, mi.base+"#"+strconv.FormatInt(n, 10), n)
			if err != nil {
				if err := mi.f.Reject(ix.line(el.off), fmt.Sprintf("record %d: %v", n, err), el.raw); err != nil {
					return err
				}
				continue
			}
			if err := mi.emit(conv); err != nil {
				return err
			}
		}
		return nil
	}
	return mi.f.Reject(1, "expected a JSON array of messages or an object with a messages array", data)
}

// msgIsRecordList reports whether an array holds run records (objects with a
// messages or traj array) rather than messages: decided by its first object.
func msgIsRecordList(elems []jsonSpan) bool {
	for _, el := range elems {
		var o map[string]json.RawMessage
		if json.Unmarshal(el.raw, &o) != nil || o == nil {
			continue
		}
		if _, ok := o["role"]; ok {
			return false
		}
		_, m := o["messages"]
		_, t := o["traj"]
		return m || t
	}
	return false
}

// msgRun is one run, fully decoded before anything is emitted.
type msgRun struct {
	id, model, harness, taskID string
	resolved                   *bool
	endWords                   string
	window                     *int64
	cost                       *float64
	startedAt, endedAt         *time.Time
	system                     *msgItem        // top-level (Anthropic) system prompt
	tools                      json.RawMessage // the request's tool definitions (top-level or LiteLLM kwargs.tools)
	toolsLine                  int64
	msgs                       []msgItem
	prompt                     int               // the number of msgs that are the logged prompt (messages)
	usage                      []json.RawMessage // per assistant message, in order
}

// msgItem is one decoded message with what is known about its model call.
type msgItem struct {
	obj       jsonObject
	line      int64
	usage     json.RawMessage // this call's usage when logged with the message
	requestID string
	model     string
	ts        *time.Time        // of the message's events
	usageTS   *time.Time        // of its model call's usage
	op        *schema.ContextOp // set: not a message but a history rewrite between joined call logs
}

// parseMessages decodes a message array.
func (mi *msgImport) parseMessages(elems []jsonSpan, lineOf func(int) int64) (*msgRun, error) {
	conv := &msgRun{}
	for i, el := range elems {
		raw := bytes.TrimSpace(el.raw)
		if string(raw) == "null" {
			continue
		}
		o := parseJSONObject(raw)
		if o == nil {
			return nil, fmt.Errorf("message %d is not a JSON object", i+1)
		}
		msg := msgItem{obj: o, line: lineOf(el.off), usage: o["usage"], model: o.str("model"), ts: o.ts("timestamp", "created_at")}
		msg.usageTS = msg.ts
		conv.msgs = append(conv.msgs, msg)
	}
	return conv, nil
}

// parseRecord decodes one run record: {messages|traj, …}.
func (mi *msgImport) parseRecord(fields map[string]jsonSpan, lineOf func(int) int64, defID string, n int64) (*msgRun, error) {
	list, ok := fields["messages"]
	harness := ""
	if !ok || isJSONNull(list.raw) {
		if list, ok = fields["traj"]; ok && !isJSONNull(list.raw) {
			harness = "tau-bench"
		}
	}
	if !ok || isJSONNull(list.raw) {
		return nil, errors.New(`no "messages" array`)
	}
	elems, err := arrayElems(list)
	if err != nil {
		return nil, fmt.Errorf("messages: %w", err)
	}
	conv, err := mi.parseMessages(elems, lineOf)
	if err != nil {
		return nil, err
	}
	conv.prompt = len(conv.msgs)
	top := jsonObject{}
	for k, s := range fields {
		top[k] = s.raw
	}

	id := top.str("run_id")
	if id == "" {
		id = defID
	}
	if mi.used[id] {
		base := id + "#" + strconv.FormatInt(n, 10)
		id = base
		for k := 2; mi.used[id]; k++ {
			id = base + "~" + strconv.Itoa(k)
		}
	}
	mi.used[id] = true
	conv.id = id

	if s, ok := fields["system"]; ok && !isJSONNull(s.raw) {
		conv.system = &msgItem{obj: jsonObject{"role": json.RawMessage(`"system"`), "content": s.raw}, line: lineOf(s.off)}
	}
	kwargs := top.obj("kwargs")
	if t, ok := fields["tools"]; ok && !isJSONNull(t.raw) {
		conv.tools, conv.toolsLine = t.raw, lineOf(t.off)
	} else if t := kwargs["tools"]; len(t) > 0 {
		conv.tools, conv.toolsLine = t, lineOf(fields["kwargs"].off)
	}
	resp, rawResp := top.obj("response"), top.obj("raw_response")
	if out, line := msgFinalOutput(fields, lineOf); out != nil {
		u := resp["usage"]
		if u == nil {
			u = rawResp["usage"]
		}
		// timestamp is when the call was logged: the usage's time, not the
		// run's start, so the events carry none.
		conv.msgs = append(conv.msgs, msgItem{obj: out, line: line, usage: u, usageTS: top.ts("timestamp"),
			requestID: firstNonEmpty(resp.str("id"), rawResp.str("id")), model: firstNonEmpty(resp.str("model"), rawResp.str("model"))})
	}
	if u := top["usage"]; len(u) > 0 {
		var list []json.RawMessage
		if json.Unmarshal(u, &list) == nil {
			conv.usage = list
		} else if parseJSONObject(u) != nil { // one usage object: the last call's
			for i := len(conv.msgs) - 1; i >= 0; i-- {
				if msgIsAssistant(conv.msgs[i].obj.role()) {
					if conv.msgs[i].usage == nil {
						conv.msgs[i].usage = u
					}
					break
				}
			}
		}
	}

	conv.model = firstNonEmpty(top.str("model"), resp.str("model"), kwargs.str("model"), msgTagModel(kwargs))
	if conv.model != "" {
		for i := range conv.msgs {
			if conv.msgs[i].model == "" {
				conv.msgs[i].model = conv.model
			}
		}
	}
	conv.harness = firstNonEmpty(top.str("harness"), harness)
	if conv.harness == "" && fields["context_window"].raw != nil && (resp != nil || kwargs != nil) {
		conv.harness = "openhands-sdk"
	}
	if conv.harness == "" {
		conv.harness = mi.m.name
	}
	if w, ok := top.count("window_tokens"); ok && w > 0 {
		conv.window = &w
	} else if w, ok := top.count("context_window"); ok && w > 0 {
		conv.window = &w
	}
	for _, k := range []string{"cost_usd", "cost"} {
		if c, ok := top.num(k); ok && c >= 0 {
			conv.cost = &c
			break
		}
	}
	conv.startedAt = top.ts("started_at")
	conv.endedAt = top.ts("ended_at", "timestamp")

	out := top.obj("outcome")
	conv.taskID = firstNonEmpty(out.str("task_id"), top.str("task_id"), top.str("instance_id"))
	if b, ok := out.boolean("resolved"); ok {
		conv.resolved = &b
	} else if b, ok := top.boolean("resolved"); ok {
		conv.resolved = &b
	} else if r, ok := out.num("reward"); ok {
		b := r >= 1
		conv.resolved = &b
	} else if r, ok := top.num("reward"); ok {
		b := r >= 1
		conv.resolved = &b
	}
	conv.endWords = firstNonEmpty(out.str("end_reason"), top.str("end_reason"))
	return conv, nil
}

// msgFinalOutput returns the assistant message of a logged response: the
// model's own words (raw_response, which non-function-calling OpenHands logs
// keep next to the response converted back to tool_calls) or the response's
// first choice; an Anthropic Message response is itself the message.
func msgFinalOutput(fields map[string]jsonSpan, lineOf func(int) int64) (jsonObject, int64) {
	for _, k := range []string{"raw_response", "response"} {
		s, ok := fields[k]
		if !ok {
			continue
		}
		r := parseJSONObject(s.raw)
		if r == nil {
			continue
		}
		if choices := r.arr("choices"); len(choices) > 0 {
			if msg := parseJSONObject(choices[0]).obj("message"); msg != nil {
				return msg, lineOf(s.off)
			}
			continue
		}
		if r.str("role") == "assistant" && r["content"] != nil {
			return r, lineOf(s.off)
		}
	}
	return nil, 0
}

// msgTagModel reads "model:<name>" from LiteLLM metadata tags.
func msgTagModel(kwargs jsonObject) string {
	md := kwargs.obj("extra_body").obj("metadata")
	for _, t := range md.arr("tags") {
		var s string
		if json.Unmarshal(t, &s) == nil && strings.HasPrefix(s, "model:") {
			return strings.TrimPrefix(s, "model:")
		}
	}
	return ""
}

func msgIsAssistant(role string) bool { return role == "assistant" || role == "model" }

// msgEndReasons maps a logged end reason to the schema's closed set.
var msgEndReasons = map[string]schema.EndReason{
	"finished": schema.EndFinished, "finish": schema.EndFinished, "completed": schema.EndFinished, "complete": schema.EndFinished,
	"done": schema.EndFinished, "stop": schema.EndFinished, "end_turn": schema.EndFinished, "submitted": schema.EndFinished, "success": schema.EndFinished,
	"context_overflow": schema.EndContextOverflow, "context_length_exceeded": schema.EndContextOverflow, "context_window_exceeded": schema.EndContextOverflow,
	"step_limit": schema.EndStepLimit, "max_steps": schema.EndStepLimit, "max_turns": schema.EndStepLimit, "turn_limit": schema.EndStepLimit, "iteration_limit": schema.EndStepLimit,
	"cost_limit": schema.EndCostLimit, "budget_exceeded": schema.EndCostLimit,
	"error": schema.EndError, "exception": schema.EndError,
	"interrupted": schema.EndInterrupted, "cancelled": schema.EndInterrupted, "canceled": schema.EndInterrupted, "aborted": schema.EndInterrupted,
	"unknown": schema.EndUnknown,
}

// emit builds one run.
func (mi *msgImport) emit(conv *msgRun) error {
	b, err := mi.f.NewRun(conv.id)
	if err != nil {
		return err
	}
	r := &b.Run
	r.Harness, r.Model, r.TaskID, r.Resolved = conv.harness, conv.model, conv.taskID, conv.resolved
	r.WindowTokens, r.CostUSD, r.StartedAt, r.EndedAt = conv.window, conv.cost, conv.startedAt, conv.endedAt
	if w := conv.endWords; w != "" {
		if reason, ok := msgEndReasons[strings.ToLower(strings.TrimSpace(w))]; ok && reason != schema.EndUnknown {
			b.SetEnd(reason, w)
		} else {
			r.EndReasonDetail = w
		}
	}
	if e, ok := ToolDefinitions(conv.tools, conv.toolsLine); ok {
		if err := b.Add(e); err != nil {
			return err
		}
	}
	if conv.system != nil {
		if err := mi.add(b, conv.system, nil); err != nil {
			return err
		}
	}
	calls := 0
	for i := range conv.msgs {
		var usage json.RawMessage
		if msgIsAssistant(conv.msgs[i].obj.role()) {
			if calls < len(conv.usage) {
				usage = conv.usage[calls]
			}
			calls++
		}
		if err := mi.add(b, &conv.msgs[i], usage); err != nil {
			return err
		}
	}
	return b.Finish()
}

// add emits the events of one message; usage is the run-level usage entry of
// an assistant message, used when the message carries none itself.
func (mi *msgImport) add(b *RunBuilder, m *msgItem, usage json.RawMessage) error {
	if m.op != nil {
		if err := b.Add(schema.Event{Kind: schema.KindCompaction, Role: "system", Line: m.line}); err != nil {
			return err
		}
		return b.Op(*m.op)
	}
	o := m.obj
	roleRaw := o.str("role")
	role := strings.ToLower(roleRaw)
	ev := func(kind schema.EventKind, text string) schema.Event {
		return schema.Event{Kind: kind, Role: roleRaw, Line: m.line, TS: m.ts, Text: text}
	}
	switch {
	case role == "":
		return nil
	case role == "system" || role == "developer":
		return b.Add(ev(schema.KindSystem, ContentText(o["content"])))
	case role == "tool" || role == "function":
		e := ev(schema.KindToolResult, ContentText(o["content"]))
		e.CallID, e.ToolName = o.str("tool_call_id"), o.str("name")
		e.IsError, _ = o.boolean("is_error")
		return b.Add(e)
	case msgIsAssistant(role):
		b.NewCall()
		if err := mi.assistant(b, m, ev); err != nil {
			return err
		}
		if m.usage != nil && !isJSONNull(m.usage) {
			usage = m.usage
		}
		if u, ok := msgUsage(usage); ok {
			u.Model, u.RequestID, u.TS = m.model, m.requestID, m.usageTS
			b.SetUsage(u)
		}
		return nil
	}
	// user and any other role: text blocks → one user event per stretch of
	// text, tool_result blocks → tool_result events.
	text := msgText{b: b, kind: schema.KindUser, ev: ev}
	for _, blk := range msgBlocks(o["content"]) {
		bo := parseJSONObject(blk)
		if strings.HasSuffix(bo.str("type"), "tool_result") {
			if err := text.flush(); err != nil {
				return err
			}
			if err := b.Add(msgToolResult(bo, ev)); err != nil {
				return err
			}
			continue
		}
		text.add(ContentText(blk))
	}
	return text.flush()
}

// msgText gathers the text blocks of a message up to its next other block;
// flush adds them as one event of kind, joined by newlines.
type msgText struct {
	b    *RunBuilder
	kind schema.EventKind
	ev   func(schema.EventKind, string) schema.Event
	text []string
}

// add gathers one block's text (nothing when it is empty).
func (t *msgText) add(s string) {
	if s != "" {
		t.text = append(t.text, s)
	}
}

func (t *msgText) flush() error {
	if len(t.text) == 0 {
		return nil
	}
	e := t.ev(t.kind, strings.Join(t.text, "\n"))
	t.text = t.text[:0]
	return t.b.Add(e)
}

// assistant emits the outputs of one model call.
func (mi *msgImport) assistant(b *RunBuilder, m *msgItem, ev func(schema.EventKind, string) schema.Event) error {
	o := m.obj
	var reasoning []string
	if s := o.str("reasoning_content"); s != "" {
		reasoning = append(reasoning, s)
	} else if s := o.str("reasoning"); s != "" {
		reasoning = append(reasoning, s)
	} else {
		for _, tb := range o.arr("thinking_blocks") {
			if s := parseJSONObject(tb).str("thinking"); s != "" {
				reasoning = append(reasoning, s)
			}
		}
	}
	for _, s := range reasoning {
		if err := b.Add(ev(schema.KindReasoning, s)); err != nil {
			return err
		}
	}
	text := msgText{b: b, kind: schema.KindAssistant, ev: ev}
	for _, blk := range msgBlocks(o["content"]) {
		bo := parseJSONObject(blk)
		typ := bo.str("type")
		var e schema.Event
		switch {
		case typ == "thinking" || typ == "redacted_thinking" || typ == "reasoning":
			s := bo.str("thinking")
			if s == "" {
				s = ContentText(blk)
			}
			e = ev(schema.KindReasoning, s)
		case typ == "tool_use" || typ == "server_tool_use":
			e = ev(schema.KindToolCall, "")
			e.CallID, e.ToolName, e.Args = bo.str("id"), bo.str("name"), jsonString(bo["input"])
		case strings.HasSuffix(typ, "tool_result"):
			e = msgToolResult(bo, ev)
		default:
			text.add(ContentText(blk))
			continue
		}
		if err := text.flush(); err != nil {
			return err
		}
		if err := b.Add(e); err != nil {
			return err
		}
	}
	if err := text.flush(); err != nil {
		return err
	}
	for _, tc := range o.arr("tool_calls") {
		id, name, args, ok := toolCallFields(tc)
		if !ok {
			continue
		}
		e := ev(schema.KindToolCall, "")
		e.CallID, e.ToolName, e.Args = id, name, args
		if err := b.Add(e); err != nil {
			return err
		}
	}
	if fc := o.obj("function_call"); fc != nil {
		e := ev(schema.KindToolCall, "")
		e.ToolName, e.Args = fc.str("name"), jsonString(fc["arguments"])
		if err := b.Add(e); err != nil {
			return err
		}
	}
	return nil
}

func msgToolResult(bo jsonObject, ev func(schema.EventKind, string) schema.Event) schema.Event {
	e := ev(schema.KindToolResult, ContentText(bo["content"]))
	e.CallID, e.ToolName = bo.str("tool_use_id"), bo.str("name")
	e.IsError, _ = bo.boolean("is_error")
	return e
}

// msgBlocks returns a message content as blocks: a string is one block.
func msgBlocks(raw json.RawMessage) []json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || isJSONNull(raw) {
		return nil
	}
	if raw[0] == '[' {
		var blocks []json.RawMessage
		if json.Unmarshal(raw, &blocks) == nil {
			return blocks
		}
	}
	return []json.RawMessage{raw}
}

// msgMaxTokens bounds a logged token count so that sums cannot overflow.
const msgMaxTokens = 1 << 40

// msgUsage normalises one call's logged usage so that InputTokens includes
// cache reads and writes:
//   - OpenAI chat {prompt_tokens (includes cached), completion_tokens,
//     prompt_tokens_details.cached_tokens, completion_tokens_details.reasoning_tokens},
//     plus LiteLLM's cache_read_input_tokens / cache_creation_input_tokens;
//   - OpenAI Responses {input_tokens (includes cached), output_tokens,
//     input_tokens_details.cached_tokens, output_tokens_details.reasoning_tokens};
//   - Anthropic {input_tokens (excludes cache), output_tokens,
//     cache_read_input_tokens, cache_creation_input_tokens}.
//
// Output tokens are as logged (OpenAI's include reasoning tokens).
func msgUsage(raw json.RawMessage) (schema.Usage, bool) {
	m := parseJSONObject(raw)
	if m == nil {
		return schema.Usage{}, false
	}
	var u schema.Usage
	read, _ := m.count("cache_read_input_tokens")
	write, _ := m.count("cache_creation_input_tokens")
	prompt, okP := m.count("prompt_tokens")
	completion, okC := m.count("completion_tokens")
	input, okI := m.count("input_tokens")
	output, okO := m.count("output_tokens")
	switch {
	case okP || okC:
		u.InputTokens, u.OutputTokens = prompt, completion
		u.CacheReadTokens, _ = m.obj("prompt_tokens_details").count("cached_tokens")
		if u.CacheReadTokens == 0 {
			u.CacheReadTokens = read
		}
		u.CacheWriteTokens = write
		u.ReasoningTokens, _ = m.obj("completion_tokens_details").count("reasoning_tokens")
	case m["input_tokens_details"] != nil || m["output_tokens_details"] != nil:
		u.InputTokens, u.OutputTokens = input, output
		u.CacheReadTokens, _ = m.obj("input_tokens_details").count("cached_tokens")
		u.ReasoningTokens, _ = m.obj("output_tokens_details").count("reasoning_tokens")
	case okI || okO:
		u.InputTokens, u.OutputTokens = input+read+write, output
		u.CacheReadTokens, u.CacheWriteTokens = read, write
	default:
		return schema.Usage{}, false
	}
	return u, true
}
