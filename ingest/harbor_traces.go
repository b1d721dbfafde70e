package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"
	"github.com/trajmine/trajmine/schema"
)

// Harbor's traces export (per-episode SFT records, *.traces.json / .jsonl),
// read by the atif importer when a file is not a trajectory: one run per
// trial, each episode's conversation adding what the previous one did not
// show.

type harborTraceRecord struct {
	Conversations []harborTraceMsg `json:"conversations"`
	Agent         string           `json:"agent"`
	Model         string           `json:"model"`
	Date          any              `json:"date"`
	Task          json.RawMessage  `json:"task"`
	Episode       json.RawMessage  `json:"episode"`
	RunID         json.RawMessage  `json:"run_id"`
	TrialName     json.RawMessage  `json:"trial_name"`
	Result        json.RawMessage  `json:"result"`
}

type harborTraceMsg struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// harborTrace is one trial's run being assembled from its episodes.
type harborTrace struct {
	b       *RunBuilder
	prev    []harborTraceMsg
	calls   []harborCallRef // calls of the last assistant message, for position links
	result  string
	started bool
}

type harborCallRef struct{ name, target string }

// harborTraces imports a traces export: a JSON array of records or JSONL.
func harborTraces(f *File, data []byte, lines lineIndex) error {
	type rec struct {
		raw  []byte
		line int64
	}
	var recs []rec
	start := jsonWS(data, 0)
	if data[start] == '[' {
		if !json.Valid(data) {
			err := exactSyntaxErr(errors.New("invalid JSON"), data)
			return f.Reject(decodeErrLine(err, data, lines), "invalid JSON: "+decodeErrText(err), data)
		}
		jsonEachElem(data, start, func(v int) bool {
			end := jsonSkipValue(data, v)
			if end > v {
				recs = append(recs, rec{data[v:end], lines.line(v)})
			}
			return true
		})
	} else {
		err := f.Lines(bytes.NewReader(data), func(n int64, b []byte) error {
			recs = append(recs, rec{b, n})
			return nil
		})
		if err != nil {
			return err
		}
	}
	runs := map[string]*harborTrace{}
	var order []string
	for _, r := range recs {
		var tr harborTraceRecord
		if err := json.Unmarshal(r.raw, &tr); err != nil || !isJSONObject(r.raw) {
			if err := f.Reject(r.line, "invalid traces record: "+explainDecodeErr(err, r.raw, &harborTraceRecord{}), r.raw); err != nil {
				return err
			}
			continue
		}
		if tr.Conversations == nil {
			if err := f.Reject(r.line, "traces record without conversations", r.raw); err != nil {
				return err
			}
			continue
		}
		key := scalarString(tr.TrialName)
		if key == "" {
			key = strings.Trim(scalarString(tr.RunID)+"/"+scalarString(tr.Task), "/")
		}
		if key == "" {
			key = atifBase(f.Path())
		}
		run, ok := runs[key]
		if !ok {
			b, err := f.NewRun(key)
			if err != nil {
				return err
			}
			b.Run.Harness = tr.Agent
			if b.Run.Harness == "" {
				b.Run.Harness = "harbor"
			}
			b.Run.TaskID = scalarString(tr.Task)
			b.Run.StartedAt = ParseTime(tr.Date)
			run = &harborTrace{b: b}
			runs[key] = run
			order = append(order, key)
		}
		if err := run.episode(&tr, r.line); err != nil {
			return err
		}
	}
	for _, k := range order {
		run := runs[k]
		run.end()
		if err := run.b.Finish(); err != nil {
			return err
		}
	}
	return nil
}

