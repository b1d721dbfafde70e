package analysis

import (
	"fmt"
	"strings"

	"github.com/trajmine/trajmine/internal/textfmt"
	"github.com/trajmine/trajmine/recommend"
	"github.com/trajmine/trajmine/simulate"
)

// Headline is the report's answer in three plain sentences, the first
// thing trajmine report prints and the page shows: how many runs ended on
// window length (explicit in the log or inferred), what would have
// prevented it (the replay), and what to do next (the recommendation).
// Every figure is the Report's own, so the sentences agree with the tables
// under them:
//
//   - window ends: diagnose's verdict (diag_runs.end_reason);
//   - prevention: the comparison against as-logged at the report's window
//     (sim_runs: saved, lost, Σ tokens), the policy saving the most runs,
//     then the most tokens; at a --window below the windows runs ran at,
//     where some would have died, the window what-if (WindowVerdict);
//   - next: recommend's results per model family.
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
		how := fmt.Sprintf("%s said so in the log, %s inferred from the last turn", textfmt.Thousands(int64(v.Explicit)), textfmt.Thousands(int64(v.Inferred)))
		switch {
		case v.Inferred == 0:
			how = "each said so in the log"
		case v.Explicit == 0:
			how = "each inferred from its last turn (the log does not say)"
		}
		out = append(out, fmt.Sprintf("%s of %s (%s) ended on window length: %s.", textfmt.Thousands(int64(v.WindowEnds)), runsOf(v.Runs), textfmt.Pct(v.Share), how))
	}
	if s := reportWindowVerdict(rep); s != "" {
		out = append(out, s) // the window what-if (window.go) in place of prevention
	} else {
		out = append(out, preventionSentence(rep.Simulation.Comparison, v.WindowEnds))
	}
	out = append(out, nextSentence(rep.Recs, v.UnknownWindow))
	return out
}

// preventionSentence says what the replay shows: the policy that carries
// the most runs lost under what ran through (then saves the most tokens),
// or, when none was lost, the one that saves the most tokens without losing
// a run.
func preventionSentence(aggs []simulate.Agg, windowEnds int) string {
	rows := candidateRows(aggs)
	lostUnderLog := 0
	for _, a := range aggs {
		if a.Group == "" && a.Policy == simulate.AsLoggedName {
			lostUnderLog = a.BaselineOverflow
		}
	}
	if len(rows) == 0 {
		return "No policy was replayed."
	}
	short := func(a simulate.Agg) string {
		if p, err := simulate.Parse(a.Policy); err == nil {
			return simulate.Short(p)
		}
		return a.Policy
	}
	fewer := func(a simulate.Agg) string {
		s := fmt.Sprintf("%s of what ran's tokens [%s, %s]", textfmt.Pct(a.TotalRatio), textfmt.Pct(a.TotalLo), textfmt.Pct(a.TotalHi))
		if a.TotalHi >= 1 {
			s += ", a 95% CI that does not exclude no saving"
		}
		return s
	}
	if windowEnds > 0 || lostUnderLog > 0 {
		best := bestIndex(rows, true)
		if best < 0 {
			return fmt.Sprintf("Replayed on the same calls, no policy would have carried those runs through: their last calls do not fit even with the history shortened (%s lost under what ran at this window).", runsOf(lostUnderLog))
		}
		a := rows[best]
		lost := ""
		if a.Lost > 0 {
			lost = fmt.Sprintf(", losing %s what ran got through", runsOf(a.Lost))
		}
		return fmt.Sprintf("Replayed on the same calls, %s would have carried %s of the %s lost under what ran through%s, at %s.", short(a), textfmt.Thousands(int64(a.Saved)), runsOf(lostUnderLog), lost, fewer(a))
	}
	best := bestIndex(rows, false)
	if best < 0 {
		return fmt.Sprintf("No run needed saving, and no replayed policy uses fewer tokens than what ran without losing a run or predicting more than %d re-invocations per 100 calls.", recommend.DefaultMaxReinv)
	}
	a := rows[best]
	return fmt.Sprintf("No run needed saving; replayed on the same calls, %s would have used %s (%s tokens fewer), losing no run, with %.1f predicted re-invocations per 100 calls.",
		short(a), fewer(a), textfmt.Thousands(a.TokensSaved), a.ReinvPer100)
}

