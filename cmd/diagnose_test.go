package cmd

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/analysis"
	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/internal/testutil"
)

// TestDiagnoseGolden runs trajmine diagnose on the claude-code fixtures and
// compares stdout with testdata/diagnose*.stdout.
func TestDiagnoseGolden(t *testing.T) {
	d := testDeps(t, nil)
	d.DB = filepath.Join(t.TempDir(), "diagnose.duckdb")
	if _, stderr, code := run(t, d, "ingest", "--workers", "1", fixtureDir); code != 0 {
		t.Fatalf("ingest: %s", stderr)
	}
	steps := []struct {
		name string
		args []string
	}{
		{"diagnose", []string{"diagnose"}},
		{"diagnose-by-format-window", []string{"diagnose", "--by", "format", "--window", "20000"}},
		{"diagnose-json", []string{"diagnose", "--json"}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			stdout, stderr, code := run(t, d, s.args...)
			if code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", code, stderr)
			}
			testutil.Golden(t, stdout, filepath.Join("testdata", s.name+".stdout"))
		})
	}
	t.Run("json-why", func(t *testing.T) {
		stdout, _, _ := run(t, d, "diagnose", "--json")
		var got diagnose.Summary
		if err := json.Unmarshal([]byte(stdout), &got); err != nil {
			t.Fatal(err)
		}
		if got.Verdict.Runs != 3 || got.Verdict.WindowEnds != 1 || got.Verdict.Explicit != 1 {
			t.Errorf("verdict = %+v", got.Verdict)
		}
		for _, r := range got.Runs {
			if r.End.Why == "" || r.End.Source == "" {
				t.Errorf("run %s: end %+v lacks a source or why", r.RunID, r.End)
			}
		}
	})
}

func TestDiagnoseUsageErrors(t *testing.T) {
	d := testDeps(t, nil)
	d.DB = filepath.Join(t.TempDir(), "x.duckdb")
	tests := []struct {
		args []string
		msg  string
	}{
		{[]string{"diagnose", "--by", "color"}, "--by must be model, harness or format"},
		{[]string{"diagnose", "--window", "-5"}, `invalid argument "-5" for "--window" flag: window "-5" is not a number of tokens`},
		{[]string{"diagnose", "--window", "unbounded"}, `invalid argument "unbounded" for "--window" flag: no unbounded window here`},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, stderr, code := run(t, d, tc.args...)
			if code != exitUsage || !strings.Contains(stderr, tc.msg) {
				t.Errorf("exit %d, stderr %q; want exit 2 mentioning %q", code, stderr, tc.msg)
			}
		})
	}
}

func TestDiagnoseExtrasCurve(t *testing.T) {
	var buf strings.Builder
	d := diagnose.Summary{ReadingBoundary: diagnose.Boundary([]diagnose.BoundaryRun{{Call: 23, Event: true}, {Call: 30}})}
	if err := writeDiagnoseExtras(&buf, d, 0, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "  23        2        1         0         0      50.0%                0.0%") {
		t.Errorf("curve not printed:\n%s", buf.String())
	}
}

