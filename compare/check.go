package compare

import (
	"fmt"
	"math"
	"strings"

	"github.com/trajmine/trajmine/internal/stats"
)

// The simulator check (issue 28.3): when a group and the reference differ
// by a context mechanism the simulator replays, the runs of one side are
// replayed so that the replay predicts the group's change against the
// reference, and the prediction is set beside the observed change.
//
//   - Detected (Plans with replay ""): a mechanism — manage_context calls
//     (DTOC), logged compactions, logged maskings — that one side has (at
//     least half its runs) and the other has not (no run). The runs of the
//     side that has it are replayed without it, under keep-all (which also
//     drops the agent's manage_context calls, simulate.Trace
//     .WithoutContextCalls): the simulator's estimate of those very runs
//     had the mechanism been off. The prediction of the group over the
//     reference is Σ as-logged / Σ keep-all − 1 when the group has the
//     mechanism, Σ keep-all / Σ as-logged − 1 when the reference has it.
//     The agent's decisions are in the logs, so this direction needs no
//     guess of the policy a harness ran.
//   - Given (--replay SPEC): the reference's runs are replayed under SPEC
//     (a compaction threshold, masking, dtoc-oracle …): the prediction is
//     Σ policy / Σ as-logged − 1.
//
// Tokens are the replay's effective prompt tokens (prompts + predicted
// re-invocations + summarizer input, simulate.Row.EffectiveTokens; the
// as-logged side: prompts + its summarizer input), cost the replay's cost
// with prompt caching (simulate.Cost, AsLoggedCost), each summed over the
// replayed runs — those in the comparison's pairs, or every run of the
// side when it has no pair — with a run-level bootstrap CI (stats.SumRatio,
// the comparison's B and seed). The observed change is the comparison's
// row over every model: input tokens and cost. They agree when their 95 %
// intervals overlap; where they do not, the agents did something the
// replay holds fixed (their other actions, their number of steps), and the
// check says how the steps changed.

// Plan is one replay the check needs: which runs, under which policy.
type Plan struct {
	Group     string `json:"group"`
	Reference string `json:"reference"`
	Policy    string `json:"policy"`    // the policy spec replayed
	Mechanism string `json:"mechanism"` // manage_context, compaction, masking (joined by "+"), or "--replay"
	// Replayed is the group whose runs are replayed; Invert: the prediction
	// is Σ as-logged / Σ policy (the replayed runs are the group's, replayed
	// without the mechanism they ran with).
	Replayed string   `json:"replayed"`
	Invert   bool     `json:"invert"`
	RunIDs   []string `json:"run_ids"`
	Reason   string   `json:"reason"`
}

// Replay is one replayed run's totals: the policy's and the as-logged
// baseline's effective tokens and costs with caching (nil: not priced).
type Replay struct {
	Policy, AsLogged         float64
	PolicyCost, AsLoggedCost *float64
}

// Check is the simulator's prediction of one comparison's change beside
// the observed one.
type Check struct {
	Plan
	Runs   int    `json:"runs_replayed"`
	Tokens Figure `json:"input_tokens"`
	Cost   Figure `json:"cost"`
	// Steps is the observed change in steps (model calls), which the
	// replay holds fixed.
	Steps    Metric `json:"observed_steps"`
	Sentence string `json:"sentence"`
}

// Figure is one predicted and observed change.
type Figure struct {
	N         int     `json:"runs"` // replayed runs with the figure
	Predicted float64 `json:"predicted"`
	PLo       float64 `json:"predicted_lo"`
	PHi       float64 `json:"predicted_hi"`
	Observed  float64 `json:"observed"`
	OLo       float64 `json:"observed_lo"`
	OHi       float64 `json:"observed_hi"`
	// Verdict: agree (the intervals overlap), disagree, unknown (a side
	// has no interval).
	Verdict string `json:"verdict"`
}

// Check verdicts.
const (
	Agree    = "agree"
	Disagree = "disagree"
	Unknown  = "unknown"
)

// hasMech says whether most of a group's runs (at least half) have the
// mechanism, and whether none does.
func hasMech(n, runs int) (most, none bool) { return runs > 0 && 2*n >= runs, n == 0 }

