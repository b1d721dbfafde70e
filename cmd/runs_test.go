package cmd

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/internal/textfmt"
	"github.com/trajmine/trajmine/schema"
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

// TestRunIDsStayDistinct (issue 32.3): a session and its two sub-agents,
// whose ids share their first 36 characters, print three different ids in
// the runs table at any width: an id is cut in the middle, never below
// the width that keeps the ids printed together distinct, so its
// distinguishing tail stays (an end cut at 22 columns printed all three
// as "c38b32a0-72b1-4e5f-9a…").
func TestRunIDsStayDistinct(t *testing.T) {
	const session = "c38b32a0-72b1-4e5f-9a1b-2c3d4e5f6a7b"
	ids := []string{session, session + "/agent-a1b2c3d4", session + "/agent-e5f6a7b8"}
	rows := make([]RunRow, len(ids))
	for i, id := range ids {
		rows[i] = RunRow{Run: schema.Run{RunID: id, SourceFormat: "claude-code", Model: "claude-sonnet-4-5-20250929", NTurns: 12, InputTokens: 123456, OutputTokens: 789, UsageCalls: 12}}
	}
	for _, width := range []int{0, 100, 60, 40} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			var b strings.Builder
			if err := writeRunsTable(&b, rows, width, false); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(b.String(), "\n")
			printed := map[string]string{}
			for i, id := range ids {
				cell := strings.Fields(lines[i+1])[0]
				if cell != id && !(strings.Contains(cell, "…") && strings.HasPrefix(id, strings.Split(cell, "…")[0]) && strings.HasSuffix(id, strings.Split(cell, "…")[1])) {
					t.Errorf("%s printed as %q: not the id, nor its head and tail", id, cell)
				}
				if o, ok := printed[cell]; ok {
					t.Errorf("%s and %s both print as %q:\n%s", o, id, cell, b.String())
				}
				printed[cell] = id
			}
			if width > 0 && width < 100 && !strings.Contains(lines[1], "…") {
				t.Errorf("at %d columns the ids are whole: the test does not cut them\n%s", width, b.String())
			}
		})
	}
	// the end cut the table used to make reads alike
	if a, b := textfmt.Cut(ids[1], 22), textfmt.Cut(ids[2], 22); a != b {
		t.Errorf("the end cut at 22 tells %q from %q: the case does not test the rule", a, b)
	}
}
