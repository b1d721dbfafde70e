package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/trajmine/trajmine/schema"
)

// RunQuery selects runs by their fields (FilterRuns); a zero field selects
// every run.
type RunQuery struct {
	Model   string // runs.model contains this, in any case
	Family  string // runs.model_family is this
	Format  string // runs.source_format is this
	Harness string // runs.harness is this
	// EndReason is the run's end reason as diagnose decided it (diag_runs,
	// where the run is diagnosed), else as imported (runs.end_reason).
	EndReason string
	Tool      string // the run has a tool call of this tool
	// Text: an event of the run has this in its text, in any case
	// (SearchText's literal match: literalPattern).
	Text               string
	MinCalls, MaxCalls *int64   // bounds on runs.n_turns, inclusive
	MinPeakShare       *float64 // diag_runs.peak_share ≥ this (a fraction; runs of unknown window never pass)
	Resolved           *bool    // runs.resolved is this
	// Limit is the most run ids returned; ≤ 0 is 100,000.
	Limit int
}

// FilterRuns returns the ids of the runs q selects, in run_id order, with
// the SQL it ran and its arguments (the SQL holds a ? for each). The SQL is
// built from fixed fragments, one per field set; every value is an
// argument, never part of the SQL text:
//
//	SELECT r.run_id FROM runs r [LEFT JOIN diag_runs d USING (run_id)] WHERE true
//	  [AND r.model ILIKE ? ESCAPE '\'] [AND r.model_family = ?] [AND r.source_format = ?] [AND r.harness = ?]
//	  [AND coalesce(d.end_reason, r.end_reason) = ?]
//	  [AND EXISTS (SELECT 1 FROM events e WHERE e.run_id = r.run_id AND e.kind = 'tool_call' AND e.tool_name = ?)]
//	  [AND EXISTS (SELECT 1 FROM events e WHERE e.run_id = r.run_id AND regexp_matches(e.text, ?, 'i'))]
//	  [AND r.n_turns >= ?] [AND r.n_turns <= ?] [AND d.peak_share >= ?] [AND r.resolved = ?]
//	ORDER BY r.run_id LIMIT ?
//
// The diag_runs join is there when the store holds that table (a store
// that was never diagnosed has none: the end reason is then the
// importer's, and a peak-share bound selects nothing).
func (s *Store) FilterRuns(ctx context.Context, q RunQuery) ([]string, string, []any, error) {
	diag, err := s.hasTable(ctx, schema.TableDiagRuns)
	if err != nil {
		return nil, "", nil, fmt.Errorf("filter runs: %w", err)
	}
	var b strings.Builder
	b.WriteString("SELECT r.run_id FROM runs r")
	if diag {
		b.WriteString(" LEFT JOIN diag_runs d USING (run_id)")
	}
	b.WriteString(" WHERE true")
	var args []any
	add := func(frag string, vals ...any) {
		b.WriteString(" AND ")
		b.WriteString(frag)
		args = append(args, vals...)
	}
	if q.Model != "" {
		add(`r.model ILIKE ? ESCAPE '\'`, likePattern(q.Model))
	}
	if q.Family != "" {
		add("r.model_family = ?", q.Family)
	}
	if q.Format != "" {
		add("r.source_format = ?", q.Format)
	}
	if q.Harness != "" {
		add("r.harness = ?", q.Harness)
	}
	if q.EndReason != "" {
		if diag {
			add("coalesce(d.end_reason, r.end_reason) = ?", q.EndReason)
		} else {
			add("r.end_reason = ?", q.EndReason)
		}
	}
	if q.Tool != "" {
		add("EXISTS (SELECT 1 FROM events e WHERE e.run_id = r.run_id AND e.kind = 'tool_call' AND e.tool_name = ?)", q.Tool)
	}
	if q.Text != "" {
		add(`EXISTS (SELECT 1 FROM events e WHERE e.run_id = r.run_id AND regexp_matches(e.text, ?, 'i'))`, literalPattern(q.Text))
	}
	if q.MinCalls != nil {
		add("r.n_turns >= ?", *q.MinCalls)
	}
	if q.MaxCalls != nil {
		add("r.n_turns <= ?", *q.MaxCalls)
	}
	if q.MinPeakShare != nil {
		if diag {
			add("d.peak_share >= ?", *q.MinPeakShare)
		} else {
			add("false")
		}
	}
	if q.Resolved != nil {
		add("r.resolved = ?", *q.Resolved)
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 100_000
	}
	b.WriteString(" ORDER BY r.run_id LIMIT ?")
	args = append(args, limit)
	query := b.String()
	ids, err := queryRows(ctx, s.db, "filtered runs", query, args, func(rows *sql.Rows) (string, error) {
		var id string
		return id, rows.Scan(&id)
	})
	if err != nil {
		return nil, query, args, err
	}
	return ids, query, args, nil
}

// QueryRunIDs runs query, an untrusted read-only query (CheckQuery: one
// statement, a SELECT; on a sandboxed store, Config.Sandbox, nothing
// outside the database is reachable), and returns the values of its
// run_id column (any case), at most limit of them (≤ 0: 100,000), in the
// query's order. The query's text is passed to DuckDB as it is, never
// spliced into another statement; a result with no run_id column is an
// error naming the columns it has.
func (s *Store) QueryRunIDs(ctx context.Context, query string, limit int) ([]string, error) {
	if err := s.CheckQuery(query); err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	if limit <= 0 {
		limit = 100_000
	}
	rows, err := s.db.QueryContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	at := -1
	for i, c := range cols {
		if strings.EqualFold(c, schema.ColRunID) {
			at = i
			break
		}
	}
	if at < 0 {
		return nil, fmt.Errorf("query: no run_id column (it has %s): select the runs' run_id", strings.Join(cols, ", "))
	}
	vals := make([]any, len(cols))
	var id sql.NullString
	for i := range vals {
		vals[i] = new(any)
	}
	vals[at] = &id
	var out []string
	for rows.Next() && len(out) < limit {
		if err := rows.Scan(vals...); err != nil {
			return nil, fmt.Errorf("query: %w", err)
		}
		if id.Valid {
			out = append(out, id.String)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	return out, nil
}
