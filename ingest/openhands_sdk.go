package ingest

import (
	"bytes"
	stdjson "encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// openHandsSDK reads the OpenHands Software-Agent-SDK (V1) event log
// events.jsonl: one event per line {id, timestamp, source, kind, …}, one run
// per file. The run id is the conversation id of a full_state snapshot when
// the file has one, else the file's base name (for a file named events.jsonl,
// its directory: the SDK keeps conversations in <conversation id>/).
//
// Steps per line:
//  1. Decode the line; a line that is not a JSON object, has no kind, or
//     whose fields do not decode for its kind is rejected.
//  2. SystemPromptEvent → system (system_prompt + dynamic_context);
//     MessageEvent → user, or for the agent one model call
//     (RunBuilder.Call(llm_response_id)) with its reasoning and text;
//     ActionEvent → one call per llm_response_id (parallel tool calls share
//     it): reasoning_content (else thinking blocks), the thought text (with a
//     leading <think>…</think> that repeats the reasoning removed), and the
//     tool call (tool_call_id, tool_call.arguments as the model sent them).
//  3. ObservationEvent, UserRejectObservation and AgentErrorEvent → tool
//     results linked by tool_call_id (the latter two marked as errors); the
//     exit code is observation.exit_code (else metadata.exit_code, -1 = none).
//  4. Usage. ConversationStateUpdateEvent key "stats" (or a "full_state"
//     snapshot's stats) holds cumulative accumulated_token_usage per LLM
//     (usage_to_metrics.<usage id>); each increase is one model call. The SDK
//     writes it when the call returns, before the call's events, so the
//     increase of the agent's LLM ("default") waits for the next agent
//     output; one that no output claims (a call that logged no event) is a
//     call of its own, and so is every increase of another LLM (the
//     condenser's). prompt_tokens includes cache reads and writes.
//  5. Condensation (forgotten_event_ids, summary) → a compaction event with a
//     summary op (a context_op event with a truncation op when it has no
//     summary), tokens_before = the prompt of the last measured agent call;
//     CondensationRequest → a context_op event whose reason becomes the
//     trigger of the condensation that follows; CondensationSummaryEvent → a
//     compaction event (the summary as the model sees it).
//  6. End: the finish tool, execution_status finished / error / stuck / paused →
//     finished / error / error / interrupted (running again clears it);
//     ConversationErrorEvent → an error event and error (context_overflow for
//     context-window errors); ConversationIterationLimitEvent → step_limit;
//     PauseEvent → interrupted.
type openHandsSDK struct{ formatInfo }

// ohsKinds are the SDK's event kinds.
var ohsKinds = map[string]bool{"SystemPromptEvent": true, "MessageEvent": true, "ActionEvent": true, "ObservationEvent": true,
	"UserRejectObservation": true, "AgentErrorEvent": true, "ConversationStateUpdateEvent": true, "Condensation": true,
	"CondensationRequest": true, "CondensationSummaryEvent": true, "PauseEvent": true, "ConversationErrorEvent": true,
	"ConversationIterationLimitEvent": true, "TokenEvent": true}

// ohsKeys are top-level keys only SDK events have.
var ohsKeys = map[string]bool{"system_prompt": true, "llm_message": true, "llm_response_id": true, "tool_call_id": true,
	"action_id": true, "forgotten_event_ids": true, "thinking_blocks": true}

// Detect accepts a file whose first non-blank line is an object with an SDK
// event kind (and an id), or — when the head cuts that line before its kind,
// which pydantic writes last — an id, a source and a key only SDK events have.
func (openHandsSDK) Detect(_ string, head []byte) bool {
	return headLines(bytes.TrimPrefix(head, utf8BOM), 1, func(line []byte) (bool, bool) {
		return line[0] == '{' && ohsDetectLine(line), true
	})
}

func ohsDetectLine(line []byte) bool {
	dec := stdjson.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != stdjson.Delim('{') {
		return false
	}
	var id, source, sdkKey bool
	for {
		key, ok, _ := nextKey(dec)
		if !ok {
			break
		}
		v, err := skipValue(dec)
		if err != nil {
			break
		}
		switch {
		case key == "kind":
			s, _ := v.(string)
			return ohsKinds[s] && id
		case key == "id":
			_, id = v.(string)
		case key == "source":
			s, _ := v.(string)
			source = s == "agent" || s == "user" || s == "environment"
		case key == "role" || key == "type":
			return false // chat messages, other event logs
		case key == "action" || key == "observation":
			if _, isStr := v.(string); isStr {
				return false // an OpenHands V0 event
			}
		case ohsKeys[key]:
			sdkKey = true
		}
	}
	return id && source && sdkKey
}

// ohsEvent is one SDK event; fields of all kinds share the struct.
type ohsEvent struct {
	ID        json.RawMessage `json:"id"`
	Timestamp any             `json:"timestamp"`
	Source    string          `json:"source"`
	Kind      string          `json:"kind"`
	// SystemPromptEvent
	SystemPrompt   json.RawMessage `json:"system_prompt"`
	DynamicContext json.RawMessage `json:"dynamic_context"`
	// MessageEvent
	LLMMessage      *ohsMessage     `json:"llm_message"`
	LLMResponseID   json.RawMessage `json:"llm_response_id"`
	ExtendedContent json.RawMessage `json:"extended_content"`
	// ActionEvent
	Thought          json.RawMessage `json:"thought"`
	ReasoningContent json.RawMessage `json:"reasoning_content"`
	ThinkingBlocks   json.RawMessage `json:"thinking_blocks"`
	Action           json.RawMessage `json:"action"`
	ToolName         string          `json:"tool_name"`
	ToolCallID       string          `json:"tool_call_id"`
	ToolCall         *struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"tool_call"`
	// ObservationEvent, UserRejectObservation, AgentErrorEvent
	Observation     json.RawMessage `json:"observation"`
	RejectionReason string          `json:"rejection_reason"`
	Error           string          `json:"error"`
	// ConversationStateUpdateEvent
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value"`
	// Condensation, CondensationRequest, CondensationSummaryEvent
	ForgottenEventIDs []json.RawMessage `json:"forgotten_event_ids"`
	Summary           json.RawMessage   `json:"summary"`
	Reason            json.RawMessage   `json:"reason"`
	// ConversationErrorEvent, ConversationIterationLimitEvent
	Code   string `json:"code"`
	Detail string `json:"detail"`
}

type ohsMessage struct {
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	ReasoningContent json.RawMessage `json:"reasoning_content"`
	ThinkingBlocks   json.RawMessage `json:"thinking_blocks"`
}

// ohsObservation is the part of an observation that is used.
type ohsObservation struct {
	Content  json.RawMessage `json:"content"`
	IsError  bool            `json:"is_error"`
	ExitCode *ohInt          `json:"exit_code"`
	Metadata *struct {
		ExitCode *ohInt `json:"exit_code"`
	} `json:"metadata"`
}

// ohsStats is a stats value: cumulative metrics per LLM usage id.
type ohsStats struct {
	UsageToMetrics map[string]*struct {
		ModelName             string    `json:"model_name"`
		AccumulatedCost       *float64  `json:"accumulated_cost"`
		AccumulatedTokenUsage *ohTokens `json:"accumulated_token_usage"`
	} `json:"usage_to_metrics"`
}

// ohsRun is the state of one file's import.
type ohsRun struct {
	f          *File
	b          *RunBuilder
	prev       map[string]ohTokens // last cumulative usage per usage id
	cost       map[string]float64  // last accumulated cost per usage id
	pending    heldUsage           // agent usage waiting for its call's output
	lastResp   string              // llm_response_id of the current call
	lastPrompt *int64              // prompt tokens of the last measured agent call
	trigger    string              // trigger of the next condensation
	calls      map[string]*ohCall  // tool_call_id → tool call
	span       ohSpan
}

func (openHandsSDK) Import(f *File, r io.Reader) error {
	o := &ohsRun{f: f, prev: map[string]ohTokens{}, cost: map[string]float64{}, calls: map[string]*ohCall{}}
	if err := f.Lines(r, o.line); err != nil {
		return err
	}
	if o.b == nil {
		return nil
	}
	o.pending.flush(o.b)
	var total float64
	for _, c := range o.cost {
		total += c
	}
	if total > 0 {
		o.b.Run.CostUSD = &total
	}
	o.span.set(&o.b.Run)
	return o.b.Finish()
}

// run returns the file's run, starting it with id (or the file's name).
func (o *ohsRun) run(id string) (*RunBuilder, error) {
	if o.b != nil {
		return o.b, nil
	}
	if id == "" {
		id = ohsRunName(o.f.Path())
	}
	b, err := o.f.NewRun(strings.Clone(id))
	if err != nil {
		return nil, err
	}
	b.Run.Harness = "openhands-sdk"
	o.b = b
	return b, nil
}

// ohsRunName is a run's default id: the file's base name, or for a file
// named events.jsonl the directory it is in (the conversation id).
func ohsRunName(path string) string {
	base := fileStem(path)
	if base == "events" || base == "" {
		if dir := filepath.Base(filepath.Dir(path)); dir != "." && dir != string(filepath.Separator) && dir != "" {
			return dir
		}
	}
	return base
}

func (o *ohsRun) line(n int64, raw []byte) error {
	f := o.f
	if n == 1 {
		if raw = bytes.TrimSpace(bytes.TrimPrefix(raw, utf8BOM)); len(raw) == 0 {
			return nil
		}
	}
	if raw[0] != '{' {
		return f.Reject(n, "record is not a JSON object", raw)
	}
	var head struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return f.Reject(n, "invalid JSON: "+decodeErrText(err), raw)
	}
	if head.Kind == "" {
		return f.Reject(n, "record without kind", raw)
	}
	var ev ohsEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		return f.Reject(n, "invalid "+ohsClip(head.Kind)+": "+decodeErrText(err), raw)
	}
	if ev.Kind == "MessageEvent" && ev.LLMMessage == nil {
		return f.Reject(n, "MessageEvent without llm_message", raw)
	}
	if ev.Kind == "ConversationStateUpdateEvent" && ev.Key == "full_state" && o.b == nil {
		var st struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(ev.Value, &st) == nil {
			if _, err := o.run(scalarString(st.ID)); err != nil {
				return err
			}
		}
	}
	b, err := o.run("")
	if err != nil {
		return err
	}
	ts := ParseTime(ev.Timestamp)
	o.span.note(ts)
	switch ev.Kind {
	case "SystemPromptEvent":
		text := ohsContent(ev.SystemPrompt)
		if d := ohsContent(ev.DynamicContext); d != "" {
			text += "\n" + d
		}
		return b.Add(schema.Event{Kind: schema.KindSystem, Role: "system", TS: ts, Line: n, Text: text})
	case "MessageEvent":
		m := ev.LLMMessage
		text := ContentText(m.Content)
		if ext := ContentText(ev.ExtendedContent); ext != "" {
			text += "\n" + ext
		}
		if ev.Source != "agent" && m.Role != "assistant" {
			ohResume(o.b)
			return b.Add(schema.Event{Kind: schema.KindUser, Role: "user", TS: ts, Line: n, Text: text})
		}
		o.call(scalarString(ev.LLMResponseID))
		return o.outputs(n, ts, ohsReasoning(m.ReasoningContent, m.ThinkingBlocks), text)
	case "ActionEvent":
		return o.action(n, ts, &ev)
	case "ObservationEvent":
		var obs ohsObservation
		if !ohIsNull(ev.Observation) {
			if err := json.Unmarshal(ev.Observation, &obs); err != nil {
				return f.Reject(n, "invalid ObservationEvent observation: "+decodeErrText(err), raw)
			}
		}
		text := ContentText(obs.Content)
		if ext := ContentText(ev.ExtendedContent); ext != "" {
			text += "\n" + ext
		}
		exit := obs.ExitCode
		if exit == nil && obs.Metadata != nil {
			exit = obs.Metadata.ExitCode
		}
		var code *int64
		if exit != nil && *exit != -1 {
			v := int64(*exit)
			code = &v
		}
		return o.result(n, ts, &ev, text, obs.IsError || code != nil && *code != 0, code)
	case "UserRejectObservation":
		reason := ev.RejectionReason
		if reason == "" {
			reason = "User rejected the action"
		}
		return o.result(n, ts, &ev, "Action rejected: "+reason, true, nil)
	case "AgentErrorEvent":
		if IsOverflowText(ev.Error) || ohOverflow(ev.Error) {
			b.SetEnd(schema.EndContextOverflow, strings.TrimSpace(ev.Error))
		}
		if ev.ToolCallID == "" {
			return b.Add(schema.Event{Kind: schema.KindError, Role: "tool", TS: ts, Line: n, IsError: true, Text: ev.Error})
		}
		return o.result(n, ts, &ev, ev.Error, true, nil)
	case "ConversationStateUpdateEvent":
		return o.state(n, &ev, ts, raw)
	case "Condensation":
		return o.condensation(n, ts, &ev)
	case "CondensationRequest":
		o.trigger = "request"
		if r := ohText(ev.Reason); r != "" {
			o.trigger = r
		}
		return b.Add(schema.Event{Kind: schema.KindContextOp, Role: "system", TS: ts, Line: n, Text: "condensation requested (" + o.trigger + ")"})
	case "CondensationSummaryEvent":
		return b.Add(schema.Event{Kind: schema.KindCompaction, Role: "user", TS: ts, Line: n, Text: ohText(ev.Summary)})
	case "ConversationErrorEvent":
		text := strings.TrimSpace(ev.Detail)
		if code := strings.TrimSpace(ev.Code); code != "" && text != "" {
			text = code + ": " + text
		} else if code != "" {
			text = code
		}
		if err := b.Add(schema.Event{Kind: schema.KindError, Role: "system", TS: ts, Line: n, IsError: true, Text: text}); err != nil {
			return err
		}
		b.SetEnd(ohEndFromText(text, schema.EndError), text)
	case "ConversationIterationLimitEvent":
		detail := ev.Detail
		if detail == "" {
			detail = "iteration limit"
		}
		b.SetEnd(schema.EndStepLimit, detail)
	case "PauseEvent":
		b.SetEnd(schema.EndInterrupted, "paused")
	}
	return nil // TokenEvent and kinds of newer versions
}

