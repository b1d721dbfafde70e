package store_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
)

// msgRun is one run of an openai-messages JSONL file: a user message, then
// per tool call an assistant message calling it with args and the tool's
// output.
type msgRun struct {
	id, model, user string
	calls           [][3]string // tool, arguments (JSON), output
	resolved        *bool       // the log's outcome; nil none
}

func (r msgRun) line(t *testing.T) string {
	t.Helper()
	msgs := []any{map[string]any{"role": "user", "content": r.user}}
	for i, c := range r.calls {
		id := r.id + "-call-" + string(rune('a'+i))
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": "", "tool_calls": []any{map[string]any{"id": id, "type": "function", "function": map[string]any{"name": c[0], "arguments": c[1]}}}},
			map[string]any{"role": "tool", "tool_call_id": id, "content": c[2]})
	}
	msgs = append(msgs, map[string]any{"role": "assistant", "content": "done"})
	rec := map[string]any{"run_id": r.id, "model": r.model, "messages": msgs}
	if r.resolved != nil {
		rec["outcome"] = map[string]any{"resolved": *r.resolved}
	}
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// msgDB is a database file holding runs, imported from one
// openai-messages JSONL file, checked and closed.
func msgDB(t *testing.T, runs ...msgRun) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "t.duckdb")
	st, err := store.Open(context.Background(), store.Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var lines []string
	for _, r := range runs {
		lines = append(lines, r.line(t))
	}
	file := filepath.Join(dir, "runs.jsonl")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := ingest.Files(context.Background(), st, []string{file}, &ingest.Options{})
	if err != nil || sum.Failed != 0 || sum.Runs != int64(len(runs)) {
		t.Fatalf("import: %+v, %v", sum, err)
	}
	mustCheck(t, st)
	return path
}

// msgStore is msgDB's database open for writing (checked when the test
// ends).
func msgStore(t *testing.T, runs ...msgRun) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), store.Config{Path: msgDB(t, runs...)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mustCheck(t, st); st.Close() })
	return st
}

// searchRuns are three runs whose texts tell the search's escaping apart:
// % and _ that must match literally, a quote that must not end a string,
// a match in a tool call's arguments, and one run with three matching
// events.
var searchRuns = []msgRun{
	{id: "a", model: "gpt-4o", user: "find a_b here", calls: [][3]string{{"bash", `{"cmd":"pytest"}`, "coverage is 100% done"}}},
	{id: "b", model: "gpt-4o", user: "axb is not a_b's twin", calls: [][3]string{{"bash", `{"cmd":"grep needle-in-args"}`, "coverage is 1000 lines"}}},
	{id: "c", model: "claude-sonnet-4", user: "O'Reilly said ' OR 1=1 -- and a NEEDLE", calls: [][3]string{{"read", `{"path":"x"}`, "needle one"}, {"read", `{"path":"y"}`, "needle two"}}, resolved: ptr(true)},
}

