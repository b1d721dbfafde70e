package simulate

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/schema"
)

// corpusTraces imports corpus folders into memory and builds every run's trace.
func corpusTraces(t *testing.T, folders ...string) []*Trace {
	t.Helper()
	return corpusTracesWith(t, nil, folders...)
}

// corpusTracesWith is corpusTraces with token estimator est (nil: the
// default, chars/4).
func corpusTracesWith(t *testing.T, est ingest.Estimator, folders ...string) []*Trace {
	t.Helper()
	var paths []string
	for _, f := range folders {
		paths = append(paths, testutil.Corpus(t, f))
	}
	if len(folders) == 0 {
		paths = []string{testutil.CorpusDir(t)}
	}
	return tracesFrom(t, est, paths...)
}

// tracesFrom imports files and folders into memory and builds every run's
// trace, in run id order.
func tracesFrom(t *testing.T, est ingest.Estimator, paths ...string) []*Trace {
	t.Helper()
	rs := runsFrom(t, est, paths...)
	out := make([]*Trace, len(rs))
	for i, r := range rs {
		out[i] = r.tr
	}
	return out
}

// importedRun is one imported run with its trace.
type importedRun struct {
	tr    *Trace
	run   schema.Run
	usage []schema.Usage
}

// runsFrom imports files and folders into memory and builds every run's
// trace, in run id order, keeping the run and its usage rows.
func runsFrom(t *testing.T, est ingest.Estimator, paths ...string) []importedRun {
	t.Helper()
	var m ingest.MemSink
	if _, err := ingest.Files(context.Background(), &m, paths, &ingest.Options{Warn: func(error) {}, Estimator: est}); err != nil {
		t.Fatal(err)
	}
	ev := map[string][]schema.Event{}
	for _, e := range m.Events {
		ev[e.RunID] = append(ev[e.RunID], e)
	}
	us := map[string][]schema.Usage{}
	for _, u := range m.Usage {
		us[u.RunID] = append(us[u.RunID], u)
	}
	ops := map[string][]schema.ContextOp{}
	for _, o := range m.ContextOps {
		ops[o.RunID] = append(ops[o.RunID], o)
	}
	runs := slices.Clone(m.Runs)
	slices.SortFunc(runs, func(a, b schema.Run) int { return cmp.Compare(a.RunID, b.RunID) })
	var out []importedRun
	for _, r := range runs {
		e := ev[r.RunID]
		slices.SortFunc(e, func(a, b schema.Event) int { return cmp.Compare(a.Seq, b.Seq) })
		u := us[r.RunID]
		slices.SortFunc(u, func(a, b schema.Usage) int { return cmp.Compare(a.Turn, b.Turn) })
		d := diagnose.Run(r, e, u, ops[r.RunID], 0)
		out = append(out, importedRun{NewTrace(r, e, u, ops[r.RunID], d.End, nil), r, u})
	}
	return out
}

// TestCorpusKeepAllAccuracy replays the whole corpus under keep-all and
// reports the simulator's out-of-sample error against the logged input per
// format and model (see fitTokens). The overall median is held to README's
// 2.3 % (2.0 % over the runs long enough to fit a token model) with
// benchFigure's margin (≤ 2.8 %, ≤ 2.5 %); per format, see
// TestCorpusKeepAllAccuracyPerFormat.
func TestCorpusKeepAllAccuracy(t *testing.T) {
	trs := corpusTraces(t)
	var acc Accuracy
	for _, tr := range trs {
		acc.Add(tr)
	}
	rows := acc.Rows()
	var b strings.Builder
	for _, r := range rows {
		fit := "-"
		if r.MedianAbsFitted != nil {
			fit = fmt.Sprintf("%.1f%% of %d", 100**r.MedianAbsFitted, r.FittedCalls)
		}
		fmt.Fprintf(&b, "%-30s %-18s runs %3d calls %4d  median |err| %6.1f%%  signed %+6.1f%%  p90 %7.1f%%  fitted runs %s\n",
			r.Format, r.Family, r.Runs, r.Calls, 100*r.MedianAbs, 100*r.MedianSigned, 100*r.P90Abs, fit)
	}
	t.Logf("keep-all against logged input, out of sample:\n%s", b.String())
	all := rows[len(rows)-1]
	if all.Calls < 300 {
		t.Errorf("overall: %d calls checked, want ≥ 300 (514 when written)", all.Calls)
	}
	benchAtMost(2.3).check(t, "keep-all out of sample, every checked call", all.MedianAbs)
	if all.MedianAbsFitted == nil {
		t.Fatal("no run long enough to fit a token model")
	}
	benchAtMost(2.0).check(t, "keep-all out of sample, fitted runs", *all.MedianAbsFitted)
	// every policy replays every corpus run without trouble, deterministically
	var rp Replayer
	for _, p := range catalogPolicies(t) {
		for _, tr := range trs {
			for _, w := range []Window{OwnWindow, 20_480} {
				a := rp.Replay(tr, p, Options{Window: w})
				if b := rp.Replay(tr, p, Options{Window: w}); a != b {
					t.Fatalf("%s on %s: not deterministic", p.Name(), tr.RunID)
				}
				if a.PromptTokens < 0 || a.Calls > tr.NCalls {
					t.Fatalf("%s on %s: %+v", p.Name(), tr.RunID, a)
				}
			}
		}
	}
}

