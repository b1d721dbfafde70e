package ingest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/schema"
)

// outcomeFixtures is testdata/outcomes: a folder per outcome format
// (README.md there says where each file comes from).
const outcomeFixtures = "testdata/outcomes"

// outcomeFiles lists the fixture files of an outcome format's folder.
func outcomeFiles(t *testing.T, format string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join(outcomeFixtures, format), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(p, ".golden") {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// outcomeSummary is the golden text of one outcome file's import: its
// detected format, rows (line, key kind, key, outcome, detail) and rejects.
func outcomeSummary(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "== %s\n", filepath.ToSlash(strings.TrimPrefix(path, outcomeFixtures+string(filepath.Separator))))
	im, err := ingest.DetectFormat(path, data[:min(len(data), ingest.HeadSize)])
	if err != nil {
		fmt.Fprintf(&b, "format: none\n")
		return b.String()
	}
	m, err := ingest.Parse(context.Background(), im.Name(), path, data, nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	fmt.Fprintf(&b, "format: %s  runs: %d  rows: %d\n", im.Name(), len(m.Runs), len(m.Outcomes))
	for _, o := range m.Outcomes {
		fmt.Fprintf(&b, "  %d  %s  %s  %s  (%s)\n", o.Line, o.KeyKind, o.Key, outcomeWords(&o), o.Detail)
	}
	for _, r := range m.Rejects {
		fmt.Fprintf(&b, "  reject line %d: %s\n", r.Line, r.Reason)
	}
	return b.String()
}

// outcomeWords is a row's outcome: resolved, not resolved, and the score.
func outcomeWords(o *schema.Outcome) string {
	var w []string
	if o.Resolved != nil {
		w = append(w, map[bool]string{true: "resolved", false: "not-resolved"}[*o.Resolved])
	}
	if o.Score != nil {
		w = append(w, "score="+strconv.FormatFloat(*o.Score, 'g', -1, 64))
	}
	return strings.Join(w, " ")
}

// TestOutcomeFormats imports the fixture files of every outcome format
// (a known outcome file per supported layout, README.md there) and
// compares what each gives with testdata/outcomes/<format>.golden:
// detected format, rows and rejects. The rows were checked by hand against
// the files (the comments of TestOutcomeRows spell out the trickier ones).
// Regenerate with go test ./ingest -run TestOutcomeFormats -update.
func TestOutcomeFormats(t *testing.T) {
	for _, format := range ingest.OutcomeFormats() {
		t.Run(format, func(t *testing.T) {
			files := outcomeFiles(t, format)
			if len(files) == 0 {
				t.Fatalf("no fixture for %s in %s/%s", format, outcomeFixtures, format)
			}
			var b strings.Builder
			for _, f := range files {
				b.WriteString(outcomeSummary(t, f))
			}
			testutil.Golden(t, b.String(), filepath.Join(outcomeFixtures, format+".golden"))
		})
	}
}

// TestOutcomeRows pins, with values counted by hand from the fixtures, what
// each layout's reading decides: which ids are resolved, which not, and
// what is rejected or left without a row.
func TestOutcomeRows(t *testing.T) {
	tests := []struct {
		file     string
		format   string
		resolved []string // keys of rows stating resolved
		not      []string // keys of rows stating not resolved
		scoreOny []string // keys of rows with a score and no resolved
		rejects  int
	}{
		// flat report: the id is the folder; 14011 is not resolved, 14349 is
		{"swebench-report/logs/django__django-14011/report.json", "swebench-report", nil, []string{"django__django-14011"}, nil, 0},
		{"swebench-report/logs/django__django-14349/report.json", "swebench-report", []string{"django__django-14349"}, nil, nil, 0},
		// the official harness's keyed report
		{"swebench-report/run_evaluation/demo/gpt-4o/astropy__astropy-12907/report.json", "swebench-report", []string{"astropy__astropy-12907"}, nil, nil, 0},
		// resolved null is no outcome; "maybe" is rejected
		{"swebench-report/per_instance_details.json", "swebench-report", []string{"astropy__astropy-12907"}, []string{"astropy__astropy-13033"}, nil, 1},
		// run report: resolved_ids; unresolved_ids and empty_patch_ids not;
		// incomplete_ids (sympy) nothing
		{"swebench-results/gpt-4o.demo.json", "swebench-results", []string{"django__django-11095", "django__django-11265"},
			[]string{"astropy__astropy-7606", "django__django-13195", "django__django-14011"}, nil, 0},
		// results.json: resolved (17 is no id: rejected); no_generation and
		// no_logs not, and the scope row over 20240101_demo-agent not
		{"swebench-results/20240101_demo-agent/results/results.json", "swebench-results", []string{"django__django-11095", "django__django-11265"},
			[]string{"django__django-12284", "sympy__sympy-13146", "testdata/outcomes/swebench-results/20240101_demo-agent"}, nil, 1},
		{"swebench-results/results_summary.json", "swebench-results", []string{"astropy__astropy-12907"}, []string{"astropy__astropy-13033", "astropy__astropy-13977"}, nil, 0},
		// only the empty patches (13195 "", 15280 null) are rows
		{"swebench-preds/preds.json", "swebench-preds", nil, []string{"django__django-13195", "django__django-15280"}, nil, 0},
		{"swebench-preds/all_preds.jsonl", "swebench-preds", nil, []string{"pvlib__pvlib-python-1072"}, nil, 1},
		// job: reward 1.0 resolved, 0.0 not, 0.5 a score only
		{"harbor-result/2025-01-01__12-00-00/result.json", "harbor-result", []string{"hello-world__Xk3pQ9v"}, []string{"fix-git__a1B2c3D"}, []string{"partial__Zz9yY8x"}, 0},
		{"harbor-result/2025-01-01__12-00-00/hello-world__Xk3pQ9v/result.json", "harbor-result", []string{"hello-world__Xk3pQ9v"}, nil, nil, 0},
		{"harbor-result/2025-01-01__12-00-00/hello-world__Xk3pQ9v/verifier/reward.json", "harbor-result", []string{"hello-world__Xk3pQ9v"}, nil, nil, 0},
		{"harbor-result/2025-01-01__12-00-00/fix-git__a1B2c3D/result.json", "harbor-result", nil, []string{"fix-git__a1B2c3D"}, nil, 0},
		// is_resolved null (broken-env) is no outcome
		{"terminal-bench-results/2025-01-01__10-00-00/results.json", "terminal-bench-results", []string{"hello-world.1-of-1.2025-01-01__10-00-00"},
			[]string{"fix-permissions.1-of-1.2025-01-01__10-00-00"}, nil, 0},
		{"terminal-bench-results/2025-01-01__10-00-00/hello-world/hello-world.1-of-1.2025-01-01__10-00-00/results.json", "terminal-bench-results",
			[]string{"hello-world.1-of-1.2025-01-01__10-00-00"}, nil, nil, 0},
		// the 20 instances of corpus-outcomes (13 resolved) and two more
		{"outcome-table/results_summary.csv", "outcome-table",
			[]string{"astropy__astropy-12907", "django__django-11095", "django__django-11265", "django__django-11555", "django__django-11951", "django__django-12276",
				"django__django-12858", "django__django-13417", "django__django-13786", "django__django-14349", "django__django-14608", "django__django-15022",
				"django__django-15930", "django__django-16595", "sympy__sympy-24661"},
			[]string{"astropy__astropy-13977", "astropy__astropy-7606", "django__django-13195", "django__django-14011", "django__django-15280",
				"django__django-15563", "django__django-16256"}, nil, 0},
		// run-a; run-b "fail"; task-7 a score; 42 by task_id (run_id empty);
		// "maybe", no key, and [1, 2] rejected; run-d states nothing
		{"outcome-table/outcomes.jsonl", "outcome-table", []string{"42", "run-a"}, []string{"run-b"}, []string{"task-7"}, 3},
		// run-a yes; task-9 NO (first cell empty); run-x's score rejected
		{"outcome-table/outcomes.tsv", "outcome-table", []string{"run-a"}, []string{"task-9"}, nil, 1},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join(outcomeFixtures, filepath.FromSlash(tc.file))
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			im, err := ingest.DetectFormat(path, data[:min(len(data), ingest.HeadSize)])
			if err != nil || im.Name() != tc.format {
				t.Fatalf("detected %v (%v), want %s", im, err, tc.format)
			}
			m, err := ingest.Parse(context.Background(), tc.format, path, data, nil)
			if err != nil {
				t.Fatal(err)
			}
			var res, not, score []string
			for _, o := range m.Outcomes {
				switch {
				case o.Resolved == nil:
					score = append(score, o.Key)
				case *o.Resolved:
					res = append(res, o.Key)
				default:
					not = append(not, o.Key)
				}
			}
			for _, c := range []struct {
				what      string
				got, want []string
			}{{"resolved", res, tc.resolved}, {"not resolved", not, tc.not}, {"score only", score, tc.scoreOny}} {
				sort.Strings(c.got)
				if strings.Join(c.got, " ") != strings.Join(c.want, " ") {
					t.Errorf("%s: %v, want %v", c.what, c.got, c.want)
				}
			}
			if len(m.Rejects) != tc.rejects {
				t.Errorf("%d rejects %v, want %d", len(m.Rejects), pkRejects(m), tc.rejects)
			}
			if len(m.Runs) != 0 {
				t.Errorf("an outcome file made %d runs", len(m.Runs))
			}
		})
	}
}

