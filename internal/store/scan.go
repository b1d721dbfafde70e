package store

import (
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/trajmine/trajmine/actions"

	"github.com/trajmine/trajmine/schema"
)

// RunData is one run with everything recorded about it, as Scan hands it over.
type RunData struct {
	Run    schema.Run
	Events []schema.Event     // seq order
	Usage  []schema.Usage     // turn order
	Ops    []schema.ContextOp // seq, op, tool_key order
}

// ScanOptions selects what Scan reads. The zero value reads every run, with text.
type ScanOptions struct {
	// Shard and Shards split the runs, ordered by run_id, into Shards
	// interleaved parts and read part Shard (0-based): run k of the ordered
	// list belongs to shard k mod Shards. Shards 0 or 1 reads everything.
	Shard, Shards int
	// NoText leaves Event.Text empty (saves memory when only sizes matter).
	NoText bool
	// Formats keeps only runs of these source formats when non-empty.
	Formats []string
	// RunIDs, when non-nil, keeps only these runs (an empty, non-nil list
	// keeps none). The list is bound as one LIST parameter and joined in
	// SQL (run_id IN (SELECT unnest(?))), so its length does not grow the
	// query text: a temporary table would not do, as DuckDB's temporary
	// tables belong to one connection and Scan reads on several.
	RunIDs []string
}

// selects reports whether o selects fewer runs than all.
func (o ScanOptions) selects() bool {
	return o.Shards > 1 || len(o.Formats) > 0 || o.RunIDs != nil
}

