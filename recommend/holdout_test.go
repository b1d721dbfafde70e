package recommend

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// fnv1a32 is FNV-1a, 32 bits, written out here (offset basis 2166136261,
// prime 16777619) so that the test's split does not come from the code under
// test's hash/fnv call.
func fnv1a32(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

// TestDecideChoosesOnTrainingOnly checks that the held-out runs measure the
// choice and never make it. The grid is keep-all, mask(n=5), mask(n=10); the
// outcomes are hand-made so that the training runs pick one candidate and
// the same runs plus the held-out ones would pick the other. Each case is a
// way held-out runs could leak into the choice: the effective ratio, the
// overflow losses (eligibility), the runs saved.
//
// Per run what ran (as-logged, the baseline) and keep-all cost 1,000
// tokens (Effective = Baseline = 1000). With the 16 runs r0..r15 and
// HoldoutEvery 4, the held-out runs are those with FNV-1a(id) % 4 == 0
// (computed by fnv1a32 above: 5 of the 16 — r1, r5, r9, r10, r14 — which
// the test checks): 11 training and 5 held-out runs, just enough for the
// evidence rules (≥ 10 and ≥ 5). (Issue 13 raised the evidence rules; the
// fixture had 12 runs, 8 training and 4 held out, before.)
//
// The held-out runs may veto the training choice (a held-out loss, or a
// saving whose CI does not exclude zero, keeps what ran) but never pick
// another candidate: Best is always the training runs' choice.
func TestDecideChoosesOnTrainingOnly(t *testing.T) {
	g, err := NewGrid([]string{"keep-all", "mask(n=5)", "mask(n=10)"}, 0) // as-logged goes first
	if err != nil {
		t.Fatal(err)
	}
	if specs := g.Specs(); len(specs) != 4 || specs[0] != "as-logged" {
		t.Fatalf("grid %v, want as-logged first then the three given", specs)
	}
	var ids []string
	held := map[string]bool{}
	for k := range 16 {
		id := fmt.Sprintf("r%d", k)
		ids = append(ids, id)
		held[id] = fnv1a32(id)%4 == 0
	}
	nHeld := 0
	for _, h := range held {
		if h {
			nHeld++
		}
	}
	if nHeld != 5 {
		t.Fatalf("fixture: %d of %d runs held out, want 5 (the comments' arithmetic)", nHeld, len(ids))
	}
	nTrain := len(ids) - nHeld
	ka := Outcome{Effective: 1000, Baseline: 1000, KeepAll: 1000, Calls: 10}
	type pair struct{ m5, m10 Outcome }
	for _, tc := range []struct {
		name        string
		train, held pair
		// want: the training runs' choice and its figures
		want      int     // index in the grid of the training choice: 2 = mask(n=5)
		wantRatio float64 // Σ effective / Σ as-logged of the choice on the training runs
		wantSave  float64 // 1 − the choice's ratio on the held-out runs
		wantSaved int     // held-out runs the choice saves from overflow
		vetoed    bool    // the held-out runs keep what ran instead
	}{
		{
			// training: mask(n=5) 500/1000 = 0.5 beats mask(n=10) 600/1000 = 0.6.
			// held out: mask(n=5) 900, mask(n=10) 100. With them (11 train + 5
			// held out): mask(n=5) (11·500+5·900)/16000 = 0.625 against
			// mask(n=10) (11·600+5·100)/16000 = 0.444, so a leak picks
			// mask(n=10) (it would for any split with h ≥ t/8 held-out runs:
			// 0.5t+0.9h > 0.6t+0.1h ⇔ 0.8h > 0.1t). Every held-out run saves
			// 10 %, so the CI is [10 %, 10 %] and the choice stands.
			name:      "ratio",
			train:     pair{Outcome{Effective: 500, Baseline: 1000, Calls: 10}, Outcome{Effective: 600, Baseline: 1000, Calls: 10}},
			held:      pair{Outcome{Effective: 900, Baseline: 1000, Calls: 10}, Outcome{Effective: 100, Baseline: 1000, Calls: 10}},
			want:      2,
			wantRatio: 0.5,
			wantSave:  0.1, // 1 − 900/1000
		},
		{
			// training: mask(n=5) 0.5, no losses, beats mask(n=10) 0.6. Held
			// out: mask(n=5) overflows where what ran does not (Lost), which
			// on the training runs would make it ineligible; held out, it
			// vetoes the choice: what ran is kept.
			name:      "lost",
			train:     pair{Outcome{Effective: 500, Baseline: 1000, Calls: 10}, Outcome{Effective: 600, Baseline: 1000, Calls: 10}},
			held:      pair{Outcome{Effective: 500, Baseline: 1000, Calls: 10, Lost: true}, Outcome{Effective: 600, Baseline: 1000, Calls: 10}},
			want:      2,
			wantRatio: 0.5,
			wantSave:  0.5, // 1 − 500/1000
			vetoed:    true,
		},
		{
			// training: mask(n=5) 0.5 beats mask(n=10) 0.6, neither saves a
			// run. Held out: mask(n=10) saves every run from overflow, which
			// would count (after the ratio) were held-out runs choosing.
			name:      "saved",
			train:     pair{Outcome{Effective: 500, Baseline: 1000, Calls: 10}, Outcome{Effective: 600, Baseline: 1000, Calls: 10}},
			held:      pair{Outcome{Effective: 500, Baseline: 1000, Calls: 10}, Outcome{Effective: 600, Baseline: 1000, Calls: 10, Saved: true}},
			want:      2,
			wantRatio: 0.5,
			wantSave:  0.5,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fam := FamilyOutcomes{Name: "f"}
			for _, id := range ids {
				p := tc.train
				if held[id] {
					p = tc.held
				}
				fam.Runs = append(fam.Runs, RunOutcome{RunID: id, Harness: "swe-agent", Cands: []Outcome{ka, ka, p.m5, p.m10}})
			}
			rs, err := Decide([]FamilyOutcomes{fam}, g, Options{Bootstrap: 50})
			if err != nil {
				t.Fatal(err)
			}
			r := rs[0]
			if r.Train != nTrain || r.HeldOut != nHeld {
				t.Fatalf("split %d/%d, want %d/%d", r.Train, r.HeldOut, nTrain, nHeld)
			}
			want := g.Specs()[tc.want]
			if r.Best != want {
				t.Fatalf("training choice %s, want %s (chosen on held-out runs too?): %s", r.Best, want, r.Why)
			}
			wantPolicy := want
			if tc.vetoed {
				wantPolicy = "as-logged"
			}
			if r.Policy != wantPolicy || r.Insufficient {
				t.Errorf("policy %s (insufficient %v), want %s: %s", r.Policy, r.Insufficient, wantPolicy, r.Why)
			}
			win := r.Candidates[tc.want]
			if math.Abs(win.Tokens.X-tc.wantRatio) > 1e-9 || win.Lost != 0 || win.Saved != 0 {
				t.Errorf("training figures of %s: ratio %v lost %d saved %d, want %v 0 0", want, win.Tokens.X, win.Lost, win.Saved, tc.wantRatio)
			}
			if r.Saving == nil || math.Abs(*r.Saving-tc.wantSave) > 1e-9 || r.SavedRuns != tc.wantSaved {
				t.Errorf("held-out saving %v, saved runs %d; want %v, %d", r.Saving, r.SavedRuns, tc.wantSave, tc.wantSaved)
			}
		})
	}
}

