package ingest

import (
	"io"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// mistralVibe reads Mistral Vibe session logs
// (~/.vibe/logs/session/<id>/messages.jsonl, with meta.json next to it).
//
// The anchor rule: messages.jsonl is the run's file; meta.json is a sibling
// it reads, found by replacing "messages.jsonl" at the end of its path with
// "meta.json" (a flattened copy <prefix>messages.jsonl finds
// <prefix>meta.json). meta.json is detected as nothing; messages without
// it still import.
//
// Steps:
//  1. Decode each line, an OpenAI chat message {role, content, tool_calls,
//     tool_call_id, name, message_id}; a line that is not a JSON object or
//     has no role is rejected.
//  2. system → system event, user → user, assistant → reasoning
//     (reasoning_content), text, and tool_calls[{id, function{name,
//     arguments}}] (arguments an object or a JSON string); tool → tool
//     result linked by tool_call_id. Each assistant message is one model
//     call.
//  3. meta.json: session_id is the run id (else the directory name),
//     parent_session_id the parent run, model, start_time / end_time (the
//     messages carry no timestamps), and stats: session_prompt_tokens and
//     session_completion_tokens are the run's logged totals (no message has
//     its own usage, so the run stays usage_estimated).
//  4. The end reason is inferred from the last event.
type mistralVibe struct{ formatInfo }

const vibeAnchor = "messages.jsonl"

type vbMessage struct {
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	ReasoningContent string          `json:"reasoning_content"`
	MessageID        *string         `json:"message_id"`
	Name             string          `json:"name"`
	ToolCallID       string          `json:"tool_call_id"`
	ToolCalls        []oaToolCall    `json:"tool_calls"`
}

var vibeRoles = map[string]bool{"system": true, "user": true, "assistant": true, "tool": true}

// Detect claims JSONL of chat messages that carry Vibe's message_id: every
// line of the head is {role: system|user|assistant|tool, …} and the first
// has a message_id.
func (mistralVibe) Detect(name string, head []byte) bool {
	lines := firstLines(head, 30)
	if len(lines) == 0 {
		return false
	}
	for i, line := range lines {
		var m vbMessage
		if !lineDecodes(line, &m) {
			return i > 0 && i == len(lines)-1 // a last line cut by the head
		}
		if !vibeRoles[m.Role] || i == 0 && m.MessageID == nil {
			return false
		}
	}
	return true
}

type vbMeta struct {
	SessionID       string `json:"session_id"`
	ParentSessionID string `json:"parent_session_id"`
	StartTime       string `json:"start_time"`
	EndTime         string `json:"end_time"`
	Model           string `json:"model"`
	Stats           *struct {
		Prompt     int64 `json:"session_prompt_tokens"`
		Completion int64 `json:"session_completion_tokens"`
	} `json:"stats"`
}

func (mistralVibe) Import(f *File, r io.Reader) error {
	path := f.Path()
	var meta vbMeta
	hasMeta := readSibling(siblingPath(path, vibeAnchor, "meta.json"), &meta)
	id := dirRunID(path, vibeAnchor)
	if meta.SessionID != "" {
		id = meta.SessionID
	}
	b, err := f.NewRun(id)
	if err != nil {
		return err
	}
	b.Run.Harness = "mistral-vibe"
	var last schema.EventKind
	err = lineReader[vbMessage]{decode: jsonValue[vbMessage]}.read(f, r, func(line int64, raw []byte, m *vbMessage) error {
		if m.Role == "" {
			return f.Reject(line, "message without a role", raw)
		}
		add := eventAdder(b, nil, line, &last)
		text := ContentText(m.Content)
		switch m.Role {
		case "system":
			return add(schema.Event{Kind: schema.KindSystem, Role: "system", Text: text})
		case "assistant":
			return oaAssistant(b, m.ReasoningContent, text, m.ToolCalls, add)
		case "tool":
			return add(schema.Event{Kind: schema.KindToolResult, Role: "tool", ToolName: m.Name, CallID: m.ToolCallID, Text: text})
		default:
			return add(schema.Event{Kind: schema.KindUser, Role: m.Role, Text: text})
		}
	})
	if err != nil {
		return err
	}
	if hasMeta {
		b.Run.ParentRunID = meta.ParentSessionID
		b.Run.Model = meta.Model
		b.Run.StartedAt, b.Run.EndedAt = ParseTime(meta.StartTime), ParseTime(meta.EndTime)
		if s := meta.Stats; s != nil {
			b.SetLoggedTotals(schema.Usage{InputTokens: s.Prompt, OutputTokens: s.Completion})
		}
	}
	inferEnd(b, last)
	return b.Finish()
}
