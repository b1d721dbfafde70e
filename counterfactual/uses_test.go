package counterfactual_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/counterfactual"
	"github.com/trajmine/trajmine/schema"
)

// run builds one run's events: seq is the index, texts are as given.
type run []schema.Event

func (r run) add(e schema.Event) run {
	e.RunID, e.Seq = "r", int64(len(r))
	e.Chars = int64(len(e.Text))
	e.EstTokens = (e.Chars + 3) / 4
	return append(r, e)
}

func (r run) sys(turn int64, text string) run {
	return r.add(schema.Event{Turn: turn, Kind: schema.KindSystem, Role: "system", Text: text})
}

func (r run) user(turn int64, text string) run {
	return r.add(schema.Event{Turn: turn, Kind: schema.KindUser, Role: "user", Text: text})
}

func (r run) say(turn int64, text string) run {
	return r.add(schema.Event{Turn: turn, Kind: schema.KindAssistant, Role: "assistant", Text: text})
}

func (r run) think(turn int64, text string) run {
	return r.add(schema.Event{Turn: turn, Kind: schema.KindReasoning, Role: "assistant", Text: text})
}

// call is a tool call whose text is "tool args", as the importers write it.
func (r run) call(turn int64, id, tool, target, args string) run {
	return r.add(schema.Event{Turn: turn, Kind: schema.KindToolCall, Role: "assistant", ToolName: tool,
		CallID: id, Target: target, Args: args, Text: tool + " " + args})
}

func (r run) result(turn int64, id, tool, text string) run {
	return r.add(schema.Event{Turn: turn, Kind: schema.KindToolResult, Role: "tool", ToolName: tool,
		CallID: id, ToolKey: id, Text: text})
}

// content is the content use of output o by event e: evidence tokens are
// located at their first occurrence in the output text.
func content(r run, o, e int, toks ...string) counterfactual.Use {
	u := counterfactual.Use{Output: o, Event: e, Call: r[e].Turn, Kind: counterfactual.UseContent}
	for _, t := range toks {
		u.Offsets = append(u.Offsets, int32(strings.Index(r[o].Text, t)))
		u.Evidence = append(u.Evidence, t)
	}
	return u
}

func target(r run, o, e int) counterfactual.Use {
	return counterfactual.Use{Output: o, Event: e, Call: r[e].Turn, Kind: counterfactual.UseTarget}
}

