package tracer

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/internal/holdout"
	"github.com/trajmine/trajmine/internal/stats"
	"github.com/trajmine/trajmine/simulate"
)

// Split divides traces by run into training and held-out runs by the
// split trajmine recommend uses (internal/holdout): a run is held out when
// FNV-1a-32(run id) mod every is 0 (every 0 holds out none), so the runs
// recommend --model holds out at the same every are never trained on. The
// hash spreads each model family's runs, about 1/every of each held out in
// expectation (not exactly: a family of a few runs may have none held out).
// Both halves keep the input order.
func Split(traces []*simulate.Trace, every uint32) (train, held []*simulate.Trace) {
	for _, tr := range traces {
		if holdout.Held(tr.RunID, every) {
			held = append(held, tr)
		} else {
			train = append(train, tr)
		}
	}
	return train, held
}

// EvalOptions configures Evaluate.
type EvalOptions struct {
	Window  simulate.Window // as Options.Window
	Reserve int64
	Seed    uint64 // bootstrap and attribution sampling
	// Attribution is the number of (run, output) pairs the attributor
	// check intervenes on (0: 200; negative: none).
	Attribution int
	// Prices prices the runs for the cost column (nil: the embedded
	// table; a run it has no entry for gets StandInPrice).
	Prices diagnose.Prices
}

// Row is one policy on the held-out runs.
type Row struct {
	Policy string
	// Label says what the row is beside its spec: "tuned" for the uniform
	// rule tuned on the training runs (Report.Tuned), "r = 0.5" for the
	// seed's uniform-0.5, "" otherwise.
	Label string
	Runs  int
	// TokenRatio is Σ (prompt + re-invocation tokens) / Σ keep-all prompt
	// tokens, with a 95 % bootstrap CI over runs.
	TokenRatio, TokenLo, TokenHi float64
	// VsLogged is the same sum against the as-logged policy's, over the
	// LoggedRuns runs both replayed over the same calls (NaN when none).
	VsLogged, VsLoggedLo, VsLoggedHi float64
	LoggedRuns                       int
	// CostRatio is Σ cost with caching / Σ as-logged's cost with caching
	// on the same calls (simulate.Cost and simulate.AsLoggedCost at each
	// run's price, outputs included, as trajmine simulate's COST ×), with
	// a 95 % bootstrap CI over runs: over the runs the price table prices
	// (Report.Priced), or every run at StandInPrice when it prices none.
	CostRatio, CostLo, CostHi float64
	// ReinvPer100 is re-invocations per 100 replayed calls, with its CI.
	ReinvPer100, ReinvLo, ReinvHi float64
	Overflows                     int
	// Wilcoxon: the learned policy's per-run token ratio against this
	// policy's, paired by run (two-sided); P is NaN on the learned row.
	P      float64
	Median float64 // median per-run token-ratio difference, learned − this policy, over the Differ runs where they differ (NaN when none)
	Differ int
}

// ToolRetention is the mean ratio the learned policy gave one tool's outputs on the held-out runs.
type ToolRetention struct {
	Tool  string
	N     int
	Ratio float64
}

// Report is the held-out evaluation.
type Report struct {
	Runs   int
	Logged string // the as-logged reference policy, or "" when the catalog has none
	Note   string
	// Priced is the held-out runs the price table has an entry for: the
	// cost columns are over them, or over every run at StandInPrice when
	// none is; Reward is the objective the model was trained on.
	Priced int
	Reward string
	Rows   []Row
	// Tuned is the uniform rule tuned on the training runs (the model's
	// Training.Uniform; nil for a model file without one), and Verdict
	// says whether the learned policy beats it on held-out cost with
	// caching ("" without a tuned rule).
	Tuned     *Tuned
	Verdict   string
	Retention []ToolRetention
	Attr      Attribution
}

