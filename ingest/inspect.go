package ingest

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// inspectAI reads UK AISI Inspect eval logs: the .eval ZIP archive
// (header.json or _journal/start.json, samples/<id>_epoch_<n>.json, …) and
// the older single-document .json log ({version, status, eval, …, samples}).
// One run per sample and epoch, named <eval_id>/<sample id>/<epoch>.
//
// Steps per sample:
//  1. Decode the sample; a sample that does not decode is rejected (in a
//     .eval at the index of its archive entry, in a .json at its line) and
//     the other samples import. An `attachment://<hash>` string is replaced
//     by the sample's attachments[hash] where the run keeps its text
//     (message content, tool call arguments, tool results and errors, the
//     tool definitions, a limit message; not in what is never read, such as
//     a model event's input), as the attachment's one string, not a copy per
//     reference. The text so resolved counts against a budget per file of
//     twice what the file decompresses to (a .json log: its size), at least
//     16 MiB: a reference whose text would pass it stays
//     `attachment://<hash>`, and one reject per sample (at the sample) counts
//     those references. Memory and stored text therefore grow with the file,
//     not with how often it refers to an attachment (issue 31: one 1 MiB
//     attachment referenced 1,000 times was copied into every reference,
//     6.4 GB allocated for a 2 kB file).
//  2. The conversation is sample.messages (what the model saw), preceded
//     by the tool definitions of its first model call (the "ModelEvent"'s
//     tools, one system event with role tools; see ToolDefinitions): system →
//     system, user → user, assistant → one model call (RunBuilder.NewCall)
//     with its reasoning blocks, text and tool_calls, tool → tool_result
//     (tool_call_id links it; an error marks it). Assistant messages that
//     are part of the dataset input (source "input") are context, not calls:
//     they become user-kind events with role assistant.
//  3. Each assistant message is matched, in order, to the "ModelEvent" in
//     sample.events that produced it (by message id; logs without ids by the
//     first tool call id, else by text). The match gives the call's time and
//     usage: output.usage per call, with input_tokens made to include cache
//     reads and writes where Inspect excludes them (see inspInclusive). Model
//     events matched to no message (scorer or grader calls, sub-agents whose
//     messages are not in the sample) are not calls of the run. Tool results
//     take their time from the "ToolEvent" with their call id.
//  4. Timeline events are placed before the assistant message of the first
//     model call that follows them: "CompactionEvent" → a compaction event and
//     op (summary → summary, edit → masking, trim → truncation) with
//     tokens_before/tokens_after; a "ModelEvent" that failed → an error event.
//     A tool call of the last message that a message limit cut off before its
//     result keeps the result of its "ToolEvent".
//  5. End reason: sample.limit (or a "SampleLimitEvent"): message → step_limit,
//     token → cost_limit (a token budget, not the context window), cost →
//     cost_limit, time / working / operator / custom → interrupted with the
//     limit in the detail; sample.error → error (context_overflow when it says
//     the context was exceeded); a last call stopped with model_length →
//     context_overflow; else the sample completed → finished. Scores give
//     resolved when every scorer says clearly correct (C, true, 1) or every
//     one says incorrect (I, N, false, 0).
//  6. Without any matched "ModelEvent", sample.model_usage becomes the run
//     totals (no usage rows).
//
// Event.Line is the line of the message in a .json log and its 1-based
// index in sample.messages in a .eval archive (whose members are not lines
// of the file); rejects in an archive carry the member's 1-based index.
type inspectAI struct{ formatInfo }

// inspEntryNames are the members an Inspect .eval archive starts with.
var inspEntryNames = []string{"_journal/", "header.json", "samples/", "summaries.json", "reductions.json"}

