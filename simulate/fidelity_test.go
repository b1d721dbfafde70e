package simulate

import (
	"testing"

	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/schema"
)

// fidelityEvent is an event of run "r" with est tokens tok.
func fidelityEvent(seq, turn int64, k schema.EventKind, tok int64, f func(*schema.Event)) schema.Event {
	e := schema.Event{RunID: "r", Seq: seq, Turn: turn, Kind: k, EstTokens: tok, Chars: 4 * tok}
	if f != nil {
		f(&e)
	}
	return e
}

// TestReplayLoggedOverflow: a message-list run whose last assistant message
// reports the overflow, with estimated prompts far below its 1,000-token
// window, ends in an overflow at its last call under keep-all at its own
// window (not censored); a wider window leaves it censored.
func TestReplayLoggedOverflow(t *testing.T) {
	window := int64(1000)
	run := schema.Run{RunID: "r", NTurns: 2, WindowTokens: &window}
	events := []schema.Event{
		fidelityEvent(0, 0, schema.KindUser, 50, nil),
		fidelityEvent(1, 0, schema.KindAssistant, 10, func(e *schema.Event) { e.Text = "reading" }),
		fidelityEvent(2, 1, schema.KindAssistant, 10, func(e *schema.Event) {
			e.Text = "Error: prompt is too long: 213004 tokens > 200000 maximum"
		}),
	}
	end := diagnose.Run(run, events, nil, nil, 0).End
	if end.Reason != schema.EndContextOverflow || end.Rule != diagnose.RuleMessageText {
		t.Fatalf("end = %+v, want context_overflow by %s", end, diagnose.RuleMessageText)
	}
	tr := NewTrace(run, events, nil, nil, end, nil)
	keepAll, err := Parse("keep-all")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		window   Window
		status   Status
		call     int
		logged   bool
		boundary int64
	}{
		// own window: the log's overflow at the last call (index 1); the
		// boundary time is the run's 2 calls, as in diagnose
		{"own window", 0, Overflow, 1, true, 2},
		{"smaller window", 900, Overflow, 1, true, 2},
		// a wider window than the log's: the data cannot say
		{"wider window", 2000, Censored, -1, false, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var rp Replayer
			r := rp.Replay(tr, keepAll, Options{Window: tc.window})
			if r.KeepAllOverflowAt != tc.call {
				t.Errorf("keep-all overflow at %d, want %d (keep-all is the log: it overflows where the log did)", r.KeepAllOverflowAt, tc.call)
			}
			if r.Status != tc.status || r.OverflowCall != tc.call || r.OverflowLogged != tc.logged || r.BoundaryCall != tc.boundary {
				t.Errorf("status %s at %d (logged %v, boundary %d); want %s at %d (logged %v, boundary %d)",
					r.Status, r.OverflowCall, r.OverflowLogged, r.BoundaryCall, tc.status, tc.call, tc.logged, tc.boundary)
			}
		})
	}
}

// TestHalflifeStallMessages: the stall message fires on a command repeated
// with an identical failing output, not on one repeated with an identical
// output that did not fail, and is no activation.
func TestHalflifeStallMessages(t *testing.T) {
	call := func(id, cmd string) func(*schema.Event) {
		return func(e *schema.Event) {
			e.ToolName, e.CallID, e.Target, e.Args = "bash", id, cmd, `{"command":"`+cmd+`"}`
		}
	}
	result := func(id, text string, isErr bool) func(*schema.Event) {
		return func(e *schema.Event) {
			e.ToolName, e.CallID, e.ToolKey, e.Text, e.IsError = "bash", id, id, text, isErr
		}
	}
	events := []schema.Event{
		fidelityEvent(0, 0, schema.KindUser, 50, nil),
		fidelityEvent(1, 0, schema.KindToolCall, 10, call("c1", "make")),
		fidelityEvent(2, 1, schema.KindToolResult, 20, result("c1", "E: boom", true)),
		fidelityEvent(3, 1, schema.KindToolCall, 10, call("c2", "make")),
		fidelityEvent(4, 2, schema.KindToolResult, 20, result("c2", "E: boom", true)), // the stall, seen by call 2
		fidelityEvent(5, 2, schema.KindToolCall, 10, call("c3", "ls")),
		fidelityEvent(6, 3, schema.KindToolResult, 20, result("c3", "a.go", false)),
		fidelityEvent(7, 3, schema.KindToolCall, 10, call("c4", "ls")),
		fidelityEvent(8, 4, schema.KindToolResult, 20, result("c4", "a.go", false)), // a repeat: no message
		fidelityEvent(9, 4, schema.KindAssistant, 10, nil),
	}
	run := schema.Run{RunID: "r", NTurns: 5}
	end := diagnose.Run(run, events, nil, nil, 0).End
	tr := NewTrace(run, events, nil, nil, end, nil)
	tests := []struct {
		spec     string
		messages int
		tokens   int64
	}{
		{"halflife(stall=true,stall_tokens=40)", 1, 40}, // one stall × 40 tokens
		{"halflife(stall=true,stall_tokens=7)", 1, 7},
		{"halflife(stall=false)", 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			p, err := Parse(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			var rp Replayer
			// a window of 1,000,000: the ~200-token prompts never reach half, no truncation
			r := rp.Replay(tr, p, Options{Window: 1_000_000})
			if r.StallMessages != tc.messages || r.StallMessageTok != tc.tokens || r.FirstActivation != -1 {
				t.Errorf("stall messages %d (%d tokens), first activation %d; want %d (%d tokens), -1",
					r.StallMessages, r.StallMessageTok, r.FirstActivation, tc.messages, tc.tokens)
			}
		})
	}
}

