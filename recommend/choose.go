package recommend

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/trajmine/trajmine/internal/textfmt"
	"github.com/trajmine/trajmine/simulate"
)

// Choose is the one decision trajmine makes (issue 27): recommend's
// training choice and its held-out check (Decide) call it, and the report's
// headline and page show what Decide returned, so the three say the same.
//
// It reads each candidate's figures against what ran on the same calls
// (Option) and:
//
//  1. Currency. The choice is made in cost per solved task where every
//     candidate has one (priced runs with a known outcome, runs.resolved,
//     one of them resolved: a replay cannot know whether a run would still
//     solve, so it keeps each run's outcome, and a run the candidate loses
//     counts as unsolved); else in cost with prompt caching (Σ USD over the
//     priced runs, Option.Cost); else, nothing priced, in prompt tokens
//     (Option.Tokens), said as such.
//  2. Evidence. With fewer than Gates.MinRuns runs nothing is chosen.
//  3. Gates, each candidate against every one in this order (Exclusion
//     keeps all it fails, the first is its rule):
//     harness (Runnable: every harness the runs used can be set to run
//     it; runs of a harness with no known settings only API-level
//     settings), behaviour (the model's own manage_context ops only for
//     "selective" families), lost (it loses no run what ran gets through),
//     re-invocations (at most Gates.MaxReinvPer100 per 100 calls), cost
//     (the upper end of its 95 % CI in the currency is below 1: strictly
//     cheaper than what ran; nothing else is presented as a saving).
//  4. Among the rest, the lowest ratio in the currency wins; ties (within
//     1e-12) go to more runs saved, then the lower effective ratio, then the
//     earlier candidate. None left: nothing is chosen (keep what ran), and
//     Choice.Reason says why: the count per rule and the closest miss (the
//     cheapest candidate the harness and behaviour gates let through, else
//     the cheapest) with its first reason.
//
// What ran (simulate.AsLoggedName) is the reference, never a candidate:
// Choose passes it over.
func Choose(opts []Option, g Gates) Choice {
	c := Choice{Index: -1, Currency: currencyOf(opts)}
	c.Harness = g.harnessNote()
	counts := map[string]int{}
	closest := -1
	for i := range opts {
		o := &opts[i]
		if o.Spec == simulate.AsLoggedName {
			continue
		}
		ex := g.exclusions(o, c.Currency)
		if len(ex.Rules) > 0 {
			c.Excluded = append(c.Excluded, ex)
			counts[ex.Rules[0]]++
			// the closest miss: the cheapest the family could run (first
			// rule past harness and behaviour), else the cheapest
			usable := func(ex Exclusion) bool { return ex.Rules[0] != RuleHarness && ex.Rules[0] != RuleBehaviour }
			if closest < 0 || usable(ex) && !usable(g.exclusions(&opts[closest], c.Currency)) ||
				usable(ex) == usable(g.exclusions(&opts[closest], c.Currency)) && o.objective(c.Currency).X < opts[closest].objective(c.Currency).X {
				closest = i
			}
			continue
		}
		if c.Index < 0 || better(o, &opts[c.Index], c.Currency) {
			c.Index = i
		}
	}
	runs := 0
	for i := range opts {
		runs = max(runs, opts[i].Runs)
	}
	if runs < g.MinRuns {
		c.Index, c.Rule = -1, RuleEvidence
		c.Reason = fmt.Sprintf("evidence: %s, a choice needs ≥ %d", textfmt.CountOf(runs, "run"), g.MinRuns)
		return c
	}
	if c.Index >= 0 {
		c.Policy = opts[c.Index].Spec
		return c
	}
	var parts []string
	for _, r := range ruleOrder {
		if n := counts[r]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d by %s", n, r))
		}
	}
	if len(parts) == 0 {
		c.Reason = "no candidate"
		return c
	}
	c.Rule = RuleNone
	c.Reason = "no candidate qualified (excluded: " + strings.Join(parts, ", ") + ")"
	if closest >= 0 {
		for _, ex := range c.Excluded {
			if ex.Spec == opts[closest].Spec {
				c.Reason += "; the closest, " + ShortSpec(ex.Spec) + ": " + ex.Why[0]
			}
		}
	}
	return c
}

// Currency is what a choice is made in (Choose, step 1).
type Currency string

// Currencies, best first.
const (
	CurrencyPerSolved Currency = "cost per solved task"
	CurrencyCost      Currency = "cost"
	CurrencyTokens    Currency = "tokens"
)

// Label is the currency as the figures print it: "cost ×", "cost per
// solved task ×", "tokens ×".
func (c Currency) Label() string { return string(c) + " ×" }

