package ingest

import (
	"bytes"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// opencode reads OpenCode sessions in two forms.
//
// Recorded server-sent events (what `opencode serve` streams on /event, as a
// JSON array, JSON lines or "data: …" lines): message.updated carries a
// message's info (role, model, tokens, cost, finish, error),
// message.part.updated one part of it (text, reasoning, tool with its state
// pending/running/completed/error, step-start, step-finish with the step's
// tokens and cost, compaction, file, patch …). Both are sent again on every
// change, so only the final state of each message and part is kept, in the
// order the message and the part first appeared. session.created/updated
// give a session's parent (sub-agent sessions of the task tool);
// session.compacted and session.error are positioned between the messages.
// One run per session id.
//
// The on-disk storage (~/.local/share/opencode/storage): one JSON file per
// session (session/<project>/<id>.json), message (message/<session>/<id>.json)
// and part (part/<message>/<id>.json); older versions used
// session/info/<id>.json, session/message/<session>/<id>.json and
// session/part/<session>/<message>/<id>.json. Importing a session file reads
// its messages and parts from the tree around it (ids sort by time); message
// and part files are recognised but import nothing themselves.
//
// Mapping, per session:
//  1. user messages: text parts (synthetic ones too: OpenCode sends them, e.g.
//     the file a prompt attached) → user events; parts marked ignored and
//     text/plain file parts (sent as synthetic text) are skipped; other file
//     parts → "[file mime name]".
//  2. assistant messages: each step-start … step-finish is one model call
//     (RunBuilder.NewCall), a message without steps one call (Call with the
//     message id). text → assistant, reasoning → reasoning, tool → tool_call
//     (call id callID) followed, after the step's outputs, by its tool_result
//     (state.output, or state.error with is_error; exit code from
//     metadata.exit). step-finish tokens are the call's usage: OpenCode's
//     tokens.input excludes cache reads and writes, so the prompt is
//     input + cache.read + cache.write. A message without step-finish parts
//     uses the message's tokens. The system prompt, which older versions log
//     on the assistant message, is one system event each time it changes.
//  3. context management: a compaction part → a compaction event and a
//     compaction op (trigger auto/manual, tokens_before = the prompt of the
//     last measured call); the summary message that follows is a model call
//     like others. A summary message without a compaction part (older
//     versions), or a session.compacted with neither, gets the op instead.
//  4. errors (message info.error, session.error, retry parts) → error events.
//  5. end: the last error (MessageAbortedError → interrupted, context
//     overflow → context_overflow, others → error) unless an assistant
//     message followed it; else the last assistant message's finish (stop →
//     finished, length → error); else inferred from the last event.
type opencode struct{ formatInfo }

// opcEventType matches the event types that mark an OpenCode event stream.
var opcEventType = regexp.MustCompile(`"type"\s*:\s*"(message\.updated|message\.part\.updated|message\.part\.delta|message\.removed|session\.(created|updated|idle|status|compacted|error|diff|deleted))"`)

// Detect accepts an event stream (a JSON array, JSON lines or SSE lines
// whose head has OpenCode event types next to "properties"), and OpenCode
// storage files: a session, message or part object recognised by its id
// prefix (ses_, msg_, prt_) and keys.
func (opencode) Detect(_ string, head []byte) bool {
	t := trimHead(head)
	if len(t) == 0 {
		return false
	}
	events := bytes.Contains(head, []byte(`"properties"`)) && opcEventType.Match(head)
	switch t[0] {
	case '[':
		return events
	case '{':
		keys := headKeys(t, 64)
		for _, k := range keys {
			if k.name == "data" && k.kind == '{' {
				return false // Copilot CLI's {type: "session.…", data: {…}} envelope (copilot-cli-events)
			}
		}
		for _, k := range keys {
			switch {
			case k.name == "type" && opcIsEventType(k.str):
				return events // JSON lines of events
			case k.name == "payload" && k.kind == '{': // /global/event: {directory, payload:{type, properties}}
				for _, pk := range headKeys(t[k.off:], 8) {
					if pk.name == "type" && opcIsEventType(pk.str) {
						return events
					}
				}
			}
		}
		return opcStorageKind(keys) != ""
	case 'd', 'e', ':': // data: / event: / comment lines of a raw SSE capture
		return events && (bytes.HasPrefix(t, []byte("data:")) || bytes.HasPrefix(t, []byte("event:")) || t[0] == ':')
	}
	return false
}

// opcEventPrefixes are the namespaces of OpenCode bus events (and of the
// custom.* events opencode.nvim records next to them).
var opcEventPrefixes = []string{"message.", "session.", "server.", "installation.", "lsp.", "file.", "permission.", "todo.",
	"storage.", "ide.", "tui.", "custom.", "pty.", "mcp.", "command.", "vcs.", "project.", "question."}

func opcIsEventType(s string) bool {
	for _, p := range opcEventPrefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// opcStorageKind says which storage file an object's leading keys describe:
// "session", "message", "part" or "".
func opcStorageKind(keys []headKey) string {
	has := map[string]bool{}
	var id, sid, mid, role, typ string
	for _, k := range keys {
		has[k.name] = true
		switch k.name {
		case "id":
			id = k.str
		case "sessionID":
			sid = k.str
		case "messageID":
			mid = k.str
		case "role":
			role = k.str
		case "type":
			typ = k.str
		}
	}
	switch {
	case has["properties"] || has["payload"]:
		return ""
	case strings.HasPrefix(id, "prt_") && mid != "" && sid != "" && typ != "":
		return "part"
	case strings.HasPrefix(id, "msg_") && sid != "" && (role == "user" || role == "assistant"):
		return "message"
	case strings.HasPrefix(id, "ses_") && sid == "" && (has["projectID"] || has["version"] || has["title"] || has["directory"] || has["slug"]):
		return "session"
	}
	return ""
}

// opcTokens is a step's or message's token usage.
type opcTokens struct {
	Input     float64 `json:"input"`
	Output    float64 `json:"output"`
	Reasoning float64 `json:"reasoning"`
	Cache     struct {
		Read  float64 `json:"read"`
		Write float64 `json:"write"`
	} `json:"cache"`
}

type opcTimes struct {
	Created   any `json:"created"`
	Completed any `json:"completed"`
	Start     any `json:"start"`
	End       any `json:"end"`
}

// opcInfo is a message's info (message.updated, storage message files).
type opcInfo struct {
	ID         string          `json:"id"`
	SessionID  string          `json:"sessionID"`
	Role       string          `json:"role"`
	ModelID    string          `json:"modelID"`
	ProviderID string          `json:"providerID"`
	Model      json.RawMessage `json:"model"`
	Mode       string          `json:"mode"`
	Agent      string          `json:"agent"`
	Summary    json.RawMessage `json:"summary"`
	System     json.RawMessage `json:"system"`
	Cost       *float64        `json:"cost"`
	Tokens     *opcTokens      `json:"tokens"`
	Time       opcTimes        `json:"time"`
	Finish     string          `json:"finish"`
	Error      json.RawMessage `json:"error"`
}

// opcToolState is a tool part's state.
type opcToolState struct {
	Status   string          `json:"status"`
	Input    json.RawMessage `json:"input"`
	Output   json.RawMessage `json:"output"`
	Error    json.RawMessage `json:"error"`
	Metadata json.RawMessage `json:"metadata"`
	Time     opcTimes        `json:"time"`
}

// opcPart is one message part.
type opcPart struct {
	ID          string          `json:"id"`
	SessionID   string          `json:"sessionID"`
	MessageID   string          `json:"messageID"`
	Type        string          `json:"type"`
	Text        string          `json:"text"`
	Synthetic   bool            `json:"synthetic"`
	Ignored     bool            `json:"ignored"`
	Time        opcTimes        `json:"time"`
	CallID      string          `json:"callID"`
	Tool        string          `json:"tool"`
	State       *opcToolState   `json:"state"`
	Tokens      *opcTokens      `json:"tokens"`
	Cost        *float64        `json:"cost"`
	Reason      string          `json:"reason"`
	Auto        *bool           `json:"auto"`
	Overflow    bool            `json:"overflow"`
	Mime        string          `json:"mime"`
	Filename    string          `json:"filename"`
	Prompt      string          `json:"prompt"`
	Description string          `json:"description"`
	Attempt     json.RawMessage `json:"attempt"`
	Error       json.RawMessage `json:"error"`
}

// opcSessionInfo is a session's info (session.created/updated, storage session files).
type opcSessionInfo struct {
	ID       string `json:"id"`
	ParentID string `json:"parentID"`
	Title    string `json:"title"`
}

// opcPartRec is the final state of one part.
type opcPartRec struct {
	p       opcPart
	line    int64
	removed bool
}

// opcMsg is the final state of one message.
type opcMsg struct {
	id      string
	info    *opcInfo
	line    int64
	parts   []*opcPartRec
	byID    map[string]*opcPartRec
	removed bool
}

// opcItem is a message or a session-level marker, in stream order.
type opcItem struct {
	msg    *opcMsg
	marker string // "compacted" or "error"
	text   string // error text
	name   string // error name
	line   int64
}

// opcSession collects one session's messages.
type opcSession struct {
	id, parentID string
	harness      string // "" is opencode (the SQLite store of Kilo CLI: kilo, opencode_db.go)
	items        []opcItem
	msgs         map[string]*opcMsg
}

func (s *opcSession) msg(id string) *opcMsg {
	if m, ok := s.msgs[id]; ok {
		return m
	}
	m := &opcMsg{id: strings.Clone(id), byID: map[string]*opcPartRec{}}
	s.msgs[m.id] = m
	s.items = append(s.items, opcItem{msg: m})
	return m
}

func (m *opcMsg) part(p opcPart, line int64) {
	if r, ok := m.byID[p.ID]; ok {
		r.p, r.line, r.removed = p, line, false
		return
	}
	r := &opcPartRec{p: p, line: line}
	m.byID[p.ID] = r
	m.parts = append(m.parts, r)
}

func (opencode) Import(f *File, r io.Reader) error {
	whole, err := readDocument(f, r)
	if err != nil {
		return err
	}
	data := whole.data
	if t := trimHead(data); len(t) > 0 && t[0] == '{' {
		switch opcStorageKind(headKeys(t, 64)) {
		case "message", "part":
			return nil // read with their session file
		case "session":
			return opcImportStorage(f, data)
		}
	}
	return opcImportEvents(f, data)
}

// opcStream collects the sessions of an event stream.
type opcStream struct {
	f        *File
	sessions map[string]*opcSession
	order    []string
	last     string // session of the latest event
}

func (st *opcStream) session(id string) *opcSession {
	if s, ok := st.sessions[id]; ok {
		st.last = id
		return s
	}
	s := &opcSession{id: strings.Clone(id), msgs: map[string]*opcMsg{}}
	st.sessions[s.id] = s
	st.order = append(st.order, s.id)
	st.last = s.id
	return s
}

func opcImportEvents(f *File, data []byte) error {
	recs, err := gaiRecords(f, data)
	if err != nil {
		return err
	}
	st := &opcStream{f: f, sessions: map[string]*opcSession{}}
	for _, rec := range recs {
		if rec.whole && rec.raw[0] == '[' {
			var elems []json.RawMessage
			if err := json.Unmarshal(rec.raw, &elems); err != nil {
				if err := f.Reject(rec.line, "invalid JSON array: "+clipErr(err), rec.raw); err != nil {
					return err
				}
				continue
			}
			for i, e := range elems {
				if err := st.event(int64(i+1), e); err != nil {
					return err
				}
			}
			continue
		}
		if err := st.event(rec.line, rec.raw); err != nil {
			return err
		}
	}
	for _, id := range st.order {
		s := st.sessions[id]
		if len(s.items) == 0 {
			continue // known only from session.updated
		}
		if err := opcConvert(f, s); err != nil {
			return err
		}
	}
	return nil
}

type opcEvent struct {
	Type       string          `json:"type"`
	Properties json.RawMessage `json:"properties"`
	Payload    *struct {
		Type       string          `json:"type"`
		Properties json.RawMessage `json:"properties"`
	} `json:"payload"`
}

type opcProps struct {
	Info      json.RawMessage `json:"info"`
	Part      json.RawMessage `json:"part"`
	SessionID string          `json:"sessionID"`
	MessageID string          `json:"messageID"`
	PartID    string          `json:"partID"`
	Field     string          `json:"field"`
	Delta     json.RawMessage `json:"delta"`
	Error     json.RawMessage `json:"error"`
}

// opcHandled are the event types the importer reads; others are skipped
// without decoding their properties.
var opcHandled = map[string]bool{
	"message.updated": true, "message.part.updated": true, "message.part.delta": true, "message.removed": true,
	"message.part.removed": true, "session.created": true, "session.updated": true, "session.compacted": true, "session.error": true,
}

func (st *opcStream) event(line int64, raw []byte) error {
	f := st.f
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return f.Reject(line, "event is not a JSON object", raw)
	}
	var ev opcEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		return f.Reject(line, "invalid event: "+clipErr(err), raw)
	}
	if ev.Type == "" && ev.Payload != nil {
		ev.Type, ev.Properties = ev.Payload.Type, ev.Payload.Properties
	}
	if ev.Type == "" {
		return f.Reject(line, "event without type", raw)
	}
	if !opcHandled[ev.Type] {
		return nil
	}
	var p opcProps
	if err := json.Unmarshal(ev.Properties, &p); err != nil {
		return f.Reject(line, "invalid "+ev.Type+" properties", raw)
	}
	switch ev.Type {
	case "message.updated":
		var info opcInfo
		if err := json.Unmarshal(p.Info, &info); err != nil || info.ID == "" || info.SessionID == "" {
			return f.Reject(line, "message.updated without a valid info (id, sessionID)", raw)
		}
		m := st.session(info.SessionID).msg(info.ID)
		m.info, m.line, m.removed = &info, line, false
	case "message.part.updated":
		var part opcPart
		if err := json.Unmarshal(p.Part, &part); err != nil || part.ID == "" || part.MessageID == "" || part.SessionID == "" {
			return f.Reject(line, "message.part.updated without a valid part (id, messageID, sessionID)", raw)
		}
		st.session(part.SessionID).msg(part.MessageID).part(part, line)
	case "message.part.delta":
		var delta string
		if p.SessionID == "" || p.MessageID == "" || p.PartID == "" || json.Unmarshal(p.Delta, &delta) != nil {
			return f.Reject(line, "message.part.delta without sessionID, messageID, partID or delta", raw)
		}
		m := st.session(p.SessionID).msg(p.MessageID)
		if r, ok := m.byID[p.PartID]; ok && (p.Field == "" || p.Field == "text") {
			r.p.Text += delta
			r.line = line
		}
	case "message.removed":
		if p.SessionID != "" && p.MessageID != "" {
			if s, ok := st.sessions[p.SessionID]; ok {
				if m, ok := s.msgs[p.MessageID]; ok {
					m.removed = true
				}
			}
		}
	case "message.part.removed":
		if s, ok := st.sessions[p.SessionID]; ok {
			if m, ok := s.msgs[p.MessageID]; ok {
				if r, ok := m.byID[p.PartID]; ok {
					r.removed = true
				}
			}
		}
	case "session.created", "session.updated":
		var info opcSessionInfo
		if err := json.Unmarshal(p.Info, &info); err != nil || info.ID == "" {
			return f.Reject(line, ev.Type+" without a valid info (id)", raw)
		}
		s := st.session(info.ID)
		if info.ParentID != "" {
			s.parentID = strings.Clone(info.ParentID)
		}
	case "session.compacted":
		if p.SessionID == "" {
			return f.Reject(line, "session.compacted without sessionID", raw)
		}
		s := st.session(p.SessionID)
		s.items = append(s.items, opcItem{marker: "compacted", line: line})
	case "session.error":
		id := p.SessionID
		if id == "" {
			id = st.last
		}
		if id == "" {
			return nil // an error before any session: nothing to attach it to
		}
		name, text := opcErrorText(p.Error)
		s := st.session(id)
		s.items = append(s.items, opcItem{marker: "error", name: name, text: text, line: line})
	}
	return nil
}

