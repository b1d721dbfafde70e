package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/trajmine/trajmine/schema"
)

// EventLogOptions select what EventLog reads. The zero value reads every
// run, without targets and arguments.
type EventLogOptions struct {
	// Targets reads events.target (activity names by tool and target kind).
	Targets bool
	// Args reads events.args (a classifier needs them). They are the most
	// expensive column to read: leave them out when not needed.
	Args bool
	// ModelFamilies, Harnesses and Formats keep only runs whose
	// model_family, harness and source_format are among these (empty: all).
	ModelFamilies, Harnesses, Formats []string
	// Reader picks the row reader: "" for the fastest compiled in
	// (EventLogReaders()[0]), "arrow" or "sql".
	Reader string
}

// EventLogReaders lists the row readers compiled in, fastest first: "arrow"
// (DuckDB's Arrow interface, built with -tags duckdb_arrow) and "sql"
// (database/sql row scanning, always).
func EventLogReaders() []string {
	if arrowReader != nil {
		return []string{"arrow", "sql"}
	}
	return []string{"sql"}
}

// logRows is the events query's result, column by column.
type logRows struct {
	run                                 []int32 // index into the runs
	seq, ts, tokens                     []int64 // ts: µs since the epoch, 0 = NULL
	kind                                []schema.EventKind
	tool, callID, toolKey, target, args []string
}

func (r *logRows) grow(n int) {
	r.run = slices.Grow(r.run, n)
	r.seq = slices.Grow(r.seq, n)
	r.ts = slices.Grow(r.ts, n)
	r.tokens = slices.Grow(r.tokens, n)
	r.kind = slices.Grow(r.kind, n)
	r.tool = slices.Grow(r.tool, n)
	r.callID = slices.Grow(r.callID, n)
	r.toolKey = slices.Grow(r.toolKey, n)
	r.target = slices.Grow(r.target, n)
	r.args = slices.Grow(r.args, n)
}

// runIndex maps run ids to their index, remembering the last hit (the rows
// of one run are usually contiguous).
type runIndex struct {
	ids  map[string]int32
	last string
	idx  int32
}

func (x *runIndex) lookup(id string) int32 {
	if id == x.last && x.idx >= 0 {
		return x.idx
	}
	i, ok := x.ids[id]
	if !ok {
		i = -1
	}
	x.last, x.idx = strings.Clone(id), i
	return i
}

// kindOf maps the kinds EventLog reads to their constants without
// allocating.
func kindOf(s string) schema.EventKind {
	switch s {
	case "tool_call":
		return schema.KindToolCall
	case "tool_result":
		return schema.KindToolResult
	case "compaction":
		return schema.KindCompaction
	case "context_op":
		return schema.KindContextOp
	}
	return schema.EventKind(strings.Clone(s))
}

// rowReader runs the events query and appends its rows to out. The strings
// it appends may refer to memory that release frees.
type rowReader func(ctx context.Context, s *Store, q string, args []any, idx *runIndex, out *logRows) (release func(), err error)

var sqlReader rowReader = readSQL

