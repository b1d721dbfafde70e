package ingest

import (
	"bytes"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// piCodingAgent reads pi coding-agent sessions (badlogic/pi-mono,
// ~/.pi/agent/sessions/--<cwd>--/<ts>_<uuid>.jsonl): one JSONL entry per line.
//
// Steps per line:
//  1. Decode the entry; lines that are not JSON objects, lack a type, or
//     whose message is not an object are rejected.
//  2. session: the header opens the run (run id = its id; a second header
//     starts another run).
//  3. message: user / custom → user events; bashExecution (a shell command
//     the user ran with "!", whose output goes into the context) → a user
//     event with the exit code; toolResult → a tool_result linked by
//     toolCallId; assistant → one model call per message entry with
//     thinking / text / toolCall blocks and its usage (an entry repeating
//     the responseId of the entry just before it, with nothing logged in
//     between, continues that call; the same responseId after other
//     entries is another call: issue 30.8's two calls either side of a
//     compaction). pi's usage.input excludes cache reads and writes ("totalTokens"
//     = input + output + cacheRead + cacheWrite), so InputTokens is their sum.
//     An aborted or failed request that produced nothing (empty content, zero
//     usage) is not a model call: it becomes an error event.
//  4. compaction {summary, firstKeptEntryIndex|firstKeptEntryId, tokensBefore}
//     → a compaction event carrying a compaction op with tokens_before;
//     branch_summary → a context_op event with a summary op.
//  5. model_change, thinking_level_change, custom, label and session_info
//     entries are UI or harness state the model never saw: skipped.
//
// The end reason comes from the last assistant message: stopReason aborted
// → interrupted, error → error (context_overflow when the message says so),
// both explicit; otherwise it is inferred from how the log ends. Entries of v3
// files form a tree (id/parentId); they are imported in file order.
type piCodingAgent struct{ formatInfo }

// piRoles are the roles of pi "AgentMessage" values.
var piRoles = map[string]bool{"user": true, "assistant": true, "toolResult": true, "bashExecution": true,
	"custom": true, "branchSummary": true, "compactionSummary": true, "hookMessage": true}

// Detect claims JSONL whose first entries are pi entries: a session header
// {type:"session", id, cwd|provider|modelId|version}, or message entries
// whose message has a pi role (toolResult, bashExecution …). A file with
// Factory Droid's session_start header is not pi's (factory-droid).
func (piCodingAgent) Detect(name string, head []byte) bool {
	return detectJSONL(head, 30, func(r *struct {
		Type     string          `json:"type"`
		ID       string          `json:"id"`
		Cwd      *string         `json:"cwd"`
		Provider *string         `json:"provider"`
		ModelID  *string         `json:"modelId"`
		Version  json.RawMessage `json:"version"`
		Message  *struct {
			Role string `json:"role"`
		} `json:"message"`
		Summary      *string         `json:"summary"`
		TokensBefore json.RawMessage `json:"tokensBefore"`
	}) (bool, bool) {
		var ok bool
		switch r.Type {
		case "session_start": // Factory Droid's session header: its message lines look like pi's
			return false, true
		case "session":
			ok = r.ID != "" && (r.Cwd != nil || r.Provider != nil || r.ModelID != nil || r.Version != nil)
		case "message":
			ok = r.Message != nil && piRoles[r.Message.Role]
		case "compaction":
			ok = r.Summary != nil && r.TokensBefore != nil
		}
		return ok, ok
	})
}

// piEntry is one line of a pi session file.
type piEntry struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Timestamp any             `json:"timestamp"`
	Cwd       string          `json:"cwd"`
	Provider  string          `json:"provider"`
	ModelID   string          `json:"modelId"`
	Message   json.RawMessage `json:"message"`
	// compaction and branch_summary
	Summary             string `json:"summary"`
	FirstKeptEntryIndex *int64 `json:"firstKeptEntryIndex"`
	FirstKeptEntryID    string `json:"firstKeptEntryId"`
	TokensBefore        *int64 `json:"tokensBefore"`
	FromHook            bool   `json:"fromHook"`
	FromID              string `json:"fromId"`
	// custom_message
	CustomType string          `json:"customType"`
	Content    json.RawMessage `json:"content"`
}

