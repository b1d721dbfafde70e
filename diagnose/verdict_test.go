package diagnose

import (
	"strings"
	"testing"

	"github.com/trajmine/trajmine/schema"
)

func TestVerdictClauses(t *testing.T) {
	// ten runs: reading stops at 23 (×5, n=10: F1 = 5/10 = 50%), five finished at 30
	var ten []BoundaryRun
	for range 5 {
		ten = append(ten, BoundaryRun{Call: 23, Event: true}, BoundaryRun{Call: 30, Finished: true})
	}
	// five runs: two censored at 5, one stops while reading at 10 (3 at
	// risk: F1 = 1/3), two finish at 20; observed: 1 of 5 (20.0%)
	early := []BoundaryRun{{Call: 5}, {Call: 5}, {Call: 10, Event: true}, {Call: 20, Finished: true}, {Call: 20, Finished: true}}
	for _, tc := range []struct {
		runs []BoundaryRun
		want string
	}{
		{ten, "reading boundary at call 23 (stopping while reading: cumulative incidence 50.0% by then, 5 of 10 runs observed)"},
		// F1(23) = 1/2 but over 2 runs
		{[]BoundaryRun{{Call: 23, Event: true}, {Call: 30}},
			"no reading boundary stated (stopping while reading: cumulative incidence 50.0% by call 23, but over 2 runs, fewer than 10)"},
		// F1(30) = 1/3: the finished runs compete
		{[]BoundaryRun{{Call: 30, Event: true}, {Call: 50, Finished: true}, {Call: 40, Finished: true}},
			"no reading boundary (stopping while reading: cumulative incidence 33.3%, 1 of 3 runs (33.3%) observed; 50.0% needed)"},
		// the incidence (33.3%) is not the share observed (20.0%): the runs censored at 5 count only to 5
		{early, "no reading boundary (stopping while reading: cumulative incidence 33.3%, 1 of 5 runs (20.0%) observed; 50.0% needed)"},
		{nil, "no reading boundary (no unfinished run stopped while reading)"},
	} {
		if got := BoundaryClause(Boundary(tc.runs)); got != tc.want {
			t.Errorf("boundary clause = %q, want %q", got, tc.want)
		}
	}
	for _, tc := range []struct {
		v    Verdict
		want string
	}{
		{Verdict{TopRentTool: "read_file", TopRentShare: 0.38}, "read_file's outputs are 38.0% of the tokens carried into later calls"},
		{Verdict{}, "no tool output was carried into a later call"},
		{Verdict{TopRentTool: "bash", TopRentShare: 0.5, SystemPromptShare: 0.12, ToolDefinitionsShare: 0.05},
			"bash's outputs are 50.0% of the tokens carried into later calls; the system prompt 12.0%, tool definitions 5.0%"},
		{Verdict{TopRentTool: "bash", TopRentShare: 0.9, SystemPromptShare: 0.1}, "bash's outputs are 90.0% of the tokens carried into later calls; the system prompt 10.0%"},
		{Verdict{ToolDefinitionsShare: 1}, "no tool output was carried into a later call; of the tokens carried, tool definitions 100.0%"},
	} {
		if got := rentClause(tc.v); got != tc.want {
			t.Errorf("rent clause = %q, want %q", got, tc.want)
		}
	}
}

func TestVerdictWhatIf(t *testing.T) {
	dies := &WindowDeath{Window: 32_000, OwnWindow: 1_048_576, Call: 3, Prompt: 40_000}
	fits := &WindowDeath{Window: 32_000, OwnWindow: 1_048_576, Call: -1}
	ended := End{Reason: schema.EndContextOverflow, Source: "explicit"}
	run := func(w *WindowDeath, e End) RunDiagnosis {
		return RunDiagnosis{RunResult: RunResult{Occupancy: RunOccupancy{Window: 32_000}, End: e, WhatIf: w}}
	}
	for _, tc := range []struct {
		name                 string
		runs                 []RunDiagnosis
		window, below, death int
		text                 string
	}{
		// five runs: two die at 32,000, two fit, one ended on window length in its log
		// (counted in WindowEnds, not again as a death at the window)
		{"below every run's window", []RunDiagnosis{run(dies, End{}), run(dies, End{}), run(fits, End{}), run(fits, End{}), run(dies, ended)}, 32_000, 5, 2,
			"at --window 32,000 (below every run's own window) 2 of the 4 runs that did not end on window length would have died: a logged prompt plus its output exceeds 32,000 tokens, though the log went on past it " +
				"(trajmine simulate --window 32000 replays which policy carries them to their logged end; what the agents would have done after it is unknown)"},
		// a run whose own window is 32,000 or less has no what-if
		{"below some", []RunDiagnosis{run(fits, End{}), run(nil, End{})}, 32_000, 1, 0,
			"at --window 32,000 (below the own windows of 1 run) no run that did not end on window length would have died: every logged prompt plus its output fits"},
		{"no --window", []RunDiagnosis{run(nil, End{})}, 0, 0, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := VerdictOf(tc.runs)
			if v.WhatIfWindow != int64(tc.window) || v.WhatIfRuns != tc.below || v.WindowDeaths != tc.death {
				t.Errorf("what-if window %d over %d runs, %d deaths; want %d, %d, %d", v.WhatIfWindow, v.WhatIfRuns, v.WindowDeaths, tc.window, tc.below, tc.death)
			}
			text := ""
			if v.WhatIfRuns > 0 {
				text = WhatIfText(v)
			}
			if text != tc.text {
				t.Errorf("text\n%q\nwant\n%q", text, tc.text)
			}
			d := Summary{Verdict: v}
			if got := d.VerdictText(); tc.text != "" && !strings.Contains(got, "\n"+tc.text+"\n") {
				t.Errorf("VerdictText lacks the what-if line:\n%s", got)
			}
		})
	}
}