// Figure is a ratio against what ran on the same calls with its run-level
// percentile-bootstrap 95 % CI. A ratio with no finite value (no task
// solved under a policy) is +Inf, written null in JSON.
type Figure struct {
	X  float64 `json:"ratio"`
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// MarshalJSON writes a non-finite value as null (JSON has no Inf or NaN).
func (f Figure) MarshalJSON() ([]byte, error) {
	fin := func(v float64) *float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return &v
	}
	return json.Marshal(struct {
		X  *float64 `json:"ratio"`
		Lo *float64 `json:"lo"`
		Hi *float64 `json:"hi"`
	}{fin(f.X), fin(f.Lo), fin(f.Hi)})
}

// UnmarshalJSON reads what MarshalJSON writes (null as +Inf).
func (f *Figure) UnmarshalJSON(b []byte) error {
	var v struct{ X, Lo, Hi *float64 }
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	get := func(p *float64) float64 {
		if p == nil {
			return math.Inf(1)
		}
		return *p
	}
	f.X, f.Lo, f.Hi = get(v.X), get(v.Lo), get(v.Hi)
	return nil
}

// String is "0.928 [0.880, 0.970]" (FigureValue).
func (f Figure) String() string { return FigureValue(f) }

// FigureValue is a figure as every sentence and table prints it: the
// ratio and its CI by textfmt.RatioWithCI ("0.928 [0.880, <1.000]"), or
// "∞ (no task solved)".
func FigureValue(f Figure) string {
	if math.IsInf(f.X, 1) {
		return "∞ (no task solved)"
	}
	return textfmt.RatioWithCI(f.X, f.Lo, f.Hi)
}

// Option is one candidate's figures on a set of runs against what ran
// (as-logged) on the same calls: what Choose reads.
type Option struct {
	Spec string `json:"spec"`
	Runs int    `json:"runs"`
	// Priced are the runs with a price; Cost is over them:
	// Σ cost with prompt caching / Σ as-logged's (simulate.Cost).
	Priced int    `json:"priced_runs"`
	Cost   Figure `json:"cost"`
	// PerSolved is cost per solved task against what ran's, over the
	// priced runs with a known outcome: (Σ cost / the resolved runs it does
	// not lose) / (Σ as-logged cost / the resolved runs); nil when none of
	// them was resolved.
	PerSolved *Figure `json:"cost_per_solved,omitempty"`
	// Tokens is Σ effective tokens / Σ as-logged tokens (prompts +
	// re-invocations + summarizer input).
	Tokens      Figure  `json:"tokens"`
	TokensSaved int64   `json:"tokens_saved"` // Σ as-logged − Σ effective
	Saved       int     `json:"saved"`        // runs what ran loses that it gets through
	Lost        int     `json:"lost"`         // runs what ran gets through that it loses
	LostLogged  int     `json:"lost_under_what_ran"`
	ReinvPer100 float64 `json:"reinvocations_per_100_calls"`
	Calls       int     `json:"calls"`
	// DroppedContextCalls: the candidate replaces the agent's context
	// management, so the runs were replayed without their context-only
	// manage_context calls, this many (simulate.RunResult.DroppedContextCalls)
	DroppedContextCalls int `json:"dropped_context_calls"`
}

// objective is o's figure in currency c.
func (o *Option) objective(c Currency) Figure {
	switch c {
	case CurrencyPerSolved:
		if o.PerSolved != nil {
			return *o.PerSolved
		}
	case CurrencyCost:
		return o.Cost
	}
	return o.Tokens
}

// Objective is o's figure in currency c (Choose, step 1).
func (o Option) Objective(c Currency) Figure { return o.objective(c) }

// currencyOf is the currency opts can all be compared in (Choose, step 1).
func currencyOf(opts []Option) Currency {
	if len(opts) == 0 {
		return CurrencyTokens
	}
	if !slices.ContainsFunc(opts, func(o Option) bool { return o.PerSolved == nil }) {
		return CurrencyPerSolved
	}
	if !slices.ContainsFunc(opts, func(o Option) bool { return o.Priced == 0 }) {
		return CurrencyCost
	}
	return CurrencyTokens
}

// better: the lower ratio in the currency, then more runs saved, then the
// lower effective ratio (Option.Tokens; Choose, step 4).
func better(a, b *Option, c Currency) bool {
	x, y := a.objective(c).X, b.objective(c).X
	if math.Abs(x-y) > 1e-12 {
		return x < y
	}
	if a.Saved != b.Saved {
		return a.Saved > b.Saved
	}
	return a.Tokens.X < b.Tokens.X-1e-12
}

// Gates are what Choose checks a candidate against (Choose, steps 2–3).
type Gates struct {
	MinRuns        int     // evidence: runs the figures must rest on
	MaxReinvPer100 float64 // most predicted re-invocations per 100 calls
	// Harnesses are the harnesses (runs.harness) of the runs the choice is
	// for: a candidate must be runnable by each (Runnable).
	Harnesses map[string]bool
	Family    string // the model family (which API-level settings apply)
	// AnyMechanism lifts the harness gate but for another harness's own
	// mechanism (see Options.AnyMechanism).
	AnyMechanism bool
	Label        string // the family's behaviour label (Eligible)
}