// piMessage is a pi "AgentMessage" (also found in OpenClaw telemetry).
type piMessage struct {
	Role         string          `json:"role"`
	Content      json.RawMessage `json:"content"`
	Timestamp    any             `json:"timestamp"`
	Model        string          `json:"model"`
	ResponseID   string          `json:"responseId"`
	Usage        *piUsage        `json:"usage"`
	StopReason   string          `json:"stopReason"`
	ErrorMessage string          `json:"errorMessage"`
	ToolCallID   string          `json:"toolCallId"`
	ToolName     string          `json:"toolName"`
	IsError      bool            `json:"isError"`
	// bashExecution
	Command            string `json:"command"`
	Output             string `json:"output"`
	ExitCode           *int64 `json:"exitCode"`
	Cancelled          bool   `json:"cancelled"`
	ExcludeFromContext bool   `json:"excludeFromContext"`
	// branchSummary / compactionSummary
	Summary      string `json:"summary"`
	TokensBefore *int64 `json:"tokensBefore"`
}

type piUsage struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cacheRead"`
	CacheWrite int64 `json:"cacheWrite"`
	Cost       *struct {
		Total float64 `json:"total"`
	} `json:"cost"`
}

type piBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// piLine is one decoded line (the pure part, decoded in parallel by lineReader).
type piLine struct {
	e      piEntry
	m      piMessage
	blocks []piBlock // assistant content blocks
	text   string    // flattened content of other messages
	reject string
}

func decodePiLine(_ int64, raw []byte, d *piLine) string {
	if d.reject = decodeRecord(raw, &d.e); d.reject != "" {
		return d.reject
	}
	switch d.e.Type {
	case "":
		d.reject = "record without type"
	case "message":
		m := bytes.TrimSpace(d.e.Message)
		if len(m) == 0 || m[0] != '{' {
			d.reject = "message entry without a message object"
			return d.reject
		}
		if reason := piDecodeMessage(m, &d.m, &d.blocks, &d.text); reason != "" {
			d.reject = reason
		}
	case "custom_message":
		d.text = ContentText(d.e.Content)
	}
	return d.reject
}

// piDecodeMessage decodes one "AgentMessage" and its content; it returns why
// the message is malformed, or "".
func piDecodeMessage(raw []byte, m *piMessage, blocks *[]piBlock, text *string) string {
	if err := json.Unmarshal(raw, m); err != nil {
		return "invalid message: " + clipErr(err)
	}
	if m.Role == "" {
		return "message without role"
	}
	if m.Role == "assistant" {
		c := bytes.TrimSpace(m.Content)
		if len(c) > 0 && c[0] == '[' {
			if err := json.Unmarshal(c, blocks); err != nil {
				return "invalid assistant content: " + clipErr(err)
			}
		} else if t := ContentText(c); t != "" {
			*blocks = []piBlock{{Type: "text", Text: t}}
		}
		return ""
	}
	*text = ContentText(m.Content)
	return ""
}

