package ingest

import (
	"database/sql"
	stdjson "encoding/json"
	"fmt"
	"io"
	"strings"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// cursorIDE reads Cursor IDE's chats from its SQLite key-value stores,
// state.vscdb (User/globalStorage/state.vscdb, and the older chats kept in
// User/workspaceStorage/<hash>/state.vscdb; under ~/.config/Cursor on
// Linux, ~/Library/Application Support/Cursor on macOS), read from a
// snapshot (sqlite.go). One run per composer (a chat or agent
// conversation), its id the composer id.
//
// Steps:
//  1. The store is claimed by its table cursorDiskKV(key, value) (VS Code's
//     own state.vscdb has ItemTable only).
//  2. Composers, in this order: the workspace list ItemTable
//     "composer.composerData" {allComposers: [...]}, whose entries carry
//     their bubbles inline in "conversation" in the stores of late 2024
//     (entries without them only point at the global store: no run); then
//     the cursorDiskKV rows "composerData:<composerId>" in row order; then
//     the composers of "bubbleId:<composerId>:<bubbleId>" rows that have
//     no composerData row (deleted or never written), in the order of
//     their first bubble row.
//  3. A composer's bubbles: its inline "conversation" when not empty;
//     else the rows its fullConversationHeadersOnly names, in that order
//     (a header whose row is gone, as after a compaction, is passed over),
//     then its bubble rows no header names, in row order (the headers are
//     not a complete index of a chat's rows). A composer without bubbles
//     (a draft) makes no run.
//  4. A bubble (cdBubble) of type 1 is the user's: its text a user event
//     (an empty one none). Of type 2, the model's: thinking (an object
//     with text, or a string holding one) a reasoning event, text an
//     assistant event, toolFormerData {toolCallId, name, params|rawArgs,
//     status, result} a tool call (its id the toolCallId, else
//     "bubble:<bubbleId>") and, when a result or status "error" is logged,
//     its result (failed on "error"). A bubble that is not a JSON object,
//     whose type is neither 1 nor 2, or whose fields have other types, is
//     rejected at its key ("file: key bubbleId:…: …") and the rest reads on.
//  5. Model calls: the store has no call records; each run of the model's
//     bubbles between user bubbles and tool results is one call (the
//     builder's rule). A type-2 bubble's tokenCount {inputTokens,
//     outputTokens} is usage of the call it belongs to (summed when a call
//     has several); the 0/0 that current builds write is no count and
//     stays unlogged (the run's tokens are then estimated). The model is
//     the bubble's modelInfo.modelName (or modelName), else the
//     composer's modelConfig.modelName.
//  6. Times: the bubbles' createdAt (ISO text or epoch milliseconds);
//     when no bubble has one, the composer's createdAt and lastUpdatedAt.
//     The end reason is inferred from the last event.
type cursorIDE struct{ formatInfo }

func (cursorIDE) Detect(string, []byte) bool { return false }

func (c cursorIDE) Import(f *File, r io.Reader) error { return importStoreBytes(f, r, c) }

// claims a database with Cursor's key-value table.
func (cursorIDE) claims(s dbSchema) bool { return s.has("cursorDiskKV", "key", "value") }

const (
	cdComposerPrefix = "composerData:"
	cdBubblePrefix   = "bubbleId:"
	cdWorkspaceKey   = "composer.composerData"
)

// cdComposer is a composer: a composerData value, or an entry of the
// workspace list.
type cdComposer struct {
	ComposerID    string `json:"composerId"`
	CreatedAt     any    `json:"createdAt"`
	LastUpdatedAt any    `json:"lastUpdatedAt"`
	ModelConfig   *struct {
		ModelName string `json:"modelName"`
	} `json:"modelConfig"`
	Headers []struct {
		BubbleID string `json:"bubbleId"`
	} `json:"fullConversationHeadersOnly"`
	Conversation []json.RawMessage `json:"conversation"`
}

// cdBubble is one message bubble.
type cdBubble struct {
	BubbleID       json.RawMessage `json:"bubbleId"`
	Type           *int64          `json:"type"`
	Text           string          `json:"text"`
	Thinking       json.RawMessage `json:"thinking"`
	ToolFormerData *struct {
		ToolCallID string          `json:"toolCallId"`
		Name       string          `json:"name"`
		Status     string          `json:"status"`
		RawArgs    json.RawMessage `json:"rawArgs"`
		Params     json.RawMessage `json:"params"`
		Result     json.RawMessage `json:"result"`
	} `json:"toolFormerData"`
	TokenCount *struct {
		InputTokens  int64 `json:"inputTokens"`
		OutputTokens int64 `json:"outputTokens"`
	} `json:"tokenCount"`
	ModelInfo *struct {
		ModelName string `json:"modelName"`
	} `json:"modelInfo"`
	ModelName string `json:"modelName"`
	RequestID string `json:"requestId"`
	CreatedAt any    `json:"createdAt"`
}

// cdUnmarshal decodes a store's value into v, refusing a value that is not
// JSON as a whole before the decoder sees it: goccy passes over invalid
// JSON inside the parts of a value it does not decode, and a stored value
// is one document, not a line among others. (The cut-off escape that made
// goccy panic, FuzzCursorIDEBubble's find, is jsonx.Unmarshal's guard now.)
func cdUnmarshal(raw []byte, v any) error {
	if !json.Valid(raw) {
		var x any
		return json.FromStd(stdjson.Unmarshal(raw, &x)) // the syntax error, in plain words
	}
	return json.Unmarshal(raw, v)
}

// decodeCursorBubble decodes a bubble's JSON; an error says, in plain
// words, why it cannot be read.
func decodeCursorBubble(raw []byte) (*cdBubble, error) {
	var bb cdBubble
	if err := cdUnmarshal(raw, &bb); err != nil {
		return nil, fmt.Errorf("not a bubble: %s", clipErr(err))
	}
	switch {
	case bb.Type == nil:
		return nil, fmt.Errorf("no type (1 user, 2 model)")
	case *bb.Type != 1 && *bb.Type != 2:
		return nil, fmt.Errorf("type %d is neither 1 (user) nor 2 (model)", *bb.Type)
	}
	return &bb, nil
}

// cdStep is what a bubble adds to its run: events in order, and the
// logged usage of the call it belongs to (nil: none logged).
type cdStep struct {
	events []schema.Event
	usage  *schema.Usage
	model  string
	// problem is a part of the bubble not read (it is rejected, the rest
	// of the bubble kept)
	problem string
}

// cursorBubbleStep turns a decoded bubble into its events; id names the
// bubble (its key's last part) for a tool call without an id.
func cursorBubbleStep(bb *cdBubble, id string) cdStep {
	var st cdStep
	ts := ParseTime(bb.CreatedAt)
	add := func(e schema.Event) {
		e.TS = ts
		st.events = append(st.events, e)
	}
	if *bb.Type == 1 {
		if bb.Text != "" {
			add(schema.Event{Kind: schema.KindUser, Role: "user", Text: bb.Text})
		}
		return st
	}
	if t := cdThinkingText(bb.Thinking); t != "" {
		add(schema.Event{Kind: schema.KindReasoning, Role: "assistant", Text: t})
	}
	if bb.Text != "" {
		add(schema.Event{Kind: schema.KindAssistant, Role: "assistant", Text: bb.Text})
	}
	if tf := bb.ToolFormerData; tf != nil && (tf.Name != "" || tf.ToolCallID != "") {
		if tf.Name == "" {
			st.problem = "toolFormerData " + tf.ToolCallID + " names no tool: the call is not imported"
		} else {
			callID := firstNonEmpty(tf.ToolCallID, "bubble:"+id)
			args := tf.Params
			if jsonArgs(args) == "{}" {
				args = tf.RawArgs
			}
			add(schema.Event{Kind: schema.KindToolCall, Role: "assistant", ToolName: tf.Name, CallID: callID, Args: jsonArgs(args)})
			if res := valueText(tf.Result); res != "" || tf.Status == "error" {
				add(schema.Event{Kind: schema.KindToolResult, Role: "tool", CallID: callID, Text: res, IsError: tf.Status == "error"})
			}
		}
	}
	if bb.ModelInfo != nil {
		st.model = bb.ModelInfo.ModelName
	}
	st.model = firstNonEmpty(st.model, bb.ModelName)
	if tc := bb.TokenCount; tc != nil && (tc.InputTokens != 0 || tc.OutputTokens != 0) {
		st.usage = &schema.Usage{TS: ts, Model: st.model, RequestID: bb.RequestID, InputTokens: tc.InputTokens, OutputTokens: tc.OutputTokens}
	}
	return st
}

// cdThinkingText is a bubble's reasoning: thinking.text, or the text or
// reasoning of the object a thinking string holds, or the string itself.
func cdThinkingText(raw json.RawMessage) string {
	var th struct {
		Text      string `json:"text"`
		Reasoning string `json:"reasoning"`
	}
	if cdUnmarshal(raw, &th) == nil {
		return firstNonEmpty(th.Text, th.Reasoning)
	}
	var s string
	if cdUnmarshal(raw, &s) != nil {
		return ""
	}
	if cdUnmarshal([]byte(s), &th) == nil {
		return firstNonEmpty(th.Text, th.Reasoning)
	}
	return s
}

// cdBubbleRow is a bubble to read: its key (where it is rejected), its
// id, and its value.
type cdBubbleRow struct {
	key, id string
	value   []byte
}

// cdRun is a composer to import.
type cdRun struct {
	id, where string // composer id; the key its composer value is read from
	comp      cdComposer
	inline    bool // its bubbles are comp.Conversation
}

func (c cursorIDE) importDB(f *File, db *sql.DB, s dbSchema) error {
	var runs []cdRun
	if s.has("ItemTable", "key", "value") {
		ws, err := c.workspace(f, db)
		if err != nil {
			return err
		}
		runs = append(runs, ws...)
	}
	seen := map[string]bool{}
	q := "SELECT key, value FROM cursorDiskKV WHERE key >= ? AND key < ? ORDER BY rowid"
	err := f.scanTable(db, "cursorDiskKV", q, []any{cdComposerPrefix, cdUpper(cdComposerPrefix)}, func(v []any) error {
		key := dbText(v[0])
		id := strings.TrimPrefix(key, cdComposerPrefix)
		seen[id] = true
		r := cdRun{id: id, where: "key " + key}
		if err := cdUnmarshal([]byte(dbText(v[1])), &r.comp); err != nil {
			// its bubbles are still read, in row order
			r.comp = cdComposer{}
			if err := c.reject(f, key, "not a composer (its bubbles are read in row order): "+clipErr(err), []byte(dbText(v[1]))); err != nil {
				return err
			}
		}
		r.inline = len(r.comp.Conversation) > 0
		runs = append(runs, r)
		return nil
	})
	if err != nil {
		return err
	}
	// composers known by their bubbles only
	var bad []string
	err = f.scanTable(db, "cursorDiskKV", "SELECT key FROM cursorDiskKV WHERE key >= ? AND key < ? ORDER BY rowid",
		[]any{cdBubblePrefix, cdUpper(cdBubblePrefix)}, func(v []any) error {
			key := dbText(v[0])
			cid, bid, ok := strings.Cut(strings.TrimPrefix(key, cdBubblePrefix), ":")
			if !ok || cid == "" || bid == "" {
				bad = append(bad, key)
				return nil
			}
			if !seen[cid] {
				seen[cid] = true
				runs = append(runs, cdRun{id: cid, where: "key " + key})
			}
			return nil
		})
	if err != nil {
		return err
	}
	for _, key := range bad {
		if err := c.reject(f, key, "a bubble key is bubbleId:<composerId>:<bubbleId>", nil); err != nil {
			return err
		}
	}
	for i := range runs {
		rows, err := c.bubbles(f, db, &runs[i])
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			continue // a draft
		}
		if err := c.run(f, &runs[i], rows); err != nil {
			return err
		}
	}
	return nil
}

