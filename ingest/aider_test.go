package ingest_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/schema"
)

const adFormat = "aider-chat-history"

// The fixtures in testdata/aider-chat-history are written the way aider's
// io.py writes the history (there is no corpus folder for aider):
//
//	two_sessions.aider.chat.history.md  two sessions; usage lines with k
//	    forms, cache counts and the cost on a continuation line; applied
//	    edits; a failed edit reflected to the model (a multi-line message);
//	    /add, /run and /clear; a token-limit error; a lint reflection and
//	    the reflection limit
//	trimmed_interrupted.md  a history whose two-space line ends were trimmed;
//	    /ask, a tokens line without cost (1,234 form), ^C
func TestAiderFixtures(t *testing.T) {
	const s1, s2, s3 = "aider-2024-08-05T14:02:11", "aider-2024-08-06T09:15:40", "aider-2025-01-10T08:00:00"
	tests := []struct {
		file    string
		runs    []mxRun
		events  []mxEv
		usage   []use
		outputs []out
		ops     []mxOp
		texts   map[int64]string // texts of the first run's events by seq
	}{{
		file: "two_sessions.aider.chat.history.md",
		runs: []mxRun{
			{ID: s1, Model: "gpt-4o", Turns: 3, UsageCalls: 3, In: 12400, Out: 268, CacheR: 4100, CacheW: 2500,
				End: schema.EndContextOverflow, Source: schema.SourceExplicit, Detail: "Model gpt-4o has hit a token limit!", Cost: "0.05", At: "2024-08-05T14:02:11Z"},
			{ID: s2, Model: "claude-3-5-sonnet-20240620", Turns: 2, UsageCalls: 2, In: 6500, Out: 305,
				End: schema.EndStepLimit, Source: schema.SourceExplicit, Detail: "Only 3 reflections allowed, stopping.", Cost: "0.02", At: "2024-08-06T09:15:40Z"},
		},
		events: []mxEv{
			// /add makes no event: the banner and the "Added … to the chat" lines neither
			{s1, 0, 0, 15, schema.KindUser, "", "", "", false, ""},
			{s1, 1, 0, 18, schema.KindAssistant, "", "", "", false, ""},
			{s1, 2, 0, 49, schema.KindToolCall, "edit", "", "calc.py", false, ""},
			{s1, 3, 1, 49, schema.KindToolResult, "edit", "", "calc.py", false, ""},
			{s1, 4, 0, 50, schema.KindToolCall, "edit", "", "test_calc.py", false, ""},
			{s1, 5, 1, 50, schema.KindToolResult, "edit", "", "test_calc.py", false, ""},
			// /run's output was added to the chat but is not in the history
			{s1, 6, 1, 57, schema.KindUser, "", "", "", false, ""},
			{s1, 7, 1, 59, schema.KindAssistant, "", "", "", false, ""},
			// the failed edit, sent back to the model
			{s1, 8, 2, 71, schema.KindUser, "", "", "", false, ""},
			{s1, 9, 2, 82, schema.KindAssistant, "", "", "", false, ""},
			{s1, 10, 2, 95, schema.KindToolCall, "edit", "", "test_calc.py", false, ""},
			{s1, 11, 3, 95, schema.KindToolResult, "edit", "", "test_calc.py", false, ""},
			{s1, 12, 3, 98, schema.KindContextOp, "", "", "", false, ""},
			{s1, 13, 3, 100, schema.KindUser, "", "", "", false, ""},
			{s1, 14, 3, 101, schema.KindError, "", "", "", true, ""},
			{s2, 0, 0, 121, schema.KindUser, "", "", "", false, ""},
			{s2, 1, 0, 123, schema.KindAssistant, "", "", "", false, ""},
			{s2, 2, 0, 133, schema.KindToolCall, "edit", "", "calc.py", false, ""},
			{s2, 3, 1, 133, schema.KindToolResult, "edit", "", "calc.py", false, ""},
			{s2, 4, 1, 135, schema.KindUser, "", "", "", false, ""},
			{s2, 5, 1, 141, schema.KindAssistant, "", "", "", false, ""},
		},
		usage: []use{
			{s1, 0, 1200, 140, 0, 0},
			{s1, 1, 1600, 45, 0, 0},
			{s1, 2, 9600, 83, 4100, 2500},
			{s2, 0, 3100, 210, 0, 0},
			{s2, 1, 3400, 95, 0, 0},
		},
		outputs: []out{
			{s1, "t3", "edit", "calc.py", 1, false},
			{s1, "t5", "edit", "test_calc.py", 1, false},
			{s1, "t11", "edit", "test_calc.py", 3, false},
			{s2, "t3", "edit", "calc.py", 1, false},
		},
		ops: []mxOp{{s1, 12, 3, schema.OpTruncation, "manual", -1, -1}},
		texts: map[int64]string{
			0: "add a subtract function to calc.py\nand a test for it",
			3: "Applied edit to calc.py",
			8: "# 1 SEARCH/REPLACE block failed to match!\n\n## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in calc.py\n" +
				"<<<<<<< SEARCH\n    return a - c\n=======\n    return a - b\n>>>>>>> REPLACE\n\n" +
				"The SEARCH section must exactly match an existing block of lines including all white space, comments, indentation, docstrings, etc",
			9:  "The body is already right; the failure comes from the test import.\n\ntest_calc.py\n```python\n<<<<<<< SEARCH\nfrom calc import add\n=======\nfrom calc import add, subtract\n>>>>>>> REPLACE\n```",
			12: "/clear",
		},
	}, {
		file: "trimmed_interrupted.md",
		runs: []mxRun{{ID: s3, Model: "deepseek/deepseek-chat", Turns: 2, UsageCalls: 1, In: 12000, Out: 1234,
			End: schema.EndInterrupted, Source: schema.SourceExplicit, Detail: "^C again to exit", At: "2025-01-10T08:00:00Z"}},
		events: []mxEv{
			{s3, 0, 0, 6, schema.KindUser, "", "", "", false, ""},
			{s3, 1, 0, 8, schema.KindAssistant, "", "", "", false, ""},
			{s3, 2, 1, 12, schema.KindUser, "", "", "", false, ""},
			{s3, 3, 1, 14, schema.KindAssistant, "", "", "", false, ""},
		},
		usage: []use{{s3, 0, 12000, 1234, 0, 0}},
		texts: map[int64]string{0: "/ask what does parse() return?", 1: "It returns a `Result` with the parsed tree."},
	}}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			m := parseFile(t, adFormat, filepath.Join("testdata", adFormat, tc.file), nil)
			mxCheck(t, m, tc.runs, tc.events, tc.usage, tc.outputs, tc.ops, nil)
			for seq, want := range tc.texts {
				if diff := cmp.Diff(want, mxText(t, m, tc.runs[0].ID, seq)); diff != "" {
					t.Errorf("event %d text (-want +got):\n%s", seq, diff)
				}
			}
		})
	}
}

