package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/trajmine/trajmine/ingest/internal/jsonx"
	"github.com/trajmine/trajmine/schema"
)

// codex reads Codex CLI rollouts (~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl):
// one line {timestamp, type, payload} per item, one run per file.
//
// Steps per line:
//  1. Decode the line; a line that is not a JSON object, has no type or no
//     payload object, or whose payload does not decode is rejected.
//  2. session_meta (normally the first line) names the run and its start;
//     without one the run is named after the file. turn_context sets the
//     model of the calls that follow.
//  3. response_item: message → system (developer/system role), user or
//     assistant; reasoning → reasoning (summary text; empty when only
//     encrypted); function_call, custom_tool_call, local_shell_call,
//     web_search_call → tool_call; function_call_output and
//     custom_tool_call_output → tool_result, unwrapping the older
//     {"output","metadata":{"exit_code"}} JSON string and reading the exit
//     code from exec_command's "Process exited with code N" header.
//  4. write_stdin calls feed (or poll) a process that an earlier exec_command
//     started: its output says "Process running with session ID N", and the
//     write_stdin call (and through call linking its result) gets that
//     command's target, so one logical command keeps one target.
//  5. event_msg: token_count → the usage of one model call (see below); a
//     negative count in its total_token_usage or last_token_usage is set to
//     0 and rejected naming the field and value (the line's other counts
//     stand), a count over 2^40 rejects the line;
//     error and stream_error → error events; task_complete, turn_aborted and a
//     context-window error → explicit end reasons, cleared again when the user
//     starts another turn. user_message, agent_message and agent_reasoning
//     repeat response items for the UI and are skipped, except a user_message
//     no user item repeats (Codex Desktop logs user turns only there).
//  6. compacted → a compaction event and a compaction op whose tokens_before
//     is the prompt of the last call measured before it.
//
// Model calls. Codex logs no response id, so calls are the builder's automatic
// turns: each run of output items after an input is one call. Each token_count
// whose info.last_token_usage is set is one call's usage (a token_count whose
// total_token_usage.total_tokens repeats the previous one is a repeat, not a
// call). Where it sits depends on the Codex version; in the shared corpus:
//   - 0.40 (agentcmd rollouts) writes it when the response completes but
//     before that response's items: turn_context, token_count, reasoning,
//     function_call, function_call_output, turn_context, token_count, … The
//     two files have 132 token_counts for 132 detected calls, and 35 for 35.
//   - 0.125 and 0.129 (codemie) write it after the call's output items and
//     before the tool outputs: 66 for 66, and 2 for 2.
//
// So the order is decided at the first token_count that follows an event:
// right after an output item, usage goes to the current call; otherwise it
// waits for the first output of the next call. A token_count with no call to
// go to (the call logged no items, or the file logs none at all) is a call of
// its own. That call is added with SetUsageAt at a new index rather than
// NewCall, which would switch the builder to explicit calls for the rest of
// the run and merge every later call into one.
type codex struct{ formatInfo }

// codexLineTypes are the line types a rollout can start with.
var codexLineTypes = map[string]bool{"session_meta": true, "response_item": true, "event_msg": true, "turn_context": true}

// Detect accepts a file whose first non-blank line is an object with a
// rollout "type" and a "payload" object. That line may be cut off by the head
// (session_meta carries the whole base instructions), so it is read token by
// token only as far as the two keys.
func (codex) Detect(_ string, head []byte) bool {
	return headLines(head, 1, func(line []byte) (bool, bool) { return codexDetectLine(line), true })
}

func codexDetectLine(line []byte) bool {
	if line[0] != '{' || !bytes.Contains(line, []byte(`"payload"`)) {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	typeOK, payloadOK := false, false
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return false
		}
		switch k {
		case "type":
			t, err := dec.Token()
			if s, ok := t.(string); err != nil || !ok || !codexLineTypes[s] {
				return false
			}
			typeOK = true
		case "payload":
			if t, err := dec.Token(); err != nil || t != json.Delim('{') {
				return false
			}
			payloadOK = true
			if !typeOK && skipRest(dec) != nil {
				return false
			}
		default:
			var v json.RawMessage
			if dec.Decode(&v) != nil {
				return false
			}
		}
		if typeOK && payloadOK {
			return true
		}
	}
	return false
}

