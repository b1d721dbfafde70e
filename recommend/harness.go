package recommend

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/trajmine/trajmine/simulate"
)

// A config snippet puts a recommended policy into the harness's own
// settings, with the settings' real names and semantics as
// ../shared/docs/harness-config.md gives them (each snippet's Source says
// which section). Where a harness has no setting for what a policy does,
// the snippet says so (Supported false) instead of inventing one; where a
// setting only approximates the replayed rule, or is documented but not
// confirmed to take effect, a Note says how.

// Harnesses lists the harnesses HarnessConfig writes snippets for.
var Harnesses = []string{"claude-code", "codex", "openhands", "swe-agent", "mini-swe-agent", "gemini-cli", "anthropic-api", "dtoc"}

// Snippet is a ready-to-paste configuration for one harness.
type Snippet struct {
	Harness   string   `json:"harness"`
	Policy    string   `json:"policy"`
	Supported bool     `json:"supported"` // false: the harness cannot be set to run the policy
	Format    string   `json:"format"`    // json, toml, yaml or shell
	File      string   `json:"file"`      // where it goes
	Text      string   `json:"text"`      // the snippet; empty when not supported
	Notes     []string `json:"notes"`     // approximations, caveats, what the harness lacks
	Source    string   `json:"source"`    // the section of harness-config.md the names come from
}