// TestAiderEnds checks the end signals and that the session going on
// clears them.
func TestAiderEnds(t *testing.T) {
	const head = "# aider chat started at 2024-01-01 10:00:00\n\n> Model: gpt-4o with diff edit format  \n\n#### hi  \n\nHello.\n\n> Tokens: 900 sent, 3 received.  \n"
	tests := []struct {
		name, tail string
		end        schema.EndReason
		src        schema.ReasonSource
	}{
		{"reply", "", schema.EndFinished, schema.SourceInferred},
		{"output limit", "> Model gpt-4o has hit a token limit!\nToken counts below are approximate.\n\nOutput tokens: ~4,096 of 4,096 -- possibly exceeded output limit!  \n", schema.EndError, schema.SourceExplicit},
		{"estimate exceeds", "\n#### add everything  \n> Your estimated chat context of 130,000 tokens exceeds the 128,000 token limit for gpt-4o!  \n", schema.EndContextOverflow, schema.SourceExplicit},
		{"context window", "\n#### more  \n> The chat session is larger than the context window!  \n", schema.EndContextOverflow, schema.SourceExplicit},
		{"keyboard interrupt", "\n#### more  \n> ^C KeyboardInterrupt  \n", schema.EndInterrupted, schema.SourceExplicit},
		{"went on", "> ^C again to exit  \n\n#### go on  \n\nDone.\n", schema.EndFinished, schema.SourceInferred},
		{"unanswered", "\n#### more  \n", schema.EndUnknown, schema.SourceInferred},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ingest.Parse(context.Background(), adFormat, "x.md", []byte(head+tc.tail), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Runs) != 1 {
				t.Fatalf("%d runs", len(m.Runs))
			}
			if r := m.Runs[0]; r.EndReason != tc.end || r.EndReasonSource != tc.src {
				t.Errorf("end = %s/%s %q, want %s/%s", r.EndReason, r.EndReasonSource, r.EndReasonDetail, tc.end, tc.src)
			}
		})
	}
}

