package tracer_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/simulate"
	"github.com/trajmine/trajmine/tracer"
)

// TestTuneUniform tunes tracer-uniform's ratio on the planted evidence
// runs, whose best ratio is 0.6 by construction (PlantedEvidenceTraces:
// below it every lookup cut before its use is re-invoked; from it on none
// is, and a smaller ratio saves more), under the cache-priced reward and
// the token reward alike.
func TestTuneUniform(t *testing.T) {
	train, _ := tracer.Split(tracer.PlantedEvidenceTraces(24, 1), 4)
	for _, reward := range []string{tracer.RewardCost, tracer.RewardTokens} {
		t.Run(reward, func(t *testing.T) {
			u, err := tracer.TuneUniform(train, &tracer.Options{Reward: reward})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %+v", u.Spec, u.Grid)
			if u.R != 0.6 || u.Spec != "tracer-uniform(r=0.6,trigger=0.5,keep=1)" {
				t.Fatalf("tuned %s (r %g), want r = 0.6", u.Spec, u.R)
			}
			if len(u.Grid) != len(tracer.UniformGrid) {
				t.Fatalf("%d grid points, want %d", len(u.Grid), len(tracer.UniformGrid))
			}
			// rewards rise to 0.6 from 0.5 and fall from it to 1
			at := func(r float64) float64 {
				i := slices.IndexFunc(u.Grid, func(p tracer.TunePoint) bool { return p.R == r })
				return u.Grid[i].Reward
			}
			if !(at(0.5) < at(0.6) && at(0.7) < at(0.6) && at(1) < at(0.7)) {
				t.Errorf("rewards 0.5 %.4f, 0.6 %.4f, 0.7 %.4f, 1 %.4f: want 0.6 the best and falling towards 1", at(0.5), at(0.6), at(0.7), at(1))
			}
		})
	}
}

// handModel is a retention model whose mean ratio is read-class outputs →
// lookup and execute-class → dump (one hidden unit, h = tanh(10·[read] −
// 10·[execute]) = ±1 for them; α = softplus(21h − 9) + 1, β =
// softplus(−46.5h + 52.5) + 1: h = 1 gives α ≈ 13, β ≈ 7.0, mean 0.650; h
// = −1 gives α ≈ 1, β ≈ 100, mean 0.0099), or every ratio 0.5 (all weights
// zero: α = β) when !perClass; the head compressor, as tracer-uniform's.
func handModel(perClass bool, tuned *tracer.Tuned) *tracer.Model {
	d := simulate.FeatureDim
	m := &tracer.Model{RetentionModel: simulate.RetentionModel{Format: simulate.RetentionFormat, Features: slices.Clone(simulate.FeatureNames),
		Hidden: 1, W1: make([]float64, d), B1: []float64{0}, W2: []float64{0, 0}, B2: []float64{0, 0},
		Trigger: 0.5, Keep: 1, Compressor: simulate.CompressHead}}
	if perClass {
		m.W1[slices.Index(simulate.FeatureNames, "class=read")] = 10
		m.W1[slices.Index(simulate.FeatureNames, "class=execute")] = -10
		m.W2, m.B2 = []float64{21, -46.5}, []float64{-9, 52.5}
	}
	m.Training.Uniform = tuned
	m.Training.Reward = tracer.RewardCost
	return m
}

