package ingest

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// clineSDK reads the session files of the Cline SDK
// (~/.cline/data/sessions/<id>/…):
//
//   - <id>.messages.json {version, updated_at, agent, sessionId, messages,
//     system_prompt}: one run per file, run id = sessionId. system_prompt →
//     a system event; user text/file blocks → user events, tool_result blocks
//     → tool_result events linked by tool_use_id; each assistant message is
//     one model call (RunBuilder.Call with the message id) with text /
//     thinking / tool_use blocks and its metrics as usage (inputTokens
//     already includes the cache reads: cacheReadTokens ≤ inputTokens on
//     every message, and equals the previous call's prompt).
//   - a post-compaction history (e.g. agentic.compaction.json) has the same
//     shape but its first message is the summary (metadata.kind
//     "compaction_summary", text "Context summary: …"). It is its own run,
//     <sessionId>/compaction, whose parent is the session's run: the summary
//     becomes a compaction event with a summary op (tokens_before =
//     metadata.tokensBefore). The messages it carries over from before the
//     compaction (ts before metadata.generatedAt) keep their events but not
//     their usage, which the session's own file already logs.
//   - session.json {session_id, status, started_at, ended_at, model, …,
//     metadata.fork}: run metadata only. It is recognised and checked but
//     imports no run: its times and model describe the CLI process that
//     wrote it (in the corpus a 256 ms fork whose model differs from every
//     message's), not the conversation, and a second run row with the
//     conversation's id would be stored as <id>@<sha8> — or push the
//     conversation itself to that suffix when imported first.
//
// End reasons are inferred from how the log ends.
type clineSDK struct{ formatInfo }

// clineCassette reads a nock HTTP recording of the Cline CLI
// [{scope, method, path, status, body, response}]: one run per file (named
// after it; the recording has no session id). Each POST …/chat/completions
// exchange is one model call (RunBuilder.Call with the generation id): the
// streamed SSE chunks are joined into reasoning, text and tool calls (by
// tool_calls[].index), and the usage chunk gives the call's usage
// (prompt_tokens includes cached and cache-creation tokens). When the
// recording kept the request bodies, each request's messages after the
// longest prefix shared with the previous request (the new user, system and
// tool messages; assistant messages come from the responses) are added before
// the call. A failed exchange (status ≥ 400) is an error event. The other
// traffic (feature flags, telemetry, uploads) is not part of the run.
// End reason: the last call's attempt_completion → finished (explicit).
type clineCassette struct{ formatInfo }

var (
	clSessionID    = regexp.MustCompile(`"sessionId"\s*:`)
	clFirstMessage = regexp.MustCompile(`"messages"\s*:\s*\[\s*\{`)
	clRole         = regexp.MustCompile(`"role"\s*:`)
	clSDKKey       = regexp.MustCompile(`"(?:updated_at|agent|system_prompt)"\s*:`)
	clMetaID       = regexp.MustCompile(`"session_id"\s*:`)
	clMetaPath     = regexp.MustCompile(`"messages_path"\s*:`)
	clNockScope    = regexp.MustCompile(`^\[\s*\{[^{}\[\]]*?"scope"\s*:\s*"[a-z]+://`)
	clNockKeys     = regexp.MustCompile(`"(?:method|path|status|response)"\s*:`)
)

// Detect claims a JSON object with a sessionId, a messages array of role
// messages and a Cline key (updated_at, agent, system_prompt) — Gemini CLI's
// projectHash excludes it — or a session.json {session_id, messages_path}.
func (clineSDK) Detect(name string, head []byte) bool {
	h := trimHead(head)
	if len(h) == 0 || h[0] != '{' {
		return false
	}
	if clMetaID.Match(h) && clMetaPath.Match(h) {
		return true
	}
	return clSessionID.Match(h) && clFirstMessage.Match(h) && clRole.Match(h) && clSDKKey.Match(h) && !gmProjectKey.Match(h)
}

