package ingest

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// sweAgent reads SWE-agent trajectories (*.traj, SWE-agent 0.x and 1.x): one
// JSON object {trajectory: [step], history: [message], info, replay_config,
// environment}, or a RetryAgent file whose "attempts" hold one such object
// per attempt.
//
// Steps per trajectory (one run each, or one per agent: step 3; a
// RetryAgent file gives one run per attempt, its top level being a copy of
// the chosen attempt):
//  1. Decode the object; a document that is not JSON is one reject. Run
//     metadata comes from replay_config (a JSON string or object): model
//     agent.model.name, task problem_statement.id (also the run id, else the
//     file name), and from info: totals model_stats.tokens_sent /
//     tokens_received / instance_cost (no per-call usage: the builder marks
//     the run usage_estimated) and the end reason exit_status.
//  2. Events come from history, each message once: system → system;
//     demonstrations (is_demo) → user, whatever their role; each assistant
//     message is one model call (thinking_blocks → reasoning, the thought →
//     assistant, then its tool calls: function-calling configs log them in
//     tool_calls with ids, text/XML configs only as the action string, which
//     becomes a tool call of the SWE-agent command it names, else of bash,
//     with the call id "action-<turn>" (sweActionID: one action per model
//     call); role tool → tool_result linked by tool_call_ids; a user message
//     that answers a text/XML action → tool_result with its call's id (the
//     observation follows its action); other user messages → user. When
//     the history lacks the observation of the last action (0.x files), it
//     is taken from the last trajectory step.
//  3. A history whose messages name several agents (SWE-agent 0.x
//     subroutines append each sub-agent's history after it returns, every
//     message carrying its agent's name; multi-agent harnesses built on
//     SWE-agent interleave their roles the same way) is one run per agent:
//     each agent's messages are its own conversation (its prompts held only
//     them). The first agent's run keeps the run id, the exit status and
//     info.model_stats's totals (which cover every agent: the log has no
//     per-agent figures); each other agent's run is "<id>/<agent>", its
//     parent the first agent's run, with the configured model. Messages
//     without an agent name, and demonstrations whose agent sends no other
//     message, belong to the first agent.
//  4. The history processors' elisions are found by comparing, message by
//     message, each step's processed prompt (trajectory[i].messages, the
//     history after the step, or trajectory[i].query, the prompt of the step)
//     with history: the first time an observation is shown cut or replaced
//     (e.g. "Old environment output: (7 lines omitted)"), a context_op event
//     with a masking op (trigger "history-processor", tokens_before = the
//     observation's estimate, tokens_after = the placeholder's, tool_key =
//     the output's key) is placed before the model call that first saw it.
//     An observation SWE-agent clipped to max_observation_length when it
//     wrote it ("<response clipped> … N characters were elided") is no
//     context operation: the history holds it clipped, every prompt showed
//     it so, and its logged text is its size.
//  5. Finish the runs; steps carry no timestamps.
type sweAgent struct{ formatInfo }

const formatSWEAgent = "swe-agent-traj"

// Detect claims a JSON object with a "trajectory" array of steps ({action,
// observation|response|thought}), or a "history" array of messages carrying
// SWE-agent fields (agent, message_type, is_demo, thought, action), or, for
// *.traj files or objects with replay_config/environment, any role messages;
// RetryAgent "attempts" are looked into the same way.
func (sweAgent) Detect(name string, head []byte) bool {
	head = trimHead(head)
	if len(head) == 0 || head[0] != '{' {
		return false
	}
	dec := stdjson.NewDecoder(bytes.NewReader(head))
	if _, err := dec.Token(); err != nil {
		return false
	}
	s := sweSniffObject(dec)
	return s.steps || s.history || s.roles && (s.config || strings.HasSuffix(strings.ToLower(name), ".traj"))
}

type sweSniff struct{ steps, history, roles, config bool }