var (
	// the agent names a function it creates; the tool echoes the name with an
	// id of its own; the agent then mentions both
	echo = run{}.
		user(0, "Add a widget factory").
		call(0, "c1", "create_function", "", `{"name":"make_widget_v2"}`).
		result(1, "c1", "create_function", "created make_widget_v2 as widget_7f3a").
		say(1, "make_widget_v2 is registered as widget_7f3a.")

	// a DTOC log: output k1, then manage_context enabling k1 and k9
	enable = run{}.
		user(0, "Summarise the report").
		add(schema.Event{Turn: 0, Kind: schema.KindToolCall, ToolName: "read", CallID: "c1", ToolKey: "k1", Args: `{"path":"r.txt"}`}).
		add(schema.Event{Turn: 1, Kind: schema.KindToolResult, ToolName: "read", CallID: "c1", ToolKey: "k1", Text: "quarterly"}).
		add(schema.Event{Turn: 1, Kind: schema.KindToolCall, ToolName: "manage_context", CallID: "c2", Args: `{"disable":[],"enable":["k1","k9","k1"]}`})

	// a read of a file whose identifier is later used in an edit's args
	readEdit = run{}.
			sys(0, "You are a coding agent.").
			user(0, "Fix the rounding bug in app/billing.py").
			call(0, "c1", "read_file", "app/billing.py", `{"path":"app/billing.py"}`).
			result(1, "c1", "read_file", "import math\n\ndef compute_total(items):\n    return round(sum(items))\n").
			say(1, "compute_total rounds too early; I will fix it.").
			call(1, "c2", "edit", "app/billing.py", `{"new":"def compute_total(items):\n    return sum(items)","old":"def compute_total(items):\n    return round(sum(items))","path":"app/billing.py"}`).
			result(2, "c2", "edit", "ok")

	// the user task gives the token: no output is needed for it
	taskToken = run{}.
			user(0, "Call helper_fn from main.py").
			call(0, "c1", "bash", "grep -rn helper_fn .", `{"command":"grep -rn helper_fn ."}`).
			result(1, "c1", "bash", "lib/util.py:3:def helper_fn(x):").
			say(1, "I will call helper_fn.")

	// the file is read twice: a use after the second read belongs to it
	reRead = run{}.
		user(0, "Tidy the config loader").
		call(0, "c1", "read_file", "cfg.py", `{"path":"cfg.py"}`).
		result(1, "c1", "read_file", "def parse_config(path):\n    pass\n").
		say(1, "parse_config is a stub.").
		call(1, "c2", "read_file", "cfg.py", `{"path":"cfg.py"}`).
		result(2, "c2", "read_file", "# config\n\ndef parse_config(path):\n    pass\n").
		say(2, "Still parse_config.")

	// a later call acts on the same target; a call of the same turn logged
	// after an output it cannot have seen uses the older output
	targets = run{}.
		user(0, "Run the tests").
		call(0, "c1", "bash", "go test ./...", `{"command":"go test ./..."}`).
		result(1, "c1", "bash", "FAIL").
		call(1, "c2", "bash", "go test ./...", `{"command":"go test ./..."}`).
		result(2, "c2", "bash", "FAIL again").
		call(1, "c3", "bash", "go test ./...", `{"command":"go test ./..."}`).
		result(2, "c3", "bash", "FAIL still").
		call(2, "c4", "bash", "ls", `{"command":"ls"}`)

	// an output is visible to the call of its own turn; a mention before the
	// output arrived is not a use, and an output of a later turn is not visible
	visibility = run{}.
			user(0, "Explore the data").
			say(0, "Maybe load_data exists.").
			call(0, "c1", "bash", "cat data.py", `{"command":"cat data.py"}`).
			result(1, "c1", "bash", "def load_data():\n    return read_csv_file(raw_path)\n").
			call(1, "c2", "bash", "cat b.py", `{"command":"cat b.py"}`).
			result(2, "c2", "bash", "def clean_rows(df):\n    return df\n").
			say(1, "clean_rows is in b.py").
			think(2, "clean_rows and load_data then read_csv_file on raw_path").
			say(2, "done")

	// a use at the output's first call may rest on one word (event 3
	// picks a file from the listing); a later one needs MinEvidence
	// words: event 4's single word, three calls on, is no use
	oneWord = run{}.
		user(0, "Look around").
		call(0, "c1", "ls", "ls", `{"command":"ls"}`).
		result(1, "c1", "ls", "src/one.py src/two.py").
		say(1, "open src/one.py").
		say(3, "and src/two.py later")

	// an output does not take over the words of its own call's arguments:
	// parse_row_v2, which the agent took from output 2 and wrote into
	// call c2, is echoed by output 4 but stays the agent's; line_buf is
	// output 4's
	echoArgs = run{}.
			user(0, "Fix the parser").
			call(0, "c1", "grep", "parse_row", `{"pattern":"parse_row"}`).
			result(1, "c1", "grep", "src/rows.py defines parse_row_v2").
			call(1, "c2", "bash", "grep -n parse_row_v2 src/rows.py", `{"command":"grep -n parse_row_v2 src/rows.py"}`).
			result(2, "c2", "bash", "17: def parse_row_v2(line_buf):").
			say(2, "parse_row_v2 mishandles line_buf")

	// a compaction's summary is the model's own text: its words pass to
	// the agent, so event 5 (after it) uses no output
	summarized = run{}.
			user(0, "Go").
			call(0, "c1", "read", "a.go", `{"path":"a.go"}`).
			result(1, "c1", "read", "func alpha_fn calls beta_fn_2").
			say(1, "ok").
			add(schema.Event{Turn: 2, Kind: schema.KindCompaction, Role: "user", Text: "Summary: we read a.go; alpha_fn calls beta_fn_2"}).
			say(2, "so alpha_fn and beta_fn_2")

	// only the first MaxScan bytes of an output are scanned; a token that the
	// limit would cut is dropped; a common token stays common
	bigOutput = run{}.
			user(0, "Scan the log").
			call(0, "c1", "bash", "cat big.log", `{"command":"cat big.log"}`).
			result(1, "c1", "bash", "head_tok task_tok "+strings.Repeat("x ", (counterfactual.MaxScan-22)/2)+"cut_token tail_tok").
			user(1, "Look at task_tok").
			say(1, "head_tok task_tok cut_token tail_tok")

	// evidence is capped at MaxEvidence tokens, the first ones in the output
	manyTokens = func() run {
		var out, say []string
		for i := range 12 {
			out = append(out, fmt.Sprintf("ident_%02d", i))
		}
		for i := 11; i >= 0; i-- {
			say = append(say, out[i], out[i])
		}
		return run{}.
			user(0, "List them").
			call(0, "c1", "bash", "cat ids", `{"command":"cat ids"}`).
			result(1, "c1", "bash", strings.Join(out, "\n")).
			say(1, strings.Join(say, " "))
	}()

	// two outputs used by one tool call whose args hold JSON escapes; no ids,
	// so results pair with the nearest preceding call
	twoOutputs = run{}.
			user(0, "Go").
			call(0, "", "bash", "cat a.txt", `{"command":"cat a.txt"}`).
			call(0, "", "bash", "cat b.txt", `{"command":"cat b.txt"}`).
			result(1, "", "bash", "alpha_one").
			result(1, "", "bash", "beta_two").
			call(1, "", "bash", "echo", `{"command":"echo \"beta_two\"\nalpha_one"}`)
)