// TestDiagnoseSaves checks that trajmine diagnose stores one diag_runs row
// per run, one diag_calls row per model call and one diag_rent row per run
// and tool, equal to its --json output, and that --no-save leaves the tables
// alone.
func TestDiagnoseSaves(t *testing.T) {
	ctx := context.Background()
	d := testDeps(t, nil)
	d.DB = filepath.Join(t.TempDir(), "diagnose.duckdb")
	if _, stderr, code := run(t, d, "ingest", "--workers", "1", fixtureDir); code != 0 {
		t.Fatalf("ingest: %s", stderr)
	}
	if _, stderr, code := run(t, d, "diagnose", "--no-save"); code != 0 {
		t.Fatalf("diagnose --no-save: %s", stderr)
	}
	if got := diagQueryRows(t, d, "SELECT table_name FROM information_schema.tables WHERE table_name LIKE 'diag_%'"); len(got) != 0 {
		t.Fatalf("--no-save created tables: %v", got)
	}
	stdout, stderr, code := run(t, d, "diagnose", "--json", "--window", "20000")
	if code != 0 {
		t.Fatalf("diagnose: %s", stderr)
	}
	var got diagnose.Summary
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	st, err := d.open(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	var nRuns int
	if err := st.DB().QueryRowContext(ctx, "SELECT count(*) FROM runs").Scan(&nRuns); err != nil {
		t.Fatal(err)
	}
	st.Close()

	runRows := diagQueryRows(t, d, "SELECT * FROM diag_runs ORDER BY run_id")
	if len(runRows) != nRuns || len(got.Runs) != nRuns || nRuns == 0 {
		t.Fatalf("diag_runs has %d rows, runs %d, --json %d runs", len(runRows), nRuns, len(got.Runs))
	}
	byID := map[string][]any{}
	for _, r := range runRows {
		byID[r[0].(string)] = r
	}
	for _, r := range got.Runs {
		t.Run(r.RunID, func(t *testing.T) {
			want := analysis.DiagRunRow(&r)
			if diff := cmp.Diff(want.Values(), byID[r.RunID]); diff != "" {
				t.Errorf("diag_runs row differs from --json (-json +table):\n%s", diff)
			}
			calls := diagQueryRows(t, d, "SELECT * FROM diag_calls WHERE run_id = '"+strings.ReplaceAll(r.RunID, "'", "''")+"' ORDER BY turn")
			if int64(len(calls)) != want.NCalls {
				t.Fatalf("%d diag_calls rows, n_calls %d", len(calls), want.NCalls)
			}
			var wantCalls [][]any
			for _, c := range analysis.DiagCallRows(&r) {
				wantCalls = append(wantCalls, c.Values())
			}
			if diff := cmp.Diff(wantCalls, calls); diff != "" {
				t.Errorf("diag_calls rows differ from --json (-json +table):\n%s", diff)
			}
			rent := diagQueryRows(t, d, "SELECT * FROM diag_rent WHERE run_id = '"+strings.ReplaceAll(r.RunID, "'", "''")+"' ORDER BY rent DESC, tool")
			var wantRent [][]any
			for _, x := range analysis.DiagRentRows(&r) {
				wantRent = append(wantRent, x.Values())
			}
			if diff := cmp.Diff(wantRent, rent); diff != "" {
				t.Errorf("diag_rent rows differ from --json (-json +table):\n%s", diff)
			}
		})
	}
}

// diagQueryRows runs q on d's database, read-only, and returns every row.
func diagQueryRows(t *testing.T, d *Deps, q string) [][]any {
	t.Helper()
	ctx := context.Background()
	st, err := d.open(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := st.DB().QueryContext(ctx, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestDiagnoseFlags(t *testing.T) {
	tests := []struct {
		args []string
		want DiagnoseOptions
	}{
		{nil, DiagnoseOptions{By: "model", shards: 1}},
		{[]string{"--no-save", "--json", "--window", "1000", "--by", "harness"}, DiagnoseOptions{NoSave: true, JSON: true, Window: 1000, By: "harness", shards: 1}},
		{[]string{"--shard", "2/3"}, DiagnoseOptions{By: "model", Shard: "2/3", shard: 2, shards: 3}},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var got *DiagnoseOptions
			c := NewDiagnoseCmd(testDeps(t, nil), func(o *DiagnoseOptions) error { got = o; return nil })
			c.SetArgs(tc.args)
			if err := c.Execute(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&tc.want, got, cmpIgnoreWriters, cmp.AllowUnexported(DiagnoseOptions{})); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDiagnoseNoDatabase: saving opens the database read-write, but a
// missing database is still an error that says to ingest first (not a new,
// empty database).
func TestDiagnoseNoDatabase(t *testing.T) {
	d := testDeps(t, nil)
	d.DB = filepath.Join(t.TempDir(), "missing.duckdb")
	_, stderr, code := run(t, d, "diagnose")
	if code != exitFailed || !strings.Contains(stderr, "run trajmine ingest first") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(d.DB); err == nil {
		t.Errorf("diagnose created %s", d.DB)
	}
}

// TestDiagnosePrefixRent runs diagnose on a LiteLLM call log that records its
// system prompt and tool definitions: their rent is est_tokens × the calls
// that carried them, reported in --json, diag_runs and the verdict.
func TestDiagnosePrefixRent(t *testing.T) {
	ctx := context.Background()
	d := testDeps(t, nil)
	d.DB = filepath.Join(t.TempDir(), "prefix.duckdb")
	if _, stderr, code := run(t, d, "ingest", "--workers", "1", "../ingest/testdata/messages/litellm.json"); code != 0 {
		t.Fatalf("ingest: %s", stderr)
	}
	stdout, stderr, code := run(t, d, "diagnose", "--json")
	if code != 0 {
		t.Fatalf("diagnose: %s", stderr)
	}
	var got diagnose.Summary
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Runs) != 1 {
		t.Fatalf("%d runs", len(got.Runs))
	}
	r := got.Runs[0]
	st, err := d.open(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var sysTok, defTok, nTurns int64
	q := `SELECT sum(e.est_tokens) FILTER (WHERE e.role IN ('system', 'developer')), sum(e.est_tokens) FILTER (WHERE e.role = 'tools'), max(r.n_turns)
FROM events e JOIN runs r USING (run_id) WHERE e.kind = 'system'`
	if err := st.DB().QueryRowContext(ctx, q).Scan(&sysTok, &defTok, &nTurns); err != nil {
		t.Fatal(err)
	}
	// both at turn 0, no compaction: carried by every call
	if sysTok == 0 || defTok == 0 || r.RentSystemPrompt != sysTok*nTurns || r.RentToolDefinitions != defTok*nTurns {
		t.Errorf("rent system prompt %d, tool definitions %d; want %d × %d and %d × %d", r.RentSystemPrompt, r.RentToolDefinitions, sysTok, nTurns, defTok, nTurns)
	}
	var rowSys, rowDefs, rowTotal int64
	if err := st.DB().QueryRowContext(ctx, "SELECT rent_system_prompt, rent_tool_definitions, rent_total FROM diag_runs").Scan(&rowSys, &rowDefs, &rowTotal); err != nil {
		t.Fatal(err)
	}
	if rowSys != r.RentSystemPrompt || rowDefs != r.RentToolDefinitions || rowTotal != r.RentTotal {
		t.Errorf("diag_runs rent %d/%d/%d, --json %d/%d/%d", rowSys, rowDefs, rowTotal, r.RentSystemPrompt, r.RentToolDefinitions, r.RentTotal)
	}
	v := got.Verdict
	if want := float64(r.RentToolDefinitions) / float64(r.RentTotal); v.ToolDefinitionsShare != want || v.SystemPromptShare == 0 || diagnose.IsPrefix(v.TopRentTool) {
		t.Errorf("verdict %+v; want tool definitions share %v, a system prompt share, a tool on top", v, want)
	}
}