// sweSniffObject scans the keys of an object whose '{' was just read; a head
// that ends inside it ends the scan with what was seen.
func sweSniffObject(dec *stdjson.Decoder) sweSniff {
	var s sweSniff
	for {
		key, ok, _ := nextKey(dec)
		if !ok {
			return s
		}
		switch key {
		case "trajectory":
			keys, err := sweFirstKeys(dec)
			if keys["action"] && (keys["observation"] || keys["response"] || keys["thought"]) {
				s.steps = true
			}
			if err != nil {
				return s
			}
		case "history":
			keys, err := sweFirstKeys(dec)
			if keys["role"] {
				s.roles = true
				if keys["agent"] || keys["message_type"] || keys["is_demo"] || keys["thought"] || keys["action"] {
					s.history = true
				}
			}
			if err != nil {
				return s
			}
		case "attempts":
			isArray, err := enter(dec, stdjson.Delim('['))
			if err != nil {
				return s
			}
			if !isArray {
				continue
			}
			if el, err := dec.Token(); err != nil || el != stdjson.Delim('{') {
				return s
			}
			a := sweSniffObject(dec)
			s.steps, s.history, s.roles = s.steps || a.steps, s.history || a.history, s.roles || a.roles
			s.config = s.config || a.config
			if skipRest(dec) != nil {
				return s
			}
		default:
			if key == "replay_config" || key == "environment" {
				s.config = true
			}
			if _, err := skipValue(dec); err != nil {
				return s
			}
		}
	}
}

// sweFirstKeys reads an array value and returns the keys of its first
// element when that is an object (as far as the head goes), consuming the
// whole array; a non-array value is skipped.
func sweFirstKeys(dec *stdjson.Decoder) (map[string]bool, error) {
	keys := map[string]bool{}
	if isArray, err := enter(dec, stdjson.Delim('[')); !isArray {
		return keys, err
	}
	el, err := dec.Token()
	if err != nil {
		return keys, err
	}
	switch el {
	case stdjson.Delim(']'):
		return keys, nil
	case stdjson.Delim('{'):
		for {
			k, ok, err := nextKey(dec)
			if err != nil {
				return keys, err
			}
			if !ok {
				break
			}
			keys[k] = true
			if _, err := skipValue(dec); err != nil {
				return keys, err
			}
		}
	case stdjson.Delim('['):
		if err := skipRest(dec); err != nil {
			return keys, err
		}
	}
	return keys, skipRest(dec)
}

