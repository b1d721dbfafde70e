package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/trajmine/trajmine/actions"

	"github.com/trajmine/trajmine/schema"
)

// DB exposes the handle for read-only ad-hoc queries (trajmine sql).
func (s *Store) DB() *sql.DB { return s.db }

// Counts returns the row count of every table, in schema order.
func (s *Store) Counts(ctx context.Context) (map[string]int64, error) {
	out := map[string]int64{}
	for _, t := range schema.Tables {
		var n int64
		if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM "+t.Name).Scan(&n); err != nil {
			return nil, fmt.Errorf("count %s: %w", t.Name, err)
		}
		out[t.Name] = n
	}
	return out, nil
}

// RunFilter selects runs.
type RunFilter struct {
	RunID  string // exact id, or prefix when Prefix
	Prefix bool
	Format string
	Limit  int
}

// Runs lists runs ordered by started_at, run_id.
//
//	SELECT <runs columns> FROM runs [WHERE …] ORDER BY started_at NULLS LAST, run_id [LIMIT n]
func (s *Store) Runs(ctx context.Context, f RunFilter) ([]schema.Run, error) {
	q := "SELECT " + runColumns + " FROM runs WHERE 1=1"
	var args []any
	if f.RunID != "" {
		if f.Prefix {
			q += " AND starts_with(run_id, ?)"
		} else {
			q += " AND run_id = ?"
		}
		args = append(args, f.RunID)
	}
	if f.Format != "" {
		q += " AND source_format = ?"
		args = append(args, f.Format)
	}
	q += " ORDER BY started_at NULLS LAST, run_id"
	if f.Limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", f.Limit)
	}
	return queryRows(ctx, s.db, "runs", q, args, scanRun)
}

// Events returns a run's events in seq order.
func (s *Store) Events(ctx context.Context, runID string) ([]schema.Event, error) {
	// action_class only when the run was classified by the current
	// default classifier (see EventStreamOptions.Classes)
	return queryRows(ctx, s.db, "events", `SELECT run_id, seq, turn, ts, kind, role, tool_name, call_id, tool_key, target, args, chars, est_tokens, is_error, exit_code, line, text, coalesce(envelope_tokens, 0),
  CASE WHEN (SELECT classified_by FROM runs WHERE run_id = ?) = ? THEN coalesce(action_class, '') ELSE '' END, coalesce(error_rule, '')
FROM events WHERE run_id = ? ORDER BY seq`, []any{runID, actions.DefaultFingerprint(), runID}, scanEvent)
}

// Usage returns a run's usage rows in turn order.
func (s *Store) Usage(ctx context.Context, runID string) ([]schema.Usage, error) {
	return queryRows(ctx, s.db, "usage", `SELECT `+usageColumns+` FROM usage WHERE run_id = ? ORDER BY turn`, []any{runID}, scanUsage)
}

// ContextOps returns a run's context ops in seq order.
func (s *Store) ContextOps(ctx context.Context, runID string) ([]schema.ContextOp, error) {
	return queryRows(ctx, s.db, "context_ops", `SELECT `+opColumns+` FROM context_ops WHERE run_id = ? ORDER BY seq, op, tool_key`, []any{runID}, scanOp)
}

// queryRows runs q with args and returns its rows, each read by scan;
// what names the rows in the error of a failed query ("query <what>: …").
func queryRows[T any](ctx context.Context, db *sql.DB, what, q string, args []any, scan func(*sql.Rows) (T, error)) ([]T, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("query %s: %w", what, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// scanEvent reads an events row as Events selects it.
func scanEvent(rows *sql.Rows) (schema.Event, error) {
	var e schema.Event
	var ts sql.NullTime
	var exit sql.NullInt64
	var kind string
	if err := rows.Scan(&e.RunID, &e.Seq, &e.Turn, &ts, &kind, &e.Role, &e.ToolName, &e.CallID, &e.ToolKey, &e.Target, &e.Args, &e.Chars, &e.EstTokens, &e.IsError, &exit, &e.Line, &e.Text, &e.EnvelopeTokens, &e.ActionClass, &e.ErrorRule); err != nil {
		return e, fmt.Errorf("scan event: %w", err)
	}
	e.Kind = schema.EventKind(kind)
	e.TS = utcTime(ts)
	if exit.Valid {
		e.ExitCode = &exit.Int64
	}
	return e, nil
}

// Rejects returns rejected records ordered by path and line.
func (s *Store) Rejects(ctx context.Context) ([]schema.Reject, error) {
	return queryRows(ctx, s.db, "rejects", `SELECT source_path, line, reason, raw FROM rejects ORDER BY source_path, line`, nil,
		func(rows *sql.Rows) (schema.Reject, error) {
			var r schema.Reject
			if err := rows.Scan(&r.SourcePath, &r.Line, &r.Reason, &r.Raw); err != nil {
				return r, fmt.Errorf("scan reject: %w", err)
			}
			return r, nil
		})
}

// Calibration is the fitted estimate-to-logged relation of one source format
// and model family: logged_input ≈ Offset + Factor × estimated_prompt.
type Calibration struct {
	SourceFormat string
	ModelFamily  string
	Estimator    string
	NCalls       int64
	Factor       float64
	Offset       float64
	MdAPERaw     float64 // median |est − logged| / logged, before fitting
	MdAPEFitted  float64 // the same after applying the fit
	FittedAt     time.Time
}

// SaveCalibration replaces the stored calibration of each format and family in cs.
func (s *Store) SaveCalibration(ctx context.Context, cs []Calibration) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("save calibration: %w", err)
	}
	defer tx.Rollback()
	for _, c := range cs {
		if _, err := tx.ExecContext(ctx, "DELETE FROM calibration WHERE source_format = ? AND model_family = ? AND estimator = ?", c.SourceFormat, c.ModelFamily, c.Estimator); err != nil {
			return fmt.Errorf("save calibration: %w", err)
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO calibration VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", c.SourceFormat, c.ModelFamily, c.Estimator, c.NCalls, c.Factor, c.Offset, c.MdAPERaw, c.MdAPEFitted, c.FittedAt.UTC()); err != nil {
			return fmt.Errorf("save calibration: %w", err)
		}
	}
	return tx.Commit()
}

