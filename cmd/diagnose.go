package cmd

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/schema"
)

// DiagnoseOptions are the flags of trajmine diagnose.
type DiagnoseOptions struct {
	Window int64
	By     string
	Prices string
	JSON   bool
	NoSave bool // do not write diag_runs and diag_calls (the database is opened read-only)
	Out    io.Writer
}

// NewDiagnoseCmd builds `trajmine diagnose`.
func NewDiagnoseCmd(d *Deps, runF func(*DiagnoseOptions) error) *cobra.Command {
	o := &DiagnoseOptions{}
	c := &cobra.Command{
		Use:   "diagnose",
		Short: "Do these runs die on window length? Occupancy and end reasons per run",
		Long: `Diagnose every imported run: its context window, the prompt size of each
model call against it, and why the run ended.

The window is --window N if given, else the run's logged window, else the
embedded table of known models' windows by model family, else unknown. A call's
prompt is its logged input tokens (incl. cache reads and writes) when the log
has per-call usage, else the estimated prompt of trajmine show. PEAK is the
largest single request, never a sum; ≥80% counts calls at or above 80 % of the
window; COMPACT counts the turns with a compaction, summary, continuation or
truncation.

END is the log's explicit reason where it has one. Otherwise the run is
inferred to have ended on window length when its last turn reports an
overflow (prompt is too long, context_length_exceeded, …) in an error, an
assistant message or a tool result, or when its last prompt is ≥ 95 % of the
window; finished when its last tool call is a submit (classes as in trajmine
classes) or its task is recorded as resolved; stalled when its last tool call
repeats a command that failed with the same output; else the importer's
inference is kept. WHY says which rule.

The reading boundary is the call by which half of the runs had stopped while
still reading (none of their last 3 tool calls an edit, test or submit, at
least one a read or search) without finishing: the Aalen–Johansen cumulative
incidence of that stop, finishing a competing outcome, runs that stopped
otherwise censored at their last call. It is stated only over at least 10
runs; the Kaplan–Meier curve that censors finished runs is in --json.

Token rent is each tool output's estimated tokens × the model calls that
carried it until compacted or hidden. Where the log shows them, the system
prompt (system events of role system or developer) and the tool definitions
(the system event of role tools) pay rent the same way, as rows "(system
prompt)" and "(tool definitions)", until a compaction, summary or
continuation (keyless masking and truncation drop history, not them).
Shares are of the total rent, prefix included; the verdict names the top
tool and, when present, the system prompt's and tool definitions' shares.
A prompt part no event shows (Claude Code and Codex logs omit the system
prompt and tool schemas) pays no rent here.

A re-read reads a target again, while the earlier output was still visible
in the prompt or after it was hidden; a stall is the same command (tool and
arguments) answered by the same failing output again (is_error or a non-zero
exit code), a repeat the same with an output that did not fail. The verdict comes first; --by groups the
peak-occupancy summary by model family, harness or source format.

A resumed or forked session (Claude Code copies the earlier messages, same
message id, into the new file) is linked to the run it continues: a usage row
with the request id and tokens of a row of a run that ended earlier is a copy,
counted there (store.CopiesSQL). Its cost is priced from its own rows, and a
run whose every row is a copy is left out of the verdict, groups, reading
boundary and cost totals.

Results are stored in three tables, replaced whole (in one transaction) on
each call unless --no-save is given (which opens the database read-only):
diag_runs, one row per run (window, calls, peak, calls ≥ 50/80/95 %,
compactions, end reason with source, rule and why, rent, re-reads, stalls,
reading-boundary input, cost, outcome); diag_calls, one row per model call
(prompt_tokens, prompt_source logged|estimated, share, compaction); and
diag_rent, one row per run and tool (rent, outputs, tokens). schema/diag.go
documents every column. The figures printed follow from them:

  window ends      count(*) FROM diag_runs WHERE end_reason = 'context_overflow'
                   (explicit / inferred: by end_reason_source)
  share, peak      share = prompt_tokens / window_tokens;
                   peak_tokens = max(prompt_tokens) of the run's diag_calls
  calls ≥ 80 %     count of the run's calls with prompt_tokens × 100 ≥ window_tokens × 80
  rent share       sum(rent) of a tool in diag_rent / sum(rent_total) of diag_runs
  reading boundary over runs with boundary_turn > 0, at each distinct
                   boundary_turn t in order: F(t) = F(previous t) + S(t⁻) × d/n,
                   S(t) = S(t⁻) × (1 − (d + f)/n), n = runs with boundary_turn
                   ≥ t, d = those with boundary_turn = t and boundary_event,
                   f = those with boundary_finished; the boundary is the first
                   t with F(t) ≥ 50 %, when there are ≥ 10 runs
  spend            sum(cost_usd) (NULL: cost unknown, left out)
  per solved task  sum(cost_usd) over runs with resolved NOT NULL /
                   count(*) FILTER (WHERE resolved)
`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, args []string) error {
			o.Out = c.OutOrStdout()
			if o.Window < 0 {
				return flagErrorf("--window must be a positive number of tokens")
			}
			switch o.By {
			case "model", "harness", "format":
			default:
				return flagErrorf("--by must be model, harness or format")
			}
			if runF != nil {
				return runF(o)
			}
			// Saving needs the database read-write; a missing database is
			// opened read-only so that the error says to ingest first.
			readOnly := o.NoSave
			if _, err := os.Stat(d.dbPath()); err != nil {
				readOnly = true
			}
			st, err := d.open(c.Context(), readOnly)
			if err != nil {
				return err
			}
			defer st.Close()
			return diagnoseRun(c.Context(), st, o)
		},
	}
	c.Flags().Int64Var(&o.Window, "window", 0, "context window in tokens for every run (overrides the log and the table)")
	c.Flags().StringVar(&o.By, "by", "model", "group the summary by model, harness or format")
	c.Flags().StringVar(&o.Prices, "prices", "", "YAML/JSON price file (USD per million tokens) that adds to or replaces the embedded prices")
	c.Flags().BoolVar(&o.JSON, "json", false, "print JSON: verdict, groups and every run with its calls and why")
	c.Flags().BoolVar(&o.NoSave, "no-save", false, "do not store the results in diag_runs and diag_calls (open the database read-only)")
	return c
}

