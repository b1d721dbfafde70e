package simulate

import (
	"testing"
)

// windowRun is a hand-built run for the window what-if: a 10,000-token task
// (the head; no hidden prefix, no output), then call t's 0-token read tool
// call whose result of results[t] tokens the next call first sees. So call
// t's prompt is 10,000 + Σ results[<t], and a call overflows a window N when
// its prompt exceeds N. own is the run's own (logged) window; the log
// finished.
func windowRun(id string, own int64, results ...int32) *Trace {
	tr := &Trace{RunID: id, Window: own, NCalls: len(results), Finished: true}
	tr.Items = append(tr.Items, Item{Seq: 0, Since: 0, Kind: ItemUser, Head: true, Call: -1, Tokens: 10_000, Chars: 40_000})
	for t, r := range results {
		call := int32(len(tr.Items))
		tr.Items = append(tr.Items,
			Item{Seq: int64(2*t + 1), Since: int32(t + 1), Kind: ItemToolCall, Class: ClassRead, Call: -1, Tool: "read_file"},
			Item{Seq: int64(2*t + 2), Since: int32(t + 1), Kind: ItemToolResult, Class: ClassRead, Call: call, Tokens: r, Chars: 4 * r, Tool: "read_file"})
	}
	tr.Finalize()
	return tr
}

// capPolicy drops the oldest tool results, never the newest one admitted,
// until the prompt is at most max tokens: a policy that keeps prompts
// under a cap where it can.
type capPolicy struct{ max int64 }

func (p capPolicy) Name() string { return "cap" }
func (capPolicy) Reset(*Sim)     {}
func (p capPolicy) Before(_ int, s *Sim) {
	newest := int32(-1)
	for i := range s.Tr.Items {
		if s.Admitted(int32(i)) && s.Tr.Items[i].Kind == ItemToolResult {
			newest = int32(i)
		}
	}
	for i := int32(0); i < newest && s.Prompt() > p.max; i++ {
		if s.Admitted(i) && s.Tr.Items[i].Kind == ItemToolResult && s.Mode(i) != Dropped {
			s.Drop(i)
		}
	}
}

