// Package recommend chooses a context policy per model family by replaying
// that family's logged runs under candidate policies (package simulate),
// checked on runs it did not choose on.
//
// For each family the runs are split deterministically into a training
// part and a held-out part: a run is held out when FNV-1a(run id) mod
// HoldoutEvery is 0 (default every 4th, so ~25 %); families with fewer than
// MinRuns runs are not split (the result says so and gives no held-out
// figures). On the training runs every candidate is replayed at each run's
// window, and a candidate is eligible when
//
//   - it loses no run to overflow that keep-all gets through (Lost = 0),
//   - its predicted re-invocations stay within MaxReinvPer100 per 100
//     replayed calls,
//   - it is allowed by the family's behaviour label (see Eligible): the
//     model's own manage_context ops (policies dtoc*) are only candidates for
//     families labelled "selective".
//
// Among eligible candidates the one that saves the most runs from overflow
// wins, then the one with the lowest token-weighted effective ratio
//
//	ratio     = Σ effective tokens / Σ keep-all tokens (over runs, same calls)
//	effective = prompt tokens + re-invocation tokens + summarizer input
//
// (what the family's runs would cost in prompt tokens, against keep-all),
// and the simpler (earlier in the grid) on ties. Keep-all is always eligible,
// so a family whose runs no policy improves gets keep-all. The winner is
// then replayed on the held-out runs, which give the expected saving
// (1 − ratio) with a percentile-bootstrap 95 % CI over runs, the
// re-invocation rate and the runs saved.
package recommend

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strings"

	"github.com/trajmine/trajmine/internal/stats"
	"github.com/trajmine/trajmine/simulate"
)

// Options configures Recommend. Zero values take the documented defaults.
type Options struct {
	Grid           []string // candidate specs (default DefaultGrid)
	HoldoutEvery   uint32   // hold out runs with FNV-1a(id) % HoldoutEvery == 0 (default 4)
	MinRuns        int      // fewer runs in a family: no split (default 8)
	MaxReinvPer100 float64  // eligibility bound on predicted re-invocations per 100 calls (default 2)
	Window         int64    // replay window for every run; 0 = each run's own
	Bootstrap      int      // CI resamples (default 1000)
	Seed           uint64   // bootstrap seed (default 1)
	// Label returns a family's behaviour label (behavior's classifier:
	// selective, shallow, never, thrasher, or "" when unknown).
	Label func(family string) string
}

// DefaultGrid is the candidate set: keep-all, the model's own manage_context
// ops, and parameter grids of the mechanical policies.
var DefaultGrid = []string{
	"keep-all",
	"dtoc", "dtoc-disable-only",
	"mask(n=5)", "mask(n=10)", "mask(n=20)",
	"halflife(activate=0.5,keep=4,cap=8000)", "halflife(activate=0.5,keep=4,cap=2000)", "halflife(activate=0.3,keep=8,cap=4000)",
	"clear-tool-uses(trigger=30000,keep=3)", "clear-tool-uses(trigger=60000,keep=5)", "clear-tool-uses",
	"gemini-mask",
	"tracer-uniform(r=0.5)", "tracer-uniform(r=0.3)", "tracer-tooltype",
	"compact-claude-code", "compact-openhands",
}

// Family is one model family's runs.
type Family struct {
	Name   string
	Traces []*simulate.Trace
}

// Candidate is one candidate's replay on a family's training runs.
type Candidate struct {
	Spec        string  `json:"spec"`
	Eligible    bool    `json:"eligible"`
	Why         string  `json:"why,omitempty"`          // why not eligible
	Ratio       float64 `json:"effective_ratio"`        // Σ effective / Σ keep-all
	MedianEff   float64 `json:"median_effective_ratio"` // median over runs
	Saved       int     `json:"saved"`
	Lost        int     `json:"lost"`
	ReinvPer100 float64 `json:"reinvocations_per_100_calls"`
	Calls       int     `json:"calls"`
}

// Result is the recommendation for one family.
type Result struct {
	Family   string `json:"model_family"`
	Label    string `json:"behaviour_label,omitempty"`
	Runs     int    `json:"runs"`
	Train    int    `json:"train_runs"`
	HeldOut  int    `json:"held_out_runs"`
	Policy   string `json:"policy"`       // canonical spec
	Short    string `json:"policy_short"` // spec with non-default parameters only
	PolicyOf string `json:"policy_family"`
	// held-out figures (nil when the family was too small to split)
	Saving      *float64 `json:"expected_saving"`
	SavingLo    *float64 `json:"expected_saving_lo"`
	SavingHi    *float64 `json:"expected_saving_hi"`
	ReinvPer100 *float64 `json:"held_out_reinvocations_per_100_calls"`
	SavedRuns   int      `json:"held_out_saved_runs"`
	// Why explains the choice in one line.
	Why        string      `json:"why"`
	Candidates []Candidate `json:"candidates"`
}

