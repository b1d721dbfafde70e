package ingest_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/schema"
)

// Issue 30.1–30.8: the formats trajmine reads, as their agents log them
// today. TestAgentFixtures imports the real fixtures of testdata/agents
// (each folder's SOURCE.md gives its source, licence and counting rules)
// and compares each run with the hand counts of the folder's counts.json;
// TestDriftRules checks the rules the fixtures do not exercise on
// hand-written minimal logs, each labelled as such.

// handRun is one run's hand counts. -1 in Calls, UsageCalls, Linked,
// ToolErrs, Errors or Compactions: the fixture does not state it (not
// compared); Model "" is not compared either. In counts as the schema
// does: cache reads and writes included.
type handRun struct {
	Run, Parent, Model                   string
	Calls, UsageCalls                    int64
	ToolCalls, Results, Linked, ToolErrs int64
	Errors, Compactions                  int64
	In, Out, CR, CW                      int64
}

// handRuns counts m's runs as handRun, leaving out (-1, "") what want does
// not compare.
func handRuns(m *ingest.MemSink, want []handRun) []handRun {
	out := make([]handRun, 0, len(m.Runs))
	for i, r := range m.Runs {
		h := handRun{Run: r.RunID, Parent: r.ParentRunID, Model: r.Model, Calls: r.NTurns, UsageCalls: r.UsageCalls,
			In: r.InputTokens, Out: r.OutputTokens, CR: r.CacheReadTokens, CW: r.CacheWriteTokens}
		calls := map[string]bool{}
		for _, e := range m.Events {
			if e.RunID == r.RunID && e.Kind == schema.KindToolCall && e.CallID != "" {
				calls[e.CallID] = true
			}
		}
		for _, e := range m.Events {
			if e.RunID != r.RunID {
				continue
			}
			switch e.Kind {
			case schema.KindToolCall:
				h.ToolCalls++
			case schema.KindToolResult:
				h.Results++
				if e.CallID != "" && calls[e.CallID] {
					h.Linked++
				}
				if e.IsError {
					h.ToolErrs++
				}
			case schema.KindError:
				h.Errors++
			}
		}
		for _, o := range m.ContextOps {
			if o.RunID == r.RunID && o.Op == schema.OpCompaction {
				h.Compactions++
			}
		}
		if i < len(want) {
			w := want[i]
			for _, f := range []struct{ want, got *int64 }{{&w.Calls, &h.Calls}, {&w.UsageCalls, &h.UsageCalls}, {&w.Linked, &h.Linked},
				{&w.ToolErrs, &h.ToolErrs}, {&w.Errors, &h.Errors}, {&w.Compactions, &h.Compactions}} {
				if *f.want == -1 {
					*f.got = -1
				}
			}
			if w.Model == "" {
				h.Model = ""
			}
		}
		out = append(out, h)
	}
	return out
}

// turnsGoBack returns the runs of m one of whose events has a lower turn
// than the event before it.
func turnsGoBack(m *ingest.MemSink) []string {
	var out []string
	last := map[string]int64{}
	for _, e := range m.Events {
		if t, ok := last[e.RunID]; ok && e.Turn < t {
			out = append(out, e.RunID)
		}
		last[e.RunID] = e.Turn
	}
	return out
}

