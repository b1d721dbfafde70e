package recommend

import (
	"strings"
	"testing"

	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/simulate"
)

// TestCorpusEvidence runs the recommendation on the whole shared corpus,
// whose families have 1 to a few dozen runs: every family with fewer than
// DefaultMinTrain training or DefaultMinHeldOut held-out runs says
// "insufficient evidence" and gets no policy (nor an entry of the config),
// and no candidate counts as saved a run whose log finished, at any run's
// own window (checked run by run on the replays themselves).
func TestCorpusEvidence(t *testing.T) {
	if testing.Short() {
		t.Skip("replays the corpus under the whole grid")
	}
	fams, labels := loadFamilies(t, testutil.CorpusDir(t), func(error) {})
	rs, err := Recommend(fams, Options{Label: func(f string) string { return labels[f] }, Bootstrap: 200})
	if err != nil {
		t.Fatal(err)
	}
	cfg := ConfigOf(rs)
	var b strings.Builder
	insufficient := 0
	for _, r := range rs {
		b.WriteString(r.Family + ": " + r.Why + "\n")
		thin := r.Train < DefaultMinTrain || r.HeldOut < DefaultMinHeldOut
		if r.Insufficient != thin {
			t.Errorf("%s: %d training, %d held out: insufficient %v", r.Family, r.Train, r.HeldOut, r.Insufficient)
		}
		if !thin {
			continue
		}
		insufficient++
		if r.Policy != "" || !strings.HasPrefix(r.Why, "insufficient evidence: ") || r.Need < 1 {
			t.Errorf("%s: policy %q need %d: %s", r.Family, r.Policy, r.Need, r.Why)
		}
		if _, ok := cfg.Families[r.Family]; ok || cfg.Insufficient[r.Family] == "" {
			t.Errorf("%s: config entry for a family without a recommendation", r.Family)
		}
	}
	t.Logf("%d families, %d with insufficient evidence:\n%s", len(rs), insufficient, b.String())
	if insufficient == 0 {
		t.Error("no family of the corpus is short of runs; the corpus has families of 1 run")
	}
	g, err := NewGrid(nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var rp simulate.Replayer
	for _, f := range fams {
		for _, tr := range f.Traces {
			for _, p := range g.pols {
				if r := rp.Replay(tr, p, simulate.Options{}); r.Saved && tr.Finished {
					t.Errorf("%s under %s: counted saved, but its log finished", tr.RunID, p.Name())
				}
			}
		}
	}
}
