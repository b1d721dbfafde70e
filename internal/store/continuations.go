package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/schema"
)

// Continuation is a run that resumed or forked another: its log holds
// copies of usage rows of an earlier run (Claude Code copies the earlier
// messages, same message.id, into the new session file on resume).
type Continuation struct {
	RunID       string
	OriginRunID string // the run the latest copied row belongs to: the session it resumed (runs.continues_run_id)
	// Copied are the request ids of the run's copied usage rows: one API
	// response is one usage row, counted in the origin run only.
	Copied map[string]bool
}

// CopiesSQL is the rule that finds copied usage rows: a usage row with a
// request id is a copy when another run holds a row with the same request
// id and the same logged input, output, cache-read and cache-write tokens
// (one API response logged twice), and that run comes first in (ended_at,
// nulls last; run_id) order — the original session ended before its
// resumption did. It returns (run_id, turn, request_id, origin_run_id) per
// copied row. Estimated rows are never copies.
//
// Ingest applies it after each import (MarkCopies) and stores the result
// in the tables, so SQL users need not paste it: usage.copy_of_run_id
// names a copy's origin and its tokens are in the copied_* columns (its
// input_tokens … are 0), and the runs' token totals leave copied calls out
// (runs.copied_*). The query reads the logged tokens (counted + copied),
// so it gives the same rows before and after the marking; trajmine check
// compares the two.
const CopiesSQL = `WITH u AS (
  SELECT u.run_id, u.turn, u.request_id, ` + loggedTokensAs + `, r.ended_at
  FROM ` + schema.TableUsage + ` u JOIN ` + schema.TableRuns + ` r USING (run_id)
  WHERE u.request_id <> '' AND NOT u.estimated
), k AS (
  SELECT run_id, turn, request_id, ended_at,
    first_value(run_id) OVER w AS origin_run_id
  FROM u
  WINDOW w AS (PARTITION BY request_id, lin, lout, lcr, lcw
               ORDER BY ended_at ASC NULLS LAST, run_id)
)
SELECT run_id, turn, request_id, origin_run_id FROM k WHERE run_id <> origin_run_id`

// loggedTokensAs are usage u's logged tokens (schema.UsageTable: counted
// plus copied) named lin, lout, lcr, lcw and lrs.
const loggedTokensAs = `u.input_tokens + coalesce(u.copied_input_tokens, 0) AS lin, u.output_tokens + coalesce(u.copied_output_tokens, 0) AS lout,
    u.cache_read_tokens + coalesce(u.copied_cache_read_tokens, 0) AS lcr, u.cache_write_tokens + coalesce(u.copied_cache_write_tokens, 0) AS lcw,
    u.reasoning_tokens + coalesce(u.copied_reasoning_tokens, 0) AS lrs`