// TestSearchText: the query is matched literally (as a case-blind regular
// expression with its special characters escaped; %, _ and \ literal
// too) or as a regular expression, in the events' text (a tool call's
// holds its name and arguments), runs with
// the most matching events first, a snippet around the first match, and
// totals over every run when the runs listed are limited. Each want was
// counted by hand from searchRuns.
func TestSearchText(t *testing.T) {
	st := msgStore(t, searchRuns...)
	type hit struct {
		Run, Kind, Snippet, Match string
		Hits                      int64
	}
	tests := []struct {
		name       string
		q          store.TextSearch
		want       []hit
		runs, hits int64
	}{
		{"percent is literal", store.TextSearch{Query: "100%", Context: 4}, []hit{{"a", "tool_result", " is 100% don", "100%", 1}}, 1, 1},
		{"underscore is literal", store.TextSearch{Query: "a_b", Context: 3}, []hit{{"a", "user", "nd a_b he", "a_b", 1}, {"b", "user", "ot a_b's ", "a_b", 1}}, 2, 2},
		{"backslash is literal", store.TextSearch{Query: `a\_b`}, nil, 0, 0},
		{"dot is literal", store.TextSearch{Query: "a.b"}, nil, 0, 0},
		{"quote is data", store.TextSearch{Query: "' OR 1=1 --", Context: 2}, []hit{{"c", "user", "d ' OR 1=1 -- a", "' OR 1=1 --", 1}}, 1, 1},
		// NEEDLE: c's user message and its two outputs (3), b's call (1)
		{"any case, in calls too", store.TextSearch{Query: "NEEDLE", Context: 3}, []hit{{"c", "user", " a NEEDLE", "NEEDLE", 3}, {"b", "tool_call", "ep needle-in", "NEEDLE", 1}}, 2, 4},
		{"limit keeps totals", store.TextSearch{Query: "needle", Limit: 1, Context: 1}, []hit{{"c", "user", " NEEDLE", "needle", 3}}, 2, 4},
		{"regexp", store.TextSearch{Query: `cover\w+ is 10+%`, Regexp: true, Context: 2}, []hit{{"a", "tool_result", "coverage is 100% don", "coverage is 100%", 1}}, 1, 1},
		{"regexp is not a substring", store.TextSearch{Query: "a.b", Regexp: true, Context: 1}, []hit{{"a", "user", " a_b ", "a_b", 1}, {"b", "user", "axb i", "axb", 1}}, 2, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := st.SearchText(context.Background(), tc.q)
			if err != nil {
				t.Fatal(err)
			}
			var got []hit
			for _, h := range res.Runs {
				got = append(got, hit{h.RunID, h.Kind, h.Snippet, h.Match, h.Hits})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("hits (-want +got):\n%s", diff)
			}
			if res.TotalRuns != tc.runs || res.TotalHits != tc.hits {
				t.Errorf("totals = %d runs, %d hits; want %d, %d", res.TotalRuns, res.TotalHits, tc.runs, tc.hits)
			}
		})
	}
	for _, bad := range []store.TextSearch{{Query: ""}, {Query: "(", Regexp: true}} {
		if _, err := st.SearchText(context.Background(), bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// TestTextStats: the events and characters a search scans.
func TestTextStats(t *testing.T) {
	st := msgStore(t, msgRun{id: "x", model: "gpt-4o", user: "hello", calls: [][3]string{{"bash", `{"cmd":"ls"}`, "a b"}}})
	got, err := st.TextStats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// user "hello" (5), the call (its text: bash {"cmd":"ls"}, 17),
	// output "a b" (3), the closing "done" (4)
	if got.Events != 4 || got.Chars != 5+17+3+4 {
		t.Errorf("stats = %+v, want 4 events, 29 chars", got)
	}
}

// TestConversationRows: one read of several runs' rows, each run's
// events by seq with their text and arguments cut to n characters (not
// bytes) in the query, its usage and ops; a run not held has no entry;
// EventText reads one text whole.
func TestConversationRows(t *testing.T) {
	ctx := context.Background()
	st := msgStore(t,
		msgRun{id: "x", model: "gpt-4o", user: "ééééé-long", calls: [][3]string{{"bash", `{"cmd":"ls -la"}`, "0123456789"}}},
		msgRun{id: "y", model: "gpt-4o", user: "hi", calls: [][3]string{{"read", `{}`, "abc"}}})
	rows, err := st.ConversationRows(ctx, []string{"x", "y", "nope"}, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows["nope"] != nil {
		t.Fatalf("%d runs read", len(rows))
	}
	var got []string
	for _, e := range rows["x"].Events {
		got = append(got, e.Text+"|"+e.Args)
	}
	if want := []string{"éééé|", `bash|{"cm`, "0123|", "done|"}; !cmp.Equal(got, want) {
		t.Errorf("heads = %q, want %q", got, want)
	}
	if r := rows["y"]; r.Run.RunID != "y" || len(r.Events) != 4 || r.Events[2].Text != "abc" {
		t.Errorf("run y: %+v", r)
	}
	whole, err := st.ConversationRows(ctx, []string{"x"}, 0)
	if err != nil || whole["x"].Events[0].Text != "ééééé-long" {
		t.Errorf("n = 0: %v, %v", whole, err)
	}
	text, args, err := st.EventText(ctx, "x", rows["x"].Events[2].Seq)
	if err != nil || text != "0123456789" || args != "" {
		t.Errorf("event text = %q, %q, %v", text, args, err)
	}
	if _, _, err := st.EventText(ctx, "x", 99); err == nil || !strings.Contains(err.Error(), "no such event") {
		t.Errorf("missing event: %v", err)
	}
}
