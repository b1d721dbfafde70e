package ingest

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// kiroCLI reads a Kiro CLI conversation: the JSON value of one row of the
// conversations table of ~/.local/share/kiro-cli/data.sqlite3, saved as a
// .json file (trajmine does not open the SQLite store itself). The layout
// is Amazon Q Developer CLI's "ConversationState": conversation_id and
// history[] of {user, assistant, request_metadata} (older files: pairs
// [user, assistant]), with Rust enums written as externally tagged JSON
// ({"Prompt": {…}}).
//
// Steps:
//  1. Read the document (jsonDoc); a file that is not a JSON object, or
//     has no history array, is one reject (at the line of a syntax error). Each history entry keeps the line it
//     starts on; an entry that is not an object, or whose user or assistant
//     variant is unknown, is rejected and the rest imports.
//  2. user.content: Prompt{prompt} → a user event; ToolUseResults /
//     CancelledToolUses {tool_use_results[{tool_use_id, content[{Text} |
//     {Json}], status}]} → tool results linked by tool_use_id (a Json
//     block with stdout/stderr is that text; status Error, a non-zero
//     exit_status or a cancelled use marks an error; CancelledToolUses'
//     prompt is a user event too). user.timestamp is their time.
//  3. assistant: Response{message_id, content} or ToolUse{message_id,
//     content, tool_uses[{id, name, args}]} → one model call per
//     message_id: text and tool calls, timed by
//     request_metadata.stream_end_timestamp_ms; request_metadata.model_id
//     (or the document's model / model_info.model_id) names the model, and
//     model_info.context_window_tokens is the run's window.
//  4. latest_summary, when set (the history was compacted with /compact),
//     → a compaction event with a summary op before the history.
//  5. There are no token counts; the end reason is inferred from the last
//     event. transcript[] is the UI's rendering and is not read.
type kiroCLI struct{ formatInfo }

// Detect claims a JSON object with conversation_id and history.
func (kiroCLI) Detect(name string, head []byte) bool {
	return hasKeys(topKeys(head), "conversation_id", "history")
}

type kiDoc struct {
	ConversationID string `json:"conversation_id"`
	Model          string `json:"model"`
	ModelInfo      *struct {
		ModelID       string `json:"model_id"`
		ContextWindow int64  `json:"context_window_tokens"`
	} `json:"model_info"`
	LatestSummary json.RawMessage `json:"latest_summary"`
}

type kiToolResults struct {
	Prompt  string `json:"prompt"`
	Results []struct {
		ToolUseID string          `json:"tool_use_id"`
		Content   []kiResultBlock `json:"content"`
		Status    string          `json:"status"`
	} `json:"tool_use_results"`
}

type kiResultBlock struct {
	Text *string         `json:"Text"`
	JSON json.RawMessage `json:"Json"`
}

type kiUser struct {
	Content struct {
		Prompt *struct {
			Prompt string `json:"prompt"`
		} `json:"Prompt"`
		ToolUseResults    *kiToolResults `json:"ToolUseResults"`
		CancelledToolUses *kiToolResults `json:"CancelledToolUses"`
	} `json:"content"`
	Timestamp string `json:"timestamp"`
}

type kiAssistantEnum struct {
	Response *kiAssistant `json:"Response"`
	ToolUse  *kiAssistant `json:"ToolUse"`
}

type kiEntry struct {
	User            *kiUser          `json:"user"`
	Assistant       *kiAssistantEnum `json:"assistant"`
	RequestMetadata *struct {
		StreamEnd *float64 `json:"stream_end_timestamp_ms"`
		ModelID   string   `json:"model_id"`
	} `json:"request_metadata"`
}

// kiDecodeEntry decodes one history entry: an object {user, assistant,
// request_metadata}, or the older pair [user message, assistant message].
func kiDecodeEntry(raw json.RawMessage, e *kiEntry) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	switch raw[0] {
	case '{':
		return json.Unmarshal(raw, e) == nil
	case '[':
		var pair []json.RawMessage
		if json.Unmarshal(raw, &pair) != nil || len(pair) == 0 || len(pair) > 2 {
			return false
		}
		e.User = &kiUser{}
		if json.Unmarshal(pair[0], e.User) != nil {
			return false
		}
		if len(pair) == 2 && string(bytes.TrimSpace(pair[1])) != "null" {
			e.Assistant = &kiAssistantEnum{}
			return json.Unmarshal(pair[1], e.Assistant) == nil
		}
		return true
	}
	return false
}

