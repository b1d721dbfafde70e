package simulate

import (
	"slices"
	"strings"
	"testing"
)

// ladder is the hand-built run every policy test replays: a 100-token hidden
// prefix, a 50-token task (the head), and six calls; call t makes a 10-token
// read tool call whose result of results[t] tokens (4 characters per token,
// one line per 10 characters) is first seen by call t+1. So keep-all's
// prompts are 150, 260, 470, 780, 1190, 1700.
func ladder(results ...int32) *Trace {
	tr := &Trace{RunID: "r", Prefix: 100, NCalls: len(results), Finished: true}
	tr.Items = append(tr.Items, Item{Seq: 0, Since: 0, Kind: ItemUser, Head: true, Call: -1, Tokens: 50, Chars: 200})
	for t, r := range results {
		call := int32(len(tr.Items))
		tr.Items = append(tr.Items,
			Item{Seq: int64(2*t + 1), Since: int32(t + 1), Kind: ItemToolCall, Class: ClassRead, Call: -1, Tokens: 10, Chars: 40, Tool: "read_file"},
			Item{Seq: int64(2*t + 2), Since: int32(t + 1), Kind: ItemToolResult, Class: ClassRead, Call: call, Tokens: r, Chars: 4 * r, Lines: 4 * r / 10, Tool: "read_file", Key: "k" + string(rune('0'+t))})
		tr.Output = append(tr.Output, 10)
	}
	tr.Finalize()
	return tr
}

// result returns the item index of call t's tool result in a ladder.
func result(t int) int32 { return int32(2*t + 2) }

func mustParse(t *testing.T, spec string) Policy {
	t.Helper()
	p, err := Parse(spec)
	if err != nil {
		t.Fatalf("Parse(%q): %v", spec, err)
	}
	return p
}

// summ100 completes a compaction spec with a fixed 100-token summary and no template.
const summ100 = "summary_a=100,summary_b=0,summary_min=0,summary_cap=1000,template=0)"