// TestOutcomeNoForeignClaims: every fixture file of the outcome formats is
// recognised by its own format only, and no fixture of a log format by an
// outcome format (TestNoForeignClaims does the same over the shared
// corpora).
func TestOutcomeNoForeignClaims(t *testing.T) {
	outcome := map[string]bool{}
	for _, f := range ingest.OutcomeFormats() {
		outcome[f] = true
	}
	err := filepath.WalkDir("testdata", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".golden") || strings.HasSuffix(p, ".md") || strings.Contains(p, "LICENSE") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		head := data[:min(len(data), ingest.HeadSize)]
		own := ""
		if rel, ok := strings.CutPrefix(filepath.ToSlash(p), "testdata/outcomes/"); ok {
			own, _, _ = strings.Cut(rel, "/")
		}
		for _, im := range ingest.Candidates(p, head) {
			switch {
			case own != "" && im.Name() != own:
				t.Errorf("%s (%s): also recognised by %s", p, own, im.Name())
			case own == "" && outcome[im.Name()]:
				t.Errorf("%s (a log fixture): recognised by the outcome format %s", p, im.Name())
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestOutcomeCorpusDetection walks ../shared/corpus-outcomes (skipped when
// absent, required under CI=true): each trajectory is read by its log
// format alone, each outcome file by its outcome format alone (the folder's
// format in CorpusFolders), and nothing is of unknown format.
func TestOutcomeCorpusDetection(t *testing.T) {
	root := testutil.SharedDir(t, "corpus-outcomes")
	owner := map[string]string{}
	for _, im := range ingest.Importers() {
		for _, dir := range ingest.CorpusFolders(im.Name()) {
			if rest, ok := strings.CutPrefix(dir, "corpus-outcomes/"); ok {
				owner[rest] = im.Name()
			}
		}
	}
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		if owner[d.Name()] == "" {
			t.Errorf("corpus-outcomes/%s: no outcome format lists it in CorpusFolders", d.Name())
			continue
		}
		files, err := ingest.Expand([]string{filepath.Join(root, d.Name())}, nil)
		if err != nil {
			t.Fatal(err)
		}
		formats := map[string]int{}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			head := data[:min(len(data), ingest.HeadSize)]
			im, err := ingest.DetectFormat(f, head)
			if err != nil {
				t.Errorf("%s: %v", f, err)
				continue
			}
			formats[im.Name()]++
			if n := len(ingest.Candidates(f, head)); n != 1 {
				t.Errorf("%s: recognised by %d formats", f, n)
			}
			if ingest.IsOutcomeFormat(im.Name()) && im.Name() != owner[d.Name()] {
				t.Errorf("%s: outcome format %s, want %s", f, im.Name(), owner[d.Name()])
			}
		}
		if formats[owner[d.Name()]] == 0 {
			t.Errorf("corpus-outcomes/%s: no file read as %s (%v)", d.Name(), owner[d.Name()], formats)
		}
	}
}

// TestPathKeyedDuplicates: two flat report.json files with the same bytes
// in two instance folders are two outcomes (the id is the folder), while
// two copies of a CSV are one file imported once.
func TestPathKeyedDuplicates(t *testing.T) {
	dir := t.TempDir()
	report := []byte(`{"patch_is_None": true, "patch_exists": false, "patch_successfully_applied": false, "resolved": false}`)
	table := []byte("instance_id,resolved\nx__x-1,true\n")
	for p, b := range map[string][]byte{
		"logs/a__a-1/report.json": report, "logs/b__b-2/report.json": report,
		"one/results.csv": table, "two/results.csv": table,
	} {
		p = filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, batch := range []int64{0, -1} { // batched small files, and each in its own transaction
		m := &ingest.MemSink{}
		sum, err := ingest.Files(context.Background(), m, []string{dir}, &ingest.Options{Outcomes: true, SmallFile: batch})
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, o := range m.Outcomes {
			keys = append(keys, o.Key)
		}
		sort.Strings(keys)
		if got := strings.Join(keys, " "); got != "a__a-1 b__b-2 x__x-1" || sum.OutcomeFiles != 3 || sum.Skipped != 1 {
			t.Errorf("SmallFile %d: rows %q, %d outcome files, %d skipped; want a__a-1 b__b-2 x__x-1, 3, 1", batch, got, sum.OutcomeFiles, sum.Skipped)
		}
		if err := m.Check(); err != nil {
			t.Error(err)
		}
		// again: every file is seen (the reports at their own paths)
		sum, err = ingest.Files(context.Background(), m, []string{dir}, &ingest.Options{Outcomes: true, SmallFile: batch})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Files != 0 || sum.Skipped != 4 {
			t.Errorf("SmallFile %d, again: %d imported, %d skipped; want 0, 4", batch, sum.Files, sum.Skipped)
		}
	}
}

// TestOutcomesOnly: with Options.Outcomes a walk imports the outcome
// files (CSV included) and passes over the logs beside them without a
// warning; a log named on its own fails; without it, ingest imports both
// and leaves CSV files alone.
func TestOutcomesOnly(t *testing.T) {
	dir := t.TempDir()
	traj := filepath.Join(dir, "trajs", "x__x-1", "x__x-1.traj.json")
	for p, b := range map[string]string{
		traj: `{"instance_id": "x__x-1", "info": {"exit_status": "Submitted"}, "messages": [{"role": "system", "content": "hi"}], "trajectory_format": "mini-swe-agent-1"}`,
		filepath.Join(dir, "logs", "x__x-1", "report.json"): `{"patch_exists": true, "resolved": true}`,
		filepath.Join(dir, "results.csv"):                   "instance_id,resolved\nx__x-1,1\n",
		filepath.Join(dir, "notes.json"):                    `{"what": "not a log"}`,
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name          string
		paths         []string
		outcomes      bool
		files, failed int
		rows          int
		runs          int64
		warnings      int
	}{
		{"outcomes walk", []string{dir}, true, 2, 0, 2, 0, 0},
		{"outcomes, a log named", []string{traj}, true, 0, 1, 0, 0, 0},
		// notes.json: unknown format; the trajectory holds nothing of the
		// model (a system message only): an empty run
		{"ingest walk", []string{dir}, false, 2, 0, 1, 1, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := &ingest.MemSink{}
			var warnings []error
			sum, err := ingest.Files(context.Background(), m, tc.paths, &ingest.Options{Outcomes: tc.outcomes, Warn: func(err error) { warnings = append(warnings, err) }})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Files != tc.files || sum.Failed != tc.failed || len(m.Outcomes) != tc.rows || sum.Runs != tc.runs || len(warnings) != tc.warnings {
				t.Errorf("%d files, %d failed, %d rows, %d runs, warnings %v; want %d, %d, %d, %d, %d warning(s)",
					sum.Files, sum.Failed, len(m.Outcomes), sum.Runs, warnings, tc.files, tc.failed, tc.rows, tc.runs, tc.warnings)
			}
		})
	}
}