// TestWindowWhatIf replays five finished runs whose largest logged prompts
// are 10k, 20k, 40k, 50k and 90k tokens (own window 1,048,576) at a window
// of 32,000. Computed by hand (a call overflows when its prompt exceeds
// 32,000; nothing is output):
//
//   - what ran (as-logged, = keep-all here: nothing was compacted): "40k"
//     (prompts 10k, 20k, 30k, 40k) and "50k" (… 40k, 50k) die at call 3,
//     "90k" (10k, then 10k + its 80k result) at call 1: 3 of 5 runs, each
//     lost because the window is below the one it ran at (LossWindow);
//   - cap (30,000): "40k" at call 3 drops call 0's result: 30k; "50k" also,
//     then at call 4 drops call 1's: 30k. Both are carried to their logged
//     end (saved). "90k"'s call 1 holds only its newest result, 80k: it
//     still overflows there (dead under both, neither saved nor lost);
//   - truncate (provider truncation at the window) drops the oldest items
//     until the call fits: "40k" and "50k" as cap does, and "90k" by
//     dropping call 0's tool call and its 80k result (10k): 3 saved.
//
// At the runs' own window nothing overflows: nothing dies, nothing is
// saved.
func TestWindowWhatIf(t *testing.T) {
	const own = 1_048_576
	runs := []*Trace{
		windowRun("10k", own, 10_000),
		windowRun("20k", own, 10_000, 10_000),
		windowRun("40k", own, 10_000, 10_000, 10_000, 10_000),
		windowRun("50k", own, 10_000, 10_000, 10_000, 10_000, 10_000),
		windowRun("90k", own, 80_000, 10_000),
	}
	type want struct {
		status   Status
		overflow int // OverflowCall
		loss     Loss
		saved    bool
	}
	dead3 := func(id string) Loss {
		if id == "40k" || id == "50k" || id == "90k" {
			return LossWindow
		}
		return LossNone
	}
	for _, tc := range []struct {
		name   string
		policy Policy
		window Window
		want   map[string]want
		agg    [6]int // as-logged overflow, of them at the window, saved, of them at the window, overflow, lost
	}{
		{name: "as-logged at 32,000", policy: mustParse(t, "as-logged"), window: 32_000,
			want: map[string]want{"10k": {Survived, -1, "", false}, "20k": {Survived, -1, "", false},
				"40k": {Overflow, 3, LossWindow, false}, "50k": {Overflow, 3, LossWindow, false}, "90k": {Overflow, 1, LossWindow, false}},
			agg: [6]int{3, 3, 0, 0, 3, 0}},
		{name: "keep-all at 32,000", policy: mustParse(t, "keep-all"), window: 32_000,
			want: map[string]want{"10k": {Survived, -1, "", false}, "20k": {Survived, -1, "", false},
				"40k": {Overflow, 3, LossWindow, false}, "50k": {Overflow, 3, LossWindow, false}, "90k": {Overflow, 1, LossWindow, false}},
			agg: [6]int{3, 3, 0, 0, 3, 0}},
		{name: "cap 30,000 at 32,000", policy: capPolicy{max: 30_000}, window: 32_000,
			want: map[string]want{"10k": {Survived, -1, "", false}, "20k": {Survived, -1, "", false},
				"40k": {Survived, -1, LossWindow, true}, "50k": {Survived, -1, LossWindow, true}, "90k": {Overflow, 1, LossWindow, false}},
			agg: [6]int{3, 3, 2, 2, 1, 0}},
		{name: "truncate at 32,000", policy: mustParse(t, "truncate"), window: 32_000,
			want: map[string]want{"10k": {Survived, -1, "", false}, "20k": {Survived, -1, "", false},
				"40k": {Survived, -1, LossWindow, true}, "50k": {Survived, -1, LossWindow, true}, "90k": {Survived, -1, LossWindow, true}},
			agg: [6]int{3, 3, 3, 3, 0, 0}},
		{name: "cap at the runs' own window", policy: capPolicy{max: 30_000}, window: 0,
			want: map[string]want{"10k": {Survived, -1, "", false}, "20k": {Survived, -1, "", false},
				"40k": {Survived, -1, "", false}, "50k": {Survived, -1, "", false}, "90k": {Survived, -1, "", false}},
			agg: [6]int{0, 0, 0, 0, 0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rp Replayer
			var rows []Row
			for _, tr := range runs {
				r := rp.Replay(tr, tc.policy, Options{Window: tc.window})
				w := tc.want[tr.RunID]
				if r.Status != w.status || r.OverflowCall != w.overflow || r.BaselineLoss != w.loss || r.BaselineOverflow != (w.loss != LossNone) || r.Saved != w.saved || r.Lost {
					t.Errorf("%s: status %s at call %d, loss %q (baseline overflow %v), saved %v, lost %v; want %s at %d, loss %q, saved %v, not lost",
						tr.RunID, r.Status, r.OverflowCall, r.BaselineLoss, r.BaselineOverflow, r.Saved, r.Lost, w.status, w.overflow, w.loss, w.saved)
				}
				if tc.window > 0 && r.BaselineLoss != dead3(tr.RunID) {
					t.Errorf("%s: loss %q at %d, want %q", tr.RunID, r.BaselineLoss, tc.window, dead3(tr.RunID))
				}
				rows = append(rows, Row{RunResult: r})
			}
			a := Aggregate(rows, AggOptions{Bootstrap: 10})[0]
			got := [6]int{a.BaselineOverflow, a.BaselineOverflowAtWindow, a.Saved, a.SavedAtWindow, a.Overflow, a.Lost}
			if got != tc.agg || a.Runs != 5 {
				t.Errorf("aggregate over %d runs: as-logged overflow %d (at the window %d), saved %d (at the window %d), overflow %d, lost %d; want %v",
					a.Runs, got[0], got[1], got[2], got[3], got[4], got[5], tc.agg)
			}
		})
	}
}