// overall is the comparison's row over every model (its only row when
// there is one model).
func (c *Comparison) overall() *Row {
	if len(c.Rows) == 0 {
		return nil
	}
	return &c.Rows[len(c.Rows)-1]
}

// Plans returns the replays the simulator check needs, one per comparison
// that a mechanism separates (or every comparison, with replay given), and
// a note for the comparisons it leaves unchecked.
func (r *Result) Plans(replay string) ([]Plan, []string) {
	var plans []Plan
	// notes: one per reason, naming the comparisons it holds for
	var reasons []string
	who := map[string][]string{}
	note := func(c *Comparison, reason string) {
		if _, ok := who[reason]; !ok {
			reasons = append(reasons, reason)
		}
		who[reason] = append(who[reason], c.Group+" vs "+c.Reference)
	}
	info := map[string]GroupInfo{}
	for _, g := range r.Groups {
		info[g.Name] = g
	}
	for i := range r.Comparisons {
		c := &r.Comparisons[i]
		row := c.overall()
		if row == nil {
			continue
		}
		p := Plan{Group: c.Group, Reference: c.Reference}
		switch {
		case replay != "":
			p.Policy, p.Mechanism, p.Replayed = replay, "--replay", c.Reference
			p.Reason = fmt.Sprintf("the %s runs replayed under %s (--replay)", c.Reference, replay)
		case r.By == ByModel || r.By == ByHarness:
			note(c, fmt.Sprintf("the groups are %ss, and the simulator replays context policies, not %ss (--replay SPEC replays the reference's runs under a policy)", r.By, r.By))
			continue
		case row.Unpaired:
			note(c, "no shared task: the observed difference mixes the tasks with the condition (--replay SPEC forces a check)")
			continue
		default:
			g, ref := info[c.Group], info[c.Reference]
			var inG, inRef []string
			for _, m := range []struct {
				name   string
				gn, rn int
			}{{"manage_context", g.ManageContext, ref.ManageContext}, {"compaction", g.Compactions, ref.Compactions}, {"masking", g.Maskings, ref.Maskings}} {
				gMost, gNone := hasMech(m.gn, g.Runs)
				rMost, rNone := hasMech(m.rn, ref.Runs)
				switch {
				case gMost && rNone:
					inG = append(inG, m.name)
				case rMost && gNone:
					inRef = append(inRef, m.name)
				}
			}
			switch {
			case len(inG) > 0 && len(inRef) > 0:
				note(c, fmt.Sprintf("the groups differ by mechanisms on both sides (%s in %s; %s in %s): no one replay predicts the change (--replay SPEC replays the reference's runs under a policy)",
					strings.Join(inG, "+"), c.Group, strings.Join(inRef, "+"), c.Reference))
				continue
			case len(inG) > 0:
				p.Policy, p.Mechanism, p.Replayed, p.Invert = "keep-all", strings.Join(inG, "+"), c.Group, true
			case len(inRef) > 0:
				p.Policy, p.Mechanism, p.Replayed = "keep-all", strings.Join(inRef, "+"), c.Reference
			default:
				note(c, "no replayable context policy separates the groups (neither calls manage_context, compacts or masks where the other does not; --replay SPEC replays the reference's runs under a policy)")
				continue
			}
			p.Reason = fmt.Sprintf("the %s runs (%s) replayed without it (keep-all)", p.Replayed, p.Mechanism)
		}
		side := 0
		if p.Replayed == c.Reference {
			side = 1
		}
		if row.Unpaired {
			for _, run := range row.sides[side] {
				p.RunIDs = append(p.RunIDs, run.ID)
			}
		} else {
			for _, pr := range row.pairs {
				if side == 0 {
					p.RunIDs = append(p.RunIDs, pr.g.ID)
				} else {
					p.RunIDs = append(p.RunIDs, pr.r.ID)
				}
			}
		}
		plans = append(plans, p)
	}
	var notes []string
	for _, reason := range reasons {
		notes = append(notes, strings.Join(who[reason], ", ")+": "+reason)
	}
	return plans, notes
}

