package ingest

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"time"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// copilotCLI reads GitHub Copilot CLI session events
// (~/.copilot/session-state/<uuid>/events.jsonl; older installs
// ~/.copilot/session-state/<uuid>.jsonl): one envelope
// {type, data, id, parentId, timestamp} per line.
//
// Steps per line:
//  1. Decode the envelope; a line that is not a JSON object, has no type or
//     whose data is not an object is rejected.
//  2. Route it: events whose data has a parentToolCallId belong to the
//     sub-agent that tool call started, a run "<session>/subagent-<id>"
//     whose parent is the session's run; all others to the session's run
//     (session.start's sessionId, else the directory of events.jsonl, else
//     the file name).
//  3. By type:
//     - user.message → user event (transformedContent, what the model got,
//     else content); system.message and system.notification → system;
//     - assistant.message → one model call per apiCallId (else messageId;
//     the same id again after an input is a new call):
//     reasoningText → reasoning, content → assistant, toolRequests[] →
//     tool calls (arguments a JSON string or an object); assistant.reasoning
//     → reasoning;
//     - tool.execution_start → a tool call only when no assistant.message
//     announced its toolCallId: one that comes before the message asking
//     for it waits, and is dropped when that message comes (it then holds
//     the call), else added before the next event of another kind (issue
//     30.6); tool.execution_complete → tool result
//     linked by toolCallId (result.content, else error.message; error when
//     success is false);
//     - session.truncation → a context_op event with a truncation op
//     (tokens before/after = pre/postTruncationTokensInMessages, trigger
//     performedBy); session.compaction_complete → a compaction event (the
//     summaryContent) with a compaction op (pre/postCompactionTokens,
//     trigger), unless success is false;
//     - session.error → an error event; abort → end interrupted (explicit);
//     session.shutdown → end finished (explicit, "shutdown: <type>"); a
//     later user or assistant message clears an end recorded before it (the
//     session was resumed);
//     - subagent.started opens the sub-agent's run (events of
//     subagent.* belong to the run of their toolCallId); subagent.completed ends it (finished, explicit) and gives its model;
//     - session.model_change, session.info, hook.*, session.resume,
//     assistant.turn_* and the usage checkpoints are UI or
//     bookkeeping records, not part of what the model saw.
//  4. Usage: an assistant.usage event, when the log has one, is the
//     current call's usage (inputTokens excludes the cache: input = input +
//     cacheRead + cacheWrite). The samples have none: only each message's
//     outputTokens and session totals. The totals of session.shutdown (or,
//     without one, the latest session.usage_checkpoint) — tokenDetails
//     {input, output, cache_read, cache_write}.tokenCount, else the sum
//     of modelMetrics[*].usage — are the session's logged totals; without
//     either, the sum of outputTokens is the logged output total. In
//     tokenDetails the categories are taken as disjoint, as in
//     assistant.usage (whose consumers add them up): input = input + cache
//     read + cache write; modelMetrics' inputTokens already includes the
//     cache reads and writes, so it is the input (issue 30.6). The session
//     totals include the sub-agents' tokens: the session's run takes them
//     less what its sub-agent runs hold (their usage rows, else their
//     messages' outputTokens), so that the runs do not count a sub-agent
//     twice. Without assistant.usage the run stays usage_estimated: no
//     call has its own usage row.
type copilotCLI struct{ formatInfo }

var copilotTypes = map[string]bool{"session.start": true, "session.resume": true, "user.message": true, "assistant.message": true,
	"assistant.turn_start": true, "tool.execution_start": true, "tool.execution_complete": true, "session.shutdown": true, "session.model_change": true}

// Detect claims JSONL of envelopes {type, data:{…}} whose type is a Copilot
// CLI event (session.start, user.message, assistant.message, tool.execution_*, …).
func (copilotCLI) Detect(name string, head []byte) bool {
	return anyJSONL(head, 30, func(r *struct {
		Type string          `json:"type"`
		Data json.RawMessage `json:"data"`
	}) bool {
		return copilotTypes[r.Type] && len(r.Data) > 0 && r.Data[0] == '{'
	})
}

