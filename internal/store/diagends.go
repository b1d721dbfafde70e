package store

import (
	"context"
	"fmt"

	"github.com/trajmine/trajmine/schema"
)

// DiagEnd is a run's end reason as the last trajmine diagnose decided it
// (diag_runs: end_reason, end_reason_source, end_rule, end_reason_why).
type DiagEnd struct {
	Reason schema.EndReason
	Source schema.ReasonSource
	Rule   string
	Why    string
}

// DiagEnds returns the end reasons diag_runs holds, by run id: of run runID,
// or of every run when runID is "". It is empty when no diagnosis is stored
// (the table is written by trajmine diagnose and trajmine report only).
func (s *Store) DiagEnds(ctx context.Context, runID string) (map[string]DiagEnd, error) {
	out := map[string]DiagEnd{}
	ok, err := s.hasTable(ctx, schema.TableDiagRuns)
	if err != nil || !ok {
		if err != nil {
			err = fmt.Errorf("diagnosed end reasons: %w", err)
		}
		return out, err
	}
	q := `SELECT run_id, end_reason, end_reason_source, end_rule, end_reason_why FROM ` + schema.TableDiagRuns
	var args []any
	if runID != "" {
		q += ` WHERE run_id = ?`
		args = append(args, runID)
	}
	if err := s.eachRow(ctx, q, args, func(rows rowScanner) error {
		var id, reason, source string
		var e DiagEnd
		if err := rows.Scan(&id, &reason, &source, &e.Rule, &e.Why); err != nil {
			return err
		}
		e.Reason, e.Source = schema.EndReason(reason), schema.ReasonSource(source)
		out[id] = e
		return nil
	}); err != nil {
		return nil, fmt.Errorf("diagnosed end reasons: %w", err)
	}
	return out, nil
}