// HarnessConfig writes the snippet that sets harness to run the policy
// spec names (a catalog spec, with its parameters). window is the context
// window in tokens the recommendation was made for (0: unknown), needed
// where a harness takes a trigger in tokens rather than as a share.
func HarnessConfig(harness, spec string, window int64) (Snippet, error) {
	def, v, err := simulate.Values(spec)
	if err != nil {
		return Snippet{}, err
	}
	s := Snippet{Harness: harness, Policy: spec}
	unsupported := func(why string) (Snippet, error) {
		s.Supported, s.Format, s.Text = false, "", ""
		s.Notes = append(s.Notes, why)
		return s, nil
	}
	num := func(name string) float64 { f, _ := strconv.ParseFloat(v[name], 64); return f }
	switch harness {
	case "claude-code":
		s.Format, s.File, s.Source = "json", "~/.claude/settings.json (user) or .claude/settings.json (project)", "harness-config.md §1 (Claude Code)"
		switch def.Name {
		case "keep-all":
			s.Text = jsonText(map[string]any{"autoCompactEnabled": false})
			s.Notes = append(s.Notes, "keep-all turns auto-compaction off: a run that fills the window then fails there (/compact still works by hand)")
		case "compact-claude-code":
			if v["threshold"] == "auto" {
				s.Text = jsonText(map[string]any{"autoCompactEnabled": true})
				s.Notes = append(s.Notes, "the built-in trigger (window − min(max output, 20k) − 13k) is Claude Code's default: nothing else to set")
				break
			}
			pct := int(math.Round(100 * num("threshold")))
			s.Format, s.File = "shell", "your shell profile (export before starting claude)"
			s.Text = fmt.Sprintf("export CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=%d\n", pct)
			s.Notes = append(s.Notes,
				"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE can only lower the built-in threshold (min-clamped, issue #31806): a share above it has no effect",
				"set it in the shell: issue #63186 reports it ignored when set only in settings.json's \"env\"")
			if def.Params != nil && (v["files"] != "5" || v["file_tokens"] != "5000" || v["files_tokens"] != "50000") {
				s.Notes = append(s.Notes, "the re-attached files (files, file_tokens, files_tokens) have no setting: Claude Code uses its own")
			}
		default:
			return unsupported(fmt.Sprintf("Claude Code has no setting for %s (%s): its only user knobs are auto-compaction's switch and trigger, and output-size caps (microcompact has no knob); the Anthropic Messages API can clear tool uses (--config anthropic-api) where you call it directly", def.Name, def.Mechanism))
		}
	case "codex":
		s.Format, s.File, s.Source = "toml", "~/.codex/config.toml (root keys, before any [table]) or codex -c key=value", "harness-config.md §2 (Codex CLI)"
		switch def.Name {
		case "compact-codex":
			if window <= 0 {
				window = 272000
				s.Notes = append(s.Notes, "window unknown: computed for Codex's fallback model_context_window of 272,000 tokens; set both to your model's")
			}
			limit := int64(math.Round(num("threshold") * float64(window)))
			s.Text = fmt.Sprintf("model_context_window = %d\nmodel_auto_compact_token_limit = %d\n", window, limit)
			s.Notes = append(s.Notes, "newer Codex builds use min(model_auto_compact_token_limit, 0.9 × window): a limit above 90 % has no effect")
			if v["user_tokens"] != "20000" {
				s.Notes = append(s.Notes, "user_tokens (recent user messages kept) has no setting: Codex keeps its own 20,000")
			}
		default:
			return unsupported(fmt.Sprintf("Codex CLI has no setting for %s (%s): it can set auto-compaction's trigger (compact-codex) and the stored size of each tool output (tool_output_token_limit), nothing that masks or drops old outputs", def.Name, def.Mechanism))
		}
	case "openhands":
		s.Format, s.File, s.Source = "toml", "config.toml (OpenHands V0)", "harness-config.md §3 (OpenHands V0 [condenser])"
		switch def.Name {
		case "keep-all":
			s.Text = "[condenser]\ntype = \"noop\"\n"
		case "mask":
			if v["polling"] != "1" {
				return unsupported(fmt.Sprintf("OpenHands' observation_masking moves its window at every event: it has no polling, so %s (the masked prefix grows every %s) cannot be set; mask(polling=1) can", spec, v["polling"]))
			}
			s.Text = fmt.Sprintf("[condenser]\ntype = \"observation_masking\"\nattention_window = %s\n", v["n"])
			if v["unit"] != "events" {
				s.Notes = append(s.Notes, "attention_window counts events, not observations: the replay kept "+v["n"]+" observations; replay mask(unit=events) to check the setting as OpenHands applies it")
			}
		case "compact-openhands":
			s.Text = fmt.Sprintf("[condenser]\ntype = \"llm\"\nllm_config = \"condenser\"\nkeep_first = 1\nmax_size = %s\n\n[llm.condenser]\n# the model that writes the summaries: set model (and api_key) here\n", v["max_size"])
			s.Notes = append(s.Notes, "llm_config names an [llm.<name>] section you must fill in; an invalid [condenser] section falls back to noop")
		default:
			return unsupported(fmt.Sprintf("OpenHands has no condenser for %s (%s): its condensers are noop, observation_masking, browser_output_masking, recent, llm, amortized, llm_attention and structured", def.Name, def.Mechanism))
		}
	case "swe-agent":
		s.Format, s.File, s.Source = "yaml", "your SWE-agent config (agent.history_processors)", "harness-config.md §4 (SWE-agent history processors)"
		switch def.Name {
		case "keep-all":
			s.Text = "agent:\n  history_processors:\n    - type: default\n"
		case "mask":
			s.Text = fmt.Sprintf("agent:\n  history_processors:\n    - type: last_n_observations\n      n: %s\n", v["n"])
			if v["polling"] != "1" {
				s.Text += fmt.Sprintf("      polling: %s\n", v["polling"])
			}
			if v["unit"] == "events" {
				s.Notes = append(s.Notes, "last_n_observations counts observations, not events: replay mask(unit=observations) to check the setting as SWE-agent applies it")
			}
		default:
			return unsupported(fmt.Sprintf("SWE-agent has no history processor for %s (%s): it has last_n_observations, cache_control, remove_regex, closed_window and tag_tool_call_observations", def.Name, def.Mechanism))
		}
	case "mini-swe-agent":
		s.Format, s.File, s.Source = "yaml", "your mini-swe-agent config", "harness-config.md §4 (mini-swe-agent)"
		if def.Name != "keep-all" {
			return unsupported(fmt.Sprintf("mini-swe-agent has no history-management setting (its history is linear): %s cannot be configured; only model.observation_template shapes each output", def.Name))
		}
		s.Text = "# mini-swe-agent keeps the whole history: nothing to set\nagent: {}\n"
	case "gemini-cli":
		s.Format, s.File, s.Source = "json", "~/.gemini/settings.json or <project>/.gemini/settings.json", "harness-config.md §5 (Gemini CLI)"
		switch def.Name {
		case "compact-gemini":
			s.Text = jsonText(map[string]any{"model": map[string]any{"compressionThreshold": num("threshold")}})
			if v["preserve"] != "0.3" {
				s.Notes = append(s.Notes, "preserve (share of the history kept verbatim) has no setting: Gemini CLI keeps its own 0.3")
			}
		case "gemini-mask":
			s.Text = jsonText(map[string]any{"contextManagement": map[string]any{"tools": map[string]any{"outputMasking": map[string]any{
				"protectionThresholdTokens": num("protect"), "minPrunableThresholdTokens": num("prune"), "protectLatestTurn": v["protect_latest_turn"] == "true"}}}})
			s.Notes = append(s.Notes, "declared but not wired at gemini-cli 5411f11: the CLI passes only {enabled} to core, so these values may be ignored (core defaults 50000 / 30000 / true used)")
			if v["preview"] != "500" {
				s.Notes = append(s.Notes, "preview (characters kept in the placeholder) has no setting")
			}
		default:
			return unsupported(fmt.Sprintf("Gemini CLI has no setting for %s (%s): it sets the compression threshold (compact-gemini), tool-output masking (gemini-mask) and a per-output truncation size; compression has no off switch", def.Name, def.Mechanism))
		}
	case "anthropic-api":
		s.Format, s.File, s.Source = "json", "the Messages API request body, with header anthropic-beta: context-management-2025-06-27", "harness-config.md §6 (Anthropic Messages API)"
		switch def.Name {
		case "keep-all":
			s.Text = jsonText(map[string]any{"context_management": map[string]any{"edits": []any{}}})
		case "clear-tool-uses":
			edit := map[string]any{"type": "clear_tool_uses_20250919",
				"trigger": map[string]any{"type": "input_tokens", "value": int64(num("trigger"))},
				"keep":    map[string]any{"type": "tool_uses", "value": int64(num("keep"))}}
			if c := int64(num("clear_at_least")); c > 0 {
				edit["clear_at_least"] = map[string]any{"type": "input_tokens", "value": c}
			}
			if ex := splitList(v["exclude_tools"]); len(ex) > 0 {
				edit["exclude_tools"] = ex
			}
			if v["clear_tool_inputs"] == "true" {
				edit["clear_tool_inputs"] = true
			}
			s.Text = jsonText(map[string]any{"context_management": map[string]any{"edits": []any{edit}}})
		default:
			return unsupported(fmt.Sprintf("the Messages API's context edits are clear_tool_uses, clear_thinking and server-side compaction (compact_20260112, an input-token trigger); %s (%s) is none of them", def.Name, def.Mechanism))
		}
	case "dtoc":
		s.Format, s.File, s.Source = "json", "the orchestrator's tool list (the manage_context tool the agent is given)", "DTOC seed paper, §3.2 (manage_context)"
		if def.Name == "keep-all" {
			s.Format, s.Text = "shell", "# keep-all: give the agent no manage_context tool and wrap no tool output in the envelope: every output stays in full\n"
			s.Notes = append(s.Notes, "the orchestrator without DTOC: the replay dropped the agent's context-only manage_context calls")
			break
		}
		mode := map[string]string{"dtoc": "full", "dtoc-oracle": "full", "dtoc-disable-only": "disable-only", "dtoc-tracking": "tracking"}[def.Name]
		if mode == "" {
			return unsupported(fmt.Sprintf("DTOC leaves compression to the agent through manage_context; %s (%s) is a mechanical policy, not a DTOC configuration", def.Name, def.Mechanism))
		}
		tool := map[string]any{"type": "function", "function": map[string]any{
			"name":        "manage_context",
			"description": "Use this tool when you feel the context limit is increasing and there are some tool outputs whose content is no longer relevant to the current reasoning step. One can disable such outputs to free up context space, and re-enable them later if needed.",
			"parameters": map[string]any{"type": "object", "properties": map[string]any{
				"enable":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "tool keys to restore in full"},
				"disable": map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "tool keys to replace by a placeholder"},
			}}}}
		switch mode {
		case "tracking":
			s.Text = "# tracking only: wrap every tool output in the envelope, give the agent no manage_context tool\n" +
				"# {\"tool_key\": \"<id>\", \"tool_result\": \"<output>\", \"estimated_tokens\": <len/4>}\n"
			s.Format = "shell"
			s.Notes = append(s.Notes, "the envelope's fields are the seed's; the seed names no setting for the mode: it is how the orchestrator is built")
		case "disable-only":
			delete(tool["function"].(map[string]any)["parameters"].(map[string]any)["properties"].(map[string]any), "enable")
			s.Text = jsonText(tool)
			s.Notes = append(s.Notes, "disable-only: the tool offers no enable (a hidden output never returns); the seed names no setting for the mode")
		default:
			s.Text = jsonText(tool)
			s.Notes = append(s.Notes, "description verbatim from the seed; placeholders carry the tool key, timestamp and token estimate (≈30–50 tokens)")
		}
		if def.Name == "dtoc-oracle" {
			s.Notes = append(s.Notes, "dtoc-oracle is an upper bound (it knows which output a later call uses): DTOC with the agent deciding is the configuration that approaches it")
		}
	default:
		return Snippet{}, fmt.Errorf("unknown harness %q (known: %s)", harness, strings.Join(Harnesses, ", "))
	}
	s.Supported = true
	return s, nil
}