// call begins (or continues) the model call with response id rid: a new call
// takes the usage that waits for its output.
func (o *ohsRun) call(rid string) {
	b := o.b
	if rid != "" && rid == o.lastResp && b.Turns() > 0 {
		b.Call(rid)
		return
	}
	if rid != "" {
		b.Call(rid)
	} else {
		b.NewCall()
	}
	o.lastResp = rid
	if u, ok := o.pending.take(); ok {
		u.RequestID = rid
		b.SetUsage(u)
	}
}

// outputs adds a call's reasoning and text.
func (o *ohsRun) outputs(n int64, ts *time.Time, reasoning, text string) error {
	b := o.b
	if strings.TrimSpace(reasoning) != "" {
		if err := b.Add(schema.Event{Kind: schema.KindReasoning, Role: "assistant", TS: ts, Line: n, Text: reasoning}); err != nil {
			return err
		}
		text = ohsDropThink(text, reasoning)
	}
	if strings.TrimSpace(text) == "" {
		return nil
	}
	return b.Add(schema.Event{Kind: schema.KindAssistant, Role: "assistant", TS: ts, Line: n, Text: text})
}

func (o *ohsRun) action(n int64, ts *time.Time, ev *ohsEvent) error {
	b := o.b
	rid := scalarString(ev.LLMResponseID)
	o.call(rid)
	if err := o.outputs(n, ts, ohsReasoning(ev.ReasoningContent, ev.ThinkingBlocks), ContentText(ev.Thought)); err != nil {
		return err
	}
	e := schema.Event{Kind: schema.KindToolCall, Role: "assistant", TS: ts, Line: n, ToolName: ev.ToolName, CallID: ev.ToolCallID}
	if tc := ev.ToolCall; tc != nil {
		if e.ToolName == "" {
			e.ToolName = tc.Name
		}
		e.Args = jsonString(tc.Arguments)
	}
	if e.Args == "" && !ohIsNull(ev.Action) {
		args := ohObject(ev.Action)
		delete(args, "kind")
		e.Args = ohModelArgs(args)
	}
	e.Target = Target(e.ToolName, []byte(e.Args))
	if err := b.Add(e); err != nil {
		return err
	}
	if e.CallID != "" {
		o.calls[strings.Clone(e.CallID)] = &ohCall{callID: strings.Clone(e.CallID), name: strings.Clone(e.ToolName), target: strings.Clone(e.Target)}
	}
	if e.ToolName == "finish" { // state updates are not always kept in the log
		b.SetEnd(schema.EndFinished, "finish")
	}
	return nil
}