// Attribution is the attributor check: for sampled (run, output) pairs,
// the outcome model's predicted consequence of dropping that output alone
// (P̂(x, 0) − P̂(x, 1)) × Ĉ(x) against the replayed one: the re-invocations
// with the output dropped minus with it kept whole (every other output as
// the learned policy has it), times the output's tokens plus the prompt at
// its event.
type Attribution struct {
	Pairs    int
	Spearman float64 // NaN with fewer than 3 pairs
	// Top3 is, over runs with ≥ 4 sampled outputs and a replayed
	// consequence, the mean share of the 3 outputs with the largest
	// replayed consequence that are among the 3 with the largest predicted one.
	Top3     float64
	Top3Runs int
	// The Spearman ρ split in its two parts, to say where it is lost:
	// Positive pairs have a replayed consequence (dropping the output
	// alone causes a re-invocation); AUC is how well the prediction ranks
	// those above the rest (0.5 chance, NaN without both), and
	// SpearmanPositive the ρ among the Positive pairs alone (the size of
	// the consequence; NaN with fewer than 3).
	Positive         int
	AUC              float64
	SpearmanPositive float64
	// Ceiling is the ρ a predictor right about every Positive pair's
	// consequence would get, were it as continuous as this one on the
	// rest: the replayed consequence with the zeros' ties broken in the
	// prediction's order. Many zeros (outputs whose drop costs nothing)
	// hold it, and so ρ, below 1 (NaN with fewer than 3 pairs).
	Ceiling float64
}

// LearnedName is the learned policy's name in reports.
const LearnedName = "tracer(model)"

// override is the mean policy with one output's ratio forced.
type override struct {
	m     *simulate.Mean
	item  int32
	ratio float64
	seen  []simulate.Candidate // filled when record
	evs   []int64              // the prompt at each seen candidate's event
	rec   bool
}

func (o *override) Retain(tr *simulate.Trace, ev *simulate.Event) {
	o.m.Retain(tr, ev)
	for k := range ev.Cands {
		if ev.Cands[k].Item == o.item {
			ev.Cands[k].Ratio = o.ratio
		}
	}
	if o.rec {
		for _, c := range ev.Cands {
			c.X = slices.Clone(c.X)
			o.seen = append(o.seen, c)
			o.evs = append(o.evs, ev.Prompt)
		}
	}
}

