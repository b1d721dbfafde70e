package cmd

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
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
)

// resumedLines returns the lines of a Claude Code session file with their
// sessionId set to id (as Claude Code writes the copied messages of a
// resumed session) and, when extra, a new assistant response after them.
func resumedLines(t *testing.T, src, id string, extra bool) []byte {
	t.Helper()
	fh, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []byte
	var tmpl map[string]any
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		if _, ok := m["sessionId"]; ok {
			m["sessionId"] = id
		}
		if m["type"] == "assistant" && tmpl == nil {
			tmpl = m
		}
		b, _ := json.Marshal(m)
		out = append(append(out, b...), '\n')
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if extra {
		b, _ := json.Marshal(tmpl) // a deep copy through JSON
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		m["uuid"], m["parentUuid"], m["timestamp"], m["requestId"] = "new-uuid-1", nil, "2026-02-11T09:00:00.000Z", "req_new_1"
		msg := m["message"].(map[string]any)
		msg["id"], msg["stop_reason"] = "msg_new_1", "end_turn"
		msg["content"] = []any{map[string]any{"type": "text", "text": "Resumed: the fix is in."}}
		msg["usage"] = map[string]any{"input_tokens": 10, "cache_read_input_tokens": 1000, "cache_creation_input_tokens": 0, "output_tokens": 50}
		b, _ = json.Marshal(m)
		out = append(append(out, b...), '\n')
	}
	return out
}

// TestDiagnoseResumedPair: a session and its resumption built from a corpus
// session (Claude Code copies the earlier messages, same message.id, into the
// new session file), and a fork that copied it and made no call of its own.
// Each API response is one usage row counted once, in its origin: the
// resumed run costs only its own new call, the pure copy is left out of the
// verdict, and the pair's spend is the original's plus the new call's.
func TestDiagnoseResumedPair(t *testing.T) {
	src := filepath.Join(testutil.CorpusDir(t), "claude-code", "spotter__tool_heavy.jsonl")
	const origin = "d6e0bada-1959-4eec-a9d2-0bfade768d8f" // the corpus session's id
	ctx := context.Background()
	var totals []analysis.FormatTotals // of the latest diag call (TotalsByFormat, copies once)
	diag := func(files map[string][]byte) diagnose.Summary {
		dir := t.TempDir()
		var paths []string
		for name, b := range files {
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, p)
		}
		st, err := store.Open(ctx, store.Config{Path: ""})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		if _, err := ingest.Files(ctx, st, paths, &ingest.Options{}); err != nil {
			t.Fatal(err)
		}
		out, err := analysis.DiagnoseStore(ctx, st, &analysis.DiagnoseOptions{By: "model"})
		if err != nil {
			t.Fatal(err)
		}
		runs, err := st.Runs(ctx, store.RunFilter{})
		if err != nil {
			t.Fatal(err)
		}
		totals = analysis.TotalsByFormat(runs)
		return out
	}
	orig, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	alone := diag(map[string][]byte{"a.jsonl": orig})
	aloneTotals := totals
	pair := diag(map[string][]byte{
		"a.jsonl": orig,
		"b.jsonl": resumedLines(t, src, "resumed-b", true),
		"c.jsonl": resumedLines(t, src, "resumed-c", false),
	})
	byID := map[string]diagnose.RunDiagnosis{}
	for _, r := range pair.Runs {
		byID[r.RunID] = r
	}
	a, b, c := byID[origin], byID["resumed-b"], byID["resumed-c"]
	// the corpus session has 4 API responses (MANIFEST.md): 4 copied rows
	if b.ContinuesRunID != origin || b.CopiedCalls != 4 || b.Copy {
		t.Errorf("resumed: continues %q, %d copied calls, copy %v; want %q, 4, false", b.ContinuesRunID, b.CopiedCalls, b.Copy, origin)
	}
	if c.ContinuesRunID != origin || c.CopiedCalls != 4 || !c.Copy || c.Cost.USD != 0 {
		t.Errorf("fork: continues %q, %d copied, copy %v, $%v; want %q, 4, true, $0", c.ContinuesRunID, c.CopiedCalls, c.Copy, c.Cost.USD, origin)
	}
	if a.ContinuesRunID != "" || a.CopiedCalls != 0 || a.Cost.USD != alone.Runs[0].Cost.USD {
		t.Errorf("origin: continues %q, %d copied, $%v; want none, 0, $%v (as alone)", a.ContinuesRunID, a.CopiedCalls, a.Cost.USD, alone.Runs[0].Cost.USD)
	}
	// the new call on claude-opus-4-6 ($5 input, $0.5 cache read, $25 output
	// per million): 10 × 5 + 1000 × 0.5 + 50 × 25 = 1800 per million = $0.0018
	if math.Abs(b.Cost.USD-0.0018) > 1e-12 {
		t.Errorf("resumed run costs $%v, want $0.0018 (its own call only)", b.Cost.USD)
	}
	if d := pair.Totals.SpendUSD - alone.Totals.SpendUSD; math.Abs(d-0.0018) > 1e-9 {
		t.Errorf("spend of the pair − the original alone = $%v, want $0.0018", d)
	}
	// the report's totals count each API response once: the pair adds the
	// new call alone, 10 input + 1,000 cache read = 1,010 logged input
	// tokens and 50 output, and 4 + 4 copied calls left out
	if len(totals) != 1 || len(aloneTotals) != 1 || totals[0].InputTokens-aloneTotals[0].InputTokens != 1010 ||
		totals[0].OutputTokens-aloneTotals[0].OutputTokens != 50 || totals[0].CopiedCalls != 8 {
		t.Errorf("totals %+v, alone %+v; want input +1,010, output +50, 8 copied calls", totals, aloneTotals)
	}
	// verdict: 3 runs ingested, the pure copy counted once (in its origin)
	if pair.Verdict.Runs != 2 || pair.Verdict.Copies != 1 || len(pair.Runs) != 3 {
		t.Errorf("verdict runs %d, copies %d, listed %d; want 2, 1, 3", pair.Verdict.Runs, pair.Verdict.Copies, len(pair.Runs))
	}
	var w strings.Builder
	writeVerdict(&w, pair, 0)
	if !strings.Contains(w.String(), "1 run is a copy of another run") {
		t.Errorf("verdict does not say the copy is counted once:\n%s", w.String())
	}
}

