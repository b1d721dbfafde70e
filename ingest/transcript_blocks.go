package ingest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// Small building blocks shared by the importers of agent stores that copy
// Claude Code's Anthropic-style content blocks (factory-droid,
// cursor-agent-transcripts) and by the other importers added with them
// (issue 21): a block decoder, a linker for tool calls and results that
// lack ids, an inferred end reason, the end a resumed session forgets, and a
// sibling-file reader.

// tbBlock is one Anthropic-style content block (also the body of claude-code's
// ccBlock and cline's clBlock): text, thinking, tool_use or
// tool_result.
type tbBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// tbBlocks decodes message content: a string (one text block) or a list of
// blocks. ok is false when it is neither.
func tbBlocks(raw json.RawMessage) (blocks []tbBlock, ok bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, true
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, false
		}
		return []tbBlock{{Type: "text", Text: s}}, true
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return nil, false
	}
	return blocks, true
}

// tbEmit adds the events of one message's blocks: text → role's kind
// (assistant for assistant, else user), thinking → reasoning, tool_use
// (Cursor's tool_call) → tool call, tool_result (Cursor's tool-result) →
// tool result, a block of another type with text → role's kind (what the
// model was shown or wrote). Calls and results are linked
// through q (ids assigned where the log has none). It returns the kind of
// the last event added ("" when none).
func tbEmit(b *RunBuilder, q *callLinker, role string, blocks []tbBlock, ts *time.Time, line int64) (schema.EventKind, error) {
	var last schema.EventKind
	add := eventAdder(b, ts, line, &last)
	for _, blk := range blocks {
		var err error
		switch blk.Type {
		case "thinking":
			err = add(schema.Event{Kind: schema.KindReasoning, Role: "assistant", Text: blk.Thinking + blk.Text})
		case "tool_use", "tool_call":
			id := q.call(blk.ID)
			err = add(schema.Event{Kind: schema.KindToolCall, Role: "assistant", ToolName: blk.Name, CallID: id, Args: string(rawOr(blk.Input, "{}"))})
		case "tool_result", "tool-result":
			id, key := q.result(blk.ToolUseID)
			err = add(schema.Event{Kind: schema.KindToolResult, Role: "tool", CallID: id, ToolKey: key, Text: ContentText(blk.Content), IsError: blk.IsError})
		default: // text, and blocks of other types that carry text
			if strings.TrimSpace(blk.Text) == "" {
				continue
			}
			kind := schema.KindUser
			if role == "assistant" {
				kind = schema.KindAssistant
			}
			err = add(schema.Event{Kind: kind, Role: role, Text: blk.Text})
		}
		if err != nil {
			return last, err
		}
	}
	return last, nil
}

func rawOr(raw json.RawMessage, def string) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
		return json.RawMessage(def)
	}
	return raw
}

// callLinker links tool results to tool calls in logs whose calls or
// results may lack ids. The rule:
//  1. a call keeps its logged id; a call without one gets "call-<n>"
//     (n counts the run's calls from 1);
//  2. a result whose id names an open call answers that call;
//  3. any other result answers the oldest open call (calls are answered in
//     the order they were made), keeping its own logged id, if any, as its
//     tool key;
//  4. a result with no open call left stays unlinked, under its own id.
type callLinker struct {
	open []string
	n    int
}

func (q *callLinker) call(id string) string {
	q.n++
	if id == "" {
		id = "call-" + strconv.Itoa(q.n)
	}
	q.open = append(q.open, id)
	return id
}

// result returns the call id a result answers and its tool key ("" for the
// default: the call id).
func (q *callLinker) result(id string) (callID, key string) {
	for i, c := range q.open {
		if id != "" && c == id {
			q.open = append(q.open[:i], q.open[i+1:]...)
			return id, ""
		}
	}
	if len(q.open) > 0 {
		c := q.open[0]
		q.open = q.open[1:]
		return c, id
	}
	return id, ""
}

// drop forgets the open calls (no result will answer them).
func (q *callLinker) drop() { q.open = q.open[:0] }

// hasOpen reports whether some call has no result yet.
func (q *callLinker) hasOpen() bool { return len(q.open) > 0 }

