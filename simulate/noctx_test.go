package simulate

import (
	"math"
	"slices"
	"testing"

	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/schema"
)

// ctxTrace is a three-call run whose call 1 is manage_context only (mixed:
// call 1 also reads a file). Prefix 100; system 100 and task 50 tokens.
//
//	call 0: prompt 250 (prefix + system + task); output 30: text 20, read_file 10 → result 500 (k1)
//	call 1: prompt 780; output 15: manage_context 15 → result 5 (disables k1 from call 2)
//	        mixed: output 25: read_file 10 + manage_context 15 → results 300 and 5
//	call 2: prompt 800 (mixed: 1,110); output 20: text 20
func ctxTrace(mixed bool) *Trace {
	tr := &Trace{RunID: "r", NCalls: 3, Prefix: 100, Window: 0}
	tr.Items = []Item{
		{Seq: 0, Since: 0, Kind: ItemSystem, Head: true, Tokens: 100, Chars: 400, Call: -1},
		{Seq: 1, Since: 0, Kind: ItemUser, Head: true, Tokens: 50, Chars: 200, Call: -1},
		{Seq: 2, Since: 1, Kind: ItemAssistant, Tokens: 20, Chars: 80, Call: -1},
		{Seq: 3, Since: 1, Kind: ItemToolCall, Class: ClassRead, Tool: "read_file", Tokens: 10, Chars: 40, Call: -1},
		{Seq: 4, Since: 1, Kind: ItemToolResult, Class: ClassRead, Tool: "read_file", Key: "k1", Tokens: 500, Chars: 2000, Call: 3},
	}
	mc := Item{Kind: ItemToolCall, Class: ClassContext, Tool: "manage_context", Since: 2, Tokens: 15, Chars: 60, Call: -1}
	mcr := Item{Kind: ItemToolResult, Class: ClassContext, Tool: "manage_context", Since: 2, Tokens: 5, Chars: 20}
	if mixed {
		mc.Seq, mcr.Seq = 6, 8
		n := int32(len(tr.Items))
		mcr.Call = n + 1
		tr.Items = append(tr.Items,
			Item{Seq: 5, Since: 2, Kind: ItemToolCall, Class: ClassRead, Tool: "read_file", Tokens: 10, Chars: 40, Call: -1},
			mc,
			Item{Seq: 7, Since: 2, Kind: ItemToolResult, Class: ClassRead, Tool: "read_file", Key: "k2", Tokens: 300, Chars: 1200, Call: n},
			mcr)
		tr.Output = []int32{30, 25, 20}
	} else {
		mc.Seq, mcr.Seq = 5, 6
		mcr.Call = int32(len(tr.Items))
		tr.Items = append(tr.Items, mc, mcr)
		tr.Output = []int32{30, 15, 20}
	}
	tr.Items = append(tr.Items, Item{Seq: 9, Since: 3, Kind: ItemAssistant, Tokens: 20, Chars: 80, Call: -1})
	tr.Ops = []LoggedOp{{Item: 4, From: 2, DTOC: true}}
	tr.Finalize()
	return tr
}

func replayNamed(t *testing.T, tr *Trace, spec string, o Options) RunResult {
	t.Helper()
	p, err := Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	var rp Replayer
	return rp.Replay(tr, p, o)
}

