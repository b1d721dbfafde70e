package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/trajmine/trajmine/schema"
)

// StoredProfile is a run with its stored profile (schema.RunProfiles):
// Profile is the JSON, nil when none is stored for the run's current
// source under the fingerprint asked for.
type StoredProfile struct {
	Run     schema.Run
	Profile []byte
}

// StoredProfiles returns every run, in run_id order, with its profile
// when run_profiles holds one for its current source under fingerprint
// (none on a store without the table, such as a lake).
//
//	SELECT runColumns, p.profile FROM runs
//	  LEFT JOIN (SELECT … FROM run_profiles WHERE profiled_by = ?) p ON (run_id, source_sha256) match
//	  ORDER BY run_id
func (s *Store) StoredProfiles(ctx context.Context, fingerprint string) ([]StoredProfile, error) {
	ok, err := s.hasTable(ctx, schema.RunProfiles.Name)
	if err != nil {
		return nil, fmt.Errorf("stored profiles: %w", err)
	}
	q, args := `SELECT `+runColumns+`, NULL FROM runs ORDER BY run_id`, []any(nil)
	if ok {
		q = `SELECT ` + runColumns + `, p.profile FROM runs
LEFT JOIN (SELECT run_id AS p_run, source_sha256 AS p_source, profile FROM run_profiles WHERE profiled_by = ?) p
  ON p.p_run = runs.run_id AND p.p_source = runs.source_sha256
ORDER BY run_id`
		args = []any{fingerprint}
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("stored profiles: %w", err)
	}
	defer rows.Close()
	var out []StoredProfile
	for rows.Next() {
		var p sql.NullString
		r, err := scanRunWith(rows, &p)
		if err != nil {
			return nil, fmt.Errorf("stored profiles: %w", err)
		}
		sp := StoredProfile{Run: r}
		if p.Valid {
			sp.Profile = []byte(p.String)
		}
		out = append(out, sp)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("stored profiles: %w", err)
	}
	return out, nil
}

// RunsWithoutProfiles returns, by run id, the source of every run whose
// profile is not stored for that source under fingerprint, and how many
// runs the store has.
func (s *Store) RunsWithoutProfiles(ctx context.Context, fingerprint string) (map[string]string, int, error) {
	var runs int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM runs`).Scan(&runs); err != nil {
		return nil, 0, fmt.Errorf("runs without profiles: %w", err)
	}
	ok, err := s.hasTable(ctx, schema.RunProfiles.Name)
	if err != nil {
		return nil, 0, fmt.Errorf("runs without profiles: %w", err)
	}
	q, args := `SELECT run_id, source_sha256 FROM runs`, []any(nil)
	if ok {
		q = `SELECT r.run_id, r.source_sha256 FROM runs r
WHERE NOT EXISTS (SELECT 1 FROM run_profiles p WHERE p.run_id = r.run_id AND p.source_sha256 = r.source_sha256 AND p.profiled_by = ?)`
		args = []any{fingerprint}
	}
	out := map[string]string{}
	if err := s.eachRow(ctx, q, args, func(rows rowScanner) error {
		var id, sha string
		if err := rows.Scan(&id, &sha); err != nil {
			return err
		}
		out[id] = sha
		return nil
	}); err != nil {
		return nil, 0, fmt.Errorf("runs without profiles: %w", err)
	}
	return out, runs, nil
}