// result adds a tool result linked by tool_call_id.
func (o *ohsRun) result(n int64, ts *time.Time, ev *ohsEvent, text string, isErr bool, exit *int64) error {
	e := schema.Event{Kind: schema.KindToolResult, Role: "tool", TS: ts, Line: n, CallID: ev.ToolCallID, ToolName: ev.ToolName,
		Text: text, IsError: isErr, ExitCode: exit}
	if c := o.calls[ev.ToolCallID]; c != nil && ev.ToolCallID != "" {
		e.ToolName, e.Target = c.name, c.target
	}
	return o.b.Add(e)
}

// state reads a ConversationStateUpdateEvent: usage from stats, the end
// from execution_status (a full_state snapshot carries both).
func (o *ohsRun) state(n int64, ev *ohsEvent, ts *time.Time, raw []byte) error {
	switch ev.Key {
	case "execution_status":
		o.status(ohText(ev.Value))
	case "stats":
		var st ohsStats
		if err := json.Unmarshal(ev.Value, &st); err != nil {
			return o.f.Reject(n, "invalid stats: "+decodeErrText(err), raw)
		}
		o.stats(&st, ts)
	case "full_state":
		var full struct {
			ExecutionStatus string          `json:"execution_status"`
			Stats           json.RawMessage `json:"stats"`
			Agent           *struct {
				LLM *struct {
					Model string `json:"model"`
				} `json:"llm"`
			} `json:"agent"`
		}
		if err := json.Unmarshal(ev.Value, &full); err != nil {
			return o.f.Reject(n, "invalid full_state: "+decodeErrText(err), raw)
		}
		if full.Agent != nil && full.Agent.LLM != nil {
			o.b.NoteModel(full.Agent.LLM.Model)
		}
		var st ohsStats
		if !ohIsNull(full.Stats) && json.Unmarshal(full.Stats, &st) == nil {
			o.stats(&st, ts)
		}
		o.status(full.ExecutionStatus)
	}
	return nil
}

