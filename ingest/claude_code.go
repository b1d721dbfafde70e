package ingest

import (
	"bytes"
	"io"
	"strings"
	"time"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// claudeCode reads Claude Code session JSONL (~/.claude/projects/<cwd>/<session>.jsonl
// and <session>/subagents/agent-<id>.jsonl).
//
// Steps per line:
//  1. Decode the record; records that are not objects, lack a type (and a
//     message to infer it from), or whose message is not an object are rejected.
//  2. Route it to its run: sessionId, plus "/agent-<agentId>" for sub-agent
//     (sidechain) records, whose parent run is the session. Records without a
//     session (legacy summaries, snapshots) go to the file's current run.
//  3. assistant: one API response is split over several lines sharing
//     message.id; each id is one model call (RunBuilder.Call). Its usage is
//     counted once: the repeated input/cache fields from the latest line, and
//     output_tokens as the maximum over the lines (non-final lines carry a
//     streaming placeholder). Synthetic messages (model "<synthetic>") are not
//     model calls: API errors become error events.
//  4. user: text blocks → user events, tool_result blocks → tool_result events;
//     isCompactSummary → a compaction event with a summary op.
//  5. system compact_boundary → a compaction event with a compaction op
//     (tokens_before = compactMetadata.preTokens); legacy "summary" lines →
//     a context_op event with a summary op.
//  6. Records the model never saw or that hold only session metadata are
//     skipped: progress, snapshots, queue operations, UI-only system
//     records, and Claude Code 2.1's titles, modes, worktree state, links
//     and attachments (ccMetaTypes; the schema has no field for a title,
//     a mode or a worktree, and an attachment's reminder is in the logged
//     usage of the call that follows). A record of another type is not
//     read: each such type is named once per file, with its count, at its
//     first line (unreadTypes), not rejected line by line.
type claudeCode struct{ formatInfo }

var claudeTypes = map[string]bool{"user": true, "assistant": true, "system": true, "summary": true, "progress": true, "file-history-snapshot": true, "queue-operation": true}

// ccMetaTypes are the record types Claude Code writes beside the
// conversation that hold nothing trajmine stores (issue 30.1: 2.1.x added
// most of them). Types that change the context without being read yet
// (content-replacement, marble-origami-*) are not listed, so that a file
// holding them says so.
var ccMetaTypes = map[string]bool{
	"progress": true, "file-history-snapshot": true, "queue-operation": true,
	"attachment": true, "worktree-state": true, "permission-mode": true, "mode": true,
	"agent-name": true, "agent-color": true, "agent-setting": true, "custom-title": true,
	"ai-title": true, "tag": true, "last-prompt": true, "frame-link": true, "pr-link": true,
	"started": true, "result": true, "relocated": true, "bridge-session": true,
	"atis-latch": true, "isolation-latch": true, "attribution-snapshot": true,
	"speculation-accept": true, "fork-context-ref": true,
}

func (claudeCode) Detect(name string, head []byte) bool {
	return detectJSONL(head, 30, func(r *struct {
		Type      string          `json:"type"`
		SessionID string          `json:"sessionId"`
		LeafUUID  string          `json:"leafUuid"`
		MessageID string          `json:"messageId"`
		Message   json.RawMessage `json:"message"`
		Payload   json.RawMessage `json:"payload"`
		Timestamp json.RawMessage `json:"timestamp"`
		// Qwen Code's envelope copies Claude Code's, around Gemini-style
		// messages {role, parts} and systemPayload records (qwen-code)
		SystemPayload json.RawMessage `json:"systemPayload"`
	}) (bool, bool) {
		if r.Payload != nil {
			return false, false
		}
		if len(r.Timestamp) > 0 && isNumberKind(r.Timestamp[0]) {
			// Claude Code writes ISO times; epoch milliseconds with a
			// camelCase sessionId are Droid exec's stream-json (issue 30.5)
			return false, true
		}
		if r.SystemPayload != nil {
			return false, true
		}
		var m struct {
			Parts json.RawMessage `json:"parts"`
		}
		if len(r.Message) > 0 && r.Message[0] == '{' && json.Unmarshal(r.Message, &m) == nil && m.Parts != nil {
			return false, true
		}
		if claudeTypes[r.Type] && (r.SessionID != "" || r.LeafUUID != "" || r.MessageID != "") {
			return true, true
		}
		ok := r.Type == "" && r.SessionID != "" && len(r.Message) > 0 && r.Message[0] == '{'
		return ok, ok
	})
}

type ccRecord struct {
	Type              string          `json:"type"`
	Subtype           string          `json:"subtype"`
	SessionID         string          `json:"sessionId"`
	AgentID           string          `json:"agentId"`
	IsSidechain       bool            `json:"isSidechain"`
	Timestamp         string          `json:"timestamp"`
	Message           json.RawMessage `json:"message"`
	RequestID         string          `json:"requestId"`
	IsCompactSummary  bool            `json:"isCompactSummary"`
	IsAPIErrorMessage bool            `json:"isApiErrorMessage"`
	Content           json.RawMessage `json:"content"`
	CompactMetadata   *struct {
		Trigger   string `json:"trigger"`
		PreTokens *int64 `json:"preTokens"`
	} `json:"compactMetadata"`
	Summary  string   `json:"summary"`
	LeafUUID string   `json:"leafUuid"`
	CostUSD  *float64 `json:"costUSD"`
}

type ccMessage struct {
	ID         string            `json:"id"`
	Role       string            `json:"role"`
	Model      string            `json:"model"`
	Content    json.RawMessage   `json:"content"`
	StopReason string            `json:"stop_reason"`
	Usage      *ccUsage          `json:"usage"`
	Blocks     []json.RawMessage `json:"-"`
}

// ccUsage is an Anthropic Messages usage object (Claude Code, its
// stream-json, droid exec).
type ccUsage struct {
	InputTokens   int64 `json:"input_tokens"`
	OutputTokens  int64 `json:"output_tokens"`
	CacheCreation int64 `json:"cache_creation_input_tokens"`
	CacheRead     int64 `json:"cache_read_input_tokens"`
}

// usage is u as schema.Usage counts it: Anthropic's input_tokens leave out
// the prompt's cache reads and writes, schema's input includes them.
func (u *ccUsage) usage() schema.Usage {
	return schema.Usage{InputTokens: u.InputTokens + u.CacheRead + u.CacheCreation, OutputTokens: u.OutputTokens,
		CacheReadTokens: u.CacheRead, CacheWriteTokens: u.CacheCreation}
}

type ccBlock struct {
	tbBlock
	resultText string // flattened Content of a tool_result, filled by parseBlocks
	// valid has a bit set for each of Text, Thinking and resultText that
	// the one-pass decode knows is valid UTF-8 (spanStr): RunBuilder.add
	// does not check it again
	valid uint8
}

// The bits of ccBlock.valid.
const (
	validText uint8 = 1 << iota
	validThinking
	validResult
)

// ccRun is the per-run state of the Claude Code importer.
type ccRun struct {
	b          *RunBuilder
	lastStop   string
	lastKind   schema.EventKind
	cost       float64
	hasCost    bool
	overflowed bool
	// callIDs are the tool_use ids the run has: a block that repeats one is
	// a copy (iFlow CLI, whose layout copies Claude Code's, repeats the
	// previous line's tool_use blocks on the next assistant line)
	callIDs map[string]bool
}

func (claudeCode) Import(f *File, r io.Reader) error {
	runs := newCCRuns(f)
	type pendingRec struct {
		line int64
		rec  ccRecord
	}
	var pending []pendingRec
	var unread unreadTypes
	err := lineReader[ccLine]{decode: decodeCCLine, parallel: true}.read(f, r, func(line int64, raw []byte, d *ccLine) error {
		if d.skip {
			if d.unread {
				unread.add(line, d.rec.Type, raw)
			}
			return nil
		}
		rec := &d.rec
		if rec.SessionID == "" && runs.cur == nil && rec.Type == "summary" {
			// legacy summaries open a file before any session line: they
			// belong to the session that follows
			pending = append(pending, pendingRec{line, ccRecord{Summary: strings.Clone(rec.Summary), Timestamp: strings.Clone(rec.Timestamp)}})
			return nil
		}
		cr, err := runs.get(rec)
		if err != nil {
			return err
		}
		if runs.cur == nil {
			for _, p := range pending {
				if err := cr.summary(p.line, &p.rec); err != nil {
					return err
				}
			}
			pending = nil
		}
		runs.cur = cr
		return cr.record(f, line, d, raw)
	})
	if err != nil {
		return err
	}
	if err := unread.flush(f); err != nil {
		return err
	}
	if len(pending) > 0 { // a file of summaries only
		cr, err := runs.get(&pending[0].rec)
		if err != nil {
			return err
		}
		for _, p := range pending {
			if err := cr.summary(p.line, &p.rec); err != nil {
				return err
			}
		}
	}
	return runs.finish()
}

// ccRuns are the runs of one Claude Code session file or web export by
// session key (a sub-agent's is <session>/agent-<id>), in the order first
// seen.
type ccRuns struct {
	f     *File
	stem  string // the key of records without a sessionId before any run
	byKey map[string]*ccRun
	order []string
	// cur is the run that records without a sessionId belong to, once the
	// caller has set one
	cur *ccRun
}

func newCCRuns(f *File) *ccRuns {
	return &ccRuns{f: f, stem: fileStem(f.Path()), byKey: map[string]*ccRun{}}
}

// get returns rec's run, making it on first sight. A sub-agent's run names
// its parent session's run as parent when the file holds it, else the
// session id.
func (rs *ccRuns) get(rec *ccRecord) (*ccRun, error) {
	key := rec.SessionID
	if key == "" {
		if rs.cur != nil {
			return rs.cur, nil
		}
		key = rs.stem
	}
	parent := ""
	if rec.AgentID != "" && rec.IsSidechain {
		parent = key
		key += "/agent-" + rec.AgentID
	}
	if cr, ok := rs.byKey[key]; ok {
		return cr, nil
	}
	key, parent = strings.Clone(key), strings.Clone(parent)
	b, err := rs.f.NewRun(key)
	if err != nil {
		return nil, err
	}
	b.Run.Harness = "claude-code"
	b.Run.ParentRunID = parent
	if p, ok := rs.byKey[parent]; ok {
		b.Run.ParentRunID = p.b.ID()
	}
	cr := &ccRun{b: b}
	rs.byKey[key] = cr
	rs.order = append(rs.order, key)
	return cr, nil
}

// finish finishes the runs in the order first seen.
func (rs *ccRuns) finish() error {
	for _, k := range rs.order {
		if err := rs.byKey[k].finish(); err != nil {
			return err
		}
	}
	return nil
}

// record imports one decoded line (a web export's logline) into cr.
func (cr *ccRun) record(f *File, line int64, d *ccLine, raw []byte) error {
	rec, msg := &d.rec, &d.msg
	b := cr.b
	ts := ParseTime(rec.Timestamp)
	if rec.CostUSD != nil {
		cr.cost += *rec.CostUSD
		cr.hasCost = true
	}
	switch rec.Type {
	case "assistant":
		return cr.assistant(f, line, ts, rec, msg, d, raw)
	case "user":
		return cr.user(f, line, ts, rec, msg, d, raw)
	case "system":
		switch rec.Subtype {
		case "compact_boundary":
			text := ContentText(rec.Content)
			if err := b.Add(schema.Event{Kind: schema.KindCompaction, Role: "system", TS: ts, Line: line, Text: text}); err != nil {
				return err
			}
			op := schema.ContextOp{Op: schema.OpCompaction, Trigger: "auto", Detail: text}
			if m := rec.CompactMetadata; m != nil {
				if m.Trigger != "" {
					op.Trigger = m.Trigger
				}
				op.TokensBefore = m.PreTokens
			}
			return b.Op(op)
		case "api_error":
			text := ContentText(rec.Content)
			cr.noteError(text)
			return b.Add(schema.Event{Kind: schema.KindError, Role: "system", TS: ts, Line: line, IsError: true, Text: text})
		}
		return nil // UI-only: turn_duration, stop_hook_summary, local_command, …
	case "summary":
		return cr.summary(line, rec)
	}
	return nil
}

func (cr *ccRun) assistant(f *File, line int64, ts *time.Time, rec *ccRecord, msg *ccMessage, d *ccLine, raw []byte) error {
	b := cr.b
	blocks, text := d.blocks, d.text
	if msg.Model == "<synthetic>" || rec.IsAPIErrorMessage {
		kind := schema.KindSystem
		if rec.IsAPIErrorMessage {
			kind = schema.KindError
			cr.noteError(text)
		}
		return b.add(schema.Event{Kind: kind, Role: "assistant", TS: ts, Line: line, IsError: rec.IsAPIErrorMessage, Text: text}, d.textValid)
	}
	b.Call(msg.ID)
	b.NoteModel(msg.Model)
	if msg.Usage != nil {
		u := msg.Usage.usage()
		u.TS, u.Model, u.RequestID = ts, msg.Model, msg.ID
		if prev := b.Usage(b.callIdx); prev != nil && prev.RequestID == msg.ID && prev.OutputTokens > u.OutputTokens {
			u.OutputTokens = prev.OutputTokens
		}
		b.SetUsage(u)
	}
	if msg.StopReason != "" {
		cr.lastStop = strings.Clone(msg.StopReason)
	}
	for _, blk := range blocks {
		e := schema.Event{Role: "assistant", TS: ts, Line: line}
		var valid bool // e.Text is known to be valid UTF-8
		switch blk.Type {
		case "text":
			e.Kind, e.Text, valid = schema.KindAssistant, blk.Text, blk.valid&validText != 0
		case "thinking":
			e.Kind, e.Text, valid = schema.KindReasoning, blk.Thinking, blk.valid&validThinking != 0
		case "redacted_thinking":
			e.Kind = schema.KindReasoning
		case "tool_use", "server_tool_use":
			if blk.ID != "" && cr.callIDs[blk.ID] {
				continue // the same call again, not a new one
			}
			if blk.ID != "" {
				if cr.callIDs == nil {
					cr.callIDs = map[string]bool{}
				}
				cr.callIDs[strings.Clone(blk.ID)] = true
			}
			e.Kind, e.ToolName, e.CallID, e.Args = schema.KindToolCall, blk.Name, blk.ID, string(blk.Input)
		default:
			e.Kind, e.Text, valid = schema.KindAssistant, blk.Text, blk.valid&validText != 0
		}
		cr.lastKind = e.Kind
		if err := b.add(e, valid); err != nil {
			return err
		}
	}
	return nil
}

func (cr *ccRun) user(f *File, line int64, ts *time.Time, rec *ccRecord, msg *ccMessage, d *ccLine, raw []byte) error {
	b := cr.b
	blocks, text := d.blocks, d.text
	if rec.IsCompactSummary {
		if err := b.add(schema.Event{Kind: schema.KindCompaction, Role: "user", TS: ts, Line: line, Text: text}, d.textValid); err != nil {
			return err
		}
		return b.Op(schema.ContextOp{Op: schema.OpSummary, Trigger: "compact-summary"})
	}
	if blocks == nil { // plain string content
		cr.noteUser(text)
		cr.lastKind = schema.KindUser
		return b.add(schema.Event{Kind: schema.KindUser, Role: "user", TS: ts, Line: line, Text: text}, d.textValid)
	}
	for _, blk := range blocks {
		e := schema.Event{Role: "user", TS: ts, Line: line}
		var valid bool // e.Text is known to be valid UTF-8
		switch blk.Type {
		case "tool_result":
			e.Kind, e.CallID, e.IsError, e.Text = schema.KindToolResult, blk.ToolUseID, blk.IsError, blk.resultText
			valid = blk.valid&validResult != 0
		case "text", "":
			e.Kind, e.Text, valid = schema.KindUser, blk.Text, blk.valid&validText != 0
			cr.noteUser(blk.Text)
		default:
			e.Kind, e.Text = schema.KindUser, "["+blk.Type+"]"
		}
		cr.lastKind = e.Kind
		if err := b.add(e, valid); err != nil {
			return err
		}
	}
	return nil
}

// summary records a legacy summary line: a context_op event carrying a
// summary op (Claude Code wrote these for earlier branches of a session).
func (cr *ccRun) summary(line int64, rec *ccRecord) error {
	b := cr.b
	if err := b.Add(schema.Event{Kind: schema.KindContextOp, Role: "system", TS: ParseTime(rec.Timestamp), Line: line, Text: rec.Summary}); err != nil {
		return err
	}
	return b.Op(schema.ContextOp{Op: schema.OpSummary, Trigger: "legacy-summary", Detail: rec.Summary})
}

// IsOverflowText reports whether an error text says the prompt exceeded the
// window (see schema.IsOverflowText).
func IsOverflowText(s string) bool { return schema.IsOverflowText(s) }

func (cr *ccRun) noteError(text string) {
	if IsOverflowText(text) {
		cr.overflowed = true
		cr.b.SetEnd(schema.EndContextOverflow, strings.TrimSpace(text))
	}
}

func (cr *ccRun) noteUser(text string) {
	if strings.HasPrefix(strings.TrimSpace(text), "[Request interrupted by user") {
		cr.b.SetEnd(schema.EndInterrupted, strings.TrimSpace(text))
	} else if !cr.overflowed && cr.b.Run.EndReasonSource == schema.SourceExplicit {
		// the user carried on after an interruption: the run did not end there
		cr.b.ClearEnd()
	}
}

// finishEnd infers an end reason when the log gave none: the log ends on an
// assistant reply without a tool call (and not cut by max_tokens) → finished;
// it stops on a tool call that got no result → interrupted.
func (cr *ccRun) finishEnd() {
	r := &cr.b.Run
	if r.EndReasonSource == schema.SourceExplicit {
		return
	}
	switch {
	case cr.lastKind == schema.KindAssistant && cr.lastStop == "end_turn":
		r.EndReason, r.EndReasonSource, r.EndReasonDetail = schema.EndFinished, schema.SourceInferred, "last response stop_reason end_turn"
	case cr.lastKind == schema.KindAssistant && cr.lastStop != "max_tokens":
		r.EndReason, r.EndReasonSource, r.EndReasonDetail = schema.EndFinished, schema.SourceInferred, "log ends on an assistant reply without a tool call"
	case cr.lastKind == schema.KindToolCall:
		r.EndReason, r.EndReasonSource, r.EndReasonDetail = schema.EndInterrupted, schema.SourceInferred, "log ends on a tool call without result"
	}
}

// finish ends the run: its end reason (finishEnd), its summed cost.
func (cr *ccRun) finish() error {
	cr.finishEnd()
	if cr.hasCost {
		c := cr.cost
		cr.b.Run.CostUSD = &c
	}
	return cr.b.Finish()
}

// ccLine is one decoded line: the pure part of the import, done in parallel
// by lineReader before the line is handled in order.
type ccLine struct {
	rec    ccRecord
	msg    ccMessage
	blocks []ccBlock // nil when the content is a plain string
	text   string
	// textValid: text is known to be valid UTF-8 (the one-pass decode's
	// spanStr made it, or all the texts it joins)
	textValid bool
	skip      bool   // a record the model never saw (progress, snapshots)
	unread    bool   // skipped as a type not read (unreadTypes)
	reject    string // why the line is malformed
}

// decodeCCLine decodes and checks one line (step 1 of the import): in one
// pass when the line is valid JSON of the usual shape (decodeCCLineFast),
// else in steps (decodeCCLineSteps), which words every reject.
func decodeCCLine(line int64, raw []byte, d *ccLine) string {
	if decodeCCLineFast(raw, d) {
		return ""
	}
	*d = ccLine{}
	return decodeCCLineSteps(line, raw, d)
}

// decodeCCLineSteps decodes a line step by step: the record, its message,
// its content, then every block, each with the JSON decoder. It is the
// reference decodeCCLineFast is checked against (FuzzDecodeCCLineEquivalent).
func decodeCCLineSteps(_ int64, raw []byte, d *ccLine) string {
	rec, msg := &d.rec, &d.msg
	if d.reject = decodeRecord(raw, rec); d.reject != "" {
		return d.reject
	}
	if rec.Message != nil && rec.Message[0] != '{' && string(rec.Message) != "null" {
		d.reject = "message is not an object"
		return d.reject
	}
	if len(rec.Message) > 0 && rec.Message[0] == '{' {
		if err := json.Unmarshal(rec.Message, msg); err != nil {
			d.reject = "invalid message: " + clipErr(err)
			return d.reject
		}
	}
	if rec.Type == "" && msg.Role != "" {
		rec.Type = msg.Role // usage-only exports omit the record type
	}
	if ccMetaTypes[rec.Type] {
		d.skip = true
		return d.reject
	}
	switch rec.Type {
	case "user", "assistant":
		if rec.Message == nil {
			d.reject = rec.Type + " record without message"
			return d.reject
		}
		if msg.Content == nil && (rec.Type == "user" || msg.Usage == nil) {
			d.reject = rec.Type + " message without content"
			return d.reject
		}
		var err error
		if d.blocks, d.text, err = parseBlocks(msg.Content); err != nil {
			d.reject = "invalid message content: " + clipErr(err)
		}
	case "system", "summary":
	case "":
		d.reject = "record without type"
	default:
		d.skip, d.unread = true, true
	}
	return d.reject
}

// parseBlocks decodes Anthropic content: a string (blocks nil, text set) or
// a list of blocks (strings in the list become text blocks).
func parseBlocks(raw json.RawMessage) ([]ccBlock, string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return []ccBlock{}, "", nil
	}
	if raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return nil, s, err
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, "", err
	}
	out := make([]ccBlock, 0, len(items))
	texts := make([]string, 0, len(items))
	for _, it := range items {
		var blk ccBlock
		if len(it) > 0 && it[0] == '"' {
			var s string
			if err := json.Unmarshal(it, &s); err != nil {
				return nil, "", err
			}
			blk = ccBlock{tbBlock: tbBlock{Type: "text", Text: s}}
		} else if err := json.Unmarshal(it, &blk); err != nil {
			return nil, "", err
		}
		if blk.Type == "tool_result" {
			blk.resultText = ContentText(blk.Content)
		}
		out = append(out, blk)
		if blk.Text != "" {
			texts = append(texts, blk.Text)
		}
	}
	return out, strings.Join(texts, "\n"), nil
}
