package ingest

// The importers, in the order Detect tries them: by priority, lowest first
// (specific formats before the generic ones from genericPriority on), and in
// this order within one priority. Each has the name --format takes and a line
// saying what it reads.
func init() {
	register(10, claudeCode{formatInfo{"claude-code",
		"Claude Code session JSONL (~/.claude/projects/*/*.jsonl, subagents/agent-*.jsonl): split responses de-duplicated by message.id, compact boundaries and summaries as context_ops; 2.1's metadata records (titles, modes, worktree state, links, attachments) skipped, a record type not read named once per file with its count"}})
	register(20, codex{formatInfo{"codex-cli",
		"Codex CLI rollouts (~/.codex/sessions/**/rollout-*.jsonl): token_count lines as per-call usage, write_stdin polls attached to their command, compacted as context_ops"}})
	register(22, qwenCode{formatInfo{"qwen-code",
		"Qwen Code chat recordings (~/.qwen/projects/*/chats/*.jsonl, Gemini-style parts in a Claude-Code-like envelope; the active parentUuid chain after rewinds): per-call usage from usageMetadata, timestamps, functionCall ids, chat compressions (tokens before/after) as context_ops, end reason inferred"}})
	register(24, copilotCLI{formatInfo{"copilot-cli-events",
		"GitHub Copilot CLI session events (~/.copilot/session-state/<uuid>/events.jsonl): per-call usage from assistant.usage when logged, else shutdown/checkpoint token totals less the sub-agents' (or summed outputTokens; modelMetrics input includes the cache), timestamps, toolCallId links, truncations and compactions (tokens before/after) as context_ops, sub-agents by parentToolCallId, abort/shutdown as explicit ends"}})
	register(28, factoryDroid{formatInfo{"factory-droid",
		"Factory Droid session store (~/.factory/sessions/*/<uuid>.jsonl: session_start + Anthropic-style message lines): no per-call usage (model and token totals from the sibling <uuid>.settings.json), timestamps, tool_use ids, no compaction records in the sample, end reason inferred"}})
	register(29, factoryDroidExec{formatInfo{"factory-droid-exec-stream-json",
		"Factory Droid `droid exec --output-format stream-json` stdout (system/message/tool_call/tool_result/completion; session_id or sessionId, ISO or epoch-millisecond timestamps): the completion's usage as the run's total, timestamps, toolCallId (or id) links, no compaction events, completion/error as explicit end"}})
	register(30, atif{formatInfo{"atif",
		"Harbor ATIF-v1.x trajectories (*.trajectory.json; .cont-N continuations joined into the root's run when they sit beside it; .summarization-N-* sub-trajectories as child runs) and Harbor traces exports: per-step usage (prompt_tokens incl. cached), ISO timestamps, tool_call_id links, summarization and continuation hand-offs as context_ops, completion and exceptions as end reasons"}})
	register(30, inspectAI{formatInfo{"inspect-ai",
		"Inspect AI eval logs (.eval ZIP and .json), one run per sample/epoch: per-call usage from ModelEvents, tool_call_id links, event timestamps, compaction events as context_ops, sample limits/errors as end reasons, scores as outcome"}})
	register(30, opencode{formatInfo{"opencode-sse-events",
		"OpenCode server-sent events (message.updated / message.part.updated, final state per part) and storage/session/*/<id>.json trees: per-call usage from step-finish tokens, timestamps, tool callIDs, compaction parts as context_ops, end from finish/error"}})
	register(35, claudeStream{formatInfo{"claude-agent-sdk-stream-json",
		"Claude Code stream-json (claude -p --output-format stream-json JSONL, or Agent SDK stdio cassettes {metadata, messages:[{direction, message}]}): per-call usage de-duplicated by message.id, tool_use ids, compact_boundary ops with tokens, end reason and cost from the result message; timestamps only on some messages"}})
	register(36, claudeWeb{formatInfo{"claude-code-web-export",
		"Claude Code web session exports {loglines:[{type, timestamp, message}]} with Anthropic content blocks: timestamps, tool_use ids, compact summaries as context_ops; no per-call usage unless records carry it; end reason inferred"}})
	register(38, openHandsSDK{formatInfo{"openhands-sdk-v1-events",
		"OpenHands Software-Agent-SDK events.jsonl (V1): per-call usage from cumulative stats updates, timestamps, tool_call_id links, Condensation events as context_ops, execution_status/ConversationErrorEvent/iteration limit as end reasons"}})
	register(40, clineSDK{formatInfo{"cline-sdk-session",
		"Cline SDK sessions (<id>.messages.json; post-compaction histories as child runs with a summary op and tokens_before; session.json metadata is recognised but makes no run): per-call usage (metrics), ms timestamps, tool_use ids; end reason inferred"}})
	register(40, codexExec{formatInfo{"codex-exec-json",
		"codex exec --json JSONL (thread/turn/item events): item ids as call ids, exit codes, usage per turn (on the turn's last model call, marked estimated when the turn made several calls), end reason from turn.completed/turn.failed; no timestamps, no compaction events"}})
	register(40, geminiCLI{formatInfo{"gemini-cli",
		"Gemini CLI chat recordings (~/.gemini/tmp/<hash>/chats/session-*.json, and 0.40+'s session-*.jsonl replayed: the last copy of each message, $set checkpoints, $rewindTo): per-call usage (tokens), timestamps, tool-call ids with results in the call object, model messages (API parts) as calls; no compaction records; end reason inferred (explicit for errors and cancelled tools)"}})
	register(40, kimiWire{formatInfo{"kimi-cli-wire",
		"Kimi Code CLI wire.jsonl (turn.prompt, context.append_loop_event steps/tool calls/results, usage.record): tool-call ids, ms timestamps, per-step usage when recorded per step (turn-scoped usage only as run totals); no compaction records; end reason from turn.cancel / step.end"}})
	register(40, miniSWEAgent{formatInfo{formatMiniSWEAgent,
		"mini-swe-agent trajectories (*.traj.json full files and bare message lists; actions in ```bash/```mswea_bash_command blocks, v2 tool calls): per-call usage and timestamps from messages[k].extra.response where logged, no tool-call ids for text actions (each gets action-<turn>, its observation the same key), outputs cut when written (<elided_chars>) kept at their logged size (no op), end reason from info.exit_status"}})
	register(40, openHands{formatInfo{"openhands",
		"OpenHands V0 event streams (evaluation output.jsonl, one run per instance; tests/runtime/trajs event lists): per-call usage from tool_call_metadata (else llm_metrics deltas), timestamps, tool_call_id/cause links, condensation as context_ops, finish/agent_state/eval error as end reasons, test_result outcome"}})
	register(40, otel{formatInfo{"otel-genai-spans",
		"OpenTelemetry GenAI spans (any-agent AgentTrace JSON, OTLP/JSON resourceSpans, JSON lines): per-call usage from gen_ai.usage.*, span timestamps, tool-call ids when logged (else linked by order), no compaction events, end from finish reasons/status"}})
	register(40, piCodingAgent{formatInfo{"pi-coding-agent",
		"pi coding-agent session JSONL (~/.pi/agent/sessions/*/*.jsonl): a model call per assistant entry with its usage (cache reads/writes), timestamps, tool-call ids, compaction entries with tokensBefore as context_ops, end reason from the last stopReason (aborted/error)"}})
	register(40, sweAgent{formatInfo{formatSWEAgent,
		"SWE-agent trajectories (*.traj, 0.x/1.x, function-calling and text/XML actions, RetryAgent attempts): events from history; tool-call ids only in function-calling configs (text actions get action-<turn>, their observation the same key); no per-call usage (run totals from info.model_stats), no timestamps; history-processor elisions as masking ops (observations clipped when written, max_observation_length, are their logged size: no op); end reason from info.exit_status"}})
	register(45, aider{formatInfo{"aider-chat-history",
		"aider chat history Markdown (.aider.chat.history.md): a run per \"# aider chat started at\" (start time only), #### user turns, replies as model calls with per-call usage and session cost from \"> Tokens: … Cost: …\" lines, \"Applied edit to\" as edit calls, /clear as truncation ops, end reason from token-limit, reflection-limit and ^C messages; no tool-call ids"}})
	register(45, clineCassette{formatInfo{"cline-http-cassette",
		"Cline CLI nock HTTP recordings of /chat/completions (SSE): one model call per exchange with streamed text, reasoning, tool calls and per-call usage; request bodies, when recorded, supply the inputs; no tool results or timestamps beyond the response's created; attempt_completion → finished"}})
	register(45, clineTask{formatInfo{"cline-task-folder",
		"Cline, Roo Code and Kilo Code task folders (VS Code globalStorage/<extension>/tasks/<id>/: api_conversation_history.json read with the ui_messages.json beside it, or ui_messages.json alone): per-call usage and cost from the api_req_started records, ms timestamps, tool_use ids or XML tool uses with [tool] Result: blocks linked in order, Roo condense/truncation records as context_ops, harness named by the extension, end from completion_result, cancellations or attempt_completion"}})
	register(45, vscodeCopilotChat{formatInfo{"vscode-copilot-chat",
		"VS Code Copilot Chat sessions (workspaceStorage/<hash>/chatSessions/<id>.json, and the newer .jsonl mutation logs, replayed): a model call per tool-call round (else per request), tool-call ids with their results, request timestamps and elapsed times; no token counts in the log (usage estimated), no compaction records; isCanceled as an explicit end"}})
	register(45, ampThread{formatInfo{"amp-thread",
		"Amp threads (~/.local/share/amp/threads/T-<id>.json): per-call usage from assistant messages' usage (cache reads and writes) or, in older threads, the usageLedger events, ms and ISO timestamps, tool_use ids (also Amp's toolUseID/run results), no compaction records, end reason inferred"}})
	register(45, langfuse{formatInfo{"langfuse-trace-export",
		"Langfuse public-API trace + observations JSON: GENERATIONs as model calls with per-call usage (usageDetails incl. cache), TOOL/linked SPAN observations as tool results, timestamps, message-level tool-call ids, no compaction events, end from level/finish reason"}})
	register(45, openClaw{formatInfo{"openclaw-telemetry",
		"OpenClaw telemetry JSONL (message.in, agent.start, tool.start/end, message.out): no call ids (tool.start/end paired by order, toolName and sessionKey), no usage or tool output text in the records; agent.start history snapshots, when present, supply call ids, outputs and per-call usage for what they cover; end reason inferred"}})
	register(60, cursorAgent{formatInfo{"cursor-agent-transcripts",
		"Cursor agent transcripts (~/.cursor/projects/*/agent-transcripts/*.jsonl, <id>/subagents/*.jsonl as child runs; turn_ended lines and keys beside role/message accepted): no usage, timestamps or call ids (tool calls linked to results in order), the model where a line names it, no compaction events, end reason inferred"}})
	register(61, mistralVibe{formatInfo{"mistral-vibe",
		"Mistral Vibe sessions (~/.vibe/logs/session/<id>/messages.jsonl, reading meta.json next to it): no per-call usage (session token totals from meta.json stats), start/end from meta.json only, tool_call ids, no compaction events, parent session link, end reason inferred"}})
	register(62, grokBuild{formatInfo{"grok-build",
		"Grok Build sessions (~/.grok/sessions/*/<uuid>/chat_history.jsonl, typed rows or the legacy OpenAI-shaped ones, reading summary.json and signals.json next to it): no per-call usage (the final context tokens as the last call's input; window from signals.json), times from summary.json, tool_call ids, compactions counted but not placed (no context_ops), parent session link, end reason inferred"}})
	register(63, gptme{formatInfo{"gptme",
		"gptme conversation logs (~/.local/share/gptme/logs/*/conversation.jsonl): per-message usage and cost from metadata, timestamps, fenced tool blocks (```shell, ```ipython, ```save <path>, ```patch <path> …) as tool calls answered in order by the following system/tool messages, no compaction events, end reason inferred"}})
	register(64, hermesAgent{formatInfo{"hermes-agent",
		"Hermes Agent sessions (~/.hermes/sessions/*.json, one object with platform, system_prompt, tools and OpenAI-shaped messages): no usage, session start/end only, tool_call ids, no compaction events, end reason inferred"}})
	register(65, antigravity{formatInfo{"antigravity-cli",
		"Antigravity CLI trajectory steps (JSONL of {step_index, type, source, status, content, tool_calls}): no usage, step timestamps, tool_calls ids where logged (else planner calls answered in order by the action steps that follow), harness steps (EPHEMERAL_MESSAGE …) as system events, CHECKPOINT steps as compactions, cancelled last step as explicit end"}})
	register(66, kiroCLI{formatInfo{"kiro-cli-sqlite-payload",
		"Kiro CLI / Amazon Q CLI conversation JSON (the value of one conversations row of data.sqlite3, saved as .json): no usage, prompt and stream-end timestamps, tool_use ids, latest_summary as a summary context_op, end reason inferred"}})
	register(66, gooseJSONL{formatInfo{"goose-jsonl",
		"Goose session files from before its SQLite store (Goose 1.0–1.9: ~/.local/share/goose/sessions/<id>.jsonl: a metadata line, then one message a line): run totals from the metadata's accumulated tokens and the last call's usage from its last-usage tokens (else estimated), created timestamps, toolRequest/toolResponse ids, no compaction records, end reason inferred"}})
	// SQLite stores (sqlite.go): recognised by their tables on a snapshot, never by a head
	register(67, gooseDB{formatInfo{"goose-sessions-db",
		"Goose session store (~/.local/share/goose/sessions/sessions.db, SQLite): a run per session (sub_agent sessions as child runs); per-call usage from usage_ledger rows (compaction calls included) set on the calls in order, cost; timestamps, toolRequest/toolResponse ids, the agent-only summary after hidden messages as a summary op; end reason inferred"}})
	register(67, opencodeDB{formatInfo{"opencode-db",
		"OpenCode 1.4+ SQLite store (~/.local/share/opencode/opencode.db; Kilo CLI's ~/.local/share/kilo/kilo.db): a run per session, as opencode-sse-events reads a storage/ session: per-call usage from step-finish (else message) tokens, cost, timestamps, tool callIDs, compaction parts as context_ops, end from finish/error"}})
	register(67, hermesDB{formatInfo{"hermes-state-db",
		"Hermes Agent state.db (~/.hermes/state.db, SQLite): a run per session not left to its transcript beside it (sessions/session_<id>.json, read by hermes-agent); OpenAI-shaped messages with timestamps and tool_call ids; usage per session only (stated totals, api_call_count calls), cost; no compaction records; end reason inferred"}})
	register(67, kiroDB{formatInfo{"kiro-cli-db",
		"Kiro CLI store (~/.local/share/kiro-cli/data.sqlite3, SQLite): a run per conversations_v2 row, its value read as kiro-cli-sqlite-payload reads a saved one: no usage, prompt and stream-end timestamps, tool_use ids, latest_summary as a summary context_op, end reason inferred"}})
	register(67, cursorIDE{formatInfo{"cursor-ide-db",
		"Cursor IDE chat store (User/globalStorage/state.vscdb, and older chats in workspaceStorage/*/state.vscdb; SQLite key-value tables): a run per composer, its bubbles in header order; per-bubble tokenCount as per-call usage where logged (0/0 is none), bubble timestamps, toolFormerData calls with their results by toolCallId, models; no compaction records; end reason inferred"}})
	// outcome files (outcomes.go): they make outcome rows, not runs
	register(70, swebenchReport{formatInfo: formatInfo{formatSWEBenchReport,
		"outcome file: SWE-bench harness per-instance report.json, keyed by instance id ({\"<id>\": {\"resolved\", …}}; also per_instance_details.json) or flat beside a trajectory (logs/<id>/report.json, id from the folder): resolved per instance"}})
	register(70, swebenchResults{formatInfo: formatInfo{formatSWEBenchResults,
		"outcome file: SWE-bench lists of instance ids: the harness's and sb-cli's run report (resolved_ids; unresolved_ids, empty_patch_ids, error_ids not resolved), a submission's results/results.json (resolved; no_generation, no_logs … and every other run under the submission not resolved), results summaries ({instances: [{instance_id, resolved}]})"}})
	register(70, swebenchPreds{formatInfo: formatInfo{formatSWEBenchPreds,
		"outcome file: SWE-agent and mini-swe-agent predictions (preds.json, lists, all_preds.jsonl): an empty model_patch is not resolved (the harness does not run it); other predictions state no outcome"}})
	register(70, harborResult{formatInfo: formatInfo{formatHarborResult,
		"outcome file: Harbor results: a trial's result.json (verifier reward), a job's result.json (reward_stats: trial names per reward), a verifier's reward.json; the reward is the score, 1 resolved, 0 not, keyed by the trial's folder"}})
	register(70, terminalBenchResults{formatInfo: formatInfo{formatTerminalBenchResults,
		"outcome file: terminal-bench (tb run) results.json of a run (results per trial) or of a trial: is_resolved, keyed by the trial's folder (trial_name)"}})
	register(70, outcomeTable{formatInfo: formatInfo{formatOutcomeTable,
		"outcome file: a plain table of outcomes, CSV or TSV with a header, or JSONL of flat objects: run_id (else task_id or instance_id), resolved (true/false, 1/0, yes/no, pass/fail …), optional score"}})
	register(90, messagesImporter{formatInfo: formatInfo{formatOpenAIMessages,
		"OpenAI chat-completions message lists (JSON array, {messages} object incl. OpenHands-SDK LiteLLM logs and τ-bench results, or JSONL of {run_id, messages, usage, outcome}); the LiteLLM call logs of one conversation beside each other (<model>-<ts>.json) are joined into the earliest's run, each message stored once; DTOC envelopes and manage_context"}})
	register(90, messagesImporter{formatInfo: formatInfo{formatAnthropicMessages,
		"Anthropic Messages lists (JSON array, {system, messages} object, or JSONL of {run_id, messages, usage, outcome}); OpenHands-SDK LiteLLM call logs of one conversation beside each other joined into the earliest's run, each message stored once; DTOC envelopes and manage_context"},
		anthropic: true})
}

