package cmd

import (
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/analysis"
	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/simulate"
)

// windowExpected is, per run, what the logs alone say about a window of
// :window tokens below every run's own: the run died in its log (its
// end_reason is context_overflow), or one of its calls, logged input plus
// output (usage rows not estimated), exceeds the window. Independent of
// the replay: plain SQL over runs and usage.
const windowExpected = `WITH peak AS (SELECT run_id, max(input_tokens + output_tokens) AS p FROM usage WHERE NOT estimated GROUP BY run_id)
SELECT run_id, end_reason = 'context_overflow' AS logged, coalesce(p, 0) > ? AS over FROM runs LEFT JOIN peak USING (run_id)`

// TestWindowWhatIfSynth: 30 generated runs (trajmine synth -n 30 --seed 7:
// Claude Code, Codex and OpenAI-messages sessions at windows of 128,000
// tokens or more, 4 of which hit their window) replayed at --window 32,000.
// What ran dies in every run the logs say died (4) or whose logged prompt
// plus output passes 32,000 (15), counted from the logs by windowExpected,
// with the cause; a saved run is one of those, carried through every
// logged call and no further (survived only when its log finished); the
// commands' text is pinned by goldens.
func TestWindowWhatIfSynth(t *testing.T) {
	d := testDeps(t, nil)
	d.DB = filepath.Join(t.TempDir(), "window.duckdb")
	dir := filepath.Join(t.TempDir(), "synth")
	if _, stderr, code := run(t, d, "synth", "-n", "30", "--seed", "7", dir); code != 0 {
		t.Fatalf("synth: %s", stderr)
	}
	if _, stderr, code := run(t, d, "ingest", "--workers", "1", dir); code != 0 {
		t.Fatalf("ingest: %s", stderr)
	}
	out, stderr, code := run(t, d, "simulate", "--window", "32000", "--json")
	if code != 0 {
		t.Fatalf("simulate: %s", stderr)
	}
	var sim analysis.Simulation
	if err := json.Unmarshal([]byte(out), &sim); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), store.Config{Path: d.DB, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	db := st.DB()
	count := func(q string, args ...any) int {
		t.Helper()
		var n int
		if err := db.QueryRowContext(context.Background(), q, args...).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	const w = 32_000
	// every run's own window is above 32,000 (the log's, else the table's by family)
	if n := count(`SELECT count(*) FROM runs WHERE coalesce(window_tokens, CASE WHEN model_family LIKE 'claude%' THEN 200000 END, 0) <= ?`, w); n != 0 {
		t.Fatalf("%d runs with an own window of at most 32,000", n)
	}
	dead := count(`SELECT count(*) FROM (`+windowExpected+`) WHERE logged OR over`, w)
	atWindow := count(`SELECT count(*) FROM (`+windowExpected+`) WHERE over AND NOT logged`, w)
	if dead != 19 || atWindow != 15 {
		t.Errorf("the logs: %d runs die at 32,000, %d of them only because of the window; the corpus of seed 7 has 19, 15", dead, atWindow)
	}
	// per run, as-logged's verdict and its cause are the logs'
	if n := count(`SELECT count(*) FROM sim_runs s JOIN (`+windowExpected+`) e USING (run_id)
WHERE s.policy = 'as-logged' AND s.window_tokens = ? AND (s.baseline_overflow <> (e.logged OR e.over)
  OR s.as_logged_overflow_cause <> CASE WHEN e.logged THEN 'logged' WHEN e.over THEN 'window' ELSE '' END)`, w, w); n != 0 {
		t.Errorf("%d runs whose as-logged verdict at 32,000 is not the logs'", n)
	}
	// the same verdict on every policy's row of a run (it is what ran's)
	if n := count(`SELECT count(*) FROM (SELECT run_id FROM sim_runs WHERE window_tokens = ? GROUP BY run_id HAVING count(DISTINCT baseline_overflow) > 1 OR count(DISTINCT as_logged_overflow_cause) > 1)`, w); n != 0 {
		t.Errorf("%d runs whose policies disagree on what ran's verdict", n)
	}
	// saved: a dead run carried through every logged call, survived only when the log finished; lost: never a dead run
	if n := count(`SELECT count(*) FROM sim_runs s JOIN runs r USING (run_id) JOIN (`+windowExpected+`) e USING (run_id)
WHERE s.window_tokens = ? AND ((s.saved AND (NOT (e.logged OR e.over) OR s.status = 'overflow' OR s.calls + s.dropped_context_calls <> s.logged_calls
    OR (s.status = 'survived') <> (r.end_reason = 'finished'))) OR (s.lost AND (e.logged OR e.over)))`, w, w); n != 0 {
		t.Errorf("%d saved rows not carried to their logged end, or saved or lost wrongly", n)
	}
	byPolicy := map[string]simulate.Agg{}
	for _, a := range sim.Comparison {
		byPolicy[a.Policy] = a
	}
	al := byPolicy[simulate.AsLoggedName]
	if al.Runs != 30 || al.BaselineOverflow != dead || al.BaselineOverflowAtWindow != atWindow || al.Overflow != dead {
		t.Errorf("as-logged at 32,000: %d runs, lost under what ran %d (%d at the window), overflow %d; want 30, %d (%d), %d",
			al.Runs, al.BaselineOverflow, al.BaselineOverflowAtWindow, al.Overflow, dead, atWindow, dead)
	}
	// truncation drops the oldest items until each call fits: it carries every run to its logged end
	tr := byPolicy["truncate"]
	if tr.Saved != dead || tr.SavedAtWindow != atWindow || tr.Overflow != 0 || tr.Lost != 0 {
		t.Errorf("truncate at 32,000: saved %d (%d at the window), overflow %d, lost %d; want %d (%d), 0, 0", tr.Saved, tr.SavedAtWindow, tr.Overflow, tr.Lost, dead, atWindow)
	}
	for _, a := range sim.Comparison {
		if a.Saved+a.Overflow != dead+a.Lost || a.SavedAtWindow > atWindow {
			t.Errorf("%s: saved %d + overflow %d ≠ dead %d + lost %d, or %d saved at the window of %d", a.Policy, a.Saved, a.Overflow, dead, a.Lost, a.SavedAtWindow, atWindow)
		}
	}

	st.Close() // the commands below open the database themselves

	// diagnose's verdict counts the same runs from the logs
	out, _, code = run(t, d, "diagnose", "--window", "32000", "--json", "--no-save")
	var diag struct {
		Verdict struct {
			WhatIfRuns   int `json:"what_if_runs"`
			WindowDeaths int `json:"window_deaths"`
		} `json:"verdict"`
	}
	if err := json.Unmarshal([]byte(out), &diag); code != 0 || err != nil {
		t.Fatalf("diagnose: exit %d, %v", code, err)
	}
	if diag.Verdict.WhatIfRuns != 30 || diag.Verdict.WindowDeaths != atWindow {
		t.Errorf("diagnose at 32,000: window below %d runs' own, %d would have died; want 30, %d", diag.Verdict.WhatIfRuns, diag.Verdict.WindowDeaths, atWindow)
	}

	// the text: simulate's table and what-if line, report's sentences and verdict, recommend's per-family line
	for _, tc := range []struct {
		name string
		args []string
		head string // keep the output up to this line (exclusive); "" all
	}{
		{"simulate-window-what-if", []string{"simulate", "--window", "32000", "--no-save", "--policy", "truncate", "--policy", "compact-codex", "--policy", "mask", "--policy", "halflife"}, ""},
		{"report-window-what-if", []string{"report", "--full", "--all", "--window", "32000", "-o", filepath.Join(t.TempDir(), "r.html")}, "Context policies replayed"},
		{"recommend-window-what-if", []string{"recommend", "--window", "32000"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := run(t, d, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			out = strings.ReplaceAll(out, d.DB, "DB")
			if tc.head != "" {
				out, _, _ = strings.Cut(out, tc.head)
			}
			testutil.Golden(t, out, filepath.Join("testdata", tc.name+".stdout"))
		})
	}
}

// TestWindowWhatIfCorpusOutcomes: corpus-outcomes' 20 mini-swe-agent runs
// (Gemini 3 Pro, own window 1,048,576, every log finished) at --window
// 32,000: the runs whose logged input plus output passes 32,000 (counted
// with SQL over usage) are the ones what ran loses there, diagnose's and
// simulate's, and the headline's sentence says so. The policies' saved
// counts are pinned (BENCHMARKS.md, issue 27.5).
func TestWindowWhatIfCorpusOutcomes(t *testing.T) {
	dir := testutil.SharedDir(t, "corpus-outcomes")
	ctx := context.Background()
	st, err := store.Open(ctx, store.Config{Path: ""})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := ingest.Files(ctx, st, []string{dir}, &ingest.Options{Warn: func(error) {}}); err != nil {
		t.Fatal(err)
	}
	const w = 32_000
	var runs, over, overInput int
	q := `SELECT (SELECT count(*) FROM runs), count(*) FILTER (WHERE p > ?), count(*) FILTER (WHERE i > ?)
FROM (SELECT run_id, max(input_tokens + output_tokens) AS p, max(input_tokens) AS i FROM usage WHERE NOT estimated GROUP BY run_id)`
	if err := st.DB().QueryRowContext(ctx, q, w, w).Scan(&runs, &over, &overInput); err != nil {
		t.Fatal(err)
	}
	// 6 of 20, by input alone too (largest logged prompts 35,837 to 42,470; the rest at most 27,196)
	if runs != 20 || over != 6 || overInput != over {
		t.Fatalf("corpus-outcomes: %d runs, %d over 32,000 with their output, %d by input alone; want 20, 6, 6", runs, over, overInput)
	}
	sim, err := analysis.SimulateStore(ctx, st, &analysis.SimulateOptions{Windows: []simulate.Window{w}, NoSave: true}, mustPolicies(t))
	if err != nil {
		t.Fatal(err)
	}
	diag, err := analysis.DiagnoseStore(ctx, st, &analysis.DiagnoseOptions{Window: w, By: "model"})
	if err != nil {
		t.Fatal(err)
	}
	if v := diag.Verdict; v.WindowEnds != 0 || v.WhatIfRuns != runs || v.WindowDeaths != over {
		t.Errorf("diagnose at 32,000: %d window ends, window below %d runs' own, %d deaths; want 0, %d, %d", v.WindowEnds, v.WhatIfRuns, v.WindowDeaths, runs, over)
	}
	// saved at 32,000 per policy, measured 2026-12-04 (before issue 27.5: 0 for every policy)
	pins := map[string]int{"compact-gemini": 6, "compact-goose": 6, "compact-codex": 6, "compact-openhands": 6, "compact-claude-code": 6, "truncate": 6,
		"mask": 5, "halflife": 1, "keep-all": 0}
	for _, a := range sim.Comparison {
		if a.BaselineOverflow != over || a.BaselineOverflowAtWindow != over {
			t.Errorf("%s: %d runs lost under what ran (%d at the window), want %d", a.Policy, a.BaselineOverflow, a.BaselineOverflowAtWindow, over)
		}
		p, _ := simulate.Parse(a.Policy)
		short := a.Policy
		if p != nil {
			short = simulate.Short(p)
		}
		if want, ok := pins[short]; ok && (a.Saved != want || a.SavedAtWindow != want || a.Lost != 0) {
			t.Errorf("%s: saved %d (%d at the window), lost %d; pinned %d, none lost", short, a.Saved, a.SavedAtWindow, a.Lost, want)
		}
	}
	s := analysis.WindowVerdict(sim.Comparison, w)
	if !strings.HasPrefix(s, "At 32,000 tokens, 6 of the 20 runs would have died under what ran") || !strings.Contains(s, "carried 6 of them to their logged end") {
		t.Errorf("window verdict %q", s)
	}
}

// mustPolicies is the catalog's defaults with the references (as trajmine
// simulate replays them).
func mustPolicies(t *testing.T) []simulate.Policy {
	t.Helper()
	pols, err := analysis.WithKeepAll(nil)
	if err != nil {
		t.Fatal(err)
	}
	return pols
}

// TestWindowFlags: every command's --window reads the same spellings
// (simulate.ParseWindow) into the value its analysis takes, unchanged
// from the flag to the analysis options (the engine's side:
// simulate.TestReplayWindowAsGiven, analysis.TestSimulateWindowsAsGiven);
// diagnose and report, whose figures are shares of a window, refuse
// unbounded; zero and bad input are usage errors that say what is
// accepted.
func TestWindowFlags(t *testing.T) {
	// each command's window as its analysis receives it
	type got struct {
		cmd      simulate.Window
		analysis []simulate.Window
	}
	commands := map[string]func(t *testing.T, args []string) (got, error){
		"simulate": func(t *testing.T, args []string) (got, error) {
			var o *SimulateOptions
			c := NewSimulateCmd(testDeps(t, nil), func(x *SimulateOptions) error { o = x; return nil })
			c.SetArgs(args)
			c.SetOut(io.Discard)
			c.SetErr(io.Discard)
			err := c.Execute()
			if err != nil {
				return got{}, err
			}
			return got{cmd: o.windows[0], analysis: o.analysis().Windows}, nil
		},
		"diagnose": func(t *testing.T, args []string) (got, error) {
			var o *DiagnoseOptions
			c := NewDiagnoseCmd(testDeps(t, nil), func(x *DiagnoseOptions) error { o = x; return nil })
			c.SetArgs(args)
			c.SetOut(io.Discard)
			c.SetErr(io.Discard)
			if err := c.Execute(); err != nil {
				return got{}, err
			}
			return got{cmd: o.Window, analysis: []simulate.Window{o.analysis().Window}}, nil
		},
		"recommend": func(t *testing.T, args []string) (got, error) {
			var o *RecommendOptions
			c := NewRecommendCmd(testDeps(t, nil), func(x *RecommendOptions) error { o = x; return nil })
			c.SetArgs(args)
			c.SetOut(io.Discard)
			c.SetErr(io.Discard)
			if err := c.Execute(); err != nil {
				return got{}, err
			}
			return got{cmd: o.Window, analysis: []simulate.Window{o.analysis().Window}}, nil
		},
		"report": func(t *testing.T, args []string) (got, error) {
			var o *ReportOptions
			c := NewReportCmd(testDeps(t, nil), func(x *ReportOptions) error { o = x; return nil })
			c.SetArgs(args)
			c.SetOut(io.Discard)
			c.SetErr(io.Discard)
			if err := c.Execute(); err != nil {
				return got{}, err
			}
			ao, err := o.analysis(0)
			if err != nil {
				t.Fatal(err)
			}
			return got{cmd: o.Window, analysis: []simulate.Window{ao.Window}}, nil
		},
		"train": func(t *testing.T, args []string) (got, error) {
			var o *TrainOptions
			c := NewTrainCmd(testDeps(t, nil), func(x *TrainOptions) error { o = x; return nil })
			c.SetArgs(append([]string{"tracer", "-o", "m.json"}, args...))
			c.SetOut(io.Discard)
			c.SetErr(io.Discard)
			if err := c.Execute(); err != nil {
				return got{}, err
			}
			return got{cmd: o.Window, analysis: []simulate.Window{o.Window}}, nil
		},
	}
	for _, tc := range []struct {
		arg  string // "" no --window
		want simulate.Window
		err  string            // the error of every command; "" none
		only map[string]string // the error of these commands only
	}{
		{arg: "", want: simulate.OwnWindow},
		{arg: "own", want: simulate.OwnWindow},
		{arg: "32k", want: simulate.Tokens(32_000)},
		{arg: "200000", want: simulate.Tokens(200_000)},
		{arg: "unbounded", want: simulate.Unbounded, only: map[string]string{"diagnose": "no unbounded window", "report": "no unbounded window"}},
		{arg: "none", want: simulate.Unbounded, only: map[string]string{"diagnose": "no unbounded window", "report": "no unbounded window"}},
		{arg: "0", err: `window "0" holds no tokens`},
		{arg: "-1", err: `window "-1" is not a number of tokens`},
		{arg: "lots", err: `window "lots" is not a number of tokens`},
	} {
		for name, parse := range commands {
			t.Run(name+" "+tc.arg, func(t *testing.T) {
				var args []string
				if tc.arg != "" {
					args = []string{"--window=" + tc.arg}
				}
				g, err := parse(t, args)
				want := tc.err
				if e, ok := tc.only[name]; ok {
					want = e
				}
				if want != "" {
					if err == nil || !strings.Contains(err.Error(), want) {
						t.Fatalf("--window %s: error %v, want one containing %q", tc.arg, err, want)
					}
					// through the root: a usage error (exit 2) naming the flag
					_, stderr, code := run(t, testDeps(t, nil), append(append([]string{name}, map[bool][]string{true: {"tracer", "-o", "m.json"}}[name == "train"]...), args...)...)
					if code != exitUsage || !strings.Contains(stderr, "--window") || !strings.Contains(stderr, want) {
						t.Errorf("trajmine %s --window %s: exit %d, stderr %q", name, tc.arg, code, stderr)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if g.cmd != tc.want || len(g.analysis) != 1 || g.analysis[0] != tc.want {
					t.Errorf("--window %s: options hold %v, the analysis gets %v; want %v in both", tc.arg, g.cmd, g.analysis, tc.want)
				}
			})
		}
	}
	// simulate's list: in order, every value reaching the analysis as read
	var o *SimulateOptions
	c := NewSimulateCmd(testDeps(t, nil), func(x *SimulateOptions) error { o = x; return nil })
	c.SetArgs([]string{"--window", "unbounded,128k,own,32_000"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if want := []simulate.Window{simulate.OwnWindow, 32_000, 128_000, simulate.Unbounded}; !slices.Equal(o.analysis().Windows, want) {
		t.Errorf("simulate --window list: %v, want %v", o.analysis().Windows, want)
	}
}