// markUsageSQL marks the usage rows by CopiesSQL's rule where their mark
// is not what the rule says: a row becomes a copy (copy_of_run_id its
// origin, its tokens moved to the copied_* columns) or an original again
// (its tokens back), or a copy of another origin. Only the rows whose
// request id occurs more than once and the rows marked now are ranked:
// the others are originals, and the hash aggregate that finds them is
// cheaper than ranking every row. A row's logged tokens never change, so
// marking is idempotent and needs no memory of which imports touched
// which request ids: it reads the whole table, which also repairs a
// store whose import stopped before its marking.
const markUsageSQL = `UPDATE ` + schema.TableUsage + ` SET copy_of_run_id = w.want,
  input_tokens = CASE WHEN w.want IS NULL THEN w.lin ELSE 0 END, copied_input_tokens = CASE WHEN w.want IS NULL THEN 0 ELSE w.lin END,
  output_tokens = CASE WHEN w.want IS NULL THEN w.lout ELSE 0 END, copied_output_tokens = CASE WHEN w.want IS NULL THEN 0 ELSE w.lout END,
  cache_read_tokens = CASE WHEN w.want IS NULL THEN w.lcr ELSE 0 END, copied_cache_read_tokens = CASE WHEN w.want IS NULL THEN 0 ELSE w.lcr END,
  cache_write_tokens = CASE WHEN w.want IS NULL THEN w.lcw ELSE 0 END, copied_cache_write_tokens = CASE WHEN w.want IS NULL THEN 0 ELSE w.lcw END,
  reasoning_tokens = CASE WHEN w.want IS NULL THEN w.lrs ELSE 0 END, copied_reasoning_tokens = CASE WHEN w.want IS NULL THEN 0 ELSE w.lrs END
FROM (
  WITH dup AS (
    SELECT request_id FROM ` + schema.TableUsage + ` WHERE request_id <> '' AND NOT estimated GROUP BY request_id HAVING count(*) > 1
  ), u AS (
    SELECT u.rowid AS rid, u.run_id, u.request_id, u.copy_of_run_id AS was, ` + loggedTokensAs + `, r.ended_at,
      u.request_id <> '' AND NOT u.estimated AS eligible
    FROM ` + schema.TableUsage + ` u JOIN ` + schema.TableRuns + ` r USING (run_id)
    WHERE u.request_id IN (SELECT request_id FROM dup) OR u.copy_of_run_id IS NOT NULL
  ), k AS (
    SELECT *, CASE WHEN eligible AND run_id <> first_value(run_id) OVER w THEN first_value(run_id) OVER w END AS want
    FROM u
    WINDOW w AS (PARTITION BY eligible, request_id, lin, lout, lcr, lcw ORDER BY ended_at ASC NULLS LAST, run_id)
  )
  SELECT rid, want, lin, lout, lcr, lcw, lrs FROM k WHERE want IS DISTINCT FROM was
) w
WHERE ` + schema.TableUsage + `.rowid = w.rid`

// markRunsSQL sets each run's copied_* columns to the sums over its
// copied usage rows and continues_run_id to the origin of the one with the
// largest turn, taking the difference off (or back onto) its token totals,
// for the runs where they changed.
const markRunsSQL = `UPDATE ` + schema.TableRuns + ` SET
  input_tokens = runs.input_tokens + runs.copied_input_tokens - t.cin, copied_input_tokens = t.cin,
  output_tokens = runs.output_tokens + runs.copied_output_tokens - t.cout, copied_output_tokens = t.cout,
  cache_read_tokens = runs.cache_read_tokens + runs.copied_cache_read_tokens - t.ccr, copied_cache_read_tokens = t.ccr,
  cache_write_tokens = runs.cache_write_tokens + runs.copied_cache_write_tokens - t.ccw, copied_cache_write_tokens = t.ccw,
  reasoning_tokens = runs.reasoning_tokens + runs.copied_reasoning_tokens - t.crs, copied_reasoning_tokens = t.crs,
  copied_calls = t.n, continues_run_id = t.origin
FROM (
  SELECT r.run_id, coalesce(c.n, 0) AS n, coalesce(c.cin, 0) AS cin, coalesce(c.cout, 0) AS cout, coalesce(c.ccr, 0) AS ccr,
    coalesce(c.ccw, 0) AS ccw, coalesce(c.crs, 0) AS crs, c.origin
  FROM ` + schema.TableRuns + ` r LEFT JOIN (
    SELECT run_id, count(*) AS n, sum(copied_input_tokens) AS cin, sum(copied_output_tokens) AS cout,
      sum(copied_cache_read_tokens) AS ccr, sum(copied_cache_write_tokens) AS ccw, sum(copied_reasoning_tokens) AS crs,
      arg_max(copy_of_run_id, turn) AS origin
    FROM ` + schema.TableUsage + ` WHERE copy_of_run_id IS NOT NULL GROUP BY run_id
  ) c USING (run_id)
  WHERE c.run_id IS NOT NULL OR r.copied_calls <> 0 OR r.continues_run_id IS NOT NULL
) t
WHERE runs.run_id = t.run_id AND (runs.copied_calls, runs.copied_input_tokens, runs.copied_output_tokens, runs.copied_cache_read_tokens,
  runs.copied_cache_write_tokens, runs.copied_reasoning_tokens, runs.continues_run_id) IS DISTINCT FROM (t.n, t.cin, t.cout, t.ccr, t.ccw, t.crs, t.origin)`

