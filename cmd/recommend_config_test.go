package cmd

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/recommend"
)

// TestWriteHarnessConfigs: per family, a recommended policy the harness can
// run is its snippet (keep-all too: it turns the harness's context
// management off, recommended only when that costs less); what ran is "no
// change"; keep-all (or any winner) replayed without the agent's
// manage_context calls says to remove the tool (issue 27: it was "no
// change recommended"); a winner offered as an API-level setting (the
// runs' harness has no known settings) says so; a family with no
// recommendation, or a policy the harness cannot run, says why (golden).
func TestWriteHarnessConfigs(t *testing.T) {
	keepAll := recommend.Candidate{Option: recommend.Option{Spec: "keep-all", DroppedContextCalls: 57}}
	rs := []recommend.Result{
		{Family: "claude-sonnet-4", Runs: 40, Policy: "mask(n=5)", Why: "mask(n=5): saves 31.0% [22.0%, 38.0%] of what ran on 10 held-out runs"},
		{Family: "gpt-5", Runs: 30, Policy: "as-logged", Why: "what ran: no candidate beat it on held-out runs"},
		{Family: "gemini-2.5", Runs: 25, Policy: "compact-gemini(threshold=0.7)", Why: "compact-gemini(threshold=0.7): saves 12.0% [3.0%, 20.0%]"},
		{Family: "kimi-k2", Runs: 3, Why: "insufficient evidence: 3 runs (3 training, 0 held out)"},
		{Family: "gpt-4o", Runs: 30, Policy: "keep-all", Short: "keep-all", Why: "keep-all: cost × 0.81 [0.75, 0.88] without the agent's manage_context calls",
			Candidates: []recommend.Candidate{keepAll}},
		{Family: "gpt-4.1", Runs: 30, Policy: "keep-all", Short: "keep-all", Why: "keep-all: cost × 0.98 [0.97, 0.99]",
			Candidates: []recommend.Candidate{{Option: recommend.Option{Spec: "keep-all"}}}},
		{Family: "claude-haiku-4", Runs: 30, Policy: "mask(n=10)", Short: "mask", Why: "mask: cost × 0.9 [0.85, 0.95]",
			Choice: recommend.Choice{Harness: "runs of inspect-ai, a harness with no known settings: only API-level settings are offered (anthropic-api, dtoc)"}},
	}
	for _, h := range []string{"swe-agent", "gemini-cli"} {
		var b strings.Builder
		if err := writeHarnessConfigs(&b, rs, h, 0); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, want := range map[string][]string{
			"swe-agent": {"type: last_n_observations", "n: 5", "# swe-agent: no change recommended", "# swe-agent: no snippet: no policy is recommended", "SWE-agent has no history processor for compact-gemini",
				"# swe-agent: remove the manage_context tool from the agent's tools", "    - type: default", "# note: runs of inspect-ai, a harness with no known settings: only API-level settings are offered (anthropic-api, dtoc)"},
			"gemini-cli": {"\"compressionThreshold\": 0.7", "# gemini-cli: no change recommended", "Gemini CLI has no setting for mask", "# gemini-cli: remove the manage_context tool", "# gemini-cli: no snippet: Gemini CLI has no setting for keep-all"},
		}[h] {
			if !strings.Contains(out, want) {
				t.Errorf("%s: output lacks %q:\n%s", h, want, out)
			}
		}
		testutil.Golden(t, out, filepath.Join("testdata", "recommend-write-config-"+h+".stdout"))
	}
}