type cpEnvelope struct {
	Type      string          `json:"type"`
	Data      json.RawMessage `json:"data"`
	Timestamp string          `json:"timestamp"`
}

type cpData struct {
	SessionID          string          `json:"sessionId"`
	SelectedModel      string          `json:"selectedModel"`
	Content            json.RawMessage `json:"content"`
	TransformedContent *string         `json:"transformedContent"`
	ParentToolCallID   string          `json:"parentToolCallId"`
	MessageID          string          `json:"messageId"`
	APICallID          string          `json:"apiCallId"`
	Model              string          `json:"model"`
	ReasoningText      *string         `json:"reasoningText"`
	OutputTokens       int64           `json:"outputTokens"`
	ToolRequests       []struct {
		ToolCallID string          `json:"toolCallId"`
		Name       string          `json:"name"`
		Arguments  json.RawMessage `json:"arguments"`
	} `json:"toolRequests"`
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Arguments  json.RawMessage `json:"arguments"`
	Success    *bool           `json:"success"`
	Result     *struct {
		Content json.RawMessage `json:"content"`
	} `json:"result"`
	Error json.RawMessage `json:"error"`
	// session.error, abort, session.shutdown
	Message      string `json:"message"`
	Reason       string `json:"reason"`
	ShutdownType string `json:"shutdownType"`
	// session.truncation, session.compaction_complete
	PreTokens      *int64 `json:"preTruncationTokensInMessages"`
	PostTokens     *int64 `json:"postTruncationTokensInMessages"`
	Removed        *int64 `json:"messagesRemovedDuringTruncation"`
	TokenLimit     *int64 `json:"tokenLimit"`
	PerformedBy    string `json:"performedBy"`
	PreCompact     *int64 `json:"preCompactionTokens"`
	PostCompact    *int64 `json:"postCompactionTokens"`
	Trigger        string `json:"trigger"`
	SummaryContent string `json:"summaryContent"`
	// assistant.usage (outputTokens is OutputTokens above)
	InputTokens      int64 `json:"inputTokens"`
	CacheReadTokens  int64 `json:"cacheReadTokens"`
	CacheWriteTokens int64 `json:"cacheWriteTokens"`
	ReasoningTokens  int64 `json:"reasoningTokens"`
	// totals
	TokenDetails map[string]struct {
		TokenCount int64 `json:"tokenCount"`
	} `json:"tokenDetails"`
	ModelMetrics map[string]struct {
		Usage *struct {
			InputTokens      int64 `json:"inputTokens"`
			OutputTokens     int64 `json:"outputTokens"`
			CacheReadTokens  int64 `json:"cacheReadTokens"`
			CacheWriteTokens int64 `json:"cacheWriteTokens"`
			ReasoningTokens  int64 `json:"reasoningTokens"`
		} `json:"usage"`
	} `json:"modelMetrics"`
}

type cpRun struct {
	b          *RunBuilder
	last       schema.EventKind
	outTokens  int64
	totals     *schema.Usage
	rowSum     schema.Usage // the assistant.usage rows, summed
	hasRows    bool
	announced  map[string]bool
	early      []schema.Event // tool.execution_start waiting for the message that asks for it
	reasoning  []schema.Event // assistant.reasoning waiting for its assistant.message
	lastCall   string         // the id of the latest assistant.message
	inputSince bool           // an input event came after it
}

