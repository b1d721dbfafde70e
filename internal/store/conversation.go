package store

import (
	"context"
	"slices"

	"github.com/trajmine/trajmine/actions"
	"github.com/trajmine/trajmine/schema"
)

// RunRows are one run's rows as a conversation view reads them.
type RunRows struct {
	Run    schema.Run
	Events []schema.Event // by seq
	Usage  []schema.Usage // by turn
	Ops    []schema.ContextOp
}

// ConversationRows reads the rows of the runs ids in four queries, not
// four per run (a page of hundreds of conversations would otherwise scan
// the events table hundreds of times), with each event's text and
// arguments cut to their first n characters in the query (n ≤ 0: whole),
// so that a view of the texts' starts does not read the outputs whole.
// A run id the store does not hold has no entry. One run on a store
// IndexRuns indexed is read from its own rows only (runRows).
//
//	SELECT <runs columns> FROM runs WHERE run_id IN (SELECT unnest(?::VARCHAR[]))
//	SELECT e.run_id, e.seq, …, substr(e.args, 1, n), …, substr(e.text, 1, n), …
//	  FROM events e JOIN runs r USING (run_id) WHERE run_id IN (…) ORDER BY run_id, seq
//	SELECT <usage columns> FROM usage WHERE run_id IN (…) ORDER BY run_id, turn
//	SELECT <context_ops columns> FROM context_ops WHERE run_id IN (…) ORDER BY run_id, seq, op, tool_key
func (s *Store) ConversationRows(ctx context.Context, ids []string, n int) (map[string]*RunRows, error) {
	out := make(map[string]*RunRows, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	if idx := s.spans.Load(); idx != nil && len(ids) == 1 {
		return s.runRows(ctx, idx, ids[0], n)
	}
	list := slices.Clip(ids)
	const in = ` WHERE run_id IN (SELECT unnest(?::VARCHAR[]))`
	runs, err := queryRows(ctx, s.db, "runs", `SELECT `+runColumns+` FROM runs`+in, []any{list}, scanRun)
	if err != nil {
		return nil, err
	}
	for _, r := range runs {
		out[r.RunID] = &RunRows{Run: r}
	}
	sel, qargs := conversationEvents(n, "r.classified_by = ?", actions.DefaultFingerprint())
	events, err := queryRows(ctx, s.db, "events", sel+` FROM events e JOIN runs r USING (run_id)`+in+` ORDER BY run_id, seq`, append(qargs, list), scanEvent)
	if err != nil {
		return nil, err
	}
	for _, e := range events {
		if r := out[e.RunID]; r != nil {
			r.Events = append(r.Events, e)
		}
	}
	usage, err := queryRows(ctx, s.db, "usage", `SELECT `+usageColumns+` FROM usage`+in+` ORDER BY run_id, turn`, []any{list}, scanUsage)
	if err != nil {
		return nil, err
	}
	for _, u := range usage {
		if r := out[u.RunID]; r != nil {
			r.Usage = append(r.Usage, u)
		}
	}
	ops, err := queryRows(ctx, s.db, "context_ops", `SELECT `+opColumns+` FROM context_ops`+in+` ORDER BY run_id, seq, op, tool_key`, []any{list}, scanOp)
	if err != nil {
		return nil, err
	}
	for _, o := range ops {
		if r := out[o.RunID]; r != nil {
			r.Ops = append(r.Ops, o)
		}
	}
	return out, nil
}

// conversationEvents is the select list of ConversationRows's events
// query and its arguments: the columns and order of scanEvent, each
// event's text and arguments cut to n characters (n ≤ 0: whole), and
// action_class only where classified (a condition on the run's
// classified_by with its argument: the run was classified by the current
// default classifier, as Events).
func conversationEvents(n int, classified string, arg any) (string, []any) {
	text, args := "e.text", "e.args"
	var qargs []any
	if n > 0 {
		text, args = "substr(e.text, 1, ?)", "substr(e.args, 1, ?)"
		qargs = []any{n, n}
	}
	return `SELECT e.run_id, e.seq, e.turn, e.ts, e.kind, e.role, e.tool_name, e.call_id, e.tool_key, e.target, ` + args + `, e.chars, e.est_tokens, e.is_error, e.exit_code, e.line, ` + text + `, coalesce(e.envelope_tokens, 0),
  CASE WHEN ` + classified + ` THEN coalesce(e.action_class, '') ELSE '' END, coalesce(e.error_rule, '')`, append(qargs, arg)
}
