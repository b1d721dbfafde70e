package ingest

import (
	"bytes"
	"encoding/csv"
	"io"
	"path/filepath"
	"strings"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"
	"github.com/trajmine/trajmine/schema"
)

// formatOutcomeTable is the plain outcome table importer.
const formatOutcomeTable = "outcome-table"

// outcomeTable reads a plain table of outcomes, an outcome file
// (outcomes.go), for whatever has no format of its own: a CSV (.csv) or
// TSV (.tsv) with a header row, or JSONL (.jsonl, .ndjson) of flat
// objects. Its columns:
//
//   - the key: run_id (runs.run_id), else task_id or instance_id (the
//     task; a row takes the first of them it fills);
//   - resolved (or is_resolved): true/false, 1/0, yes/no, pass/fail,
//     passed/failed, resolved/unresolved, any case; empty is unknown;
//   - score (or reward), optional: a number.
//
// Other columns are ignored. A row with neither resolved nor score states
// no outcome and makes no row; one whose resolved or score cannot be read,
// or with no key, is rejected at its line. A walk finds CSV and TSV files
// only for trajmine outcomes (Options.Outcomes).
type outcomeTable struct {
	formatInfo
	outcomeInfo
}

// The columns of an outcome table, each with the names it may have, the
// first preferred.
var (
	tableKeyCols      = []struct{ name, kind string }{{"run_id", string(schema.KeyRunID)}, {"task_id", string(schema.KeyTaskID)}, {"instance_id", string(schema.KeyTaskID)}}
	tableResolvedCols = []string{"resolved", "is_resolved"}
	tableScoreCols    = []string{"score", "reward"}
)

// tableKind is how a file name says a table is written: ',' for CSV, '\t'
// for TSV, 'j' for JSONL, 0 for none.
func tableKind(name string) rune {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".csv":
		return ','
	case ".tsv":
		return '\t'
	case ".jsonl", ".ndjson":
		return 'j'
	}
	return 0
}

// isOutcomeHeader reports whether columns (lower case) hold a key and an
// outcome.
func isOutcomeHeader(has func(string) bool) bool {
	key, outcome := false, false
	for _, c := range tableKeyCols {
		key = key || has(c.name)
	}
	for _, c := range append(append([]string(nil), tableResolvedCols...), tableScoreCols...) {
		outcome = outcome || has(c)
	}
	return key && outcome
}

// Detect accepts a .csv or .tsv file whose header names a key column and a
// resolved or score column, and a .jsonl or .ndjson file whose first
// record is a flat object (no nested value) with such fields.
func (outcomeTable) Detect(name string, head []byte) bool {
	kind := tableKind(name)
	if kind == 0 {
		return false
	}
	lines := firstLines(trimBOM(head), 1)
	if len(lines) == 0 {
		return false
	}
	if kind != 'j' {
		cols := tableHeader(lines[0], kind)
		return cols != nil && isOutcomeHeader(func(c string) bool { _, ok := cols[c]; return ok })
	}
	line := lines[0]
	if line[0] != '{' || jsonSkipValue(line, 0) != len(line) {
		return false
	}
	keys := headKeys(line, 64)
	for _, k := range keys {
		if k.kind == '{' || k.kind == '[' {
			return false
		}
	}
	return isOutcomeHeader(func(c string) bool { _, ok := headKeyNamed(keys, c); return ok })
}

// tableHeader reads a header line into column indexes by lower-case name;
// nil when it is not one CSV record.
func tableHeader(line []byte, comma rune) map[string]int {
	rec, err := tableRecord(line, comma)
	if err != nil {
		return nil
	}
	cols := map[string]int{}
	for i, c := range rec {
		c = strings.ToLower(strings.TrimSpace(c))
		if _, dup := cols[c]; !dup {
			cols[c] = i
		}
	}
	return cols
}

// tableRecord splits one CSV or TSV line.
func tableRecord(line []byte, comma rune) ([]string, error) {
	cr := csv.NewReader(bytes.NewReader(line))
	cr.Comma, cr.LazyQuotes, cr.FieldsPerRecord = comma, true, -1
	return cr.Read()
}

