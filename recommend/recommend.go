// Package recommend chooses a context policy per model family by replaying
// that family's logged runs under candidate policies (package simulate),
// against what ran (the as-logged baseline: each run replayed under its own
// logged context management), and checks the choice on runs it did not
// choose on.
//
// 1. Split. A family's runs are split deterministically: a run is held out
// when FNV-1a(run id) mod HoldoutEvery is 0 (default every 4th, ~25 %).
//
// 2. Evidence. A family gets a recommendation only with at least MinTrain
// (default DefaultMinTrain = 10) training and MinHeldOut (default
// DefaultMinHeldOut = 5) held-out runs; otherwise its result says
// "insufficient evidence", how many runs it has and how many more to
// collect, and still lists its candidates' training figures.
//
// 3. Candidates. On the training runs every candidate is replayed at each
// run's window and compared with as-logged on the same calls:
//
//	ratio        = Σ effective tokens / Σ as-logged tokens
//	effective    = prompt tokens + re-invocation tokens + summarizer input
//	as-logged    = its prompt tokens + the summarizer input of the logged compactions
//	tokens saved = Σ as-logged − Σ effective
//
// with the runs it saves and loses against what ran (simulate.RunResult.Saved
// and .Lost: at a run's own window a run whose log finished is never saved;
// at a Window below it, one whose logged prompts exceed it dies under what
// ran and is saved when the candidate carries it to its logged end) and its predicted
// re-invocations per 100 replayed calls. A candidate is excluded by the
// first rule it breaks, in this order:
//
//   - harness: a harness's own mechanism (compact-claude-code,
//     compact-codex, compact-gemini, gemini-mask, compact-openhands,
//     compact-goose) only for families with runs of that harness;
//   - lost: it loses a run what ran gets through;
//   - re-invocations: more than MaxReinvPer100 per 100 calls;
//   - behaviour: the model's own manage_context ops (dtoc*) only for
//     families labelled "selective" (see Eligible);
//   - no gain: it saves neither runs nor tokens against as-logged.
//
// Among the rest the one that saves the most runs wins, then the lowest
// ratio, then the earlier in the grid. None left: what ran (as-logged).
//
// 4. Held out. The winner is replayed on the held-out runs: the expected
// saving 1 − ratio with a run-level percentile-bootstrap 95 % CI, the
// re-invocation rate, runs saved and lost. It is recommended only when the
// CI's lower end is above zero and it loses no held-out run; otherwise the
// result keeps what ran and says why.
package recommend

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/trajmine/trajmine/internal/holdout"
	"github.com/trajmine/trajmine/internal/stats"
	"github.com/trajmine/trajmine/simulate"
)

// Evidence thresholds (see the package doc, step 2).
const (
	DefaultMinTrain     = 10                   // training runs a family needs for a recommendation
	DefaultMinHeldOut   = 5                    // held-out runs a family needs for a recommendation
	DefaultHoldoutEvery = holdout.DefaultEvery // every 4th run (by hash) is held out
	DefaultMaxReinv     = 2                    // predicted re-invocations per 100 calls a candidate may cause
)

// Options configures Recommend. Zero values take the documented defaults.
type Options struct {
	Grid           []string // candidate specs (default DefaultGrid)
	HoldoutEvery   uint32   // hold out runs with FNV-1a(id) % HoldoutEvery == 0 (default DefaultHoldoutEvery)
	MinTrain       int      // training runs needed (default DefaultMinTrain)
	MinHeldOut     int      // held-out runs needed (default DefaultMinHeldOut)
	MaxReinvPer100 float64  // eligibility bound on predicted re-invocations per 100 calls (default DefaultMaxReinv)
	Window         int64    // replay window for every run; 0 = each run's own
	Bootstrap      int      // CI resamples (default 1000)
	Seed           uint64   // bootstrap seed (default 1)
	// Label returns a family's behaviour label (behavior's classifier:
	// selective, shallow, never, thrasher, or "" when unknown).
	Label func(family string) string
	// AnyMechanism lifts the harness rule's default: a candidate is then
	// excluded only when it is another harness's own mechanism, not when
	// no harness of the family's runs can be configured to run it.
	AnyMechanism bool
	// TrainedOn, when set, holds the runs a learned candidate (trajmine
	// recommend --model) was trained on: Decide refuses when one of them is
	// a held-out run, which then could not measure that candidate.
	TrainedOn map[string]bool
}

