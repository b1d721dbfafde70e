package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

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
}

// Scan streams every selected run, in run_id order, to fn: one ordered pass
// over each of runs, events, usage and context_ops (four cursors merged by
// run_id), so memory holds one run at a time whatever the corpus size, and
// the cost is four queries instead of three per run. fn must not keep the
// *RunData: its slices are reused for the next run. A non-nil error from fn
// stops the scan and is returned.
func (s *Store) Scan(ctx context.Context, o ScanOptions, fn func(*RunData) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if o.Shards > 1 && (o.Shard < 0 || o.Shard >= o.Shards) {
		return fmt.Errorf("scan: shard %d out of range 0..%d", o.Shard, o.Shards-1)
	}
	sel, args := scanSelect(o)
	filter := func(q string) string {
		return strings.Replace(q, "%SEL%", sel, 1)
	}
	text := "text"
	if o.NoText {
		text = "''"
	}

	runRows, err := s.db.QueryContext(ctx, filter(`SELECT `+runColumns+` FROM runs WHERE run_id IN (%SEL%) ORDER BY run_id`), args...)
	if err != nil {
		return fmt.Errorf("scan runs: %w", err)
	}
	defer runRows.Close()
	evRows, err := s.db.QueryContext(ctx, filter(`SELECT run_id, seq, turn, ts, kind, role, tool_name, call_id, tool_key, target, args, chars, est_tokens, is_error, exit_code, line, `+text+`
FROM events WHERE run_id IN (%SEL%) ORDER BY run_id, seq`), args...)
	if err != nil {
		return fmt.Errorf("scan events: %w", err)
	}
	defer evRows.Close()
	usRows, err := s.db.QueryContext(ctx, filter(`SELECT run_id, turn, ts, model, request_id, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, estimated
FROM usage WHERE run_id IN (%SEL%) ORDER BY run_id, turn`), args...)
	if err != nil {
		return fmt.Errorf("scan usage: %w", err)
	}
	defer usRows.Close()
	opRows, err := s.db.QueryContext(ctx, filter(`SELECT run_id, seq, turn, op, tool_key, tokens_before, tokens_after, trigger, detail
FROM context_ops WHERE run_id IN (%SEL%) ORDER BY run_id, seq, op, tool_key`), args...)
	if err != nil {
		return fmt.Errorf("scan context_ops: %w", err)
	}
	defer opRows.Close()

	ev := newCursor(evRows, scanEvent)
	us := newCursor(usRows, scanUsage)
	op := newCursor(opRows, scanOp)
	var d RunData
	for runRows.Next() {
		r, err := scanRun(runRows)
		if err != nil {
			return err
		}
		d.Run = r
		if d.Events, err = ev.take(r.RunID, d.Events[:0]); err != nil {
			return err
		}
		if d.Usage, err = us.take(r.RunID, d.Usage[:0]); err != nil {
			return err
		}
		if d.Ops, err = op.take(r.RunID, d.Ops[:0]); err != nil {
			return err
		}
		if err := fn(&d); err != nil {
			return err
		}
	}
	return runRows.Err()
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
	if o.Shards <= 1 && len(o.Formats) == 0 {
		return "", nil
	}
	sel, args := scanSelect(o)
	return "run_id IN (" + sel + ")", args
}

// cursor walks rows ordered by run_id, one record of look-ahead.
type cursor[T any] struct {
	rows    *sql.Rows
	scan    func(*sql.Rows) (string, T, error)
	peekID  string
	peek    T
	has     bool
	started bool
}

func newCursor[T any](rows *sql.Rows, scan func(*sql.Rows) (string, T, error)) *cursor[T] {
	return &cursor[T]{rows: rows, scan: scan}
}

func (c *cursor[T]) advance() error {
	c.started = true
	if !c.rows.Next() {
		c.has = false
		return c.rows.Err()
	}
	id, v, err := c.scan(c.rows)
	if err != nil {
		return err
	}
	c.peekID, c.peek, c.has = id, v, true
	return nil
}

