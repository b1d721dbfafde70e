package store_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/schema"
)

// copyRow is one usage row of a copies test run.
type copyRow struct {
	req     string
	in, out int64
	est     bool
}

// copyRun is a run of a copies test: its end and its usage rows, turn by turn.
type copyRun struct {
	id    string
	ended int // hour of 2026-01-01; -1: unknown (NULL)
	rows  []copyRow
}

// The runs of the copies tests: b resumed a (ended later: m1 and m2
// copied, m3 its own); c resumed b (m1 and m2 come from a, which ended
// first, m3 from b; m4 its own); d holds m1 with other tokens (no copy)
// and m2 estimated (never a copy).
var (
	copyA = copyRun{"a", 1, []copyRow{{"m1", 100, 10, false}, {"m2", 200, 20, false}}}
	copyB = copyRun{"b", 3, []copyRow{{"m1", 100, 10, false}, {"m2", 200, 20, false}, {"m3", 300, 30, false}}}
	copyC = copyRun{"c", 5, []copyRow{{"m1", 100, 10, false}, {"m2", 200, 20, false}, {"m3", 300, 30, false}, {"m4", 1, 1, false}}}
	copyD = copyRun{"d", 0, []copyRow{{"m1", 999, 10, false}, {"m2", 200, 20, true}}}
)

