package ingest

import (
	"bytes"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// geminiCLI reads Gemini CLI chat recordings
// (~/.gemini/tmp/<projectHash>/chats/session-*.json): one JSON object
// {sessionId, projectHash, startTime, lastUpdated, messages}; and the
// session-*.jsonl of Gemini CLI 0.40+, replayed into the same messages
// (gemini_jsonl.go).
//
// Steps:
//  1. Parse the document (a syntax error is one reject at its line) and open
//     the run with the sessionId.
//  2. user → user event; error → error event; info and warning messages are
//     UI notices the model never saw: skipped. A message of another type
//     is not read: each such type is named once per file (unreadTypes).
//  3. gemini → model call(s): thoughts → reasoning, content → assistant, each
//     toolCall → a tool_call and, right after, its tool_result (the CLI
//     stores call and result in one object; the result is the
//     functionResponse's output or error). The message's tokens are the
//     call's usage: input (the prompt, cached included) + tool-use prompt
//     tokens → InputTokens, cached → CacheReadTokens, output + thoughts →
//     OutputTokens (thoughts also → ReasoningTokens). A model message
//     (the Gemini API's Content {parts}) is a model call too: its text
//     parts → assistant, thought parts → reasoning, functionCall parts →
//     tool calls.
//  4. The CLI appends the tool calls of later responses that start without
//     text or thoughts to the last gemini message. A tool call whose id
//     (<name>-<unix ms>-<hex>) was issued after the previous call had
//     completed therefore starts a new model call; that call has no usage
//     (the CLI does not keep it with the message).
//  5. End reason: a last error message → error (context_overflow when it
//     says so), a last tool call cancelled by the user → interrupted (both
//     explicit); else inferred from how the log ends. Gemini CLI does not
//     persist its chat compression in this file, so there are no context ops.
type geminiCLI struct{ formatInfo }

var (
	gmSessionKey = regexp.MustCompile(`"sessionId"\s*:`)
	gmProjectKey = regexp.MustCompile(`"projectHash"\s*:`)
	gmMessages   = regexp.MustCompile(`"messages"\s*:\s*\[`)
	gmCallID     = regexp.MustCompile(`-(\d{12,14})-[0-9a-fA-F]+$`)
)

// Detect claims a JSON object with the keys sessionId, projectHash and a
// messages array, or a session-*.jsonl (gmDetectJSONL).
func (geminiCLI) Detect(name string, head []byte) bool {
	h := trimHead(head)
	return len(h) > 0 && h[0] == '{' && (gmSessionKey.Match(h) && gmProjectKey.Match(h) && gmMessages.Match(h) || gmDetectJSONL(h))
}

type gmMessage struct {
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	Parts     json.RawMessage `json:"parts"` // a model message's Gemini API parts
	Model     string          `json:"model"`
	Thoughts  []gmThought     `json:"thoughts"`
	Tokens    *struct {
		Input    int64 `json:"input"`
		Output   int64 `json:"output"`
		Cached   int64 `json:"cached"`
		Thoughts int64 `json:"thoughts"`
		Tool     int64 `json:"tool"`
	} `json:"tokens"`
	ToolCalls []gmToolCall `json:"toolCalls"`
}

type gmThought struct {
	Subject     string `json:"subject"`
	Description string `json:"description"`
	Timestamp   string `json:"timestamp"`
}

type gmToolCall struct {
	ID            string          `json:"id"`
	Name          string          `json:"name"`
	Args          json.RawMessage `json:"args"`
	Result        json.RawMessage `json:"result"`
	ResultDisplay json.RawMessage `json:"resultDisplay"`
	Status        string          `json:"status"`
	Timestamp     string          `json:"timestamp"`
}

func (gc geminiCLI) Import(f *File, r io.Reader) error {
	doc, err := readDocument(f, r)
	if err != nil {
		return err
	}
	if gmIsJSONL(doc.data) {
		return gc.importJSONL(f, doc.data)
	}
	if len(doc.root.raw) == 0 {
		return nil
	}
	var v any // readJSONDoc's check: a syntax error is rejected at its line
	if err := json.Unmarshal(doc.root.raw, &v); err != nil {
		return doc.syntax(f, err)
	}
	fields, ok, err := doc.object(f)
	if !ok || err != nil {
		return err
	}
	var hdr struct{ sessionID, start, updated string }
	for key, dst := range map[string]*string{"sessionId": &hdr.sessionID, "startTime": &hdr.start, "lastUpdated": &hdr.updated} {
		if s, ok := fields[key]; ok {
			_ = json.Unmarshal(s.raw, dst)
		}
	}
	elems, ok, err := doc.array(f, fields, "messages")
	if !ok {
		return err
	}
	b, err := f.NewRun(firstNonEmpty(hdr.sessionID, strings.TrimSuffix(filepath.Base(f.Path()), filepath.Ext(f.Path()))))
	if err != nil {
		return err
	}
	b.Run.Harness = "gemini-cli"
	b.Run.StartedAt, b.Run.EndedAt = ParseTime(hdr.start), ParseTime(hdr.updated)
	g := &gmRun{b: b}
	for i, el := range elems {
		if i&255 == 255 && f.Ctx != nil {
			if err := f.Ctx.Err(); err != nil {
				return err
			}
		}
		line := doc.line(el.off)
		var m gmMessage
		if ok, err := decodeElem(f, line, "messages[%d]", i, el, &m); !ok {
			if err != nil {
				return err
			}
			continue
		}
		if err := g.message(f, line, &m, el.raw); err != nil {
			return err
		}
	}
	if err := g.unread.flush(f); err != nil {
		return err
	}
	g.finishEnd()
	return b.Finish()
}

// gmRun is the per-run state of the Gemini CLI importer.
type gmRun struct {
	b        *RunBuilder
	lastKind schema.EventKind
	lastCall *gmToolCall // the last tool call when it is the last thing logged
	unread   unreadTypes // messages of types not read
}

func (g *gmRun) add(e schema.Event) error {
	g.lastKind = e.Kind
	g.lastCall = nil
	return g.b.Add(e)
}

func (g *gmRun) message(f *File, line int64, m *gmMessage, raw []byte) error {
	b := g.b
	ts := ParseTime(m.Timestamp)
	text := ContentText(m.Content)
	switch m.Type {
	case "user":
		return g.add(schema.Event{Kind: schema.KindUser, Role: "user", TS: ts, Line: line, Text: text})
	case "error":
		if IsOverflowText(text) {
			b.SetEnd(schema.EndContextOverflow, strings.TrimSpace(text))
		} else {
			b.SetEnd(schema.EndError, strings.TrimSpace(text))
		}
		return g.add(schema.Event{Kind: schema.KindError, Role: "system", TS: ts, Line: line, IsError: true, Text: text})
	case "info", "warning":
		return nil
	case "gemini":
	case "model":
		var thoughts []string
		text, thoughts = gmParts(m)
		for _, t := range thoughts {
			m.Thoughts = append(m.Thoughts, gmThought{Description: t})
		}
	default:
		g.unread.add(line, m.Type, raw)
		return nil
	}
	if g.lastKind == schema.KindError {
		b.ClearEnd() // the session went on after the error
	}
	b.NewCall()
	b.NoteModel(m.Model)
	if t := m.Tokens; t != nil {
		b.SetUsage(schema.Usage{TS: ts, Model: m.Model, RequestID: m.ID,
			InputTokens: t.Input + t.Tool, OutputTokens: t.Output + t.Thoughts,
			CacheReadTokens: t.Cached, ReasoningTokens: t.Thoughts})
	}
	for _, th := range m.Thoughts {
		t := strings.TrimSpace(th.Subject + "\n" + th.Description)
		if err := g.add(schema.Event{Kind: schema.KindReasoning, Role: "assistant", TS: gmTime(ParseTime(th.Timestamp), ts), Line: line, Text: t}); err != nil {
			return err
		}
	}
	if strings.TrimSpace(text) != "" {
		if err := g.add(schema.Event{Kind: schema.KindAssistant, Role: "assistant", TS: ts, Line: line, Text: text}); err != nil {
			return err
		}
	}
	for _, grp := range gmGroups(m.ToolCalls) {
		if grp[0] > 0 {
			b.NewCall()
		}
		for _, i := range grp {
			tc := &m.ToolCalls[i]
			e := schema.Event{Kind: schema.KindToolCall, Role: "assistant", TS: gmTime(gmIssued(tc.ID), ts), Line: line,
				ToolName: tc.Name, CallID: tc.ID, Args: string(tc.Args)}
			if err := g.add(e); err != nil {
				return err
			}
		}
		for _, i := range grp {
			tc := &m.ToolCalls[i]
			out, failed := gmResultText(tc)
			e := schema.Event{Kind: schema.KindToolResult, Role: "tool", TS: gmTime(ParseTime(tc.Timestamp), ts), Line: line,
				ToolName: tc.Name, CallID: tc.ID, IsError: failed || tc.Status == "error" || tc.Status == "cancelled", Text: out}
			if err := g.add(e); err != nil {
				return err
			}
			g.lastCall = tc
		}
	}
	return nil
}

// gmParts reads a model message's parts (the Gemini API's Content): the
// text of its text parts, the texts of its thought parts, and its
// functionCall parts appended to m.ToolCalls (without results).
func gmParts(m *gmMessage) (text string, thoughts []string) {
	var parts []struct {
		Text         *string `json:"text"`
		Thought      bool    `json:"thought"`
		FunctionCall *struct {
			ID   string          `json:"id"`
			Name string          `json:"name"`
			Args json.RawMessage `json:"args"`
		} `json:"functionCall"`
	}
	if json.Unmarshal(m.Parts, &parts) != nil {
		return ContentText(m.Content), nil
	}
	var texts []string
	for _, p := range parts {
		switch {
		case p.FunctionCall != nil:
			m.ToolCalls = append(m.ToolCalls, gmToolCall{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Args: p.FunctionCall.Args})
		case p.Text != nil && p.Thought:
			thoughts = append(thoughts, *p.Text)
		case p.Text != nil:
			texts = append(texts, *p.Text)
		}
	}
	if len(texts) == 0 {
		return ContentText(m.Content), thoughts
	}
	return strings.Join(texts, "\n"), thoughts
}

// gmGroups splits a message's tool calls into the model calls that issued
// them: a call issued (per its id) after the previous call completed starts
// a new group. Calls without a readable id stay with the previous group.
func gmGroups(calls []gmToolCall) [][]int {
	var out [][]int
	var prevDone *time.Time
	for i := range calls {
		issued := gmIssued(calls[i].ID)
		if len(out) == 0 || issued != nil && prevDone != nil && issued.After(*prevDone) {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], i)
		if t := ParseTime(calls[i].Timestamp); t != nil {
			prevDone = t
		}
	}
	return out
}