func TestAgentFixtures(t *testing.T) {
	const (
		grokDir = "grok-build/legacy/%2Fworkspace%2Fagentsview/019f6000-0000-7000-8000-000000000002/"
		trimmed = "[trimmed for fixture]"
	)
	tests := []struct {
		point, file, format string
		runs                []handRun
		rejects             []pkReject
		forward             bool // the turns of each run never go back
	}{
		{
			// 53 lines of 15 record types new in 2.1.x (attachment ×38,
			// worktree-state ×2, …): titles, modes, worktree state and
			// attachments are skipped, nothing rejected. Two sessions
			// (relocated and worktree-state name another sessionId and
			// make no run). ses_stage0_small: 4 assistant records without
			// a shared message.id, 1 with usage 10/5; 2 tool_use blocks, 3
			// tool_result blocks, 1 linked (toolu_stage0_1).
			point: "30.1", file: "claude-code-2.1/agent-sessions__small.jsonl", format: "claude-code",
			runs: []handRun{
				{Run: "ses_stage0_small", Calls: 4, UsageCalls: 1, ToolCalls: 2, Results: 3, Linked: 1, ToolErrs: -1, Errors: -1, Compactions: -1, In: 10, Out: 5},
				// counts.json: 6 assistant records, all with message.id the
				// redaction placeholder, so that "a message.id
				// de-duplication would merge all six into 1" — Claude
				// Code's rule (records sharing message.id are one
				// response); one of the six is a <synthetic> message, not
				// an API call. 1 tool_use block, usage all 0.
				{Run: trimmed, Calls: 1, UsageCalls: 1, ToolCalls: 1, Results: 0, Linked: -1, ToolErrs: -1, Errors: -1, Compactions: -1},
			},
		},
		{
			// the top-level tool_use and tool_result records of an old
			// layout are not read: each type is named once; permission-mode,
			// mode and attachment are skipped. 1 assistant record, no usage.
			point: "30.1", file: "claude-code-2.1/agent-sessions__schema_drift.jsonl", format: "claude-code",
			runs: []handRun{{Run: "ses_stage0_drift", Calls: 1, UsageCalls: 0, ToolCalls: 0, Results: 0, Linked: -1, ToolErrs: -1, Errors: -1, Compactions: -1}},
			rejects: []pkReject{
				{2, `1 record of type "tool_use" not read (the first at this line)`},
				{3, `1 record of type "tool_result" not read (the first at this line)`},
			},
		},
		{
			// line 5 is a roleless {"type":"turn_ended"}; 1 Bash tool_use,
			// no result; no usage, no call boundaries
			point: "30.2", file: "cursor-turn-ended/agent-sessions__small.jsonl", format: "cursor-agent-transcripts",
			runs: []handRun{{Run: "agent-sessions__small", Calls: -1, UsageCalls: 0, ToolCalls: 1, Results: 0, Linked: -1, ToolErrs: -1, Errors: -1, Compactions: -1}},
		},
		{
			// metadata, model, conversation and annotations keys; a
			// tool_call block and a tool-result block (no ids); model
			// cursor-auto on line 2
			point: "30.2", file: "cursor-turn-ended/agent-sessions__schema_drift.jsonl", format: "cursor-agent-transcripts",
			runs: []handRun{{Run: "agent-sessions__schema_drift", Model: "cursor-auto", Calls: -1, UsageCalls: 0, ToolCalls: 1, Results: 1, Linked: -1, ToolErrs: -1, Errors: -1, Compactions: -1}},
		},
		{
			// 2 gemini messages (both with tokens), 1 tool call with its
			// result; input 11,855 + 12,069 = 23,924 (cached included),
			// output 81 + 147 = 228, cached 11,502
			point: "30.3", file: "gemini-cli-jsonl/session-agent-sessions__jsonl_v040.jsonl", format: "gemini-cli",
			runs: []handRun{{Run: "gemini_stage0_jsonl", Model: "gemini-3-flash-preview", Calls: 2, UsageCalls: 2, ToolCalls: 1, Results: 1, Linked: 1, ToolErrs: -1, Errors: -1, Compactions: -1,
				In: 23924, Out: 228, CR: 11502}},
		},
		{
			// message a1 written twice: the second record replaces the
			// first (1 call, 9,184 / 26)
			point: "30.3", file: "gemini-cli-jsonl/session-agentsview__jsonl_stream.jsonl", format: "gemini-cli",
			runs: []handRun{{Run: "sess-jsonl-1", Model: "gemini-3.1-pro-preview", Calls: 1, UsageCalls: 1, ToolCalls: 1, Results: 1, Linked: 1, ToolErrs: -1, Errors: -1, Compactions: -1,
				In: 9184, Out: 26}},
		},
		{
			// 2 gemini + 2 model messages are 4 calls, usage on 1 (100/10)
			point: "30.3", file: "gemini-cli-jsonl/session-agent-sessions__large_model_type.json", format: "gemini-cli",
			runs: []handRun{{Run: "session-2025-12-16T23-47-b4f17607", Calls: 4, UsageCalls: 1, ToolCalls: 2, Results: 2, Linked: 2, ToolErrs: -1, Errors: -1, Compactions: -1,
				In: 100, Out: 10}},
		},
		{
			// 2 assistant rows (grok-4.5), call_1 read_file answered by a
			// tool row; the parent from summary.json; no usage per call:
			// signals.json's contextTokensUsed 12,000 is the last call's
			// input (SOURCE.md)
			point: "30.4", file: grokDir + "chat_history.jsonl", format: "grok-build",
			runs: []handRun{{Run: "019f6000-0000-7000-8000-000000000002", Parent: "019f5000-0000-7000-8000-000000000000", Model: "grok-4.5",
				Calls: 2, UsageCalls: 1, ToolCalls: 1, Results: 1, Linked: 1, ToolErrs: -1, Errors: -1, Compactions: -1, In: 12000}},
		},
		{
			// sessionId and millisecond timestamps; call_1 keyed by id, its
			// result isError; usage once per run on completion (10/5, no
			// call has its own); a trailing error line
			point: "30.5", file: "factory-droid-exec/agent-sessions__stream_json_schema_drift.jsonl", format: "factory-droid-exec-stream-json",
			runs: []handRun{{Run: "sid_stage0_drift", Model: "droid-model", Calls: -1, UsageCalls: 0, ToolCalls: 1, Results: 1, Linked: 1, ToolErrs: 1, Errors: 1, Compactions: -1,
				In: 10, Out: 5}},
		},
		{
			// call_1 started (line 4) before the message asking for it
			// (line 5): 1 tool call; 2 results, call_2 an orphan;
			// modelMetrics inputTokens 1,000 includes the cache read 800
			// (uncached 200)
			point: "30.6", file: "copilot-cli/agent-sessions__schema_drift.jsonl", format: "copilot-cli-events",
			runs: []handRun{{Run: "copilot_stage0_drift", Calls: 2, UsageCalls: 0, ToolCalls: 1, Results: 2, Linked: 1, ToolErrs: -1, Errors: -1, Compactions: -1,
				In: 1000, Out: 50, CR: 800}},
		},
		{
			// the parent: 4 messages, 3 tool requests, 3 results;
			// shutdown tokenDetails 100 / 15 / 5 / 0 (input 100 + cache read
			// 5); the sub-agent: 1 message, 1 tool call, 1 result, 0 tokens
			point: "30.6", file: "copilot-cli/agent-sessions__small.jsonl", format: "copilot-cli-events",
			runs: []handRun{
				{Run: "copilot_stage0_small", Calls: 4, UsageCalls: 0, ToolCalls: 3, Results: 3, Linked: -1, ToolErrs: -1, Errors: -1, Compactions: -1, In: 105, Out: 15, CR: 5},
				{Run: "copilot_stage0_small/subagent-" + trimmed, Parent: "copilot_stage0_small", Calls: 1, UsageCalls: 0, ToolCalls: 1, Results: 1, Linked: -1, ToolErrs: -1, Errors: -1, Compactions: -1},
			},
		},
		{
			// 3 PLANNER_RESPONSE steps (counts.json), 2 of them naming
			// tool calls (list_dir, write_file), 9 MODEL tool steps and a
			// GENERIC whose source is redacted: 10 results. 8 tool steps
			// follow no open planner call (VIEW_FILE, RUN_COMMAND,
			// SEARCH_WEB, GENERIC, RUN_COMMAND, GREP_SEARCH ×2, the redacted
			// GENERIC): each is a tool call, in a model call of its own
			// (its planner step is not logged) → 10 tool calls, 3 + 8 = 11
			// calls. 1 checkpoint.
			point: "30.7", file: "antigravity-new/agent-sessions__cli_small.jsonl", format: "antigravity-cli",
			runs: []handRun{{Run: "agent-sessions__cli_small", Calls: 11, UsageCalls: 0, ToolCalls: 10, Results: 10, Linked: 10, ToolErrs: -1, Errors: -1, Compactions: 1}},
		},
		{
			// 1 planner step with no tool calls, then a BROWSER_NAVIGATE
			// step: a tool call of its own in a call of its own (1 + 1)
			point: "30.7", file: "antigravity-new/agent-sessions__cli_schema_drift.jsonl", format: "antigravity-cli",
			runs: []handRun{{Run: "agent-sessions__cli_schema_drift", Calls: 2, UsageCalls: 0, ToolCalls: 1, Results: 1, Linked: 1, ToolErrs: -1, Errors: -1, Compactions: 0}},
		},
		{
			// two assistant entries (22a2720e, 4a666296) with the same
			// text, usage 12/7 and responseId, each followed by a
			// compaction: 2 calls, 24/14
			point: "30.8", file: "pi/agent-sessions__small.jsonl", format: "pi-coding-agent",
			runs: []handRun{{Run: "019e19b4-eb48-746a-aa6b-8dfcfa37954b", Calls: 2, UsageCalls: 2, ToolCalls: 0, Results: 0, Linked: -1, ToolErrs: -1, Errors: -1, Compactions: 2,
				In: 24, Out: 14}},
			forward: true, // the second call's turn is 1, not 0 again
		},
	}
	for _, tc := range tests {
		t.Run(tc.point+"/"+tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", "agents", filepath.FromSlash(tc.file))
			if got := detected(t, path); got != tc.format {
				t.Errorf("detected as %q, want %s", got, tc.format)
			}
			m := pkParse(t, tc.format, path, path)
			pkCheck(t, "runs", tc.runs, handRuns(m, tc.runs))
			if tc.rejects == nil {
				tc.rejects = []pkReject{}
			}
			pkCheck(t, "rejects", tc.rejects, pkRejects(m))
			if back := turnsGoBack(m); tc.forward && len(back) > 0 {
				t.Errorf("turns go back in runs %q", back)
			}
		})
	}
}

