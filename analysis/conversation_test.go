package analysis_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/analysis"
	"github.com/trajmine/trajmine/dashboards"
	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/redact"
	"github.com/trajmine/trajmine/schema"
)

// importFiles is a store in a file of its own holding files' runs.
func importFiles(t *testing.T, files ...string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), store.Config{Path: filepath.Join(t.TempDir(), "c.duckdb")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	sum, err := ingest.Files(context.Background(), st, files, &ingest.Options{})
	if err != nil || sum.Failed != 0 {
		t.Fatalf("import: %+v, %v", sum, err)
	}
	return st
}

// TestLoadConversationDTOC builds the conversation of the DTOC fixture's
// first run (ingest/testdata/messages/dtoc_openai.jsonl; its 23 events, 8
// usage rows and 5 manage_context ops are listed in the fixture's README
// and ingest's messages test): every event an item, the ops on the
// manage_context calls, each output's fate, the tool calls' arguments
// apart from their text, and each call's cost from gpt-5's prices (the
// table's entry for gpt-5.4), computed by hand.
func TestLoadConversationDTOC(t *testing.T) {
	st := importFiles(t, filepath.Join(testutil.RepoRoot(), "ingest", "testdata", "messages", "dtoc_openai.jsonl"))
	c, err := analysis.LoadConversation(context.Background(), st, "dtoc-sqlite-utils-rolling", &analysis.ConversationOptions{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if c.Events != 23 || len(c.Items) != 23 || len(c.Calls) != 8 {
		t.Fatalf("%d events, %d items, %d calls; want 23, 23, 8", c.Events, len(c.Items), len(c.Calls))
	}
	bySeq := map[int64]dashboards.ConvItem{}
	for _, it := range c.Items {
		bySeq[it.Seq] = it
	}
	fate := func(seq int64) string {
		var out []string
		for _, o := range bySeq[seq].Fate {
			out = append(out, fmt.Sprintf("%s@%d", o.Op, o.Turn))
		}
		return strings.Join(out, " ")
	}
	// run_tests_1 (seq 4) disabled at call 3, enabled at 6; read_file_2
	// (11) disabled at 3; grep_1 (7) and read_file_1 (8) at 6; run_tests_2
	// (18) never
	for seq, want := range map[int64]string{4: "disable@3 enable@6", 11: "disable@3", 7: "disable@6", 8: "disable@6", 18: ""} {
		if got := fate(seq); got != want {
			t.Errorf("seq %d fate = %q, want %q", seq, got, want)
		}
	}
	if n13, n20 := len(bySeq[13].Ops), len(bySeq[20].Ops); n13 != 2 || n20 != 3 {
		t.Errorf("ops on the manage_context calls: %d and %d, want 2 and 3", n13, n20)
	}
	call := bySeq[3]
	if call.Kind != "tool_call" || call.Tool != "run_tests" || call.Args != `{"path":"tests/test_rolling.py"}` || call.Text != "" {
		t.Errorf("seq 3 = %+v, want the run_tests call with its arguments and no repeated text", call)
	}
	// cut at 100 characters: the texts (or arguments) longer than 100 of
	// seqs 0, 4, 8, 9, 11, 14, 15 (edit_file's arguments), 18, 19, 21, 22
	if c.Cut != 11 || c.Limit != 100 {
		t.Errorf("cut %d at %d, want 11 at 100", c.Cut, c.Limit)
	}
	if out := bySeq[4]; !out.Cut || len([]rune(out.Text)) != 100 || out.Chars != 649 || !strings.HasPrefix(out.Text, "=====") {
		t.Errorf("seq 4: cut %v, %d characters shown of %d", out.Cut, len([]rune(out.Text)), out.Chars)
	}
	// gpt-5: $1.25 input, $0.125 cache read, $10 output per million
	// call 0: 1,850 in (none cached), 64 out; call 1: 2,210 in (1,792 cached), 96 out
	want := []float64{(1850*1.25 + 64*10) / 1e6, (418*1.25 + 1792*0.125 + 96*10) / 1e6}
	for i, w := range want {
		k := c.Calls[i]
		if k.CostUSD == nil || math.Abs(*k.CostUSD-w) > 1e-12 || k.Turn != int64(i) {
			t.Errorf("call %d cost = %v, want %.7f", i, k.CostUSD, w)
		}
	}
	if k := c.Calls[1]; k.Input != 2210 || k.CacheRead != 1792 || k.Output != 96 || k.Reasoning != 40 {
		t.Errorf("call 1 = %+v", k)
	}
}

// TestConversationRules checks Conversation's rules on hand-made rows,
// each case failing if its rule were dropped: an op at no event's seq is
// an item in its place; a secret that starts before the cut and ends
// after it is redacted, not shown in part (the redaction reads past the
// cut); a secret wholly shown is redacted and counted; a call whose model
// has no price has no cost; a limit of 0 keeps texts whole; hostile text
// is kept as text (the page escapes it).
func TestConversationRules(t *testing.T) {
	pat := "ghp_" + strings.Repeat("aB3dE6gH9j", 3) + "kLmNoP" // github-pat: ghp_ and 36 letters and digits
	hostile := `</script><img src=x onerror=alert(1)>`
	run := schema.Run{RunID: "r", Model: "local-llm", ModelFamily: "local"}
	events := []schema.Event{
		{Seq: 0, Turn: 0, Kind: schema.KindUser, Text: "hello " + hostile, Chars: 43},
		{Seq: 1, Turn: 0, Kind: schema.KindToolCall, ToolName: "bash", CallID: "c1", Args: `{"cmd":"cat .env"}`, Text: `bash {"cmd":"cat .env"}`},
		{Seq: 2, Turn: 1, Kind: schema.KindToolResult, ToolName: "bash", CallID: "c1", ToolKey: "c1", Text: strings.Repeat("x", 15) + pat + " tail"},
		{Seq: 5, Turn: 1, Kind: schema.KindToolResult, ToolName: "bash", CallID: "c2", ToolKey: "c2", Text: "token " + pat},
	}
	ops := []schema.ContextOp{{Seq: 3, Turn: 1, Op: schema.OpCompaction, Trigger: "auto"}, {Seq: 4, Turn: 2, Op: schema.OpMasking, ToolKey: "c1"}}
	usage := []schema.Usage{{Turn: 0, Model: "local-llm", InputTokens: 100, OutputTokens: 10}}

	red, err := redact.New()
	if err != nil {
		t.Fatal(err)
	}
	c := analysis.Conversation(run, events, usage, ops, &analysis.ConversationOptions{Limit: 20, Redact: red})
	var kinds []string
	for _, it := range c.Items {
		kinds = append(kinds, fmt.Sprint(it.Seq, " ", it.Kind))
	}
	if want := []string{"0 user", "1 tool_call", "2 tool_result", "3 context_op", "4 context_op", "5 tool_result"}; !cmp.Equal(kinds, want) {
		t.Errorf("items = %q, want %q", kinds, want)
	}
	if got := c.Items[2]; strings.Contains(got.Text, "ghp_") || got.Text != strings.Repeat("x", 15)+"[REDA" || !got.Cut {
		t.Errorf("a secret across the cut: %q (cut %v), want it redacted, not shown in part", got.Text, got.Cut)
	}
	if got := c.Items[5].Text; got != "token [REDACTED:gith" { // 20 characters
		t.Errorf("a secret before the cut: %q", got)
	}
	if n := red.Count(); n != 2 {
		t.Errorf("%d secrets counted, want 2 (one in each output shown)", n)
	}
	if f := c.Items[2].Fate; len(f) != 1 || f[0].Op != "masking" || f[0].Turn != 2 {
		t.Errorf("the masked output's fate = %+v", f)
	}
	if c.Calls[0].CostUSD != nil {
		t.Errorf("a call of a model with no price costs %v", *c.Calls[0].CostUSD)
	}
	whole := analysis.Conversation(run, events, usage, ops, &analysis.ConversationOptions{})
	if whole.Items[0].Text != "hello "+hostile {
		t.Errorf("hostile text changed: %q", whole.Items[0].Text)
	}
	if whole.Cut != 0 || whole.Items[2].Text != events[2].Text || whole.Items[1].Args != events[1].Args {
		t.Errorf("limit 0 cut %d texts: %q", whole.Cut, whole.Items[2].Text)
	}
}

// TestLoadConversationKeyBlock: a private key's block that starts before
// the cut is redacted though its end lies far past the head read for the
// cut (the event is read whole for it).
func TestLoadConversationKeyBlock(t *testing.T) {
	key := "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat("MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi\n", 40) + "-----END RSA PRIVATE KEY-----"
	dir := t.TempDir()
	file := filepath.Join(dir, "k.jsonl")
	line := fmt.Sprintf(`{"run_id":"k","model":"gpt-4o","messages":[{"role":"user","content":"show the key"},{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":%q}]}`, "here: "+key)
	if err := os.WriteFile(file, []byte(line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st := importFiles(t, file)
	red, err := redact.New()
	if err != nil {
		t.Fatal(err)
	}
	c, err := analysis.LoadConversation(context.Background(), st, "k", &analysis.ConversationOptions{Limit: 100, Redact: red})
	if err != nil {
		t.Fatal(err)
	}
	out := c.Items[len(c.Items)-1]
	if out.Kind != "tool_result" || strings.Contains(out.Text, "MIIE") || !strings.HasPrefix(out.Text, "here: [REDACTED:") {
		t.Errorf("key block shown as %q", out.Text)
	}
}

// TestPageConversations: the page holds the conversations of the runs in
// order (the sample's first, then by peak share) while they fit the
// budget, and its note says how many of how many; with room for all, it
// says every run.
func TestPageConversations(t *testing.T) {
	st := importFiles(t, filepath.Join(testutil.RepoRoot(), "ingest", "testdata", "messages", "dtoc_openai.jsonl"))
	ctx := context.Background()
	page := func(budget int) *dashboards.Data {
		d := &dashboards.Data{
			Runs: []dashboards.RunRecord{{RunID: "dtoc-sqlite-utils-rolling", Window: 1000, PeakShare: 0.2}, {RunID: "dtoc-ts-pattern-matcheach", Window: 1000, PeakShare: 0.9}},
		}
		if err := analysis.PageConversations(ctx, st, d, nil, 50, budget); err != nil {
			t.Fatal(err)
		}
		return d
	}
	all := page(1 << 20)
	if len(all.Conversations) != 2 || all.Conversations[0].RunID != "dtoc-ts-pattern-matcheach" || !strings.Contains(all.ConversationNote, "every run (2)") {
		t.Fatalf("%d conversations, first %q; note %q", len(all.Conversations), all.Conversations[0].RunID, all.ConversationNote)
	}
	first, err := dashboards.ConversationSize(&all.Conversations[0])
	if err != nil {
		t.Fatal(err)
	}
	one := page(first)
	if len(one.Conversations) != 1 || one.Conversations[0].RunID != "dtoc-ts-pattern-matcheach" || !strings.Contains(one.ConversationNote, "1 of the 2 runs") {
		t.Errorf("budget for one: %d conversations; note %q", len(one.Conversations), one.ConversationNote)
	}
	if none := page(first - 1); len(none.Conversations) != 0 {
		t.Errorf("budget below one: %d conversations", len(none.Conversations))
	}
}
