package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/trajmine/trajmine/schema"
)

// RunShape is what a behaviour profile reads of a run that has no context
// ops and calls no manage_context (behavior.Brief), and what says whether
// the run has either; trajmine mine reads every run's through RunShapes
// and the events of only the runs that have one.
type RunShape struct {
	Run schema.Run
	// Events is the run's event rows; Order the largest rowid among them
	// (−1 without events): Scan hands runs over in Order, the runs
	// without events last, by run_id, and RunShapes returns them so.
	Events int
	Order  int64
	// LastTurn is the largest turn of its events and LastOutputTurn of
	// its assistant, reasoning and tool_call events (−1 without).
	LastTurn, LastOutputTurn int64
	// ManageCall: a tool_call named manage_context or *__manage_context.
	ManageCall bool
	// EnvelopeKey: a tool_result with a call_id whose tool_key is neither
	// that call_id nor call_id#… (a DTOC key).
	EnvelopeKey bool
	// Mentions: the text of one of its system events contains the needle
	// RunShapes was given.
	Mentions bool
	// Ops is the run's context_ops rows, Disables those with op disable.
	Ops, Disables int
}

// shapeRanges is how many rowid ranges one query of RunShapes' system
// text reads.
const shapeRanges = 64

// RunShapes returns every run's RunShape, in Scan's order, reading no
// event text when the needle is manage_context and every run has its
// system_mentions_manage_context flag (set at import); else Mentions come
// from the text around system events: their rowids are read first, then
// the text of the rowid ranges holding them (ranges are pushed into
// DuckDB's scan, so the rest of the text column is not decompressed; the
// 23,000-run store of BENCHMARKS.md still decompresses most of it: its
// system events are one row in 250).
//
//	SELECT runColumns FROM runs ORDER BY run_id
//	SELECT run_id, count(*), max(rowid), max(turn), max(turn) FILTER (kind IN ('assistant', 'reasoning', 'tool_call')),
//	       bool_or(kind = 'tool_call' AND (tool_name = 'manage_context' OR ends_with(tool_name, '__manage_context'))),
//	       bool_or(kind = 'tool_result' AND call_id <> '' AND tool_key <> call_id AND NOT starts_with(tool_key, call_id || '#'))
//	  FROM events GROUP BY run_id
//	SELECT run_id, count(*), count(*) FILTER (WHERE op = 'disable') FROM context_ops GROUP BY run_id
//	-- only when some run lacks the flag, or for another needle:
//	SELECT rowid FROM events WHERE kind = 'system' ORDER BY rowid
//	SELECT DISTINCT run_id FROM events WHERE (rowid BETWEEN a AND b OR …) AND contains(CASE WHEN kind = 'system' THEN text ELSE '' END, needle)
//
// With ids, only those runs' shapes are read (every query above limited to
// run_id IN ids), which an import of a few runs into a big store asks for.
func (s *Store) RunShapes(ctx context.Context, needle string, ids ...string) ([]RunShape, error) {
	if err := s.lakeScanReady(ctx); err != nil { // a lake's events: a table, for rowids (lake.go)
		return nil, err
	}
	only, args := "", []any(nil)
	if len(ids) > 0 {
		only, args = ` WHERE run_id IN (SELECT unnest(?::VARCHAR[]))`, []any{ids}
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+runColumns+` FROM runs`+only+` ORDER BY run_id`, args...)
	if err != nil {
		return nil, fmt.Errorf("run shapes: %w", err)
	}
	var out []RunShape
	idx := map[string]int{}
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		idx[r.RunID] = len(out)
		out = append(out, RunShape{Run: r, Order: -1, LastTurn: -1, LastOutputTurn: -1})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("run shapes: %w", err)
	}

	q := `SELECT run_id, count(*), max(rowid), max(turn),
  coalesce(max(turn) FILTER (WHERE kind IN ('` + string(schema.KindAssistant) + `', '` + string(schema.KindReasoning) + `', '` + string(schema.KindToolCall) + `')), -1),
  coalesce(bool_or(kind = 'tool_call' AND (tool_name = 'manage_context' OR ends_with(tool_name, '__manage_context'))), false),
  coalesce(bool_or(kind = 'tool_result' AND call_id <> '' AND tool_key <> call_id AND NOT starts_with(tool_key, call_id || '#')), false)
FROM events` + only + ` GROUP BY run_id`
	if err := s.eachRow(ctx, q, args, func(rows rowScanner) error {
		var id string
		var sh RunShape
		if err := rows.Scan(&id, &sh.Events, &sh.Order, &sh.LastTurn, &sh.LastOutputTurn, &sh.ManageCall, &sh.EnvelopeKey); err != nil {
			return err
		}
		if i, ok := idx[id]; ok {
			o := &out[i]
			o.Events, o.Order, o.LastTurn, o.LastOutputTurn, o.ManageCall, o.EnvelopeKey = sh.Events, sh.Order, sh.LastTurn, sh.LastOutputTurn, sh.ManageCall, sh.EnvelopeKey
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("run shapes events: %w", err)
	}
	if err := s.eachRow(ctx, `SELECT run_id, count(*), count(*) FILTER (WHERE op = 'disable') FROM context_ops`+only+` GROUP BY run_id`, args, func(rows rowScanner) error {
		var id string
		var n, d int
		if err := rows.Scan(&id, &n, &d); err != nil {
			return err
		}
		if i, ok := idx[id]; ok {
			out[i].Ops, out[i].Disables = n, d
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("run shapes context_ops: %w", err)
	}

	// whether a system event names the needle: stored at import for
	// manage_context (runs.system_mentions_manage_context); read from the
	// system events' text only when some run lacks the flag
	missing := needle != "manage_context"
	for i := range out {
		if m := out[i].Run.SystemMentionsManageContext; m != nil && !missing {
			out[i].Mentions = *m
		} else {
			missing = true
		}
	}
	if missing {
		if err := s.shapeMentions(ctx, needle, idx, out); err != nil {
			return nil, err
		}
	}

	// Scan's order: by the run's last row, runs without rows last by run_id
	// (out is in run_id order: the sort is stable)
	slices.SortStableFunc(out, func(a, b RunShape) int {
		if (a.Order < 0) != (b.Order < 0) {
			if a.Order < 0 {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.Order, b.Order)
	})
	return out, nil
}

// shapeMentions sets the Mentions of the runs (out, idx their index by
// run_id) from the text of their system events, by rowid ranges: their
// rowids are read first, then the text of the ranges holding them.
func (s *Store) shapeMentions(ctx context.Context, needle string, idx map[string]int, out []RunShape) error {
	for i := range out {
		out[i].Mentions = false
	}
	var sys []int64
	if err := s.eachRow(ctx, `SELECT rowid FROM events WHERE kind = 'system' ORDER BY rowid`, nil, func(rows rowScanner) error {
		var r int64
		if err := rows.Scan(&r); err != nil {
			return err
		}
		sys = append(sys, r)
		return nil
	}); err != nil {
		return fmt.Errorf("run shapes system events: %w", err)
	}
	rgs := rowidRanges(sys, shapeGap)
	for len(rgs) > 0 {
		n := min(len(rgs), shapeRanges)
		spans := rowidSpans(rgs[:n])
		rgs = rgs[n:]
		// no filter on kind in the scan: DuckDB would then fetch the text
		// of the system rows one by one, decompressing its zstd vector for
		// each (measured 3× the cost of reading the ranges' text whole)
		q := `SELECT DISTINCT run_id FROM events WHERE ` + spans + ` AND contains(CASE WHEN kind = 'system' THEN text ELSE '' END, ?)`
		ids, err := s.strs(ctx, q, []any{needle})
		if err != nil {
			return fmt.Errorf("run shapes system text: %w", err)
		}
		for _, id := range ids {
			if i, ok := idx[id]; ok {
				out[i].Mentions = true
			}
		}
	}
	return nil
}

// shapeGap: RunShapes reads the text of the rows between two system
// events fewer than this many rowids apart rather than start another range
// (DuckDB decompresses a text vector of 2,048 rows whole anyway).
const shapeGap = 2048

// rowidRanges merges ascending rowids into inclusive [lo, hi] ranges, a
// rowid less than gap after the range's end extending it.
func rowidRanges(ids []int64, gap int64) [][2]int64 {
	var out [][2]int64
	for _, r := range ids {
		if n := len(out); n > 0 && r-out[n-1][1] <= gap {
			out[n-1][1] = r
			continue
		}
		out = append(out, [2]int64{r, r})
	}
	return out
}

// rowScanner is what eachRow's fn reads a row with.
type rowScanner interface{ Scan(dest ...any) error }

// eachRow runs q and calls fn for each row.
func (s *Store) eachRow(ctx context.Context, q string, args []any, fn func(rowScanner) error) error {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// RunsNotClassified counts the runs whose tool calls' action_class was not
// set by the classifier with this fingerprint (actions.DefaultFingerprint):
// their calls must be classified from their arguments again.
func (s *Store) RunsNotClassified(ctx context.Context, fingerprint string) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM runs WHERE classified_by IS DISTINCT FROM ?`, fingerprint).Scan(&n); err != nil {
		return 0, fmt.Errorf("runs not classified: %w", err)
	}
	return n, nil
}

// strs runs q, whose rows are one string each, and returns them in order.
func (s *Store) strs(ctx context.Context, q string, args []any) ([]string, error) {
	var out []string
	err := s.eachRow(ctx, q, args, func(rows rowScanner) error {
		var v string
		if err := rows.Scan(&v); err != nil {
			return err
		}
		out = append(out, v)
		return nil
	})
	return out, err
}

// rowidSpans is the SQL condition "(rowid BETWEEN a AND b OR …)" of
// inclusive rowid ranges.
func rowidSpans(spans [][2]int64) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, r := range spans {
		if i > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString("rowid BETWEEN " + strconv.FormatInt(r[0], 10) + " AND " + strconv.FormatInt(r[1], 10))
	}
	b.WriteByte(')')
	return b.String()
}

// ContextRun is what ContextRuns tells of a run with context ops or a
// manage_context call: the same Ops, Disables and ManageCall as its RunShape.
type ContextRun struct {
	Ops, Disables int
	ManageCall    bool
}

// ContextRuns returns, by run id, the runs that have context ops or call
// manage_context (or *__manage_context), reading context_ops and the tool
// names of tool calls only: what trajmine mine needs to start reading
// those runs while RunShapes reads every run's shape.
//
//	SELECT run_id, count(*), count(*) FILTER (WHERE op = 'disable') FROM context_ops GROUP BY run_id
//	SELECT DISTINCT run_id FROM events WHERE kind = 'tool_call' AND (tool_name = 'manage_context' OR ends_with(tool_name, '__manage_context'))
func (s *Store) ContextRuns(ctx context.Context) (map[string]ContextRun, error) {
	if err := s.lakeScanReady(ctx); err != nil { // a lake's events become a table: read that, not the view being replaced
		return nil, err
	}
	out := map[string]ContextRun{}
	if err := s.eachRow(ctx, `SELECT run_id, count(*), count(*) FILTER (WHERE op = 'disable') FROM context_ops GROUP BY run_id`, nil, func(rows rowScanner) error {
		var id string
		var c ContextRun
		if err := rows.Scan(&id, &c.Ops, &c.Disables); err != nil {
			return err
		}
		out[id] = c
		return nil
	}); err != nil {
		return nil, fmt.Errorf("context runs: %w", err)
	}
	ids, err := s.strs(ctx, `SELECT DISTINCT run_id FROM events WHERE kind = 'tool_call' AND (tool_name = 'manage_context' OR ends_with(tool_name, '__manage_context'))`, nil)
	if err != nil {
		return nil, fmt.Errorf("context runs: %w", err)
	}
	for _, id := range ids {
		c := out[id]
		c.ManageCall = true
		out[id] = c
	}
	return out, nil
}
