package simulate

import (
	"fmt"
	"strings"
	"testing"
)

// TestCorpusAsLoggedAccuracy replays every corpus run as logged and checks
// its prompts against the logged per-call input, after the harness's own
// compactions too (issue 13): over the calls at or after a logged
// compaction, the median |error| must be within 5 %, where keep-all (which
// ignores the compactions) is several times the logged input. The figures
// are logged (BENCHMARKS.md quotes them).
func TestCorpusAsLoggedAccuracy(t *testing.T) {
	trs := corpusTraces(t)
	var acc LoggedAccuracy
	var b strings.Builder
	for _, tr := range trs {
		e := RunLoggedErrors(tr)
		acc.Add(tr.Format, tr.Family, e)
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

func medAbs(e []float64) float64 { return absAll(e)[len(e)/2] }