// TestWithoutContextCalls checks the manage_context counterfactual on
// ctxTrace against hand sums: policies that replace the agent's context
// management replay without its manage_context calls; dtoc and as-logged
// replay the run as logged; the comparison with as-logged covers the same
// part of the logged run.
func TestWithoutContextCalls(t *testing.T) {
	type want struct {
		prompt, keepAll, asLogged, output, droppedOut int64
		calls, dropped                                int
	}
	// as-logged (= dtoc): the disable of k1 (500 → placeholder 40) from call 2:
	//   context-only: 250 + 780 + (800 − 500 + 40 = 340) = 1,370
	//   mixed:        250 + 780 + (1,110 − 460 = 650)    = 1,680
	tests := []struct {
		name   string
		mixed  bool
		policy string
		want   want
	}{
		// call 1 dropped; call 2 no longer holds the manage_context call and
		// result (800 − 20 = 780): 250 + 780 = 1,030; outputs 30 + 20
		{"context-only keep-all", false, "keep-all", want{prompt: 1030, keepAll: 1030, asLogged: 1370, output: 50, droppedOut: 15, calls: 2, dropped: 1}},
		// mask(n=10) never masks here: the same as keep-all
		{"context-only mask", false, "mask", want{prompt: 1030, keepAll: 1030, asLogged: 1370, output: 50, droppedOut: 15, calls: 2, dropped: 1}},
		// the logged run: 250 + 780 + 340
		{"context-only dtoc", false, "dtoc", want{prompt: 1370, keepAll: 1830, asLogged: 1370, output: 65, calls: 3}},
		{"context-only as-logged", false, "as-logged", want{prompt: 1370, keepAll: 1830, asLogged: 1370, output: 65, calls: 3}},
		// mixed: call 1 stays, its manage_context item goes (output 25 − 15);
		// call 2: 1,110 − 15 − 5 = 1,090: 250 + 780 + 1,090 = 2,120
		{"mixed keep-all", true, "keep-all", want{prompt: 2120, keepAll: 2120, asLogged: 1680, output: 60, droppedOut: 15, calls: 3}},
		{"mixed dtoc", true, "dtoc", want{prompt: 1680, keepAll: 2140, asLogged: 1680, output: 75, calls: 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := ctxTrace(tc.mixed)
			var calls []CallResult
			r := replayNamed(t, tr, tc.policy, Options{Window: Unbounded, Calls: &calls})
			got := want{r.PromptTokens, r.KeepAllTokens, r.AsLoggedPromptTokens, r.OutputTokens, r.DroppedContextOutput, r.Calls, r.DroppedContextCalls}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			if r.LoggedCalls != 3 {
				t.Errorf("logged calls %d, want 3", r.LoggedCalls)
			}
			var idx []int
			for _, c := range calls {
				idx = append(idx, c.Call)
			}
			wantIdx := []int{0, 1, 2}
			if tc.want.dropped == 1 {
				wantIdx = []int{0, 2} // the logged run's call indexes
			}
			if !slices.Equal(idx, wantIdx) {
				t.Errorf("sim_calls calls %v, want %v", idx, wantIdx)
			}
		})
	}
}

// TestWithoutContextCallsOverflow: the replay of the reduced run overflows
// at its call 1, the logged call 2: the comparison covers logged calls 0
// and 1 (one of them dropped), and the indexes are the logged run's.
func TestWithoutContextCallsOverflow(t *testing.T) {
	tr := ctxTrace(false)
	// window 700: reduced call 0 needs 250 + 30; reduced call 1 (logged call 2) 780 + 20
	r := replayNamed(t, tr, "keep-all", Options{Window: 700})
	if r.Status != Overflow || r.OverflowCall != 2 || r.Calls != 1 || r.DroppedContextCalls != 1 {
		t.Errorf("status %s at %d, %d calls, %d dropped; want overflow at logged call 2, 1 call, 1 dropped", r.Status, r.OverflowCall, r.Calls, r.DroppedContextCalls)
	}
	// as-logged over logged calls 0 and 1: 250 + 780; outputs 30 + 15 against the replay's 30
	if r.PromptTokens != 250 || r.AsLoggedPromptTokens != 1030 || r.OutputTokens != 30 || r.DroppedContextOutput != 15 {
		t.Errorf("prompt %d as-logged %d output %d dropped output %d; want 250, 1030, 30, 15", r.PromptTokens, r.AsLoggedPromptTokens, r.OutputTokens, r.DroppedContextOutput)
	}
	// as-logged itself overflows at call 1 (780 + 15 > 700); keep-all's reference too (its own replay's call 1 = logged 2)
	if r.AsLoggedOverflowAt != 1 || r.KeepAllOverflowAt != 2 || r.BoundaryCall != 2 {
		t.Errorf("as-logged overflow %d, keep-all overflow %d, boundary %d; want 1, 2, 2", r.AsLoggedOverflowAt, r.KeepAllOverflowAt, r.BoundaryCall)
	}
}

// TestWithoutContextCallsNone: a run with no manage_context call (its
// context-class calls are a todo list) has no reduced trace, and every
// policy replays it as logged.
func TestWithoutContextCallsNone(t *testing.T) {
	tr := ctxTrace(false)
	tr.Items[5].Tool, tr.Items[6].Tool = "todowrite", "todowrite"
	tr.Finalize()
	if tr.WithoutContextCalls() != nil || tr.DroppedContextCalls() != 0 {
		t.Fatal("a todo list is not manage_context")
	}
	r := replayNamed(t, tr, "keep-all", Options{Window: Unbounded})
	// 250 + 780 + 800
	if r.PromptTokens != 1830 || r.Calls != 3 || r.DroppedContextCalls != 0 || r.DroppedContextOutput != 0 {
		t.Errorf("keep-all %d over %d calls, %d dropped; want 1830 over 3, none", r.PromptTokens, r.Calls, r.DroppedContextCalls)
	}
}

