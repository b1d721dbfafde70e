package ingest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/schema"
)

// The Cursor IDE fixtures (testdata/agents/cursor-ide, SOURCE.md): the
// composer id of the two stores from quesma-shipper's tests, and the
// composer of gait's real workspace value.
const (
	cdQuesma = "5d1f7b3e-9a2c-4e8f-b1d0-3c4a5b6c7d8e"
	cdGait   = "a30e03af-9c22-4476-a876-dfa8c832efdc"
)

// cdTimes are a run's start and end (RFC 3339, "" for none).
type cdTimes struct{ start, end string }

func runTimes(r *schema.Run) cdTimes {
	f := func(t *time.Time) string {
		if t == nil {
			return ""
		}
		return t.UTC().Format(time.RFC3339Nano)
	}
	return cdTimes{f(r.StartedAt), f(r.EndedAt)}
}

// TestCursorIDEHandCounts imports each Cursor store fixture, built from its
// SQL, and checks every run against the hand counts of SOURCE.md (counted
// from the rows: see its rules and the sqlite3/jq lines that give them).
func TestCursorIDEHandCounts(t *testing.T) {
	cd := func(id, model string, turns, calls, results int64) runCounts {
		return runCounts{id: id, format: "cursor-ide-db", harness: "cursor-ide", model: model,
			turns: turns, toolCalls: calls, results: results, linked: results, cost: -1}
	}
	tokens := func(id string) runCounts {
		r := cd(id, "claude-4.6-sonnet", 1, 0, 0)
		r.in, r.out, r.usageCalls = 100, 50, 1
		return r
	}
	for _, tc := range []struct {
		fixture string
		want    []runCounts
		times   []cdTimes
	}{
		// b1 user, b2 text, b3 run_terminal_cmd call_abc123 with its result: one call (b2, b3)
		{"quesma__full_rows.sql", []runCounts{cd(cdQuesma, "claude-4.5-sonnet", 1, 1, 1)},
			[]cdTimes{{"2026-07-28T10:06:00Z", "2026-07-28T10:06:02Z"}}},
		// b1 user; think1 reasoning, a1 text, tool1 run_terminal_command_v2 tool_33e5b6ee with its
		// result: one call; no bubble times: the composer's createdAt 1753700000000 ms, no lastUpdatedAt
		{"quesma__store_generation.sql", []runCounts{cd(cdQuesma, "composer-2.5", 1, 1, 1)},
			[]cdTimes{{"2025-07-28T10:53:20Z", ""}}},
		// four composers known by one bubble each (no composerData): 100 in, 50 out each
		{"codeburn__global.sql", []runCounts{tokens("composer-work-1"), tokens("composer-work-2"),
			tokens("composer-personal-1"), tokens("composer-orphan-1")},
			[]cdTimes{{}, {}, {}, {}}},
		// user "" (no event), assistant, user, assistant: two calls; composer createdAt/lastUpdatedAt
		{"gait__workspace.sql", []runCounts{cd(cdGait, "", 2, 0, 0)},
			[]cdTimes{{"2024-10-17T23:49:27.968Z", "2024-10-17T23:52:14.605Z"}}},
	} {
		for _, small := range []int64{0, -1} {
			t.Run(fmt.Sprintf("%s/small=%d", tc.fixture, small), func(t *testing.T) {
				p := buildStore(t, t.TempDir(), "cursor-ide/"+tc.fixture, "state.vscdb")
				m, sum, warns := ingestPaths(t, &ingest.Options{SmallFile: small}, p)
				if sum.Files != 1 || sum.Failed != 0 || len(warns) != 0 || len(m.Rejects) != 0 {
					t.Fatalf("summary %+v, warnings %q", sum, warns)
				}
				if len(m.Runs) != len(tc.want) {
					t.Fatalf("%d runs, want %d", len(m.Runs), len(tc.want))
				}
				for i, w := range tc.want {
					if got := storeRunCounts(m, &m.Runs[i]); got != w {
						t.Errorf("run %d:\n got %+v\nwant %+v", i, got, w)
					}
					if got := runTimes(&m.Runs[i]); got != tc.times[i] {
						t.Errorf("run %d: times %+v, want %+v", i, got, tc.times[i])
					}
				}
			})
		}
	}
}

