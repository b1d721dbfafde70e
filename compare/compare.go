package compare

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/trajmine/trajmine/internal/stats"
)

// Options tune Compare; a nil *Options means the defaults.
type Options struct {
	Reference     string  // the reference group's name; "": see Assign's rule
	B             int     // bootstrap resamples (default 2,000)
	Seed          uint64  // bootstrap seed (default 1)
	Level         float64 // CI level (default 0.95)
	Alpha         float64 // test level (default 0.05)
	MinDiscordant int     // McNemar: fewer discordant pairs is not enough to conclude (default 6)
	MinPairs      int     // other figures: fewer pairs (unpaired: runs per group) is too few (default 10)
}

// Defaults of Options.
const (
	DefaultB        = 2000
	DefaultSeed     = 1
	DefaultLevel    = 0.95
	DefaultAlpha    = 0.05
	DefaultMinPairs = 10
)

func (o *Options) withDefaults() Options {
	var v Options
	if o != nil {
		v = *o
	}
	if v.B <= 0 {
		v.B = DefaultB
	}
	if v.Seed == 0 {
		v.Seed = DefaultSeed
	}
	if v.Level <= 0 || v.Level >= 1 {
		v.Level = DefaultLevel
	}
	if v.Alpha <= 0 || v.Alpha >= 1 {
		v.Alpha = DefaultAlpha
	}
	if v.MinDiscordant <= 0 {
		v.MinDiscordant = stats.MinDiscordant
	}
	if v.MinPairs <= 0 {
		v.MinPairs = DefaultMinPairs
	}
	return v
}

// Result is a comparison of two or more groups.
type Result struct {
	By        string      `json:"by,omitempty"` // the --by key; "" for explicit groups
	Groups    []GroupInfo `json:"groups"`
	Reference string      `json:"reference"`
	// Comparisons holds one entry per group but the reference, in the
	// groups' order: that group against the reference.
	Comparisons []Comparison `json:"comparisons"`
	Matrix      Matrix       `json:"solve_matrix"`
	// Left counts the runs in no group (by tag: without the tag; explicit
	// groups: matching no filter); Overlap those matching several
	// explicit groups, counted in the first.
	Left    int     `json:"runs_in_no_group"`
	Overlap int     `json:"runs_in_several_groups"`
	Rules   Rules   `json:"rules"`
	Check   []Check `json:"simulator_check,omitempty"`
	// CheckNote says why the simulator was not checked (no replayable
	// policy separates the groups), when it was not.
	CheckNote string `json:"simulator_check_note,omitempty"`
}

// GroupInfo describes one group's runs.
type GroupInfo struct {
	Name      string   `json:"name"`
	Runs      int      `json:"runs"`
	Models    []string `json:"models"`
	Tasks     int      `json:"tasks"`      // distinct task ids
	NoTask    int      `json:"no_task"`    // runs without a task id (never paired)
	NoOutcome int      `json:"no_outcome"` // runs without an outcome (left out of solve figures)
	Unpriced  int      `json:"unpriced"`   // runs with no known cost (left out of cost figures)
	Untimed   int      `json:"untimed"`    // runs with no duration (left out of duration)
	// ManageContext, Compactions, Maskings: runs that call manage_context,
	// that compact, that mask (what a replayable policy is detected by).
	ManageContext int `json:"manage_context_runs"`
	Compactions   int `json:"compacting_runs"`
	Maskings      int `json:"masking_runs"`
}

// Rules are the thresholds and resampling a Result was computed with.
type Rules struct {
	B             int     `json:"bootstrap_resamples"`
	Seed          uint64  `json:"bootstrap_seed"`
	Level         float64 `json:"ci_level"`
	Alpha         float64 `json:"alpha"`
	MinDiscordant int     `json:"min_discordant_pairs"`
	MinPairs      int     `json:"min_pairs"`
}

// Comparison is one group against the reference: a row per model family
// (none when the groups are models) and a row over every model ("all").
type Comparison struct {
	Group     string `json:"group"`
	Reference string `json:"reference"`
	Rows      []Row  `json:"rows"`
}