// episode adds the messages of one episode that the previous one did not
// hold.
func (t *harborTrace) episode(tr *harborTraceRecord, line int64) error {
	b := t.b
	b.NoteModel(tr.Model)
	if r := scalarString(tr.Result); r != "" {
		t.result = r
	}
	conv := tr.Conversations
	common := 0
	for common < len(conv) && common < len(t.prev) && conv[common].Role == t.prev[common].Role && bytes.Equal(conv[common].Content, t.prev[common].Content) {
		common++
	}
	if t.started && common < len(t.prev) {
		if err := b.Add(schema.Event{Kind: schema.KindCompaction, Role: "system", Line: line}); err != nil {
			return err
		}
		op := schema.ContextOp{Op: schema.OpCompaction, Trigger: "auto",
			Detail: fmt.Sprintf("%s does not extend the previous episode: %d of its %d messages kept", scalarString(tr.Episode), common, len(t.prev))}
		if err := b.Op(op); err != nil {
			return err
		}
		t.calls = nil
	}
	t.started = true
	for _, m := range conv[common:] {
		if err := t.message(m, line); err != nil {
			return err
		}
	}
	t.prev = conv
	return nil
}

var (
	harborThinkRe    = regexp.MustCompile(`(?s)<think>(.*?)</think>`)
	harborToolCallRe = regexp.MustCompile(`(?s)<tool_call>\s*(.*?)\s*</tool_call>`)
)

// message adds one conversation message.
func (t *harborTrace) message(m harborTraceMsg, line int64) error {
	b := t.b
	text := ContentText(m.Content)
	switch strings.ToLower(m.Role) {
	case "assistant", "gpt", "model":
		b.NewCall()
		t.calls = t.calls[:0]
		for _, th := range harborThinkRe.FindAllStringSubmatch(text, -1) {
			if err := b.Add(schema.Event{Kind: schema.KindReasoning, Role: "assistant", Line: line, Text: strings.TrimSpace(th[1])}); err != nil {
				return err
			}
		}
		rest := harborThinkRe.ReplaceAllString(text, "")
		var calls []schema.Event
		for _, tc := range harborToolCallRe.FindAllStringSubmatch(rest, -1) {
			var c struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			}
			if json.Unmarshal([]byte(tc[1]), &c) != nil || c.Name == "" {
				continue
			}
			e := schema.Event{Kind: schema.KindToolCall, Role: "assistant", Line: line, ToolName: c.Name, Args: jsonString(c.Arguments)}
			e.Target = atifTarget(e.Args)
			if e.Target == "" {
				e.Target = Target(e.ToolName, []byte(e.Args))
			}
			calls = append(calls, e)
			t.calls = append(t.calls, harborCallRef{c.Name, e.Target})
		}
		if len(calls) > 0 {
			rest = harborToolCallRe.ReplaceAllString(rest, "")
		}
		if rest = strings.TrimSpace(rest); rest != "" {
			if err := b.Add(schema.Event{Kind: schema.KindAssistant, Role: "assistant", Line: line, Text: rest}); err != nil {
				return err
			}
		}
		for _, e := range calls {
			if err := b.Add(e); err != nil {
				return err
			}
		}
		return nil
	case "system":
		return b.Add(schema.Event{Kind: schema.KindSystem, Role: m.Role, Line: line, Text: text})
	}
	e := schema.Event{Kind: schema.KindUser, Role: m.Role, Line: line, Text: text}
	if len(t.calls) > 0 { // the observation of the last call batch
		e.Kind, e.Role = schema.KindToolResult, "tool"
		e.ToolName, e.Target = t.calls[0].name, t.calls[0].target
	}
	t.calls = t.calls[:0]
	return b.Add(e)
}

// end maps the trial's result: a reward 0 or 1 is the outcome, an exception
// name the end reason.
func (t *harborTrace) end() {
	r := strings.TrimSpace(t.result)
	if r == "" || r == "None" || r == "null" {
		return
	}
	if v, err := strconv.ParseFloat(r, 64); err == nil {
		switch v {
		case 1:
			ok := true
			t.b.Run.Resolved = &ok
		case 0:
			ok := false
			t.b.Run.Resolved = &ok
		}
		return
	}
	t.b.SetEnd(atifExceptionReason(r), r)
}