// TestResumedPairCountedOnce: a Claude Code session (testdata/resumed/
// orig.jsonl: 3 calls) and its resumption (resumed.jsonl: the same 3
// messages, same message.id, then 2 calls of its own), imported together
// or the resumption first. Every figure is counted once, hand-computed
// from the files:
//
//   - usage: orig's calls log 3 + 100 + 200 = 303 input and 10 + 20 + 30 =
//     60 output; the resumption's own calls 300 + 400 = 700 and 40 + 50 =
//     90, its copies of orig's 303 and 60 (copied_*, counted in orig):
//     sum(input_tokens) 1,003, sum(output_tokens) 150 over usage and over
//     runs (as logged: 1,306 and 210);
//   - runs prints IN/OUT 303/60 and 700^/90^, continues_run_id = s-orig;
//   - rent: each "package main" output is 12 characters, ceil(12/4) = 3
//     tokens. orig (calls 0–2): toolu_1 carried by calls 1–2, toolu_2 by
//     call 2: 3 × 3 = 9. The resumption (calls 0–4, 0–2 copies): toolu_1
//     and toolu_2 by its calls 3–4, toolu_3 by call 4: 3 × 5 = 15. Read's
//     rent over both 24 (copies counted again: 9 + 3 × 8 = 33);
//   - re-reads: orig's call 1 reads /r/main.go again while call 0's
//     output is visible: 1; the resumption's copy of it is orig's, its own
//     call 3 reads it again: 1 (copies counted again: 1 + 2).
func TestResumedPairCountedOnce(t *testing.T) {
	dir := filepath.Join("testdata", "resumed")
	tests := []struct {
		name    string
		ingests [][]string
	}{
		{"together", [][]string{{dir}}},
		// the second import makes the first one's rows copies
		{"resumption first", [][]string{{filepath.Join(dir, "resumed.jsonl")}, {filepath.Join(dir, "orig.jsonl")}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := testDeps(t, nil)
			d.DB = filepath.Join(t.TempDir(), "pair.duckdb")
			for _, in := range tc.ingests {
				if _, stderr, code := run(t, d, append([]string{"ingest"}, in...)...); code != 0 {
					t.Fatalf("ingest %v: exit %d\n%s", in, code, stderr)
				}
			}
			stdout, stderr, code := run(t, d, "runs")
			if code != 0 {
				t.Fatalf("runs: exit %d\n%s", code, stderr)
			}
			wantRuns := map[string][]string{
				"s-orig":    {"s-orig", "claude-code", "claude-sonnet-4-5-20250929", "3", "303", "60", "finished?"},
				"s-resumed": {"s-resumed", "claude-code", "claude-sonnet-4-5-20250929", "5", "700^", "90^", "finished?"},
			}
			for _, line := range strings.Split(stdout, "\n") {
				f := strings.Fields(line)
				if len(f) > 0 && wantRuns[f[0]] != nil {
					if diff := cmp.Diff(wantRuns[f[0]], f); diff != "" {
						t.Errorf("runs line of %s (-want +got):\n%s", f[0], diff)
					}
					delete(wantRuns, f[0])
				}
			}
			if len(wantRuns) > 0 || !strings.Contains(stdout, "^ resumed or forked session: calls copied from the run it continues are counted there") {
				t.Errorf("runs printed no line for %v, or no footer for ^:\n%s", wantRuns, stdout)
			}
			for _, q := range []struct{ query, want string }{
				{"SELECT sum(input_tokens), sum(output_tokens) FROM usage", "1003,150"},
				{"SELECT sum(input_tokens), sum(output_tokens) FROM runs", "1003,150"},
				{"SELECT sum(input_tokens + copied_input_tokens), sum(output_tokens + copied_output_tokens) FROM usage", "1306,210"},
				{"SELECT run_id, parent_run_id, continues_run_id, copied_calls, copied_input_tokens, copied_output_tokens FROM runs ORDER BY run_id",
					"s-orig,NULL,NULL,0,0,0\ns-resumed,NULL,s-orig,3,303,60"},
				{"SELECT count(*) FROM usage WHERE copy_of_run_id = 's-orig'", "3"},
			} {
				stdout, stderr, code := run(t, d, "sql", "--format", "csv", q.query)
				_, got, _ := strings.Cut(strings.TrimSpace(stdout), "\n")
				if code != 0 || got != q.want {
					t.Errorf("sql %q: exit %d, %q, want %q\n%s", q.query, code, got, q.want, stderr)
				}
			}
			stdout, _, _ = run(t, d, "show", "s-resumed")
			if !strings.Contains(stdout, "continues s-orig: its 3 calls copied from that run (in 303 out 60) are counted there, not in the totals below\nmodel claude-sonnet-4-5-20250929  calls 5  logged in 700 out 90 ") {
				t.Errorf("show does not say what the resumption copies:\n%s", stdout)
			}
			stdout, stderr, code = run(t, d, "diagnose", "--json", "--no-save")
			if code != 0 {
				t.Fatalf("diagnose: exit %d\n%s", code, stderr)
			}
			var diag diagnose.Summary
			if err := json.Unmarshal([]byte(stdout), &diag); err != nil {
				t.Fatal(err)
			}
			type figures struct {
				Rent, ReReads, Copied int64
				Continues             string
			}
			got := map[string]figures{}
			for _, r := range diag.Runs {
				got[r.RunID] = figures{r.RentTotal, r.ReReadsVisible + r.ReReadsHidden + r.ReReadsPending, r.CopiedCalls, r.ContinuesRunID}
			}
			want := map[string]figures{"s-orig": {9, 1, 0, ""}, "s-resumed": {15, 1, 3, "s-orig"}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("diagnose per run (-want +got):\n%s", diff)
			}
			if len(diag.RentByTool) != 1 || diag.RentByTool[0].Tool != "Read" || diag.RentByTool[0].Rent != 24 {
				t.Errorf("rent by tool %+v, want Read 24", diag.RentByTool)
			}
			stdout, _, _ = run(t, d, "diagnose", "--no-save")
			if !strings.Contains(stdout, "Re-reads: 2 while the earlier output was visible, 0 after it was hidden, 0 before it reached a prompt") {
				t.Errorf("diagnose does not count 2 re-reads:\n%s", stdout)
			}
		})
	}
}