// Exclusion is a candidate Choose did not choose and every gate it
// failed, in gate order: Rules[0] is the rule that excluded it.
type Exclusion struct {
	Spec  string   `json:"spec"`
	Rules []string `json:"rules"`
	Why   []string `json:"why"`
}

// Choice is what Choose decided.
type Choice struct {
	Policy   string      `json:"policy"` // the chosen spec; "" none: keep what ran
	Index    int         `json:"-"`      // its index in the options; -1 none
	Currency Currency    `json:"currency"`
	Excluded []Exclusion `json:"excluded"` // the others that failed a gate, in the options' order
	// Rule and Reason say why nothing was chosen: RuleEvidence (too few
	// runs) or RuleNone (every candidate excluded; Reason counts them per
	// rule and gives the cheapest one's first reason).
	Rule   string `json:"rule,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Harness is set when some runs' harness has no known settings: then
	// only API-level settings are offered, and it says which.
	Harness string `json:"harness_note,omitempty"`
}

// Why the others were not chosen, one line each: "mask: cost × 2.248
// [1.902, 2.601], not below what ran".
func (c Choice) Why() []string {
	out := make([]string, len(c.Excluded))
	for i, ex := range c.Excluded {
		out[i] = ShortSpec(ex.Spec) + ": " + strings.Join(ex.Why, "; ")
	}
	return out
}

// Exclusion rules (Candidate.Rule, Exclusion.Rules), in gate order.
const (
	RuleEvidence  = "evidence"
	RuleHarness   = "harness"
	RuleBehaviour = "behaviour"
	RuleLost      = "lost"
	RuleReinv     = "re-invocations"
	RuleCost      = "cost"
	RuleNone      = "none qualified" // Choice.Rule: every candidate excluded
)

var ruleOrder = []string{RuleHarness, RuleBehaviour, RuleLost, RuleReinv, RuleCost}

// exclusions are the gates o fails, in order (Choose, step 3).
func (g Gates) exclusions(o *Option, cur Currency) Exclusion {
	ex := Exclusion{Spec: o.Spec}
	add := func(rule, why string) {
		ex.Rules, ex.Why = append(ex.Rules, rule), append(ex.Why, why)
	}
	if ok, why := Runnable(o.Spec, g.Harnesses, g.Family, g.AnyMechanism); !ok {
		add(RuleHarness, why)
	}
	if !Eligible(Mechanism(o.Spec), g.Label) {
		add(RuleBehaviour, "the model's own manage_context ops are only recommended for selective families (label "+orUnknown(g.Label)+")")
	}
	if o.Lost > 0 {
		add(RuleLost, fmt.Sprintf("loses %s what ran gets through", textfmt.CountOf(o.Lost, "run")))
	}
	if o.ReinvPer100 > g.MaxReinvPer100 {
		add(RuleReinv, fmt.Sprintf("%.1f predicted re-invocations per 100 calls (limit %.1f)", o.ReinvPer100, g.MaxReinvPer100))
	}
	if f := o.objective(cur); !(f.Hi < 1) {
		add(RuleCost, FigureText(cur, f)+", not below what ran")
	}
	return ex
}

// FigureText is a figure with its currency: "cost × 0.928 [0.880, 0.970]",
// "tokens × 0.54 [0.50, 0.58] (no run priced)".
func FigureText(c Currency, f Figure) string {
	s := c.Label() + " " + f.String()
	if c == CurrencyTokens {
		s += " (no run priced)"
	}
	return s
}

// harnessNote says which runs' harness has no known settings and what is
// offered instead ("" when every harness is known).
func (g Gates) harnessNote() string {
	if g.AnyMechanism {
		return ""
	}
	var unknown []string
	for h := range g.Harnesses {
		if ConfigHarness(h) == "" {
			unknown = append(unknown, orUnknown(h))
		}
	}
	if len(unknown) == 0 {
		return ""
	}
	slices.Sort(unknown)
	return fmt.Sprintf("runs of %s only API-level settings are offered (%s)", strings.TrimSuffix(unknownHarnesses(unknown), ",")+":", strings.Join(APIHarnesses(g.Family), ", "))
}

// APIHarnesses are the settings a family's runs can be given where their
// harness has no known settings (an eval framework, your own loop calling
// the API): the Anthropic Messages API's context edits for Claude models,
// and DTOC's manage_context tool, which any loop can offer.
func APIHarnesses(family string) []string {
	if strings.HasPrefix(strings.ToLower(family), "claude") {
		return []string{"anthropic-api", "dtoc"}
	}
	return []string{"dtoc"}
}

// ShortSpec is a spec with its default parameters left out (simulate.Short).
func ShortSpec(spec string) string {
	if p, err := simulate.Parse(spec); err == nil {
		return simulate.Short(p)
	}
	return spec
}
