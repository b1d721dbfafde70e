package simulate

import (
	"fmt"
	"strings"
	"testing"
)

// TestCorpusAsLoggedAccuracy replays every corpus run as logged and checks
// its prompts against the logged per-call input, after the harness's own
// compactions too (issue 13): over the calls at or after a logged
// compaction, the median |error| must be within 5 % (1.6 % over 388 calls
// in 6 runs when written), where keep-all (which ignores the compactions)
// is off by ≥ 100 % (197 %); over every logged call within 5 % (1.0 %).
//
// Per run, the two real sessions with many calls after a compaction are
// held to 8 %: pi (300 calls after two compactions, 1.3 % when written) and
// Claude Code (78 calls after one, 6.9 %). The Claude Code session misses
// 5 %: right after the compaction its logged input is ~3,000 tokens above
// the replay (prefix + logged summary + the re-attached files), and from
// there it grows faster than the recorded events (58.3k against 52.0k
// tokens over calls 63–135), content the harness sends and the transcript
// does not record; the compaction replay itself is not what is off. The
// other four compacted runs are importer fixtures with 1–4 calls after the
// compaction and hand-written usage (atif's logged input falls from 1,700
// to 850 with no op; the OpenCode and Codex fixtures log 20 and 2,000
// tokens for a prompt of no recorded event), reported, not asserted. The
// figures are logged (BENCHMARKS.md quotes them).
func TestCorpusAsLoggedAccuracy(t *testing.T) {
	trs := corpusTraces(t)
	var acc LoggedAccuracy
	var b strings.Builder
	long := 0
	for _, tr := range trs {
		e := RunLoggedErrors(tr)
		acc.Add(tr.Format, tr.Family, e)
		if e.After >= 50 {
			long++
			n := len(e.AsLogged)
			if m := medAbs(e.AsLogged[n-e.After:]); m > 0.08 {
				t.Errorf("%s (%s): as-logged median |error| %.1f%% over its %d calls after a compaction, want ≤ 8%%", tr.RunID, tr.Format, 100*m, e.After)
			}
		}
		if e.After > 0 {
			n := len(e.AsLogged)
			fmt.Fprintf(&b, "%-45s %-22s compactions %d, logged calls %3d (%3d after): as-logged |err| median %5.1f%%, keep-all %6.1f%%\n",
				tr.RunID, tr.Format, len(tr.Compactions), n, e.After, 100*medAbs(e.AsLogged[n-e.After:]), 100*medAbs(e.KeepAll[n-e.After:]))
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
	all := rows[len(rows)-1]
	if all.MedianAbsAfter == nil || all.AfterCalls < 40 {
		t.Fatalf("after compactions: %d calls; want ≥ 40 (46 when issue 13 was written)", all.AfterCalls)
	}
	if *all.MedianAbsAfter > 0.05 {
		t.Errorf("as-logged after compactions: median |error| %.1f%%, want ≤ 5%%", 100**all.MedianAbsAfter)
	}
	if *all.KeepAllMedianAbsAfter < 1 {
		t.Errorf("keep-all after compactions: median |error| %.1f%%; the corpus shows it ≥ 100%% (it ignores the compactions)", 100**all.KeepAllMedianAbsAfter)
	}
	if all.MedianAbs > 0.05 {
		t.Errorf("as-logged over every logged call: median |error| %.1f%%, want ≤ 5%%", 100*all.MedianAbs)
	}
}

// medAbs is the median |e| (the upper middle for an even count).
func medAbs(e []float64) float64 { return absAll(e)[len(e)/2] }
