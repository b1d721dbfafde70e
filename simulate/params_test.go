package simulate

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// withUser inserts a user message of tok tokens (4 characters per token)
// into a ladder, first seen by call at (after call at−1's result), and
// renumbers the items' Seq and the results' Call indices.
func withUser(at int32, tok int32) func(*Trace) {
	return func(tr *Trace) {
		pos := len(tr.Items)
		for i, it := range tr.Items {
			if it.Since > at {
				pos = i
				break
			}
		}
		u := Item{Since: at, Kind: ItemUser, Call: -1, Tokens: tok, Chars: 4 * tok}
		tr.Items = slices.Insert(tr.Items, pos, u)
		for i := range tr.Items {
			tr.Items[i].Seq = int64(i)
			if tr.Items[i].Call >= int32(pos) {
				tr.Items[i].Call++
			}
		}
		tr.Finalize()
	}
}

// paramDir is how a parameter change must move the per-call figures against
// the case's base spec: every call ≤ (less) or ≥ (more) the base's, at least
// one strictly.
type paramDir int

const (
	less paramDir = iota
	more
)

func (d paramDir) String() string { return [...]string{"less", "more"}[d] }

// TestPolicyParameters runs every parameter of every catalog policy twice on
// the ladder (see ladder: keep-all's prompts 150, 260, 470, 780, 1190, 1700):
// with a base spec (the defaults, or values chosen so that the rule acts on
// six calls) and with that parameter changed. The changed run's per-call
// prompts must move in the direction the rule says (dir) and equal the
// hand-computed prompts (want; the arithmetic is in the comment). The test
// enumerates the catalog: a parameter without a case, or a case without
// hand-computed prompts, fails it.
//
// summarizer marks the one parameter (template) that changes no prompt but
// the summarizer call's input: there the direction is checked on
// SummarizerIn, which must equal summIn.
//
// Ladder arithmetic used below: R_k (k = 0…5) is call k's result of
// 100·(k+1) tokens and 400·(k+1) characters, first seen by call k+1 with its
// 10-token tool call; a result truncated to c characters costs
// ceil(tokens·c/chars) = ceil(c/4) tokens plus its marker.
func TestPolicyParameters(t *testing.T) {
	dtocOps := func(tr *Trace) {
		// R0 hidden at calls 3 and 4, restored from call 5
		tr.Ops = []LoggedOp{{Item: result(0), From: 3, Visible: false}, {Item: result(0), From: 5, Visible: true}}
		tr.Finalize()
	}
	useR0at4 := func(tr *Trace) {
		tr.Uses = []Use{{Item: result(0), Call: 4, Content: true, Offsets: []int32{300}}}
		tr.Finalize()
	}
	stallAt3 := func(tr *Trace) { tr.Stalls = []int32{3}; tr.Finalize() }
	const (
		hl      = "halflife(activate=0.5,keep=1,cap=400)" // window 2000: 150, 260, 470, 780, 814, 957 (TestPolicies)
		mask2   = "mask(n=2,style=openhands)"             // 150, 260, 470, 682, 894, 1106
		ctu     = "clear-tool-uses(trigger=700,keep=1,placeholder=8)"
		gm      = "gemini-mask(protect=500,prune=300,preview=0)" // call 5: 1700 − 600 + 3·43 = 1229
		summ100 = "summary_a=100,summary_b=0,summary_min=0,summary_cap=1000,template=0"
	)
	type pcase struct {
		base       string // spec without the parameter under test (or with its base value)
		window     Window
		setup      func(*Trace)
		value      string // the changed value
		dir        paramDir
		want       []int64 // hand-computed prompts of the changed run
		summarizer bool
		summIn     int64 // summarizer: hand-computed SummarizerIn of the changed run
	}
	// summaryCases are the summary-model parameters of a compact-* policy
	// whose base spec (summ100: a fixed 100-token summary, no template)
	// compacts once on the ladder.
	summaryCases := func(name, base string, window Window) map[string]pcase {
		return map[string]pcase{
			name + "/summary_a":   {base: base, window: window, value: "300", dir: more},                   // 100 → 300 tokens
			name + "/summary_b":   {base: base, window: window, value: "0.1", dir: more},                   // + 0.1 × summarized (> 0)
			name + "/summary_min": {base: base, window: window, value: "250", dir: more},                   // clamp(100, 250, …) = 250
			name + "/summary_cap": {base: base, window: window, value: "50", dir: less},                    // clamp(100, 0, 50) = 50
			name + "/template":    {base: base, window: window, value: "100", dir: more, summarizer: true}, // +100 summarizer input
		}
	}
	cases := map[string]pcase{
		// dtoc*: R0 (100 tokens) is a placeholder at calls 3, 4 (disable-only: 3, 4, 5);
		// 40 → 10 tokens saves 30 at each
		"dtoc/placeholder": {base: "dtoc", setup: dtocOps, value: "10", dir: less,
			want: []int64{150, 260, 470, 780 - 90, 1190 - 90, 1700}},
		"dtoc-disable-only/placeholder": {base: "dtoc-disable-only", setup: dtocOps, value: "10", dir: less,
			want: []int64{150, 260, 470, 780 - 90, 1190 - 90, 1700 - 90}},
		// every visible result carries the envelope: call t sees t results; 15 → 5 tokens
		"dtoc-tracking/envelope": {base: "dtoc-tracking", value: "5", dir: less,
			want: []int64{150, 260 + 5, 470 + 10, 780 + 15, 1190 + 20, 1700 + 25}},
		// TestPolicies: 150, 260, 410, 560, 770, 860 with 0, 0, 1, 2, 2, 4 placeholders; 30 fewer tokens each
		"dtoc-oracle/placeholder": {base: "dtoc-oracle", setup: useR0at4, value: "10", dir: less,
			want: []int64{150, 260, 410 - 30, 560 - 60, 770 - 60, 860 - 120}},

		// halflife at window 2000 (marker 32 chars = 8 tokens; a result of r tokens has 4r chars,
		// cut to c chars it costs ceil(r·c/4r) + 8 = c/4 + 8 tokens)
		//   activate 0.3: active from call 3 (780 ≥ 600): ages R2, R1, R0 = 1, 2, 3 → whole,
		//   400 chars (108, saves 92), 200 (58, saves 42); calls 4, 5 as the base
		"halflife/activate": {base: "halflife(keep=1,cap=400)", window: 2000, value: "0.3", dir: less,
			want: []int64{150, 260, 470, 780 - 92 - 42, 814, 957}},
		//   keep 2: ages ≤ 2 whole, 3–4 → cap 400, 5–8 → 200. Call 4: R1 (age 3) 108, saves 92;
		//   R0 (age 4, 400 chars) whole. Call 5: R2 108 (saves 192), R1 108 (92), R0 age 5 → 58 (42)
		"halflife/keep": {base: hl, window: 2000, value: "2", dir: more,
			want: []int64{150, 260, 470, 780, 1190 - 92, 1700 - 192 - 92 - 42}},
		//   cap 800 (keep 1: age 2 → 800, 3–4 → 400, 5–8 → 200). Call 4: R2 208 (saves 92),
		//   R1 108 (92), R0 whole. Call 5: R3 208 (192), R2 108 (192), R1 108 (92), R0 58 (42)
		"halflife/cap": {base: hl, window: 2000, value: "800", dir: more,
			want: []int64{150, 260, 470, 780, 1190 - 92 - 92, 1700 - 192 - 192 - 92 - 42}},
		//   floor 300: caps 400, 300, 300, … instead of 400, 200, 200, 100. Call 4: R2 108
		//   (saves 192), R1 300 chars → 83 (117), R0 83 (17). Call 5: R3 108 (292), R2 83
		//   (217), R1 83 (117), R0 83 (17)
		"halflife/floor": {base: hl, window: 2000, value: "300", dir: more,
			want: []int64{150, 260, 470, 780, 1190 - 192 - 117 - 17, 1700 - 292 - 217 - 117 - 17}},
		// stall at call 3: 40 tokens injected from call 3 on (inactive: no window)
		"halflife/stall": {base: "halflife", setup: stallAt3, value: "true", dir: more,
			want: []int64{150, 260, 470, 780 + 40, 1190 + 40, 1700 + 40}},
		"halflife/stall_tokens": {base: "halflife(stall=true)", setup: stallAt3, value: "10", dir: less,
			want: []int64{150, 260, 470, 780 + 10, 1190 + 10, 1700 + 10}},

		// mask(n=2,style=openhands): <MASKED> = 2 tokens
		//   n 3: R0 masked from call 4, R1 from call 5
		"mask/n": {base: mask2, value: "3", dir: more,
			want: []int64{150, 260, 470, 780, 1190 - 100 + 2, 1700 - 300 + 4}},
		//   swe-agent: "Old environment output: (L lines omitted)" = 40 + digits(L) chars:
		//   R0 40 lines, R1 80, R2 120 → 42–43 chars → 11 tokens each instead of 2
		"mask/style": {base: "mask(n=2)", value: "openhands", dir: less, // base swe-agent: 691, 912, 1133
			want: []int64{150, 260, 470, 780 - 100 + 2, 1190 - 300 + 4, 1700 - 600 + 6}},
		//   polling 2: SWE-agent's cut obs[1 : ⌊(1+t)/2⌋·2 − 2] at call t (t results seen,
		//   the task message observation 0) masks ⌊(1+t)/2⌋·2 − 3 results: none at calls
		//   0–2, R0 at calls 3 and 4 (the base masks R0–R1 at call 4), R0–R2 at call 5
		"mask/polling": {base: mask2, value: "2", dir: more,
			want: []int64{150, 260, 470, 780 - 100 + 2, 1190 - 100 + 2, 1700 - 600 + 6}},
		//   unit=events: n counts every item (head, tool calls, results). Call t has
		//   admitted 1 + 2t items and R_k sits at position 2k+2, so R_k is older than
		//   the newest 2 events when 2k+2 < 1 + 2t − 2, i.e. k ≤ t−2 (only R_{t−1} and
		//   its call stay): calls 2–5 mask R0, R0–R1, R0–R2, R0–R3 (n=3 and the other
		//   side of the boundary: TestMaskUnitEvents)
		"mask/unit": {base: mask2, value: "events", dir: less,
			want: []int64{150, 260, 470 - 100 + 2, 780 - 300 + 4, 1190 - 600 + 6, 1700 - 1000 + 8}},

		// clear-tool-uses(trigger=700,keep=1,placeholder=8): 150, 260, 470, 496, 614, 732;
		// clearing R_k saves its tokens − 8
		//   trigger 1000: call 3 (780) not cleared; calls 4, 5 as the base
		"clear-tool-uses/trigger": {base: ctu, value: "1000", dir: more,
			want: []int64{150, 260, 470, 780, 614, 732}},
		//   keep 2: call 3 clears R0 (92); call 4 R0, R1 (92 + 192); call 5 R0–R2 (+ 292)
		"clear-tool-uses/keep": {base: ctu, value: "2", dir: more,
			want: []int64{150, 260, 470, 780 - 92, 1190 - 92 - 192, 1700 - 92 - 192 - 292}},
		//   clear_at_least 400: call 3 would free 92 + 192 = 284 < 400; call 4 frees
		//   92 + 192 + 292 = 576 ≥ 400 (R0–R2 cleared); call 5's only new candidate, R3,
		//   would free 392 < 400 and stays (TestPolicies, TestBatchedEditsCache)
		"clear-tool-uses/clear_at_least": {base: ctu, value: "400", dir: more,
			want: []int64{150, 260, 470, 780, 614, 1700 - 92 - 192 - 292}},
		"clear-tool-uses/exclude_tools": {base: ctu, value: "read_file", dir: more,
			want: []int64{150, 260, 470, 780, 1190, 1700}},
		//   the cleared results' calls (10 tokens each) go too: 2, 3, 4 of them at calls 3–5
		"clear-tool-uses/clear_tool_inputs": {base: ctu, value: "true", dir: less,
			want: []int64{150, 260, 470, 496 - 20, 614 - 30, 732 - 40}},
		//   placeholder 2: 6 fewer tokens per cleared result (2, 3, 4 of them)
		"clear-tool-uses/placeholder": {base: "clear-tool-uses(trigger=700,keep=1)", value: "2", dir: less,
			want: []int64{150, 260, 470, 496 - 12, 614 - 18, 732 - 24}},

		// compact-claude-code at window 1600, threshold 0.5: call 5 compacts to
		// head 150 + summary 100 + preamble 40 + R4, R3 re-attached at 300 each (TestPolicies)
		//   threshold at window 2000 (at 1600 call 5's 1700 + 10 overflows and compacts
		//   reactively whatever the threshold): 0.5 → call 5 sees 1190 + 10 ≥ 1000 and
		//   compacts to 890 as above; 0.9 → 1200 < 1800, no compaction
		"compact-claude-code/threshold": {base: "compact-claude-code(threshold=0.5,files=2,file_tokens=300,files_tokens=1000," + summ100 + ")", window: 2000,
			value: "0.9", dir: more, want: []int64{150, 260, 470, 780, 1190, 1700}},
		"compact-claude-code/files": {base: "compact-claude-code(threshold=0.5,file_tokens=300,files_tokens=1000," + summ100 + ")", window: 1600,
			value: "1", dir: less, want: []int64{150, 260, 470, 780, 1190, 150 + 140 + 300}},
		"compact-claude-code/file_tokens": {base: "compact-claude-code(threshold=0.5,files=2,files_tokens=1000," + summ100 + ")", window: 1600,
			value: "200", dir: less, want: []int64{150, 260, 470, 780, 1190, 150 + 140 + 200 + 200}},
		//   files_tokens 400 (files 5): newest first, R4 (500 tokens, cut to file_tokens
		//   300) fits; R3 (300 more: 600 > 400) does not, and the scan stops there:
		//   150 + 140 + 300 (base files_tokens 50,000: R4–R0 at 300, 300, 300, 200, 100)
		"compact-claude-code/files_tokens": {base: "compact-claude-code(threshold=0.5,file_tokens=300," + summ100 + ")", window: 1600,
			value: "400", dir: less, want: []int64{150, 260, 470, 780, 1190, 150 + 140 + 300}},

		// compact-codex, threshold at window 2000 (at 1600 call 5 overflows and compacts
		// reactively): default 0.9 → call 5 sees 1200 < 1800, no compaction; 0.5 → call 5
		// compacts to head 150 + summary 100 + 45 prefix text (TestPolicies)
		"compact-codex/threshold": {base: "compact-codex(" + summ100 + ")", window: 2000, value: "0.5", dir: less,
			want: []int64{150, 260, 470, 780, 1190, 150 + 100 + 45}},
		//   a 200-token user message U seen from call 3 (keep-all 150, 260, 470, 980,
		//   1390, 1900); threshold 0.5 at 1600 = 800: call 4 sees call 3's 980 + 10 and
		//   compacts. Base (user_tokens 20,000) keeps U: 150 + 145 + 200 = 495, then 1005;
		//   user_tokens 100: U (200 > 100) is summarized too: 150 + 100 + 45 = 295; call 5
		//   adds call 4 and R4 (510) and does not compact (295 + 10 < 800): 805
		"compact-codex/user_tokens": {base: "compact-codex(threshold=0.5," + summ100 + ")", window: 1600, setup: withUser(3, 200),
			value: "100", dir: less, want: []int64{150, 260, 470, 780 + 200, 150 + 145, 150 + 145 + 510}},

		// compact-gemini, threshold at window 2000: 0.5 → call 5 (1200 ≥ 1000) compacts to
		// 150 + 100 + 15 (TestPolicies); 0.9 → 1200 < 1800, no compaction
		"compact-gemini/threshold": {base: "compact-gemini(threshold=0.5,preserve=0.3," + summ100 + ")", window: 2000, value: "0.9", dir: more,
			want: []int64{150, 260, 470, 780, 1190, 1700}},
		//   a 50-token (200-character) user message U seen from call 4 (keep-all …, 1240,
		//   1750); call 5 sees call 4's 1240 + 10 ≥ 1000 and compacts. The history holds
		//   5·40 (calls) + 400 + 800 + 1200 + 1600 + 2000 (R0–R4) + 200 (U) = 6400
		//   characters, 4160 of them before U. Base preserve 0.3: U is not past
		//   0.7 × 6400 = 4480, and no user message follows: all summarized, 150 + 115;
		//   preserve 0.9: U is past 0.1 × 6400 = 640: U, call 4 and R4 (50 + 10 + 500) stay
		"compact-gemini/preserve": {base: "compact-gemini(threshold=0.5," + summ100 + ")", window: 2000, setup: withUser(4, 50),
			value: "0.9", dir: more, want: []int64{150, 260, 470, 780, 1190 + 50, 150 + 115 + 560}},

		// compact-goose, threshold at window 2000: default 0.8 → call 5 sees 1200 < 1600,
		// no compaction; 0.5 → 1200 ≥ 1000: all history summarized, 150 + 100 + 60
		"compact-goose/threshold": {base: "compact-goose(" + summ100 + ")", window: 2000, value: "0.5", dir: less,
			want: []int64{150, 260, 470, 780, 1190, 150 + 100 + 60}},

		// compact-openhands(max_size=8): call 4 condenses (TestPolicies); max_size 20 never
		"compact-openhands/max_size": {base: "compact-openhands(" + summ100 + ")", value: "8", dir: less, // base 120: keep-all
			want: []int64{150, 260, 470, 780, 150 + 100 + 410, 150 + 100 + 410 + 510}},

		// gemini-mask(protect=500,prune=300,preview=0): call 5 masks R0–R2 (placeholder 43 tokens each)
		"gemini-mask/protect": {base: "gemini-mask(prune=300,preview=0)", value: "500", dir: less, // base 50000: nothing masked
			want: []int64{150, 260, 470, 780, 1190, 1700 - 600 + 3*43}},
		//   prune 700: R0–R2 hold 600 < 700
		"gemini-mask/prune": {base: gm, value: "700", dir: more,
			want: []int64{150, 260, 470, 780, 1190, 1700}},
		//   preview 200 characters: 50 more tokens per masked output
		"gemini-mask/preview": {base: gm, value: "200", dir: more,
			want: []int64{150, 260, 470, 780, 1190, 1700 - 600 + 3*(43+50)}},
		//   the latest turn's outputs count against protect too. Call 3: R2 + R1 = 500
		//   protected, R0 (100 < prune 300) stays. Call 4: R3 (400) protected, R2 would
		//   make 700 > 500: R2–R0 (600 ≥ 300) masked. Call 5: R4 (500) protected, R3
		//   (400 ≥ 300), the only older unmasked output, masked
		"gemini-mask/protect_latest_turn": {base: gm, value: "false", dir: less,
			want: []int64{150, 260, 470, 780, 1190 - 600 + 3*43, 1700 - 1000 + 4*43}},

		// tracer-*(trigger=0.5,keep=1) at window 1600: event at call 4 (1190 ≥ 800) over
		// R0–R2, at call 5 over R3 (the prompt after call 4's event + 510 ≥ 800); the
		// marker is 5 tokens, so a result cut to c characters costs ceil(c/4) + 5
		//   r 0.25: R0–R2 keep 100, 200, 300 chars → 30, 55, 80 (save 70, 145, 220);
		//   call 5: R3 400 chars → 105 (saves 295)
		"tracer-uniform/r": {base: "tracer-uniform(trigger=0.5,keep=1)", window: 1600, value: "0.25", dir: less,
			want: []int64{150, 260, 470, 780, 1190 - 70 - 145 - 220, 1190 - 70 - 145 - 220 + 510 - 295}},
		//   trigger 0.9: first event at call 5 (1700 ≥ 1440): R0–R3 at half + 5 → 1700 − 45 − 95 − 145 − 195
		"tracer-uniform/trigger": {base: "tracer-uniform(r=0.5,keep=1)", window: 1600, value: "0.9", dir: more,
			want: []int64{150, 260, 470, 780, 1190, 1700 - 45 - 95 - 145 - 195}},
		//   keep 2: call 4 cuts R0, R1 to half: 200, 400 chars → 55, 105 (save 45, 95);
		//   call 5 (1050 + 510 ≥ 800) R2: 600 chars → 155 (saves 145)
		"tracer-uniform/keep": {base: "tracer-uniform(r=0.5,trigger=0.5)", window: 1600, value: "2", dir: more,
			want: []int64{150, 260, 470, 780, 1190 - 45 - 95, 1190 - 45 - 95 + 510 - 145}},
		// tracer-recency: the j-th oldest of an event's m outputs keeps 2r·j/(m+1)
		//   r 0.25, call 4 (m 3): 0.125, 0.25, 0.375 of 400, 800, 1200 chars = 50, 200,
		//   450 → 13 + 5, 50 + 5, 113 + 5 (save 82, 145, 182); call 5 (m 1): R3 at
		//   0.25 = 400 chars → 105 (saves 295)
		"tracer-recency/r": {base: "tracer-recency(trigger=0.5,keep=1)", window: 1600, value: "0.25", dir: less,
			want: []int64{150, 260, 470, 780, 1190 - 82 - 145 - 182, 1190 - 82 - 145 - 182 + 510 - 295}},
		//   trigger 0.9: one event at call 5 (1700 ≥ 1440) over R0–R3 (m 4): 0.2, 0.4,
		//   0.6, 0.8 of 400, 800, 1200, 1600 = 80, 320, 720, 1280 chars → 25, 85, 185,
		//   325 (save 75, 115, 115, 75)
		"tracer-recency/trigger": {base: "tracer-recency(r=0.5,keep=1)", window: 1600, value: "0.9", dir: more,
			want: []int64{150, 260, 470, 780, 1190, 1700 - 75 - 115 - 115 - 75}},
		//   keep 2: call 4 over R0, R1 (m 2): 1/3, 2/3 of 400, 800 = 133, 533 chars →
		//   34 + 5, 134 + 5 (save 61, 61); call 5 R2 (m 1) at 0.5: 155 (saves 145)
		"tracer-recency/keep": {base: "tracer-recency(r=0.5,trigger=0.5)", window: 1600, value: "2", dir: more,
			want: []int64{150, 260, 470, 780, 1190 - 61 - 61, 1190 - 61 - 61 + 510 - 145}},
		// tracer-proportional: one token cap c with Σ min(T, c) = r·Σ T
		//   r 0.25, call 4: 100, 200, 300 share 150 → c = 50: each result cut to 50
		//   tokens (200 chars) + 5 (save 45, 145, 245); call 5: R3 alone, c = 100 → 105
		//   (saves 295)
		"tracer-proportional/r": {base: "tracer-proportional(trigger=0.5,keep=1)", window: 1600, value: "0.25", dir: less,
			want: []int64{150, 260, 470, 780, 1190 - 45 - 145 - 245, 1190 - 45 - 145 - 245 + 510 - 295}},
		//   trigger 0.9: one event at call 5 over R0–R3, 100, 200, 300, 400 share 500 →
		//   c = (500 − 100)/3 = 133.3: R0 whole; R1–R3 keep 533 chars → 134 + 5
		//   (save 61, 161, 261)
		"tracer-proportional/trigger": {base: "tracer-proportional(r=0.5,keep=1)", window: 1600, value: "0.9", dir: more,
			want: []int64{150, 260, 470, 780, 1190, 1700 - 61 - 161 - 261}},
		//   keep 2: call 4 over R0, R1, 100, 200 share 150 → c = 75: 300 chars each →
		//   80 (save 20, 120); call 5 R2 alone, c = 150 → 155 (saves 145)
		"tracer-proportional/keep": {base: "tracer-proportional(r=0.5,trigger=0.5)", window: 1600, value: "2", dir: more,
			want: []int64{150, 260, 470, 780, 1190 - 20 - 120, 1190 - 20 - 120 + 510 - 145}},
		//   read results keep a quarter instead of 0.6: call 4 R0–R2 at 25 + 5, 50 + 5, 75 + 5 (TestPolicies)
		"tracer-tooltype/ratios": {base: "tracer-tooltype(trigger=0.5,keep=1)", window: 1600, value: "read:0.25", dir: less,
			want: []int64{150, 260, 470, 780, 1190 - 70 - 145 - 220, 1190 - 70 - 145 - 220 + 510 - 295}},
		//   default read ratio 0.6. trigger 0.9: one event at call 5 over R0–R3: 240,
		//   480, 720, 960 chars → 65, 125, 185, 245 (save 35, 75, 115, 155)
		"tracer-tooltype/trigger": {base: "tracer-tooltype(keep=1)", window: 1600, value: "0.9", dir: more,
			want: []int64{150, 260, 470, 780, 1190, 1700 - 35 - 75 - 115 - 155}},
		//   keep 2: call 4 over R0, R1 at 0.6 (save 35, 75); call 5 R2 (saves 115)
		"tracer-tooltype/keep": {base: "tracer-tooltype(trigger=0.5)", window: 1600, value: "2", dir: more,
			want: []int64{150, 260, 470, 780, 1190 - 35 - 75, 1190 - 35 - 75 + 510 - 115}},
		// the untrained start (every ratio 0.5) against a model whose ratios are 0.25 (TestLearnedPolicy)
		"tracer/model": {base: "tracer", window: 1600, value: "testdata/tracer-quarter.json", dir: less,
			want: []int64{150, 260, 470, 780, 1190 - 70 - 145 - 220, 1190 - 70 - 145 - 220 + 510 - 295}},
	}
	for _, c := range []struct {
		name, base string
		window     Window
	}{
		{"compact-claude-code", "compact-claude-code(threshold=0.5,files=0,", 1600},
		{"compact-codex", "compact-codex(threshold=0.3,", 3000},
		{"compact-gemini", "compact-gemini(threshold=0.3,", 3000},
		{"compact-goose", "compact-goose(threshold=0.3,", 3000},
		{"compact-openhands", "compact-openhands(max_size=8,", 0},
	} {
		for k, v := range summaryCases(c.name, c.base+summ100+")", c.window) {
			cases[k] = v
		}
	}
	// The summary cases by hand. Each base spec compacts once on the ladder; the
	// changed run's summary is clamp(a + b·summarized, min, cap), a = 100, b = 0,
	// min 0, cap 1000 but for the parameter changed, and the template (0 in the
	// base) adds to the summarizer's input only:
	//
	//   - compact-claude-code(threshold=0.5,files=0) at 1600: call 5 sees call 4's
	//     1190 + 10 ≥ 800 (call 3's 780 + 10 is not) and summarizes all 1,550 history
	//     tokens, nothing re-attached: 150 + summary + the 40-token preamble; the
	//     summarizer reads call 5's 1700 + template;
	//   - compact-codex(threshold=0.3) at 3000: call 5 sees 1190 + 10 ≥ 900 (call 4's
	//     780 + 10 does not); no user message after the head to keep: 150 + summary
	//     + 45 (SUMMARY_PREFIX); input 1700 + template (under the window's 3000);
	//   - compact-gemini(threshold=0.3) at 3000: call 5 as codex; no user message to
	//     split at, all summarized: 150 + summary + 15; input 1700 + template;
	//   - compact-goose(threshold=0.3) at 3000: call 5 as codex: 150 + summary + 60;
	//     input 1700 + template;
	//   - compact-openhands(max_size=8), no window: call 4's view is the head + 8
	//     items > 8; the newest 8/2 − 2 = 2 (call 3, R3: 410 tokens) stay, call 0–2
	//     and R0–R2 (630 tokens) are summarized: 150 + summary + 410, then + 510 at
	//     call 5 (view 1 + 1 + 4 = 6); input call 4's 1190 + template.
	for _, p := range []struct {
		name     string
		summaryB int64 // summary_b 0.1: round(100 + 0.1 × summarized)
		prompts  func(summary int64) []int64
		summIn   int64 // with template 100
	}{
		{"compact-claude-code", 100 + 155, func(s int64) []int64 { return []int64{150, 260, 470, 780, 1190, 150 + s + 40} }, 1700 + 100},
		{"compact-codex", 100 + 155, func(s int64) []int64 { return []int64{150, 260, 470, 780, 1190, 150 + s + 45} }, 1700 + 100},
		{"compact-gemini", 100 + 155, func(s int64) []int64 { return []int64{150, 260, 470, 780, 1190, 150 + s + 15} }, 1700 + 100},
		{"compact-goose", 100 + 155, func(s int64) []int64 { return []int64{150, 260, 470, 780, 1190, 150 + s + 60} }, 1700 + 100},
		{"compact-openhands", 100 + 63, func(s int64) []int64 { return []int64{150, 260, 470, 780, 150 + s + 410, 150 + s + 410 + 510} }, 1190 + 100},
	} {
		for k, summary := range map[string]int64{
			"summary_a":   300,        // clamp(300 + 0, 0, 1000)
			"summary_b":   p.summaryB, // clamp(100 + 0.1 × summarized, 0, 1000)
			"summary_min": 250,        // clamp(100, 250, 1000)
			"summary_cap": 50,         // clamp(100, 0, 50)
			"template":    100,        // the summary is unchanged; the summarizer's input grows
		} {
			c := cases[p.name+"/"+k]
			c.want = p.prompts(summary)
			if k == "template" {
				c.summIn = p.summIn
			}
			cases[p.name+"/"+k] = c
		}
	}

	seen := map[string]bool{}
	var rp Replayer
	prompts := func(t *testing.T, spec string, c pcase) ([]int64, int64) {
		t.Helper()
		tr := ladder(100, 200, 300, 400, 500, 600)
		if c.setup != nil {
			c.setup(tr)
		}
		var calls []CallResult
		res := rp.Replay(tr, mustParse(t, spec), Options{Window: c.window, Calls: &calls})
		if res.Status != Survived {
			t.Fatalf("%s: status %s", spec, res.Status)
		}
		var ps []int64
		for _, cr := range calls {
			ps = append(ps, cr.PromptTokens)
		}
		return ps, res.SummarizerIn
	}
	for _, d := range Catalog() {
		for _, p := range d.Params {
			key := d.Name + "/" + p.Name
			seen[key] = true
			t.Run(key, func(t *testing.T) {
				c, ok := cases[key]
				if !ok {
					t.Fatalf("no case for parameter %s of %s: add one whose prompts change with it", p.Name, d.Name)
				}
				changed := setParam(c.base, p.Name, c.value)
				bp, bsum := prompts(t, c.base, c)
				cp, csum := prompts(t, changed, c)
				if c.want == nil {
					t.Fatalf("case %s gives no hand-computed prompts (want)", key)
				}
				if !slices.Equal(cp, c.want) {
					t.Errorf("%s: prompts %v, want %v (base %s: %v)", changed, cp, c.want, c.base, bp)
				}
				if c.summarizer {
					if csum != c.summIn {
						t.Errorf("%s: summarizer input %d, want %d", changed, csum, c.summIn)
					}
					bp, cp = []int64{bsum}, []int64{csum}
				}
				if len(bp) != len(cp) {
					t.Fatalf("%s: %d calls, %s: %d", c.base, len(bp), changed, len(cp))
				}
				strict := false
				for i := range bp {
					if c.dir == less && cp[i] > bp[i] || c.dir == more && cp[i] < bp[i] {
						t.Errorf("call %d: %s gives %d, %s %d: want %s", i, changed, cp[i], c.base, bp[i], c.dir)
					}
					strict = strict || cp[i] != bp[i]
				}
				if !strict {
					t.Errorf("%s and %s give the same figures %v: the parameter is not exercised", c.base, changed, bp)
				}
			})
		}
	}
	for key := range cases {
		if !seen[key] {
			t.Errorf("case %s names no catalog parameter", key)
		}
	}
}