// take appends the records of runID to dst. Records of run ids that sort
// before runID (none, since every cursor filters by the same runs) are skipped.
func (c *cursor[T]) take(runID string, dst []T) ([]T, error) {
	if !c.started {
		if err := c.advance(); err != nil {
			return dst, err
		}
	}
	for c.has && c.peekID < runID {
		if err := c.advance(); err != nil {
			return dst, err
		}
	}
	for c.has && c.peekID == runID {
		dst = append(dst, c.peek)
		if err := c.advance(); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

const runColumns = "run_id, parent_run_id, source_format, source_path, source_sha256, harness, model, model_family, task_id, resolved, window_tokens, started_at, ended_at, end_reason, end_reason_source, end_reason_detail, n_turns, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, usage_estimated, usage_calls, cost_usd, est_tokens, estimator"

func scanRun(rows *sql.Rows) (schema.Run, error) {
	var r schema.Run
	var parent sql.NullString
	var resolved sql.NullBool
	var window sql.NullInt64
	var start, end sql.NullTime
	var cost sql.NullFloat64
	var reason, source string
	if err := rows.Scan(&r.RunID, &parent, &r.SourceFormat, &r.SourcePath, &r.SourceSHA256, &r.Harness, &r.Model, &r.ModelFamily, &r.TaskID,
		&resolved, &window, &start, &end, &reason, &source, &r.EndReasonDetail, &r.NTurns, &r.InputTokens, &r.OutputTokens,
		&r.CacheReadTokens, &r.CacheWriteTokens, &r.ReasoningTokens, &r.UsageEstimated, &r.UsageCalls, &cost, &r.EstTokens, &r.Estimator); err != nil {
		return r, fmt.Errorf("scan run: %w", err)
	}
	r.ParentRunID = parent.String
	r.EndReason, r.EndReasonSource = schema.EndReason(reason), schema.ReasonSource(source)
	if resolved.Valid {
		r.Resolved = &resolved.Bool
	}
	if window.Valid {
		r.WindowTokens = &window.Int64
	}
	if start.Valid {
		t := start.Time.UTC()
		r.StartedAt = &t
	}
	if end.Valid {
		t := end.Time.UTC()
		r.EndedAt = &t
	}
	if cost.Valid {
		r.CostUSD = &cost.Float64
	}
	return r, nil
}

func scanEvent(rows *sql.Rows) (string, schema.Event, error) {
	var e schema.Event
	var ts sql.NullTime
	var exit sql.NullInt64
	var kind string
	if err := rows.Scan(&e.RunID, &e.Seq, &e.Turn, &ts, &kind, &e.Role, &e.ToolName, &e.CallID, &e.ToolKey, &e.Target, &e.Args, &e.Chars, &e.EstTokens, &e.IsError, &exit, &e.Line, &e.Text); err != nil {
		return "", e, fmt.Errorf("scan event: %w", err)
	}
	e.Kind = schema.EventKind(kind)
	if ts.Valid {
		t := ts.Time.UTC()
		e.TS = &t
	}
	if exit.Valid {
		e.ExitCode = &exit.Int64
	}
	return e.RunID, e, nil
}

func scanUsage(rows *sql.Rows) (string, schema.Usage, error) {
	var u schema.Usage
	var ts sql.NullTime
	if err := rows.Scan(&u.RunID, &u.Turn, &ts, &u.Model, &u.RequestID, &u.InputTokens, &u.OutputTokens, &u.CacheReadTokens, &u.CacheWriteTokens, &u.ReasoningTokens, &u.Estimated); err != nil {
		return "", u, fmt.Errorf("scan usage: %w", err)
	}
	if ts.Valid {
		t := ts.Time.UTC()
		u.TS = &t
	}
	return u.RunID, u, nil
}

func scanOp(rows *sql.Rows) (string, schema.ContextOp, error) {
	var c schema.ContextOp
	var op string
	var key sql.NullString
	var before, after sql.NullInt64
	if err := rows.Scan(&c.RunID, &c.Seq, &c.Turn, &op, &key, &before, &after, &c.Trigger, &c.Detail); err != nil {
		return "", c, fmt.Errorf("scan context_op: %w", err)
	}
	c.Op, c.ToolKey = schema.OpKind(op), key.String
	if before.Valid {
		c.TokensBefore = &before.Int64
	}
	if after.Valid {
		c.TokensAfter = &after.Int64
	}
	return c.RunID, c, nil
}
