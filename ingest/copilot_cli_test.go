package ingest_test

import (
	"testing"

	"github.com/trajmine/trajmine/schema"
)

func TestCopilotCLIFixtures(t *testing.T) {
	const small, sub, v1 = "copilot_stage0_small", "copilot_stage0_small/subagent-[trimmed for fixture]", "aaaabbbb-1111-2222-3333-ccccddddeeee"
	i21Run(t, "copilot-cli-events", []i21Case{
		{
			// session totals from session.shutdown tokenDetails: input 100,
			// output 15 (= outputTokens 12 + 3 of the two messages), cache
			// read 5. Model calls of the session: api-1, api-2, then the two
			// resumed messages (line 23, line 32) = 4. The sub-agent's events
			// carry parentToolCallId: its run has 1 call, ended by
			// subagent.completed with model claude-haiku-4.5.
			file: "agent-sessions__small.jsonl",
			runs: []pkRun{
				{ID: small, Harness: "copilot-cli", Model: "gpt-5-mini", End: schema.EndUnknown, Source: schema.SourceInferred,
					Detail: "log ends on a tool call without its result", Turns: 4, In: 100, Out: 15, CR: 5, Estimated: true},
				{ID: sub, Parent: small, Harness: "copilot-cli", Model: "claude-haiku-4.5", End: schema.EndFinished, Source: schema.SourceExplicit,
					Detail: "subagent.completed", Turns: 1, Estimated: true},
			},
			usage: []pkUse{},
			// session.truncation at line 26 (all counts trimmed to 0)
			ops: []pkOp{{small, 12, 3, schema.OpTruncation, "[trimmed for fixture]", 0, 0, "0 message(s) removed"}},
			outputs: []out{
				{small, "call-1", "shell", "ls", 1, false},
				{small, "[trimmed for fixture]", "", "", 2, true}, // line 17: no request announced it
				{sub, "[trimmed for fixture]", "[trimmed for fixture]", "", 1, true},
				{small, "[trimmed for fixture]#2", "[trimmed for fixture]", "", 3, true},
			},
		},
		{
			// outputTokens 12 + 14 = 26 is the logged output total (no shutdown)
			file: "agent-sessions__subdir_v1__events.jsonl",
			runs: []pkRun{{ID: v1, Harness: "copilot-cli", End: schema.EndFinished, Source: schema.SourceInferred, Detail: inferredFinished, Turns: 2, Out: 26, Estimated: true}},
			events: []ev{
				{v1, 0, 0, schema.KindUser, "", "", "", false},
				{v1, 1, 0, schema.KindToolCall, "bash", "call_1", "ls", false},
				{v1, 2, 1, schema.KindToolResult, "bash", "call_1", "ls", false},
				{v1, 3, 1, schema.KindAssistant, "", "", "", false},
			},
			lines: []int64{2, 4, 6, 8},
		},
	})
}

func FuzzCopilotCLI(f *testing.F) {
	pkFuzz(f, []string{"copilot-cli-events"}, "testdata/copilot-cli-events/*.jsonl")
}