// ruleEv is what TestDriftRules compares of an event.
type ruleEv struct {
	Turn   int64
	Kind   schema.EventKind
	Tool   string
	CallID string
}

func ruleEvs(m *ingest.MemSink) []ruleEv {
	out := []ruleEv{}
	for _, e := range m.Events {
		out = append(out, ruleEv{e.Turn, e.Kind, e.ToolName, e.CallID})
	}
	return out
}

// TestDriftRules checks, on hand-written minimal logs (not real output:
// each is the smallest log that exercises one rule), the rules of issue
// 30.1–30.8 the real fixtures of TestAgentFixtures do not exercise.
func TestDriftRules(t *testing.T) {
	tests := []struct {
		name, file, format string
		detect             string // the format detection picks ("" none)
		log                string
		runs               []handRun
		events             []ruleEv
		rejects            []pkReject
	}{
		{
			// HAND-WRITTEN. 30.1: a type never seen is named once per file
			// with its count, at its first line; a known metadata type
			// (custom-title) is skipped silently; content-replacement, a
			// context change not read, is named too
			name: "claude-code unknown types", file: "s.jsonl", format: "claude-code", detect: "claude-code",
			log: `{"type":"user","sessionId":"s","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}
{"type":"future-thing","sessionId":"s","n":1}
{"type":"assistant","sessionId":"s","timestamp":"2026-01-01T00:00:01Z","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"ok"}]}}
{"type":"future-thing","sessionId":"s","n":2}
{"type":"content-replacement","sessionId":"s","replacements":[]}
{"type":"custom-title","sessionId":"s","customTitle":"T"}
{"type":"future-thing","sessionId":"s","n":3}
`,
			runs: []handRun{{Run: "s", Calls: 1, UsageCalls: 0, Linked: -1, ToolErrs: -1, Errors: -1, Compactions: -1}},
			rejects: []pkReject{
				{2, `3 records of type "future-thing" not read (the first at this line)`},
				{5, `1 record of type "content-replacement" not read (the first at this line)`},
			},
		},
		{
			// HAND-WRITTEN. 30.1 in a Claude Code web export: the same
			// rule over its loglines
			name: "claude-code-web-export unknown types", file: "export.json", format: "claude-code-web-export", detect: "-",
			log: `{"loglines": [
{"type": "user", "timestamp": "2026-01-01T00:00:00Z", "message": {"role": "user", "content": "hi"}},
{"type": "worktree-state", "worktreeSession": null},
{"type": "future-thing"},
{"type": "future-thing"}
]}`,
			runs:    []handRun{{Run: "export", Calls: 0, UsageCalls: 0, Linked: -1, ToolErrs: -1, Errors: -1, Compactions: -1}},
			rejects: []pkReject{{4, `2 records of type "future-thing" not read (the first at this line)`}},
		},
		{
			// HAND-WRITTEN. 30.5: a record with a sessionId and an epoch
			// millisecond timestamp is not Claude Code's
			name: "claude-code numeric timestamp", file: "x.jsonl", format: "factory-droid-exec-stream-json", detect: "factory-droid-exec-stream-json",
			log: `{"type":"system","subtype":"init","sessionId":"d","timestamp":1767812640310}
{"type":"message","sessionId":"d","timestamp":1767812641000,"role":"user","text":"hi"}
`,
			runs: []handRun{{Run: "d", Calls: 0, UsageCalls: 0, Linked: -1, ToolErrs: -1, Errors: -1, Compactions: -1}},
		},
		{
			// HAND-WRITTEN. 30.2: a file of turn_ended lines alone, or of
			// role lines that also carry a type, is not a Cursor transcript
			name: "cursor turn_ended only", file: "t.jsonl", format: "cursor-agent-transcripts", detect: "",
			log: `{"type":"turn_ended","status":"success"}
{"type":"turn_ended","status":"success"}
`,
			runs: []handRun{},
		},
		{
			name: "cursor role line with a type", file: "t.jsonl", format: "cursor-agent-transcripts", detect: "",
			log: `{"type":"message","role":"user","message":{"content":[{"type":"text","text":"hi"}]}}
`,
			runs: []handRun{{Run: "t", Calls: -1, UsageCalls: 0, Linked: -1, ToolErrs: -1, Errors: -1, Compactions: -1}},
		},
		{
			// HAND-WRITTEN. 30.3: $rewindTo drops that message and all
			// after it; a rewind to an id never written is rejected;
			// $set's lastUpdated is the end
			name: "gemini jsonl rewind", file: "session-r.jsonl", format: "gemini-cli", detect: "gemini-cli",
			log: `{"sessionId":"r","projectHash":"h","startTime":"2026-01-01T00:00:00Z","lastUpdated":"2026-01-01T00:00:00Z","kind":"main"}
{"id":"u1","type":"user","content":[{"text":"first"}]}
{"id":"a1","type":"gemini","content":"wrong","tokens":{"input":10,"output":1,"cached":0}}
{"id":"u2","type":"user","content":[{"text":"more"}]}
{"$rewindTo":"a1"}
{"id":"a2","type":"gemini","content":"right","tokens":{"input":20,"output":2,"cached":0}}
{"$rewindTo":"zz"}
{"$set":{"lastUpdated":"2026-01-01T00:05:00Z"}}
`,
			runs:    []handRun{{Run: "r", Calls: 1, UsageCalls: 1, Linked: -1, ToolErrs: -1, Errors: -1, Compactions: -1, In: 20, Out: 2}},
			events:  []ruleEv{{0, schema.KindUser, "", ""}, {0, schema.KindAssistant, "", ""}},
			rejects: []pkReject{{7, `$rewindTo names no message written before: "zz"`}},
		},
		{
			// HAND-WRITTEN. 30.3: a $set with messages is a checkpoint
			// that replaces every message; a model message's parts: a
			// thought → reasoning, text → assistant, functionCall → a tool
			// call
			name: "gemini jsonl checkpoint and parts", file: "session-c.jsonl", format: "gemini-cli", detect: "gemini-cli",
			log: `{"sessionId":"c","projectHash":"h"}
{"id":"u1","type":"user","content":"old"}
{"id":"a1","type":"gemini","content":"old reply","tokens":{"input":3,"output":3}}
{"$set":{"messages":[{"id":"u9","type":"user","content":"kept"},{"id":"a9","type":"gemini","content":"kept reply","tokens":{"input":5,"output":1}}]}}
{"id":"m1","type":"model","parts":[{"text":"thinking","thought":true},{"text":"answer"},{"functionCall":{"id":"fc1","name":"ls","args":{"p":"."}}}]}
`,
			runs: []handRun{{Run: "c", Calls: 2, UsageCalls: 1, ToolCalls: 1, Results: 1, Linked: 1, ToolErrs: -1, Errors: -1, Compactions: -1, In: 5, Out: 1}},
			events: []ruleEv{{0, schema.KindUser, "", ""}, {0, schema.KindAssistant, "", ""},
				{1, schema.KindReasoning, "", ""}, {1, schema.KindAssistant, "", ""}, {1, schema.KindToolCall, "ls", "fc1"}, {2, schema.KindToolResult, "ls", "fc1"}},
		},
		{
			// HAND-WRITTEN. 30.6, the figures: session totals of
			// 825 output tokens hold the sub-agent's 326; the session's run
			// keeps 825 - 326 = 499, so that the runs sum to the 825
			// logged (not 1,151); inputTokens 900 holds the cache read 400
			name: "copilot sub-agent in the session totals", file: "events.jsonl", format: "copilot-cli-events", detect: "copilot-cli-events",
			log: `{"type":"session.start","data":{"sessionId":"s"}}
{"type":"user.message","data":{"content":"go"}}
{"type":"assistant.message","data":{"messageId":"m1","content":"","toolRequests":[{"toolCallId":"t1","name":"task","arguments":{}}],"outputTokens":499}}
{"type":"subagent.started","data":{"toolCallId":"t1"}}
{"type":"assistant.message","data":{"parentToolCallId":"t1","messageId":"m2","content":"sub work","outputTokens":326}}
{"type":"subagent.completed","data":{"toolCallId":"t1","model":"gpt-5"}}
{"type":"tool.execution_complete","data":{"toolCallId":"t1","success":true,"result":{"content":"done"}}}
{"type":"session.shutdown","data":{"shutdownType":"routine","modelMetrics":{"gpt-5":{"usage":{"inputTokens":900,"outputTokens":825,"cacheReadTokens":400,"cacheWriteTokens":0}}}}}
`,
			runs: []handRun{
				{Run: "s", Calls: 1, UsageCalls: 0, ToolCalls: 1, Results: 1, Linked: 1, ToolErrs: -1, Errors: -1, Compactions: -1, In: 900, Out: 499, CR: 400},
				{Run: "s/subagent-t1", Parent: "s", Calls: 1, UsageCalls: 0, Linked: -1, ToolErrs: -1, Errors: -1, Compactions: -1, Out: 326},
			},
		},
		{
			// HAND-WRITTEN. 30.7: EPHEMERAL_MESSAGE steps of the harness
			// (SYSTEM, SYSTEM_SDK) are system events, not tool calls; the
			// planner's tool_calls keep their ids (function_name or name);
			// an action step's own tool_calls id says which call it
			// answers, and names the call it makes when none is open
			name: "antigravity ephemeral and ids", file: "transcript.jsonl", format: "antigravity-cli", detect: "antigravity-cli",
			log: `{"step_index":0,"source":"USER_EXPLICIT","type":"USER_INPUT","status":"DONE","content":"go"}
{"step_index":1,"source":"SYSTEM","type":"EPHEMERAL_MESSAGE","status":"DONE","content":"<reminder>"}
{"step_index":2,"source":"MODEL","type":"PLANNER_RESPONSE","status":"DONE","tool_calls":[{"id":"tc-a","function_name":"view_file","args":{"AbsolutePath":"\"/x\""}},{"id":"tc-b","name":"list_dir","args":{}}]}
{"step_index":3,"source":"MODEL","type":"LIST_DIRECTORY","status":"DONE","content":"a","tool_calls":[{"id":"tc-b","name":"list_dir"}]}
{"step_index":4,"source":"MODEL","type":"VIEW_FILE","status":"DONE","content":"b","tool_calls":[{"id":"tc-a","function_name":"view_file"}]}
{"step_index":5,"source":"SYSTEM_SDK","type":"EPHEMERAL_MESSAGE","status":"DONE","content":"<hook>"}
{"step_index":6,"source":"MODEL","type":"RUN_COMMAND","status":"DONE","content":"c","tool_calls":[{"id":"tc-c","function_name":"run_command"}]}
`,
			runs: []handRun{{Run: "transcript", Calls: 2, UsageCalls: 0, ToolCalls: 3, Results: 3, Linked: 3, ToolErrs: -1, Errors: -1, Compactions: -1}},
			events: []ruleEv{{0, schema.KindUser, "", ""}, {0, schema.KindSystem, "", ""},
				{0, schema.KindToolCall, "view_file", "tc-a"}, {0, schema.KindToolCall, "list_dir", "tc-b"},
				{1, schema.KindToolResult, "list_dir", "tc-b"}, {1, schema.KindToolResult, "view_file", "tc-a"}, {1, schema.KindSystem, "", ""},
				{1, schema.KindToolCall, "run_command", "tc-c"}, {2, schema.KindToolResult, "run_command", "tc-c"}},
		},
		{
			// HAND-WRITTEN. 30.8: an entry repeating the responseId of the
			// entry just before it, with nothing between, continues that
			// call (its usage replaces the first's)
			name: "pi same response continued", file: "p.jsonl", format: "pi-coding-agent", detect: "pi-coding-agent",
			log: `{"type":"session","version":3,"id":"p","cwd":"/x"}
{"type":"message","id":"e1","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}
{"type":"message","id":"e2","message":{"role":"assistant","content":[{"type":"text","text":"a"}],"usage":{"input":5,"output":1},"responseId":"r1"}}
{"type":"message","id":"e3","message":{"role":"assistant","content":[{"type":"text","text":"b"}],"usage":{"input":5,"output":2},"responseId":"r1"}}
`,
			runs:   []handRun{{Run: "p", Calls: 1, UsageCalls: 1, Linked: -1, ToolErrs: -1, Errors: -1, Compactions: -1, In: 5, Out: 2}},
			events: []ruleEv{{0, schema.KindUser, "", ""}, {0, schema.KindAssistant, "", ""}, {0, schema.KindAssistant, "", ""}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.detect != "-" {
				got := ""
				if im, _ := ingest.DetectFormat(tc.file, []byte(tc.log)); im != nil {
					got = im.Name()
				}
				if got != tc.detect {
					t.Errorf("detected as %q, want %q", got, tc.detect)
				}
			}
			m, err := ingest.Parse(context.Background(), tc.format, tc.file, []byte(tc.log), nil)
			if err != nil {
				t.Fatal(err)
			}
			pkCheck(t, "runs", tc.runs, handRuns(m, tc.runs))
			if tc.events != nil {
				pkCheck(t, "events", tc.events, ruleEvs(m))
			}
			if tc.rejects == nil {
				tc.rejects = []pkReject{}
			}
			pkCheck(t, "rejects", tc.rejects, pkRejects(m))
		})
	}
}
