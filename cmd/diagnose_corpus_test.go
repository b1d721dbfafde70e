package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/analysis"
	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/schema"
	"github.com/trajmine/trajmine/simulate"
)

// TestDiagnoseCorpus diagnoses the whole shared corpus (skipped when it is
// absent, required under CI=true): every run has an end reason with its
// source and a why, the verdict's window-end counts are explained run by
// run in the --json form and in diag_runs, and every printed figure follows
// from the stored tables by the formulas of the command's help. With --window 20000 many runs are
// inferred to have ended on window length, so the counts are not all zero.
func TestDiagnoseCorpus(t *testing.T) {
	root := testutil.CorpusDir(t)
	ctx := context.Background()
	st, err := store.Open(ctx, store.Config{Path: ""})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := ingest.Files(ctx, st, []string{root}, &ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	var nRuns int
	if err := st.DB().QueryRowContext(ctx, "SELECT count(*) FROM runs").Scan(&nRuns); err != nil {
		t.Fatal(err)
	}
	if nRuns == 0 {
		t.Fatal("no runs imported from the corpus")
	}

	// the end reasons per format at the logged or known windows, pinned
	// (BENCHMARKS.md, "Issue 29", has them before and after)
	out, err := analysis.DiagnoseStore(ctx, st, &analysis.DiagnoseOptions{By: "model"})
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, endReasonCounts(out), filepath.Join("testdata", "diagnose-corpus-ends.golden"))

	tests := []struct {
		name           string
		window         simulate.Window
		someWindowEnds bool
	}{
		{"logged or known windows", simulate.OwnWindow, false},
		{"window 20000", simulate.Tokens(20000), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := analysis.DiagnoseStore(ctx, st, &analysis.DiagnoseOptions{Window: tc.window, By: "model"})
			if err != nil {
				t.Fatal(err)
			}
			if out.Verdict.Runs != nRuns || len(out.Runs) != nRuns {
				t.Fatalf("verdict counts %d runs, %d diagnosed, store has %d", out.Verdict.Runs, len(out.Runs), nRuns)
			}
			for _, r := range out.Runs {
				e := r.End
				if e.Reason == "" || (e.Source != schema.SourceExplicit && e.Source != schema.SourceInferred) || e.Rule == "" || e.Why == "" {
					t.Errorf("run %s (%s): end %+v lacks a reason, source, rule or why", r.RunID, r.SourceFormat, e)
				}
			}

			// the verdict, explained run by run in the --json form
			b, err := json.Marshal(out)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Verdict struct {
					Runs       int `json:"runs"`
					WindowEnds int `json:"window_ends"`
					Explicit   int `json:"explicit"`
					Inferred   int `json:"inferred"`
				} `json:"verdict"`
				Runs []struct {
					End struct {
						Reason string `json:"end_reason"`
						Source string `json:"end_reason_source"`
					} `json:"end"`
				} `json:"runs"`
			}
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			var ends, explicit, inferred int
			for _, r := range doc.Runs {
				if r.End.Reason != string(schema.EndContextOverflow) {
					continue
				}
				ends++
				if r.End.Source == string(schema.SourceExplicit) {
					explicit++
				} else {
					inferred++
				}
			}
			v := doc.Verdict
			if v.Runs != len(doc.Runs) || v.WindowEnds != ends || v.Explicit != explicit || v.Inferred != inferred {
				t.Errorf("verdict %+v; runs say %d runs, %d window ends (%d explicit, %d inferred)", v, len(doc.Runs), ends, explicit, inferred)
			}
			if tc.someWindowEnds && ends == 0 {
				t.Errorf("no window ends with --window %d", tc.window)
			}

			// and in the stored tables
			if err := analysis.SaveDiagnosis(ctx, st, out); err != nil {
				t.Fatal(err)
			}
			var rows, windowRows, calls, nCalls int
			q := `SELECT count(*), count(*) FILTER (WHERE end_reason = 'context_overflow'), sum(n_calls), (SELECT count(*) FROM diag_calls) FROM diag_runs`
			if err := st.DB().QueryRowContext(ctx, q).Scan(&rows, &windowRows, &nCalls, &calls); err != nil {
				t.Fatal(err)
			}
			if rows != nRuns || windowRows != v.WindowEnds || calls != nCalls {
				t.Errorf("diag_runs: %d rows, %d window ends, Σ n_calls %d, diag_calls %d rows; want %d runs, %d window ends", rows, windowRows, nCalls, calls, nRuns, v.WindowEnds)
			}
			diagCheckFormulas(t, st, out)
		})
	}
}

// TestDiagnoseCorpusMoreEnds pins the end reasons per format of
// ../shared/corpus-more and ../shared/corpus-outcomes (skipped when absent,
// required under CI=true) at the logged or known windows, as
// TestDiagnoseCorpus does for the shared corpus.
func TestDiagnoseCorpusMoreEnds(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"corpus-more", "corpus-outcomes"} {
		t.Run(name, func(t *testing.T) {
			dir := testutil.SharedDir(t, name)
			st, err := store.Open(ctx, store.Config{Path: ""})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			if _, err := ingest.Files(ctx, st, []string{dir}, &ingest.Options{Warn: func(error) {}}); err != nil {
				t.Fatal(err)
			}
			out, err := analysis.DiagnoseStore(ctx, st, &analysis.DiagnoseOptions{By: "model"})
			if err != nil {
				t.Fatal(err)
			}
			testutil.Golden(t, endReasonCounts(out), filepath.Join("testdata", "diagnose-"+name+"-ends.golden"))
		})
	}
}