// diagnoseVerdict is the headline: how many runs ended on window length.
type diagnoseVerdict struct {
	Runs          int     `json:"runs"`
	WindowEnds    int     `json:"window_ends"`
	Share         float64 `json:"share"`
	Explicit      int     `json:"explicit"`
	Inferred      int     `json:"inferred"`
	UnknownWindow int     `json:"unknown_window"`
	// Copies are runs left out (every usage row a copy of another run's);
	// Runs does not count them.
	Copies int `json:"copies"`
	// BoundaryFound: the reading-boundary survival curve fell to ≤ 50 % at
	// call BoundaryTurn.
	BoundaryFound bool  `json:"reading_boundary_found"`
	BoundaryTurn  int64 `json:"reading_boundary_turn"`
	// TopRentTool holds TopRentShare of all runs' token rent; empty when no
	// tool output has rent. The system prompt and tool definitions are not
	// tools: their shares are SystemPromptShare and ToolDefinitionsShare
	// (0 where no log shows them).
	TopRentTool          string  `json:"top_rent_tool"`
	TopRentShare         float64 `json:"top_rent_share"`
	SystemPromptShare    float64 `json:"system_prompt_share"`
	ToolDefinitionsShare float64 `json:"tool_definitions_share"`
}

// diagnoseRunOut is one run's diagnosis with its rent, re-reads, stalls and
// reading-boundary input.
type diagnoseRunOut struct {
	diagnose.RunResult
	RentTotal           int64         `json:"rent_total"`            // Σ over tool outputs, system prompt and tool definitions
	RentSystemPrompt    int64         `json:"rent_system_prompt"`    // part of RentTotal
	RentToolDefinitions int64         `json:"rent_tool_definitions"` // part of RentTotal
	ReReadsVisible      int64         `json:"rereads_visible"`
	ReReadsHidden       int64         `json:"rereads_hidden"`
	ReReadsPending      int64         `json:"rereads_pending"`
	Stalls              int64         `json:"stalls"`  // repeats of a (command, failing output) pair beyond the first
	Repeats             int64         `json:"repeats"` // repeats of a (command, output) pair that did not fail
	StoppedWhileReading bool          `json:"stopped_while_reading"`
	BoundaryTurn        int64         `json:"boundary_turn"`     // the run's last call (n_turns)
	BoundaryEvent       bool          `json:"boundary_event"`    // not finished and stopped while reading
	BoundaryFinished    bool          `json:"boundary_finished"` // finished (competing); neither: censored
	Cost                diagnose.Cost `json:"cost"`
	Resolved            *bool         `json:"resolved"` // the task outcome when known (runs.resolved)
	// ContinuesRunID: the run this one resumed or forked (store.CopiesSQL);
	// CopiedCalls of its usage rows are copies counted there, and Copy: all
	// of them (the run is left out of the cross-run figures).
	ContinuesRunID string `json:"continues_run_id,omitempty"`
	CopiedCalls    int64  `json:"copied_calls"`
	Copy           bool   `json:"copy"`

	// RentByTool is the run's rent per tool, with the prefix rows (diag_rent).
	RentByTool []diagnose.ToolRent `json:"rent_by_tool"`

	startedAt *time.Time // for the order of trajmine runs
}

