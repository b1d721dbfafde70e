package analysis

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/trajmine/trajmine/internal/textfmt"
	"github.com/trajmine/trajmine/recommend"
	"github.com/trajmine/trajmine/simulate"
)

// Decision is what the report tells you to do: recommend's results per
// model family (recommend.Decide, which makes the one choice,
// recommend.Choose, on the training runs and checks it on the held-out
// runs), gathered for the headline, the page's best-policy card and
// trajmine recommend alike, so the three name the same policy, or the
// same none with the same reason (TestHeadlineRecommendPageAgree).
type Decision struct {
	// Named are the families with a policy to apply (Result.Recommended),
	// most runs first, then by name; Lead is the first, or nil.
	Named []recommend.Result
	Lead  *recommend.Result
	// Kept are the families with enough runs where what ran stays (their
	// Result.Reason says why); Thin those short of runs.
	Kept, Thin []recommend.Result
}

// Decide gathers recs into the report's Decision.
func Decide(recs []recommend.Result) Decision {
	var d Decision
	for _, r := range recs {
		switch {
		case r.Insufficient || r.Policy == "":
			d.Thin = append(d.Thin, r)
		case r.Recommended():
			d.Named = append(d.Named, r)
		default:
			d.Kept = append(d.Kept, r)
		}
	}
	byRuns := func(a, b recommend.Result) int {
		return cmp.Or(cmp.Compare(b.Runs, a.Runs), cmp.Compare(a.Family, b.Family))
	}
	slices.SortStableFunc(d.Named, byRuns)
	slices.SortStableFunc(d.Kept, byRuns)
	if len(d.Named) > 0 {
		d.Lead = &d.Named[0]
	}
	return d
}

// Policy is the spec of the policy the decision names first ("" none).
func (d Decision) Policy() string {
	if d.Lead == nil {
		return ""
	}
	return d.Lead.Policy
}

// Reason is why the decision names no policy ("" when it names one): the
// families' own reasons (recommend.Result.Reason), as the headline, the
// page's card and trajmine recommend state them.
func (d Decision) Reason() string {
	if d.Lead != nil {
		return ""
	}
	if len(d.Kept) == 0 {
		if len(d.Thin) == 0 {
			return "no run to choose on"
		}
		return fmt.Sprintf("no model family has the ≥ %d training and ≥ %d held-out runs a choice needs (evidence)", recommend.DefaultMinTrain, recommend.DefaultMinHeldOut)
	}
	var parts []string
	for i, r := range d.Kept {
		if i == 2 {
			parts = append(parts, fmt.Sprintf("%d more families likewise (trajmine recommend)", len(d.Kept)-2))
			break
		}
		parts = append(parts, fmt.Sprintf("for %s (%s), %s", r.Family, runsOf(r.Runs), r.Reason))
	}
	return strings.Join(parts, "; ")
}

// Headline is the report's answer in three plain sentences, the first
// thing trajmine report prints and the page shows: how many runs ended on
// window length (explicit in the log or inferred), what the decision is
// (the policy to apply and what it would have done on the runs it was
// checked on, or that there is none and why), and what to do next. Every
// figure is the Report's own, so the sentences agree with the tables
// under them:
//
//   - window ends: diagnose's verdict (diag_runs.end_reason);
//   - the decision: recommend's results (Decide): the lead family's
//     policy on its held-out runs, in the currency it was chosen in (cost
//     with prompt caching, per solved task where outcomes are known,
//     tokens where nothing is priced); when none is named, the reason,
//     and, where runs were lost on window length, how many replayed
//     policies carry them through over all runs and how many of those
//     cost less than what ran (simulate's comparison, sim_runs);
//     At a --window below the windows runs ran at, where some would have
//     died, the window what-if (WindowVerdict) takes this sentence's place;
//   - next: the recommended policies per family, or what is missing.
func Headline(rep *Report) []string {
	v := rep.Diagnosis.Verdict
	var out []string
	switch {
	case v.Runs == 0:
		return []string{"No run to report on."}
	case v.WindowEnds == 0 && v.Runs == 1:
		out = append(out, "The run did not end on window length.")
	case v.WindowEnds == 0:
		out = append(out, fmt.Sprintf("None of the %s ended on window length.", runsOf(v.Runs)))
	default:
		how := fmt.Sprintf("%s said so in the log, %s inferred from the last call", textfmt.Thousands(int64(v.Explicit)), textfmt.Thousands(int64(v.Inferred)))
		switch {
		case v.Inferred == 0:
			how = "each said so in the log"
		case v.Explicit == 0:
			how = "each inferred from its last call (the log does not say)"
		}
		out = append(out, fmt.Sprintf("%s of %s (%s) ended on window length: %s.", textfmt.Thousands(int64(v.WindowEnds)), runsOf(v.Runs), textfmt.Pct(v.Share), how))
	}
	d := Decide(rep.Recs)
	if s := reportWindowVerdict(rep); s != "" {
		out = append(out, s) // the window what-if (window.go) in place of the decision sentence
	} else {
		out = append(out, decisionSentence(d, rep.Simulation.Comparison, v.WindowEnds))
	}
	out = append(out, nextSentence(d, len(rep.Recs), v.UnknownWindow))
	return out
}

