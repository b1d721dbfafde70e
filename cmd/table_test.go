package cmd

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mattn/go-runewidth"

	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/schema"
)

func TestTableFitsAndAligns(t *testing.T) {
	tb := &table{header: []string{"RUN", "MODEL", "TURNS", "IN"}}
	tb.add("a-very-long-run-identifier-that-goes-on-and-on", "claude-sonnet-4-5-20250929", "3", "36,315")
	tb.add("s", "gpt-5", "1,234", "~5*")
	tb.totals = []string{"total", "", "1,237", "36,320"}
	tb.footer = []string{"~ estimated"}
	var b strings.Builder
	if err := tb.write(&b, 40, false); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	// hand-laid: the numbers keep their widths (TURNS 5, IN 6) and three
	// gaps of 2 leave 40 − 11 − 6 = 23 columns for RUN (46 wide) and MODEL
	// (26): the widest loses one column at a time, so RUN comes down to 26,
	// then they alternate (RUN first on a tie) down to RUN 11 + MODEL 12 = 23.
	want := []string{
		"RUN          MODEL         TURNS      IN",
		"a-very-lon…  claude-sonn…      3  36,315",
		"s            gpt-5         1,234     ~5*",
		"────────────────────────────────────────",
		"total                      1,237  36,320",
		"~ estimated",
	}
	if len(lines) != len(want) {
		t.Fatalf("got\n%s", b.String())
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d:\n got %q\nwant %q", i, lines[i], want[i])
		}
		if w := runewidth.StringWidth(lines[i]); w > 40 {
			t.Errorf("line %d is %d wide", i, w)
		}
	}
	// no width: natural widths, nothing cut
	b.Reset()
	if err := tb.write(&b, 0, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "a-very-long-run-identifier-that-goes-on-and-on") {
		t.Errorf("cut without a width:\n%s", b.String())
	}
	// bold header only when asked; log text cannot inject escapes
	tb.rows[1][0] = "s\x1b[31m"
	b.Reset()
	_ = tb.write(&b, 0, true)
	if !strings.HasPrefix(b.String(), "\x1b[1mRUN") || strings.Contains(b.String(), "\x1b[31m") {
		t.Errorf("bold/escape: %q", b.String())
	}
	if !tb.allZero(5) || tb.allZero(2) {
		t.Error("allZero")
	}
}

// TestRunsTableAt100Columns is the runs table a 100-column terminal shows
// (golden), with the footer naming only the markers used.
func TestRunsTableAt100Columns(t *testing.T) {
	runs := []RunRow{
		{Run: schema.Run{RunID: "0a7c2c5e-1f3b-4c1d-9d51-1b2f7e3a9c44/subagents/agent-a77d1b2c3d4e5f6", SourceFormat: "claude-code", Model: "claude-sonnet-4-5-20250929",
			NTurns: 412, InputTokens: 31415926, OutputTokens: 271828, UsageCalls: 412, EndReason: schema.EndContextOverflow, EndReasonSource: schema.SourceExplicit}},
		{Run: schema.Run{RunID: "rollout-2026-01-05T10-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", SourceFormat: "codex-cli", Model: "gpt-5.1-codex-max",
			NTurns: 37, InputTokens: 1200000, OutputTokens: 9000, UsageCalls: 30, EndReason: schema.EndFinished, EndReasonSource: schema.SourceInferred}},
		{Run: schema.Run{RunID: "swe-agent/django__django-11099", SourceFormat: "swe-agent-traj", Model: "",
			NTurns: 12, EstTokens: 48000, UsageEstimated: true, EndReason: schema.EndStepLimit, EndReasonSource: schema.SourceExplicit}},
	}
	for i := range runs {
		runs[i].End = runEnd(runs[i].Run, nil)
	}
	var b strings.Builder
	if err := writeRunsTable(&b, runs, 100, false); err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		if w := runewidth.StringWidth(l); w > 100 {
			t.Errorf("line %d is %d columns", i, w)
		}
	}
	testutil.Golden(t, b.String(), filepath.Join("testdata", "runs-100-columns.stdout"))
}

