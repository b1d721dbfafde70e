package schema

// Tables of simulate results, written by trajmine simulate (not importers):
// one row per run × policy × window in sim_runs and one per replayed call in
// sim_calls. A simulate call replaces the rows of the runs it replayed (all
// runs, or its --shard), so shards run one after another fill the tables.
const (
	TableSimRuns  = "sim_runs"
	TableSimCalls = "sim_calls"
)

// SimRuns describes the sim_runs table.
var SimRuns = Table{Name: TableSimRuns, Doc: "trajmine simulate: one row per run × policy × window", Columns: []Column{
	col(ColRunID, Varchar, "the run (runs.run_id)"),
	col("policy", Varchar, "the policy's canonical spec, every parameter spelled out (trajmine policies)"),
	col("window_tokens", BigInt, "the window replayed against; 0 = unbounded (no window given or known)"),
	col(ColSourceFormat, Varchar, "importer name"),
	col(ColModelFamily, Varchar, "normalised model family"),
	col("harness", Varchar, "agent harness"),
	col("logged_calls", BigInt, "model calls in the log"),
	col("calls", BigInt, "calls replayed: logged_calls − dropped_context_calls, or the calls before the overflow call when the run overflowed"),
	col("status", Varchar, "survived (all calls fit, the log says finished), censored (all calls fit, the logged run stopped unfinished: the data cannot say what follows) or overflow"),
	nul("overflow_call", BigInt, "the call whose prompt + output exceeded the window (the logged run's call index, as every call column); NULL unless status = overflow"),
	nul("keep_all_overflow_call", BigInt, "the first call keep-all overflows at this window; NULL when it never does"),
	nul("first_activation", BigInt, "the first call whose prompt the policy changed; NULL when it never acted"),
	col("prompt_tokens", BigInt, "Σ prompt tokens over the replayed calls (sim_calls.prompt_tokens)"),
	col("keep_all_tokens", BigInt, "Σ keep-all prompt tokens over the same calls, window ignored (a reference: comparisons are against as_logged_tokens)"),
	col("token_ratio", Double, "the keep-all ratio, prompt_tokens / keep_all_tokens (1 when both are 0): against the keep-all reference (named before the token ratio the CLI, the page and the JSON show, which is as_logged_ratio: against what ran)"),
	col("peak_tokens", BigInt, "the largest prompt of one replayed call"),
	col("cached_tokens", BigInt, "Σ over calls of the prompt prefix unchanged since the previous call (what a prompt cache reuses)"),
	col("output_tokens", BigInt, "Σ output tokens of the replayed calls (logged, else estimated)"),
	col("placeholders_max", BigInt, "most placeholders present in one prompt"),
	col("chars_full", BigInt, "Σ over calls of the recorded characters the prompt would hold in full"),
	col("chars_removed", BigInt, "Σ over calls of the characters the policy removed"),
	col("chars_removed_share", Double, "chars_removed / chars_full (0 when chars_full is 0)"),
	col("summarizer_calls", BigInt, "summarizer model calls (compaction policies)"),
	col("summarizer_in", BigInt, "Σ summarizer input tokens"),
	col("summarizer_out", BigInt, "Σ summarizer output tokens"),
	col("reinvocations", BigInt, "predicted re-invocations: uses of an output that was hidden or cut at the using call (package counterfactual)"),
	col("reinvocation_tokens", BigInt, "their cost: Σ (the output's tokens + the using call's prompt)"),
	nul("cost_usd", Double, "(prompt + re-invocation + summarizer input tokens) × input price + (output + summarizer output) × output price; NULL when the model has no price"),
	nul("cost_cached_usd", Double, "as cost_usd, but cached_tokens at the cache-read price and the rest of each prompt at the cache-write price (input price when the table has none)"),
	col("boundary_turn", BigInt, "calls before the run stopped: its time on the reading-boundary curve"),
	col("boundary_event", Boolean, "an event of the policy's reading-boundary curve (stopped while reading, not finished, not censored)"),
	col("as_logged_tokens", BigInt, "Σ as-logged prompt tokens over the same calls (the dropped manage_context calls included), window ignored: the run replayed under its own logged context management (policy as-logged), the default baseline"),
	col("as_logged_summarizer_in", BigInt, "Σ summarizer input of the logged compactions over the same calls (the prompt each compacted)"),
	nul("as_logged_overflow_call", BigInt, "the first call the as-logged replay overflows at this window; NULL when it never does"),
	col("as_logged_ratio", Double, "prompt_tokens / as_logged_tokens (1 when as_logged_tokens is 0)"),
	col("baseline_overflow", Boolean, "the run is lost under what ran at this window (as_logged_overflow_cause says why): the log ended on window length and this is its own window or a smaller one; or this window is below the one the run ran at and as-logged overflows here (its logged prompts exceed it, finished log or not); or the log did not finish and as-logged overflows"),
	col("saved", Boolean, "baseline_overflow and the policy does not overflow: it carries the run to its logged end (what the agent would have done after is not in the data); at the run's own window never a run whose log finished; never for as-logged itself"),
	col("lost", Boolean, "the policy overflows where the as-logged replay does not (as_logged_overflow_call NULL) and not baseline_overflow"),
	nul("as_logged_cost_usd", Double, "as cost_usd for the as-logged baseline on the same calls (its summarizer calls at the input and output prices); NULL when the model has no price"),
	col("boundary_finished", Boolean, "the competing outcome of the reading boundary: the run got through its logged calls and the log says it finished"),
	col("overflow_logged", Boolean, "the overflow is the log's own (the run ended on window length, its replayed prompts fit, the policy saved nothing by its last call)"),
	col("stall_messages", BigInt, "stall messages the policy injected (not counted as activation)"),
	col("stall_message_tokens", BigInt, "their tokens"),
	col("dropped_context_calls", BigInt, "the policy replaces the agent's context management (every mechanism but logged and dtoc), so the run was replayed without its manage_context calls: this many context-only calls (all tool calls manage_context) fell within the replayed calls and were dropped; calls + dropped_context_calls = logged_calls when the replay got through; 0 for dtoc and as-logged. The agent's other actions are held fixed"),
	col("as_logged_overflow_cause", Varchar, "why baseline_overflow: 'logged' (the log ended on window length, at its own window or below), 'window' (this window is below the one the run ran at and its logged prompts exceed it), 'replayed' (an unfinished log whose as-logged replay overflows at its own window or above); '' when not baseline_overflow"),
}}

// SimCalls describes the sim_calls table.
var SimCalls = Table{Name: TableSimCalls, Doc: "trajmine simulate: one row per replayed call of each run × policy × window", Columns: []Column{
	col(ColRunID, Varchar, "the run (runs.run_id)"),
	col("policy", Varchar, "sim_runs.policy"),
	col("window_tokens", BigInt, "sim_runs.window_tokens"),
	col("call", BigInt, "model call index"),
	col("prompt_tokens", BigInt, "prefix + summary + Σ rendered items admitted by this call"),
	col("cached_tokens", BigInt, "prefix unchanged since the previous call"),
	col("output_tokens", BigInt, "the call's output tokens"),
	col("placeholders", BigInt, "placeholders present in the prompt"),
	col("chars_removed", BigInt, "characters the policy removed from this prompt"),
	col("overflow", Boolean, "prompt + output exceeded the window (the last row of an overflowed run)"),
	col("summarizer_in", BigInt, "summarizer input tokens spent before this call"),
	col("summarizer_out", BigInt, "summarizer output tokens spent before this call"),
	col("reinvocations", BigInt, "predicted re-invocations at this call"),
}}

// SimTables lists the simulate result tables.
var SimTables = []Table{SimRuns, SimCalls}
