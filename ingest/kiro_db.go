package ingest

import (
	"bytes"
	"database/sql"
	"io"
)

// kiroDB reads Kiro CLI's store, data.sqlite3 (SQLite;
// ~/.local/share/kiro-cli/ on Linux, ~/Library/Application Support/kiro-cli/
// on macOS): one run per conversations_v2 row, read from a snapshot
// (sqlite.go).
//
// Steps:
//  1. conversations_v2 rows in (created_at, rowid) order (key is the
//     conversation's working directory, conversation_id its id).
//  2. value is the conversation's JSON, the payload the
//     kiro-cli-sqlite-payload importer reads from a saved file: it is read
//     the same way (kiroCLI.Import), so its run id is the value's
//     conversation_id, and an event's line is its line within the value.
//     A problem in a value is rejected at "table conversations_v2 row N"
//     and the other rows import.
type kiroDB struct{ formatInfo }

func (kiroDB) Detect(string, []byte) bool { return false }

func (k kiroDB) Import(f *File, r io.Reader) error { return importStoreBytes(f, r, k) }

// claims a database with Kiro CLI's conversations_v2 table.
func (kiroDB) claims(s dbSchema) bool {
	return s.has("conversations_v2", "key", "conversation_id", "value")
}

func (kiroDB) importDB(f *File, db *sql.DB, s dbSchema) error {
	prev := f.where
	defer func() { f.where = prev }()
	q := "SELECT rowid, value FROM conversations_v2 ORDER BY " + s.col("conversations_v2", "created_at", "NULL") + ", rowid"
	return f.scanTable(db, "conversations_v2", q, nil, func(v []any) error {
		f.where = rowWhere("conversations_v2", dbCount(v[0]))
		defer func() { f.where = prev }()
		return kiroCLI{}.Import(f, bytes.NewReader(f.repairJSON([]byte(dbText(v[1])))))
	})
}
