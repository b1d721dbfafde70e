package ingest_test

import (
	"path/filepath"
	"testing"

	"github.com/trajmine/trajmine/schema"
)

// i21Case is one fixture of the issue-21 importers with what a hand count
// of the file gives.
type i21Case struct {
	file    string
	runs    []pkRun
	events  []ev
	lines   []int64
	usage   []pkUse
	outputs []out
	ops     []pkOp
	rejects []pkReject
}

// i21Run checks the cases of one format (nil expectations are not checked,
// an empty slice checks that there is none).
func i21Run(t *testing.T, format string, cases []i21Case) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", format, tc.file)
			if got := detected(t, path); got != format {
				t.Errorf("detected as %q, want %s", got, format)
			}
			m := pkParse(t, format, path, path) // the real path: siblings are read next to it
			pkCheck(t, "runs", tc.runs, pkRuns(m))
			if tc.events != nil {
				pkCheck(t, "events", tc.events, evs(m))
			}
			if tc.lines != nil {
				var lines []int64
				for _, e := range m.Events {
					lines = append(lines, e.Line)
				}
				pkCheck(t, "lines", tc.lines, lines)
			}
			if tc.usage != nil {
				pkCheck(t, "usage", tc.usage, pkUses(m))
			}
			if tc.outputs != nil {
				got := outs(m)
				if got == nil {
					got = []out{}
				}
				pkCheck(t, "outputs", tc.outputs, got)
			}
			if tc.ops != nil {
				pkCheck(t, "ops", tc.ops, pkOps(m))
			}
			if tc.rejects == nil {
				tc.rejects = []pkReject{}
			}
			pkCheck(t, "rejects", tc.rejects, pkRejects(m))
		})
	}
}

const inferredFinished = "log ends on an assistant reply without a tool call"

func TestFactoryDroidFixtures(t *testing.T) {
	i21Run(t, "factory-droid", []i21Case{
		{
			// 8 lines: session_start, then m1 user, m2 assistant text, m3
			// assistant tool_use tu1, m4 user tool_result tu1, m5 assistant,
			// m6 user, m7 assistant → 7 events; model calls: (m2 m3), m5, m7 = 3
			file: "agent-sessions__session_store_large.jsonl",
			runs: []pkRun{{ID: "droid_large", Harness: "factory-droid", End: schema.EndFinished, Source: schema.SourceInferred, Detail: inferredFinished, Turns: 3, Estimated: true}},
			events: []ev{
				{"droid_large", 0, 0, schema.KindUser, "", "", "", false},
				{"droid_large", 1, 0, schema.KindAssistant, "", "", "", false},
				{"droid_large", 2, 0, schema.KindToolCall, "Execute", "tu1", `printf 'line1\nline2\nline3\n'`, false},
				{"droid_large", 3, 1, schema.KindToolResult, "Execute", "tu1", `printf 'line1\nline2\nline3\n'`, false},
				{"droid_large", 4, 1, schema.KindAssistant, "", "", "", false},
				{"droid_large", 5, 2, schema.KindUser, "", "", "", false},
				{"droid_large", 6, 2, schema.KindAssistant, "", "", "", false},
			},
			lines:   []int64{2, 3, 4, 5, 6, 7, 8},
			usage:   []pkUse{},
			outputs: []out{{"droid_large", "tu1", "Execute", `printf 'line1\nline2\nline3\n'`, 1, false}},
		},
		{
			// droid-settings.settings.json: input 1000 + cache read 3000 +
			// cache creation 500 = 4500; output 200; reasoning (thinking) 50
			file: "droid-settings.jsonl",
			runs: []pkRun{{ID: "droid-settings", Harness: "factory-droid", Model: "claude-sonnet-4-5-20250929", End: schema.EndFinished, Source: schema.SourceInferred,
				Detail: inferredFinished, Turns: 2, In: 4500, Out: 200, CR: 3000, CW: 500, Reasoning: 50, Estimated: true}},
			events: []ev{
				{"droid-settings", 0, 0, schema.KindUser, "", "", "", false},
				{"droid-settings", 1, 0, schema.KindReasoning, "", "", "", false},
				{"droid-settings", 2, 0, schema.KindToolCall, "Execute", "tu1", "go test ./...", false},
				{"droid-settings", 3, 1, schema.KindToolResult, "Execute", "tu1", "go test ./...", true},
				{"droid-settings", 4, 1, schema.KindAssistant, "", "", "", false},
			},
			lines:   []int64{2, 3, 3, 5, 7},
			rejects: []pkReject{{4, "invalid JSON: a misspelt null: 'u' was expected, got 'o'"}, {6, "message is not an object with a role"}},
		},
	})
}