// CalibrationPoint is one logged model call with the estimated prompt.
type CalibrationPoint struct {
	SourceFormat string
	ModelFamily  string
	Estimator    string
	Logged       int64 // logged input tokens of the call (incl. cache)
	Estimated    int64 // sum of est_tokens of the events the call saw
}

// calibrationSQL pairs each logged model call with the estimated size of the
// prompt it saw: the est_tokens of all events of earlier turns plus the input
// events of its own turn. Calls at or after a run's first compaction, summary
// or continuation are left out (what the prompt held after it is not in the
// events), and so are calls whose usage is estimated, and a resumed
// session's copies of the calls of the run it continues (that run has them).
const calibrationSQL = `
WITH per_turn AS (
  SELECT run_id, turn,
    coalesce(sum(est_tokens) FILTER (WHERE kind IN ('assistant','reasoning','tool_call')), 0) AS out_tok,
    coalesce(sum(est_tokens) FILTER (WHERE kind NOT IN ('assistant','reasoning','tool_call','context_op')), 0) AS in_tok
  FROM events GROUP BY run_id, turn
), cum AS (
  SELECT run_id, turn,
    sum(in_tok + out_tok) OVER (PARTITION BY run_id ORDER BY turn ROWS UNBOUNDED PRECEDING) - out_tok AS est_prompt
  FROM per_turn
), first_reset AS (
  SELECT run_id, min(turn) AS t FROM context_ops WHERE op IN ('compaction','summary','continuation') AND trigger <> 'legacy-summary' GROUP BY run_id
)
SELECT r.source_format, r.model_family, r.estimator, u.input_tokens, c.est_prompt
FROM usage u
JOIN runs r ON r.run_id = u.run_id
JOIN cum c ON c.run_id = u.run_id AND c.turn = u.turn
LEFT JOIN first_reset f ON f.run_id = u.run_id
WHERE NOT u.estimated AND u.copy_of_run_id IS NULL AND u.input_tokens > 0 AND c.est_prompt > 0 AND (f.t IS NULL OR u.turn < f.t)
ORDER BY r.source_format, r.model_family, r.estimator, u.run_id, u.turn`

// CalibrationPoints returns every usable (logged, estimated) pair; see calibrationSQL.
func (s *Store) CalibrationPoints(ctx context.Context) ([]CalibrationPoint, error) {
	rows, err := s.db.QueryContext(ctx, calibrationSQL)
	if err != nil {
		return nil, fmt.Errorf("query calibration points: %w", err)
	}
	defer rows.Close()
	var out []CalibrationPoint
	for rows.Next() {
		var p CalibrationPoint
		if err := rows.Scan(&p.SourceFormat, &p.ModelFamily, &p.Estimator, &p.Logged, &p.Estimated); err != nil {
			return nil, fmt.Errorf("scan calibration point: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// CalibrationFor returns the stored fit of a source format and model family
// for an estimator, or nil when trajmine calibrate has not fitted one.
func (s *Store) CalibrationFor(ctx context.Context, format, family, estimator string) (*Calibration, error) {
	c := Calibration{SourceFormat: format, ModelFamily: family, Estimator: estimator}
	err := s.db.QueryRowContext(ctx, `SELECT n_calls, factor, offset_tokens, mdape_raw, mdape_fitted, fitted_at FROM calibration WHERE source_format = ? AND model_family = ? AND estimator = ?`, format, family, estimator).
		Scan(&c.NCalls, &c.Factor, &c.Offset, &c.MdAPERaw, &c.MdAPEFitted, &c.FittedAt)
	if err == sql.ErrNoRows {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("query calibration: %w", err)
	}
	return &c, nil
}

// Sources lists the imported files (the sources table) ordered by path:
// path as given to ingest, sha256, format, size, import time and counts.
//
//	SELECT source_path, source_sha256, source_format, bytes, ingested_at, n_runs, n_events, n_rejects FROM sources ORDER BY source_path, ingested_at
func (s *Store) Sources(ctx context.Context) ([]schema.Source, error) {
	return queryRows(ctx, s.db, "sources", `SELECT `+schema.ColSourcePath+`, `+schema.ColSourceSHA256+`, `+schema.ColSourceFormat+`, bytes, ingested_at, n_runs, n_events, n_rejects
FROM `+schema.TableSources+` ORDER BY `+schema.ColSourcePath+`, ingested_at`, nil,
		func(rows *sql.Rows) (schema.Source, error) {
			var src schema.Source
			if err := rows.Scan(&src.Path, &src.SHA256, &src.Format, &src.Bytes, &src.IngestedAt, &src.Runs, &src.Events, &src.Rejects); err != nil {
				return src, fmt.Errorf("scan source: %w", err)
			}
			src.IngestedAt = src.IngestedAt.UTC()
			return src, nil
		})
}
