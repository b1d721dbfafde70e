package cmd

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattn/go-runewidth"

	"github.com/trajmine/trajmine/internal/testutil"
)

// TestFittedTables: classes, mine, calibrate, policies, show, recommend,
// simulate, diagnose, runs and help terms at a 100-column and a 60-column
// terminal ($COLUMNS), golden; every line the commands print fits (tables,
// prose, show's run header, mine's variants and conformance); and rows
// checked by hand, apart from table.go.
func TestFittedTables(t *testing.T) {
	dir := t.TempDir()
	// the claude-code fixtures and the classes fixtures: show, classes
	fixtures := filepath.Join(dir, "fixtures.duckdb")
	d := testDeps(t, nil)
	d.DB = fixtures
	if _, stderr, code := run(t, d, "ingest", "--workers", "1", fixtureDir, filepath.Join("testdata", "classes")); code != 0 {
		t.Fatal(stderr)
	}
	// the planted mine corpus (TestMineGolden's) and calibrate's (TestCalibrateCommand's)
	mineDB, calDB := filepath.Join(dir, "mine.duckdb"), filepath.Join(dir, "cal.duckdb")
	for _, c := range []struct {
		db   string
		args []string
	}{
		{mineDB, []string{"synth", "-n", "24", "--seed", "3", "--formats", "openai-messages", "--profiles", "selective,shallow,never,thrasher"}},
		{calDB, []string{"synth", "-n", "12", "--seed", "7"}},
	} {
		corpus := c.db + ".corpus"
		d := testDeps(t, nil)
		d.DB = c.db
		if _, stderr, code := run(t, d, append(c.args, corpus)...); code != 0 {
			t.Fatal(stderr)
		}
		if _, stderr, code := run(t, d, "ingest", "--workers", "1", corpus); code != 0 {
			t.Fatal(stderr)
		}
	}
	// the claude-code fixtures and the DTOC message lists: simulate, recommend
	simDB := simulateDB(t).DB
	// every line of every command fits (show's run header wraps; mine's
	// behaviour profile leaves figures out)
	steps := []struct {
		name string
		db   string
		args []string
	}{
		{"classes", fixtures, []string{"classes", "--rules", "testdata/classes-rules.yaml"}},
		{"mine", mineDB, []string{"mine", "--top", "5"}},
		{"calibrate", calDB, []string{"calibrate"}},
		{"policies", "", []string{"policies"}},
		{"show", fixtures, []string{"show", "s-split"}},
		{"recommend", simDB, []string{"recommend"}},
		{"simulate", simDB, []string{"simulate", "--no-save"}},
		{"simulate-by-format", simDB, []string{"simulate", "--no-save", "--by", "format", "--policy", "halflife(keep=1,cap=400)", "--policy", "mask(n=1)"}},
		{"diagnose", calDB, []string{"diagnose", "--no-save"}},
		{"runs-list", calDB, []string{"runs"}},
		{"terms", "", []string{"help", "terms"}},
	}
	for _, width := range []int{100, 60} {
		cols := map[string]string{"COLUMNS": map[int]string{100: "100", 60: "60"}[width]}
		for _, s := range steps {
			name := s.name + "-" + cols["COLUMNS"] + "-columns"
			t.Run(name, func(t *testing.T) {
				d := testDeps(t, cols)
				d.DB = s.db
				if d.DB == "" {
					d.DB = filepath.Join(t.TempDir(), "none.duckdb")
				}
				stdout, stderr, code := run(t, d, s.args...)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				for i, l := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
					if w := runewidth.StringWidth(l); w > width {
						t.Errorf("line %d is %d columns wide: %q", i+1, w, l)
					}
				}
				testutil.Golden(t, stdout, filepath.Join("testdata", name+".stdout"))
			})
		}
	}
	// by hand: at 60 columns calibrate's text columns (FORMAT and MODEL
	// FAMILY, 15 each) lose the 10 columns over, alternately, to 10 each
	// (9 characters and "…"); the estimator, chars4 on every row, is a
	// footer line; numbers right-aligned under CALLS (5), FACTOR (6),
	// OFFSET (6), RAW (5), FITTED (6)
	d60 := testDeps(t, map[string]string{"COLUMNS": "60"})
	d60.DB = calDB
	out, _, _ := run(t, d60, "calibrate")
	if want := "openai-me…  gpt-4.1-m…     20   1.111     945  13.1%    0.0%"; !strings.Contains(out, want+"\n") {
		t.Errorf("calibrate at 60 columns lacks the line\n%q\n%s", want, out)
	}
	// simulate at 60: the window ("own" on every row, named above) and the
	// reference columns are left out, lowest priority first, so that POLICY
	// stays whole and the objective keeps its CI: POLICY 19
	// (compact-claude-code), COST × 6, COST 95% CI 15 (dtoc-disable-only's
	// "[0.642, <1.000]": its upper end is below 1), TOKENS × 8 and three
	// gaps of 2 are 54 columns; REINV/100 CALLS (15) would make it 71
	d60.DB = simDB
	out, _, _ = run(t, d60, "simulate", "--no-save")
	for _, want := range []string{
		"compact-claude-code   0.948  [0.612, 0.996]      0.893",
		"left out at 60 columns: WINDOW, VS KEEP-ALL, $ SAVED, ACTED,",
	} {
		if !strings.Contains(out, "\n"+want+"\n") {
			t.Errorf("simulate at 60 columns lacks the line\n%q\n%s", want, out)
		}
	}
	// recommend at 60: indent 2, CANDIDATE 17 (dtoc-disable-only) left,
	// COST × 6 and 95% CI 14 right, EXCLUDED BY 15 ("behaviour, cost")
	// left: 2 + 52 + 3 gaps of 2 = 60; TOKENS × (8) would make it 70
	out, _, _ = run(t, d60, "recommend")
	if want := "  dtoc-disable-only   1.000  [1.000, 1.000]  behaviour, cost"; !strings.Contains(out, "\n"+want+"\n") {
		t.Errorf("recommend at 60 columns lacks the line\n%q\n%s", want, out)
	}
	// show at 60: indent 2, SEQ 2, EVENT 16 (tool_result Read), TOKENS 6
	// ("25 tok") and three gaps of 2 leave TEXT 60 − 32 = 28: 27
	// characters and "…"
	d60.DB = fixtures
	out, _, _ = run(t, d60, "show", "s-split")
	if want := "   9  compaction        25 tok  This session is being conti…"; !strings.Contains(out, want+"\n") {
		t.Errorf("show at 60 columns lacks the line\n%q\n%s", want, out)
	}
}

