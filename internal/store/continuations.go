package store

import (
	"context"
	"fmt"

	"github.com/trajmine/trajmine/schema"
)

// Continuation is a run that resumed or forked another: its log holds
// copies of usage rows of an earlier run (Claude Code copies the earlier
// messages, same message.id, into the new session file on resume).
type Continuation struct {
	RunID       string
	OriginRunID string // the run the latest copied row belongs to: the session it resumed
	// Copied are the request ids of the run's copied usage rows: one API
	// response is one usage row, counted in the origin run only.
	Copied map[string]bool
}

// CopiesSQL is the rule that finds copied usage rows, for SQL users and
// for Continuations: a usage row with a request id is a copy when another
// run holds a row with the same request id and the same input, output,
// cache-read and cache-write tokens (one API response logged twice), and
// that run comes first in (ended_at, nulls last; run_id) order — the
// original session ended before its resumption did. It returns (run_id,
// turn, request_id, origin_run_id) per copied row. Estimated rows are never
// copies. Count usage once with `... FROM usage WHERE (run_id, turn) NOT IN
// (SELECT run_id, turn FROM (CopiesSQL))`.
const CopiesSQL = `WITH u AS (
  SELECT u.run_id, u.turn, u.request_id, u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens, r.ended_at
  FROM ` + schema.TableUsage + ` u JOIN ` + schema.TableRuns + ` r USING (run_id)
  WHERE u.request_id <> '' AND NOT u.estimated
), k AS (
  SELECT run_id, turn, request_id, ended_at,
    first_value(run_id) OVER w AS origin_run_id
  FROM u
  WINDOW w AS (PARTITION BY request_id, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens
               ORDER BY ended_at ASC NULLS LAST, run_id)
)
SELECT run_id, turn, request_id, origin_run_id FROM k WHERE run_id <> origin_run_id`

// Continuations returns the runs with copied usage rows (CopiesSQL), by
// run id. The origin of a run is that of its copied row with the largest
// turn (a session resumed twice copies its first origin's rows and then
// its second's).
func (s *Store) Continuations(ctx context.Context) (map[string]*Continuation, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT run_id, turn, request_id, origin_run_id FROM (`+CopiesSQL+`) ORDER BY run_id, turn`)
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

// CopiedSums are a run's copied usage rows (CopiesSQL) summed: what its
// logged totals (runs.input_tokens, …) count that the origin run counts too.
type CopiedSums struct {
	Calls                                int64
	InputTokens, OutputTokens, CacheRead int64
}

// CopiedUsage sums each run's copied usage rows, by run id:
//
//	SELECT run_id, count(*), sum(input_tokens), sum(output_tokens), sum(cache_read_tokens)
//	FROM usage JOIN (CopiesSQL) USING (run_id, turn) GROUP BY run_id
func (s *Store) CopiedUsage(ctx context.Context) (map[string]CopiedSums, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT u.run_id, count(*), sum(u.input_tokens), sum(u.output_tokens), sum(u.cache_read_tokens)
FROM `+schema.TableUsage+` u JOIN (`+CopiesSQL+`) c USING (run_id, turn) GROUP BY u.run_id`)
	if err != nil {
		return nil, fmt.Errorf("sum copied usage: %w", err)
	}
	defer rows.Close()
	out := map[string]CopiedSums{}
	for rows.Next() {
		var id string
		var c CopiedSums
		if err := rows.Scan(&id, &c.Calls, &c.InputTokens, &c.OutputTokens, &c.CacheRead); err != nil {
			return nil, fmt.Errorf("sum copied usage: %w", err)
		}
		out[id] = c
	}
	return out, rows.Err()
}