// nextSentence is what to do next: the recommended policies, or what
// evidence is missing, or a window to set.
func nextSentence(recs []recommend.Result, unknownWindow int) string {
	var do, thin []string
	kept := 0
	for _, r := range recs {
		switch {
		case r.Insufficient || r.Policy == "":
			thin = append(thin, r.Family)
		case recommend.PolicyFamily(r.Policy) == simulate.MechanismNone || recommend.PolicyFamily(r.Policy) == simulate.MechanismLogged:
			kept++
		default:
			do = append(do, fmt.Sprintf("%s for %s", r.Short, r.Family))
		}
	}
	var s string
	switch {
	case len(do) > 0:
		if len(do) > 3 {
			do = append(do[:3], fmt.Sprintf("%d more", len(do)-3))
		}
		s = "Next: use " + strings.Join(do, "; ") + " (trajmine recommend --config HARNESS prints the harness's own setting)"
	case len(recs) > 0 && len(thin) == len(recs):
		s = fmt.Sprintf("Next: collect more runs: no model family has the ≥ %d training and ≥ %d held-out runs a recommendation needs (trajmine recommend says how many each lacks)", recommend.DefaultMinTrain, recommend.DefaultMinHeldOut)
	case kept > 0:
		s = "Next: keep your current settings: no policy beat what ran on held-out runs (trajmine recommend shows the candidates)"
	default:
		s = "Next: import more runs (trajmine ingest)"
	}
	if len(thin) > 0 && len(thin) < len(recs) {
		s += fmt.Sprintf("; %d model famil%s short of runs", len(thin), map[bool]string{true: "y is", false: "ies are"}[len(thin) == 1])
	}
	if unknownWindow > 0 {
		s += fmt.Sprintf("; %s no known window: give one with --window N", map[bool]string{true: "1 run has", false: textfmt.Thousands(int64(unknownWindow)) + " runs have"}[unknownWindow == 1])
	}
	return s + "."
}

func runsOf(n int) string { return textfmt.CountOf(n, "run") }

// bestIndex is the policy the headline names among rows (one group and
// window, as-logged and keep-all left out), or -1: when runs were lost
// under what ran (saving), the one saving the most, then the most tokens;
// else, within recommend's limits (no run lost, at most
// recommend.DefaultMaxReinv re-invocations per 100 calls), the one saving
// the most tokens.
func bestIndex(rows []simulate.Agg, saving bool) int {
	best := -1
	for i, a := range rows {
		if saving {
			if a.Saved > 0 && (best < 0 || a.Saved > rows[best].Saved || a.Saved == rows[best].Saved && a.TokensSaved > rows[best].TokensSaved) {
				best = i
			}
			continue
		}
		if a.Lost == 0 && a.ReinvPer100 <= float64(recommend.DefaultMaxReinv) && a.TokensSaved > 0 && (best < 0 || a.TokensSaved > rows[best].TokensSaved) {
			best = i
		}
	}
	return best
}

// BestPolicy is the spec of the policy Headline names, "" when it names
// none: the page's best-policy card shows the same one.
func BestPolicy(rep *Report) string {
	rows := candidateRows(rep.Simulation.Comparison)
	lostUnderLog := 0
	for _, a := range rep.Simulation.Comparison {
		if a.Group == "" && a.Policy == simulate.AsLoggedName {
			lostUnderLog = a.BaselineOverflow
		}
	}
	i := bestIndex(rows, rep.Diagnosis.Verdict.WindowEnds > 0 || lostUnderLog > 0)
	if i < 0 {
		return ""
	}
	return rows[i].Policy
}

// candidateRows are the comparison's rows a headline may name: over all
// runs, neither the references (as-logged, keep-all) nor an oracle (an
// upper bound that knows which output a later call uses: no agent can run
// it).
func candidateRows(aggs []simulate.Agg) []simulate.Agg {
	var rows []simulate.Agg
	for _, a := range aggs {
		if a.Group == "" && a.Policy != simulate.AsLoggedName && a.Policy != "keep-all" && !strings.Contains(a.Policy, "oracle") {
			rows = append(rows, a)
		}
	}
	return rows
}
