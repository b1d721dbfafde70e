package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/internal/testutil"
)

// TestReportGolden (issues 32.1 and 34.4): trajmine report on the demo
// (no logs in the standard places: synth -n 40 --seed 1), by default and
// with --full, at 100 and 60 columns, golden. By default it fits one
// screen: at most 40 lines at 100 columns, the scope line first, then the
// headline's three sentences, the top policies by cost and what to read
// next, the page's path last; --full adds every section, each under its
// own title. Every line fits the width (TestGoldenWidths walks these).
func TestReportGolden(t *testing.T) {
	tests := []struct {
		golden   string
		width    int
		args     []string
		maxLines int      // 0: no limit
		want     []string // lines (prefixes) in order
		not      []string // in no line
	}{
		{"report", 100, nil, 40,
			[]string{"trajmine report: no logs found in ", "imported 28 files (24.0 MB): 40 runs, 5,059 events, no line rejected", "5 of 40 runs (12.5%) ended on window length",
				"Top 5 of ", "#  POLICY", "More: trajmine report --full", "HTML report (self-contained, opens offline): "},
			[]string{"Verdict (trajmine diagnose", "busiest edges:", "RUN  ", "FORMAT  "}},
		{"report-60-columns", 60, nil, 0,
			[]string{"trajmine report: no logs found in ", "Top 5 of ", "More: trajmine report --full", "HTML report "}, nil},
		{"report-full-100-columns", 100, []string{"--full"}, 0,
			[]string{"trajmine report: no logs found in ", "Verdict (trajmine diagnose has the tables): ", "Context policies replayed at each run's own window",
				"Recommended policy per model family (trajmine recommend):", "Agent behaviour (trajmine mine): 40 runs, ", "FORMAT  ", "RUN  ", "HTML report "},
			[]string{"More: trajmine report --full"}},
		{"report-full-60-columns", 60, []string{"--full"}, 0,
			[]string{"trajmine report: no logs found in ", "Verdict (trajmine diagnose has the", "Recommended policy per model family", "HTML report"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.golden, func(t *testing.T) {
			d := testDeps(t, map[string]string{"COLUMNS": fmt.Sprint(tc.width)})
			dir := t.TempDir()
			d.DB = filepath.Join(dir, "unused.duckdb")
			html := filepath.Join(dir, "demo.html")
			stdout, stderr, code := run(t, d, append([]string{"report", "-o", html}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if stderr != "" {
				t.Errorf("stderr: %q", stderr)
			}
			stdout = strings.ReplaceAll(stdout, html, "OUT/demo.html")
			lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			if tc.maxLines > 0 && len(lines) > tc.maxLines {
				t.Errorf("%d lines, want at most %d", len(lines), tc.maxLines)
			}
			at := 0
			for _, w := range tc.want {
				for at < len(lines) && !strings.HasPrefix(lines[at], w) {
					at++
				}
				if at == len(lines) {
					t.Errorf("no line %q (in this order)", w)
					at = 0
				}
			}
			for _, n := range tc.not {
				if strings.Contains(stdout, n) {
					t.Errorf("prints %q", n)
				}
			}
			if !strings.HasPrefix(lines[0], "trajmine report: ") || lines[len(lines)-1] != "HTML report (self-contained, opens offline): OUT/demo.html" {
				t.Errorf("first line %q, last %q: want the scope first and the page's path last", lines[0], lines[len(lines)-1])
			}
			testutil.Golden(t, stdout, filepath.Join("testdata", tc.golden+".stdout"))
		})
	}
}

// TestReportRejectsAfterScope (issue 32.1): a report on logs with a
// rejected line prints the scope line first and counts the rejects in the
// import's line, naming the command that lists them, instead of a warning
// per line before the scope; a file that fails to import is said after
// the scope line too (on stderr), and trajmine rejects lists the line.
func TestReportRejectsAfterScope(t *testing.T) {
	d := testDeps(t, nil)
	dir := t.TempDir()
	d.DB = filepath.Join(dir, "r.duckdb")
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"hello": "world"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := run(t, d, "report", "-o", filepath.Join(dir, "r.html"), fixtureDir, bad)
	if code != exitFailed {
		t.Fatalf("exit %d, want %d (a file failed): %s", code, exitFailed, stderr)
	}
	lines := strings.Split(stdout, "\n")
	if !strings.HasPrefix(lines[0], "trajmine report: 3 runs from 2 files under ../ingest/testdata/claude-code, "+bad) {
		t.Errorf("first line %q: want the scope", lines[0])
	}
	// by hand: overflow_subagent.jsonl's line 9 is the fixture's one reject
	if want := "imported 2 files (6.2 kB): 3 runs, 20 events; 1 line rejected in 1 file (trajmine rejects lists it); 1 failed"; lines[1] != want {
		t.Errorf("second line\n%q\nwant\n%q", lines[1], want)
	}
	if strings.Contains(stderr, "record is not a JSON object") {
		t.Errorf("stderr holds the reject's warning:\n%s", stderr)
	}
	if !strings.HasPrefix(stderr, bad+": unknown format") || !strings.HasSuffix(stderr, "trajmine: 1 file failed to import (the report covers the rest)\n") {
		t.Errorf("stderr %q: want the failed file, then the exit's message", stderr)
	}
	out, _, _ := run(t, d, "rejects")
	if want := "../ingest/testdata/claude-code/overflow_subagent.jsonl:9: record is not a JSON object\n"; out != want {
		t.Errorf("trajmine rejects:\n%q\nwant\n%q", out, want)
	}
}