// SetCheck computes each plan's check from the replays (by run id) and
// stores it in r.Check (notes, when no plan was made, in r.CheckNote).
func (r *Result) SetCheck(plans []Plan, notes []string, replays map[string]Replay) {
	r.Check = nil
	r.CheckNote = strings.Join(notes, "; ")
	o := Options{B: r.Rules.B, Seed: r.Rules.Seed, Level: r.Rules.Level, Alpha: r.Rules.Alpha, MinDiscordant: r.Rules.MinDiscordant, MinPairs: r.Rules.MinPairs}
	for _, p := range plans {
		var c *Comparison
		for i := range r.Comparisons {
			if r.Comparisons[i].Group == p.Group && r.Comparisons[i].Reference == p.Reference {
				c = &r.Comparisons[i]
			}
		}
		if c == nil {
			continue
		}
		row := c.overall()
		ck := Check{Plan: p}
		var tp, ta, cp, ca []float64
		for _, id := range p.RunIDs {
			rp, ok := replays[id]
			if !ok {
				continue
			}
			ck.Runs++
			tp, ta = append(tp, rp.Policy), append(ta, rp.AsLogged)
			if rp.PolicyCost != nil && rp.AsLoggedCost != nil {
				cp, ca = append(cp, *rp.PolicyCost), append(ca, *rp.AsLoggedCost)
			}
		}
		ck.Tokens = figure(tp, ta, p.Invert, row.Metric("input tokens"), &o)
		ck.Cost = figure(cp, ca, p.Invert, row.Metric("cost"), &o)
		ck.Steps = row.Metric("steps")
		ck.Sentence = checkSentence(&ck)
		r.Check = append(r.Check, ck)
	}
}

// figure is the predicted change Σpolicy/Σas-logged − 1 (inverted:
// Σas-logged/Σpolicy − 1) with its run-bootstrap CI, beside the observed.
func figure(pol, al []float64, invert bool, obs Metric, o *Options) Figure {
	f := Figure{N: len(pol), Observed: obs.Change, OLo: obs.Lo, OHi: obs.Hi}
	x, y := pol, al
	if invert {
		x, y = al, pol
	}
	r, lo, hi := stats.SumRatio(x, y, o.B, o.Level, o.Seed)
	f.Predicted, f.PLo, f.PHi = r-1, lo-1, hi-1
	f.Verdict = Unknown
	if len(pol) >= 2 && finite(f.PLo, f.PHi, f.OLo, f.OHi) {
		f.Verdict = Disagree
		if f.PLo <= f.OHi && f.OLo <= f.PHi {
			f.Verdict = Agree
		}
	}
	return f
}

func finite(v ...float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

func checkSentence(c *Check) string {
	var b strings.Builder
	fmt.Fprintf(&b, "simulator check, %s vs %s: %s (%d %s)", c.Group, c.Reference, c.Reason, c.Runs, plural(c.Runs, "run", "runs"))
	for _, f := range []struct {
		name string
		fig  Figure
	}{{"input tokens", c.Tokens}, {"cost", c.Cost}} {
		fig := f.fig
		if fig.N == 0 {
			fmt.Fprintf(&b, "; %s: not replayed (no priced run)", f.name)
			continue
		}
		fmt.Fprintf(&b, "; %s predicted %s %s, observed %s %s: ", f.name, SignedPct(fig.Predicted), ChangeCI(fig.PLo, fig.PHi), SignedPct(fig.Observed), ChangeCI(fig.OLo, fig.OHi))
		switch fig.Verdict {
		case Agree:
			b.WriteString("agree (the 95% intervals overlap)")
		case Disagree:
			b.WriteString("disagree (the 95% intervals do not overlap)")
		default:
			b.WriteString("cannot tell (an interval is missing: too few runs)")
		}
	}
	if c.Tokens.Verdict == Disagree || c.Cost.Verdict == Disagree {
		fmt.Fprintf(&b, "; the replay holds the agents' actions fixed, and the observed steps changed %s %s", SignedPct(c.Steps.Change), ChangeCI(c.Steps.Lo, c.Steps.Hi))
	}
	b.WriteString(".")
	return b.String()
}