// jsonText is v as indented JSON with sorted keys and a final newline.
func jsonText(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err) // maps of strings, numbers and bools only
	}
	return string(b) + "\n"
}

// splitList splits a ';'-separated parameter value.
func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ";") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	sort.Strings(out)
	return out
}

// harnessGrids are the candidates a harness can be configured to run: its
// own mechanisms with a few settings each (keep-all, the reference, first).
var harnessGrids = map[string][]string{
	"claude-code":    {"keep-all", "compact-claude-code", "compact-claude-code(threshold=0.7)", "compact-claude-code(threshold=0.6)", "compact-claude-code(threshold=0.5)"},
	"codex":          {"keep-all", "compact-codex", "compact-codex(threshold=0.8)", "compact-codex(threshold=0.7)", "compact-codex(threshold=0.6)"},
	"openhands":      {"keep-all", "mask(n=30,unit=events)", "mask(n=60,unit=events)", "mask(n=100,unit=events)", "compact-openhands(max_size=40)", "compact-openhands(max_size=80)", "compact-openhands"},
	"swe-agent":      {"keep-all", "mask(n=5)", "mask(n=10)", "mask(n=20)", "mask(n=5,polling=5)", "mask(n=10,polling=10)", "mask(n=20,polling=20)"},
	"mini-swe-agent": {"keep-all"},
	"gemini-cli":     {"keep-all", "compact-gemini", "compact-gemini(threshold=0.7)", "compact-gemini(threshold=0.3)", "gemini-mask", "gemini-mask(protect=30000,prune=15000)"},
	"anthropic-api": {"keep-all", "clear-tool-uses", "clear-tool-uses(trigger=60000,keep=5)", "clear-tool-uses(trigger=30000,keep=3)", "clear-tool-uses(trigger=30000,keep=3,clear_tool_inputs=true)",
		"clear-tool-uses(clear_at_least=20000)", "clear-tool-uses(trigger=60000,keep=5,clear_at_least=20000)", "clear-tool-uses(trigger=30000,keep=3,clear_at_least=10000)"},
	"dtoc": {"keep-all", "dtoc", "dtoc-disable-only"},
}