// decisionSentence says what the decision is: the lead family's policy
// with its held-out figures, or none and why.
func decisionSentence(d Decision, aggs []simulate.Agg, windowEnds int) string {
	r := d.Lead
	if r == nil {
		s := "No policy is named: " + d.Reason()
		if windowEnds > 0 {
			s += "; " + carriedText(aggs)
		}
		return s + "."
	}
	h := r.HeldOutFigures
	s := fmt.Sprintf("Replayed on the %s held out for %s, %s would have %s", runsOf(r.HeldOut), r.Family, r.Short, CostText(r.Currency, h.Objective(r.Currency)))
	if r.Currency != recommend.CurrencyTokens {
		s += ", and tokens × " + textfmt.Ratio(h.Tokens.X)
	}
	if h.LostLogged > 0 {
		s += fmt.Sprintf(", carrying through %s of the %s lost under what ran", textfmt.Thousands(int64(h.Saved)), runsOf(h.LostLogged))
	}
	s += fmt.Sprintf(", losing no run, with %.1f predicted re-invocations per 100 calls", h.ReinvPer100)
	if n := len(d.Named) - 1; n > 0 {
		s += fmt.Sprintf(" (and a policy for %s: next)", textfmt.Plural(n, "more family", "more families"))
	}
	return s + "."
}

// CostText is a held-out figure as the decision states it, a ratio
// against what ran with its 95 % CI as every table prints it
// (textfmt.RatioWithCI): "cost × 0.928 [0.880, 0.970] against what ran,
// with prompt caching", "cost per solved task × 0.850 [0.800, 0.900]
// against what ran (…)", "sent prompt tokens × 0.540 [0.500, 0.580]
// against what ran (no run priced)".
func CostText(c recommend.Currency, f recommend.Figure) string {
	x := recommend.FigureValue(f)
	switch c {
	case recommend.CurrencyPerSolved:
		return fmt.Sprintf("cost per solved task × %s against what ran, with prompt caching (a replay keeps each run's outcome; a run lost counts as unsolved)", x)
	case recommend.CurrencyCost:
		return fmt.Sprintf("cost × %s against what ran, with prompt caching", x)
	}
	return fmt.Sprintf("sent prompt tokens × %s against what ran (no run priced)", x)
}

// carriedText is what the replay over all runs shows when runs were lost
// under what ran: how many policies carry some through (simulate's
// comparison, references and oracles aside) and how many of those pass
// recommend's gates against what ran (recommend.Choose over their
// figures: no run lost, re-invocations within the limit, the upper end of
// the cost CI below 1). It names none: the decision is recommend's.
func carriedText(aggs []simulate.Agg) string {
	lost := 0
	var opts []recommend.Option
	for _, a := range aggs {
		if a.Group != "" {
			continue
		}
		if a.Policy == simulate.AsLoggedName {
			lost = a.BaselineOverflow
		}
		if a.Saved > 0 && a.Policy != simulate.AsLoggedName && a.Policy != "keep-all" && !strings.Contains(a.Policy, "oracle") {
			opts = append(opts, OptionOf(a))
		}
	}
	if len(opts) == 0 {
		return fmt.Sprintf("replayed on the same calls, no policy carries through any of the %s lost under what ran", runsOf(lost))
	}
	c := recommend.Choose(opts, recommend.Gates{MaxReinvPer100: recommend.DefaultMaxReinv})
	pass := len(opts) - len(c.Excluded)
	s := fmt.Sprintf("replayed on the same calls over all runs, %s through some of the %s lost under what ran", textfmt.Plural(len(opts), "policy carries", "policies carry"), runsOf(lost))
	limits := fmt.Sprintf(" without losing a run or passing %d re-invocations per 100 calls", recommend.DefaultMaxReinv)
	if pass == 0 {
		return s + ", but none of them " + cheaperText(c.Currency, true) + limits
	}
	return s + fmt.Sprintf(", %d of them %s%s (trajmine simulate ranks them)", pass, cheaperText(c.Currency, pass == 1), limits)
}