// TestReplaces: every mechanism but logged and dtoc replaces the agent's
// context management.
func TestReplaces(t *testing.T) {
	for _, d := range Catalog() {
		p, err := Parse(d.Name)
		if d.Explicit {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		want := d.Mechanism != MechanismDtoc && d.Mechanism != MechanismLogged
		if Replaces(p) != want || d.ReplacesContext != want {
			t.Errorf("%s (%s): replaces %v, want %v", d.Name, d.Mechanism, Replaces(p), want)
		}
	}
	if !Replaces(mustParse(t, "keep-all")) || Replaces(mustParse(t, "dtoc")) || Replaces(mustParse(t, AsLoggedName)) {
		t.Error("keep-all replaces; dtoc and as-logged do not")
	}
}

// TestWithoutContextCallsCalibration: the token model is fitted on the run
// as logged, manage_context call included, and applied to the reduced run.
// traceEvents' four calls plus a fifth, call 3 being a manage_context call
// (10 tokens, result 10) and call 4 text: items visible x = 150, 380, 710,
// 840, 860; logged input 1000 + 1.5x = 1225, 1570, 2065, 2260, 2290. Fitted
// without call 4's x (860 → 840) the line would not pass through 2290.
func TestWithoutContextCallsCalibration(t *testing.T) {
	events := traceEvents()
	events = events[:len(events)-1]
	events = append(events,
		schema.Event{RunID: "r", Seq: 12, Turn: 3, Kind: schema.KindToolCall, EstTokens: 10, Chars: 40, ToolName: "manage_context", CallID: "m1", Args: `{"disable":["t2"]}`},
		schema.Event{RunID: "r", Seq: 13, Turn: 4, Kind: schema.KindToolResult, EstTokens: 10, Chars: 40, ToolName: "manage_context", CallID: "m1", Text: "ok"},
		schema.Event{RunID: "r", Seq: 14, Turn: 4, Kind: schema.KindAssistant, EstTokens: 20, Chars: 80})
	run := schema.Run{RunID: "r", SourceFormat: "f", ModelFamily: "m", NTurns: 5}
	us := usageRows([]int64{1225, 1570, 2065, 2260, 2290}, []int64{30, 30, 30, 10, 20})
	tr := NewTrace(run, events, us, nil, diagnose.End{Reason: schema.EndFinished}, nil)
	if m := tr.Tokens; m.Source != TokensFit || math.Abs(m.Factor-1.5) > 1e-9 || m.Prefix != 1000 {
		t.Fatalf("token model %+v, want fit 1.5 × items + 1000 over the logged run", m)
	}
	for _, e := range RunLoggedErrors(tr).KeepAll {
		if math.Abs(e) > 1e-9 {
			t.Errorf("keep-all error %v against the logged input, want 0 (measured on the logged run)", e)
		}
	}
	r := tr.WithoutContextCalls()
	if r == nil || tr.DroppedContextCalls() != 1 || r.NCalls != 4 {
		t.Fatalf("reduced trace %v, want call 3 dropped", r)
	}
	if r.Tokens != tr.Tokens || r.Prefix != tr.Prefix {
		t.Errorf("reduced token model %+v prefix %d, want the logged run's", r.Tokens, r.Prefix)
	}
	// reduced calls 0, 1, 2, 4: 1000 + 1.5 × (150, 380, 710, 840)
	if got := r.keepAllPrompts(); !slices.Equal(got, []int64{1225, 1570, 2065, 2260}) {
		t.Errorf("reduced keep-all prompts %v, want [1225 1570 2065 2260]", got)
	}
	if !slices.Equal(r.Logged, []int64{1225, 1570, 2065, 2290}) || !slices.Equal(r.orig, []int32{0, 1, 2, 4}) {
		t.Errorf("reduced logged %v orig %v", r.Logged, r.orig)
	}
	rr := replayNamed(t, tr, "keep-all", Options{Window: Unbounded})
	// as-logged (no ops: keep-all of the logged run): 1225+1570+2065+2260+2290
	if rr.PromptTokens != 1225+1570+2065+2260 || rr.AsLoggedPromptTokens != 9410 || rr.DroppedContextCalls != 1 {
		t.Errorf("keep-all %d against as-logged %d, %d dropped; want 7120, 9410, 1", rr.PromptTokens, rr.AsLoggedPromptTokens, rr.DroppedContextCalls)
	}
}

// TestWithoutContextCallsAll: a run whose only call is manage_context
// replays as no call at all under keep-all, against what ran's one prompt.
func TestWithoutContextCallsAll(t *testing.T) {
	tr := &Trace{RunID: "r", NCalls: 1, Output: []int32{12}}
	tr.Items = []Item{
		{Seq: 0, Since: 0, Kind: ItemSystem, Head: true, Tokens: 100, Chars: 400, Call: -1},
		{Seq: 1, Since: 1, Kind: ItemToolCall, Class: ClassContext, Tool: "mcp__manage_context", Tokens: 12, Chars: 48, Call: -1},
		{Seq: 2, Since: 1, Kind: ItemToolResult, Class: ClassContext, Tool: "mcp__manage_context", Tokens: 5, Chars: 20, Call: 1},
	}
	tr.Finalize()
	r := replayNamed(t, tr, "keep-all", Options{Window: 1000})
	if r.Calls != 0 || r.DroppedContextCalls != 1 || r.PromptTokens != 0 || r.AsLoggedPromptTokens != 100 || r.DroppedContextOutput != 12 || r.Status != Censored || r.BoundaryCall != 1 {
		t.Errorf("got %+v; want 0 calls, 1 dropped, as-logged 100, 12 output dropped, censored, boundary 1", r)
	}
}

// TestWithoutContextCallsDiedOnDroppedCall: a run that died on its last
// call, a manage_context-only one, is not saved by a replay that leaves
// that call out: the replay never reaches the point where the run died,
// and what the agent would have sent there instead is not in the log.
//
//	call 0: prompt 250 (prefix 100 + system 100 + task 50); output 30: text 20, read_file 10 → result 500
//	call 1: prompt 780; output 20: text 20
//	call 2: prompt 800; output 15: manage_context 15 → result 5 (the log's last call)
//
// At window 805 what ran overflows at call 2 (800 + 15 > 805); the reduced
// run is calls 0 and 1 (280 and 800 fit) and ends censored, not saved.
func TestWithoutContextCallsDiedOnDroppedCall(t *testing.T) {
	tr := &Trace{RunID: "r", NCalls: 3, Prefix: 100}
	tr.Items = []Item{
		{Seq: 0, Since: 0, Kind: ItemSystem, Head: true, Tokens: 100, Chars: 400, Call: -1},
		{Seq: 1, Since: 0, Kind: ItemUser, Head: true, Tokens: 50, Chars: 200, Call: -1},
		{Seq: 2, Since: 1, Kind: ItemAssistant, Tokens: 20, Chars: 80, Call: -1},
		{Seq: 3, Since: 1, Kind: ItemToolCall, Class: ClassRead, Tool: "read_file", Tokens: 10, Chars: 40, Call: -1},
		{Seq: 4, Since: 1, Kind: ItemToolResult, Class: ClassRead, Tool: "read_file", Key: "k1", Tokens: 500, Chars: 2000, Call: 3},
		{Seq: 5, Since: 2, Kind: ItemAssistant, Tokens: 20, Chars: 80, Call: -1},
		{Seq: 6, Since: 3, Kind: ItemToolCall, Class: ClassContext, Tool: "manage_context", Tokens: 15, Chars: 60, Call: -1},
		{Seq: 7, Since: 3, Kind: ItemToolResult, Class: ClassContext, Tool: "manage_context", Tokens: 5, Chars: 20, Call: 6},
	}
	tr.Output = []int32{30, 20, 15}
	tr.Finalize()
	if tr.DroppedContextCalls() != 1 {
		t.Fatalf("%d context-only calls, want 1", tr.DroppedContextCalls())
	}
	r := replayNamed(t, tr, "keep-all", Options{Window: 805})
	if r.AsLoggedOverflowAt != 2 || !r.BaselineOverflow {
		t.Fatalf("as-logged overflow at %d (baseline overflow %v), want call 2", r.AsLoggedOverflowAt, r.BaselineOverflow)
	}
	if r.Status != Censored || r.Calls != 2 || r.Saved || r.Lost {
		t.Errorf("status %s, %d calls, saved %v, lost %v; want censored after 2 calls, neither saved nor lost", r.Status, r.Calls, r.Saved, r.Lost)
	}
	// a window where what ran overflows at call 1 (780 + 20 > 790) and the
	// reduced run does too: neither saved nor lost
	r = replayNamed(t, tr, "keep-all", Options{Window: 790})
	if r.AsLoggedOverflowAt != 1 || r.Status != Overflow || r.Saved || r.Lost {
		t.Errorf("window 790: as-logged overflow %d, status %s, saved %v, lost %v; want 1, overflow, neither", r.AsLoggedOverflowAt, r.Status, r.Saved, r.Lost)
	}
}
