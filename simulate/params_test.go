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
// prompts must move in the direction the rule says (dir) and, where the
// case gives them, equal the hand-computed prompts (want; the arithmetic is
// in the comment). The test enumerates the catalog: a parameter without a
// case fails it.
//
// summarizer marks the one parameter (template) that changes no prompt but
// the summarizer call's input: there the figure compared is SummarizerIn.
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
		window     int64
		setup      func(*Trace)
		value      string // the changed value
		dir        paramDir
		want       []int64 // hand-computed prompts of the changed run (nil: direction only)
		summarizer bool
	}
	// summaryCases are the summary-model parameters of a compact-* policy
	// whose base spec (summ100: a fixed 100-token summary, no template)
	// compacts once on the ladder.
	summaryCases := func(name, base string, window int64) map[string]pcase {
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
		//   unit=events: n counts every item, so fewer results stay
		"mask/unit": {base: mask2, value: "events", dir: less},

		// clear-tool-uses(trigger=700,keep=1,placeholder=8): 150, 260, 470, 496, 614, 732;
		// clearing R_k saves its tokens − 8
		//   trigger 1000: call 3 (780) not cleared; calls 4, 5 as the base
		"clear-tool-uses/trigger": {base: ctu, value: "1000", dir: more,
			want: []int64{150, 260, 470, 780, 614, 732}},
		//   keep 2: call 3 clears R0 (92); call 4 R0, R1 (92 + 192); call 5 R0–R2 (+ 292)
		"clear-tool-uses/keep": {base: ctu, value: "2", dir: more,
			want: []int64{150, 260, 470, 780 - 92, 1190 - 92 - 192, 1700 - 92 - 192 - 292}},
		//   clear_at_least 400: call 3 would free 92 + 192 = 284 < 400 (TestPolicies)
		"clear-tool-uses/clear_at_least": {base: ctu, value: "400", dir: more,
			want: []int64{150, 260, 470, 780, 614, 732}},
		"clear-tool-uses/exclude_tools": {base: ctu, value: "read_file", dir: more,
			want: []int64{150, 260, 470, 780, 1190, 1700}},
		//   the cleared results' calls (10 tokens each) go too
		"clear-tool-uses/clear_tool_inputs": {base: ctu, value: "true", dir: less},
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
		//   files_tokens 400: 300 for R4 leaves 100 for R3 at most
		"compact-claude-code/files_tokens": {base: "compact-claude-code(threshold=0.5,files=2,file_tokens=300," + summ100 + ")", window: 1600,
			value: "400", dir: less},

		// compact-codex, threshold at window 2000 (at 1600 call 5 overflows and compacts
		// reactively): default 0.9 → call 5 sees 1200 < 1800, no compaction; 0.5 → call 5
		// compacts to head 150 + summary 100 + 45 prefix text (TestPolicies)
		"compact-codex/threshold": {base: "compact-codex(" + summ100 + ")", window: 2000, value: "0.5", dir: less,
			want: []int64{150, 260, 470, 780, 1190, 150 + 100 + 45}},
		//   a 200-token user message seen from call 3 is kept when user_tokens allows it
		"compact-codex/user_tokens": {base: "compact-codex(threshold=0.5," + summ100 + ")", window: 1600, setup: withUser(3, 200),
			value: "100", dir: less},

		// compact-gemini, threshold at window 2000: 0.5 → call 5 (1200 ≥ 1000) compacts to
		// 150 + 100 + 15 (TestPolicies); 0.9 → 1200 < 1800, no compaction
		"compact-gemini/threshold": {base: "compact-gemini(threshold=0.5,preserve=0.3," + summ100 + ")", window: 2000, value: "0.9", dir: more,
			want: []int64{150, 260, 470, 780, 1190, 1700}},
		//   with a user message seen from call 4, preserving 90 % of the characters keeps what follows it
		"compact-gemini/preserve": {base: "compact-gemini(threshold=0.5," + summ100 + ")", window: 2000, setup: withUser(4, 50),
			value: "0.9", dir: more},

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
		//   the latest turn's outputs count against protect too: more is masked
		"gemini-mask/protect_latest_turn": {base: gm, value: "false", dir: less},

		// tracer-*(trigger=0.5,keep=1) at window 1600: event at call 4 (1190 ≥ 800), call 5 (1415)
		"tracer-uniform/r": {base: "tracer-uniform(trigger=0.5,keep=1)", window: 1600, value: "0.25", dir: less},
		//   trigger 0.9: first event at call 5 (1700 ≥ 1440): R0–R3 at half + 5 → 1700 − 45 − 95 − 145 − 195
		"tracer-uniform/trigger": {base: "tracer-uniform(r=0.5,keep=1)", window: 1600, value: "0.9", dir: more,
			want: []int64{150, 260, 470, 780, 1190, 1700 - 45 - 95 - 145 - 195}},
		"tracer-uniform/keep":         {base: "tracer-uniform(r=0.5,trigger=0.5)", window: 1600, value: "2", dir: more},
		"tracer-recency/r":            {base: "tracer-recency(trigger=0.5,keep=1)", window: 1600, value: "0.25", dir: less},
		"tracer-recency/trigger":      {base: "tracer-recency(r=0.5,keep=1)", window: 1600, value: "0.9", dir: more},
		"tracer-recency/keep":         {base: "tracer-recency(r=0.5,trigger=0.5)", window: 1600, value: "2", dir: more},
		"tracer-proportional/r":       {base: "tracer-proportional(trigger=0.5,keep=1)", window: 1600, value: "0.25", dir: less},
		"tracer-proportional/trigger": {base: "tracer-proportional(r=0.5,keep=1)", window: 1600, value: "0.9", dir: more},
		"tracer-proportional/keep":    {base: "tracer-proportional(r=0.5,trigger=0.5)", window: 1600, value: "2", dir: more},
		//   read results keep a quarter instead of 0.6: call 4 R0–R2 at 25 + 5, 50 + 5, 75 + 5 (TestPolicies)
		"tracer-tooltype/ratios": {base: "tracer-tooltype(trigger=0.5,keep=1)", window: 1600, value: "read:0.25", dir: less,
			want: []int64{150, 260, 470, 780, 1190 - 70 - 145 - 220, 1190 - 70 - 145 - 220 + 510 - 295}},
		"tracer-tooltype/trigger": {base: "tracer-tooltype(keep=1)", window: 1600, value: "0.9", dir: more},
		"tracer-tooltype/keep":    {base: "tracer-tooltype(trigger=0.5)", window: 1600, value: "2", dir: more},
		// the untrained start (every ratio 0.5) against a model whose ratios are 0.25 (TestLearnedPolicy)
		"tracer/model": {base: "tracer", window: 1600, value: "testdata/tracer-quarter.json", dir: less,
			want: []int64{150, 260, 470, 780, 1190 - 70 - 145 - 220, 1190 - 70 - 145 - 220 + 510 - 295}},
	}
	for _, c := range []struct {
		name, base string
		window     int64
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
	// compact-goose(threshold=0.3) at 3000, by hand: call 5 sees 1190 + 10 ≥ 900
	// (call 4's 780 + 10 does not) and summarizes all 1,550 history tokens into
	// clamp(a + b·1550, min, cap), plus the 60-token continuation: base
	// 150 + 100 + 60 = 310
	for k, summary := range map[string]int64{
		"summary_a":   300,       // clamp(300 + 0, 0, 1000)
		"summary_b":   100 + 155, // clamp(100 + 0.1 × 1550, 0, 1000)
		"summary_min": 250,       // clamp(100, 250, 1000)
		"summary_cap": 50,        // clamp(100, 0, 50)
		"template":    100,       // the summary is unchanged; the summarizer's input grows
	} {
		c := cases["compact-goose/"+k]
		c.want = []int64{150, 260, 470, 780, 1190, 150 + summary + 60}
		cases["compact-goose/"+k] = c
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
				if c.want != nil && !slices.Equal(cp, c.want) {
					t.Errorf("%s: prompts %v, want %v (base %s: %v)", changed, cp, c.want, c.base, bp)
				}
				if c.summarizer {
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