// corpusFolders names, per importer, the folders of the shared corpus
// (../shared/corpus) its tests import, those of ../shared/corpus-more as
// "corpus-more/<folder>" and those of ../shared/corpus-outcomes (logs with
// their outcome files) as "corpus-outcomes/<folder>"; an importer without
// one is tested on the agent fixtures of testdata/agents it reads
// (agentFixtures) and on hand-written fixtures. TestCorpusFoldersListed and
// TestNoForeignClaims keep it complete.
var corpusFolders = map[string][]string{
	"claude-code":                    {"claude-code", "corpus-more/iflow-cli"},
	"codex-cli":                      {"codex-cli", "corpus-more/trae-cli"},
	"openai-messages":                {"openai-chat-messages"},
	"anthropic-messages":             nil,
	"atif":                           {"atif"},
	"inspect-ai":                     {"inspect-ai"},
	"opencode-sse-events":            {"opencode-sse-events"},
	"claude-agent-sdk-stream-json":   {"claude-agent-sdk-stream-json"},
	"claude-code-web-export":         {"claude-code-web-export"},
	"openhands-sdk-v1-events":        {"openhands-sdk-v1-events"},
	"cline-sdk-session":              {"cline-sdk-session"},
	"codex-exec-json":                {"codex-exec-json"},
	"gemini-cli":                     {"gemini-cli"},
	"kimi-cli-wire":                  {"kimi-cli-wire"},
	"mini-swe-agent":                 {"mini-swe-agent"},
	"openhands":                      {"openhands"},
	"otel-genai-spans":               {"otel-genai-spans", "corpus-more/visualstudio-copilot-traces"},
	"pi-coding-agent":                {"pi-coding-agent"},
	"swe-agent-traj":                 {"swe-agent-traj"},
	"aider-chat-history":             nil,
	"cline-http-cassette":            {"cline-http-cassette"},
	"langfuse-trace-export":          {"langfuse-trace-export"},
	"openclaw-telemetry":             {"openclaw-telemetry"},
	"qwen-code":                      {"corpus-more/qwen-code"},
	"copilot-cli-events":             {"corpus-more/copilot-cli-events"},
	"cursor-agent-transcripts":       {"corpus-more/cursor-agent-transcripts"},
	"factory-droid-exec-stream-json": {"corpus-more/factory-droid-exec-stream-json"},
	"grok-build":                     {"corpus-more/grok-build"},
	"mistral-vibe":                   {"corpus-more/mistral-vibe"},
	"gptme":                          {"corpus-more/gptme"},
	"hermes-agent":                   {"corpus-more/hermes-agent"},
	"antigravity-cli":                {"corpus-more/antigravity-cli"},
	"kiro-cli-sqlite-payload":        {"corpus-more/kiro-cli-sqlite-payload"},
	"factory-droid":                  {"corpus-more/factory-droid"},
	"cline-task-folder":              nil,
	"vscode-copilot-chat":            nil,
	"amp-thread":                     nil,
	"goose-sessions-db":              nil, // the SQLite stores: testdata/agents (sqlite_test.go)
	"opencode-db":                    nil,
	"hermes-state-db":                nil,
	"kiro-cli-db":                    nil,
	"goose-jsonl":                    nil,
	"cursor-ide-db":                  nil,
	formatSWEBenchReport:             {"corpus-outcomes/mini-swe-agent-swebench"},
	formatSWEBenchResults:            nil,
	formatSWEBenchPreds:              nil,
	formatHarborResult:               nil,
	formatTerminalBenchResults:       nil,
	formatOutcomeTable:               nil,
}

