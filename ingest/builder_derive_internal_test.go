package ingest

import (
	"context"
	"testing"

	"github.com/trajmine/trajmine/actions"
	"github.com/trajmine/trajmine/schema"
)

// TestBuilderDerives checks what the builder derives at import for every
// format: each tool call's ActionClass by the default rules (the expected
// classes follow from the rules' documentation: a read tool reads, pytest
// tests, grep searches), the run's ClassifiedBy, which is cleared when the
// harness changed after a call was classified (a reader then classifies
// again), and SystemMentionsManageContext from system events' text.
func TestBuilderDerives(t *testing.T) {
	type call struct{ tool, args, want string }
	calls := []call{
		{"Read", `{"file_path":"/p/a.py"}`, "read"},
		{"Bash", `{"command":"cd /repo && python -m pytest -q"}`, "test"},
		{"Bash", `{"command":"grep -rn needle src"}`, "search"},
		{"Bash", "{\"command\":\"sed -i s/a/b/ f.py \xff\"}", "edit"}, // classified as stored: U+FFFD for the bad byte
	}
	tests := []struct {
		name         string
		system       string
		harnessAfter string // set after the first call ("" keeps it)
		wantBy       bool
		wantMentions bool
	}{
		{name: "plain", system: "You are a coding agent.", wantBy: true},
		{name: "offered manage_context", system: "Tools: manage_context(enable, disable) hides outputs.", wantBy: true, wantMentions: true},
		{name: "harness set late", system: "You are a coding agent.", harnessAfter: "swe-agent", wantBy: false},
		{name: "no system event", wantBy: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sink := &MemSink{}
			src := &schema.Source{Path: "t.jsonl", SHA256: "00ff", Format: "test"}
			tx, err := sink.Begin(context.Background(), src)
			if err != nil {
				t.Fatal(err)
			}
			var n int64
			f := &File{Ctx: context.Background(), path: src.Path, sha: src.SHA256, format: "test", est: (*Options)(nil).est(), tx: repairTx{Tx: tx, n: &n}}
			b, err := f.NewRun("r1")
			if err != nil {
				t.Fatal(err)
			}
			b.Run.Harness = "claude-code"
			if tc.system != "" {
				if err := b.Add(schema.Event{Kind: schema.KindSystem, Text: tc.system}); err != nil {
					t.Fatal(err)
				}
			}
			for i, c := range calls {
				if err := b.Add(schema.Event{Kind: schema.KindToolCall, ToolName: c.tool, Args: c.args}); err != nil {
					t.Fatal(err)
				}
				if i == 0 && tc.harnessAfter != "" {
					b.Run.Harness = tc.harnessAfter
				}
			}
			if err := b.Finish(); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(src); err != nil {
				t.Fatal(err)
			}
			r := sink.Runs[0]
			if got := r.ClassifiedBy == actions.DefaultFingerprint(); got != tc.wantBy || tc.wantBy && r.ClassifiedBy == "" {
				t.Errorf("ClassifiedBy = %q, want the default fingerprint: %v", r.ClassifiedBy, tc.wantBy)
			}
			if m := r.SystemMentionsManageContext; m == nil || *m != tc.wantMentions {
				t.Errorf("SystemMentionsManageContext = %v, want %v", m, tc.wantMentions)
			}
			var got []string
			for _, e := range sink.Events {
				if e.Kind == schema.KindToolCall {
					got = append(got, e.ActionClass)
				}
			}
			if !tc.wantBy {
				return // the classes are not to be read back
			}
			if len(got) != len(calls) {
				t.Fatalf("%d tool calls stored, want %d", len(got), len(calls))
			}
			for i, c := range calls {
				if got[i] != c.want {
					t.Errorf("call %d (%s %s): ActionClass %q, want %q", i, c.tool, c.args, got[i], c.want)
				}
			}
		})
	}
}
