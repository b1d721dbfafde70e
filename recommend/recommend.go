// Package recommend chooses a context policy per model family by replaying
// that family's logged runs under candidate policies (package simulate),
// against what ran (the as-logged baseline: each run replayed under its own
// logged context management), and checks the choice on runs it did not
// choose on. The choice is made in dollars: cost with prompt caching, or
// cost per solved task where outcomes are known (Choose, the one decision
// function the report's headline and page show too).
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
// run's window and compared with as-logged on the same calls (Option):
//
//	cost        = Σ cost with caching / Σ as-logged's, over the priced runs (simulate.Cost)
//	per solved  = (Σ cost / resolved runs it does not lose) / (Σ as-logged cost / resolved runs),
//	              over the priced runs with a known outcome (runs.resolved)
//	tokens      = Σ effective tokens / Σ as-logged tokens
//	effective   = prompt tokens + re-invocation tokens + summarizer input
//	as-logged   = its prompt tokens + the summarizer input of the logged compactions
//
// each with a run-level percentile-bootstrap 95 % CI, with the runs it
// saves and loses against what ran (simulate.RunResult.Saved and .Lost: at
// a run's own window a run whose log finished is never saved; at a Window
// below it, one whose logged prompts exceed it dies under what ran and is
// saved when the candidate carries it to its logged end) and its predicted
// re-invocations per 100 replayed calls. Choose then decides in the best
// currency every candidate has (cost per solved task, else cost, else
// tokens, said as such), excluding each candidate by every gate it fails,
// in this order:
//
//   - harness: it must be runnable by every harness the family's runs
//     used (Runnable: recommend --config HARNESS's settings; runs of a
//     harness with no known settings, such as eval frameworks and plain
//     message lists, only API-level settings: the Anthropic Messages API's
//     context edits for Claude models, DTOC's manage_context tool);
//   - behaviour: the model's own manage_context ops (dtoc*) only for
//     families labelled "selective" (see Eligible);
//   - lost: it loses a run what ran gets through;
//   - re-invocations: more than MaxReinvPer100 per 100 calls;
//   - cost: the upper end of its CI in the currency is not below 1 (it is
//     not strictly cheaper than what ran).
//
// Among the rest the lowest ratio wins, then more runs saved, then the
// lower effective ratio, then the earlier in the grid. None left: what ran
// (as-logged), with the reason.
//
// 4. Held out. The winner is replayed on the held-out runs and put through
// the same gates there (Choose on its held-out figures, MinHeldOut runs):
// it is recommended only when the upper end of its held-out CI is below 1
// (in the currency the held-out runs have), it loses no held-out run and
// stays within the re-invocation limit; otherwise the result keeps what
// ran and says why.
package recommend

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/internal/holdout"
	"github.com/trajmine/trajmine/internal/stats"
	"github.com/trajmine/trajmine/internal/textfmt"
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
	Grid           []string        // candidate specs (default DefaultGrid)
	HoldoutEvery   uint32          // hold out runs with FNV-1a(id) % HoldoutEvery == 0 (default DefaultHoldoutEvery)
	MinTrain       int             // training runs needed (default DefaultMinTrain)
	MinHeldOut     int             // held-out runs needed (default DefaultMinHeldOut)
	MaxReinvPer100 float64         // eligibility bound on predicted re-invocations per 100 calls (default DefaultMaxReinv)
	Window         simulate.Window // replay window for every run (the zero value: each run's own)
	Bootstrap      int             // CI resamples (default 1000)
	Seed           uint64          // bootstrap seed (default 1)
	// Label returns a family's behaviour label (behavior's classifier:
	// selective, shallow, never, thrasher, or "" when unknown).
	Label func(family string) string
	// AnyMechanism lifts the harness rule's default: a candidate is then
	// excluded only when it is another harness's own mechanism, not when
	// some harness of the family's runs cannot be configured to run it.
	AnyMechanism bool
	// TrainedOn, when set, holds the runs a learned candidate (trajmine
	// recommend --model) was trained on: Decide refuses when one of them is
	// a held-out run, which then could not measure that candidate.
	TrainedOn map[string]bool
	// Prices, when set, prices Recommend's replays (simulate.Cost with the
	// run's cache rule); nil: the choice is made in tokens. Decide reads
	// the costs its caller put in the outcomes.
	Prices diagnose.Prices
}

