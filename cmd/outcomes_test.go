package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/internal/testutil"
)

// outcomeFixtures are the outcome files of ingest's tests (README.md there).
const outcomeFixtures = "../ingest/testdata/outcomes"

func TestOutcomesFlagParsing(t *testing.T) {
	var got *OutcomesOptions
	c := NewOutcomesCmd(testDeps(t, nil), func(o *OutcomesOptions) error { got = o; return nil })
	c.SetArgs([]string{"--format", "outcome-table", "--all", "--json", "a.csv", "dir"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	want := &OutcomesOptions{Inputs: []string{"a.csv", "dir"}, Format: "outcome-table", All: true, JSON: true}
	if diff := cmp.Diff(want, got, cmpIgnoreWriters); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
}

// outcomeCounts is the runs' resolved as "true/false/NULL" counts.
func outcomeCounts(t *testing.T, d *Deps) string {
	t.Helper()
	out, e, code := run(t, d, "sql", "--format", "csv",
		"SELECT count(*) FILTER (WHERE resolved) || '/' || count(*) FILTER (WHERE NOT resolved) || '/' || count(*) FILTER (WHERE resolved IS NULL) AS c FROM runs")
	if code != 0 {
		t.Fatalf("sql: %s", e)
	}
	return strings.TrimSpace(strings.TrimPrefix(out, "c\n"))
}

// TestOutcomesCorpus is issue 28's outcome case on
// ../shared/corpus-outcomes (skipped when absent, required under CI=true):
// trajmine ingest of the folder reads the 20 report.json files as outcome
// files (no unknown-format warning) and gives all 20 runs their outcome,
// 13 resolved as the MANIFEST says; trajmine outcomes reports it.
func TestOutcomesCorpus(t *testing.T) {
	dir := filepath.Join(testutil.SharedDir(t, "corpus-outcomes"), "mini-swe-agent-swebench")
	d := testDeps(t, nil)
	d.DB = filepath.Join(t.TempDir(), "x.duckdb")
	stdout, stderr, code := run(t, d, "ingest", dir)
	if code != 0 || stderr != "" {
		t.Fatalf("ingest: exit %d, stderr:\n%s", code, stderr)
	}
	testutil.Golden(t, stdout, filepath.Join("testdata", "outcomes-corpus-ingest.stdout"))
	if got := outcomeCounts(t, d); got != "13/7/0" {
		t.Errorf("resolved/not/unknown = %s, want 13/7/0", got)
	}
	stdout, stderr, code = run(t, d, "outcomes")
	if code != 0 || stderr != "" {
		t.Fatalf("outcomes: exit %d, stderr:\n%s", code, stderr)
	}
	testutil.Golden(t, stdout, filepath.Join("testdata", "outcomes-corpus.stdout"))
}

// TestOutcomesTable: the corpus's trajectories alone have no outcome;
// trajmine outcomes with the CSV of their submission (gruckion's
// results_summary.csv, README.md there) gives them all one, 13 resolved,
// and lists the CSV's two instances that match no run. A JSONL by run id
// then overrides one of them (a run id row wins), and the rows of a JSONL
// that match nothing are listed too.
func TestOutcomesTable(t *testing.T) {
	trajs := filepath.Join(testutil.SharedDir(t, "corpus-outcomes"), "mini-swe-agent-swebench", "trajs")
	d := testDeps(t, nil)
	d.DB = filepath.Join(t.TempDir(), "x.duckdb")
	if _, stderr, code := run(t, d, "ingest", trajs); code != 0 || stderr != "" {
		t.Fatalf("ingest: exit %d, stderr:\n%s", code, stderr)
	}
	if got := outcomeCounts(t, d); got != "0/0/20" {
		t.Fatalf("before: resolved/not/unknown = %s, want 0/0/20", got)
	}
	byRun := filepath.Join(t.TempDir(), "rerun.jsonl")
	if err := os.WriteFile(byRun, []byte(`{"run_id": "django__django-16256", "resolved": true, "score": 1}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name   string
		args   []string
		counts string
	}{
		{"outcomes-csv", []string{"outcomes", filepath.Join(outcomeFixtures, "outcome-table", "results_summary.csv")}, "13/7/0"},
		{"outcomes-jsonl", []string{"outcomes", byRun, filepath.Join(outcomeFixtures, "outcome-table", "outcomes.jsonl")}, "14/6/0"},
		{"outcomes-json", []string{"outcomes", "--json"}, "14/6/0"},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			stdout, stderr, code := run(t, d, s.args...)
			if code != 0 {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			testutil.Golden(t, stdout, filepath.Join("testdata", s.name+".stdout"))
			testutil.Golden(t, stderr, filepath.Join("testdata", s.name+".stderr"))
			if got := outcomeCounts(t, d); got != s.counts {
				t.Errorf("resolved/not/unknown = %s, want %s", got, s.counts)
			}
		})
	}
}

// TestOutcomesErrors: a format that is not an outcome format is a usage
// error, a log named to trajmine outcomes fails, and on a lake outcome
// files come in with ingest.
func TestOutcomesErrors(t *testing.T) {
	d := testDeps(t, nil)
	d.DB = filepath.Join(t.TempDir(), "x.duckdb")
	log := filepath.Join(fixtureDir, "overflow_subagent.jsonl")
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"outcomes", "--format", "codex-cli", "x.csv"}, exitUsage, `--format: "codex-cli" is not an outcome format`},
		{[]string{"outcomes", log}, exitFailed, "not an outcome file: it is a claude-code file (trajmine ingest imports it)"},
		{[]string{"--lake", t.TempDir(), "outcomes", "x.csv"}, exitFailed, "outcome files come into a lake with trajmine ingest --lake"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			dd := *d
			if tc.args[0] == "--lake" {
				dd.DB = ""
			}
			_, stderr, code := run(t, &dd, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.msg) {
				t.Errorf("exit %d, stderr %q; want exit %d mentioning %q", code, stderr, tc.code, tc.msg)
			}
		})
	}
}
