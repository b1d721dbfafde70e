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
	if !strings.Contains(w.String(), "1 runs are copies of another run") {
		t.Errorf("verdict does not say the copy is counted once:\n%s", w.String())
	}
}
