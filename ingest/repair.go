package ingest

import (
	"strings"
	"unicode/utf8"

	"github.com/trajmine/trajmine/schema"
)

// repairTx is the importer boundary's guard on text: every record an
// importer hands over has its free-text fields (schema.Texts) repaired to
// valid UTF-8 (each run of invalid bytes becomes U+FFFD) before it reaches
// the sink, so one bad byte in a tool name or a session id costs that byte,
// never the record or the file. Repaired fields are counted into the
// source's Repairs.
type repairTx struct {
	Tx
	n *int64
}

func (t repairTx) fix(rec any) { *t.n += int64(schema.RepairUTF8(rec)) }

func (t repairTx) ClaimRunID(id string) (string, error) {
	if !utf8.ValidString(id) {
		id = strings.ToValidUTF8(id, "\uFFFD")
		*t.n++
	}
	return t.Tx.ClaimRunID(id)
}
func (t repairTx) Run(r *schema.Run) error               { t.fix(r); return t.Tx.Run(r) }
func (t repairTx) Event(e *schema.Event) error           { t.fix(e); return t.Tx.Event(e) }
func (t repairTx) Usage(u *schema.Usage) error           { t.fix(u); return t.Tx.Usage(u) }
func (t repairTx) ToolOutput(o *schema.ToolOutput) error { t.fix(o); return t.Tx.ToolOutput(o) }
func (t repairTx) ContextOp(c *schema.ContextOp) error   { t.fix(c); return t.Tx.ContextOp(c) }
func (t repairTx) Reject(r *schema.Reject) error         { t.fix(r); return t.Tx.Reject(r) }
func (t repairTx) Commit(src *schema.Source) error {
	// the path is the file's own name: repaired for the table, counted apart
	schema.RepairUTF8(src)
	src.Repairs = *t.n
	return t.Tx.Commit(src)
}
