package cmd

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/analysis"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/testutil"
)

// simulateDB ingests the claude-code fixtures and the DTOC message logs.
func simulateDB(t *testing.T) *Deps {
	t.Helper()
	d := testDeps(t, nil)
	d.DB = filepath.Join(t.TempDir(), "simulate.duckdb")
	if _, stderr, code := run(t, d, "ingest", "--workers", "1", fixtureDir, "../ingest/testdata/messages/dtoc_openai.jsonl", "../ingest/testdata/messages/dtoc_anthropic.jsonl"); code != 0 {
		t.Fatalf("ingest: %s", stderr)
	}
	return d
}

func TestSimulateGolden(t *testing.T) {
	d := simulateDB(t)
	steps := []struct {
		name string
		args []string
	}{
		{"simulate", []string{"simulate"}},
		{"simulate-windows-by-format", []string{"simulate", "--window", "2000,20000", "--policy", "halflife(keep=1,cap=400)", "--policy", "dtoc", "--policy", "mask(n=1)", "--by", "format"}},
		{"policies", []string{"policies"}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			stdout, stderr, code := run(t, d, s.args...)
			if code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", code, stderr)
			}
			testutil.Golden(t, stdout, filepath.Join("testdata", s.name+".stdout"))
		})
	}
}

func TestSimulateTablesAndDeterminism(t *testing.T) {
	d := simulateDB(t)
	args := []string{"simulate", "--window", "3000,unbounded", "--json"}
	first, stderr, code := run(t, d, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	again, _, _ := run(t, d, args...)
	if first != again {
		t.Fatal("simulate --json differs between two runs on the same database")
	}
	var out analysis.Simulation
	if err := json.Unmarshal([]byte(first), &out); err != nil {
		t.Fatal(err)
	}
	npol := len(out.Policies)
	if out.Runs == 0 || npol < 19 || out.Policies[0].Spec != "keep-all" {
		t.Fatalf("runs %d, policies %d (first %q)", out.Runs, npol, out.Policies[0].Spec)
	}
	st, err := store.Open(context.Background(), store.Config{Path: d.DB, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	count := func(q string) int64 {
		var n int64
		if err := st.DB().QueryRow(q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	if got, want := count("SELECT count(*) FROM sim_runs"), int64(out.Runs*npol*2); got != want {
		t.Errorf("sim_runs has %d rows, want runs × policies × windows = %d", got, want)
	}
	// sim_calls holds every replayed call, and sim_runs' sums agree with it
	if got := count(`SELECT count(*) FROM sim_runs r JOIN (SELECT run_id, policy, window_tokens, count(*) FILTER (WHERE NOT overflow) n, sum(prompt_tokens) FILTER (WHERE NOT overflow) p
		FROM sim_calls GROUP BY ALL) c USING (run_id, policy, window_tokens) WHERE r.calls <> c.n OR r.prompt_tokens <> c.p`); got != 0 {
		t.Errorf("%d sim_runs rows disagree with their sim_calls", got)
	}
	if got := count("SELECT count(*) FROM sim_runs WHERE window_tokens = 3000 AND status = 'overflow' AND policy = 'keep-all'"); got == 0 {
		t.Error("no run overflows keep-all at a 3,000-token window")
	}
	// the DTOC message logs make 2 context-only manage_context calls each
	// (counted in the JSONL: assistant messages whose tool calls are all
	// manage_context): keep-all replays without them, dtoc with them
	if got := count("SELECT count(*) FROM sim_runs WHERE window_tokens = 0 AND policy = 'keep-all' AND run_id LIKE 'dtoc-%' AND dropped_context_calls = 2 AND calls + 2 = logged_calls"); got != 3 {
		t.Errorf("%d DTOC runs' keep-all rows drop their 2 context-only calls, want 3", got)
	}
	if got := count("SELECT sum(dropped_context_calls) FROM sim_runs WHERE window_tokens = 0 AND policy = 'keep-all'"); got != 6 {
		t.Errorf("keep-all drops %d context-only calls, want 6", got)
	}
	if got := count("SELECT count(*) FROM sim_runs WHERE (policy LIKE 'dtoc%' OR policy = 'as-logged') AND dropped_context_calls <> 0"); got != 0 {
		t.Errorf("%d dtoc or as-logged rows drop calls, want none", got)
	}
	if out.ContextRuns != 3 || out.ContextCalls != 6 {
		t.Errorf("--json: %d manage_context runs, %d context-only calls; want 3 and 6", out.ContextRuns, out.ContextCalls)
	}
	st.Close()

	// shards partition the runs and replace only their own rows
	for _, sh := range []string{"0/2", "1/2"} {
		if _, stderr, code := run(t, d, "simulate", "--window", "3000,unbounded", "--shard", sh); code != 0 {
			t.Fatalf("shard %s: %s", sh, stderr)
		}
	}
	st, err = store.Open(context.Background(), store.Config{Path: d.DB, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got, want := count("SELECT count(*) FROM sim_runs"), int64(out.Runs*npol*2); got != want {
		t.Errorf("after two shards sim_runs has %d rows, want %d", got, want)
	}
}

func TestSimulateUsageErrors(t *testing.T) {
	d := testDeps(t, nil)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "--policy", "nosuch"}, `unknown policy "nosuch"`},
		{[]string{"simulate", "--policy", "halflife(keep=x)"}, `keep="x" is not an integer`},
		{[]string{"simulate", "--policy", "halflife(nokey=1)"}, `halflife has no parameter "nokey"`},
		{[]string{"simulate", "--shard", "2/2"}, "--shard must be i/n"},
		{[]string{"simulate", "--window", "big"}, `--window: window "big" is not a number of tokens`},
		{[]string{"simulate", "--window", "32k,0"}, `--window: window "0" holds no tokens`},
		{[]string{"simulate", "--by", "moon"}, "--by must be"},
	}
	for _, tc := range tests {
		_, stderr, code := run(t, d, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q", tc.args, code, stderr, tc.want)
		}
	}
}

func TestRecommendGolden(t *testing.T) {
	d := simulateDB(t)
	for _, s := range []struct {
		name string
		args []string
	}{
		{"recommend", []string{"recommend"}},
		{"recommend-yaml-window", []string{"recommend", "--yaml", "--window", "3000"}},
		{"recommend-config-codex", []string{"recommend", "--config", "codex", "--window", "3000"}},
		{"recommend-config-swe-agent", []string{"recommend", "--config", "swe-agent"}},
		{"recommend-config-codex-any", []string{"recommend", "--config", "codex", "--any-mechanism", "--window", "3000"}},
	} {
		t.Run(s.name, func(t *testing.T) {
			stdout, stderr, code := run(t, d, s.args...)
			if code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", code, stderr)
			}
			testutil.Golden(t, stdout, filepath.Join("testdata", s.name+".stdout"))
		})
	}
	if _, stderr, code := run(t, d, "recommend", "--grid", "nosuch"); code != 2 || !strings.Contains(stderr, "unknown policy") {
		t.Errorf("bad grid: exit %d, %s", code, stderr)
	}
	if _, stderr, code := run(t, d, "recommend", "--config", "vim"); code != 2 || !strings.Contains(stderr, "unknown harness \"vim\"") {
		t.Errorf("bad --config: exit %d, %s", code, stderr)
	}
}