// diagnoseTotals sums re-reads and stalls over runs.
type diagnoseTotals struct {
	ReReadsVisible int64 `json:"rereads_visible"`
	ReReadsHidden  int64 `json:"rereads_hidden"`
	ReReadsPending int64 `json:"rereads_pending"`
	Stalls         int64 `json:"stalls"`
	StallRuns      int64 `json:"stall_runs"`
	Repeats        int64 `json:"repeats"`
	RepeatRuns     int64 `json:"repeat_runs"`

	SpendUSD    float64            `json:"spend_usd"` // Σ known run costs
	CostLogged  int64              `json:"cost_logged_runs"`
	CostPriced  int64              `json:"cost_priced_runs"`
	CostUnknown int64              `json:"cost_unknown_runs"`
	PerSolved   diagnose.PerSolved `json:"per_solved"`
}

// diagnoseGroup is the peak-occupancy summary of one --by group.
type diagnoseGroup struct {
	Key           string  `json:"key"`
	Runs          int     `json:"runs"`
	WindowEnds    int     `json:"window_ends"`
	KnownWindow   int     `json:"known_window"`      // runs whose window is known
	MedianPeak    float64 `json:"median_peak_share"` // over runs with a known window
	MaxPeak       float64 `json:"max_peak_share"`
	RunsPeakGE80  int     `json:"runs_peak_ge_80"`
	MaxPeakTokens int64   `json:"max_peak_tokens"`
}

type diagnoseJSON struct {
	Verdict         diagnoseVerdict          `json:"verdict"`
	By              string                   `json:"by"`
	Groups          []diagnoseGroup          `json:"groups"`
	ReadingBoundary diagnose.ReadingBoundary `json:"reading_boundary"`
	RentByTool      []diagnose.ToolRent      `json:"rent_by_tool"`
	Totals          diagnoseTotals           `json:"totals"`
	Runs            []diagnoseRunOut         `json:"runs"`
}

func diagnoseRun(ctx context.Context, st *store.Store, o *DiagnoseOptions) error {
	out, err := diagnoseCompute(ctx, st, o)
	if err != nil {
		return err
	}
	if !o.NoSave {
		if err := diagnoseSave(ctx, st, out); err != nil {
			return err
		}
	}
	if o.JSON {
		return writeJSON(o.Out, out)
	}
	return writeDiagnose(o.Out, out)
}

// diagnoseCompute diagnoses every run in the store (see the command's help).
//
//  1. One streaming pass over the store (runPass over store.Scan: runs,
//     events, usage and context ops merged by run), so memory holds a few
//     runs' records at a time; each run is reduced to a diagnoseRunOut (its occupancy per call,
//     end reason, rent per tool, counts) and its records are dropped.
//  2. Runs are put in trajmine runs order (started_at, nulls last, then run_id).
//  3. The cross-run figures (verdict, groups, rent by tool, reading boundary,
//     totals, cost per solved task) are computed from the per-run results.
func diagnoseCompute(ctx context.Context, st *store.Store, o *DiagnoseOptions) (diagnoseJSON, error) {
	a, err := newDiagAnalysis(o)
	if err != nil {
		return diagnoseJSON{}, err
	}
	env, err := newPassEnv(ctx, st)
	if err != nil {
		return diagnoseJSON{}, err
	}
	if a.conts, err = st.Continuations(ctx); err != nil {
		return diagnoseJSON{}, fmt.Errorf("diagnose: %w", err)
	}
	if err := runPass(ctx, st, store.ScanOptions{}, env, a); err != nil {
		return diagnoseJSON{}, fmt.Errorf("diagnose: %w", err)
	}
	return a.finish(), nil
}