// DefaultGrid is the candidate set: what ran (as-logged, the baseline),
// keep-all, the model's own manage_context ops, and parameter grids of the
// mechanical policies.
var DefaultGrid = []string{
	simulate.AsLoggedName,
	"keep-all",
	"dtoc", "dtoc-disable-only",
	"mask(n=5)", "mask(n=10)", "mask(n=20)",
	"halflife(activate=0.5,keep=4,cap=8000)", "halflife(activate=0.5,keep=4,cap=2000)", "halflife(activate=0.3,keep=8,cap=4000)",
	"clear-tool-uses(trigger=30000,keep=3)", "clear-tool-uses(trigger=60000,keep=5)", "clear-tool-uses",
	// cache-friendly: the same rules with their edits batched (issue 27.3)
	"mask(n=5,polling=5)", "mask(n=10,polling=10)", "mask(n=20,polling=20)",
	"clear-tool-uses(trigger=30000,keep=3,clear_at_least=10000)", "clear-tool-uses(trigger=60000,keep=5,clear_at_least=20000)", "clear-tool-uses(clear_at_least=20000)",
	"gemini-mask",
	"tracer-uniform(r=0.5)", "tracer-uniform(r=0.3)", "tracer-tooltype",
	"compact-claude-code", "compact-openhands",
}

// Harness returns the harness whose own mechanism spec is, as the policy
// catalog says (simulate.Def.Harness; "" when the policy is
// harness-neutral or unknown).
func Harness(spec string) string {
	name, _, _ := strings.Cut(spec, "(")
	d, _ := simulate.Lookup(strings.TrimSpace(name))
	return d.Harness
}

// Family is one model family's runs.
type Family struct {
	Name   string
	Traces []*simulate.Trace
}

// Exclusion rules (Candidate.Rule).
const (
	RuleHarness   = "harness"
	RuleLost      = "lost"
	RuleReinv     = "re-invocations"
	RuleBehaviour = "behaviour"
	RuleNoGain    = "no gain"
)

// Candidate is one candidate's replay on a family's training runs, against
// as-logged on the same calls.
type Candidate struct {
	Spec        string  `json:"spec"`
	Eligible    bool    `json:"eligible"`
	Rule        string  `json:"excluded_by,omitempty"` // the rule that excluded it (Rule*)
	Why         string  `json:"why,omitempty"`         // the rule, in words
	Ratio       float64 `json:"effective_ratio"`       // Σ effective / Σ as-logged
	MedianEff   float64 `json:"median_effective_ratio"`
	TokensSaved int64   `json:"tokens_saved"` // Σ as-logged − Σ effective
	Saved       int     `json:"saved"`
	Lost        int     `json:"lost"`
	ReinvPer100 float64 `json:"reinvocations_per_100_calls"`
	Calls       int     `json:"calls"`
	// KeepAllRatio is Σ effective / Σ keep-all: a reference
	KeepAllRatio float64 `json:"keep_all_ratio"`
	// DroppedContextCalls: the candidate replaces the agent's context
	// management, so the runs were replayed without their context-only
	// manage_context calls, this many (simulate.RunResult.DroppedContextCalls)
	DroppedContextCalls int `json:"dropped_context_calls"`
}

// Result is the recommendation for one family.
type Result struct {
	Family  string `json:"model_family"`
	Label   string `json:"behaviour_label,omitempty"`
	Runs    int    `json:"runs"`
	Train   int    `json:"train_runs"`
	HeldOut int    `json:"held_out_runs"`
	// Insufficient: too few training or held-out runs; Policy is empty and
	// Need says how many more runs to collect.
	Insufficient bool `json:"insufficient_evidence"`
	Need         int  `json:"runs_to_collect,omitempty"`
	// Policy is the recommendation (canonical spec; as-logged: keep what ran)
	Policy   string `json:"policy"`
	Short    string `json:"policy_short"` // spec with non-default parameters only
	PolicyOf string `json:"policy_family"`
	// Best is the training runs' choice, whether or not the held-out runs
	// confirmed it ("" when insufficient evidence stopped before)
	Best string `json:"training_choice,omitempty"`
	// held-out figures of Best (nil when there were none to measure)
	Saving      *float64 `json:"expected_saving"`
	SavingLo    *float64 `json:"expected_saving_lo"`
	SavingHi    *float64 `json:"expected_saving_hi"`
	ReinvPer100 *float64 `json:"held_out_reinvocations_per_100_calls"`
	SavedRuns   int      `json:"held_out_saved_runs"`
	LostRuns    int      `json:"held_out_lost_runs"`
	// Why explains the choice in one line.
	Why        string      `json:"why"`
	Candidates []Candidate `json:"candidates"`
	// WhatIf is the window what-if at a Window below the windows the
	// family's runs ran at (AddWhatIf); nil otherwise.
	WhatIf *WindowWhatIf `json:"window_what_if,omitempty"`
}

