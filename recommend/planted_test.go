package recommend

import (
	"cmp"
	"context"
	"slices"
	"testing"

	"github.com/trajmine/trajmine/behavior"
	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/schema"
	"github.com/trajmine/trajmine/simulate"
	"github.com/trajmine/trajmine/synth"
)

// TestPlantedProfiles generates a synth corpus with every planted
// manage_context profile, mines the families' behaviour labels and checks
// that Recommend gives each the intended policy family: the model's own ops
// (dtoc) to the selective compressor, a mechanical policy (masking,
// truncation or compaction: never dtoc, never keep-all) to the shallow
// compressor, the model that never compresses and the thrasher.
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
	m, err := synth.Write(dir, &synth.Options{N: 80, Seed: 9, Formats: []string{synth.FormatOpenAIMessages}, Profiles: profs})
	if err != nil {
		t.Fatal(err)
	}
	var sink ingest.MemSink
	if _, err := ingest.Files(context.Background(), &sink, []string{dir}, &ingest.Options{Warn: func(err error) { t.Error(err) }}); err != nil {
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
	rs, err := Recommend(fams, Options{Label: func(f string) string { return labels[f] }, Bootstrap: 200})
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
		switch want {
		case synth.ProfileSelective:
			if r.PolicyOf != "dtoc" {
				t.Errorf("%s: selective compressor got %s (%s), want its own manage_context ops", r.Family, r.Short, r.PolicyOf)
			}
		default:
			if r.PolicyOf == "dtoc" || r.PolicyOf == "none" {
				t.Errorf("%s: %s profile got %s (%s), want a mechanical policy", r.Family, want, r.Short, r.PolicyOf)
			}
		}
	}
}
