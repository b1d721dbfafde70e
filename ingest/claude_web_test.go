package ingest_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/schema"
)

const cwFormat = "claude-code-web-export"

// TestClaudeWebFixtures checks a hand-written export: a response split over
// two loglines sharing message.id (one call, output as the maximum), a
// response without an id (a call of its own), a malformed logline, a
// progress record (skipped) and a user interruption.
func TestClaudeWebFixtures(t *testing.T) {
	const run = "interrupted_split"
	m := parseFile(t, cwFormat, filepath.Join("testdata", cwFormat, "interrupted_split.json"), nil)
	mxCheck(t, m,
		[]mxRun{{ID: run, Model: "claude-opus-4-5", Turns: 2, UsageCalls: 1, In: 3210, Out: 57, CacheR: 3000, CacheW: 200,
			End: schema.EndInterrupted, Source: schema.SourceExplicit, Detail: "[Request interrupted by user for tool use]", At: "2025-12-24T09:00:00Z"}},
		[]mxEv{
			{run, 0, 0, 3, schema.KindUser, "", "", "", false, ""},
			{run, 1, 0, 4, schema.KindAssistant, "", "", "", false, ""},
			{run, 2, 0, 5, schema.KindToolCall, "Grep", "toolu_w1", "TODO @ src", false, ""},
			{run, 3, 1, 6, schema.KindToolResult, "Grep", "toolu_w1", "TODO @ src", false, ""},
			{run, 4, 1, 9, schema.KindToolCall, "Bash", "toolu_w2", "grep -rn TODO src | wc -l", false, ""},
			{run, 5, 2, 10, schema.KindUser, "", "", "", false, ""},
		},
		[]use{{run, 0, 3210, 57, 3000, 200}},
		[]out{{run, "toolu_w1", "Grep", "TODO @ src", 1, false}},
		nil,
		[]mxReject{{8, "logline 6"}},
	)
	if got := mxText(t, m, run, 3); got != "src/a.go:3\nsrc/b.go:1" {
		t.Errorf("tool result text = %q", got)
	}
}

// TestClaudeWebDocument checks documents that do not hold an export: a
// syntax error is one reject at its line, and nothing is imported.
func TestClaudeWebDocument(t *testing.T) {
	tests := []struct {
		name, doc string
		rejects   []mxReject
	}{
		{"truncated", "{\"loglines\": [\n  {\"type\": \"user\", \"message\": {\"role\": \"user\", \"content\": \"hi\"}},\n  {\"type\": \"assist", []mxReject{{3, "invalid JSON"}}},
		{"bad token", "{\"loglines\": [\n  {\"type\": \"user\"},\n  nope\n]}", []mxReject{{3, "invalid JSON"}}},
		{"not an array", `{"loglines": {"type": "user"}}`, []mxReject{{1, "loglines is not an array"}}},
		{"empty", `{"loglines": []}`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ingest.Parse(context.Background(), cwFormat, "doc.json", []byte(tc.doc), nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.rejects, mxRejects(m)); diff != "" {
				t.Errorf("rejects (-want +got):\n%s", diff)
			}
			if len(m.Events) != 0 || len(m.Runs) != 0 {
				t.Errorf("imported %d runs, %d events", len(m.Runs), len(m.Events))
			}
		})
	}
}

func TestClaudeWebDetect(t *testing.T) {
	mxDetectsExactly(t, cwFormat, "claude-code-web-export")
}

// TestClaudeWebCorpus imports the recorded export and checks it against an
// independent scan of its loglines: one model call per assistant logline
// (the export has no message ids), every tool_use and tool_result, one
// summary op per isCompactSummary record, no usage, and the run finished
// (inferred: it ends on a reply).
func TestClaudeWebCorpus(t *testing.T) {
	dir := testutil.Corpus(t, "claude-code-web-export")
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Loglines []struct {
					Type    string `json:"type"`
					Compact bool   `json:"isCompactSummary"`
					Message struct {
						Content json.RawMessage `json:"content"`
					} `json:"message"`
				} `json:"loglines"`
			}
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			var want struct{ turns, uses, results, compact, users int64 }
			for _, l := range doc.Loglines {
				var blocks []struct {
					Type string `json:"type"`
				}
				isList := json.Unmarshal(l.Message.Content, &blocks) == nil
				switch {
				case l.Type == "assistant":
					want.turns++
				case l.Compact:
					want.compact++
				case !isList:
					want.users++
				}
				for _, b := range blocks {
					switch b.Type {
					case "tool_use":
						want.uses++
					case "tool_result":
						want.results++
					case "text":
						if l.Type == "user" {
							want.users++
						}
					}
				}
			}
			m := parseFile(t, cwFormat, f, nil)
			if len(m.Rejects) != 0 || len(m.Runs) != 1 || len(m.Usage) != 0 {
				t.Fatalf("runs %d, usage rows %d, rejects %+v", len(m.Runs), len(m.Usage), m.Rejects)
			}
			kinds := map[schema.EventKind]int64{}
			for _, e := range m.Events {
				kinds[e.Kind]++
			}
			r := m.Runs[0]
			got := []int64{r.NTurns, kinds[schema.KindToolCall], kinds[schema.KindToolResult], int64(len(m.ToolOutputs)), kinds[schema.KindCompaction], int64(len(m.ContextOps)), kinds[schema.KindUser]}
			exp := []int64{want.turns, want.uses, want.results, want.results, want.compact, want.compact, want.users}
			if diff := cmp.Diff(exp, got); diff != "" {
				t.Errorf("turns, calls, results, outputs, compactions, ops, user events (-want +got):\n%s", diff)
			}
			if r.EndReason != schema.EndFinished || r.EndReasonSource != schema.SourceInferred || !r.UsageEstimated {
				t.Errorf("end %s/%s, usage estimated %v; want finished/inferred, true", r.EndReason, r.EndReasonSource, r.UsageEstimated)
			}
			for _, o := range m.ToolOutputs {
				if o.CallID == "" || o.ToolName == "" {
					t.Errorf("tool output %+v not linked to its call", o)
				}
			}
		})
	}
}
