package ingest

import (
	"database/sql"
	"io"
	"path/filepath"
	"strings"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"
)

// opencodeDB reads OpenCode's SQLite store (opencode.db, OpenCode 1.4 on;
// ~/.local/share/opencode/) and Kilo CLI's, which is OpenCode's
// (kilo.db, ~/.local/share/kilo/): one run per session row, read from a
// snapshot (sqlite.go) and converted as the opencode-sse-events importer
// converts a storage/ session (opcConvert), the rows' data being the JSON
// of the storage files.
//
// Steps:
//  1. session rows in (time_created, id) order: id is the run id,
//     parent_id the parent run (a sub-agent's), harness opencode (kilo for
//     a file named kilo*.db).
//  2. The session's message rows in (time_created, id) order: data is the
//     message info (role, modelID, tokens, cost, time, finish, error),
//     its id and, when data has none, its time_created filled from the
//     row; then its part rows in the same order, each added to its
//     message (text, reasoning, tool with its state, step-start,
//     step-finish with the step's tokens, compaction …). A row whose data
//     is not a JSON object is rejected (table and rowid) and the rest
//     imports.
//  3. Usage per call from step-finish tokens, else the message's tokens
//     (input plus cache reads and writes), cost from the same; compaction
//     parts and summary messages as context_ops; the end from the last
//     finish or error (opcConvert). An event's line is its row's rowid.
type opencodeDB struct{ formatInfo }

func (opencodeDB) Detect(string, []byte) bool { return false }

func (o opencodeDB) Import(f *File, r io.Reader) error { return importStoreBytes(f, r, o) }

// claims a database with OpenCode's session, message and part tables.
func (opencodeDB) claims(s dbSchema) bool {
	return s.has("session", "id") && s.has("message", "id", "session_id", "data") && s.has("part", "id", "message_id", "data")
}

func (opencodeDB) importDB(f *File, db *sql.DB, s dbSchema) error {
	harness := ""
	if strings.HasPrefix(strings.ToLower(filepath.Base(f.Path())), "kilo") {
		harness = "kilo"
	}
	var sessions []*opcSession
	q := "SELECT id, " + s.col("session", "parent_id", "NULL") + " FROM session ORDER BY " + s.col("session", "time_created", "NULL") + ", id"
	err := f.scanTable(db, "session", q, nil, func(v []any) error {
		sessions = append(sessions, &opcSession{id: dbText(v[0]), parentID: dbText(v[1]), harness: harness, msgs: map[string]*opcMsg{}})
		return nil
	})
	if err != nil {
		return err
	}
	for _, ss := range sessions {
		if err := opencodeDBSession(f, db, s, ss); err != nil {
			return err
		}
	}
	return nil
}

// opencodeDBSession reads one session's messages and parts and converts it.
func opencodeDBSession(f *File, db *sql.DB, s dbSchema, ss *opcSession) error {
	mt := s.col("message", "time_created", "NULL")
	q := "SELECT rowid, id, " + mt + ", data FROM message WHERE session_id = ? ORDER BY " + mt + ", id"
	err := f.scanTable(db, "message", q, []any{ss.id}, func(v []any) error {
		rowid, raw := dbCount(v[0]), []byte(dbText(v[3]))
		var info opcInfo
		if err := json.Unmarshal(f.repairJSON(raw), &info); err != nil {
			return f.rejectRow("message", rowid, "data: "+clipErr(err), raw)
		}
		info.ID = firstNonEmpty(info.ID, dbText(v[1]))
		if info.Time.Created == nil {
			info.Time.Created = v[2]
		}
		m := ss.msg(info.ID)
		m.info, m.line = &info, rowid
		return nil
	})
	if err != nil {
		return err
	}
	pt := s.col("part", "time_created", "NULL")
	where := "session_id = ?"
	if !s.has("part", "session_id") {
		where = "message_id IN (SELECT id FROM message WHERE session_id = ?)"
	}
	q = "SELECT rowid, id, message_id, data FROM part WHERE " + where + " ORDER BY " + pt + ", id"
	err = f.scanTable(db, "part", q, []any{ss.id}, func(v []any) error {
		rowid, raw := dbCount(v[0]), []byte(dbText(v[3]))
		var p opcPart
		if err := json.Unmarshal(f.repairJSON(raw), &p); err != nil {
			return f.rejectRow("part", rowid, "data: "+clipErr(err), raw)
		}
		p.ID = firstNonEmpty(p.ID, dbText(v[1]))
		ss.msg(firstNonEmpty(dbText(v[2]), p.MessageID)).part(p, rowid)
		return nil
	})
	if err != nil {
		return err
	}
	return opcConvert(f, ss)
}