// diagAnalysis is diagnose's part of the shared pass (runPass): each run
// reduced to a diagnoseRunOut, the cross-run figures in finish.
type diagAnalysis struct {
	o       *DiagnoseOptions
	prices  diagnose.Prices
	conts   map[string]*store.Continuation // resumed and forked runs (st.Continuations)
	results []diagnoseRunOut
}

func newDiagAnalysis(o *DiagnoseOptions) (*diagAnalysis, error) {
	prices := diagnose.DefaultPrices()
	if o.Prices != "" {
		fh, err := os.Open(o.Prices)
		if err != nil {
			return nil, fmt.Errorf("--prices: %w", err)
		}
		prices, err = diagnose.LoadPrices(fh)
		fh.Close()
		if err != nil {
			return nil, fmt.Errorf("--prices %s: %w", o.Prices, err)
		}
	}
	return &diagAnalysis{o: o, prices: prices}, nil
}

func (a *diagAnalysis) worker() (func(*runWork) any, error) {
	return func(w *runWork) any {
		// the result keeps nothing of w's slices: it is built afresh
		var res diagnose.RunResult
		if a.o.Window == 0 {
			res = *w.diagnosed()
		} else {
			res = diagnose.RunWith(w.Run, w.Events, w.Usage, w.Ops, a.o.Window, w.endOptions())
		}
		out := diagnoseOne(res, w.Run, w.Events, w.Ops, *w.runStalls(), w.classify)
		out.Cost = diagnose.RunCost(w.Run, w.Usage, a.prices)
		if c := a.conts[w.Run.RunID]; c != nil {
			out.Cost = diagnose.OwnCost(w.Run, w.Usage, a.prices, c.Copied)
			out.ContinuesRunID, out.CopiedCalls = c.OriginRunID, int64(len(w.Usage)-len(diagnose.OwnUsage(w.Usage, c.Copied)))
			out.Copy = len(w.Usage) > 0 && out.CopiedCalls == int64(len(w.Usage))
		}
		return out
	}, nil
}

func (a *diagAnalysis) add(v any) error {
	a.results = append(a.results, v.(diagnoseRunOut))
	return nil
}

// finish computes the cross-run figures from the runs' results.
func (a *diagAnalysis) finish() diagnoseJSON {
	o, results := a.o, a.results
	var out diagnoseJSON
	slices.SortStableFunc(results, func(a, b diagnoseRunOut) int {
		switch {
		case a.startedAt == nil && b.startedAt != nil:
			return 1
		case a.startedAt != nil && b.startedAt == nil:
			return -1
		case a.startedAt != nil:
			if c := a.startedAt.Compare(*b.startedAt); c != 0 {
				return c
			}
		}
		return cmp.Compare(a.RunID, b.RunID)
	})
	if results == nil {
		results = []diagnoseRunOut{}
	}
	// a run whose every call is a copy of another run's counts once, there
	counted := make([]diagnoseRunOut, 0, len(results))
	for _, r := range results {
		if !r.Copy {
			counted = append(counted, r)
		}
	}
	out = diagnoseJSON{Verdict: diagnoseVerdictOf(counted), By: o.By, Groups: diagnoseGroups(counted, o.By), Runs: results}
	out.Verdict.Copies = len(results) - len(counted)
	rents := make([]diagnose.RunRent, 0, len(results))
	brs := make([]diagnose.BoundaryRun, 0, len(results))
	costs := make([]diagnose.Cost, 0, len(results))
	outcomes := make([]schema.Run, 0, len(results)) // only Resolved is read
	for _, r := range counted {
		rents = append(rents, diagnose.RunRent{RunID: r.RunID, Total: r.RentTotal, Tools: r.RentByTool})
		brs = append(brs, diagnose.BoundaryRun{RunID: r.RunID, Turn: r.BoundaryTurn, Event: r.BoundaryEvent, Finished: r.BoundaryFinished, StoppedWhileReading: r.StoppedWhileReading})
		costs = append(costs, r.Cost)
		outcomes = append(outcomes, schema.Run{RunID: r.RunID, Resolved: r.Resolved})
		out.Totals.ReReadsVisible += r.ReReadsVisible
		out.Totals.ReReadsHidden += r.ReReadsHidden
		out.Totals.ReReadsPending += r.ReReadsPending
		out.Totals.Stalls += r.Stalls
		if r.Stalls > 0 {
			out.Totals.StallRuns++
		}
		out.Totals.Repeats += r.Repeats
		if r.Repeats > 0 {
			out.Totals.RepeatRuns++
		}
		switch r.Cost.Source {
		case diagnose.CostLogged:
			out.Totals.CostLogged++
			out.Totals.SpendUSD += r.Cost.USD
		case diagnose.CostPriced:
			out.Totals.CostPriced++
			out.Totals.SpendUSD += r.Cost.USD
		default:
			out.Totals.CostUnknown++
		}
	}
	out.Totals.PerSolved = diagnose.CostPerSolved(costs, outcomes)
	out.RentByTool = diagnose.RentByTool(rents)
	out.ReadingBoundary = diagnose.Boundary(brs)
	out.Verdict.BoundaryFound, out.Verdict.BoundaryTurn = out.ReadingBoundary.Found, out.ReadingBoundary.Turn
	for _, t := range out.RentByTool {
		switch {
		case t.Tool == diagnose.RentSystemPrompt:
			out.Verdict.SystemPromptShare = t.Share
		case t.Tool == diagnose.RentToolDefinitions:
			out.Verdict.ToolDefinitionsShare = t.Share
		case out.Verdict.TopRentTool == "" && t.Rent > 0: // sorted by rent
			out.Verdict.TopRentTool, out.Verdict.TopRentShare = t.Tool, t.Share
		}
	}
	return out
}

