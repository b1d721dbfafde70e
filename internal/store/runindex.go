package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/trajmine/trajmine/actions"
)

// rowSpan is the first and last rowid of a run's rows in one table.
type rowSpan struct{ lo, hi int64 }

// runSpans is where each run's rows lie (IndexRuns): by run id, its span
// in events, usage and context_ops (absent: no rows there).
type runSpans struct {
	events, usage, ops map[string]rowSpan
	runs               map[string]bool
}

// IndexRuns reads, on a store opened read-only, where each run's rows lie
// in events, usage and context_ops (the first and last rowid of its rows:
// an import appends a run's rows together, so the span is about the run's
// rows only), and returns every run id of the store, sorted. From then on
// ConversationRows reads one run with predicates DuckDB's scan prunes
// with (rowid BETWEEN lo AND hi, checked against each row group's and
// vector's row range, and run_id = ?), not a join over every run's rows:
// trajmine serve opens one conversation at a time. The spans stay right
// while the handle is open, for nothing writes through a read-only
// handle; a writable store is refused.
//
//	SELECT run_id, min(rowid), max(rowid) FROM events GROUP BY run_id   (and usage, context_ops)
func (s *Store) IndexRuns(ctx context.Context) ([]string, error) {
	if !s.readOnly {
		return nil, errors.New("index runs: the store is writable (rowids move as it is written)")
	}
	idx := &runSpans{runs: map[string]bool{}}
	for _, t := range []struct {
		table string
		dst   *map[string]rowSpan
	}{{"events", &idx.events}, {"usage", &idx.usage}, {"context_ops", &idx.ops}} {
		m := map[string]rowSpan{}
		err := eachRow(ctx, s, "SELECT run_id, min(rowid), max(rowid) FROM "+t.table+" GROUP BY run_id", func(sc func(...any) error) error {
			var id string
			var sp rowSpan
			if err := sc(&id, &sp.lo, &sp.hi); err != nil {
				return err
			}
			m[id] = sp
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("index runs: %s: %w", t.table, err)
		}
		*t.dst = m
	}
	var ids []string
	err := eachRow(ctx, s, "SELECT run_id FROM runs ORDER BY run_id", func(sc func(...any) error) error {
		var id string
		if err := sc(&id); err != nil {
			return err
		}
		ids = append(ids, id)
		idx.runs[id] = true
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("index runs: %w", err)
	}
	s.spans.Store(idx)
	return ids, nil
}

// eachRow runs q and calls f with each row's Scan.
func eachRow(ctx context.Context, s *Store, q string, f func(scan func(...any) error) error) error {
	rows, err := s.db.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := f(rows.Scan); err != nil {
			return err
		}
	}
	return rows.Err()
}

// runRows is ConversationRows for one run on an indexed store: each table
// read within the run's span (a table where the run has no rows is not
// read).
//
//	SELECT <runs columns> FROM runs WHERE run_id = ?
//	SELECT <events columns> FROM events e WHERE e.rowid BETWEEN ? AND ? AND e.run_id = ? ORDER BY seq
//	SELECT <usage columns> FROM usage WHERE rowid BETWEEN ? AND ? AND run_id = ? ORDER BY turn
//	SELECT <context_ops columns> FROM context_ops WHERE rowid BETWEEN ? AND ? AND run_id = ? ORDER BY seq, op, tool_key
func (s *Store) runRows(ctx context.Context, idx *runSpans, id string, n int) (map[string]*RunRows, error) {
	out := map[string]*RunRows{}
	if !idx.runs[id] {
		return out, nil
	}
	runs, err := queryRows(ctx, s.db, "runs", `SELECT `+runColumns+` FROM runs WHERE run_id = ?`, []any{id}, scanRun)
	if err != nil || len(runs) == 0 {
		return out, err
	}
	r := &RunRows{Run: runs[0]}
	out[id] = r
	const in = ` WHERE rowid BETWEEN ? AND ? AND run_id = ?`
	if sp, ok := idx.events[id]; ok {
		sel, qargs := conversationEvents(n, "?", r.Run.ClassifiedBy == actions.DefaultFingerprint())
		if r.Events, err = queryRows(ctx, s.db, "events", sel+` FROM events e WHERE e.rowid BETWEEN ? AND ? AND e.run_id = ? ORDER BY seq`, append(qargs, sp.lo, sp.hi, id), scanEvent); err != nil {
			return nil, err
		}
	}
	if sp, ok := idx.usage[id]; ok {
		if r.Usage, err = queryRows(ctx, s.db, "usage", `SELECT `+usageColumns+` FROM usage`+in+` ORDER BY turn`, []any{sp.lo, sp.hi, id}, scanUsage); err != nil {
			return nil, err
		}
	}
	if sp, ok := idx.ops[id]; ok {
		if r.Ops, err = queryRows(ctx, s.db, "context_ops", `SELECT `+opColumns+` FROM context_ops`+in+` ORDER BY seq, op, tool_key`, []any{sp.lo, sp.hi, id}, scanOp); err != nil {
			return nil, err
		}
	}
	return out, nil
}