// stats turns the increase of each LLM's cumulative usage into model calls.
func (o *ohsRun) stats(st *ohsStats, ts *time.Time) {
	b := o.b
	ids := make([]string, 0, len(st.UsageToMetrics))
	hasAgent := false
	for id, m := range st.UsageToMetrics {
		if m == nil {
			continue
		}
		ids = append(ids, id)
		hasAgent = hasAgent || id == "default" || id == "agent"
	}
	sort.Strings(ids)
	for _, id := range ids {
		m := st.UsageToMetrics[id]
		if m.AccumulatedCost != nil && *m.AccumulatedCost >= 0 && *m.AccumulatedCost < 1e12 {
			o.cost[strings.Clone(id)] = *m.AccumulatedCost
		}
		acc := m.AccumulatedTokenUsage
		if acc == nil {
			continue
		}
		if w := int64(acc.ContextWindow); w > 0 {
			b.Run.WindowTokens = &w
		}
		var prev *ohTokens
		if p, ok := o.prev[id]; ok {
			prev = &p
		}
		d := acc.sub(prev)
		o.prev[strings.Clone(id)] = *acc
		if d.zero() {
			continue
		}
		u, ok := d.usage()
		if !ok {
			continue
		}
		u.TS, u.Model = ts, m.ModelName
		if u.Model == "" {
			u.Model = acc.Model
		}
		agent := id == "default" || id == "agent" || !hasAgent && !strings.Contains(id, "condenser")
		if !agent { // the condenser's (or another helper LLM's) call
			b.SetUsageAt(b.Turns(), u)
			continue
		}
		in := u.InputTokens
		o.lastPrompt = &in
		o.pending.hold(b, u) // a usage held before had no output: a call of its own
	}
}

