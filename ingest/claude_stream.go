package ingest

import (
	"bufio"
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

// claudeStream reads the stream-json protocol between the Claude Agent SDK
// and the Claude Code CLI, in two containers:
//
//	a) JSONL, one message per line, as `claude -p --output-format stream-json
//	   --verbose` prints it;
//	b) a VCR cassette of the SDK's stdio, {metadata, messages:[{direction:
//	   send|recv, message}]}, as Logfire's tests record it.
//
// Messages: system (subtype init: session_id, model, tools; compact_boundary:
// compact_metadata {trigger, pre_tokens, post_tokens}), assistant (one
// Anthropic response split over several messages, one per content block,
// sharing message.id), user (prompts and tool_result blocks), result
// (subtype, is_error, num_turns, total_cost_usd, usage, modelUsage), plus
// control_request/control_response, stream_event and other UI messages,
// which the model never sees and which are skipped.
//
// Steps per message:
//  1. Decode it; a message that is not an object, has no type, or whose
//     message field is not an object is rejected.
//  2. Route it to its run: the session_id, plus "/task-<parent_tool_use_id>"
//     for messages of a Task sub-agent (parent run: the session). Messages
//     without a real session id (the SDK sends the first prompt with
//     session_id "default", before init names the session) go to the current
//     run, or wait for the first one.
//  3. assistant and user messages are handled exactly as the claude-code
//     importer handles its records (shared code): each message.id is one
//     model call; its usage counted once, input and cache fields from the
//     latest message and output_tokens as the maximum (stream-json repeats
//     the usage of message_start, so output_tokens often stays a streaming
//     placeholder; the usage rows keep it as logged, and when the session
//     has no sub-agent runs the run's totals take the result messages'
//     usage where larger, see RunBuilder.SetLoggedTotals).
//     "<synthetic>" API-error messages are error events, not calls.
//  4. compact_boundary → a compaction event with a compaction op (tokens
//     before/after from compact_metadata); the synthetic user message that
//     follows it (the summary) → a compaction event with a summary op.
//  5. result → the explicit end reason: success → finished (is_error →
//     error, or context_overflow when the text says the prompt was too
//     long), error_max_turns → step_limit, error_max_budget_usd →
//     cost_limit, error_during_execution and other errors → error, a
//     terminal_reason "aborted_*" → interrupted; total_cost_usd (cumulative)
//     → the run's cost, modelUsage contextWindow → its window. A later
//     user prompt clears the end again (multi-turn sessions).
//  6. In a cassette, recv user messages marked isReplay echo a sent one and
//     are skipped.
type claudeStream struct{ formatInfo }

var (
	csDirection = regexp.MustCompile(`"direction"\s*:\s*"(?:send|recv)"`)
	csMessages  = regexp.MustCompile(`"messages"\s*:\s*\[`)
)

// csIsCassette reports whether head (trimmed, starting with '{') is the
// beginning of an SDK cassette document.
func csIsCassette(head []byte) bool {
	return csMessages.Match(head) && csDirection.Match(head)
}

func (claudeStream) Detect(_ string, head []byte) bool {
	t := trimHead(head)
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	if csIsCassette(t) {
		return true
	}
	return csDetectLines(t)
}

// csDetectLines claims JSONL whose first lines include a stream-json
// message: a system, assistant, user or result object with a snake_case
// session_id. Claude Code session files (camelCase sessionId) and Codex
// rollouts (payload) are refused.
func csDetectLines(head []byte) bool {
	return detectJSONL(head, 20, func(r *struct {
		Type      string          `json:"type"`
		Subtype   string          `json:"subtype"`
		SessionID string          `json:"session_id"`
		Camel     *string         `json:"sessionId"`
		Message   json.RawMessage `json:"message"`
		Payload   json.RawMessage `json:"payload"`
	}) (bool, bool) {
		if r.Camel != nil || r.Payload != nil {
			return false, true
		}
		var ok bool
		switch {
		case r.SessionID == "":
		case r.Type == "system" || r.Type == "result":
			ok = r.Subtype != ""
		case r.Type == "assistant" || r.Type == "user":
			ok = len(r.Message) > 0 && r.Message[0] == '{'
		}
		return ok, ok
	})
}

// csRecord is one stream-json message.
type csRecord struct {
	Type            string          `json:"type"`
	Subtype         string          `json:"subtype"`
	SessionID       string          `json:"session_id"`
	ParentToolUseID *string         `json:"parent_tool_use_id"`
	Timestamp       string          `json:"timestamp"`
	Message         json.RawMessage `json:"message"`
	Model           string          `json:"model"`
	IsReplay        bool            `json:"isReplay"`
	IsSynthetic     bool            `json:"isSynthetic"`
	Error           json.RawMessage `json:"error"`
	IsError         bool            `json:"is_error"`
	Result          json.RawMessage `json:"result"`
	Errors          json.RawMessage `json:"errors"`
	TotalCostUSD    *float64        `json:"total_cost_usd"`
	TerminalReason  string          `json:"terminal_reason"`
	ModelUsage      json.RawMessage `json:"modelUsage"`
	Usage           *ccUsage        `json:"usage"`
	CompactMetadata *struct {
		Trigger    string `json:"trigger"`
		PreTokens  *int64 `json:"pre_tokens"`
		PostTokens *int64 `json:"post_tokens"`
	} `json:"compact_metadata"`
}

// csRun is the per-run state: the claude-code run state (shared handling of
// assistant and user messages) plus the stream's own.
type csRun struct {
	cc          ccRun
	summaryNext bool         // a compact_boundary was just seen
	stated      schema.Usage // sums of the result messages' usage
}

type csPending struct {
	line      int64
	raw       []byte
	direction string
}

type csImport struct {
	f        *File
	cassette bool
	runs     map[string]*csRun
	order    []string
	cur      *csRun // run of the latest message with a session
	curKey   string // its session (without the sub-agent suffix)
	pending  []csPending
}

func (claudeStream) Import(f *File, r io.Reader) error {
	br := bufio.NewReaderSize(r, HeadSize)
	head, _ := br.Peek(HeadSize) // a shorter file gives what there is
	si := &csImport{f: f, runs: map[string]*csRun{}}
	t := trimHead(head)
	if len(t) > 0 && t[0] == '{' && csIsCassette(t) {
		si.cassette = true
		doc, err := readDocument(f, br)
		if err != nil {
			return err
		}
		if err := si.document(doc); err != nil {
			return err
		}
	} else {
		err := f.Lines(br, func(line int64, b []byte) error {
			if line == 1 {
				b = bytes.TrimPrefix(b, utf8BOM)
			}
			return si.record(line, b, "")
		})
		if err != nil {
			return err
		}
	}
	return si.finish()
}

// document imports a cassette.
func (si *csImport) document(doc *jsonDoc) error {
	if len(doc.root.raw) == 0 {
		return nil
	}
	fields, ok, err := doc.object(si.f)
	if !ok {
		return err
	}
	ix := doc.index()
	ms, found := fields["messages"]
	if !found {
		return si.f.Reject(1, "cassette without a messages array", doc.data)
	}
	elems, err := arrayElems(ms)
	if err != nil {
		return si.f.Reject(ix.line(ms.off), "messages is not an array: "+clipErr(err), ms.raw)
	}
	for i, el := range elems {
		if i&255 == 255 && si.f.Ctx != nil {
			if err := si.f.Ctx.Err(); err != nil {
				return err
			}
		}
		line := ix.line(el.off)
		env, err := objectFields(el)
		if err != nil {
			if err := si.f.Reject(line, fmt.Sprintf("record %d: %v", i+1, err), el.raw); err != nil {
				return err
			}
			continue
		}
		msg, found := env["message"]
		if !found || len(msg.raw) == 0 || msg.raw[0] != '{' {
			if err := si.f.Reject(line, fmt.Sprintf("record %d: message is not an object", i+1), el.raw); err != nil {
				return err
			}
			continue
		}
		var dir string
		if d, ok := env["direction"]; ok {
			_ = json.Unmarshal(d.raw, &dir)
		}
		if err := si.record(ix.line(msg.off), msg.raw, dir); err != nil {
			return err
		}
	}
	return nil
}

// csRealSession reports whether a session id names a session (the SDK sends
// "default" before the CLI has one).
func csRealSession(id string) bool { return id != "" && id != "default" }

// run returns the run of a message, creating it (and replaying the messages
// that waited for a session) when needed; nil means the message must wait.
func (si *csImport) run(rec *csRecord) (*csRun, error) {
	session := rec.SessionID
	if !csRealSession(session) {
		if si.cur == nil {
			return nil, nil
		}
		session = si.curKey
	}
	key, parent := session, ""
	if p := rec.ParentToolUseID; p != nil && *p != "" {
		key, parent = session+"/task-"+*p, session
	}
	if cr, ok := si.runs[key]; ok {
		if parent == "" {
			si.cur, si.curKey = cr, session
		}
		return cr, nil
	}
	if parent != "" { // the session's own run comes first
		if _, ok := si.runs[parent]; !ok {
			if _, err := si.newRun(parent, ""); err != nil {
				return nil, err
			}
		}
	}
	cr, err := si.newRun(key, parent)
	if err != nil {
		return nil, err
	}
	if parent == "" {
		si.cur, si.curKey = cr, session
	}
	return cr, nil
}

func (si *csImport) newRun(key, parent string) (*csRun, error) {
	key, parent = strings.Clone(key), strings.Clone(parent)
	b, err := si.f.NewRun(key)
	if err != nil {
		return nil, err
	}
	b.Run.Harness = "claude-code"
	if parent != "" {
		b.Run.ParentRunID = si.runs[parent].cc.b.ID()
	}
	cr := &csRun{cc: ccRun{b: b}}
	si.runs[key] = cr
	si.order = append(si.order, key)
	if parent == "" && si.cur == nil {
		si.cur, si.curKey = cr, key
		pend := si.pending
		si.pending = nil
		for _, p := range pend {
			if err := si.record(p.line, p.raw, p.direction); err != nil {
				return nil, err
			}
		}
	}
	return cr, nil
}

// record imports one message (step 1 onwards).
func (si *csImport) record(line int64, raw []byte, direction string) error {
	f := si.f
	var rec csRecord
	if why := decodeRecord(raw, &rec); why != "" {
		return f.Reject(line, why, raw)
	}
	if rec.Type == "" {
		return f.Reject(line, "record without type", raw)
	}
	if rec.Message != nil && string(rec.Message) != "null" && rec.Message[0] != '{' {
		return f.Reject(line, "message is not an object", raw)
	}
	switch rec.Type {
	case "system":
		if rec.Subtype != "init" && rec.Subtype != "compact_boundary" {
			return nil // status, hooks, api_retry, …: not seen by the model
		}
	case "assistant", "user":
		if len(rec.Message) == 0 || string(rec.Message) == "null" {
			return f.Reject(line, rec.Type+" record without message", raw)
		}
		if rec.Type == "user" && si.cassette && direction == "recv" && rec.IsReplay {
			return nil // the CLI echoes a message the SDK sent
		}
	case "result":
	default:
		return nil // control_request/response, stream_event, tool_progress, …
	}
	cr, err := si.run(&rec)
	if err != nil {
		return err
	}
	if cr == nil {
		si.pending = append(si.pending, csPending{line: line, raw: bytes.Clone(raw), direction: direction})
		return nil
	}
	b := cr.cc.b
	ts := ParseTime(rec.Timestamp)
	switch rec.Type {
	case "system":
		if rec.Subtype == "init" {
			b.NoteModel(rec.Model)
			return nil
		}
		if err := b.Add(schema.Event{Kind: schema.KindCompaction, Role: "system", TS: ts, Line: line, Text: "compact_boundary"}); err != nil {
			return err
		}
		op := schema.ContextOp{Op: schema.OpCompaction, Trigger: "auto"}
		if m := rec.CompactMetadata; m != nil {
			if m.Trigger != "" {
				op.Trigger = m.Trigger
			}
			op.TokensBefore, op.TokensAfter = m.PreTokens, m.PostTokens
		}
		cr.summaryNext = true
		return b.Op(op)
	case "assistant", "user":
		return si.message(cr, line, ts, &rec, raw)
	case "result":
		return si.result(cr, &rec)
	}
	return nil
}

// message hands an assistant or user message to the claude-code handling.
func (si *csImport) message(cr *csRun, line int64, ts *time.Time, rec *csRecord, raw []byte) error {
	d := &ccLine{rec: ccRecord{Type: rec.Type, Timestamp: rec.Timestamp}}
	if err := json.Unmarshal(rec.Message, &d.msg); err != nil {
		return si.f.Reject(line, "invalid message: "+clipErr(err), raw)
	}
	if d.msg.Content == nil && (rec.Type == "user" || d.msg.Usage == nil) {
		return si.f.Reject(line, rec.Type+" message without content", raw)
	}
	var err error
	if d.blocks, d.text, err = parseBlocks(d.msg.Content); err != nil {
		return si.f.Reject(line, "invalid message content: "+clipErr(err), raw)
	}
	if rec.Type == "assistant" {
		// API errors come as "<synthetic>" messages (with an error code on
		// newer CLIs); they are error events, not model calls
		if d.msg.Model == "<synthetic>" && (csNonNull(rec.Error) || strings.HasPrefix(strings.TrimSpace(d.text), "API Error") || IsOverflowText(d.text)) {
			d.rec.IsAPIErrorMessage = true
		}
		return cr.cc.assistant(si.f, line, ts, &d.rec, &d.msg, d, raw)
	}
	if cr.summaryNext {
		cr.summaryNext = false
		if rec.IsSynthetic || strings.HasPrefix(strings.TrimSpace(d.text), "This session is being continued") {
			d.rec.IsCompactSummary = true
		}
	}
	return cr.cc.user(si.f, line, ts, &d.rec, &d.msg, d, raw)
}

func csNonNull(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s != "" && s != "null" && s != `""` && s != "false"
}

// result records the end of a query (step 5). It is not an event: the
// model never sees it.
func (si *csImport) result(cr *csRun, rec *csRecord) error {
	b := cr.cc.b
	if rec.TotalCostUSD != nil {
		cr.cc.cost, cr.cc.hasCost = *rec.TotalCostUSD, true // cumulative over the session
	}
	if w := csWindow(rec.ModelUsage); w > 0 {
		b.Run.WindowTokens = &w
	}
	// The result's usage is the query's total; per-call output tokens in the
	// stream are start-of-response placeholders. The total also counts the
	// query's sub-agents, so it is the run's own only when there are none.
	if rec.Usage != nil && len(si.runs) == 1 {
		u := rec.Usage.usage()
		cr.stated.InputTokens += u.InputTokens
		cr.stated.OutputTokens += u.OutputTokens
		cr.stated.CacheReadTokens += u.CacheReadTokens
		cr.stated.CacheWriteTokens += u.CacheWriteTokens
		b.SetLoggedTotals(cr.stated)
	}
	text := csText(rec.Result)
	if errs := csText(rec.Errors); errs != "" {
		text = strings.TrimSpace(text + "\n" + errs)
	}
	reason, detail := csEndReason(rec, text)
	b.SetEnd(reason, detail)
	cr.cc.overflowed = reason == schema.EndContextOverflow
	return nil
}

// csEndReason maps a result message to an end reason and its detail.
func csEndReason(rec *csRecord, text string) (schema.EndReason, string) {
	if strings.HasPrefix(rec.TerminalReason, "aborted") {
		return schema.EndInterrupted, rec.TerminalReason
	}
	sub := rec.Subtype
	switch {
	case sub == "error_max_turns":
		return schema.EndStepLimit, sub
	case sub == "error_max_budget_usd":
		return schema.EndCostLimit, sub
	case strings.HasPrefix(sub, "error") || rec.IsError:
		if sub == "" {
			sub = "is_error"
		}
		detail := sub
		if text != "" {
			detail += ": " + clipText(text)
		}
		if IsOverflowText(text) {
			return schema.EndContextOverflow, detail
		}
		return schema.EndError, detail
	case sub == "":
		return schema.EndFinished, "result"
	}
	return schema.EndFinished, sub
}

// csText renders a result or errors value: a string, a list of strings, or
// JSON.
func csText(raw json.RawMessage) string {
	s, raw, ok := stringValue(raw)
	if ok {
		return s
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return strings.Join(list, "\n")
	}
	return string(raw)
}

// csWindow returns the largest contextWindow in a result's modelUsage.
func csWindow(raw json.RawMessage) int64 {
	if len(raw) == 0 || raw[0] != '{' {
		return 0
	}
	var mu map[string]json.RawMessage
	if json.Unmarshal(raw, &mu) != nil {
		return 0
	}
	var w int64
	for _, v := range mu {
		var m struct {
			ContextWindow int64 `json:"contextWindow"`
		}
		if json.Unmarshal(v, &m) == nil && m.ContextWindow > w {
			w = m.ContextWindow
		}
	}
	return w
}

// finish flushes messages that never found a session into a run named after
// the file, infers the end of runs that have none, and finishes every run.
func (si *csImport) finish() error {
	if len(si.pending) > 0 {
		base := strings.TrimSuffix(filepath.Base(si.f.Path()), filepath.Ext(si.f.Path()))
		if _, err := si.newRun(base, ""); err != nil {
			return err
		}
	}
	for _, k := range si.order {
		if err := si.runs[k].cc.finish(); err != nil {
			return err
		}
	}
	return nil
}
