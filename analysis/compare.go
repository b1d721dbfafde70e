package analysis

import (
	"context"
	"fmt"
	"strings"

	"github.com/trajmine/trajmine/compare"
	"github.com/trajmine/trajmine/dashboards"
	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/textfmt"
	"github.com/trajmine/trajmine/schema"
	"github.com/trajmine/trajmine/simulate"
)

// CompareOptions are what trajmine compare depends on.
type CompareOptions struct {
	Grouping compare.Grouping
	Compare  compare.Options
	// Replay is the policy spec the simulator check replays the
	// reference's runs under (compare.Plans); "" detects a mechanism that
	// separates the groups; "none" skips the check.
	Replay string
	Prices string   // price file (LoadPrices); "" the embedded table
	RunIDs []string // only these runs (trajmine report's scope); nil every run
}

// ReplayNone is CompareOptions.Replay that skips the simulator check.
const ReplayNone = "none"

// CompareStore compares groups of the store's runs (see the command's
// help and package compare):
//
//  1. one pass over the runs without their text (Pass, NoText) makes each
//     root run a compare.Run: its task, model family, harness, path,
//     start, tags (store.RunTags), whether it calls manage_context (a
//     tool call named manage_context or *__manage_context, or a DTOC
//     disable/enable op), its compaction and masking ops, outcome, token
//     totals, model calls (n_turns), duration (ended − started) and cost
//     as trajmine diagnose prices it (diagnose.RunCost, diagnose.OwnCost
//     for resumed sessions);
//  2. compare.Compare groups, pairs and compares them;
//  3. unless Replay is "none", the runs each compare.Plan names are
//     replayed under its policy at their own window as trajmine simulate
//     replays them (a second pass, with text, over those runs only), and
//     compare.Result.SetCheck sets the prediction beside the observation.
func CompareStore(ctx context.Context, st *store.Store, o *CompareOptions) (*compare.Result, error) {
	env, err := NewEnv(ctx, st)
	if err != nil {
		return nil, err
	}
	prices, err := LoadPrices(o.Prices)
	if err != nil {
		return nil, err
	}
	conts, err := st.Continuations(ctx)
	if err != nil {
		return nil, err
	}
	tags, err := st.RunTags(ctx)
	if err != nil {
		return nil, err
	}
	ca := &compareRuns{prices: prices, conts: conts, tags: tags}
	if err := Pass(ctx, st, store.ScanOptions{NoText: true, RunIDs: o.RunIDs}, env, Of(ca)); err != nil {
		return nil, err
	}
	res, err := compare.Compare(ca.runs, o.Grouping, &o.Compare)
	if err != nil {
		return nil, err
	}
	if o.Replay == ReplayNone {
		res.CheckNote = "not checked (--replay none)"
		return res, nil
	}
	plans, notes := res.Plans(o.Replay)
	replays := map[string]compare.Replay{}
	for _, p := range plans {
		pol, err := simulate.Parse(p.Policy)
		if err != nil {
			return nil, fmt.Errorf("--replay: %w", err)
		}
		sa, err := NewSimulate(&SimulateOptions{Windows: []simulate.Window{simulate.OwnWindow}, Shards: 1, Prices: o.Prices, NoSave: true}, []simulate.Policy{pol})
		if err != nil {
			return nil, err
		}
		if err := Pass(ctx, st, store.ScanOptions{RunIDs: p.RunIDs}, env, Of(sa)); err != nil {
			return nil, err
		}
		for _, row := range sa.Finish().Results {
			r := compare.Replay{Policy: float64(row.EffectiveTokens()), AsLogged: float64(row.BaselineEffective())}
			if row.CostCachedUSD != nil && row.AsLoggedCostCachedUSD != nil {
				r.PolicyCost, r.AsLoggedCost = row.CostCachedUSD, row.AsLoggedCostCachedUSD
			}
			replays[row.RunID] = r
		}
	}
	res.SetCheck(plans, notes, replays)
	return res, nil
}

