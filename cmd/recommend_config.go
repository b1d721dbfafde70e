package cmd

import (
	"fmt"
	"io"
	"strings"

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
		if pf := recommend.PolicyFamily(r.Policy); pf == simulate.MechanismNone || pf == simulate.MechanismLogged {
			// what ran (or keep-all) was not beaten: that is no reason to
			// change a harness's own context management
			fmt.Fprintf(w, "# %s: no change recommended: keep your current settings\n", harness)
			continue
		}
		s, err := recommend.HarnessConfig(harness, r.Policy, window)
		if err != nil {
			return err
		}
		if !s.Supported {
			fmt.Fprintf(w, "# %s: no snippet: %s\n", harness, strings.Join(s.Notes, "; "))
			continue
		}
		fmt.Fprintf(w, "# %s, in %s (%s):\n", harness, s.File, s.Source)
		fmt.Fprint(w, s.Text)
		for _, n := range s.Notes {
			fmt.Fprintf(w, "# note: %s\n", n)
		}
	}
	return nil
}
