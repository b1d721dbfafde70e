package store

import (
	"context"
	"database/sql/driver"
	"fmt"

	"github.com/duckdb/duckdb-go/v2"
)

// Reclassify brings the runs an older version imported up to what ingest
// stores now, in one transaction: the tool calls of every run whose
// classified_by is not fingerprint get classify(run's harness, tool name,
// arguments) as their action_class, and the run gets fingerprint; a run
// whose system_mentions_manage_context is NULL gets whether the text of
// one of its system events contains manage_context (the rule
// ingest.RunBuilder applies). It returns how many runs it classified.
//
//	SELECT e.run_id, r.harness, e.seq, e.tool_name, e.args FROM events e JOIN runs r USING (run_id)
//	  WHERE e.kind = 'tool_call' AND r.classified_by IS DISTINCT FROM ?
//	-- appended to a staging table, then
//	UPDATE events SET action_class = c.action_class FROM staging c WHERE (run_id, seq, kind) match
//	UPDATE runs SET classified_by = ? WHERE classified_by IS DISTINCT FROM ?
//	UPDATE runs SET system_mentions_manage_context = … WHERE system_mentions_manage_context IS NULL
func (s *Store) Reclassify(ctx context.Context, fingerprint string, classify func(harness, tool, args string) string) (n int, err error) {
	if s.readOnly {
		return 0, fmt.Errorf("reclassify: database %s is open read-only", s.path)
	}
	if n, err = s.RunsNotClassified(ctx, fingerprint); err != nil || n == 0 {
		var flags int
		if err == nil {
			err = s.db.QueryRowContext(ctx, `SELECT count(*) FROM runs WHERE system_mentions_manage_context IS NULL`).Scan(&flags)
		}
		if err != nil || flags == 0 {
			return 0, err
		}
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN TRANSACTION"); err != nil {
		return 0, err
	}
	defer func() {
		if err != nil {
			_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
			err = fmt.Errorf("reclassify: %w", err)
		}
	}()
	const staging = "reclassify_staging"
	type stmt struct {
		sql  string
		args []any
	}
	var qs []stmt
	if n > 0 {
		if _, err = conn.ExecContext(ctx, `CREATE OR REPLACE TABLE `+staging+` (run_id VARCHAR, seq BIGINT, action_class VARCHAR)`); err != nil {
			return 0, err
		}
		var app *duckdb.Appender
		if err = conn.Raw(func(dc any) error {
			var err error
			app, err = duckdb.NewAppenderFromConn(dc.(driver.Conn), "", staging)
			return err
		}); err != nil {
			return 0, err
		}
		// read on another connection (the events are not changed until the
		// UPDATE below), append on this one
		rowErr := s.eachRow(ctx, `SELECT e.run_id, r.harness, e.seq, e.tool_name, coalesce(e.args, '') FROM events e JOIN runs r USING (run_id)
WHERE e.kind = 'tool_call' AND r.classified_by IS DISTINCT FROM ?`, []any{fingerprint}, func(rows rowScanner) error {
			var id, harness, tool, args string
			var seq int64
			if err := rows.Scan(&id, &harness, &seq, &tool, &args); err != nil {
				return err
			}
			return app.AppendRow(id, seq, classify(harness, tool, args))
		})
		closeErr := app.Close()
		if err = rowErr; err == nil {
			err = closeErr
		}
		if err != nil {
			return 0, err
		}
		qs = append(qs, stmt{`UPDATE events SET action_class = c.action_class FROM ` + staging + ` c
WHERE events.run_id = c.run_id AND events.seq = c.seq AND events.kind = 'tool_call'`, nil},
			stmt{`UPDATE runs SET classified_by = ? WHERE classified_by IS DISTINCT FROM ?`, []any{fingerprint, fingerprint}},
			stmt{`DROP TABLE ` + staging, nil})
	}
	qs = append(qs, stmt{`UPDATE runs SET system_mentions_manage_context = run_id IN (
  SELECT run_id FROM events WHERE kind = 'system' AND contains(text, 'manage_context')
    AND run_id IN (SELECT run_id FROM runs WHERE system_mentions_manage_context IS NULL))
WHERE system_mentions_manage_context IS NULL`, nil})
	for _, q := range qs {
		if _, err = conn.ExecContext(ctx, q.sql, q.args...); err != nil {
			return 0, err
		}
	}
	_, err = conn.ExecContext(ctx, "COMMIT")
	return n, err
}
