package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/schema"
)

// Outcome files (ingest/outcomes.go) are stored as rows of the outcomes
// table, each keyed by what its file names; ApplyOutcomes gives the runs
// their outcome from them by one rule over everything stored, after every
// import, so that a run and its outcome file may come in either order and a
// file imported again (changed, or gone from a re-import) changes what it
// gave.
//
// The rule (OutcomePairsSQL, OutcomesSQL):
//
//  1. Matching. A row keyed by a run id matches that run. A row keyed by a
//     task id matches the runs with that task id; a path row (an id the
//     outcome file's place gives) those whose task id it is and those of
//     whose path a folder, or the file name up to its first dot, is the id;
//     a scope row (a folder) every run under the folder. Task, path and
//     scope rows match root runs only (parent_run_id NULL): a sub-agent's
//     run is part of its parent's task, and counting it again would count
//     the task twice.
//  2. Ranking. Of the rows that match a run, a run-id row comes first; then
//     the nearest: the row whose file shares the most leading folders with
//     the run's file (so that each run takes the outcome of its own
//     submission or job when several are stored, and
//     logs/<id>/report.json speaks for trajs/<id>/…); then task and path
//     rows before scope rows; then the file whose path sorts first, and
//     in a file the last row. The first row that states resolved gives
//     resolved, the first that states a score gives score.
//  3. Precedence. A run's own log may state its outcome (Inspect scores,
//     OpenHands test results, Harbor traces: runs.log_resolved). An
//     outcome file's row overrides it: the file is the evaluation, and is
//     newer than the log. A run no row gives resolved keeps its log's, and
//     gets it back when the rows that gave another are gone.
//
// runs.outcome_source says where resolved comes from: the row as
// "path:line", "log", or (resolved unknown) the row that gave score;
// outcomes.n_runs counts the runs a row matches (0: it matches no run) and
// n_applied those it gave resolved or score.

// OutcomePairsSQL is the rule's matching and ranking (steps 1 and 2): one
// row per run and outcome row that matches it, (run_id, oid: the outcome
// row's rowid, opath, line, resolved, score, resolved_rank, score_rank),
// where resolved_rank is 1 for the row that gives the run resolved and
// score_rank 1 for the one that gives score.
const OutcomePairsSQL = `WITH o AS (
  SELECT rowid AS oid, source_path AS opath, line, key_kind, key, resolved, score FROM ` + schema.TableOutcomes + `
), r AS (
  SELECT run_id, task_id, replace(source_path, '\', '/') AS rpath, parent_run_id IS NULL AS root FROM ` + schema.TableRuns + `
), m AS (
  SELECT r.run_id, r.rpath, o.oid, 0 AS krank FROM o JOIN r ON o.key_kind = 'run_id' AND r.run_id = o.key
  UNION ALL
  SELECT r.run_id, r.rpath, o.oid, 1 FROM o JOIN r ON o.key_kind IN ('task_id', 'path') AND r.root AND r.task_id = o.key
  UNION ALL
  SELECT c.run_id, c.rpath, o.oid, 1 FROM o JOIN (
    SELECT run_id, rpath, unnest(list_concat(parts[1:len(parts) - 1], [split_part(parts[len(parts)], '.', 1)])) AS comp
    FROM (SELECT run_id, rpath, string_split(rpath, '/') AS parts FROM r WHERE root)
  ) c ON o.key_kind = 'path' AND c.comp = o.key
  UNION ALL
  SELECT r.run_id, r.rpath, o.oid, 2 FROM o JOIN r ON o.key_kind = 'scope' AND r.root
    AND (starts_with(r.rpath, replace(o.key, '\', '/') || '/') OR o.key = '.' AND NOT starts_with(r.rpath, '/'))
), p AS (
  SELECT run_id, oid, min(krank) AS krank, any_value(rpath) AS rpath FROM m GROUP BY run_id, oid
), n AS (
  SELECT p.run_id, p.oid, p.krank, o.opath, o.line, o.resolved, o.score,
    string_split(p.rpath, '/') AS ra, string_split(replace(o.opath, '\', '/'), '/') AS oa
  FROM p JOIN o USING (oid)
), k AS (
  SELECT run_id, oid, krank, opath, line, resolved, score,
    coalesce(list_position(list_transform(range(1, least(len(ra), len(oa))), i -> ra[i] = oa[i]), false) - 1,
      least(len(ra), len(oa)) - 1) AS near
  FROM n
)
SELECT run_id, oid, opath, line, resolved, score,
  CASE WHEN resolved IS NOT NULL THEN row_number() OVER (PARTITION BY run_id, resolved IS NULL ORDER BY krank <> 0, near DESC, krank, opath, line DESC) END AS resolved_rank,
  CASE WHEN score IS NOT NULL THEN row_number() OVER (PARTITION BY run_id, score IS NULL ORDER BY krank <> 0, near DESC, krank, opath, line DESC) END AS score_rank
FROM k`