func TestUses(t *testing.T) {
	evidence := []string{"ident_00", "ident_01", "ident_02", "ident_03", "ident_04", "ident_05", "ident_06", "ident_07"}
	tests := []struct {
		name   string
		events run
		want   []counterfactual.Use
	}{
		{name: "read then edit", events: readEdit, want: []counterfactual.Use{
			content(readEdit, 3, 4, "compute_total"),
			// event 5 mentions compute_total again: the agent's own message 4 holds it now
			target(readEdit, 3, 5),
		}},
		{name: "token from the task", events: taskToken, want: nil},
		{name: "re-read moves attribution", events: reRead, want: []counterfactual.Use{
			content(reRead, 2, 3, "parse_config"),
			target(reRead, 2, 4),
			content(reRead, 5, 6, "parse_config"),
		}},
		{name: "target uses", events: targets, want: []counterfactual.Use{
			target(targets, 2, 3),
			target(targets, 2, 5), // not 4: turn 2 > call 1
		}},
		{name: "visibility", events: visibility, want: []counterfactual.Use{
			// event 1 (before the output) and event 6 (call 1, output of turn 2) are not uses
			// load_data first appears in the agent's own event 1: the output
			// that confirms it is not its source; read_csv_file is the output's
			content(visibility, 3, 7, "read_csv_file", "raw_path"), // a late use: two words (MinEvidence)
			content(visibility, 5, 7, "clean_rows"),                // output of turn 2 used by call 2
		}},
		{name: "scan limit", events: bigOutput, want: []counterfactual.Use{
			content(bigOutput, 2, 4, "head_tok"),
		}},
		{name: "evidence cap", events: manyTokens, want: []counterfactual.Use{
			content(manyTokens, 2, 3, evidence...),
		}},
		{name: "two outputs, escaped args", events: twoOutputs, want: []counterfactual.Use{
			content(twoOutputs, 3, 5, "alpha_one"),
			content(twoOutputs, 4, 5, "beta_two"),
		}},
		{name: "echo of the agent's own identifier", events: echo, want: []counterfactual.Use{
			// make_widget_v2 was written by the agent (event 1, args) and echoed
			// by the tool (event 2): event 3's mention is no use of output 2;
			// only widget_7f3a, which the output introduced, is
			content(echo, 2, 3, "widget_7f3a"),
		}},
		{name: "DTOC enable is an observed use", events: enable, want: []counterfactual.Use{
			// manage_context (event 3) re-enables key k1 = output 2, once
			// though listed twice; the unknown key k9 is no use
			{Output: 2, Event: 3, Call: 1, Kind: counterfactual.UseEnable},
		}},
		{name: "late use on one word", events: oneWord, want: []counterfactual.Use{
			content(oneWord, 2, 3, "src/one.py"),
		}},
		{name: "echo of the call's arguments", events: echoArgs, want: []counterfactual.Use{
			content(echoArgs, 2, 3, "src/rows.py", "parse_row_v2"),
			content(echoArgs, 4, 5, "line_buf"),
		}},
		{name: "compaction summary", events: summarized, want: nil},
		{name: "empty", events: nil, want: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := counterfactual.Uses(tc.events)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Uses (-want +got):\n%s", diff)
			}
			checkUses(t, tc.events, got)
		})
	}
}