// Evaluate replays the held-out runs under the learned model and the
// baselines (keep-all, the as-logged reference when the catalog has one,
// tracer-uniform at r = 0.5 and at the ratio tuned on the training runs
// (Training.Uniform, when the model has one), -recency, -proportional,
// -tooltype, all at the model's trigger and keep), prices each with
// caching at its run's price (PriceOf), says whether the learned policy
// beats the tuned rule on cost (Report.Verdict) and checks the attributor.
func Evaluate(held []*simulate.Trace, m *Model, o *EvalOptions) (*Report, error) {
	var oo EvalOptions
	if o != nil {
		oo = *o
	}
	if oo.Attribution == 0 {
		oo.Attribution = 200
	}
	rep := &Report{Runs: len(held)}
	tk := fmt.Sprintf("(trigger=%s,keep=%d)", strconv.FormatFloat(m.Trigger, 'g', -1, 64), m.Keep)
	specs := []string{"keep-all"}
	if _, ok := simulate.Lookup("as-logged"); ok {
		rep.Logged = "as-logged"
		specs = append(specs, "as-logged")
	} else {
		rep.Note = "as-logged is not in the catalog yet (pending): the log's own ops are replayed by dtoc instead, and vs-logged is against dtoc"
		rep.Logged = "dtoc"
		specs = append(specs, "dtoc")
	}
	labels := map[int]string{}
	uniform := uniformSpec(0.5, m.Trigger, m.Keep)
	labels[len(specs)] = "r = 0.5"
	specs = append(specs, uniform)
	rep.Tuned = m.Training.Uniform
	rep.Reward = cmp.Or(m.Training.Reward, RewardTokens)
	tunedAt := -1
	if t := rep.Tuned; t != nil {
		if t.Spec == uniform {
			tunedAt = len(specs) - 1
			labels[tunedAt] = "tuned, r = 0.5"
		} else {
			tunedAt = len(specs)
			labels[tunedAt] = "tuned"
			specs = append(specs, t.Spec)
		}
	}
	for _, b := range []string{"tracer-recency", "tracer-proportional", "tracer-tooltype"} {
		specs = append(specs, b+tk)
	}
	learned := func(r simulate.Retainer) simulate.Policy {
		p, _ := simulate.NewLearned(r, &simulate.LearnedOptions{Trigger: m.Trigger, Keep: m.Keep, Compressor: m.Compressor, Name: LearnedName})
		return p
	}
	if _, err := simulate.NewLearned(&simulate.Mean{M: &m.RetentionModel}, &simulate.LearnedOptions{Trigger: m.Trigger, Keep: m.Keep, Compressor: m.Compressor}); err != nil {
		return nil, fmt.Errorf("evaluate: %w", err)
	}
	type cols struct{ eff, ka, reinv, calls, ratio, cost, alCost, costRatio []float64 }
	res := make([]cols, len(specs)+1)
	var rp simulate.Replayer
	prices := oo.Prices
	if prices == nil {
		prices = diagnose.DefaultPrices()
	}
	var price diagnose.Price
	add := func(c *cols, r simulate.RunResult) {
		e := float64(r.PromptTokens + r.ReinvocationTok)
		c.eff = append(c.eff, e)
		c.ka = append(c.ka, float64(r.KeepAllTokens))
		c.reinv = append(c.reinv, 100*float64(r.Reinvocations))
		c.calls = append(c.calls, float64(r.Calls))
		c.ratio = append(c.ratio, e/math.Max(float64(r.KeepAllTokens), 1))
		_, cost := simulate.Cost(&r, price)
		_, al := simulate.AsLoggedCost(&r, price)
		c.cost, c.alCost = append(c.cost, cost), append(c.alCost, al)
		c.costRatio = append(c.costRatio, cost/math.Max(al, 1e-12))
	}
	overflows := make([]int, len(specs)+1)
	tools := map[string]*ToolRetention{}
	var pricedRun []bool // per held-out run: the table prices its model
	for _, tr := range held {
		var priced bool
		price, priced = PriceOf(tr, prices)
		pricedRun = append(pricedRun, priced)
		if priced {
			rep.Priced++
		}
		for k, s := range specs {
			p, err := simulate.Parse(s)
			if err != nil {
				return nil, fmt.Errorf("evaluate: %w", err)
			}
			r := rp.Replay(tr, p, simulate.Options{Window: oo.Window, Reserve: oo.Reserve})
			add(&res[k], r)
			if r.Status == simulate.Overflow {
				overflows[k]++
			}
		}
		ov := &override{m: &simulate.Mean{M: &m.RetentionModel}, item: -1, rec: true}
		r := rp.Replay(tr, learned(ov), simulate.Options{Window: oo.Window, Reserve: oo.Reserve})
		add(&res[len(specs)], r)
		if r.Status == simulate.Overflow {
			overflows[len(specs)]++
		}
		for _, c := range ov.seen {
			name := tr.Items[c.Item].Tool
			t := tools[name]
			if t == nil {
				t = &ToolRetention{Tool: name}
				tools[name] = t
			}
			t.N++
			t.Ratio += c.Ratio
		}
	}
	// the cost columns: over the runs the table prices (trajmine
	// simulate's COST ×), or every run at its stand-in price when none is
	pick := func(v []float64) []float64 {
		if rep.Priced == 0 {
			return v
		}
		var out []float64
		for i, x := range v {
			if pricedRun[i] {
				out = append(out, x)
			}
		}
		return out
	}
	names := append(slices.Clone(specs), LearnedName)
	li := len(specs)
	const B = 2000
	for k, name := range names {
		c := &res[k]
		row := Row{Policy: name, Label: labels[k], Runs: len(c.eff), Overflows: overflows[k], VsLogged: math.NaN(), VsLoggedLo: math.NaN(), VsLoggedHi: math.NaN(), P: math.NaN(), Median: math.NaN()}
		row.TokenRatio, row.TokenLo, row.TokenHi = stats.SumRatio(c.eff, c.ka, B, 0.95, oo.Seed)
		row.CostRatio, row.CostLo, row.CostHi = stats.SumRatio(pick(c.cost), pick(c.alCost), B, 0.95, oo.Seed)
		// against as-logged: only runs both replayed over the same calls (an
		// overflow ends a replay early, and fewer calls cost fewer tokens)
		var pe, le []float64
		for i := range c.eff {
			if c.calls[i] == res[1].calls[i] {
				pe, le = append(pe, c.eff[i]), append(le, res[1].eff[i])
			}
		}
		row.LoggedRuns = len(pe)
		if len(pe) > 0 {
			row.VsLogged, row.VsLoggedLo, row.VsLoggedHi = stats.SumRatio(pe, le, B, 0.95, oo.Seed)
		}
		row.ReinvPer100, row.ReinvLo, row.ReinvHi = stats.SumRatio(c.reinv, c.calls, B, 0.95, oo.Seed)
		if k != li && len(c.ratio) > 0 {
			if w, err := stats.WilcoxonSignedRank(res[li].ratio, c.ratio); err == nil {
				row.P = w.P
			}
			var d []float64
			for i := range c.ratio {
				if v := res[li].ratio[i] - c.ratio[i]; v != 0 {
					d = append(d, v)
				}
			}
			row.Differ = len(d)
			if len(d) > 0 {
				row.Median = stats.Median(d)
			}
		}
		rep.Rows = append(rep.Rows, row)
	}
	if tunedAt >= 0 {
		rep.Verdict = verdict(&rep.Rows[li], &rep.Rows[tunedAt], pick(res[li].costRatio), pick(res[tunedAt].costRatio))
	}
	for _, t := range tools {
		t.Ratio /= float64(t.N)
		rep.Retention = append(rep.Retention, *t)
	}
	slices.SortFunc(rep.Retention, func(a, b ToolRetention) int { return cmp.Compare(a.Tool, b.Tool) })
	if oo.Attribution > 0 {
		rep.Attr = attribution(held, m, &oo, learned)
	}
	return rep, nil
}

