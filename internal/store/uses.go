package store

import (
	"context"
	"fmt"

	"github.com/trajmine/trajmine/schema"
)

// StoredUse is one output_uses row: the tool_result event at OutputSeq was
// used by model call Call, by its content or its target.
type StoredUse struct {
	OutputSeq, Call int64
	Kind            string
}

// hasTable reports whether the store's database has the table, or a view
// of that name (derived tables exist once written; a lake's reader has
// views over their part files).
func (s *Store) hasTable(ctx context.Context, name string) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' AND table_name = ?)
  + (SELECT count(*) FROM duckdb_views() WHERE database_name = current_database() AND schema_name = 'main' AND view_name = ?)`, name, name).Scan(&n)
	return n > 0, err
}

// RunsWithoutUses returns, in run_id order, the runs with disable ops
// whose uses are not stored for their current source at this version
// (schema.UsesRuns).
func (s *Store) RunsWithoutUses(ctx context.Context, version int) ([]string, error) {
	q := `SELECT DISTINCT run_id FROM context_ops WHERE op = 'disable' ORDER BY run_id`
	var args []any
	ok, err := s.hasTable(ctx, schema.UsesRuns.Name)
	if err != nil {
		return nil, fmt.Errorf("runs without uses: %w", err)
	}
	if ok {
		q = `SELECT DISTINCT o.run_id FROM context_ops o JOIN runs r USING (run_id)
WHERE o.op = 'disable' AND NOT EXISTS (SELECT 1 FROM uses_runs u WHERE u.run_id = o.run_id AND u.source_sha256 = r.source_sha256 AND u.uses_version = ?)
ORDER BY o.run_id`
		args = []any{version}
	}
	ids, err := s.strs(ctx, q, args)
	if err != nil {
		return nil, fmt.Errorf("runs without uses: %w", err)
	}
	return ids, nil
}

// StoredUses returns the stored uses of the runs whose uses_runs row names
// their current source and this version, by run id (a run with no uses
// has an empty, non-nil list); runs not in the map have none stored.
func (s *Store) StoredUses(ctx context.Context, version int) (map[string][]StoredUse, error) {
	out := map[string][]StoredUse{}
	ok, err := s.hasTable(ctx, schema.UsesRuns.Name)
	if err != nil || !ok {
		return out, err
	}
	current := `SELECT u.run_id FROM uses_runs u JOIN runs r ON r.run_id = u.run_id AND r.source_sha256 = u.source_sha256 WHERE u.uses_version = ?`
	ids, err := s.strs(ctx, current, []any{version})
	if err != nil {
		return nil, fmt.Errorf("stored uses: %w", err)
	}
	for _, id := range ids {
		out[id] = []StoredUse{}
	}
	if err := s.eachRow(ctx, `SELECT run_id, output_seq, call, kind FROM output_uses WHERE run_id IN (`+current+`) ORDER BY run_id, output_seq, call`, []any{version}, func(rows rowScanner) error {
		var id string
		var u StoredUse
		if err := rows.Scan(&id, &u.OutputSeq, &u.Call, &u.Kind); err != nil {
			return err
		}
		if us, ok := out[id]; ok {
			out[id] = append(us, u)
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("stored uses: %w", err)
	}
	return out, nil
}