// cheaperText says "cost less than what ran" in currency c, singular
// when one: "costs less than what ran", "send fewer prompt tokens than
// what ran (no run priced)", with the test (the upper end of the 95 % CI
// below 1).
func cheaperText(c recommend.Currency, one bool) string {
	s := map[bool]string{true: "s", false: ""}[one]
	switch c {
	case recommend.CurrencyTokens:
		return "send" + s + " fewer prompt tokens than what ran (no run priced; the upper end of the 95% CI below 1)"
	case recommend.CurrencyPerSolved:
		return "cost" + s + " less per solved task than what ran (the upper end of the 95% CI below 1)"
	}
	return "cost" + s + " less than what ran (the upper end of the 95% CI below 1)"
}

// OptionOf is a comparison row's figures as recommend.Choose reads them:
// cost with caching (CostCachedRatio and its CI) over the priced runs,
// tokens (EffectiveRatio and its CI), runs saved and lost, re-invocations per
// 100 calls.
func OptionOf(a simulate.Agg) recommend.Option {
	return recommend.Option{Spec: a.Policy, Runs: a.Runs, Priced: a.Priced,
		Cost:   recommend.Figure{X: a.CostCachedRatio, Lo: a.CostCachedLo, Hi: a.CostCachedHi},
		Tokens: recommend.Figure{X: a.EffectiveRatio, Lo: a.EffectiveLo, Hi: a.EffectiveHi}, TokensSaved: a.TokensSaved,
		Saved: a.Saved, Lost: a.Lost, LostLogged: a.BaselineOverflow, ReinvPer100: a.ReinvPer100, Calls: a.Calls}
}

// nextSentence is what to do next: the recommended policies, or what
// evidence is missing, or a window to set.
func nextSentence(d Decision, families, unknownWindow int) string {
	var do []string
	for _, r := range d.Named {
		do = append(do, fmt.Sprintf("%s for %s%s", r.Short, r.Family, ApplyNote(r)))
	}
	var s string
	switch {
	case len(do) > 0:
		if len(do) > 3 {
			do = append(do[:3], fmt.Sprintf("%d more", len(do)-3))
		}
		s = "Next: use " + strings.Join(do, "; ") + " (trajmine recommend --config HARNESS prints the harness's own setting)"
	case families > 0 && len(d.Thin) == families:
		s = fmt.Sprintf("Next: collect more runs: no model family has the ≥ %d training and ≥ %d held-out runs a recommendation needs (trajmine recommend says how many each lacks)", recommend.DefaultMinTrain, recommend.DefaultMinHeldOut)
	case len(d.Kept) > 0:
		s = "Next: keep your current settings (trajmine recommend lists every candidate and why it was excluded)"
	default:
		s = "Next: import more runs (trajmine ingest)"
	}
	if len(d.Thin) > 0 && len(d.Thin) < families {
		s += "; " + textfmt.Plural(len(d.Thin), "model family is", "model families are") + " short of runs"
	}
	if unknownWindow > 0 {
		s += "; " + textfmt.Plural(unknownWindow, "run has", "runs have") + " no known window: give one with --window N"
	}
	return s + "."
}

// ApplyNote is what applying r's policy takes beyond its setting, in
// parentheses ("" when nothing): removing the agent's manage_context tool
// when the replay dropped its calls, and API-level settings when some of
// the family's runs come from a harness with no known settings.
func ApplyNote(r recommend.Result) string {
	if !r.Recommended() {
		return ""
	}
	var notes []string
	if DropsManageContext(r) {
		notes = append(notes, "remove the agent's manage_context tool")
	}
	if r.Choice.Harness != "" && r.Mechanism != simulate.MechanismNone { // keep-all needs no setting in a loop of your own
		notes = append(notes, "API-level: "+strings.Join(recommend.APIHarnesses(r.Family), ", "))
	}
	if len(notes) == 0 {
		return ""
	}
	return " (" + strings.Join(notes, "; ") + ")"
}

// DropsManageContext reports whether r's recommended policy was replayed
// without the agent's context-only manage_context calls (on the training
// or the held-out runs): applying it means removing the tool, as the
// --config snippet says.
func DropsManageContext(r recommend.Result) bool {
	if !r.Recommended() {
		return false
	}
	if h := r.HeldOutFigures; h != nil && h.DroppedContextCalls > 0 {
		return true
	}
	for _, c := range r.Candidates {
		if c.Spec == r.Policy {
			return c.DroppedContextCalls > 0
		}
	}
	return false
}

func runsOf(n int) string { return textfmt.CountOf(n, "run") }

// BestPolicy is the spec of the policy the decision names first (the
// headline's and the best-policy card's), "" when it names none.
func BestPolicy(rep *Report) string { return Decide(rep.Recs).Policy() }