type codexLine struct {
	Timestamp any             `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

type codexItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Summary   json.RawMessage `json:"summary"`
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	Arguments json.RawMessage `json:"arguments"`
	Input     json.RawMessage `json:"input"`
	CallID    string          `json:"call_id"`
	ID        string          `json:"id"`
	Output    json.RawMessage `json:"output"`
	Action    json.RawMessage `json:"action"`
}

type codexEvent struct {
	Type    string          `json:"type"`
	Info    json.RawMessage `json:"info"`
	Reason  json.RawMessage `json:"reason"`
	Message json.RawMessage `json:"message"`
	Window  json.RawMessage `json:"model_context_window"`
}

type codexTokens struct {
	InputTokens           int64 `json:"input_tokens"`
	CachedInputTokens     int64 `json:"cached_input_tokens"`
	OutputTokens          int64 `json:"output_tokens"`
	ReasoningOutputTokens int64 `json:"reasoning_output_tokens"`
	TotalTokens           int64 `json:"total_tokens"`
}

type codexTokenInfo struct {
	Total  *codexTokens `json:"total_token_usage"`
	Last   *codexTokens `json:"last_token_usage"`
	Window *int64       `json:"model_context_window"`
	Model  string       `json:"model"`
}

// codexOrder is where a rollout logs a call's token_count relative to the
// call's output items.
type codexOrder int

const (
	codexOrderUnknown codexOrder = iota
	codexUsageAfter              // after the outputs (0.125, 0.129)
	codexUsageBefore             // before the outputs (0.40)
)

// codexMaxTokens bounds one call's logged counts; larger values are not a
// real log and would overflow the run's sums.
const codexMaxTokens = 1 << 40

// codexRun is the state of one rollout's import.
type codexRun struct {
	f        *File
	b        *RunBuilder
	model    string
	added    bool              // an event was added
	inOutput bool              // the last event added was a model output (the builder's turn rule)
	open     bool              // the current call began with outputs and has no usage yet
	order    codexOrder        // where token_count lines sit
	pending  heldUsage         // usage waiting for its call (codexUsageBefore)
	total    int64             // total_token_usage.total_tokens of the last token_count
	lastIn   *int64            // prompt tokens of the last measured call
	users    []string          // user texts added in this task since the last output
	calls    map[string]string // call id → target
	sessions map[string]string // exec session id → target of the command that started it
}

func (codex) Import(f *File, r io.Reader) error {
	c := &codexRun{f: f, calls: map[string]string{}, sessions: map[string]string{}}
	if err := f.Lines(r, c.line); err != nil {
		return err
	}
	if c.b == nil {
		return nil
	}
	c.pending.flush(c.b)
	return c.b.Finish()
}

// run returns the file's run, starting it with id (or the file's base name).
func (c *codexRun) run(id string, started *time.Time) (*RunBuilder, error) {
	if c.b != nil {
		return c.b, nil
	}
	if id == "" {
		base := filepath.Base(c.f.Path())
		id = strings.TrimSuffix(base, filepath.Ext(base))
		if id == "." || id == string(filepath.Separator) {
			id = ""
		}
	}
	b, err := c.f.NewRun(id)
	if err != nil {
		return nil, err
	}
	b.Run.Harness = "codex-cli"
	b.Run.StartedAt = started
	c.b = b
	return b, nil
}

// payload decodes the payload of line n, record l, into v and makes sure the
// run has begun (named after the file when no session_meta came first), as
// every record after session_meta needs. ok is false when the payload does
// not decode, the line then rejected ("invalid <type>: …"), or on err.
func (c *codexRun) payload(n int64, l *codexLine, raw []byte, v any) (ok bool, err error) {
	if err := json.Unmarshal(l.Payload, v); err != nil {
		return false, c.f.Reject(n, "invalid "+l.Type+": "+codexErr(err), raw)
	}
	if _, err := c.run("", nil); err != nil {
		return false, err
	}
	return true, nil
}

func (c *codexRun) line(n int64, raw []byte) error {
	f := c.f
	if raw[0] != '{' {
		return f.Reject(n, "record is not a JSON object", raw)
	}
	var l codexLine
	if err := json.Unmarshal(raw, &l); err != nil {
		return f.Reject(n, "invalid JSON: "+codexErr(err), raw)
	}
	if l.Type == "" {
		return f.Reject(n, "record without type", raw)
	}
	if len(l.Payload) == 0 || l.Payload[0] != '{' {
		return f.Reject(n, "record without payload object", raw)
	}
	ts := ParseTime(l.Timestamp)
	switch l.Type {
	case "session_meta":
		var p struct {
			ID        json.RawMessage `json:"id"`
			Timestamp any             `json:"timestamp"`
			// a sub-agent's thread names its parent (Codex collab agents;
			// Trae CLI, a Codex-rollout clone)
			Source struct {
				Subagent struct {
					ThreadSpawn struct {
						ParentThreadID string `json:"parent_thread_id"`
					} `json:"thread_spawn"`
				} `json:"subagent"`
			} `json:"source"`
		}
		if err := json.Unmarshal(l.Payload, &p); err != nil {
			// source is a string in older rollouts ("cli", "exec"): read the rest without it
			var q struct {
				ID        json.RawMessage `json:"id"`
				Timestamp any             `json:"timestamp"`
			}
			if err2 := json.Unmarshal(l.Payload, &q); err2 != nil {
				return f.Reject(n, "invalid session_meta: "+codexErr(err), raw)
			}
			p.ID, p.Timestamp = q.ID, q.Timestamp
		}
		started := ParseTime(p.Timestamp)
		if started == nil {
			started = ts
		}
		b, err := c.run(scalarString(p.ID), started)
		if err == nil && p.Source.Subagent.ThreadSpawn.ParentThreadID != "" {
			b.Run.ParentRunID = p.Source.Subagent.ThreadSpawn.ParentThreadID
		}
		return err
	case "turn_context":
		var p struct {
			Model string `json:"model"`
		}
		if ok, err := c.payload(n, &l, raw, &p); !ok {
			return err
		}
		if p.Model != "" {
			c.model = p.Model
			c.b.NoteModel(p.Model)
		}
		return nil
	case "response_item":
		var it codexItem
		if ok, err := c.payload(n, &l, raw, &it); !ok {
			return err
		}
		return c.item(n, ts, &it, raw)
	case "event_msg":
		var ev codexEvent
		if ok, err := c.payload(n, &l, raw, &ev); !ok {
			return err
		}
		return c.event(n, ts, &ev, raw)
	case "compacted":
		var p struct {
			Message            string            `json:"message"`
			ReplacementHistory []json.RawMessage `json:"replacement_history"`
		}
		if ok, err := c.payload(n, &l, raw, &p); !ok {
			return err
		}
		if err := c.add(schema.Event{Kind: schema.KindCompaction, Role: "system", TS: ts, Line: n, Text: p.Message}); err != nil {
			return err
		}
		c.users = c.users[:0]
		op := schema.ContextOp{Op: schema.OpCompaction, Trigger: "auto"}
		if c.lastIn != nil {
			v := *c.lastIn
			op.TokensBefore = &v
		}
		if p.ReplacementHistory != nil {
			op.Detail = fmt.Sprintf("replacement_history: %d items", len(p.ReplacementHistory))
		}
		return c.b.Op(op)
	}
	return nil // line types of newer versions
}

func (c *codexRun) item(n int64, ts *time.Time, it *codexItem, raw []byte) error {
	e := schema.Event{TS: ts, Line: n}
	switch it.Type {
	case "message":
		e.Role, e.Text = it.Role, ContentText(it.Content)
		switch it.Role {
		case "assistant":
			e.Kind = schema.KindAssistant
		case "developer", "system":
			e.Kind = schema.KindSystem
		case "":
			return c.f.Reject(n, "message without role", raw)
		default:
			e.Kind = schema.KindUser
		}
		if it.Role == "user" {
			text := codexInputText(it.Content)
			if c.repeatsUser(text) { // already added from its user_message event
				return nil
			}
			if !codexSessionPrefix(text) {
				resumeRun(c.b)
			}
			c.users = append(c.users, strings.TrimSpace(text))
		}
	case "reasoning":
		e.Kind, e.Role = schema.KindReasoning, "assistant"
		if e.Text = ContentText(it.Summary); e.Text == "" {
			e.Text = ContentText(it.Content)
		}
	case "function_call":
		e.Kind, e.Role, e.CallID = schema.KindToolCall, "assistant", it.CallID
		e.ToolName, e.Args = codexToolName(it.Namespace, it.Name), jsonString(it.Arguments)
		if it.Name == "write_stdin" {
			var a struct {
				SessionID json.RawMessage `json:"session_id"`
			}
			if json.Unmarshal([]byte(e.Args), &a) == nil {
				e.Target = c.sessions[scalarString(a.SessionID)]
			}
		}
		if e.Target == "" && strings.Contains(e.Args, "*** Begin Patch") { // apply_patch through the shell
			e.Target = codexPatchArgs(e.Args)
		}
	case "custom_tool_call":
		e.Kind, e.Role, e.CallID, e.ToolName = schema.KindToolCall, "assistant", it.CallID, it.Name
		if len(it.Input) > 0 {
			e.Args = `{"input":` + string(it.Input) + `}`
			var s string
			if json.Unmarshal(it.Input, &s) == nil {
				e.Target = codexPatchFiles(s)
			}
		}
	case "local_shell_call":
		e.Kind, e.Role, e.CallID, e.ToolName = schema.KindToolCall, "assistant", it.CallID, "local_shell"
		if e.CallID == "" {
			e.CallID = it.ID
		}
		e.Args = jsonString(it.Action)
	case "web_search_call":
		e.Kind, e.Role, e.CallID, e.ToolName = schema.KindToolCall, "assistant", it.CallID, "web_search"
		e.Args = jsonString(it.Action)
	case "function_call_output", "custom_tool_call_output":
		return c.output(n, ts, it)
	default:
		// Item types of newer versions: *_call_output with a call id is a
		// result, *_call a call; anything else (ghost_snapshot, compaction
		// with encrypted content, …) is not shown to the model as text.
		switch {
		case strings.HasSuffix(it.Type, "_call_output") && it.CallID != "":
			return c.output(n, ts, it)
		case strings.HasSuffix(it.Type, "_call"):
			e.Kind, e.Role, e.CallID = schema.KindToolCall, "assistant", it.CallID
			e.ToolName = codexToolName(it.Namespace, it.Name)
			if e.ToolName == "" {
				e.ToolName = strings.TrimSuffix(it.Type, "_call")
			}
			if e.Args = jsonString(it.Arguments); e.Args == "" {
				e.Args = jsonString(it.Action)
			}
		default:
			return nil
		}
	}
	return c.add(e)
}

func (c *codexRun) output(n int64, ts *time.Time, it *codexItem) error {
	text, exit, isErr := codexOutput(it.Output)
	if m := codexSessionRe.FindStringSubmatch(codexHeader(text)); m != nil {
		if t := c.calls[it.CallID]; t != "" && it.CallID != "" {
			c.sessions[m[1]] = t
		}
	}
	return c.add(schema.Event{Kind: schema.KindToolResult, Role: "tool", CallID: it.CallID, TS: ts, Line: n,
		Text: text, ExitCode: exit, IsError: isErr})
}

func (c *codexRun) event(n int64, ts *time.Time, ev *codexEvent, raw []byte) error {
	b := c.b
	switch ev.Type {
	case "token_count":
		if len(ev.Info) == 0 || string(ev.Info) == "null" {
			return nil // rate-limit update only
		}
		var info codexTokenInfo
		if err := json.Unmarshal(ev.Info, &info); err != nil {
			return c.f.Reject(n, "invalid token_count: "+codexErr(err), raw)
		}
		if info.Window != nil && *info.Window > 0 {
			w := *info.Window
			b.Run.WindowTokens = &w
		}
		last := info.Last
		if last != nil {
			for _, v := range []int64{last.InputTokens, last.CachedInputTokens, last.OutputTokens, last.ReasoningOutputTokens} {
				if v > codexMaxTokens {
					return c.f.Reject(n, "implausible token count", raw)
				}
			}
		}
		if info.Total != nil {
			if err := c.nonNegative(n, "total_token_usage", info.Total); err != nil {
				return err
			}
		}
		if last == nil {
			return nil
		}
		if err := c.nonNegative(n, "last_token_usage", last); err != nil {
			return err
		}
		if info.Total != nil && info.Total.TotalTokens > 0 {
			if info.Total.TotalTokens == c.total {
				return nil // the same total again: a repeat, not another call
			}
			c.total = info.Total.TotalTokens
		}
		model := info.Model
		if model == "" {
			model = c.model
		}
		c.usage(schema.Usage{TS: ts, Model: model, InputTokens: last.InputTokens, CacheReadTokens: last.CachedInputTokens,
			OutputTokens: last.OutputTokens, ReasoningTokens: last.ReasoningOutputTokens})
	case "task_started":
		resumeRun(c.b)
		c.users = c.users[:0]
		var w int64
		if json.Unmarshal(ev.Window, &w) == nil && w > 0 {
			b.Run.WindowTokens = &w
		}
	case "task_complete":
		if b.Run.EndReasonSource != schema.SourceExplicit { // an abort or error of this turn stands
			b.SetEnd(schema.EndFinished, "task_complete")
		}
	case "turn_aborted":
		reason := jsonString(ev.Reason)
		if reason == "" {
			reason = "turn_aborted"
		}
		b.SetEnd(schema.EndInterrupted, reason)
	case "error", "stream_error":
		msg := jsonString(ev.Message)
		if err := c.add(schema.Event{Kind: schema.KindError, Role: "system", TS: ts, Line: n, IsError: true, Text: msg}); err != nil {
			return err
		}
		switch {
		case codexOverflow(msg):
			b.SetEnd(schema.EndContextOverflow, strings.TrimSpace(msg))
		case ev.Type == "error": // stream_error is a retry notice; error ends the turn
			b.SetEnd(schema.EndError, strings.TrimSpace(msg))
		}
	case "user_message":
		msg := jsonString(ev.Message)
		if c.repeatsUser(msg) {
			return nil
		}
		resumeRun(c.b)
		c.users = append(c.users, strings.TrimSpace(msg))
		return c.add(schema.Event{Kind: schema.KindUser, Role: "user", TS: ts, Line: n, Text: msg})
	}
	return nil
}

// nonNegative sets each negative count of t (what names it:
// total_token_usage or last_token_usage) to 0 and rejects it at line n,
// naming the field and the logged value, as the builder does for usage
// (RunBuilder.SetUsageAt); the line's other counts are kept.
func (c *codexRun) nonNegative(n int64, what string, t *codexTokens) error {
	for _, f := range []struct {
		name string
		v    *int64
	}{
		{"input_tokens", &t.InputTokens}, {"cached_input_tokens", &t.CachedInputTokens}, {"output_tokens", &t.OutputTokens},
		{"reasoning_output_tokens", &t.ReasoningOutputTokens}, {"total_tokens", &t.TotalTokens},
	} {
		if *f.v >= 0 {
			continue
		}
		reason := fmt.Sprintf("run %s, %s: negative %s %d set to 0", c.b.Run.RunID, what, f.name, *f.v)
		*f.v = 0
		if err := c.f.Reject(n, reason, nil); err != nil {
			return err
		}
	}
	return nil
}

// add appends e, tracking the builder's automatic call boundaries: an output
// after an input begins a new call, which takes any usage waiting for it.
func (c *codexRun) add(e schema.Event) error {
	b := c.b
	if e.Kind == schema.KindToolCall {
		if e.Target == "" {
			e.Target = Target(e.ToolName, []byte(e.Args))
		}
		if e.CallID != "" {
			c.calls[e.CallID] = e.Target
		}
	}
	c.added = true
	if !e.Kind.IsOutput() {
		c.inOutput = false
		return b.Add(e)
	}
	start := !c.inOutput
	if err := b.Add(e); err != nil {
		return err
	}
	c.inOutput, c.users = true, c.users[:0]
	if start {
		c.open = true
		if u, ok := c.pending.take(); ok {
			b.SetUsageAt(b.Turns()-1, u)
			c.open = false
		}
	}
	return nil
}

// usage assigns one token_count's usage to its call (see the type comment).
func (c *codexRun) usage(u schema.Usage) {
	b := c.b
	in := u.InputTokens
	c.lastIn = &in
	if c.order == codexOrderUnknown && c.added {
		c.order = codexUsageBefore
		if c.inOutput {
			c.order = codexUsageAfter
		}
	}
	switch {
	case c.order == codexUsageAfter && c.open:
		b.SetUsageAt(b.Turns()-1, u)
		c.open = false
	case c.order == codexUsageAfter:
		b.SetUsageAt(b.Turns(), u) // a call that logged no items
	default:
		c.pending.hold(b, u)
	}
}

// repeatsUser reports whether text repeats a user message added in the same
// task since the last output: a user_message event echoes the text blocks of
// the user item, or stands alone where no item was logged.
func (c *codexRun) repeatsUser(text string) bool {
	t := strings.TrimSpace(text)
	if t == "" {
		return len(c.users) > 0
	}
	for _, u := range c.users {
		if u == t {
			return true
		}
	}
	return false
}

// codexInputText joins the text blocks of a message's content, leaving out
// images and other blocks (which a user_message event does not repeat).
func codexInputText(raw json.RawMessage) string {
	var blocks []struct {
		Text *string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return ContentText(raw)
	}
	parts := make([]string, 0, len(blocks))
	for _, b := range blocks {
		if b.Text != nil && *b.Text != "" {
			parts = append(parts, *b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// codexPrefixes open the user-role messages Codex adds for the model's sake
// (environment, instructions, the marker of an aborted turn, …): they are not
// the user going on.
var codexPrefixes = []string{"<environment_context>", "<user_instructions>", "<turn_aborted>", "<skill", "<user_shell_command>",
	"<subagent_notification>", "<permissions", "# agents.md instructions for "}

func codexSessionPrefix(text string) bool {
	t := strings.ToLower(strings.TrimSpace(text))
	for _, p := range codexPrefixes {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// codexToolName joins an MCP namespace ("mcp__node_repl__") and a tool name.
func codexToolName(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return strings.TrimSuffix(namespace, "__") + "__" + name
}

// codexOutput reads a tool output: a string, possibly the older JSON string
// {"output": text, "metadata": {"exit_code": n, …}}; a list of content items;
// or {content, success}. A non-zero exit code or success=false marks an error.
func codexOutput(raw json.RawMessage) (text string, exit *int64, isErr bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil, false
	}
	switch raw[0] {
	case '"':
		if json.Unmarshal(raw, &text) != nil {
			return string(raw), nil, false
		}
		if inner, code, ok := codexWrapped(text); ok {
			text, exit = inner, code
		}
	case '{':
		var o struct {
			Content *string `json:"content"`
			Success *bool   `json:"success"`
		}
		if json.Unmarshal(raw, &o) == nil && o.Content != nil {
			text, isErr = *o.Content, o.Success != nil && !*o.Success
		} else {
			text = ContentText(raw)
		}
	default:
		text = ContentText(raw)
	}
	if exit == nil {
		exit = codexExitCode(text)
	}
	if exit != nil && *exit != 0 {
		isErr = true
	}
	return text, exit, isErr
}

func codexWrapped(s string) (string, *int64, bool) {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "{") || !strings.Contains(t, `"metadata"`) {
		return "", nil, false
	}
	var w struct {
		Output   *string `json:"output"`
		Metadata *struct {
			ExitCode *int64 `json:"exit_code"`
		} `json:"metadata"`
	}
	if json.Unmarshal([]byte(t), &w) != nil || w.Output == nil || w.Metadata == nil {
		return "", nil, false
	}
	return *w.Output, w.Metadata.ExitCode, true
}

var (
	// exec_command: "Process exited with code 1"; shell_command: "Exit code: 1";
	// sandbox refusals: "failed in sandbox … exit code: 2, stdout: …".
	codexExitRe    = regexp.MustCompile(`(?m)^(?:Process exited with code |Exit code: |failed in sandbox .*?exit code: )(-?\d+)`)
	codexSessionRe = regexp.MustCompile(`(?m)^Process running with session ID (\d+)`)
)

// codexHeader returns the header of an exec output: the lines before
// "Output:", else the first line (at most 1 KiB), so that the command's own
// output is never read as a header.
func codexHeader(text string) string {
	const limit = 1 << 10
	h := text[:min(len(text), limit)]
	if i := strings.Index(h, "Output:\n"); i >= 0 {
		return h[:i]
	}
	if i := strings.IndexByte(h, '\n'); i >= 0 {
		return h[:i]
	}
	return h
}

func codexExitCode(text string) *int64 {
	m := codexExitRe.FindStringSubmatch(codexHeader(text))
	if m == nil {
		return nil
	}
	v, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return nil
	}
	return &v
}

// codexPatchFiles returns the files an apply_patch envelope touches
// ("a.go, b.go"), or "" when s is not a patch.
func codexPatchFiles(s string) string {
	if !strings.Contains(s, "*** Begin Patch") {
		return ""
	}
	var files []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		for _, p := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if rest, ok := strings.CutPrefix(l, p); ok && strings.TrimSpace(rest) != "" {
				files = append(files, cleanPath(strings.TrimSpace(rest)))
			}
		}
	}
	return strings.Join(files, ", ")
}

// codexPatchArgs finds a patch in a shell call's command (a string or an argv
// array, as in ["bash","-lc","apply_patch <<'PATCH'\n*** Begin Patch…"]).
func codexPatchArgs(args string) string {
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil {
		return ""
	}
	for _, k := range []string{"command", "cmd", "input", "patch"} {
		switch v := m[k].(type) {
		case string:
			if t := codexPatchFiles(v); t != "" {
				return t
			}
		case []any:
			for _, a := range v {
				if s, ok := a.(string); ok {
					if t := codexPatchFiles(s); t != "" {
						return t
					}
				}
			}
		}
	}
	return ""
}

// codexOverflowTexts are Codex's and the API's words for a prompt longer than
// the window ("Codex ran out of room in the model's context window…").
var codexOverflowTexts = []string{"context_length_exceeded", "context window", "exceeds the context", "context length", "maximum context"}

func codexOverflow(msg string) bool { return containsAnyFold(msg, codexOverflowTexts) }

// codexErr shortens a decoding error for a reject reason.
func codexErr(err error) string {
	s := strings.TrimPrefix(jsonx.FromStd(err).Error(), "json: ")
	if len(s) > 160 {
		s = strings.ToValidUTF8(s[:160], "")
	}
	return s
}