// outcomesFromPairs is step 3 over a relation outcome_pairs holding
// OutcomePairsSQL's rows: each run's (run_id, resolved, score,
// outcome_source).
const outcomesFromPairs = `SELECT r.run_id,
  CASE WHEN rw.run_id IS NOT NULL THEN rw.resolved ELSE r.log_resolved END AS resolved,
  sw.score,
  CASE WHEN rw.run_id IS NOT NULL THEN rw.opath || ':' || rw.line
       WHEN r.log_resolved IS NOT NULL THEN '` + schema.OutcomeFromLog + `'
       WHEN sw.run_id IS NOT NULL THEN sw.opath || ':' || sw.line END AS outcome_source
FROM ` + schema.TableRuns + ` r
LEFT JOIN outcome_pairs rw ON rw.run_id = r.run_id AND rw.resolved_rank = 1
LEFT JOIN outcome_pairs sw ON sw.run_id = r.run_id AND sw.score_rank = 1`

// OutcomesSQL is the rule (see above): each run's (run_id, resolved, score,
// outcome_source) as ApplyOutcomes stores them; trajmine check compares
// the runs table with it.
const OutcomesSQL = `WITH outcome_pairs AS (` + OutcomePairsSQL + `)
` + outcomesFromPairs

// outcomeCountsSQL is each outcome row's (oid, n_runs, n_applied) over
// outcome_pairs.
const outcomeCountsSQL = `SELECT o.rowid AS oid, count(DISTINCT p.run_id) AS n,
  count(DISTINCT CASE WHEN p.resolved_rank = 1 OR p.score_rank = 1 THEN p.run_id END) AS a
FROM ` + schema.TableOutcomes + ` o LEFT JOIN outcome_pairs p ON p.oid = o.rowid GROUP BY o.rowid`

// logOutcomeSQL marks, in runs an earlier version imported (outcome_source
// and log_resolved NULL), a stated resolved as their log's own. After an
// ApplyOutcomes no run with a resolved has a NULL outcome_source, so the
// statement touches no other run.
const logOutcomeSQL = `UPDATE ` + schema.TableRuns + ` SET log_resolved = resolved, outcome_source = '` + schema.OutcomeFromLog + `'
WHERE outcome_source IS NULL AND log_resolved IS NULL AND resolved IS NOT NULL`

var _ ingest.OutcomeSink = (*Store)(nil)

// ApplyOutcomes gives the runs their outcomes from the outcomes table by
// the rule above, in one transaction: it stores the runs' resolved, score
// and outcome_source where they change, and each outcome row's n_runs and
// n_applied. It returns how many runs' outcomes changed and how many rows
// match no run. With no outcome row and no run whose outcome came from
// one, there is nothing to do. Ingest calls it after every import
// (ingest.OutcomeSink).
func (s *Store) ApplyOutcomes(ctx context.Context) (ingest.OutcomeResult, error) {
	if s.readOnly {
		return ingest.OutcomeResult{}, fmt.Errorf("apply outcomes: database %s is open read-only", s.path)
	}
	return applyOutcomes(ctx, s.db)
}