// compareRuns is CompareStore's first pass: each root run as a
// compare.Run, in scan order.
type compareRuns struct {
	prices diagnose.Prices
	conts  map[string]*store.Continuation
	tags   map[string]map[string]string
	runs   []compare.Run
}

// Worker makes a run's compare.Run (nil for a sub-agent's run: its task
// is its parent's).
func (a *compareRuns) Worker() (func(*RunWork) *compare.Run, error) {
	return func(w *RunWork) *compare.Run {
		r := &w.Run
		if r.ParentRunID != "" {
			return nil
		}
		out := compare.Run{ID: r.RunID, Task: r.TaskID, Model: r.ModelFamily, Raw: r.Model, Harness: r.Harness, Path: r.SourcePath,
			Started: r.StartedAt, Tags: a.tags[r.RunID], Resolved: r.Resolved, Input: r.InputTokens, Output: r.OutputTokens,
			Cached: r.CacheReadTokens, Steps: r.NTurns}
		if r.StartedAt != nil && r.EndedAt != nil && !r.EndedAt.Before(*r.StartedAt) {
			d := r.EndedAt.Sub(*r.StartedAt).Seconds()
			out.Duration = &d
		}
		cost := diagnose.RunCost(w.Run, w.Usage, a.prices)
		if c := a.conts[r.RunID]; c != nil {
			cost = diagnose.OwnCost(w.Run, w.Usage, a.prices, c.Copied)
		}
		if cost.Source != diagnose.CostUnknown {
			usd := cost.USD
			out.Cost = &usd
		}
		for i := range w.Events {
			e := &w.Events[i]
			switch {
			case e.Kind == schema.KindToolCall && (e.ToolName == "manage_context" || strings.HasSuffix(e.ToolName, "__manage_context")):
				out.ManageContext = true
			case e.Kind == schema.KindCompaction:
				out.Compactions++
			}
		}
		ops := 0
		for _, op := range w.Ops {
			switch op.Op {
			case schema.OpDisable, schema.OpEnable:
				out.ManageContext = true
			case schema.OpCompaction, schema.OpSummary:
				ops++
			case schema.OpMasking:
				out.Maskings++
			}
		}
		out.Compactions = max(out.Compactions, ops)
		return &out
	}, nil
}

// Add keeps the run (Consumer).
func (a *compareRuns) Add(r *compare.Run) error {
	if r != nil {
		a.runs = append(a.runs, *r)
	}
	return nil
}

