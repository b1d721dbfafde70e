package cmd

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/internal/testutil"
)

// TestRunsShowDiagnosedEnd (issue 29, point 6): once a run is diagnosed,
// runs and show print diagnose's end reason (diag_runs) and say so; a run
// imported after the diagnosis keeps the importer's, marked as such.
// testdata/diagnosed-end/README.md describes the runs.
func TestRunsShowDiagnosedEnd(t *testing.T) {
	d := testDeps(t, nil)
	d.DB = filepath.Join(t.TempDir(), "ends.duckdb")
	dir := filepath.Join("testdata", "diagnosed-end")
	mustRun := func(args ...string) string {
		t.Helper()
		stdout, stderr, code := run(t, d, args...)
		if code != 0 {
			t.Fatalf("trajmine %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
		return stdout
	}
	mustRun("ingest", filepath.Join(dir, "runs.jsonl"))
	// before any diagnosis: the importer's, no RULE column
	if out := mustRun("runs"); strings.Contains(out, "RULE") || !strings.Contains(out, "answered  openai-messages  gpt-4o      2  ~35    ~  unknown?") {
		t.Errorf("runs before diagnose:\n%s", out)
	}
	mustRun("diagnose")
	mustRun("ingest", filepath.Join(dir, "later.jsonl"))
	testutil.Golden(t, mustRun("runs"), filepath.Join(dir, "runs.stdout"))
	testutil.Golden(t, mustRun("show", "answered"), filepath.Join(dir, "show-answered.stdout"))
	testutil.Golden(t, mustRun("show", "later"), filepath.Join(dir, "show-later.stdout"))
	// its tool result follows the last model call: no prompt is estimated
	testutil.Golden(t, mustRun("show", "cut-off"), filepath.Join(dir, "show-cut-off.stdout"))

	var rows []struct {
		RunID     string `json:"run_id"`
		EndReason string `json:"end_reason"`
		End       RunEnd `json:"end"`
	}
	if err := json.Unmarshal([]byte(mustRun("runs", "--json")), &rows); err != nil {
		t.Fatal(err)
	}
	// by hand: "answered" ends on the reply "go.mod asks for Go 1.26." after
	// its only tool round; "cut-off" on a tool result; "later" was never
	// diagnosed; the runs rows keep what the importer said (nothing)
	want := map[string]RunEnd{
		"answered": {Reason: "finished", Source: "inferred", By: EndByDiagnose, Rule: "final-answer", Why: `the run ends on the model's reply without a tool call (call 1): "go.mod asks for Go 1.26."`},
		"cut-off":  {Reason: "unknown", Source: "inferred", By: EndByDiagnose, Rule: "importer", Why: "neither the log nor the prompt sizes say why the run ended"},
		"later":    {Reason: "unknown", Source: "inferred", By: EndByImport},
	}
	if len(rows) != len(want) {
		t.Fatalf("runs --json: %d rows, want %d", len(rows), len(want))
	}
	for _, r := range rows {
		if r.End != want[r.RunID] || r.EndReason != "unknown" {
			t.Errorf("run %s: end_reason %q, end %+v; want unknown and %+v", r.RunID, r.EndReason, r.End, want[r.RunID])
		}
	}
	var shown struct {
		End RunEnd `json:"end"`
	}
	if err := json.Unmarshal([]byte(mustRun("show", "--json", "answered")), &shown); err != nil {
		t.Fatal(err)
	}
	if shown.End != want["answered"] {
		t.Errorf("show --json end %+v, want %+v", shown.End, want["answered"])
	}
}