// Detect claims a JSON array of nock exchanges (scope, method, path, status,
// response) whose head shows a /chat/completions exchange (or is cut before
// one could be seen).
func (clineCassette) Detect(name string, head []byte) bool {
	h := trimHead(head)
	if !clNockScope.Match(h) || len(clNockKeys.FindAll(h[:min(len(h), 4096)], 4)) < 3 {
		return false
	}
	return bytes.Contains(h, []byte("/chat/completions")) || len(head) >= HeadSize
}

type clMessage struct {
	ID        string          `json:"id"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	TS        any             `json:"ts"`
	ModelInfo *struct {
		ID string `json:"id"`
	} `json:"modelInfo"`
	Metrics *struct {
		InputTokens      int64    `json:"inputTokens"`
		OutputTokens     int64    `json:"outputTokens"`
		CacheReadTokens  int64    `json:"cacheReadTokens"`
		CacheWriteTokens int64    `json:"cacheWriteTokens"`
		Cost             *float64 `json:"cost"`
	} `json:"metrics"`
	Metadata *struct {
		Kind         string `json:"kind"`
		TokensBefore *int64 `json:"tokensBefore"`
		GeneratedAt  any    `json:"generatedAt"`
	} `json:"metadata"`
}

type clBlock struct {
	tbBlock
	Path string `json:"path"`
}

// clSummaryPrefix starts the user message a Cline compaction leaves.
const clSummaryPrefix = "Context summary:"

func (clineSDK) Import(f *File, r io.Reader) error {
	doc, fields, ok, err := readJSONObject(f, r)
	if !ok {
		return err
	}
	if _, has := fields["messages"]; !has {
		if _, meta := fields["session_id"]; meta {
			return nil // session.json: run metadata only (see the type's doc)
		}
	}
	var sessionID, system string
	if s, ok := fields["sessionId"]; ok {
		_ = json.Unmarshal(s.raw, &sessionID)
	}
	elems, ok, err := doc.array(f, fields, "messages")
	if !ok {
		return err
	}
	msgs := make([]*clMessage, len(elems))
	err = decodeElems(f, doc, elems, "messages[%d]", func(i int, _ int64, _ jsonSpan, m *clMessage) error {
		msgs[i] = m
		return nil
	})
	if err != nil {
		return err
	}
	id := firstNonEmpty(sessionID, strings.TrimSuffix(filepath.Base(f.Path()), ".json"))
	parent := ""
	var compactedAt *time.Time
	for _, m := range msgs {
		if m == nil {
			continue
		}
		if clIsSummary(m) { // a post-compaction history
			parent, id = id, id+"/compaction"
			if m.Metadata != nil {
				compactedAt = ParseTime(m.Metadata.GeneratedAt)
			}
		}
		break
	}
	b, err := f.NewRun(id)
	if err != nil {
		return err
	}
	b.Run.Harness, b.Run.ParentRunID = "cline", parent
	c := &clRun{b: b, compactedAt: compactedAt}
	if s, ok := fields["system_prompt"]; ok && json.Unmarshal(s.raw, &system) == nil && system != "" {
		if err := c.add(schema.Event{Kind: schema.KindSystem, Role: "system", Line: doc.line(s.off), Text: system}); err != nil {
			return err
		}
	}
	for i, m := range msgs {
		if m == nil {
			continue
		}
		if err := c.message(f, doc.line(elems[i].off), m, elems[i].raw); err != nil {
			return err
		}
	}
	c.finishEnd()
	return b.Finish()
}

// clIsSummary reports whether m is the summary a compaction left.
func clIsSummary(m *clMessage) bool {
	if m.Role != "user" {
		return false
	}
	if m.Metadata != nil && m.Metadata.Kind == "compaction_summary" {
		return true
	}
	return strings.HasPrefix(strings.TrimSpace(ContentText(m.Content)), clSummaryPrefix)
}

// clRun is the per-run state of the Cline SDK importer.
type clRun struct {
	b           *RunBuilder
	compactedAt *time.Time
	lastKind    schema.EventKind
	cost        float64
	hasCost     bool
}

func (c *clRun) add(e schema.Event) error {
	c.lastKind = e.Kind
	return c.b.Add(e)
}

func (c *clRun) message(f *File, line int64, m *clMessage, raw []byte) error {
	b := c.b
	ts := ParseTime(m.TS)
	blocks, err := clBlocks(m.Content)
	if err != nil {
		return f.Reject(line, "invalid message content: "+clipErr(err), raw)
	}
	ev := func(kind schema.EventKind, text string) schema.Event {
		return schema.Event{Kind: kind, Role: m.Role, TS: ts, Line: line, Text: text}
	}
	switch m.Role {
	case "assistant":
		if m.ID != "" {
			b.Call(m.ID)
		} else {
			b.NewCall()
		}
		model := ""
		if m.ModelInfo != nil {
			model = m.ModelInfo.ID
		}
		b.NoteModel(model)
		carried := c.compactedAt != nil && ts != nil && !ts.After(*c.compactedAt)
		if u := m.Metrics; u != nil && !carried && u.InputTokens+u.OutputTokens+u.CacheReadTokens+u.CacheWriteTokens > 0 {
			b.SetUsage(schema.Usage{TS: ts, Model: model, RequestID: m.ID, InputTokens: u.InputTokens,
				OutputTokens: u.OutputTokens, CacheReadTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens})
			if u.Cost != nil {
				c.cost += *u.Cost
				c.hasCost = true
			}
		}
		for _, blk := range blocks {
			var e schema.Event
			switch blk.Type {
			case "tool_use":
				e = ev(schema.KindToolCall, "")
				e.ToolName, e.CallID, e.Args = blk.Name, blk.ID, string(blk.Input)
			case "thinking", "reasoning", "redacted_thinking":
				e = ev(schema.KindReasoning, firstNonEmpty(blk.Thinking, blk.Text))
			default:
				e = ev(schema.KindAssistant, clBlockText(&blk))
			}
			if err := c.add(e); err != nil {
				return err
			}
		}
		return nil
	case "user", "":
		if clIsSummary(m) {
			if ts == nil && m.Metadata != nil {
				ts = ParseTime(m.Metadata.GeneratedAt)
			}
			if err := c.add(ev(schema.KindCompaction, ContentText(m.Content))); err != nil {
				return err
			}
			op := schema.ContextOp{Op: schema.OpSummary, Trigger: "compaction"}
			if m.Metadata != nil {
				op.TokensBefore = m.Metadata.TokensBefore
				if m.Metadata.Kind != "" {
					op.Trigger = m.Metadata.Kind
				}
			}
			return b.Op(op)
		}
	}
	kind := schema.KindUser
	if m.Role == "system" {
		kind = schema.KindSystem
	}
	for _, blk := range blocks {
		var e schema.Event
		if blk.Type == "tool_result" {
			text, failed := clResultText(blk.Content)
			e = ev(schema.KindToolResult, text)
			e.CallID, e.ToolName, e.IsError = blk.ToolUseID, blk.Name, blk.IsError || failed
		} else {
			e = ev(kind, clBlockText(&blk))
		}
		if err := c.add(e); err != nil {
			return err
		}
	}
	return nil
}

// clBlocks decodes message content: a string is one text block.
func clBlocks(raw json.RawMessage) ([]clBlock, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return []clBlock{{tbBlock: tbBlock{Type: "text", Text: s}}}, nil
	}
	var blocks []clBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, err
	}
	return blocks, nil
}

// clBlockText renders a text, file or other block as the model saw it.
func clBlockText(blk *clBlock) string {
	switch blk.Type {
	case "text", "":
		return blk.Text
	case "file":
		return strings.TrimSpace("[file " + blk.Path + "]\n" + ContentText(blk.Content))
	}
	if blk.Text != "" {
		return blk.Text
	}
	return "[" + blk.Type + "]"
}

// clResultText renders a tool_result's content: a string; a list of content
// blocks ({type, text}); or Cline's list of {query, result, success} objects,
// as compact JSON. failed reports a list whose entries all failed.
func clResultText(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return valueText(raw), false
	}
	var items []map[string]json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return ContentText(raw), false
	}
	typed, failed := true, len(items) > 0
	for _, it := range items {
		if _, ok := it["type"]; !ok {
			typed = false
		}
		if string(it["success"]) != "false" {
			failed = false
		}
	}
	if typed {
		return ContentText(raw), failed
	}
	return compactJSON(raw), failed
}

func (c *clRun) finishEnd() {
	r := &c.b.Run
	if c.hasCost {
		cost := c.cost
		r.CostUSD = &cost
	}
	switch c.lastKind {
	case schema.KindAssistant:
		r.EndReason, r.EndReasonSource, r.EndReasonDetail = schema.EndFinished, schema.SourceInferred, "log ends on an assistant reply without a tool call"
	case schema.KindToolCall:
		r.EndReason, r.EndReasonSource, r.EndReasonDetail = schema.EndInterrupted, schema.SourceInferred, "log ends on a tool call without result"
	}
}

// clExchange is one recorded HTTP exchange.
type clExchange struct {
	Method   string          `json:"method"`
	Path     string          `json:"path"`
	Status   int64           `json:"status"`
	Body     json.RawMessage `json:"body"`
	Response json.RawMessage `json:"response"`
}

// clResponse is a chat completion, joined from its stream when streamed.
type clResponse struct {
	id, model, text, reasoning, finish string
	created                            *time.Time
	calls                              []clCall
	usage                              *clUsage
}

type clCall struct{ id, name, args string }

type clUsage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	CacheCreation       int64 `json:"cache_creation_input_tokens"`
	PromptTokensDetails *struct {
		CachedTokens     int64 `json:"cached_tokens"`
		CacheWriteTokens int64 `json:"cache_write_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

// clChunk is one streamed chunk or a whole (non-streamed) completion.
type clChunk struct {
	ID      string   `json:"id"`
	Model   string   `json:"model"`
	Created any      `json:"created"`
	Usage   *clUsage `json:"usage"`
	Choices []struct {
		Index        int64   `json:"index"`
		FinishReason string  `json:"finish_reason"`
		Delta        *clPart `json:"delta"`
		Message      *clPart `json:"message"`
	} `json:"choices"`
}

type clPart struct {
	Content          json.RawMessage `json:"content"`
	Reasoning        string          `json:"reasoning"`
	ReasoningContent string          `json:"reasoning_content"`
	ToolCalls        []struct {
		Index    *int64 `json:"index"`
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

func (clineCassette) Import(f *File, r io.Reader) error {
	doc, err := readJSONDoc(f, r)
	if doc == nil || err != nil {
		return err
	}
	if doc.root.raw[0] != '[' {
		return f.Reject(1, "expected a JSON array of recorded HTTP exchanges", doc.data)
	}
	elems, err := arrayElems(doc.root)
	if err != nil {
		return doc.syntax(f, err)
	}
	cs := &clCassette{f: f}
	err = decodeElems(f, doc, elems, "exchange %d", func(_ int, line int64, el jsonSpan, x *clExchange) error {
		if !strings.Contains(x.Path, "/chat/completions") || !strings.EqualFold(firstNonEmpty(x.Method, "POST"), "POST") {
			return nil
		}
		return cs.exchange(line, x, el.raw)
	})
	if err != nil {
		return err
	}
	if cs.b == nil {
		return nil
	}
	c := cs.b
	run := &c.Run
	switch {
	case cs.lastErr != "":
		if IsOverflowText(cs.lastErr) {
			c.SetEnd(schema.EndContextOverflow, cs.lastErr)
		} else {
			c.SetEnd(schema.EndError, cs.lastErr)
		}
	case cs.last != nil && len(cs.last.calls) > 0 && cs.last.calls[len(cs.last.calls)-1].name == "attempt_completion":
		c.SetEnd(schema.EndFinished, "attempt_completion")
	case cs.last != nil && len(cs.last.calls) == 0 && cs.last.finish == "stop":
		run.EndReason, run.EndReasonSource, run.EndReasonDetail = schema.EndFinished, schema.SourceInferred, "last response finish_reason stop"
	}
	return c.Finish()
}

// clCassette is the state of a cassette import.
type clCassette struct {
	f       *File
	b       *RunBuilder
	prev    []string // canonical messages of the previous request
	last    *clResponse
	lastErr string
}

func (cs *clCassette) exchange(line int64, x *clExchange, raw []byte) error {
	f := cs.f
	resp, inputs, reason := clParseExchange(x)
	if reason != "" {
		return f.Reject(line, reason, raw)
	}
	if cs.b == nil {
		b, err := f.NewRun(strings.TrimSuffix(filepath.Base(f.Path()), filepath.Ext(f.Path())))
		if err != nil {
			return err
		}
		b.Run.Harness = "cline"
		cs.b = b
	}
	b := cs.b
	if inputs != nil {
		canon := make([]string, len(inputs))
		for i, m := range inputs {
			canon[i] = CanonicalJSON(m)
		}
		p := 0
		for p < len(canon) && p < len(cs.prev) && canon[p] == cs.prev[p] {
			p++
		}
		for _, m := range inputs[p:] {
			if err := clInput(b, line, m); err != nil {
				return err
			}
		}
		cs.prev = canon
	}
	if x.Status >= 400 {
		text := strings.TrimSpace(firstNonEmpty(valueText(x.Response), fmt.Sprintf("HTTP %d", x.Status)))
		cs.lastErr, cs.last = text, nil
		return b.Add(schema.Event{Kind: schema.KindError, Role: "system", Line: line, IsError: true, Text: text})
	}
	cs.lastErr, cs.last = "", resp
	if resp.id != "" {
		b.Call(resp.id)
	} else {
		b.NewCall()
	}
	b.NoteModel(resp.model)
	if u := resp.usage; u != nil {
		use := schema.Usage{TS: resp.created, Model: resp.model, RequestID: resp.id, InputTokens: u.PromptTokens,
			OutputTokens: u.CompletionTokens, CacheWriteTokens: u.CacheCreation}
		if d := u.PromptTokensDetails; d != nil {
			use.CacheReadTokens = d.CachedTokens
			if use.CacheWriteTokens == 0 {
				use.CacheWriteTokens = d.CacheWriteTokens
			}
		}
		if d := u.CompletionTokensDetails; d != nil {
			use.ReasoningTokens = d.ReasoningTokens
		}
		b.SetUsage(use)
	}
	ev := func(kind schema.EventKind, text string) schema.Event {
		return schema.Event{Kind: kind, Role: "assistant", TS: resp.created, Line: line, Text: text}
	}
	if resp.reasoning != "" {
		if err := b.Add(ev(schema.KindReasoning, resp.reasoning)); err != nil {
			return err
		}
	}
	if resp.text != "" || len(resp.calls) == 0 {
		if err := b.Add(ev(schema.KindAssistant, resp.text)); err != nil {
			return err
		}
	}
	for _, c := range resp.calls {
		if c.id == "" && c.name == "" {
			continue // an index the stream skipped
		}
		e := ev(schema.KindToolCall, "")
		e.ToolName, e.CallID, e.Args = c.name, c.id, c.args
		if err := b.Add(e); err != nil {
			return err
		}
	}
	return nil
}

// clInput adds one request message that is input to the model call.
func clInput(b *RunBuilder, line int64, raw json.RawMessage) error {
	var m struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		Name       string          `json:"name"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	e := schema.Event{Role: m.Role, Line: line, Text: ContentText(m.Content)}
	switch m.Role {
	case "assistant":
		return nil // the responses give the model's output
	case "system", "developer":
		e.Kind = schema.KindSystem
	case "tool", "function":
		e.Kind, e.CallID, e.ToolName = schema.KindToolResult, m.ToolCallID, m.Name
	default:
		e.Kind = schema.KindUser
	}
	return b.Add(e)
}

// clParseExchange reads a chat exchange: its response (an SSE stream or a
// completion object) and its request messages (nil when the body was not
// recorded). reason says why the exchange is malformed.
func clParseExchange(x *clExchange) (resp *clResponse, inputs []json.RawMessage, reason string) {
	if body := clUnwrap(x.Body); len(body) > 0 && body[0] == '{' {
		var req struct {
			Messages []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			return nil, nil, "invalid request body: " + clipErr(err)
		}
		inputs = req.Messages
	}
	if x.Status >= 400 {
		return nil, inputs, ""
	}
	resp = &clResponse{}
	rb := bytes.TrimSpace(x.Response)
	var text string
	if len(rb) > 0 && rb[0] == '"' {
		if err := json.Unmarshal(rb, &text); err != nil {
			return nil, nil, "invalid response: " + clipErr(err)
		}
	}
	if t := strings.TrimSpace(text); len(rb) > 0 && rb[0] == '{' || strings.HasPrefix(t, "{") {
		obj := rb
		if rb[0] != '{' {
			obj = innerJSON([]byte(t))
		}
		var c clChunk
		if err := json.Unmarshal(obj, &c); err != nil {
			return nil, nil, "invalid completion: " + clipErr(err)
		}
		resp.add(&c)
		return resp, inputs, ""
	}
	if text == "" {
		return nil, nil, "response is neither an SSE stream nor a completion"
	}
	n := 0
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		data, ok := strings.CutPrefix(l, "data:")
		if !ok {
			continue
		}
		data = strings.TrimSpace(data)
		if data == "" || data == "[DONE]" {
			continue
		}
		n++
		var c clChunk
		if err := json.Unmarshal(innerJSON([]byte(data)), &c); err != nil {
			return nil, nil, fmt.Sprintf("response chunk %d: %s", n, clipErr(err))
		}
		resp.add(&c)
	}
	if n == 0 {
		return nil, nil, "response stream has no data chunks"
	}
	return resp, inputs, ""
}

// clUnwrap returns a body recorded as a JSON string as its JSON text.
func clUnwrap(raw json.RawMessage) []byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return innerJSON(bytes.TrimSpace([]byte(s)))
		}
	}
	return raw
}

// add folds one chunk (or a whole completion) into the response: choice 0's
// text, reasoning and tool-call fragments (joined by index).
func (r *clResponse) add(c *clChunk) {
	if r.id == "" {
		r.id = c.ID
	}
	if r.model == "" {
		r.model = c.Model
	}
	if r.created == nil {
		r.created = ParseTime(c.Created)
	}
	if c.Usage != nil {
		r.usage = c.Usage
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		if ch.FinishReason != "" {
			r.finish = ch.FinishReason
		}
		p := ch.Delta
		if p == nil {
			p = ch.Message
		}
		if p == nil {
			continue
		}
		r.text += ContentText(p.Content)
		r.reasoning += p.Reasoning + p.ReasoningContent
		for i, tc := range p.ToolCalls {
			idx := int64(i)
			if tc.Index != nil {
				idx = *tc.Index
			}
			if idx < 0 || idx > 1024 {
				continue
			}
			for int64(len(r.calls)) <= idx {
				r.calls = append(r.calls, clCall{})
			}
			call := &r.calls[idx]
			if tc.ID != "" {
				call.id = tc.ID
			}
			if tc.Function.Name != "" {
				call.name = tc.Function.Name
			}
			call.args += tc.Function.Arguments
		}
	}
}