// ComparePage is the page's comparison section from a compare.Result:
// every figure as trajmine compare prints it (compare's formatting), laid
// out as the DTOC paper's Tables 3 and 4 (dashboards.Compare).
func ComparePage(res *compare.Result) *dashboards.Compare {
	how := "explicit groups"
	if res.By != "" {
		how = "--by " + res.By
	}
	runs := 0
	for _, g := range res.Groups {
		runs += g.Runs
	}
	out := &dashboards.Compare{Title: fmt.Sprintf("%s runs in %d groups (%s), each compared with the reference, %s; root runs only, paired by task (and model), figures on the pairs.",
		textfmt.Thousands(int64(runs)), len(res.Groups), how, res.Reference), CheckNote: res.CheckNote}
	if res.Left > 0 {
		out.Title += fmt.Sprintf(" %s runs are in no group.", textfmt.Thousands(int64(res.Left)))
	}
	for _, g := range res.Groups {
		out.Groups = append(out.Groups, dashboards.CompareGroup{Name: g.Name, Runs: g.Runs, Tasks: g.Tasks, NoOutcome: g.NoOutcome, Unpriced: g.Unpriced, MCs: g.ManageContext})
	}
	for _, c := range res.Comparisons {
		t := dashboards.CompareTable{Group: c.Group, Reference: c.Reference, Figures: []string{"solve rate"}}
		for k := range c.Rows {
			r := &c.Rows[k]
			if k == 0 {
				for i := range r.Metrics {
					t.Figures = append(t.Figures, compare.FigureLabel(&r.Metrics[i]))
				}
				t.Figures = append(t.Figures, compare.FigureLabel(&r.PerSolved))
			}
			m := dashboards.CompareModel{Model: r.Model, Sentence: r.Sentence}
			if r.Unpaired {
				m.Pairing = fmt.Sprintf("no shared task: %d vs %d runs", r.RunsGroup, r.RunsRef)
			} else {
				m.Pairing = fmt.Sprintf("%d paired tasks", r.Paired)
			}
			s := &r.Solve
			solve := fmt.Sprintf("%s [%s]", compare.Points(s.Diff), strings.Trim(compare.PointsCI(s.Lo, s.Hi), "[]"))
			if s.Verdict != compare.NoOutcomes {
				solve += fmt.Sprintf("; %s p %s", s.TestName(), compare.PEquals(s.P))
			}
			m.Ref, m.Group, m.Change, m.Verdict = []string{compare.Pct(s.RateRef)}, []string{compare.Pct(s.RateGroup)}, []string{solve}, []string{compare.ShortVerdict(s.Verdict)}
			for _, x := range append(append([]compare.Metric{}, r.Metrics...), r.PerSolved) {
				m.Ref = append(m.Ref, compare.FigureText(x.Ref, x.Unit))
				m.Group = append(m.Group, compare.FigureText(x.Group, x.Unit))
				m.Change = append(m.Change, strings.TrimSpace(compare.SignedPct(x.Change)+" "+compare.ChangeCI(x.Lo, x.Hi)))
				m.Verdict = append(m.Verdict, compare.ShortVerdict(x.Verdict))
			}
			t.Models = append(t.Models, m)
		}
		out.Tables = append(out.Tables, t)
	}
	for _, ck := range res.Check {
		out.Check = append(out.Check, ck.Sentence)
	}
	mx := &res.Matrix
	for _, c := range mx.Columns {
		if c.Model == "" {
			out.Matrix.Columns = append(out.Matrix.Columns, c.Group)
		} else {
			out.Matrix.Columns = append(out.Matrix.Columns, c.Model+"/"+c.Group)
		}
	}
	differs := 0
	for _, tk := range mx.Tasks {
		row := dashboards.CompareTask{Task: tk.Task, Differs: tk.Differs}
		for _, c := range tk.Cells {
			row.Marks = append(row.Marks, c.Mark())
		}
		if tk.Differs {
			differs++
		}
		out.Matrix.Rows = append(out.Matrix.Rows, row)
	}
	out.Matrix.Note = fmt.Sprintf("%d tasks, %d where the groups differ; ✓ solved, ✗ failed, ? run without an outcome, - no run, k/n: k of n runs with an outcome solved.", len(mx.Tasks), differs)
	if mx.NoTask > 0 {
		out.Matrix.Note += fmt.Sprintf(" %d runs without a task id are in no row.", mx.NoTask)
	}
	r := res.Rules
	out.Rules = fmt.Sprintf("As trajmine compare: each change is Σ group / Σ reference − 1 over the pairs with a %g%% paired bootstrap CI (%d resamples of the pairs, seed %d; rows with no shared task: two-sample bootstraps); "+
		"the solve rate's difference is in points, tested with McNemar's exact test on the discordant pairs, p = min(1, 2·Σ_{i≤min(b,c)} C(b+c, i)/2^(b+c)) (rows with no shared task: Fisher's exact test); "+
		"cost is with prompt caching as trajmine diagnose prices it, cost per solved task Σ cost / Σ solved over the runs with an outcome. "+
		"Not enough: fewer than %d discordant pairs (even all of them one way could not give p < %g); too few: fewer than %d pairs; otherwise a change is called when p < %g (solve rate) or the interval excludes 0. "+
		"The simulator check replays one side's runs (trajmine compare --help) and agrees when the two 95%% intervals overlap.",
		100*r.Level, r.B, r.Seed, r.MinDiscordant, r.Alpha, r.MinPairs, r.Alpha)
	return out
}