// TestCursorIDECountsJSON checks the runs against counts.json itself.
func TestCursorIDECountsJSON(t *testing.T) {
	hand := agentCounts(t, "cursor-ide")
	if len(hand) != 4 {
		t.Fatalf("counts.json names %d files, want the 4 stores", len(hand))
	}
	for file, h := range hand {
		t.Run(file, func(t *testing.T) {
			m, _, _ := ingestPaths(t, nil, buildStore(t, t.TempDir(), "cursor-ide/"+file, "state.vscdb"))
			if len(m.Runs) != len(h.Runs) {
				t.Fatalf("%d runs, counts.json has %d", len(m.Runs), len(h.Runs))
			}
			for i, hr := range h.Runs {
				got := storeRunCounts(m, &m.Runs[i])
				check := func(what string, got int64, want *int64) {
					if want == nil || got != *want {
						t.Errorf("run %s: %s %d, counts.json %v", runIDAt(m, i), what, got, want)
					}
				}
				check("model calls", got.turns, hr.ModelCalls)
				check("tool calls", got.toolCalls, hr.ToolCalls)
				check("tool results", got.results, hr.ToolResults)
				check("tool results linked", got.linked, hr.ToolResultsLinked)
				if got.model != hr.Model {
					t.Errorf("run %s: model %q, counts.json %q", runIDAt(m, i), got.model, hr.Model)
				}
				if hr.Usage == nil {
					if got.in+got.out != 0 || got.usageCalls != 0 {
						t.Errorf("run %s: usage %+v, counts.json none", runIDAt(m, i), got)
					}
					continue
				}
				check("input", got.in, hr.Usage.Input)
				check("output", got.out, hr.Usage.Output)
			}
		})
	}
}

// cdRule is one rule of the importer: a fixture with more SQL, and what it
// makes of it (worked out by hand from the rows the case writes).
type cdRule struct {
	name, fixture string
	more          []string
	runs          []runCounts
	rejects       []string // "key K: reason" prefixes, in order
	texts         []string // the first run's user and assistant texts, in order, when set
	failed        int      // tool results marked failed
	args          []string // the first run's tool calls' arguments, in order, when set
}

func cdRow(key, value string) string {
	return fmt.Sprintf("INSERT OR REPLACE INTO cursorDiskKV (key, value) VALUES ('%s', '%s')", key, strings.ReplaceAll(value, "'", "''"))
}