func (piCodingAgent) Import(f *File, r io.Reader) error {
	var conv *piConv
	open := func(id string) error {
		if conv != nil {
			if err := conv.finish(); err != nil {
				return err
			}
		}
		if id == "" {
			id = strings.TrimSuffix(filepath.Base(f.Path()), filepath.Ext(f.Path()))
		}
		b, err := f.NewRun(strings.Clone(id))
		if err != nil {
			return err
		}
		b.Run.Harness = "pi"
		conv = &piConv{b: b}
		return nil
	}
	err := lineReader[piLine]{decode: decodePiLine, parallel: true}.read(f, r, func(line int64, raw []byte, d *piLine) error {
		e := &d.e
		if e.Type == "session" || conv == nil {
			id := ""
			if e.Type == "session" {
				id = e.ID
			}
			if err := open(id); err != nil {
				return err
			}
		}
		b := conv.b
		ts := ParseTime(e.Timestamp)
		switch e.Type {
		case "session":
			conv.model = strings.Clone(e.ModelID)
			return nil
		case "message":
			if mts := ParseTime(d.m.Timestamp); mts != nil {
				ts = mts
			}
			return conv.message(line, ts, &d.m, d.blocks, d.text)
		case "compaction":
			if err := b.Add(schema.Event{Kind: schema.KindCompaction, Role: "system", TS: ts, Line: line, Text: e.Summary}); err != nil {
				return err
			}
			op := schema.ContextOp{Op: schema.OpCompaction, TokensBefore: e.TokensBefore}
			switch {
			case e.FirstKeptEntryIndex != nil:
				op.Detail = "firstKeptEntryIndex=" + strconv.FormatInt(*e.FirstKeptEntryIndex, 10)
			case e.FirstKeptEntryID != "":
				op.Detail = "firstKeptEntryId=" + e.FirstKeptEntryID
			}
			if e.FromHook {
				op.Trigger = "hook"
			}
			return b.Op(op)
		case "branch_summary":
			if err := b.Add(schema.Event{Kind: schema.KindContextOp, Role: "system", TS: ts, Line: line, Text: e.Summary}); err != nil {
				return err
			}
			return b.Op(schema.ContextOp{Op: schema.OpSummary, Trigger: "branch", Detail: e.FromID})
		case "custom_message":
			conv.lastKind = schema.KindUser
			return b.Add(schema.Event{Kind: schema.KindUser, Role: "custom", TS: ts, Line: line, Text: d.text})
		}
		return nil // model_change, thinking_level_change, custom, label, session_info, unknown
	})
	if err != nil {
		return err
	}
	if conv == nil {
		return nil
	}
	return conv.finish()
}

// piConv maps pi "AgentMessage" values onto a run (pi sessions and OpenClaw history
// snapshots share the message format).
type piConv struct {
	b        *RunBuilder
	model    string // the session header's model, used when no message names one
	lastKind schema.EventKind
	lastStop string // stopReason of the last assistant message
	lastErr  string // its errorMessage
	sawModel bool   // an assistant message named its model
	lastResp string // the responseId of the last assistant message
	respSeq  int64  // the builder's seq right after that message's events
	cost     float64
	hasCost  bool
}

// message adds one "AgentMessage". blocks are the assistant's content blocks;
// text is the flattened content of any other role.
func (c *piConv) message(line int64, ts *time.Time, m *piMessage, blocks []piBlock, text string) error {
	b := c.b
	ev := func(kind schema.EventKind, role, text string) schema.Event {
		return schema.Event{Kind: kind, Role: role, TS: ts, Line: line, Text: text}
	}
	switch m.Role {
	case "assistant":
		return c.assistant(line, ts, m, blocks)
	case "toolResult":
		e := ev(schema.KindToolResult, "toolResult", text)
		e.CallID, e.ToolName, e.IsError = m.ToolCallID, m.ToolName, m.IsError
		c.lastKind = e.Kind
		return b.Add(e)
	case "bashExecution":
		if m.ExcludeFromContext {
			return nil
		}
		out := "$ " + m.Command
		if m.Output != "" {
			out += "\n" + m.Output
		}
		e := ev(schema.KindUser, "bashExecution", out)
		e.ExitCode, e.IsError = m.ExitCode, m.Cancelled || m.ExitCode != nil && *m.ExitCode != 0
		return b.Add(e) // the user's own command: it does not change how the agent's last turn ended
	case "compactionSummary":
		if err := b.Add(ev(schema.KindCompaction, m.Role, firstNonEmpty(m.Summary, text))); err != nil {
			return err
		}
		c.lastKind = schema.KindCompaction
		return b.Op(schema.ContextOp{Op: schema.OpSummary, TokensBefore: m.TokensBefore, Trigger: "compaction-summary"})
	case "branchSummary":
		if err := b.Add(ev(schema.KindContextOp, m.Role, firstNonEmpty(m.Summary, text))); err != nil {
			return err
		}
		c.lastKind = schema.KindContextOp
		return b.Op(schema.ContextOp{Op: schema.OpSummary, Trigger: "branch"})
	}
	// user, custom, hookMessage and roles of later versions: input the model sees
	c.lastKind = schema.KindUser
	return b.Add(ev(schema.KindUser, m.Role, text))
}

