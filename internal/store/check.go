package store

import (
	"context"
	"fmt"

	"github.com/trajmine/trajmine/schema"
)

// Problem is one broken invariant found by Check: how many rows break it
// and one of them.
type Problem struct {
	Rule    string `json:"rule"`
	Rows    int64  `json:"rows"`
	Example string `json:"example"`
}

func (p Problem) String() string {
	return fmt.Sprintf("%s: %d row(s), e.g. %s", p.Rule, p.Rows, p.Example)
}

// checks are the store's consistency rules, each a query returning the
// number of rows that break it and one example. Every rule holds after any
// sequence of imports (each file's rows are written in one transaction);
// Check runs them all.
var checks = []struct{ rule, query string }{}

func init() {
	for _, t := range []string{schema.TableEvents, schema.TableUsage, schema.TableToolOutputs, schema.TableContextOps} {
		checks = append(checks, struct{ rule, query string }{
			"every " + t + " row belongs to a run",
			"SELECT count(*), coalesce(min(run_id), '') FROM " + t + " WHERE run_id NOT IN (SELECT run_id FROM runs)",
		})
	}
	checks = append(checks, []struct{ rule, query string }{
		{"every run belongs to an imported file (sources)",
			"SELECT count(*), coalesce(min(run_id), '') FROM runs r WHERE NOT EXISTS (SELECT 1 FROM sources s WHERE s.source_path = r.source_path AND s.source_sha256 = r.source_sha256)"},
		{"run ids are unique",
			"SELECT count(*), coalesce(min(run_id), '') FROM (SELECT run_id FROM runs GROUP BY run_id HAVING count(*) > 1)"},
		{"an event's (run_id, seq) is unique",
			"SELECT count(*), coalesce(min(run_id || '/' || seq), '') FROM (SELECT run_id, seq FROM events GROUP BY ALL HAVING count(*) > 1)"},
		{"a file's sha256 is imported once (at each path, for path-keyed formats)",
			"SELECT count(*), coalesce(min(source_sha256), '') FROM (SELECT source_sha256, CASE WHEN source_format IN " + pathKeyedFormats() +
				" THEN source_path END FROM sources GROUP BY ALL HAVING count(*) > 1)"},
		{"sources.n_runs counts the file's runs",
			"SELECT count(*), coalesce(min(s.source_path), '') FROM sources s LEFT JOIN (SELECT source_path, source_sha256, count(*) AS n FROM runs GROUP BY ALL) r USING (source_path, source_sha256) WHERE s.n_runs <> coalesce(r.n, 0)"},
		{"sources.n_events counts the file's events",
			"SELECT count(*), coalesce(min(s.source_path), '') FROM sources s LEFT JOIN (SELECT r.source_path, r.source_sha256, count(*) AS n FROM events e JOIN runs r USING (run_id) GROUP BY ALL) e USING (source_path, source_sha256) WHERE s.n_events <> coalesce(e.n, 0)"},
		// outcome files (ApplyOutcomes)
		{"every outcome row belongs to an imported file (sources)",
			"SELECT count(*), coalesce(min(source_path || ':' || line), '') FROM outcomes o WHERE NOT EXISTS (SELECT 1 FROM sources s WHERE s.source_path = o.source_path AND s.source_sha256 = o.source_sha256)"},
		{"sources.n_outcomes counts the file's outcome rows",
			"SELECT count(*), coalesce(min(s.source_path), '') FROM sources s LEFT JOIN (SELECT source_path, source_sha256, count(*) AS n FROM outcomes GROUP BY ALL) o USING (source_path, source_sha256) WHERE coalesce(s.n_outcomes, 0) <> coalesce(o.n, 0)"},
		{"runs.resolved, score and outcome_source are what store.OutcomesSQL gives",
			"SELECT count(*), coalesce(min(run_id), '') FROM runs r JOIN (" + OutcomesSQL + ") w USING (run_id) WHERE (r.resolved, r.score, r.outcome_source) IS DISTINCT FROM (w.resolved, w.score, w.outcome_source)"},
		{"outcomes.n_runs and n_applied count the runs the outcome rule matches and gives an outcome",
			"WITH outcome_pairs AS (" + OutcomePairsSQL + ") SELECT count(*), coalesce(min(o.source_path || ':' || o.line), '') FROM outcomes o JOIN (" + outcomeCountsSQL + ") c ON c.oid = o.rowid WHERE (o.n_runs, o.n_applied) IS DISTINCT FROM (c.n, c.a)"},
		// resumed sessions counted once (MarkCopies)
		{"usage.copy_of_run_id marks the copies store.CopiesSQL finds",
			"SELECT count(*), coalesce(min(run_id || '/' || turn), '') FROM usage u LEFT JOIN (" + CopiesSQL + ") c USING (run_id, turn, request_id) WHERE u.copy_of_run_id IS DISTINCT FROM c.origin_run_id"},
		{"a copied usage row's tokens are in its copied_* columns, an original's in input_tokens …",
			"SELECT count(*), coalesce(min(run_id || '/' || turn), '') FROM usage WHERE CASE WHEN copy_of_run_id IS NULL " +
				"THEN coalesce(copied_input_tokens, 0) <> 0 OR coalesce(copied_output_tokens, 0) <> 0 OR coalesce(copied_cache_read_tokens, 0) <> 0 OR coalesce(copied_cache_write_tokens, 0) <> 0 OR coalesce(copied_reasoning_tokens, 0) <> 0 " +
				"ELSE input_tokens <> 0 OR output_tokens <> 0 OR cache_read_tokens <> 0 OR cache_write_tokens <> 0 OR reasoning_tokens <> 0 END"},
		{"runs.copied_* and continues_run_id sum the run's copied usage rows",
			"SELECT count(*), coalesce(min(run_id), '') FROM runs r LEFT JOIN (SELECT run_id, count(*) AS n, sum(copied_input_tokens) AS i, sum(copied_output_tokens) AS o, " +
				"sum(copied_cache_read_tokens) AS cr, sum(copied_cache_write_tokens) AS cw, sum(copied_reasoning_tokens) AS rs, arg_max(copy_of_run_id, turn) AS origin " +
				"FROM usage WHERE copy_of_run_id IS NOT NULL GROUP BY run_id) c USING (run_id) " +
				"WHERE (coalesce(r.copied_calls, 0), coalesce(r.copied_input_tokens, 0), coalesce(r.copied_output_tokens, 0), coalesce(r.copied_cache_read_tokens, 0), " +
				"coalesce(r.copied_cache_write_tokens, 0), coalesce(r.copied_reasoning_tokens, 0), r.continues_run_id) IS DISTINCT FROM " +
				"(coalesce(c.n, 0), coalesce(c.i, 0), coalesce(c.o, 0), coalesce(c.cr, 0), coalesce(c.cw, 0), coalesce(c.rs, 0), c.origin)"},
	}...)
}

// Check tests the store's consistency rules (checks) and returns the ones
// broken; none means the store is consistent. trajmine check prints them,
// and the tests run it after every import.
func (s *Store) Check(ctx context.Context) ([]Problem, error) {
	var out []Problem
	for _, c := range checks {
		var p Problem
		if err := s.db.QueryRowContext(ctx, c.query).Scan(&p.Rows, &p.Example); err != nil {
			return nil, fmt.Errorf("check %q: %w", c.rule, err)
		}
		if p.Rows > 0 {
			p.Rule = c.rule
			out = append(out, p)
		}
	}
	return out, nil
}

// CheckRules lists the rules Check tests, in order.
func CheckRules() []string {
	out := make([]string, len(checks))
	for i, c := range checks {
		out[i] = c.rule
	}
	return out
}
