package cmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/trajmine/trajmine/analysis"
	"github.com/trajmine/trajmine/recommend"
	"github.com/trajmine/trajmine/simulate"
)

// writeHarnessConfigs prints, per model family, its recommended policy as
// harness's own settings (recommend.HarnessConfig), or why there is none.
func writeHarnessConfigs(w io.Writer, rs []recommend.Result, harness string, window int64) error {
	if len(rs) == 0 {
		fmt.Fprintln(w, "no runs: import some with trajmine ingest")
		return nil
	}
	for i, r := range rs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "# %s (%s): %s\n", r.Family, countOf(r.Runs, "run"), r.Why)
		if r.Policy == "" {
			fmt.Fprintf(w, "# %s: no snippet: no policy is recommended on this evidence\n", harness)
			continue
		}
		if recommend.Mechanism(r.Policy) == simulate.MechanismLogged {
			// what ran was not beaten: that is no reason to change a
			// harness's own context management (keep-all, which turns it
			// off, is a change: recommended only when it costs less)
			fmt.Fprintf(w, "# %s: no change recommended: keep your current settings\n", harness)
			continue
		}
		drops := analysis.DropsManageContext(r)
		s, err := recommend.HarnessConfig(harness, r.Policy, window)
		if err != nil {
			return err
		}
		if drops {
			// the winner was replayed without the agent's manage_context
			// calls: that is part of what to change
			fmt.Fprintf(w, "# %s: remove the manage_context tool from the agent's tools (the orchestrator's tool list; DTOC's, --config dtoc shows it): %s was replayed without the agent's context-only manage_context calls, and its saving comes with them gone\n", harness, r.Short)
		}
		if !s.Supported {
			fmt.Fprintf(w, "# %s: no snippet: %s\n", harness, strings.Join(s.Notes, "; "))
			continue
		}
		if r.Choice.Harness != "" {
			fmt.Fprintf(w, "# note: %s\n", r.Choice.Harness)
		}
		fmt.Fprintf(w, "# %s, in %s (%s):\n", harness, s.File, s.Source)
		fmt.Fprint(w, s.Text)
		for _, n := range s.Notes {
			fmt.Fprintf(w, "# note: %s\n", n)
		}
	}
	return nil
}
