package ingest

import (
	"fmt"
	"maps"
	"regexp"
	"strings"
	"time"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// History mode of clineTask (cline_task_folder.go): the task folder's run read
// from api_conversation_history.json, with the ui_messages.json beside it
// for usage, times, context records and the end.
//
// Steps:
//  1. Each message is {role: user|assistant, content, ts?}, content a text
//     or a list of Anthropic blocks; a message that is not an object, has
//     another role, or content of another shape is rejected at its line.
//  2. An assistant message is one model call. The k-th api_req_started
//     record of ui_messages.json is its request (requests and responses
//     come in the same order): its usage, cost and time (cline_task_folder.go
//     step 3). A response without a record has no usage; a record left
//     over is a model call without events.
//  3. An assistant message's blocks: thinking → reasoning; tool_use → a
//     tool call with its id; text → assistant text. When the message has
//     no tool_use block, its text is read for the tool uses older versions
//     write as XML (<read_file><path>a.go</path></read_file>, one tag per
//     parameter; the tool tags are ctXMLTools and every tool a result
//     marker of the history names): each is a tool call, its parameters
//     the arguments; <thinking>…</thinking> is reasoning.
//  4. A user message's blocks: tool_result → the result of the call it
//     names (tool_use_id); a text block that starts with a result marker,
//     "[<tool>] Result:" or "[<tool> for '<arg>'] Result:", begins a tool
//     result, which the text blocks after it continue up to the next
//     marker or an <environment_details> block; other text → user events.
//     A result without an id answers the oldest call of the assistant
//     message before it still open (callLinker); the calls an assistant
//     message leaves open are dropped when the next one begins (their
//     results, if any, were in the user message between).
//  5. <model>…</model> in a user message's environment_details (Roo, Kilo)
//     is the model of the calls after it, unless a request record names
//     its own (modelInfo).
//  6. The Roo context records of ui_messages.json (condense_context,
//     sliding_window_truncation) are placed before the assistant message
//     of the request after them.
//  7. End: cline_task_folder.go step 4 from ui_messages.json; else a last tool
//     call attempt_completion (Cline's way to finish) → finished; else
//     inferred from the last event.

// ctHistMsg is one message of api_conversation_history.json.
type ctHistMsg struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	TS      any             `json:"ts"`
}

// ctXMLTools are the tools Cline, Roo Code and Kilo Code call in XML.
var ctXMLTools = map[string]bool{
	"execute_command": true, "read_file": true, "write_to_file": true, "replace_in_file": true, "apply_diff": true,
	"insert_content": true, "search_and_replace": true, "search_files": true, "list_files": true,
	"list_code_definition_names": true, "codebase_search": true, "browser_action": true, "use_mcp_tool": true,
	"access_mcp_resource": true, "ask_followup_question": true, "plan_mode_respond": true, "attempt_completion": true,
	"new_task": true, "switch_mode": true, "fetch_instructions": true, "load_mcp_documentation": true,
	"web_fetch": true, "condense": true, "summarize_task": true, "report_bug": true, "new_rule": true,
	"update_todo_list": true, "run_slash_command": true, "edit_file": true,
}

var (
	ctMarker   = regexp.MustCompile(`^\s*\[([A-Za-z0-9_.:-]+)(?: for '(?s:.*?)')?\] Result:`)
	ctTag      = regexp.MustCompile(`<([a-z][a-z0-9_]*)>`)
	ctEnvModel = regexp.MustCompile(`<model>([^<]*)</model>`)
)

// ctResultMarker reports whether text starts with a result marker, and
// returns the tool it names and the text after it.
func ctResultMarker(text string) (tool, rest string, ok bool) {
	loc := ctMarker.FindStringSubmatchIndex(text)
	if loc == nil {
		return "", "", false
	}
	return text[loc[2]:loc[3]], strings.TrimLeft(text[loc[1]:], " \t\r\n"), true
}

// ctHistAt is a message of the history with its blocks and line.
type ctHistAt struct {
	m      *ctHistMsg
	blocks []tbBlock
	line   int64
}