// diagnoseSave replaces diag_runs, diag_calls and diag_rent with out's runs,
// in one transaction (store.WriteDerived).
func diagnoseSave(ctx context.Context, st *store.Store, out diagnoseJSON) error {
	if err := st.WriteDerived(ctx, diagnoseDerived(&out)...); err != nil {
		return fmt.Errorf("save diagnose results: %w", err)
	}
	return nil
}

// diagnoseDerived is the replacement of diag_runs, diag_calls and diag_rent
// with out's runs for store.WriteDerived; out is read when the rows are
// written, so it may be filled by an earlier table's rows in the same call.
func diagnoseDerived(out *diagnoseJSON) []store.Derived {
	runs := store.Derived{Table: schema.DiagRuns, Rows: func(add func(vals ...any) error) error {
		for i := range out.Runs {
			row := diagnoseRunRow(&out.Runs[i])
			if err := add(row.Values()...); err != nil {
				return err
			}
		}
		return nil
	}}
	calls := store.Derived{Table: schema.DiagCalls, Rows: func(add func(vals ...any) error) error {
		for i := range out.Runs {
			for _, c := range diagnoseCallRows(&out.Runs[i]) {
				if err := add(c.Values()...); err != nil {
					return err
				}
			}
		}
		return nil
	}}
	rent := store.Derived{Table: schema.DiagRent, Rows: func(add func(vals ...any) error) error {
		for i := range out.Runs {
			for _, t := range diagnoseRentRows(&out.Runs[i]) {
				if err := add(t.Values()...); err != nil {
					return err
				}
			}
		}
		return nil
	}}
	return []store.Derived{runs, calls, rent}
}