// Detect accepts a ZIP archive whose first member is an Inspect log member
// (or, for an archive starting otherwise, a .eval name), and a JSON object
// whose "eval" member is an eval spec (task, created, and run_id or eval_id).
func (inspectAI) Detect(name string, head []byte) bool {
	if bytes.HasPrefix(head, []byte("PK\x03\x04")) {
		if len(head) >= 30 {
			n := int(head[26]) | int(head[27])<<8
			if 30+n <= len(head) {
				first := string(head[30 : 30+n])
				for _, p := range inspEntryNames {
					if strings.HasPrefix(first, p) {
						return true
					}
				}
			}
		}
		return strings.HasSuffix(strings.ToLower(name), ".eval")
	}
	if bytes.HasPrefix(head, []byte("PK\x05\x06")) { // an empty archive
		return strings.HasSuffix(strings.ToLower(name), ".eval")
	}
	h := bytes.TrimLeft(bytes.TrimPrefix(head, utf8BOM), " \t\r\n")
	at := jsonFieldAt(h, 0, "eval")
	if at < 0 {
		return false
	}
	keys := map[string]bool{}
	jsonEachField(h, at, func(k []byte, _ int) bool {
		keys[string(k)] = true
		return true
	})
	return keys["task"] && keys["created"] && (keys["run_id"] || keys["eval_id"])
}

// Import reads a JSON log whole and decodes it as one document. An archive
// is opened with archive/zip over the reader when it allows reads at offsets
// (Files' readers do: the archive stays on disk), else over a copy in memory.
// Members are decompressed one at a time, each into a buffer of its size,
// and the members read (header and samples) may decompress to at most
// Options.MaxDecompressed in all: the declared sizes are checked before
// anything is decompressed, and no member is read past its declared size.
// Peak memory for an archive is therefore about 10 times its
// largest member (the member's bytes, the decoded sample, its messages and
// events), whatever the number of samples, plus the resolved attachment text
// the file's budget allows (see the type doc), held as copies only where a
// reference sits inside JSON kept as JSON (tool call arguments and
// definitions).
func (inspectAI) Import(f *File, r io.Reader) error {
	if ra, ok := r.(randomAccess); ok {
		magic := make([]byte, 2)
		if n, _ := ra.ReadAt(magic, 0); n == 2 && string(magic) == "PK" {
			return inspArchive(f, ra, ra.Size())
		}
	}
	whole, err := readDocument(f, r)
	if err != nil {
		return err
	}
	data := whole.data
	if bytes.HasPrefix(data, []byte("PK")) {
		return inspArchive(f, bytes.NewReader(data), int64(len(data)))
	}
	return inspDocument(f, whole)
}

type inspSample struct {
	ID          json.RawMessage            `json:"id"`
	Epoch       json.RawMessage            `json:"epoch"`
	Messages    []json.RawMessage          `json:"messages"`
	Events      []json.RawMessage          `json:"events"`
	Scores      map[string]json.RawMessage `json:"scores"`
	Error       json.RawMessage            `json:"error"`
	Limit       json.RawMessage            `json:"limit"`
	Attachments map[string]string          `json:"attachments"`
	ModelUsage  map[string]json.RawMessage `json:"model_usage"`
	StartedAt   any                        `json:"started_at"`
	CompletedAt any                        `json:"completed_at"`
}