// TestCorpusKeepAllAccuracyPerFormat holds the per-format figures README
// quotes for keep-all's out-of-sample error against the logged input: with
// the default chars/4 estimator, Codex CLI runs are off by 5.9 % and
// inspect-ai runs by 6.2 % (every family of the format pooled: 118 and 73
// checked calls), which --tokenizer o200k_base brings to 2.9 % and 1.5 %
// (measured 5.85 %, 6.16 %, 2.88 %, 1.53 %); each within benchFigure's margin
// (≤ the figure + max(0.5 points, 10 %)).
func TestCorpusKeepAllAccuracyPerFormat(t *testing.T) {
	for _, tc := range []struct {
		tokenizer, format string
		calls             int
		q                 benchFigure
	}{
		{"chars4", "codex-cli", 118, benchAtMost(5.9)},
		{"chars4", "inspect-ai", 73, benchAtMost(6.2)},
		{"o200k_base", "codex-cli", 118, benchAtMost(2.9)},
		{"o200k_base", "inspect-ai", 73, benchAtMost(1.5)},
	} {
		t.Run(tc.tokenizer+"/"+tc.format, func(t *testing.T) {
			est, err := ingest.EstimatorByName(tc.tokenizer)
			if err != nil {
				t.Fatal(err)
			}
			var acc Accuracy
			for _, tr := range corpusTracesWith(t, est, tc.format) {
				if tr.Format == tc.format {
					acc.AddErrors(tr.Format, "*", KeepAllErrors(tr), tr.HoldoutFitted)
				}
			}
			rows := acc.Rows()
			if len(rows) != 1 {
				t.Fatalf("%d rows, want the format's one", len(rows))
			}
			r := rows[0]
			t.Logf("%s, %s: %d runs, %d calls, median |error| %.2f%%", tc.format, tc.tokenizer, r.Runs, r.Calls, 100*r.MedianAbs)
			if r.Calls != tc.calls {
				t.Errorf("%d calls checked, want %d", r.Calls, tc.calls)
			}
			tc.q.check(t, tc.format+" keep-all out of sample ("+tc.tokenizer+")", r.MedianAbs)
		})
	}
}