// kiResultText flattens a tool result's content blocks: Text as is, Json
// with stdout/stderr (execute_bash) as their text, other Json as JSON. A
// non-zero exit_status marks an error.
func kiResultText(blocks []kiResultBlock) (text string, failed bool) {
	var parts []string
	for _, p := range blocks {
		switch {
		case p.Text != nil:
			parts = append(parts, *p.Text)
		case len(p.JSON) > 0:
			var sh struct {
				Stdout     *string         `json:"stdout"`
				Stderr     string          `json:"stderr"`
				ExitStatus json.RawMessage `json:"exit_status"`
			}
			if json.Unmarshal(p.JSON, &sh) == nil && sh.Stdout != nil {
				parts = append(parts, *sh.Stdout+sh.Stderr)
				if st := strings.Trim(string(sh.ExitStatus), `" `); st != "" && st != "0" && st != "null" {
					failed = true
				}
			} else {
				parts = append(parts, string(p.JSON))
			}
		}
	}
	return strings.Join(parts, "\n"), failed
}

type kiAssistant struct {
	MessageID string `json:"message_id"`
	Content   string `json:"content"`
	ToolUses  []struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"tool_uses"`
}

func (kiroCLI) Import(f *File, r io.Reader) error {
	var doc kiDoc
	d, fields, hist, b, err := docRun(f, r, &doc, "conversation", "history", func() string { return doc.ConversationID })
	if err != nil || b == nil {
		return err
	}
	b.Run.Harness = "kiro-cli"
	b.Run.Model = doc.Model
	if mi := doc.ModelInfo; mi != nil {
		if b.Run.Model == "" {
			b.Run.Model = mi.ModelID
		}
		if mi.ContextWindow > 0 {
			w := mi.ContextWindow
			b.Run.WindowTokens = &w
		}
	}
	var last schema.EventKind
	if s := kiSummary(doc.LatestSummary); s != "" {
		if err := b.Add(schema.Event{Kind: schema.KindCompaction, Role: "system", Text: s, Line: d.line(fields["latest_summary"].off)}); err != nil {
			return err
		}
		if err := b.Op(schema.ContextOp{Op: schema.OpSummary, Trigger: "manual", Detail: "latest_summary"}); err != nil {
			return err
		}
	}
	for i, el := range hist {
		line := d.line(el.off)
		var e kiEntry
		if !kiDecodeEntry(el.raw, &e) {
			if err := f.Reject(line, fmt.Sprintf("history[%d] is neither an entry object nor a [user, assistant] pair", i), el.raw); err != nil {
				return err
			}
			continue
		}
		add := func(ev schema.Event) error {
			ev.Line = line
			last = ev.Kind
			return b.Add(ev)
		}
		if u := e.User; u != nil {
			ts := ParseTime(u.Timestamp)
			c := &u.Content
			switch {
			case c.Prompt != nil:
				err = add(schema.Event{Kind: schema.KindUser, Role: "user", TS: ts, Text: c.Prompt.Prompt})
			case c.ToolUseResults != nil || c.CancelledToolUses != nil:
				tr, cancelled := c.ToolUseResults, false
				if tr == nil {
					tr, cancelled = c.CancelledToolUses, true
				}
				for _, res := range tr.Results {
					text, failed := kiResultText(res.Content)
					if err = add(schema.Event{Kind: schema.KindToolResult, Role: "tool", TS: ts, CallID: res.ToolUseID, Text: text,
						IsError: cancelled || failed || strings.EqualFold(res.Status, "error")}); err != nil {
						break
					}
				}
				if err == nil && cancelled && strings.TrimSpace(tr.Prompt) != "" {
					err = add(schema.Event{Kind: schema.KindUser, Role: "user", TS: ts, Text: tr.Prompt})
				}
			default:
				err = f.Reject(line, fmt.Sprintf("history[%d]: unknown user content variant", i), el.raw)
			}
			if err != nil {
				return err
			}
		}
		if a := e.Assistant; a != nil {
			m := a.Response
			if m == nil {
				m = a.ToolUse
			}
			if m == nil {
				if err := f.Reject(line, fmt.Sprintf("history[%d]: unknown assistant variant", i), el.raw); err != nil {
					return err
				}
				continue
			}
			var ts any
			if md := e.RequestMetadata; md != nil {
				b.NoteModel(md.ModelID)
				if md.StreamEnd != nil {
					ts = *md.StreamEnd
				}
			}
			at := ParseTime(ts)
			b.Call(m.MessageID)
			if strings.TrimSpace(m.Content) != "" {
				if err := add(schema.Event{Kind: schema.KindAssistant, Role: "assistant", TS: at, Text: m.Content}); err != nil {
					return err
				}
			}
			for _, tu := range m.ToolUses {
				if err := add(schema.Event{Kind: schema.KindToolCall, Role: "assistant", TS: at, ToolName: tu.Name, CallID: tu.ID, Args: jsonArgs(tu.Args)}); err != nil {
					return err
				}
			}
		}
	}
	inferEnd(b, last)
	return b.Finish()
}

// kiSummary returns latest_summary's text: a string, or the first element
// of a [text, metadata] pair.
func kiSummary(raw json.RawMessage) string {
	s, raw, ok := stringValue(raw)
	if ok {
		return s
	}
	var pair []json.RawMessage
	if json.Unmarshal(raw, &pair) == nil && len(pair) > 0 && json.Unmarshal(pair[0], &s) == nil {
		return s
	}
	return ""
}
