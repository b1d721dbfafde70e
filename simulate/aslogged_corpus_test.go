package simulate

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// benchFigure is a median |error| BENCHMARKS.md or README quotes, in
// percent. An error of the simulator (benchAtMost) may not grow past the
// quoted figure plus a margin of max(0.5 percentage points, 10 % of the
// figure); a gap that measures what ignoring the logged compactions costs
// (benchNear: keep-all after a compaction) must stay within 10 % of the
// figure either way.
type benchFigure struct {
	pct  float64
	near bool
}

func benchAtMost(pct float64) benchFigure { return benchFigure{pct: pct} }
func benchNear(pct float64) benchFigure   { return benchFigure{pct: pct, near: true} }

// check reports got (a fraction) against q.
func (q benchFigure) check(t *testing.T, what string, got float64) {
	t.Helper()
	g := 100 * got
	if q.near {
		if math.Abs(g-q.pct) > 0.1*q.pct {
			t.Errorf("%s: median |error| %.1f%%, documented %.1f%%: want within ±10%% of it", what, g, q.pct)
		}
		return
	}
	if limit := q.pct + max(0.5, 0.1*q.pct); g > limit {
		t.Errorf("%s: median |error| %.1f%%, documented %.1f%%: want ≤ %.2f%%", what, g, q.pct, limit)
	}
}