// Scan streams every selected run with its events, usage and ops to fn, in
// storage order: the order the runs were imported, which is fixed for a
// database, so a scan is deterministic. Each of events, usage and
// context_ops is read in one pass in that order, without sorting (a sort
// would hold every event's text at once); a run is handed over as soon as
// all its rows have arrived (their counts are read first, cheaply), its
// events sorted by seq, usage by turn, ops by seq, op, tool_key. Runs are
// stored contiguously by the importer, so memory holds about one run at a
// time whatever the corpus size; rows that arrive out of order are held
// until their run is complete, so the result never depends on it. Runs
// without events come last, in run_id order. fn must not keep the
// *RunData itself (it is reused for the next run), but the slices it holds
// are the run's own: fn may keep them. A non-nil error from fn
// stops the scan and is returned.
func (s *Store) Scan(ctx context.Context, o ScanOptions, fn func(*RunData) error) error {
	if err := s.lakeScanReady(ctx); err != nil { // a lake's events: a table for rowid ranges (lake.go)
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if o.Shards > 1 && (o.Shard < 0 || o.Shard >= o.Shards) {
		return fmt.Errorf("scan: shard %d out of range 0..%d", o.Shard, o.Shards-1)
	}
	where, args := "", []any(nil)
	if o.selects() {
		var sel string
		sel, args = scanSelect(o)
		where = " WHERE run_id IN (" + sel + ")"
	}
	text := "text"
	if o.NoText {
		text = "''"
	}

	// the runs and how many rows of each table each has
	runs := map[string]*scanRunState{}
	var order []string
	rows, err := s.db.QueryContext(ctx, `SELECT `+runColumns+` FROM runs`+where+` ORDER BY run_id`, args...)
	if err != nil {
		return fmt.Errorf("scan runs: %w", err)
	}
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			rows.Close()
			return err
		}
		runs[r.RunID] = &scanRunState{run: r}
		order = append(order, r.RunID)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("scan runs: %w", err)
	}
	for ti, table := range []string{"events", "usage", "context_ops"} {
		rows, err := s.db.QueryContext(ctx, `SELECT run_id, count(*) FROM `+table+where+` GROUP BY run_id`, args...)
		if err != nil {
			return fmt.Errorf("scan %s: %w", table, err)
		}
		for rows.Next() {
			var id string
			var n int
			if err := rows.Scan(&id, &n); err != nil {
				rows.Close()
				return fmt.Errorf("scan %s: %w", table, err)
			}
			if st := runs[id]; st != nil {
				st.want[ti] = n
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("scan %s: %w", table, err)
		}
	}

	// events are read in rowid ranges of scanChunk rows: the driver
	// materialises a query's whole result before the first row, so one
	// query over all events would hold all their text at once. No ORDER
	// BY: DuckDB returns a plain scan in storage order (its setting
	// preserve_insertion_order, on by default), and sorting each range
	// cost 30 % of the read; rows out of order would still be grouped
	// correctly, only held longer.
	var maxRow sql.NullInt64
	if err := s.db.QueryRowContext(ctx, `SELECT max(rowid) FROM events`).Scan(&maxRow); err != nil {
		return fmt.Errorf("scan events: %w", err)
	}
	evWhere := " WHERE rowid >= ? AND rowid < ?"
	if where != "" {
		evWhere = where + " AND rowid >= ? AND rowid < ?"
	}
	evQuery := `SELECT run_id, seq, turn, ts, kind, role, tool_name, call_id, tool_key, target, args, chars, est_tokens, is_error, exit_code, line, ` + text + `, coalesce(envelope_tokens, 0), coalesce(action_class, ''), coalesce(error_rule, '')
FROM events` + evWhere
	usRows, err := s.db.QueryContext(ctx, `SELECT `+usageColumns+` FROM usage`+where, args...)
	if err != nil {
		return fmt.Errorf("scan usage: %w", err)
	}
	defer usRows.Close()
	opRows, err := s.db.QueryContext(ctx, `SELECT `+opColumns+` FROM context_ops`+where, args...)
	if err != nil {
		return fmt.Errorf("scan context_ops: %w", err)
	}
	defer opRows.Close()

	var d RunData
	emit := func(st *scanRunState) error {
		// pull usage and ops until this run has all of its rows
		for len(st.usage) < st.want[1] {
			if !usRows.Next() {
				return fmt.Errorf("scan usage: run %s: %d of %d rows (%v)", st.run.RunID, len(st.usage), st.want[1], usRows.Err())
			}
			u, err := scanUsage(usRows)
			if err != nil {
				return err
			}
			if r := runs[u.RunID]; r != nil {
				r.usage = append(r.usage, u)
			}
		}
		for len(st.ops) < st.want[2] {
			if !opRows.Next() {
				return fmt.Errorf("scan context_ops: run %s: %d of %d rows (%v)", st.run.RunID, len(st.ops), st.want[2], opRows.Err())
			}
			c, err := scanOp(opRows)
			if err != nil {
				return err
			}
			if r := runs[c.RunID]; r != nil {
				r.ops = append(r.ops, c)
			}
		}
		slices.SortStableFunc(st.events, func(a, b schema.Event) int { return cmp.Compare(a.Seq, b.Seq) })
		slices.SortStableFunc(st.usage, func(a, b schema.Usage) int { return cmp.Compare(a.Turn, b.Turn) })
		slices.SortStableFunc(st.ops, func(a, b schema.ContextOp) int {
			return cmp.Or(cmp.Compare(a.Seq, b.Seq), cmp.Compare(a.Op, b.Op), cmp.Compare(a.ToolKey, b.ToolKey))
		})
		if st.run.ClassifiedBy != actions.DefaultFingerprint() {
			// action_class is read back only from runs the current
			// default classifier classified (EventStreamOptions.Classes)
			for i := range st.events {
				st.events[i].ActionClass = ""
			}
		}
		d.Run, d.Events, d.Usage, d.Ops = st.run, st.events, st.usage, st.ops
		st.done = true
		st.events, st.usage, st.ops = nil, nil, nil
		return fn(&d)
	}
	// ranges are read by scanReaders goroutines (range w by reader
	// w mod scanReaders, each on its own connection) and taken in range
	// order here: DuckDB and the driver's row conversion then use two
	// threads, and the order (so the scan) stays the same
	// a selection of runs reads ranges subsetChunks × longer: the run
	// filter keeps the rows each query returns (and holds) few, and fewer
	// queries cost DuckDB less (BENCHMARKS.md, default mine)
	chunk := scanChunk
	if o.RunIDs != nil {
		chunk *= subsetChunks
	}
	var nRanges int64
	if maxRow.Valid {
		nRanges = maxRow.Int64/chunk + 1
	}
	// with RunIDs, only the ranges holding those runs' rows are read
	// (rowid ranges are pushed into DuckDB's scan: the others, their text
	// above all, are not decompressed)
	var only []int64
	if o.RunIDs != nil && nRanges > 0 {
		if only, err = s.scanRangesOf(ctx, chunk, where, args); err != nil {
			return err
		}
		nRanges = int64(len(only))
	}
	rgs := readRanges(ctx, nRanges, scanReaders, 1, func(ctx context.Context, w int64, _ []schema.Event) ([]schema.Event, error) {
		if only != nil {
			w = only[w]
		}
		lo := w * chunk
		return s.readEvents(ctx, evQuery, append(slices.Clip(args), lo, lo+chunk))
	})
	defer rgs.stop() // no reader outlives Scan
	for w := int64(0); w < nRanges; w++ {
		evs, err := rgs.next(w)
		if err != nil {
			return fmt.Errorf("scan events: %w", err)
		}
		for i := range evs {
			e := &evs[i]
			st := runs[e.RunID]
			if st == nil || st.done {
				continue
			}
			if st.events == nil {
				st.events = make([]schema.Event, 0, st.want[0]) // its count is known
			}
			st.events = append(st.events, *e)
			if len(st.events) == st.want[0] {
				if err := emit(st); err != nil {
					return err
				}
			}
		}
	}
	for _, id := range order {
		if st := runs[id]; !st.done {
			if err := emit(st); err != nil {
				return err
			}
		}
	}
	return nil
}