// copiedColumnsSQL fills the copied_* columns an earlier version's rows
// lack (NULL, as added by addMissingColumns) with 0: the rows are all
// originals until marked.
var copiedColumnsSQL = []string{
	`UPDATE ` + schema.TableUsage + ` SET copied_input_tokens = 0, copied_output_tokens = 0, copied_cache_read_tokens = 0,
  copied_cache_write_tokens = 0, copied_reasoning_tokens = 0 WHERE copied_input_tokens IS NULL`,
	`UPDATE ` + schema.TableRuns + ` SET copied_calls = 0, copied_input_tokens = 0, copied_output_tokens = 0, copied_cache_read_tokens = 0,
  copied_cache_write_tokens = 0, copied_reasoning_tokens = 0 WHERE copied_calls IS NULL`,
}

var _ ingest.FinishSink = (*Store)(nil)

// Finish marks the copies after a Files call's imports (ingest.FinishSink):
// MarkCopies.
func (s *Store) Finish(ctx context.Context) error {
	_, err := s.MarkCopies(ctx)
	return err
}

// MarkCopies stores which usage rows are copies (CopiesSQL) in the
// tables, in one transaction, and returns how many rows' marks changed:
//
//  1. usage: a copy's copy_of_run_id is its origin, its logged tokens
//     move to the copied_* columns and its input_tokens … become 0; a row
//     that is no longer a copy (its origin re-imported without it, or an
//     earlier-ended run imported since holds the response) gets its
//     tokens back (markUsageSQL);
//  2. runs: copied_calls and copied_* are the sums over the run's copied
//     rows, the token totals leave them out, and continues_run_id is the
//     origin of its copied row with the largest turn (markRunsSQL).
//
// So sum(output_tokens) over usage, or over runs, counts each API response
// once. Ingest calls it after every import (Finish); a later import can
// make earlier rows copies (it holds a run that ended before theirs) or
// originals again, and each call marks the whole store anew.
func (s *Store) MarkCopies(ctx context.Context) (int64, error) {
	if s.readOnly {
		return 0, fmt.Errorf("mark copied usage: database %s is open read-only", s.path)
	}
	return markCopies(ctx, s.db)
}

// markCopies is MarkCopies on db (a lake reader's working database too).
func markCopies(ctx context.Context, db *sql.DB) (n int64, err error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, fmt.Errorf("mark copied usage: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN TRANSACTION"); err != nil {
		return 0, fmt.Errorf("mark copied usage: %w", err)
	}
	defer func() {
		if err != nil {
			_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		}
	}()
	for _, q := range copiedColumnsSQL {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return 0, fmt.Errorf("mark copied usage: %w", err)
		}
	}
	res, err := conn.ExecContext(ctx, markUsageSQL)
	if err != nil {
		return 0, fmt.Errorf("mark copied usage: %w", err)
	}
	if n, err = res.RowsAffected(); err != nil {
		return 0, fmt.Errorf("mark copied usage: %w", err)
	}
	if _, err := conn.ExecContext(ctx, markRunsSQL); err != nil {
		return 0, fmt.Errorf("mark copied usage: runs: %w", err)
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return 0, fmt.Errorf("mark copied usage: %w", err)
	}
	return n, nil
}

// Continuations returns the runs with copied usage rows (as MarkCopies
// marked them: usage.copy_of_run_id), by run id. The origin of a run is
// that of its copied row with the largest turn (a session resumed twice
// copies its first origin's rows and then its second's).
func (s *Store) Continuations(ctx context.Context) (map[string]*Continuation, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT run_id, turn, request_id, copy_of_run_id FROM `+schema.TableUsage+
		` WHERE copy_of_run_id IS NOT NULL ORDER BY run_id, turn`)
	if err != nil {
		return nil, fmt.Errorf("find copied usage: %w", err)
	}
	defer rows.Close()
	out := map[string]*Continuation{}
	for rows.Next() {
		var run, req, origin string
		var turn int64
		if err := rows.Scan(&run, &turn, &req, &origin); err != nil {
			return nil, fmt.Errorf("find copied usage: %w", err)
		}
		c := out[run]
		if c == nil {
			c = &Continuation{RunID: run, Copied: map[string]bool{}}
			out[run] = c
		}
		c.Copied[req] = true
		c.OriginRunID = origin // rows by turn: the last one wins
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find copied usage: %w", err)
	}
	return out, nil
}
