package diagnose

import "github.com/trajmine/trajmine/schema"

// Window sources, in the order Window tries them.
const (
	WindowFromFlag  = "flag"    // --window N
	WindowFromLog   = "log"     // the run's own window_tokens
	WindowFromTable = "table"   // knownWindows, by model family
	WindowUnknown   = "unknown" // none of the above: occupancy shares are not computed
)

// knownWindows maps a model family (as ingest.ModelFamily names it) to its
// default context window in tokens: input plus output, without opt-in beta
// extensions (Claude's 1M-token beta, for instance, must be given with
// --window or be in the log).
var knownWindows = map[string]int64{
	// Anthropic: models overview, platform.claude.com/docs ("Context window: 200K tokens"; 1M is an opt-in beta header)
	"claude-opus-4":     200_000,
	"claude-sonnet-4":   200_000,
	"claude-haiku-4":    200_000,
	"claude-3.7-sonnet": 200_000,
	"claude-3.5-sonnet": 200_000,
	"claude-3.5-haiku":  200_000,
	"claude-3-opus":     200_000,
	"claude-3-haiku":    200_000,
	// OpenAI: platform.openai.com/docs/models ("400,000 context window" for the GPT-5 line)
	"gpt-5":      400_000,
	"gpt-5-mini": 400_000,
	"gpt-5-nano": 400_000,
	"gpt-5.1":    400_000, // platform.openai.com/docs/models/gpt-5.1
	"gpt-5.2":    400_000, // platform.openai.com/docs/models/gpt-5.2
	// OpenAI: platform.openai.com/docs/models/gpt-4.1 ("1,047,576 context window", same for mini and nano)
	"gpt-4.1":      1_047_576,
	"gpt-4.1-mini": 1_047_576,
	"gpt-4.1-nano": 1_047_576,
	// OpenAI: platform.openai.com/docs/models/gpt-4o ("128,000 context window", same for mini)
	"gpt-4o":      128_000,
	"gpt-4o-mini": 128_000,
	// OpenAI: platform.openai.com/docs/models/o3 and o4-mini ("200,000 context window")
	"o3":      200_000,
	"o3-mini": 200_000,
	"o4-mini": 200_000,
	// Google: ai.google.dev/gemini-api/docs/models ("Input token limit 1,048,576")
	"gemini-2.5-pro":        1_048_576,
	"gemini-2.5-flash":      1_048_576,
	"gemini-2.5-flash-lite": 1_048_576,
	"gemini-2.0-flash":      1_048_576,
	"gemini-3-pro":          1_048_576, // ai.google.dev/gemini-api/docs/models/gemini-3-pro
	// DeepSeek: api-docs.deepseek.com/quick_start/pricing (deepseek-chat / -reasoner, "128K" context)
	"deepseek": 128_000,
	// Qwen: qwen.readthedocs.io, Qwen3 model cards (131,072 with YaRN; Qwen3-Coder longer)
	"qwen3": 131_072,
	// Moonshot: platform.moonshot.ai docs (kimi-k2 "256K" context, 262,144 tokens)
	"kimi": 262_144,
	// Meta: llama.com Llama 4 model cards (Maverick 1M; Scout 10M — the smaller is taken)
	"llama-4": 1_000_000,
	"llama4":  1_000_000,
	// Mistral: docs.mistral.ai/getting-started/models (mistral-large/medium "128k")
	"mistral":  128_000,
	"devstral": 128_000, // docs.mistral.ai, Devstral "128k"
	// Google: ai.google.dev/gemma/docs/core (Gemma 3 4B-27B "128K context window")
	"gemma3": 128_000,
	// Zhipu: docs.z.ai (GLM-4.5/4.6 "128K" context)
	"glm": 128_000,
}

// KnownWindow returns the table's window for a model family, or 0.
func KnownWindow(family string) int64 { return knownWindows[family] }

// Window resolves the context window of run: override (--window N) when it is
// positive, else the window the log recorded, else the table's entry for the
// run's model family, else 0 with source WindowUnknown.
func Window(run schema.Run, override int64) (tokens int64, source string) {
	switch {
	case override > 0:
		return override, WindowFromFlag
	case run.WindowTokens != nil && *run.WindowTokens > 0:
		return *run.WindowTokens, WindowFromLog
	}
	if w := knownWindows[run.ModelFamily]; w > 0 {
		return w, WindowFromTable
	}
	return 0, WindowUnknown
}

// WindowDeath is the window what-if of one run at a window below its own
// (--window N with N smaller than the window the run ran at): the first
// model call that would not have fitted, by the log's own figures.
type WindowDeath struct {
	Window    int64 `json:"window_tokens"`     // N
	OwnWindow int64 `json:"own_window_tokens"` // the run's own window (log or table); 0 unknown
	// Call is the first call whose prompt plus output exceeds Window (the
	// run would have died there); -1 when every call fits. Prompt and
	// Output are that call's: its prompt as Occupancy has it (logged
	// input, else estimated) and its logged output (0 without a usage row).
	Call   int64 `json:"call"`
	Prompt int64 `json:"prompt_tokens"`
	Output int64 `json:"output_tokens"`
}

// Dies reports whether the run would have died at the window.
func (d *WindowDeath) Dies() bool { return d != nil && d.Call >= 0 }

// WindowWhatIf is run's window what-if at window (--window N): nil unless
// window is positive and below the run's own window (Window without
// override; an unknown own window counts as larger, since the run sent its
// logged prompts). Otherwise the first call of occ whose prompt plus its
// logged output (the window holds both, as trajmine simulate counts an
// overflow) exceeds window:
//
//	first call t with prompt(t) + output(t) > N
//
// where output(t) is the output tokens of the call's usage row (the last
// one of the turn, as Occupancy takes its input), 0 when it has none.
func WindowWhatIf(run schema.Run, usage []schema.Usage, occ RunOccupancy, window int64) *WindowDeath {
	own, _ := Window(run, 0)
	if window <= 0 || (own > 0 && window >= own) {
		return nil
	}
	out := map[int64]int64{}
	for _, u := range usage {
		if !u.Estimated {
			out[u.Turn] = u.OutputTokens
		}
	}
	d := &WindowDeath{Window: window, OwnWindow: own, Call: -1}
	for _, c := range occ.Calls {
		if c.Prompt+out[c.Call] > window {
			d.Call, d.Prompt, d.Output = c.Call, c.Prompt, out[c.Call]
			break
		}
	}
	return d
}