// EventLog streams what process mining needs of every selected run, in
// run_id order, to fn: the run (run_id, harness, model, model_family,
// source_format, resolved, started_at), its events of kinds tool_call,
// tool_result, compaction and context_op (seq order; seq, ts, kind,
// tool_name, call_id, est_tokens, and tool_key for results when the
// selection has disable/enable ops, target and args when asked), and its
// context_ops rows (seq, op, tool_key, tokens_before, tokens_after). fn must
// not keep the slices or the events' strings: they are reused or freed
// after it returns.
//
// The queries (filters, when set, add run_id IN (SELECT run_id FROM runs
// WHERE model_family IN (…) AND …)):
//
//	SELECT run_id, harness, model, model_family, source_format, resolved, started_at FROM runs ORDER BY run_id
//	SELECT run_id, seq, op, tool_key, tokens_before, tokens_after FROM context_ops ORDER BY run_id, seq, op, tool_key
//	SELECT run_id, seq, epoch_us(ts), kind, tool_name, call_id, tool_key|'', target|'', args|'', est_tokens
//	  FROM events WHERE starts_with(kind, 'tool_') OR starts_with(kind, 'co')
//
// The events query has no ORDER BY: sorting a million rows by run_id and
// seq costs DuckDB more than everything else together (≈ 1.2 s of 2 cores
// on the benchmark's 2 M rows), and kind IN (…) filters several times slower
// than the prefix tests. Rows are grouped by run in memory (a stable
// counting sort by run index) and sorted by seq within a run only when out
// of order. So EventLog holds the selected rows at once: about 100 bytes a
// row plus the strings.
func (s *Store) EventLog(ctx context.Context, o EventLogOptions, fn func(run *schema.Run, events []schema.Event, ops []schema.ContextOp) error) error {
	read := sqlReader
	switch o.Reader {
	case "":
		if arrowReader != nil {
			read = arrowReader
		}
	case "sql":
	case "arrow":
		if arrowReader == nil {
			return fmt.Errorf("event log: the arrow reader needs a build with -tags duckdb_arrow")
		}
		read = arrowReader
	default:
		return fmt.Errorf("event log: unknown reader %q (want arrow or sql)", o.Reader)
	}
	where, args := eventLogWhere(o)

	// 1. runs
	runs, err := s.logRuns(ctx, where, args)
	if err != nil {
		return err
	}
	idx := &runIndex{ids: make(map[string]int32, len(runs)), idx: -1}
	for i := range runs {
		idx.ids[runs[i].RunID] = int32(i)
	}
	// 2. context ops, grouped by run
	ops, hasKeyOps, err := s.logOps(ctx, where, args, idx)
	if err != nil {
		return err
	}
	// 3. events
	col := func(name string, on bool) string {
		if on {
			return name
		}
		return "''"
	}
	q := `SELECT run_id, seq, epoch_us(ts), kind, tool_name, call_id, ` + col("tool_key", hasKeyOps) + `, ` + col("target", o.Targets) + `, ` + col("args", o.Args) + `, est_tokens
FROM events WHERE (starts_with(kind, 'tool_') OR starts_with(kind, 'co'))` + andWhere(where)
	var rows logRows
	release, err := read(ctx, s, q, args, idx, &rows)
	if release != nil {
		defer release()
	}
	if err != nil {
		return fmt.Errorf("event log: %w", err)
	}

	// 4. group by run (stable), hand over in run_id order
	starts := make([]int, len(runs)+1)
	for _, r := range rows.run {
		starts[r+1]++
	}
	for i := 1; i < len(starts); i++ {
		starts[i] += starts[i-1]
	}
	order := make([]int32, len(rows.run))
	next := slices.Clone(starts[:len(runs)])
	for i, r := range rows.run {
		order[next[r]] = int32(i)
		next[r]++
	}
	tsBuf := make([]time.Time, 0, 256)
	var evs []schema.Event
	for ri := range runs {
		if ri&255 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		part := order[starts[ri]:starts[ri+1]]
		if !slices.IsSortedFunc(part, func(a, b int32) int { return cmpInt64(rows.seq[a], rows.seq[b]) }) {
			slices.SortStableFunc(part, func(a, b int32) int { return cmpInt64(rows.seq[a], rows.seq[b]) })
		}
		evs = evs[:0]
		tsBuf = tsBuf[:0]
		if cap(tsBuf) < len(part) {
			tsBuf = make([]time.Time, 0, len(part))
		}
		for _, i := range part {
			e := schema.Event{RunID: runs[ri].RunID, Seq: rows.seq[i], Kind: rows.kind[i], ToolName: rows.tool[i], CallID: rows.callID[i],
				ToolKey: rows.toolKey[i], Target: rows.target[i], Args: rows.args[i], EstTokens: rows.tokens[i]}
			if us := rows.ts[i]; us != 0 {
				tsBuf = append(tsBuf, time.UnixMicro(us).UTC())
				e.TS = &tsBuf[len(tsBuf)-1]
			}
			evs = append(evs, e)
		}
		if err := fn(&runs[ri], evs, ops[ri]); err != nil {
			return err
		}
	}
	return nil
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// eventLogWhere is the run filter of o: "run_id IN (SELECT run_id FROM runs
// WHERE …)" with its arguments, or "".
func eventLogWhere(o EventLogOptions) (string, []any) {
	var conds []string
	var args []any
	for _, f := range []struct {
		col  string
		vals []string
	}{{schema.ColModelFamily, o.ModelFamilies}, {"harness", o.Harnesses}, {schema.ColSourceFormat, o.Formats}} {
		if len(f.vals) == 0 {
			continue
		}
		conds = append(conds, f.col+" IN (?"+strings.Repeat(", ?", len(f.vals)-1)+")")
		for _, v := range f.vals {
			args = append(args, v)
		}
	}
	if len(conds) == 0 {
		return "", nil
	}
	return "run_id IN (SELECT run_id FROM runs WHERE " + strings.Join(conds, " AND ") + ")", args
}

func andWhere(where string) string {
	if where == "" {
		return ""
	}
	return " AND " + where
}

func (s *Store) logRuns(ctx context.Context, where string, args []any) ([]schema.Run, error) {
	q := "SELECT run_id, harness, model, model_family, source_format, resolved, started_at FROM runs"
	if where != "" {
		q += " WHERE " + where
	}
	rows, err := s.db.QueryContext(ctx, q+" ORDER BY run_id", args...)
	if err != nil {
		return nil, fmt.Errorf("event log runs: %w", err)
	}
	defer rows.Close()
	var out []schema.Run
	for rows.Next() {
		var r schema.Run
		var resolved sql.NullBool
		var start sql.NullTime
		if err := rows.Scan(&r.RunID, &r.Harness, &r.Model, &r.ModelFamily, &r.SourceFormat, &resolved, &start); err != nil {
			return nil, fmt.Errorf("event log runs: %w", err)
		}
		if resolved.Valid {
			v := resolved.Bool
			r.Resolved = &v
		}
		if start.Valid {
			t := start.Time.UTC()
			r.StartedAt = &t
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("event log runs: %w", err)
	}
	return out, nil
}

// logOps reads the selected runs' context ops, grouped by run index, and
// reports whether any is a disable or enable (whose tokens need the tool
// outputs' keys).
func (s *Store) logOps(ctx context.Context, where string, args []any, idx *runIndex) ([][]schema.ContextOp, bool, error) {
	q := "SELECT run_id, seq, op, tool_key, tokens_before, tokens_after FROM context_ops"
	if where != "" {
		q += " WHERE " + where
	}
	rows, err := s.db.QueryContext(ctx, q+" ORDER BY run_id, seq, op, tool_key", args...)
	if err != nil {
		return nil, false, fmt.Errorf("event log context_ops: %w", err)
	}
	defer rows.Close()
	out := make([][]schema.ContextOp, len(idx.ids))
	keys := false
	for rows.Next() {
		var o schema.ContextOp
		var op string
		var key sql.NullString
		var before, after sql.NullInt64
		if err := rows.Scan(&o.RunID, &o.Seq, &op, &key, &before, &after); err != nil {
			return nil, false, fmt.Errorf("event log context_ops: %w", err)
		}
		o.Op, o.ToolKey = schema.OpKind(op), key.String
		keys = keys || o.Op == schema.OpDisable || o.Op == schema.OpEnable
		if before.Valid {
			o.TokensBefore = &before.Int64
		}
		if after.Valid {
			o.TokensAfter = &after.Int64
		}
		if i := idx.lookup(o.RunID); i >= 0 {
			out[i] = append(out[i], o)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("event log context_ops: %w", err)
	}
	return out, keys, nil
}

// readSQL reads the events query through database/sql.
func readSQL(ctx context.Context, s *Store, q string, args []any, idx *runIndex, out *logRows) (func(), error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	tools := map[string]string{}
	var runID, kind, tool, callID, key, target, argv string
	var seq, tok int64
	var ts sql.NullInt64
	n := 0
	for rows.Next() {
		if err := rows.Scan(&runID, &seq, &ts, &kind, &tool, &callID, &key, &target, &argv, &tok); err != nil {
			return nil, err
		}
		n++
		if n&8191 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		ri := idx.lookup(runID)
		if ri < 0 {
			continue // a run added since the runs query
		}
		if t, ok := tools[tool]; ok {
			tool = t
		} else {
			tools[tool] = tool
		}
		out.run = append(out.run, ri)
		out.seq = append(out.seq, seq)
		out.ts = append(out.ts, ts.Int64)
		out.tokens = append(out.tokens, tok)
		out.kind = append(out.kind, kindOf(kind))
		out.tool = append(out.tool, tool)
		out.callID = append(out.callID, callID)
		out.toolKey = append(out.toolKey, key)
		out.target = append(out.target, target)
		out.args = append(out.args, argv)
	}
	return nil, rows.Err()
}
