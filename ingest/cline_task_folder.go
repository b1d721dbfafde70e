package ingest

import (
	"bytes"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// clineTask reads the task folders of the Cline VS Code extension and of
// its forks Roo Code and Kilo Code (the legacy extension):
// <VS Code user dir>/globalStorage/<extension id>/tasks/<task id>/, holding
// api_conversation_history.json (what the model was sent and answered:
// Anthropic "MessageParam[]"), ui_messages.json (the chat as the extension
// shows it: "ClineMessage[]", with a say "api_req_started" record per API
// request whose text holds its tokens and cost) and metadata files
// (task_metadata.json; Roo's history_item.json). A task folder is one run.
//
// The anchor rule: the run is read from api_conversation_history.json when
// the folder has one (history mode, cline_task_folder_history.go), from
// ui_messages.json only when it is alone (ui mode). Both are detected by
// their names and shapes. A ui_messages.json beside a history is checked
// (its bad records rejected at their lines) but makes no run: the
// history's run reads it (leniently; its problems are its own import's).
// The metadata files (history_item.json, task_metadata.json in a
// tasks/<id>/ folder) are claimed as siblings the importer reads nothing
// from, so that walking a tasks folder imports them silently (no run, no
// "unknown format" warning); the run reads history_item.json itself.
//
// Steps, both modes:
//  1. Run id: the task folder's name. Roo's history_item.json beside gives
//     the parent run (parentTaskId: a sub-task).
//  2. Harness: the extension id in the path (saoudrizwan.claude-dev →
//     cline, rooveterinaryinc.roo-cline → roo-code, kilocode.kilo-code →
//     kilo-code); else a history_item.json beside → roo-code; else a
//     request record with Kilo's fields (inferenceProvider, usageMissing)
//     → kilo-code; else cline.
//  3. Usage: each api_req_started record is one model call. tokensIn leaves
//     the cache out (Cline's context meter adds cacheWrites and cacheReads
//     to it), so the call's input is tokensIn + cacheReads + cacheWrites,
//     except in a record marked apiProtocol "openai" (Roo, Kilo), whose
//     tokensIn holds them already. A record without token counts (a
//     request that failed, Kilo's usageMissing) is a call without a usage
//     row. The records' costs add up to the run's cost; a record's
//     modelInfo.modelId (newer Cline) is its call's model.
//  4. End: a completion_result not followed by more of the task →
//     finished; a last request cancelled → interrupted (user_cancelled) or
//     error (its cancelReason); else inferred from the last event.
//
// Ui mode, record by record:
//   - say task, user_feedback, user_feedback_diff, and a say text that is
//     the file's first record (Roo writes the task so) → user;
//   - say text, completion_result; ask followup, plan_mode_respond (their
//     question or response when the text is JSON) → assistant text; say
//     reasoning → reasoning;
//   - ask/say tool → a tool call named by the text's JSON "tool" (the JSON
//     as arguments); ask/say command → execute_command {command};
//     ask/say use_mcp_server → use_mcp_server; say browser_action_launch →
//     browser_action. Calls get ids call-<n>;
//   - say/ask command_output → the result of the latest open
//     execute_command (consecutive chunks joined), mcp_server_response of
//     use_mcp_server, subtask_result of Roo's newTask, browser_action_result
//     of browser_action; no other tool's result is in ui_messages.json;
//   - say error, diff_error, rooignore_error, clineignore_error; ask
//     api_req_failed, mistake_limit_reached → error events;
//   - say condense_context (Roo's contextCondense) → a compaction op with
//     its tokens before and after; sliding_window_truncation
//     (contextTruncation) → a truncation op;
//   - api_req_started begins a model call; outputs logged before any
//     request record are its call (the first record adopts them);
//   - everything else (checkpoints, retries, resume asks) adds nothing.
type clineTask struct{ formatInfo }

const (
	ctHistoryName = "api_conversation_history.json"
	ctUIName      = "ui_messages.json"
)

// ctMetaFiles are a task folder's metadata files, each with the keys one of
// which its head must show: Roo's "HistoryItem" (id, ts, task) and Cline's
// "TaskMetadata" (files_in_context, model_usage, environment_history).
var ctMetaFiles = map[string][]string{
	"history_item.json":  {"id", "ts", "task"},
	"task_metadata.json": {"files_in_context", "model_usage", "environment_history"},
}

// ctIsMeta reports whether name is a task folder's metadata file by its
// name and place: <anything>/tasks/<id>/<metadata file>.
func ctIsMeta(name string) bool {
	slashed := filepath.ToSlash(name)
	base := path.Base(slashed)
	return ctMetaFiles[base] != nil && path.Base(path.Dir(path.Dir(slashed))) == "tasks"
}

// ctMaxSibling caps what is read of a task folder's other file.
const ctMaxSibling = 512 << 20

// ctExtensions maps the VS Code extension ids of the Cline family to their
// harness names.
var ctExtensions = []struct{ id, harness string }{
	{"saoudrizwan.claude-dev", "cline"},
	{"rooveterinaryinc.roo-cline", "roo-code"},
	{"kilocode.kilo-code", "kilo-code"},
}

// Detect claims api_conversation_history.json holding a JSON array whose
// first element has a role (or is empty), ui_messages.json holding an
// array whose first element is a ClineMessage {ts, type: say|ask} (or is
// empty), and a metadata file of a tasks/<id>/ folder (ctIsMeta) holding an
// object whose head shows one of its keys (ctMetaFiles).
func (clineTask) Detect(name string, head []byte) bool {
	base := filepath.Base(name)
	h := trimHead(head)
	if len(h) > 0 && h[0] == '{' && ctIsMeta(name) {
		keys := headKeys(h, 16)
		for _, k := range ctMetaFiles[base] {
			if _, ok := headKeyNamed(keys, k); ok {
				return true
			}
		}
		return false
	}
	if len(h) == 0 || h[0] != '[' {
		return false
	}
	keys, empty := ctFirstElemKeys(h)
	switch {
	case strings.HasSuffix(base, ctHistoryName):
		if empty {
			return true
		}
		_, ok := headKeyNamed(keys, "role")
		return ok
	case strings.HasSuffix(base, ctUIName):
		if empty {
			return true
		}
		t, okType := headKeyNamed(keys, "type")
		ts, okTS := headKeyNamed(keys, "ts")
		return okType && okTS && isNumberKind(ts.kind) && (t.str == "say" || t.str == "ask")
	}
	return false
}

// ctFirstElemKeys returns the head keys of the first element of the array
// at the start of h; empty reports an array with no elements.
func ctFirstElemKeys(h []byte) (keys []headKey, empty bool) {
	first := -1
	jsonEachElem(h, 0, func(val int) bool { first = val; return false })
	if first < 0 {
		i := jsonWS(h, 1)
		return nil, i < len(h) && h[i] == ']'
	}
	if first >= len(h) || h[first] != '{' {
		return nil, false
	}
	return headKeys(h[first:], 16), false
}

// ctUIMsg is one ClineMessage of ui_messages.json.
type ctUIMsg struct {
	TS        any    `json:"ts"`
	Type      string `json:"type"`
	Ask       string `json:"ask"`
	Say       string `json:"say"`
	Text      string `json:"text"`
	Reasoning string `json:"reasoning"`
	ModelInfo *struct {
		ModelID string `json:"modelId"`
	} `json:"modelInfo"`
	ContextCondense *struct {
		PrevContextTokens *int64 `json:"prevContextTokens"`
		NewContextTokens  *int64 `json:"newContextTokens"`
		Summary           string `json:"summary"`
	} `json:"contextCondense"`
	ContextTruncation *struct {
		MessagesRemoved   *int64 `json:"messagesRemoved"`
		PrevContextTokens *int64 `json:"prevContextTokens"`
		NewContextTokens  *int64 `json:"newContextTokens"`
	} `json:"contextTruncation"`

	line int64
	req  *ctReqInfo // say api_req_started: its text decoded
}

// kind is the record's subtype: "say:<say>" or "ask:<ask>".
func (m *ctUIMsg) kind() string {
	if m.Type == "ask" {
		return "ask:" + m.Ask
	}
	return "say:" + m.Say
}

// ctReqInfo is the text of an api_req_started record ("ClineApiReqInfo").
type ctReqInfo struct {
	TokensIn          *int64   `json:"tokensIn"`
	TokensOut         *int64   `json:"tokensOut"`
	CacheWrites       *int64   `json:"cacheWrites"`
	CacheReads        *int64   `json:"cacheReads"`
	Cost              *float64 `json:"cost"`
	CancelReason      string   `json:"cancelReason"`
	APIProtocol       string   `json:"apiProtocol"`
	InferenceProvider *string  `json:"inferenceProvider"`
	UsageMissing      *bool    `json:"usageMissing"`
}

// usage is the record's usage (step 3); ok is false when it has no token
// counts.
func (r *ctReqInfo) usage() (u schema.Usage, ok bool) {
	if r.TokensIn == nil && r.TokensOut == nil && r.CacheReads == nil && r.CacheWrites == nil || r.UsageMissing != nil && *r.UsageMissing {
		return u, false
	}
	v := func(p *int64) int64 {
		if p == nil {
			return 0
		}
		return *p
	}
	u = schema.Usage{InputTokens: v(r.TokensIn), OutputTokens: v(r.TokensOut), CacheReadTokens: v(r.CacheReads), CacheWriteTokens: v(r.CacheWrites)}
	if r.APIProtocol != "openai" {
		u.InputTokens += u.CacheReadTokens + u.CacheWriteTokens
	}
	return u, true
}

// ctParseUI decodes the records of a ui_messages.json document, and the
// text of each api_req_started record. reject is called with each element
// that does not decode (nil: such elements are passed over).
func ctParseUI(d *jsonDoc, reject func(line int64, reason string, raw []byte) error) ([]*ctUIMsg, error) {
	if len(d.root.raw) == 0 {
		return nil, nil
	}
	if d.root.raw[0] != '[' {
		if reject != nil {
			return nil, reject(1, "expected a JSON array of ClineMessage records", d.data)
		}
		return nil, nil
	}
	elems, err := arrayElems(d.root)
	if err != nil {
		if reject != nil {
			return nil, reject(d.errLine(err), "invalid JSON: "+syntaxReason(err), d.data)
		}
		return nil, nil
	}
	var out []*ctUIMsg
	for i, el := range elems {
		what := "ui_messages[" + strconv.Itoa(i) + "]"
		line := d.line(el.off)
		var m ctUIMsg
		bad := ""
		switch {
		case el.raw[0] != '{':
			bad = what + " is not an object"
		default:
			if err := json.Unmarshal(el.raw, &m); err != nil {
				bad = what + ": " + explainDecodeErr(err, el.raw, &ctUIMsg{})
			} else if m.Type != "say" && m.Type != "ask" {
				bad = what + ": type " + clipQuote(m.Type) + " is neither say nor ask"
			}
		}
		if bad != "" {
			if reject != nil {
				if err := reject(line, bad, el.raw); err != nil {
					return nil, err
				}
			}
			continue
		}
		m.line = line
		if m.Type == "say" && m.Say == "api_req_started" {
			// a request whose text does not decode is still a model
			// call, without usage
			m.req = &ctReqInfo{}
			if strings.TrimSpace(m.Text) != "" {
				if err := json.Unmarshal([]byte(m.Text), m.req); err != nil {
					m.req = &ctReqInfo{}
					if reject != nil {
						if err := reject(line, what+": api_req_started text: "+clipErr(err), el.raw); err != nil {
							return nil, err
						}
					}
				}
			}
		}
		out = append(out, &m)
	}
	return out, nil
}

func (clineTask) Import(f *File, r io.Reader) error {
	path := f.Path()
	if ctIsMeta(path) {
		return nil // a metadata sibling: the folder's run reads what it needs of it
	}
	d, err := readJSONDoc(f, r)
	if d == nil {
		return err
	}
	if strings.HasSuffix(filepath.Base(path), ctHistoryName) {
		return ctHistoryRun(f, d, ctSiblingUI(path))
	}
	msgs, err := ctParseUI(d, f.Reject)
	if err != nil {
		return err
	}
	if st, err := os.Stat(siblingPath(path, ctUIName, ctHistoryName)); err == nil && st.Mode().IsRegular() {
		return nil // the history beside it makes the run (the anchor rule)
	}
	return ctUIRun(f, msgs)
}

// ctSiblingUI reads the ui_messages.json beside a history leniently (nil
// when there is none).
func ctSiblingUI(path string) []*ctUIMsg {
	data := readSiblingBytes(siblingPath(path, ctHistoryName, ctUIName))
	if data == nil {
		return nil
	}
	data, _ = repairJSONText(trimBOM(data))
	msgs, _ := ctParseUI(newJSONDoc(data), nil)
	return msgs
}

// readSiblingBytes reads a sibling file of at most ctMaxSibling bytes (nil
// when it is missing, not a regular file, too large or unreadable).
func readSiblingBytes(path string) []byte {
	if path == "" {
		return nil
	}
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() || st.Size() > ctMaxSibling {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return data
}

// ctHistoryItem is what is read of Roo's history_item.json.
type ctHistoryItem struct {
	ID           string `json:"id"`
	ParentTaskID string `json:"parentTaskId"`
}

// ctNewRun starts the task folder's run (steps 1 and 2); anchor is the
// file name the run is read from.
func ctNewRun(f *File, anchor string, msgs []*ctUIMsg) (*RunBuilder, error) {
	path := f.Path()
	var item ctHistoryItem
	hasItem := readSibling(siblingPath(path, anchor, "history_item.json"), &item)
	b, err := f.NewRun(firstNonEmpty(item.ID, dirRunID(path, anchor)))
	if err != nil {
		return nil, err
	}
	b.Run.ParentRunID = item.ParentTaskID
	b.Run.Harness = ctHarness(path, hasItem, msgs)
	return b, nil
}

// ctHarness names the extension a task folder belongs to (step 2).
func ctHarness(path string, hasItem bool, msgs []*ctUIMsg) string {
	lower := "/" + strings.ToLower(filepath.ToSlash(path))
	for _, e := range ctExtensions {
		if strings.Contains(lower, "/"+e.id+"/") {
			return e.harness
		}
	}
	if hasItem {
		return "roo-code"
	}
	for _, m := range msgs {
		if m.req != nil && (m.req.InferenceProvider != nil || m.req.UsageMissing != nil) {
			return "kilo-code"
		}
	}
	return "cline"
}

// ctEnd holds what decides the run's end (step 4) as the records go by.
type ctEnd struct {
	completed bool   // a completion_result, not followed by more of the task
	cancel    string // the cancelReason of the last request
}

// note follows one record.
func (e *ctEnd) note(m *ctUIMsg) {
	switch m.kind() {
	case "say:completion_result", "ask:completion_result":
		e.completed = true
	case "say:api_req_started":
		e.completed = false
		e.cancel = m.req.CancelReason
	case "say:user_feedback", "say:user_feedback_diff", "say:task", "say:text", "ask:tool", "ask:command", "say:tool", "say:command":
		e.completed = false
	}
}

// apply sets the run's end; it reports whether the log stated one.
func (e *ctEnd) apply(b *RunBuilder) bool {
	switch {
	case e.completed:
		b.SetEnd(schema.EndFinished, "completion_result")
	case e.cancel == "user_cancelled":
		b.SetEnd(schema.EndInterrupted, "cancelReason: user_cancelled")
	case e.cancel != "":
		b.SetEnd(schema.EndError, "cancelReason: "+clipText(e.cancel))
	default:
		return false
	}
	return true
}

// ctUsage records request record m's usage, if it has one, on model call
// turn, and adds its cost to *cost. The call's model is the record's
// modelInfo, else model.
func ctUsage(b *RunBuilder, turn int64, m *ctUIMsg, ts *time.Time, model string, cost *ctCost) {
	if m.req.Cost != nil {
		cost.add(*m.req.Cost)
	}
	if m.ModelInfo != nil && m.ModelInfo.ModelID != "" {
		model = m.ModelInfo.ModelID
	}
	u, ok := m.req.usage()
	if !ok {
		b.NoteModel(model)
		return
	}
	u.TS, u.Model = ts, model
	b.SetUsageAt(turn, u)
}

// ctCost sums the requests' costs.
type ctCost struct {
	sum float64
	any bool
}

func (c *ctCost) add(v float64) { c.sum, c.any = c.sum+v, true }

func (c *ctCost) apply(b *RunBuilder) {
	if c.any {
		v := c.sum
		b.Run.CostUSD = &v
	}
}

// ctOpRecord adds the context op a Roo condense_context or
// sliding_window_truncation record carries (false when m is neither).
func ctOpRecord(b *RunBuilder, m *ctUIMsg, add func(schema.Event) error) (bool, error) {
	switch {
	case m.Say == "condense_context" && m.ContextCondense != nil:
		c := m.ContextCondense
		if err := add(schema.Event{Kind: schema.KindCompaction, Role: "system", Text: c.Summary}); err != nil {
			return true, err
		}
		return true, b.Op(schema.ContextOp{Op: schema.OpCompaction, TokensBefore: c.PrevContextTokens, TokensAfter: c.NewContextTokens, Trigger: "condense_context", Detail: "condense_context"})
	case m.Say == "sliding_window_truncation" && m.ContextTruncation != nil:
		c := m.ContextTruncation
		detail := "sliding_window_truncation"
		if c.MessagesRemoved != nil {
			detail += ": " + strconv.Itoa(int(*c.MessagesRemoved)) + " message(s) removed"
		}
		if err := add(schema.Event{Kind: schema.KindContextOp, Role: "system", Text: detail}); err != nil {
			return true, err
		}
		return true, b.Op(schema.ContextOp{Op: schema.OpTruncation, TokensBefore: c.PrevContextTokens, TokensAfter: c.NewContextTokens, Trigger: "sliding_window_truncation", Detail: detail})
	}
	return false, nil
}

// ctResultOf names, per ui record that carries a tool's output, the tool
// whose latest open call it answers.
var ctResultOf = map[string]string{
	"say:command_output": "execute_command", "ask:command_output": "execute_command",
	"say:mcp_server_response":   "use_mcp_server",
	"say:subtask_result":        "newTask",
	"say:browser_action_result": "browser_action",
}

// ctErrors are the ui records that are error events.
var ctErrors = map[string]bool{
	"say:error": true, "say:diff_error": true, "say:rooignore_error": true, "say:clineignore_error": true,
	"ask:api_req_failed": true, "ask:mistake_limit_reached": true,
}

// ctUIRun builds the run of a ui_messages.json alone (ui mode).
func ctUIRun(f *File, msgs []*ctUIMsg) error {
	b, err := ctNewRun(f, ctUIName, msgs)
	if err != nil {
		return err
	}
	u := &ctUI{b: b, open: map[string]string{}, owned: -1}
	for i, m := range msgs {
		if err := u.record(i, m); err != nil {
			return err
		}
	}
	if err := u.flush(); err != nil {
		return err
	}
	u.cost.apply(b)
	if !u.end.apply(b) {
		inferEnd(b, u.last)
	}
	return b.Finish()
}

// ctUI is the state of a ui-mode run.
type ctUI struct {
	b     *RunBuilder
	last  schema.EventKind
	n     int               // tool calls so far
	open  map[string]string // tool name → its latest call without a result
	owned int64             // the latest model call a request record began or adopted
	out   *schema.Event     // a result being joined from consecutive chunks
	outOf string            // the tool whose output out joins
	cost  ctCost
	end   ctEnd
}

// flush adds the result being joined, if any.
func (u *ctUI) flush() error {
	if u.out == nil {
		return nil
	}
	e := *u.out
	u.out = nil
	u.last = e.Kind
	return u.b.Add(e)
}

func (u *ctUI) record(i int, m *ctUIMsg) error {
	ts := ParseTime(m.TS)
	k := m.kind()
	if u.out != nil && ctResultOf[k] != u.outOf {
		if err := u.flush(); err != nil {
			return err
		}
	}
	u.end.note(m)
	add := eventAdder(u.b, ts, m.line, &u.last)
	if m.Reasoning != "" && k != "say:reasoning" {
		if err := add(schema.Event{Kind: schema.KindReasoning, Role: "assistant", Text: m.Reasoning}); err != nil {
			return err
		}
	}
	if tool, ok := ctResultOf[k]; ok {
		if u.out != nil { // the next chunk of the same output
			u.out.Text += "\n" + m.Text
			return nil
		}
		id := u.open[tool]
		delete(u.open, tool)
		u.out, u.outOf = &schema.Event{Kind: schema.KindToolResult, Role: "tool", TS: ts, Line: m.line, CallID: id, Text: m.Text}, tool
		if id == "" {
			u.out.ToolName = tool
		}
		return nil
	}
	if ctErrors[k] {
		return add(schema.Event{Kind: schema.KindError, Role: "system", IsError: true, Text: firstNonEmpty(m.Text, k)})
	}
	if done, err := ctOpRecord(u.b, m, add); done {
		return err
	}
	switch k {
	case "say:api_req_started":
		if t := u.b.Turns(); t > 0 && t-1 > u.owned {
			u.owned = t - 1 // outputs logged before their request record
		} else {
			u.b.NewCall()
			u.owned = u.b.Turns() - 1
		}
		ctUsage(u.b, u.owned, m, ts, "", &u.cost)
	case "say:task", "say:user_feedback", "say:user_feedback_diff":
		return add(schema.Event{Kind: schema.KindUser, Role: "user", Text: m.Text})
	case "say:text":
		if i == 0 {
			return add(schema.Event{Kind: schema.KindUser, Role: "user", Text: m.Text})
		}
		if strings.TrimSpace(m.Text) != "" {
			return add(schema.Event{Kind: schema.KindAssistant, Role: "assistant", Text: m.Text})
		}
	case "say:completion_result", "ask:followup", "ask:plan_mode_respond":
		if text := ctAskText(m.Text); strings.TrimSpace(text) != "" {
			return add(schema.Event{Kind: schema.KindAssistant, Role: "assistant", Text: text})
		}
	case "say:reasoning":
		return add(schema.Event{Kind: schema.KindReasoning, Role: "assistant", Text: firstNonEmpty(m.Reasoning, m.Text)})
	case "ask:tool", "say:tool", "ask:command", "say:command", "ask:use_mcp_server", "say:use_mcp_server", "say:browser_action_launch":
		name, args := ctToolCall(k, m.Text)
		u.n++
		id := "call-" + strconv.Itoa(u.n)
		u.open[name] = id
		return add(schema.Event{Kind: schema.KindToolCall, Role: "assistant", ToolName: name, CallID: id, Args: args})
	}
	return nil
}

// ctAskText is the text of an assistant record: a followup's question or
// a plan_mode_respond's response when the text is JSON holding one, else
// the text.
func ctAskText(text string) string {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "{") {
		return text
	}
	var v struct {
		Question string `json:"question"`
		Response string `json:"response"`
	}
	if json.Unmarshal([]byte(t), &v) != nil {
		return text
	}
	return firstNonEmpty(v.Question, v.Response, text)
}

// ctToolCall is the tool name and arguments of a ui tool record of kind k.
func ctToolCall(k, text string) (name, args string) {
	switch k {
	case "ask:command", "say:command":
		a, _ := json.Marshal(map[string]string{"command": text})
		return "execute_command", string(a)
	case "ask:use_mcp_server", "say:use_mcp_server":
		return "use_mcp_server", ctJSONArgs(text)
	case "say:browser_action_launch":
		a, _ := json.Marshal(map[string]string{"action": "launch", "url": text})
		return "browser_action", string(a)
	}
	var v struct {
		Tool string `json:"tool"`
	}
	if json.Unmarshal([]byte(strings.TrimSpace(text)), &v) != nil || v.Tool == "" {
		return "tool", ctJSONArgs(text)
	}
	return v.Tool, text
}

// ctJSONArgs is text when it is a JSON object, else {"text": text}.
func ctJSONArgs(text string) string {
	t := bytes.TrimSpace([]byte(text))
	if len(t) > 0 && t[0] == '{' && json.Valid(t) {
		return text
	}
	a, _ := json.Marshal(map[string]string{"text": text})
	return string(a)
}