// cdUpper is the least key greater than every key that starts with
// prefix (whose last byte is ':').
func cdUpper(prefix string) string { return prefix[:len(prefix)-1] + ";" }

// reject records a bad value at its key ("file: key K: reason").
func (cursorIDE) reject(f *File, key, reason string, raw []byte) error {
	prev := f.where
	f.where = "key " + key
	defer func() { f.where = prev }()
	return f.Reject(0, reason, raw)
}

// workspace reads the composers of ItemTable's composer.composerData that
// hold their bubbles inline.
func (c cursorIDE) workspace(f *File, db *sql.DB) ([]cdRun, error) {
	var out []cdRun
	q := "SELECT value FROM ItemTable WHERE key = ? ORDER BY rowid"
	err := f.scanTable(db, "ItemTable", q, []any{cdWorkspaceKey}, func(v []any) error {
		raw := []byte(dbText(v[0]))
		var list struct {
			AllComposers []json.RawMessage `json:"allComposers"`
		}
		if err := cdUnmarshal(raw, &list); err != nil {
			return c.reject(f, cdWorkspaceKey, "not a composer list: "+clipErr(err), raw)
		}
		for i, one := range list.AllComposers {
			r := cdRun{where: fmt.Sprintf("key %s allComposers[%d]", cdWorkspaceKey, i), inline: true}
			if err := cdUnmarshal(one, &r.comp); err != nil {
				if err := c.reject(f, fmt.Sprintf("%s allComposers[%d]", cdWorkspaceKey, i), "not a composer: "+clipErr(err), one); err != nil {
					return err
				}
				continue
			}
			if len(r.comp.Conversation) == 0 {
				continue // its chat is in the global store
			}
			r.id = r.comp.ComposerID
			out = append(out, r)
		}
		return nil
	})
	return out, err
}