// GridFor is the candidate grid for a recommendation to be run in harness:
// specs (the caller's --grid, else DefaultGrid, which holds the harness's
// own grid) kept where harness can run them; keep-all is always there, as
// the reference every candidate is compared with. With no specs it is
// the default grid's candidates harness can run, so recommend --config
// HARNESS and the default recommend choose among the same ones for a
// family of that harness's runs.
func GridFor(harness string, specs []string) ([]string, error) {
	if !slices.Contains(Harnesses, harness) {
		return nil, fmt.Errorf("unknown harness %q (known: %s)", harness, strings.Join(Harnesses, ", "))
	}
	if len(specs) == 0 {
		specs = DefaultGrid
	}
	out := []string{"keep-all"}
	for _, s := range specs {
		sn, err := HarnessConfig(harness, s, 0)
		if err != nil {
			return nil, err
		}
		if sn.Supported && !slices.Contains(out, s) && s != simulate.AsLoggedName && Mechanism(s) != simulate.MechanismNone {
			out = append(out, s)
		}
	}
	return out, nil
}

// configHarness maps the harness a run's log names (runs.harness) to the
// harness whose settings HarnessConfig writes; "" for one with no known
// settings (eval frameworks, plain message lists, traces), whose runs do
// not restrict the candidates.
var configHarness = map[string]string{
	"claude-code": "claude-code", "codex-cli": "codex", "codex": "codex",
	"openhands": "openhands", "openhands-sdk": "openhands",
	"swe-agent": "swe-agent", "mini-swe-agent": "mini-swe-agent", "gemini-cli": "gemini-cli",
}