// gmIssued reads the issue time from a tool-call id <name>-<unix ms>-<hex>.
func gmIssued(id string) *time.Time {
	m := gmCallID.FindStringSubmatch(id)
	if m == nil {
		return nil
	}
	ms, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return nil
	}
	return unixTime(float64(ms))
}

// gmResultText renders a tool call's result (a Gemini "PartListUnion") as the
// model saw it: functionResponse.response.output (or .error), text parts,
// else the display text. failed reports a response error.
func gmResultText(tc *gmToolCall) (text string, failed bool) {
	raw := bytes.TrimSpace(tc.Result)
	if len(raw) == 0 || string(raw) == "null" {
		return gmDisplay(tc.ResultDisplay), false
	}
	if raw[0] == '"' {
		return ContentText(raw), false
	}
	var parts []json.RawMessage
	if raw[0] == '[' {
		if json.Unmarshal(raw, &parts) != nil {
			return string(raw), false
		}
	} else {
		parts = []json.RawMessage{raw}
	}
	var texts []string
	for _, p := range parts {
		var part struct {
			Text             *string `json:"text"`
			FunctionResponse *struct {
				Response json.RawMessage `json:"response"`
			} `json:"functionResponse"`
		}
		if json.Unmarshal(p, &part) != nil {
			texts = append(texts, ContentText(p))
			continue
		}
		switch {
		case part.Text != nil:
			texts = append(texts, *part.Text)
		case part.FunctionResponse != nil:
			t, isErr := gmResponseText(part.FunctionResponse.Response)
			texts = append(texts, t)
			failed = failed || isErr
		default:
			texts = append(texts, ContentText(p))
		}
	}
	return strings.Join(texts, "\n"), failed
}