// ctHistoryRun builds the run of a task folder from its history d and the
// records of the ui_messages.json beside it (nil: none).
func ctHistoryRun(f *File, d *jsonDoc, ui []*ctUIMsg) error {
	if d.root.raw[0] != '[' {
		return f.Reject(1, "expected a JSON array of messages", d.data)
	}
	elems, err := arrayElems(d.root)
	if err != nil {
		return d.syntax(f, err)
	}
	tools := maps.Clone(ctXMLTools)
	var msgs []ctHistAt
	err = decodeElems(f, d, elems, "messages[%d]", func(i int, line int64, el jsonSpan, m *ctHistMsg) error {
		if m.Role != "user" && m.Role != "assistant" {
			return f.Reject(line, fmt.Sprintf("messages[%d]: unknown role %s", i, clipQuote(m.Role)), el.raw)
		}
		blocks, ok := tbBlocks(m.Content)
		if !ok {
			return f.Reject(line, fmt.Sprintf("messages[%d]: content is neither text nor a list of blocks", i), el.raw)
		}
		if m.Role == "user" {
			for _, blk := range blocks {
				if name, _, ok := ctResultMarker(blk.Text); ok && blk.Type == "text" {
					tools[name] = true
				}
			}
		}
		msgs = append(msgs, ctHistAt{m, blocks, line})
		return nil
	})
	if err != nil {
		return err
	}
	b, err := ctNewRun(f, ctHistoryName, ui)
	if err != nil {
		return err
	}
	h := &ctHist{b: b, tools: tools}
	var reqs []*ctUIMsg
	opsAt := map[int][]*ctUIMsg{} // context records by the number of requests before them
	var end ctEnd
	for _, m := range ui {
		end.note(m)
		switch {
		case m.req != nil:
			reqs = append(reqs, m)
		case m.Say == "condense_context" && m.ContextCondense != nil, m.Say == "sliding_window_truncation" && m.ContextTruncation != nil:
			opsAt[len(reqs)] = append(opsAt[len(reqs)], m)
		}
	}
	k := 0
	for _, ma := range msgs {
		ts := ParseTime(ma.m.TS)
		if ma.m.Role == "user" {
			if err := h.user(ma.blocks, ts, ma.line); err != nil {
				return err
			}
			continue
		}
		if err := h.ops(opsAt[k]); err != nil {
			return err
		}
		h.request(reqs, k)
		if ts == nil && k < len(reqs) {
			ts = ParseTime(reqs[k].TS)
		}
		k++
		if err := h.assistant(ma.blocks, ts, ma.line); err != nil {
			return err
		}
	}
	for ; k < len(reqs); k++ { // requests without a response in the history
		if err := h.ops(opsAt[k]); err != nil {
			return err
		}
		h.request(reqs, k)
	}
	if err := h.ops(opsAt[k]); err != nil {
		return err
	}
	h.cost.apply(b)
	switch {
	case end.apply(b):
	case h.last == schema.KindToolCall && h.lastTool == "attempt_completion":
		b.SetEnd(schema.EndFinished, "attempt_completion")
	default:
		inferEnd(b, h.last)
	}
	return b.Finish()
}

// ctHist is the state of a history-mode run.
type ctHist struct {
	b        *RunBuilder
	tools    map[string]bool
	q        callLinker
	model    string // the model environment_details names (step 5)
	last     schema.EventKind
	lastTool string
	cost     ctCost
}

// request begins model call k: its usage from the k-th request record,
// when there is one (step 2).
func (h *ctHist) request(reqs []*ctUIMsg, k int) {
	h.b.NewCall()
	h.q.drop()
	turn := h.b.Turns() - 1
	if k < len(reqs) {
		ctUsage(h.b, turn, reqs[k], ParseTime(reqs[k].TS), h.model, &h.cost)
	} else {
		h.b.NoteModel(h.model)
	}
}

// ops adds the context records placed here (step 6).
func (h *ctHist) ops(records []*ctUIMsg) error {
	for _, m := range records {
		add := eventAdder(h.b, ParseTime(m.TS), 0, &h.last)
		if _, err := ctOpRecord(h.b, m, add); err != nil {
			return err
		}
	}
	return nil
}