type inspMessage struct {
	ID         string          `json:"id"`
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Source     string          `json:"source"`
	ToolCalls  []inspToolCall  `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
	Function   string          `json:"function"`
	Error      json.RawMessage `json:"error"`
	Model      string          `json:"model"`
}

type inspToolCall struct {
	ID        string          `json:"id"`
	Function  string          `json:"function"`
	Arguments json.RawMessage `json:"arguments"`
}

type inspToolError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

type inspUsage struct {
	InputTokens json.RawMessage `json:"input_tokens"`
	Output      json.RawMessage `json:"output_tokens"`
	CacheWrite  json.RawMessage `json:"input_tokens_cache_write"`
	CacheRead   json.RawMessage `json:"input_tokens_cache_read"`
	Reasoning   json.RawMessage `json:"reasoning_tokens"`
	TotalCost   json.RawMessage `json:"total_cost"`
}

// inspEvent holds the fields of the events the importer reads; their types
// differ between event kinds (a sandbox event's output is a string, a logger
// event's message an object), so all but the kind are decoded on use.
type inspEvent struct {
	Event        string          `json:"event"`
	Timestamp    any             `json:"timestamp"`
	Completed    any             `json:"completed"`
	Model        json.RawMessage `json:"model"`
	Output       json.RawMessage `json:"output"`
	Error        json.RawMessage `json:"error"`
	ID           json.RawMessage `json:"id"`
	Function     json.RawMessage `json:"function"`
	Result       json.RawMessage `json:"result"`
	Type         json.RawMessage `json:"type"`
	Message      json.RawMessage `json:"message"`
	Limit        json.RawMessage `json:"limit"`
	TokensBefore json.RawMessage `json:"tokens_before"`
	TokensAfter  json.RawMessage `json:"tokens_after"`
	Source       json.RawMessage `json:"source"`
	Tools        json.RawMessage `json:"tools"`
}

type inspOutput struct {
	Model   string `json:"model"`
	Choices []struct {
		Message    json.RawMessage `json:"message"`
		StopReason string          `json:"stop_reason"`
	} `json:"choices"`
	Usage *inspUsage `json:"usage"`
}

// inspTimeline is a decoded event with its position in sample.events.
type inspTimeline struct {
	inspEvent
	at       int
	ts       *time.Time
	id       string      // tool call id of a tool event
	function string      // tool event's function
	model    string      // model event's model
	out      *inspOutput // model event's output
	msg      *inspMessage
	typ      string // compaction / limit type
}

// inspSampleRun imports one sample, resolving its attachment references
// through a. lineOf gives the line (or record index) of message i; reject
// records a malformed part of the sample.
func inspSampleRun(f *File, spec *inspSpec, a *inspAttach, raw []byte, lineOf func(int) int64, reject func(string, []byte) error) error {
	var s inspSample
	if err := json.Unmarshal(raw, &s); err != nil || !isJSONObject(raw) {
		return reject(explainDecodeErr(err, raw, &inspSample{}), raw)
	}
	if s.Messages == nil && s.Events == nil {
		return reject("sample without messages or events", raw)
	}
	sampleID := scalarString(s.ID)
	epoch := scalarString(s.Epoch)
	if epoch == "" {
		epoch = "1"
	}
	b, err := f.NewRun(spec.id + "/" + sampleID + "/" + epoch)
	if err != nil {
		return err
	}
	b.Run.Harness = "inspect-ai"
	b.Run.TaskID = strings.Trim(spec.task+"/"+sampleID, "/")
	a.sample(s.Attachments)
	run := &inspRun{f: f, b: b, spec: spec, att: a}

	// messages
	msgs := make([]*inspMessage, len(s.Messages))
	for i, m := range s.Messages {
		var msg inspMessage
		if err := json.Unmarshal(m, &msg); err != nil || !isJSONObject(m) {
			if err := reject(fmt.Sprintf("message %d: %s", i+1, explainDecodeErr(err, m, &inspMessage{})), m); err != nil {
				return err
			}
			continue
		}
		msgs[i] = &msg
	}
	// events
	var timeline []*inspTimeline
	for i, e := range s.Events {
		var ev inspTimeline
		if err := json.Unmarshal(e, &ev.inspEvent); err != nil || !isJSONObject(e) {
			if err := reject(fmt.Sprintf("event %d: %s", i+1, explainDecodeErr(err, e, &inspEvent{})), e); err != nil {
				return err
			}
			continue
		}
		ev.at = i
		ev.ts = ParseTime(ev.Timestamp)
		ev.typ = atifString(ev.Type)
		switch ev.Event {
		case "model":
			ev.model = atifString(ev.Model)
			var out inspOutput
			if len(ev.Output) > 0 && json.Unmarshal(ev.Output, &out) == nil {
				ev.out = &out
				if len(out.Choices) > 0 {
					var m inspMessage
					if json.Unmarshal(out.Choices[0].Message, &m) == nil {
						ev.msg = &m
					}
				}
			}
		case "tool":
			ev.id, ev.function = atifString(ev.ID), atifString(ev.Function)
		}
		timeline = append(timeline, &ev)
		if ev.ts != nil {
			if b.Run.StartedAt == nil || ev.ts.Before(*b.Run.StartedAt) {
				t := *ev.ts
				b.Run.StartedAt = &t
			}
			end := ev.ts
			if c := ParseTime(ev.Completed); c != nil && c.After(*end) {
				end = c
			}
			if b.Run.EndedAt == nil || end.After(*b.Run.EndedAt) {
				t := *end
				b.Run.EndedAt = &t
			}
		}
	}
	if t := ParseTime(s.StartedAt); t != nil {
		b.Run.StartedAt = t
	}
	if t := ParseTime(s.CompletedAt); t != nil {
		b.Run.EndedAt = t
	}
	if err := run.conversation(msgs, timeline, lineOf); err != nil {
		return err
	}
	run.end(&s, timeline)
	run.totals(&s)
	if a.left > 0 {
		msg := fmt.Sprintf("%d attachment references left as attachment://<hash>: their text would pass the file's budget of %d bytes for resolved attachments (%d× what it decompresses to, at least %d MiB)",
			a.left, a.limit, inspAttachFactor, inspAttachMin>>20)
		if err := reject(msg, nil); err != nil {
			return err
		}
	}
	return b.Finish()
}

// inspRun is the state of one sample's import.
type inspRun struct {
	f         *File
	b         *RunBuilder
	spec      *inspSpec
	att       *inspAttach
	cost      float64
	hasCost   bool
	matched   int    // assistant messages matched to a model event
	usageRows int    // calls given usage
	lastStop  string // stop_reason of the last matched call
}

// conversation emits the messages with the timeline events placed among them.
func (r *inspRun) conversation(msgs []*inspMessage, timeline []*inspTimeline, lineOf func(int) int64) error {
	b := r.b
	// match assistant messages to model events, in order
	match := make([]*inspTimeline, len(msgs))
	next := 0
	for i, m := range msgs {
		if m == nil || m.Role != "assistant" || m.Source == "input" {
			continue
		}
		for j := next; j < len(timeline); j++ {
			ev := timeline[j]
			if ev.Event != "model" || ev.msg == nil || !r.sameMessage(m, ev.msg) {
				continue
			}
			match[i], next = ev, j+1
			r.matched++
			break
		}
	}
	// place timeline events before the message of the first call after them
	before := map[int][]*inspTimeline{}
	var tail []*inspTimeline
	tools := map[string]*inspTimeline{}
	for _, ev := range timeline {
		switch {
		case ev.Event == "tool" && ev.id != "":
			tools[ev.id] = ev
			continue
		case ev.Event == "compaction", ev.Event == "model" && inspFailed(ev):
		default:
			continue
		}
		placed := false
		for i, m := range match {
			if m != nil && m.at > ev.at {
				before[i] = append(before[i], ev)
				placed = true
				break
			}
		}
		if !placed {
			tail = append(tail, ev)
		}
	}
	var firstTS *time.Time
	for _, ev := range timeline {
		if ev.ts != nil {
			firstTS = ev.ts
			break
		}
	}
	// the tool definitions the first model call of the run was given
	for _, ev := range match {
		if ev == nil {
			continue
		}
		if e, ok := ToolDefinitions(r.att.json(ev.Tools), lineOf(0)); ok {
			e.TS = firstTS
			if err := b.Add(e); err != nil {
				return err
			}
		}
		break
	}
	called := false
	for i, m := range msgs {
		for _, ev := range before[i] {
			if err := r.timelineEvent(ev, lineOf(i)); err != nil {
				return err
			}
		}
		if m == nil {
			continue
		}
		line := lineOf(i)
		var ts *time.Time
		if !called {
			ts = firstTS
		}
		switch m.Role {
		case "assistant":
			if m.Source == "input" {
				if err := b.Add(schema.Event{Kind: schema.KindUser, Role: "assistant", TS: ts, Line: line, Text: r.att.text(m.Content)}); err != nil {
					return err
				}
				continue
			}
			called = true
			if err := r.assistant(m, match[i], line); err != nil {
				return err
			}
		case "tool":
			e := schema.Event{Kind: schema.KindToolResult, Role: "tool", CallID: m.ToolCallID, ToolName: m.Function, Line: line, Text: r.att.text(m.Content)}
			if inspHasError(m.Error) {
				e.IsError = true
				if strings.TrimSpace(e.Text) == "" {
					e.Text = inspErrorText(r.att, m.Error)
				}
			}
			if ev := tools[m.ToolCallID]; ev != nil {
				e.TS = inspEnd(ev)
			}
			if err := b.Add(e); err != nil {
				return err
			}
		case "system":
			if err := b.Add(schema.Event{Kind: schema.KindSystem, Role: "system", TS: ts, Line: line, Text: r.att.text(m.Content)}); err != nil {
				return err
			}
		default:
			if err := b.Add(schema.Event{Kind: schema.KindUser, Role: m.Role, TS: ts, Line: line, Text: r.att.text(m.Content)}); err != nil {
				return err
			}
		}
	}
	end := lineOf(len(msgs))
	if len(msgs) > 0 {
		end = lineOf(len(msgs) - 1)
	}
	for _, ev := range tail {
		if err := r.timelineEvent(ev, end); err != nil {
			return err
		}
	}
	return r.cutOff(msgs, tools, end)
}

// cutOff adds the results of the last assistant message's tool calls that a
// limit ended the sample before (the "ToolEvent" ran, its message was not
// appended).
func (r *inspRun) cutOff(msgs []*inspMessage, tools map[string]*inspTimeline, line int64) error {
	last := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i] != nil {
			last = i
			break
		}
	}
	if last < 0 || msgs[last].Role != "assistant" || msgs[last].Source == "input" {
		return nil
	}
	for _, c := range msgs[last].ToolCalls {
		ev := tools[c.ID]
		if ev == nil || c.ID == "" {
			continue
		}
		e := schema.Event{Kind: schema.KindToolResult, Role: "tool", CallID: c.ID, ToolName: ev.function, TS: inspEnd(ev), Line: line, Text: r.att.text(ev.Result)}
		if inspHasError(ev.Error) {
			e.IsError = true
			if strings.TrimSpace(e.Text) == "" {
				e.Text = inspErrorText(r.att, ev.Error)
			}
		}
		if err := r.b.Add(e); err != nil {
			return err
		}
	}
	return nil
}

// sameMessage reports whether a model event's output is message m.
func (r *inspRun) sameMessage(m, out *inspMessage) bool {
	if m.ID != "" && out.ID != "" {
		return m.ID == out.ID
	}
	if len(m.ToolCalls) > 0 || len(out.ToolCalls) > 0 {
		return len(m.ToolCalls) > 0 && len(out.ToolCalls) > 0 && m.ToolCalls[0].ID == out.ToolCalls[0].ID &&
			m.ToolCalls[0].Function == out.ToolCalls[0].Function
	}
	return r.att.sameText(m.Content, out.Content)
}

func inspFailed(ev *inspTimeline) bool {
	return inspHasError(ev.Error) && (ev.out == nil || len(ev.out.Choices) == 0)
}

func inspHasError(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && string(raw) != "null" && string(raw) != `""`
}

// inspErrorText reads an error logged as a string or as {type, message}
// (the message is what the model is shown), resolving references through a.
func inspErrorText(a *inspAttach, raw json.RawMessage) string {
	if s := atifString(raw); s != "" {
		return a.str(s)
	}
	var e inspToolError
	if json.Unmarshal(raw, &e) == nil {
		if e.Message != "" {
			return a.str(e.Message)
		}
		return e.Type
	}
	return string(a.json(raw))
}

func inspEnd(ev *inspTimeline) *time.Time {
	if t := ParseTime(ev.Completed); t != nil {
		return t
	}
	return ev.ts
}

// assistant emits one model call: reasoning, text, tool calls, then usage.
func (r *inspRun) assistant(m *inspMessage, ev *inspTimeline, line int64) error {
	b := r.b
	b.NewCall()
	var ts *time.Time
	model := m.Model
	if ev != nil {
		ts = inspEnd(ev)
		model = ev.model
		if ev.out != nil && ev.out.Model != "" {
			model = ev.out.Model
		}
	}
	b.NoteModel(model)
	out := func(kind schema.EventKind, text string) schema.Event {
		return schema.Event{Kind: kind, Role: "assistant", TS: ts, Line: line, Text: text}
	}
	for _, blk := range inspBlocks(r.att, m.Content) {
		var e schema.Event
		switch blk.kind {
		case schema.KindToolCall:
			e = out(schema.KindToolCall, "")
			e.ToolName, e.CallID, e.Args = blk.name, blk.id, blk.args
		case schema.KindToolResult:
			e = out(schema.KindToolResult, blk.text)
			e.Role, e.ToolName, e.CallID = "tool", blk.name, blk.id
		default:
			e = out(blk.kind, blk.text)
		}
		if err := b.Add(e); err != nil {
			return err
		}
	}
	for _, c := range m.ToolCalls {
		e := out(schema.KindToolCall, "")
		e.ToolName, e.CallID, e.Args = c.Function, c.ID, jsonString(r.att.json(c.Arguments))
		if err := b.Add(e); err != nil {
			return err
		}
	}
	if ev == nil || ev.out == nil {
		return nil
	}
	if len(ev.out.Choices) > 0 {
		r.lastStop = ev.out.Choices[0].StopReason
	}
	if u := ev.out.Usage; u != nil {
		if usage, ok := r.usage(u, ev.model); ok {
			usage.TS, usage.Model = ts, model
			b.SetUsage(usage)
			r.usageRows++
		}
	}
	return nil
}

// usage converts an Inspect ModelUsage; ok is false when it holds an
// implausible count.
func (r *inspRun) usage(u *inspUsage, model string) (schema.Usage, bool) {
	var vals [5]int64
	for i, raw := range []json.RawMessage{u.InputTokens, u.Output, u.CacheRead, u.CacheWrite, u.Reasoning} {
		if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
			continue
		}
		v, ok := atifCount(raw)
		if !ok {
			return schema.Usage{}, false
		}
		vals[i] = v
	}
	in, out, read, write, reason := vals[0], vals[1], vals[2], vals[3], vals[4]
	if model == "" {
		model = r.spec.model
	}
	if !inspInclusive(r.spec.version, model) || in < read+write {
		in += read + write
	}
	if c, err := strconv.ParseFloat(string(bytes.TrimSpace(u.TotalCost)), 64); err == nil && !math.IsNaN(c) && !math.IsInf(c, 0) && c >= 0 && c < 1e9 {
		r.cost += c
		r.hasCost = true
	}
	return schema.Usage{InputTokens: in, OutputTokens: out, CacheReadTokens: read, CacheWriteTokens: write, ReasoningTokens: reason}, true
}

// timelineEvent emits a compaction or a failed model call.
func (r *inspRun) timelineEvent(ev *inspTimeline, line int64) error {
	b := r.b
	if ev.Event == "model" {
		return b.Add(schema.Event{Kind: schema.KindError, Role: "system", TS: ev.ts, Line: line, IsError: true, Text: inspErrorText(r.att, ev.Error)})
	}
	if err := b.Add(schema.Event{Kind: schema.KindCompaction, Role: "system", TS: ev.ts, Line: line}); err != nil {
		return err
	}
	op := schema.ContextOp{Op: schema.OpSummary, Trigger: "auto", Detail: strings.TrimSpace("compaction " + ev.typ + " " + r.att.str(atifString(ev.Source)))}
	switch ev.typ {
	case "edit":
		op.Op = schema.OpMasking
	case "trim":
		op.Op = schema.OpTruncation
	}
	if v, ok := atifCount(ev.TokensBefore); ok {
		op.TokensBefore = &v
	}
	if v, ok := atifCount(ev.TokensAfter); ok {
		op.TokensAfter = &v
	}
	return b.Op(op)
}

// inspBlock is one part of a message's content.
type inspBlock struct {
	kind           schema.EventKind
	text           string
	id, name, args string
}

// inspBlocks splits assistant content into reasoning, text and server-side
// tool use (a call and its result in one block), resolving references
// through a.
func inspBlocks(a *inspAttach, raw json.RawMessage) []inspBlock {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		if t := a.text(raw); t != "" {
			return []inspBlock{{kind: schema.KindAssistant, text: t}}
		}
		return nil
	}
	var blocks []struct {
		Type      string          `json:"type"`
		Text      *string         `json:"text"`
		Reasoning string          `json:"reasoning"`
		Summary   json.RawMessage `json:"summary"`
		Redacted  bool            `json:"redacted"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Result    json.RawMessage `json:"result"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return []inspBlock{{kind: schema.KindAssistant, text: a.text(raw)}}
	}
	var out []inspBlock
	var text []string
	flush := func() {
		if len(text) > 0 {
			out = append(out, inspBlock{kind: schema.KindAssistant, text: strings.Join(text, "\n")})
			text = nil
		}
	}
	for _, blk := range blocks {
		switch blk.Type {
		case "reasoning":
			flush()
			t := a.str(blk.Reasoning)
			if blk.Redacted || t == "" {
				t = ContentText(a.json(blk.Summary))
			}
			out = append(out, inspBlock{kind: schema.KindReasoning, text: t})
		case "tool_use":
			flush()
			out = append(out, inspBlock{kind: schema.KindToolCall, id: blk.ID, name: blk.Name, args: jsonString(a.json(blk.Arguments))})
			if len(blk.Result) > 0 && string(blk.Result) != "null" {
				out = append(out, inspBlock{kind: schema.KindToolResult, id: blk.ID, name: blk.Name, text: a.text(blk.Result)})
			}
		default:
			if blk.Text != nil {
				text = append(text, a.str(*blk.Text))
			} else if blk.Type != "" {
				text = append(text, "["+blk.Type+"]")
			}
		}
	}
	flush()
	return out
}

// inspParts splits message content into the parts its text joins with
// newlines, references not yet resolved: a string is one part; blocks give
// their text (or reasoning), other blocks [type]. ok is false for other
// content, which ContentText reads.
func inspParts(raw json.RawMessage) (parts []string, ok bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var blocks []struct {
			Type      string  `json:"type"`
			Text      *string `json:"text"`
			Reasoning string  `json:"reasoning"`
		}
		if json.Unmarshal(raw, &blocks) != nil {
			return nil, false
		}
		parts = make([]string, 0, len(blocks))
		for _, blk := range blocks {
			switch {
			case blk.Text != nil:
				parts = append(parts, *blk.Text)
			case blk.Type == "reasoning":
				parts = append(parts, blk.Reasoning)
			case blk.Type != "":
				parts = append(parts, "["+blk.Type+"]")
			}
		}
		return parts, true
	}
	if s, _, ok := stringValue(raw); ok {
		return []string{s}, true
	}
	return nil, false
}

// end sets the run's end reason and outcome (see the type doc).
func (r *inspRun) end(s *inspSample, timeline []*inspTimeline) {
	b := r.b
	b.Run.Resolved = inspResolved(s.Scores)
	typ, limit, msg := "", "", ""
	var lim struct {
		Type  string          `json:"type"`
		Limit json.RawMessage `json:"limit"`
	}
	if len(s.Limit) > 0 && json.Unmarshal(s.Limit, &lim) == nil && lim.Type != "" {
		typ, limit = lim.Type, scalarString(lim.Limit)
	}
	for _, ev := range timeline {
		if ev.Event == "sample_limit" {
			if typ == "" {
				typ, limit = ev.typ, scalarString(ev.Limit)
			}
			if ev.typ == typ {
				msg = atifString(ev.Message)
			}
		}
	}
	msg = r.att.str(msg)
	if typ != "" {
		detail := strings.TrimSpace(typ + " limit " + limit)
		if msg != "" {
			detail += ": " + msg
		}
		switch typ {
		case "message":
			b.SetEnd(schema.EndStepLimit, detail)
		case "token", "cost":
			b.SetEnd(schema.EndCostLimit, detail)
		case "context":
			b.SetEnd(schema.EndContextOverflow, detail)
		default: // time, working, operator, custom
			b.SetEnd(schema.EndInterrupted, detail)
		}
		return
	}
	if inspHasError(s.Error) {
		text := inspErrorText(nil, s.Error)
		var e struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(s.Error, &e) == nil && e.Message != "" {
			text = e.Message
		}
		if len(text) > 500 {
			text = strings.ToValidUTF8(text[:500], "")
		}
		if inspOverflow(text) {
			b.SetEnd(schema.EndContextOverflow, text)
		} else {
			b.SetEnd(schema.EndError, text)
		}
		return
	}
	if r.lastStop == "model_length" {
		b.SetEnd(schema.EndContextOverflow, "stop_reason model_length")
		return
	}
	if r.matched > 0 || len(s.Scores) > 0 {
		b.SetEnd(schema.EndFinished, "sample completed")
	}
}

// inspOverflow reports whether an error says the prompt exceeded the
// model's context window.
func inspOverflow(msg string) bool {
	return containsAnyFold(msg, []string{"context_length_exceeded", "context window", "context length", "maximum context", "prompt is too long", "too many tokens"})
}

// inspResolved reads the scores: resolved when every scorer gives a clear
// correct, unresolved when every one gives a clear incorrect.
func inspResolved(scores map[string]json.RawMessage) *bool {
	if len(scores) == 0 {
		return nil
	}
	names := make([]string, 0, len(scores))
	for n := range scores {
		names = append(names, n)
	}
	sort.Strings(names)
	var res *bool
	for _, n := range names {
		var sc struct {
			Value json.RawMessage `json:"value"`
		}
		if json.Unmarshal(scores[n], &sc) != nil {
			return nil
		}
		v, ok := inspScoreValue(sc.Value)
		if !ok || res != nil && *res != v {
			return nil
		}
		res = &v
	}
	return res
}

func inspScoreValue(raw json.RawMessage) (bool, bool) {
	raw = bytes.TrimSpace(raw)
	switch string(raw) {
	case `"C"`, "true", `"correct"`, `"CORRECT"`:
		return true, true
	case `"I"`, `"N"`, "false", `"incorrect"`, `"INCORRECT"`:
		return false, true
	}
	if f, err := strconv.ParseFloat(string(raw), 64); err == nil {
		switch f {
		case 1:
			return true, true
		case 0:
			return false, true
		}
	}
	return false, false
}

// totals sets the run cost, and the run totals from sample.model_usage when
// no call was matched to a model event.
func (r *inspRun) totals(s *inspSample) {
	b := r.b
	if r.hasCost {
		c := r.cost
		b.Run.CostUSD = &c
	}
	if r.usageRows > 0 || len(s.ModelUsage) == 0 {
		return
	}
	models := make([]string, 0, len(s.ModelUsage))
	for m := range s.ModelUsage {
		models = append(models, m)
	}
	sort.Strings(models)
	for _, m := range models {
		var u inspUsage
		if json.Unmarshal(s.ModelUsage[m], &u) != nil {
			continue
		}
		usage, ok := r.usage(&u, m)
		if !ok {
			continue
		}
		b.Run.InputTokens += usage.InputTokens
		b.Run.OutputTokens += usage.OutputTokens
		b.Run.CacheReadTokens += usage.CacheReadTokens
		b.Run.CacheWriteTokens += usage.CacheWriteTokens
		b.Run.ReasoningTokens += usage.ReasoningTokens
		b.NoteModel(m)
	}
	if r.hasCost {
		c := r.cost
		b.Run.CostUSD = &c
	}
}