// setParam returns spec with parameter name set to value (replacing it if
// the spec sets it).
func setParam(spec, name, value string) string {
	pol, args, _ := strings.Cut(strings.TrimSuffix(spec, ")"), "(")
	var kept []string
	for _, kv := range strings.Split(args, ",") {
		if kv != "" && !strings.HasPrefix(kv, name+"=") {
			kept = append(kept, kv)
		}
	}
	kept = append(kept, fmt.Sprintf("%s=%s", name, value))
	return pol + "(" + strings.Join(kept, ",") + ")"
}

// TestMaskUnitEvents pins mask's unit=events boundary on the ladder: call t
// has admitted 1 + 2t items (the head, then call k's tool call at position
// 2k+1 and its result R_k at 2k+2 for k < t), and R_k is masked when it is
// older than the newest n events, position 2k+2 < 1 + 2t − n. Results sit at
// even positions only, so n of each parity is needed to catch the boundary
// moving by one item either way:
//
//	n = 1: 2k+2 < 2t     ⇔ k ≤ t−2
//	n = 2: 2k+2 < 2t − 1 ⇔ k ≤ t−2
//	n = 3: 2k+2 < 2t − 2 ⇔ k ≤ t−3
//	n = 4: 2k+2 < 2t − 3 ⇔ k ≤ t−3
//	n = 5: 2k+2 < 2t − 4 ⇔ k ≤ t−4
//
// Masking R0…R_j replaces their tokens (R0, R0–R1, R0–R2, R0–R3: 100, 300,
// 600, 1000) by j+1 placeholders of 2 tokens (<MASKED>) in keep-all's 150,
// 260, 470, 780, 1190, 1700.
func TestMaskUnitEvents(t *testing.T) {
	upToT2 := []int64{150, 260, 470 - 100 + 2, 780 - 300 + 4, 1190 - 600 + 6, 1700 - 1000 + 8} // R0…R_{t−2}
	upToT3 := []int64{150, 260, 470, 780 - 100 + 2, 1190 - 300 + 4, 1700 - 600 + 6}            // R0…R_{t−3}
	upToT4 := []int64{150, 260, 470, 780, 1190 - 100 + 2, 1700 - 300 + 4}                      // R0…R_{t−4}
	for _, tc := range []struct {
		spec string
		want []int64
	}{
		{"mask(n=1,style=openhands,unit=events)", upToT2},
		{"mask(n=2,style=openhands,unit=events)", upToT2},
		{"mask(n=3,style=openhands,unit=events)", upToT3},
		{"mask(n=4,style=openhands,unit=events)", upToT3},
		{"mask(n=5,style=openhands,unit=events)", upToT4},
		// unit=observations for contrast: R_k masked when k < t − n
		{"mask(n=2,style=openhands)", upToT3},
		{"mask(n=3,style=openhands)", upToT4},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			var calls []CallResult
			var rp Replayer
			rp.Replay(ladder(100, 200, 300, 400, 500, 600), mustParse(t, tc.spec), Options{Calls: &calls})
			var got []int64
			for _, c := range calls {
				got = append(got, c.PromptTokens)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("prompts %v, want %v", got, tc.want)
			}
		})
	}
}