// verdict says whether the learned policy beats the tuned uniform rule on
// held-out cost with caching: it does when its CostRatio is lower (point
// estimates; the paired Wilcoxon test of the per-run cost ratios says how
// sure) and it overflows on no more runs.
func verdict(learned, tuned *Row, lc, tc []float64) string {
	w, err := stats.WilcoxonSignedRank(lc, tc)
	test := "no run differs"
	if err == nil && w.N > 0 {
		test = fmt.Sprintf("paired Wilcoxon p = %.3g over the %d runs where they differ", w.P, w.N)
	}
	if math.IsNaN(learned.CostRatio) || math.IsNaN(tuned.CostRatio) {
		return fmt.Sprintf("no held-out cost to compare the learned policy with the tuned uniform rule %s", tuned.Policy)
	}
	if learned.Overflows > tuned.Overflows {
		// a replay that overflows stops there: its cost covers fewer calls
		return fmt.Sprintf("the learned policy does not beat the tuned uniform rule %s on held-out runs: it overflows on %d of them, the rule on %d (an overflowing run stops early, so its cost covers fewer calls); it costs %.3f× what ran with caching, the rule %.3f× (%s); tokens / keep-all %.3f against %.3f",
			tuned.Policy, learned.Overflows, tuned.Overflows, learned.CostRatio, tuned.CostRatio, test, learned.TokenRatio, tuned.TokenRatio)
	}
	if !(learned.CostRatio < tuned.CostRatio) {
		return fmt.Sprintf("the learned policy does not beat the tuned uniform rule %s on held-out cost: it costs %.3f× what ran with caching, the rule %.3f× (%s); tokens / keep-all %.3f against %.3f",
			tuned.Policy, learned.CostRatio, tuned.CostRatio, test, learned.TokenRatio, tuned.TokenRatio)
	}
	if err != nil || w.N == 0 || w.P >= 0.05 {
		test += ", not significant at 5 %"
	}
	return fmt.Sprintf("the learned policy costs less than the tuned uniform rule %s on held-out runs: %.3f× what ran with caching against %.3f× (%s); tokens / keep-all %.3f against %.3f",
		tuned.Policy, learned.CostRatio, tuned.CostRatio, test, learned.TokenRatio, tuned.TokenRatio)
}