func (copilotCLI) Import(f *File, r io.Reader) error {
	runs := map[string]*cpRun{}
	var order []string
	session := ""
	var get func(parentTool string) (*cpRun, error)
	get = func(parentTool string) (*cpRun, error) {
		if session == "" {
			session = dirRunID(f.Path(), "events.jsonl")
		}
		id, parent := session, ""
		if parentTool != "" {
			id, parent = session+"/subagent-"+parentTool, session
		}
		if cr := runs[id]; cr != nil {
			return cr, nil
		}
		if parent != "" && runs[parent] == nil {
			if _, err := get(""); err != nil {
				return nil, err
			}
		}
		b, err := f.NewRun(strings.Clone(id))
		if err != nil {
			return nil, err
		}
		b.Run.Harness = "copilot-cli"
		if parent != "" {
			b.Run.ParentRunID = runs[parent].b.ID()
		}
		cr := &cpRun{b: b, announced: map[string]bool{}}
		runs[id] = cr
		order = append(order, id)
		return cr, nil
	}
	err := lineReader[cpEnvelope]{decode: jsonValue[cpEnvelope]}.read(f, r, func(line int64, raw []byte, env *cpEnvelope) error {
		if env.Type == "" {
			return f.Reject(line, "event without a type", raw)
		}
		var d cpData
		if dd := bytes.TrimSpace(env.Data); len(dd) == 0 || dd[0] != '{' || json.Unmarshal(dd, &d) != nil {
			return f.Reject(line, env.Type+": data is not an object", raw)
		}
		if env.Type == "session.start" && session == "" && d.SessionID != "" {
			session = strings.Clone(d.SessionID)
		}
		owner := d.ParentToolCallID
		if strings.HasPrefix(env.Type, "subagent.") {
			owner = d.ToolCallID // the sub-agent the tool call started
		}
		cr, err := get(owner)
		if err != nil {
			return err
		}
		return cr.event(line, env.Type, ParseTime(env.Timestamp), &d)
	})
	if err != nil {
		return err
	}
	for _, id := range order {
		cr := runs[id]
		if err := cr.flushReasoning(true); err != nil {
			return err
		}
		if err := cr.flushEarly(); err != nil {
			return err
		}
		if cr.totals != nil && cr.b.Run.ParentRunID == "" {
			for _, sub := range order {
				if sr := runs[sub]; sr.b.Run.ParentRunID == cr.b.ID() {
					t := withoutSub(*cr.totals, sr.held())
					cr.totals = &t
				}
			}
		}
		switch {
		case cr.totals != nil:
			cr.b.SetLoggedTotals(*cr.totals)
		case cr.outTokens > 0:
			cr.b.SetLoggedTotals(schema.Usage{OutputTokens: cr.outTokens})
		}
		inferEnd(cr.b, cr.last)
		if err := cr.b.Finish(); err != nil {
			return err
		}
	}
	return nil
}