// bubbles lists a composer's bubbles in conversation order (step 3).
func (cursorIDE) bubbles(f *File, db *sql.DB, r *cdRun) ([]cdBubbleRow, error) {
	var out []cdBubbleRow
	if r.inline {
		for i, raw := range r.comp.Conversation {
			var id struct {
				BubbleID string `json:"bubbleId"`
			}
			_ = cdUnmarshal(raw, &id) // a bad bubble is rejected when it is read
			key := fmt.Sprintf("%s conversation[%d]", strings.TrimPrefix(r.where, "key "), i)
			out = append(out, cdBubbleRow{key: key, id: id.BubbleID, value: raw})
		}
		return out, nil
	}
	prefix := cdBubblePrefix + r.id + ":"
	byID := map[string]int{}
	var stored []cdBubbleRow
	q := "SELECT key, value FROM cursorDiskKV WHERE key >= ? AND key < ? ORDER BY rowid"
	err := f.scanTable(db, "cursorDiskKV", q, []any{prefix, cdUpper(prefix)}, func(v []any) error {
		key := dbText(v[0])
		id := strings.TrimPrefix(key, prefix)
		if id == "" {
			return nil // rejected with the keys
		}
		byID[id] = len(stored)
		stored = append(stored, cdBubbleRow{key: key, id: id, value: []byte(dbText(v[1]))})
		return nil
	})
	if err != nil {
		return nil, err
	}
	used := make([]bool, len(stored))
	for _, h := range r.comp.Headers {
		if i, ok := byID[h.BubbleID]; ok && !used[i] {
			used[i] = true
			out = append(out, stored[i])
		}
	}
	for i, b := range stored {
		if !used[i] {
			out = append(out, b)
		}
	}
	return out, nil
}

