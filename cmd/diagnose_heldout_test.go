package cmd

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/analysis"
	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/schema"
)

// TestDiagnoseHeldOut: the end reasons of real logs held out of the shared
// corpus are the ones a reader of them concludes (testdata/heldout/README.md
// has each log's source, licence and reading).
func TestDiagnoseHeldOut(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		file       string
		runID      string
		wantReason schema.EndReason
		wantRule   string
		wantWhy    string
	}{
		{"langfuse__pydantic-ai-tools-2025-12-04.trace.json", "7a38edd8123db47ad8dcb8aa4c5e3926",
			schema.EndFinished, "submit", `the last tool call (call 3), "final_result", is a submit action`},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			st, err := store.Open(ctx, store.Config{Path: ""})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			if _, err := ingest.Files(ctx, st, []string{filepath.Join("testdata", "heldout", tc.file)}, &ingest.Options{}); err != nil {
				t.Fatal(err)
			}
			out, err := analysis.DiagnoseStore(ctx, st, &analysis.DiagnoseOptions{By: "model"})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, r := range out.Runs {
				if r.RunID != tc.runID {
					continue
				}
				found = true
				e := r.End
				if e.Reason != tc.wantReason || e.Source != schema.SourceInferred || e.Rule != tc.wantRule || !strings.Contains(e.Why, tc.wantWhy) {
					t.Errorf("end %+v; want %s (inferred) by %s, why containing %q", e, tc.wantReason, tc.wantRule, tc.wantWhy)
				}
			}
			if !found {
				t.Errorf("no run %s among %d", tc.runID, len(out.Runs))
			}
		})
	}
}