func (cr *cpRun) event(line int64, typ string, ts *time.Time, d *cpData) error {
	b := cr.b
	if typ != "assistant.message" && typ != "assistant.reasoning" {
		if err := cr.flushReasoning(true); err != nil {
			return err
		}
	}
	if typ != "assistant.message" && typ != "assistant.reasoning" && typ != "tool.execution_start" {
		if err := cr.flushEarly(); err != nil {
			return err
		}
	}
	add := func(e schema.Event) error {
		e.TS, e.Line = ts, line
		cr.last = e.Kind
		if !e.Kind.IsOutput() {
			cr.inputSince = true
		}
		return b.Add(e)
	}
	switch typ {
	case "session.start":
		if d.SelectedModel != "" {
			b.NoteModel(d.SelectedModel)
		}
	case "user.message":
		resumeRun(b)
		text := ContentText(d.Content)
		if d.TransformedContent != nil && *d.TransformedContent != "" {
			text = *d.TransformedContent
		}
		return add(schema.Event{Kind: schema.KindUser, Role: "user", Text: text})
	case "system.message", "system.notification":
		if text := ContentText(d.Content); text != "" {
			return add(schema.Event{Kind: schema.KindSystem, Role: "system", Text: text})
		}
	case "assistant.message":
		resumeRun(b)
		id := d.APICallID
		if id == "" {
			id = d.MessageID
		}
		if cr.inputSince && id == cr.lastCall {
			b.NewCall() // a repeated id after an input is a new response (trimmed logs repeat ids)
		} else {
			b.Call(id)
		}
		cr.lastCall, cr.inputSince = strings.Clone(id), false
		if err := cr.flushReasoning(false); err != nil {
			return err
		}
		b.NoteModel(d.Model)
		cr.outTokens += max(d.OutputTokens, 0)
		if d.ReasoningText != nil && strings.TrimSpace(*d.ReasoningText) != "" {
			if err := add(schema.Event{Kind: schema.KindReasoning, Role: "assistant", Text: *d.ReasoningText}); err != nil {
				return err
			}
		}
		if text := ContentText(d.Content); strings.TrimSpace(text) != "" {
			if err := add(schema.Event{Kind: schema.KindAssistant, Role: "assistant", Text: text}); err != nil {
				return err
			}
		}
		for _, tr := range d.ToolRequests {
			cr.dropEarly(tr.ToolCallID)
			cr.announced[strings.Clone(tr.ToolCallID)] = true
			if err := add(schema.Event{Kind: schema.KindToolCall, Role: "assistant", ToolName: tr.Name, CallID: tr.ToolCallID, Args: jsonArgs(tr.Arguments)}); err != nil {
				return err
			}
		}
	case "assistant.reasoning":
		// logged before the message it belongs to: added after that
		// message's Call
		cr.reasoning = append(cr.reasoning, schema.Event{Kind: schema.KindReasoning, Role: "assistant", TS: ts, Line: line, Text: ContentText(d.Content)})
		return nil
	case "tool.execution_start":
		if d.ToolCallID != "" && cr.announced[d.ToolCallID] {
			return nil
		}
		e := schema.Event{Kind: schema.KindToolCall, Role: "assistant", TS: ts, Line: line, ToolName: d.ToolName, CallID: d.ToolCallID, Args: jsonArgs(d.Arguments)}
		if d.ToolCallID == "" {
			return add(e)
		}
		cr.early = append(cr.early, e) // strings cloned by the builder when added
		return nil
	case "tool.execution_complete":
		text := ""
		if d.Result != nil {
			text = ContentText(d.Result.Content)
		}
		if text == "" && len(d.Error) > 0 {
			var e struct {
				Message string `json:"message"`
			}
			if json.Unmarshal(d.Error, &e) == nil && e.Message != "" {
				text = e.Message
			} else {
				text = jsonString(d.Error)
			}
		}
		isErr := d.Success != nil && !*d.Success
		return add(schema.Event{Kind: schema.KindToolResult, Role: "tool", CallID: d.ToolCallID, Text: text, IsError: isErr})
	case "session.truncation":
		detail := "truncation"
		if d.Removed != nil {
			detail = strconv.FormatInt(*d.Removed, 10) + " message(s) removed"
		}
		if d.TokenLimit != nil && *d.TokenLimit > 0 {
			detail += ", token limit " + strconv.FormatInt(*d.TokenLimit, 10)
		}
		if err := add(schema.Event{Kind: schema.KindContextOp, Role: "system", Text: detail}); err != nil {
			return err
		}
		return b.Op(schema.ContextOp{Op: schema.OpTruncation, TokensBefore: d.PreTokens, TokensAfter: d.PostTokens, Trigger: d.PerformedBy, Detail: detail})
	case "session.compaction_complete":
		if d.Success != nil && !*d.Success {
			return nil // nothing was compacted
		}
		if err := add(schema.Event{Kind: schema.KindCompaction, Role: "system", Text: d.SummaryContent}); err != nil {
			return err
		}
		return b.Op(schema.ContextOp{Op: schema.OpCompaction, TokensBefore: d.PreCompact, TokensAfter: d.PostCompact, Trigger: d.Trigger, Detail: "session.compaction_complete"})
	case "assistant.usage":
		u := schema.Usage{TS: ts, Model: d.Model, InputTokens: d.InputTokens + d.CacheReadTokens + d.CacheWriteTokens, OutputTokens: d.OutputTokens,
			CacheReadTokens: d.CacheReadTokens, CacheWriteTokens: d.CacheWriteTokens, ReasoningTokens: d.ReasoningTokens}
		b.NoteModel(d.Model)
		b.SetUsage(u)
		cr.rowSum.InputTokens += u.InputTokens
		cr.rowSum.OutputTokens += u.OutputTokens
		cr.rowSum.CacheReadTokens += u.CacheReadTokens
		cr.rowSum.CacheWriteTokens += u.CacheWriteTokens
		cr.rowSum.ReasoningTokens += u.ReasoningTokens
		cr.hasRows = true
	case "session.error":
		return add(schema.Event{Kind: schema.KindError, Role: "system", IsError: true, Text: d.Message})
	case "abort":
		b.SetEnd(schema.EndInterrupted, "abort: "+d.Reason)
	case "session.shutdown":
		b.SetEnd(schema.EndFinished, "shutdown: "+d.ShutdownType)
		cr.setTotals(d)
	case "subagent.completed":
		b.NoteModel(d.Model)
		b.SetEnd(schema.EndFinished, "subagent.completed")
	case "session.usage_checkpoint":
		cr.setTotals(d)
	}
	return nil
}