// PolicyFamily is the mechanism of the policy spec names, read from the
// catalog (simulate.Def.Mechanism: dtoc, masking, truncation, compaction,
// none), or "other" for a name the catalog does not have.
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
	if policyFamily == "dtoc" {
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
	return Decide(outs, g, o)
}

// Grid is the parsed candidate set (keep-all first) and the replay window.
type Grid struct {
	pols   []simulate.Policy
	window int64
}

// NewGrid parses specs (DefaultGrid when empty), puts keep-all first if it
// is not, and replays at window (0 = each run's own).
func NewGrid(specs []string, window int64) (*Grid, error) {
	if len(specs) == 0 {
		specs = DefaultGrid
	}
	pols := make([]simulate.Policy, len(specs))
	for i, s := range specs {
		p, err := simulate.Parse(s)
		if err != nil {
			return nil, fmt.Errorf("grid: %w", err)
		}
		pols[i] = p
	}
	if pols[0].Name() != "keep-all" {
		ka, _ := simulate.Parse("keep-all")
		pols = append([]simulate.Policy{ka}, pols...)
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
	RunID string
	Cands []Outcome // in grid order
}

// Outcome is one candidate's replay of one run: what Decide needs of it.
type Outcome struct {
	Effective int64 // prompt + re-invocation + summarizer-input tokens
	KeepAll   int64 // keep-all's prompt tokens over the same calls
	Saved     bool  // keep-all overflows, the candidate does not
	Lost      bool  // the candidate overflows, keep-all does not
	Reinv     int   // predicted re-invocations
	Calls     int   // calls replayed
}

// Replay replays every candidate on tr at the grid's window.
func (g *Grid) Replay(rp *simulate.Replayer, tr *simulate.Trace) RunOutcome {
	out := RunOutcome{RunID: tr.RunID, Cands: make([]Outcome, len(g.pols))}
	for i, p := range g.pols {
		r := rp.Replay(tr, p, simulate.Options{Window: g.window})
		ko := r.KeepAllOverflowAt >= 0
		over := r.Status == simulate.Overflow
		out.Cands[i] = Outcome{Effective: r.PromptTokens + r.ReinvocationTok + r.SummarizerIn, KeepAll: r.KeepAllTokens,
			Saved: ko && !over, Lost: !ko && over, Reinv: r.Reinvocations, Calls: r.Calls}
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
	if o.HoldoutEvery == 0 {
		o.HoldoutEvery = 4
	}
	if o.MinRuns == 0 {
		o.MinRuns = 8
	}
	if o.MaxReinvPer100 == 0 {
		o.MaxReinvPer100 = 2
	}
	if o.Bootstrap == 0 {
		o.Bootstrap = 1000
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	pols := g.pols
	var out []Result
	for _, fam := range fams {
		label := ""
		if o.Label != nil {
			label = o.Label(fam.Name)
		}
		res := Result{Family: fam.Name, Label: label, Runs: len(fam.Runs)}
		var train, held []*RunOutcome
		split := len(fam.Runs) >= o.MinRuns
		for i := range fam.Runs {
			r := &fam.Runs[i]
			if len(r.Cands) != len(pols) {
				return nil, fmt.Errorf("decide: run %s has %d outcomes for %d candidates", r.RunID, len(r.Cands), len(pols))
			}
			if split && heldOut(r.RunID, o.HoldoutEvery) {
				held = append(held, r)
			} else {
				train = append(train, r)
			}
		}
		if split && (len(held) == 0 || len(train) == 0) {
			train, held, split = train[:0], nil, false
			for i := range fam.Runs {
				train = append(train, &fam.Runs[i])
			}
		}
		res.Train, res.HeldOut = len(train), len(held)
		best := -1
		for ci, p := range pols {
			c := evaluate(train, ci, p.Name())
			pf := PolicyFamily(p.Name())
			switch {
			case c.Lost > 0:
				c.Why = fmt.Sprintf("loses %s keep-all gets through", runs(c.Lost, "run"))
			case c.ReinvPer100 > o.MaxReinvPer100:
				c.Why = fmt.Sprintf("%.1f predicted re-invocations per 100 calls (limit %.1f)", c.ReinvPer100, o.MaxReinvPer100)
			case !Eligible(pf, label):
				c.Why = "the model's own manage_context ops are only recommended for selective families (label " + orUnknown(label) + ")"
			default:
				c.Eligible = true
			}
			res.Candidates = append(res.Candidates, c)
			if c.Eligible && (best < 0 || better(c, res.Candidates[best])) {
				best = ci
			}
		}
		win := res.Candidates[best]
		res.Policy, res.Short, res.PolicyOf = pols[best].Name(), simulate.Short(pols[best]), PolicyFamily(pols[best].Name())
		if split {
			eff, ka, reinv, calls, saved := heldOutFigures(held, best)
			ratio, lo, hi := stats.SumRatio(eff, ka, o.Bootstrap, 0.95, o.Seed)
			if math.IsNaN(ratio) {
				ratio, lo, hi = 1, 1, 1
			}
			m := 1 - ratio
			lo, hi = 1-hi, 1-lo
			r := 0.0
			if calls > 0 {
				r = 100 * float64(reinv) / float64(calls)
			}
			res.Saving, res.SavingLo, res.SavingHi, res.ReinvPer100, res.SavedRuns = &m, &lo, &hi, &r, saved
		}
		res.Why = why(res, win)
		out = append(out, res)
	}
	return out, nil
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// better: more runs saved, then a lower median effective ratio.
func better(a, b Candidate) bool {
	if a.Saved != b.Saved {
		return a.Saved > b.Saved
	}
	return a.Ratio < b.Ratio-1e-12
}

func heldOut(id string, every uint32) bool {
	h := fnv.New32a()
	h.Write([]byte(id))
	return h.Sum32()%every == 0
}

// evaluate summarises candidate ci's outcomes on runs as a Candidate.
func evaluate(runs []*RunOutcome, ci int, spec string) Candidate {
	c := Candidate{Spec: spec}
	eff := make([]float64, 0, len(runs))
	var se, sk float64
	reinv := 0
	for _, run := range runs {
		r := run.Cands[ci]
		e := 1.0
		if r.KeepAll > 0 {
			e = float64(r.Effective) / float64(r.KeepAll)
		}
		eff = append(eff, e)
		se += float64(r.Effective)
		sk += float64(r.KeepAll)
		if r.Saved {
			c.Saved++
		}
		if r.Lost {
			c.Lost++
		}
		reinv += r.Reinv
		c.Calls += r.Calls
	}
	c.MedianEff = stats.Median(eff)
	if math.IsNaN(c.MedianEff) {
		c.MedianEff = 1
	}
	c.Ratio = 1
	if sk > 0 {
		c.Ratio = se / sk
	}
	if c.Calls > 0 {
		c.ReinvPer100 = 100 * float64(reinv) / float64(c.Calls)
	}
	return c
}

func heldOutFigures(runs []*RunOutcome, ci int) (eff, ka []float64, reinv, calls, saved int) {
	for _, run := range runs {
		r := run.Cands[ci]
		eff = append(eff, float64(r.Effective))
		ka = append(ka, float64(r.KeepAll))
		reinv += r.Reinv
		calls += r.Calls
		if r.Saved {
			saved++
		}
	}
	return eff, ka, reinv, calls, saved
}

// runs is n with its noun, plural unless n is 1: "1 run", "3 training runs".
func runs(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// why is the one-line explanation of a result.
func why(r Result, win Candidate) string {
	lab := ""
	if r.Label != "" {
		lab = fmt.Sprintf(" (manage_context behaviour: %s)", r.Label)
	}
	if r.PolicyOf == "none" {
		return fmt.Sprintf("keep-all: no eligible policy beat it on %s%s", runs(r.Train, "training run"), lab)
	}
	s := fmt.Sprintf("%s: %.1f%% of keep-all's prompt tokens (re-invocations and summaries included) on %s", r.Short, 100*win.Ratio, runs(r.Train, "training run"))
	if win.Saved > 0 {
		s += fmt.Sprintf(", %s saved from overflow", runs(win.Saved, "run"))
	}
	s += fmt.Sprintf(", %.1f re-invocations per 100 calls", win.ReinvPer100)
	if r.Saving != nil {
		s += fmt.Sprintf("; held out (%s): saves %.1f%% [%.1f%%, %.1f%%]", runs(r.HeldOut, "run"), 100**r.Saving, 100**r.SavingLo, 100**r.SavingHi)
	} else {
		s += "; too few runs to hold any out"
	}
	return s + lab
}

// SortFamilies orders families by name (a stable input order for Recommend).
func SortFamilies(fams []Family) {
	slices.SortFunc(fams, func(a, b Family) int { return cmp.Compare(a.Name, b.Name) })
}
