package ingest

import (
	"io"
	"path/filepath"
	"strings"
	"time"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// vscodeCopilotChat reads VS Code's Copilot Chat sessions
// (<VS Code user dir>/workspaceStorage/<hash>/chatSessions/<id>.json, and
// emptyWindowChatSessions/ in globalStorage): the serialized chat
// "{version, sessionId, creationDate, customTitle, requests[]}", or, in newer
// VS Code, the same as a JSONL mutation log (vscode_copilot_chat_log.go) that is
// replayed first. A session is one run.
//
// Steps:
//  1. Run id: sessionId, else the file name's stem. A request that is not
//     an object or does not decode is rejected at its line.
//  2. Each request: message.text → a user event at its timestamp (ms).
//  3. Its model calls: each result.metadata.toolCallRounds entry is one
//     model response: its response text, then its toolCalls {id, name,
//     arguments}; the results are result.metadata.toolCallResults[id]
//     (the text of their content, a string or a prompt-tsx tree), added
//     after the round's calls. modelId is each call's model. The log has
//     no token counts: usage stays estimated.
//  4. A request without tool-call rounds (older or simpler sessions) is
//     one model call made of its response items: markdown values →
//     assistant text, thinking → reasoning, toolInvocationSerialized → a
//     tool call (toolId, toolCallId) without a result (the items hold
//     none).
//  5. result.errorDetails.message → an error event.
//  6. End: the last request cancelled (isCanceled) → interrupted; else
//     inferred from the last event. A request's end is its timestamp plus
//     result.timings.totalElapsed (ms).
type vscodeCopilotChat struct{ formatInfo }

// Detect claims a JSON object whose head shows a requests array beside
// the chat's keys (requesterUsername, responderUsername, initialLocation,
// and version or sessionId), or JSONL whose first line is the log's
// initial snapshot {kind: 0, v: {version, requests or sessionId, …}}, or,
// past a first line longer than the head, a .jsonl file of mutations
// {kind, k, v}.
func (vscodeCopilotChat) Detect(name string, head []byte) bool {
	h := trimHead(head)
	if len(h) == 0 || h[0] != '{' {
		return false
	}
	if line := firstLines(h, 1); len(line) == 1 && vsSnapshotLine(line[0]) {
		return true
	}
	keys := headKeys(h, 32)
	if reqs, ok := headKeyNamed(keys, "requests"); ok && reqs.kind == '[' {
		_, v := headKeyNamed(keys, "version")
		_, s := headKeyNamed(keys, "sessionId")
		for _, k := range []string{"requesterUsername", "responderUsername", "initialLocation"} {
			if _, ok := headKeyNamed(keys, k); ok && (v || s) {
				return true
			}
		}
	}
	if filepath.Ext(name) != ".jsonl" {
		return false
	}
	n := 0
	claim := headLines(h, 30, func(line []byte) (bool, bool) {
		var op vsOp
		if !lineDecodes(line, &op) {
			return false, false // a line cut by the head
		}
		if !vsMutation(line, &op) {
			return false, true
		}
		n++
		return false, false
	})
	return claim || n > 0 && !vsAnyOther(h)
}

// vsAnyOther reports whether a line of the head decodes to something that
// is not a mutation (detect: a mutation log holds only mutations after
// its snapshot).
func vsAnyOther(h []byte) bool {
	other := false
	headLines(h, 30, func(line []byte) (bool, bool) {
		var op vsOp
		if lineDecodes(line, &op) && !vsMutation(line, &op) {
			other = true
			return false, true
		}
		return false, false
	})
	return other
}

// vsSnapshotLine reports whether line (possibly cut by the head) starts
// the log's initial snapshot {kind: 0, v: {version, …}}.
func vsSnapshotLine(line []byte) bool {
	keys := headKeys(line, 4)
	kind, ok := headKeyNamed(keys, "kind")
	v, okV := headKeyNamed(keys, "v")
	if !ok || !okV || v.kind != '{' || kind.kind != '0' || line[kind.off] != '0' || jsonSkipValue(line, kind.off) != kind.off+1 {
		return false
	}
	inner := headKeys(line[v.off:], 32)
	_, version := headKeyNamed(inner, "version")
	_, reqs := headKeyNamed(inner, "requests")
	_, sid := headKeyNamed(inner, "sessionId")
	return version && (reqs || sid)
}

// vsMutation reports whether a decoded line is a mutation {kind: 1|2|3,
// k: [path], v?, i?} and nothing else.
func vsMutation(line []byte, op *vsOp) bool {
	if op.Kind == nil || *op.Kind < 1 || *op.Kind > 3 || len(op.K) == 0 || op.K[0] != '[' {
		return false
	}
	only := true
	jsonEachField(line, 0, func(key []byte, _ int) bool {
		switch string(key) {
		case "kind", "k", "v", "i":
		default:
			only = false
		}
		return only
	})
	return only
}

// vsSession is the serialized chat without its requests.
type vsSession struct {
	SessionID string `json:"sessionId"`
}

// vsRequest is one request of a chat session.
type vsRequest struct {
	Message *struct {
		Text string `json:"text"`
	} `json:"message"`
	Response   []json.RawMessage `json:"response"`
	Result     *vsResult         `json:"result"`
	IsCanceled bool              `json:"isCanceled"`
	Timestamp  any               `json:"timestamp"`
	ModelID    string            `json:"modelId"`
}

// vsResult is a request's result.
type vsResult struct {
	Timings *struct {
		TotalElapsed *int64 `json:"totalElapsed"`
	} `json:"timings"`
	ErrorDetails *struct {
		Message string `json:"message"`
	} `json:"errorDetails"`
	Metadata *struct {
		ToolCallRounds  []vsRound                  `json:"toolCallRounds"`
		ToolCallResults map[string]json.RawMessage `json:"toolCallResults"`
	} `json:"metadata"`
}

// vsRound is one tool-call round: one model response.
type vsRound struct {
	Response  string `json:"response"`
	ToolCalls []struct {
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"toolCalls"`
}

// vsItem is one item of a request's response.
type vsItem struct {
	Kind    string          `json:"kind"`
	Value   json.RawMessage `json:"value"`
	Content *struct {
		Value string `json:"value"`
	} `json:"content"`
	ToolID     string `json:"toolId"`
	ToolCallID string `json:"toolCallId"`
}

func (vscodeCopilotChat) Import(f *File, r io.Reader) error {
	if filepath.Ext(f.Path()) == ".jsonl" {
		return vsImportLog(f, r)
	}
	var s vsSession
	d, _, elems, b, err := docRun(f, r, &s, "chat session", "requests", func() string { return s.SessionID })
	if b == nil {
		return err
	}
	v := &vsRun{b: b}
	err = decodeElems(f, d, elems, "requests[%d]", func(_ int, line int64, _ jsonSpan, q *vsRequest) error {
		return v.request(q, line)
	})
	if err != nil {
		return err
	}
	return v.finish()
}

// vsRun is the state of a session's run.
type vsRun struct {
	b        *RunBuilder
	last     schema.EventKind
	canceled bool
	end      *time.Time
}

// request adds one request's events (steps 2 to 5).
func (v *vsRun) request(q *vsRequest, line int64) error {
	b := v.b
	if b.Run.Harness == "" {
		b.Run.Harness = "vscode-copilot-chat"
	}
	ts := ParseTime(q.Timestamp)
	add := eventAdder(b, ts, line, &v.last)
	if q.Message != nil && strings.TrimSpace(q.Message.Text) != "" {
		if err := add(schema.Event{Kind: schema.KindUser, Role: "user", Text: q.Message.Text}); err != nil {
			return err
		}
	}
	if q.Result != nil && q.Result.Metadata != nil && len(q.Result.Metadata.ToolCallRounds) > 0 {
		md := q.Result.Metadata
		for _, round := range md.ToolCallRounds {
			b.NewCall()
			b.NoteModel(q.ModelID)
			if err := ctText(add, schema.KindAssistant, round.Response); err != nil {
				return err
			}
			for _, tc := range round.ToolCalls {
				if err := add(schema.Event{Kind: schema.KindToolCall, Role: "assistant", ToolName: tc.Name, CallID: tc.ID, Args: jsonArgs(tc.Arguments)}); err != nil {
					return err
				}
			}
			for _, tc := range round.ToolCalls {
				res, ok := md.ToolCallResults[tc.ID]
				if !ok || tc.ID == "" {
					continue
				}
				if err := add(schema.Event{Kind: schema.KindToolResult, Role: "tool", CallID: tc.ID, Text: vsResultText(res)}); err != nil {
					return err
				}
			}
		}
	} else if err := v.responseItems(q, add); err != nil {
		return err
	}
	if q.Result != nil && q.Result.ErrorDetails != nil && q.Result.ErrorDetails.Message != "" {
		if err := add(schema.Event{Kind: schema.KindError, Role: "system", IsError: true, Text: q.Result.ErrorDetails.Message}); err != nil {
			return err
		}
	}
	v.canceled = q.IsCanceled
	if ts != nil && q.Result != nil && q.Result.Timings != nil && q.Result.Timings.TotalElapsed != nil {
		t := ts.Add(time.Duration(*q.Result.Timings.TotalElapsed) * time.Millisecond)
		if v.end == nil || t.After(*v.end) {
			v.end = &t
		}
	}
	return nil
}

// responseItems adds a request's response items as one model call (step
// 4).
func (v *vsRun) responseItems(q *vsRequest, add func(schema.Event) error) error {
	started := false
	call := func() {
		if !started {
			started = true
			v.b.NewCall()
			v.b.NoteModel(q.ModelID)
		}
	}
	var text strings.Builder
	flush := func() error {
		t := text.String()
		text.Reset()
		return ctText(add, schema.KindAssistant, t)
	}
	for _, raw := range q.Response {
		var it vsItem
		if json.Unmarshal(raw, &it) != nil {
			continue
		}
		switch it.Kind {
		case "", "markdownContent":
			call()
			if it.Content != nil {
				text.WriteString(it.Content.Value)
			} else if s, _, ok := stringValue(it.Value); ok {
				text.WriteString(s)
			}
		case "thinking":
			call()
			if err := flush(); err != nil {
				return err
			}
			if err := ctText(add, schema.KindReasoning, valueText(it.Value)); err != nil {
				return err
			}
		case "toolInvocationSerialized":
			call()
			if err := flush(); err != nil {
				return err
			}
			if err := add(schema.Event{Kind: schema.KindToolCall, Role: "assistant", ToolName: it.ToolID, CallID: it.ToolCallID, Args: "{}"}); err != nil {
				return err
			}
		}
	}
	if !started {
		call()
	}
	return flush()
}

// finish sets the end (step 6) and finishes the run.
func (v *vsRun) finish() error {
	if v.b.Run.Harness == "" {
		v.b.Run.Harness = "vscode-copilot-chat"
	}
	if v.end != nil {
		v.b.Run.EndedAt = v.end
	}
	if v.canceled {
		v.b.SetEnd(schema.EndInterrupted, "isCanceled")
	} else {
		inferEnd(v.b, v.last)
	}
	return v.b.Finish()
}

// vsResultText is the text of a tool result: its content items' values,
// each a string or a prompt-tsx render tree whose text nodes are joined
// (a node marked lineBreakBefore starts a new line).
func vsResultText(raw json.RawMessage) string {
	var res struct {
		Content []struct {
			Value json.RawMessage `json:"value"`
		} `json:"content"`
	}
	if json.Unmarshal(raw, &res) != nil || len(res.Content) == 0 {
		return valueText(raw)
	}
	var sb strings.Builder
	for _, c := range res.Content {
		if s, _, ok := stringValue(c.Value); ok {
			sb.WriteString(s)
			continue
		}
		var v any
		if json.Unmarshal(c.Value, &v) == nil {
			vsTreeText(v, &sb, 0)
		}
	}
	return sb.String()
}

// vsTreeText appends the text of a prompt-tsx node (and its children) to
// sb.
func vsTreeText(v any, sb *strings.Builder, depth int) {
	if depth > 200 {
		return
	}
	switch x := v.(type) {
	case []any:
		for _, c := range x {
			vsTreeText(c, sb, depth+1)
		}
	case map[string]any:
		if t, ok := x["text"].(string); ok {
			if lb, _ := x["lineBreakBefore"].(bool); lb && sb.Len() > 0 {
				sb.WriteByte('\n')
			}
			sb.WriteString(t)
		}
		for _, k := range []string{"node", "children"} {
			if c, ok := x[k]; ok {
				vsTreeText(c, sb, depth+1)
			}
		}
	}
}
