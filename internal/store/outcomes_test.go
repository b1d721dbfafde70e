package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/schema"
)

// oRun is a run of the outcome tests: its id, file, task, parent and the
// outcome its log states ("" none, "y", "n").
type oRun struct{ id, path, task, parent, log string }

// oRow is an outcome row of the outcome tests: key kind, key, outcome
// ("y", "n", "" none) and score (< 0: none).
type oRow struct {
	kind  schema.OutcomeKey
	key   string
	res   string
	score float64
}

func yn(s string) *bool {
	switch s {
	case "y":
		return new(true)
	case "n":
		return new(false)
	}
	return nil
}

// importORuns imports runs as the file path (content tag: its sha256).
func importORuns(t *testing.T, st *store.Store, path, tag string, runs ...oRun) {
	t.Helper()
	ctx := context.Background()
	src := &schema.Source{Path: path, SHA256: path + tag, Format: "mini-swe-agent", Runs: int64(len(runs))}
	tx, err := st.Begin(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if err := tx.Run(&schema.Run{RunID: r.id, ParentRunID: r.parent, SourcePath: path, SourceSHA256: src.SHA256, TaskID: r.task,
			Resolved: yn(r.log), EndReason: schema.EndUnknown, EndReasonSource: schema.SourceInferred}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(src); err != nil {
		t.Fatal(err)
	}
}

// importORows imports outcome rows as the outcome file path (line i+1
// each), of the format (empty: outcome-table).
func importORows(t *testing.T, st *store.Store, path, tag, format string, rows ...oRow) {
	t.Helper()
	ctx := context.Background()
	if format == "" {
		format = "outcome-table"
	}
	src := &schema.Source{Path: path, SHA256: path + tag, Format: format, Outcomes: int64(len(rows))}
	tx, err := st.Begin(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		o := &schema.Outcome{SourcePath: path, SourceSHA256: src.SHA256, Line: int64(i + 1), KeyKind: r.kind, Key: r.key, Resolved: yn(r.res), Detail: "d"}
		if r.score >= 0 {
			o.Score = new(r.score)
		}
		if err := tx.Outcome(o); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(src); err != nil {
		t.Fatal(err)
	}
}

// runOutcomes reads each run's "resolved score source" (resolved y/n/-,
// score or -).
func runOutcomes(t *testing.T, st *store.Store) map[string]string {
	t.Helper()
	rows, err := st.DB().QueryContext(context.Background(), `SELECT run_id, resolved, score, outcome_source FROM runs`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id string
		var res sql.NullBool
		var score sql.NullFloat64
		var src sql.NullString
		if err := rows.Scan(&id, &res, &score, &src); err != nil {
			t.Fatal(err)
		}
		r, sc, s := "-", "-", "-"
		if res.Valid {
			r = map[bool]string{true: "y", false: "n"}[res.Bool]
		}
		if score.Valid {
			sc = fmt.Sprint(score.Float64)
		}
		if src.Valid {
			s = src.String
		}
		out[id] = r + " " + sc + " " + s
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// rowCounts reads each outcome row's "key n_runs n_applied" by file:line.
func rowCounts(t *testing.T, st *store.Store) map[string]string {
	t.Helper()
	rows, err := st.DB().QueryContext(context.Background(), `SELECT source_path || ':' || line, key, n_runs, n_applied FROM outcomes`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var at, key string
		var n, a int64
		if err := rows.Scan(&at, &key, &n, &a); err != nil {
			t.Fatal(err)
		}
		out[at] = fmt.Sprintf("%s %d %d", key, n, a)
	}
	return out
}

// TestApplyOutcomes: the outcome rule (store.ApplyOutcomes), case by case,
// with the outcomes each run should get worked out by hand from the rule's
// steps (matching, nearest first, a file over the log).
func TestApplyOutcomes(t *testing.T) {
	type file struct {
		path, format string
		rows         []oRow
	}
	tests := []struct {
		name      string
		runs      []oRun // each in a file of its own: its path
		files     []file
		want      map[string]string // run → "resolved score source"
		wantRows  map[string]string // file:line → "key n_runs n_applied"
		unmatched int64
	}{
		{
			name: "flat reports beside trajectories",
			runs: []oRun{{"x-1", "sub/trajs/x-1/x-1.traj.json", "x-1", "", ""}, {"x-2", "sub/trajs/x-2/x-2.traj.json", "x-2", "", "y"}},
			files: []file{
				{"sub/logs/x-1/report.json", "swebench-report", []oRow{{schema.KeyPath, "x-1", "n", -1}}},
				{"sub/logs/x-2/report.json", "swebench-report", []oRow{{schema.KeyPath, "x-2", "n", -1}}},
				{"sub/logs/x-3/report.json", "swebench-report", []oRow{{schema.KeyPath, "x-3", "y", -1}}},
			},
			// x-2's log said resolved: the report overrides it
			want: map[string]string{"x-1": "n - sub/logs/x-1/report.json:1", "x-2": "n - sub/logs/x-2/report.json:1"},
			wantRows: map[string]string{"sub/logs/x-1/report.json:1": "x-1 1 1", "sub/logs/x-2/report.json:1": "x-2 1 1",
				"sub/logs/x-3/report.json:1": "x-3 0 0"},
			unmatched: 1,
		},
		{
			name: "a path row by a folder or the file name up to its first dot",
			runs: []oRun{{"r1", "job/trial-1/agent/trajectory.json", "", "", ""}, {"r2", "trajectories/foo__bar-1.traj", "", "", ""},
				{"r3", "trajectories/foo__bar-10.traj", "", "", ""}},
			files: []file{{"job/result.json", "harbor-result", []oRow{{schema.KeyPath, "trial-1", "y", 1}, {schema.KeyPath, "foo__bar-1", "n", 0}}}},
			want:  map[string]string{"r1": "y 1 job/result.json:1", "r2": "n 0 job/result.json:2", "r3": "- - -"},
		},
		{
			name: "each run takes its own submission's outcome",
			runs: []oRun{{"a", "subA/trajs/t/t.traj.json", "t", "", ""}, {"b", "subB/trajs/t/t.traj.json", "t", "", ""}},
			files: []file{
				{"subA/results.csv", "", []oRow{{schema.KeyTaskID, "t", "y", -1}}},
				{"subB/results.csv", "", []oRow{{schema.KeyTaskID, "t", "n", -1}}},
			},
			want: map[string]string{"a": "y - subA/results.csv:1", "b": "n - subB/results.csv:1"},
			// each row matches both runs, gives one
			wantRows: map[string]string{"subA/results.csv:1": "t 2 1", "subB/results.csv:1": "t 2 1"},
		},
		{
			name: "a run id row wins over a nearer row",
			runs: []oRun{{"r1", "d/trajs/t/t.traj.json", "t", "", ""}},
			files: []file{
				{"d/logs/t/report.json", "swebench-report", []oRow{{schema.KeyPath, "t", "n", -1}}},
				{"elsewhere/outcomes.csv", "", []oRow{{schema.KeyRunID, "r1", "y", 0.9}}},
			},
			want:     map[string]string{"r1": "y 0.9 elsewhere/outcomes.csv:1"},
			wantRows: map[string]string{"d/logs/t/report.json:1": "t 1 0", "elsewhere/outcomes.csv:1": "r1 1 1"},
		},
		{
			name:  "task and path rows give root runs only; a run id row any run",
			runs:  []oRun{{"p", "s/p.jsonl", "t", "", ""}, {"c", "s/p.jsonl.sub", "t", "p", ""}, {"c2", "s/c2.jsonl", "u", "p", ""}},
			files: []file{{"s/outcomes.csv", "", []oRow{{schema.KeyTaskID, "t", "y", -1}, {schema.KeyRunID, "c2", "n", -1}}}},
			want:  map[string]string{"p": "y - s/outcomes.csv:1", "c": "- - -", "c2": "n - s/outcomes.csv:2"},
		},
		{
			name: "results.json: listed ids, and every other run of the submission not resolved",
			runs: []oRun{{"a", "sub/trajs/a/a.traj.json", "a", "", ""}, {"b", "sub/trajs/b/b.traj.json", "b", "", ""},
				{"c", "sub/trajs/c/c.traj.json", "c", "", ""}, {"o", "other/trajs/b/b.traj.json", "b", "", ""}},
			files: []file{{"sub/results/results.json", "swebench-results",
				[]oRow{{schema.KeyTaskID, "a", "y", -1}, {schema.KeyTaskID, "c", "n", -1}, {schema.KeyScope, "sub", "n", -1}}}},
			// o lies outside the scope and no row names b: no outcome
			want: map[string]string{"a": "y - sub/results/results.json:1", "b": "n - sub/results/results.json:3",
				"c": "n - sub/results/results.json:2", "o": "- - -"},
			wantRows: map[string]string{"sub/results/results.json:1": "a 1 1", "sub/results/results.json:2": "c 1 1", "sub/results/results.json:3": "sub 3 1"},
		},
		{
			name: "a run outside any submission takes the nearest row there is",
			runs: []oRun{{"o", "other/trajs/a/a.traj.json", "a", "", ""}},
			files: []file{{"sub/results/results.json", "swebench-results",
				[]oRow{{schema.KeyTaskID, "a", "y", -1}, {schema.KeyScope, "sub", "n", -1}}}},
			want:      map[string]string{"o": "y - sub/results/results.json:1"},
			unmatched: 1, // the scope row: no run under sub/
		},
		{
			name:  "a score alone: resolved stays the log's (or unknown)",
			runs:  []oRun{{"r1", "job/t1/agent/trajectory.json", "", "", ""}, {"r2", "job/t2/agent/trajectory.json", "", "", "y"}},
			files: []file{{"job/result.json", "harbor-result", []oRow{{schema.KeyPath, "t1", "", 0.5}, {schema.KeyPath, "t2", "", 0.5}}}},
			want:  map[string]string{"r1": "- 0.5 job/result.json:1", "r2": "y 0.5 log"},
		},
		{
			name:  "in one file the last row wins",
			runs:  []oRun{{"r1", "a/r1.jsonl", "", "", ""}},
			files: []file{{"a/outcomes.jsonl", "", []oRow{{schema.KeyRunID, "r1", "n", -1}, {schema.KeyRunID, "r1", "y", -1}}}},
			want:  map[string]string{"r1": "y - a/outcomes.jsonl:2"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, order := range []string{"runs first", "outcome files first"} {
				st := newTestStore(t)
				ctx := context.Background()
				imports := []func(){}
				for _, r := range tc.runs {
					imports = append(imports, func() { importORuns(t, st, r.path, "", r) })
				}
				for _, f := range tc.files {
					imports = append(imports, func() { importORows(t, st, f.path, "", f.format, f.rows...) })
				}
				if order != "runs first" {
					imports = append(imports[len(tc.runs):], imports[:len(tc.runs)]...)
				}
				var res ingest.OutcomeResult
				for _, imp := range imports {
					imp()
					var err error
					if res, err = st.ApplyOutcomes(ctx); err != nil { // as ingest does after each import
						t.Fatal(err)
					}
				}
				got := runOutcomes(t, st)
				for id, w := range tc.want {
					if got[id] != w {
						t.Errorf("%s: run %s: %q, want %q", order, id, got[id], w)
					}
				}
				if tc.wantRows != nil {
					if diff := cmp.Diff(tc.wantRows, rowCounts(t, st)); diff != "" {
						t.Errorf("%s: outcome rows (-want +got):\n%s", order, diff)
					}
				}
				if res.Unmatched != tc.unmatched {
					t.Errorf("%s: %d rows match no run, want %d", order, res.Unmatched, tc.unmatched)
				}
				if again, err := st.ApplyOutcomes(ctx); err != nil || again.Changed != 0 {
					t.Errorf("%s: applying again changed %d runs (%v), want 0", order, again.Changed, err)
				}
			}
		})
	}
}

// TestOutcomeFileReimported: an outcome file imported again with other
// content replaces its rows, and a run no row matches any more gets its
// log's outcome back.
func TestOutcomeFileReimported(t *testing.T) {
	st := newTestStore(t)
	ctx := context.Background()
	importORuns(t, st, "s/trajs/t/t.traj.json", "", oRun{"r", "s/trajs/t/t.traj.json", "t", "", "y"})
	apply := func(wantChanged int64, want string) {
		t.Helper()
		res, err := st.ApplyOutcomes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := runOutcomes(t, st)["r"]; res.Changed != wantChanged || got != want {
			t.Errorf("%d changed, run %q; want %d, %q", res.Changed, got, wantChanged, want)
		}
	}
	apply(0, "y - log")
	importORows(t, st, "s/results.csv", "v1", "", oRow{schema.KeyTaskID, "t", "n", 0.2})
	apply(1, "n 0.2 s/results.csv:1")
	importORows(t, st, "s/results.csv", "v2", "", oRow{schema.KeyTaskID, "t", "y", -1}, oRow{schema.KeyTaskID, "t", "n", -1})
	apply(1, "n - s/results.csv:2")
	importORows(t, st, "s/results.csv", "v3", "", oRow{schema.KeyTaskID, "other", "n", -1})
	apply(1, "y - log")
	if n := scalar[int64](t, st, "SELECT count(*) FROM outcomes"); n != 1 {
		t.Errorf("%d outcome rows, want the last import's 1", n)
	}
}

// TestCheckFindsUnappliedOutcomes: a store whose runs disagree with the
// outcome rule (an outcome row stored, not applied) breaks the check's
// rules on runs and on the rows' counts.
func TestCheckFindsUnappliedOutcomes(t *testing.T) {
	st, err := store.Open(context.Background(), store.Config{Path: ""})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	importORuns(t, st, "s/trajs/t/t.traj.json", "", oRun{"r", "s/trajs/t/t.traj.json", "t", "", ""})
	importORows(t, st, "s/results.csv", "", "", oRow{schema.KeyTaskID, "t", "y", -1})
	probs, err := st.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var rules []string
	for _, p := range probs {
		rules = append(rules, p.Rule)
	}
	got := strings.Join(rules, "; ")
	for _, want := range []string{"runs.resolved, score and outcome_source are what store.OutcomesSQL gives", "outcomes.n_runs and n_applied"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems %q lack %q", got, want)
		}
	}
	if _, err := st.ApplyOutcomes(context.Background()); err != nil {
		t.Fatal(err)
	}
	mustCheck(t, st)
}

// TestOutcomeSummary: the counts trajmine outcomes prints, and the rows
// that match no run in file and line order.
func TestOutcomeSummary(t *testing.T) {
	st := newTestStore(t)
	ctx := context.Background()
	importORuns(t, st, "s/a.jsonl", "", oRun{"a", "s/a.jsonl", "ta", "", ""}, oRun{"a/sub", "s/a.jsonl", "ta", "a", ""})
	importORuns(t, st, "s/b.jsonl", "", oRun{"b", "s/b.jsonl", "tb", "", "n"})
	importORuns(t, st, "s/c.jsonl", "", oRun{"c", "s/c.jsonl", "tc", "", ""})
	importORows(t, st, "s/results.csv", "", "", oRow{schema.KeyTaskID, "ta", "y", 1}, oRow{schema.KeyTaskID, "zz", "n", -1},
		oRow{schema.KeyRunID, "nope", "y", -1})
	if _, err := st.ApplyOutcomes(ctx); err != nil {
		t.Fatal(err)
	}
	sum, err := st.OutcomeSummary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// root runs a (file: resolved), b (log: not), c (none); a/sub is a child
	want := store.OutcomeSummary{Runs: 3, Resolved: 1, NotResolved: 1, FromFiles: 1, FromLogs: 1, Scored: 1, Files: 1, Rows: 3, UnmatchedAll: 2, ChildRuns: 1}
	if diff := cmp.Diff(want, sum); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	rows, err := st.UnmatchedOutcomes(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%s:%d %s %s %s", r.SourcePath, r.Line, r.KeyKind, r.Key, r.Format))
	}
	if w := "s/results.csv:2 task_id zz outcome-table; s/results.csv:3 run_id nope outcome-table"; strings.Join(got, "; ") != w {
		t.Errorf("unmatched %q, want %q", strings.Join(got, "; "), w)
	}
	if rows, _ := st.UnmatchedOutcomes(ctx, 1); len(rows) != 1 {
		t.Errorf("limit 1: %d rows", len(rows))
	}
}
