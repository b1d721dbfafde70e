package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// ErrNoEvent is EventText's error for a (run, seq) that names no event.
var ErrNoEvent = errors.New("no such event")

// EventText returns one event's whole text and arguments.
//
//	SELECT text, args FROM events WHERE run_id = ? AND seq = ?
func (s *Store) EventText(ctx context.Context, runID string, seq int64) (text, args string, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT text, args FROM events WHERE run_id = ? AND seq = ?`, runID, seq).Scan(&text, &args)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", fmt.Errorf("run %q, seq %d: %w", runID, seq, ErrNoEvent)
	}
	if err != nil {
		return "", "", fmt.Errorf("query event text: %w", err)
	}
	return text, args, nil
}

// TextSearch is a search of the log text of every run (SearchText).
type TextSearch struct {
	// Query is the text looked for: a substring matched in any case
	// (every character literal), or with Regexp a regular expression
	// (DuckDB's regexp_matches, RE2 syntax; (?i) makes it case-blind).
	Query  string
	Regexp bool
	// Limit is the most runs returned (their order: most matching events
	// first, then run id); ≤ 0 is 100.
	Limit int
	// Context is the characters of text kept on each side of the first
	// match of each run (its snippet); ≤ 0 is 80.
	Context int
}

// SearchHit is one run's matches: how many events match and where the
// first one is, with a snippet of its text around the match.
type SearchHit struct {
	RunID   string `json:"run_id"`
	Hits    int64  `json:"hits"` // matching events of the run
	Seq     int64  `json:"seq"`  // the first matching event
	Turn    int64  `json:"turn"`
	Kind    string `json:"kind"`
	Tool    string `json:"tool"`
	Snippet string `json:"snippet"` // its text around its first match
	Match   string `json:"match"`   // the matched text (a regular expression's match; the query itself otherwise)
}

// SearchResult is a search's runs and totals.
type SearchResult struct {
	Runs      []SearchHit `json:"runs"`
	TotalRuns int64       `json:"total_runs"` // runs with a match (Runs holds at most Limit)
	TotalHits int64       `json:"total_hits"` // matching events over every run
}

// likePattern is q as an ILIKE pattern matching q anywhere, every
// character literal (ESCAPE '\'): for short columns (a model's name).
func likePattern(q string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(q) + "%"
}

// literalPattern is q as a regular expression (RE2) matching q anywhere,
// every character literal; regexp_matches(x, literalPattern(q), 'i')
// matches it in any case. Over the events' text DuckDB reads that several
// times faster than an ILIKE with an ESCAPE clause (which an ILIKE of user
// text needs: % and _ are literal there) or a (?i) in the pattern
// (BENCHMARKS.md, trajmine serve).
func literalPattern(q string) string {
	return regexp.QuoteMeta(q)
}

// SearchText finds the events whose text matches q.Query, over every run
// of the store: one scan of events.text (a tool call's text holds its
// name and arguments) with DuckDB's regexp_matches, whose cost grows with
// the text the store holds (TextStats). Every value is a parameter;
// nothing of the query is spliced into the SQL. M is
// regexp_matches(text, ?, 'i') with the query as a literal
// (literalPattern) and P = ? (the query itself), or with Regexp M is
// regexp_matches(text, ?) with the query as it is and P =
// regexp_extract(text, ?):
//
//	WITH h AS (SELECT run_id, seq, turn, kind, tool_name, text, P AS hit FROM events WHERE M)
//	SELECT run_id, count(*), min(seq), arg_min(turn, seq), arg_min(kind, seq), arg_min(tool_name, seq),
//	  arg_min(substr(text, greatest(1, strpos(lower(text), lower(hit)) - ?), length(hit) + 2 * ?), seq), arg_min(hit, seq),
//	  count(*) OVER (), sum(count(*)) OVER ()
//	FROM h GROUP BY run_id ORDER BY count(*) DESC, run_id LIMIT ?
func (s *Store) SearchText(ctx context.Context, q TextSearch) (SearchResult, error) {
	out := SearchResult{Runs: []SearchHit{}}
	if q.Query == "" {
		return out, errors.New("search: empty query")
	}
	limit, ctxChars := q.Limit, q.Context
	if limit <= 0 {
		limit = 100
	}
	if ctxChars <= 0 {
		ctxChars = 80
	}
	match, pos, pat := `regexp_matches(text, ?, 'i')`, `?`, literalPattern(q.Query)
	if q.Regexp {
		match, pos, pat = `regexp_matches(text, ?)`, `regexp_extract(text, ?)`, q.Query
	}
	query := `WITH h AS (SELECT run_id, seq, turn, kind, tool_name, text, ` + pos + ` AS hit FROM events WHERE ` + match + `)
SELECT run_id, count(*), min(seq), arg_min(turn, seq), arg_min(kind, seq), arg_min(tool_name, seq),
  arg_min(substr(text, greatest(1, strpos(lower(text), lower(hit)) - ?), length(hit) + 2 * ?), seq), arg_min(hit, seq),
  count(*) OVER (), sum(count(*)) OVER ()
FROM h GROUP BY run_id ORDER BY count(*) DESC, run_id LIMIT ?`
	rows, err := s.db.QueryContext(ctx, query, q.Query, pat, ctxChars, ctxChars, limit)
	if err != nil {
		return out, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var h SearchHit
		var tool, snippet, hit sql.NullString
		if err := rows.Scan(&h.RunID, &h.Hits, &h.Seq, &h.Turn, &h.Kind, &tool, &snippet, &hit, &out.TotalRuns, &out.TotalHits); err != nil {
			return out, fmt.Errorf("search: %w", err)
		}
		h.Tool, h.Snippet, h.Match = tool.String, snippet.String, hit.String
		out.Runs = append(out.Runs, h)
	}
	if err := rows.Err(); err != nil {
		return out, fmt.Errorf("search: %w", err)
	}
	return out, nil
}

// TextStats are the size of the text a search scans.
type TextStats struct {
	Events int64 `json:"events"`
	Chars  int64 `json:"chars"` // Σ length(text)
}

// TextStats returns how many events and characters of text the store
// holds: what SearchText scans.
//
//	SELECT count(*), coalesce(sum(length(text)), 0) FROM events
func (s *Store) TextStats(ctx context.Context) (TextStats, error) {
	var t TextStats
	if err := s.db.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(length(text)), 0) FROM events`).Scan(&t.Events, &t.Chars); err != nil {
		return t, fmt.Errorf("text stats: %w", err)
	}
	return t, nil
}
