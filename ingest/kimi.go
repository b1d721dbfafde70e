package ingest

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// kimiWire reads Kimi Code CLI wire logs
// (~/.kimi-code/sessions/<workdir>/<session>/agents/<agent>/wire.jsonl):
// one record per line, each with a type and a ms "time".
//
// Steps per line:
//  1. Decode the record; non-objects and records without a type are rejected.
//  2. config.update → a system event with the system prompt (when it
//     changes); modelAlias names the model.
//  3. turn.prompt / turn.steer → user events. context.append_message adds
//     the messages injected into the context (system triggers, reminders …);
//     a user message of origin "user" repeats turn.prompt and assistant /
//     tool messages repeat the loop events, so those are skipped.
//  4. context.append_loop_event: step.begin → a new model call (one step is
//     one model call); content.part → assistant text or reasoning (think);
//     tool.call → tool_call; tool.result → tool_result linked by
//     toolCallId; step.end finishReason and step.interrupted are noted for
//     the end reason.
//  5. usage.record {model, usage{inputOther, output, inputCacheRead,
//     inputCacheCreation}, usageScope}: InputTokens = inputOther + cache read
//     + cache creation. Scope "step" (or a turn of one step) is the current
//     call's usage; a "turn" total over several steps is added to the run
//     totals without usage rows (the run is then usage_estimated).
//  6. End reason: turn.cancel → interrupted (explicit); a last step that
//     ended with end_turn → finished (inferred).
//
// The run id is the session directory (<session>, or <session>/<agent> with
// the main agent's run as parent for other agents) when the path has the
// …/<session>/agents/<agent>/wire.jsonl layout, else the file's base name:
// the records carry no session id.
type kimiWire struct{ formatInfo }

// kimiTypes are the record types of a Kimi wire log.
var kimiTypes = map[string]bool{"config.update": true, "turn.prompt": true, "turn.steer": true, "turn.ended": true,
	"turn.cancel": true, "tools.set_active_tools": true, "context.append_message": true,
	"context.append_loop_event": true, "usage.record": true}

// Detect claims JSONL whose first records are Kimi wire records (a known
// type, or the metadata record with a protocol_version).
func (kimiWire) Detect(name string, head []byte) bool {
	return anyJSONL(head, 30, func(r *struct {
		Type            string          `json:"type"`
		ProtocolVersion json.RawMessage `json:"protocol_version"`
	}) bool {
		return kimiTypes[r.Type] || r.Type == "metadata" && r.ProtocolVersion != nil
	})
}

type kimiRecord struct {
	Type         string          `json:"type"`
	Time         any             `json:"time"`
	CreatedAt    any             `json:"created_at"`
	SystemPrompt string          `json:"systemPrompt"`
	ModelAlias   string          `json:"modelAlias"`
	Input        json.RawMessage `json:"input"`
	Message      json.RawMessage `json:"message"`
	Event        json.RawMessage `json:"event"`
	Model        string          `json:"model"`
	Usage        *struct {
		InputOther         int64 `json:"inputOther"`
		Output             int64 `json:"output"`
		InputCacheRead     int64 `json:"inputCacheRead"`
		InputCacheCreation int64 `json:"inputCacheCreation"`
	} `json:"usage"`
	UsageScope string `json:"usageScope"`
	Target     string `json:"target"`
	Reason     string `json:"reason"`
}

type kimiMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	Origin  *struct {
		Kind string `json:"kind"`
	} `json:"origin"`
}

type kimiEvent struct {
	Type         string          `json:"type"`
	Part         json.RawMessage `json:"part"`
	ToolCallID   string          `json:"toolCallId"`
	Name         string          `json:"name"`
	Args         json.RawMessage `json:"args"`
	Result       json.RawMessage `json:"result"`
	FinishReason string          `json:"finishReason"`
	Reason       string          `json:"reason"`
}

// kimiState is the state of one wire log's import.
type kimiState struct {
	b          *RunBuilder
	system     string
	model      string
	lastPrompt string
	turnSteps  int  // model calls begun in the current turn
	inStep     bool // a step.begin without its step.end
	lastFinish string
	lastKind   schema.EventKind
}