// opcErrorText reads an OpenCode error {name, data:{message}}.
func opcErrorText(raw json.RawMessage) (name, text string) {
	var e struct {
		Name string `json:"name"`
		Data struct {
			Message string `json:"message"`
		} `json:"data"`
		Message string `json:"message"`
	}
	if len(raw) == 0 || string(raw) == "null" {
		return "", ""
	}
	if json.Unmarshal(raw, &e) != nil {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return "", s
		}
		return "", string(raw)
	}
	msg := e.Data.Message
	if msg == "" {
		msg = e.Message
	}
	switch {
	case e.Name != "" && msg != "":
		return e.Name, e.Name + ": " + msg
	case e.Name != "":
		return e.Name, e.Name
	}
	return "", msg
}

// opcConv turns one session into a run.
type opcConv struct {
	b            *RunBuilder
	system       string // last system prompt added
	lastIn       *int64 // prompt tokens of the last measured call
	compOps      int    // compaction ops since the last session.compacted
	awaitSummary bool   // a compaction part waits for its summary message
	cost         float64
	hasCost      bool
	errName      string // the last error not followed by an assistant message
	errText      string
	hasErr       bool
	finish       string // finish of the last assistant message
	lastKind     schema.EventKind
}

func (c *opcConv) add(e schema.Event) error {
	c.lastKind = e.Kind
	return c.b.Add(e)
}

