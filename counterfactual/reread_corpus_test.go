package counterfactual_test

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/actions"
	"github.com/trajmine/trajmine/counterfactual"
	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/schema"
)

// rereadRun is one imported run: its id, events in seq order and harness.
type rereadRun struct {
	id, harness string
	events      []schema.Event
}

// loadRuns imports paths into memory, one rereadRun per run, by run id.
func loadRuns(t *testing.T, paths []string) []rereadRun {
	t.Helper()
	sink := &ingest.MemSink{}
	if _, err := ingest.Files(context.Background(), sink, paths, &ingest.Options{Warn: func(error) {}}); err != nil {
		t.Fatal(err)
	}
	byRun := map[string][]schema.Event{}
	for _, e := range sink.Events {
		byRun[e.RunID] = append(byRun[e.RunID], e)
	}
	var runs []rereadRun
	for _, r := range sink.Runs {
		events := byRun[r.RunID]
		slices.SortStableFunc(events, func(a, b schema.Event) int { return cmp.Compare(a.Seq, b.Seq) })
		runs = append(runs, rereadRun{r.RunID, r.Harness, events})
	}
	slices.SortFunc(runs, func(a, b rereadRun) int { return cmp.Compare(a.id, b.id) })
	return runs
}

// validate runs the re-read validation over runs with the default action
// classifier's reads and searches (as trajmine simulate does).
func validate(t *testing.T, runs []rereadRun) counterfactual.ReReadValidation {
	t.Helper()
	cl, err := actions.Default()
	if err != nil {
		t.Fatal(err)
	}
	var v counterfactual.ReReadValidator
	for _, r := range runs {
		isRead := func(tool, args string) bool {
			c, _ := cl.Classify(r.harness, tool, args)
			return c == actions.Read || c == actions.Search
		}
		v.Add(r.id, counterfactual.OutputReReads(r.events, counterfactual.Uses(r.events), isRead))
	}
	return v.Result()
}

// fmtFit is one line of a ReReadFit.
func fmtFit(name string, f counterfactual.ReReadFit) string {
	p := func(x *float64) string {
		if x == nil {
			return "–"
		}
		return fmt.Sprintf("%.3f", *x)
	}
	ci := func(c *counterfactual.Interval) string {
		if c == nil {
			return ""
		}
		return fmt.Sprintf(" [%.2f, %.2f]", c.Lo, c.Hi)
	}
	var cal []string
	for _, b := range f.Calibration {
		cal = append(cal, fmt.Sprintf("%d-%d:%d/%d/%d/%d", b.Lo, b.Hi, b.N, b.Predicted, b.Observed, b.WithObserved))
	}
	d := f.Dropped
	return fmt.Sprintf("%-8s runs %d (%d obs) outputs %d P %d O %d (unch %d) ratio %s%s | run ρ %s%s size ρ %s | out ρ %s AUC %s%s | cal %s | dropped %d: pred %d obs %d (%d) both %d",
		name, f.Runs, f.RunsObserved, f.Outputs, f.Predicted, f.Observed, f.Unchanged, p(f.Ratio), ci(f.RatioCI),
		p(f.RunSpearman), ci(f.RunSpearmanCI), p(f.SizeSpearman), p(f.OutputSpearman), p(f.OutputAUC), ci(f.OutputAUCCI), strings.Join(cal, " "),
		d.Outputs, d.PredictedOutputs, d.ObservedOutputs, d.Observed, d.Both)
}

// TestReReadFigures prints the re-read validation of the shared corpus (and
// of the directories in $TRAJMINE_REREAD_DIRS, comma-separated, when set)
// under the first rules and the current ones: the figures of BENCHMARKS.md
// (issue 29). It checks that the current rules predict no more re-reads
// than the first did.
func TestReReadFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("imports the corpus six times over")
	}
	sets := []struct {
		name  string
		paths []string
	}{{"corpus", []string{testutil.Corpus(t, ".")}}}
	if d := os.Getenv("TRAJMINE_REREAD_DIRS"); d != "" {
		for _, p := range strings.Split(d, ",") {
			sets = append(sets, struct {
				name  string
				paths []string
			}{p, []string{p}})
		}
	}
	for _, s := range sets {
		runs := loadRuns(t, s.paths)
		t.Logf("%s: %d runs", s.name, len(runs))
		var before, after counterfactual.ReReadValidation
		for i, c := range []struct {
			name                       string
			pred1, obs1, echo, summary bool
		}{
			{"first rules", true, true, false, false},
			{"observed: same call repeated", true, false, false, false},
			{"+ predicted once per output", false, false, false, false},
			{"+ echo rule", false, false, true, false},
			{"+ summary rule", false, false, true, true},
			{"+ two evidence words (current)", false, false, true, true},
		} {
			r1 := counterfactual.SetReReadRule1(c.pred1, c.obs1)
			r2 := counterfactual.SetUsesRules(c.echo, c.summary)
			r3 := counterfactual.SetMinEvidence(1)
			if i == 5 {
				r3()
				r3 = counterfactual.SetMinEvidence(2)
			}
			v := validate(t, runs)
			r3()
			r2()
			r1()
			switch i {
			case 0:
				before = v
			case 5:
				after = v
			}
			rho := "–"
			if v.Spearman != nil {
				rho = fmt.Sprintf("%.3f", *v.Spearman)
			}
			t.Logf("  %s: per tool: %d runs, %d tools, ρ %s %v", c.name, v.Runs, len(v.Tools), rho, v.Tools)
			t.Logf("    %s", fmtFit("all", v.All))
			t.Logf("    %s", fmtFit("train", v.Train))
			t.Logf("    %s", fmtFit("held", v.Held))
		}
		if after.All.Predicted > before.All.Predicted {
			t.Errorf("%s: %d predicted re-reads, more than the first rules' %d", s.name, after.All.Predicted, before.All.Predicted)
		}
	}
}