// attribution runs the attributor check on up to o.Attribution (run,
// output) pairs: every candidate the learned policy saw on the held-out
// runs, an evenly spaced sample of them when there are more.
func attribution(held []*simulate.Trace, m *Model, o *EvalOptions, learned func(simulate.Retainer) simulate.Policy) Attribution {
	type pair struct {
		run    int
		item   int32
		x      []float64
		prompt int64
	}
	var pairs []pair
	var rp simulate.Replayer
	for ri, tr := range held {
		ov := &override{m: &simulate.Mean{M: &m.RetentionModel}, item: -1, rec: true}
		rp.Replay(tr, learned(ov), simulate.Options{Window: o.Window, Reserve: o.Reserve})
		for k, c := range ov.seen {
			pairs = append(pairs, pair{ri, c.Item, c.X, ov.evs[k]})
		}
	}
	if len(pairs) > o.Attribution {
		rng := rand.New(rand.NewPCG(o.Seed, 0xA77))
		rng.Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
		pairs = pairs[:o.Attribution]
		slices.SortStableFunc(pairs, func(a, b pair) int { return cmp.Or(cmp.Compare(a.run, b.run), cmp.Compare(a.item, b.item)) })
	}
	pred := make([]float64, len(pairs))
	meas := make([]float64, len(pairs))
	for k, p := range pairs {
		tr := held[p.run]
		keep := rp.Replay(tr, learned(&override{m: &simulate.Mean{M: &m.RetentionModel}, item: p.item, ratio: 1}), simulate.Options{Window: o.Window, Reserve: o.Reserve})
		drop := rp.Replay(tr, learned(&override{m: &simulate.Mean{M: &m.RetentionModel}, item: p.item, ratio: 0}), simulate.Options{Window: o.Window, Reserve: o.Reserve})
		// the output's own re-invocation: the change in their count (the
		// others' renderings are the same unless dropping it moves a later
		// event), at its cost — the output again plus a prompt, the one at
		// its event standing in for the using call's; the change in Σ
		// re-invocation tokens would also carry every other re-invocation's
		// prompt shrinking with the dropped output
		meas[k] = float64(drop.Reinvocations-keep.Reinvocations) * float64(int64(tr.Items[p.item].Tokens)+p.prompt)
		pred[k] = m.Outcome.Harm(p.x, 0)
	}
	a := Attribution{Pairs: len(pairs), Spearman: math.NaN(), AUC: math.NaN(), SpearmanPositive: math.NaN(), Ceiling: math.NaN()}
	if len(pairs) >= 3 {
		a.Spearman = stats.Spearman(pred, meas)
		a.Ceiling = stats.Spearman(oracle(pred, meas), meas)
	}
	var pp, pm []float64
	for k := range meas {
		if meas[k] > 0 {
			pp, pm = append(pp, pred[k]), append(pm, meas[k])
		}
	}
	a.Positive = len(pp)
	a.AUC = auc(pred, meas)
	if len(pp) >= 3 {
		a.SpearmanPositive = stats.Spearman(pp, pm)
	}
	// top-3 recovery per run
	for lo := 0; lo < len(pairs); {
		hi := lo
		for hi < len(pairs) && pairs[hi].run == pairs[lo].run {
			hi++
		}
		if hi-lo >= 4 {
			if rec, ok := top3(pred[lo:hi], meas[lo:hi]); ok {
				a.Top3 += rec
				a.Top3Runs++
			}
		}
		lo = hi
	}
	if a.Top3Runs > 0 {
		a.Top3 /= float64(a.Top3Runs)
	} else {
		a.Top3 = math.NaN()
	}
	return a
}

// oracle is meas with its zeros (and negatives) replaced by values below
// every positive one, ordered as pred orders them (Attribution.Ceiling).
func oracle(pred, meas []float64) []float64 {
	r := stats.Ranks(pred)
	o := make([]float64, len(meas))
	for k, m := range meas {
		if m > 0 {
			o[k] = m
		} else {
			o[k] = -float64(len(meas)) + r[k] // below 0, in pred's order
		}
	}
	return o
}

// auc is the probability that pred ranks a pair with meas > 0 above one
// without (ties count a half): the Mann–Whitney U over the pairs' ranks;
// NaN without both kinds.
func auc(pred, meas []float64) float64 {
	r := stats.Ranks(pred)
	var np, nn, sum float64
	for k := range meas {
		if meas[k] > 0 {
			np++
			sum += r[k]
		} else {
			nn++
		}
	}
	if np == 0 || nn == 0 {
		return math.NaN()
	}
	return (sum - np*(np+1)/2) / (np * nn)
}

// top3 is |top3(pred) ∩ top3(meas)| / 3 (ties by index); not ok when no
// replayed consequence is positive.
func top3(pred, meas []float64) (float64, bool) {
	if slices.Max(meas) <= 0 {
		return 0, false
	}
	top := func(v []float64) []int {
		idx := make([]int, len(v))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(v[b], v[a]) })
		return idx[:3]
	}
	tp, tm := top(pred), top(meas)
	n := 0
	for _, i := range tm {
		if slices.Contains(tp, i) {
			n++
		}
	}
	return float64(n) / 3, true
}