// Import reads one trajectory file.
func (sweAgent) Import(f *File, r io.Reader) error {
	d, err := sweDocument(f, r, false)
	if d == nil {
		return err
	}
	doc, ix, data := d.root, d.index(), d.data
	fields, err := objectFields(doc)
	if err != nil {
		return sweSyntax(f, ix, doc, data, err)
	}
	si := &sweImport{f: f, ix: ix, base: sweBaseName(f.Path(), ".traj")}
	if att, ok := fields["attempts"]; ok && !isJSONNull(att.raw) {
		elems, err := arrayElems(att)
		if err != nil {
			return f.Reject(ix.line(att.off), "attempts is not an array: "+clipErr(err), att.raw)
		}
		if len(elems) > 0 {
			for k, el := range elems {
				af, err := objectFields(el)
				if err != nil {
					if err := f.Reject(ix.line(el.off), fmt.Sprintf("attempt %d: %v", k+1, err), el.raw); err != nil {
						return err
					}
					continue
				}
				if err := si.run(af, k+1); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return si.run(fields, 0)
}

// sweDocument reads a whole-file JSON document. It returns nil when there
// is nothing to import: the file is empty, or it is not a JSON object (nor,
// when arrays is set, an array) and has been rejected; err is then the
// Reject's result.
func sweDocument(f *File, r io.Reader, arrays bool) (*jsonDoc, error) {
	d, err := readDocument(f, r)
	if err != nil {
		return nil, err
	}
	data := d.data
	doc := d.root
	switch {
	case len(doc.raw) == 0:
		return nil, nil
	case doc.raw[0] == '{' || arrays && doc.raw[0] == '[':
		return d, nil
	case !json.Valid(doc.raw):
		return nil, sweSyntax(f, d.index(), doc, data, errors.New("invalid JSON"))
	case arrays:
		return nil, f.Reject(1, "expected a JSON array or object", data)
	}
	return nil, f.Reject(1, "expected a JSON object", data)
}

// sweSyntax rejects a whole document at the line of its syntax error; the
// position comes from validating the whole document, since a decoder that
// failed inside a nested value counts offsets from that value.
func sweSyntax(f *File, ix lineIndex, doc jsonSpan, data []byte, err error) error {
	line := int64(1)
	var se *stdjson.SyntaxError
	if verr := stdjson.Unmarshal(doc.raw, new(stdjson.RawMessage)); errors.As(verr, &se) {
		err = verr
		line = ix.line(doc.off + int(se.Offset) - 1)
	} else if errors.Is(err, io.ErrUnexpectedEOF) {
		line = ix.line(doc.off + len(doc.raw) - 1)
	}
	return f.Reject(line, "invalid JSON: "+syntaxReason(err), data)
}

// sweBaseName is the file name without its directory and suffix.
func sweBaseName(path, suffix string) string {
	b := filepath.Base(path)
	if b == "." || b == string(filepath.Separator) {
		return ""
	}
	if strings.HasSuffix(strings.ToLower(b), suffix) {
		return b[:len(b)-len(suffix)]
	}
	return strings.TrimSuffix(b, filepath.Ext(b))
}

type sweImport struct {
	f    *File
	ix   lineIndex
	base string
}

// sweMsg is one decoded history message.
type sweMsg struct {
	obj   jsonObject
	role  string // lower-cased
	agent string
	demo  bool
	text  string // content as text
	line  int64
}

// sweElision is an observation first shown altered in a step's prompt.
type sweElision struct {
	hist  int    // history index of the observation
	shown string // what the prompt showed instead
	line  int64  // line of the trajectory step that shows it
}

// sweShown is a message of a step's processed prompt.
type sweShown struct {
	Role        string          `json:"role"`
	Agent       string          `json:"agent"`
	MessageType string          `json:"message_type"`
	Content     json.RawMessage `json:"content"`
}

// sweCall is a tool call waiting for its result.
type sweCall struct {
	id, name, target string
	action           string // the action string of the message
	positional       bool   // a text/XML action: its observation is the next message (id is sweActionID's)
}

// sweActionID is the call id of the text action of model call turn (the
// turn column): SWE-agent and mini-swe-agent log such an action with no
// id, and answer it with the next message, which gets the same id, so that
// the output's tool_key names its call.
func sweActionID(turn int64) string { return "action-" + strconv.FormatInt(turn, 10) }

// sweRun adds events to a run and predicts the tool_key the builder gives
// each tool result (see sweKeys).
type sweRun struct {
	b    *RunBuilder
	est  Estimator
	seq  int64
	keys sweKeys
}

func (r *sweRun) add(e schema.Event) (key string, err error) {
	if e.Kind == schema.KindToolResult {
		key = r.keys.next(e.Text, e.CallID, e.ToolKey, r.seq)
	}
	r.seq++
	return key, r.b.Add(e)
}

// op adds a context_op event carrying op.
func (r *sweRun) op(line int64, text string, op schema.ContextOp) error {
	if _, err := r.add(schema.Event{Kind: schema.KindContextOp, Role: "system", Line: line, Text: text}); err != nil {
		return err
	}
	return r.b.Op(op)
}

// sweKeys mirrors how RunBuilder.Add keys tool outputs (the DTOC envelope's
// key, else the given key, else the call id, else "t<seq>"; a repeated key
// gets "#n"), so that an op can name the output it acts on.
type sweKeys map[string]int

func (k *sweKeys) next(text, callID, given string, seq int64) string {
	if *k == nil {
		*k = sweKeys{}
	}
	key := given
	if dk, _, ok := dtocEnvelope(strings.ToValidUTF8(text, "\uFFFD")); ok {
		key = dk
	}
	if key == "" {
		key = callID
	}
	if key == "" {
		key = "t" + strconv.FormatInt(seq, 10)
	}
	if n := (*k)[key]; n > 0 {
		(*k)[key] = n + 1
		return key + "#" + strconv.Itoa(n+1)
	}
	(*k)[key] = 1
	return key
}

// run imports one trajectory object.
func (si *sweImport) run(fields map[string]jsonSpan, attempt int) error {
	f := si.f
	var hist []sweMsg
	if h, ok := fields["history"]; ok && !isJSONNull(h.raw) {
		elems, err := arrayElems(h)
		if err != nil {
			return f.Reject(si.ix.line(h.off), "history is not an array: "+clipErr(err), h.raw)
		}
		hist = make([]sweMsg, 0, len(elems))
		for _, el := range elems {
			o := parseJSONObject(el.raw)
			if o == nil { // kept as a gap (role "") so that indexes match the prompts'
				hist = append(hist, sweMsg{line: si.ix.line(el.off)})
				if isJSONNull(el.raw) {
					continue
				}
				if err := f.Reject(si.ix.line(el.off), "history message is not an object", el.raw); err != nil {
					return err
				}
				continue
			}
			m := sweMsg{obj: o, role: o.role(), agent: o.str("agent"), text: ContentText(o["content"]), line: si.ix.line(el.off)}
			m.demo, _ = o.boolean("is_demo")
			m.demo = m.demo || o.str("message_type") == "demonstration"
			hist = append(hist, m)
		}
	}
	var steps []jsonSpan
	if t, ok := fields["trajectory"]; ok && !isJSONNull(t.raw) {
		elems, err := arrayElems(t)
		if err != nil {
			if err := f.Reject(si.ix.line(t.off), "trajectory is not an array: "+clipErr(err), t.raw); err != nil {
				return err
			}
		}
		steps = elems
	}
	info := parseJSONObject(fields["info"].raw)
	cfg := sweConfig(fields["replay_config"].raw)
	agentCfg := cfg.obj("agent")
	if subs := agentCfg.arr("agent_configs"); len(subs) > 0 && agentCfg.obj("model") == nil { // RetryAgent
		agentCfg = parseJSONObject(subs[0])
	}
	model := agentCfg.obj("model")
	taskID := cfg.obj("problem_statement").str("id")

	id := firstNonEmpty(taskID, si.base)
	if attempt > 0 {
		id += "/attempt-" + strconv.Itoa(attempt)
	}
	b, err := f.NewRun(id)
	if err != nil {
		return err
	}
	r := &b.Run
	r.Harness, r.TaskID = "swe-agent", taskID
	r.Model = firstNonEmpty(model.str("name"), model.str("model_name"))
	stats := info.obj("model_stats")
	r.InputTokens, _ = stats.count("tokens_sent")
	r.OutputTokens, _ = stats.count("tokens_received")
	if c, ok := stats.num("instance_cost"); ok && c >= 0 {
		r.CostUSD = &c
	}
	if st := info.str("exit_status"); st != "" {
		if reason, ok := sweEndReason(st); ok {
			b.SetEnd(reason, st)
		} else {
			r.EndReasonDetail = st
		}
	}

	run := &sweRun{b: b, est: f.Estimator()}
	tools := sweToolNames(agentCfg.obj("tools").str("command_docs"))
	if len(hist) == 0 {
		if err := si.fromSteps(run, steps, tools); err != nil {
			return err
		}
		return b.Finish()
	}
	// one run per agent when the history holds several agents' messages
	main := &sweAgentRun{run: run}
	byAgent := map[string]*sweAgentRun{}
	agentRuns := []*sweAgentRun{main}
	names := sweAgentNames(hist)
	known := map[string]bool{}
	for _, n := range names {
		known[n] = true
	}
	if len(names) > 0 {
		byAgent[names[0]] = main
	}
	runOf := func(agent string) (*sweAgentRun, error) {
		if len(names) < 2 || !known[agent] {
			return main, nil
		}
		if ar := byAgent[agent]; ar != nil {
			return ar, nil
		}
		cb, err := f.NewRun(id + "/" + agent)
		if err != nil {
			return nil, err
		}
		cb.Run.ParentRunID, cb.Run.Harness, cb.Run.TaskID, cb.Run.Model = b.ID(), r.Harness, r.TaskID, r.Model
		ar := &sweAgentRun{run: &sweRun{b: cb, est: run.est}}
		byAgent[agent] = ar
		agentRuns = append(agentRuns, ar)
		return ar, nil
	}
	plan, tail := si.elisions(hist, steps)
	detail := sweProcessors(agentCfg)
	keyOf := map[int]string{} // history index → tool_key of its tool result
	addElisions := func(els []sweElision) error {
		for _, el := range els {
			h := hist[el.hist]
			ar, err := runOf(h.agent) // the prompt that elided it is its agent's
			if err != nil {
				return err
			}
			before, after := run.est.Count(h.text), run.est.Count(el.shown)
			op := schema.ContextOp{Op: schema.OpMasking, ToolKey: keyOf[el.hist], TokensBefore: &before, TokensAfter: &after,
				Trigger: "history-processor", Detail: "history[" + strconv.Itoa(el.hist) + "]" + detail}
			if err := ar.run.op(el.line, el.shown, op); err != nil {
				return err
			}
		}
		return nil
	}
	for i := range hist {
		if i&255 == 255 && f.Ctx != nil {
			if err := f.Ctx.Err(); err != nil {
				return err
			}
		}
		if err := addElisions(plan[i]); err != nil {
			return err
		}
		h := &hist[i]
		if h.role == "" {
			continue
		}
		ar, err := runOf(h.agent)
		if err != nil {
			return err
		}
		o := h.obj
		ev := schema.Event{Role: o.str("role"), Line: h.line, Text: h.text}
		switch {
		case h.role == "system":
			ev.Kind = schema.KindSystem
		case h.demo:
			ev.Kind = schema.KindUser
		case h.role == "assistant":
			calls, err := si.assistant(ar.run, h, tools)
			if err != nil {
				return err
			}
			ar.pending, ar.lastAction = calls, ""
			if len(calls) > 0 {
				ar.lastAction = firstNonEmpty(o.str("action"), calls[0].action)
			}
			continue
		case h.role == "tool" || len(ar.pending) > 0 && ar.pending[0].positional:
			ev.Kind = schema.KindToolResult
			ids := o.arr("tool_call_ids")
			if len(ids) > 0 {
				var id string
				if json.Unmarshal(ids[0], &id) == nil {
					ev.CallID = id
				}
			} else {
				ev.CallID = o.str("tool_call_id")
			}
			if ev.CallID == "" && len(ar.pending) > 0 && ar.pending[0].positional {
				ev.CallID, ev.ToolName, ev.Target = ar.pending[0].id, ar.pending[0].name, ar.pending[0].target
			}
			if len(ar.pending) > 0 {
				ar.pending = ar.pending[1:]
			}
			if len(ar.pending) == 0 {
				ar.lastAction = ""
			}
			key, err := ar.run.add(ev)
			if err != nil {
				return err
			}
			keyOf[i] = key
			continue
		default:
			ev.Kind = schema.KindUser
		}
		if _, err := ar.run.add(ev); err != nil {
			return err
		}
	}
	// 0.x files end the history at the last action: its observation is only in
	// the last trajectory step (of the agent whose action it is).
	if len(steps) > 0 {
		last := steps[len(steps)-1]
		st := parseJSONObject(last.raw)
		obs, ok := st["observation"]
		for _, ar := range agentRuns {
			if !ok || len(ar.pending) == 0 || strings.TrimSpace(st.str("action")) != strings.TrimSpace(ar.lastAction) {
				continue
			}
			c := ar.pending[0]
			ev := schema.Event{Kind: schema.KindToolResult, Role: "user", CallID: c.id, Line: si.ix.line(last.off), Text: ContentText(obs)}
			if c.positional {
				ev.ToolName, ev.Target = c.name, c.target
			}
			if _, err := ar.run.add(ev); err != nil {
				return err
			}
			break
		}
	}
	if err := addElisions(tail); err != nil {
		return err
	}
	for _, ar := range agentRuns {
		if err := ar.run.b.Finish(); err != nil {
			return err
		}
	}
	return nil
}

// sweAgentRun is the run of one agent of a history and the calls it awaits.
type sweAgentRun struct {
	run        *sweRun
	pending    []sweCall // the calls awaiting their results (positional: a text/XML action)
	lastAction string    // action of the last assistant message while it awaits a result
}

// sweAgentNames returns the agent names of a history's messages, in the
// order they first occur ("" is no name). Demonstrations do not count: a
// demonstration logged by another agent is still this agent's input.
func sweAgentNames(hist []sweMsg) []string {
	var names []string
	seen := map[string]bool{}
	for i := range hist {
		if a := hist[i].agent; a != "" && hist[i].role != "" && !hist[i].demo && !seen[a] {
			seen[a] = true
			names = append(names, a)
		}
	}
	return names
}

// sweConfig decodes replay_config: a JSON string holding the config, or the
// config object itself.
func sweConfig(raw json.RawMessage) jsonObject {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil
		}
		return parseJSONObject([]byte(s))
	}
	return parseJSONObject(raw)
}

// sweProcessors names the configured history processors for op details, e.g.
// ": last_n_observations".
func sweProcessors(agent jsonObject) string {
	var names []string
	list := agent.arr("history_processors")
	if hp := agent["history_processor"]; len(list) == 0 && len(hp) > 0 {
		list = []json.RawMessage{hp}
	}
	for _, p := range list {
		if t := parseJSONObject(p).str("type"); t != "" {
			names = append(names, t)
		} else {
			var s string
			if json.Unmarshal(p, &s) == nil && s != "" {
				names = append(names, s)
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	return ": " + strings.Join(names, ", ")
}

// sweExitReasons maps SWE-agent's exit statuses.
var sweExitReasons = map[string]schema.EndReason{
	"submitted": schema.EndFinished, "exit_command": schema.EndFinished, "exit_forfeit": schema.EndFinished,
	"exit_cost": schema.EndCostLimit, "exit_total_cost": schema.EndCostLimit,
	"exit_context": schema.EndContextOverflow,
	"exit_format":  schema.EndError, "exit_error": schema.EndError, "exit_api": schema.EndError,
	"exit_environment_error": schema.EndError, "exit_command_timeout": schema.EndError,
	"exit_total_execution_time": schema.EndStepLimit, "exit_step_limit": schema.EndStepLimit, "exit_call_limit": schema.EndStepLimit,
}

// sweEndReason maps an exit status; "submitted (exit_cost)" (a patch
// submitted automatically after the run hit a limit) maps by its cause.
func sweEndReason(status string) (schema.EndReason, bool) {
	s := strings.ToLower(strings.TrimSpace(status))
	if inner, ok := strings.CutPrefix(s, "submitted ("); ok && strings.HasSuffix(inner, ")") {
		s = strings.TrimSpace(strings.TrimSuffix(inner, ")"))
	}
	reason, ok := sweExitReasons[s]
	return reason, ok
}

// assistant emits one model call and returns its tool calls.
func (si *sweImport) assistant(run *sweRun, h *sweMsg, tools map[string]bool) ([]sweCall, error) {
	b, o := run.b, h.obj
	b.NewCall()
	ev := func(kind schema.EventKind, text string) schema.Event {
		return schema.Event{Kind: kind, Role: o.str("role"), Line: h.line, Text: text}
	}
	for _, tb := range o.arr("thinking_blocks") {
		bo := parseJSONObject(tb)
		if s := firstNonEmpty(bo.str("thinking"), bo.str("text")); s != "" {
			if _, err := run.add(ev(schema.KindReasoning, s)); err != nil {
				return nil, err
			}
		}
	}
	if s := o.str("reasoning_content"); s != "" {
		if _, err := run.add(ev(schema.KindReasoning, s)); err != nil {
			return nil, err
		}
	}
	var calls []sweCall
	if tcs := o.arr("tool_calls"); len(tcs) > 0 {
		if strings.TrimSpace(h.text) != "" {
			if _, err := run.add(ev(schema.KindAssistant, h.text)); err != nil {
				return nil, err
			}
		}
		for _, tc := range tcs {
			id, name, args, ok := toolCallFields(tc)
			if !ok {
				continue
			}
			e := ev(schema.KindToolCall, "")
			e.CallID, e.ToolName, e.Args = id, name, args
			if _, err := run.add(e); err != nil {
				return nil, err
			}
			calls = append(calls, sweCall{id: e.CallID, name: name})
		}
		return calls, nil
	}
	action, thought := o.str("action"), o.str("thought")
	_, hasAction := o["action"]
	rest := h.text
	if !hasAction {
		action, rest = sweParseResponse(h.text)
	}
	if strings.TrimSpace(action) == "" {
		if strings.TrimSpace(h.text) == "" {
			return nil, nil
		}
		_, err := run.add(ev(schema.KindAssistant, h.text))
		return nil, err
	}
	if _, hasThought := o["thought"]; !hasThought {
		if !hasAction {
			thought = rest
		} else {
			_, thought = sweParseResponse(h.text)
		}
	}
	if strings.TrimSpace(thought) != "" {
		if _, err := run.add(ev(schema.KindAssistant, thought)); err != nil {
			return nil, err
		}
	}
	name, args := sweActionCall(action, tools)
	e := ev(schema.KindToolCall, "")
	e.CallID, e.ToolName, e.Args = sweActionID(b.Turns()-1), name, args
	if _, err := run.add(e); err != nil {
		return nil, err
	}
	return []sweCall{{id: e.CallID, name: name, target: Target(name, []byte(args)), action: action, positional: true}}, nil
}

// elisions compares each step's processed prompt with history and returns,
// per history index of the assistant message (model call) that first sees
// them, the observations first shown shorter than logged or replaced by an
// "… omitted" placeholder (a history processor elided them), and those no
// later call sees.
func (si *sweImport) elisions(hist []sweMsg, steps []jsonSpan) (map[int][]sweElision, []sweElision) {
	plan := map[int][]sweElision{}
	var tail []sweElision
	seen := map[int]bool{}
	for _, st := range steps {
		var step struct {
			Messages []sweShown `json:"messages"`
			Query    []sweShown `json:"query"`
		}
		if json.Unmarshal(st.raw, &step) != nil {
			continue
		}
		list := step.Messages
		if len(list) == 0 {
			list = step.Query
		}
		if len(list) == 0 {
			continue
		}
		// the prompt holds the messages of one agent
		idx := make([]int, 0, len(hist))
		agent := list[0].Agent
		for i := range hist {
			if agent == "" || hist[i].agent == "" || hist[i].agent == agent {
				idx = append(idx, i)
			}
		}
		var found []sweElision
		p := 0
		for j, m := range list {
			if j >= len(idx) {
				break
			}
			if m.MessageType == "assistant" || m.MessageType == "user" { // requery messages
				break
			}
			hi := idx[j]
			h := &hist[hi]
			if h.role != "" && strings.ToLower(m.Role) != h.role { // a gap (rejected element) matches anything
				break
			}
			p = j + 1
			if seen[hi] || h.demo || h.role != "user" && h.role != "tool" {
				continue
			}
			// a processor that only re-shapes content (cache_control blocks)
			// shows the same text; one that adds to it (image parsing) is no
			// elision
			if shown := ContentText(m.Content); shown != h.text && (len(shown) < len(h.text) || strings.Contains(shown, "omitted")) {
				seen[hi] = true
				found = append(found, sweElision{hist: hi, shown: shown, line: si.ix.line(st.off)})
			}
		}
		at := -1 // the first model call after the prompt's messages
		for _, i := range idx[p:] {
			if hist[i].role == "assistant" && !hist[i].demo {
				at = i
				break
			}
		}
		if at < 0 {
			tail = append(tail, found...)
		} else if len(found) > 0 {
			plan[at] = append(plan[at], found...)
		}
	}
	return plan, tail
}

// fromSteps builds the events of a trajectory without history from its
// steps: each step is one model call (response → thought and action) and its
// observation.
func (si *sweImport) fromSteps(run *sweRun, steps []jsonSpan, tools map[string]bool) error {
	for _, st := range steps {
		o := parseJSONObject(st.raw)
		if o == nil {
			if err := si.f.Reject(si.ix.line(st.off), "trajectory step is not an object", st.raw); err != nil {
				return err
			}
			continue
		}
		h := &sweMsg{obj: jsonObject{"role": json.RawMessage(`"assistant"`)}, role: "assistant", line: si.ix.line(st.off)}
		for _, k := range []string{"thought", "action", "thinking_blocks", "reasoning_content"} {
			if v, ok := o[k]; ok {
				h.obj[k] = v
			}
		}
		h.text = ContentText(o["response"])
		if h.text == "" {
			h.text = o.str("thought")
		}
		h.obj["content"], _ = json.Marshal(h.text)
		calls, err := si.assistant(run, h, tools)
		if err != nil {
			return err
		}
		obs, ok := o["observation"]
		if !ok || isJSONNull(obs) {
			continue
		}
		ev := schema.Event{Kind: schema.KindToolResult, Role: "user", Line: h.line, Text: ContentText(obs)}
		if len(calls) > 0 {
			ev.CallID, ev.ToolName, ev.Target = calls[0].id, calls[0].name, calls[0].target
		} else if ev.Text == "" {
			continue
		} else {
			ev.Kind = schema.KindUser
		}
		if _, err := run.add(ev); err != nil {
			return err
		}
	}
	return nil
}