// checkUses checks the invariants every result of Uses keeps.
func checkUses(t *testing.T, events []schema.Event, uses []counterfactual.Use) {
	t.Helper()
	for i, u := range uses {
		if i > 0 {
			p := uses[i-1]
			if p.Call > u.Call || p.Call == u.Call && (p.Output > u.Output || p.Output == u.Output && (p.Event > u.Event || p.Event == u.Event && p.Kind >= u.Kind)) {
				t.Fatalf("uses %d and %d out of order: %+v, %+v", i-1, i, p, u)
			}
		}
		o, e := events[u.Output], events[u.Event]
		if o.Kind != schema.KindToolResult || !e.Kind.IsOutput() || u.Output >= u.Event || u.Call != e.Turn || o.Turn > u.Call {
			t.Fatalf("use %+v: output %s turn %d, event %s turn %d", u, o.Kind, o.Turn, e.Kind, e.Turn)
		}
		switch u.Kind {
		case counterfactual.UseContent:
			if len(u.Offsets) == 0 || len(u.Offsets) > counterfactual.MaxEvidence || len(u.Offsets) != len(u.Evidence) {
				t.Fatalf("use %+v: %d offsets, %d evidence tokens", u, len(u.Offsets), len(u.Evidence))
			}
			for j, off := range u.Offsets {
				if j > 0 && off <= u.Offsets[j-1] {
					t.Fatalf("use %+v: offsets not ascending", u)
				}
				tok := u.Evidence[j]
				if off < 0 || int(off)+len(tok) > len(o.Text) || o.Text[off:int(off)+len(tok)] != tok {
					t.Fatalf("use %+v: evidence %q not at offset %d of the output", u, tok, off)
				}
			}
		case counterfactual.UseTarget:
			if u.Offsets != nil || u.Evidence != nil || e.Kind != schema.KindToolCall || e.Target == "" {
				t.Fatalf("target use %+v of event %+v", u, e)
			}
		case counterfactual.UseEnable:
			if u.Offsets != nil || u.Evidence != nil || e.Kind != schema.KindToolCall || !strings.HasSuffix(e.ToolName, "manage_context") {
				t.Fatalf("enable use %+v of event %+v", u, e)
			}
		default:
			t.Fatalf("use %+v: bad kind", u)
		}
	}
}

func TestSummarize(t *testing.T) {
	uses := counterfactual.Uses(readEdit)
	got := counterfactual.Summarize(readEdit, uses)
	want := []counterfactual.OutputUses{
		{Output: 3, Seq: 3, Turn: 1, ToolKey: "c1", ToolName: "read_file", Target: "app/billing.py", EstTokens: readEdit[3].EstTokens,
			ContentUses: 1, TargetUses: 1, FirstCall: 1, LastCall: 1},
		{Output: 6, Seq: 6, Turn: 2, ToolKey: "c2", ToolName: "edit", Target: "app/billing.py", EstTokens: 1, FirstCall: -1, LastCall: -1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Summarize (-want +got):\n%s", diff)
	}
	if !got[0].Used() || got[1].Used() {
		t.Errorf("Used() = %v, %v; want true, false", got[0].Used(), got[1].Used())
	}
	// uses that name no output are ignored
	bad := []counterfactual.Use{{Output: 0, Event: 4, Call: 1, Kind: counterfactual.UseContent}, {Output: 99, Kind: counterfactual.UseTarget}}
	for _, r := range counterfactual.Summarize(readEdit, bad) {
		if r.Used() {
			t.Errorf("row %+v counted a use of a non-output", r)
		}
	}
}
