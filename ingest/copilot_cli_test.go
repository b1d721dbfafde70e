package ingest_test

import (
	"context"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/schema"
)

func TestCopilotCLIFixtures(t *testing.T) {
	const small, sub, v1 = "copilot_stage0_small", "copilot_stage0_small/subagent-[trimmed for fixture]", "aaaabbbb-1111-2222-3333-ccccddddeeee"
	i21Run(t, "copilot-cli-events", []i21Case{
		{
			// session totals from session.shutdown tokenDetails: input 100 +
			// cache read 5 + cache write 0 = 105, output 15 (= outputTokens 12 + 3 of the two messages), cache
			// read 5. Model calls of the session: api-1, api-2, then the two
			// resumed messages (line 23, line 32) = 4. The sub-agent's events
			// carry parentToolCallId: its run has 1 call, ended by
			// subagent.completed with model claude-haiku-4.5.
			file: "agent-sessions__small.jsonl",
			runs: []pkRun{
				{ID: small, Harness: "copilot-cli", Model: "gpt-5-mini", End: schema.EndUnknown, Source: schema.SourceInferred,
					Detail: "log ends on a tool call without its result", Turns: 4, In: 105, Out: 15, CR: 5, Estimated: true},
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

// TestCopilotCLIEnds checks the explicit end reasons: abort, shutdown, and
// a resumed session clearing an earlier one.
func TestCopilotCLIEnds(t *testing.T) {
	const start = `{"type":"session.start","data":{"sessionId":"s"},"id":"e1","timestamp":"2026-01-01T00:00:00Z"}` + "\n"
	const user = `{"type":"user.message","data":{"content":"go"},"id":"e2","timestamp":"2026-01-01T00:00:01Z"}` + "\n"
	const reply = `{"type":"assistant.message","data":{"messageId":"m","content":"ok","outputTokens":3},"id":"e3","timestamp":"2026-01-01T00:00:02Z"}` + "\n"
	const abort = `{"type":"abort","data":{"reason":"user"},"id":"e4"}` + "\n"
	const shutdown = `{"type":"session.shutdown","data":{"shutdownType":"routine","modelMetrics":{"gpt-5":{"usage":{"inputTokens":50,"outputTokens":3,"cacheReadTokens":20}}}},"id":"e5"}` + "\n"
	tests := []struct {
		name, log string
		end       schema.EndReason
		source    schema.ReasonSource
		detail    string
		in, out   int64
	}{
		{"abort", start + user + abort, schema.EndInterrupted, schema.SourceExplicit, "abort: user", 0, 0},
		// modelMetrics usage as the totals: inputTokens 50 already holds the
		// cache read 20 (issue 30.6), out 3
		{"shutdown", start + user + reply + shutdown, schema.EndFinished, schema.SourceExplicit, "shutdown: routine", 50, 3},
		{"resumed after abort", start + user + abort + user + reply, schema.EndFinished, schema.SourceInferred, inferredFinished, 0, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ingest.Parse(context.Background(), "copilot-cli-events", "events.jsonl", []byte(tc.log), nil)
			if err != nil {
				t.Fatal(err)
			}
			r := m.Runs[0]
			got := []any{r.EndReason, r.EndReasonSource, r.EndReasonDetail, r.InputTokens, r.OutputTokens}
			pkCheck(t, "end, source, detail, in, out", []any{tc.end, tc.source, tc.detail, tc.in, tc.out}, got)
		})
	}
}

// TestCopilotCLIUsageAndCompaction checks assistant.usage as per-call usage
// and session.compaction_complete as a compaction (hand-written events in
// the shape Copilot CLI writes them; the samples have neither).
func TestCopilotCLIUsageAndCompaction(t *testing.T) {
	log := `{"type":"session.start","data":{"sessionId":"s"},"id":"e1"}
{"type":"user.message","data":{"content":"go"},"id":"e2"}
{"type":"assistant.message","data":{"messageId":"m1","apiCallId":"a1","content":"","toolRequests":[{"toolCallId":"c1","name":"bash","arguments":{"command":"ls"}}],"outputTokens":9},"id":"e3"}
{"type":"assistant.usage","data":{"model":"claude-sonnet-4.5","inputTokens":1000,"cacheReadTokens":8000,"cacheWriteTokens":500,"outputTokens":9},"id":"e4"}
{"type":"tool.execution_complete","data":{"toolCallId":"c1","success":true,"result":{"content":"a b"}},"id":"e5"}
{"type":"session.compaction_complete","data":{"success":true,"trigger":"threshold","preCompactionTokens":150000,"postCompactionTokens":20000,"summaryContent":"the summary"},"id":"e6"}
{"type":"session.compaction_complete","data":{"success":false,"trigger":"threshold"},"id":"e7"}
{"type":"assistant.message","data":{"messageId":"m2","apiCallId":"a2","content":"done","outputTokens":2},"id":"e8"}
{"type":"assistant.usage","data":{"model":"claude-sonnet-4.5","inputTokens":300,"cacheReadTokens":0,"cacheWriteTokens":0,"outputTokens":2},"id":"e9"}
`
	m, err := ingest.Parse(context.Background(), "copilot-cli-events", "events.jsonl", []byte(log), nil)
	if err != nil {
		t.Fatal(err)
	}
	// call a1: 1000 + 8000 + 500 = 9500 in; call a2: 300 in
	pkCheck(t, "usage", []pkUse{{"s", 0, 9500, 9, 8000, 500, 0, "claude-sonnet-4.5", ""}, {"s", 1, 300, 2, 0, 0, 0, "claude-sonnet-4.5", ""}}, pkUses(m))
	pkCheck(t, "runs", []pkRun{{ID: "s", Harness: "copilot-cli", Model: "claude-sonnet-4.5", End: schema.EndFinished, Source: schema.SourceInferred, Detail: inferredFinished,
		Turns: 2, In: 9800, Out: 11, CR: 8000, CW: 500, UsageCalls: 2}}, pkRuns(m))
	// the failed compaction (success false) is not an op
	pkCheck(t, "ops", []pkOp{{"s", 3, 1, schema.OpCompaction, "threshold", 150000, 20000, "session.compaction_complete"}}, pkOps(m))
}
