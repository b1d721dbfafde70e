package diagnose

import (
	"strings"
	"testing"

	"github.com/trajmine/trajmine/schema"
)

func TestEndReason(t *testing.T) {
	calls := func(window int64, prompts ...int64) RunOccupancy {
		o := RunOccupancy{Window: window}
		for i, p := range prompts {
			c := CallOccupancy{Turn: int64(i), Prompt: p, Source: PromptLogged}
			if window > 0 {
				c.Share = float64(p) / float64(window)
			}
			o.Calls = append(o.Calls, c)
		}
		return o
	}
	errAt := func(turn int64, text string) schema.Event {
		return schema.Event{Turn: turn, Kind: schema.KindError, Role: "system", Text: text}
	}
	inferredFinished := schema.Run{EndReason: schema.EndFinished, EndReasonSource: schema.SourceInferred, EndReasonDetail: "last response stop_reason end_turn"}
	tests := []struct {
		name       string
		run        schema.Run
		events     []schema.Event
		occ        RunOccupancy
		wantReason schema.EndReason
		wantSource schema.ReasonSource
		wantRule   string
		wantWhy    string // substring
	}{
		{"explicit kept even at a full window",
			schema.Run{EndReason: schema.EndStepLimit, EndReasonSource: schema.SourceExplicit, EndReasonDetail: "exit_status: step_limit"},
			nil, calls(1000, 990), schema.EndStepLimit, schema.SourceExplicit, RuleLog, `the log says: "exit_status: step_limit"`},
		{"explicit overflow",
			schema.Run{EndReason: schema.EndContextOverflow, EndReasonSource: schema.SourceExplicit},
			nil, calls(1000, 10), schema.EndContextOverflow, schema.SourceExplicit, RuleLog, "the log records it"},
		{"margin rule at exactly 95%",
			inferredFinished, nil, calls(1000, 100, 950), schema.EndContextOverflow, schema.SourceInferred, RuleMargin, "95.0% of the 1000-token window"},
		{"below the margin keeps the importer's reason",
			inferredFinished, nil, calls(1000, 100, 949), schema.EndFinished, schema.SourceInferred, RuleImporter, "last response stop_reason end_turn"},
		{"margin uses the last call, not the peak",
			inferredFinished, nil, calls(1000, 990, 100), schema.EndFinished, schema.SourceInferred, RuleImporter, "importer"},
		{"unknown window: no margin rule",
			inferredFinished, nil, calls(0, 5_000_000), schema.EndFinished, schema.SourceInferred, RuleImporter, "importer"},
		{"error text in the last turn",
			inferredFinished, []schema.Event{errAt(1, `API Error: 400 {"error":{"message":"prompt is too long: 210000 tokens > 200000 maximum"}}`)},
			calls(1000, 100, 200), schema.EndContextOverflow, schema.SourceInferred, RuleErrorText, "prompt is too long"},
		{"ContextWindowExceeded",
			schema.Run{EndReason: schema.EndError, EndReasonSource: schema.SourceInferred},
			[]schema.Event{errAt(0, "litellm.ContextWindowExceededError: ...")},
			calls(0, 100), schema.EndContextOverflow, schema.SourceInferred, RuleErrorText, "ContextWindowExceeded"},
		{"overflow error recovered from does not count",
			inferredFinished, []schema.Event{errAt(0, "context_length_exceeded"), {Turn: 2, Kind: schema.KindAssistant}},
			calls(1000, 100, 200, 300), schema.EndFinished, schema.SourceInferred, RuleImporter, "importer"},
		{"other error text",
			schema.Run{EndReason: schema.EndError, EndReasonSource: schema.SourceInferred, EndReasonDetail: "rate limited"},
			[]schema.Event{errAt(0, "429 rate limit")}, calls(1000, 100), schema.EndError, schema.SourceInferred, RuleImporter, "rate limited"},
		{"neither: unknown",
			schema.Run{}, nil, calls(1000, 100), schema.EndUnknown, schema.SourceInferred, RuleImporter, "neither"},

		// point 1: overflow said in a message, not an error event
		{"overflow in the last assistant message",
			schema.Run{}, []schema.Event{
				{Turn: 0, Kind: schema.KindAssistant, Text: "Let me look."},
				{Turn: 1, Kind: schema.KindAssistant, Text: "Error: prompt is too long: 213004 tokens > 200000 maximum"},
			}, calls(0), schema.EndContextOverflow, schema.SourceInferred, RuleMessageText, "assistant message reporting an overflow"},
		{"overflow in a tool result of the last turn",
			schema.Run{}, []schema.Event{
				{Turn: 0, Seq: 0, Kind: schema.KindToolCall, ToolName: "Task", CallID: "a"},
				{Turn: 1, Seq: 1, Kind: schema.KindToolResult, CallID: "a", Text: `API Error: 400 {"error":{"message":"prompt is too long"}}`},
			}, calls(0), schema.EndContextOverflow, schema.SourceInferred, RuleMessageText, "tool result reporting an overflow"},
		{"prose about the context window is not an overflow",
			schema.Run{}, []schema.Event{
				{Turn: 1, Kind: schema.KindAssistant, Text: "The context window is 200K tokens, so I read the file in chunks."},
			}, calls(0), schema.EndUnknown, schema.SourceInferred, RuleImporter, "neither"},
		{"an overflow message the run went on from does not count",
			schema.Run{}, []schema.Event{
				{Turn: 0, Kind: schema.KindAssistant, Text: "Error: prompt is too long"},
				{Turn: 1, Kind: schema.KindAssistant, Text: "Done."},
			}, calls(0), schema.EndUnknown, schema.SourceInferred, RuleImporter, "neither"},

		// point 2: finished runs
		{"last tool call is a submit",
			schema.Run{}, []schema.Event{
				{Turn: 0, Seq: 0, Kind: schema.KindToolCall, ToolName: "bash", CallID: "a"},
				{Turn: 1, Seq: 1, Kind: schema.KindToolResult, CallID: "a", Text: "ok"},
				{Turn: 1, Seq: 2, Kind: schema.KindToolCall, ToolName: "submit", CallID: "b"},
				{Turn: 2, Seq: 3, Kind: schema.KindToolResult, CallID: "b", Text: "submitted"},
			}, calls(0), schema.EndFinished, schema.SourceInferred, RuleSubmit, `"submit", is a submit action`},
		{"a submit that failed is not a finish",
			schema.Run{}, []schema.Event{
				{Turn: 1, Seq: 2, Kind: schema.KindToolCall, ToolName: "submit", CallID: "b"},
				{Turn: 2, Seq: 3, Kind: schema.KindToolResult, CallID: "b", Text: "no patch", IsError: true},
			}, calls(0), schema.EndUnknown, schema.SourceInferred, RuleImporter, "neither"},
		{"a submit before other calls is not the last action",
			schema.Run{}, []schema.Event{
				{Turn: 0, Seq: 0, Kind: schema.KindToolCall, ToolName: "submit", CallID: "a"},
				{Turn: 1, Seq: 1, Kind: schema.KindToolCall, ToolName: "bash", CallID: "b"},
			}, calls(0), schema.EndUnknown, schema.SourceInferred, RuleImporter, "neither"},
		{"resolved outcome",
			schema.Run{Resolved: ptr(true)}, nil, calls(1000, 100), schema.EndFinished, schema.SourceInferred, RuleOutcome, "resolved"},
		{"failed outcome says nothing",
			schema.Run{Resolved: ptr(false)}, nil, calls(1000, 100), schema.EndUnknown, schema.SourceInferred, RuleImporter, "neither"},
		{"resolved run that overflowed at its last call is an overflow",
			schema.Run{Resolved: ptr(true)}, nil, calls(1000, 960), schema.EndContextOverflow, schema.SourceInferred, RuleMargin, "96.0%"},

		// point 3: a run that ends inside a stall
		{"last call repeats a failing command",
			inferredFinished, []schema.Event{
				{Turn: 0, Seq: 0, Kind: schema.KindToolCall, ToolName: "bash", CallID: "a", Target: "make"},
				{Turn: 1, Seq: 1, Kind: schema.KindToolResult, CallID: "a", Text: "E1", IsError: true},
				{Turn: 1, Seq: 2, Kind: schema.KindToolCall, ToolName: "bash", CallID: "b", Target: "make"},
				{Turn: 2, Seq: 3, Kind: schema.KindToolResult, CallID: "b", Text: "E1", IsError: true},
			}, calls(0), schema.EndStalled, schema.SourceInferred, RuleStall, "for the 2nd time"},
		{"last call repeats a succeeding command: a repeat, not a stall",
			inferredFinished, []schema.Event{
				{Turn: 0, Seq: 0, Kind: schema.KindToolCall, ToolName: "bash", CallID: "a", Target: "ls"},
				{Turn: 1, Seq: 1, Kind: schema.KindToolResult, CallID: "a", Text: "x"},
				{Turn: 1, Seq: 2, Kind: schema.KindToolCall, ToolName: "bash", CallID: "b", Target: "ls"},
				{Turn: 2, Seq: 3, Kind: schema.KindToolResult, CallID: "b", Text: "x"},
			}, calls(0), schema.EndFinished, schema.SourceInferred, RuleImporter, "end_turn"},
		{"a stall the run moved on from does not end it",
			schema.Run{}, []schema.Event{
				{Turn: 0, Seq: 0, Kind: schema.KindToolCall, ToolName: "bash", CallID: "a", Target: "make"},
				{Turn: 1, Seq: 1, Kind: schema.KindToolResult, CallID: "a", Text: "E1", IsError: true},
				{Turn: 1, Seq: 2, Kind: schema.KindToolCall, ToolName: "bash", CallID: "b", Target: "make"},
				{Turn: 2, Seq: 3, Kind: schema.KindToolResult, CallID: "b", Text: "E1", IsError: true},
				{Turn: 2, Seq: 4, Kind: schema.KindToolCall, ToolName: "bash", CallID: "c", Target: "ls"},
			}, calls(0), schema.EndUnknown, schema.SourceInferred, RuleImporter, "neither"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := EndReason(tc.run, tc.events, tc.occ)
			if got.Reason != tc.wantReason || got.Source != tc.wantSource || got.Rule != tc.wantRule || !strings.Contains(got.Why, tc.wantWhy) {
				t.Errorf("EndReason = %+v; want %s (%s) by %s, why containing %q", got, tc.wantReason, tc.wantSource, tc.wantRule, tc.wantWhy)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestEndReasonClassify: RuleSubmit asks the given classifier, not only
// DefaultClassify's names.
func TestEndReasonClassify(t *testing.T) {
	events := []schema.Event{{Turn: 0, Seq: 0, Kind: schema.KindToolCall, ToolName: "hand_in", CallID: "a"}}
	if got := EndReasonWith(schema.Run{}, events, RunOccupancy{}, nil); got.Reason != schema.EndUnknown {
		t.Errorf("default classifier: %+v, want unknown (hand_in is no default submit name)", got)
	}
	submit := func(_, tool, _ string) string {
		if tool == "hand_in" {
			return "submit"
		}
		return "other"
	}
	if got := EndReasonWith(schema.Run{}, events, RunOccupancy{}, &EndOptions{Classify: submit}); got.Reason != schema.EndFinished || got.Rule != RuleSubmit {
		t.Errorf("classifier: %+v, want finished by %s", got, RuleSubmit)
	}
}

func TestIsOverflowText(t *testing.T) {
	for _, s := range []string{"Prompt is too long", "Error code: 400 - context_length_exceeded", "ContextWindowExceededError", "This model's maximum context length is 128000 tokens", "Input is too long for requested model"} {
		if !IsOverflowText(s) {
			t.Errorf("IsOverflowText(%q) = false", s)
		}
	}
	for _, s := range []string{"", "rate limit exceeded", "file not found"} {
		if IsOverflowText(s) {
			t.Errorf("IsOverflowText(%q) = true", s)
		}
	}
}

// TestEndReasonGivenStalls: EndOptions.Stalls is used as given (the pass
// computes them once), not recomputed from the events.
func TestEndReasonGivenStalls(t *testing.T) {
	events := []schema.Event{
		{Turn: 0, Seq: 0, Kind: schema.KindToolCall, ToolName: "bash", CallID: "a", Target: "make"},
		{Turn: 1, Seq: 1, Kind: schema.KindToolCall, ToolName: "bash", CallID: "b", Target: "make"},
	}
	// the events alone hold no stall (no results); the given stalls say seq 1
	// repeats a failure
	st := RunStalls{Stalls: []Stall{{Tool: "bash", Target: "make", Failing: true, Seqs: []int64{0, 1}}}}
	if got := EndReasonWith(schema.Run{}, events, RunOccupancy{}, nil); got.Reason != schema.EndUnknown {
		t.Errorf("computed stalls: %+v, want unknown", got)
	}
	if got := EndReasonWith(schema.Run{}, events, RunOccupancy{}, &EndOptions{Stalls: &st}); got.Reason != schema.EndStalled || got.Rule != RuleStall {
		t.Errorf("given stalls: %+v, want stalled by %s", got, RuleStall)
	}
}