// TestBatchedEditsCache pins what batching an edit (mask's polling,
// clear-tool-uses' clear_at_least) does to the prompt cache on the ladder
// (keep-all 150, 260, 470, 780, 1190, 1700): the prompts per call and the
// cache reads per call under the ideal rule (the prefix unchanged since the
// previous call) and Anthropic's explicit breakpoints (minimum 0: the
// longest of the previous call's prompt end, the entry it read and the
// system prefix, here the 100-token hidden prefix, that is no longer than
// the unchanged prefix).
//
// Item positions: the hidden prefix (100), the head (50), then call k's tool
// call (10) and R_k; the prompt before R_k holds 160 + Σ_{j<k} (10 + R_j's
// rendering), so 160 before R0, and 172 before R1 when R0 is a 2-token
// <MASKED>, 196 before R2 when R0 and R1 are 8-token placeholders.
//
//   - mask(n=2,style=openhands): R0 masked at call 3, R1 at 4, R2 at 5: the
//     prefix breaks at every call from 3 (at 160, 172, 184).
//   - polling=2: R0 at call 3, R1 and R2 together at call 5: call 4 reads
//     its whole previous prompt (682), call 5 breaks before R1 (172).
//   - clear-tool-uses(trigger=700,keep=1,placeholder=8): R0–R1 at call 3, R2
//     at 4, R3 at 5: breaks at 160, 196, 214.
//   - clear_at_least=400: R0–R2 at call 4 only (see TestPolicyParameters):
//     call 3 reads 470, call 4 breaks at 160, call 5 reads 614.
//
// Explicit: a break at p reads the system entry (100) unless an entry
// ≤ p exists; an unchanged prompt reads the previous prompt's end.
func TestBatchedEditsCache(t *testing.T) {
	explicit := &CacheModel{Kind: CacheExplicit}
	for _, tc := range []struct {
		spec    string
		cache   *CacheModel
		prompts []int64
		cached  []int64
	}{
		{"mask(n=2,style=openhands)", nil,
			[]int64{150, 260, 470, 682, 894, 1106}, []int64{0, 150, 260, 160, 172, 184}},
		{"mask(n=2,style=openhands,polling=2)", nil,
			[]int64{150, 260, 470, 682, 1092, 1106}, []int64{0, 150, 260, 160, 682, 172}},
		{"mask(n=2,style=openhands)", explicit,
			[]int64{150, 260, 470, 682, 894, 1106}, []int64{0, 150, 260, 100, 100, 100}},
		{"mask(n=2,style=openhands,polling=2)", explicit,
			[]int64{150, 260, 470, 682, 1092, 1106}, []int64{0, 150, 260, 100, 682, 100}},
		{"clear-tool-uses(trigger=700,keep=1,placeholder=8)", nil,
			[]int64{150, 260, 470, 496, 614, 732}, []int64{0, 150, 260, 160, 196, 214}},
		{"clear-tool-uses(trigger=700,keep=1,placeholder=8,clear_at_least=400)", nil,
			[]int64{150, 260, 470, 780, 614, 1124}, []int64{0, 150, 260, 470, 160, 614}},
		{"clear-tool-uses(trigger=700,keep=1,placeholder=8)", explicit,
			[]int64{150, 260, 470, 496, 614, 732}, []int64{0, 150, 260, 100, 100, 100}},
		{"clear-tool-uses(trigger=700,keep=1,placeholder=8,clear_at_least=400)", explicit,
			[]int64{150, 260, 470, 780, 614, 1124}, []int64{0, 150, 260, 470, 100, 614}},
	} {
		rule := "ideal"
		if tc.cache != nil {
			rule = tc.cache.String()
		}
		t.Run(tc.spec+"/"+rule, func(t *testing.T) {
			var calls []CallResult
			var rp Replayer
			rp.Replay(ladder(100, 200, 300, 400, 500, 600), mustParse(t, tc.spec), Options{Calls: &calls, Cache: tc.cache})
			var prompts, cached []int64
			for _, c := range calls {
				prompts, cached = append(prompts, c.PromptTokens), append(cached, c.CachedTokens)
			}
			if !slices.Equal(prompts, tc.prompts) || !slices.Equal(cached, tc.cached) {
				t.Errorf("prompts %v, cached %v; want %v, %v", prompts, cached, tc.prompts, tc.cached)
			}
		})
	}
}
