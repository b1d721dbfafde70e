package ingest

import (
	"bytes"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// qwenCode reads Qwen Code chat recordings
// (~/.qwen/projects/<slug>/chats/<sessionId>.jsonl): a Claude-Code-like
// envelope (uuid, parentUuid, sessionId, timestamp, type) around
// Gemini-style messages {role, parts}.
//
// Steps:
//  1. Decode every line; a line that is not a JSON object, has no type or
//     an unknown one, or whose message is not an object with parts, is
//     rejected (the rest imports).
//  2. Find the active chain: the last record in file order, other than a
//     session_artifact_snapshot, is the leaf; following parentUuid from it
//     gives the records of the active branch (several lines may share one
//     uuid: a response recorded in parts). Records on branches a rewind
//     abandoned are dropped; records without a uuid are kept.
//  3. For each kept record in file order, per sessionId run:
//     - user: its text parts → a user event (the model saw the hook
//     context parts too);
//     - assistant: one model call per uuid (RunBuilder.Call); parts with
//     thought → reasoning, text → assistant, functionCall{id,name,args} →
//     tool call; usageMetadata → the call's usage (input = prompt +
//     "toolUsePrompt" tokens, output = candidates + thoughts, cache read =
//     "cachedContent", reasoning = thoughts); model and contextWindowSize
//     (the run's window) are top-level;
//     - tool_result: functionResponse{id, name, response} → tool result
//     linked by id (response.output, else response.error, else the JSON);
//     toolCallResult.status "error" marks it an error;
//     - system chat_compression: a compaction event (the text of
//     systemPayload.compressedHistory, the history that replaces what came
//     before) with a compaction op (tokens before/after from
//     systemPayload.info.originalTokenCount / newTokenCount); rewind: a context_op event noting how many records
//     the rewind abandoned; ui_telemetry, slash_command, custom_title and
//     session_artifact_snapshot are UI records and skipped (ui_telemetry's
//     api_response token counts are per response, but name no record of
//     the chain, so they are not read: usage is usageMetadata's).
//  4. The end reason is inferred from the last event.
type qwenCode struct{ formatInfo }

var qwenTypes = map[string]bool{"user": true, "assistant": true, "tool_result": true, "system": true}

// Detect claims JSONL whose records have a sessionId, a Qwen record type
// and either a Gemini-style message (parts) or a systemPayload.
func (qwenCode) Detect(name string, head []byte) bool {
	return anyJSONL(head, 30, func(r *struct {
		Type          string          `json:"type"`
		SessionID     string          `json:"sessionId"`
		SystemPayload json.RawMessage `json:"systemPayload"`
		Message       *struct {
			Parts json.RawMessage `json:"parts"`
		} `json:"message"`
	}) bool {
		return r.SessionID != "" && qwenTypes[r.Type] &&
			(r.Message != nil && len(r.Message.Parts) > 0 && r.Message.Parts[0] == '[' || len(r.SystemPayload) > 0 && r.SystemPayload[0] == '{')
	})
}

type qwRecord struct {
	UUID              string          `json:"uuid"`
	ParentUUID        *string         `json:"parentUuid"`
	SessionID         string          `json:"sessionId"`
	Timestamp         string          `json:"timestamp"`
	Type              string          `json:"type"`
	Subtype           string          `json:"subtype"`
	Model             string          `json:"model"`
	Message           json.RawMessage `json:"message"`
	UsageMetadata     *qwUsage        `json:"usageMetadata"`
	ContextWindowSize int64           `json:"contextWindowSize"`
	ToolCallResult    *struct {
		Status string `json:"status"`
	} `json:"toolCallResult"`
	SystemPayload json.RawMessage `json:"systemPayload"`
}

type qwUsage struct {
	Prompt     *int64 `json:"promptTokenCount"`
	Candidates int64  `json:"candidatesTokenCount"`
	Cached     int64  `json:"cachedContentTokenCount"`
	Thoughts   int64  `json:"thoughtsTokenCount"`
	ToolPrompt int64  `json:"toolUsePromptTokenCount"`
}

type qwPart struct {
	Text         *string `json:"text"`
	Thought      bool    `json:"thought"`
	FunctionCall *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
}

type qwLine struct {
	line  int64
	rec   qwRecord
	parts []qwPart
}

type qwRun struct {
	b    *RunBuilder
	last schema.EventKind
}

func (qwenCode) Import(f *File, r io.Reader) error {
	var recs []qwLine
	err := f.Lines(r, func(line int64, raw []byte) error {
		var l qwLine
		l.line = line
		if err := json.Unmarshal(raw, &l.rec); err != nil {
			return f.Reject(line, "invalid JSON: "+clipErr(err), raw)
		}
		if !qwenTypes[l.rec.Type] {
			if l.rec.Type == "" {
				return f.Reject(line, "record without a type", raw)
			}
			return f.Reject(line, "unknown record type "+strconv.Quote(l.rec.Type), raw)
		}
		if m := bytes.TrimSpace(l.rec.Message); len(m) > 0 && string(m) != "null" {
			var msg struct {
				Parts []qwPart `json:"parts"`
			}
			if m[0] != '{' || json.Unmarshal(m, &msg) != nil {
				return f.Reject(line, "message is not an object with a parts list", raw)
			}
			l.parts = msg.Parts
		} else if l.rec.Type != "system" {
			return f.Reject(line, l.rec.Type+" record without a message", raw)
		}
		l.rec.Message = nil // decoded into parts
		recs = append(recs, l)
		return nil
	})
	if err != nil {
		return err
	}
	keep := qwActiveChain(recs)
	runs := map[string]*qwRun{}
	var order []string
	for i := range recs {
		l := &recs[i]
		if !keep[i] {
			continue
		}
		id := l.rec.SessionID
		if id == "" {
			id = strings.TrimSuffix(filepath.Base(f.Path()), filepath.Ext(f.Path()))
		}
		qr := runs[id]
		if qr == nil {
			b, err := f.NewRun(id)
			if err != nil {
				return err
			}
			b.Run.Harness = "qwen-code"
			qr = &qwRun{b: b}
			runs[id] = qr
			order = append(order, id)
		}
		if err := qr.add(l, recs, keep, i); err != nil {
			return err
		}
	}
	for _, id := range order {
		qr := runs[id]
		inferEnd(qr.b, qr.last)
		if err := qr.b.Finish(); err != nil {
			return err
		}
	}
	return nil
}

// qwActiveChain marks the records on the active branch (step 2 of the
// importer's doc).
func qwActiveChain(recs []qwLine) []bool {
	keep := make([]bool, len(recs))
	leaf := -1
	for i := len(recs) - 1; i >= 0; i-- {
		if recs[i].rec.Subtype != "session_artifact_snapshot" && recs[i].rec.UUID != "" {
			leaf = i
			break
		}
	}
	parent := map[string]string{}
	for _, l := range recs {
		if l.rec.UUID != "" && l.rec.ParentUUID != nil {
			if _, ok := parent[l.rec.UUID]; !ok {
				parent[l.rec.UUID] = *l.rec.ParentUUID
			}
		}
	}
	onChain := map[string]bool{}
	if leaf >= 0 {
		for u := recs[leaf].rec.UUID; u != "" && !onChain[u]; u = parent[u] {
			onChain[u] = true
		}
	}
	for i, l := range recs {
		keep[i] = l.rec.UUID == "" || onChain[l.rec.UUID]
	}
	return keep
}

func (qr *qwRun) add(l *qwLine, recs []qwLine, keep []bool, i int) error {
	b, rec := qr.b, &l.rec
	ts := ParseTime(rec.Timestamp)
	add := func(e schema.Event) error {
		e.TS, e.Line = ts, l.line
		qr.last = e.Kind
		return b.Add(e)
	}
	if rec.ContextWindowSize > 0 {
		w := rec.ContextWindowSize
		b.Run.WindowTokens = &w
	}
	switch rec.Type {
	case "user":
		var texts []string
		for _, p := range l.parts {
			if p.Text != nil && strings.TrimSpace(*p.Text) != "" {
				texts = append(texts, *p.Text)
			}
		}
		if len(texts) == 0 {
			return nil
		}
		return add(schema.Event{Kind: schema.KindUser, Role: "user", Text: strings.Join(texts, "\n")})
	case "assistant":
		b.Call(rec.UUID)
		b.NoteModel(rec.Model)
		for _, p := range l.parts {
			var err error
			switch {
			case p.FunctionCall != nil:
				err = add(schema.Event{Kind: schema.KindToolCall, Role: "assistant", ToolName: p.FunctionCall.Name, CallID: p.FunctionCall.ID, Args: jsonArgs(p.FunctionCall.Args)})
			case p.Text != nil && p.Thought:
				err = add(schema.Event{Kind: schema.KindReasoning, Role: "assistant", Text: *p.Text})
			case p.Text != nil && strings.TrimSpace(*p.Text) != "":
				err = add(schema.Event{Kind: schema.KindAssistant, Role: "assistant", Text: *p.Text})
			}
			if err != nil {
				return err
			}
		}
		if u := rec.UsageMetadata; u != nil && u.Prompt != nil {
			b.SetUsage(schema.Usage{TS: ts, Model: rec.Model, RequestID: rec.UUID, InputTokens: *u.Prompt + u.ToolPrompt,
				OutputTokens: u.Candidates + u.Thoughts, CacheReadTokens: u.Cached, ReasoningTokens: u.Thoughts})
		}
	case "tool_result":
		isErr := rec.ToolCallResult != nil && rec.ToolCallResult.Status == "error"
		for _, p := range l.parts {
			fr := p.FunctionResponse
			if fr == nil {
				continue
			}
			var resp struct {
				Output json.RawMessage `json:"output"`
				Error  json.RawMessage `json:"error"`
			}
			text := jsonString(fr.Response)
			if json.Unmarshal(fr.Response, &resp) == nil {
				switch {
				case resp.Output != nil:
					text = jsonString(resp.Output)
				case resp.Error != nil:
					text, isErr = jsonString(resp.Error), true
				}
			}
			if err := add(schema.Event{Kind: schema.KindToolResult, Role: "tool", ToolName: fr.Name, CallID: fr.ID, Text: text, IsError: isErr}); err != nil {
				return err
			}
		}
	case "system":
		switch rec.Subtype {
		case "chat_compression":
			var p struct {
				Info *struct {
					Original *int64 `json:"originalTokenCount"`
					New      *int64 `json:"newTokenCount"`
				} `json:"info"`
				History []struct {
					Parts []qwPart `json:"parts"`
				} `json:"compressedHistory"`
			}
			_ = json.Unmarshal(rec.SystemPayload, &p)
			var texts []string
			for _, c := range p.History {
				for _, part := range c.Parts {
					if part.Text != nil && strings.TrimSpace(*part.Text) != "" {
						texts = append(texts, *part.Text)
					}
				}
			}
			text := strings.Join(texts, "\n")
			if text == "" {
				text = "chat compression"
			}
			if err := add(schema.Event{Kind: schema.KindCompaction, Role: "system", Text: text}); err != nil {
				return err
			}
			op := schema.ContextOp{Op: schema.OpCompaction, Trigger: "auto"}
			if p.Info != nil {
				op.TokensBefore, op.TokensAfter = p.Info.Original, p.Info.New
			}
			return b.Op(op)
		case "rewind":
			dropped := 0
			for j := 0; j < i; j++ {
				if !keep[j] {
					dropped++
				}
			}
			return add(schema.Event{Kind: schema.KindContextOp, Role: "system", Text: "rewind: " + strconv.Itoa(dropped) + " earlier record(s) on an abandoned branch are not part of the active chain"})
		}
	}
	return nil
}