func TestCursorIDERules(t *testing.T) {
	full := func(f func(r *runCounts)) []runCounts {
		r := runCounts{id: cdQuesma, format: "cursor-ide-db", harness: "cursor-ide", model: "claude-4.5-sonnet",
			turns: 1, toolCalls: 1, results: 1, linked: 1, cost: -1}
		if f != nil {
			f(&r)
		}
		return []runCounts{r}
	}
	bubble := func(id, value string) string { return cdRow("bubbleId:"+cdQuesma+":"+id, value) }
	headers := func(ids ...string) string {
		var hs []string
		for _, id := range ids {
			hs = append(hs, `{"bubbleId":"`+id+`"}`)
		}
		return fmt.Sprintf(`UPDATE cursorDiskKV SET value = '{"composerId":"%s","fullConversationHeadersOnly":[%s]}' WHERE key = 'composerData:%s'`,
			cdQuesma, strings.Join(hs, ","), cdQuesma)
	}
	fullTexts := []string{"list the workspace", "Listing the workspace folder contents."}
	for _, tc := range []cdRule{
		{name: "a malformed bubble is rejected at its key, the others read", fixture: "quesma__full_rows.sql",
			more: []string{bubble("bad", `{"type":2,"text":`), bubble("odd", `{"type":3,"text":"x"}`), bubble("none", `{"text":"x"}`),
				bubble("wrong", `{"type":2,"text":7}`)},
			runs: full(nil), texts: fullTexts,
			rejects: []string{"key bubbleId:" + cdQuesma + ":bad: not a bubble", "key bubbleId:" + cdQuesma + ":odd: type 3 is neither 1 (user) nor 2 (model)",
				"key bubbleId:" + cdQuesma + ":none: no type", "key bubbleId:" + cdQuesma + ":wrong: not a bubble"}},
		{name: "headers order the bubbles, not the rows", fixture: "quesma__full_rows.sql",
			// b0 is stored last but named first; gone names no row (compacted); extra is named by no header: last
			more: []string{bubble("b0", `{"type":1,"text":"first"}`), bubble("extra", `{"type":2,"text":"after"}`),
				headers("b0", "gone", "b1", "b2", "b3")},
			// first, list…, Listing… + call + result, after: the last text follows the result: a second call
			runs:  full(func(r *runCounts) { r.turns = 2; r.model = "claude-4.5-sonnet" }),
			texts: []string{"first", "list the workspace", "Listing the workspace folder contents.", "after"}},
		{name: "tokenCount: 0/0 is no usage; a call's bubbles are summed", fixture: "quesma__full_rows.sql",
			more: []string{bubble("b2", `{"type":2,"text":"Listing","tokenCount":{"inputTokens":1000,"outputTokens":20}}`),
				bubble("b3", `{"type":2,"tokenCount":{"inputTokens":5,"outputTokens":7},"toolFormerData":{"toolCallId":"c1","name":"ls","rawArgs":"{}","result":"ok"}}`),
				bubble("b4", `{"type":2,"text":"done","tokenCount":{"inputTokens":0,"outputTokens":0}}`),
				headers("b1", "b2", "b3", "b4")},
			// b2 and b3 one call (1005/27), the result, b4 a second call with no usage
			runs: full(func(r *runCounts) { r.turns, r.in, r.out, r.usageCalls, r.model = 2, 1005, 27, 1, "" })},
		{name: "a failed tool call; a call without a result; params before rawArgs", fixture: "quesma__full_rows.sql",
			more: []string{bubble("b3", `{"type":2,"toolFormerData":{"toolCallId":"e1","name":"edit_file_v2","status":"error","params":"{\"path\":\"a\"}","rawArgs":"{\"path\":\"b\"}","result":"the model produced an invalid edit"}}`),
				bubble("b4", `{"type":2,"toolFormerData":{"toolCallId":"p1","name":"read_file_v2","status":"loading","rawArgs":"{}"}}`),
				headers("b1", "b2", "b3", "b4")},
			runs: full(func(r *runCounts) { r.toolCalls, r.results, r.linked, r.turns = 2, 1, 1, 2 }), failed: 1,
			args: []string{`{"path":"a"}`, `{}`}},
		{name: "a draft composer makes no run; a bad composer value still reads its bubbles", fixture: "quesma__full_rows.sql",
			more: []string{cdRow("composerData:draft", `{"composerId":"draft","fullConversationHeadersOnly":[],"conversation":[]}`),
				fmt.Sprintf(`UPDATE cursorDiskKV SET value = '{"fullConversationHeadersOnly":"not a list"}' WHERE key = 'composerData:%s'`, cdQuesma)},
			runs: full(nil), texts: fullTexts, rejects: []string{"key composerData:" + cdQuesma + ": not a composer (its bubbles are read in row order)"}},
		{name: "a bubble key without a bubble id is rejected", fixture: "codeburn__global.sql",
			more: []string{cdRow("bubbleId:lonely", `{}`)},
			runs: func() []runCounts {
				var out []runCounts
				for _, id := range []string{"composer-work-1", "composer-work-2", "composer-personal-1", "composer-orphan-1"} {
					out = append(out, runCounts{id: id, format: "cursor-ide-db", harness: "cursor-ide", model: "claude-4.6-sonnet",
						turns: 1, in: 100, out: 50, usageCalls: 1, cost: -1})
				}
				return out
			}(), rejects: []string{"key bubbleId:lonely: a bubble key is bubbleId:<composerId>:<bubbleId>"}},
		{name: "a sub-composer's bubbles are a run of their own", fixture: "codeburn__global.sql",
			// codeburn's test "drops sub-composer rows whose composer id is not a UUID" (its createdAt left out):
			// the composer part of the key holds a line break, as codeburn says Cursor writes it
			more: []string{cdRow("bubbleId:task-call_xxx\nfc_yyy:bubble-sub",
				`{"type":2,"conversationId":"","tokenCount":{"inputTokens":10,"outputTokens":5},"modelInfo":{"modelName":"claude-4.6-sonnet"},"text":"sub","codeBlocks":"[]"}`)},
			runs: func() []runCounts {
				var out []runCounts
				for _, id := range []string{"composer-work-1", "composer-work-2", "composer-personal-1", "composer-orphan-1"} {
					out = append(out, runCounts{id: id, format: "cursor-ide-db", harness: "cursor-ide", model: "claude-4.6-sonnet",
						turns: 1, in: 100, out: 50, usageCalls: 1, cost: -1})
				}
				return append(out, runCounts{id: "task-call_xxx\nfc_yyy", format: "cursor-ide-db", harness: "cursor-ide", model: "claude-4.6-sonnet",
					turns: 1, in: 10, out: 5, usageCalls: 1, cost: -1})
			}()},
		{name: "workspace entries without their bubbles make no run", fixture: "gait__workspace.sql",
			more: []string{`UPDATE ItemTable SET value = '{"allComposers":[{"composerId":"x","name":"headers only"},` +
				`{"composerId":"y","conversation":[{"type":1,"text":"hi"},{"type":2,"text":"hello"}]}]}'`},
			runs: []runCounts{{id: "y", format: "cursor-ide-db", harness: "cursor-ide", turns: 1, cost: -1}}, texts: []string{"hi", "hello"}},
		{name: "an inline bubble is rejected at its place in the list", fixture: "gait__workspace.sql",
			more:    []string{`UPDATE ItemTable SET value = '{"allComposers":[{"composerId":"y","conversation":[{"type":1,"text":"hi"},{"type":"two"}]}]}'`},
			runs:    []runCounts{{id: "y", format: "cursor-ide-db", harness: "cursor-ide", cost: -1}},
			texts:   []string{"hi"},
			rejects: []string{"key composer.composerData allComposers[0] conversation[1]: not a bubble"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := buildStore(t, t.TempDir(), "cursor-ide/"+tc.fixture, "state.vscdb", tc.more...)
			m, sum, warns := ingestPaths(t, nil, p)
			if sum.Failed != 0 {
				t.Fatalf("summary %+v", sum)
			}
			if len(m.Runs) != len(tc.runs) {
				t.Fatalf("%d runs, want %d", len(m.Runs), len(tc.runs))
			}
			for i, w := range tc.runs {
				if got := storeRunCounts(m, &m.Runs[i]); got != w {
					t.Errorf("run %d:\n got %+v\nwant %+v", i, got, w)
				}
			}
			if len(m.Rejects) != len(tc.rejects) || len(warns) != len(tc.rejects) {
				t.Fatalf("rejects %+v, warnings %q; want %q", m.Rejects, warns, tc.rejects)
			}
			for i, w := range tc.rejects {
				if !strings.HasPrefix(m.Rejects[i].Reason, w) || !strings.HasPrefix(warns[i], p+": "+w) {
					t.Errorf("reject %d: %q (warning %q), want %q", i, m.Rejects[i].Reason, warns[i], w)
				}
			}
			if tc.texts != nil {
				var got []string
				for _, e := range m.Events {
					if e.RunID == m.Runs[0].RunID && (e.Kind == schema.KindUser || e.Kind == schema.KindAssistant) {
						got = append(got, e.Text)
					}
				}
				if strings.Join(got, "|") != strings.Join(tc.texts, "|") {
					t.Errorf("texts %q, want %q", got, tc.texts)
				}
			}
			if tc.args != nil {
				var got []string
				for _, e := range m.Events {
					if e.RunID == m.Runs[0].RunID && e.Kind == schema.KindToolCall {
						got = append(got, e.Args)
					}
				}
				if strings.Join(got, "|") != strings.Join(tc.args, "|") {
					t.Errorf("arguments %q, want %q", got, tc.args)
				}
			}
			failed := 0
			for _, e := range m.Events {
				if e.Kind == schema.KindToolResult && e.IsError {
					failed++
				}
			}
			if failed != tc.failed {
				t.Errorf("%d failed results, want %d", failed, tc.failed)
			}
		})
	}
}