// TestDecideSaysWhyWhatRanIsKept: every candidate saves every run but
// exceeds the re-invocation limit, so what ran is kept, and the result says
// which rule excluded each candidate instead of hiding the trade-off. The
// 16 runs r0..r15 split 11 training / 5 held out (see above); per run what
// ran costs 1,000 tokens over 10 calls, each mask 600 tokens with 1
// predicted re-invocation, i.e. 11 re-invocations over 110 training calls =
// 10 per 100 calls, above the default limit of 2.
func TestDecideSaysWhyWhatRanIsKept(t *testing.T) {
	g, err := NewGrid([]string{"mask(n=5)", "mask(n=10)"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	base := Outcome{Effective: 1000, Baseline: 1000, KeepAll: 1000, Calls: 10}
	m := Outcome{Effective: 600, Baseline: 1000, KeepAll: 1000, Calls: 10, Saved: true, Reinv: 1}
	fam := FamilyOutcomes{Name: "f"}
	for k := range 16 {
		fam.Runs = append(fam.Runs, RunOutcome{RunID: fmt.Sprintf("r%d", k), Harness: "swe-agent", Cands: []Outcome{base, m, m}})
	}
	rs, err := Decide([]FamilyOutcomes{fam}, g, Options{Bootstrap: 50})
	if err != nil {
		t.Fatal(err)
	}
	r := rs[0]
	if r.Insufficient || r.Policy != "as-logged" || r.Best != "as-logged" {
		t.Fatalf("policy %s (best %s, insufficient %v), want as-logged: %s", r.Policy, r.Best, r.Insufficient, r.Why)
	}
	for _, c := range r.Candidates[1:] {
		// 11 training runs saved, 11 × (1000 − 600) = 4,400 tokens saved
		if c.Rule != RuleReinv || c.Saved != 11 || c.TokensSaved != 4400 || math.Abs(c.ReinvPer100-10) > 1e-9 {
			t.Errorf("%s: rule %q saved %d tokens %d reinv/100 %v; want re-invocations, 11, 4400, 10", c.Spec, c.Rule, c.Saved, c.TokensSaved, c.ReinvPer100)
		}
	}
	if want := "excluded: 2 by re-invocations"; !strings.Contains(r.Why, want) {
		t.Errorf("why %q lacks %q", r.Why, want)
	}
}

// TestDecideHarnessRule: a candidate must be runnable by every harness the
// family's runs used (issue 27, point 4). A family of Claude Code runs gets
// no masking (Claude Code has no setting for it) and no compact-codex
// (Codex's own), but may get compact-claude-code; with AnyMechanism masking
// is chosen; a family of Claude Code and Codex runs gets neither compaction
// (each harness lacks the other's); runs of a harness with no known settings
// (inspect-ai) take only API-level settings: clear-tool-uses for a Claude
// family (the Anthropic Messages API), nothing mechanical for another.
// Each mask run costs 600 of what ran's 1,000 tokens, compact-claude-code
// 800, compact-codex 500 and clear-tool-uses 700 (hand-made outcomes), so
// compact-codex would win were it eligible, and masking wherever it is.
func TestDecideHarnessRule(t *testing.T) {
	g, err := NewGrid([]string{"mask(n=5)", "compact-claude-code", "compact-codex", "clear-tool-uses"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	base := Outcome{Effective: 1000, Baseline: 1000, KeepAll: 1000, Calls: 10}
	mask := Outcome{Effective: 600, Baseline: 1000, KeepAll: 1000, Calls: 10}
	cc := Outcome{Effective: 800, Baseline: 1000, KeepAll: 1000, Calls: 10}
	codex := Outcome{Effective: 500, Baseline: 1000, KeepAll: 1000, Calls: 10}
	clear := Outcome{Effective: 700, Baseline: 1000, KeepAll: 1000, Calls: 10}
	fam := func(name string, harnesses ...string) FamilyOutcomes {
		f := FamilyOutcomes{Name: name}
		for k := range 40 {
			// grid order: as-logged (NewGrid's reference), then the specs
			f.Runs = append(f.Runs, RunOutcome{RunID: fmt.Sprintf("r%d", k), Harness: harnesses[k%len(harnesses)], Cands: []Outcome{base, mask, cc, codex, clear}})
		}
		return f
	}
	if len(g.Specs()) != 5 {
		t.Fatalf("grid %v", g.Specs())
	}
	for _, tc := range []struct {
		name      string
		family    string
		harnesses []string
		any       bool
		want      string            // the training choice; as-logged: none
		rules     map[string]string // spec → rule
		note      string            // in the result's why
	}{
		{"claude code", "claude-sonnet-4", []string{"claude-code"}, false, "compact-claude-code",
			map[string]string{"mask(n=5)": RuleHarness, "compact-codex": RuleHarness, "clear-tool-uses": RuleHarness}, ""},
		{"claude code, any mechanism", "claude-sonnet-4", []string{"claude-code"}, true, "mask(n=5)",
			map[string]string{"compact-codex": RuleHarness}, ""},
		{"claude code and codex: each compaction is one harness's", "gpt-5", []string{"claude-code", "codex-cli"}, false, "as-logged",
			map[string]string{"mask(n=5)": RuleHarness, "compact-claude-code": RuleHarness, "compact-codex": RuleHarness, "clear-tool-uses": RuleHarness}, ""},
		{"unknown harness, a Claude family: API-level only", "claude-sonnet-4", []string{"inspect-ai"}, false, "clear-tool-uses",
			map[string]string{"mask(n=5)": RuleHarness, "compact-claude-code": RuleHarness, "compact-codex": RuleHarness},
			"runs of inspect-ai, a harness with no known settings: only API-level settings are offered (anthropic-api, dtoc)"},
		{"unknown harness, another family: nothing mechanical", "gpt-4o", []string{"inspect-ai"}, false, "as-logged",
			map[string]string{"mask(n=5)": RuleHarness, "compact-claude-code": RuleHarness, "compact-codex": RuleHarness, "clear-tool-uses": RuleHarness},
			"runs of inspect-ai, a harness with no known settings, take only API-level settings (dtoc)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := Decide([]FamilyOutcomes{fam(tc.family, tc.harnesses...)}, g, Options{Bootstrap: 50, AnyMechanism: tc.any})
			if err != nil {
				t.Fatal(err)
			}
			r := rs[0]
			if !strings.HasPrefix(r.Best, strings.TrimSuffix(tc.want, ")")) {
				t.Errorf("best %s, want %s (%s)", r.Best, tc.want, r.Why)
			}
			for spec, want := range tc.rules {
				found := false
				for _, c := range r.Candidates {
					if strings.HasPrefix(c.Spec, strings.TrimSuffix(spec, ")")) {
						found = true
						if c.Rule != want {
							t.Errorf("%s rule %q (%s), want %q", c.Spec, c.Rule, c.Why, want)
						}
					}
				}
				if !found {
					t.Errorf("no candidate %s", spec)
				}
			}
			if !strings.Contains(r.Why, tc.note) {
				t.Errorf("why %q lacks %q", r.Why, tc.note)
			}
		})
	}
}
