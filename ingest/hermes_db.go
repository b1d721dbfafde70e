package ingest

import (
	"cmp"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// hermesDB reads Hermes Agent's session store, state.db (SQLite,
// ~/.hermes/state.db): one run per sessions row, read from a snapshot
// (sqlite.go).
//
// Steps:
//  1. A session whose transcript is beside the database
//     (sessions/session_<id>.json under the database's folder) is left to
//     it: the hermes-agent importer reads the transcript, which may hold
//     more messages than the database, and one session must not be two
//     runs. Its token totals in the database are then not read (the
//     transcript has none). (Hermes' sessions/<id>.jsonl form is not read
//     by trajmine: a session with one is read from the database.)
//  2. sessions: id is the run id, parent_session_id the parent run, model
//     the model, started_at / ended_at (Unix seconds) the run's times,
//     system_prompt a system event.
//  3. messages of the session in (timestamp, id) order, OpenAI-shaped as
//     in the transcripts: user → user; assistant → one model call with
//     reasoning (reasoning_content, else reasoning), text and tool_calls
//     (JSON text); tool → a result linked by tool_call_id; system →
//     system. A row with another role, or tool_calls that are not a JSON
//     list, is rejected (table and rowid) and the rest imports. An event's
//     line is its row's rowid.
//  4. Usage is per session only: input_tokens (taken to exclude cache
//     reads and writes, which are added: trajmine's input includes them),
//     output_tokens, cache_read_tokens, cache_write_tokens,
//     reasoning_tokens as the run's stated totals; actual_cost_usd, else
//     estimated_cost_usd, as its cost. api_call_count is the number of
//     model calls: calls it counts beyond the assistant messages the
//     database holds are added after the last event, without events (up
//     to maxMissingCalls; a count further beyond is rejected).
//  5. The end reason is inferred from the last event.
type hermesDB struct{ formatInfo }

func (hermesDB) Detect(string, []byte) bool { return false }

func (h hermesDB) Import(f *File, r io.Reader) error { return importStoreBytes(f, r, h) }

// claims a database with Hermes' sessions table (source, started_at) and
// messages table (content, tool_call_id).
func (hermesDB) claims(s dbSchema) bool {
	return s.has("sessions", "id", "source", "started_at") && s.has("messages", "session_id", "role", "content", "tool_call_id")
}

// maxMissingCalls bounds the model calls api_call_count may add beyond
// the assistant messages (a larger count is rejected, not believed).
const maxMissingCalls = 100_000

// hdSession is one sessions row.
type hdSession struct {
	rowid                     int64
	id, model, parent, system string
	started, ended            any
	usage                     schema.Usage
	calls                     int64
	cost                      float64
	hasCost                   bool
}

func (h hermesDB) importDB(f *File, db *sql.DB, s dbSchema) error {
	c := func(name string) string { return s.col("sessions", name, "NULL") }
	q := "SELECT rowid, id, " + c("model") + ", " + c("parent_session_id") + ", " + c("system_prompt") + ", started_at, " + c("ended_at") + ", " +
		c("input_tokens") + ", " + c("output_tokens") + ", " + c("cache_read_tokens") + ", " + c("cache_write_tokens") + ", " + c("reasoning_tokens") + ", " +
		c("actual_cost_usd") + ", " + c("estimated_cost_usd") + ", " + c("api_call_count") + " FROM sessions ORDER BY started_at, rowid"
	var sessions []hdSession
	err := f.scanTable(db, "sessions", q, nil, func(v []any) error {
		hs := hdSession{rowid: dbCount(v[0]), id: dbText(v[1]), model: dbText(v[2]), parent: dbText(v[3]), system: dbText(v[4]),
			started: v[5], ended: v[6], calls: dbCount(v[14])}
		cr, cw := dbCount(v[9]), dbCount(v[10])
		hs.usage = schema.Usage{InputTokens: dbCount(v[7]) + cr + cw, OutputTokens: dbCount(v[8]), CacheReadTokens: cr, CacheWriteTokens: cw, ReasoningTokens: dbCount(v[11])}
		if c, ok := dbFloat(v[12]); ok {
			hs.cost, hs.hasCost = c, true
		} else if c, ok := dbFloat(v[13]); ok {
			hs.cost, hs.hasCost = c, true
		}
		sessions = append(sessions, hs)
		return nil
	})
	if err != nil {
		return err
	}
	dir := filepath.Join(filepath.Dir(f.Path()), "sessions")
	for i := range sessions {
		if hermesTranscript(dir, sessions[i].id) {
			continue
		}
		if err := h.session(f, db, s, &sessions[i]); err != nil {
			return err
		}
	}
	return nil
}

// hermesTranscript reports whether a transcript of session id is in dir.
func hermesTranscript(dir, id string) bool {
	if id == "" || strings.ContainsAny(id, `/\`) {
		return false
	}
	st, err := os.Stat(filepath.Join(dir, "session_"+id+".json"))
	return err == nil && st.Mode().IsRegular()
}

func (hermesDB) session(f *File, db *sql.DB, s dbSchema, hs *hdSession) error {
	b, err := f.NewRun(hs.id)
	if err != nil {
		return err
	}
	b.Run.Harness, b.Run.Model, b.Run.ParentRunID = "hermes", hs.model, hs.parent
	b.Run.StartedAt, b.Run.EndedAt = dbTime(hs.started), dbTime(hs.ended)
	var last schema.EventKind
	if strings.TrimSpace(hs.system) != "" {
		if err := eventAdder(b, b.Run.StartedAt, 0, &last)(schema.Event{Kind: schema.KindSystem, Role: "system", Text: hs.system}); err != nil {
			return err
		}
	}
	c := func(name string) string { return s.col("messages", name, "NULL") }
	q := "SELECT rowid, role, content, tool_call_id, " + c("tool_calls") + ", " + c("tool_name") + ", " + c("timestamp") + ", " +
		c("reasoning") + ", " + c("reasoning_content") + " FROM messages WHERE session_id = ? ORDER BY " + c("timestamp") + ", rowid"
	var assistants int64
	err = f.scanTable(db, "messages", q, []any{hs.id}, func(v []any) error {
		rowid, role, text := dbCount(v[0]), dbText(v[1]), hermesContent(dbText(v[2]))
		add := eventAdder(b, dbTime(v[6]), rowid, &last)
		switch role {
		case "system":
			return add(schema.Event{Kind: schema.KindSystem, Role: "system", Text: text})
		case "user":
			return add(schema.Event{Kind: schema.KindUser, Role: "user", Text: text})
		case "assistant":
			var calls []struct {
				oaToolCall
				CallID string `json:"call_id"`
			}
			if raw := strings.TrimSpace(dbText(v[4])); raw != "" && raw != "null" {
				if err := json.Unmarshal([]byte(raw), &calls); err != nil {
					if err := f.rejectRow("messages", rowid, "tool_calls: "+clipErr(err), []byte(raw)); err != nil {
						return err
					}
					calls = nil
				}
			}
			oa := make([]oaToolCall, len(calls))
			for i, tc := range calls {
				oa[i] = tc.oaToolCall
				oa[i].ID = cmp.Or(tc.ID, tc.CallID)
			}
			assistants++
			return oaAssistant(b, cmp.Or(dbText(v[8]), dbText(v[7])), text, oa, add)
		case "tool":
			return add(schema.Event{Kind: schema.KindToolResult, Role: "tool", ToolName: dbText(v[5]), CallID: dbText(v[3]), Text: text})
		}
		return f.rejectRow("messages", rowid, fmt.Sprintf("unknown role %q", role), []byte(dbText(v[2])))
	})
	if err != nil {
		return err
	}
	missing := hs.calls - assistants
	if missing > maxMissingCalls {
		msg := fmt.Sprintf("api_call_count %d is more than %d beyond the session's %d assistant messages: not believed", hs.calls, maxMissingCalls, assistants)
		if err := f.rejectRow("sessions", hs.rowid, msg, nil); err != nil {
			return err
		}
		missing = 0
	}
	for range missing {
		b.NewCall() // calls the database counts but holds no messages of
	}
	b.SetLoggedTotals(hs.usage)
	if hs.hasCost {
		cost := hs.cost
		b.Run.CostUSD = &cost
	}
	inferEnd(b, last)
	return b.Finish()
}

// hermesContent is a message's content column: plain text, or, when it
// holds a JSON list of content parts, their text.
func hermesContent(s string) string {
	if t := strings.TrimSpace(s); strings.HasPrefix(t, "[{") {
		if text := ContentText(json.RawMessage(t)); text != "" {
			return text
		}
	}
	return s
}