// flushReasoning adds the reasoning events waiting for their message: to
// the current call, or (newCall: no message came) to a call of their own.
func (cr *cpRun) flushReasoning(newCall bool) error {
	if len(cr.reasoning) == 0 {
		return nil
	}
	if newCall {
		cr.b.NewCall()
	}
	for _, e := range cr.reasoning {
		cr.last = e.Kind
		if err := cr.b.Add(e); err != nil {
			return err
		}
	}
	cr.reasoning = nil
	return nil
}

// setTotals keeps the session totals of a shutdown or usage checkpoint
// (the latest wins).
func (cr *cpRun) setTotals(d *cpData) {
	var u schema.Usage
	switch {
	case len(d.TokenDetails) > 0:
		u = schema.Usage{InputTokens: d.TokenDetails["input"].TokenCount + d.TokenDetails["cache_read"].TokenCount + d.TokenDetails["cache_write"].TokenCount,
			OutputTokens:    d.TokenDetails["output"].TokenCount,
			CacheReadTokens: d.TokenDetails["cache_read"].TokenCount, CacheWriteTokens: d.TokenDetails["cache_write"].TokenCount}
	case len(d.ModelMetrics) > 0:
		found := false
		for _, m := range d.ModelMetrics {
			if m.Usage == nil {
				continue
			}
			found = true
			u.InputTokens += max(m.Usage.InputTokens, m.Usage.CacheReadTokens+m.Usage.CacheWriteTokens) // inputTokens includes the cache
			u.OutputTokens += m.Usage.OutputTokens
			u.CacheReadTokens += m.Usage.CacheReadTokens
			u.CacheWriteTokens += m.Usage.CacheWriteTokens
			u.ReasoningTokens += m.Usage.ReasoningTokens
		}
		if !found {
			return
		}
	default:
		return
	}
	cr.totals = &u
}

// flushEarly adds the tool calls of tool.execution_start events that no
// assistant.message asked for (as the calls of the current model call).
func (cr *cpRun) flushEarly() error {
	for _, e := range cr.early {
		cr.announced[strings.Clone(e.CallID)] = true
		cr.last, cr.inputSince = e.Kind, false
		if err := cr.b.Add(e); err != nil {
			return err
		}
	}
	cr.early = cr.early[:0]
	return nil
}

// dropEarly forgets a waiting tool.execution_start of call id: the message
// that asks for it holds the call.
func (cr *cpRun) dropEarly(id string) {
	for i, e := range cr.early {
		if e.CallID == id {
			cr.early = append(cr.early[:i], cr.early[i+1:]...)
			return
		}
	}
}

// held is the usage a sub-agent's run holds: its usage rows, else its
// messages' outputTokens.
func (cr *cpRun) held() schema.Usage {
	if cr.hasRows {
		return cr.rowSum
	}
	return schema.Usage{OutputTokens: cr.outTokens}
}

// withoutSub is the session totals t less a sub-agent's usage u, field by
// field, never below 0.
func withoutSub(t, u schema.Usage) schema.Usage {
	t.InputTokens = max(t.InputTokens-u.InputTokens, 0)
	t.OutputTokens = max(t.OutputTokens-u.OutputTokens, 0)
	t.CacheReadTokens = max(t.CacheReadTokens-u.CacheReadTokens, 0)
	t.CacheWriteTokens = max(t.CacheWriteTokens-u.CacheWriteTokens, 0)
	t.ReasoningTokens = max(t.ReasoningTokens-u.ReasoningTokens, 0)
	return t
}
