package analysis

import (
	"context"
	"fmt"
	"strings"

	"github.com/trajmine/trajmine/compare"
	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/internal/store"
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
	if err := Pass(ctx, st, store.ScanOptions{NoText: true, RunIDs: o.RunIDs}, env, ca); err != nil {
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
		sa, err := NewSimulate(&SimulateOptions{Windows: []int64{-1}, Shards: 1, Prices: o.Prices, NoSave: true}, []simulate.Policy{pol})
		if err != nil {
			return nil, err
		}
		if err := Pass(ctx, st, store.ScanOptions{RunIDs: p.RunIDs}, env, sa); err != nil {
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
func (a *compareRuns) Worker() (func(*RunWork) any, error) {
	return func(w *RunWork) any {
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
		return out
	}, nil
}

// Add keeps the run (Analysis).
func (a *compareRuns) Add(v any) error {
	if r, ok := v.(compare.Run); ok {
		a.runs = append(a.runs, r)
	}
	return nil
}