// AllModels is the Model of the row over every model.
const AllModels = "all"

// Row is one model's (or every model's) comparison.
type Row struct {
	Model string `json:"model"`
	// Paired is the number of task pairs; the figures are computed on them.
	// When it is 0 the row compares the two groups' runs as independent
	// samples (Unpaired true).
	Paired   int  `json:"paired"`
	Unpaired bool `json:"unpaired_samples"`
	// LeftGroup and LeftRef count each side's runs not in a pair (no task
	// id, no run of the task on the other side, or more runs of it).
	LeftGroup int `json:"unpaired_group_runs"`
	LeftRef   int `json:"unpaired_reference_runs"`
	// RunsGroup and RunsRef are the runs the row's figures come from: the
	// paired runs, or every run when Unpaired.
	RunsGroup int       `json:"runs_group"`
	RunsRef   int       `json:"runs_reference"`
	Solve     Solve     `json:"solve"`
	Metrics   []Metric  `json:"metrics"`
	PerSolved Metric    `json:"cost_per_solved"`
	Sentence  string    `json:"sentence"`
	pairs     []pair    // for Check
	sides     [2][]*Run // the unpaired samples (group, reference)
}

// Solve is the solve-rate comparison of a row.
type Solve struct {
	// N is the pairs where both runs have an outcome (unpaired: the runs
	// with one on each side: NGroup, NRef).
	N         int     `json:"n"`
	NGroup    int     `json:"n_group"`
	NRef      int     `json:"n_reference"`
	Group     int     `json:"solved_group"`
	Ref       int     `json:"solved_reference"`
	NoOutcome int     `json:"no_outcome"` // runs of the row left out for having no outcome
	RateGroup float64 `json:"rate_group"`
	RateRef   float64 `json:"rate_reference"`
	// Diff = RateGroup − RateRef, with its bootstrap CI.
	Diff float64 `json:"diff"`
	Lo   float64 `json:"diff_lo"`
	Hi   float64 `json:"diff_hi"`
	// B and C are the discordant pairs: only the group solved, only the
	// reference solved (paired rows).
	B    int     `json:"only_group"`
	C    int     `json:"only_reference"`
	Test string  `json:"test"` // mcnemar-exact or fisher-exact
	P    float64 `json:"p"`
	// Verdict: higher, lower, no-difference, not-enough (too few
	// discordant pairs or runs), no-outcomes.
	Verdict string `json:"verdict"`
}

// Metric is one figure's comparison of a row.
type Metric struct {
	Name string `json:"name"`
	Unit string `json:"unit"` // tokens, calls, s, USD
	N    int    `json:"n"`    // pairs with the figure on both sides (unpaired: runs in both groups)
	// Group and Ref are the means over those pairs (per solved task for
	// cost per solved task); Change = Group/Ref − 1 with its CI.
	Group  float64 `json:"group"`
	Ref    float64 `json:"reference"`
	Change float64 `json:"change"`
	Lo     float64 `json:"change_lo"`
	Hi     float64 `json:"change_hi"`
	// Verdict: higher, lower, no-difference, too-few, none (no value).
	Verdict string `json:"verdict"`
}

// Verdicts.
const (
	Higher       = "higher"
	Lower        = "lower"
	NoDifference = "no-difference"
	NotEnough    = "not-enough"
	TooFew       = "too-few"
	NoOutcomes   = "no-outcomes"
	NoValue      = "none"
)

