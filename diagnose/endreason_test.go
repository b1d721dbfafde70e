package diagnose

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/trajmine/trajmine/schema"
)

func TestEndReason(t *testing.T) {
	calls := func(window int64, prompts ...int64) RunOccupancy {
		o := RunOccupancy{Window: window}
		for i, p := range prompts {
			c := CallOccupancy{Call: int64(i), Prompt: p, Source: PromptLogged}
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

		// overflow said in a message, not an error event
		{"overflow in the last assistant message",
			schema.Run{}, []schema.Event{
				{Turn: 0, Seq: 0, Kind: schema.KindAssistant, Text: "Let me look."},
				{Turn: 1, Seq: 1, Kind: schema.KindAssistant, Text: "Error: prompt is too long: 213004 tokens > 200000 maximum"},
			}, calls(0), schema.EndContextOverflow, schema.SourceInferred, RuleMessageText, "an assistant message holding a provider's overflow error"},
		{"overflow in a tool result of the last turn",
			schema.Run{}, []schema.Event{
				{Turn: 0, Seq: 0, Kind: schema.KindToolCall, ToolName: "Task", CallID: "a"},
				{Turn: 1, Seq: 1, Kind: schema.KindToolResult, CallID: "a", Text: `API Error: 400 {"error":{"message":"prompt is too long"}}`},
			}, calls(0), schema.EndContextOverflow, schema.SourceInferred, RuleMessageText, "a tool result holding a provider's overflow error"},
		{"prose about the context window is not an overflow but a final answer",
			schema.Run{}, []schema.Event{
				{Turn: 1, Seq: 0, Kind: schema.KindAssistant, Text: "The context window is 200K tokens, so I read the file in chunks."},
			}, calls(0), schema.EndFinished, schema.SourceInferred, RuleFinalAnswer, "without a tool call (call 1)"},
		{"an overflow message the run went on from does not count",
			schema.Run{}, []schema.Event{
				{Turn: 0, Seq: 0, Kind: schema.KindAssistant, Text: "Error: prompt is too long"},
				{Turn: 1, Seq: 1, Kind: schema.KindAssistant, Text: "Done."},
			}, calls(0), schema.EndFinished, schema.SourceInferred, RuleFinalAnswer, `"Done."`},

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
		// issue 29.5: a known outcome outranks an inference (the margin here)
		{"resolved run whose last call filled the window finished",
			schema.Run{Resolved: ptr(true)}, nil, calls(1000, 960), schema.EndFinished, schema.SourceInferred, RuleOutcome, "resolved"},
		{"unresolved run whose last call filled the window overflowed",
			schema.Run{Resolved: ptr(false)}, nil, calls(1000, 960), schema.EndContextOverflow, schema.SourceInferred, RuleMargin, "96.0%"},

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
// FallbackClassify's names.
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

// runEv builds the events of a run in seq order: each is given the next seq.
func runEv(evs ...schema.Event) []schema.Event {
	for i := range evs {
		evs[i].Seq = int64(i)
	}
	return evs
}

// TestPhantomCall (issue 29, point 1): what follows a run's last model call
// is no call, both ways. The run: call 0 (logged prompt 10,000), call 1
// (logged 38,122) whose tool call prints an 868 KB `git diff`; the diff's
// result (est 217,000 tokens) comes after the last call. Window 200,000.
//
//	as a call, turn 2 would have sent est(2) = 2,000 + 50 + 1,000 + 60 + 217,000
//	  = 220,110 tokens (110.1 %): peak 220,110, 3 calls, margin → overflow
//	without it: calls 0 and 1, peak 38,122 at turn 1 (19.1 %), 2 calls
//
// The other way: the last logged prompt is 192,000 (96.0 %) and the log ends
// on a tool result (est 500); as a call, that turn's estimate (2,000 + 50 +
// 1,000 + 60 + 500 = 3,610, 1.8 %) was the last prompt and the margin rule
// did not apply.
func TestPhantomCall(t *testing.T) {
	const window = 200_000
	diff := func(est int64, diffCmd string) []schema.Event {
		return runEv(
			schema.Event{Turn: 0, Kind: schema.KindUser, Role: "user", EstTokens: 2000, Text: "fix the bug"},
			schema.Event{Turn: 0, Kind: schema.KindToolCall, Role: "assistant", ToolName: "bash", CallID: "a", Args: `{"command":"grep -rn bug ."}`, EstTokens: 50},
			schema.Event{Turn: 1, Kind: schema.KindToolResult, Role: "tool", CallID: "a", EstTokens: 1000, Text: "x.py:3: bug"},
			schema.Event{Turn: 1, Kind: schema.KindToolCall, Role: "assistant", ToolName: "bash", CallID: "b", Args: `{"command":"` + diffCmd + `"}`, EstTokens: 60},
			schema.Event{Turn: 2, Kind: schema.KindToolResult, Role: "tool", CallID: "b", EstTokens: est, Text: "diff --git a/x.py b/x.py"},
		)
	}
	miniSubmit := func(_, _, args string) string {
		if strings.Contains(args, "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT") {
			return "submit"
		}
		return "other"
	}
	tests := []struct {
		name       string
		events     []schema.Event
		usage      []schema.Usage
		classify   ClassifyFunc
		wantCalls  []CallOccupancy
		wantPeak   int64
		wantReason schema.EndReason
		wantRule   string
		wantWhy    string
	}{
		{"a large output after the last call is no prompt",
			diff(217_000, "git diff"), []schema.Usage{{Turn: 0, InputTokens: 10_000}, {Turn: 1, InputTokens: 38_122}}, nil,
			[]CallOccupancy{{0, 10_000, PromptLogged, 0.05}, {1, 38_122, PromptLogged, 0.19061}}, 38_122,
			schema.EndUnknown, RuleImporter, "neither"},
		{"the submission printed after the last call: finished by the submit",
			diff(217_000, "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff --cached"), []schema.Usage{{Turn: 0, InputTokens: 10_000}, {Turn: 1, InputTokens: 38_122}}, miniSubmit,
			[]CallOccupancy{{0, 10_000, PromptLogged, 0.05}, {1, 38_122, PromptLogged, 0.19061}}, 38_122,
			schema.EndFinished, RuleSubmit, "is a submit action"},
		{"a last logged prompt at 96% before a final tool result: the margin applies",
			diff(500, "make test"), []schema.Usage{{Turn: 0, InputTokens: 10_000}, {Turn: 1, InputTokens: 192_000}}, nil,
			[]CallOccupancy{{0, 10_000, PromptLogged, 0.05}, {1, 192_000, PromptLogged, 0.96}}, 192_000,
			schema.EndContextOverflow, RuleMargin, "sent 192000 logged tokens, 96.0% of the 200000-token window"},
		{"without usage the estimates stop at the last call too",
			diff(217_000, "git diff"), nil, nil,
			[]CallOccupancy{{0, 2_000, PromptEstimated, 0.01}, {1, 3_050, PromptEstimated, 0.01525}}, 3_050,
			schema.EndUnknown, RuleImporter, "neither"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := RunWith(schema.Run{RunID: "r"}, tc.events, tc.usage, nil, window, &EndOptions{Classify: tc.classify})
			if diff := cmp.Diff(tc.wantCalls, got.Occupancy.Calls, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			if got.Occupancy.PeakTokens != tc.wantPeak || got.Occupancy.LoggedCalls+got.Occupancy.EstimatedCalls != len(tc.wantCalls) {
				t.Errorf("peak %d over %d+%d calls, want %d over %d", got.Occupancy.PeakTokens, got.Occupancy.LoggedCalls, got.Occupancy.EstimatedCalls, tc.wantPeak, len(tc.wantCalls))
			}
			e := got.End
			if e.Reason != tc.wantReason || e.Source != schema.SourceInferred || e.Rule != tc.wantRule || !strings.Contains(e.Why, tc.wantWhy) {
				t.Errorf("end %+v; want %s by %s, why containing %q", e, tc.wantReason, tc.wantRule, tc.wantWhy)
			}
		})
	}
}

// TestEndReasonOverflowEvidence (issue 29, point 5): overflow text counts
// when shaped as a provider's error, an assistant's own report counts as
// inferred, and a known outcome or submit outranks both.
func TestEndReasonOverflowEvidence(t *testing.T) {
	bareBody := `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 213004 tokens > 200000 maximum"}}`
	pytest := "FAILED tests/test_models.py::test_window - AssertionError: context window for gpt-4 should be 8192\n" +
		"AssertionError: context window for gpt-4 should be 8192\n1 failed, 12 passed in 0.41s"
	toolRun := func(result string) []schema.Event {
		return runEv(
			schema.Event{Turn: 0, Kind: schema.KindUser, Role: "user", Text: "go"},
			schema.Event{Turn: 0, Kind: schema.KindToolCall, Role: "assistant", ToolName: "bash", CallID: "a", Target: "pytest tests/test_models.py"},
			schema.Event{Turn: 1, Kind: schema.KindToolResult, Role: "tool", CallID: "a", Text: result},
		)
	}
	tests := []struct {
		name       string
		run        schema.Run
		events     []schema.Event
		wantReason schema.EndReason
		wantRule   string
		wantWhy    string
	}{
		{"a tool result that is a bare provider error body",
			schema.Run{}, toolRun(bareBody), schema.EndContextOverflow, RuleMessageText, "a tool result holding a provider's overflow error"},
		{"the same body pretty-printed over several lines",
			schema.Run{}, toolRun("{\n  \"type\": \"error\",\n  \"error\": {\n    \"type\": \"invalid_request_error\",\n    \"message\": \"prompt is too long: 213004 tokens > 200000 maximum\"\n  }\n}"),
			schema.EndContextOverflow, RuleMessageText, "provider's overflow error"},
		{"an assistant's own report of a full window",
			schema.Run{}, runEv(
				schema.Event{Turn: 0, Kind: schema.KindToolCall, Role: "assistant", ToolName: "read", CallID: "a"},
				schema.Event{Turn: 1, Kind: schema.KindToolResult, Role: "tool", CallID: "a", Text: "…"},
				schema.Event{Turn: 1, Kind: schema.KindAssistant, Role: "assistant", Text: "I read the remaining modules. I've hit the context window limit, so I'll stop here: the fix is in parser.go"},
			), schema.EndContextOverflow, RuleSelfReport, `says the window is full: "I've hit the context window limit, so I'll stop here: the fix is in parser.go"`},
		{"a pytest AssertionError about a context window is no overflow",
			schema.Run{}, toolRun(pytest), schema.EndUnknown, RuleImporter, "neither"},
		{"nor in a resolved run: the outcome stands",
			schema.Run{Resolved: ptr(true)}, toolRun(pytest), schema.EndFinished, RuleOutcome, "resolved"},
		{"a resolved run outranks even a provider's overflow error",
			schema.Run{Resolved: ptr(true)}, toolRun(bareBody), schema.EndFinished, RuleOutcome, "resolved"},
		{"a submit outranks an overflow error after the last call",
			schema.Run{}, runEv(
				schema.Event{Turn: 0, Kind: schema.KindToolCall, Role: "assistant", ToolName: "submit", CallID: "a"},
				schema.Event{Turn: 1, Kind: schema.KindToolResult, Role: "tool", CallID: "a", Text: "submitted"},
				schema.Event{Turn: 1, Kind: schema.KindError, Role: "system", Text: "context_length_exceeded"},
			), schema.EndFinished, RuleSubmit, `"submit", is a submit action`},
		{"an error event naming only the context window is no overflow",
			schema.Run{}, runEv(
				schema.Event{Turn: 0, Kind: schema.KindToolCall, Role: "assistant", ToolName: "bash", CallID: "a"},
				schema.Event{Turn: 1, Kind: schema.KindError, Role: "system", Text: "context window for gpt-4 should be 8192"},
			), schema.EndUnknown, RuleImporter, "neither"},
		{"a conditional about the limit is no report",
			schema.Run{}, runEv(
				schema.Event{Turn: 0, Kind: schema.KindToolCall, Role: "assistant", ToolName: "read", CallID: "a"},
				schema.Event{Turn: 1, Kind: schema.KindToolResult, Role: "tool", CallID: "a", Text: "…"},
				schema.Event{Turn: 1, Kind: schema.KindAssistant, Role: "assistant", Text: "If I hit the context limit I will summarize first. The fix is done."},
			), schema.EndFinished, RuleFinalAnswer, "without a tool call"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := EndReason(tc.run, tc.events, RunOccupancy{Calls: []CallOccupancy{{Call: 0}, {Call: 1}}})
			if got.Reason != tc.wantReason || got.Source != schema.SourceInferred || got.Rule != tc.wantRule || !strings.Contains(got.Why, tc.wantWhy) {
				t.Errorf("EndReason = %+v; want %s (inferred) by %s, why containing %q", got, tc.wantReason, tc.wantRule, tc.wantWhy)
			}
		})
	}
}

// TestEndReasonReaderEnds (issue 29, point 6): the end a reader of these
// logs agrees with. The window is 200,000; prompts are logged per call.
func TestEndReasonReaderEnds(t *testing.T) {
	const window = 200_000
	piFinished := schema.Run{Harness: "pi", EndReason: schema.EndFinished, EndReasonSource: schema.SourceInferred, EndReasonDetail: "log ends on an assistant reply without a tool call"}
	// reply ends the run on an assistant text after one tool round
	reply := func(text string) []schema.Event {
		return runEv(
			schema.Event{Turn: 0, Kind: schema.KindUser, Role: "user", Text: "update the schema"},
			schema.Event{Turn: 0, Kind: schema.KindReasoning, Role: "assistant", Text: "plan"},
			schema.Event{Turn: 0, Kind: schema.KindToolCall, Role: "assistant", ToolName: "shell", CallID: "a", Args: `{"command":["bash","-lc","git push"]}`},
			schema.Event{Turn: 1, Kind: schema.KindToolResult, Role: "tool", CallID: "a", Text: "pushed"},
			schema.Event{Turn: 1, Kind: schema.KindAssistant, Role: "assistant", Text: text},
		)
	}
	usage := func(last int64) []schema.Usage {
		return []schema.Usage{{Turn: 0, InputTokens: 20_000}, {Turn: 1, InputTokens: last}}
	}
	cut := "The migration is in place and the tests pass. Next I will update the"
	tests := []struct {
		name       string
		run        schema.Run
		events     []schema.Event
		usage      []schema.Usage
		wantReason schema.EndReason
		wantRule   string
		wantWhy    string
	}{
		{"OpenHands: the final summary, then awaiting_user_input (not an event)",
			schema.Run{Harness: "openhands"}, runEv(
				schema.Event{Turn: 0, Kind: schema.KindUser, Role: "user", Text: "fix the failing test"},
				schema.Event{Turn: 0, Kind: schema.KindToolCall, Role: "assistant", ToolName: "str_replace_editor", CallID: "1", Args: `{"command":"str_replace","path":"/w/a.py"}`},
				schema.Event{Turn: 1, Kind: schema.KindToolResult, Role: "tool", CallID: "1", Text: "The file /w/a.py has been edited."},
				schema.Event{Turn: 1, Kind: schema.KindAssistant, Role: "assistant", Text: "I fixed the off-by-one in a.py; the test passes now. Let me know if you need anything else."},
			), usage(31_000), schema.EndFinished, RuleFinalAnswer, "(call 1)"},
		{"Codex: the rollout ends on the final answer",
			schema.Run{Harness: "codex"}, reply("Branch `fix/team` is pushed; GitHub suggests a PR at https://github.com/o/r/pull/new/fix/team."),
			usage(61_000), schema.EndFinished, RuleFinalAnswer, "without a tool call (call 1)"},
		{"pydantic-ai: the final_result output tool is a submit",
			schema.Run{Harness: "pydantic-ai"}, runEv(
				schema.Event{Turn: 0, Kind: schema.KindUser, Role: "user", Text: "What is the capital of France?"},
				schema.Event{Turn: 0, Kind: schema.KindToolCall, Role: "assistant", ToolName: "final_result", CallID: "c1", Args: `{"city":"Paris"}`},
				schema.Event{Turn: 1, Kind: schema.KindToolResult, Role: "tool", CallID: "c1", Text: "Final result processed."},
			), []schema.Usage{{Turn: 0, InputTokens: 120}}, schema.EndFinished, RuleSubmit, `"final_result", is a submit action`},
		{"pi: the last reply cut mid-sentence at 88.8% is not finished",
			piFinished, reply(cut), usage(177_600), schema.EndUnknown, RuleCutReply,
			`stops mid-sentence ("…Next I will update the") with the last prompt at 88.8% of the 200000-token window (≥ 80%)`},
		{"the same reply closed by a full stop is a final answer",
			piFinished, reply(cut + " docs."), usage(177_600), schema.EndFinished, RuleFinalAnswer, "without a tool call"},
		{"the same cut reply far from a full window reads as a final answer",
			piFinished, reply(cut), usage(100_000), schema.EndFinished, RuleFinalAnswer, "without a tool call"},
		{"a reply that stops inside a code block is cut",
			schema.Run{Harness: "claude-code"}, reply("Run it with:\n\n```bash\ngo test ./"), usage(40_000), schema.EndUnknown, RuleCutReply, "stops inside a code block"},
		{"a reply with a tool call is no final answer",
			schema.Run{}, runEv(
				schema.Event{Turn: 0, Kind: schema.KindToolCall, Role: "assistant", ToolName: "read", CallID: "a"},
				schema.Event{Turn: 1, Kind: schema.KindToolResult, Role: "tool", CallID: "a", Text: "…"},
				schema.Event{Turn: 1, Kind: schema.KindAssistant, Role: "assistant", Text: "Now the tests."},
				schema.Event{Turn: 1, Kind: schema.KindToolCall, Role: "assistant", ToolName: "bash", CallID: "b"},
			), usage(30_000), schema.EndUnknown, RuleImporter, "neither"},
		{"a user message after the reply went unanswered",
			schema.Run{}, runEv(
				schema.Event{Turn: 0, Kind: schema.KindUser, Role: "user", Text: "hi"},
				schema.Event{Turn: 0, Kind: schema.KindAssistant, Role: "assistant", Text: "Hello! How can I help?"},
				schema.Event{Turn: 1, Kind: schema.KindUser, Role: "user", Text: "Add a goodbye function"},
			), []schema.Usage{{Turn: 0, InputTokens: 900}}, schema.EndUnknown, RuleImporter, "neither"},
		{"τ-bench: the simulated user's ###STOP### closes the conversation",
			schema.Run{}, runEv(
				schema.Event{Turn: 0, Kind: schema.KindUser, Role: "user", Text: "book a flight"},
				schema.Event{Turn: 0, Kind: schema.KindAssistant, Role: "assistant", Text: "Your reservation HATHAT is booked."},
				schema.Event{Turn: 1, Kind: schema.KindUser, Role: "user", Text: " ###STOP###"},
			), []schema.Usage{{Turn: 0, InputTokens: 9_000}}, schema.EndFinished, RuleFinalAnswer, "HATHAT"},
		{"pi: a command the user ran after the reply is not a request",
			schema.Run{}, runEv(
				schema.Event{Turn: 0, Kind: schema.KindUser, Role: "user", Text: "ok"},
				schema.Event{Turn: 0, Kind: schema.KindAssistant, Role: "assistant", Text: "👍"},
				schema.Event{Turn: 1, Kind: schema.KindUser, Role: "bashExecution", Text: "$ find ."},
			), []schema.Usage{{Turn: 0, InputTokens: 167_988}}, schema.EndFinished, RuleFinalAnswer, "👍"},
		{"a commit the user asked more after is not the run's submit",
			schema.Run{}, runEv(
				schema.Event{Turn: 0, Kind: schema.KindToolCall, Role: "assistant", ToolName: "submit", CallID: "a"},
				schema.Event{Turn: 1, Kind: schema.KindToolResult, Role: "tool", CallID: "a", Text: "[main abc1234] done"},
				schema.Event{Turn: 1, Kind: schema.KindUser, Role: "user", Text: "what did I just run?"},
				schema.Event{Turn: 1, Kind: schema.KindAssistant, Role: "assistant", Text: "You ran `ls`."},
			), usage(30_000), schema.EndFinished, RuleFinalAnswer, "You ran"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := RunWith(tc.run, tc.events, tc.usage, nil, window, nil).End
			if got.Reason != tc.wantReason || got.Source != schema.SourceInferred || got.Rule != tc.wantRule || !strings.Contains(got.Why, tc.wantWhy) {
				t.Errorf("end = %+v; want %s (inferred) by %s, why containing %q", got, tc.wantReason, tc.wantRule, tc.wantWhy)
			}
		})
	}
}

// TestEndRulesDocumented: every rule is named, in order, in EndReasonWith's
// doc (the numbered list) and in the end_rule column's doc of diag_runs.
func TestEndRulesDocumented(t *testing.T) {
	src, err := os.ReadFile("endreason.go")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(src)
	doc = doc[strings.Index(doc, "// EndReasonWith decides"):strings.Index(doc, "func EndReasonWith")]
	at := 0
	for i, r := range EndRules {
		item := fmt.Sprintf("//  %d. ", i+1)
		k := strings.Index(doc[at:], item)
		if k < 0 {
			t.Fatalf("rule %d (%s): no item %q after the previous one", i+1, r, item)
		}
		at += k
		next := len(doc)
		if n := strings.Index(doc[at+len(item):], fmt.Sprintf("//  %d. ", i+2)); n >= 0 {
			next = at + len(item) + n
		}
		name := map[string]string{RuleLog: "RuleLog", RuleSubmit: "RuleSubmit", RuleOutcome: "RuleOutcome", RuleErrorText: "RuleErrorText",
			RuleMessageText: "RuleMessageText", RuleSelfReport: "RuleSelfReport", RuleMargin: "RuleMargin", RuleCutReply: "RuleCutReply",
			RuleFinalAnswer: "RuleFinalAnswer", RuleStall: "RuleStall", RuleImporter: "RuleImporter"}[r]
		if !strings.Contains(doc[at:next], name) {
			t.Errorf("doc item %d does not name %s", i+1, name)
		}
	}
	var col string
	for _, c := range schema.DiagRuns.Columns {
		if c.Name == "end_rule" {
			col = c.Doc
		}
	}
	for _, r := range EndRules {
		if !strings.Contains(col, r) {
			t.Errorf("diag_runs.end_rule's doc %q does not name rule %s", col, r)
		}
	}
}
