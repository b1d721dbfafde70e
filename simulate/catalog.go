package simulate

// The catalog. Every entry documents its rule; the parameters' defaults come
// from ../shared/docs/policy-survey.md (section numbers given) and the seed
// papers; where neither gives a number the default is ours and says so.
//
// The summary-size model of the compact-* policies, clamp(a + b × summarized,
// min, cap), has a = 300 and b = 0.015 from the four compactions the shared
// corpus logs with their size before (summary tokens / tokens before:
// Claude Code 3,942 / 170,251, pi 1,073 / 175,004 and 913 / 185,014, Cline
// 477 / 21,919; median ratio 0.014); cap and min follow the harnesses.

func init() {
	register(Def{Name: "keep-all", Mechanism: MechanismNone, build: newKeepAll,
		Doc: "Every event stays in the prompt in full, even after a logged compaction: a reference column (TRACER's T_keep-all); comparisons are against as-logged. " +
			"As every policy that replaces manage_context, it replays a DTOC run without the agent's manage_context calls.",
		Source: "baseline (mini-swe-agent's linear history, survey §4)"})
	register(Def{Name: AsLoggedName, Mechanism: MechanismLogged, build: newAsLogged,
		Doc: "What ran: the run's own logged context management replayed at the calls it happened. A compaction replaces the history " +
			"before it (system items and the tail the log says it kept excepted; Claude Code re-attaches its 5 most recently read files, " +
			"≤ 5,000 tokens each) by a summary of the logged size (tokens after, else the logged summary text), else clamp(300 + 0.015 × " +
			"summarized, 200, 20000), and counts one summarizer call; manage_context, masking and truncation ops hide what they hid, as dtoc " +
			"does. Calibrated to the logged input like keep-all; the default reference of every comparison (trajmine simulate prints its " +
			"error against the logged input). The agent's manage_context calls are replayed as logged (their prompts count); runs without " +
			"logged context management replay every event in full.",
		Source: "the log (context_ops and compaction events); summary model as compact-*"})
	register(Def{Name: "truncate", Mechanism: MechanismTruncation, build: newTruncate,
		Doc: "Provider truncation: when a call does not fit, drop the oldest items (never the system items or the first user message; " +
			"a tool call goes with its results) until it fits; nothing marks the gap; dropped items stay dropped.",
		Source: "OpenAI Responses truncation=auto (survey §6.1; drop order unspecified upstream, this is the survey's stand-in)"})
	register(Def{Name: "dtoc", Mechanism: MechanismDtoc, build: newDTOC(dtocLogged),
		Doc: "Replays the log's manage_context ops: a disable at call d shows a placeholder from call d+1, an enable at call e restores the full text " +
			"from call e+1 (masking/truncation ops with a tool key hide from their own call); the manage_context calls themselves are replayed as logged. " +
			"Runs without ops replay every event in full. " +
			"It predicts no re-invocations: the run under these ops is the logged run, whose re-reads are in the log.",
		Source: "DTOC seed paper (placeholders of ~30–50 tokens)",
		Params: []Param{{"placeholder", "40", "tokens of a hidden output's placeholder (tool key, timestamp, token estimate)"}}})
	register(Def{Name: "dtoc-disable-only", Mechanism: MechanismDtoc, build: newDTOC(dtocDisableOnly),
		Doc: "The seed's ablation: the log's disables are applied, its enables ignored (a hidden output never returns); " +
			"a use of an output after its ignored enable is a predicted re-invocation.",
		Source: "DTOC seed paper, 'Disable only' configuration",
		Params: []Param{{"placeholder", "40", "tokens of a hidden output's placeholder"}}})
	register(Def{Name: "dtoc-tracking", Mechanism: MechanismDtoc, build: newDTOC(dtocTracking),
		Doc: "Tracking only: every tool result is wrapped in DTOC's envelope {tool_key, tool_result, estimated_tokens} and nothing is hidden. " +
			"A result the log shows in its envelope (recorded under DTOC) keeps the logged envelope's tokens, which every policy counts; " +
			"the others get the run's mean logged envelope when it has one, else envelope.",
		Source: "DTOC seed paper (envelope); envelope size ours: the skeleton's ~60 characters at 4 per token",
		Params: []Param{{"envelope", "15", "tokens the envelope adds to each tool result, in runs whose log shows no envelope"}}})
	register(Def{Name: "dtoc-oracle", Mechanism: MechanismDtoc, build: newDTOC(dtocOracle),
		Doc: "Upper bound: each tool result is visible at the call it arrives and at every call that uses it (package counterfactual), " +
			"a placeholder at every other call; it never causes a re-invocation and its own enable/disable calls are free.",
		Source: "issue #5 (oracle hides after last use, re-enables before reuse)",
		Params: []Param{{"placeholder", "40", "tokens of a hidden output's placeholder"}}})
	register(Def{Name: "halflife", Mechanism: MechanismTruncation, build: newHalflife,
		Doc: "Half-life truncation: once the full prompt reaches activate × window, the newest keep tool results stay whole and each older " +
			"result keeps its head and tail within a character cap that halves as its age doubles: age in (keep, 2·keep] → cap, " +
			"(2·keep, 4·keep] → cap/2, … (never below floor), plus a 32-character omission marker. Inactive without a window. " +
			"stall=true injects a message (stall_tokens) at each call that sees a command repeat with an identical error output.",
		Source: "Lewis, arXiv:2608.26218 via the half-life seed note (activate 0.5, keep 4); cap and floor ours",
		Params: []Param{
			{"activate", "0.5", "share of the window the full prompt must reach before truncation starts (sticky)"},
			{"keep", "4", "newest tool results kept whole"},
			{"cap", "8000", "characters kept of results aged keep+1 … 2·keep (head half, tail half)"},
			{"floor", "0", "smallest cap in characters"},
			{"stall", "false", "inject a stall message on repeated identical errors"},
			{"stall_tokens", "40", "tokens of one stall message"}}})
	register(Def{Name: "mask", Mechanism: MechanismMasking, build: newMask,
		Doc: "Observation masking: the newest n observations (tool results) stay, older ones become the harness's placeholder: " +
			"swe-agent 'Old environment output: ({lines} lines omitted)', openhands '<MASKED>'. unit=events counts n in events " +
			"(any item) as OpenHands' attention_window does. polling=p batches the masking for the prompt cache (SWE-agent's polling): " +
			"the cut point moves only when the count of observations (the task message counted, as SWE-agent does) or events reaches " +
			"a multiple of p, so between n and n+p−1 stay verbatim and the cached prefix breaks once every p observations instead of at each.",
		Source: "SWE-agent LastNObservations (survey §3.1; polling: history_processors.py), OpenHands ObservationMasking (§2.3), JetBrains Complexity Trap M=10 (§9.1)",
		Params: []Param{
			{"n", "10", "observations (or events) kept verbatim"},
			{"style", "swe-agent", "placeholder text: swe-agent or openhands"},
			{"unit", "observations", "what n counts: observations or events"},
			{"polling", "1", "the masked prefix grows only every polling observations (or events); 1 at each"}},
		Added: []string{"polling"}})
	register(Def{Name: "clear-tool-uses", Mechanism: MechanismMasking, build: newClearToolUses,
		Doc: "Anthropic context editing clear_tool_uses_20250919: before each request, if the full history's input tokens exceed trigger, " +
			"every tool result except the newest keep (and excluded tools) is replaced by a placeholder, provided the results not cleared yet " +
			"would free at least clear_at_least tokens (their tokens less the placeholders, plus their inputs with clear_tool_inputs): " +
			"clearing then happens in batches, and the cached prefix breaks once per batch instead of at every call; " +
			"clear_tool_inputs also removes the calls' inputs. Stateless upstream; a growing cleared set here.",
		Source: "Anthropic SDK types (survey §5.1); clear_at_least per the context-editing docs (\"ensure a minimum number of tokens is cleared each time content is cleared\" so that the cache invalidation is worth it); placeholder text undocumented, size ours",
		Params: []Param{
			{"trigger", "100000", "input tokens above which clearing applies"},
			{"keep", "3", "newest tool uses kept"},
			{"clear_at_least", "0", "minimum tokens a clearing must free (batches the clearing)"},
			{"exclude_tools", "", "tool names never cleared, ';'-separated"},
			{"clear_tool_inputs", "false", "also drop the cleared results' tool-call inputs"},
			{"placeholder", "8", "tokens of the cleared-result placeholder"}}})
	summaryParams := func(cap string) []Param {
		return []Param{
			{"summary_a", "300", "summary tokens: fixed part a of clamp(a + b × summarized, min, cap)"},
			{"summary_b", "0.015", "summary tokens per summarized token"},
			{"summary_min", "200", "smallest summary"},
			{"summary_cap", cap, "largest summary"},
			{"template", "800", "tokens of the summarization prompt added to the summarizer call's input"}}
	}
	register(Def{Name: "compact-claude-code", Mechanism: MechanismCompaction, Harness: "claude-code", build: newCompact(compactClaudeCode),
		Doc: "Claude Code auto-compact: when the previous call's prompt + output reach window − 33,000 (167,000 at 200k; 83.5 % of windows " +
			"under 100k), the history after the system items and first user message is replaced by a summary, re-attaching up to files of " +
			"the most recently read files (≤ file_tokens each, ≤ files_tokens in all). A call that overflows compacts reactively.",
		Source: "survey §5.4 (3p reverse engineering of v2.1.88); summary model fitted to the corpus (cap 20,000 from §1)",
		Params: append([]Param{
			{"threshold", "auto", "share of the window, or auto for the formula"},
			{"files", "5", "recently read files re-attached"},
			{"file_tokens", "5000", "tokens per re-attached file"},
			{"files_tokens", "50000", "tokens of all re-attached files"}}, summaryParams("20000")...)})
	register(Def{Name: "compact-codex", Mechanism: MechanismCompaction, Harness: "codex", build: newCompact(compactCodex),
		Doc: "Codex CLI auto-compaction: when the previous call's usage reaches threshold × window, everything but the initial context and " +
			"the most recent user messages (≤ user_tokens) is replaced by SUMMARY_PREFIX + summary; tool calls, outputs and assistant messages go.",
		Source: "openai/codex compact.rs (survey §6.3); summary model fitted to the corpus",
		Params: append([]Param{
			{"threshold", "0.9", "share of the window (auto_compact_token_limit is capped at 90 %)"},
			{"user_tokens", "20000", "tokens of recent user messages kept"}}, summaryParams("20000")...)})
	register(Def{Name: "compact-openhands", Mechanism: MechanismCompaction, Harness: "openhands", build: newCompact(compactOpenHands),
		Doc: "OpenHands LLMSummarizingCondenser: when the view holds more than max_size events, it becomes the head, one summary event and " +
			"the newest max_size/2 − 2 events (the head stands for keep_first). Counts events, not tokens.",
		Source: "OpenHands condenser (survey §2.6; SDK V1 max_size 120); summary model fitted to the corpus",
		Params: append([]Param{{"max_size", "120", "events in the view that trigger a condensation"}}, summaryParams("10000")...)})
	register(Def{Name: "compact-gemini", Mechanism: MechanismCompaction, Harness: "gemini-cli", build: newCompact(compactGemini),
		Doc: "Gemini CLI chat compression: when the last prompt reaches threshold × window, the history before the first user message " +
			"after (1 − preserve) of its characters becomes a <state_snapshot> summary.",
		Source: "gemini-cli chatCompressionService.ts (survey §8.4); summary model fitted to the corpus",
		Params: append([]Param{
			{"threshold", "0.5", "share of the window"},
			{"preserve", "0.3", "share of the history's characters kept verbatim"}}, summaryParams("20000")...)})
	register(Def{Name: "compact-goose", Mechanism: MechanismCompaction, Harness: "goose", build: newCompact(compactGoose),
		Doc:    "Goose auto-compact: when tokens exceed threshold × window the whole history becomes a summary plus the last user message.",
		Source: "block/goose context_mgmt (survey §8.1); summary model fitted to the corpus",
		Params: append([]Param{{"threshold", "0.8", "share of the window"}}, summaryParams("20000")...)})
	register(Def{Name: "gemini-mask", Mechanism: MechanismMasking, Harness: "gemini-cli", build: newGeminiMask,
		Doc: "Gemini CLI tool-output masking: every call, newest to oldest (the latest turn's outputs skipped), the newest protect tool tokens " +
			"stay; if the older unmasked outputs hold ≥ prune tokens, all of them become a preview (head + tail, preview characters) with a file path.",
		Source: "gemini-cli toolOutputMaskingService.ts (survey §8.4)",
		Params: []Param{
			{"protect", "50000", "newest tool tokens protected"},
			{"prune", "30000", "prunable tokens needed before masking"},
			{"preview", "500", "characters of head + tail kept in the placeholder"},
			{"protect_latest_turn", "true", "never mask the outputs the current call sees first"}}})
	tracerParams := []Param{
		{"trigger", "0.5", "compression event when the prompt reaches this share of the window"},
		{"keep", "1", "newest tool results left whole at an event"}}
	register(Def{Name: "tracer-uniform", Mechanism: MechanismTruncation, build: newTracer(tracerUniform),
		Doc: "TRACER baseline: at each compression event (prompt ≥ trigger × window) every tool result not yet compressed, except the newest keep, " +
			"keeps the first r of its characters (truncation compressor, 5-token marker). Inactive without a window.",
		Source: "TRACER seed paper baselines (uniform-0.5); event trigger ours",
		Params: append([]Param{{"r", "0.5", "retention ratio"}}, tracerParams...)})
	register(Def{Name: "tracer-recency", Mechanism: MechanismTruncation, build: newTracer(tracerRecency),
		Doc: "TRACER baseline: as tracer-uniform, the ratio falling linearly with age within the event: the k-th newest of its m outputs keeps " +
			"min(1, 2r·(m−k+1)/(m+1)) (mean r before the cap).",
		Source: "TRACER seed paper baselines (recency); ratio schedule ours",
		Params: append([]Param{{"r", "0.5", "mean retention ratio"}}, tracerParams...)})
	register(Def{Name: "tracer-proportional", Mechanism: MechanismTruncation, build: newTracer(tracerProportional),
		Doc: "TRACER baseline: as tracer-uniform, the event's budget r × Σ tokens shared by water-filling: every output is cut to one common " +
			"token cap, so large outputs lose most.",
		Source: "TRACER seed paper baselines (token-proportional); allocation rule ours",
		Params: append([]Param{{"r", "0.5", "share of the event's tokens retained"}}, tracerParams...)})
	register(Def{Name: "tracer-tooltype", Mechanism: MechanismTruncation, build: newTracer(tracerToolType),
		Doc:    "TRACER baseline: as tracer-uniform with a ratio per action class (classes of trajmine classes; unlisted classes 0.5).",
		Source: "TRACER seed paper baselines (tool-type-conditional); default ratios ours",
		Params: append([]Param{{"ratios", "read:0.6;search:0.4;execute:0.5;test:0.5;edit:0.8", "class:ratio pairs, ';'-separated"}}, tracerParams...)})
}

// DefaultSpecs are the policies simulate runs when none is named: every
// catalog entry with its defaults, except the Explicit ones.
func DefaultSpecs() []string {
	out := make([]string, 0, len(catalog))
	for _, d := range catalog {
		if !d.Explicit {
			out = append(out, d.Name)
		}
	}
	return out
}
