package ingest

import (
	"fmt"
	"io"
	"time"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// gooseJSONL reads Goose's session files from before its SQLite store
// (Goose 1.0 to 1.9: ~/.local/share/goose/sessions/<id>.jsonl; from 1.10
// the sessions are in sessions.db, goose_db.go). Goose rewrites the whole
// file on each save: the first line is the session's metadata
// {working_dir, description, schedule_id, message_count, total_tokens,
// input_tokens, output_tokens, accumulated_total_tokens,
// accumulated_input_tokens, accumulated_output_tokens}, then one message a
// line {id, role, created, content[]} (Goose's storage.rs; its reader
// takes a first line that is not metadata for a message).
//
// Steps per line:
//  1. The first line with no role and description and message_count is
//     the metadata (kept for step 4); such a line further on, or a first
//     line that is neither metadata nor a message, is rejected (Goose
//     itself passes over what it cannot read).
//  2. A message: role user or assistant (another, or none, is a reject),
//     created (Unix seconds) its time, content an array of blocks (else a
//     reject) read as goose-sessions-db reads a row's content_json: text →
//     user or assistant text; thinking → reasoning; image → "[image]";
//     toolRequest / frontendToolRequest {id, toolCall{status, value{name,
//     arguments}}} → a tool call (a failed request: an error event);
//     toolResponse {id, toolResult{status, value: [content] or
//     {content[]} | error}} → its result, linked by id. Blocks shown to the
//     user only (toolConfirmationRequest …) and redactedThinking are not
//     events; a block of another type is rejected at its first line, once
//     per type and file.
//  3. The run is the file: its id is the file name (Goose's session id),
//     harness goose. The messages name no model.
//  4. Usage: the metadata's accumulated_input_tokens and
//     accumulated_output_tokens (Goose 1.0.18+) are the run's logged
//     totals; its input_tokens and output_tokens are the provider's last
//     usage, set on the last model call. Without metadata, usage is
//     estimated.
//  5. The end reason is inferred from the last event.
type gooseJSONL struct{ formatInfo }

// gjLine is a line of a session file: a message or the metadata.
type gjLine struct {
	Role    string          `json:"role"`
	Created *float64        `json:"created"`
	Content json.RawMessage `json:"content"`

	Description  *string `json:"description"`
	MessageCount *int64  `json:"message_count"`
	InputTokens  *int64  `json:"input_tokens"`
	OutputTokens *int64  `json:"output_tokens"`
	AccInput     *int64  `json:"accumulated_input_tokens"`
	AccOutput    *int64  `json:"accumulated_output_tokens"`
}

// isMeta reports whether a line is Goose's session metadata.
func (l *gjLine) isMeta() bool {
	return l.Role == "" && l.Description != nil && l.MessageCount != nil
}

// Detect claims JSONL whose first line is Goose's metadata (description,
// message_count and working_dir) or any object, and whose other lines (of
// the first 30) are all messages {role: user|assistant, created: a
// number, content: [blocks with a type]}, with metadata or at least one
// message.
func (gooseJSONL) Detect(name string, head []byte) bool {
	lines := firstLines(head, 30)
	msgs, meta := 0, false
	for i, line := range lines {
		var keys map[string]json.RawMessage
		if !lineDecodes(line, &keys) {
			return (msgs > 0 || meta) && i == len(lines)-1 // a last line cut by the head
		}
		if gjMessage(keys) {
			msgs++
			continue
		}
		if i > 0 {
			return false
		}
		meta = keys["role"] == nil && keys["description"] != nil && keys["message_count"] != nil && keys["working_dir"] != nil
	}
	return msgs > 0 || meta
}

// gjMessage reports whether a line's keys are a Goose message's.
func gjMessage(keys map[string]json.RawMessage) bool {
	var role string
	if json.Unmarshal(keys["role"], &role) != nil || role != "user" && role != "assistant" {
		return false
	}
	var created float64
	if json.Unmarshal(keys["created"], &created) != nil {
		return false
	}
	var blocks []map[string]json.RawMessage
	if json.Unmarshal(keys["content"], &blocks) != nil {
		return false
	}
	for _, b := range blocks {
		if b["type"] == nil {
			return false
		}
	}
	return true
}

func (gooseJSONL) Import(f *File, r io.Reader) error {
	var b *RunBuilder
	var meta *gjLine
	var last schema.EventKind
	unknown := map[string]bool{}
	first := true
	err := lineReader[gjLine]{}.read(f, r, func(line int64, raw []byte, l *gjLine) error {
		isFirst := first
		first = false
		if l.Role == "" {
			switch {
			case l.isMeta() && isFirst:
				m := *l
				meta = &m
				return nil
			case l.isMeta():
				return f.Reject(line, "session metadata (description, message_count) after the first line: not read", raw)
			case isFirst:
				return f.Reject(line, "first line is neither Goose's session metadata (description, message_count) nor a message: not read", raw)
			}
			return f.Reject(line, "message without a role", raw)
		}
		kind := schema.KindUser
		switch l.Role {
		case "user":
		case "assistant":
			kind = schema.KindAssistant
		default:
			return f.Reject(line, fmt.Sprintf("unknown role %q", l.Role), raw)
		}
		var blocks []json.RawMessage
		if err := json.Unmarshal(l.Content, &blocks); err != nil {
			return f.Reject(line, "content is not an array of blocks: "+clipErr(err), raw)
		}
		if b == nil {
			var err error
			if b, err = f.NewRun(fileStem(f.Path())); err != nil {
				return err
			}
			b.Run.Harness = "goose"
		}
		var ts *time.Time
		if l.Created != nil {
			t := time.Unix(0, int64(*l.Created*1e9)).UTC()
			ts = &t
		}
		add := eventAdder(b, ts, line, &last)
		for _, rb := range blocks {
			var blk gsBlock
			if err := json.Unmarshal(rb, &blk); err != nil {
				if err := f.Reject(line, "content block: "+clipErr(err), rb); err != nil {
					return err
				}
				continue
			}
			var err error
			switch blk.Type {
			case "text":
				err = add(schema.Event{Kind: kind, Role: l.Role, Text: blk.Text})
			case "thinking":
				err = add(schema.Event{Kind: schema.KindReasoning, Role: l.Role, Text: blk.Thinking})
			case "image":
				err = add(schema.Event{Kind: kind, Role: l.Role, Text: "[image]"})
			case "toolRequest", "frontendToolRequest":
				err = gsToolCall(add, l.Role, &blk)
			case "toolResponse":
				err = gsToolResult(add, &blk)
			default:
				if gsUserOnly[blk.Type] || unknown[blk.Type] {
					continue
				}
				unknown[blk.Type] = true
				err = f.Reject(line, fmt.Sprintf("content block type %q unknown: not imported (further blocks of this type in this file are skipped without a reject)", blk.Type), rb)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil || b == nil {
		return err
	}
	if meta != nil {
		if meta.AccInput != nil || meta.AccOutput != nil {
			b.SetLoggedTotals(schema.Usage{InputTokens: gjCount(meta.AccInput), OutputTokens: gjCount(meta.AccOutput)})
		}
		if (meta.InputTokens != nil || meta.OutputTokens != nil) && b.Turns() > 0 {
			b.SetUsageAt(b.Turns()-1, schema.Usage{InputTokens: gjCount(meta.InputTokens), OutputTokens: gjCount(meta.OutputTokens)})
		}
	}
	inferEnd(b, last)
	return b.Finish()
}

// gjCount is a metadata count, 0 when absent.
func gjCount(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
