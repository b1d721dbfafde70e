package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/internal/testutil"
)

// writeRuns writes an openai-messages JSONL file with one short run per id
// (a user task, two tool calls and their results, a final answer).
func writeRuns(t *testing.T, path string, ids ...string) {
	t.Helper()
	var b strings.Builder
	for _, id := range ids {
		msgs := []map[string]any{
			{"role": "system", "content": "You are a coding agent."},
			{"role": "user", "content": "Fix the failing test in pkg/" + id + "."},
		}
		for c := range 2 {
			call := fmt.Sprintf("call_%s_%d", id, c)
			msgs = append(msgs,
				map[string]any{"role": "assistant", "content": "looking", "tool_calls": []map[string]any{
					{"id": call, "type": "function", "function": map[string]any{"name": "read_file", "arguments": fmt.Sprintf(`{"path": "pkg/%s/f%d.go"}`, id, c)}}}},
				map[string]any{"role": "tool", "tool_call_id": call, "content": strings.Repeat("func F() {}\n", 40)})
		}
		msgs = append(msgs, map[string]any{"role": "assistant", "content": "done"})
		line, err := json.Marshal(map[string]any{"run_id": id, "model": "gpt-4o", "window_tokens": 128000, "messages": msgs})
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// reportJSON is what the scope tests read of report --json.
type reportJSON struct {
	Source  string         `json:"source"`
	Scope   scopeStatement `json:"scope"`
	Ingest  struct{ Files, Skipped, Failed int }
	Formats []struct {
		Format string `json:"source_format"`
		Runs   int    `json:"runs"`
	}
	Runs []struct {
		RunID string `json:"run_id"`
	}
	HTML string `json:"html_report"`
}

func (r *reportJSON) ids() []string {
	var ids []string
	for _, x := range r.Runs {
		ids = append(ids, x.RunID)
	}
	slices.Sort(ids)
	return ids
}

// TestReportScope runs report on two sets of logs in one database, and
// checks that each report covers the runs of its own paths (the CLI's
// runs, per-format totals, the diagnosed and replayed runs, the page's
// count) whether the files were imported now, earlier (skipped as
// unchanged), under another spelling of their path or as a copy at
// another path; and that --all covers every run. The fixture: A holds
// runs a-1, a-2 (a/one.jsonl) and a-3 (a/sub/two.jsonl); B holds b-1 …
// b-4 (b/b.jsonl); C is a copy of a/one.jsonl.
func TestReportScope(t *testing.T) {
	d := testDeps(t, nil)
	dir := t.TempDir()
	d.DB = filepath.Join(dir, "scope.duckdb")
	a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
	writeRuns(t, filepath.Join(a, "one.jsonl"), "a-1", "a-2")
	writeRuns(t, filepath.Join(a, "sub", "two.jsonl"), "a-3")
	writeRuns(t, filepath.Join(b, "b.jsonl"), "b-1", "b-2", "b-3", "b-4")
	if err := os.MkdirAll(c, 0o755); err != nil {
		t.Fatal(err)
	}
	copyTestFile(t, filepath.Join(a, "one.jsonl"), filepath.Join(c, "copy.jsonl"))
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	relA, err := filepath.Rel(wd, a)
	if err != nil {
		t.Fatal(err)
	}
	aRuns, bRuns := []string{"a-1", "a-2", "a-3"}, []string{"b-1", "b-2", "b-3", "b-4"}
	tests := []struct {
		name     string
		args     []string
		runs     []string // the runs reported on
		files    int      // their source files
		imported int      // files imported by this step
		dbRuns   int      // runs in the database after it
		all      bool
	}{
		{"B first", []string{b}, bRuns, 1, 1, 4, false},
		{"then A", []string{a}, aRuns, 2, 2, 7, false},
		{"A again, skipped as unchanged", []string{a}, aRuns, 2, 0, 7, false},
		{"A by a relative path", []string{relA}, aRuns, 2, 0, 7, false},
		{"one file of A", []string{filepath.Join(a, "sub", "two.jsonl")}, []string{"a-3"}, 1, 0, 7, false},
		{"a copy of A's file elsewhere", []string{c}, []string{"a-1", "a-2"}, 1, 0, 7, false},
		{"A and B", []string{a, b}, slices.Concat(aRuns, bRuns), 3, 0, 7, false},
		{"--all with A", []string{"--all", a}, slices.Concat(aRuns, bRuns), 3, 0, 7, true},
	}
	var lines strings.Builder
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			html := filepath.Join(dir, "r.html")
			os.Remove(html)
			stdout, stderr, code := run(t, d, slices.Concat([]string{"report", "--json", "-o", html}, tc.args)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var got reportJSON
			if err := json.Unmarshal([]byte(stdout), &got); err != nil {
				t.Fatalf("report --json: %v\n%s", err, stdout)
			}
			want := slices.Sorted(slices.Values(tc.runs))
			if diff := cmp.Diff(want, got.ids()); diff != "" {
				t.Errorf("runs (-want +got):\n%s", diff)
			}
			wantScope := scopeStatement{Runs: len(tc.runs), Files: tc.files, DatabaseRuns: tc.dbRuns, All: tc.all}
			gotScope := got.Scope
			gotScope.Line = ""
			if diff := cmp.Diff(wantScope, gotScope); diff != "" {
				t.Errorf("scope (-want +got):\n%s", diff)
			}
			if got.Ingest.Files != tc.imported {
				t.Errorf("imported %d files, want %d", got.Ingest.Files, tc.imported)
			}
			if len(got.Formats) != 1 || got.Formats[0].Runs != len(tc.runs) {
				t.Errorf("per-format totals %+v, want %d openai-messages runs", got.Formats, len(tc.runs))
			}
			// every analysis saw the same runs: diagnose's and simulate's tables
			for _, q := range []string{"SELECT count(*) FROM diag_runs", "SELECT count(DISTINCT run_id) FROM sim_runs"} {
				out, stderr, code := run(t, d, "sql", "--format", "csv", q)
				if code != 0 {
					t.Fatal(stderr)
				}
				if n := strings.TrimSpace(out[strings.Index(out, "\n")+1:]); n != fmt.Sprint(len(tc.runs)) {
					t.Errorf("%s = %s, want %d", q, n, len(tc.runs))
				}
			}
			// and the page states the same count
			page, err := os.ReadFile(html)
			if err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf(`<div class="card"><span class="v">%d</span><span class="k">runs`, len(tc.runs)); !strings.Contains(string(page), want) {
				t.Errorf("the page lacks %q", want)
			}
			if want := fmt.Sprintf("· %d runs from %s", len(tc.runs), htmlEscape(got.Source)); !strings.Contains(string(page), want) {
				t.Errorf("the page lacks %q", want)
			}
			// the first line on stderr under --json is the scope's
			first, _, _ := strings.Cut(stderr, "\n")
			if first != got.Scope.Line {
				t.Errorf("stderr's first line %q, want the scope's %q", first, got.Scope.Line)
			}
			fmt.Fprintf(&lines, "%s: %s\n", tc.name, first)
		})
	}
	// the terminal report of A: its first line, and diagnose, recommend
	// and mine over A's runs alone
	stdout, stderr, code := run(t, d, "report", "--full", "-o", filepath.Join(dir, "r.html"), a)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	first, _, _ := strings.Cut(stdout, "\n")
	fmt.Fprintf(&lines, "A, terminal: %s\n", first)
	for _, want := range []string{"\nVerdict (trajmine diagnose has the tables): 0 of 3 runs ", "\n  gpt-4o (3 runs): ", "\nAgent behaviour (trajmine mine): 3 runs, "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report %s lacks %q:\n%s", a, want, stdout)
		}
	}
	r := strings.NewReplacer(d.DB, "$DB", a, "$A", b, "$B", c, "$C", relA, "$RELA")
	testutil.Golden(t, r.Replace(lines.String()), filepath.Join("testdata", "report-scope.golden"))
}

func copyTestFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReportStandardPlaces: with no PATH, report reads the standard places
// under $HOME (a t.TempDir, never the real one). When they hold no log
// (missing, empty, or only files of no log format) it reports on a demo
// corpus in a temporary database, says so on its first line, and leaves
// the user's database alone (not created); when they hold logs it reports
// on those runs alone.
func TestReportStandardPlaces(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, home string)
		demo  bool
		first string // the first line, home as $HOME
		runs  int
	}{
		{"no places", func(*testing.T, string) {}, true,
			"trajmine report: no logs found in ~/.claude/projects, ~/.codex/sessions and 46 more standard places; showing a generated demo corpus of 12 runs (trajmine synth -n 12 --seed 1, in a temporary database removed afterwards)", 12},
		{"empty places", func(t *testing.T, home string) {
			mkdir(t, filepath.Join(home, ".claude", "projects", "-home-me-proj"))
			mkdir(t, filepath.Join(home, ".codex", "sessions"))
			if err := os.WriteFile(filepath.Join(home, ".claude", "projects", "notes.txt"), []byte("not a log"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, true,
			"trajmine report: no logs found in ~/.claude/projects, ~/.codex/sessions and 46 more standard places; showing a generated demo corpus of 12 runs (trajmine synth -n 12 --seed 1, in a temporary database removed afterwards)", 12},
		{"a place with no known log", func(t *testing.T, home string) {
			p := filepath.Join(home, ".claude", "projects", "x")
			mkdir(t, p)
			copyTestFile(t, "../ingest/testdata/notalog.json", filepath.Join(p, "notalog.json"))
		}, true,
			"trajmine report: no runs in the 1 file found in ~/.claude/projects; showing a generated demo corpus of 12 runs (trajmine synth -n 12 --seed 1, in a temporary database removed afterwards)", 12},
		{"logs in a place", func(t *testing.T, home string) {
			p := filepath.Join(home, ".claude", "projects", "-home-me-proj")
			mkdir(t, p)
			mkdir(t, filepath.Join(home, ".codex", "sessions"))
			for _, f := range []string{"overflow_subagent.jsonl", "split_responses.jsonl"} {
				copyTestFile(t, filepath.Join(fixtureDir, f), filepath.Join(p, f))
			}
		}, false,
			"trajmine report: 3 runs from 2 files under ~/.claude/projects, ~/.codex/sessions (database $DB holds no other runs)", 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := testDeps(t, nil)
			home, _ := d.HomeDir()
			tc.setup(t, home)
			dir := t.TempDir()
			d.DB = filepath.Join(dir, "user.duckdb")
			html := filepath.Join(dir, "r.html")
			stdout, stderr, code := run(t, d, "report", "--demo-sessions", "12", "-o", html)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			first, _, _ := strings.Cut(stdout, "\n")
			// the page names the demo's database (the first line does not: it is gone)
			demoDB := regexp.MustCompile(`database <code>(\S+/demo\.duckdb) \(temporary`).FindStringSubmatch(readFile(t, html))
			r := strings.NewReplacer(d.DB, "$DB", home, "$HOME")
			if tc.demo != (demoDB != nil) {
				t.Errorf("demo %v, but the page names the database %q", tc.demo, demoDB)
			}
			if demoDB != nil {
				if _, err := os.Stat(demoDB[1]); !os.IsNotExist(err) {
					t.Errorf("the demo's database %s is still there (%v)", demoDB[1], err)
				}
			}
			if got := r.Replace(first); got != tc.first {
				t.Errorf("first line\n%s\nwant\n%s", got, tc.first)
			}
			_, err := os.Stat(d.DB)
			switch {
			case tc.demo && tc.name != "a place with no known log" && !os.IsNotExist(err):
				t.Errorf("the demo created or touched the user's database (%v)", err)
			case !tc.demo && err != nil:
				t.Errorf("the user's database: %v", err)
			}
			if tc.demo {
				// the user's database holds no demo run
				if _, err := os.Stat(d.DB); err == nil {
					out, _, _ := run(t, d, "sql", "--format", "csv", "SELECT count(*) FROM runs")
					if out != "count_star()\n0\n" {
						t.Errorf("the user's database holds runs after the demo:\n%s", out)
					}
				}
			}
			if want := fmt.Sprintf(`<div class="card"><span class="v">%d</span><span class="k">runs`, tc.runs); !strings.Contains(readFile(t, html), want) {
				t.Errorf("the page lacks %q", want)
			}
		})
	}
}

func mkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReportNoRuns: report on inputs that give no run (missing, of no
// known format, an empty directory, one good and one missing file) exits
// 1 as trajmine ingest does, says why, and writes no page.
func TestReportNoRuns(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	mkdir(t, empty)
	notalog := "../ingest/testdata/notalog.json"
	tests := []struct {
		name   string
		args   []string
		stderr string // the last line
	}{
		{"missing file", []string{filepath.Join(dir, "missing.jsonl")}, "trajmine: ingest: stat $DIR/missing.jsonl: no such file or directory"},
		{"not a log", []string{notalog}, "trajmine: report: no runs from " + notalog + ": 1 file failed to import"},
		{"empty directory", []string{empty}, "trajmine: report: no agent logs in $DIR/empty"},
		{"a log and a missing file", []string{fixtureDir, filepath.Join(dir, "missing.jsonl")}, "trajmine: ingest: stat $DIR/missing.jsonl: no such file or directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := testDeps(t, nil)
			d.DB = filepath.Join(t.TempDir(), "x.duckdb")
			html := filepath.Join(dir, "r.html")
			_, stderr, code := run(t, d, slices.Concat([]string{"report", "-o", html}, tc.args)...)
			if code != exitFailed {
				t.Errorf("exit %d, want %d", code, exitFailed)
			}
			lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
			if got := strings.ReplaceAll(lines[len(lines)-1], dir, "$DIR"); got != tc.stderr {
				t.Errorf("stderr ends\n%s\nwant\n%s", got, tc.stderr)
			}
			if _, err := os.Stat(html); !os.IsNotExist(err) {
				t.Errorf("a page was written (%v)", err)
			}
		})
	}
}

// TestReportSomeFailed: a report whose inputs partly fail to import covers
// the rest, writes its page and exits 1, as trajmine ingest does.
func TestReportSomeFailed(t *testing.T) {
	d := testDeps(t, nil)
	dir := t.TempDir()
	d.DB = filepath.Join(dir, "x.duckdb")
	html := filepath.Join(dir, "r.html")
	good := filepath.Join(dir, "good.jsonl")
	writeRuns(t, good, "g-1", "g-2")
	stdout, stderr, code := run(t, d, "report", "-o", html, good, "../ingest/testdata/notalog.json")
	if code != exitFailed || !strings.HasSuffix(stderr, "trajmine: 1 file failed to import (the report covers the rest)\n") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if first, _, _ := strings.Cut(stdout, "\n"); first != "trajmine report: 2 runs from 1 of 2 files: "+good+", ../ingest/testdata/notalog.json (database "+d.DB+" holds no other runs)" {
		t.Errorf("first line %q", first)
	}
	if _, err := os.Stat(html); err != nil {
		t.Errorf("no page: %v", err)
	}
}