func (kimiWire) Import(f *File, r io.Reader) error {
	id, parent := kimiRunID(f.Path())
	b, err := f.NewRun(id)
	if err != nil {
		return err
	}
	b.Run.Harness, b.Run.ParentRunID = "kimi-cli", parent
	k := &kimiState{b: b}
	err = lineReader[kimiRecord]{}.read(f, r, func(line int64, raw []byte, rec *kimiRecord) error {
		if rec.Type == "" {
			return f.Reject(line, "record without type", raw)
		}
		reason, err := k.record(line, rec)
		if err != nil {
			return err
		}
		if reason != "" {
			return f.Reject(line, reason, raw)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if b.Run.Model == "" {
		b.NoteModel(k.model)
	}
	if b.Run.EndReasonSource != schema.SourceExplicit && k.lastFinish == "end_turn" && k.lastKind == schema.KindAssistant {
		b.Run.EndReason, b.Run.EndReasonSource, b.Run.EndReasonDetail = schema.EndFinished, schema.SourceInferred, "last step ended with end_turn"
	}
	return b.Finish()
}

// record handles one record; it returns why the record is malformed, or "".
func (k *kimiState) record(line int64, rec *kimiRecord) (string, error) {
	b := k.b
	ts := ParseTime(rec.Time)
	add := eventAdder(b, ts, line, &k.lastKind)
	switch rec.Type {
	case "metadata":
		if t := ParseTime(rec.CreatedAt); t != nil && b.Run.StartedAt == nil {
			b.Run.StartedAt = t
		}
	case "config.update":
		if rec.ModelAlias != "" {
			k.model = strings.Clone(rec.ModelAlias)
		}
		if rec.SystemPrompt != "" && rec.SystemPrompt != k.system {
			k.system = strings.Clone(rec.SystemPrompt)
			return "", add(schema.Event{Kind: schema.KindSystem, Role: "system", Text: rec.SystemPrompt})
		}
	case "turn.prompt", "turn.steer":
		text := ContentText(rec.Input)
		if rec.Type == "turn.prompt" {
			k.lastPrompt, k.turnSteps = strings.Clone(text), 0
		}
		return "", add(schema.Event{Kind: schema.KindUser, Role: "user", Text: text})
	case "turn.cancel":
		if rec.Target != "queued" {
			b.SetEnd(schema.EndInterrupted, firstNonEmpty(rec.Reason, "turn cancelled"))
		}
	case "context.append_message":
		var m kimiMessage
		if len(bytes.TrimSpace(rec.Message)) == 0 || json.Unmarshal(rec.Message, &m) != nil {
			return "context.append_message without a message object", nil
		}
		text := ContentText(m.Content)
		origin := ""
		if m.Origin != nil {
			origin = m.Origin.Kind
		}
		switch {
		case m.Role == "assistant" || m.Role == "tool":
			return "", nil // the loop events carry the model's output and the tool results
		case m.Role == "user" && (origin == "user" || origin == "") && text == k.lastPrompt:
			return "", nil // turn.prompt already added it
		case m.Role == "system":
			return "", add(schema.Event{Kind: schema.KindSystem, Role: "system", Text: text})
		}
		return "", add(schema.Event{Kind: schema.KindUser, Role: firstNonEmpty(origin, m.Role), Text: text})
	case "context.append_loop_event":
		var ev kimiEvent
		if len(bytes.TrimSpace(rec.Event)) == 0 || json.Unmarshal(rec.Event, &ev) != nil {
			return "context.append_loop_event without an event object", nil
		}
		return k.loop(&ev, add)
	case "usage.record":
		if rec.Usage == nil {
			return "usage.record without usage", nil
		}
		u := rec.Usage
		use := schema.Usage{TS: ts, Model: firstNonEmpty(rec.Model, k.model), InputTokens: u.InputOther + u.InputCacheRead + u.InputCacheCreation,
			OutputTokens: u.Output, CacheReadTokens: u.InputCacheRead, CacheWriteTokens: u.InputCacheCreation}
		if rec.UsageScope == "step" || rec.UsageScope == "" && k.inStep || k.turnSteps == 1 {
			if b.Turns() == 0 {
				b.SetUsage(use)
			} else {
				b.SetUsageAt(b.Turns()-1, use)
			}
			return "", nil
		}
		// a total over several model calls: run totals only
		r := &b.Run
		r.InputTokens += use.InputTokens
		r.OutputTokens += use.OutputTokens
		r.CacheReadTokens += use.CacheReadTokens
		r.CacheWriteTokens += use.CacheWriteTokens
		b.NoteModel(use.Model)
	}
	return "", nil // metadata, tools.set_active_tools, turn.ended and later types
}

// loop handles one agent-loop event.
func (k *kimiState) loop(ev *kimiEvent, add func(schema.Event) error) (string, error) {
	b := k.b
	switch ev.Type {
	case "step.begin":
		b.NewCall()
		k.turnSteps++
		k.inStep = true
	case "step.end":
		k.inStep = false
		k.lastFinish = strings.Clone(ev.FinishReason)
	case "step.interrupted":
		k.inStep = false
		return "", add(schema.Event{Kind: schema.KindError, Role: "system", IsError: true, Text: firstNonEmpty(ev.Reason, "step interrupted")})
	case "content.part":
		var p struct {
			Type  string `json:"type"`
			Text  string `json:"text"`
			Think string `json:"think"`
		}
		if json.Unmarshal(ev.Part, &p) != nil {
			return "content.part without a part object", nil
		}
		if p.Type == "think" || p.Type == "thinking" {
			return "", add(schema.Event{Kind: schema.KindReasoning, Role: "assistant", Text: firstNonEmpty(p.Think, p.Text)})
		}
		return "", add(schema.Event{Kind: schema.KindAssistant, Role: "assistant", Text: firstNonEmpty(p.Text, ContentText(ev.Part))})
	case "tool.call":
		return "", add(schema.Event{Kind: schema.KindToolCall, Role: "assistant", ToolName: ev.Name, CallID: ev.ToolCallID, Args: string(ev.Args)})
	case "tool.result":
		var res struct {
			Output   json.RawMessage `json:"output"`
			IsError  bool            `json:"isError"`
			IsError2 bool            `json:"is_error"`
		}
		text := ""
		if r := bytes.TrimSpace(ev.Result); len(r) > 0 && r[0] == '{' && json.Unmarshal(r, &res) == nil {
			text = ContentText(res.Output)
		} else {
			text = ContentText(ev.Result)
		}
		return "", add(schema.Event{Kind: schema.KindToolResult, Role: "tool", ToolName: ev.Name, CallID: ev.ToolCallID,
			IsError: res.IsError || res.IsError2, Text: text})
	}
	return "", nil
}

// kimiRunID derives the run id from the wire log's path:
// …/<session>/agents/<agent>/wire.jsonl → <session> (main agent) or
// <session>/<agent> with parent <session>; otherwise the file's base name.
func kimiRunID(path string) (id, parent string) {
	p := filepath.ToSlash(path)
	parts := strings.Split(p, "/")
	if n := len(parts); n >= 4 && parts[n-1] == "wire.jsonl" && parts[n-3] == "agents" && parts[n-4] != "" {
		session, agent := parts[n-4], parts[n-2]
		if agent == "main" || agent == "" {
			return session, ""
		}
		return session + "/" + agent, session
	}
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)), ""
}