// TestCorpusAsLoggedAccuracy replays every corpus run as logged and checks
// its prompts against the logged per-call input, after the harness's own
// compactions too (issue 13), and holds the figures BENCHMARKS.md quotes
// ("As-logged baseline: accuracy against the logged input") to the
// tolerances of benchFigure: per compacted run, per format and model family
// (those with ≥ 50 logged calls), and pooled.
//
// The two real sessions with many calls after a compaction: pi (300 calls
// after two compactions, 1.3 % when written) and Claude Code (78 calls after
// one, 6.9 %). The Claude Code session misses 5 %: right after the
// compaction its logged input is ~3,000 tokens above the replay (prefix +
// logged summary + the re-attached files), and from there it grows faster
// than the recorded events (58.3k against 52.0k tokens over calls 63–135),
// content the harness sends and the transcript does not record; the
// compaction replay itself is not what is off. The other four compacted
// runs are importer fixtures with 1–4 calls after the compaction and
// hand-written usage (atif's logged input falls from 1,700 to 850 with no
// op; the OpenCode and Codex fixtures log 20 and 2,000 tokens for a prompt
// of no recorded event): their large errors are held to the quoted figures
// too, so that a change shows in BENCHMARKS.md.
func TestCorpusAsLoggedAccuracy(t *testing.T) {
	trs := corpusTraces(t)
	var acc LoggedAccuracy
	var b strings.Builder
	long := 0
	// BENCHMARKS.md, "Per compacted run (calls after the first compaction)"
	perRun := map[string]struct {
		format            string
		after             int
		asLogged, keepAll benchFigure
	}{
		"ffae836b-9420-4060-ac13-7745215f90ff": {"pi-coding-agent", 300, benchAtMost(1.3), benchNear(205.8)},
		"4d5611e5-241a-462a-8d15-5122611a9569": {"claude-code", 78, benchAtMost(6.9), benchNear(182.7)},
		"NORMALIZED_SESSION_ID":                {"atif", 4, benchAtMost(122.5), benchNear(32.6)},
		"NORMALIZED_SESSION_ID@7e3bed16":       {"atif", 4, benchAtMost(167.9), benchNear(71.5)},
		"compact-codex-001":                    {"codex-cli", 1, benchAtMost(85.2), benchNear(86.4)},
		"ses_compaction_summary_hidden":        {"opencode-sse-events", 1, benchAtMost(1400), benchNear(100)},
	}
	seen := map[string]bool{}
	for _, tr := range trs {
		e := RunLoggedErrors(tr)
		acc.Add(tr.Format, tr.Family, e)
		if e.After >= 50 {
			long++
		}
		if e.After > 0 {
			n := len(e.AsLogged)
			al, ka := medAbs(e.AsLogged[n-e.After:]), medAbs(e.KeepAll[n-e.After:])
			fmt.Fprintf(&b, "%-45s %-22s compactions %d, logged calls %3d (%3d after): as-logged |err| median %5.1f%%, keep-all %6.1f%%\n",
				tr.RunID, tr.Format, len(tr.Compactions), n, e.After, 100*al, 100*ka)
			q, ok := perRun[tr.RunID]
			if !ok {
				t.Errorf("%s (%s): %d logged calls after a compaction, not in BENCHMARKS.md's per-run table", tr.RunID, tr.Format, e.After)
				continue
			}
			seen[tr.RunID] = true
			if tr.Format != q.format || e.After != q.after {
				t.Errorf("%s: format %s, %d logged calls after the compaction; BENCHMARKS.md: %s, %d", tr.RunID, tr.Format, e.After, q.format, q.after)
			}
			q.asLogged.check(t, tr.RunID+" as-logged after compactions", al)
			q.keepAll.check(t, tr.RunID+" keep-all after compactions", ka)
		}
	}
	for id := range perRun {
		if !seen[id] {
			t.Errorf("%s: in BENCHMARKS.md's per-run table, but no logged call after a compaction", id)
		}
	}
	rows := acc.Rows()
	for _, r := range rows {
		after := "-"
		if r.MedianAbsAfter != nil {
			after = fmt.Sprintf("%.1f%% of %d (keep-all %.1f%%)", 100**r.MedianAbsAfter, r.AfterCalls, 100**r.KeepAllMedianAbsAfter)
		}
		fmt.Fprintf(&b, "%-30s %-18s runs %3d calls %4d  as-logged median |err| %6.1f%% (keep-all %6.1f%%)  after compactions %s\n",
			r.Format, r.Family, r.Runs, r.Calls, 100*r.MedianAbs, 100*r.KeepAllMedianAbs, after)
	}
	t.Logf("as-logged against logged input:\n%s\n%s", b.String(), LoggedAccuracyText(rows))
	if long != 2 {
		t.Errorf("%d runs with ≥ 50 logged calls after a compaction, want 2 (the pi and Claude Code sessions)", long)
	}

	// BENCHMARKS.md, "Per format and model family": every logged call, both
	// replays; keep-all (fitted in sample) matches as-logged except for pi,
	// whose two compactions keep-all ignores
	perFormat := map[[2]string]struct {
		calls             int
		asLogged, keepAll benchFigure
	}{
		{"claude-code", "claude-opus-4"}:     {157, benchAtMost(4.3), benchAtMost(5.3)},
		{"claude-code", "claude-sonnet-4"}:   {57, benchAtMost(0.6), benchAtMost(0.6)},
		{"codex-cli", "gpt-5"}:               {167, benchAtMost(1.4), benchAtMost(1.4)},
		{"codex-cli", "gpt-5.5"}:             {66, benchAtMost(1.2), benchAtMost(1.2)},
		{"inspect-ai", "gpt-4o"}:             {147, benchAtMost(1.3), benchAtMost(1.3)},
		{"mini-swe-agent", "gemini-3-pro"}:   {114, benchAtMost(0.6), benchAtMost(0.6)},
		{"openhands", "llama-4"}:             {105, benchAtMost(0.5), benchAtMost(0.5)},
		{"pi-coding-agent", "claude-opus-4"}: {471, benchAtMost(1.0), benchNear(101.2)},
	}
	found := 0
	for _, r := range rows[:len(rows)-1] {
		q, ok := perFormat[[2]string{r.Format, r.Family}]
		if !ok {
			if r.Calls >= 50 {
				t.Errorf("%s %s: %d logged calls, not in BENCHMARKS.md's per-format table", r.Format, r.Family, r.Calls)
			}
			continue
		}
		found++
		what := r.Format + " " + r.Family
		if r.Calls != q.calls {
			t.Errorf("%s: %d logged calls, BENCHMARKS.md: %d", what, r.Calls, q.calls)
		}
		q.asLogged.check(t, what+" as-logged", r.MedianAbs)
		q.keepAll.check(t, what+" keep-all", r.KeepAllMedianAbs)
	}
	if found != len(perFormat) {
		t.Errorf("%d of BENCHMARKS.md's %d format and family rows found", found, len(perFormat))
	}

	// BENCHMARKS.md's pooled rows: 1,440 calls in 75 runs, 388 after a
	// compaction in 6 (the counts within 5 %)
	all := rows[len(rows)-1]
	if all.Format != "*" || math.Abs(float64(all.Calls)-1440) > 0.05*1440 || math.Abs(float64(all.Runs)-75) > 0.05*75 {
		t.Errorf("every logged call: %d calls in %d runs (%s), BENCHMARKS.md: 1,440 in 75", all.Calls, all.Runs, all.Format)
	}
	if all.MedianAbsAfter == nil || all.AfterCalls != 388 || all.CompactedRuns != 6 {
		t.Fatalf("after compactions: %d calls in %d runs, BENCHMARKS.md: 388 in 6", all.AfterCalls, all.CompactedRuns)
	}
	benchAtMost(1.0).check(t, "as-logged over every logged call", all.MedianAbs)
	benchAtMost(8.6).check(t, "as-logged over every logged call (p90)", all.P90Abs)
	benchAtMost(1.4).check(t, "keep-all over every logged call", all.KeepAllMedianAbs)
	benchAtMost(1.6).check(t, "as-logged after compactions", *all.MedianAbsAfter)
	benchNear(196.8).check(t, "keep-all after compactions", *all.KeepAllMedianAbsAfter)
}

// medAbs is the median |e| (the upper middle for an even count).
func medAbs(e []float64) float64 { return absAll(e)[len(e)/2] }