// metricDefs are the figures of a row, in order: name, unit, value.
var metricDefs = []struct {
	name, unit string
	val        func(*Run) (float64, bool)
}{
	{"input tokens", "tokens", func(r *Run) (float64, bool) { return float64(r.Input), true }},
	{"output tokens", "tokens", func(r *Run) (float64, bool) { return float64(r.Output), true }},
	{"cached tokens", "tokens", func(r *Run) (float64, bool) { return float64(r.Cached), true }},
	{"steps", "calls", func(r *Run) (float64, bool) { return float64(r.Steps), true }},
	{"duration", "s", func(r *Run) (float64, bool) {
		if r.Duration == nil {
			return 0, false
		}
		return *r.Duration, true
	}},
	{"cost", "USD", func(r *Run) (float64, bool) {
		if r.Cost == nil {
			return 0, false
		}
		return *r.Cost, true
	}},
}

// MetricNames lists the figures of a row's Metrics, in order.
func MetricNames() []string {
	out := make([]string, len(metricDefs))
	for i, d := range metricDefs {
		out[i] = d.name
	}
	return out
}

// pair is a run of the group and one of the reference on the same task.
type pair struct{ g, r *Run }

// Compare compares the groups g puts runs into (see the package doc).
// It needs at least two groups that hold runs.
func Compare(runs []Run, g Grouping, o *Options) (*Result, error) {
	opt := o.withDefaults()
	a := g.Assign(runs)
	members := make([][]*Run, len(a.Names))
	for i := range runs {
		if k := a.Of[i]; k >= 0 {
			members[k] = append(members[k], &runs[i])
		}
	}
	// groups with no run are dropped (a --group that matches nothing is
	// an error the caller reports with the names)
	var names []string
	var kept [][]*Run
	var empty []string
	for i, n := range a.Names {
		if len(members[i]) == 0 {
			empty = append(empty, n)
			continue
		}
		names, kept = append(names, n), append(kept, members[i])
	}
	if len(g.Groups) > 0 && len(empty) > 0 {
		return nil, fmt.Errorf("no run matches group %s", strings.Join(empty, ", "))
	}
	if len(names) < 2 {
		have := "no group"
		if len(names) == 1 {
			have = fmt.Sprintf("one group (%s, %d runs)", names[0], len(kept[0]))
		}
		return nil, fmt.Errorf("compare needs two groups with runs; the runs make %s", have)
	}
	ref, err := reference(names, opt.Reference)
	if err != nil {
		return nil, err
	}
	res := &Result{By: g.By, Reference: names[ref], Left: a.Left, Overlap: a.Overlap,
		Rules: Rules{B: opt.B, Seed: opt.Seed, Level: opt.Level, Alpha: opt.Alpha, MinDiscordant: opt.MinDiscordant, MinPairs: opt.MinPairs}}
	for i, n := range names {
		res.Groups = append(res.Groups, groupInfo(n, kept[i]))
	}
	byModel := g.By == ByModel
	for i, n := range names {
		if i == ref {
			continue
		}
		c := Comparison{Group: n, Reference: names[ref]}
		var models []string
		if !byModel {
			for _, r := range append(slices.Clone(kept[i]), kept[ref]...) {
				if !slices.Contains(models, r.Model) {
					models = append(models, r.Model)
				}
			}
			slices.Sort(models)
		}
		for _, m := range models {
			gs := filterRuns(kept[i], func(r *Run) bool { return r.Model == m })
			rs := filterRuns(kept[ref], func(r *Run) bool { return r.Model == m })
			if len(gs) == 0 || len(rs) == 0 {
				continue // a model run under one condition only: in the matrix, not compared
			}
			c.Rows = append(c.Rows, row(m, gs, rs, !byModel, &opt))
		}
		if len(models) != 1 {
			c.Rows = append(c.Rows, row(AllModels, kept[i], kept[ref], !byModel, &opt))
		}
		for k := range c.Rows {
			c.Rows[k].Sentence = sentence(&c, &c.Rows[k], &opt)
		}
		res.Comparisons = append(res.Comparisons, c)
	}
	res.Matrix = matrix(names, kept, byModel)
	return res, nil
}