// scanRangesOf returns, ascending, the ranges of chunk rowids holding
// events of the runs where selects.
func (s *Store) scanRangesOf(ctx context.Context, chunk int64, where string, args []any) ([]int64, error) {
	rows, err := s.db.QueryContext(ctx, fmt.Sprintf(`SELECT DISTINCT rowid // %d FROM events%s ORDER BY 1`, chunk, where), args...)
	if err != nil {
		return nil, fmt.Errorf("scan ranges: %w", err)
	}
	defer rows.Close()
	only := []int64{}
	for rows.Next() {
		var w int64
		if err := rows.Scan(&w); err != nil {
			return nil, fmt.Errorf("scan ranges: %w", err)
		}
		only = append(only, w)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("scan ranges: %w", err)
	}
	return only, nil
}

// scanChunk is how many event rows (by rowid) one Scan query reads (a
// variable for tests), and scanReaders how many such queries run at once.
var scanChunk int64 = 16384

// subsetChunks: a Scan of RunIDs reads ranges of subsetChunks × scanChunk
// rowids. On the 23,000-run store (BENCHMARKS.md) reading the 2,542 runs
// that disable outputs took 7.8 s in ranges of 16,384, 4.7 s of 65,536 and
// 6.3 s of 262,144; the 1,270 others with context ops, without text, 4.3,
// 2.0 and 2.6 s.
const subsetChunks = 4

const scanReaders = 2