// eventAdder returns the add of one record's events: it stamps each event
// with ts and line, notes its kind in *last (what inferEnd is given once the
// log has been read) and adds it to b.
func eventAdder(b *RunBuilder, ts *time.Time, line int64, last *schema.EventKind) func(schema.Event) error {
	return func(e schema.Event) error {
		e.TS, e.Line = ts, line
		*last = e.Kind
		return b.Add(e)
	}
}

// resumeRun forgets an end the log stated when the session goes on after it
// (the user starts another turn, the model replies again): that end was not
// the run's.
func resumeRun(b *RunBuilder) {
	if b.Run.EndReasonSource == schema.SourceExplicit {
		b.ClearEnd()
	}
}

// inferEnd sets an inferred end reason from the last event's kind, unless
// the log stated one.
func inferEnd(b *RunBuilder, last schema.EventKind) {
	if b.Run.EndReasonSource == schema.SourceExplicit {
		return
	}
	switch last {
	case schema.KindAssistant:
		b.Run.EndReason, b.Run.EndReasonDetail = schema.EndFinished, "log ends on an assistant reply without a tool call"
	case schema.KindError:
		b.Run.EndReason, b.Run.EndReasonDetail = schema.EndError, "log ends on an error"
	case schema.KindToolCall:
		b.Run.EndReasonDetail = "log ends on a tool call without its result"
	case "":
		b.Run.EndReasonDetail = "no events"
	default:
		b.Run.EndReasonDetail = "log ends before the model's reply"
	}
	b.Run.EndReasonSource = schema.SourceInferred
}

// siblingPath returns the path of a file read next to path: path with its
// file name's suffix anchor replaced by sibling ("" when the name does not
// end in anchor). Both the real layout (<dir>/chat_history.jsonl) and a
// flattened copy (<dir>/<prefix>chat_history.jsonl) are covered.
func siblingPath(path, anchor, sibling string) string {
	if !strings.HasSuffix(path, anchor) {
		return ""
	}
	return strings.TrimSuffix(path, anchor) + sibling
}

// readSibling reads a small sibling JSON file into v. It reports whether
// the file was there and decoded; a missing or unreadable sibling is not an
// error (the anchor file is imported without what it would add).
func readSibling(path string, v any) bool {
	if path == "" {
		return false
	}
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() || st.Size() > 16<<20 {
		return false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	data, _ = repairJSONText(trimBOM(data)) // metadata: repaired, not counted
	return json.Unmarshal(data, v) == nil
}

// dirRunID returns the run id of a file named anchor, which the tool
// writes into a directory of its own (the session's): the directory's
// name. For any other file name, or a file at the root of a relative path,
// it is the file name without its extension.
func dirRunID(path, anchor string) string {
	if filepath.Base(path) == anchor {
		if d := filepath.Base(filepath.Dir(path)); d != "." && d != string(filepath.Separator) {
			return d
		}
	}
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

// oaToolCall is a tool call as OpenAI's chat completions log it (and the
// harnesses that copy them): {id, function: {name, arguments}}.
type oaToolCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// oaAssistant adds the events of an OpenAI-style assistant message as a
// new model call: its reasoning and its text (each unless blank), then its
// tool calls (arguments as jsonArgs gives them). add stamps and adds one
// event.
func oaAssistant(b *RunBuilder, reasoning, text string, calls []oaToolCall, add func(schema.Event) error) error {
	b.NewCall()
	if strings.TrimSpace(reasoning) != "" {
		if err := add(schema.Event{Kind: schema.KindReasoning, Role: "assistant", Text: reasoning}); err != nil {
			return err
		}
	}
	if strings.TrimSpace(text) != "" {
		if err := add(schema.Event{Kind: schema.KindAssistant, Role: "assistant", Text: text}); err != nil {
			return err
		}
	}
	for _, tc := range calls {
		if err := add(schema.Event{Kind: schema.KindToolCall, Role: "assistant", ToolName: tc.Function.Name, CallID: tc.ID, Args: jsonArgs(tc.Function.Arguments)}); err != nil {
			return err
		}
	}
	return nil
}
