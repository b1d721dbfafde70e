package ingest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/schema"
)

// storeRuleCase is one rule of a store importer: the fixture with more SQL
// applied, and what the rule makes of it (the figures worked out by hand
// from the rows the case writes).
type storeRuleCase struct {
	name, fixture, db string
	more              []string
	setup             func(t *testing.T, dir string) // files beside the store
	runs              int                            // runs imported
	run               *runCounts                     // the first run's figures, when set
	rejects           []string                       // reject reasons' prefixes, in order
	ops               int                            // context ops
	compaction        string                         // the text of the one compaction event, when set
	errorResults      int                            // tool results marked failed
	times             map[string][2]string           // run id → its start and end (RFC 3339), when set
}

func TestStoreRules(t *testing.T) {
	goose := func(id string) *runCounts {
		return &runCounts{id: id, format: "goose-sessions-db", harness: "goose", parent: "parent", model: "claude-sonnet-4-6"}
	}
	withGoose := func(f func(*runCounts)) *runCounts { r := goose("child"); f(r); return r }
	for _, tc := range []storeRuleCase{
		{name: "goose ledger input with the cache in it", fixture: "goose/sessions.sql", db: "sessions.db",
			// total_tokens = input + output: input_tokens already holds the cache
			more: []string{"UPDATE usage_ledger SET total_tokens = input_tokens + output_tokens"},
			runs: 1, run: withGoose(func(r *runCounts) {
				r.turns, r.toolCalls, r.results, r.linked, r.usageCalls = 2, 1, 1, 1, 2
				r.in, r.out, r.cacheRead, r.cacheWrite, r.cost = 100+40, 20+5, 30+6, 10+2, 0.0125+0.004
			}), rejects: []string{"table messages row 4: content block type \"futureContent\""}},
		{name: "goose without ledger rows: accumulated totals", fixture: "goose/sessions.sql", db: "sessions.db",
			more: []string{"DELETE FROM usage_ledger", `UPDATE sessions SET accumulated_input_tokens = 1000, accumulated_output_tokens = 50,
				accumulated_cache_read_tokens = 200, accumulated_cache_write_tokens = 10, accumulated_cost = 0.5`},
			runs: 1, run: withGoose(func(r *runCounts) {
				r.turns, r.toolCalls, r.results, r.linked = 2, 1, 1, 1
				r.in, r.out, r.cacheRead, r.cacheWrite, r.cost = 1000+200+10, 50, 200, 10, 0.5
			}), rejects: []string{"table messages row 4: content block type \"futureContent\""}},
		{name: "goose ledger rows beyond the calls", fixture: "goose/sessions.sql", db: "sessions.db",
			more: []string{`INSERT INTO usage_ledger (session_id, created_timestamp, model, input_tokens, output_tokens, total_tokens, cache_read_tokens, cache_write_tokens, cost)
				VALUES ('child', 1700000012, 'claude-sonnet-4-6', 7, 3, 10, 0, 0, 0.001)`},
			runs: 1, run: withGoose(func(r *runCounts) {
				r.turns, r.toolCalls, r.results, r.linked, r.usageCalls = 3, 1, 1, 1, 3
				r.in, r.out, r.cacheRead, r.cacheWrite, r.cost = 140+36+12+7, 25+3, 36, 12, 0.0165+0.001
			}), rejects: []string{"table messages row 4: content block type \"futureContent\""}},
		{name: "goose compaction: agent-only summary after hidden messages", fixture: "goose/sessions.sql", db: "sessions.db",
			more: []string{`UPDATE messages SET metadata_json = '{"userVisible":true,"agentVisible":false}' WHERE session_id = 'child'`,
				`INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, metadata_json) VALUES
				('s', 'child', 'user', '[{"type":"text","text":"the summary"}]', 1700000020, '{"userVisible":false,"agentVisible":true}'),
				('c', 'child', 'assistant', '[{"type":"text","text":"Your context was compacted."}]', 1700000020, '{"userVisible":false,"agentVisible":true}')`},
			runs: 1, ops: 1, compaction: "the summary", rejects: []string{"table messages row 4: content block type \"futureContent\""}},
		{name: "goose block rejects: once per unknown type; a bad row; an unknown role", fixture: "goose/sessions.sql", db: "sessions.db",
			more: []string{`INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp) VALUES
				('f2', 'child', 'user', '[{"type":"futureContent"},{"type":"otherContent"}]', 1700000030),
				('bad', 'child', 'user', 'not json', 1700000031),
				('sys', 'child', 'system', '[{"type":"text","text":"x"}]', 1700000032)`},
			runs: 1, rejects: []string{
				"table messages row 4: content block type \"futureContent\"", "table messages row 6: content block type \"otherContent\"",
				"table messages row 7: content_json is not an array of blocks", "table messages row 8: unknown role \"system\""}},
		{name: "goose failed tool response", fixture: "goose/sessions.sql", db: "sessions.db",
			more: []string{`UPDATE messages SET content_json = '[{"type":"toolResponse","id":"call-read","toolResult":{"status":"error","error":"no such file"}}]' WHERE message_id = 'message-user-1700000001'`},
			runs: 1, errorResults: 1, rejects: []string{"table messages row 4: content block type \"futureContent\""}},
		{name: "goose session without messages: its row's times; messages' times otherwise", fixture: "goose/sessions.sql", db: "sessions.db",
			more: []string{"INSERT INTO sessions (id, working_dir, created_at, updated_at) VALUES ('empty', '/e', '2024-01-02 03:04:05', '2024-01-02 04:00:00')"},
			runs: 2, rejects: []string{"table messages row 4: content block type \"futureContent\""},
			// child: its messages' created_timestamp 1700000000 … 1700000003 (the ledger's 1700000011 is not an event's)
			times: map[string][2]string{"empty": {"2024-01-02T03:04:05Z", "2024-01-02T04:00:00Z"}, "child": {"2023-11-14T22:13:20Z", "2023-11-14T22:13:23Z"}}},
		{name: "hermes session times", fixture: "hermes/state.sql", db: "state.db",
			// started_at 1778767200.0, ended_at 1778767800.0
			runs: 1, times: map[string][2]string{"child": {"2026-05-14T14:00:00Z", "2026-05-14T14:10:00Z"}}},
		{name: "hermes session left to its transcript", fixture: "hermes/state.sql", db: "state.db",
			setup: func(t *testing.T, dir string) {
				data, err := os.ReadFile(filepath.Join(agentsDir, "hermes/sessions/session_child.json"))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.MkdirAll(filepath.Join(dir, "sessions"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "sessions/session_child.json"), data, 0o644); err != nil {
					t.Fatal(err)
				}
			},
			runs: 0},
		{name: "hermes session with a .jsonl transcript, which is not read: from the database", fixture: "hermes/state.sql", db: "state.db",
			setup: func(t *testing.T, dir string) {
				if err := os.MkdirAll(filepath.Join(dir, "sessions"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "sessions/child.jsonl"), []byte("{}\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			runs: 1},
		{name: "hermes api_call_count below the assistant messages adds no call; actual cost over estimated", fixture: "hermes/state.sql", db: "state.db",
			more: []string{"UPDATE sessions SET api_call_count = 1, actual_cost_usd = 0.2",
				`INSERT INTO messages (session_id, role, content, tool_calls, timestamp) VALUES
				('child', 'assistant', 'a1', '[{"id":"c1","type":"function","function":{"name":"terminal","arguments":"{\"command\":\"ls\"}"}}]', 1778767220.0),
				('child', 'tool', 'file.txt', NULL, 1778767221.0),
				('child', 'assistant', 'a2', NULL, 1778767222.0)`,
				"UPDATE messages SET tool_call_id = 'c1' WHERE content = 'file.txt'"},
			runs: 1, run: &runCounts{id: "child", format: "hermes-state-db", harness: "hermes", parent: "parent", model: "gpt-5.4",
				turns: 2, toolCalls: 1, results: 1, linked: 1, in: 300 + 20 + 5, out: 70, cacheRead: 20, cacheWrite: 5, reasoning: 9, cost: 0.2}},
		{name: "hermes api_call_count past belief", fixture: "hermes/state.sql", db: "state.db",
			more: []string{"UPDATE sessions SET api_call_count = 1000000000"},
			runs: 1, run: &runCounts{id: "child", format: "hermes-state-db", harness: "hermes", parent: "parent", model: "gpt-5.4",
				in: 300 + 20 + 5, out: 70, cacheRead: 20, cacheWrite: 5, reasoning: 9, cost: 0.123},
			rejects: []string{"table sessions row 1: api_call_count 1000000000 is more than 100000 beyond the session's 0 assistant messages"}},
		{name: "hermes tool_calls that are not a list", fixture: "hermes/state.sql", db: "state.db",
			more: []string{`INSERT INTO messages (session_id, role, content, tool_calls, timestamp) VALUES ('child', 'assistant', 'a1', '{oops', 1778767220.0),
				('child', 'critic', 'x', NULL, 1778767221.0)`},
			runs: 1, rejects: []string{"table messages row 2: tool_calls: ", "table messages row 3: unknown role \"critic\""}},
		{name: "kilo's store", fixture: "opencode-sqlite/opencode.sql", db: "kilo.db",
			runs: 2, run: &runCounts{id: "ses_tools", format: "opencode-db", harness: "kilo", turns: 1, toolCalls: 1, cost: -1}},
		{name: "opencode rows whose data is not an object", fixture: "opencode-sqlite/opencode.sql", db: "opencode.db",
			more: []string{"UPDATE message SET data = 'nope' WHERE id = 'msg_asst2'", "UPDATE part SET data = '[' WHERE id = 'prt_txt'"},
			// ses_tools (and its part prt_txt, row 4) is read before ses_usage (msg_asst2, row 5)
			runs: 2, rejects: []string{"table part row 4: data: ", "table message row 5: data: "}},
		{name: "kiro value that is not a conversation", fixture: "kiro/data.sql", db: "data.sqlite3",
			more: []string{"INSERT INTO conversations_v2 (key, conversation_id, value, created_at, updated_at) VALUES ('/k', 'broken', '{\"conversation_id\": 3', 1779012040000, 1779012040000)"},
			runs: 1, rejects: []string{"table conversations_v2 row 2: "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := buildStore(t, dir, tc.fixture, tc.db, tc.more...)
			if tc.setup != nil {
				tc.setup(t, dir)
			}
			m, sum, warns := ingestPaths(t, nil, p)
			if sum.Failed != 0 || len(m.Runs) != tc.runs {
				t.Fatalf("%d runs, want %d; summary %+v, warnings %q", len(m.Runs), tc.runs, sum, warns)
			}
			if tc.run != nil {
				if got := storeRunCounts(m, &m.Runs[0]); got != *tc.run {
					t.Errorf("run:\n got %+v\nwant %+v", got, *tc.run)
				}
			}
			if len(m.Rejects) != len(tc.rejects) {
				t.Fatalf("rejects %+v, want %q", m.Rejects, tc.rejects)
			}
			for i, want := range tc.rejects {
				if !strings.HasPrefix(m.Rejects[i].Reason, want) || !strings.HasPrefix(warns[i], p+": "+want) {
					t.Errorf("reject %d: %q (warning %q), want %q", i, m.Rejects[i].Reason, warns[i], want)
				}
			}
			if len(m.ContextOps) != tc.ops {
				t.Errorf("%d context ops, want %d", len(m.ContextOps), tc.ops)
			}
			checkCompaction(t, m, tc.compaction)
			for _, r := range m.Runs {
				want, ok := tc.times[r.RunID]
				if !ok {
					continue
				}
				var got [2]string
				for i, ts := range []*time.Time{r.StartedAt, r.EndedAt} {
					if ts != nil {
						got[i] = ts.Format(time.RFC3339)
					}
				}
				if got != want {
					t.Errorf("run %s: times %v, want %v", r.RunID, got, want)
				}
			}
			failed := 0
			for _, e := range m.Events {
				if e.Kind == schema.KindToolResult && e.IsError {
					failed++
				}
			}
			if failed != tc.errorResults {
				t.Errorf("%d failed tool results, want %d", failed, tc.errorResults)
			}
		})
	}
}

func checkCompaction(t *testing.T, m *ingest.MemSink, want string) {
	t.Helper()
	var got []string
	for _, e := range m.Events {
		if e.Kind == schema.KindCompaction {
			got = append(got, e.Text)
		}
	}
	if want == "" && len(got) > 0 || want != "" && (len(got) != 1 || got[0] != want) {
		t.Errorf("compaction events %q, want %q", got, want)
	}
	if want != "" && (len(m.ContextOps) != 1 || m.ContextOps[0].Op != schema.OpSummary) {
		t.Errorf("context ops %+v, want one summary", m.ContextOps)
	}
}