// TestEvaluateTunedVerdict: the held-out table has keep-all, as-logged,
// tracer-uniform at r = 0.5 and at its tuned ratio (labelled), and the
// learned policy, each with a cost ratio; the verdict says the untrained
// policy (every ratio 0.5: it cuts lookups before their use) does not beat
// the tuned rule, and that a per-class policy (lookups 0.65, dumps 0.01)
// costs less than it.
func TestEvaluateTunedVerdict(t *testing.T) {
	train, held := tracer.Split(tracer.PlantedEvidenceTraces(24, 1), 4)
	u, err := tracer.TuneUniform(train, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		perClass bool
		says     string
	}{
		{"untrained", false, "the learned policy does not beat the tuned uniform rule tracer-uniform(r=0.6,trigger=0.5,keep=1) on held-out cost"},
		{"per-class", true, "the learned policy costs less than the tuned uniform rule tracer-uniform(r=0.6,trigger=0.5,keep=1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := tracer.Evaluate(held, handModel(tc.perClass, &u), &tracer.EvalOptions{Seed: 1, Attribution: -1})
			if err != nil {
				t.Fatal(err)
			}
			labels := map[string]string{}
			for _, r := range rep.Rows {
				labels[r.Policy] = r.Label
				if r.CostRatio <= 0 || r.CostLo > r.CostRatio || r.CostHi < r.CostRatio {
					t.Errorf("%s: cost ratio %.3f [%.3f, %.3f]", r.Policy, r.CostRatio, r.CostLo, r.CostHi)
				}
				t.Logf("%-45s %-8s tokens %.3f cost %.3f reinv %.2f", r.Policy, r.Label, r.TokenRatio, r.CostRatio, r.ReinvPer100)
			}
			for spec, label := range map[string]string{"keep-all": "", "as-logged": "", tracer.LearnedName: "",
				"tracer-uniform(r=0.5,trigger=0.5,keep=1)": "r = 0.5", "tracer-uniform(r=0.6,trigger=0.5,keep=1)": "tuned"} {
				if l, ok := labels[spec]; !ok || l != label {
					t.Errorf("row %s: present %v, label %q; want label %q", spec, ok, l, label)
				}
			}
			if !strings.Contains(rep.Verdict, tc.says) {
				t.Errorf("verdict %q, want %q", rep.Verdict, tc.says)
			}
			if rep.Priced != 0 || rep.Reward != tracer.RewardCost {
				t.Errorf("%d runs priced by the table (want none: no model), reward %q", rep.Priced, rep.Reward)
			}
		})
	}
}

// TestPromptCost prices a replay by hand: Anthropic's explicit rule at
// Claude Sonnet 4's price (input 3, cache read 0.3, write 3.75 per million:
// ρr = 0.1, ρw = 1.25).
func TestPromptCost(t *testing.T) {
	r := simulate.RunResult{PromptTokens: 10000, CachedTokens: 6000, UncachedTokens: 1000, ReinvocationTok: 500, SummarizerIn: 200,
		KeepAllTokens: 12000, KeepAllCached: 9000, KeepAllUncached: 1000}
	p, ok := diagnose.DefaultPrices().Lookup("claude-sonnet-4-20250514", "claude-sonnet-4")
	if !ok {
		t.Fatal("no price for claude-sonnet-4")
	}
	cost, ka := tracer.PromptCost(&r, p)
	// 0.1 × 6000 + 1.25 × (10000 − 6000 − 1000) + 1000 + 500 + 200 = 600 + 3750 + 1700 = 6050
	// keep-all: 0.1 × 9000 + 1.25 × (12000 − 9000 − 1000) + 1000 = 900 + 2500 + 1000 = 4400
	if d := cost - 6050; d*d > 1e-12 {
		t.Errorf("cost %.6f, want 6050", cost)
	}
	if d := ka - 4400; d*d > 1e-12 {
		t.Errorf("keep-all cost %.6f, want 4400", ka)
	}
	// a run the table does not price: the stand-in's ratios (explicit: 0.1, 1.25; else 0.1, 1)
	tr := &simulate.Trace{Model: "nobody-1", Cache: simulate.CacheModel{Kind: simulate.CacheAutomatic}}
	sp, priced := tracer.PriceOf(tr, nil)
	if priced || sp.CacheRead != 0.1 || sp.CacheWrite != 1 || sp.Input != 1 {
		t.Errorf("stand-in %+v (priced %v)", sp, priced)
	}
}

// TestFamilyWarning: a model records its training families; applying it
// to another family warns, naming both, and a model file that records
// none warns too.
func TestFamilyWarning(t *testing.T) {
	m := &tracer.Model{Training: tracer.Training{Runs: 12, Families: map[string]int{"claude": 8, "gpt-5": 4}, Digest: "0123456789abcdef"}}
	if w := m.FamilyWarning("m.json", "claude"); w != "" {
		t.Errorf("own family warns: %q", w)
	}
	w := m.FamilyWarning("m.json", "gemini")
	for _, s := range []string{"tracer(model=m.json) was trained on claude (8 runs), gpt-5 (4 runs)", "0123456789ab…", "not on gemini"} {
		if !strings.Contains(w, s) {
			t.Errorf("warning %q lacks %q", w, s)
		}
	}
	old := &tracer.Model{}
	if w := old.FamilyWarning("old.json", "claude"); !strings.Contains(w, "records no training family") {
		t.Errorf("a model without families: %q", w)
	}
}