func opcConvert(f *File, s *opcSession) error {
	b, err := f.NewRun(s.id)
	if err != nil {
		return err
	}
	b.Run.Harness = firstNonEmpty(s.harness, "opencode")
	b.Run.ParentRunID = s.parentID
	c := &opcConv{b: b}
	for _, it := range s.items {
		switch {
		case it.msg != nil:
			if it.msg.removed {
				continue
			}
			if err := c.message(it.msg); err != nil {
				return err
			}
		case it.marker == "compacted":
			if c.compOps == 0 {
				if err := c.compaction("auto", "session.compacted", "session compacted", "system", it.line, nil); err != nil {
					return err
				}
			}
			c.compOps, c.awaitSummary = 0, false
		case it.marker == "error":
			c.errName, c.errText, c.hasErr = it.name, it.text, true
			if err := c.add(schema.Event{Kind: schema.KindError, Role: "system", Line: it.line, IsError: true, Text: it.text}); err != nil {
				return err
			}
		}
	}
	c.end()
	if c.hasCost {
		v := c.cost
		b.Run.CostUSD = &v
	}
	return b.Finish()
}

func (c *opcConv) end() {
	b := c.b
	switch {
	case c.hasErr:
		switch {
		case c.errName == "MessageAbortedError":
			b.SetEnd(schema.EndInterrupted, c.errText)
		case c.errName == "ContextOverflowError" || IsOverflowText(c.errText):
			b.SetEnd(schema.EndContextOverflow, c.errText)
		default:
			b.SetEnd(schema.EndError, c.errText)
		}
	case c.finish == "error":
		b.SetEnd(schema.EndError, "finish: error")
	case c.finish != "" && gaiFinishEnd(b, c.finish):
	default:
		r := &b.Run
		switch {
		case c.lastKind == schema.KindAssistant:
			r.EndReason, r.EndReasonDetail = schema.EndFinished, "last event is an assistant message"
		case c.lastKind == schema.KindToolCall:
			r.EndReason, r.EndReasonDetail = schema.EndInterrupted, "last tool call has no result"
		}
	}
}