// TestTableProse: the prose column gives way first, to its min, then the
// other text columns; an indent counts in the width; noHeader drops the
// header line only. Hand-laid.
func TestTableProse(t *testing.T) {
	mk := func() *table {
		tb := &table{header: []string{"NAME", "N", "TEXT"}, min: []int{6, 1, 8}, prose: 3}
		tb.add("alpha-beta-gamma", "12", "a long running text that goes on")
		tb.add("b", "3", "short")
		return tb
	}
	for _, c := range []struct {
		name  string
		width int
		edit  func(*table)
		want  []string
	}{
		// natural 16 + 2 + 32 + 2 gaps of 2 = 54; at 30 TEXT alone gives
		// the 24 over: 32 → 8 (7 characters and "…")
		{"prose first", 30, nil, []string{
			"NAME               N  TEXT",
			"alpha-beta-gamma  12  a long …",
			"b                  3  short"}},
		// at 24 TEXT is at its min 8, NAME gives the other 6: 16 → 10
		{"then the rest", 24, nil, []string{
			"NAME         N  TEXT",
			"alpha-bet…  12  a long …",
			"b            3  short"}},
		// the same with an indent of 2 in 26 columns, no header
		{"indent, no header", 26, func(tb *table) { tb.indent, tb.noHeader = "  ", true }, []string{
			"  alpha-bet…  12  a long …",
			"  b            3  short"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tb := mk()
			if c.edit != nil {
				c.edit(tb)
			}
			if !tb.cuts(c.width) || tb.cuts(0) || tb.cuts(80) {
				t.Errorf("cuts(%d) = %v, cuts(0) = %v, cuts(80) = %v", c.width, tb.cuts(c.width), tb.cuts(0), tb.cuts(80))
			}
			var b strings.Builder
			if err := tb.write(&b, c.width, false); err != nil {
				t.Fatal(err)
			}
			if got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n"); !slices.Equal(got, c.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

// TestTableLeavesOut: optional columns go, the first first, only while the
// table cannot fit with its key column whole (or keyWidth wide), and a
// footer names them. Hand-laid: NAME 27, N 2, SAVED 6, COST × 6,
// VS KEEP-ALL 11 and four gaps of 2 are 60 columns.
func TestTableLeavesOut(t *testing.T) {
	mk := func() *table {
		tb := &table{header: []string{"NAME", "N", "SAVED", "COST ×", "VS KEEP-ALL"}, key: []int{0}, optional: []int{4, 3}}
		tb.add("compact-claude-code(at=0.8)", "12", "53,295", "0.853", "0.216")
		tb.add("keep-all", "3", "0", "1.000", "1.000")
		return tb
	}
	for _, c := range []struct {
		name  string
		width int
		want  []string
	}{
		// it fits: nothing left out
		{"fits", 60, []string{
			"NAME                          N   SAVED  COST ×  VS KEEP-ALL",
			"compact-claude-code(at=0.8)  12  53,295   0.853        0.216",
			"keep-all                      3       0   1.000        1.000"}},
		// 57: NAME at 24 (23 characters and "…") fits: nothing left out
		{"key nearly whole", 57, []string{
			"NAME                       N   SAVED  COST ×  VS KEEP-ALL",
			"compact-claude-code(at=…  12  53,295   0.853        0.216",
			"keep-all                   3       0   1.000        1.000"}},
		// 50: NAME at 24 is still 57 wide; without VS KEEP-ALL it is 47,
		// NAME whole (cutting NAME to 17 instead breaks the rule)
		{"one out", 50, []string{
			"NAME                          N   SAVED  COST ×",
			"compact-claude-code(at=0.8)  12  53,295   0.853",
			"keep-all                      3       0   1.000",
			"left out at 50 columns: VS KEEP-ALL (widen the",
			"terminal)"}},
		// 40: 47, or 44 with NAME at 24, is too wide: COST × goes too (39)
		{"two out", 40, []string{
			"NAME                          N   SAVED",
			"compact-claude-code(at=0.8)  12  53,295",
			"keep-all                      3       0",
			"left out at 40 columns: VS KEEP-ALL,",
			"COST × (widen the terminal)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tb := mk()
			var b strings.Builder
			if err := tb.write(&b, c.width, false); err != nil {
				t.Fatal(err)
			}
			if got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n"); !slices.Equal(got, c.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
			if len(tb.header) != 5 || len(tb.rows[0]) != 5 {
				t.Error("write changed the table")
			}
		})
	}
}

// TestPrintFitted: a line that fits is left as it is; a wider one wraps at
// spaces, its continuation indented two more than its own indent; a word
// still too wide is cut with "…"; width 0 leaves every line whole.
// Hand-laid.
func TestPrintFitted(t *testing.T) {
	text := "short line\n  case abc fitness=0.5 deviations=1:a->b,2:b->c,3:c->d\n"
	for _, c := range []struct {
		width int
		want  string
	}{
		{0, text},
		// 20: the text after the indents may be 20 − 4 = 16 wide, so
		// "case abc fitness=0.5" (20) breaks after "case abc"; the
		// deviations word (33) stands alone under an indent of 4 and is cut
		// to 20 columns: 15 characters and "…"
		{20, "short line\n  case abc\n    fitness=0.5\n    deviations=1:a-…\n"},
	} {
		var b strings.Builder
		printFitted(&b, c.width, text)
		if b.String() != c.want {
			t.Errorf("width %d: got\n%q\nwant\n%q", c.width, b.String(), c.want)
		}
	}
}
