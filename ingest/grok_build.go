package ingest

import (
	"io"
	"path/filepath"
	"strings"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// grokBuild reads a Grok Build session directory
// (~/.grok/sessions/<urlencoded-cwd>/<uuid>/): chat_history.jsonl, with
// summary.json and signals.json next to it.
//
// The anchor rule: chat_history.jsonl is the run's file (it is what gets
// detected, hashed and imported); summary.json and signals.json are
// siblings it reads, found by replacing "chat_history.jsonl" at the end of
// its path with their names (so a flattened copy <prefix>chat_history.jsonl
// finds <prefix>summary.json). Detection needs that file name: the rows
// themselves ({type, content}) are too plain to tell apart. The siblings
// are detected as nothing, and a chat history without them still imports.
//
// Steps:
//  1. Decode each row; a line that is not a JSON object, or has no type or
//     an unknown one, is rejected.
//  2. Rows by type: system → system event; user → user event (rows with a
//     synthetic_reason, injected instructions or interjections, are user
//     input the model saw too); reasoning → reasoning (its summary texts);
//     assistant → assistant text and tool_calls[{id, name, arguments}];
//     tool_result → tool result linked by tool_call_id; backend_tool_call
//     (a tool the backend ran, e.g. web_search) → a tool call named by
//     kind.tool_type with kind.action as arguments; its result is not
//     logged. Each run of output after an input is one model call.
//  3. summary.json gives the run id (info.id, else the directory name),
//     the parent session (parent_session_id, a sub-agent link), created_at /
//     updated_at as start and end (rows carry no timestamps) and the model
//     (current_model_id, when no row names one).
//  4. signals.json: contextWindowTokens is the run's window;
//     contextTokensUsed, the tokens in context at the end, is the last model
//     call's logged input (the only usage Grok keeps: usage_calls is 1 of
//     n_turns). "compactionCount" and "totalTokensBeforeCompaction" say that
//     compactions happened but not where, so they are not context ops.
//  5. The end reason is inferred from the last event.
//
// The legacy history (chat_format_version 0, what Grok Build's
// chat-history-downgrade writes; issue 30.4) has OpenAI-shaped rows {role,
// content, tool_calls[{id, function{name, arguments}}], tool_call_id,
// model_id, reasoning_content} instead of typed ones: role system, user
// and assistant are read as the types of those names (reasoning_content
// → a reasoning event before the reply), role tool as a tool_result.
type grokBuild struct{ formatInfo }

const grokAnchor = "chat_history.jsonl"

var grokTypes = map[string]bool{"system": true, "user": true, "assistant": true, "reasoning": true, "backend_tool_call": true, "tool_result": true}

// grokLegacyRoles are the roles of the legacy history's rows, as the row
// types they are read as.
var grokLegacyRoles = map[string]string{"system": "system", "user": "user", "assistant": "assistant", "tool": "tool_result"}

// Detect claims a file named *chat_history.jsonl whose first row has a Grok
// row type, or is a legacy row (a role, no type).
func (grokBuild) Detect(name string, head []byte) bool {
	if !strings.HasSuffix(filepath.Base(name), grokAnchor) {
		return false
	}
	return anyJSONL(head, 1, func(r *struct {
		Type string `json:"type"`
		Role string `json:"role"`
	}) bool {
		return grokTypes[r.Type] && r.Role == "" || r.Type == "" && grokLegacyRoles[r.Role] != ""
	})
}

type grRow struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Content   json.RawMessage `json:"content"`
	Summary   json.RawMessage `json:"summary"`
	ModelID   string          `json:"model_id"`
	ToolCalls []struct {
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Function  *struct {       // legacy rows
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	ToolCallID string `json:"tool_call_id"`
	// legacy rows
	Role             string `json:"role"`
	ReasoningContent string `json:"reasoning_content"`
	Kind             *struct {
		ToolType string          `json:"tool_type"`
		Action   json.RawMessage `json:"action"`
		ID       string          `json:"id"`
		Status   string          `json:"status"`
	} `json:"kind"`
}

type grSummary struct {
	Info *struct {
		ID string `json:"id"`
	} `json:"info"`
	CreatedAt       string `json:"created_at"`
	UpdatedAt       string `json:"updated_at"`
	CurrentModelID  string `json:"current_model_id"`
	ParentSessionID string `json:"parent_session_id"`
}

type grSignals struct {
	ContextTokensUsed   int64  `json:"contextTokensUsed"`
	ContextWindowTokens int64  `json:"contextWindowTokens"`
	PrimaryModelID      string `json:"primaryModelId"`
}

func (grokBuild) Import(f *File, r io.Reader) error {
	path := f.Path()
	var sum grSummary
	var sig grSignals
	hasSum := readSibling(siblingPath(path, grokAnchor, "summary.json"), &sum)
	hasSig := readSibling(siblingPath(path, grokAnchor, "signals.json"), &sig)
	id := dirRunID(path, grokAnchor)
	if sum.Info != nil && sum.Info.ID != "" {
		id = sum.Info.ID
	}
	b, err := f.NewRun(id)
	if err != nil {
		return err
	}
	b.Run.Harness = "grok-build"
	var last schema.EventKind
	err = lineReader[grRow]{decode: jsonValue[grRow]}.read(f, r, func(line int64, raw []byte, row *grRow) error {
		if row.Type == "" && row.Role != "" {
			if row.Type = grokLegacyRoles[row.Role]; row.Type == "" {
				return f.Reject(line, "unknown row role "+clipQuote(row.Role), raw)
			}
		}
		if !grokTypes[row.Type] {
			if row.Type == "" {
				return f.Reject(line, "row without a type", raw)
			}
			return f.Reject(line, "unknown row type "+row.Type, raw)
		}
		add := eventAdder(b, nil, line, &last)
		b.NoteModel(row.ModelID)
		switch row.Type {
		case "system":
			return add(schema.Event{Kind: schema.KindSystem, Role: "system", Text: ContentText(row.Content)})
		case "user":
			return add(schema.Event{Kind: schema.KindUser, Role: "user", Text: ContentText(row.Content)})
		case "reasoning":
			text := ContentText(row.Summary)
			if text == "" {
				text = ContentText(row.Content)
			}
			return add(schema.Event{Kind: schema.KindReasoning, Role: "assistant", Text: text})
		case "assistant":
			if strings.TrimSpace(row.ReasoningContent) != "" {
				if err := add(schema.Event{Kind: schema.KindReasoning, Role: "assistant", Text: row.ReasoningContent}); err != nil {
					return err
				}
			}
			if text := ContentText(row.Content); strings.TrimSpace(text) != "" {
				if err := add(schema.Event{Kind: schema.KindAssistant, Role: "assistant", Text: text}); err != nil {
					return err
				}
			}
			for _, tc := range row.ToolCalls {
				name, args := tc.Name, tc.Arguments
				if fn := tc.Function; fn != nil {
					name = firstNonEmpty(name, fn.Name)
					if len(args) == 0 {
						args = fn.Arguments
					}
				}
				if err := add(schema.Event{Kind: schema.KindToolCall, Role: "assistant", ToolName: name, CallID: tc.ID, Args: jsonArgs(args)}); err != nil {
					return err
				}
			}
		case "tool_result":
			return add(schema.Event{Kind: schema.KindToolResult, Role: "tool", CallID: row.ToolCallID, Text: ContentText(row.Content)})
		case "backend_tool_call":
			if row.Kind == nil {
				return f.Reject(line, "backend_tool_call without kind", raw)
			}
			return add(schema.Event{Kind: schema.KindToolCall, Role: "assistant", ToolName: row.Kind.ToolType, CallID: row.Kind.ID, Args: jsonArgs(row.Kind.Action)})
		}
		return nil
	})
	if err != nil {
		return err
	}
	if hasSum {
		b.Run.ParentRunID = sum.ParentSessionID
		b.Run.StartedAt, b.Run.EndedAt = ParseTime(sum.CreatedAt), ParseTime(sum.UpdatedAt)
		b.NoteModel(sum.CurrentModelID)
	}
	if hasSig {
		if sig.ContextWindowTokens > 0 {
			w := sig.ContextWindowTokens
			b.Run.WindowTokens = &w
		}
		b.NoteModel(sig.PrimaryModelID)
		if sig.ContextTokensUsed > 0 && b.Turns() > 0 {
			b.SetUsageAt(b.Turns()-1, schema.Usage{InputTokens: sig.ContextTokensUsed, Model: sig.PrimaryModelID})
		}
	}
	inferEnd(b, last)
	return b.Finish()
}
