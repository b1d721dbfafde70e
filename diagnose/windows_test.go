package diagnose

import (
	"reflect"
	"testing"

	"github.com/trajmine/trajmine/schema"
)

func TestWindow(t *testing.T) {
	logged := int64(1_000_000)
	zero := int64(0)
	tests := []struct {
		name       string
		run        schema.Run
		override   int64
		wantTokens int64
		wantSource string
	}{
		{"flag beats log and table", schema.Run{ModelFamily: "claude-sonnet-4", WindowTokens: &logged}, 50_000, 50_000, WindowFromFlag},
		{"log beats table", schema.Run{ModelFamily: "claude-sonnet-4", WindowTokens: &logged}, 0, 1_000_000, WindowFromLog},
		{"table by family", schema.Run{ModelFamily: "claude-sonnet-4"}, 0, 200_000, WindowFromTable},
		{"zero logged window falls through", schema.Run{ModelFamily: "gpt-5", WindowTokens: &zero}, 0, 400_000, WindowFromTable},
		{"gpt-4.1", schema.Run{ModelFamily: "gpt-4.1"}, 0, 1_047_576, WindowFromTable},
		{"gemini-2.5-pro", schema.Run{ModelFamily: "gemini-2.5-pro"}, 0, 1_048_576, WindowFromTable},
		{"unknown family", schema.Run{ModelFamily: "my-local-model"}, 0, 0, WindowUnknown},
		{"negative override ignored", schema.Run{ModelFamily: "gpt-4o"}, -1, 128_000, WindowFromTable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tokens, source := Window(tc.run, tc.override)
			if tokens != tc.wantTokens || source != tc.wantSource {
				t.Errorf("Window = %d, %q; want %d, %q", tokens, source, tc.wantTokens, tc.wantSource)
			}
		})
	}
}

func TestKnownWindowsArePositive(t *testing.T) {
	for fam, w := range knownWindows {
		if w <= 0 {
			t.Errorf("%s: window %d", fam, w)
		}
	}
}

