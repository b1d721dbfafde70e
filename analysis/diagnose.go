package analysis

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/schema"
	"github.com/trajmine/trajmine/simulate"
)

// DiagnoseOptions are what a diagnosis depends on.
type DiagnoseOptions struct {
	// Window is the context window for every run: each run's own (the
	// zero value) or a fixed one; simulate.Unbounded is refused (occupancy
	// is a share of a window).
	Window simulate.Window
	By     string // group the peak-occupancy summary by model, harness or format
	Prices string // a YAML/JSON price file adding to or replacing the embedded prices; "" none
	// Shard and Shards select every Shards-th run by run_id, starting at
	// Shard (store.ScanOptions); SaveDiagnosis then replaces only their rows.
	Shard, Shards int
}

// LoadPrices is the embedded price table, with the price file at path (if
// any) added to or replacing its entries (diagnose.LoadPrices).
func LoadPrices(path string) (diagnose.Prices, error) {
	if path == "" {
		return diagnose.DefaultPrices(), nil
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--prices: %w", err)
	}
	defer fh.Close()
	prices, err := diagnose.LoadPrices(fh)
	if err != nil {
		return nil, fmt.Errorf("--prices %s: %w", path, err)
	}
	return prices, nil
}

// DiagnoseStore diagnoses every run in the store (see the command's help).
//
//  1. One streaming pass over the store (Pass over store.Scan: runs,
//     events, usage and context ops merged by run), so memory holds a few
//     runs' records at a time; each run is reduced to a diagnose.RunDiagnosis (its occupancy per call,
//     end reason, rent per tool, counts) and its records are dropped.
//  2. Runs are put in trajmine runs order (started_at, nulls last, then run_id).
//  3. The cross-run figures (verdict, groups, rent by tool, reading boundary,
//     totals, cost per solved task) are computed from the per-run results.
func DiagnoseStore(ctx context.Context, st *store.Store, o *DiagnoseOptions) (diagnose.Summary, error) {
	a, err := NewDiagnose(o)
	if err != nil {
		return diagnose.Summary{}, err
	}
	env, err := NewEnv(ctx, st)
	if err != nil {
		return diagnose.Summary{}, err
	}
	if a.conts, err = st.Continuations(ctx); err != nil {
		return diagnose.Summary{}, fmt.Errorf("diagnose: %w", err)
	}
	if err := Pass(ctx, st, store.ScanOptions{Shard: o.Shard, Shards: o.Shards}, env, Of(a)); err != nil {
		return diagnose.Summary{}, fmt.Errorf("diagnose: %w", err)
	}
	return a.Finish(), nil
}

// Diagnose is diagnose's part of the shared pass (Pass): each run
// reduced to a diagnose.RunDiagnosis, the cross-run figures in finish.
type Diagnose struct {
	o       *DiagnoseOptions
	prices  diagnose.Prices
	results []diagnose.RunDiagnosis
	conts   map[string]*store.Continuation // resumed and forked runs (st.Continuations)
}

// NewDiagnose prepares a diagnosis with o (its price file loaded).
func NewDiagnose(o *DiagnoseOptions) (*Diagnose, error) {
	if o.Window == simulate.Unbounded {
		return nil, errors.New("diagnose: no unbounded window: occupancy is a share of a window (give one in tokens, or each run's own)")
	}
	prices, err := LoadPrices(o.Prices)
	if err != nil {
		return nil, err
	}
	return &Diagnose{o: o, prices: prices}, nil
}

// Worker diagnoses one run (Consumer).
func (a *Diagnose) Worker() (func(*RunWork) diagnose.RunDiagnosis, error) {
	return func(w *RunWork) diagnose.RunDiagnosis {
		// the result keeps nothing of w's slices: it is built afresh
		var res diagnose.RunResult
		if n, fixed := a.o.Window.Fixed(); fixed {
			res = diagnose.RunWith(w.Run, w.Events, w.Usage, w.Ops, n, w.endOptions())
		} else {
			res = *w.Diagnosed()
		}
		out := diagnose.Complete(res, w.Run, w.Events, w.Usage, w.Ops, *w.Stalls(), w.Classify)
		out.Cost = diagnose.RunCost(w.Run, w.Usage, a.prices)
		if c := a.conts[w.Run.RunID]; c != nil {
			out.Cost = diagnose.OwnCost(w.Run, w.Usage, a.prices, c.Copied)
			out.ContinuesRunID, out.CopiedCalls = c.OriginRunID, int64(len(w.Usage)-len(diagnose.OwnUsage(w.Usage, c.Copied)))
			out.Copy = len(w.Usage) > 0 && out.CopiedCalls == int64(len(w.Usage))
		}
		return out
	}, nil
}

// Add keeps one run's diagnosis, in scan order (Consumer).
func (a *Diagnose) Add(r diagnose.RunDiagnosis) error {
	a.results = append(a.results, r)
	return nil
}

// Finish computes the cross-run figures from the runs' results
// (diagnose.Summarize).
func (a *Diagnose) Finish() diagnose.Summary { return diagnose.Summarize(a.results, a.o.By) }

// SaveDiagnosis replaces diag_runs, diag_calls and diag_rent with out's runs,
// in one transaction (store.WriteDerived).
func SaveDiagnosis(ctx context.Context, st *store.Store, out diagnose.Summary) error {
	return SaveDiagnosisShard(ctx, st, out, 0, 1)
}

