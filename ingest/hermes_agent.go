package ingest

import (
	"cmp"
	"fmt"
	"io"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// hermesAgent reads Hermes Agent session files (~/.hermes/sessions/*.json):
// one JSON object per session {session_id, model, platform, session_start,
// last_updated, system_prompt, tools, messages}. (Newer installs also keep
// sessions in ~/.hermes/state.db, SQLite: hermes_db.go, which leaves a
// session with a transcript here to this importer.)
//
// Steps:
//  1. Read the document (jsonDoc); a file that is not a JSON object, or
//     has no messages array, is one reject (at the line of a syntax error).
//     Each message keeps the line it starts on; a message that is not an
//     object, or has an unknown role, is rejected and the rest imports.
//  2. system_prompt → a system event; tools → the tool-definitions event
//     (each at the line of its key's value).
//  3. messages in OpenAI chat shape: system → system, user → user,
//     assistant → one model call: reasoning (reasoning_content, else
//     reasoning), text, and tool_calls[{id|call_id, function{name,
//     arguments}}]; tool → tool result linked by tool_call_id. A
//     session_meta entry is bookkeeping and skipped.
//  4. session_id is the run id (else the file name), model the model,
//     session_start / last_updated the run's start and end (messages carry
//     no timestamps). There is no usage in the JSON form.
//  5. The end reason is inferred from the last event.
type hermesAgent struct{ formatInfo }

// Detect claims a JSON object with session_id and messages plus one of
// Hermes' session keys (platform, session_start, last_updated).
func (hermesAgent) Detect(name string, head []byte) bool {
	keys := topKeys(head)
	return hasKeys(keys, "session_id", "messages") && (hasKeys(keys, "platform") || hasKeys(keys, "session_start") || hasKeys(keys, "last_updated"))
}

type hmSession struct {
	SessionID    string          `json:"session_id"`
	Model        string          `json:"model"`
	Platform     string          `json:"platform"`
	SessionStart string          `json:"session_start"`
	LastUpdated  string          `json:"last_updated"`
	SystemPrompt string          `json:"system_prompt"`
	Tools        json.RawMessage `json:"tools"`
}

type hmMessage struct {
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	Reasoning        string          `json:"reasoning"`
	ReasoningContent string          `json:"reasoning_content"`
	ToolCallID       string          `json:"tool_call_id"`
	ToolName         string          `json:"tool_name"`
	ToolCalls        []struct {
		oaToolCall
		CallID string `json:"call_id"`
	} `json:"tool_calls"`
}

func (hermesAgent) Import(f *File, r io.Reader) error {
	var s hmSession
	d, fields, msgs, b, err := docRun(f, r, &s, "session", "messages", func() string { return s.SessionID })
	if err != nil || b == nil {
		return err
	}
	b.Run.Harness = "hermes"
	b.Run.Model = s.Model
	b.Run.StartedAt, b.Run.EndedAt = ParseTime(s.SessionStart), ParseTime(s.LastUpdated)
	var last schema.EventKind
	if s.SystemPrompt != "" {
		if err := b.Add(schema.Event{Kind: schema.KindSystem, Role: "system", Text: s.SystemPrompt, Line: d.line(fields["system_prompt"].off)}); err != nil {
			return err
		}
	}
	if e, ok := ToolDefinitions(s.Tools, d.line(fields["tools"].off)); ok {
		if err := b.Add(e); err != nil {
			return err
		}
	}
	err = decodeElems(f, d, msgs, "messages[%d]", func(i int, line int64, el jsonSpan, m *hmMessage) error {
		add := eventAdder(b, nil, line, &last)
		text := ContentText(m.Content)
		var err error
		switch m.Role {
		case "system":
			err = add(schema.Event{Kind: schema.KindSystem, Role: "system", Text: text})
		case "user":
			err = add(schema.Event{Kind: schema.KindUser, Role: "user", Text: text})
		case "assistant":
			calls := make([]oaToolCall, len(m.ToolCalls))
			for i, tc := range m.ToolCalls {
				calls[i] = tc.oaToolCall
				calls[i].ID = cmp.Or(tc.ID, tc.CallID)
			}
			err = oaAssistant(b, cmp.Or(m.ReasoningContent, m.Reasoning), text, calls, add)
		case "tool":
			err = add(schema.Event{Kind: schema.KindToolResult, Role: "tool", ToolName: m.ToolName, CallID: m.ToolCallID, Text: text})
		case "session_meta":
		default:
			err = f.Reject(line, fmt.Sprintf("messages[%d]: unknown role %q", i, m.Role), el.raw)
		}
		return err
	})
	if err != nil {
		return err
	}
	inferEnd(b, last)
	return b.Finish()
}