// diagnoseRunRow is r as a diag_runs row.
func diagnoseRunRow(r *diagnoseRunOut) schema.DiagRun {
	o := r.Occupancy
	row := schema.DiagRun{
		RunID: r.RunID, SourceFormat: r.SourceFormat, Harness: r.Harness, Model: r.Model, ModelFamily: r.ModelFamily,
		WindowSource: r.WindowSource, NCalls: int64(len(o.Calls)), LoggedCalls: int64(o.LoggedCalls), EstimatedCalls: int64(o.EstimatedCalls),
		PeakTokens: o.PeakTokens, PeakTurn: o.PeakTurn, Calls50: int64(o.Calls50), Calls80: int64(o.Calls80), Calls95: int64(o.Calls95),
		Compactions: int64(len(o.Compactions)), EndReason: r.End.Reason, EndReasonSource: r.End.Source, EndRule: r.End.Rule, EndReasonWhy: r.End.Why,
		RentTotal: r.RentTotal, RentSystemPrompt: r.RentSystemPrompt, RentToolDefinitions: r.RentToolDefinitions, ReReadsVisible: r.ReReadsVisible, ReReadsHidden: r.ReReadsHidden, ReReadsPending: r.ReReadsPending,
		Stalls: r.Stalls, StoppedWhileReading: r.StoppedWhileReading, BoundaryTurn: r.BoundaryTurn, BoundaryEvent: r.BoundaryEvent,
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

// diagnoseCallRows are r's calls as diag_calls rows.
func diagnoseCallRows(r *diagnoseRunOut) []schema.DiagCall {
	o := r.Occupancy
	rows := make([]schema.DiagCall, len(o.Calls))
	for i, c := range o.Calls {
		_, compaction := slices.BinarySearch(o.Compactions, c.Turn) // sorted, distinct
		rows[i] = schema.DiagCall{RunID: r.RunID, Turn: c.Turn, PromptTokens: c.Prompt, PromptSource: string(c.Source), Compaction: compaction}
		if o.Window > 0 {
			s := c.Share
			rows[i].Share = &s
		}
	}
	return rows
}

// diagnoseRentRows are r's rent rows (tools and prefix) as diag_rent rows.
func diagnoseRentRows(r *diagnoseRunOut) []schema.DiagRentRow {
	rows := make([]schema.DiagRentRow, len(r.RentByTool))
	for i, t := range r.RentByTool {
		rows[i] = schema.DiagRentRow{RunID: r.RunID, Tool: t.Tool, Rent: t.Rent, Outputs: t.Outputs, Tokens: t.Tokens}
	}
	return rows
}

// diagnoseOne completes one run's diagnosis res (diagnose.Run) with its
// rent, re-reads, stalls st (diagnose.Stalls) and reading-boundary input;
// classify gives action classes.
func diagnoseOne(res diagnose.RunResult, r schema.Run, events []schema.Event, ops []schema.ContextOp, st diagnose.RunStalls, classify diagnose.ClassifyFunc) diagnoseRunOut {
	vis := diagnose.NewVisibility(events, ops, &diagnose.VisibilityOptions{NTurns: r.NTurns})
	rent := vis.Rent()
	rr := diagnose.ReReads(events, vis, func(tool, args string) bool { return classify(r.Harness, tool, args) == "read" })
	b := diagnose.BoundaryInput(r, res.End, events, classify)
	return diagnoseRunOut{RunResult: res, RentTotal: rent.Total, RentSystemPrompt: rent.SystemPrompt, RentToolDefinitions: rent.ToolDefinitions, ReReadsVisible: rr.Visible, ReReadsHidden: rr.Hidden,
		ReReadsPending: rr.Pending, Stalls: st.NStalls, Repeats: st.NRepeats, StoppedWhileReading: b.StoppedWhileReading,
		BoundaryTurn: b.Turn, BoundaryEvent: b.Event, BoundaryFinished: b.Finished, Resolved: r.Resolved, RentByTool: rent.Tools, startedAt: r.StartedAt}
}

func diagnoseVerdictOf(results []diagnoseRunOut) diagnoseVerdict {
	v := diagnoseVerdict{Runs: len(results)}
	for _, r := range results {
		if r.Occupancy.Window == 0 {
			v.UnknownWindow++
		}
		if !r.End.WindowEnd() {
			continue
		}
		v.WindowEnds++
		if r.End.Source == "explicit" {
			v.Explicit++
		} else {
			v.Inferred++
		}
	}
	if v.Runs > 0 {
		v.Share = float64(v.WindowEnds) / float64(v.Runs)
	}
	return v
}

func diagnoseGroupKey(r diagnoseRunOut, by string) string {
	switch by {
	case "harness":
		return orDash(r.Harness)
	case "format":
		return orDash(r.SourceFormat)
	}
	return orDash(r.ModelFamily)
}

func diagnoseGroups(results []diagnoseRunOut, by string) []diagnoseGroup {
	idx := map[string]int{}
	var groups []diagnoseGroup
	peaks := map[string][]float64{}
	for _, r := range results {
		k := diagnoseGroupKey(r, by)
		i, ok := idx[k]
		if !ok {
			groups = append(groups, diagnoseGroup{Key: k})
			i = len(groups) - 1
			idx[k] = i
		}
		g := &groups[i]
		g.Runs++
		if r.End.WindowEnd() {
			g.WindowEnds++
		}
		g.MaxPeakTokens = max(g.MaxPeakTokens, r.Occupancy.PeakTokens)
		if r.Occupancy.Window > 0 {
			g.KnownWindow++
			p := r.Occupancy.PeakShare
			peaks[k] = append(peaks[k], p)
			g.MaxPeak = max(g.MaxPeak, p)
			if r.Occupancy.PeakTokens*100 >= r.Occupancy.Window*80 {
				g.RunsPeakGE80++
			}
		}
	}
	for i := range groups {
		ps := peaks[groups[i].Key]
		if len(ps) == 0 {
			continue
		}
		slices.Sort(ps)
		n := len(ps)
		if n%2 == 1 {
			groups[i].MedianPeak = ps[n/2]
		} else {
			groups[i].MedianPeak = (ps[n/2-1] + ps[n/2]) / 2
		}
	}
	slices.SortStableFunc(groups, func(a, b diagnoseGroup) int {
		return cmp.Or(cmp.Compare(b.Runs, a.Runs), cmp.Compare(a.Key, b.Key))
	})
	return groups
}

func writeDiagnose(w io.Writer, d diagnoseJSON) error {
	writeVerdict(w, d)
	fmt.Fprintf(w, "\nPeak occupancy by %s (the largest single request per run, as a share of its window):\n", d.By)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\tRUNS\tWINDOW-ENDS\tMEDIAN PEAK\tMAX PEAK\tRUNS PEAK≥80%%\tMAX PEAK TOKENS\n", diagnoseByHeader(d.By))
	for _, g := range d.Groups {
		med, mx := "-", "-"
		if g.KnownWindow > 0 {
			med, mx = pct(g.MedianPeak), pct(g.MaxPeak)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%d\t%s\n", snippet(g.Key, 32), g.Runs, g.WindowEnds, med, mx, g.RunsPeakGE80, thousands(g.MaxPeakTokens))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := writeDiagnoseExtras(w, d); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tMODEL\tWINDOW\tPEAK\tPEAK%\t≥80%\tCOMPACT\tEND\tWHY")
	for _, r := range d.Runs {
		o := r.Occupancy
		window, share := "? (unknown)", "-"
		if o.Window > 0 {
			window = thousands(o.Window) + " (" + r.WindowSource + ")"
			share = pct(o.PeakShare)
		}
		peak := thousands(o.PeakTokens)
		if len(o.Calls) > 0 && o.Calls[slices.IndexFunc(o.Calls, func(c diagnose.CallOccupancy) bool { return c.Turn == o.PeakTurn })].Source == diagnose.PromptEstimated {
			peak = "~" + peak
		}
		end := string(r.End.Reason)
		if r.End.Source == "inferred" {
			end += "?"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s: %s\n", snippet(r.RunID, 40), snippet(orDash(r.Model), 28), window, peak, share,
			o.Calls80, len(o.Compactions), end, r.End.Rule, snippet(r.End.Why, 80))
	}
	return tw.Flush()
}

func diagnoseByHeader(by string) string {
	switch by {
	case "harness":
		return "HARNESS"
	case "format":
		return "FORMAT"
	}
	return "MODEL FAMILY"
}

// diagnoseBoundaryClause is the verdict's reading-boundary clause, or why
// there is none, with the runs it rests on.
func diagnoseBoundaryClause(b diagnose.ReadingBoundary) string {
	switch {
	case b.Found:
		return fmt.Sprintf("reading boundary at call %s (%s of runs stopped while reading by then, %d of %d runs)",
			thousands(b.Turn), pct(b.Share), b.EventsBy, b.Runs)
	case b.Events == 0:
		return "no reading boundary (no unfinished run stopped while reading)"
	case b.Reached:
		return fmt.Sprintf("no reading boundary stated (%s stopped while reading by call %s, but over %d runs, fewer than %d)",
			pct(b.Share), thousands(b.ReachedTurn), b.Runs, b.MinRuns)
	}
	return fmt.Sprintf("no reading boundary (%s of %d runs stopped while reading, %d of them; %s needed)", pct(b.Incidence), b.Runs, b.Events, pct(b.Share))
}

// diagnoseRentClause is the verdict's token-rent clause, or why there is
// none, followed by the system prompt's and tool definitions' shares where
// the logs show them.
func diagnoseRentClause(v diagnoseVerdict) string {
	s := "no token rent (no tool output was carried by a later call)"
	if v.TopRentTool != "" {
		s = fmt.Sprintf("%s holds %s of token rent", snippet(v.TopRentTool, 32), pct(v.TopRentShare))
	}
	var prefix []string
	if v.SystemPromptShare > 0 {
		prefix = append(prefix, "system prompt "+pct(v.SystemPromptShare))
	}
	if v.ToolDefinitionsShare > 0 {
		prefix = append(prefix, "tool definitions "+pct(v.ToolDefinitionsShare))
	}
	if len(prefix) > 0 {
		s += "; " + strings.Join(prefix, " / ") + " of token rent"
	}
	return s
}

// writeDiagnoseExtras prints the token-rent table, the reading-boundary
// curve's event points, and the re-read and stall totals.
func writeDiagnoseExtras(w io.Writer, d diagnoseJSON) error {
	fmt.Fprintln(w, "\nToken rent by tool (tokens × the calls that carried them; top 10):")
	if len(d.RentByTool) == 0 {
		fmt.Fprintln(w, "  no tool outputs")
	} else {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "TOOL\tRENT\tSHARE\tOUTPUTS\tMEAN TOKENS")
		for i, t := range d.RentByTool {
			if i == 10 {
				break
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", snippet(orDash(t.Tool), 32), thousands(t.Rent), pct(t.Share), thousands(t.Outputs), thousands(int64(math.Round(t.MeanTokens))))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	b := d.ReadingBoundary
	fmt.Fprintf(w, "\nReading boundary (Aalen–Johansen, finishing a competing outcome; %d runs: %d stopped while reading, %d finished, %d censored; turns with reading stops):\n",
		b.Runs, b.Events, b.Finished, b.Censored)
	if b.Events == 0 {
		fmt.Fprintln(w, "  no unfinished run stopped while reading")
	} else {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "CALL\tAT RISK\tREADING\tFINISHED\tCENSORED\tINCIDENCE\tFINISHED INCIDENCE")
		for _, p := range b.CIF {
			if p.Events == 0 {
				continue
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t%s\n", thousands(p.Turn), p.AtRisk, p.Events, p.Finished, p.Censored, pct(p.Incidence), pct(p.FinishedIncidence))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	t := d.Totals
	fmt.Fprintf(w, "\nRe-reads: %s while the earlier output was visible, %s after it was hidden, %s before it reached a prompt\n",
		thousands(t.ReReadsVisible), thousands(t.ReReadsHidden), thousands(t.ReReadsPending))
	fmt.Fprintf(w, "Stalls: %s repeats of a command with an identical failing output, in %s runs; %s repeats with an identical output that did not fail, in %s runs\n",
		thousands(t.Stalls), thousands(t.StallRuns), thousands(t.Repeats), thousands(t.RepeatRuns))
	fmt.Fprintf(w, "Cost: $%.2f over %d runs (logged %d, priced from usage %d, unknown %d)", t.SpendUSD, t.CostLogged+t.CostPriced, t.CostLogged, t.CostPriced, t.CostUnknown)
	if ps := t.PerSolved; ps.USD != nil {
		fmt.Fprintf(w, "; per solved task $%.2f (%d resolved, %d failed; %d runs with unknown outcome left out)\n", *ps.USD, ps.Resolved, ps.Failed, ps.Excluded)
	} else {
		fmt.Fprintf(w, "; per solved task: no run with a known resolved outcome\n")
	}
	return nil
}

// writeVerdict prints the verdict lines (also printed by trajmine report).
func writeVerdict(w io.Writer, d diagnoseJSON) {
	v := d.Verdict
	fmt.Fprintf(w, "%s of %s runs (%s) ended on window length (%d explicit, %d inferred); %s; %s\n",
		thousands(int64(v.WindowEnds)), thousands(int64(v.Runs)), pct(v.Share), v.Explicit, v.Inferred,
		diagnoseBoundaryClause(d.ReadingBoundary), diagnoseRentClause(v))
	if v.UnknownWindow > 0 {
		fmt.Fprintf(w, "%s runs have no known window (use --window N): their occupancy shares are not computed\n", thousands(int64(v.UnknownWindow)))
	}
	if v.Copies > 0 {
		fmt.Fprintf(w, "%s runs are copies of another run (resumed or forked, no call of their own) and are counted once, in their origin\n", thousands(int64(v.Copies)))
	}
}
