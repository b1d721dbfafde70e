package recommend

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/behavior"
	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/schema"
	"github.com/trajmine/trajmine/simulate"
	"github.com/trajmine/trajmine/synth"
)

// TestPlantedProfiles generates a synth corpus with every planted
// manage_context profile (200 sessions, 50 per family: enough for the
// evidence rules' 10 training and 5 held-out runs), mines the families'
// behaviour labels and checks that Recommend recovers the planted best
// policy of each on its held-out runs: for the selective compressor its
// own ops, which is what ran (as-logged, or dtoc: the same replay); for the
// shallow compressor, the model that never compresses and the thrasher, a
// mechanical policy (masking, truncation or compaction: never dtoc, never
// keep-all, never what ran) whose held-out saving against what ran has a
// 95 % CI above zero and which loses no held-out run.
//
// The thrasher's cost is its manage_context calls themselves: each is a
// whole model call, its prompt sent again to hide or re-show outputs it
// re-enables 1–3 calls later. A mechanical policy replays the run without
// them (simulate.Trace.WithoutContextCalls), and that is what beats what
// ran (measured when written: clear-tool-uses, 78.3 % of what ran on 42
// training runs, saves 15.9 % [13.3 %, 24.2 %] on 8 held-out runs, none
// lost; replayed with the manage_context calls kept it was 99.8 % and
// saved −8.9 % [−11.8 %, −2.0 %]).
func TestPlantedProfiles(t *testing.T) {
	if testing.Short() {
		t.Skip("replays a planted corpus")
	}
	var profs []synth.Profile
	for _, n := range synth.ProfileNames {
		p, err := synth.DefaultProfile(n)
		if err != nil {
			t.Fatal(err)
		}
		profs = append(profs, p)
	}
	dir := t.TempDir()
	m, err := synth.Write(dir, &synth.Options{N: 200, Seed: 9, Formats: []string{synth.FormatOpenAIMessages}, Profiles: profs})
	if err != nil {
		t.Fatal(err)
	}
	fams, labels := loadFamilies(t, dir, func(err error) { t.Error(err) })
	// the runs are plain message lists (no harness settings: only
	// API-level ones would be offered); the planted policies are
	// mechanical, so the harness rule is lifted (--any-mechanism), and the
	// replays are priced at the default prices: the choice is in dollars
	rs, err := Recommend(fams, Options{Grid: plantedGrid, Label: func(f string) string { return labels[f] }, Bootstrap: 200, AnyMechanism: true, Prices: diagnose.DefaultPrices()})
	if err != nil {
		t.Fatal(err)
	}
	planted := map[string]string{} // family → planted profile
	for _, ft := range m.Truth.Families {
		planted[ingest.ModelFamily(ft.Model)] = ft.Profile.Name
	}
	if len(rs) != len(synth.ProfileNames) {
		t.Fatalf("%d families recommended, want %d", len(rs), len(synth.ProfileNames))
	}
	for _, r := range rs {
		want := planted[r.Family]
		t.Logf("%s (planted %s, mined %s): %s", r.Family, want, r.Label, r.Why)
		if r.Label != want {
			t.Errorf("%s: behaviour label %q, planted %q", r.Family, r.Label, want)
		}
		if r.Insufficient || r.Train < DefaultMinTrain || r.HeldOut < DefaultMinHeldOut {
			t.Errorf("%s: %d training, %d held-out runs: %s", r.Family, r.Train, r.HeldOut, r.Why)
			continue
		}
		switch want {
		case synth.ProfileSelective:
			if r.Mechanism != "dtoc" && r.Mechanism != "logged" {
				t.Errorf("%s: selective compressor got %s (%s), want its own manage_context ops (what ran)", r.Family, r.Short, r.Mechanism)
			}
		default:
			if pf := Mechanism(r.Best); pf == "dtoc" || pf == "none" || pf == "logged" {
				t.Errorf("%s: %s profile's training choice is %s (%s), want a mechanical policy", r.Family, want, r.Best, pf)
				continue
			}
			switch {
			case r.Policy != r.Best:
				// the held-out gates (issue 27) may veto it, saying which:
				// with 8–12 held-out runs the re-invocation rate of the
				// choice can pass 2 per 100 calls (measured when written:
				// never 3.6, shallow 5.3, thrasher 2.3, against 1.1–1.4 on
				// the training runs)
				if !strings.HasPrefix(r.Reason, "held out, ") {
					t.Errorf("%s: %s chosen on the training runs, not recommended, and the reason is not a held-out gate: %s", r.Family, r.Best, r.Why)
				}
			case r.SavingLo == nil || *r.SavingLo <= 0 || r.LostRuns != 0:
				t.Errorf("%s: held-out saving %v [%v, …], %d lost; want a CI above zero and no loss", r.Family, r.Saving, r.SavingLo, r.LostRuns)
			}
			if want == synth.ProfileThrasher && !strings.Contains(r.Why, "context-only manage_context calls") {
				t.Errorf("%s: the reason does not say the replays dropped the thrasher's manage_context calls: %s", r.Family, r.Why)
			}
		}
	}
}