// run imports one composer from its bubbles.
func (c cursorIDE) run(f *File, r *cdRun, rows []cdBubbleRow) error {
	b, err := f.NewRun(r.id)
	if err != nil {
		return err
	}
	b.Run.Harness = "cursor-ide"
	var last schema.EventKind
	timed := false
	for _, row := range rows {
		bb, err := decodeCursorBubble(row.value)
		if err != nil {
			if err := c.reject(f, row.key, err.Error(), row.value); err != nil {
				return err
			}
			continue
		}
		st := cursorBubbleStep(bb, row.id)
		if st.problem != "" {
			if err := c.reject(f, row.key, st.problem, row.value); err != nil {
				return err
			}
		}
		for _, e := range st.events {
			timed = timed || e.TS != nil
			last = e.Kind
			if err := b.Add(e); err != nil {
				return err
			}
		}
		b.NoteModel(st.model)
		if u := st.usage; u != nil {
			if b.Turns() > 0 {
				if prev := b.Usage(b.Turns() - 1); prev != nil {
					u.InputTokens += prev.InputTokens
					u.OutputTokens += prev.OutputTokens
					u.Model = firstNonEmpty(u.Model, prev.Model)
					u.TS, u.RequestID = prev.TS, firstNonEmpty(prev.RequestID, u.RequestID)
				}
			}
			b.SetUsage(*u)
		}
	}
	if len(b.models) == 0 && r.comp.ModelConfig != nil {
		b.Run.Model = r.comp.ModelConfig.ModelName
	}
	if !timed {
		b.Run.StartedAt, b.Run.EndedAt = ParseTime(r.comp.CreatedAt), ParseTime(r.comp.LastUpdatedAt)
	}
	inferEnd(b, last)
	return b.Finish()
}