// opcTime reads an OpenCode time (Unix milliseconds).
func opcTime(v any) *time.Time { return ParseTime(v) }

func (m *opcMsg) created() *time.Time {
	if m.info == nil {
		return nil
	}
	return opcTime(m.info.Time.Created)
}

// role returns the message's role, inferred from its parts when no info was
// seen.
func (m *opcMsg) role() string {
	if m.info != nil && m.info.Role != "" {
		return m.info.Role
	}
	for _, r := range m.parts {
		switch r.p.Type {
		case "step-start", "step-finish", "tool", "reasoning":
			return "assistant"
		}
	}
	return "user"
}

func (c *opcConv) message(m *opcMsg) error {
	if m.role() == "assistant" {
		return c.assistant(m)
	}
	ts := m.created()
	for _, r := range m.parts {
		if r.removed {
			continue
		}
		p := &r.p
		e := schema.Event{Kind: schema.KindUser, Role: "user", TS: ts, Line: r.line}
		switch p.Type {
		case "text":
			if p.Ignored {
				continue
			}
			e.Text = p.Text
		case "file":
			if p.Mime == "text/plain" || p.Mime == "application/x-directory" {
				continue // its content is in a synthetic text part
			}
			e.Text = strings.TrimSpace("[file " + p.Mime + " " + p.Filename + "]")
		case "subtask":
			e.Text = p.Prompt
		case "compaction":
			trigger := "auto"
			if p.Auto != nil && !*p.Auto {
				trigger = "manual"
			}
			detail := "compaction part"
			if p.Overflow {
				detail += " (context overflow)"
			}
			if err := c.compaction(trigger, detail, "compaction ("+trigger+")", "user", r.line, ts); err != nil {
				return err
			}
			continue
		default:
			continue // agent, snapshot, patch …: not shown to the model as such
		}
		if err := c.add(e); err != nil {
			return err
		}
	}
	return nil
}