func (c *piConv) assistant(line int64, ts *time.Time, m *piMessage, blocks []piBlock) error {
	b := c.b
	u := m.Usage
	hasUsage := u != nil && u.Input+u.Output+u.CacheRead+u.CacheWrite > 0
	failed := m.StopReason == "error" || m.StopReason == "aborted"
	c.lastStop, c.lastErr = strings.Clone(m.StopReason), strings.Clone(m.ErrorMessage)
	if len(blocks) > 0 || hasUsage || !failed {
		if m.ResponseID == "" || m.ResponseID != c.lastResp || b.seq != c.respSeq {
			b.NewCall()
		} // else the same response, nothing logged since: the call goes on
		b.NoteModel(m.Model)
		c.sawModel = c.sawModel || m.Model != ""
		if hasUsage {
			b.SetUsage(schema.Usage{TS: ts, Model: m.Model, RequestID: m.ResponseID,
				InputTokens: u.Input + u.CacheRead + u.CacheWrite, OutputTokens: u.Output,
				CacheReadTokens: u.CacheRead, CacheWriteTokens: u.CacheWrite})
		}
		if u != nil && u.Cost != nil && u.Cost.Total > 0 {
			c.cost += u.Cost.Total
			c.hasCost = true
		}
		for _, blk := range blocks {
			e := schema.Event{Role: "assistant", TS: ts, Line: line}
			switch blk.Type {
			case "thinking":
				e.Kind, e.Text = schema.KindReasoning, blk.Thinking
			case "toolCall":
				e.Kind, e.ToolName, e.CallID, e.Args = schema.KindToolCall, blk.Name, blk.ID, string(blk.Arguments)
			case "text":
				e.Kind, e.Text = schema.KindAssistant, blk.Text
			default: // images and block types of later versions
				e.Kind, e.Text = schema.KindAssistant, firstNonEmpty(blk.Text, "["+blk.Type+"]")
			}
			c.lastKind = e.Kind
			if err := b.Add(e); err != nil {
				return err
			}
		}
	}
	c.lastResp, c.respSeq = strings.Clone(m.ResponseID), b.seq
	if failed {
		text := firstNonEmpty(m.ErrorMessage, "request "+m.StopReason)
		c.lastKind = schema.KindError
		return b.Add(schema.Event{Kind: schema.KindError, Role: "assistant", TS: ts, Line: line, IsError: true, Text: text})
	}
	return nil
}

// finish sets the end reason and cost and emits the run.
func (c *piConv) finish() error {
	b := c.b
	if !c.sawModel {
		b.NoteModel(c.model)
	}
	if c.hasCost {
		cost := c.cost
		b.Run.CostUSD = &cost
	}
	if b.Run.EndReasonSource != schema.SourceExplicit {
		r := &b.Run
		switch {
		case c.lastStop == "aborted":
			b.SetEnd(schema.EndInterrupted, firstNonEmpty(c.lastErr, "request aborted"))
		case c.lastStop == "error" && IsOverflowText(c.lastErr):
			b.SetEnd(schema.EndContextOverflow, c.lastErr)
		case c.lastStop == "error":
			b.SetEnd(schema.EndError, firstNonEmpty(c.lastErr, "request failed"))
		case (c.lastKind == schema.KindAssistant || c.lastKind == schema.KindReasoning) && c.lastStop != "length":
			r.EndReason, r.EndReasonSource, r.EndReasonDetail = schema.EndFinished, schema.SourceInferred, "log ends on an assistant reply without a tool call"
		case c.lastKind == schema.KindToolCall:
			r.EndReason, r.EndReasonSource, r.EndReasonDetail = schema.EndInterrupted, schema.SourceInferred, "log ends on a tool call without result"
		}
	}
	return b.Finish()
}