// TestAiderCount checks the token count forms aider prints.
func TestAiderCount(t *testing.T) {
	for in, want := range map[string][2]int64{
		"140 sent, 7 received.":          {140, 7},
		"1,234 sent, 56 received.":       {1234, 56},
		"1.2k sent, 1.0k received.":      {1200, 1000},
		"12k sent, 999 received.":        {12000, 999},
		"1.5M sent, 2.3k received.":      {1500000, 2300},
		"9.9k sent, 0 received.":         {9900, 0},
		"123456789012M sent, 1 received": {0, 0}, // no period: not a usage line
	} {
		data := "# aider chat started at 2024-01-01 10:00:00\n\n#### q  \n\nA.\n\n> Tokens: " + in + "  \n"
		m, err := ingest.Parse(context.Background(), adFormat, "x.md", []byte(data), nil)
		if err != nil {
			t.Fatal(err)
		}
		var got [2]int64
		if len(m.Usage) == 1 {
			got = [2]int64{m.Usage[0].InputTokens, m.Usage[0].OutputTokens}
		}
		if got != want {
			t.Errorf("Tokens: %s → %v, want %v", in, got, want)
		}
	}
}

// TestAiderDetect checks content detection, the file-name tiebreak, and
// that no corpus file (there is no aider folder) is claimed.
func TestAiderDetect(t *testing.T) {
	im, err := ingest.Lookup(adFormat)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, head string
		want       bool
	}{
		{"notes.md", "# aider chat started at 2024-01-01 10:00:00\n", true},
		{"notes.md", "\n\n# aider chat started at 2024-01-01 10:00:00\n", true},
		{"/repo/.aider.chat.history.md", "#### hello  \n\nHi.\n", true},
		{"/repo/.aider.chat.history.md", "just notes\n", false},
		{"README.md", "#### heading\n\ntext\n", false},
		{"x.jsonl", `{"type":"user"}`, false},
	}
	for _, tc := range tests {
		if got := im.Detect(tc.name, []byte(tc.head)); got != tc.want {
			t.Errorf("Detect(%s, %q) = %v, want %v", tc.name, tc.head, got, tc.want)
		}
	}
	files, _ := filepath.Glob(filepath.Join("testdata", adFormat, "*"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := ingest.DetectFormat(f, data); err != nil || got.Name() != adFormat {
			t.Errorf("DetectFormat(%s) = %v, %v", f, got, err)
		}
	}
	mxDetectsExactly(t, adFormat, "")
}

// TestAiderPlainMarkdown checks that text before any session header is
// read into a run named after the file, and that a file of prose only
// imports nothing but a run without events.
func TestAiderPlainMarkdown(t *testing.T) {
	m, err := ingest.Parse(context.Background(), adFormat, "/x/.aider.chat.history.md", []byte("#### hi  \n\nHello.\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Runs) != 1 || m.Runs[0].RunID != ".aider.chat.history" || len(m.Events) != 2 {
		t.Errorf("runs %+v, %d events", m.Runs, len(m.Events))
	}
	if !strings.HasPrefix(string(m.Events[1].Kind), "assistant") {
		t.Errorf("second event %s, want assistant", m.Events[1].Kind)
	}
}
