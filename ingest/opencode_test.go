package ingest_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/schema"
)

const opcFormat = "opencode-sse-events"

func TestOpenCodeFixtures(t *testing.T) {
	tests := []struct {
		file    string
		runs    []gaiRunRow
		events  map[string][]gaiEv
		usage   map[string][]gaiUse
		outs    map[string][]gaiOut
		ops     map[string][]gaiOp
		rejects []gaiReject
	}{
		{
			file: "session.json",
			runs: []gaiRunRow{
				{ID: "ses_main", Harness: "opencode", Model: "claude-sonnet-4-5", Turns: 5, In: 5690, Out: 135, Read: 3500, Write: 50, Rsn: 5, UCalls: 4,
					End: schema.EndFinished, Source: schema.SourceExplicit, Detail: "finish_reason: stop", Cost: 0.035, Started: "2023-11-14T22:13:21Z"},
				{ID: "ses_child", Parent: "ses_main", Harness: "opencode", Model: "gpt-5", Turns: 1, Estimated: true,
					End: schema.EndInterrupted, Source: schema.SourceExplicit, Detail: "MessageAbortedError: The operation was aborted.", Cost: -1, Started: "2023-11-14T22:13:26.1Z"},
			},
			events: map[string][]gaiEv{
				"ses_main": {
					{0, 0, schema.KindUser, "", "", "", 4, false, "fix the bug in main.go"},
					{1, 0, schema.KindUser, "", "", "", 5, false, `Called the Read tool with the following input: {"filePath":"main.go"}`},
					// the text/plain file part (6) is sent as the synthetic text above; the ignored text (8) is not sent
					{2, 0, schema.KindUser, "", "", "", 7, false, "[file image/png shot.png]"},
					{3, 0, schema.KindSystem, "", "", "", 27, false, "You are opencode."},
					// step 1: outputs, then the results the next step sees
					{4, 0, schema.KindReasoning, "", "", "", 11, false, "Let me look."},
					{5, 0, schema.KindAssistant, "", "", "", 13, false, "I'll read the file."},
					{6, 0, schema.KindToolCall, "read", "call_1", "main.go", 17, false, `read {"filePath":"main.go"}`},
					{7, 0, schema.KindToolCall, "bash", "call_2", "go test ./...", 18, false, `bash {"command":"go test ./..."}`},
					{8, 1, schema.KindToolResult, "read", "call_1", "main.go", 17, false, "package main"},
					{9, 1, schema.KindToolResult, "bash", "call_2", "go test ./...", 18, false, "FAIL"},
					// step 2
					{10, 1, schema.KindToolCall, "edit", "call_3", "main.go", 21, false, `edit {"filePath":"main.go","newString":"b","oldString":"a"}`},
					{11, 2, schema.KindToolResult, "edit", "call_3", "main.go", 21, true, "oldString not found"},
					// step 3: the text with its streamed delta
					{12, 2, schema.KindAssistant, "", "", "", 25, false, "Fixed. Tests pass."},
					// compaction part, then the summary call (no second op for it or for session.compacted)
					{13, 3, schema.KindCompaction, "", "", "", 31, false, "compaction (auto)"},
					{14, 3, schema.KindAssistant, "", "", "", 33, false, "Summary: fixed main.go"},
					{15, 4, schema.KindUser, "", "", "", 36, false, "thanks"},
					{16, 4, schema.KindSystem, "", "", "", 37, false, "You are opencode.\nBe brief."},
					{17, 4, schema.KindAssistant, "", "", "", 38, false, "You're welcome."},
				},
				"ses_child": {
					{0, 0, schema.KindUser, "", "", "", 41, false, "explore"},
					{1, 0, schema.KindToolCall, "glob", "call_9", "**/*.go", 44, false, `glob {"pattern":"**/*.go"}`},
					{2, 1, schema.KindError, "", "", "", 42, true, "MessageAbortedError: The operation was aborted."},
				},
			},
			usage: map[string][]gaiUse{
				"ses_main": {
					{0, "claude-sonnet-4-5", "msg_002", 1150, 20, 1000, 50, 5},
					{1, "claude-sonnet-4-5", "msg_002", 1230, 10, 1200, 0, 0},
					{2, "claude-sonnet-4-5", "msg_002", 1310, 5, 1300, 0, 0},
					{3, "claude-sonnet-4-5", "msg_004", 2000, 100, 0, 0, 0},
				},
			},
			outs: map[string][]gaiOut{
				"ses_main": {
					{"call_1", "call_1", "read", "main.go", 1, 8, false},
					{"call_2", "call_2", "bash", "go test ./...", 1, 9, false},
					{"call_3", "call_3", "edit", "main.go", 2, 11, true},
				},
			},
			ops: map[string][]gaiOp{
				"ses_main": {{13, 3, schema.OpCompaction, 1310, -1, "auto", "compaction part"}},
			},
			rejects: []gaiReject{
				{28, "message.part.updated without a valid part (id, messageID, sessionID)"},
				{29, "event is not a JSON object"},
			},
		},
		{
			file: "stream.sse",
			runs: []gaiRunRow{
				{ID: "ses_sse", Harness: "opencode", Model: "gpt-5", Turns: 1, In: 700, Out: 40, Read: 200, Rsn: 10, UCalls: 1,
					End: schema.EndContextOverflow, Source: schema.SourceExplicit, Detail: "APIError: prompt is too long: 210000 tokens > 200000 maximum",
					Cost: 0.002, Started: "2024-03-09T16:00:00Z"},
			},
			events: map[string][]gaiEv{
				"ses_sse": {
					{0, 0, schema.KindUser, "", "", "", 6, false, "summarise the repo"},
					{1, 0, schema.KindAssistant, "", "", "", 10, false, "The repo is"},
					{2, 1, schema.KindError, "", "", "", 14, true, "APIError: prompt is too long: 210000 tokens > 200000 maximum"},
				},
			},
			usage:   map[string][]gaiUse{"ses_sse": {{0, "gpt-5", "msg_a2", 700, 40, 200, 0, 10}}},
			rejects: []gaiReject{{12, "invalid JSON line"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			m := gaiParse(t, opcFormat, filepath.Join("testdata", "opencode-sse-events", tc.file))
			if diff := cmp.Diff(tc.runs, gaiRuns(m)); diff != "" {
				t.Errorf("runs (-want +got):\n%s", diff)
			}
			for _, r := range tc.runs {
				if diff := cmp.Diff(tc.events[r.ID], gaiEvents(m, r.ID)); diff != "" {
					t.Errorf("run %s events (-want +got):\n%s", r.ID, diff)
				}
				if diff := cmp.Diff(tc.usage[r.ID], gaiUsage(m, r.ID)); diff != "" {
					t.Errorf("run %s usage (-want +got):\n%s", r.ID, diff)
				}
				if diff := cmp.Diff(tc.outs[r.ID], gaiOutputs(m, r.ID)); diff != "" {
					t.Errorf("run %s tool outputs (-want +got):\n%s", r.ID, diff)
				}
				if diff := cmp.Diff(tc.ops[r.ID], gaiOps(m, r.ID)); diff != "" {
					t.Errorf("run %s context ops (-want +got):\n%s", r.ID, diff)
				}
			}
			if diff := cmp.Diff(tc.rejects, gaiRejects(m)); diff != "" {
				t.Errorf("rejects (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOpenCodeExitCode(t *testing.T) {
	m := gaiParse(t, opcFormat, filepath.Join("testdata", "opencode-sse-events", "session.json"))
	var got []string
	for _, e := range m.Events {
		if e.Kind == schema.KindToolResult && e.ExitCode != nil {
			got = append(got, e.CallID+"="+strconv.FormatInt(*e.ExitCode, 10))
		}
	}
	if diff := cmp.Diff([]string{"call_2=1"}, got); diff != "" {
		t.Errorf("exit codes (-want +got):\n%s", diff)
	}
}

func TestOpenCodeStrict(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "opencode-sse-events", "stream.sse"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = ingest.Parse(context.Background(), opcFormat, "stream.sse", data, &ingest.Options{Strict: true})
	var se *ingest.SyntaxError
	if !asSyntax(err, &se) || se.Line != 12 {
		t.Fatalf("err = %v, want a syntax error at line 12", err)
	}
}

// TestOpenCodeStorage imports a storage tree (current and older layouts)
// the way `trajmine ingest <dir>` does: session files read their messages and
// parts, which import nothing themselves.
func TestOpenCodeStorage(t *testing.T) {
	sink := &ingest.MemSink{}
	sum, err := ingest.Files(context.Background(), sink, []string{filepath.Join("testdata", "opencode-storage")}, &ingest.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	gaiCheckSink(t, sink)
	// 22 files: 3 sessions, 6 messages, 12 parts, and a broken part no
	// importer recognises (its session reports it)
	if sum.Files != 21 || sum.Skipped != 1 || sum.Failed != 0 || sum.Runs != 3 || sum.Events != 10 || sum.Rejects != 1 {
		t.Fatalf("summary = %+v", sum)
	}
	for _, s := range sink.Sources {
		if s.Format != opcFormat {
			t.Errorf("%s imported as %s", s.Path, s.Format)
		}
		if isSession := strings.Contains(filepath.ToSlash(s.Path), "/session/p1/") || strings.Contains(filepath.ToSlash(s.Path), "/session/info/"); isSession != (s.Runs == 1) {
			t.Errorf("%s: %d runs", s.Path, s.Runs)
		}
	}
	byID := map[string]gaiRunRow{}
	for _, r := range gaiRuns(sink) {
		byID[r.ID] = r
	}
	wantRuns := map[string]gaiRunRow{
		"ses_st1": {ID: "ses_st1", Harness: "opencode", Model: "claude-opus-4", Turns: 2, In: 18312, Out: 50, Read: 17000, Write: 1300, UCalls: 2,
			End: schema.EndFinished, Source: schema.SourceExplicit, Detail: "finish_reason: stop", Cost: 0.5, Started: "2024-07-03T09:46:41Z"},
		"ses_st2": {ID: "ses_st2", Parent: "ses_st1", Harness: "opencode", Model: "claude-haiku-4", Turns: 1, In: 50, Out: 8, UCalls: 1,
			End: schema.EndFinished, Source: schema.SourceExplicit, Detail: "finish_reason: stop", Cost: 0.001, Started: "2024-07-03T09:46:47Z"},
		"ses_old": {ID: "ses_old", Harness: "opencode", Model: "gpt-4.1", Turns: 1, In: 120, Out: 6, UCalls: 1,
			End: schema.EndFinished, Source: schema.SourceExplicit, Detail: "finish_reason: stop", Cost: -1, Started: "2024-03-09T16:00:01Z"},
	}
	if diff := cmp.Diff(wantRuns, byID); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
	wantEvents := map[string][]gaiEv{
		// lines are record numbers over the files read: message, its parts, next message …
		"ses_st1": {
			{0, 0, schema.KindUser, "", "", "", 2, false, "list the files"},
			{1, 0, schema.KindAssistant, "", "", "", 5, false, "Listing."},
			{2, 0, schema.KindToolCall, "bash", "toolu_1", "ls -la", 6, false, `bash {"command":"ls -la"}`},
			{3, 1, schema.KindToolResult, "bash", "toolu_1", "ls -la", 6, false, "a.go\nb.go"},
			{4, 1, schema.KindAssistant, "", "", "", 9, false, "Two files: a.go and b.go."},
		},
		"ses_st2": {
			{0, 0, schema.KindUser, "", "", "", 2, false, "count lines"},
			{1, 0, schema.KindAssistant, "", "", "", 4, false, "42 lines."},
		},
		"ses_old": {
			{0, 0, schema.KindUser, "", "", "", 2, false, "hello"},
			{1, 0, schema.KindSystem, "", "", "", 3, false, "You are opencode, legacy."},
			{2, 0, schema.KindAssistant, "", "", "", 4, false, "hi there"},
		},
	}
	wantUsage := map[string][]gaiUse{
		"ses_st1": {{0, "claude-opus-4", "msg_s002", 9005, 20, 8000, 1000, 0}, {1, "claude-opus-4", "msg_s002", 9307, 30, 9000, 300, 0}},
		"ses_st2": {{0, "claude-haiku-4", "msg_s102", 50, 8, 0, 0, 0}},
		"ses_old": {{0, "gpt-4.1", "msg_o2", 120, 6, 0, 0, 0}},
	}
	for id := range wantRuns {
		if diff := cmp.Diff(wantEvents[id], gaiEvents(sink, id)); diff != "" {
			t.Errorf("run %s events (-want +got):\n%s", id, diff)
		}
		if diff := cmp.Diff(wantUsage[id], gaiUsage(sink, id)); diff != "" {
			t.Errorf("run %s usage (-want +got):\n%s", id, diff)
		}
	}
	if len(sink.Rejects) != 1 || sink.Rejects[0].Line != 11 || !strings.HasPrefix(sink.Rejects[0].Reason, "invalid part file prt_s002z.json: ") ||
		filepath.Base(sink.Rejects[0].SourcePath) != "ses_st1.json" {
		t.Errorf("rejects = %+v, want the broken part at record 11 of ses_st1.json", sink.Rejects)
	}
}

func TestOpenCodeDetect(t *testing.T) {
	im, err := ingest.Lookup(opcFormat)
	if err != nil {
		t.Fatal(err)
	}
	long := `[{"type":"message.part.updated","properties":{"part":{"id":"prt_1","text":"` + strings.Repeat("x", ingest.HeadSize) + `"}}}]`
	tests := []struct {
		name, head string
		want       bool
	}{
		{"event array", `[{"type":"message.updated","properties":{"info":{"id":"msg_1","sessionID":"ses_1","role":"user"}}}]`, true},
		{"event array cut off by the head", long[:ingest.HeadSize], true},
		{"properties before type", `[{"properties":{"url":"u"},"type":"custom.server_ready"},{"properties":{},"type":"session.idle"}]`, true},
		{"JSON lines", `{"type":"session.updated","properties":{"info":{"id":"ses_1"}}}` + "\n", true},
		{"global event stream", `{"directory":"/w","payload":{"type":"message.updated","properties":{"info":{}}}}` + "\n", true},
		{"SSE capture", ": hi\ndata: {\"type\":\"message.part.updated\",\"properties\":{\"part\":{}}}\n", true},
		{"storage session", `{"id":"ses_abc","version":"1.0.0","projectID":"p","directory":"/w","title":"t","time":{"created":1}}`, true},
		{"storage message", `{"id":"msg_abc","sessionID":"ses_abc","role":"assistant","time":{"created":1}}`, true},
		{"storage part", `{"id":"prt_abc","sessionID":"ses_abc","messageID":"msg_abc","type":"text","text":"hi"}`, true},
		{"message without a known role", `{"id":"msg_abc","sessionID":"ses_abc","role":"x"}`, false},
		{"other ids", `{"id":"abc","sessionID":"s","messageID":"m","type":"text"}`, false},
		{"unrelated events", `[{"type":"message","properties":{}}]`, false},
		{"claude code line", `{"type":"user","sessionId":"s","message":{"role":"user","content":"hi"}}`, false},
		{"codex line", `{"type":"session_meta","payload":{"id":"x"}}`, false},
		{"chat messages", `[{"role":"user","content":"hi"}]`, false},
		{"empty", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := im.Detect("x.json", []byte(tc.head)); got != tc.want {
				t.Errorf("Detect = %v, want %v", got, tc.want)
			}
		})
	}
	for _, p := range gaiGlob(t, filepath.Join("testdata", "opencode-sse-events", "*.json"), filepath.Join("testdata", "opencode-sse-events", "*.sse")) {
		data, _ := os.ReadFile(p)
		if got := ingest.Detect(p, data[:min(len(data), ingest.HeadSize)]); got == nil || got.Name() != opcFormat {
			t.Errorf("%s detected as %v", p, got)
		}
	}
}

// TestOpenCodeStorageAlone: a lone message or part file imports nothing; a
// session file outside a storage tree is an empty run.
func TestOpenCodeStorageAlone(t *testing.T) {
	tests := []struct {
		name, data string
		runs       int
	}{
		{"message", `{"id":"msg_1","sessionID":"ses_1","role":"user","time":{"created":1}}`, 0},
		{"part", `{"id":"prt_1","sessionID":"ses_1","messageID":"msg_1","type":"text","text":"hi"}`, 0},
		{"session", `{"id":"ses_1","projectID":"p","title":"t","time":{"created":1}}`, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ingest.Parse(context.Background(), opcFormat, tc.name+".json", []byte(tc.data), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Runs) != tc.runs || len(m.Events) != 0 || len(m.Rejects) != 0 {
				t.Errorf("runs %d, events %d, rejects %d; want %d, 0, 0", len(m.Runs), len(m.Events), len(m.Rejects), tc.runs)
			}
		})
	}
}

// opcScan is an independent reading of a recorded stream: the final state of
// every part and message, per session.
type opcScan struct {
	messages, parts, toolParts int
	sessions                   map[string]*opcScanSession
}

type opcScanSession struct {
	parent                            string
	messages                          int
	toolCalls, toolResults, usageRows int
	calls                             int
	input                             int64
	compactions                       int
}

type opcScanTokens struct {
	Input, Output float64
	Cache         struct{ Read, Write float64 }
}

func (k *opcScanTokens) prompt() int64 {
	if k == nil {
		return 0
	}
	return int64(k.Input + k.Cache.Read + k.Cache.Write)
}

func opcScanFile(t *testing.T, data []byte) opcScan {
	t.Helper()
	var events []struct {
		Type       string          `json:"type"`
		Properties json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(data, &events); err != nil {
		t.Fatal(err)
	}
	type part struct {
		ID, MessageID, SessionID, Type string
		State                          *struct{ Status string }
		Tokens                         *opcScanTokens
	}
	type info struct {
		ID, SessionID, Role string
		Tokens              *opcScanTokens
	}
	parts := map[string]part{}
	var partOrder []string
	msgs := map[string]info{}
	parents := map[string]string{}
	for _, e := range events {
		var p struct {
			Part *part
			Info *struct {
				info
				ParentID string
			}
		}
		_ = json.Unmarshal(e.Properties, &p)
		switch e.Type {
		case "message.part.updated":
			if _, ok := parts[p.Part.ID]; !ok {
				partOrder = append(partOrder, p.Part.ID)
			}
			parts[p.Part.ID] = *p.Part
		case "message.updated":
			msgs[p.Info.ID] = p.Info.info
		case "session.created", "session.updated":
			if p.Info.ParentID != "" {
				parents[p.Info.ID] = p.Info.ParentID
			}
		}
	}
	sc := opcScan{messages: len(msgs), parts: len(parts), sessions: map[string]*opcScanSession{}}
	sess := func(id string) *opcScanSession {
		if s, ok := sc.sessions[id]; ok {
			return s
		}
		s := &opcScanSession{parent: parents[id]}
		sc.sessions[id] = s
		return s
	}
	stepsOf := map[string]int{}
	outputsOf := map[string]bool{}
	finishes := map[string]bool{}
	for _, id := range partOrder {
		p := parts[id]
		s := sess(p.SessionID)
		switch p.Type {
		case "tool":
			sc.toolParts++
			s.toolCalls++
			outputsOf[p.MessageID] = true
			if p.State != nil && (p.State.Status == "completed" || p.State.Status == "error") {
				s.toolResults++
			}
		case "step-start":
			stepsOf[p.MessageID]++
			s.calls++
		case "step-finish":
			finishes[p.MessageID] = true
			if n := p.Tokens.prompt(); n > 0 {
				s.usageRows++
				s.input += n
			}
		case "text", "reasoning":
			outputsOf[p.MessageID] = true
		case "compaction":
			s.compactions++
		}
	}
	for _, m := range msgs {
		s := sess(m.SessionID)
		s.messages++
		if m.Role != "assistant" || stepsOf[m.ID] > 0 {
			continue
		}
		if n := m.Tokens.prompt(); n > 0 && !finishes[m.ID] {
			s.usageRows++
			s.input += n
			s.calls++
		} else if outputsOf[m.ID] {
			s.calls++
		}
	}
	return sc
}

// opcManifest is the corpus MANIFEST's counts: messages, unique parts, tool parts.
var opcManifest = map[string][3]int{
	"opencode.nvim__explore.json":                   {14, 51, 19},
	"opencode.nvim__diagnostics.json":               {5, 22, 3},
	"opencode.nvim__compaction-after-messages.json": {4, 5, 0},
	"opencode.nvim__compaction-summary-text.json":   {2, 3, 0},
	"opencode.nvim__simple-session.json":            {2, 7, 0},
}

func TestOpenCodeCorpus(t *testing.T) {
	dir := testutil.Corpus(t, "opencode-sse-events")
	files := gaiGlob(t, filepath.Join(dir, "*.json"))
	if len(files) != len(opcManifest) {
		t.Fatalf("%d corpus files, want %d", len(files), len(opcManifest))
	}
	for _, p := range files {
		name := filepath.Base(p)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			sc := opcScanFile(t, data)
			if got := [3]int{sc.messages, sc.parts, sc.toolParts}; got != opcManifest[name] {
				t.Fatalf("scan counts %v, MANIFEST says %v", got, opcManifest[name])
			}
			m := gaiParse(t, opcFormat, p)
			if len(m.Rejects) != 0 {
				t.Fatalf("rejects: %+v", m.Rejects)
			}
			if len(m.Runs) != len(sc.sessions) {
				t.Fatalf("%d runs, want %d sessions", len(m.Runs), len(sc.sessions))
			}
			for _, r := range m.Runs {
				s := sc.sessions[r.RunID]
				if s == nil {
					t.Fatalf("run %s is no session of the file", r.RunID)
				}
				kinds := map[schema.EventKind]int{}
				for _, e := range m.Events {
					if e.RunID == r.RunID {
						kinds[e.Kind]++
					}
				}
				outs, usage, ops := len(gaiOutputs(m, r.RunID)), len(gaiUsage(m, r.RunID)), len(gaiOps(m, r.RunID))
				got := []int64{int64(kinds[schema.KindToolCall]), int64(kinds[schema.KindToolResult]), int64(outs), int64(usage), r.UsageCalls, r.NTurns, r.InputTokens, int64(ops)}
				want := []int64{int64(s.toolCalls), int64(s.toolResults), int64(s.toolResults), int64(s.usageRows), int64(s.usageRows), int64(s.calls), s.input, int64(s.compactions)}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("run %s [calls results outputs usage usage_calls turns input ops] (-scan +import):\n%s", r.RunID, diff)
				}
				if r.ParentRunID != s.parent {
					t.Errorf("run %s parent %q, want %q", r.RunID, r.ParentRunID, s.parent)
				}
			}
		})
	}
}

// TestOpenCodeCorpusEnds pins the end reasons of the corpus sessions.
func TestOpenCodeCorpusEnds(t *testing.T) {
	dir := testutil.Corpus(t, "opencode-sse-events")
	want := map[string]string{
		"ses_341f480cfffekQwFX2LabeJFAU": "finished explicit", // explore: the main session
		"ses_341f3e676ffez6WUF6zpok7dUZ": "finished explicit", // explore: its task sub-agent
		"ses_5b612cfbefferUqNCDHOrQunq7": "finished explicit", // diagnostics
		"ses_compaction_after_messages":  "finished inferred", // the last message has no finish
		"ses_compaction_summary_hidden":  "finished explicit",
		"ses_6345495f3ffeHrPDfQKfwjff2i": "finished inferred", // simple-session: no finish logged
	}
	got := map[string]string{}
	for _, p := range gaiGlob(t, filepath.Join(dir, "*.json")) {
		m := gaiParse(t, opcFormat, p)
		for _, r := range m.Runs {
			got[r.RunID] = string(r.EndReason) + " " + string(r.EndReasonSource)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("end reasons (-want +got):\n%s", diff)
	}
}