// status maps an execution_status to the run's end.
func (o *ohsRun) status(s string) {
	b := o.b
	switch s {
	case "finished":
		ohFinished(b, "execution_status finished")
	case "error":
		if b.Run.EndReasonSource != schema.SourceExplicit || b.Run.EndReason == schema.EndFinished {
			b.SetEnd(schema.EndError, "execution_status error")
		}
	case "stuck":
		b.SetEnd(schema.EndError, "execution_status stuck")
	case "paused":
		b.SetEnd(schema.EndInterrupted, "execution_status paused")
	case "running":
		ohResume(o.b)
	}
}

func (o *ohsRun) condensation(n int64, ts *time.Time, ev *ohsEvent) error {
	b := o.b
	detail := fmt.Sprintf("forgot %d events", len(ev.ForgottenEventIDs))
	if k := len(ev.ForgottenEventIDs); k > 0 {
		detail += fmt.Sprintf(" (%s…%s)", ohsClip(scalarString(ev.ForgottenEventIDs[0])), ohsClip(scalarString(ev.ForgottenEventIDs[k-1])))
	}
	op := schema.ContextOp{Op: schema.OpSummary, Trigger: "auto", Detail: detail}
	if o.trigger != "" {
		op.Trigger, o.trigger = o.trigger, ""
	}
	if o.lastPrompt != nil {
		v := *o.lastPrompt
		op.TokensBefore = &v
	}
	summary := ohText(ev.Summary)
	if strings.TrimSpace(summary) != "" {
		if err := b.Add(schema.Event{Kind: schema.KindCompaction, Role: "system", TS: ts, Line: n, Text: summary}); err != nil {
			return err
		}
	} else {
		op.Op = schema.OpTruncation
		if err := b.Add(schema.Event{Kind: schema.KindContextOp, Role: "system", TS: ts, Line: n, Text: "condensation: " + detail}); err != nil {
			return err
		}
	}
	return b.Op(op)
}