// endReasonCounts is the number of runs per format, end reason, source and
// rule, one tab-separated line each, sorted, after a header line.
func endReasonCounts(out diagnose.Summary) string {
	n := map[string]int{}
	for _, r := range out.Runs {
		n[strings.Join([]string{r.SourceFormat, string(r.End.Reason), string(r.End.Source), r.End.Rule}, "\t")]++
	}
	keys := slices.Sorted(maps.Keys(n))
	var b strings.Builder
	b.WriteString("format\tend_reason\tsource\trule\truns\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "%s\t%d\n", k, n[k])
	}
	return b.String()
}

// diagCheckFormulas recomputes the printed figures from the stored tables
// with the formulas of the command's help and compares them with out.
func diagCheckFormulas(t *testing.T, st *store.Store, out diagnose.Summary) {
	t.Helper()
	ctx := context.Background()
	db := st.DB()
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

	var explicit, inferred int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE end_reason_source = 'explicit'), count(*) FILTER (WHERE end_reason_source = 'inferred')
FROM diag_runs WHERE end_reason = 'context_overflow'`).Scan(&explicit, &inferred); err != nil {
		t.Fatal(err)
	}
	if explicit != out.Verdict.Explicit || inferred != out.Verdict.Inferred {
		t.Errorf("window ends from diag_runs: %d explicit, %d inferred; verdict %+v", explicit, inferred, out.Verdict)
	}

	var bad int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM diag_runs r JOIN (
  SELECT run_id, max(prompt_tokens) AS peak, count(*) AS n, max(share) AS share,
         count(*) FILTER (WHERE prompt_tokens * 100 >= w * 80) AS ge80
  FROM diag_calls JOIN (SELECT run_id, window_tokens AS w FROM diag_runs) USING (run_id) GROUP BY run_id) c USING (run_id)
WHERE r.peak_tokens <> c.peak OR r.n_calls <> c.n OR r.calls_ge_80 <> c.ge80 OR r.peak_share IS DISTINCT FROM c.share`).Scan(&bad); err != nil {
		t.Fatal(err)
	}
	if bad > 0 {
		t.Errorf("%d runs whose peak, n_calls, calls_ge_80 or peak_share do not follow from diag_calls", bad)
	}

	rows, err := db.QueryContext(ctx, `SELECT tool, sum(rent) / (SELECT sum(rent_total) FROM diag_runs) FROM diag_rent GROUP BY tool`)
	if err != nil {
		t.Fatal(err)
	}
	shares := map[string]float64{}
	for rows.Next() {
		var tool string
		var share float64
		if err := rows.Scan(&tool, &share); err != nil {
			t.Fatal(err)
		}
		shares[tool] = share
	}
	rows.Close()
	for _, tr := range out.RentByTool {
		if !near(shares[tr.Tool], tr.Share) {
			t.Errorf("rent share of %s from diag_rent %v, printed %v", tr.Tool, shares[tr.Tool], tr.Share)
		}
	}
	if v := out.Verdict; v.TopRentTool != "" && !near(shares[v.TopRentTool], v.TopRentShare) ||
		!near(shares[diagnose.RentSystemPrompt], v.SystemPromptShare) || !near(shares[diagnose.RentToolDefinitions], v.ToolDefinitionsShare) {
		t.Errorf("verdict rent shares %+v; diag_rent gives %v", v, shares)
	}

	var spend, solvedSpend float64
	var resolved int
	if err := db.QueryRowContext(ctx, `SELECT coalesce(sum(cost_usd), 0), coalesce(sum(cost_usd) FILTER (WHERE resolved IS NOT NULL), 0), count(*) FILTER (WHERE resolved)
FROM diag_runs`).Scan(&spend, &solvedSpend, &resolved); err != nil {
		t.Fatal(err)
	}
	ps := out.Totals.PerSolved
	if !near(spend, out.Totals.SpendUSD) || resolved != ps.Resolved || (ps.USD == nil) != (resolved == 0) || ps.USD != nil && !near(solvedSpend/float64(resolved), *ps.USD) {
		t.Errorf("spend %v, per solved %v over %d resolved from diag_runs; totals %+v", spend, solvedSpend, resolved, out.Totals)
	}

	// the reading boundary: Kaplan–Meier over (boundary_turn, boundary_event)
	rows, err = db.QueryContext(ctx, `SELECT boundary_turn, count(*) FILTER (WHERE boundary_event), count(*) FROM diag_runs
WHERE boundary_turn > 0 GROUP BY boundary_turn ORDER BY boundary_turn`)
	if err != nil {
		t.Fatal(err)
	}
	type point struct{ turn, d, n int64 }
	var pts []point
	var atRisk int64
	for rows.Next() {
		var p point
		if err := rows.Scan(&p.turn, &p.d, &p.n); err != nil {
			t.Fatal(err)
		}
		pts = append(pts, p)
		atRisk += p.n
	}
	rows.Close()
	s, found, turn := 1.0, false, int64(0)
	for _, p := range pts {
		s *= 1 - float64(p.d)/float64(atRisk)
		atRisk -= p.n
		if !found && s <= 0.5 {
			found, turn = true, p.turn
		}
	}
	if b := out.ReadingBoundary; found != b.Found || turn != b.Call {
		t.Errorf("reading boundary from diag_runs: found %v at %d; printed %v at %d", found, turn, b.Found, b.Call)
	}
}