// DefaultGrid is the candidate set: what ran (as-logged, the baseline),
// keep-all, the model's own manage_context ops, parameter grids of the
// mechanical policies, and every harness's own settings (each spec of
// harnessGrids: what recommend --config HARNESS chooses among), so that
// the default choice for a family of one harness's runs is made among the
// same candidates as --config with that harness (TestDefaultGridHasHarnessGrids).
var DefaultGrid = defaultGrid()

func defaultGrid() []string {
	g := []string{
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
	seen := map[string]bool{}
	for _, s := range g {
		seen[canonical(s)] = true
	}
	for _, h := range Harnesses {
		for _, s := range harnessGrids[h] {
			if c := canonical(s); !seen[c] {
				seen[c] = true
				g = append(g, s)
			}
		}
	}
	return g
}

// canonical is a spec's canonical name (every parameter spelled out), or
// the spec itself when it does not parse.
func canonical(spec string) string {
	if p, err := simulate.Parse(spec); err == nil {
		return p.Name()
	}
	return spec
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

// Candidate is one candidate's replay on a family's training runs, against
// as-logged on the same calls: its figures (Option) and the gates it failed.
type Candidate struct {
	Option
	Eligible bool     `json:"eligible"`
	Rule     string   `json:"excluded_by,omitempty"` // the first rule that excluded it (Rule*)
	Why      string   `json:"why,omitempty"`         // that rule, in words
	Rules    []string `json:"excluded_by_all,omitempty"`
	Whys     []string `json:"why_all,omitempty"`
	// MedianEff is the median per-run effective ratio (effective tokens
	// over as-logged's on the same calls)
	MedianEff float64 `json:"median_effective_ratio"`
	// KeepAllEffRatio is Σ effective tokens / Σ keep-all prompt tokens: a
	// reference (simulate's keep-all ratio puts prompts alone over them)
	KeepAllEffRatio float64 `json:"keep_all_effective_ratio"`
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
	Policy    string `json:"policy"`
	Short     string `json:"policy_short"` // spec with non-default parameters only
	Mechanism string `json:"mechanism"`    // the policy's mechanism (Mechanism)
	// Best is the training runs' choice, whether or not the held-out runs
	// confirmed it ("" when insufficient evidence stopped before)
	Best string `json:"training_choice,omitempty"`
	// Currency is what the held-out figures below are in (Choose, step 1).
	Currency Currency `json:"currency,omitempty"`
	// held-out figures of Best (nil when there were none to measure):
	// Saving is 1 − its ratio in Currency, with the CI's ends swapped
	// (SavingLo = 1 − hi); ReinvPer100, SavedRuns, LostRuns as in Option
	Saving      *float64 `json:"expected_saving"`
	SavingLo    *float64 `json:"expected_saving_lo"`
	SavingHi    *float64 `json:"expected_saving_hi"`
	ReinvPer100 *float64 `json:"held_out_reinvocations_per_100_calls"`
	SavedRuns   int      `json:"held_out_saved_runs"`
	LostRuns    int      `json:"held_out_lost_runs"`
	// HeldOutFigures is Best on the held-out runs (nil when not measured).
	HeldOutFigures *Option `json:"held_out,omitempty"`
	// Choice is the training runs' choice with the exclusions of every
	// other candidate (Choose).
	Choice Choice `json:"choice"`
	// Reason says why no policy is recommended ("" when one is): the
	// evidence, the training choice's reason, or the held-out gates the
	// choice failed. The report's headline and page state it as it is.
	Reason string `json:"reason,omitempty"`
	// Why explains the result in one line.
	Why        string      `json:"why"`
	Candidates []Candidate `json:"candidates"`
	// WhatIf is the window what-if at a Window below the windows the
	// family's runs ran at (AddWhatIf); nil otherwise.
	WhatIf *WindowWhatIf `json:"window_what_if,omitempty"`
}

// Recommended reports whether r names a policy to apply: enough evidence,
// and not what ran (keep-all is a change when it wins).
func (r Result) Recommended() bool {
	return !r.Insufficient && r.Policy != "" && r.Policy != simulate.AsLoggedName
}

// Winner is the recommended policy's figures on the held-out runs, or on
// nothing: nil when r recommends none.
func (r Result) Winner() *Option {
	if !r.Recommended() {
		return nil
	}
	return r.HeldOutFigures
}

// Mechanism is the mechanism of the policy spec names (what it does to the
// prompt; a family is the runs' model family, never a policy's), read from
// the catalog (simulate.Def.Mechanism: logged, dtoc, masking, truncation,
// compaction, none), or "other" for a name the catalog does not have.
func Mechanism(spec string) string {
	name, _, _ := strings.Cut(spec, "(")
	if d, ok := simulate.Lookup(strings.TrimSpace(name)); ok {
		return d.Mechanism
	}
	return "other"
}

// Eligible reports whether a policy of mechanism may be recommended for a
// model family of a behaviour label: the model's own manage_context ops
// (dtoc) only for "selective" families, whose ops the evidence says pay
// off; every other mechanism is open to all labels.
func Eligible(mechanism, label string) bool {
	if mechanism == simulate.MechanismDtoc {
		return label == "selective"
	}
	return true
}

// Recommend chooses a policy for each family (see the package doc).
// Deterministic: families in the order given, candidates in grid order. It
// is NewGrid, Grid.Replay of every trace and Decide; callers that stream
// runs (trajmine's shared pass) make those calls themselves and keep no
// trace. The replays are priced by o.Prices (nil: the choice is in tokens).
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
			var price *diagnose.Price
			if p, ok := o.Prices.Lookup(tr.Model, tr.Family); ok && o.Prices != nil {
				p = tr.Cache.Price(p)
				price = &p
			}
			outs[i].Runs = append(outs[i].Runs, g.Replay(&rp, tr, price))
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
	window simulate.Window
}

// NewGrid parses specs (DefaultGrid when empty), puts as-logged, the
// baseline, first if it is not, and replays at window.
func NewGrid(specs []string, window simulate.Window) (*Grid, error) {
	if len(specs) == 0 {
		specs = DefaultGrid
	}
	pols := make([]simulate.Policy, 0, len(specs)+1)
	al, err := simulate.Parse(simulate.AsLoggedName)
	if err != nil {
		return nil, fmt.Errorf("grid: %w", err)
	}
	pols = append(pols, al)
	seen := map[string]bool{al.Name(): true}
	for _, s := range specs {
		p, err := simulate.Parse(s)
		if err != nil {
			return nil, fmt.Errorf("grid: %w", err)
		}
		if !seen[p.Name()] {
			seen[p.Name()] = true
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
	// Priced: the run's model has a price, and each Outcome's costs are set
	Priced bool
	// Resolved is the task's outcome when known (runs.resolved)
	Resolved *bool
	Cands    []Outcome // in grid order
}

// Outcome is one candidate's replay of one run: what Decide needs of it.
type Outcome struct {
	Effective int64 // prompt + re-invocation + summarizer-input tokens
	Baseline  int64 // as-logged's prompt + summarizer-input tokens over the same calls
	KeepAll   int64 // keep-all's prompt tokens over the same calls (a reference)
	Saved     bool  // what ran loses the run, the candidate gets through (simulate.RunResult.Saved)
	Lost      bool  // the candidate loses a run what ran gets through
	// LostLogged: what ran loses the run (simulate.RunResult.BaselineOverflow)
	LostLogged bool
	Reinv      int // predicted re-invocations
	Calls      int // calls replayed
	Dropped    int // context-only manage_context calls the replay left out
	// Cost and BaselineCost are the candidate's and as-logged's cost with
	// prompt caching on the same calls in USD (simulate.Cost,
	// simulate.AsLoggedCost), when the run is priced (RunOutcome.Priced)
	Cost, BaselineCost float64

	// Loss is why what ran loses the run at the window
	// (simulate.RunResult.BaselineLoss; "" when it does not)
	Loss simulate.Loss
}

// Replay replays every candidate on tr at the grid's window, priced at
// price (its cache rule's, simulate.CacheModel.Price) unless nil.
func (g *Grid) Replay(rp *simulate.Replayer, tr *simulate.Trace, price *diagnose.Price) RunOutcome {
	out := RunOutcome{RunID: tr.RunID, Harness: tr.Harness, Priced: price != nil, Cands: make([]Outcome, len(g.pols))}
	for i, p := range g.pols {
		r := rp.Replay(tr, p, simulate.Options{Window: g.window})
		o := Outcome{Effective: r.PromptTokens + r.ReinvocationTok + r.SummarizerIn, Baseline: r.BaselineEffective(),
			KeepAll: r.KeepAllTokens, Saved: r.Saved, Lost: r.Lost, LostLogged: r.BaselineOverflow, Loss: r.BaselineLoss, Reinv: r.Reinvocations, Calls: r.Calls, Dropped: r.DroppedContextCalls}
		if price != nil {
			_, o.Cost = simulate.Cost(&r, *price)
			_, o.BaselineCost = simulate.AsLoggedCost(&r, *price)
		}
		out.Cands[i] = o
	}
	return out
}

// FamilyOutcomes is one family's runs, each replayed under the whole grid.
type FamilyOutcomes struct {
	Name string
	Runs []RunOutcome
}

// Decide chooses a policy for each family from its runs' outcomes under g
// (see the package doc): the training runs choose (Choose), the held-out
// runs check the choice (Choose again, on its held-out figures).
// Deterministic: families in the order given.
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
			harnesses[r.Harness] = true
			if heldOut(r.RunID, o.HoldoutEvery) {
				if o.TrainedOn[r.RunID] {
					leaked = append(leaked, r.RunID)
				}
				held = append(held, r)
			} else {
				train = append(train, r)
			}
		}
		res.Train, res.HeldOut = len(train), len(held)
		gates := Gates{MinRuns: o.MinTrain, MaxReinvPer100: o.MaxReinvPer100, Harnesses: harnesses, Family: fam.Name, AnyMechanism: o.AnyMechanism, Label: label}
		opts := make([]Option, len(pols))
		for ci, p := range pols {
			res.Candidates = append(res.Candidates, evaluate(train, ci, p.Name(), o))
			opts[ci] = res.Candidates[ci].Option
		}
		res.Choice = Choose(opts, gates)
		for _, ex := range res.Choice.Excluded {
			i := slices.IndexFunc(res.Candidates, func(c Candidate) bool { return c.Spec == ex.Spec })
			c := &res.Candidates[i]
			c.Rules, c.Whys, c.Rule, c.Why = ex.Rules, ex.Why, ex.Rules[0], ex.Why[0]
		}
		for i := range res.Candidates {
			res.Candidates[i].Eligible = res.Candidates[i].Rule == ""
		}
		if res.Train < o.MinTrain || res.HeldOut < o.MinHeldOut {
			res.Insufficient = true
			res.Need = need(res.Train, res.HeldOut, o)
			res.Why = fmt.Sprintf("insufficient evidence: %s (%d training, %d held out), need ≥ %d training and ≥ %d held-out: collect about %d more runs of %s",
				textfmt.CountOf(res.Runs, "run"), res.Train, res.HeldOut, o.MinTrain, o.MinHeldOut, res.Need, fam.Name)
			res.Reason = strings.SplitN(res.Why, ": collect", 2)[0]
			out = append(out, res)
			continue
		}
		best := max(res.Choice.Index, 0) // 0: as-logged
		res.Best = pols[best].Name()
		choice := best
		var heldChoice Choice
		if best > 0 {
			h := evaluate(held, best, pols[best].Name(), o).Option
			hg := gates
			hg.MinRuns = o.MinHeldOut
			heldChoice = Choose([]Option{h}, hg)
			cur := heldChoice.Currency
			f := h.objective(cur)
			m, lo, hi := 1-f.X, 1-f.Hi, 1-f.Lo
			r := h.ReinvPer100
			res.Currency, res.HeldOutFigures = cur, &h
			res.Saving, res.SavingLo, res.SavingHi, res.ReinvPer100, res.SavedRuns, res.LostRuns = &m, &lo, &hi, &r, h.Saved, h.Lost
			if heldChoice.Index < 0 {
				choice = 0
			}
		}
		res.Policy, res.Short, res.Mechanism = pols[choice].Name(), simulate.Short(pols[choice]), Mechanism(pols[choice].Name())
		res.Why, res.Reason = why(res, res.Candidates[best], heldChoice)
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

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// heldOut is the shared split (package internal/holdout): the runs tracer
// evaluates a model on are the runs held out here, so a model trained by
// trajmine train tracer at the same --holdout-every never saw them.
func heldOut(id string, every uint32) bool { return holdout.Held(id, every) }

// evaluate summarises candidate ci's outcomes on runs (see the package
// doc, step 3): each figure's CI is a run-level percentile bootstrap
// (stats.SumRatio, stats.PerUnitRatio) with o's resamples and seed.
func evaluate(runs []*RunOutcome, ci int, spec string, o Options) Candidate {
	c := Candidate{Option: Option{Spec: spec, Runs: len(runs)}}
	eff := make([]float64, 0, len(runs))
	x, y := make([]float64, 0, len(runs)), make([]float64, 0, len(runs))
	var cx, cy, sx, su, sy, sv []float64 // priced: costs; and with a known outcome: costs and solved
	var sk float64
	reinv := 0
	for _, run := range runs {
		r := run.Cands[ci]
		e := 1.0
		if r.Baseline > 0 {
			e = float64(r.Effective) / float64(r.Baseline)
		}
		eff = append(eff, e)
		x, y = append(x, float64(r.Effective)), append(y, float64(r.Baseline))
		sk += float64(r.KeepAll)
		c.TokensSaved += r.Baseline - r.Effective
		if r.Saved {
			c.Saved++
		}
		if r.Lost {
			c.Lost++
		}
		if r.LostLogged {
			c.LostLogged++
		}
		reinv += r.Reinv
		c.Calls += r.Calls
		c.DroppedContextCalls += r.Dropped
		if !run.Priced {
			continue
		}
		cx, cy = append(cx, r.Cost), append(cy, r.BaselineCost)
		if run.Resolved != nil {
			solved := b2f(*run.Resolved)
			sx, sy = append(sx, r.Cost), append(sy, r.BaselineCost)
			su, sv = append(su, solved*b2f(!r.Lost)), append(sv, solved)
		}
	}
	c.Priced = len(cx)
	c.MedianEff = stats.Median(eff)
	if math.IsNaN(c.MedianEff) {
		c.MedianEff = 1
	}
	c.Tokens = figure(stats.SumRatio(x, y, o.Bootstrap, 0.95, o.Seed))
	if len(cx) > 0 {
		c.Cost = figure(stats.SumRatio(cx, cy, o.Bootstrap, 0.95, o.Seed))
	}
	if slices.Contains(sv, 1) {
		f := figure(stats.PerUnitRatio(sx, su, sy, sv, o.Bootstrap, 0.95, o.Seed))
		c.PerSolved = &f
	}
	c.KeepAllEffRatio = 1
	if sk > 0 {
		c.KeepAllEffRatio = sum(x) / sk
	}
	if c.Calls > 0 {
		c.ReinvPer100 = 100 * float64(reinv) / float64(c.Calls)
	}
	return c
}

// figure is a ratio and its CI as a Figure; NaN (nothing to compare: no
// run, or what ran costs 0) is 1 with no spread, what ran's own figure.
func figure(r, lo, hi float64) Figure {
	if math.IsNaN(r) {
		return Figure{1, 1, 1}
	}
	if math.IsNaN(lo) || math.IsNaN(hi) {
		lo, hi = r, r
	}
	return Figure{r, lo, hi}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func sum(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}

// figures is an option's figures in words: "cost × 0.928 [0.880, 0.970],
// tokens × 0.539, 11 runs saved from overflow, 0.2 re-invocations per
// 100 calls".
func figures(o *Option, cur Currency) string {
	s := FigureText(cur, o.objective(cur))
	if cur != CurrencyTokens {
		s += ", tokens × " + textfmt.Ratio(o.Tokens.X)
	}
	if o.Saved > 0 {
		s += fmt.Sprintf(", %s saved from overflow", textfmt.CountOf(o.Saved, "run"))
	}
	if o.Lost > 0 {
		s += fmt.Sprintf(", %s lost", textfmt.CountOf(o.Lost, "run"))
	}
	s += fmt.Sprintf(", %.1f re-invocations per 100 calls", o.ReinvPer100)
	return s
}

// why is the one-line explanation of a result whose training choice is
// win, with held the held-out check's Choice (zero when there was none),
// and the reason no policy is recommended ("" when one is).
func why(r Result, win Candidate, held Choice) (string, string) {
	lab := ""
	if r.Label != "" {
		lab = fmt.Sprintf(" (manage_context behaviour: %s)", r.Label)
	}
	note := ""
	if r.Choice.Harness != "" && !strings.Contains(r.Choice.Reason, "API-level") {
		note = "; " + r.Choice.Harness
	}
	if r.Best == simulate.AsLoggedName || r.Best == "" {
		reason := fmt.Sprintf("on %s, %s", textfmt.CountOf(r.Train, "training run"), r.Choice.Reason)
		return "keep what ran (as-logged): " + reason + note + lab, reason
	}
	cur := r.Choice.Currency
	s := fmt.Sprintf("%s: %s on %s", ShortSpec(win.Spec), figures(&win.Option, cur), textfmt.CountOf(r.Train, "training run"))
	if win.DroppedContextCalls > 0 {
		s += fmt.Sprintf(" (replayed without the agent's %d context-only manage_context calls, its other actions held fixed)", win.DroppedContextCalls)
	}
	if h := r.HeldOutFigures; h != nil {
		s += fmt.Sprintf("; held out (%s): %s", textfmt.CountOf(r.HeldOut, "run"), figures(h, held.Currency))
	}
	if r.Policy == simulate.AsLoggedName {
		reason := "held out, " + strings.Join(heldReasons(held), "; ")
		return "keep what ran (as-logged): " + s + "; not recommended: " + reason + note + lab, reason
	}
	return s + note + lab, ""
}

// heldReasons are the held-out gates a choice failed, in words.
func heldReasons(c Choice) []string {
	if c.Rule == RuleEvidence {
		return []string{c.Reason}
	}
	if len(c.Excluded) == 0 {
		return []string{c.Reason}
	}
	return c.Excluded[0].Why
}

// Top returns up to n candidates of r for display: the training choice
// first, then the rest by their ratio in the choice's currency, then runs
// saved.
func Top(r Result, n int) []Candidate {
	cs := slices.Clone(r.Candidates)
	cur := r.Choice.Currency
	slices.SortStableFunc(cs, func(a, b Candidate) int {
		pa, pb := a.Spec == r.Best, b.Spec == r.Best
		if pa != pb {
			if pa {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(a.objective(cur).X, b.objective(cur).X), cmp.Compare(b.Saved, a.Saved))
	})
	return cs[:min(n, len(cs))]
}

// SortFamilies orders families by name (a stable input order for Recommend).
func SortFamilies(fams []Family) {
	slices.SortFunc(fams, func(a, b Family) int { return cmp.Compare(a.Name, b.Name) })
}
