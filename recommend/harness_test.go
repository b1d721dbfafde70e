package recommend_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/goccy/go-yaml"

	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/recommend"
)

// parseSnippet parses a snippet with its format's own parser into a
// generic value (shell: the exported NAME=VALUE pairs).
func parseSnippet(t *testing.T, s recommend.Snippet) any {
	t.Helper()
	var v any
	var err error
	switch s.Format {
	case "json":
		err = json.Unmarshal([]byte(s.Text), &v)
	case "toml":
		var m map[string]any
		_, err = toml.Decode(s.Text, &m)
		v = m
	case "yaml":
		err = yaml.Unmarshal([]byte(s.Text), &v)
	case "shell":
		m := map[string]any{}
		for _, line := range strings.Split(strings.TrimSpace(s.Text), "\n") {
			if strings.HasPrefix(line, "#") {
				continue
			}
			kv, ok := strings.CutPrefix(line, "export ")
			name, val, ok2 := strings.Cut(kv, "=")
			if !ok || !ok2 || !regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`).MatchString(name) {
				t.Fatalf("not a shell export: %q", line)
			}
			m[name] = val
		}
		v = m
	default:
		t.Fatalf("format %q", s.Format)
	}
	if err != nil {
		t.Fatalf("%s snippet does not parse as %s: %v\n%s", s.Harness, s.Format, err, s.Text)
	}
	return v
}

// at follows a path of map keys and list indexes ("edits.0.keep.value").
func at(v any, path string) any {
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			var i int
			fmt.Sscan(k, &i)
			if i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// TestHarnessConfig: each snippet parses with its format's parser, sets the
// documented setting (harness-config.md) to the value the policy's
// parameters give (hand-computed), and matches its golden file.
func TestHarnessConfig(t *testing.T) {
	for _, tc := range []struct {
		harness, spec string
		window        int64
		want          map[string]any // path → value, as the parser returns it
		note          string         // a note that must be there
	}{
		{"claude-code", "keep-all", 0, map[string]any{"autoCompactEnabled": false}, "turns auto-compaction off"},
		{"claude-code", "compact-claude-code", 0, map[string]any{"autoCompactEnabled": true}, "default"},
		// 0.7 × 100 = 70 %
		{"claude-code", "compact-claude-code(threshold=0.7)", 0, map[string]any{"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "70"}, "can only lower"},
		// 0.8 × 200,000 = 160,000 tokens
		{"codex", "compact-codex(threshold=0.8)", 200000, map[string]any{"model_auto_compact_token_limit": int64(160000), "model_context_window": int64(200000)}, "min(model_auto_compact_token_limit"},
		// no window: Codex's fallback 272,000; 0.9 × 272,000 = 244,800
		{"codex", "compact-codex", 0, map[string]any{"model_auto_compact_token_limit": int64(244800)}, "fallback"},
		{"openhands", "keep-all", 0, map[string]any{"condenser.type": "noop"}, ""},
		{"openhands", "mask(n=60,unit=events)", 0, map[string]any{"condenser.type": "observation_masking", "condenser.attention_window": int64(60)}, ""},
		{"openhands", "mask(n=10)", 0, map[string]any{"condenser.attention_window": int64(10)}, "counts events, not observations"},
		{"openhands", "compact-openhands(max_size=80)", 0, map[string]any{"condenser.type": "llm", "condenser.max_size": int64(80), "condenser.keep_first": int64(1), "condenser.llm_config": "condenser"}, "llm_config"},
		{"swe-agent", "mask(n=5)", 0, map[string]any{"agent.history_processors.0.type": "last_n_observations", "agent.history_processors.0.n": uint64(5), "agent.history_processors.0.polling": nil}, ""},
		// polling is last_n_observations' own parameter
		{"swe-agent", "mask(n=5,polling=5)", 0, map[string]any{"agent.history_processors.0.n": uint64(5), "agent.history_processors.0.polling": uint64(5)}, ""},
		{"swe-agent", "keep-all", 0, map[string]any{"agent.history_processors.0.type": "default"}, ""},
		{"mini-swe-agent", "keep-all", 0, map[string]any{}, ""},
		{"gemini-cli", "compact-gemini(threshold=0.7)", 0, map[string]any{"model.compressionThreshold": 0.7}, ""},
		{"gemini-cli", "gemini-mask(protect=40000,prune=20000)", 0, map[string]any{"contextManagement.tools.outputMasking.protectionThresholdTokens": 40000.0,
			"contextManagement.tools.outputMasking.minPrunableThresholdTokens": 20000.0, "contextManagement.tools.outputMasking.protectLatestTurn": true}, "not wired"},
		{"anthropic-api", "clear-tool-uses(trigger=50000,keep=5,clear_at_least=10000,exclude_tools=web;memory,clear_tool_inputs=true)", 0, map[string]any{
			"context_management.edits.0.type": "clear_tool_uses_20250919", "context_management.edits.0.trigger.type": "input_tokens",
			"context_management.edits.0.trigger.value": 50000.0, "context_management.edits.0.keep.value": 5.0, "context_management.edits.0.keep.type": "tool_uses",
			"context_management.edits.0.clear_at_least.value": 10000.0, "context_management.edits.0.exclude_tools.0": "memory",
			"context_management.edits.0.exclude_tools.1": "web", "context_management.edits.0.clear_tool_inputs": true}, ""},
		{"anthropic-api", "clear-tool-uses", 0, map[string]any{"context_management.edits.0.trigger.value": 100000.0, "context_management.edits.0.keep.value": 3.0,
			"context_management.edits.0.clear_at_least": nil, "context_management.edits.0.exclude_tools": nil}, ""},
		{"dtoc", "dtoc", 0, map[string]any{"function.name": "manage_context", "function.parameters.properties.enable.type": "array", "function.parameters.properties.disable.type": "array"}, "verbatim"},
		{"dtoc", "dtoc-disable-only", 0, map[string]any{"function.parameters.properties.enable": nil, "function.parameters.properties.disable.type": "array"}, "disable-only"},
	} {
		name := tc.harness + "__" + strings.NewReplacer("(", "_", ")", "", ",", "_", "=", "-", ";", "+").Replace(tc.spec)
		t.Run(name, func(t *testing.T) {
			s, err := recommend.HarnessConfig(tc.harness, tc.spec, tc.window)
			if err != nil {
				t.Fatal(err)
			}
			if !s.Supported || s.Text == "" || s.File == "" || s.Source == "" {
				t.Fatalf("not a snippet: %+v", s)
			}
			v := parseSnippet(t, s)
			for path, want := range tc.want {
				if got := at(v, path); fmt.Sprint(got) != fmt.Sprint(want) || (want != nil && fmt.Sprintf("%T", got) != fmt.Sprintf("%T", want)) {
					t.Errorf("%s = %v (%T), want %v (%T)", path, got, got, want, want)
				}
			}
			if tc.note != "" && !strings.Contains(strings.Join(s.Notes, "\n"), tc.note) {
				t.Errorf("notes %q lack %q", s.Notes, tc.note)
			}
			testutil.Golden(t, fmt.Sprintf("# %s (%s), %s\n%s# notes:\n# %s\n", s.File, s.Format, s.Source, s.Text, strings.Join(s.Notes, "\n# ")),
				filepath.Join("testdata", "harness", name+".golden"))
		})
	}
}

// TestHarnessConfigUnsupported: a policy a harness cannot run gives no
// snippet and says why, naming what the harness can do; an unknown harness
// or spec is an error.
func TestHarnessConfigUnsupported(t *testing.T) {
	for _, tc := range []struct{ harness, spec, says string }{
		{"claude-code", "mask(n=5)", "no setting for mask"},
		{"claude-code", "clear-tool-uses", "anthropic-api"},
		{"codex", "halflife", "no setting for halflife"},
		{"codex", "keep-all", "no setting for keep-all"},
		{"openhands", "halflife", "no condenser for halflife"},
		{"swe-agent", "compact-claude-code", "no history processor"},
		{"mini-swe-agent", "mask(n=5)", "no history-management setting"},
		{"openhands", "mask(n=60,unit=events,polling=10)", "has no polling"},
		{"gemini-cli", "keep-all", "no off switch"},
		{"anthropic-api", "mask", "none of them"},
		{"dtoc", "halflife", "mechanical policy"},
	} {
		s, err := recommend.HarnessConfig(tc.harness, tc.spec, 0)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.harness, tc.spec, err)
		}
		if s.Supported || s.Text != "" || !strings.Contains(strings.Join(s.Notes, " "), tc.says) {
			t.Errorf("%s %s: %+v; want unsupported, saying %q", tc.harness, tc.spec, s, tc.says)
		}
	}
	if _, err := recommend.HarnessConfig("vim", "keep-all", 0); err == nil || !strings.Contains(err.Error(), "known: claude-code") {
		t.Errorf("unknown harness: %v", err)
	}
	if _, err := recommend.HarnessConfig("codex", "nope", 0); err == nil {
		t.Error("unknown policy accepted")
	}
}

// TestHarnessConfigEveryPolicy: every catalog policy, in every harness,
// either yields a snippet that parses or says why not (no error, no panic).
func TestHarnessConfigEveryPolicy(t *testing.T) {
	for _, h := range recommend.Harnesses {
		for _, spec := range []string{"keep-all", "truncate", "dtoc", "dtoc-disable-only", "dtoc-tracking", "dtoc-oracle", "halflife", "mask", "clear-tool-uses",
			"compact-claude-code", "compact-codex", "compact-openhands", "compact-gemini", "compact-goose", "gemini-mask",
			"tracer-uniform", "tracer-recency", "tracer-proportional", "tracer-tooltype"} {
			s, err := recommend.HarnessConfig(h, spec, 128000)
			if err != nil {
				t.Errorf("%s %s: %v", h, spec, err)
				continue
			}
			if s.Supported {
				parseSnippet(t, s)
			} else if len(s.Notes) == 0 {
				t.Errorf("%s %s: unsupported without a reason", h, spec)
			}
		}
	}
}

// TestGridFor: a harness's own grid holds only policies it can run (every
// entry yields a snippet), keep-all first; a caller's grid is filtered to
// them.
func TestGridFor(t *testing.T) {
	for _, h := range recommend.Harnesses {
		g, err := recommend.GridFor(h, nil)
		if err != nil || len(g) == 0 || g[0] != "keep-all" {
			t.Fatalf("%s: %v, %v", h, g, err)
		}
		for _, spec := range g[1:] {
			if s, err := recommend.HarnessConfig(h, spec, 0); err != nil || !s.Supported {
				t.Errorf("%s grid has %s, which it cannot run: %v %v", h, spec, s.Notes, err)
			}
		}
	}
	g, err := recommend.GridFor("swe-agent", []string{"halflife", "mask(n=7)", "compact-codex", "mask(n=7)"})
	if err != nil || strings.Join(g, " ") != "keep-all mask(n=7)" {
		t.Errorf("filtered grid %v, %v; want keep-all mask(n=7)", g, err)
	}
	if _, err := recommend.GridFor("vim", nil); err == nil {
		t.Error("unknown harness accepted")
	}
}

// TestHarnessOwner checks which harness owns each policy, as the catalog
// says: the expected values are the harnesses' own documentation (survey
// §5.4, §6.3, §2.6, §8.4, §8.1), parameters and spacing aside.
func TestHarnessOwner(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"compact-claude-code", "claude-code"},
		{"compact-claude-code(threshold=0.7)", "claude-code"},
		{"compact-codex", "codex"},
		{" compact-openhands (max_size=40)", "openhands"},
		{"compact-gemini", "gemini-cli"},
		{"gemini-mask", "gemini-cli"},
		{"compact-goose", "goose"},
		{"mask(n=10)", ""},
		{"keep-all", ""},
		{"dtoc", ""},
		{"no-such-policy", ""},
	} {
		if got := recommend.Harness(tc.spec); got != tc.want {
			t.Errorf("Harness(%q) = %q, want %q", tc.spec, got, tc.want)
		}
	}
}

// TestRunnable: the harness gate (issue 27, point 4): runnable by every
// harness the family's runs used, as harness-config.md gives their
// settings; runs of a harness with no known settings take only API-level
// settings (the Anthropic Messages API for Claude models), or keep-all.
func TestRunnable(t *testing.T) {
	for _, tc := range []struct {
		spec, family string
		runs         []string
		any          bool
		want         bool
	}{
		{"keep-all", "claude-sonnet-4", []string{"claude-code"}, false, true},       // autoCompactEnabled: false
		{"keep-all", "gpt-5", []string{"codex-cli"}, false, false},                  // Codex cannot turn compaction off
		{"keep-all", "gemini-2.5-pro", []string{"gemini-cli"}, false, false},        // nor can Gemini CLI
		{"keep-all", "gpt-4o", []string{"openai-messages"}, false, true},            // your own loop: no setting needed
		{"as-logged", "gpt-5", []string{"codex-cli"}, false, true},                  // the reference
		{"mask(n=5)", "gpt-4o", []string{"swe-agent"}, false, true},                 // last_n_observations
		{"mask(n=5)", "gpt-4o", []string{"swe-agent", "claude-code"}, false, false}, // not by every harness
		{"mask(n=5)", "gpt-4o", []string{"openai-messages"}, false, false},          // not API-level
		{"clear-tool-uses", "claude-sonnet-4", []string{"inspect-ai"}, false, true}, // the Messages API's context edits
		{"clear-tool-uses", "gpt-4o", []string{"inspect-ai"}, false, false},         // not a Claude model
		{"compact-codex", "gpt-5", []string{"codex-cli"}, false, true},
		{"compact-codex", "gpt-5", []string{"codex-cli", "claude-code"}, false, false},
		{"compact-codex", "gpt-5", []string{"claude-code"}, true, false}, // another harness's own mechanism
		{"mask(n=5)", "gpt-5", []string{"claude-code"}, true, true},      // --any-mechanism
		{"dtoc", "gpt-4o", []string{"codex-cli"}, false, true},           // the orchestrator's tool
		{"dtoc-oracle", "gpt-4o", []string{"codex-cli"}, true, false},    // an upper bound
	} {
		runs := map[string]bool{}
		for _, h := range tc.runs {
			runs[h] = true
		}
		got, why := recommend.Runnable(tc.spec, runs, tc.family, tc.any)
		if got != tc.want || got == (why != "") {
			t.Errorf("Runnable(%s, %v, %s, any=%v) = %v (%q), want %v", tc.spec, tc.runs, tc.family, tc.any, got, why, tc.want)
		}
	}
}
