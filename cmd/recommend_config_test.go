package cmd

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/recommend"
)

// TestWriteHarnessConfigs: per family, a recommended policy the harness can
// run is its snippet; what ran or keep-all is "no change"; a family with
// no recommendation, or a policy the harness cannot run, says why (golden).
func TestWriteHarnessConfigs(t *testing.T) {
	rs := []recommend.Result{
		{Family: "claude-sonnet-4", Runs: 40, Policy: "mask(n=5)", Why: "mask(n=5): saves 31.0% [22.0%, 38.0%] of what ran on 10 held-out runs"},
		{Family: "gpt-5", Runs: 30, Policy: "as-logged", Why: "what ran: no candidate beat it on held-out runs"},
		{Family: "gemini-2.5", Runs: 25, Policy: "compact-gemini(threshold=0.7)", Why: "compact-gemini(threshold=0.7): saves 12.0% [3.0%, 20.0%]"},
		{Family: "kimi-k2", Runs: 3, Why: "insufficient evidence: 3 runs (3 training, 0 held out)"},
	}
	for _, h := range []string{"swe-agent", "gemini-cli"} {
		var b strings.Builder
		if err := writeHarnessConfigs(&b, rs, h, 0); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, want := range map[string][]string{
			"swe-agent":  {"type: last_n_observations", "n: 5", "# swe-agent: no change recommended", "# swe-agent: no snippet: no policy is recommended", "SWE-agent has no history processor for compact-gemini"},
			"gemini-cli": {"\"compressionThreshold\": 0.7", "# gemini-cli: no change recommended", "Gemini CLI has no setting for mask"},
		}[h] {
			if !strings.Contains(out, want) {
				t.Errorf("%s: output lacks %q:\n%s", h, want, out)
			}
		}
		testutil.Golden(t, out, filepath.Join("testdata", "recommend-write-config-"+h+".stdout"))
	}
}
