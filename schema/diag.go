package schema

// Tables of diagnose results. They are written by trajmine diagnose (each
// call replaces every one of them whole, in one transaction), not by importers, so
// they are not in Tables: they hold the results of the last diagnose, with
// the --window it was given, until the next one.
const (
	TableDiagRuns  = "diag_runs"
	TableDiagCalls = "diag_calls"
	TableDiagRent  = "diag_rent"
)

// DiagRuns describes the diag_runs table: one row per diagnosed run.
var DiagRuns = Table{Name: TableDiagRuns, Doc: "trajmine diagnose: one row per run (occupancy, end reason and why, token rent, re-reads, stalls, reading-boundary input, cost)", Columns: []Column{
	col(ColRunID, Varchar, "the run (runs.run_id)"),
	col(ColSourceFormat, Varchar, "importer name"),
	col("harness", Varchar, "agent harness"),
	col("model", Varchar, "model name as logged"),
	col(ColModelFamily, Varchar, "normalised model family"),
	nul("window_tokens", BigInt, "the context window used: --window, else the logged window, else the known-models table; NULL when unknown"),
	col("window_source", Varchar, "flag, log, table or unknown"),
	col("n_calls", BigInt, "model calls diagnosed: turns with model output or a usage row, and the turns with events before the last of them; events after the last call are no call (= the run's diag_calls rows)"),
	col("logged_calls", BigInt, "calls whose prompt is the logged input (prompt_source logged)"),
	col("estimated_calls", BigInt, "calls whose prompt is estimated from the event history"),
	col("peak_tokens", BigInt, "the largest single prompt over the run's calls (never a sum): max(diag_calls.prompt_tokens)"),
	col("peak_turn", BigInt, "turn of the peak call (the earliest on ties)"),
	nul("peak_share", Double, "peak_tokens / window_tokens; NULL when the window is unknown"),
	col("calls_ge_50", BigInt, "calls with prompt_tokens × 100 ≥ window_tokens × 50 (0 when the window is unknown)"),
	col("calls_ge_80", BigInt, "calls with prompt_tokens × 100 ≥ window_tokens × 80"),
	col("calls_ge_95", BigInt, "calls with prompt_tokens × 100 ≥ window_tokens × 95"),
	col("compactions", BigInt, "distinct turns with a compaction, summary, continuation or truncation op"),
	col("end_reason", Varchar, "finished, context_overflow, step_limit, cost_limit, error, interrupted, stalled, unknown"),
	col("end_reason_source", Varchar, "explicit (the log says) or inferred"),
	col("end_rule", Varchar, "the rule that decided (diagnose.EndRules, in the order tried): log, submit, outcome, error-text, message-text, self-report, margin, cut-reply, final-answer, stall or importer"),
	col("end_reason_why", Varchar, "one sentence saying why (the log's words, the submit, the overflow error or report, the last prompt against the window, or the closing reply)"),
	col("rent_total", BigInt, "token rent: Σ est_tokens × the model calls that carried it, over tool outputs and the system-prompt and tool-definition events"),
	col("rent_system_prompt", BigInt, "the part of rent_total of system-prompt events (kind system, role system or developer); 0 when the log shows none"),
	col("rent_tool_definitions", BigInt, "the part of rent_total of the tool-definitions event (kind system, role tools); 0 when the log shows none"),
	col("rereads_visible", BigInt, "reads of a target whose earlier output was still in the prompt"),
	col("rereads_hidden", BigInt, "reads of a target whose earlier output had been compacted or hidden"),
	col("rereads_pending", BigInt, "reads of a target whose earlier output had not reached a prompt yet"),
	col("stalls", BigInt, "stalls: repeats of a (tool, action, identical failing output) pair beyond its first occurrence (failing: is_error or a non-zero exit code)"),
	col("stopped_while_reading", Boolean, "none of the last 3 tool calls an edit, test or submit, at least one a read or search"),
	col("boundary_turn", BigInt, "the run's number of model calls: its time on the reading-boundary curve"),
	col("boundary_event", Boolean, "the event of interest of the reading boundary (not finished and stopped while reading)"),
	nul("cost_usd", Double, "the run's cost: the logged cost_usd, else usage × the price table; NULL when unknown"),
	col("cost_source", Varchar, "logged, priced or unknown"),
	nul("resolved", Boolean, "the task outcome when known (runs.resolved)"),
	col("repeats", BigInt, "repeats of a (tool, action, identical output) pair whose output did not fail, beyond its first occurrence"),
	col("boundary_finished", Boolean, "the competing outcome of the reading boundary (the run finished); neither this nor boundary_event: censored"),
	nul("continues_run_id", Varchar, "the run this one resumed or forked: its log copies that run's usage rows (store.CopiesSQL); NULL when none"),
	col("copied_calls", BigInt, "usage rows that are copies of the origin run's (counted there: cost_usd leaves them out)"),
	col("copy", Boolean, "every usage row is a copy: the run is left out of the verdict, groups, reading boundary and cost totals"),
}}