// TestWindowWhatIfOtherLogs: the rule at a window below a run's own window
// for the other kinds of log, by hand on windowRun's 40k run (prompts 10k,
// 20k, 30k, 40k) under cap (30,000: 10k, 20k, 30k, 30k).
//
//   - Own window unknown (0): the log shows the run sent a 40k prompt, so
//     it ran at a larger window than 32,000: as with a known one, what ran
//     dies at call 3 (LossWindow), cap saves it.
//   - A log that ended on window length at its own 40,000 (unfinished):
//     today's meaning (LossLogged) at its own window and below it. At
//     40,000 as-logged's replayed prompts fit (40k is not over 40,000) and
//     only the log's end says it died; cap frees room at the last call
//     (30k < 40k): saved, censored. At 32,000 as-logged overflows at call
//     3 and cap gets through: saved, censored. keep-all ends as the log did
//     at 40,000 (an overflow at the last call, the log's own) and at call 3
//     at 32,000: never saved, never lost.
//   - The same log with an own window of 50,000, at 45,000: below it, but
//     every as-logged prompt fits; the log's end still says the run died
//     (a smaller window than the one it died at): LossLogged. keep-all
//     ends as the log did (not lost, as it was before issue 27.5: lost
//     where what ran died too); cap frees room at the last call: saved.
//   - A finished run whose own window is 32,000: at it (and above) nothing
//     the log shows died, so nothing is lost under what ran or saved,
//     although the replayed 40k prompt exceeds it (the token model's
//     estimate of a prompt the run sent): keep-all overflows with as-logged,
//     not lost.
func TestWindowWhatIfOtherLogs(t *testing.T) {
	unknown := windowRun("unknown", 0, 10_000, 10_000, 10_000, 10_000)
	ended := windowRun("ended", 40_000, 10_000, 10_000, 10_000, 10_000)
	ended.Finished, ended.WindowEnd = false, true
	ended.Finalize()
	ended50 := windowRun("ended50", 50_000, 10_000, 10_000, 10_000, 10_000)
	ended50.Finished, ended50.WindowEnd = false, true
	ended50.Finalize()
	small := windowRun("small", 32_000, 10_000, 10_000, 10_000, 10_000)
	capP, ka := capPolicy{max: 30_000}, mustParse(t, "keep-all")
	for _, tc := range []struct {
		name     string
		tr       *Trace
		p        Policy
		window   Window
		status   Status
		overflow int
		logged   bool // OverflowLogged
		loss     Loss
		saved    bool
		lost     bool
	}{
		{"unknown own window, cap", unknown, capP, 32_000, Survived, -1, false, LossWindow, true, false},
		{"unknown own window, keep-all", unknown, ka, 32_000, Overflow, 3, false, LossWindow, false, false},
		{"unknown own window, own (unbounded)", unknown, capP, 0, Survived, -1, false, LossNone, false, false},
		{"ended on window length, cap at its own window", ended, capP, 0, Censored, -1, false, LossLogged, true, false},
		{"ended on window length, keep-all at its own window", ended, ka, 0, Overflow, 3, true, LossLogged, false, false},
		{"ended on window length, cap below its window", ended, capP, 32_000, Censored, -1, false, LossLogged, true, false},
		{"ended on window length, keep-all below its window", ended, ka, 32_000, Overflow, 3, false, LossLogged, false, false},
		{"ended on window length at 50,000, keep-all at 45,000", ended50, ka, 45_000, Overflow, 3, true, LossLogged, false, false},
		{"ended on window length at 50,000, cap at 45,000", ended50, capP, 45_000, Censored, -1, false, LossLogged, true, false},
		{"finished at its own 32,000, cap", small, capP, 32_000, Survived, -1, false, LossNone, false, false},
		{"finished at its own 32,000, keep-all", small, ka, 0, Overflow, 3, false, LossNone, false, false},
		{"finished, window above its own", small, ka, 64_000, Survived, -1, false, LossNone, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rp Replayer
			r := rp.Replay(tc.tr, tc.p, Options{Window: tc.window})
			if r.Status != tc.status || r.OverflowCall != tc.overflow || r.OverflowLogged != tc.logged || r.BaselineLoss != tc.loss ||
				r.BaselineOverflow != (tc.loss != LossNone) || r.Saved != tc.saved || r.Lost != tc.lost {
				t.Errorf("status %s at call %d (logged %v), loss %q, saved %v, lost %v; want %s at %d (logged %v), loss %q, saved %v, lost %v",
					r.Status, r.OverflowCall, r.OverflowLogged, r.BaselineLoss, r.Saved, r.Lost, tc.status, tc.overflow, tc.logged, tc.loss, tc.saved, tc.lost)
			}
		})
	}
}
