package ingest_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/schema"
)

// The fixtures in testdata/mini-swe-agent are hand-written, one topic each
// (see the README there). The helpers sweEv, sweRunRow … are in
// swe_agent_test.go.

type miniUse struct {
	Run                       string
	Turn, In, Out, CR, Reason int64
	Model, Request            string
	TS                        string
}

func miniUsage(m *ingest.MemSink) []miniUse {
	var out []miniUse
	for _, u := range m.Usage {
		ts := ""
		if u.TS != nil {
			ts = u.TS.Format(time.RFC3339Nano)
		}
		out = append(out, miniUse{u.RunID, u.Turn, u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.ReasoningTokens, u.Model, u.RequestID, ts})
	}
	return out
}

// miniExits lists the exit codes of the tool results (-1 when not logged).
func miniExits(m *ingest.MemSink) []int64 {
	var out []int64
	for _, e := range m.Events {
		if e.Kind == schema.KindToolResult {
			c := int64(-1)
			if e.ExitCode != nil {
				c = *e.ExitCode
			}
			out = append(out, c)
		}
	}
	return out
}

func TestMiniSWEAgentFixtures(t *testing.T) {
	const (
		r7      = "repo__issue-7"
		elided  = "<returncode>1</returncode>\n<warning>\nThe output of your last command was too long.\n</warning><output_head>\nFAIL test_a\n</output_head>\n<elided_chars>\n400 characters elided\n</elided_chars>\n<output_tail>\nFAIL test_z\n</output_tail>"
		claude  = "anthropic/claude-sonnet-4"
		gpt5    = "gpt-5-mini-2025-08-07"
		marker  = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
		toolcal = "tc-1"
	)
	// chars4 by hand (see swe_agent_test.go): elided is 227 characters →
	// ceil(227/4) = 57 tokens. mini-swe-agent cut the output's middle when
	// it wrote it (<elided_chars>): that is the output as every prompt
	// showed it, its logged size, and no context op (the 400 characters
	// it no longer has count nowhere)
	const elidedChars, elidedTokens = 227, 57
	if len(elided) != 227 {
		t.Fatal("fixture text changed: redo the token arithmetic above")
	}
	tests := []struct {
		file    string
		runs    []sweRunRow
		events  []sweEv
		usage   []miniUse
		exits   []int64
		outputs []sweOut
		ops     []sweOp
		rejects []sweReject
		rules   map[int64]string    // error_rule by seq (text failures)
		sizes   map[string][2]int64 // tool_outputs chars and est_tokens by key
	}{{
		// v1 full file: per-call usage, reasoning, a refused message with two
		// actions, an elided output, a timeout, the cost limit
		file: "full.traj.json",
		runs: []sweRunRow{{r7, "mini-swe-agent", "openrouter/anthropic/claude-sonnet-4", "claude-sonnet-4", r7, schema.EndCostLimit, schema.SourceExplicit,
			"LimitsExceeded", 4, 5200, 140, 0.6, false, 4}},
		events: []sweEv{
			{r7, 0, 0, schema.KindSystem, "system", "", "", "", "", 4, false},
			{r7, 1, 0, schema.KindUser, "user", "", "", "", "", 5, false},
			{r7, 2, 0, schema.KindReasoning, "assistant", "", "", "", "", 6, false},
			{r7, 3, 0, schema.KindAssistant, "assistant", "", "", "", "", 6, false},
			{r7, 4, 0, schema.KindToolCall, "assistant", "bash", "action-0", "", "ls -la", 6, false},
			{r7, 5, 1, schema.KindToolResult, "user", "bash", "action-0", "action-0", "ls -la", 7, false},
			{r7, 6, 1, schema.KindAssistant, "assistant", "", "", "", "", 8, false},
			{r7, 7, 2, schema.KindError, "user", "", "", "", "", 9, true},
			{r7, 8, 2, schema.KindAssistant, "assistant", "", "", "", "", 10, false},
			{r7, 9, 2, schema.KindToolCall, "assistant", "bash", "action-2", "", "pytest", 10, false},
			{r7, 10, 3, schema.KindToolResult, "user", "bash", "action-2", "action-2", "pytest", 11, true},
			{r7, 11, 3, schema.KindAssistant, "assistant", "", "", "", "", 12, false},
			{r7, 12, 3, schema.KindToolCall, "assistant", "bash", "action-3", "", "sleep 100", 12, false},
			{r7, 13, 4, schema.KindToolResult, "user", "bash", "action-3", "action-3", "sleep 100", 13, true},
		},
		usage: []miniUse{
			{r7, 0, 1000, 50, 0, 20, claude, "gen-1", "2025-11-19T00:11:57Z"},
			{r7, 1, 1200, 40, 1000, 0, claude, "gen-2", "2025-11-19T00:12:00Z"},
			{r7, 2, 1400, 30, 1200, 0, claude, "gen-3", "2025-11-19T00:12:05Z"},
			{r7, 3, 1600, 20, 0, 0, claude, "gen-4", "2025-11-19T00:12:10Z"},
		},
		exits: []int64{0, 1, -1},
		rules: map[int64]string{13: "timeout"}, // "timed out and has been killed": no <returncode>
		sizes: map[string][2]int64{"action-2": {elidedChars, elidedTokens}},
		outputs: []sweOut{
			{r7, "action-0", "action-0", "bash", "ls -la", 1, 5},
			{r7, "action-2", "action-2", "bash", "pytest", 3, 10},
			{r7, "action-3", "action-3", "bash", "sleep 100", 4, 13},
		},
	}, {
		// a bare list (mini-swe-agent's test data): the submission ends it
		file: "list.traj.json",
		runs: []sweRunRow{{"list", "mini-swe-agent", "", "unknown", "", schema.EndFinished, schema.SourceInferred, marker, 2, 0, 0, -1, true, 0}},
		events: []sweEv{
			{"list", 0, 0, schema.KindSystem, "system", "", "", "", "", 2, false},
			{"list", 1, 0, schema.KindUser, "user", "", "", "", "", 3, false},
			{"list", 2, 0, schema.KindAssistant, "assistant", "", "", "", "", 4, false},
			{"list", 3, 0, schema.KindToolCall, "assistant", "bash", "action-0", "", "cat a.py", 4, false},
			{"list", 4, 1, schema.KindToolResult, "user", "bash", "action-0", "action-0", "cat a.py", 5, false},
			{"list", 5, 1, schema.KindAssistant, "assistant", "", "", "", "", 6, false},
			{"list", 6, 1, schema.KindToolCall, "assistant", "bash", "action-1", "", "echo " + marker + " && git diff", 6, false},
			{"list", 7, 2, schema.KindToolResult, "user", "bash", "action-1", "action-1", "echo " + marker + " && git diff", 7, false},
		},
		exits:   []int64{0, -1},
		outputs: []sweOut{{"list", "action-0", "action-0", "bash", "cat a.py", 1, 4}, {"list", "action-1", "action-1", "bash", "echo " + marker + " && git diff", 2, 7}},
	}, {
		// v2 tool calling: ids, extra.timestamp, an exit message
		file: "toolcall.traj.json",
		runs: []sweRunRow{{toolcal, "mini-swe-agent", "gpt-5-mini", "gpt-5-mini", toolcal, schema.EndFinished, schema.SourceExplicit, "Submitted", 2, 1100, 40, 0.01, false, 2}},
		events: []sweEv{
			{toolcal, 0, 0, schema.KindSystem, "system", "", "", "", "", 4, false},
			{toolcal, 1, 0, schema.KindUser, "user", "", "", "", "", 5, false},
			{toolcal, 2, 0, schema.KindAssistant, "assistant", "", "", "", "", 6, false},
			{toolcal, 3, 0, schema.KindToolCall, "assistant", "bash", "call_a", "", "ls", 6, false},
			{toolcal, 4, 1, schema.KindToolResult, "tool", "bash", "call_a", "call_a", "ls", 7, false},
			{toolcal, 5, 1, schema.KindToolCall, "assistant", "bash", "call_b", "", "echo " + marker, 8, false},
		},
		usage: []miniUse{
			{toolcal, 0, 500, 30, 100, 0, gpt5, "resp-1", "2026-01-01T00:00:00.5Z"},
			{toolcal, 1, 600, 10, 0, 0, gpt5, "resp-2", "2026-01-01T00:00:02Z"},
		},
		exits:   []int64{0},
		outputs: []sweOut{{toolcal, "call_a", "call_a", "bash", "ls", 1, 4}},
	}, {
		file: "badmsg.traj.json", // one message is not an object
		runs: []sweRunRow{{"badmsg", "mini-swe-agent", "", "unknown", "", schema.EndContextOverflow, schema.SourceExplicit, "ContextWindowExceededError", 1, 0, 0, -1, true, 0}},
		events: []sweEv{
			{"badmsg", 0, 0, schema.KindSystem, "system", "", "", "", "", 3, false},
			{"badmsg", 1, 0, schema.KindUser, "user", "", "", "", "", 4, false},
			{"badmsg", 2, 0, schema.KindAssistant, "assistant", "", "", "", "", 6, false},
			{"badmsg", 3, 0, schema.KindToolCall, "assistant", "bash", "action-0", "", "ls", 6, false},
			{"badmsg", 4, 1, schema.KindToolResult, "user", "bash", "action-0", "action-0", "ls", 7, false},
		},
		exits:   []int64{0},
		outputs: []sweOut{{"badmsg", "action-0", "action-0", "bash", "ls", 1, 4}},
		rejects: []sweReject{{5, "message 3 is not an object"}},
	}, {
		file:    "broken.traj.json", // not JSON: one reject at the error, no run
		rejects: []sweReject{{5, "invalid JSON"}},
	}}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			m := sweParse(t, "mini-swe-agent", filepath.Join("testdata", "mini-swe-agent", tc.file))
			if diff := cmp.Diff(tc.runs, sweRuns(m)); diff != "" {
				t.Errorf("runs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.events, sweEvents(m)); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.usage, miniUsage(m)); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.exits, miniExits(m)); diff != "" {
				t.Errorf("exit codes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.outputs, sweOutputs(m)); diff != "" {
				t.Errorf("tool_outputs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.ops, sweOps(m)); diff != "" {
				t.Errorf("context_ops (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.rejects, sweRejects(m.Rejects)); diff != "" {
				t.Errorf("rejects (-want +got):\n%s", diff)
			}
			rules := map[int64]string{}
			for _, e := range m.Events {
				if e.ErrorRule != "" {
					rules[e.Seq] = e.ErrorRule
				}
			}
			if diff := cmp.Diff(tc.rules, rules, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("error rules (-want +got):\n%s", diff)
			}
			for _, o := range m.ToolOutputs {
				if w, ok := tc.sizes[o.ToolKey]; ok && (o.Chars != w[0] || o.EstTokens != w[1]) {
					t.Errorf("output %s: %d chars, %d tokens; want %d, %d", o.ToolKey, o.Chars, o.EstTokens, w[0], w[1])
				}
			}
		})
	}
}

// TestMiniSWEAgentTexts pins the texts of full.traj.json's first call and
// refused message, and its run's time span.
func TestMiniSWEAgentTexts(t *testing.T) {
	m := sweParse(t, "mini-swe-agent", filepath.Join("testdata", "mini-swe-agent", "full.traj.json"))
	type text struct{ Kind, Text, Args, TS string }
	var got []text
	for _, e := range m.Events[2:8] {
		ts := ""
		if e.TS != nil {
			ts = e.TS.Format(time.RFC3339)
		}
		got = append(got, text{string(e.Kind), e.Text, e.Args, ts})
	}
	want := []text{
		{"reasoning", "Thinking about the files.", "", "2025-11-19T00:11:57Z"},
		{"assistant", "THOUGHT: Look around first.", "", "2025-11-19T00:11:57Z"},
		{"tool_call", `bash {"command":"ls -la"}`, `{"command":"ls -la"}`, "2025-11-19T00:11:57Z"},
		{"tool_result", "<returncode>0</returncode>\n<output>\na.py\n</output>", "", ""},
		// refused (two actions): the whole message, no tool call
		{"assistant", "THOUGHT: Two things at once.\n\n```bash\nls\n```\n\n```bash\npwd\n```", "", "2025-11-19T00:12:00Z"},
		{"error", "Please always provide EXACTLY ONE action in triple backticks, found 2 actions.", "", ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("texts (-want +got):\n%s", diff)
	}
	r := m.Runs[0]
	if r.StartedAt == nil || r.EndedAt == nil || r.StartedAt.Unix() != 1763511117 || r.EndedAt.Unix() != 1763511130 {
		t.Errorf("run span %v – %v, want the first and last response times", r.StartedAt, r.EndedAt)
	}
}

func TestMiniSWEAgentEnd(t *testing.T) {
	tests := []struct {
		name, info, exitMsg string
		reason              schema.EndReason
	}{
		{"submitted", `{"exit_status":"Submitted"}`, "", schema.EndFinished},
		{"limits: cost reached", `{"exit_status":"LimitsExceeded","model_stats":{"instance_cost":3.1},"config":{"agent":{"cost_limit":3,"step_limit":250}}}`, "", schema.EndCostLimit},
		{"limits: steps", `{"exit_status":"LimitsExceeded","model_stats":{"instance_cost":1},"config":{"agent":{"cost_limit":3,"step_limit":250}}}`, "", schema.EndStepLimit},
		{"limits: v2 exit message", `{"exit_status":"LimitsExceeded"}`, "Cost limit exceeded.", schema.EndCostLimit},
		{"context window", `{"exit_status":"ContextWindowExceededError"}`, "", schema.EndContextOverflow},
		{"interrupted", `{"exit_status":"KeyboardInterrupt"}`, "", schema.EndInterrupted},
		{"other exception", `{"exit_status":"RuntimeError"}`, "", schema.EndError},
		{"unknown words", `{"exit_status":"Something"}`, "", schema.EndUnknown},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msgs := `[{"role":"system","content":"s"}`
			if tc.exitMsg != "" {
				msgs += `,{"role":"exit","content":"` + tc.exitMsg + `","extra":{"exit_status":"LimitsExceeded"}}`
			}
			doc := `{"info":` + tc.info + `,"messages":` + msgs + `],"trajectory_format":"mini-swe-agent-1.1"}`
			m, err := ingest.Parse(context.Background(), "mini-swe-agent", "e.traj.json", []byte(doc), nil)
			if err != nil {
				t.Fatal(err)
			}
			if r := m.Runs[0]; r.EndReason != tc.reason {
				t.Errorf("end = %s (%s, %q), want %s", r.EndReason, r.EndReasonSource, r.EndReasonDetail, tc.reason)
			}
		})
	}
}