func TestPolicies(t *testing.T) {
	base := []int32{100, 200, 300, 400, 500, 600}
	dtocOps := func(tr *Trace) {
		tr.Ops = []LoggedOp{{Item: result(0), From: 3, Visible: false}, {Item: result(0), From: 5, Visible: true}}
		tr.Finalize()
	}
	useR0at4 := func(tr *Trace) {
		tr.Uses = []Use{{Item: result(0), Call: 4, Content: true, Offsets: []int32{300}}}
		tr.Finalize()
	}
	tests := []struct {
		name         string
		spec         string
		window       Window
		setup        func(*Trace)
		prompts      []int64
		placeholders []int
		cached       []int64
		status       Status
		reinv        int
		reinvTok     int64
		summIn       int64
		summOut      int64
	}{
		{name: "keep-all", spec: "keep-all",
			prompts: []int64{150, 260, 470, 780, 1190, 1700}, placeholders: []int{0, 0, 0, 0, 0, 0},
			cached: []int64{0, 150, 260, 470, 780, 1190}, status: Survived},
		{name: "keep-all overflows", spec: "keep-all", window: 1000,
			prompts: []int64{150, 260, 470, 780}, status: Overflow},
		{name: "mask openhands n=2", spec: "mask(n=2,style=openhands)",
			// "<MASKED>" is 2 tokens; masking R_k (position 2k+2) keeps everything before it cached
			prompts:      []int64{150, 260, 470, 780 - 100 + 2, 1190 - 300 + 4, 1700 - 600 + 6},
			placeholders: []int{0, 0, 0, 1, 2, 3},
			cached:       []int64{0, 150, 260, 160, 172, 184}, status: Survived},
		{name: "mask swe-agent names the lines", spec: "mask(n=4)",
			// R0: 400 chars → 40 lines: "Old environment output: (40 lines omitted)" = 42 chars → 11 tokens
			prompts: []int64{150, 260, 470, 780, 1190, 1700 - 100 + 11}, placeholders: []int{0, 0, 0, 0, 0, 1}, status: Survived},
		{name: "mask re-invocation", spec: "mask(n=2,style=openhands)", setup: useR0at4,
			prompts: []int64{150, 260, 470, 682, 894, 1106}, status: Survived,
			// R0 is masked when call 4 uses it: its 100 tokens again + call 4's prompt
			reinv: 1, reinvTok: 100 + 894},
		{name: "keep-all no re-invocation", spec: "keep-all", setup: useR0at4,
			prompts: []int64{150, 260, 470, 780, 1190, 1700}, status: Survived},
		{name: "halflife", spec: "halflife(activate=0.5,keep=1,cap=400)", window: 2000,
			// active at call 4 (full prompt 1190 ≥ 1000); marker 32 chars = 8 tokens;
			// call 4 ages R3..R0 = 1..4: whole, 400, 200, 200 chars → 108, 58, 58 tokens;
			// call 5 ages R4..R0 = 1..5: whole, 400, 200, 200, 100 chars → 108, 58, 58, 33
			prompts:      []int64{150, 260, 470, 780, 1190 - 192 - 142 - 42, 1700 - 292 - 242 - 142 - 67},
			placeholders: []int{0, 0, 0, 0, 0, 0}, status: Survived},
		{name: "halflife truncation keeps the evidence at the head", spec: "halflife(activate=0.5,keep=1,cap=400)", window: 2000,
			setup: func(tr *Trace) {
				// R0 (400 chars) keeps 100 head + 100 tail at call 4: offset 50 survives
				tr.Uses = []Use{{Item: result(0), Call: 4, Content: true, Offsets: []int32{50}}}
				tr.Finalize()
			},
			prompts: []int64{150, 260, 470, 780, 814, 957}, status: Survived},
		{name: "halflife truncation cuts the evidence", spec: "halflife(activate=0.5,keep=1,cap=400)", window: 2000,
			setup: func(tr *Trace) {
				tr.Uses = []Use{{Item: result(0), Call: 4, Content: true, Offsets: []int32{50, 200}}}
				tr.Finalize()
			},
			prompts: []int64{150, 260, 470, 780, 814, 957}, status: Survived, reinv: 1, reinvTok: 100 + 814},
		{name: "halflife inactive without window", spec: "halflife",
			prompts: []int64{150, 260, 470, 780, 1190, 1700}, status: Survived},
		{name: "halflife stall message", spec: "halflife(stall=true,stall_tokens=40)",
			setup:   func(tr *Trace) { tr.Stalls = []int32{3}; tr.Finalize() },
			prompts: []int64{150, 260, 470, 820, 1230, 1740}, status: Survived},
		{name: "dtoc replays the log", spec: "dtoc(placeholder=40)", setup: dtocOps,
			prompts: []int64{150, 260, 470, 720, 1130, 1700}, placeholders: []int{0, 0, 0, 1, 1, 0}, status: Survived},
		{name: "dtoc-disable-only ignores enables", spec: "dtoc-disable-only(placeholder=40)", setup: dtocOps,
			prompts: []int64{150, 260, 470, 720, 1130, 1640}, placeholders: []int{0, 0, 0, 1, 1, 1}, status: Survived},
		{name: "dtoc-tracking adds envelopes", spec: "dtoc-tracking(envelope=15)",
			prompts: []int64{150, 275, 500, 825, 1250, 1775}, status: Survived},
		{name: "dtoc-oracle", spec: "dtoc-oracle(placeholder=40)", setup: useR0at4,
			prompts:      []int64{150, 260, 410, 560, 770, 860},
			placeholders: []int{0, 0, 1, 2, 2, 4}, status: Survived},
		{name: "truncate drops oldest pairs", spec: "truncate", window: 1000,
			// call 4 must fit 990: drop call0+R0 (110) → 1080, call1+R1 (210) → 870;
			// call 5: 870 + 510 = 1380 → drop call2+R2 → 1070 → drop call3+R3 → 660
			prompts: []int64{150, 260, 470, 780, 870, 660},
			cached:  []int64{0, 150, 260, 470, 150, 150}, status: Survived},
		{name: "clear-tool-uses", spec: "clear-tool-uses(trigger=700,keep=1,placeholder=8)",
			prompts:      []int64{150, 260, 470, 780 - 92 - 192, 1190 - 92 - 192 - 292, 1700 - 92 - 192 - 292 - 392},
			placeholders: []int{0, 0, 0, 2, 3, 4}, status: Survived},
		{name: "clear-tool-uses clear_at_least", spec: "clear-tool-uses(trigger=700,keep=1,placeholder=8,clear_at_least=400)",
			// call 3: R0, R1 would free 92 + 192 < 400; call 4: R0–R2 free 576; call 5:
			// R3 alone would free 392 < 400, so the cleared prefix (and the cache) holds
			prompts:      []int64{150, 260, 470, 780, 614, 1700 - 92 - 192 - 292},
			placeholders: []int{0, 0, 0, 0, 3, 3}, cached: []int64{0, 150, 260, 470, 160, 614}, status: Survived},
		{name: "clear-tool-uses excludes and clears inputs", spec: "clear-tool-uses(trigger=700,keep=1,placeholder=8,exclude_tools=read_file)",
			prompts: []int64{150, 260, 470, 780, 1190, 1700}, status: Survived},
		{name: "gemini-mask", spec: "gemini-mask(protect=500,prune=300,preview=0)",
			// placeholder 170 chars = 43 tokens; call 5: R3 protected, R2..R0 (600 ≥ 300) masked
			prompts: []int64{150, 260, 470, 780, 1190, 1700 - 600 + 3*43}, placeholders: []int{0, 0, 0, 0, 0, 3}, status: Survived},
		{name: "tracer-uniform", spec: "tracer-uniform(r=0.5,trigger=0.5,keep=1)", window: 1600,
			// event at call 4 (1190 ≥ 800): R0..R2 keep half + 5-token marker; call 5 (1415): R3
			prompts: []int64{150, 260, 470, 780, 1190 - 45 - 95 - 145, 1190 - 45 - 95 - 145 + 510 - 195}, status: Survived},
		{name: "tracer-recency", spec: "tracer-recency(r=0.5,trigger=0.5,keep=1)", window: 1600,
			// event at call 4 over R0..R2: ratios 0.25, 0.5, 0.75 (mean 0.5) → 30, 105, 230 tokens; call 5: R3 alone at 0.5 → 205
			prompts: []int64{150, 260, 470, 780, 1190 - 70 - 95 - 70, 1190 - 70 - 95 - 70 + 510 - 195}, status: Survived},
		{name: "tracer-proportional", spec: "tracer-proportional(r=0.5,trigger=0.5,keep=1)", window: 1600,
			// event budget 300 of 600 → common cap 100 tokens: R0 whole, R1 and R2 → 100 + 5
			prompts: []int64{150, 260, 470, 780, 1190 - 95 - 195, 1190 - 95 - 195 + 510 - 195}, status: Survived},
		{name: "tracer-tooltype", spec: "tracer-tooltype(ratios=read:0.25,trigger=0.5,keep=1)", window: 1600,
			// read results keep a quarter: R0 25+5, R1 50+5, R2 75+5 → saves 70+145+220; call 5: R3 100+5
			prompts: []int64{150, 260, 470, 780, 1190 - 70 - 145 - 220, 1190 - 70 - 145 - 220 + 510 - 295}, status: Survived},
		{name: "compact-goose", spec: "compact-goose(threshold=0.5,summary_a=100,summary_b=0.1,summary_min=0,summary_cap=1000,template=0)", window: 1600,
			// call 5 sees call 4's usage 1190 + 10 ≥ 800: all 1550 history tokens → 100 + 155 = 255 summary + 60 continuation
			prompts: []int64{150, 260, 470, 780, 1190, 150 + 255 + 60}, status: Survived, summIn: 1700, summOut: 255},
		{name: "compact-codex", spec: "compact-codex(threshold=0.5," + summ100, window: 1600,
			// everything but the head is summarized (no later user message to keep): 100 + 45 prefix text; input capped at the window
			prompts: []int64{150, 260, 470, 780, 1190, 150 + 100 + 45}, status: Survived, summIn: 1600, summOut: 100},
		{name: "compact-gemini", spec: "compact-gemini(threshold=0.5,preserve=0.3," + summ100, window: 1600,
			// no user message after 70 % of the characters: all history summarized; 100 + 15 snapshot text
			prompts: []int64{150, 260, 470, 780, 1190, 150 + 100 + 15}, status: Survived, summIn: 1700, summOut: 100},
		{name: "compact-claude-code re-attaches files", spec: "compact-claude-code(threshold=0.5,files=2,file_tokens=300,files_tokens=1000," + summ100, window: 1600,
			// R4 and R3 re-attached, each cut to 300 tokens; the rest summarized: 100 + 40 preamble
			prompts: []int64{150, 260, 470, 780, 1190, 150 + 140 + 300 + 300}, status: Survived, summIn: 1700, summOut: 100},
		{name: "compact-claude-code threshold", spec: "compact-claude-code(files=0," + summ100, window: 1250,
			// threshold 83.5 % = 1043.75: call 5 sees 1190 + 10 ≥ it; call 4's 1190 + 10 fits 1250
			prompts: []int64{150, 260, 470, 780, 1190, 150 + 140}, status: Survived, summIn: 1700, summOut: 100},
		{name: "compact-claude-code reacts to overflow", spec: "compact-claude-code(files=0," + summ100, window: 1150,
			// call 4 (1190 + 10 > 1150) overflows before the threshold (960) saw it: compacted reactively to 290; call 5 adds 510
			prompts: []int64{150, 260, 470, 780, 290, 800}, status: Survived, summIn: 1190, summOut: 100},
		{name: "compact-openhands", spec: "compact-openhands(max_size=8,summary_a=100,summary_b=0,summary_min=0,summary_cap=1000,template=0)",
			// view = head + live items (+ summary): call 4 has 8 live → 9 > 8 → keep the newest 8/2-2 = 2 (call3, R3)
			prompts: []int64{150, 260, 470, 780, 150 + 100 + 410, 150 + 100 + 410 + 510}, status: Survived, summIn: 1190, summOut: 100},
	}
	var rp Replayer
	for _, tc := range tests {
		if strings.Contains(tc.spec, "summ100") {
			t.Fatal("bad spec")
		}
		t.Run(tc.name, func(t *testing.T) {
			tr := ladder(base...)
			if tc.setup != nil {
				tc.setup(tr)
			}
			var calls []CallResult
			res := rp.Replay(tr, mustParse(t, tc.spec), Options{Window: tc.window, Calls: &calls})
			var prompts, cached []int64
			var ph []int
			for _, c := range calls {
				if c.Overflow {
					continue
				}
				prompts = append(prompts, c.PromptTokens)
				cached = append(cached, c.CachedTokens)
				ph = append(ph, c.Placeholders)
			}
			if !slices.Equal(prompts, tc.prompts) {
				t.Errorf("prompts = %v, want %v", prompts, tc.prompts)
			}
			if tc.placeholders != nil && !slices.Equal(ph, tc.placeholders) {
				t.Errorf("placeholders = %v, want %v", ph, tc.placeholders)
			}
			if tc.cached != nil && !slices.Equal(cached, tc.cached) {
				t.Errorf("cached = %v, want %v", cached, tc.cached)
			}
			if res.Status != tc.status {
				t.Errorf("status = %s, want %s", res.Status, tc.status)
			}
			if res.Reinvocations != tc.reinv || res.ReinvocationTok != tc.reinvTok {
				t.Errorf("re-invocations = %d (%d tokens), want %d (%d)", res.Reinvocations, res.ReinvocationTok, tc.reinv, tc.reinvTok)
			}
			if res.SummarizerIn != tc.summIn || res.SummarizerOut != tc.summOut {
				t.Errorf("summarizer = %d in / %d out, want %d / %d", res.SummarizerIn, res.SummarizerOut, tc.summIn, tc.summOut)
			}
			var sum int64
			for _, p := range prompts {
				sum += p
			}
			if res.PromptTokens != sum {
				t.Errorf("PromptTokens = %d, want Σ calls %d", res.PromptTokens, sum)
			}
		})
	}
}