// importCopyRun imports r as the file r.id (its content: contentTag, so
// that importing it again with other rows replaces it), with run totals
// summed over its rows as the run builder sums them.
func importCopyRun(t *testing.T, st *store.Store, r copyRun, contentTag string) {
	t.Helper()
	ctx := context.Background()
	src := &schema.Source{Path: r.id, SHA256: r.id + contentTag}
	tx, err := st.Begin(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	run := &schema.Run{RunID: r.id, SourcePath: r.id, SourceSHA256: src.SHA256, EndReason: schema.EndUnknown,
		EndReasonSource: schema.SourceInferred, NTurns: int64(len(r.rows)), UsageCalls: int64(len(r.rows))}
	if r.ended >= 0 {
		e := time.Date(2026, 1, 1, r.ended, 0, 0, 0, time.UTC)
		run.EndedAt = &e
	}
	for _, u := range r.rows {
		run.InputTokens += u.in
		run.OutputTokens += u.out
	}
	if err := tx.Run(run); err != nil {
		t.Fatal(err)
	}
	for i, u := range r.rows {
		if err := tx.Usage(&schema.Usage{RunID: r.id, Turn: int64(i), RequestID: u.req, InputTokens: u.in, OutputTokens: u.out, Estimated: u.est}); err != nil {
			t.Fatal(err)
		}
	}
	src.Runs = 1
	if err := tx.Commit(src); err != nil {
		t.Fatal(err)
	}
}

// usageMark is one usage row as the table stores it after MarkCopies.
type usageMark struct {
	Run, Req, CopyOf       string
	In, Out, CopIn, CopOut int64
}

// runMark is one runs row's counted and copied tokens.
type runMark struct {
	Run, Continues                string
	In, Out, Calls, CopIn, CopOut int64
}

func readMarks(t *testing.T, st *store.Store) ([]usageMark, []runMark) {
	t.Helper()
	ctx := context.Background()
	rows, err := st.DB().QueryContext(ctx, `SELECT run_id, request_id, coalesce(copy_of_run_id, ''), input_tokens, output_tokens, copied_input_tokens, copied_output_tokens FROM usage ORDER BY run_id, turn`)
	if err != nil {
		t.Fatal(err)
	}
	var us []usageMark
	for rows.Next() {
		var u usageMark
		if err := rows.Scan(&u.Run, &u.Req, &u.CopyOf, &u.In, &u.Out, &u.CopIn, &u.CopOut); err != nil {
			t.Fatal(err)
		}
		us = append(us, u)
	}
	rows.Close()
	rows, err = st.DB().QueryContext(ctx, `SELECT run_id, coalesce(continues_run_id, ''), input_tokens, output_tokens, copied_calls, copied_input_tokens, copied_output_tokens FROM runs ORDER BY run_id`)
	if err != nil {
		t.Fatal(err)
	}
	var rs []runMark
	for rows.Next() {
		var r runMark
		if err := rows.Scan(&r.Run, &r.Continues, &r.In, &r.Out, &r.Calls, &r.CopIn, &r.CopOut); err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	rows.Close()
	return us, rs
}

// sums are sum(input_tokens), sum(output_tokens) over usage and over runs.
func sums(t *testing.T, st *store.Store) [4]int64 {
	t.Helper()
	var s [4]int64
	if err := st.DB().QueryRowContext(context.Background(), `SELECT (SELECT sum(input_tokens) FROM usage), (SELECT sum(output_tokens) FROM usage),
  (SELECT sum(input_tokens) FROM runs), (SELECT sum(output_tokens) FROM runs)`).Scan(&s[0], &s[1], &s[2], &s[3]); err != nil {
		t.Fatal(err)
	}
	return s
}

// wantMarks are the marks of copyA … copyD, whatever the order they were
// imported in (hand-computed from the rule: a row is a copy of the run
// that ended first among those holding its request id and tokens).
var (
	wantUsage = []usageMark{
		{"a", "m1", "", 100, 10, 0, 0}, {"a", "m2", "", 200, 20, 0, 0},
		{"b", "m1", "a", 0, 0, 100, 10}, {"b", "m2", "a", 0, 0, 200, 20}, {"b", "m3", "", 300, 30, 0, 0},
		{"c", "m1", "a", 0, 0, 100, 10}, {"c", "m2", "a", 0, 0, 200, 20}, {"c", "m3", "b", 0, 0, 300, 30}, {"c", "m4", "", 1, 1, 0, 0},
		{"d", "m1", "", 999, 10, 0, 0}, {"d", "m2", "", 200, 20, 0, 0},
	}
	// b logged 600 in / 60 out, 300 / 30 of them copied; c logged 601 /
	// 61, 600 / 60 copied, the latest copied row (m3) from b
	wantRuns = []runMark{
		{"a", "", 300, 30, 0, 0, 0},
		{"b", "a", 300, 30, 2, 300, 30},
		{"c", "b", 1, 1, 3, 600, 60},
		{"d", "", 1199, 30, 0, 0, 0},
	}
	// each response once: a 300 + b 300 + c 1 + d 1,199 = 1,800 input;
	// 30 + 30 + 1 + 30 = 91 output (as logged: 2,700 and 181)
	wantSums = [4]int64{1800, 91, 1800, 91}
)

// TestMarkCopies: after each import (ingest's Finish), a usage row is a
// copy when another run holds the same request id with the same tokens and
// ended first, in whatever order the files were imported: a later import
// makes earlier rows copies. The same id with other tokens (two fixtures
// reusing "m1") is no copy; estimated rows never are. Sums over usage and
// over runs count each response once.
func TestMarkCopies(t *testing.T) {
	tests := []struct {
		name  string
		order []copyRun
	}{
		{"origin first", []copyRun{copyA, copyB, copyC, copyD}},
		{"resumptions first", []copyRun{copyC, copyB, copyA, copyD}},
		{"reversed", []copyRun{copyD, copyC, copyB, copyA}},
		{"origin last", []copyRun{copyB, copyD, copyC, copyA}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			st := newTestStore(t)
			for _, r := range tc.order {
				importCopyRun(t, st, r, "")
				if err := st.Finish(ctx); err != nil {
					t.Fatal(err)
				}
				mustCheck(t, st)
			}
			us, rs := readMarks(t, st)
			if diff := cmp.Diff(wantUsage, us); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantRuns, rs); diff != "" {
				t.Errorf("runs (-want +got):\n%s", diff)
			}
			if got := sums(t, st); got != wantSums {
				t.Errorf("sum(input), sum(output) over usage and runs = %v, want %v", got, wantSums)
			}
			if n, err := st.MarkCopies(ctx); err != nil || n != 0 {
				t.Errorf("MarkCopies again changed %d rows (%v), want 0", n, err)
			}
			got, err := st.Continuations(ctx)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]*store.Continuation{
				"b": {RunID: "b", OriginRunID: "a", Copied: map[string]bool{"m1": true, "m2": true}},
				"c": {RunID: "c", OriginRunID: "b", Copied: map[string]bool{"m1": true, "m2": true, "m3": true}},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Continuations (-want +got):\n%s", diff)
			}
			// the scan hands the logged tokens over, and the run a row copies
			var scanned []usageMark
			if err := st.Scan(ctx, store.ScanOptions{}, func(d *store.RunData) error {
				for _, u := range d.Usage {
					scanned = append(scanned, usageMark{Run: u.RunID, Req: u.RequestID, CopyOf: u.CopyOf, In: u.InputTokens, Out: u.OutputTokens})
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			slices.SortStableFunc(scanned, func(a, b usageMark) int { return strings.Compare(a.Run, b.Run) })
			var wantScanned []usageMark
			for _, u := range wantUsage {
				wantScanned = append(wantScanned, usageMark{Run: u.Run, Req: u.Req, CopyOf: u.CopyOf, In: u.In + u.CopIn, Out: u.Out + u.CopOut})
			}
			if diff := cmp.Diff(wantScanned, scanned); diff != "" {
				t.Errorf("scanned usage (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMarkCopiesReimport: a copy becomes an original again when its
// origin is imported anew without the response, and a run that ended
// earlier takes the origin over; the runs' totals follow.
func TestMarkCopiesReimport(t *testing.T) {
	ctx := context.Background()
	st := newTestStore(t)
	for _, r := range []copyRun{copyA, copyB, copyC, copyD} {
		importCopyRun(t, st, r, "")
	}
	if err := st.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	// a grew otherwise: only m1 now. m2's earliest holder is b (c copies
	// it from b); b's own calls are m2 and m3
	importCopyRun(t, st, copyRun{"a", 1, []copyRow{{"m1", 100, 10, false}}}, "v2")
	if err := st.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	us, rs := readMarks(t, st)
	wantU := []usageMark{
		{"a", "m1", "", 100, 10, 0, 0},
		{"b", "m1", "a", 0, 0, 100, 10}, {"b", "m2", "", 200, 20, 0, 0}, {"b", "m3", "", 300, 30, 0, 0},
		{"c", "m1", "a", 0, 0, 100, 10}, {"c", "m2", "b", 0, 0, 200, 20}, {"c", "m3", "b", 0, 0, 300, 30}, {"c", "m4", "", 1, 1, 0, 0},
		{"d", "m1", "", 999, 10, 0, 0}, {"d", "m2", "", 200, 20, 0, 0},
	}
	wantR := []runMark{
		{"a", "", 100, 10, 0, 0, 0},
		{"b", "a", 500, 50, 1, 100, 10},
		{"c", "b", 1, 1, 3, 600, 60},
		{"d", "", 1199, 30, 0, 0, 0},
	}
	if diff := cmp.Diff(wantU, us); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantR, rs); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
	// 100 + 500 + 1 + 1,199 input; 10 + 50 + 1 + 30 output
	if got, want := sums(t, st), [4]int64{1800, 91, 1800, 91}; got != want {
		t.Errorf("sums %v, want %v", got, want)
	}
	// a run with no known end comes after those that ended: c, not the
	// unknown e, is where e's copy of m4 is counted
	importCopyRun(t, st, copyRun{"e", -1, []copyRow{{"m4", 1, 1, false}, {"m5", 7, 7, false}}}, "")
	if err := st.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	_, rs = readMarks(t, st)
	if got, want := rs[4], (runMark{"e", "c", 7, 7, 1, 1, 1}); got != want {
		t.Errorf("run e %+v, want %+v", got, want)
	}
}

// TestCheckFindsUnmarkedCopies: trajmine check finds copies left
// unmarked (an import that stopped before its marking) and tokens in the
// wrong columns; MarkCopies repairs the first.
func TestCheckFindsUnmarkedCopies(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name, tamper, rule string
		repaired           bool
	}{
		{"unmarked copy", `UPDATE usage SET copy_of_run_id = NULL, input_tokens = copied_input_tokens, output_tokens = copied_output_tokens,
  copied_input_tokens = 0, copied_output_tokens = 0 WHERE run_id = 'b' AND request_id = 'm1'`,
			"usage.copy_of_run_id marks the copies store.CopiesSQL finds", true},
		{"counted copy", `UPDATE usage SET input_tokens = 1 WHERE run_id = 'b' AND request_id = 'm1'`,
			"a copied usage row's tokens are in its copied_* columns, an original's in input_tokens …", false},
		{"runs not summed", `UPDATE runs SET copied_calls = 5 WHERE run_id = 'b'`,
			"runs.copied_* and continues_run_id sum the run's copied usage rows", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, err := store.Open(ctx, store.Config{Path: ""})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			importCopyRun(t, st, copyA, "")
			importCopyRun(t, st, copyB, "")
			if err := st.Finish(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := st.DB().ExecContext(ctx, tc.tamper); err != nil {
				t.Fatal(err)
			}
			probs, err := st.Check(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var rules []string
			for _, p := range probs {
				rules = append(rules, p.Rule)
			}
			if !slices.Contains(rules, tc.rule) {
				t.Errorf("check found %q, want %q among them", rules, tc.rule)
			}
			if !tc.repaired {
				return
			}
			if _, err := st.MarkCopies(ctx); err != nil {
				t.Fatal(err)
			}
			if probs, err := st.Check(ctx); err != nil || len(probs) > 0 {
				t.Errorf("after MarkCopies: %v %v", probs, err)
			}
		})
	}
}

// TestOpenOldSchema: a database an earlier version wrote (runs and usage
// without the copy columns, a resumed pair counted twice) is refused
// read-only with what to do, and brought up to date by the first open for
// writing: the copies marked, sums counted once.
func TestOpenOldSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.duckdb")
	added := map[string]bool{"continues_run_id": true, "copied_calls": true, "copy_of_run_id": true, "copied_input_tokens": true,
		"copied_output_tokens": true, "copied_cache_read_tokens": true, "copied_cache_write_tokens": true, "copied_reasoning_tokens": true, "reader_version": true,
		"n_outcomes": true, "score": true, "outcome_source": true, "log_resolved": true}
	db, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	// the earlier version's DDL: these tables without the columns this
	// change appended (the columns before them are as they were)
	for _, tb := range schema.Tables {
		if tb.Name == schema.TableOutcomes {
			continue // an earlier version had no outcomes table
		}
		old := tb
		old.Columns = slices.DeleteFunc(slices.Clone(tb.Columns), func(c schema.Column) bool {
			return (tb.Name == schema.TableRuns || tb.Name == schema.TableUsage || tb.Name == schema.TableSources) && added[c.Name]
		})
		if _, err := db.ExecContext(ctx, old.CreateTableSQL()); err != nil {
			t.Fatal(err)
		}
	}
	end := func(h int) time.Time { return time.Date(2026, 1, 1, h, 0, 0, 0, time.UTC) }
	for _, q := range []struct {
		q    string
		args []any
	}{
		{`INSERT INTO sources VALUES ('a', 'a', 'claude-code', 1, ?, 1, 0, 0, 0), ('b', 'b', 'claude-code', 1, ?, 1, 0, 0, 0)`, []any{end(0), end(0)}},
		// as logged: b's totals count a's two responses again
		{`INSERT INTO runs (run_id, source_format, source_path, source_sha256, harness, model, model_family, task_id, ended_at, end_reason,
  end_reason_source, end_reason_detail, n_turns, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens,
  usage_estimated, usage_calls, est_tokens, estimator)
VALUES ('a', 'claude-code', 'a', 'a', '', '', '', '', ?, 'unknown', 'inferred', '', 2, 300, 30, 50, 0, 0, false, 2, 0, 'chars4'),
       ('b', 'claude-code', 'b', 'b', '', '', '', '', ?, 'unknown', 'inferred', '', 3, 600, 60, 100, 0, 0, false, 3, 0, 'chars4')`, []any{end(1), end(3)}},
		{`UPDATE runs SET resolved = true WHERE run_id = 'b'`, nil},
		{`INSERT INTO usage VALUES ('a', 0, NULL, '', 'm1', 100, 10, 50, 0, 0, false), ('a', 1, NULL, '', 'm2', 200, 20, 0, 0, 0, false),
  ('b', 0, NULL, '', 'm1', 100, 10, 50, 0, 0, false), ('b', 1, NULL, '', 'm2', 200, 20, 0, 0, 0, false), ('b', 2, NULL, '', 'm3', 300, 30, 50, 0, 0, false)`, nil},
	} {
		if _, err := db.ExecContext(ctx, q.q, q.args...); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	if _, err := store.Open(ctx, store.Config{Path: path, ReadOnly: true}); err == nil ||
		!strings.Contains(err.Error(), "an earlier version of trajmine wrote it (no column sources.reader_version and 27 more): open it for writing once") {
		t.Errorf("read-only open of the old database: %v", err)
	}
	st, err := store.Open(ctx, store.Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	mustCheck(t, st)
	us, rs := readMarks(t, st)
	wantU := []usageMark{
		{"a", "m1", "", 100, 10, 0, 0}, {"a", "m2", "", 200, 20, 0, 0},
		{"b", "m1", "a", 0, 0, 100, 10}, {"b", "m2", "a", 0, 0, 200, 20}, {"b", "m3", "", 300, 30, 0, 0},
	}
	wantR := []runMark{{"a", "", 300, 30, 0, 0, 0}, {"b", "a", 300, 30, 2, 300, 30}}
	if diff := cmp.Diff(wantU, us); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantR, rs); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
	// cache reads too: a 50 + b's own 50 (its copy of m1's 50 is a's)
	var cr int64
	if err := st.DB().QueryRowContext(ctx, `SELECT sum(cache_read_tokens) FROM runs`).Scan(&cr); err != nil || cr != 100 {
		t.Errorf("sum(cache_read_tokens) over runs = %d (%v), want 100", cr, err)
	}
	if got, want := sums(t, st), [4]int64{600, 60, 600, 60}; got != want {
		t.Errorf("sums %v, want %v", got, want)
	}
	runs, err := st.Runs(ctx, store.RunFilter{RunID: "b"})
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %v %v", runs, err)
	}
	if r := runs[0]; r.ContinuesRunID != "a" || r.CopiedCalls != 2 || r.CopiedCacheReadTokens != 50 || r.CacheReadTokens != 50 {
		t.Errorf("run b: continues %q, %d copied calls, copied cache read %d, cache read %d; want a, 2, 50, 50",
			r.ContinuesRunID, r.CopiedCalls, r.CopiedCacheReadTokens, r.CacheReadTokens)
	}
	// b's log stated its outcome: it is the log's own, from before outcome files
	var src, logRes string
	if err := st.DB().QueryRowContext(ctx, `SELECT outcome_source, log_resolved::VARCHAR FROM runs WHERE run_id = 'b'`).Scan(&src, &logRes); err != nil || src != "log" || logRes != "true" {
		t.Errorf("run b: outcome_source %q, log_resolved %q (%v); want log, true", src, logRes, err)
	}
}