func TestMiniSWEAgentDetect(t *testing.T) {
	im, err := ingest.Lookup("mini-swe-agent")
	if err != nil {
		t.Fatal(err)
	}
	longSystem := `[{"role": "system", "content": "` + strings.Repeat("y", ingest.HeadSize) + `"}]`
	longSubmission := `{"info": {"exit_status": "Submitted", "submission": "` + strings.Repeat("+x\\n", ingest.HeadSize) + `"}}`
	tests := []struct {
		name, file, head string
		want             bool
	}{
		{"trajectory_format", "x.json", `{"messages": [], "trajectory_format": "mini-swe-agent-1"}`, true},
		{"mini_version", "x.json", `{"info": {"exit_status": "Submitted", "mini_version": "1.15.0"}}`, true},
		{"exit status, head ends in the submission", "x.json", longSubmission[:ingest.HeadSize], true},
		{"exit status and messages", "x.json", `{"info": {"exit_status": "LimitsExceeded"}, "messages": [{"role": "system", "content": "s"}]}`, true},
		{"SWE-agent exit status and messages", "x.json", `{"info": {"exit_status": "submitted"}, "messages": [{"role": "system", "content": "s"}]}`, false},
		{"exit status alone", "x.json", `{"info": {"exit_status": "Submitted"}}`, false},
		{"config type", "x.json", `{"info": {"config": {"agent_type": "minisweagent.agents.default.DefaultAgent"}}}`, true},
		{"messages in a .traj.json", "x.traj.json", `{"messages": [{"role": "system", "content": "s"}]}`, true},
		{"messages elsewhere", "x.json", `{"messages": [{"role": "system", "content": "s"}]}`, false},
		{"list with action and observation", "x.json", `[{"role": "system", "content": "s"}, {"role": "assistant", "content": "t\n` + "```bash\\nls\\n```" + `"}, {"role": "user", "content": "<returncode>0</returncode>"}]`, true},
		{"list of messages elsewhere", "x.json", `[{"role": "system", "content": "s"}, {"role": "user", "content": "hi"}]`, false},
		{"list in a .traj.json", "x.traj.json", `[{"role": "system", "content": "s"}, {"role": "user", "content": "hi"}]`, true},
		{"list cut off in its first message", "x.traj.json", longSystem[:ingest.HeadSize], false},
		{"list of other records", "x.traj.json", `[{"type": "message"}]`, false},
		{"swe-agent", "x.traj", `{"history": [{"role": "system", "content": "s", "agent": "main"}], "info": {"mini_version": "x"}}`, false},
		{"not JSON", "x.traj.json", `mini-swe-agent`, false},
		{"empty", "x.traj.json", ``, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := im.Detect(tc.file, []byte(tc.head)); got != tc.want {
				t.Errorf("Detect = %v, want %v", got, tc.want)
			}
		})
	}
}

