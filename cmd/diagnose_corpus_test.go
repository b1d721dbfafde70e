package cmd

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/schema"
)

// TestDiagnoseCorpus diagnoses the whole shared corpus (skipped when it is
// absent, required under CI=true): every run has an end reason with its
// source and a why, and the verdict's window-end counts are explained run by
// run in the --json form and in diag_runs. With --window 20000 many runs are
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

	tests := []struct {
		name           string
		window         int64
		someWindowEnds bool
	}{
		{"logged or known windows", 0, false},
		{"window 20000", 20000, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := diagnoseCompute(ctx, st, &DiagnoseOptions{Window: tc.window, By: "model"})
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
			if err := diagnoseSave(ctx, st, out); err != nil {
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
		})
	}
}
