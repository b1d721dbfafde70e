package behavior_test

import (
	"context"
	"math"
	"testing"

	"github.com/trajmine/trajmine/behavior"
	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/schema"
	"github.com/trajmine/trajmine/synth"
)

// ingestDir imports a directory into memory and profiles every run.
func ingestDir(t *testing.T, dir string, o *behavior.Options) []behavior.RunProfile {
	t.Helper()
	sink := &ingest.MemSink{}
	sum, err := ingest.Files(context.Background(), sink, []string{dir}, &ingest.Options{Warn: func(err error) { t.Errorf("ingest: %v", err) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.Rejects) > 0 || sum.Skipped > 0 {
		t.Fatalf("%d rejects, %d files skipped", len(sink.Rejects), sum.Skipped)
	}
	events := map[string][]schema.Event{}
	for _, e := range sink.Events {
		events[e.RunID] = append(events[e.RunID], e)
	}
	usage := map[string][]schema.Usage{}
	for _, u := range sink.Usage {
		usage[u.RunID] = append(usage[u.RunID], u)
	}
	ops := map[string][]schema.ContextOp{}
	for _, op := range sink.ContextOps {
		ops[op.RunID] = append(ops[op.RunID], op)
	}
	runs := make([]behavior.RunProfile, 0, len(sink.Runs))
	for _, r := range sink.Runs {
		runs = append(runs, behavior.Run(r, events[r.RunID], usage[r.RunID], ops[r.RunID], o))
	}
	return runs
}

// Tolerances of the planted-profile test. The profiles are planted in the
// units behavior measures (synth.Profile: freed = estimated_tokens − 40,
// ages in calls), so bounds hold exactly; rates are random and end with the
// run:
//
//   - the family's manage_context calls, disables and enables equal the
//     ground truth's counts, and its calls per 100 are within 35 % of the
//     planted OpsPer100 (a profile that finds nothing to disable waits, and
//     a run can end owing calls);
//   - every disabling call's tokens freed is within [MinFreed, MaxFreed],
//     keys per call within [MinKeys, MaxKeys] and ages within [MinAge,
//     MaxAge];
//   - the re-enable rate is at most the planted ReEnable + 0.05, and at
//     least ReEnable − 0.25 when re-enables are due within the thrash
//     window (re-enables due after the run's end never happen);
//   - the thrash share is 0 when re-enables come later than the thrash
//     window, and equals the re-enable rate when they all come within it;
//   - the classifier labels each family with its planted profile.
const opsRateTolerance = 0.35

func TestPlantedProfiles(t *testing.T) {
	for _, seed := range []uint64{9, 23} {
		dir := t.TempDir()
		var ps []synth.Profile
		for _, name := range synth.ProfileNames {
			p, err := synth.DefaultProfile(name)
			if err != nil {
				t.Fatal(err)
			}
			ps = append(ps, p)
		}
		m, err := synth.Write(dir, &synth.Options{N: 80, Seed: seed, Formats: []string{synth.FormatOpenAIMessages}, Profiles: ps})
		if err != nil {
			t.Fatal(err)
		}
		groups := map[string]behavior.Group{}
		for _, g := range behavior.ByFamily(ingestDir(t, dir, nil), nil) {
			groups[g.Key] = g
		}
		for _, truth := range m.Truth.Families {
			p := truth.Profile
			t.Run(p.Name, func(t *testing.T) {
				g, ok := groups[ingest.ModelFamily(truth.Model)]
				if !ok {
					t.Fatalf("no family %s among %d", ingest.ModelFamily(truth.Model), len(groups))
				}
				checkPlanted(t, g, truth)
			})
		}
	}
}

func checkPlanted(t *testing.T, g behavior.Group, truth synth.FamilyTruth) {
	t.Helper()
	p, mp := truth.Profile, g.Manage
	if g.Class.Label != behavior.Label(p.Name) {
		t.Errorf("labelled %s (%s), planted %s", g.Class.Label, g.Class.Reason, p.Name)
	}
	if mp.ToolRuns != truth.Sessions || mp.Calls != int64(truth.Calls) || mp.Ops != int64(truth.ManageCalls) ||
		mp.Disables != int64(truth.Disables) || mp.Enables != int64(truth.Enables) {
		t.Errorf("runs %d calls %d ops %d disables %d enables %d; truth %+v", mp.ToolRuns, mp.Calls, mp.Ops, mp.Disables, mp.Enables, truth)
	}
	if p.OpsPer100 == 0 {
		if mp.Ops != 0 || mp.OpsPer100 != 0 {
			t.Errorf("never: %d ops", mp.Ops)
		}
		return
	}
	if math.Abs(mp.OpsPer100-p.OpsPer100) > opsRateTolerance*p.OpsPer100 {
		t.Errorf("%.2f manage_context calls per 100, planted %g (±%.0f%%)", mp.OpsPer100, p.OpsPer100, 100*opsRateTolerance)
	}
	if f := mp.FreedPerOp; f.N == 0 || f.Min < float64(p.MinFreed) || f.Max > float64(p.MaxFreed) {
		t.Errorf("tokens freed per call %+v, planted [%d, %d]", f, p.MinFreed, p.MaxFreed)
	}
	if mp.KeysPerOp < float64(p.MinKeys) || mp.KeysPerOp > float64(p.MaxKeys) {
		t.Errorf("%.2f keys per call, planted [%d, %d]", mp.KeysPerOp, p.MinKeys, p.MaxKeys)
	}
	if a := mp.Age; a.Min < float64(p.MinAge) || (p.MaxAge > 0 && a.Max > float64(p.MaxAge)) {
		t.Errorf("ages %+v, planted [%d, %d]", a, p.MinAge, p.MaxAge)
	}
	if mp.Hidden != mp.Disables || mp.DisablingOps+int64(truth.Enables) < mp.Ops {
		t.Errorf("%d of %d disables hid an output; %d disabling calls of %d", mp.Hidden, mp.Disables, mp.DisablingOps, mp.Ops)
	}
	if mp.ReEnableRate > p.ReEnable+0.05 {
		t.Errorf("re-enable rate %.2f, planted %.2f", mp.ReEnableRate, p.ReEnable)
	}
	withinK := int64(p.ReEnableAfterMax) <= behavior.DefaultThrashWindow
	switch {
	case p.ReEnable > 0 && withinK:
		if mp.ReEnableRate < p.ReEnable-0.25 || mp.ThrashShare != mp.ReEnableRate {
			t.Errorf("re-enable rate %.2f, thrash share %.2f, planted %.2f within k", mp.ReEnableRate, mp.ThrashShare, p.ReEnable)
		}
	case mp.ThrashShare != 0:
		t.Errorf("thrash share %.2f, planted re-enables after %d–%d calls", mp.ThrashShare, p.ReEnableAfterMin, p.ReEnableAfterMax)
	}
	wantShallow := 0.0
	if p.MaxFreed < behavior.DefaultShallowTokens {
		wantShallow = 1
	}
	if p.MinFreed < behavior.DefaultShallowTokens && p.MaxFreed >= behavior.DefaultShallowTokens {
		wantShallow = -1 // mixed: not checked
	}
	if wantShallow >= 0 && mp.ShallowShare != wantShallow {
		t.Errorf("shallow share %.2f, want %g for freed in [%d, %d]", mp.ShallowShare, wantShallow, p.MinFreed, p.MaxFreed)
	}
	t.Logf("%s: %.1f calls/100 (planted %g), freed/op median %.0f [%.0f, %.0f], age median %.0f, shallow %.2f, re-enable %.2f, thrash %.2f, needed %.2f, saved/cost %.2f",
		p.Name, mp.OpsPer100, p.OpsPer100, mp.FreedPerOp.Median, mp.FreedPerOp.Min, mp.FreedPerOp.Max, mp.Age.Median,
		mp.ShallowShare, mp.ReEnableRate, mp.ThrashShare, mp.NeededShare, mp.SavedPerCost)
}

// Selective compression saves more than it costs; shallow and thrashing
// compression cost more (the DTOC paper's finding, planted).
func TestPlantedSavings(t *testing.T) {
	dir := t.TempDir()
	var ps []synth.Profile
	for _, name := range []string{synth.ProfileSelective, synth.ProfileShallow, synth.ProfileThrasher} {
		p, _ := synth.DefaultProfile(name)
		ps = append(ps, p)
	}
	if _, err := synth.Write(dir, &synth.Options{N: 30, Seed: 4, Formats: []string{synth.FormatOpenAIMessages}, Profiles: ps}); err != nil {
		t.Fatal(err)
	}
	for _, g := range behavior.ByFamily(ingestDir(t, dir, nil), nil) {
		selective := g.Key == "synth-selective"
		if (g.Manage.Net > 0) != selective || (g.Manage.SavedPerCost > 1) != selective {
			t.Errorf("%s: net %d, saved/cost %.2f", g.Key, g.Manage.Net, g.Manage.SavedPerCost)
		}
	}
}

// Harness compactions of synthetic Claude Code sessions: the harness logs
// preTokens, compacts at about 167k of a 200k window and drops most of it.
func TestSynthCompactions(t *testing.T) {
	dir := t.TempDir()
	if _, err := synth.Write(dir, &synth.Options{N: 30, Seed: 2, Formats: []string{synth.FormatClaudeCode}}); err != nil {
		t.Fatal(err)
	}
	s := behavior.Summarize(ingestDir(t, dir, nil), nil)
	c := s.Compaction
	if c.Compactions == 0 || c.LoggedBefore != c.Compactions || c.Dropped.N != int(c.Compactions) {
		t.Fatalf("compaction profile %+v", c)
	}
	if c.Fill.Min < 0.78 || c.Fill.Max > 0.95 || c.DroppedShare.Min < 0.8 {
		t.Errorf("fill %+v, dropped share %+v", c.Fill, c.DroppedShare)
	}
	if s.Manage.ToolRuns != 0 || s.Class.Label != behavior.LabelNoTool {
		t.Errorf("Claude Code runs have manage_context: %+v", s.Manage)
	}
}
