package ingest_test

import (
	"testing"

	"github.com/trajmine/trajmine/schema"
)

func TestAntigravityFixtures(t *testing.T) {
	const id = "agent-sessions__cli_small"
	i21Run(t, "antigravity-cli", []i21Case{{
		// 19 steps. Planner calls: steps 2 (list_dir), 6 (text only), 8
		// (write_file) = 3; answered by steps 3 and 9. The 8 other action
		// steps (4 VIEW_FILE, 5 RUN_COMMAND, 10 SEARCH_WEB, 12 GENERIC, 13
		// RUN_COMMAND, 14 and 15 GREP_SEARCH, 18 GENERIC) have no open call:
		// a call each → 3 + 8 = 11 model calls and 2 + 8 = 10 tool calls.
		// Step 1 CONVERSATION_HISTORY is empty (skipped); step 7 CHECKPOINT is
		// a compaction, an input after calls 0-3 (planner 2, actions 4 and
		// 5, planner 6), so in turn 4.
		file:  "agent-sessions__cli_small.jsonl",
		runs:  []pkRun{{ID: id, Harness: "antigravity", End: schema.EndUnknown, Source: schema.SourceInferred, Detail: "log ends before the model's reply", Turns: 11, Estimated: true}},
		ops:   []pkOp{{id, 10, 4, schema.OpCompaction, "auto", -1, -1, "CHECKPOINT"}},
		usage: []pkUse{},
	}})
	m := pkParse(t, "antigravity-cli", "testdata/antigravity-cli/agent-sessions__cli_small.jsonl", "cli_small.jsonl")
	kinds := map[schema.EventKind]int{}
	for _, e := range m.Events {
		kinds[e.Kind]++
	}
	// user: steps 0, 17; system: 11, 16; reasoning: thinking of 2, 6, 8;
	// assistant: step 6's content
	want := map[schema.EventKind]int{schema.KindUser: 2, schema.KindSystem: 2, schema.KindReasoning: 3, schema.KindAssistant: 1,
		schema.KindToolCall: 10, schema.KindToolResult: 10, schema.KindCompaction: 1}
	pkCheck(t, "events by kind", want, kinds)
	if len(m.ToolOutputs) != 10 {
		t.Errorf("%d tool outputs, want 10", len(m.ToolOutputs))
	}
}