func filterRuns(rs []*Run, keep func(*Run) bool) []*Run {
	var out []*Run
	for _, r := range rs {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

func groupInfo(name string, rs []*Run) GroupInfo {
	gi := GroupInfo{Name: name, Runs: len(rs)}
	tasks := map[string]bool{}
	for _, r := range rs {
		if !slices.Contains(gi.Models, r.Model) {
			gi.Models = append(gi.Models, r.Model)
		}
		if r.Task == "" {
			gi.NoTask++
		} else {
			tasks[r.Task] = true
		}
		if r.Resolved == nil {
			gi.NoOutcome++
		}
		if r.Cost == nil {
			gi.Unpriced++
		}
		if r.Duration == nil {
			gi.Untimed++
		}
		if r.ManageContext {
			gi.ManageContext++
		}
		if r.Compactions > 0 {
			gi.Compactions++
		}
		if r.Maskings > 0 {
			gi.Maskings++
		}
	}
	slices.Sort(gi.Models)
	gi.Tasks = len(tasks)
	return gi
}

// pairRuns pairs gs with rs by task (and model when sameModel), in start
// order within a task, and returns the pairs (by task, then order) and
// the runs of each side left over.
func pairRuns(gs, rs []*Run, sameModel bool) (pairs []pair, leftG, leftR int) {
	key := func(r *Run) string {
		if sameModel {
			return r.Model + "\x00" + r.Task
		}
		return r.Task
	}
	byKey := func(list []*Run) (map[string][]*Run, int) {
		m := map[string][]*Run{}
		none := 0
		for _, r := range list {
			if r.Task == "" {
				none++
				continue
			}
			m[key(r)] = append(m[key(r)], r)
		}
		for _, l := range m {
			slices.SortFunc(l, startOrder)
		}
		return m, none
	}
	mg, ng := byKey(gs)
	mr, nr := byKey(rs)
	leftG, leftR = ng, nr
	keys := make([]string, 0, len(mg))
	for k := range mg {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		a, b := mg[k], mr[k]
		n := min(len(a), len(b))
		for i := range n {
			pairs = append(pairs, pair{g: a[i], r: b[i]})
		}
		leftG += len(a) - n
		leftR += len(b) - n
	}
	for k, b := range mr {
		if _, ok := mg[k]; !ok {
			leftR += len(b)
		}
	}
	return pairs, leftG, leftR
}

// startOrder orders runs by start (untimed last), then id.
func startOrder(a, b *Run) int {
	switch {
	case a.Started != nil && b.Started != nil:
		if c := a.Started.Compare(*b.Started); c != 0 {
			return c
		}
	case a.Started != nil:
		return -1
	case b.Started != nil:
		return 1
	}
	return cmp.Compare(a.ID, b.ID)
}

// row compares gs with rs (see the package doc's statistics).
func row(model string, gs, rs []*Run, sameModel bool, o *Options) Row {
	pairs, lg, lr := pairRuns(gs, rs, sameModel)
	r := Row{Model: model, Paired: len(pairs), LeftGroup: lg, LeftRef: lr, pairs: pairs}
	if len(pairs) == 0 {
		r.Unpaired = true
		r.RunsGroup, r.RunsRef = len(gs), len(rs)
		r.sides = [2][]*Run{gs, rs}
		r.Solve = unpairedSolve(gs, rs, o)
		for _, d := range metricDefs {
			r.Metrics = append(r.Metrics, unpairedMetric(d.name, d.unit, gs, rs, d.val, o))
		}
		r.PerSolved = unpairedPerSolved(gs, rs, o)
		return r
	}
	r.RunsGroup, r.RunsRef = len(pairs), len(pairs)
	r.Solve = pairedSolve(pairs, o)
	for _, d := range metricDefs {
		r.Metrics = append(r.Metrics, pairedMetric(d.name, d.unit, pairs, d.val, o))
	}
	r.PerSolved = pairedPerSolved(pairs, o)
	return r
}

func b01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func pairedSolve(pairs []pair, o *Options) Solve {
	s := Solve{Test: "mcnemar-exact"}
	var x, y []float64
	for _, p := range pairs {
		if p.g.Resolved == nil || p.r.Resolved == nil {
			for _, r := range []*Run{p.g, p.r} {
				if r.Resolved == nil {
					s.NoOutcome++
				}
			}
			continue
		}
		g, r := *p.g.Resolved, *p.r.Resolved
		x, y = append(x, b01(g)), append(y, b01(r))
		switch {
		case g && !r:
			s.B++
		case r && !g:
			s.C++
		}
		if g {
			s.Group++
		}
		if r {
			s.Ref++
		}
	}
	s.N, s.NGroup, s.NRef = len(x), len(x), len(x)
	s.RateGroup, s.RateRef = rate(s.Group, s.N), rate(s.Ref, s.N)
	if s.N == 0 {
		s.Verdict, s.P, s.Diff, s.Lo, s.Hi = NoOutcomes, math.NaN(), math.NaN(), math.NaN(), math.NaN()
		return s
	}
	s.Diff, s.Lo, s.Hi = stats.PairedMeanDiff(x, y, o.B, o.Level, o.Seed)
	s.P = stats.McNemarExact(s.B, s.C)
	switch {
	case s.B+s.C < o.MinDiscordant:
		s.Verdict = NotEnough
	case s.P < o.Alpha && s.B > s.C:
		s.Verdict = Higher
	case s.P < o.Alpha:
		s.Verdict = Lower
	default:
		s.Verdict = NoDifference
	}
	return s
}

// rate is k/n, NaN when n is 0.
func rate(k, n int) float64 {
	if n == 0 {
		return math.NaN()
	}
	return float64(k) / float64(n)
}

func unpairedSolve(gs, rs []*Run, o *Options) Solve {
	s := Solve{Test: "fisher-exact"}
	var x, y []float64
	for _, r := range gs {
		if r.Resolved == nil {
			s.NoOutcome++
			continue
		}
		x = append(x, b01(*r.Resolved))
		if *r.Resolved {
			s.Group++
		}
	}
	for _, r := range rs {
		if r.Resolved == nil {
			s.NoOutcome++
			continue
		}
		y = append(y, b01(*r.Resolved))
		if *r.Resolved {
			s.Ref++
		}
	}
	s.NGroup, s.NRef = len(x), len(y)
	s.N = min(s.NGroup, s.NRef)
	s.RateGroup, s.RateRef = rate(s.Group, s.NGroup), rate(s.Ref, s.NRef)
	if s.NGroup == 0 || s.NRef == 0 {
		s.Verdict, s.P, s.Diff, s.Lo, s.Hi = NoOutcomes, math.NaN(), math.NaN(), math.NaN(), math.NaN()
		return s
	}
	s.Diff, s.Lo, s.Hi = stats.TwoSampleMeanDiff(x, y, o.B, o.Level, o.Seed)
	s.P = stats.FisherExact(s.Group, s.NGroup-s.Group, s.Ref, s.NRef-s.Ref)
	switch {
	case s.N < o.MinPairs:
		s.Verdict = NotEnough
	case s.P < o.Alpha && s.Diff > 0:
		s.Verdict = Higher
	case s.P < o.Alpha:
		s.Verdict = Lower
	default:
		s.Verdict = NoDifference
	}
	return s
}

// ciVerdict calls a change from its interval: too few values, an interval
// excluding 0, or none.
func ciVerdict(n int, change, lo, hi float64, o *Options) string {
	switch {
	case n == 0 || math.IsNaN(change):
		return NoValue
	case n < o.MinPairs:
		return TooFew
	case lo > 0:
		return Higher
	case hi < 0:
		return Lower
	}
	return NoDifference
}

func pairedMetric(name, unit string, pairs []pair, val func(*Run) (float64, bool), o *Options) Metric {
	m := Metric{Name: name, Unit: unit}
	var x, y []float64
	for _, p := range pairs {
		a, okA := val(p.g)
		b, okB := val(p.r)
		if okA && okB {
			x, y = append(x, a), append(y, b)
		}
	}
	m.N = len(x)
	return finishMetric(m, x, y, func() (float64, float64, float64) {
		return stats.SumRatio(x, y, o.B, o.Level, o.Seed)
	}, o)
}

func unpairedMetric(name, unit string, gs, rs []*Run, val func(*Run) (float64, bool), o *Options) Metric {
	m := Metric{Name: name, Unit: unit}
	var x, y []float64
	for _, r := range gs {
		if v, ok := val(r); ok {
			x = append(x, v)
		}
	}
	for _, r := range rs {
		if v, ok := val(r); ok {
			y = append(y, v)
		}
	}
	m.N = min(len(x), len(y))
	return finishMetric(m, x, y, func() (float64, float64, float64) {
		return stats.TwoSampleMeanRatio(x, y, o.B, o.Level, o.Seed)
	}, o)
}

// finishMetric sets the means and the change (ratio − 1) of m.
func finishMetric(m Metric, x, y []float64, ratio func() (float64, float64, float64), o *Options) Metric {
	nan := math.NaN()
	m.Group, m.Ref, m.Change, m.Lo, m.Hi = mean(x), mean(y), nan, nan, nan
	if len(x) > 0 && len(y) > 0 {
		r, lo, hi := ratio()
		m.Change, m.Lo, m.Hi = r-1, lo-1, hi-1
	}
	m.Verdict = ciVerdict(m.N, m.Change, m.Lo, m.Hi, o)
	return m
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// PerSolvedName is the Name of a row's PerSolved metric.
const PerSolvedName = "cost per solved task"

func pairedPerSolved(pairs []pair, o *Options) Metric {
	var x, u, y, v []float64
	for _, p := range pairs {
		if p.g.Resolved == nil || p.r.Resolved == nil || p.g.Cost == nil || p.r.Cost == nil {
			continue
		}
		x, u = append(x, *p.g.Cost), append(u, b01(*p.g.Resolved))
		y, v = append(y, *p.r.Cost), append(v, b01(*p.r.Resolved))
	}
	m := Metric{Name: PerSolvedName, Unit: "USD", N: len(x)}
	return finishPerSolved(m, x, u, y, v, func() (float64, float64, float64) {
		return stats.PerUnitRatio(x, u, y, v, o.B, o.Level, o.Seed)
	}, o)
}

func unpairedPerSolved(gs, rs []*Run, o *Options) Metric {
	var x, u, y, v []float64
	for _, r := range gs {
		if r.Resolved != nil && r.Cost != nil {
			x, u = append(x, *r.Cost), append(u, b01(*r.Resolved))
		}
	}
	for _, r := range rs {
		if r.Resolved != nil && r.Cost != nil {
			y, v = append(y, *r.Cost), append(v, b01(*r.Resolved))
		}
	}
	m := Metric{Name: PerSolvedName, Unit: "USD", N: min(len(x), len(y))}
	return finishPerSolved(m, x, u, y, v, func() (float64, float64, float64) {
		return stats.TwoSamplePerUnitRatio(x, u, y, v, o.B, o.Level, o.Seed)
	}, o)
}

// finishPerSolved sets Σcost / Σsolved on each side and the change.
func finishPerSolved(m Metric, x, u, y, v []float64, ratio func() (float64, float64, float64), o *Options) Metric {
	nan := math.NaN()
	per := func(c, s []float64) float64 {
		var sc, ss float64
		for i := range c {
			sc, ss = sc+c[i], ss+s[i]
		}
		if ss == 0 {
			return nan
		}
		return sc / ss
	}
	m.Group, m.Ref, m.Change, m.Lo, m.Hi = per(x, u), per(y, v), nan, nan, nan
	if len(x) > 0 && len(y) > 0 {
		if r, lo, hi := ratio(); !math.IsNaN(r) && !math.IsInf(r, 0) {
			m.Change, m.Lo, m.Hi = r-1, lo-1, hi-1
		}
	}
	m.Verdict = ciVerdict(m.N, m.Change, m.Lo, m.Hi, o)
	return m
}