// applyOutcomes is ApplyOutcomes on db (a lake reader's working database
// too).
func applyOutcomes(ctx context.Context, db *sql.DB) (res ingest.OutcomeResult, err error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return res, fmt.Errorf("apply outcomes: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN TRANSACTION"); err != nil {
		return res, fmt.Errorf("apply outcomes: %w", err)
	}
	defer func() {
		if err != nil {
			_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		}
	}()
	if _, err := conn.ExecContext(ctx, logOutcomeSQL); err != nil {
		return res, fmt.Errorf("apply outcomes: runs of an earlier version: %w", err)
	}
	var needed bool
	q := `SELECT EXISTS (SELECT 1 FROM ` + schema.TableOutcomes + `) OR EXISTS (SELECT 1 FROM ` + schema.TableRuns +
		` WHERE score IS NOT NULL OR outcome_source <> '` + schema.OutcomeFromLog + `')`
	if err := conn.QueryRowContext(ctx, q).Scan(&needed); err != nil {
		return res, fmt.Errorf("apply outcomes: %w", err)
	}
	if needed {
		if res, err = applyOutcomeRule(ctx, conn); err != nil {
			return res, err
		}
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return res, fmt.Errorf("apply outcomes: %w", err)
	}
	return res, nil
}

// applyOutcomeRule stores the rule's outcomes and counts on conn, inside
// its transaction.
func applyOutcomeRule(ctx context.Context, conn *sql.Conn) (res ingest.OutcomeResult, err error) {
	steps := []struct {
		what, q string
		n       *int64
	}{
		{"match", "CREATE OR REPLACE TEMP TABLE outcome_pairs AS " + OutcomePairsSQL, nil},
		{"runs", `UPDATE ` + schema.TableRuns + ` SET resolved = t.resolved, score = t.score, outcome_source = t.outcome_source
FROM (` + outcomesFromPairs + `) t
WHERE runs.run_id = t.run_id AND (runs.resolved, runs.score, runs.outcome_source) IS DISTINCT FROM (t.resolved, t.score, t.outcome_source)`, &res.Changed},
		{"rows", `UPDATE ` + schema.TableOutcomes + ` SET n_runs = t.n, n_applied = t.a FROM (` + outcomeCountsSQL + `) t
WHERE outcomes.rowid = t.oid AND (outcomes.n_runs, outcomes.n_applied) IS DISTINCT FROM (t.n, t.a)`, nil},
		{"clean up", "DROP TABLE outcome_pairs", nil},
	}
	for _, st := range steps {
		r, err := conn.ExecContext(ctx, st.q)
		if err != nil {
			return res, fmt.Errorf("apply outcomes: %s: %w", st.what, err)
		}
		if st.n != nil {
			if *st.n, err = r.RowsAffected(); err != nil {
				return res, fmt.Errorf("apply outcomes: %s: %w", st.what, err)
			}
		}
	}
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM "+schema.TableOutcomes+" WHERE n_runs = 0").Scan(&res.Unmatched); err != nil {
		return res, fmt.Errorf("apply outcomes: %w", err)
	}
	return res, nil
}

// OutcomeSummary is what the store holds of outcomes: trajmine outcomes
// prints it.
type OutcomeSummary struct {
	Runs         int64 `json:"runs"`          // root runs (parent_run_id NULL)
	Resolved     int64 `json:"resolved"`      // of them, resolved
	NotResolved  int64 `json:"not_resolved"`  // of them, not resolved
	FromFiles    int64 `json:"from_files"`    // of those with an outcome, from an outcome file
	FromLogs     int64 `json:"from_logs"`     // … from their own log
	Scored       int64 `json:"scored"`        // root runs with a score
	Files        int64 `json:"files"`         // outcome files stored
	Rows         int64 `json:"rows"`          // their rows
	UnmatchedAll int64 `json:"unmatched"`     // rows that match no run
	Shadowed     int64 `json:"shadowed"`      // rows that match runs but give none of them its outcome
	ChildRuns    int64 `json:"child_runs"`    // sub-agent runs (not counted above)
	ChildOutcome int64 `json:"child_outcome"` // of them, with an outcome (a run-id row, or their log)
}