func (outcomeTable) Import(f *File, r io.Reader) error {
	kind := tableKind(f.Path())
	if kind == 'j' {
		return lineReader[map[string]json.RawMessage]{}.read(f, r, func(line int64, raw []byte, pr *map[string]json.RawMessage) error {
			rec := *pr
			cell := func(names ...string) (string, []byte, bool) {
				for _, n := range names {
					if v, ok := rec[n]; ok && !isJSONNull(v) {
						return n, v, true
					}
				}
				return "", nil, false
			}
			return tableRow(f, line, raw, func(c string) string { _, v, _ := cell(c); return scalarString(v) },
				func() (string, *bool, bool) {
					n, v, _ := cell(tableResolvedCols...)
					res, ok := parseResolvedJSON(v)
					return n, res, ok
				},
				func() (*float64, bool) { _, v, _ := cell(tableScoreCols...); return parseScoreJSON(v) })
		})
	}
	if kind == 0 {
		kind = ','
	}
	var cols map[string]int
	return tableLines(f, r, func(line int64, raw []byte) error {
		if cols == nil {
			if cols = tableHeader(raw, kind); cols == nil || !isOutcomeHeader(func(c string) bool { _, ok := cols[c]; return ok }) {
				cols = nil
				return f.Reject(line, "no header naming run_id, task_id or instance_id and resolved or score", raw)
			}
			return nil
		}
		rec, err := tableRecord(raw, kind)
		if err != nil {
			return f.Reject(line, "not a CSV record: "+clipErr(err), raw)
		}
		cell := func(names ...string) (string, string) {
			for _, n := range names {
				if i, ok := cols[n]; ok && i < len(rec) && strings.TrimSpace(rec[i]) != "" {
					return n, strings.TrimSpace(rec[i])
				}
			}
			return "", ""
		}
		return tableRow(f, line, raw, func(c string) string { _, v := cell(c); return v },
			func() (string, *bool, bool) {
				n, v := cell(tableResolvedCols...)
				res, ok := parseResolvedText(v)
				return n, res, ok
			},
			func() (*float64, bool) { _, v := cell(tableScoreCols...); return parseScoreText(v) })
	})
}

// tableRow makes the row of one table record, given how to read its key
// columns (key: a column's value by name), its resolved (which column, the
// value, whether it could be read) and its score.
func tableRow(f *File, line int64, raw []byte, key func(string) string, resolved func() (string, *bool, bool), score func() (*float64, bool)) error {
	row := outcomeRow{line: line}
	for _, c := range tableKeyCols {
		if v := key(c.name); v != "" {
			row.kind, row.key = schema.OutcomeKey(c.kind), v
			break
		}
	}
	col, res, ok := resolved()
	if !ok {
		return f.Reject(line, col+": not an outcome (true/false, 1/0, yes/no, pass/fail, resolved/unresolved)", raw)
	}
	sc, ok := score()
	if !ok {
		return f.Reject(line, "score: not a number", raw)
	}
	if res == nil && sc == nil {
		return nil // no outcome stated
	}
	if row.key == "" {
		return f.Reject(line, "no run_id, task_id or instance_id", raw)
	}
	row.resolved, row.score, row.detail = res, sc, firstNonEmpty(col, "score")
	return row.emit(f)
}

// tableLines calls fn with each non-blank line of a CSV or TSV table
// (1-based line numbers), without its line ending; unlike File.Lines it
// keeps the tabs and spaces at the ends of a line, which are empty cells.
// A leading BOM is dropped.
func tableLines(f *File, r io.Reader, fn func(line int64, raw []byte) error) error {
	whole, err := readDocument(f, r)
	if err != nil {
		return err
	}
	data := whole.data
	data = trimBOM(data)
	var n int64
	for l := range bytes.Lines(data) {
		n++
		l = bytes.TrimRight(l, "\r\n")
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		if n&1023 == 0 && f.Ctx != nil {
			if err := f.Ctx.Err(); err != nil {
				return err
			}
		}
		if err := fn(n, l); err != nil {
			return err
		}
	}
	return nil
}