// TestDTOCEnvelope: keep-all counts the envelope a result is logged in;
// dtoc-tracking adds nothing to such a result, the run's mean logged
// envelope to a result logged without one, and its envelope parameter only
// in runs whose log shows no envelope.
func TestDTOCEnvelope(t *testing.T) {
	result := func(seq, turn int64, id string, env int64) schema.Event {
		return fidelityEvent(seq, turn, schema.KindToolResult, 100, func(e *schema.Event) {
			e.ToolName, e.CallID, e.ToolKey, e.EnvelopeTokens = "read", id, id, env
		})
	}
	call := func(seq, turn int64, id string) schema.Event {
		return fidelityEvent(seq, turn, schema.KindToolCall, 10, func(e *schema.Event) { e.ToolName, e.CallID = "read", id })
	}
	// calls: 0 user 50 + call 10 → result a (100, envelope envA) at call 1,
	// with call 10 → result b (100, envelope envB) at call 2, then an answer
	events := func(envA, envB int64) []schema.Event {
		return []schema.Event{
			fidelityEvent(0, 0, schema.KindUser, 50, nil),
			call(1, 0, "a"), result(2, 1, "a", envA),
			call(3, 1, "b"), result(4, 2, "b", envB),
			fidelityEvent(5, 2, schema.KindAssistant, 10, nil),
		}
	}
	tests := []struct {
		name       string
		envA, envB int64
		spec       string
		last       int64 // prompt of the last call (2)
	}{
		// keep-all at call 2: 50 + 10 + (100+20) + 10 + (100+30) = 320
		{"keep-all counts logged envelopes", 20, 30, "keep-all", 320},
		// both logged: tracking adds nothing: 320
		{"tracking keeps logged envelopes", 20, 30, "dtoc-tracking", 320},
		// a logged (20), b not: b gets the mean logged 20: 50+10+120+10+120 = 310
		{"tracking fills in the run's mean", 20, 0, "dtoc-tracking", 310},
		// none logged: the parameter, 7 each: 50+10+107+10+107 = 284
		{"tracking without logged envelopes", 0, 0, "dtoc-tracking(envelope=7)", 284},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run := schema.Run{RunID: "r", NTurns: 3}
			ev := events(tc.envA, tc.envB)
			tr := NewTrace(run, ev, nil, nil, diagnose.Run(run, ev, nil, nil, 0).End, nil)
			p, err := Parse(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			var calls []CallResult
			var rp Replayer
			rp.Replay(tr, p, Options{Window: Unbounded, Calls: &calls})
			if len(calls) != 3 || calls[2].PromptTokens != tc.last {
				t.Fatalf("calls %+v; want 3, the last with prompt %d", calls, tc.last)
			}
		})
	}
}

// TestReplayLoggedOverflowPolicySaved: at the run's own window a policy
// whose last prompt is smaller than keep-all's (it saved tokens by then)
// may have fitted where the log overflowed: censored, not the log's
// overflow; keep-all on the same trace ends as the log did.
func TestReplayLoggedOverflowPolicySaved(t *testing.T) {
	window := int64(1000)
	run := schema.Run{RunID: "r", NTurns: 3, WindowTokens: &window}
	call := func(seq, turn int64, id string) schema.Event {
		return fidelityEvent(seq, turn, schema.KindToolCall, 10, func(e *schema.Event) { e.ToolName, e.CallID = "bash", id })
	}
	result := func(seq, turn int64, id string) schema.Event {
		return fidelityEvent(seq, turn, schema.KindToolResult, 200, func(e *schema.Event) {
			e.ToolName, e.CallID, e.ToolKey, e.Text = "bash", id, id, "line one\nline two"
		})
	}
	events := []schema.Event{
		fidelityEvent(0, 0, schema.KindUser, 50, nil),
		call(1, 0, "a"), result(2, 1, "a"),
		call(3, 1, "b"), result(4, 2, "b"),
		fidelityEvent(5, 2, schema.KindAssistant, 10, func(e *schema.Event) { e.Text = "Error: prompt is too long" }),
	}
	end := diagnose.Run(run, events, nil, nil, 0).End
	tr := NewTrace(run, events, nil, nil, end, nil)
	tests := []struct {
		spec   string
		status Status
	}{
		{"keep-all", Overflow},
		// mask(n=1) shows the first result (200 tokens) as a placeholder at
		// call 2: its last prompt is below keep-all's
		{"mask(n=1)", Censored},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			p, err := Parse(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			var rp Replayer
			if r := rp.Replay(tr, p, Options{}); r.Status != tc.status {
				t.Errorf("status %s (overflow logged %v), want %s", r.Status, r.OverflowLogged, tc.status)
			}
		})
	}
}