// TestCursorIDEEvents checks the events of the store-generation fixture one
// by one: reasoning from the thinking object, the tool call's id, name and
// arguments from params (rawArgs is empty), its result text, the model.
func TestCursorIDEEvents(t *testing.T) {
	m, _, _ := ingestPaths(t, nil, buildStore(t, t.TempDir(), "cursor-ide/quesma__store_generation.sql", "state.vscdb"))
	type ev struct {
		kind                     schema.EventKind
		text, tool, callID, args string
		turn                     int64
	}
	want := []ev{
		{kind: schema.KindUser, text: "list the workspace"},
		{kind: schema.KindReasoning, text: "the user wants a listing"},
		{kind: schema.KindAssistant, text: "Listing the workspace folder contents.\n\n\n"},
		// the builder gives a call the text "name args", and a result its call's name
		{kind: schema.KindToolCall, text: `run_terminal_command_v2 {"command":"ls -la /work/api","cwd":""}`, tool: "run_terminal_command_v2",
			callID: "tool_33e5b6ee", args: `{"command":"ls -la /work/api","cwd":""}`},
		{kind: schema.KindToolResult, text: `{"output":"total 24\nmain.go"}`, tool: "run_terminal_command_v2", callID: "tool_33e5b6ee", turn: 1},
	}
	if len(m.Events) != len(want) {
		t.Fatalf("%d events, want %d: %+v", len(m.Events), len(want), m.Events)
	}
	for i, w := range want {
		e := m.Events[i]
		got := ev{kind: e.Kind, text: e.Text, tool: e.ToolName, callID: e.CallID, args: e.Args, turn: e.Turn}
		if got != w {
			t.Errorf("event %d:\n got %+v\nwant %+v", i, got, w)
		}
	}
}

