package ingest

import (
	"bytes"
	stdjson "encoding/json"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// miniSWEAgent reads mini-swe-agent trajectories (*.traj.json): the full
// file {info: {exit_status, submission, model_stats, mini_version, config},
// messages, trajectory_format: "mini-swe-agent-1…", instance_id}, or a bare
// JSON list of its messages (as in the project's test data).
//
// Steps (one run per file, id instance_id, else the file name):
//  1. Decode the document; a document that is not JSON is one reject, a
//     message that is not an object is rejected alone. Run metadata from
//     info: model config.model.model_name, cost model_stats.instance_cost,
//     end reason exit_status (Submitted → finished; LimitsExceeded →
//     cost_limit when the cost reached config.agent.cost_limit, else
//     step_limit; context-window errors → context_overflow; other exception
//     names → error). A bare list has no info: a run whose last action
//     printed COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT and got its submission
//     back is marked finished, inferred.
//  2. Messages are OpenAI chat messages: system → system; each assistant
//     message is one model call, its per-call usage and time from
//     extra.response (usage, id, model, created) or extra.timestamp, the
//     reasoning of the response → reasoning, the text around the action →
//     assistant, and the action — exactly one ```bash / ```mswea_bash_command
//     block (or extra.actions) — → a bash tool call with the call id
//     "action-<turn>" (sweActionID; the log has none); the next user
//     message is its observation → tool_result with that call id, exit code
//     from <returncode>. An assistant message with no or several
//     actions was refused by the harness: the next user message is its
//     complaint → error. v2 tool-calling logs (tool_calls, role tool with
//     tool_call_id) link by id; role exit messages only end the run.
//  3. An observation whose middle mini-swe-agent cut when it wrote it
//     (<elided_chars>N characters elided</elided_chars>) is no context
//     operation: every prompt showed it so, and its logged text is its
//     size (no op, unlike a history processor's later elision).
type miniSWEAgent struct{ formatInfo }

const formatMiniSWEAgent = "mini-swe-agent"

// miniSubmitMarkers are the first output lines by which an action submits.
var miniSubmitMarkers = []string{"COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "MINI_SWE_AGENT_FINAL_OUTPUT"}

var (
	miniAction   = regexp.MustCompile("(?s)```(?:bash|mswea_bash_command)[ \t]*\r?\n(.*?)\r?\n```")
	miniRC       = regexp.MustCompile(`<returncode>\s*(-?\d+)\s*</returncode>`)
	miniFormatRe = regexp.MustCompile(`(?i)exactly one action|found \d+ actions`)
)

// Detect claims a JSON object with trajectory_format "mini-swe-agent…", or
// whose info holds mini_version or a config naming minisweagent classes, or
// an exit_status that is a mini-swe-agent exception name (Submitted,
// LimitsExceeded …) when the head ends inside info or messages follow; a
// JSON list of chat messages whose assistant messages hold a ```bash or
// ```mswea_bash_command block and whose user messages hold <returncode>
// (as far as the head goes); and, as a tiebreak on the *.traj.json name, an
// object with a messages list (and no SWE-agent history/trajectory) or a
// list of role messages.
func (miniSWEAgent) Detect(name string, head []byte) bool {
	head = trimHead(head)
	if len(head) == 0 {
		return false
	}
	named := strings.HasSuffix(strings.ToLower(name), ".traj.json")
	dec := stdjson.NewDecoder(bytes.NewReader(head))
	if _, err := dec.Token(); err != nil {
		return false
	}
	switch head[0] {
	case '{':
		mini, msgs := miniSniffObject(dec)
		return mini || msgs && named
	case '[':
		return miniSniffList(dec, named)
	}
	return false
}

// miniExitStatuses are the exception class names mini-swe-agent logs as
// info.exit_status (SWE-agent's statuses are lower-case words).
var miniExitStatuses = map[string]bool{
	"Submitted": true, "LimitsExceeded": true, "FormatError": true, "ExecutionTimeoutError": true,
	"UserInterruption": true, "TimeoutError": true,
}

// miniSniffObject scans the top-level keys of an object whose '{' was just
// read: mini says the object is a mini-swe-agent file, msgs that it holds a
// list of role messages (and no key of another format). An info whose
// exit_status is a mini-swe-agent exception name counts when the head ends
// inside it (a long submission comes first) or when messages follow.
func miniSniffObject(dec *stdjson.Decoder) (mini, msgs bool) {
	exitMini := false
	for {
		key, ok, _ := nextKey(dec)
		if !ok {
			return exitMini && msgs, msgs
		}
		switch key {
		case "trajectory_format":
			v, err := skipValue(dec)
			if err != nil {
				return false, msgs
			}
			if s, ok := v.(string); ok && strings.HasPrefix(s, "mini-swe-agent") {
				return true, msgs
			}
		case "info":
			found, exit, err := miniSniffInfo(dec)
			if found {
				return true, msgs
			}
			exitMini = exit
			if err != nil {
				return exitMini, msgs
			}
		case "messages":
			keys, err := sweFirstKeys(dec)
			msgs = keys["role"]
			if err != nil {
				return exitMini && msgs, msgs
			}
		case "history", "trajectory", "sessionId", "payload", "steps":
			return false, false
		default:
			if _, err := skipValue(dec); err != nil {
				return exitMini && msgs, msgs
			}
		}
	}
}

// miniSniffInfo reads the info value and reports whether it names
// mini-swe-agent (mini_version, or config.*_type "minisweagent.…"), and
// whether its exit_status is one of mini-swe-agent's.
func miniSniffInfo(dec *stdjson.Decoder) (found, exit bool, err error) {
	if isObject, err := enter(dec, stdjson.Delim('{')); !isObject {
		return false, false, err
	}
	for {
		key, ok, err := nextKey(dec)
		if !ok {
			return false, exit, err
		}
		switch key {
		case "mini_version":
			return true, exit, nil
		case "exit_status":
			v, err := dec.Token()
			if err != nil {
				return false, exit, err
			}
			if s, ok := v.(string); ok {
				exit = miniExitStatuses[s]
			} else if _, isDelim := v.(stdjson.Delim); isDelim && skipRest(dec) != nil {
				return false, exit, err
			}
		case "config":
			isObject, err := enter(dec, stdjson.Delim('{'))
			if err != nil {
				return false, exit, err
			}
			if !isObject {
				continue
			}
			for {
				k, ok, err := nextKey(dec)
				if err != nil {
					return false, exit, err
				}
				if !ok {
					break
				}
				if k == "agent_type" || k == "model_type" || k == "environment_type" {
					v, err := skipValue(dec)
					if err != nil {
						return false, exit, err
					}
					if s, ok := v.(string); ok && strings.HasPrefix(s, "minisweagent.") {
						return true, exit, nil
					}
					continue
				}
				if _, err := skipValue(dec); err != nil {
					return false, exit, err
				}
			}
		default:
			if _, err := skipValue(dec); err != nil {
				return false, exit, err
			}
		}
	}
}

// miniSniffList decodes the messages of a list whose '[' was just read, as
// far as the head goes.
func miniSniffList(dec *stdjson.Decoder, named bool) bool {
	var n int
	var action, obs bool
	for dec.More() {
		var m struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if err := dec.Decode(&m); err != nil {
			break
		}
		if !msgRoles[strings.ToLower(m.Role)] {
			return false
		}
		n++
		text := ContentText(m.Content)
		switch strings.ToLower(m.Role) {
		case "assistant":
			action = action || miniAction.MatchString(text)
		case "user":
			obs = obs || strings.Contains(text, "<returncode>")
		}
	}
	return action && obs || n > 0 && named
}

// Import reads one trajectory file.
func (miniSWEAgent) Import(f *File, r io.Reader) error {
	d, err := sweDocument(f, r, true)
	if d == nil {
		return err
	}
	doc, ix, data := d.root, d.index(), d.data
	mi := &miniImport{f: f, ix: ix, base: sweBaseName(f.Path(), ".traj.json")}
	if doc.raw[0] == '[' {
		elems, err := arrayElems(doc)
		if err != nil {
			return sweSyntax(f, ix, doc, data, err)
		}
		return mi.run(nil, elems)
	}
	fields, err := objectFields(doc)
	if err != nil {
		return sweSyntax(f, ix, doc, data, err)
	}
	var elems []jsonSpan
	if m, ok := fields["messages"]; ok && !isJSONNull(m.raw) {
		if elems, err = arrayElems(m); err != nil {
			return f.Reject(ix.line(m.off), "messages is not an array: "+clipErr(err), m.raw)
		}
	}
	return mi.run(fields, elems)
}

type miniImport struct {
	f    *File
	ix   lineIndex
	base string
}

// miniPending is the text action awaiting its observation.
type miniPending struct {
	id, name, target, command string
}

// run imports the run of one file.
func (mi *miniImport) run(fields map[string]jsonSpan, elems []jsonSpan) error {
	f := mi.f
	top := jsonObject{}
	for k, v := range fields {
		top[k] = v.raw
	}
	info := top.obj("info")
	cfg := info.obj("config")
	taskID := top.str("instance_id")
	b, err := f.NewRun(firstNonEmpty(taskID, mi.base))
	if err != nil {
		return err
	}
	r := &b.Run
	r.Harness, r.TaskID = "mini-swe-agent", taskID
	r.Model = cfg.obj("model").str("model_name")
	stats := info.obj("model_stats")
	if c, ok := stats.num("instance_cost"); ok && c >= 0 {
		r.CostUSD = &c
	}
	exit := info.str("exit_status")
	var exitText string // content of a v2 exit message

	run := &sweRun{b: b, est: f.Estimator()}
	var pending *miniPending // positional text action
	refused := false         // the last assistant message had no single action or tool call
	submitted := false       // the last action printed the submit marker
	lastKind := schema.EventKind("")
	for i, el := range elems {
		if i&255 == 255 && f.Ctx != nil {
			if err := f.Ctx.Err(); err != nil {
				return err
			}
		}
		line := mi.ix.line(el.off)
		o := parseJSONObject(el.raw)
		if o == nil {
			if isJSONNull(el.raw) {
				continue
			}
			if err := f.Reject(line, fmt.Sprintf("message %d is not an object", i+1), el.raw); err != nil {
				return err
			}
			continue
		}
		role := o.role()
		extra := o.obj("extra")
		text := ContentText(o["content"])
		ev := schema.Event{Role: o.str("role"), Line: line, Text: text, TS: extra.ts("timestamp")}
		switch role {
		case "":
			continue
		case "system", "developer":
			ev.Kind = schema.KindSystem
		case "assistant":
			p, calls, err := mi.assistant(run, o, ev)
			if err != nil {
				return err
			}
			pending, refused = p, p == nil && calls == 0
			submitted = p != nil && miniSubmits(p.command)
			lastKind = schema.KindAssistant
			continue
		case "exit":
			exitText = text
			if exit == "" {
				exit = extra.str("exit_status")
			}
			continue
		case "tool":
			ev.Kind = schema.KindToolResult
			ev.CallID = o.str("tool_call_id")
		default:
			switch {
			case pending != nil:
				ev.Kind = schema.KindToolResult
				ev.CallID, ev.ToolName, ev.Target = pending.id, pending.name, pending.target
			case refused || extra.str("interrupt_type") != "" || lastKind == schema.KindAssistant && miniFormatRe.MatchString(text):
				ev.Kind, ev.IsError = schema.KindError, true
			case strings.TrimSpace(text) == "":
				continue // e.g. LimitsExceeded's empty message
			default:
				ev.Kind = schema.KindUser
			}
			pending, refused = nil, false
		}
		lastKind = ev.Kind
		if ev.Kind != schema.KindToolResult {
			if _, err := run.add(ev); err != nil {
				return err
			}
			continue
		}
		if m := miniRC.FindStringSubmatch(text); m != nil {
			if rc, err := strconv.ParseInt(m[1], 10, 64); err == nil {
				ev.ExitCode = &rc
			}
		} else if rc, ok := extra.num("returncode"); ok && rc == math.Trunc(rc) && math.Abs(rc) < 1<<31 {
			c := int64(rc)
			ev.ExitCode = &c
		}
		// a timeout (mini-swe-agent's timeout_template, no <returncode>) is
		// marked by the builder's text rules (actions.InferFailure: timeout)
		ev.IsError = ev.ExitCode != nil && *ev.ExitCode != 0 || strings.Contains(text, "<exception>")
		if _, err := run.add(ev); err != nil {
			return err
		}
	}
	switch {
	case exit != "":
		if reason, ok := miniEndReason(exit, exitText, cfg.obj("agent"), stats); ok {
			b.SetEnd(reason, exit)
		} else {
			r.EndReasonDetail = exit
		}
	case submitted && lastKind == schema.KindToolResult:
		r.EndReason, r.EndReasonSource, r.EndReasonDetail = schema.EndFinished, schema.SourceInferred, miniSubmitMarkers[0]
	}
	return b.Finish()
}

// miniSubmits reports whether a command prints a submit marker.
func miniSubmits(command string) bool {
	for _, m := range miniSubmitMarkers {
		if strings.Contains(command, m) {
			return true
		}
	}
	return false
}

// assistant emits one model call: its reasoning, text, action and usage. It
// returns the text action awaiting its observation, or the number of its
// tool calls.
func (mi *miniImport) assistant(run *sweRun, o jsonObject, ev schema.Event) (*miniPending, int, error) {
	b := run.b
	b.NewCall()
	extra := o.obj("extra")
	resp := extra.obj("response")
	choice := parseJSONObject(firstRaw(resp.arr("choices"))).obj("message")
	if t := ParseTime(miniCreated(resp)); t != nil && ev.TS == nil {
		ev.TS = t
	}
	add := func(kind schema.EventKind, text string) error {
		e := ev
		e.Kind, e.Text = kind, text
		_, err := run.add(e)
		return err
	}
	if s := firstNonEmpty(o.str("reasoning_content"), choice.str("reasoning_content"), choice.str("reasoning")); strings.TrimSpace(s) != "" {
		if err := add(schema.KindReasoning, s); err != nil {
			return nil, 0, err
		}
	}
	var pending *miniPending
	calls := 0
	if tcs := o.arr("tool_calls"); len(tcs) > 0 {
		if strings.TrimSpace(ev.Text) != "" {
			if err := add(schema.KindAssistant, ev.Text); err != nil {
				return nil, 0, err
			}
		}
		for _, tc := range tcs {
			c := parseJSONObject(tc)
			if c == nil {
				continue
			}
			fn := c.obj("function")
			e := ev
			e.Kind, e.Text = schema.KindToolCall, ""
			e.CallID, e.ToolName, e.Args = c.str("id"), fn.str("name"), jsonString(fn["arguments"])
			if _, err := run.add(e); err != nil {
				return nil, 0, err
			}
			calls++
		}
	} else {
		commands, rest := miniActions(ev.Text, extra)
		if len(commands) != 1 {
			rest = ev.Text // refused by the harness: no action ran
		}
		if strings.TrimSpace(rest) != "" {
			if err := add(schema.KindAssistant, rest); err != nil {
				return nil, 0, err
			}
		}
		if len(commands) == 1 {
			e := ev
			e.Kind, e.Text = schema.KindToolCall, ""
			e.CallID, e.ToolName, e.Args = sweActionID(b.Turns()-1), "bash", sweJSON(map[string]any{"command": commands[0]})
			if _, err := run.add(e); err != nil {
				return nil, 0, err
			}
			pending = &miniPending{id: e.CallID, name: "bash", target: Target("bash", []byte(e.Args)), command: commands[0]}
		}
	}
	model := firstNonEmpty(resp.str("model"), choice.str("model"))
	b.NoteModel(model)
	if u, ok := msgUsage(resp["usage"]); ok {
		u.Model, u.RequestID, u.TS = model, resp.str("id"), ev.TS
		b.SetUsage(u)
	}
	return pending, calls, nil
}

func firstRaw(list []json.RawMessage) []byte {
	if len(list) == 0 {
		return nil
	}
	return list[0]
}

// miniCreated returns a response's creation time (Unix seconds) as logged.
func miniCreated(resp jsonObject) any {
	var v any
	if raw := resp["created"]; len(raw) > 0 && json.Unmarshal(raw, &v) == nil {
		return v
	}
	return nil
}

// miniActions returns the actions of an assistant message (extra.actions of
// v2 logs, else the fenced action blocks of its text) and, when there is
// exactly one block, the text around it.
func miniActions(text string, extra jsonObject) ([]string, string) {
	if acts := extra.arr("actions"); acts != nil {
		var out []string
		for _, a := range acts {
			if c := parseJSONObject(a).str("command"); c != "" {
				out = append(out, c)
			}
		}
		if len(out) > 0 {
			_, rest := miniSplit(text)
			return out, rest
		}
	}
	ms := miniAction.FindAllStringSubmatch(text, -1)
	out := make([]string, 0, len(ms))
	for _, m := range ms {
		out = append(out, strings.TrimSpace(m[1]))
	}
	_, rest := miniSplit(text)
	return out, rest
}

// miniSplit cuts the first action block out of a message text.
func miniSplit(text string) (action, rest string) {
	m := miniAction.FindStringSubmatchIndex(text)
	if m == nil {
		return "", text
	}
	return text[m[2]:m[3]], strings.TrimSpace(strings.TrimSpace(text[:m[0]]) + "\n\n" + strings.TrimSpace(text[m[1]:]))
}

// miniEndReason maps an exit status (an exception class name).
func miniEndReason(status, exitText string, agent, stats jsonObject) (schema.EndReason, bool) {
	s := strings.TrimSpace(status)
	low := strings.ToLower(s)
	switch {
	case low == "submitted":
		return schema.EndFinished, true
	case low == "limitsexceeded":
		switch t := strings.ToLower(exitText); {
		case strings.Contains(t, "cost limit"):
			return schema.EndCostLimit, true
		case strings.Contains(t, "step limit"):
			return schema.EndStepLimit, true
		}
		if limit, ok := agent.num("cost_limit"); ok && limit > 0 {
			if cost, ok := stats.num("instance_cost"); ok && cost >= limit {
				return schema.EndCostLimit, true
			}
		}
		return schema.EndStepLimit, true
	case strings.Contains(low, "contextwindow") || strings.Contains(low, "context_window") || strings.Contains(low, "contextlength"):
		return schema.EndContextOverflow, true
	case strings.Contains(low, "interrupt"):
		return schema.EndInterrupted, true
	case strings.Contains(low, "costlimit"):
		return schema.EndCostLimit, true
	case strings.HasSuffix(low, "error") || strings.HasSuffix(low, "exception") || strings.HasSuffix(low, "timeout"):
		return schema.EndError, true
	}
	return "", false
}
