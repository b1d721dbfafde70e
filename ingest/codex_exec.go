package ingest

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// codexExec reads what `codex exec --json` prints: JSONL events
// thread.started {thread_id}, turn.started, item.started / item.updated /
// item.completed {item: {id, type, …}}, turn.completed {usage}, turn.failed
// {error: {message}} and error {message}. Items (type, or item_type in Codex
// ≤ 0.4x): reasoning and agent_message (assistant_message) {text},
// command_execution {command, aggregated_output, exit_code, status},
// file_change {changes: [{path, kind}], status}, mcp_tool_call {server, tool,
// arguments, result, error, status}, web_search {query}, todo_list {items},
// error {message}. There are no timestamps and the user's prompt is not
// printed.
//
// Steps per line:
//  1. Decode the event; a line that is not a JSON object, has no type, or
//     whose item is missing or not an object is rejected.
//  2. thread.started opens the run of its thread_id (events before any go to
//     a run named after the file); turn.started opens a turn.
//  3. Items become events: reasoning → reasoning, agent_message →
//     assistant, error → error; command_execution, mcp_tool_call and
//     file_change → a tool_call (at item.started, or at item.completed when
//     it was not started) and a tool_result at item.completed (the item id is
//     the call id; exit code, and is_error from a non-zero exit or a
//     failed/declined status); web_search → a tool_call (its results are not
//     printed); todo_list → a tool_call at item.started and at each
//     item.updated (each is a plan update by the model). Tools are named by
//     item type, MCP tools mcp__<server>__<tool>.
//  4. Model calls: each run of output items (reasoning, messages, tool
//     calls) that follows a turn start or an input (tool result, error) is
//     one call.
//  5. turn.completed's usage covers every model call of the turn: it is
//     recorded on the turn's last call (on a call of its own when the turn
//     logged no output), input including cached_input_tokens, which are
//     cache reads. The turn's other calls have no usage row.
//  6. End: turn.completed → finished, turn.failed and error → error (or
//     context_overflow when the message says so), explicit; the latest wins.
//     A log that stops inside a turn is interrupted (inferred).
type codexExec struct{ formatInfo }

// Detect claims JSONL whose first lines are codex exec events: objects whose
// type starts with "thread.", "turn." or "item.".
func (codexExec) Detect(_ string, head []byte) bool {
	return headLines(head, 10, func(line []byte) (bool, bool) {
		if line[0] != '{' {
			return false, true
		}
		var r struct {
			Type    string          `json:"type"`
			Payload json.RawMessage `json:"payload"`
		}
		if !lineDecodes(line, &r) {
			return false, false // the last line may be cut by the head
		}
		if r.Payload != nil {
			return false, true
		}
		if cxeEventType(r.Type) {
			return true, true
		}
		return false, r.Type != "error"
	})
}

func cxeEventType(t string) bool {
	return strings.HasPrefix(t, "thread.") || strings.HasPrefix(t, "turn.") || strings.HasPrefix(t, "item.")
}

type cxeRecord struct {
	Type     string          `json:"type"`
	ThreadID string          `json:"thread_id"`
	Item     json.RawMessage `json:"item"`
	Usage    *struct {
		InputTokens     int64 `json:"input_tokens"`
		CachedInput     int64 `json:"cached_input_tokens"`
		OutputTokens    int64 `json:"output_tokens"`
		ReasoningOutput int64 `json:"reasoning_output_tokens"`
	} `json:"usage"`
	Error   json.RawMessage `json:"error"`
	Message string          `json:"message"`
}