// CorpusFolders returns the shared-corpus folders an importer is tested on
// (nil: none; see AgentFixtures for its real fixtures).
func CorpusFolders(format string) []string { return corpusFolders[format] }

// alsoReads names, per importer, the other agents whose logs it reads
// because they copy its layout (each tested on its corpus-more folder, or
// on its fixtures in testdata/agents).
var alsoReads = map[string][]string{
	"claude-code":       {"iFlow CLI (~/.iflow/projects/*/session-*.jsonl)"},
	"codex-cli":         {"Trae CLI (~/.trae/cli/sessions/**/rollout-*.jsonl)"},
	"otel-genai-spans":  {"Visual Studio GitHub Copilot traces (~/.cache/VSGitHubCopilotLogs/traces/*.jsonl)"},
	"cline-task-folder": {"Roo Code (globalStorage/rooveterinaryinc.roo-cline/tasks/*/)", "Kilo Code's legacy extension (globalStorage/kilocode.kilo-code/tasks/*/)"},
}

// AlsoReads returns the other agents whose logs an importer reads because
// they copy its format (nil: none known).
func AlsoReads(format string) []string { return alsoReads[format] }

// testedVersions names, per importer, the versions of the agent the
// shared corpora's logs come from, as the logs state them; the versions of
// the agent fixtures of testdata/agents are in agentFixtures.
var testedVersions = map[string]string{
	"claude-code":        "Claude Code 2.0.27–2.1.39 (shared corpus)",
	"copilot-cli-events": "Copilot CLI 1.0.11 and 1.0.77 (copilotVersion, corpus-more)",
	"gemini-cli":         "Gemini CLI session-*.json (no version stated, shared corpus)",
}

// TestedVersions returns the versions of the agent an importer's
// shared-corpus logs come from ("" when not noted).
func TestedVersions(format string) string { return testedVersions[format] }