// assistant adds the events of an assistant message (step 3).
func (h *ctHist) assistant(blocks []tbBlock, ts *time.Time, line int64) error {
	add := eventAdder(h.b, ts, line, &h.last)
	native := false
	for _, blk := range blocks {
		native = native || blk.Type == "tool_use"
	}
	for _, blk := range blocks {
		var err error
		switch blk.Type {
		case "text":
			if native {
				err = ctText(add, schema.KindAssistant, blk.Text)
			} else {
				err = h.xmlText(blk.Text, add)
			}
		case "thinking", "redacted_thinking":
			err = ctText(add, schema.KindReasoning, blk.Thinking+blk.Text)
		case "tool_use":
			h.lastTool = blk.Name
			err = add(schema.Event{Kind: schema.KindToolCall, Role: "assistant", ToolName: blk.Name, CallID: h.q.call(blk.ID), Args: string(rawOr(blk.Input, "{}"))})
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// ctText adds text as an event of kind (assistant or reasoning) unless it
// is blank.
func ctText(add func(schema.Event) error, kind schema.EventKind, text string) error {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	return add(schema.Event{Kind: kind, Role: "assistant", Text: text})
}

// xmlText adds the events of an assistant text that may hold XML tool
// uses and <thinking> (step 3).
func (h *ctHist) xmlText(text string, add func(schema.Event) error) error {
	from, pos := 0, 0
	for pos < len(text) {
		loc := ctTag.FindStringSubmatchIndex(text[pos:])
		if loc == nil {
			break
		}
		name := text[pos+loc[2] : pos+loc[3]]
		start, body := pos+loc[0], pos+loc[1]
		if name != "thinking" && !h.tools[name] {
			pos = body
			continue
		}
		if err := ctText(add, schema.KindAssistant, text[from:start]); err != nil {
			return err
		}
		inner, next := ctTagBody(text, body, name, false)
		var err error
		if name == "thinking" {
			err = ctText(add, schema.KindReasoning, strings.TrimSpace(inner))
		} else {
			h.lastTool = name
			err = add(schema.Event{Kind: schema.KindToolCall, Role: "assistant", ToolName: name, CallID: h.q.call(""), Args: ctXMLParams(inner)})
		}
		if err != nil {
			return err
		}
		from, pos = next, next
	}
	return ctText(add, schema.KindAssistant, text[from:])
}

// ctTagBody returns the text of the element named name whose body starts
// at offset body of s, and the offset after its closing tag (the end of s
// for an element left open). last takes the last closing tag instead of
// the first (a parameter such as a file's content may hold the tag).
func ctTagBody(s string, body int, name string, last bool) (inner string, next int) {
	closing := "</" + name + ">"
	var e int
	if last {
		e = strings.LastIndex(s[body:], closing)
	} else {
		e = strings.Index(s[body:], closing)
	}
	if e < 0 {
		return s[body:], len(s)
	}
	return s[body : body+e], body + e + len(closing)
}

// ctXMLParams turns the parameters of an XML tool use into a JSON object:
// each <name>value</name> a string, white space trimmed (one line break
// on either side only, for a file's content or a diff).
func ctXMLParams(body string) string {
	params := map[string]string{}
	pos := 0
	for pos < len(body) {
		loc := ctTag.FindStringSubmatchIndex(body[pos:])
		if loc == nil {
			break
		}
		name := body[pos+loc[2] : pos+loc[3]]
		raw := name == "content" || name == "diff"
		v, next := ctTagBody(body, pos+loc[1], name, raw)
		if raw {
			v = strings.TrimSuffix(strings.TrimPrefix(v, "\n"), "\n")
		} else {
			v = strings.TrimSpace(v)
		}
		params[name] = v
		pos = next
	}
	if len(params) == 0 && strings.TrimSpace(body) != "" {
		params["text"] = strings.TrimSpace(body)
	}
	out, _ := json.Marshal(params)
	return string(out)
}

// user adds the events of a user message (steps 4 and 5).
func (h *ctHist) user(blocks []tbBlock, ts *time.Time, line int64) error {
	add := eventAdder(h.b, ts, line, &h.last)
	var result *schema.Event
	flush := func() error {
		if result == nil {
			return nil
		}
		e := *result
		result = nil
		return add(e)
	}
	for _, blk := range blocks {
		switch blk.Type {
		case "text":
			env := strings.HasPrefix(strings.TrimSpace(blk.Text), "<environment_details>")
			if name, rest, ok := ctResultMarker(blk.Text); ok {
				if err := flush(); err != nil {
					return err
				}
				id, key := h.q.result("")
				result = &schema.Event{Kind: schema.KindToolResult, Role: "tool", CallID: id, ToolKey: key, Text: rest}
				if id == "" {
					result.ToolName = name
				}
				continue
			}
			if result != nil && !env {
				if result.Text != "" {
					result.Text += "\n"
				}
				result.Text += blk.Text
				continue
			}
			if err := flush(); err != nil {
				return err
			}
			if env {
				if ms := ctEnvModel.FindAllStringSubmatch(blk.Text, -1); len(ms) > 0 {
					h.model = strings.TrimSpace(ms[len(ms)-1][1])
				}
			}
			if strings.TrimSpace(blk.Text) != "" {
				if err := add(schema.Event{Kind: schema.KindUser, Role: "user", Text: blk.Text}); err != nil {
					return err
				}
			}
		case "tool_result":
			if err := flush(); err != nil {
				return err
			}
			id, key := h.q.result(blk.ToolUseID)
			if err := add(schema.Event{Kind: schema.KindToolResult, Role: "tool", CallID: id, ToolKey: key, Text: ContentText(blk.Content), IsError: blk.IsError}); err != nil {
				return err
			}
		}
	}
	return flush()
}