// SaveDiagnosisShard is SaveDiagnosis of a diagnosis of shard of shards
// (DiagnoseOptions.Shard): only those runs' rows are replaced.
func SaveDiagnosisShard(ctx context.Context, st *store.Store, out diagnose.Summary, shard, shards int) error {
	tables := DiagnosisTables(&out)
	if shards > 1 {
		where, args := store.ScanWhere(store.ScanOptions{Shard: shard, Shards: shards})
		for i := range tables {
			tables[i].Where, tables[i].Args = where, args
		}
	}
	if err := st.WriteDerived(ctx, tables...); err != nil {
		return fmt.Errorf("save diagnose results: %w", err)
	}
	return nil
}

// DiagnosisTables is the replacement of diag_runs, diag_calls and diag_rent
// with out's runs for store.WriteDerived; out is read when the rows are
// written, so it may be filled by an earlier table's rows in the same call.
func DiagnosisTables(out *diagnose.Summary) []store.Derived {
	return []store.Derived{
		{Table: schema.DiagRuns, Rows: eachRunRows(out, func(r *diagnose.RunDiagnosis) []schema.DiagRun { return []schema.DiagRun{DiagRunRow(r)} })},
		{Table: schema.DiagCalls, Rows: eachRunRows(out, DiagCallRows)},
		{Table: schema.DiagRent, Rows: eachRunRows(out, DiagRentRows)},
	}
}

// eachRunRows is a store.Derived's Rows: the rows rows gives of each of
// out's runs, run by run. R is a table's row type (its pointer has Values).
func eachRunRows[R any, P interface {
	*R
	Values() []any
}](out *diagnose.Summary, rows func(*diagnose.RunDiagnosis) []R) func(add func(vals ...any) error) error {
	return func(add func(vals ...any) error) error {
		for i := range out.Runs {
			rs := rows(&out.Runs[i])
			for j := range rs {
				if err := add(P(&rs[j]).Values()...); err != nil {
					return err
				}
			}
		}
		return nil
	}
}

// DiagRunRow is r as a diag_runs row.
func DiagRunRow(r *diagnose.RunDiagnosis) schema.DiagRun {
	o := r.Occupancy
	row := schema.DiagRun{
		RunID: r.RunID, SourceFormat: r.SourceFormat, Harness: r.Harness, Model: r.Model, ModelFamily: r.ModelFamily,
		WindowSource: r.WindowSource, NCalls: int64(len(o.Calls)), LoggedCalls: int64(o.LoggedCalls), EstimatedCalls: int64(o.EstimatedCalls),
		PeakTokens: o.PeakTokens, PeakTurn: o.PeakCall, Calls50: int64(o.Calls50), Calls80: int64(o.Calls80), Calls95: int64(o.Calls95),
		Compactions: int64(len(o.Compactions)), EndReason: r.End.Reason, EndReasonSource: r.End.Source, EndRule: r.End.Rule, EndReasonWhy: r.End.Why,
		RentTotal: r.RentTotal, RentSystemPrompt: r.RentSystemPrompt, RentToolDefinitions: r.RentToolDefinitions, ReReadsVisible: r.ReReadsVisible, ReReadsHidden: r.ReReadsHidden, ReReadsPending: r.ReReadsPending,
		Stalls: r.Stalls, StoppedWhileReading: r.StoppedWhileReading, BoundaryTurn: r.BoundaryCall, BoundaryEvent: r.BoundaryEvent,
		CostSource: r.Cost.Source, Resolved: r.Resolved, Repeats: r.Repeats, BoundaryFinished: r.BoundaryFinished,
		ContinuesRunID: r.ContinuesRunID, CopiedCalls: r.CopiedCalls, Copy: r.Copy,
	}
	if o.Window > 0 {
		w, p := o.Window, o.PeakShare
		row.WindowTokens, row.PeakShare = &w, &p
	}
	if r.Cost.Source != diagnose.CostUnknown {
		c := r.Cost.USD
		row.CostUSD = &c
	}
	return row
}

// DiagCallRows are r's calls as diag_calls rows.
func DiagCallRows(r *diagnose.RunDiagnosis) []schema.DiagCall {
	o := r.Occupancy
	rows := make([]schema.DiagCall, len(o.Calls))
	for i, c := range o.Calls {
		_, compaction := slices.BinarySearch(o.Compactions, c.Call) // sorted, distinct
		rows[i] = schema.DiagCall{RunID: r.RunID, Turn: c.Call, PromptTokens: c.Prompt, PromptSource: string(c.Source), Compaction: compaction}
		if o.Window > 0 {
			s := c.Share
			rows[i].Share = &s
		}
	}
	return rows
}

// DiagRentRows are r's rent rows (tools and prefix) as diag_rent rows.
func DiagRentRows(r *diagnose.RunDiagnosis) []schema.DiagRentRow {
	rows := make([]schema.DiagRentRow, len(r.RentByTool))
	for i, t := range r.RentByTool {
		rows[i] = schema.DiagRentRow{RunID: r.RunID, Tool: t.Tool, Rent: t.Rent, Outputs: t.Outputs, Tokens: t.Tokens}
	}
	return rows
}
