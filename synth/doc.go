// Package synth writes a synthetic but realistic corpus of coding-agent
// sessions in three log formats, for demos, tests and benchmarks of context
// window analysis. The output is deterministic: the same Options give
// byte-identical files, with no global RNG and no wall clock.
//
// # Layout
//
// Write(dir, o) deals Options.N sessions round-robin to the requested formats
// (in the order claude-code, codex-cli, openai-messages) and writes:
//
//	dir/claude-code/projects/<encoded-cwd>/<sessionId>.jsonl   Claude Code transcripts
//	dir/codex/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl     Codex CLI rollouts
//	dir/openai/runs.jsonl                                       OpenAI chat runs, one per line
//
// The returned Manifest has one FileInfo per session, in generation order.
//
// # Typical steps
//
//  1. A master PCG generator (rand.NewPCG(Seed, const)) draws a pool of
//     projects (name, language, cwd, git branch) and, per session, a seed, a
//     start-time gap and a project. The first session starts at a fixed date
//     plus a Seed-derived offset.
//  2. Each session gets its own generator and a plan: the number of model
//     calls (5–150, log-normal, median ~22; Options.Calls scales them),
//     one to three user turns, and
//     whether it overflows (~17% of non-DTOC sessions) or, for Claude Code,
//     auto-compacts (~20% of the rest).
//  3. The session loop asks for the next step: tool calls (1–4, parallel
//     calls are read-only) or a final answer. Tool output sizes are
//     log-normal (median ~3 kB, some 20–60 kB file reads and test logs);
//     reads often revisit a file read before. Overflowing and compacting
//     sessions steer output sizes upward so they reach their target in time;
//     other sessions stay below 80% of the window.
//  4. The format writer renders the step in its log shape, runs the tool
//     against an in-memory workspace (files are generated from per-file
//     seeds and edited in place, so re-reads see the same text) and streams
//     the lines to disk.
//
// # Token invariants
//
// Usage is computed, not sampled, so analyses can check it:
//
//   - est(s) = ceil(runes(s)/3.6). Each model call's prompt is a fixed
//     per-session overhead (system prompt, tool schemas) plus est of every
//     piece of context before it: user messages, the visible part of earlier
//     responses (text blocks, tool names, tool-call arguments JSON) and tool
//     results. Thinking/reasoning is billed as output but not carried into
//     later prompts. So prompt[k] = prompt[k-1] + est(what was added since).
//   - Output tokens are est(visible output) plus hidden reasoning, in [20, 1500].
//   - Claude Code: input_tokens (1–3) + cache_read_input_tokens +
//     cache_creation_input_tokens = prompt; cache_read is the previous
//     call's prompt (the system overhead, or 0, on a cold cache: the first
//     call and after compaction); cache_creation is the new part. One API
//     response is split over one assistant line per content block (thinking,
//     text, tool_use), sharing message.id and requestId; usage repeats on
//     each line, output_tokens on non-final lines is a streaming placeholder
//     (1–30) and the final line has the real value and a stop_reason.
//     Tool results (Read, Grep, Glob, Bash, Edit, Write, TodoWrite) follow
//     their tool_use line as user lines with a tool_result block and the
//     tool-side toolUseResult, so parallel calls interleave as in real logs.
//   - Codex: token_count follows every model call; last_token_usage
//     input_tokens is the whole prompt, cached_input_tokens is the previous
//     prompt rounded down to 128 (on the first call the overhead, or 0),
//     reasoning_output_tokens is part of output_tokens; total_token_usage is
//     the running sum. Legacy rollouts (cli 0.3x–0.4x) use the "shell" tool
//     with {"command":["bash","-lc",…]} and JSON-string outputs; newer ones
//     (cli 0.12x) use "exec_command" with "Chunk ID: …" output headers and
//     exec_command_end events. Both use apply_patch (a custom tool call)
//     and update_plan.
//   - OpenAI: usage has one entry per assistant message; cached_tokens is
//     the unchanged prompt prefix rounded down to 128 (0 below 1024).
//
// # Window endings
//
// Windows are 200000 tokens (Claude models), 272000 (Codex gpt-5 models) and
// 128000 (OpenAI runs). An overflowing session stops at the first call whose
// prompt would exceed the window, which is not billed:
//
//   - Claude Code logs the synthetic assistant line Claude Code writes for API
//     errors: model "<synthetic>", zero usage, isApiErrorMessage:true, text
//     "Prompt is too long".
//   - Codex logs event_msg {"type":"error","message":"Your input exceeds the
//     context window of this model. …"} and then task_complete.
//   - OpenAI runs end with outcome {"resolved":false,"end_reason":"context_overflow"}.
//
// Claude Code sessions that compact instead cross ~167k tokens and get a
// system compact_boundary line (parentUuid null, logicalParentUuid,
// compactMetadata{trigger:"auto", preTokens}) and a user line with
// isCompactSummary:true; the next prompt is the overhead plus the summary.
//
// # DTOC runs
//
// About a third of the OpenAI runs use dynamic tool-output context (DTOC):
// every tool message content is the envelope
// {"tool_key":"<tool>_<n>","tool_result":"<output>","estimated_tokens":ceil(runes/4)}
// (n numbers the run's tool calls from 1), and the agent calls manage_context
// with {"enable":[keys],"disable":[keys]} at least once: it disables the
// biggest outputs older than two calls and sometimes re-enables a file read
// it disabled before. A disabled result then costs only est of its envelope
// with tool_result "[disabled]", from the prompt after the manage_context
// result on; re-enabling restores it. DTOC runs never overflow.
//
// # Behaviour profiles (planted truth)
//
// Options.Profiles plants known manage_context behaviour, to test that
// mining recovers it: every OpenAI-messages session becomes a DTOC run of one
// profile (dealt round-robin over the OpenAI-messages sessions), logged
// under the profile's Model ("synth-<profile>" by default, its own model
// family), at least 16 planned calls long. Claude Code and Codex sessions are
// unchanged. The profiled agent does not use the built-in DTOC behaviour
// above; before each model call it asks its profile (see Profile for every
// parameter, DefaultProfile for the defaults):
//
//  1. A credit grows by OpsPer100/100 (it starts uniform in [0, 1)).
//  2. Due re-enables come first: a manage_context call enables every
//     disabled output whose scheduled re-enable is due, and costs a credit.
//  3. Else, with a credit ≥ 1, the profile looks for outputs to disable:
//     enabled tool results within its age bounds, freeing at most MaxFreed
//     (freed = estimated_tokens − PlaceholderTokens), not of a file among the
//     last AvoidRecent reads; taken in its Order (largest, newest or random)
//     until they free a target drawn uniformly in [MinFreed, MaxFreed] or
//     MaxKeys are taken. If they free at least MinFreed, the call disables
//     them, costs a credit and schedules each for re-enabling with
//     probability ReEnable, ReEnableAfterMin to ReEnableAfterMax calls later.
//  4. Else the call is an ordinary step.
//
// The four profiles are selective (rare, deep disables of old outputs the
// agent no longer works on), shallow (frequent disables of small, recent
// outputs), never (the tool is offered and never called) and thrasher
// (disables undone 1–3 calls later). Write also writes GroundTruthFile
// (.synth/ground_truth.json, hidden from `trajmine ingest DIR`): per model its
// profile with every parameter and what its sessions did (calls,
// manage_context calls, keys disabled and enabled), and per session its run
// id, model and profile. Manifest.Truth holds the same.
//
// # Not generated
//
// Claude Code sidechain files (subagents, the compaction call), progress
// and queue-operation lines; Codex compaction; images and web search.
package synth