// miniManifest is MANIFEST.md's description of each corpus file: messages
// and assistant turns (each with one bash action, apart from refused ones).
var miniManifest = map[string]struct{ msgs, turns int }{
	"github_issue.traj.json":                                 {22, 10},
	"local.traj.json":                                        {6, 2},
	"gemini3pro__psf__requests-1142.traj.json":               {144, 71},
	"gemini3pro__scikit-learn__scikit-learn-25102.traj.json": {88, 43},
}

// miniScan reads a trajectory independently of the importer.
type miniScan struct {
	msgs, turns, calls, refused, elided, usage int
	prompt, completion                         int64
	cost                                       *float64
	exit                                       string
}

var miniScanAction = regexp.MustCompile("(?s)```(bash|mswea_bash_command)\\s*\\n(.*?)\\n```")

func miniScanFile(t *testing.T, data []byte) miniScan {
	t.Helper()
	type message struct {
		Role    string `json:"role"`
		Content string `json:"content"`
		Extra   struct {
			Response struct {
				Usage *struct {
					Prompt     int64 `json:"prompt_tokens"`
					Completion int64 `json:"completion_tokens"`
				} `json:"usage"`
			} `json:"response"`
		} `json:"extra"`
	}
	var doc struct {
		Info struct {
			ExitStatus string `json:"exit_status"`
			ModelStats struct {
				Cost *float64 `json:"instance_cost"`
			} `json:"model_stats"`
		} `json:"info"`
		Messages []message `json:"messages"`
	}
	if data[0] == '[' {
		if err := json.Unmarshal(data, &doc.Messages); err != nil {
			t.Fatal(err)
		}
	} else if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	s := miniScan{msgs: len(doc.Messages), cost: doc.Info.ModelStats.Cost, exit: doc.Info.ExitStatus}
	single := false
	for _, m := range doc.Messages {
		switch m.Role {
		case "assistant":
			s.turns++
			single = len(miniScanAction.FindAllString(m.Content, -1)) == 1
			if single {
				s.calls++
			} else {
				s.refused++
			}
			if u := m.Extra.Response.Usage; u != nil {
				s.usage++
				s.prompt += u.Prompt
				s.completion += u.Completion
			}
		case "user":
			if single && strings.Contains(m.Content, "<elided_chars>") {
				s.elided++
			}
			single = false
		}
	}
	return s
}

