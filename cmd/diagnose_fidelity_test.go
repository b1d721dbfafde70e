package cmd

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/analysis"
	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/simulate"
)

// TestDiagnoseCorpusPrintsFidelity: on the shared corpus, trajmine diagnose
// prints the stall/repeat split and the competing-risk reading boundary with
// the runs it rests on, and the printed counts are the JSON's.
func TestDiagnoseCorpusPrintsFidelity(t *testing.T) {
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
	out, err := analysis.DiagnoseStore(ctx, st, &analysis.DiagnoseOptions{By: "model"})
	if err != nil {
		t.Fatal(err)
	}
	var w strings.Builder
	if err := writeDiagnose(&w, out, 0, false); err != nil {
		t.Fatal(err)
	}
	b, tot := out.ReadingBoundary, out.Totals
	if b.Runs != int64(out.Verdict.Runs) || b.Events+b.Finished+b.Censored != b.Runs {
		t.Errorf("boundary over %d runs (%d + %d + %d), verdict %d", b.Runs, b.Events, b.Finished, b.Censored, out.Verdict.Runs)
	}
	for _, want := range []string{
		"Reading boundary (cumulative incidence of stopping while reading, Aalen–Johansen, finishing a competing outcome; " + thousands(b.Runs) + " runs: ",
		"Stalls: " + thousands(tot.Stalls) + " repeats of a command with an identical failing output, in " + thousands(tot.StallRuns) + " runs; " +
			thousands(tot.Repeats) + " repeats with an identical output that did not fail",
		diagnose.BoundaryClause(b),
	} {
		if !strings.Contains(w.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, w.String())
		}
	}
	if !strings.Contains(diagnose.BoundaryClause(b), " runs") {
		t.Errorf("boundary clause %q does not say how many runs it rests on", diagnose.BoundaryClause(b))
	}
}

// TestOverflowInAMessageEndToEnd: the hand-made run, a plain
// openai-messages list whose last assistant message reports the overflow,
// with a resolved-and-submitted run beside it: diagnose says
// context_overflow (rule message-text) and finished (rule submit), and the
// keep-all replay at the run's own window (claude-sonnet-4-5: 200,000
// tokens) overflows at its last call instead of calling it censored.
func TestOverflowInAMessageEndToEnd(t *testing.T) {
	dir := t.TempDir()
	log := `{"run_id": "over", "model": "claude-sonnet-4-5", "messages": [` +
		`{"role": "user", "content": "Fix the parser."},` +
		`{"role": "assistant", "content": "Reading it.", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"p.py\"}"}}]},` +
		`{"role": "tool", "tool_call_id": "c1", "content": "def parse(): pass"},` +
		`{"role": "assistant", "content": "Error: prompt is too long: 213004 tokens > 200000 maximum"}]}` + "\n" +
		`{"run_id": "done", "model": "claude-sonnet-4-5", "resolved": true, "messages": [` +
		`{"role": "user", "content": "Fix the parser."},` +
		`{"role": "assistant", "content": "Submitting.", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "submit", "arguments": "{}"}}]},` +
		`{"role": "tool", "tool_call_id": "c1", "content": "submitted"}]}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "runs.jsonl"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	d := testDeps(t, nil)
	d.DB = filepath.Join(t.TempDir(), "e2e.duckdb")
	if _, stderr, code := run(t, d, "ingest", "--format", "openai-messages", dir); code != 0 {
		t.Fatalf("ingest: %s", stderr)
	}
	stdout, stderr, code := run(t, d, "diagnose", "--json")
	if code != 0 {
		t.Fatalf("diagnose: %s", stderr)
	}
	var dj diagnose.Summary
	if err := json.Unmarshal([]byte(stdout), &dj); err != nil {
		t.Fatal(err)
	}
	ends := map[string]string{}
	for _, r := range dj.Runs {
		ends[r.RunID] = string(r.End.Reason) + " by " + r.End.Rule
	}
	want := map[string]string{"over": "context_overflow by message-text", "done": "finished by submit"}
	if diff := cmp.Diff(want, ends); diff != "" {
		t.Errorf("end reasons (-want +got):\n%s", diff)
	}
	if dj.Verdict.WindowEnds != 1 || dj.Verdict.Inferred != 1 {
		t.Errorf("verdict: %d window ends (%d inferred), want 1 (1)", dj.Verdict.WindowEnds, dj.Verdict.Inferred)
	}
	stdout, stderr, code = run(t, d, "simulate", "--json", "--no-save", "--policy", "keep-all")
	if code != 0 {
		t.Fatalf("simulate: %s", stderr)
	}
	var sj analysis.Simulation
	if err := json.Unmarshal([]byte(stdout), &sj); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range sj.Results {
		if r.RunID != "over" {
			continue
		}
		found = true
		// 2 logged calls: the overflow is the log's, at the last (index 1)
		if r.WindowTokens != 200000 || r.Status != simulate.Overflow || r.OverflowCall != 1 || !r.OverflowLogged {
			t.Errorf("replay at window %d: %s at %d (logged %v); want overflow at 1, logged, at 200000", r.WindowTokens, r.Status, r.OverflowCall, r.OverflowLogged)
		}
	}
	if !found {
		t.Error("no keep-all replay of run over")
	}
}
