package ingest

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// factoryDroidExec reads the stdout of `droid exec --output-format
// stream-json`: flat events, each with type, session_id (sessionId in
// other builds) and timestamp (ISO or epoch milliseconds).
//
// Steps per line:
//  1. Decode the event; a line that is not a JSON object or has no type is
//     rejected.
//  2. The run is session_id or sessionId (else the file name); system
//     gives the model and cwd.
//  3. message → a user or assistant event (role, text); tool_call
//     {toolCallId, toolName, parameters} → a tool call; tool_result
//     {toolCallId, value} → its result (builds that write sessionId key
//     both by id instead of toolCallId; value.stdout or the value's text;
//     a non-zero value.exitCode, isError or an error marks an error);
//     completion {finalText} → the final assistant reply and an explicit
//     end (finished); error → an error event and end error.
//  4. Each run of assistant output after an input is one model call (the
//     events carry no response ids). Usage {input_tokens, output_tokens,
//     cache_read_input_tokens, cache_creation_input_tokens}, as in
//     Claude's stream-json: on completion it is the run's total (the
//     run's logged totals, not a call's usage); on another event, that
//     call's.
type factoryDroidExec struct{ formatInfo }

// Detect claims JSONL of events with a session_id (or sessionId) and a
// Droid exec type: message {role, text}, tool_call / tool_result
// {toolCallId, or id and toolId} or completion {finalText}.
func (factoryDroidExec) Detect(name string, head []byte) bool {
	return anyJSONL(head, 30, func(e *struct {
		Type       string  `json:"type"`
		SessionID  string  `json:"session_id"`
		SessionID2 string  `json:"sessionId"`
		Role       string  `json:"role"`
		Text       *string `json:"text"`
		ToolCallID *string `json:"toolCallId"`
		ID         *string `json:"id"`
		ToolID     *string `json:"toolId"`
		FinalText  *string `json:"finalText"`
	}) bool {
		switch {
		case e.SessionID == "" && e.SessionID2 == "":
			return false
		case e.Type == "message":
			return e.Role != "" && e.Text != nil
		case e.Type == "tool_call", e.Type == "tool_result":
			return e.ToolCallID != nil || e.ID != nil && e.ToolID != nil
		case e.Type == "completion":
			return e.FinalText != nil
		}
		return false
	})
}

type fxEvent struct {
	Type       string          `json:"type"`
	SessionID  string          `json:"session_id"`
	SessionID2 string          `json:"sessionId"`
	ID         string          `json:"id"`
	Timestamp  json.RawMessage `json:"timestamp"`
	Model      string          `json:"model"`
	Role       string          `json:"role"`
	Text       string          `json:"text"`
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Parameters json.RawMessage `json:"parameters"`
	Value      json.RawMessage `json:"value"`
	IsError    bool            `json:"isError"`
	Error      json.RawMessage `json:"error"`
	FinalText  *string         `json:"finalText"`
	Message    string          `json:"message"`
	Usage      *ccUsage        `json:"usage"` // as in Claude's stream-json
}

// callID is a tool event's call id: toolCallId, else id (the builds that
// write sessionId key tool events by id).
func (e *fxEvent) callID() string { return firstNonEmpty(e.ToolCallID, e.ID) }

func (factoryDroidExec) Import(f *File, r io.Reader) error {
	var b *RunBuilder
	var last schema.EventKind
	err := lineReader[fxEvent]{decode: jsonValue[fxEvent]}.read(f, r, func(line int64, raw []byte, e *fxEvent) error {
		if e.Type == "" {
			return f.Reject(line, "event without a type", raw)
		}
		if b == nil {
			id := firstNonEmpty(e.SessionID, e.SessionID2)
			if id == "" {
				id = strings.TrimSuffix(filepath.Base(f.Path()), filepath.Ext(f.Path()))
			}
			var err error
			if b, err = f.NewRun(strings.Clone(id)); err != nil {
				return err
			}
			b.Run.Harness = "factory-droid"
		}
		var ts any
		_ = json.Unmarshal(e.Timestamp, &ts)
		add := eventAdder(b, ParseTime(ts), line, &last)
		var err error
		switch e.Type {
		case "system":
			b.NoteModel(e.Model)
		case "message":
			kind := schema.KindUser
			if e.Role == "assistant" {
				kind = schema.KindAssistant
			}
			err = add(schema.Event{Kind: kind, Role: e.Role, Text: e.Text})
		case "tool_call":
			err = add(schema.Event{Kind: schema.KindToolCall, Role: "assistant", ToolName: e.ToolName, CallID: e.callID(), Args: jsonArgs(e.Parameters)})
		case "tool_result":
			ev := schema.Event{Kind: schema.KindToolResult, Role: "tool", CallID: e.callID(), IsError: e.IsError || len(e.Error) > 0 && string(e.Error) != "null"}
			var v struct {
				Stdout   *string `json:"stdout"`
				Stderr   string  `json:"stderr"`
				ExitCode *int64  `json:"exitCode"`
			}
			ev.Text = jsonString(e.Value)
			if bytes.HasPrefix(bytes.TrimSpace(e.Value), []byte("{")) && json.Unmarshal(e.Value, &v) == nil && v.Stdout != nil {
				ev.Text = *v.Stdout + v.Stderr
				ev.ExitCode = v.ExitCode
				if v.ExitCode != nil && *v.ExitCode != 0 {
					ev.IsError = true
				}
			}
			if ev.Text == "" && ev.IsError {
				ev.Text = jsonString(e.Error)
			}
			err = add(ev)
		case "completion":
			if e.FinalText != nil && strings.TrimSpace(*e.FinalText) != "" {
				err = add(schema.Event{Kind: schema.KindAssistant, Role: "assistant", Text: *e.FinalText})
			}
			b.SetEnd(schema.EndFinished, "completion")
		case "error":
			err = add(schema.Event{Kind: schema.KindError, Role: "system", IsError: true, Text: e.Message + jsonString(e.Error)})
			b.SetEnd(schema.EndError, e.Message)
		}
		if err == nil && e.Usage != nil {
			u := e.Usage.usage()
			if e.Type == "completion" {
				b.SetLoggedTotals(u)
			} else {
				u.Model = e.Model
				b.SetUsage(u)
			}
		}
		return err
	})
	if err != nil || b == nil {
		return err
	}
	inferEnd(b, last)
	return b.Finish()
}
