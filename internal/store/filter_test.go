package store_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/internal/store"
)

func ptr[T any](v T) *T { return &v }

// TestFilterRuns: each field of a RunQuery selects the runs it names (the
// wants counted by hand from searchRuns: a and b call bash once over two
// model calls, c calls read twice over three and is resolved), values are arguments (a quote or
// a % in one selects nothing), and diagnose's end reason and peak share
// are used where diag_runs holds them.
func TestFilterRuns(t *testing.T) {
	ctx := context.Background()
	st := msgStore(t, searchRuns...)
	tests := []struct {
		name string
		q    store.RunQuery
		want []string
	}{
		{"everything", store.RunQuery{}, []string{"a", "b", "c"}},
		{"model contains, any case", store.RunQuery{Model: "GPT"}, []string{"a", "b"}},
		{"model: % is literal", store.RunQuery{Model: "4%"}, nil},
		{"family", store.RunQuery{Family: "claude-sonnet-4"}, []string{"c"}},
		{"family: a quote is data", store.RunQuery{Family: "x' OR '1'='1"}, nil},
		{"format", store.RunQuery{Format: "openai-messages"}, []string{"a", "b", "c"}},
		{"harness", store.RunQuery{Harness: "codex-cli"}, nil},
		{"end reason as imported", store.RunQuery{EndReason: "unknown"}, []string{"a", "b", "c"}},
		{"tool", store.RunQuery{Tool: "read"}, []string{"c"}},
		{"text", store.RunQuery{Text: "needle"}, []string{"b", "c"}},
		{"min calls", store.RunQuery{MinCalls: ptr(int64(3))}, []string{"c"}},
		{"max calls", store.RunQuery{MaxCalls: ptr(int64(2))}, []string{"a", "b"}},
		{"resolved", store.RunQuery{Resolved: ptr(true)}, []string{"c"}},
		{"not resolved", store.RunQuery{Resolved: ptr(false)}, nil},
		{"peak share, never diagnosed", store.RunQuery{MinPeakShare: ptr(0.1)}, nil},
		{"two fields", store.RunQuery{Model: "gpt", Text: "needle"}, []string{"b"}},
		{"limit", store.RunQuery{Limit: 2}, []string{"a", "b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, sql, args, err := st.FilterRuns(ctx, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if !cmp.Equal(got, tc.want) {
				t.Errorf("runs = %v, want %v", got, tc.want)
			}
			if strings.Count(sql, "?") != len(args) {
				t.Errorf("%d placeholders for %d arguments: %s", strings.Count(sql, "?"), len(args), sql)
			}
			for _, v := range []string{tc.q.Model, tc.q.Family, tc.q.Text} {
				if v != "" && strings.Contains(sql, v) {
					t.Errorf("the value %q is in the SQL text: %s", v, sql)
				}
			}
		})
	}
	// diagnose's figures once diag_runs holds them: b's end reason and a's
	// peak share (the columns FilterRuns reads)
	if _, err := st.DB().ExecContext(ctx, `CREATE TABLE diag_runs (run_id VARCHAR, end_reason VARCHAR, peak_share DOUBLE)`); err != nil {
		t.Fatal(err)
	}
	if _, err := st.DB().ExecContext(ctx, `INSERT INTO diag_runs (run_id, end_reason, peak_share) VALUES ('a', 'finished', 0.75), ('b', 'context_overflow', 0.2)`); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		q    store.RunQuery
		want []string
	}{
		{"end reason by diagnose", store.RunQuery{EndReason: "context_overflow"}, []string{"b"}},
		{"end reason as imported where not diagnosed", store.RunQuery{EndReason: "unknown"}, []string{"c"}},
		{"peak share", store.RunQuery{MinPeakShare: ptr(0.5)}, []string{"a"}},
	} {
		got, _, _, err := st.FilterRuns(ctx, tc.q)
		if err != nil {
			t.Fatal(err)
		}
		if !cmp.Equal(got, tc.want) {
			t.Errorf("%s: runs = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestQueryRunIDs: an untrusted query's run_id column, in its order, on a
// sandboxed store; a statement that writes, a second statement, a file
// read and a result without run_id are refused with what is wrong.
func TestQueryRunIDs(t *testing.T) {
	ctx := context.Background()
	sb, err := store.Open(ctx, store.Config{Path: msgDB(t, searchRuns...), Sandbox: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	tests := []struct {
		query string
		want  []string
		err   string
	}{
		{"SELECT run_id FROM runs WHERE n_turns > 2", []string{"c"}, ""},
		{"SELECT n_turns, RUN_ID FROM runs ORDER BY run_id DESC", []string{"c", "b", "a"}, ""},
		{"FROM events SELECT DISTINCT run_id WHERE kind = 'tool_result' AND text ILIKE '%coverage%' ORDER BY 1", []string{"a", "b"}, ""},
		{"SELECT count(*) AS n FROM runs", nil, "no run_id column (it has n)"},
		{"DELETE FROM runs", nil, "DELETE is refused"},
		{"SELECT run_id FROM runs; DROP TABLE runs", nil, "2 statements"},
		{"SELECT content AS run_id FROM read_text('" + filepath.Join(t.TempDir(), "x") + "')", nil, "file system operations are disabled"},
	}
	for _, tc := range tests {
		got, err := sb.QueryRunIDs(ctx, tc.query, 0)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: err = %v, want one with %q", tc.query, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.query, err)
		case !cmp.Equal(got, tc.want):
			t.Errorf("%s: runs = %v, want %v", tc.query, got, tc.want)
		}
	}
	if got, err := sb.QueryRunIDs(ctx, "SELECT run_id FROM runs ORDER BY run_id", 2); err != nil || !cmp.Equal(got, []string{"a", "b"}) {
		t.Errorf("limit 2: %v, %v", got, err)
	}
}
