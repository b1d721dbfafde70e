package ingest

import (
	"database/sql"
	"fmt"
	"io"
	"strconv"
	"strings"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// gooseDB reads Goose's session store, sessions.db (SQLite;
// ~/.local/share/goose/sessions/ on Linux and macOS; schema version 15 in
// the fixture): one run per sessions row, read from a snapshot (sqlite.go).
//
// Steps:
//  1. sessions: id is the run id, parent_session_id the parent run (a
//     sub_agent session's), model_config_json's model_name the model,
//     created_at / updated_at the run's times when its messages have none.
//  2. messages of the session in row order (Goose's conversation order;
//     after a compaction it rewrites it as: the compacted messages, hidden
//     from the agent, the summary and a continuation, both agent-only, then
//     the turns it kept). content_json is an array of blocks: text → user
//     or assistant text; thinking → reasoning; toolRequest /
//     frontendToolRequest {id, toolCall{status, value{name, arguments}}} →
//     a tool call (a failed one, with no name, an error event);
//     toolResponse {id, toolResult{status, value{content[]} | error}} → its
//     result (status error: failed); image → "[image]". Blocks shown to the
//     user only (actionRequired, systemNotification,
//     toolConfirmationRequest) and redactedThinking (no text) are not
//     events; a block of another type is rejected at its first row, once
//     per type and file. A row whose content_json is not an array, or whose
//     role is neither user nor assistant, is rejected and the rest imports.
//  3. Compaction: the first agent-only message (metadata_json userVisible
//     false, agentVisible true) after messages hidden from the agent
//     (agentVisible false) is the summary: a compaction event and a summary
//     op. Hidden messages are events too: the agent saw them before the
//     compaction hid them.
//  4. Model calls come from the messages (each run of assistant output).
//     usage_ledger rows (one per provider request; is_compaction marks the
//     summarizer's) in (created_timestamp, id) order are set on the calls
//     in order, the k-th row on the k-th call; rows beyond the calls the
//     messages show are calls of their own. A row's input_tokens is taken
//     to exclude cache reads and writes (they are added: trajmine's input
//     includes them), unless its total_tokens is input + output, which
//     shows them included. cost sums the rows' costs. A session without
//     ledger rows (older schemas) states its accumulated_* totals and
//     accumulated_cost instead.
//  5. The end reason is inferred from the last event.
type gooseDB struct{ formatInfo }

func (gooseDB) Detect(string, []byte) bool { return false }

func (g gooseDB) Import(f *File, r io.Reader) error { return importStoreBytes(f, r, g) }

// claims a database with Goose's sessions table and messages table with
// content_json.
func (gooseDB) claims(s dbSchema) bool {
	return s.has("sessions", "id") && s.has("messages", "session_id", "role", "content_json")
}

// gsSession is one sessions row.
type gsSession struct {
	rowid                       int64
	id, parent, model           string
	created, updated            any
	accIn, accOut, accCR, accCW int64
	accCost                     float64
	hasAccCost, hasAccTotals    bool
}

// gsUsage is one usage_ledger row.
type gsUsage struct {
	u       schema.Usage
	cost    float64
	hasCost bool
}

func (g gooseDB) importDB(f *File, db *sql.DB, s dbSchema) error {
	c := func(name, fallback string) string { return s.col("sessions", name, fallback) }
	q := "SELECT rowid, id, " + c("parent_session_id", "NULL") + ", " + c("model_config_json", "NULL") + ", " +
		c("created_at", "NULL") + ", " + c("updated_at", "NULL") + ", " +
		c("accumulated_input_tokens", "NULL") + ", " + c("accumulated_output_tokens", "NULL") + ", " +
		c("accumulated_cache_read_tokens", "NULL") + ", " + c("accumulated_cache_write_tokens", "NULL") + ", " +
		c("accumulated_cost", "NULL") + " FROM sessions ORDER BY rowid"
	var sessions []gsSession
	err := f.scanTable(db, "sessions", q, nil, func(v []any) error {
		ss := gsSession{rowid: dbCount(v[0]), id: dbText(v[1]), parent: dbText(v[2]), created: v[4], updated: v[5],
			accIn: dbCount(v[6]), accOut: dbCount(v[7]), accCR: dbCount(v[8]), accCW: dbCount(v[9])}
		ss.hasAccTotals = v[6] != nil || v[7] != nil
		ss.accCost, ss.hasAccCost = dbFloat(v[10])
		if cfg := dbText(v[3]); cfg != "" {
			var mc struct {
				ModelName  string `json:"model_name"`
				ModelName2 string `json:"modelName"`
				Model      string `json:"model"`
			}
			if err := json.Unmarshal([]byte(cfg), &mc); err != nil {
				if err := f.rejectRow("sessions", ss.rowid, "model_config_json: "+clipErr(err), []byte(cfg)); err != nil {
					return err
				}
			}
			ss.model = firstNonEmpty(mc.ModelName, mc.ModelName2, mc.Model)
		}
		sessions = append(sessions, ss)
		return nil
	})
	if err != nil {
		return err
	}
	unknown := map[string]bool{} // block types rejected once
	for i := range sessions {
		if err := g.session(f, db, s, &sessions[i], unknown); err != nil {
			return err
		}
	}
	return nil
}

// gsBlock is one block of a message's content_json.
type gsBlock struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Thinking string `json:"thinking"`
	ID       string `json:"id"`
	ToolCall *struct {
		Status string          `json:"status"`
		Value  json.RawMessage `json:"value"`
		Error  json.RawMessage `json:"error"`
	} `json:"toolCall"`
	ToolResult *struct {
		Status string          `json:"status"`
		Value  json.RawMessage `json:"value"`
		Error  json.RawMessage `json:"error"`
	} `json:"toolResult"`
}