func (c *opcConv) compaction(trigger, detail, text, role string, line int64, ts *time.Time) error {
	if err := c.add(schema.Event{Kind: schema.KindCompaction, Role: role, TS: ts, Line: line, Text: text}); err != nil {
		return err
	}
	op := schema.ContextOp{Op: schema.OpCompaction, Trigger: trigger, Detail: detail}
	if c.lastIn != nil {
		v := *c.lastIn
		op.TokensBefore = &v
	}
	c.compOps++
	c.awaitSummary = true
	return c.b.Op(op)
}

// opcSystemText reads the system prompt older versions log on assistant
// messages (a list of strings).
func opcSystemText(raw json.RawMessage) string {
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return strings.Join(list, "\n")
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return ""
}

func (c *opcConv) assistant(m *opcMsg) error {
	b := c.b
	info := m.info
	if info == nil {
		info = &opcInfo{}
	}
	model := info.ModelID
	if model == "" && len(info.Model) > 0 {
		var mm struct {
			ModelID string `json:"modelID"`
		}
		if json.Unmarshal(info.Model, &mm) == nil {
			model = mm.ModelID
		}
	}
	ts := m.created()
	if sys := opcSystemText(info.System); sys != "" && sys != c.system {
		c.system = sys
		if err := c.add(schema.Event{Kind: schema.KindSystem, Role: "system", TS: ts, Line: m.line, Text: sys}); err != nil {
			return err
		}
	}
	var isSummary bool
	_ = json.Unmarshal(info.Summary, &isSummary)
	if (isSummary || info.Mode == "compaction") && !c.awaitSummary {
		if err := c.compaction("auto", "summary message", "compaction summary", "system", m.line, ts); err != nil {
			return err
		}
	}
	c.awaitSummary = false
	c.hasErr = false // an assistant message after an error: the run went on
	steps := false
	for _, r := range m.parts {
		if t := r.p.Type; !r.removed && (t == "step-start" || t == "step-finish") {
			steps = true
		}
	}
	started, stepUsage, stepCost := false, false, false
	var results []schema.Event
	begin := func() {
		if started {
			return
		}
		if steps {
			b.NewCall()
		} else {
			b.Call("msg:" + m.id)
		}
		b.NoteModel(model)
		started = true
	}
	flush := func() error {
		for _, e := range results {
			if err := c.add(e); err != nil {
				return err
			}
		}
		results = results[:0]
		return nil
	}
	finish := info.Finish
	for _, r := range m.parts {
		if r.removed {
			continue
		}
		p := &r.p
		pts := opcTime(p.Time.Start)
		if pts == nil {
			pts = ts
		}
		switch p.Type {
		case "step-start":
			if err := flush(); err != nil {
				return err
			}
			started = false
			begin()
		case "step-finish":
			begin()
			if c.usage(p.Tokens, opcTime(info.Time.Completed), model, m.id) {
				stepUsage = true
			}
			if p.Cost != nil {
				c.addCost(*p.Cost)
				stepCost = true
			}
			if p.Reason != "" && info.Finish == "" {
				finish = p.Reason
			}
			if err := flush(); err != nil {
				return err
			}
			started = false
		case "text":
			if p.Ignored {
				continue
			}
			begin()
			if err := c.add(schema.Event{Kind: schema.KindAssistant, Role: "assistant", TS: pts, Line: r.line, Text: p.Text}); err != nil {
				return err
			}
		case "reasoning":
			begin()
			if err := c.add(schema.Event{Kind: schema.KindReasoning, Role: "assistant", TS: pts, Line: r.line, Text: p.Text}); err != nil {
				return err
			}
		case "tool":
			begin()
			res, err := c.tool(p, r.line, ts)
			if err != nil {
				return err
			}
			if res != nil {
				results = append(results, *res)
			}
		case "retry":
			_, text := opcErrorText(p.Error)
			if a := strings.TrimSpace(string(p.Attempt)); a != "" {
				text = "retry " + a + ": " + text
			}
			if err := c.add(schema.Event{Kind: schema.KindError, Role: "system", TS: pts, Line: r.line, IsError: true, Text: text}); err != nil {
				return err
			}
		case "compaction":
			if err := c.compaction("auto", "compaction part", "compaction", "assistant", r.line, pts); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	if !stepUsage && info.Tokens != nil && c.usageLogged(info.Tokens) {
		begin()
		c.usage(info.Tokens, opcTime(info.Time.Completed), model, m.id)
	}
	if !stepCost && info.Cost != nil {
		c.addCost(*info.Cost)
	}
	if name, text := opcErrorText(info.Error); name != "" || text != "" {
		c.errName, c.errText, c.hasErr = name, text, true
		if err := c.add(schema.Event{Kind: schema.KindError, Role: "assistant", TS: opcTime(info.Time.Completed), Line: m.line, IsError: true, Text: text}); err != nil {
			return err
		}
	}
	c.finish = finish
	return nil
}

func (c *opcConv) addCost(v float64) {
	if v > 0 && v < 1e9 {
		c.cost += v
		c.hasCost = true
	}
}

func opcCount(v float64) int64 {
	if v != v || v < 0 || v >= gaiMaxTokens {
		return 0
	}
	return int64(v)
}

func (c *opcConv) usageLogged(t *opcTokens) bool {
	return opcCount(t.Input)+opcCount(t.Cache.Read)+opcCount(t.Cache.Write)+opcCount(t.Output) > 0
}

// usage records a call's tokens; all-zero tokens (a placeholder) are not
// usage. It reports whether it recorded some.
func (c *opcConv) usage(t *opcTokens, ts *time.Time, model, id string) bool {
	if t == nil || !c.usageLogged(t) {
		return false
	}
	cr, cw := opcCount(t.Cache.Read), opcCount(t.Cache.Write)
	in := opcCount(t.Input) + cr + cw
	c.b.SetUsage(schema.Usage{TS: ts, Model: model, RequestID: id, InputTokens: in, OutputTokens: opcCount(t.Output),
		CacheReadTokens: cr, CacheWriteTokens: cw, ReasoningTokens: opcCount(t.Reasoning)})
	c.lastIn = &in
	return true
}

// tool adds a tool part's call and returns its result event (nil while the
// tool is pending or running).
func (c *opcConv) tool(p *opcPart, line int64, msgTS *time.Time) (*schema.Event, error) {
	st := p.State
	if st == nil {
		st = &opcToolState{}
	}
	callID := p.CallID
	if callID == "" {
		callID = p.ID
	}
	start := opcTime(st.Time.Start)
	if start == nil {
		start = msgTS
	}
	args := ""
	if a := bytes.TrimSpace(st.Input); len(a) > 0 && string(a) != "null" {
		args = string(a)
	}
	if err := c.add(schema.Event{Kind: schema.KindToolCall, Role: "assistant", TS: start, Line: line, ToolName: p.Tool, CallID: callID, Args: args}); err != nil {
		return nil, err
	}
	res := schema.Event{Kind: schema.KindToolResult, Role: "tool", TS: opcTime(st.Time.End), Line: line, ToolName: p.Tool, CallID: callID}
	if res.TS == nil {
		res.TS = start
	}
	switch st.Status {
	case "completed":
		res.Text = opcRawText(st.Output)
	case "error":
		res.Text, res.IsError = opcRawText(st.Error), true
	default:
		return nil, nil
	}
	var meta struct {
		Exit json.RawMessage `json:"exit"`
	}
	if json.Unmarshal(st.Metadata, &meta) == nil && len(meta.Exit) > 0 {
		if n, err := strconv.ParseInt(string(meta.Exit), 10, 64); err == nil {
			res.ExitCode = &n
		}
	}
	return &res, nil
}

// opcRawText is a JSON string's value, or other JSON as it is.
func opcRawText(raw json.RawMessage) string {
	s, raw, ok := stringValue(raw)
	if ok {
		return s
	}
	return CanonicalJSON(raw)
}
