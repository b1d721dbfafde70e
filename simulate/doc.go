// Package simulate replays logged agent runs under alternative context
// policies, offline and deterministically.
//
// A run becomes a Trace: its prompt items (system, user, assistant,
// reasoning, tool-call and tool-result events, in seq order) with the first
// model call whose prompt holds each one, its calls' output tokens and logged
// input tokens, the logged manage_context ops, and the later uses of each
// tool output (package counterfactual). Replay walks the calls in order; at
// call t the prompt is
//
//	prompt(t) = prefix + summary(t) + Σ rendered tokens of the items admitted by t
//
// where each item is rendered by the policy as full, placeholder, truncated
// (head + tail), dropped, or folded into a summary stand-in. Per call it
// records the prompt tokens, the tokens read from and written to the
// provider's prompt cache (cache.go: the run's provider rule, Anthropic's
// explicit breakpoints, OpenAI's automatic or Google's implicit caching,
// applied to the prefix unchanged since call t-1, with expiry by the logged
// call times), the placeholders present and the characters removed,
// and whether prompt + the call's output tokens exceed the window. A run that
// overflows ends there (policies that react to an overflow, such as provider
// truncation, get one chance to make it fit). Nothing is extrapolated past a
// run's logged end: a run that survives its logged calls is "survived" when
// the log says it finished, else "censored".
//
// Token model: an item's tokens are its estimated tokens (est_tokens, times
// a calibration factor when one is given); the part of the prompt the log
// never shows (system prompt and tool definitions when unrecorded) is the
// "prefix", measured once per run at its first call with logged usage as
// logged input − Σ estimated items visible to that call (0 when negative or
// when the run has no usage). KeepAll's error against the logged input of the
// later calls is the simulator's own accuracy (see Accuracy).
//
// Harness compactions recorded in the log (compaction events) are not
// replayed by the catalog's policies: every policy starts from the full
// recorded history, so a policy can be judged on runs whose harness
// compacted; keep-all's accuracy check stops at a run's first logged
// compaction. What ran is the as-logged baseline (aslogged.go): the run
// replayed under its own logged compactions and ops, with the same token
// model, checked against the logged input at every call (LoggedAccuracy).
// Every comparison is against it: RunResult's AsLogged* fields hold its
// figures over the same calls, and Saved / Lost its verdicts; keep-all
// stays a reference. Its predicted cache reads and writes are checked
// against the ones a log states (cache_accuracy.go: CheckCache,
// CacheAccuracy), and what ran is priced against the log's own usage and
// stated cost.
//
// Window what-if. A run is lost under what ran at a window
// (RunResult.BaselineOverflow, BaselineLoss says why) when its log ended on
// window length and the window is its own or smaller (LossLogged); when the
// window is below the one the run ran at and the as-logged replay overflows
// there (LossWindow: a call the run sent, prompt plus output, does not fit,
// so at that window it dies at that call although its log went on, finished
// or not); or when its log did not finish and the as-logged replay overflows
// (LossReplayed). A policy that keeps every call within the window saves
// such a run (Saved): it carries it to its logged end, and what the agent
// would have done after that end is unknown, so a saved run is never
// extended. At its own window a run whose log finished is never saved.
//
// A policy that replaces the agent's own context management (every
// mechanism but logged and dtoc: keep-all, masking, truncation, compaction)
// replays the run without the agent's DTOC manage_context calls, as a
// harness that does not offer the tool would run (noctx.go,
// Trace.WithoutContextCalls): each such call is a whole model call whose
// prompt the counterfactual never sends. The agent's other actions are held
// fixed; the token model is the logged run's; the comparison with as-logged
// covers the same part of the logged run (RunResult.DroppedContextCalls).
//
// # Words
//
// Each word below means one thing in this package, in its JSON (README,
// "JSON fields") and in the CLI's and the page's text; diagnose's package
// doc defines call, window, prompt, overflow and reading boundary.
//
//   - as-logged: the run replayed under its own logged context management
//     (AsLoggedName): what ran, the baseline every comparison is made
//     against.
//   - keep-all: nothing is ever removed from the prompt: a reference, never
//     the baseline.
//   - prompt tokens: Σ over the replayed calls of each call's prompt
//     (RunResult.PromptTokens; as-logged's on the same calls:
//     AsLoggedPromptTokens; keep-all's: KeepAllTokens).
//   - effective tokens: prompt tokens + predicted re-invocation tokens +
//     summarizer input (Row.EffectiveTokens; as-logged's: its prompts + its
//     summarizer input, RunResult.BaselineEffective).
//   - token ratio: prompt tokens over as-logged's on the same calls
//     (RunResult.TokenRatio; Agg.RatioMedian is the median over runs).
//   - effective ratio: effective tokens over as-logged's (Agg.EffectiveRatio
//     of the sums, with its CI; Agg.EffRatioMedian over runs).
//   - keep-all ratio: prompt tokens over keep-all's (RunResult.KeepAllRatio,
//     Agg.KeepAllRatio): a reference.
//   - cost ratio: cost over as-logged's cost on the same calls, plain or
//     with prompt caching (Agg.CostRatio, Agg.CostCachedRatio: the
//     objective).
//   - window: the context window a replay is asked to run at, a Window:
//     each run's own (OwnWindow), none (Unbounded) or Tokens(n); what it
//     resolves to for one run is RunResult.WindowTokens (0: none).
//   - overflow: a replayed call whose prompt plus output exceeds the window;
//     the run ends there (Status overflow). Lost under what ran
//     (BaselineOverflow, its Loss), saved (Saved) and lost (Lost) compare a
//     policy's overflow with as-logged's.
//   - reading boundary: diagnose's (the first call by which half the runs
//     have stopped while still reading), over the replayed runs
//     (Agg.BoundaryCall).
//   - mechanism: what a policy does to the prompt (Def.Mechanism: logged,
//     dtoc, masking, truncation, compaction, none); a family is a model
//     family, never a kind of policy.
package simulate