// gsUserOnly are the block types shown to the user and not sent to the
// model, and the one whose text is not logged.
var gsUserOnly = map[string]bool{"actionRequired": true, "systemNotification": true, "toolConfirmationRequest": true, "redactedThinking": true}

func (g gooseDB) session(f *File, db *sql.DB, s dbSchema, ss *gsSession, unknown map[string]bool) error {
	ledger, err := g.ledger(f, db, s, ss)
	if err != nil {
		return err
	}
	b, err := f.NewRun(ss.id)
	if err != nil {
		return err
	}
	b.Run.Harness, b.Run.Model, b.Run.ParentRunID = "goose", ss.model, ss.parent
	var last schema.EventKind
	var timed, hidden bool
	c := func(name string) string { return s.col("messages", name, "NULL") }
	q := "SELECT rowid, role, content_json, " + c("created_timestamp") + ", " + c("metadata_json") +
		" FROM messages WHERE session_id = ? ORDER BY rowid"
	err = f.scanTable(db, "messages", q, []any{ss.id}, func(v []any) error {
		rowid, role, raw := dbCount(v[0]), dbText(v[1]), []byte(dbText(v[2]))
		ts := dbTime(v[3])
		timed = timed || ts != nil
		var blocks []json.RawMessage
		if err := json.Unmarshal(raw, &blocks); err != nil {
			return f.rejectRow("messages", rowid, "content_json is not an array of blocks: "+clipErr(err), raw)
		}
		kind := schema.KindUser
		switch role {
		case "user":
		case "assistant":
			kind = schema.KindAssistant
		default:
			return f.rejectRow("messages", rowid, fmt.Sprintf("unknown role %q", role), raw)
		}
		var meta struct {
			UserVisible  *bool `json:"userVisible"`
			AgentVisible *bool `json:"agentVisible"`
		}
		if m := dbText(v[4]); m != "" {
			_ = json.Unmarshal([]byte(m), &meta) // metadata only marks compactions: unreadable, it marks none
		}
		agentOnly := meta.UserVisible != nil && !*meta.UserVisible && (meta.AgentVisible == nil || *meta.AgentVisible)
		summary := agentOnly && hidden
		if meta.AgentVisible != nil && !*meta.AgentVisible {
			hidden = true
		} else if summary {
			hidden = false
		}
		add := eventAdder(b, ts, rowid, &last)
		for _, rb := range blocks {
			var blk gsBlock
			if err := json.Unmarshal(rb, &blk); err != nil {
				if err := f.rejectRow("messages", rowid, "content block: "+clipErr(err), rb); err != nil {
					return err
				}
				continue
			}
			var err error
			switch blk.Type {
			case "text":
				if summary {
					if err = add(schema.Event{Kind: schema.KindCompaction, Role: role, Text: blk.Text}); err == nil {
						err = b.Op(schema.ContextOp{Op: schema.OpSummary, Trigger: "compaction", Detail: "agent-only summary after messages hidden from the agent"})
					}
					summary = false
					break
				}
				err = add(schema.Event{Kind: kind, Role: role, Text: blk.Text})
			case "thinking":
				err = add(schema.Event{Kind: schema.KindReasoning, Role: role, Text: blk.Thinking})
			case "image":
				err = add(schema.Event{Kind: kind, Role: role, Text: "[image]"})
			case "toolRequest", "frontendToolRequest":
				err = gsToolCall(add, role, &blk)
			case "toolResponse":
				err = gsToolResult(add, &blk)
			default:
				if gsUserOnly[blk.Type] || unknown[blk.Type] {
					continue
				}
				unknown[blk.Type] = true
				err = f.rejectRow("messages", rowid, fmt.Sprintf("content block type %q unknown: not imported (further blocks of this type in this file are skipped without a reject)", blk.Type), rb)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	var cost float64
	hasCost := false
	for k, lu := range ledger {
		b.SetUsageAt(int64(k), lu.u)
		if lu.hasCost {
			cost, hasCost = cost+lu.cost, true
		}
	}
	if len(ledger) == 0 && ss.hasAccTotals {
		b.SetLoggedTotals(schema.Usage{InputTokens: ss.accIn + ss.accCR + ss.accCW, OutputTokens: ss.accOut,
			CacheReadTokens: ss.accCR, CacheWriteTokens: ss.accCW})
	}
	if len(ledger) == 0 && ss.hasAccCost {
		cost, hasCost = ss.accCost, true
	}
	if hasCost {
		b.Run.CostUSD = &cost
	}
	if !timed {
		b.Run.StartedAt, b.Run.EndedAt = dbTime(ss.created), dbTime(ss.updated)
	}
	inferEnd(b, last)
	return b.Finish()
}

// gsToolCall adds a toolRequest block: a call, or, when the model's
// request could not be parsed (no name), an error event with its text.
func gsToolCall(add func(schema.Event) error, role string, blk *gsBlock) error {
	var v struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	tc := blk.ToolCall
	if tc != nil {
		_ = json.Unmarshal(tc.Value, &v) // a failed request's value is not a call
	}
	if v.Name == "" {
		text := "invalid tool request"
		if tc != nil {
			text = firstNonEmpty(opcRawText(tc.Error), opcRawText(tc.Value), text)
		}
		return add(schema.Event{Kind: schema.KindError, Role: role, CallID: blk.ID, IsError: true, Text: text})
	}
	return add(schema.Event{Kind: schema.KindToolCall, Role: role, ToolName: v.Name, CallID: blk.ID, Args: jsonArgs(v.Arguments)})
}

// gsToolResult adds a toolResponse block's result: the text of its
// content (value.content, or value itself as a list), or its error.
func gsToolResult(add func(schema.Event) error, blk *gsBlock) error {
	e := schema.Event{Kind: schema.KindToolResult, Role: "tool", CallID: blk.ID}
	if tr := blk.ToolResult; tr != nil {
		switch tr.Status {
		case "error":
			e.Text, e.IsError = opcRawText(tr.Error), true
		default:
			var v struct {
				Content json.RawMessage `json:"content"`
			}
			if raw := strings.TrimSpace(string(tr.Value)); strings.HasPrefix(raw, "[") {
				v.Content = tr.Value
			} else {
				_ = json.Unmarshal(tr.Value, &v) // not an object: no content
			}
			e.Text = ContentText(v.Content)
		}
	}
	return add(e)
}

// ledger reads the session's usage_ledger rows (none when the table is
// absent), in (created_timestamp, id) order.
func (gooseDB) ledger(f *File, db *sql.DB, s dbSchema, ss *gsSession) ([]gsUsage, error) {
	if !s.has("usage_ledger", "session_id") {
		return nil, nil
	}
	c := func(name string) string { return s.col("usage_ledger", name, "NULL") }
	q := "SELECT rowid, " + c("created_timestamp") + ", " + c("model") + ", " + c("input_tokens") + ", " + c("output_tokens") + ", " +
		c("total_tokens") + ", " + c("cache_read_tokens") + ", " + c("cache_write_tokens") + ", " + c("cost") +
		" FROM usage_ledger WHERE session_id = ? ORDER BY " + c("created_timestamp") + ", rowid"
	var out []gsUsage
	err := f.scanTable(db, "usage_ledger", q, []any{ss.id}, func(v []any) error {
		in, outTok, cr, cw := dbCount(v[3]), dbCount(v[4]), dbCount(v[6]), dbCount(v[7])
		total, hasTotal := dbInt(v[5])
		if !hasTotal || total != in+outTok {
			in += cr + cw // input_tokens without the cache: trajmine's input includes it
		}
		lu := gsUsage{u: schema.Usage{TS: dbTime(v[1]), Model: firstNonEmpty(dbText(v[2]), ss.model), RequestID: "usage_ledger/" + strconv.FormatInt(dbCount(v[0]), 10),
			InputTokens: in, OutputTokens: outTok, CacheReadTokens: cr, CacheWriteTokens: cw}}
		if c, ok := dbFloat(v[8]); ok && c >= 0 {
			lu.cost, lu.hasCost = c, true
		}
		out = append(out, lu)
		return nil
	})
	return out, err
}