// TestCorpusHalflifeSWE replays half-life truncation at a 20,480-token
// window on the SWE-agent and mini-swe-agent corpus runs (4 + 4 files in the
// shared corpus, one run each) and prints the characters removed and the
// first activation beside the seed's figures (45–65 % of characters
// removed, first activation at median call 9–13 on SWE-bench tasks).
//
// The seed's ranges are reported, not asserted: these are 8 short runs
// (most never reach half the window, where half-life starts), not the
// seed's SWE-bench runs, and they remove far less (3–31 % over all runs).
// What is asserted:
//
//   - per run, from the trace and the rule alone: a run whose full
//     (keep-all) prompt never reaches activate × window = 10,240 tokens is
//     never activated, and a run that is activates no earlier than the
//     first call whose keep-all prompt reaches 10,240 (keep-all computed
//     here from the items, not by the engine);
//   - across caps, from the rule: halving the cap cuts every truncated
//     result at least as much, so the characters removed over all runs and
//     the runs activated do not fall as the cap goes 8000 → 2000 → 1000,
//     and the runs overflowing do not rise;
//   - the figures printed, pinned as measured when this test was written
//     (runs and activations exactly, character shares within ±2 percentage
//     points, the first-activation median within ±1 call): a change means
//     the corpus, the importers or half-life changed; re-check against the
//     seed note before updating them.
func TestCorpusHalflifeSWE(t *testing.T) {
	const window, reach = 20_480, 10_240 // reach = activate 0.5 × window
	trs := corpusTraces(t, "swe-agent-traj", "mini-swe-agent")
	if len(trs) != 8 {
		t.Fatalf("%d runs, want 8 (4 swe-agent-traj + 4 mini-swe-agent files)", len(trs))
	}
	// first call whose keep-all prompt reaches 10,240 tokens, -1 never
	firstReach := map[string]int{}
	for _, tr := range trs {
		firstReach[tr.RunID] = -1
		for c := range tr.NCalls {
			full := tr.Prefix
			for _, it := range tr.Items {
				if int(it.Since) <= c && (it.Until == 0 || int(it.Until) >= c) {
					full += int64(it.Tokens)
				}
			}
			if full >= reach {
				firstReach[tr.RunID] = c
				break
			}
		}
	}
	type pin struct {
		activated, overflow, saved int
		first                      float64 // median first activation (call)
		removedMedian, removedAll  float64 // shares
	}
	pins := map[string]pin{ // measured 2026-12-02 on the shared corpus
		"halflife":           {activated: 1, overflow: 2, saved: 0, first: 9, removedMedian: 0.055, removedAll: 0.030},
		"halflife(cap=2000)": {activated: 2, overflow: 2, saved: 0, first: 14, removedMedian: 0.127, removedAll: 0.176},
		// saved 1 (1 before issue 13, 0 from issue 13 to 27.5): the run
		// keep-all loses at 20,480 tokens (psf__requests-1142, largest
		// logged prompt 38,122) finished in its log at its own window of
		// 1,048,576 tokens; 20,480 is below it, so what ran dies there
		// (simulate.LossWindow) and half-life carries it to its logged end
		"halflife(cap=1000)": {activated: 3, overflow: 1, saved: 1, first: 9, removedMedian: 0.037, removedAll: 0.308},
	}
	var b strings.Builder
	var prev *Agg
	for _, spec := range []string{"halflife", "halflife(cap=2000)", "halflife(cap=1000)"} {
		p := mustParse(t, spec)
		var rows []Row
		var rp Replayer
		for _, tr := range trs {
			r := rp.Replay(tr, p, Options{Window: window})
			if fr := firstReach[tr.RunID]; r.FirstActivation >= 0 && (fr < 0 || r.FirstActivation < fr) {
				t.Errorf("%s on %s: activated at call %d, but keep-all first reaches %d tokens at call %d", spec, tr.RunID, r.FirstActivation, reach, fr)
			}
			rows = append(rows, Row{RunResult: r})
		}
		a := Aggregate(rows, AggOptions{})[0]
		first := "never"
		if a.FirstActivationMedian != nil {
			first = fmt.Sprintf("call %.0f", *a.FirstActivationMedian)
		}
		removed := "-"
		if a.CharsRemovedMedian != nil {
			removed = fmt.Sprintf("%.1f%%", 100**a.CharsRemovedMedian)
		}
		fmt.Fprintf(&b, "%-20s runs %d, activated %d, first activation median %s (seed 9–13), characters removed: median %s over activated runs, %.1f%% over all (seed 45–65%%); overflow %d (keep-all %d), saved %d\n",
			Short(p), a.Runs, a.Activated, first, removed, 100*a.CharsRemovedAll, a.Overflow, a.KeepAllOverflow, a.Saved)
		if a.Runs != len(trs) {
			t.Errorf("%s: %d runs, want %d", spec, a.Runs, len(trs))
		}
		if prev != nil && (a.CharsRemovedAll < prev.CharsRemovedAll || a.Activated < prev.Activated || a.Overflow > prev.Overflow) {
			t.Errorf("%s against the larger cap: removed %.3f < %.3f, activated %d < %d or overflow %d > %d",
				spec, a.CharsRemovedAll, prev.CharsRemovedAll, a.Activated, prev.Activated, a.Overflow, prev.Overflow)
		}
		w := pins[spec]
		if a.Activated != w.activated || a.Overflow != w.overflow || a.Saved != w.saved {
			t.Errorf("%s: activated %d, overflow %d, saved %d; pinned %d, %d, %d", spec, a.Activated, a.Overflow, a.Saved, w.activated, w.overflow, w.saved)
		}
		if a.FirstActivationMedian == nil || math.Abs(*a.FirstActivationMedian-w.first) > 1 {
			t.Errorf("%s: first activation median %s, pinned call %.0f ± 1", spec, first, w.first)
		}
		if a.CharsRemovedMedian == nil || math.Abs(*a.CharsRemovedMedian-w.removedMedian) > 0.02 || math.Abs(a.CharsRemovedAll-w.removedAll) > 0.02 {
			t.Errorf("%s: characters removed median %s, all %.3f; pinned %.3f, %.3f ± 0.02", spec, removed, a.CharsRemovedAll, w.removedMedian, w.removedAll)
		}
		prev = &a
	}
	t.Logf("half-life at 20,480 tokens on the corpus's SWE-agent and mini-swe-agent runs:\n%s", b.String())
}
