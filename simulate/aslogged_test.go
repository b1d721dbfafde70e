package simulate

import (
	"slices"
	"testing"
)

// compactedLadder is the ladder of policies_test.go (keep-all prompts 150,
// 260, 470, 780, 1190, 1700) whose harness compacted before call 3: the
// seven items call 3 first sees (the 50-token task and calls 0–2's tool
// calls and results, indexes 0–6) become a summary of summary tokens
// (-1: the summary-size model).
func compactedLadder(summary int64) *Trace {
	tr := ladder(100, 200, 300, 400, 500, 600)
	tr.Compactions = []Compaction{{Call: 3, Upto: 7, Summary: summary}}
	tr.FirstCompaction = 3
	tr.Finalize()
	return tr
}

// TestAsLoggedPrompts checks the as-logged replay against hand-computed
// prompts. With a logged 60-token summary: calls 0–2 as keep-all (150,
// 260, 470); call 3 = prefix 100 + summary 60 = 160; call 4 = 160 + call 3's
// tool call 10 + result 400 = 570; call 5 = 570 + 10 + 500 = 1080. With no
// logged size, the summary is clamp(300 + 0.015 × 680, 200, 20000) = 310
// (680 = 50 + 10 + 100 + 10 + 200 + 10 + 300 summarized): 410, 820, 1330.
func TestAsLoggedPrompts(t *testing.T) {
	for _, tc := range []struct {
		name    string
		summary int64
		want    []int64
	}{
		{"logged size", 60, []int64{150, 260, 470, 160, 570, 1080}},
		{"modelled size", -1, []int64{150, 260, 470, 410, 820, 1330}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := compactedLadder(tc.summary)
			if got := AsLogged(tr); !slices.Equal(got, tc.want) {
				t.Errorf("as-logged prompts %v, want %v", got, tc.want)
			}
			// the catalog policy replays the same prompts
			var calls []CallResult
			var rp Replayer
			rp.Replay(tr, mustParse(t, "as-logged"), Options{Window: Unbounded, Calls: &calls})
			for i, c := range calls {
				if c.PromptTokens != tc.want[i] {
					t.Errorf("as-logged policy call %d: %d, want %d", i, c.PromptTokens, tc.want[i])
				}
			}
		})
	}
}

// TestAsLoggedSavedLost: a run that compacted and finished can be neither
// saved nor rescued. At a 1,200-token window (reserve = the 10-token
// output), keep-all overflows at call 5 (1700 + 10 > 1200) where what ran
// does not (as-logged's largest prompt is 1080): keep-all loses the run.
// Provider truncation gets through (it drops the oldest items at call 5),
// which against keep-all was a "saved" run; against what ran it is not,
// because the log finished. When the same log ended on window length
// instead (unfinished, diagnosed context_overflow, replayed at its own
// 1,200-token window), the run is lost under what ran, and truncation saves
// it: it gets through and frees room at the last call (1700 − 10 − 100 −
// 10 − 200 − 10 − 300 = 1070 tokens after dropping calls 0–2's items,
// against as-logged's 1080); keep-all, which overflows, does not.
func TestAsLoggedSavedLost(t *testing.T) {
	ka, trunc, al := mustParse(t, "keep-all"), mustParse(t, "truncate"), mustParse(t, "as-logged")
	var rp Replayer

	tr := compactedLadder(60)
	k := rp.Replay(tr, ka, Options{Window: 1200})
	if k.Status != Overflow || k.OverflowCall != 5 || k.AsLoggedOverflowAt != -1 || k.BaselineOverflow || k.Saved || !k.Lost {
		t.Errorf("keep-all on the finished compacted run: %+v; want overflow at 5, lost, not saved", k)
	}
	// over the 5 calls keep-all replayed, as-logged sent 150+260+470+160+570 = 1610
	// and one summarizer call whose input was the 780-token prompt it compacted
	if k.AsLoggedPromptTokens != 1610 || k.AsLoggedSummIn != 780 || k.AsLoggedSummOut != 60 {
		t.Errorf("keep-all's baseline: %d tokens, summarizer %d in / %d out; want 1610, 780 / 60", k.AsLoggedPromptTokens, k.AsLoggedSummIn, k.AsLoggedSummOut)
	}
	tc := rp.Replay(tr, trunc, Options{Window: 1200})
	if tc.Status == Overflow || tc.Saved || tc.Lost {
		t.Errorf("truncate on the finished compacted run: status %s saved %v lost %v; want through, neither saved nor lost", tc.Status, tc.Saved, tc.Lost)
	}
	rows := []Row{{RunResult: k}, {RunResult: tc}}
	for _, a := range Aggregate(rows, AggOptions{Bootstrap: 10}) {
		if a.Saved != 0 {
			t.Errorf("%s: %d saved on a run whose log finished", a.Policy, a.Saved)
		}
	}

	tr = compactedLadder(60)
	tr.Finished, tr.WindowEnd, tr.Window = false, true, 1200
	k = rp.Replay(tr, ka, Options{})
	tc = rp.Replay(tr, trunc, Options{})
	a := rp.Replay(tr, al, Options{})
	if !tc.BaselineOverflow || !tc.Saved || tc.Lost {
		t.Errorf("truncate on the run that ended on window length: %+v; want saved", tc)
	}
	if k.Saved || k.Lost {
		t.Errorf("keep-all on the run that ended on window length: saved %v lost %v; want neither (both lost)", k.Saved, k.Lost)
	}
	if a.Saved || a.Lost {
		t.Errorf("as-logged against itself: saved %v lost %v", a.Saved, a.Lost)
	}
	// at another window the log's own end says nothing: 2,000 tokens fit every as-logged call
	tc = rp.Replay(tr, trunc, Options{Window: 2000})
	if tc.BaselineOverflow || tc.Saved {
		t.Errorf("truncate at 2,000 tokens: baseline overflow %v saved %v; want neither", tc.BaselineOverflow, tc.Saved)
	}
}

// TestAsLoggedAgainstItself: as-logged compared with itself saves nothing
// and predicts no re-invocation, even when a later call uses an output the
// logged compaction summarized (the log shows what the agent did about it).
// The ladder's call-0 result (item 2) is used at call 4, after the
// compaction at call 3 summarized it.
func TestAsLoggedAgainstItself(t *testing.T) {
	tr := compactedLadder(60)
	tr.Uses = []Use{{Item: result(0), Call: 4, Content: true}}
	tr.Finalize()
	var rp Replayer
	r := rp.Replay(tr, mustParse(t, "as-logged"), Options{Window: 5000})
	if r.Reinvocations != 0 || r.PromptTokens+r.ReinvocationTok+r.SummarizerIn != r.BaselineEffective() || r.TokenRatio() != 1 || r.Saved || r.Lost {
		t.Errorf("as-logged against itself: %d re-invocations, effective %d vs baseline %d, ratio %v, saved %v lost %v",
			r.Reinvocations, r.PromptTokens+r.ReinvocationTok+r.SummarizerIn, r.BaselineEffective(), r.TokenRatio(), r.Saved, r.Lost)
	}
	// the same use costs a policy that hid the output: mask(n=1) placeholders it
	if m := rp.Replay(tr, mustParse(t, "mask(n=1)"), Options{Window: 5000}); m.Reinvocations != 1 {
		t.Errorf("mask(n=1): %d re-invocations, want 1 (the use at call 4 of a masked output)", m.Reinvocations)
	}
}