// TestWideAndBold: --wide prints the prose column whole whatever the
// terminal's width (policies: the long form, golden at natural width);
// headers are bold only on a terminal, and not under NO_COLOR or TERM=dumb.
func TestWideAndBold(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "x.duckdb")
	d := testDeps(t, nil)
	d.DB = db
	if _, stderr, code := run(t, d, "ingest", "--workers", "1", fixtureDir, filepath.Join("testdata", "classes")); code != 0 {
		t.Fatal(stderr)
	}
	narrow := testDeps(t, map[string]string{"COLUMNS": "60"})
	narrow.DB = db
	for _, c := range []struct {
		args []string
		want string // a whole cell a 60-column table would cut
	}{
		{[]string{"classes", "--wide"}, "tool=think|sequentialthinking|sequential_thinking  — thinking scratchpad"},
		{[]string{"show", "--wide", "s-split"}, "This session is being continued from a previous conversation. Summary: …"},
		{[]string{"policies", "--wide"}, "placeholder=40  tokens of a hidden output's placeholder (tool key, timestamp, token estimate)"},
	} {
		out, stderr, code := run(t, narrow, c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		if !strings.Contains(out, c.want) {
			t.Errorf("%v at 60 columns lacks %q:\n%s", c.args, c.want, out)
		}
		if cut, _, _ := run(t, narrow, c.args[:len(c.args)-1]...); c.args[0] != "show" && strings.Contains(cut, c.want) {
			t.Errorf("%v without --wide shows %q whole at 60 columns", c.args[:1], c.want)
		}
	}
	wide, _, _ := run(t, testDeps(t, nil), "policies", "--wide")
	testutil.Golden(t, wide, filepath.Join("testdata", "policies-wide.stdout"))

	tty := func(env map[string]string) *Deps {
		d := testDeps(t, env)
		d.DB = db
		d.OutIsTTY = func() bool { return true }
		return d
	}
	for _, c := range []struct {
		name string
		d    *Deps
		bold bool
	}{
		{"terminal", tty(nil), true},
		{"NO_COLOR", tty(map[string]string{"NO_COLOR": "1"}), false},
		{"TERM=dumb", tty(map[string]string{"TERM": "dumb"}), false},
		{"pipe", func() *Deps { d := testDeps(t, nil); d.DB = db; return d }(), false},
	} {
		for _, args := range [][]string{{"classes"}, {"calibrate"}, {"policies"}, {"mine", "--top", "2"}, {"show", "s-split"}, {"recommend"}, {"simulate", "--no-save", "--policy", "mask"}, {"sql", "SELECT 1 AS n"}} {
			out, stderr, code := run(t, c.d, args...)
			if code != 0 {
				t.Fatalf("%s %v: exit %d: %s", c.name, args, code, stderr)
			}
			if got := strings.Contains(out, "\x1b[1m"); got != c.bold {
				t.Errorf("%s %v: bold %v, want %v:\n%q", c.name, args, got, c.bold, out[:min(len(out), 300)])
			}
		}
	}
}