// readEvents runs one range's events query: through DuckDB's C API a
// chunk at a time for a database file (readEventChunks), else through the
// driver's rows.
func (s *Store) readEvents(ctx context.Context, q string, args []any) ([]schema.Event, error) {
	if _, err := s.rawDB(); err == nil && scanViaChunks {
		evs, err := s.readEventChunks(ctx, q, args)
		if err != nil {
			return nil, fmt.Errorf("scan events: %w", err)
		}
		return evs, nil
	}
	evs := make([]schema.Event, 0, scanChunk)
	err := s.driverRows(ctx, q, args, 20, func(v []driver.Value) error {
		e, err := eventOf(v)
		if err != nil {
			return err
		}
		evs = append(evs, e)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scan events: %w", err)
	}
	return evs, nil
}

// scanViaChunks: readEvents uses readEventChunks where it can (a
// variable for tests, which compare it with the driver's rows).
var scanViaChunks = true

// scanTypes are the column types of Scan's events query, in its order:
// run_id, seq, turn, ts, kind, role, tool_name, call_id, tool_key, target,
// args, chars, est_tokens, is_error, exit_code, line, text, envelope_tokens,
// action_class, error_rule.
var scanTypes = [...]colType{colVarchar, colBigInt, colBigInt, colTimestamp, colVarchar, colVarchar, colVarchar, colVarchar, colVarchar,
	colVarchar, colVarchar, colBigInt, colBigInt, colBoolean, colBigInt, colBigInt, colVarchar, colBigInt, colVarchar, colVarchar}

// readEventChunks reads Scan's events query a chunk at a time
// (streamChunks), the values straight from DuckDB's vectors, each string
// copied (the events outlive the chunk); a run id and a kind repeated from
// the row before share the earlier copy. It gives the events the driver's
// rows give (eventOf), without a driver.Value per value.
func (s *Store) readEventChunks(ctx context.Context, q string, args []any) ([]schema.Event, error) {
	evs := make([]schema.Event, 0, scanChunk)
	var runID string
	var kind schema.EventKind
	err := s.streamChunks(ctx, q, args, scanTypes[:], func(c *chunk) error {
		seqs, turns, tss := column[int64](c, 1), column[int64](c, 2), column[int64](c, 3)
		chars, toks, isErr := column[int64](c, 11), column[int64](c, 12), column[uint8](c, 13)
		exits, lines, envs := column[int64](c, 14), column[int64](c, 15), column[int64](c, 17)
		for i := range c.n {
			for _, col := range [...]int{0, 1, 2, 11, 12, 13, 15, 16} {
				if c.null(col, i) {
					return fmt.Errorf("scan event: column %d is NULL", col)
				}
			}
			if id := c.str(0, i); id != runID {
				runID = strings.Clone(id)
			}
			if k := c.str(4, i); k != string(kind) {
				kind = schema.EventKind(strings.Clone(k))
			}
			e := schema.Event{RunID: runID, Seq: seqs[i], Turn: turns[i], Kind: kind,
				Role: strings.Clone(c.str(5, i)), ToolName: strings.Clone(c.str(6, i)), CallID: strings.Clone(c.str(7, i)),
				ToolKey: strings.Clone(c.str(8, i)), Target: strings.Clone(c.str(9, i)), Args: strings.Clone(c.str(10, i)),
				Chars: chars[i], EstTokens: toks[i], IsError: isErr[i] != 0, Line: lines[i], Text: strings.Clone(c.str(16, i)),
				ActionClass: strings.Clone(c.str(18, i)), ErrorRule: strings.Clone(c.str(19, i))}
			if !c.null(3, i) {
				t := time.UnixMicro(tss[i]).UTC()
				e.TS = &t
			}
			if !c.null(14, i) {
				x := exits[i]
				e.ExitCode = &x
			}
			if !c.null(17, i) {
				e.EnvelopeTokens = envs[i]
			}
			evs = append(evs, e)
		}
		return nil
	})
	return evs, err
}

// driverRows runs q on its own connection and hands each row's values, as
// the driver gives them, to fn (skipping database/sql's reflective
// conversion of every value); fn must not keep the slice.
func (s *Store) driverRows(ctx context.Context, q string, args []any, cols int, fn func([]driver.Value) error) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	named := make([]driver.NamedValue, len(args))
	for i, a := range args {
		named[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	return conn.Raw(func(dc any) error {
		qc, ok := dc.(driver.QueryerContext)
		if !ok {
			return fmt.Errorf("driver connection %T cannot query", dc)
		}
		rows, err := qc.QueryContext(ctx, q, named)
		if err != nil {
			return err
		}
		defer rows.Close()
		if n := len(rows.Columns()); n != cols {
			return fmt.Errorf("query has %d columns, want %d", n, cols)
		}
		vals := make([]driver.Value, cols)
		for n := 1; ; n++ {
			if err := rows.Next(vals); err == io.EOF {
				return nil
			} else if err != nil {
				return err
			}
			if n&8191 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if err := fn(vals); err != nil {
				return err
			}
		}
	})
}

// eventOf is one events row (Scan's column order) from driver values.
func eventOf(v []driver.Value) (schema.Event, error) {
	var e schema.Event
	var ok [8]bool
	e.RunID, ok[0] = v[0].(string)
	e.Seq, ok[1] = v[1].(int64)
	e.Turn, ok[2] = v[2].(int64)
	if t, isT := v[3].(time.Time); isT {
		t = t.UTC()
		e.TS = &t
	}
	kind, _ := v[4].(string)
	e.Kind = schema.EventKind(kind)
	e.Role, _ = v[5].(string)
	e.ToolName, _ = v[6].(string)
	e.CallID, _ = v[7].(string)
	e.ToolKey, _ = v[8].(string)
	e.Target, _ = v[9].(string)
	e.Args, _ = v[10].(string)
	e.Chars, ok[3] = v[11].(int64)
	e.EstTokens, ok[4] = v[12].(int64)
	e.IsError, ok[5] = v[13].(bool)
	if x, isInt := v[14].(int64); isInt {
		e.ExitCode = &x
	}
	e.Line, ok[6] = v[15].(int64)
	e.Text, ok[7] = v[16].(string)
	e.EnvelopeTokens, _ = v[17].(int64)
	e.ActionClass, _ = v[18].(string)
	e.ErrorRule, _ = v[19].(string)
	for i, good := range ok {
		if !good {
			col := [...]int{0, 1, 2, 11, 12, 13, 15, 16}[i]
			return e, fmt.Errorf("scan event: column %d is %T", col, v[col])
		}
	}
	return e, nil
}

// scanRunState collects one run's rows during Scan.
type scanRunState struct {
	run    schema.Run
	want   [3]int // rows expected in events, usage, context_ops
	events []schema.Event
	usage  []schema.Usage
	ops    []schema.ContextOp
	done   bool
}

func shardSelect(sel string, shard, shards int) string {
	return fmt.Sprintf("SELECT run_id FROM (SELECT run_id, row_number() OVER (ORDER BY run_id) - 1 AS rn FROM (%s)) WHERE rn %% %d = %d", sel, shards, shard)
}

// scanSelect is the run_id subquery (and its arguments) selecting the runs
// Scan reads for o.
func scanSelect(o ScanOptions) (string, []any) {
	var where []string
	var args []any
	if len(o.Formats) > 0 {
		where = append(where, "source_format IN (?"+strings.Repeat(", ?", len(o.Formats)-1)+")")
		for _, f := range o.Formats {
			args = append(args, f)
		}
	}
	if o.RunIDs != nil {
		where = append(where, "run_id IN (SELECT unnest(?::VARCHAR[]))")
		args = append(args, slices.Clip(o.RunIDs))
	}
	sel := "SELECT run_id FROM runs"
	if len(where) > 0 {
		sel += " WHERE " + strings.Join(where, " AND ")
	}
	if o.Shards > 1 {
		sel = shardSelect(sel, o.Shard, o.Shards)
	}
	return sel, args
}

// ScanWhere is the SQL predicate "run_id IN (…)" with its arguments that
// selects the runs Scan reads for o ("" when o selects every run), for
// replacing those runs' old results.
func ScanWhere(o ScanOptions) (string, []any) {
	if !o.selects() {
		return "", nil
	}
	sel, args := scanSelect(o)
	return "run_id IN (" + sel + ")", args
}

// runColumns are the runs columns scanRunWith reads, in its order (the
// copied_* columns are NULL only in a database an earlier version wrote,
// until MarkCopies has run on it).
const runColumns = "run_id, parent_run_id, source_format, source_path, source_sha256, harness, model, model_family, task_id, resolved, window_tokens, started_at, ended_at, end_reason, end_reason_source, end_reason_detail, n_turns, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, usage_estimated, usage_calls, cost_usd, est_tokens, estimator, classified_by, system_mentions_manage_context, " +
	"continues_run_id, coalesce(copied_calls, 0), coalesce(copied_input_tokens, 0), coalesce(copied_output_tokens, 0), coalesce(copied_cache_read_tokens, 0), coalesce(copied_cache_write_tokens, 0), coalesce(copied_reasoning_tokens, 0)"

func scanRun(rows *sql.Rows) (schema.Run, error) { return scanRunWith(rows) }

// scanRunWith reads a row of runColumns, then the extra columns into extra.
func scanRunWith(rows *sql.Rows, extra ...any) (schema.Run, error) {
	var r schema.Run
	var parent sql.NullString
	var resolved sql.NullBool
	var window sql.NullInt64
	var start, end sql.NullTime
	var cost sql.NullFloat64
	var reason, source string
	var classifiedBy, continues sql.NullString
	var mentions sql.NullBool
	dest := append([]any{&r.RunID, &parent, &r.SourceFormat, &r.SourcePath, &r.SourceSHA256, &r.Harness, &r.Model, &r.ModelFamily, &r.TaskID,
		&resolved, &window, &start, &end, &reason, &source, &r.EndReasonDetail, &r.NTurns, &r.InputTokens, &r.OutputTokens,
		&r.CacheReadTokens, &r.CacheWriteTokens, &r.ReasoningTokens, &r.UsageEstimated, &r.UsageCalls, &cost, &r.EstTokens, &r.Estimator,
		&classifiedBy, &mentions, &continues, &r.CopiedCalls, &r.CopiedInputTokens, &r.CopiedOutputTokens,
		&r.CopiedCacheReadTokens, &r.CopiedCacheWriteTokens, &r.CopiedReasoningTokens}, extra...)
	if err := rows.Scan(dest...); err != nil {
		return r, fmt.Errorf("scan run: %w", err)
	}
	r.ParentRunID, r.ClassifiedBy, r.ContinuesRunID = parent.String, classifiedBy.String, continues.String
	if mentions.Valid {
		r.SystemMentionsManageContext = &mentions.Bool
	}
	r.EndReason, r.EndReasonSource = schema.EndReason(reason), schema.ReasonSource(source)
	if resolved.Valid {
		r.Resolved = &resolved.Bool
	}
	if window.Valid {
		r.WindowTokens = &window.Int64
	}
	r.StartedAt, r.EndedAt = utcTime(start), utcTime(end)
	if cost.Valid {
		r.CostUSD = &cost.Float64
	}
	return r, nil
}

// utcTime is a timestamp column's value in UTC, nil when it is NULL.
func utcTime(ts sql.NullTime) *time.Time {
	if !ts.Valid {
		return nil
	}
	t := ts.Time.UTC()
	return &t
}

// usageColumns are the usage columns scanUsage reads, in its order: the
// call's tokens as logged (a copy's are in the copied_* columns) and the
// run it copies.
const usageColumns = "run_id, turn, ts, model, request_id, " + loggedUsageTokens + ", estimated, copy_of_run_id"

// loggedUsageTokens are a usage row's logged input, output, cache-read,
// cache-write and reasoning tokens, a copy's too (schema.UsageTable: a
// copy's counted tokens are 0 and its logged ones in copied_*; NULL only
// in a database an earlier version wrote, before MarkCopies ran on it).
const loggedUsageTokens = "input_tokens + coalesce(copied_input_tokens, 0), output_tokens + coalesce(copied_output_tokens, 0), " +
	"cache_read_tokens + coalesce(copied_cache_read_tokens, 0), cache_write_tokens + coalesce(copied_cache_write_tokens, 0), " +
	"reasoning_tokens + coalesce(copied_reasoning_tokens, 0)"

// scanUsage reads a row of usageColumns.
func scanUsage(rows *sql.Rows) (schema.Usage, error) {
	var u schema.Usage
	var ts sql.NullTime
	var copyOf sql.NullString
	if err := rows.Scan(&u.RunID, &u.Turn, &ts, &u.Model, &u.RequestID, &u.InputTokens, &u.OutputTokens, &u.CacheReadTokens, &u.CacheWriteTokens, &u.ReasoningTokens, &u.Estimated, &copyOf); err != nil {
		return u, fmt.Errorf("scan usage: %w", err)
	}
	u.TS, u.CopyOf = utcTime(ts), copyOf.String
	return u, nil
}

// opColumns are the context_ops columns scanOp reads, in its order.
const opColumns = "run_id, seq, turn, op, tool_key, tokens_before, tokens_after, trigger, detail"

// scanOp reads a row of opColumns.
func scanOp(rows *sql.Rows) (schema.ContextOp, error) {
	var c schema.ContextOp
	var op string
	var key sql.NullString
	var before, after sql.NullInt64
	if err := rows.Scan(&c.RunID, &c.Seq, &c.Turn, &op, &key, &before, &after, &c.Trigger, &c.Detail); err != nil {
		return c, fmt.Errorf("scan context_op: %w", err)
	}
	c.Op, c.ToolKey = schema.OpKind(op), key.String
	if before.Valid {
		c.TokensBefore = &before.Int64
	}
	if after.Valid {
		c.TokensAfter = &after.Int64
	}
	return c, nil
}