// ConfigHarness is the settings harness of a run's harness (configHarness).
func ConfigHarness(runHarness string) string { return configHarness[runHarness] }

// Runnable reports whether spec can be run for runs of runHarnesses
// (runs.harness) of a model family, and why not otherwise: the
// recommendation's harness gate (issue 13: candidates restricted to what
// the runs' harness can actually be set to do; issue 27: by every harness
// the runs used, not by some).
//
//   - What ran always can (the reference); so can the dtoc policies, an
//     orchestrator's tool, not a harness setting (the behaviour rule
//     decides), but an oracle (an upper bound that knows which output a
//     later call uses) never.
//   - Otherwise every harness of the runs must have a setting for it
//     (HarnessConfig supported: keep-all, which turns the harness's context
//     management off, too; Codex and Gemini CLI cannot); runs of a harness
//     with no known settings (ConfigHarness "": eval frameworks, plain
//     message lists, traces) take only API-level settings (APIHarnesses:
//     the Anthropic Messages API for Claude families), or keep-all, which
//     needs no setting in a loop of your own.
//   - anyMechanism lifts both but for another harness's own mechanism
//     (simulate.Def.Harness), which needs a run of that harness.
func Runnable(spec string, runHarnesses map[string]bool, family string, anyMechanism bool) (bool, string) {
	def, _, err := simulate.Values(spec)
	if err != nil {
		return false, err.Error()
	}
	if strings.Contains(def.Name, "oracle") {
		return false, "an upper bound (it knows which output a later call uses): no agent can run it"
	}
	switch def.Mechanism {
	case simulate.MechanismLogged, simulate.MechanismDtoc:
		return true, ""
	}
	if anyMechanism {
		if h := def.Harness; h != "" && !slices.ContainsFunc(slices.Collect(maps.Keys(runHarnesses)), func(have string) bool { return strings.HasPrefix(have, h) }) {
			return false, fmt.Sprintf("%s's own mechanism; no run of this family comes from %s", h, h)
		}
		return true, ""
	}
	var cannot, unknown []string
	for _, h := range slices.Sorted(maps.Keys(runHarnesses)) {
		ch := ConfigHarness(h)
		if ch == "" {
			// keep-all needs no setting where the loop is yours: it sends the whole history
			if def.Mechanism != simulate.MechanismNone && !slices.ContainsFunc(APIHarnesses(family), func(api string) bool { return supports(api, spec) }) {
				unknown = append(unknown, orUnknown(h))
			}
			continue
		}
		if !supports(ch, spec) && !slices.Contains(cannot, ch) {
			cannot = append(cannot, ch)
		}
	}
	var why []string
	if len(cannot) > 0 {
		why = append(why, fmt.Sprintf("%s cannot be configured to run it (recommend --config %s shows what it can)", strings.Join(cannot, ", "), cannot[0]))
	}
	if len(unknown) > 0 {
		why = append(why, fmt.Sprintf("runs of %s take only API-level settings (%s), and none runs it", unknownHarnesses(unknown), strings.Join(APIHarnesses(family), ", ")))
	}
	if len(why) > 0 {
		return false, strings.Join(why, "; ") + " (--any-mechanism lifts this rule)"
	}
	return true, ""
}

// unknownHarnesses names harnesses with no known settings: "inspect-ai, a
// harness with no known settings", "a and b, harnesses with no known
// settings".
func unknownHarnesses(hs []string) string {
	if len(hs) == 1 {
		return hs[0] + ", a harness with no known settings,"
	}
	return strings.Join(hs[:len(hs)-1], ", ") + " and " + hs[len(hs)-1] + ", harnesses with no known settings,"
}

// supports reports whether harness has a setting for spec.
func supports(harness, spec string) bool {
	s, err := HarnessConfig(harness, spec, 0)
	return err == nil && s.Supported
}