type cxeItem struct {
	ID               string          `json:"id"`
	Type             string          `json:"type"`
	ItemType         string          `json:"item_type"`
	Text             string          `json:"text"`
	Command          json.RawMessage `json:"command"`
	AggregatedOutput string          `json:"aggregated_output"`
	ExitCode         *int64          `json:"exit_code"`
	Status           string          `json:"status"`
	Changes          []struct {
		Path string `json:"path"`
		Kind string `json:"kind"`
	} `json:"changes"`
	Server    string          `json:"server"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	Result    json.RawMessage `json:"result"`
	Error     json.RawMessage `json:"error"`
	Query     string          `json:"query"`
	Items     json.RawMessage `json:"items"`
	Message   string          `json:"message"`
}

// cxeRun is the state of one thread.
type cxeRun struct {
	b         *RunBuilder
	needCall  bool            // the next output begins a model call
	turnCalls bool            // the open turn has logged a model call
	turnOpen  bool            // a turn started and has not ended
	turnStart int64           // model calls begun before the open turn
	called    map[string]bool // items whose tool_call was emitted, this turn
}

type cxeImport struct {
	f     *File
	runs  map[string]*cxeRun
	order []string
	cur   *cxeRun
}

func (codexExec) Import(f *File, r io.Reader) error {
	ci := &cxeImport{f: f, runs: map[string]*cxeRun{}}
	if err := (lineReader[cxeRecord]{decode: cxeDecode}).read(f, r, ci.line); err != nil {
		return err
	}
	for _, k := range ci.order {
		cr := ci.runs[k]
		run := &cr.b.Run
		if cr.turnOpen && run.EndReasonSource != schema.SourceExplicit {
			run.EndReason, run.EndReasonSource, run.EndReasonDetail = schema.EndInterrupted, schema.SourceInferred, "log ends inside a turn"
		}
		if err := cr.b.Finish(); err != nil {
			return err
		}
	}
	return nil
}

func (ci *cxeImport) run(id string) (*cxeRun, error) {
	if id == "" {
		if ci.cur != nil {
			return ci.cur, nil
		}
		id = strings.TrimSuffix(filepath.Base(ci.f.Path()), filepath.Ext(ci.f.Path()))
	}
	if cr, ok := ci.runs[id]; ok {
		ci.cur = cr
		return cr, nil
	}
	id = strings.Clone(id)
	b, err := ci.f.NewRun(id)
	if err != nil {
		return nil, err
	}
	b.Run.Harness = "codex-cli"
	cr := &cxeRun{b: b, needCall: true, called: map[string]bool{}}
	ci.runs[id] = cr
	ci.order = append(ci.order, id)
	ci.cur = cr
	return cr, nil
}

// cxeDecode decodes a line into a record (a BOM left on line 1 dropped).
func cxeDecode(line int64, raw []byte, rec *cxeRecord) string {
	if line == 1 {
		raw = bytes.TrimPrefix(raw, utf8BOM)
	}
	return decodeRecord(raw, rec)
}

func (ci *cxeImport) line(line int64, raw []byte, rec *cxeRecord) error {
	f := ci.f
	if line == 1 {
		raw = bytes.TrimPrefix(raw, utf8BOM)
	}
	if rec.Type == "" {
		return f.Reject(line, "record without type", raw)
	}
	var it cxeItem
	if strings.HasPrefix(rec.Type, "item.") {
		if len(rec.Item) == 0 || rec.Item[0] != '{' {
			return f.Reject(line, rec.Type+" without an item object", raw)
		}
		if err := json.Unmarshal(rec.Item, &it); err != nil {
			return f.Reject(line, "invalid item: "+clipErr(err), raw)
		}
		if it.Type == "" {
			it.Type = it.ItemType
		}
		if it.Type == "" {
			return f.Reject(line, "item without type", raw)
		}
	}
	if rec.Type == "thread.started" {
		_, err := ci.run(rec.ThreadID)
		return err
	}
	cr, err := ci.run("")
	if err != nil {
		return err
	}
	b := cr.b
	switch rec.Type {
	case "turn.started":
		cr.turnOpen, cr.turnCalls, cr.needCall = true, false, true
		cr.turnStart = b.Turns()
		clear(cr.called)
		b.ClearEnd() // the thread goes on: an earlier turn's end is not the run's
		return nil
	case "turn.completed":
		cr.turnOpen = false
		if u := rec.Usage; u != nil {
			usage := schema.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CacheReadTokens: u.CachedInput, ReasoningTokens: u.ReasoningOutput}
			// a turn's usage sums its model calls: per call it is exact only
			// for a one-call turn, else the row is marked estimated
			usage.Estimated = b.Turns()-cr.turnStart > 1
			if cr.turnCalls {
				b.SetUsage(usage)
			} else {
				b.SetUsageAt(b.Turns(), usage)
			}
		}
		cr.needCall = true
		b.SetEnd(schema.EndFinished, "turn.completed")
		return nil
	case "turn.failed", "error":
		cr.turnOpen = rec.Type == "error" && cr.turnOpen
		msg := rec.Message
		if e := cxeErrorText(rec.Error); e != "" {
			msg = e
		}
		if err := cr.input(schema.Event{Kind: schema.KindError, Role: "system", Line: line, IsError: true, Text: msg}); err != nil {
			return err
		}
		reason := schema.EndError
		if IsOverflowText(msg) {
			reason = schema.EndContextOverflow
		}
		detail := rec.Type
		if msg != "" {
			detail += ": " + clipText(msg)
		}
		b.SetEnd(reason, detail)
		return nil
	case "item.started", "item.updated", "item.completed":
		return cr.item(rec.Type, line, &it)
	}
	return nil // unknown event types of newer versions
}

// output adds an output event, beginning a model call when one is due.
func (cr *cxeRun) output(e schema.Event) error {
	if cr.needCall {
		cr.b.NewCall()
		cr.needCall = false
	}
	cr.turnCalls = true
	e.Role = "assistant"
	return cr.b.Add(e)
}

// input adds an input event; the next output begins a new model call.
func (cr *cxeRun) input(e schema.Event) error {
	cr.needCall = true
	return cr.b.Add(e)
}

func (cr *cxeRun) item(kind string, line int64, it *cxeItem) error {
	started, completed := kind == "item.started", kind == "item.completed"
	call := func(name string, args []byte, target string) error {
		if cr.called[it.ID] && it.ID != "" && it.Type != "todo_list" {
			return nil
		}
		if it.ID != "" {
			cr.called[strings.Clone(it.ID)] = true
		}
		return cr.output(schema.Event{Kind: schema.KindToolCall, ToolName: name, CallID: it.ID, Args: string(args), Target: target, Line: line})
	}
	result := func(name, text string, exit *int64, isErr bool) error {
		return cr.input(schema.Event{Kind: schema.KindToolResult, Role: "tool", ToolName: name, CallID: it.ID, Text: text, ExitCode: exit, IsError: isErr, Line: line})
	}
	failed := it.Status == "failed" || it.Status == "declined"
	switch it.Type {
	case "reasoning":
		if completed {
			return cr.output(schema.Event{Kind: schema.KindReasoning, Text: it.Text, Line: line})
		}
	case "agent_message", "assistant_message":
		if completed {
			return cr.output(schema.Event{Kind: schema.KindAssistant, Text: it.Text, Line: line})
		}
	case "error":
		if completed {
			msg := it.Message
			if msg == "" {
				msg = it.Text
			}
			return cr.input(schema.Event{Kind: schema.KindError, Role: "system", IsError: true, Text: msg, Line: line})
		}
	case "command_execution":
		if started || completed {
			args, _ := json.Marshal(map[string]any{"command": cxeCommand(it.Command)})
			if err := call("command_execution", args, ""); err != nil {
				return err
			}
		}
		if completed {
			text := it.AggregatedOutput
			if text == "" && it.Status == "declined" {
				text = "command declined"
			}
			isErr := failed || it.ExitCode != nil && *it.ExitCode != 0
			return result("command_execution", text, it.ExitCode, isErr)
		}
	case "file_change":
		if started || completed {
			args, _ := json.Marshal(map[string]any{"changes": it.Changes})
			paths := make([]string, 0, len(it.Changes))
			for _, c := range it.Changes {
				if c.Path != "" {
					paths = append(paths, cleanPath(c.Path))
				}
			}
			if err := call("file_change", args, strings.Join(paths, ", ")); err != nil {
				return err
			}
		}
		if completed {
			var sb strings.Builder
			for _, c := range it.Changes {
				sb.WriteString(c.Kind + " " + c.Path + "\n")
			}
			if it.Status != "" {
				sb.WriteString(it.Status)
			}
			return result("file_change", strings.TrimSpace(sb.String()), nil, failed)
		}
	case "mcp_tool_call":
		name := "mcp__" + it.Server + "__" + it.Tool
		if started || completed {
			args := bytes.TrimSpace(it.Arguments)
			if string(args) == "null" {
				args = nil
			}
			if err := call(name, args, ""); err != nil {
				return err
			}
		}
		if completed {
			text := cxeMCPResult(it.Result)
			errText := cxeErrorText(it.Error)
			if errText != "" {
				text = strings.TrimSpace(text + "\n" + errText)
			}
			return result(name, text, nil, failed || errText != "")
		}
	case "web_search":
		if completed || started && it.Query != "" {
			args, _ := json.Marshal(map[string]any{"query": it.Query})
			return call("web_search", args, "")
		}
	case "todo_list":
		if started || kind == "item.updated" || completed && !cr.called[it.ID] {
			args := []byte(`{"items":` + string(cxeOr(it.Items, "[]")) + `}`)
			return call("todo_list", args, "")
		}
	}
	return nil // unknown item types of newer versions
}

func cxeOr(raw json.RawMessage, def string) []byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return []byte(def)
	}
	return raw
}

// cxeCommand returns a command given as a string or an argv array.
func cxeCommand(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var argv []string
	if json.Unmarshal(raw, &argv) == nil {
		return strings.Join(argv, " ")
	}
	return ""
}

// cxeErrorText reads an error given as {message} or a string.
func cxeErrorText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var e struct {
		Message string `json:"message"`
	}
	if raw[0] == '{' && json.Unmarshal(raw, &e) == nil {
		return e.Message
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// cxeMCPResult flattens an MCP result {content: [blocks], structured_content}.
func cxeMCPResult(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var r struct {
		Content    json.RawMessage `json:"content"`
		Structured json.RawMessage `json:"structured_content"`
	}
	if raw[0] != '{' || json.Unmarshal(raw, &r) != nil {
		return ContentText(raw)
	}
	if t := ContentText(r.Content); t != "" {
		return t
	}
	if s := bytes.TrimSpace(r.Structured); len(s) > 0 && string(s) != "null" {
		return string(s)
	}
	return ""
}