// plantedGrid is the grid the planted profiles were written against: the
// default grid before it held every harness's own settings (issue 27).
var plantedGrid = []string{
	simulate.AsLoggedName,
	"keep-all",
	"dtoc", "dtoc-disable-only",
	"mask(n=5)", "mask(n=10)", "mask(n=20)",
	"halflife(activate=0.5,keep=4,cap=8000)", "halflife(activate=0.5,keep=4,cap=2000)", "halflife(activate=0.3,keep=8,cap=4000)",
	"clear-tool-uses(trigger=30000,keep=3)", "clear-tool-uses(trigger=60000,keep=5)", "clear-tool-uses",
	"gemini-mask",
	"tracer-uniform(r=0.5)", "tracer-uniform(r=0.3)", "tracer-tooltype",
	"compact-claude-code", "compact-openhands",
}

// loadFamilies imports path into memory and returns its runs' traces by
// model family (families and runs sorted) and the families' mined
// behaviour labels.
func loadFamilies(t *testing.T, path string, warn func(error)) ([]Family, map[string]string) {
	t.Helper()
	var sink ingest.MemSink
	if _, err := ingest.Files(context.Background(), &sink, []string{path}, &ingest.Options{Warn: warn}); err != nil {
		t.Fatal(err)
	}
	ev := map[string][]schema.Event{}
	for _, e := range sink.Events {
		ev[e.RunID] = append(ev[e.RunID], e)
	}
	us := map[string][]schema.Usage{}
	for _, u := range sink.Usage {
		us[u.RunID] = append(us[u.RunID], u)
	}
	ops := map[string][]schema.ContextOp{}
	for _, o := range sink.ContextOps {
		ops[o.RunID] = append(ops[o.RunID], o)
	}
	runs := slices.Clone(sink.Runs)
	slices.SortFunc(runs, func(a, b schema.Run) int { return cmp.Compare(a.RunID, b.RunID) })
	idx := map[string]int{}
	var fams []Family
	var profiles []behavior.RunProfile
	for _, r := range runs {
		e := ev[r.RunID]
		slices.SortFunc(e, func(a, b schema.Event) int { return cmp.Compare(a.Seq, b.Seq) })
		u := us[r.RunID]
		slices.SortFunc(u, func(a, b schema.Usage) int { return cmp.Compare(a.Turn, b.Turn) })
		o := ops[r.RunID]
		profiles = append(profiles, behavior.Run(r, e, u, o, nil))
		end := diagnose.Run(r, e, u, o, 0).End
		i, ok := idx[r.ModelFamily]
		if !ok {
			i = len(fams)
			idx[r.ModelFamily] = i
			fams = append(fams, Family{Name: r.ModelFamily})
		}
		fams[i].Traces = append(fams[i].Traces, simulate.NewTrace(r, e, u, o, end, nil))
	}
	SortFamilies(fams)
	labels := map[string]string{}
	for _, g := range behavior.ByFamily(profiles, nil) {
		labels[g.Key] = string(g.Class.Label)
	}
	return fams, labels
}