// ohsContent returns a TextContent's text (or a plain string).
func ohsContent(raw json.RawMessage) string {
	if ohIsNull(raw) {
		return ""
	}
	return ContentText(raw)
}

// ohsReasoning returns reasoning_content, else the thinking blocks' text.
func ohsReasoning(content, blocks json.RawMessage) string {
	if s := ohText(content); strings.TrimSpace(s) != "" {
		return s
	}
	var bs []struct {
		Thinking string `json:"thinking"`
	}
	if ohIsNull(blocks) || json.Unmarshal(blocks, &bs) != nil {
		return ""
	}
	parts := make([]string, 0, len(bs))
	for _, b := range bs {
		if b.Thinking != "" {
			parts = append(parts, b.Thinking)
		}
	}
	return strings.Join(parts, "\n")
}

// ohsDropThink removes a leading <think>…</think> block from text when it
// repeats the reasoning already added (some providers leave it in the text).
func ohsDropThink(text, reasoning string) string {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "<think>") {
		return text
	}
	end := strings.Index(t, "</think>")
	if end < 0 {
		return text
	}
	inner := strings.TrimSpace(t[len("<think>"):end])
	if inner != strings.TrimSpace(reasoning) {
		return text
	}
	return strings.TrimSpace(t[end+len("</think>"):])
}

func ohsClip(s string) string {
	if len(s) > 64 {
		return strings.ToValidUTF8(s[:64], "")
	}
	return s
}