func TestMiniSWEAgentCorpus(t *testing.T) {
	dir := testutil.Corpus(t, "mini-swe-agent")
	files, err := filepath.Glob(filepath.Join(dir, "*.traj.json"))
	if err != nil || len(files) != len(miniManifest) {
		t.Fatalf("got %d corpus files, want %d: %v", len(files), len(miniManifest), err)
	}
	for _, p := range files {
		name := filepath.Base(p)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if im, err := ingest.DetectFormat(p, data[:min(len(data), ingest.HeadSize)]); err != nil || im.Name() != "mini-swe-agent" {
				t.Errorf("detected as %v (%v), want mini-swe-agent", im, err)
			}
			s := miniScanFile(t, data)
			if w := miniManifest[name]; s.msgs != w.msgs || s.turns != w.turns {
				t.Errorf("scan: %d messages, %d assistant turns; MANIFEST says %+v", s.msgs, s.turns, w)
			}
			m, err := ingest.Parse(context.Background(), "mini-swe-agent", p, data, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Runs) != 1 || len(m.Rejects) != 0 {
				t.Fatalf("got %d runs and %d rejects, want 1 and 0", len(m.Runs), len(m.Rejects))
			}
			r := m.Runs[0]
			if r.NTurns != int64(s.turns) || len(m.Usage) != s.usage || r.UsageCalls != int64(s.usage) ||
				r.InputTokens != s.prompt || r.OutputTokens != s.completion {
				t.Errorf("run: %d turns, %d usage rows (%d calls), %d/%d tokens; want %d, %d, %d/%d",
					r.NTurns, len(m.Usage), r.UsageCalls, r.InputTokens, r.OutputTokens, s.turns, s.usage, s.prompt, s.completion)
			}
			if s.cost != nil && (r.CostUSD == nil || *r.CostUSD != *s.cost) {
				t.Errorf("cost %v, want %v", r.CostUSD, *s.cost)
			}
			wantSource := schema.SourceExplicit
			if s.exit == "" {
				wantSource = schema.SourceInferred // bare lists end with the submission
			}
			if r.EndReason != schema.EndFinished || r.EndReasonSource != wantSource {
				t.Errorf("end = %s/%s, want finished/%s", r.EndReason, r.EndReasonSource, wantSource)
			}
			var calls, results, errs int
			for i, e := range m.Events {
				switch e.Kind {
				case schema.KindToolCall:
					calls++
				case schema.KindToolResult:
					results++
					last := i == len(m.Events)-1
					if !last && !strings.HasPrefix(e.Text, "<returncode>") {
						t.Errorf("result at line %d is no observation: %.60q", e.Line, e.Text)
					}
				case schema.KindError:
					errs++
					if !strings.HasPrefix(e.Text, "Please always provide EXACTLY ONE action") {
						t.Errorf("error at line %d is no format error: %.60q", e.Line, e.Text)
					}
				}
			}
			if calls != s.calls || results != s.calls || len(m.ToolOutputs) != s.calls || errs != s.refused {
				t.Errorf("%d calls, %d results, %d outputs, %d errors; want %d, %d, %d, %d",
					calls, results, len(m.ToolOutputs), errs, s.calls, s.calls, s.calls, s.refused)
			}
			// outputs cut when written (<elided_chars>) are kept at their
			// logged size, with no context op
			if len(m.ContextOps) != 0 {
				t.Errorf("%d context ops, want none (%d outputs were cut when written)", len(m.ContextOps), s.elided)
			}
			texts := map[int64]string{}
			for _, e := range m.Events {
				texts[e.Seq] = e.Text
			}
			cut := 0
			for _, o := range m.ToolOutputs {
				if text := texts[o.Seq]; strings.Contains(text, "<elided_chars>") {
					cut++
					if o.Chars != int64(len([]rune(text))) {
						t.Errorf("output %s: %d chars, want its logged text's %d", o.ToolKey, o.Chars, len([]rune(text)))
					}
				}
			}
			if cut != s.elided {
				t.Errorf("%d outputs cut when written, the scan counts %d", cut, s.elided)
			}
		})
	}
}