// PolicyFamily is the mechanism of the policy spec names, read from the
// catalog (simulate.Def.Mechanism: logged, dtoc, masking, truncation,
// compaction, none), or "other" for a name the catalog does not have.
func PolicyFamily(spec string) string {
	name, _, _ := strings.Cut(spec, "(")
	if d, ok := simulate.Lookup(strings.TrimSpace(name)); ok {
		return d.Mechanism
	}
	return "other"
}

// Eligible reports whether a policy family may be recommended for a
// behaviour label: the model's own manage_context ops (dtoc) only for
// "selective" families, whose ops the evidence says pay off; every other
// family is open to all labels.
func Eligible(policyFamily, label string) bool {
	if policyFamily == simulate.MechanismDtoc {
		return label == "selective"
	}
	return true
}

// Recommend chooses a policy for each family (see the package doc).
// Deterministic: families in the order given, candidates in grid order. It
// is NewGrid, Grid.Replay of every trace and Decide; callers that stream
// runs (trajmine's shared pass) make those calls themselves and keep no
// trace.
func Recommend(fams []Family, o Options) ([]Result, error) {
	g, err := NewGrid(o.Grid, o.Window)
	if err != nil {
		return nil, err
	}
	var rp simulate.Replayer
	outs := make([]FamilyOutcomes, len(fams))
	for i, fam := range fams {
		outs[i].Name = fam.Name
		for _, tr := range fam.Traces {
			outs[i].Runs = append(outs[i].Runs, g.Replay(&rp, tr))
		}
	}
	rs, err := Decide(outs, g, o)
	if err != nil {
		return nil, err
	}
	AddWhatIf(rs, outs, g)
	return rs, nil
}

// Grid is the parsed candidate set (as-logged first) and the replay window.
type Grid struct {
	pols   []simulate.Policy
	window int64
}

// NewGrid parses specs (DefaultGrid when empty), puts as-logged, the
// baseline, first if it is not, and replays at window (0 = each run's own).
func NewGrid(specs []string, window int64) (*Grid, error) {
	if len(specs) == 0 {
		specs = DefaultGrid
	}
	pols := make([]simulate.Policy, 0, len(specs)+1)
	al, err := simulate.Parse(simulate.AsLoggedName)
	if err != nil {
		return nil, fmt.Errorf("grid: %w", err)
	}
	pols = append(pols, al)
	for _, s := range specs {
		p, err := simulate.Parse(s)
		if err != nil {
			return nil, fmt.Errorf("grid: %w", err)
		}
		if p.Name() != al.Name() {
			pols = append(pols, p)
		}
	}
	return &Grid{pols: pols, window: window}, nil
}