// gmResponseText renders a functionResponse.response: its output or error
// string, else its compact JSON.
func gmResponseText(raw json.RawMessage) (string, bool) {
	var resp map[string]json.RawMessage
	if json.Unmarshal(raw, &resp) != nil {
		return valueText(raw), false
	}
	if e, ok := resp["error"]; ok && len(resp) == 1 {
		return valueText(e), true
	}
	if o, ok := resp["output"]; ok && len(resp) == 1 {
		return valueText(o), false
	}
	_, isErr := resp["error"]
	return valueText(raw), isErr
}

func gmDisplay(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return valueText(raw)
}

// finishEnd sets the end reason from how the log ends.
func (g *gmRun) finishEnd() {
	b := g.b
	r := &b.Run
	if r.EndReasonSource == schema.SourceExplicit {
		return
	}
	switch {
	case g.lastCall != nil && g.lastCall.Status == "cancelled":
		out, _ := gmResultText(g.lastCall)
		b.SetEnd(schema.EndInterrupted, firstNonEmpty(strings.TrimSpace(out), "tool call cancelled"))
	case g.lastKind == schema.KindAssistant:
		r.EndReason, r.EndReasonSource, r.EndReasonDetail = schema.EndFinished, schema.SourceInferred, "log ends on a model reply without a tool call"
	}
}

// gmTime returns t, or def when t is nil.
func gmTime(t, def *time.Time) *time.Time {
	if t != nil {
		return t
	}
	return def
}