func TestWindowWhatIf(t *testing.T) {
	own := int64(200_000)
	logged := schema.Run{RunID: "r", ModelFamily: "claude-sonnet-4", WindowTokens: &own}
	// prompts 10,000, 31,950 and 40,000 at turns 0, 1, 2; outputs 50, 100, 50
	occ := RunOccupancy{Calls: []CallOccupancy{{Call: 0, Prompt: 10_000}, {Call: 1, Prompt: 31_950}, {Call: 2, Prompt: 40_000}}}
	usage := []schema.Usage{{Turn: 0, InputTokens: 10_000, OutputTokens: 50}, {Turn: 1, InputTokens: 31_950, OutputTokens: 100}, {Turn: 2, InputTokens: 40_000, OutputTokens: 50}}
	estimated := []schema.Usage{{Turn: 1, OutputTokens: 100, Estimated: true}}
	for _, tc := range []struct {
		name   string
		run    schema.Run
		usage  []schema.Usage
		window int64
		want   *WindowDeath
	}{
		{"no --window", logged, usage, 0, nil},
		{"the run's own window", logged, usage, 200_000, nil},
		{"above it", logged, usage, 400_000, nil},
		// 31,950 + 100 = 32,050 > 32,000: the call's output counts
		{"below it: dies at the first call over", logged, usage, 32_000, &WindowDeath{Window: 32_000, OwnWindow: 200_000, Call: 1, Prompt: 31_950, Output: 100}},
		// an estimated usage row gives no output: 31,950 fits, 40,000 does not
		{"an estimated row's output is not the log's", logged, estimated, 32_000, &WindowDeath{Window: 32_000, OwnWindow: 200_000, Call: 2, Prompt: 40_000}},
		{"every call fits", logged, usage, 100_000, &WindowDeath{Window: 100_000, OwnWindow: 200_000, Call: -1}},
		// the own window from the table
		{"table window", schema.Run{ModelFamily: "gemini-3-pro"}, usage, 32_000, &WindowDeath{Window: 32_000, OwnWindow: 1_048_576, Call: 1, Prompt: 31_950, Output: 100}},
		// unknown: the run sent its prompts, so it ran at a larger window
		{"own window unknown", schema.Run{ModelFamily: "my-local-model"}, usage, 32_000, &WindowDeath{Window: 32_000, Call: 1, Prompt: 31_950, Output: 100}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := WindowWhatIf(tc.run, tc.usage, occ, tc.window)
			if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
				t.Errorf("WindowWhatIf = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestRunWithWhatIfEnd: how a run ended is the window it ran at's. A Codex
// run (own window 400,000 from the table) ends on a final answer after
// calls of 20,000 and 61,000 logged tokens. At --window 64,000, below its
// own, 61,000 is 95.3 % of the window, but the run did not end on window
// length: the end is inferred at 400,000 (15.3 %, a final answer), and the
// what-if says it dies at 64,000 at turn 1 (61,000 + 5,000 output >
// 64,000). A run with no known window takes --window as its window, as
// before: the margin rule applies (ended on window length, no what-if
// death counted apart).
func TestRunWithWhatIfEnd(t *testing.T) {
	evs := runEv(
		schema.Event{Turn: 0, Kind: schema.KindUser, Role: "user", Text: "update the schema"},
		schema.Event{Turn: 0, Kind: schema.KindToolCall, Role: "assistant", ToolName: "shell", CallID: "a", Args: `{"command":["bash","-lc","git push"]}`},
		schema.Event{Turn: 1, Kind: schema.KindToolResult, Role: "tool", CallID: "a", Text: "pushed"},
		schema.Event{Turn: 1, Kind: schema.KindAssistant, Role: "assistant", Text: "Branch `fix/team` is pushed."},
	)
	usage := []schema.Usage{{Turn: 0, InputTokens: 20_000, OutputTokens: 100}, {Turn: 1, InputTokens: 61_000, OutputTokens: 5_000}}
	for _, tc := range []struct {
		name   string
		run    schema.Run
		window int64
		reason schema.EndReason
		rule   string
		share  float64 // the last call's share of the reported window
		whatIf *WindowDeath
	}{
		{"own window", schema.Run{Harness: "codex", ModelFamily: "gpt-5"}, 0, schema.EndFinished, RuleFinalAnswer, 61_000.0 / 400_000, nil},
		{"what-if below it", schema.Run{Harness: "codex", ModelFamily: "gpt-5"}, 64_000, schema.EndFinished, RuleFinalAnswer, 61_000.0 / 64_000,
			&WindowDeath{Window: 64_000, OwnWindow: 400_000, Call: 1, Prompt: 61_000, Output: 5_000}},
		{"no known window", schema.Run{Harness: "codex", ModelFamily: "my-local-model"}, 64_000, schema.EndContextOverflow, RuleMargin, 61_000.0 / 64_000,
			&WindowDeath{Window: 64_000, Call: 1, Prompt: 61_000, Output: 5_000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := RunWith(tc.run, evs, usage, nil, tc.window, nil)
			last, _ := r.Occupancy.Last()
			if r.End.Reason != tc.reason || r.End.Rule != tc.rule || last.Share != tc.share {
				t.Errorf("end %s by %s (%s), last share %v; want %s by %s, %v", r.End.Reason, r.End.Rule, r.End.Why, last.Share, tc.reason, tc.rule, tc.share)
			}
			if (r.WhatIf == nil) != (tc.whatIf == nil) || r.WhatIf != nil && *r.WhatIf != *tc.whatIf {
				t.Errorf("what-if %+v, want %+v", r.WhatIf, tc.whatIf)
			}
		})
	}
	// at() is Occupancy at the other window
	occ := Occupancy(schema.Run{}, evs, usage, nil, 64_000)
	if got, want := occ.at(400_000), Occupancy(schema.Run{}, evs, usage, nil, 400_000); !reflect.DeepEqual(got, want) {
		t.Errorf("at(400,000) = %+v, want %+v", got, want)
	}
}