// OutcomeRow is one stored outcome row.
type OutcomeRow struct {
	schema.Outcome
	Format string `json:"format"` // the importer that read its file
}

// OutcomeSummary returns what the store holds of outcomes.
func (s *Store) OutcomeSummary(ctx context.Context) (OutcomeSummary, error) {
	var o OutcomeSummary
	q := `SELECT count(*) FILTER (WHERE parent_run_id IS NULL),
  count(*) FILTER (WHERE parent_run_id IS NULL AND resolved),
  count(*) FILTER (WHERE parent_run_id IS NULL AND NOT resolved),
  count(*) FILTER (WHERE parent_run_id IS NULL AND resolved IS NOT NULL AND outcome_source <> 'log'),
  count(*) FILTER (WHERE parent_run_id IS NULL AND resolved IS NOT NULL AND outcome_source = 'log'),
  count(*) FILTER (WHERE parent_run_id IS NULL AND score IS NOT NULL),
  count(*) FILTER (WHERE parent_run_id IS NOT NULL),
  count(*) FILTER (WHERE parent_run_id IS NOT NULL AND resolved IS NOT NULL)
FROM ` + schema.TableRuns
	if err := s.db.QueryRowContext(ctx, q).Scan(&o.Runs, &o.Resolved, &o.NotResolved, &o.FromFiles, &o.FromLogs, &o.Scored, &o.ChildRuns, &o.ChildOutcome); err != nil {
		return o, fmt.Errorf("summarise outcomes: %w", err)
	}
	q = `SELECT count(DISTINCT source_path), count(*), count(*) FILTER (WHERE n_runs = 0), count(*) FILTER (WHERE n_runs > 0 AND n_applied = 0) FROM ` + schema.TableOutcomes
	if err := s.db.QueryRowContext(ctx, q).Scan(&o.Files, &o.Rows, &o.UnmatchedAll, &o.Shadowed); err != nil {
		return o, fmt.Errorf("summarise outcomes: %w", err)
	}
	return o, nil
}

// UnmatchedOutcomes returns the outcome rows that match no run, by file and
// line; at most limit of them (limit ≤ 0: all).
func (s *Store) UnmatchedOutcomes(ctx context.Context, limit int) ([]OutcomeRow, error) {
	q := `SELECT o.source_path, o.source_sha256, o.line, o.key_kind, o.key, o.resolved, o.score, o.detail, o.n_runs, o.n_applied,
  coalesce((SELECT any_value(s.source_format) FROM ` + schema.TableSources + ` s WHERE s.source_path = o.source_path AND s.source_sha256 = o.source_sha256), '')
FROM ` + schema.TableOutcomes + ` o WHERE o.n_runs = 0 ORDER BY o.source_path, o.line, o.key`
	if limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", limit)
	}
	rows, err := s.db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("list unmatched outcomes: %w", err)
	}
	defer rows.Close()
	var out []OutcomeRow
	for rows.Next() {
		var r OutcomeRow
		var kind string
		var res sql.NullBool
		var score sql.NullFloat64
		if err := rows.Scan(&r.SourcePath, &r.SourceSHA256, &r.Line, &kind, &r.Key, &res, &score, &r.Detail, &r.NRuns, &r.NApplied, &r.Format); err != nil {
			return nil, fmt.Errorf("list unmatched outcomes: %w", err)
		}
		r.KeyKind = schema.OutcomeKey(kind)
		if res.Valid {
			r.Resolved = &res.Bool
		}
		if score.Valid {
			r.Score = &score.Float64
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list unmatched outcomes: %w", err)
	}
	return out, nil
}

// pathKeyedFormats is the SQL list of the path-keyed formats
// (ingest.PathKeyed): their files are one import per path, not per sha256.
func pathKeyedFormats() string {
	var q []string
	for _, f := range ingest.FormatNames() {
		if ingest.PathKeyed(f) {
			q = append(q, "'"+strings.ReplaceAll(f, "'", "''")+"'")
		}
	}
	if len(q) == 0 {
		return "('')"
	}
	return "(" + strings.Join(q, ", ") + ")"
}