// Fresh returns a Grid with the same candidates and its own policy state,
// for replaying on another goroutine (policies keep per-run state).
func (g *Grid) Fresh() (*Grid, error) {
	f := &Grid{pols: make([]simulate.Policy, len(g.pols)), window: g.window}
	for i, p := range g.pols {
		var err error
		if f.pols[i], err = simulate.Fresh(p); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// Specs returns the candidates' canonical specs, in grid order.
func (g *Grid) Specs() []string {
	out := make([]string, len(g.pols))
	for i, p := range g.pols {
		out[i] = p.Name()
	}
	return out
}

// RunOutcome is one run replayed under every candidate of a Grid.
type RunOutcome struct {
	RunID   string
	Harness string
	Cands   []Outcome // in grid order
}

// Outcome is one candidate's replay of one run: what Decide needs of it.
type Outcome struct {
	Effective int64 // prompt + re-invocation + summarizer-input tokens
	Baseline  int64 // as-logged's prompt + summarizer-input tokens over the same calls
	KeepAll   int64 // keep-all's prompt tokens over the same calls (a reference)
	Saved     bool  // what ran loses the run, the candidate gets through (simulate.RunResult.Saved)
	Lost      bool  // the candidate loses a run what ran gets through
	Reinv     int   // predicted re-invocations
	Calls     int   // calls replayed
	Dropped   int   // context-only manage_context calls the replay left out

	// Loss is why what ran loses the run at the window
	// (simulate.RunResult.BaselineLoss; "" when it does not)
	Loss simulate.Loss
}

// Replay replays every candidate on tr at the grid's window.
func (g *Grid) Replay(rp *simulate.Replayer, tr *simulate.Trace) RunOutcome {
	out := RunOutcome{RunID: tr.RunID, Harness: tr.Harness, Cands: make([]Outcome, len(g.pols))}
	for i, p := range g.pols {
		r := rp.Replay(tr, p, simulate.Options{Window: g.window})
		out.Cands[i] = Outcome{Effective: r.PromptTokens + r.ReinvocationTok + r.SummarizerIn, Baseline: r.BaselineEffective(),
			KeepAll: r.KeepAllTokens, Saved: r.Saved, Lost: r.Lost, Loss: r.BaselineLoss, Reinv: r.Reinvocations, Calls: r.Calls, Dropped: r.DroppedContextCalls}
	}
	return out
}

// FamilyOutcomes is one family's runs, each replayed under the whole grid.
type FamilyOutcomes struct {
	Name string
	Runs []RunOutcome
}

// Decide chooses a policy for each family from its runs' outcomes under g
// (see the package doc): the training runs choose, the held-out runs
// measure the choice. Deterministic: families in the order given.
func Decide(fams []FamilyOutcomes, g *Grid, o Options) ([]Result, error) {
	o = withDefaults(o)
	pols := g.pols
	var out []Result
	var leaked []string
	for _, fam := range fams {
		label := ""
		if o.Label != nil {
			label = o.Label(fam.Name)
		}
		res := Result{Family: fam.Name, Label: label, Runs: len(fam.Runs)}
		var train, held []*RunOutcome
		harnesses := map[string]bool{}
		for i := range fam.Runs {
			r := &fam.Runs[i]
			if len(r.Cands) != len(pols) {
				return nil, fmt.Errorf("decide: run %s has %d outcomes for %d candidates", r.RunID, len(r.Cands), len(pols))
			}
			if heldOut(r.RunID, o.HoldoutEvery) {
				if o.TrainedOn[r.RunID] {
					leaked = append(leaked, r.RunID)
				}
				held = append(held, r)
			} else {
				train = append(train, r)
				harnesses[r.Harness] = true
			}
		}
		res.Train, res.HeldOut = len(train), len(held)
		best := 0 // as-logged
		for ci, p := range pols {
			c := evaluate(train, ci, p.Name())
			if ci > 0 {
				c.Rule, c.Why = exclude(c, p.Name(), harnesses, label, o.MaxReinvPer100, o.AnyMechanism)
				c.Eligible = c.Rule == ""
			}
			res.Candidates = append(res.Candidates, c)
			if c.Eligible && ci > 0 && (best == 0 || better(c, res.Candidates[best])) {
				best = ci
			}
		}
		res.Candidates[0].Eligible = true
		if res.Train < o.MinTrain || res.HeldOut < o.MinHeldOut {
			res.Insufficient = true
			res.Need = need(res.Train, res.HeldOut, o)
			res.Why = fmt.Sprintf("insufficient evidence: %s (%d training, %d held out), need ≥ %d training and ≥ %d held-out: collect about %d more runs of %s",
				runs(res.Runs, "run"), res.Train, res.HeldOut, o.MinTrain, o.MinHeldOut, res.Need, fam.Name)
			out = append(out, res)
			continue
		}
		res.Best = pols[best].Name()
		choice := best
		if best > 0 {
			eff, base, reinv, calls, saved, lost := heldOutFigures(held, best)
			ratio, lo, hi := stats.SumRatio(eff, base, o.Bootstrap, 0.95, o.Seed)
			if math.IsNaN(ratio) {
				ratio, lo, hi = 1, 1, 1
			}
			m := 1 - ratio
			lo, hi = 1-hi, 1-lo
			r := 0.0
			if calls > 0 {
				r = 100 * float64(reinv) / float64(calls)
			}
			res.Saving, res.SavingLo, res.SavingHi, res.ReinvPer100, res.SavedRuns, res.LostRuns = &m, &lo, &hi, &r, saved, lost
			if !(lo > 0) || lost > 0 {
				choice = 0
			}
		}
		res.Policy, res.Short, res.PolicyOf = pols[choice].Name(), simulate.Short(pols[choice]), PolicyFamily(pols[choice].Name())
		res.Why = why(res, res.Candidates[best], simulate.Short(pols[best]), o)
		out = append(out, res)
	}
	if len(leaked) > 0 {
		return nil, leakError(leaked, o.HoldoutEvery)
	}
	return out, nil
}

// leakError is Decide's refusal when held-out runs were trained on.
func leakError(ids []string, every uint32) error {
	slices.Sort(ids)
	eg := strings.Join(ids[:min(len(ids), 3)], ", ")
	if len(ids) > 3 {
		eg += ", …"
	}
	return fmt.Errorf("recommend: %d held-out %s (%s) in the model's training set, so they cannot measure it: "+
		"retrain it with trajmine train tracer --holdout-every %d (recommend's split, %s) or on other runs",
		len(ids), map[bool]string{true: "run is", false: "runs are"}[len(ids) == 1], eg, every, holdout.Rule(every))
}

func withDefaults(o Options) Options {
	if o.HoldoutEvery == 0 {
		o.HoldoutEvery = DefaultHoldoutEvery
	}
	if o.MinTrain == 0 {
		o.MinTrain = DefaultMinTrain
	}
	if o.MinHeldOut == 0 {
		o.MinHeldOut = DefaultMinHeldOut
	}
	if o.MaxReinvPer100 == 0 {
		o.MaxReinvPer100 = DefaultMaxReinv
	}
	if o.Bootstrap == 0 {
		o.Bootstrap = 1000
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	return o
}

// need estimates the further runs a family needs: one new run in every
// HoldoutEvery is held out (the split is by hash, so in expectation), so
// the held-out deficit takes deficit × every new runs and the training
// deficit deficit × every / (every − 1); the larger, at least 1.
func need(train, held int, o Options) int {
	e := float64(o.HoldoutEvery)
	k := float64(max(o.MinHeldOut-held, 0)) * e
	if o.HoldoutEvery > 1 {
		k = max(k, math.Ceil(float64(max(o.MinTrain-train, 0))*e/(e-1)))
	}
	return max(int(k), 1)
}

// exclude returns the first rule c breaks (see the package doc), "" none.
func exclude(c Candidate, spec string, harnesses map[string]bool, label string, maxReinv float64, anyMechanism bool) (rule, why string) {
	if !anyMechanism {
		if ok, why := Configurable(spec, harnesses); !ok {
			return RuleHarness, why
		}
	}
	if h := Harness(spec); h != "" {
		ok := false
		for have := range harnesses {
			ok = ok || strings.HasPrefix(have, h)
		}
		if !ok {
			return RuleHarness, fmt.Sprintf("%s's own mechanism; no training run of this family comes from %s", h, h)
		}
	}
	switch {
	case c.Lost > 0:
		return RuleLost, fmt.Sprintf("loses %s what ran gets through", runs(c.Lost, "run"))
	case c.ReinvPer100 > maxReinv:
		return RuleReinv, fmt.Sprintf("%.1f predicted re-invocations per 100 calls (limit %.1f)", c.ReinvPer100, maxReinv)
	case !Eligible(PolicyFamily(spec), label):
		return RuleBehaviour, "the model's own manage_context ops are only recommended for selective families (label " + orUnknown(label) + ")"
	case c.Saved == 0 && c.TokensSaved <= 0:
		return RuleNoGain, "saves neither runs nor tokens against what ran"
	}
	return "", ""
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// better: more runs saved, then a lower effective ratio.
func better(a, b Candidate) bool {
	if a.Saved != b.Saved {
		return a.Saved > b.Saved
	}
	return a.Ratio < b.Ratio-1e-12
}

// heldOut is the shared split (package internal/holdout): the runs tracer
// evaluates a model on are the runs held out here, so a model trained by
// trajmine train tracer at the same --holdout-every never saw them.
func heldOut(id string, every uint32) bool { return holdout.Held(id, every) }

// evaluate summarises candidate ci's outcomes on runs as a Candidate.
func evaluate(runs []*RunOutcome, ci int, spec string) Candidate {
	c := Candidate{Spec: spec}
	eff := make([]float64, 0, len(runs))
	var se, sb, sk float64
	reinv := 0
	for _, run := range runs {
		r := run.Cands[ci]
		e := 1.0
		if r.Baseline > 0 {
			e = float64(r.Effective) / float64(r.Baseline)
		}
		eff = append(eff, e)
		se += float64(r.Effective)
		sb += float64(r.Baseline)
		sk += float64(r.KeepAll)
		c.TokensSaved += r.Baseline - r.Effective
		if r.Saved {
			c.Saved++
		}
		if r.Lost {
			c.Lost++
		}
		reinv += r.Reinv
		c.Calls += r.Calls
		c.DroppedContextCalls += r.Dropped
	}
	c.MedianEff = stats.Median(eff)
	if math.IsNaN(c.MedianEff) {
		c.MedianEff = 1
	}
	c.Ratio, c.KeepAllRatio = 1, 1
	if sb > 0 {
		c.Ratio = se / sb
	}
	if sk > 0 {
		c.KeepAllRatio = se / sk
	}
	if c.Calls > 0 {
		c.ReinvPer100 = 100 * float64(reinv) / float64(c.Calls)
	}
	return c
}

func heldOutFigures(runs []*RunOutcome, ci int) (eff, base []float64, reinv, calls, saved, lost int) {
	for _, run := range runs {
		r := run.Cands[ci]
		eff = append(eff, float64(r.Effective))
		base = append(base, float64(r.Baseline))
		reinv += r.Reinv
		calls += r.Calls
		if r.Saved {
			saved++
		}
		if r.Lost {
			lost++
		}
	}
	return eff, base, reinv, calls, saved, lost
}

// runs is n with its noun, plural unless n is 1: "1 run", "3 training runs".
func runs(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// why is the one-line explanation of a result whose training choice is
// win (short name bestShort).
func why(r Result, win Candidate, bestShort string, o Options) string {
	lab := ""
	if r.Label != "" {
		lab = fmt.Sprintf(" (manage_context behaviour: %s)", r.Label)
	}
	if r.Best == simulate.AsLoggedName || r.Best == "" {
		excluded := map[string]int{}
		for _, c := range r.Candidates[1:] {
			if c.Rule != "" {
				excluded[c.Rule]++
			}
		}
		var parts []string
		for _, rule := range []string{RuleHarness, RuleLost, RuleReinv, RuleBehaviour, RuleNoGain} {
			if n := excluded[rule]; n > 0 {
				parts = append(parts, fmt.Sprintf("%d by %s", n, rule))
			}
		}
		return fmt.Sprintf("keep what ran (as-logged): no candidate qualified on %s (excluded: %s)%s",
			runs(r.Train, "training run"), strings.Join(parts, ", "), lab)
	}
	s := fmt.Sprintf("%s: %.1f%% of what ran's prompt tokens (re-invocations and summaries included) on %s", bestShort, 100*win.Ratio, runs(r.Train, "training run"))
	if win.Saved > 0 {
		s += fmt.Sprintf(", %s saved from overflow", runs(win.Saved, "run"))
	}
	s += fmt.Sprintf(", %.1f re-invocations per 100 calls", win.ReinvPer100)
	if win.DroppedContextCalls > 0 {
		s += fmt.Sprintf(" (replayed without the agent's %d context-only manage_context calls, its other actions held fixed)", win.DroppedContextCalls)
	}
	if r.Saving != nil {
		s += fmt.Sprintf("; held out (%s): saves %.1f%% [%.1f%%, %.1f%%]", runs(r.HeldOut, "run"), 100**r.Saving, 100**r.SavingLo, 100**r.SavingHi)
		if r.SavedRuns > 0 {
			s += fmt.Sprintf(", %s saved", runs(r.SavedRuns, "run"))
		}
		if r.LostRuns > 0 {
			s += fmt.Sprintf(", %s lost", runs(r.LostRuns, "run"))
		}
	}
	if r.Policy == simulate.AsLoggedName {
		reason := "the held-out saving's 95% CI does not exclude zero"
		if r.LostRuns > 0 {
			reason = "it loses held-out runs what ran gets through"
		}
		s = "keep what ran (as-logged): " + s + "; not recommended: " + reason
	}
	return s + lab
}

// Top returns up to n candidates of r for display: the training choice
// first, then the rest by runs saved and tokens saved.
func Top(r Result, n int) []Candidate {
	cs := slices.Clone(r.Candidates)
	slices.SortStableFunc(cs, func(a, b Candidate) int {
		pa, pb := a.Spec == r.Best, b.Spec == r.Best
		if pa != pb {
			if pa {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(b.Saved, a.Saved), cmp.Compare(b.TokensSaved, a.TokensSaved))
	})
	return cs[:min(n, len(cs))]
}

// SortFamilies orders families by name (a stable input order for Recommend).
func SortFamilies(fams []Family) {
	slices.SortFunc(fams, func(a, b Family) int { return cmp.Compare(a.Name, b.Name) })
}