// DiagCalls describes the diag_calls table: one row per model call of each diagnosed run.
var DiagCalls = Table{Name: TableDiagCalls, Doc: "trajmine diagnose: one row per model call of each run (its prompt against the window)", Columns: []Column{
	col(ColRunID, Varchar, "the run (runs.run_id)"),
	col(ColTurn, BigInt, "model call index"),
	col("prompt_tokens", BigInt, "the call's prompt: logged input incl. cache reads and writes, else the estimated prompt"),
	col("prompt_source", Varchar, "logged (a usage row not marked estimated) or estimated (from the event history)"),
	nul("share", Double, "prompt_tokens / diag_runs.window_tokens; NULL when the window is unknown"),
	col("compaction", Boolean, "a compaction, summary, continuation or truncation op has this turn"),
}}

// DiagRent describes the diag_rent table: each run's token rent per tool.
var DiagRent = Table{Name: TableDiagRent, Doc: "trajmine diagnose: one row per run and tool with tool outputs, plus the system prompt and tool definitions where the log shows them (token rent)", Columns: []Column{
	col(ColRunID, Varchar, "the run (runs.run_id)"),
	col("tool", Varchar, "tool name of the outputs, or (system prompt) / (tool definitions)"),
	col("rent", BigInt, "Σ est_tokens × the model calls that carried it, over the tool's outputs (or the prefix events)"),
	col("outputs", BigInt, "tool outputs (tool_result events), or prefix events"),
	col("tokens", BigInt, "Σ est_tokens of those outputs or events"),
}}

// DiagTables lists the diagnose result tables in creation order.
var DiagTables = []Table{DiagRuns, DiagCalls, DiagRent}

// DiagRun is one row of diag_runs.
type DiagRun struct {
	RunID               string
	SourceFormat        string
	Harness             string
	Model               string
	ModelFamily         string
	WindowTokens        *int64 // nil when unknown
	WindowSource        string
	NCalls              int64
	LoggedCalls         int64
	EstimatedCalls      int64
	PeakTokens          int64
	PeakTurn            int64
	PeakShare           *float64 // nil when the window is unknown
	Calls50             int64
	Calls80             int64
	Calls95             int64
	Compactions         int64
	EndReason           EndReason
	EndReasonSource     ReasonSource
	EndRule             string
	EndReasonWhy        string
	RentTotal           int64
	RentSystemPrompt    int64
	RentToolDefinitions int64
	ReReadsVisible      int64
	ReReadsHidden       int64
	ReReadsPending      int64
	Stalls              int64
	StoppedWhileReading bool
	BoundaryTurn        int64
	BoundaryEvent       bool
	CostUSD             *float64 // nil when unknown
	CostSource          string
	Resolved            *bool
	Repeats             int64
	BoundaryFinished    bool
	ContinuesRunID      string // "" = NULL
	CopiedCalls         int64
	Copy                bool
}

// Values returns r's fields in DiagRuns column order.
func (r *DiagRun) Values() []any {
	return []any{r.RunID, r.SourceFormat, r.Harness, r.Model, r.ModelFamily, ptrI(r.WindowTokens), r.WindowSource,
		r.NCalls, r.LoggedCalls, r.EstimatedCalls, r.PeakTokens, r.PeakTurn, ptrF(r.PeakShare), r.Calls50, r.Calls80, r.Calls95,
		r.Compactions, string(r.EndReason), string(r.EndReasonSource), r.EndRule, r.EndReasonWhy,
		r.RentTotal, r.RentSystemPrompt, r.RentToolDefinitions, r.ReReadsVisible, r.ReReadsHidden, r.ReReadsPending,
		r.Stalls, r.StoppedWhileReading, r.BoundaryTurn, r.BoundaryEvent, ptrF(r.CostUSD), r.CostSource, ptrB(r.Resolved),
		r.Repeats, r.BoundaryFinished, strOrNil(r.ContinuesRunID), r.CopiedCalls, r.Copy}
}

// DiagCall is one row of diag_calls.
type DiagCall struct {
	RunID        string
	Turn         int64
	PromptTokens int64
	PromptSource string
	Share        *float64 // nil when the window is unknown
	Compaction   bool
}

// Values returns c's fields in DiagCalls column order.
func (c *DiagCall) Values() []any {
	return []any{c.RunID, c.Turn, c.PromptTokens, c.PromptSource, ptrF(c.Share), c.Compaction}
}

// DiagRentRow is one row of diag_rent.
type DiagRentRow struct {
	RunID   string
	Tool    string
	Rent    int64
	Outputs int64
	Tokens  int64
}

// Values returns r's fields in DiagRent column order.
func (r *DiagRentRow) Values() []any {
	return []any{r.RunID, r.Tool, r.Rent, r.Outputs, r.Tokens}
}