// TestCursorIDEWalk: a walk of Cursor's User folder imports the global
// store and a workspace store by their .vscdb name, and leaves a VS Code
// state.vscdb (ItemTable only) unclaimed with a warning.
func TestCursorIDEWalk(t *testing.T) {
	user := filepath.Join(t.TempDir(), "Cursor", "User")
	for _, d := range []string{"globalStorage", "workspaceStorage/ws1", "workspaceStorage/vscode"} {
		if err := os.MkdirAll(filepath.Join(user, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	buildStore(t, filepath.Join(user, "globalStorage"), "cursor-ide/codeburn__global.sql", "state.vscdb")
	buildStore(t, filepath.Join(user, "workspaceStorage/ws1"), "cursor-ide/gait__workspace.sql", "state.vscdb")
	execSQL(t, filepath.Join(user, "workspaceStorage/vscode/state.vscdb"), "CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
	m, sum, warns := ingestPaths(t, nil, user)
	if sum.Files != 2 || len(m.Runs) != 5 || len(warns) != 1 || !strings.Contains(warns[0], "not an agent store trajmine reads (tables: ItemTable)") {
		t.Fatalf("summary %+v, %d runs, warnings %q", sum, len(m.Runs), warns)
	}
	var in, out int64
	for _, r := range m.Runs {
		in, out = in+r.InputTokens, out+r.OutputTokens
	}
	if in != 400 || out != 200 || sum.Runs != 5 {
		t.Errorf("tokens %d/%d, runs %d; want 400/200 over 5 runs", in, out, sum.Runs)
	}
}

// FuzzCursorIDEValues puts the fuzzed value in place of a bubble's, or of
// the composer's, in the store-generation fixture, and imports the store:
// never a failed import (a bad value is a reject at its key, the rest
// imports, and what imports is valid: Parse checks the sink).
func FuzzCursorIDEValues(f *testing.F) {
	for _, s := range []string{
		`{"type":2,"text":"ok","tokenCount":{"inputTokens":3,"outputTokens":4}}`,
		`{"type":2,"toolFormerData":{"toolCallId":"c","name":"n","params":"{\"a\":1}","result":"r","status":"error"}}`,
		`{"type":1,"text":"hi"}`, `{"type":2,"thinking":"{\"text\":\"t\"}"}`,
		`{"fullConversationHeadersOnly":[{"bubbleId":"tool1"},{"bubbleId":"b1"}]}`, `{"conversation":[{"type":1,"text":"x"}]}`,
		`-5`, `null`, `[`, `"`, `{"type":-1}`, `{"type":2,"tokenCount":{"inputTokens":-3}}`,
	} {
		for which := range uint8(2) {
			f.Add(which, s)
		}
	}
	tmpl, err := os.ReadFile(buildStore(f, f.TempDir(), "cursor-ide/quesma__store_generation.sql", "state.vscdb"))
	if err != nil {
		f.Fatal(err)
	}
	keys := []string{"bubbleId:" + cdQuesma + ":tool1", "composerData:" + cdQuesma}
	f.Fuzz(func(t *testing.T, which uint8, value string) {
		p := filepath.Join(t.TempDir(), "state.vscdb")
		if err := os.WriteFile(p, tmpl, 0o644); err != nil {
			t.Fatal(err)
		}
		db := openFuzzDB(t, p)
		if _, err := db.Exec("UPDATE cursorDiskKV SET value = ? WHERE key = ?", value, keys[int(which)%len(keys)]); err != nil {
			t.Fatal(err)
		}
		db.Close()
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ingest.Parse(context.Background(), "cursor-ide-db", "state.vscdb", data, nil); err != nil {
			t.Fatalf("%q: %v", value, err)
		}
	})
}

// TestCursorIDEClaims builds every SQLite store of testdata/agents (the
// .sql files, which TestNoForeignClaims sees only as text) and imports it:
// the Cursor stores are claimed by cursor-ide-db alone, every other store
// by its own importer, never by cursor-ide-db (an ambiguous claim fails the
// import).
func TestCursorIDEClaims(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(agentsDir, "*", "*.sql"))
	if err != nil || len(files) < 8 {
		t.Fatalf("%d store fixtures (%v)", len(files), err)
	}
	for _, p := range files {
		rel, _ := filepath.Rel(agentsDir, p)
		t.Run(rel, func(t *testing.T) {
			db := buildStore(t, t.TempDir(), filepath.ToSlash(rel), "store.vscdb")
			m, sum, warns := ingestPaths(t, nil, db)
			if sum.Failed != 0 || len(m.Sources) != 1 {
				t.Fatalf("summary %+v, warnings %q", sum, warns)
			}
			cursor := strings.HasPrefix(filepath.ToSlash(rel), "cursor-ide/")
			if got := m.Sources[0].Format; (got == "cursor-ide-db") != cursor {
				t.Errorf("claimed by %s", got)
			}
		})
	}
}
