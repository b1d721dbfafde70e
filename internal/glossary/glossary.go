// Package glossary holds the words trajmine's output uses with a meaning
// of their own, each with a short definition: trajmine help terms prints
// them, and the page can embed the same list (Terms, or JSON of it), so
// that a word means one thing wherever it is read.
//
// A definition says what the word names in trajmine's figures, in plain
// words, and where a figure is an estimate, what it estimates. Terms are
// in alphabetical order (case-folded); the test keeps them so.
package glossary

// Term is one word or phrase and what it means in trajmine's output.
type Term struct {
	Name       string `json:"term"`
	Definition string `json:"definition"`
}

// Terms is the glossary, in alphabetical order.
var Terms = []Term{
	{"as-logged", "What ran: each run replayed under the context management its log shows (compactions, summaries, elisions, manage_context calls at the calls they happened). Every policy is compared with it on the same calls."},
	{"cached cost", "Dollars with prompt caching, as each provider prices it: tokens read from the cache at the cache-read price, written to it at the write price, the rest at the input price, plus outputs. The prices are trajmine's price table (--prices to override)."},
	{"call", "One request to the model and its response (older logs and the stored columns say turn: events.turn, runs.n_turns). CALLS in the tables counts them."},
	{"carried tokens", "A tool output's tokens times the later calls whose prompts still hold it: what keeping an output costs. The verdict names the tool whose outputs make up most of them (diagnose's token rent)."},
	{"CI", "A 95% confidence interval, written value [lo, hi]: here a run-level percentile bootstrap (1,000 resamples of the runs, fixed seed). A ratio whose upper end is below 1 is cheaper than what ran beyond the runs' noise; one whose CI reaches 1 is not counted as a saving."},
	{"compaction", "A harness replacing the conversation so far with a summary to free the window (Claude Code's auto-compact, Codex's compaction). Logged compactions are replayed by as-logged; compact-* policies model a harness's own."},
	{"cost per solved task", "Σ cost over the runs divided by the runs that solved their task, as a ratio against the same figure for what ran. A replay cannot know whether a run would still solve: it keeps each run's outcome, and a run the policy loses counts as unsolved."},
	{"cost × (cost ratio)", "Σ cached cost of a policy / Σ cached cost of what ran, over the priced runs and the same calls: 0.900 is 10% cheaper, 1.100 10% dearer."},
	{"cumulative incidence", "The estimated share of runs that, by a given call, had stopped in one way (here: while reading), with finishing as a competing outcome (Aalen–Johansen); runs whose logs end earlier count for the calls they reached. It is not the share of runs seen to stop so, which leaves out what the shorter logs could not show."},
	{"end reason", "Why a run's log ended: finished, context_overflow (window length), an error, a cancel, or unknown. It is explicit when the log says so, inferred (marked ?) when trajmine read it from the last calls."},
	{"held-out runs", "The runs a recommendation is checked on, not chosen on: a run is held out when FNV-1a(run id) mod --holdout-every (4) is 0. A policy is recommended only when it is cheaper than what ran on them too."},
	{"keep-all", "The policy that never removes anything from the prompt: every event stays in full. A reference: it shows what the logged context management saved."},
	{"model family", "The models a recommendation is made for together, e.g. gpt-4.1 or claude-sonnet-4 (versions and dates set aside)."},
	{"overflow", "A call whose prompt plus output tokens exceed the window: under a replay the run ends there. OVERFLOW counts the runs it happens to."},
	{"placeholder", "What a policy leaves in the prompt in place of an output it hides: a short line with the tool, the time and the output's token estimate, so the model can ask for it again."},
	{"policy", "A rule for what stays in the prompt at each call (keep-all, masking old outputs, truncation, a harness's compaction …). trajmine policies lists them with their parameters."},
	{"re-invocation", "A predicted repeat of a tool call: a later call uses an output the policy had hidden (or cut where the evidence was), so the agent would have run the tool again. Each costs the output's tokens plus one call's prompt; REINV/100 CALLS counts them per 100 calls."},
	{"reading boundary", "The call by which the cumulative incidence of stopping while reading reaches half the runs: past it, most runs that stop have stopped while still reading. Stated only over at least 10 runs."},
	{"run", "One logged agent session, or one sub-agent of it (its id is the session's with the sub-agent's after it), or one sample of an eval."},
	{"saved, lost", "SAVED counts runs lost under what ran (ended on window length) that a policy carries to their logged end; LOST counts runs what ran got through that the policy does not. Nothing past a run's logged end is extrapolated."},
	{"solve rate", "The share of runs with a known outcome that solved their task (outcome files, or the log's own scores)."},
	{"stopped while reading", "A run whose log did not finish and whose last 3 tool calls include a read or search and no edit, test or submit."},
	{"tokens × (token ratio)", "Σ prompt tokens of a policy (re-invocations and summaries included) / Σ prompt tokens of what ran, on the same calls."},
	{"window", "The most tokens a model takes in one call, prompt plus output: the run's own (its model's) unless --window sets one for every run."},
	{"window what-if", "--window N below the windows the runs ran at: which runs would have died at N under what ran (a logged call does not fit) and which a policy carries to their logged end."},
}
