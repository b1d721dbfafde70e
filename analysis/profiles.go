package analysis

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/trajmine/trajmine/actions"
	"github.com/trajmine/trajmine/behavior"
	"github.com/trajmine/trajmine/counterfactual"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/schema"
)

// The behaviour profile of every run, stored after an import
// (DeriveProfiles) and read back by mine (mineBehaviour).

// ProfileFingerprint names what a stored profile was computed with:
// behavior.ProfileVersion (Run's answers), counterfactual.UsesVersion (the
// uses it measures hides by) and actions.DefaultFingerprint (the classes of
// hidden outputs' calls). mine reads back only profiles of its own
// fingerprint; the options are behavior's defaults, which mine uses.
func ProfileFingerprint() string {
	return "profile-v" + strconv.Itoa(behavior.ProfileVersion) + "/uses-v" + strconv.Itoa(counterfactual.UsesVersion) + "/" + actions.DefaultFingerprint()
}

// DeriveProfiles stores the profile (behavior.Run, the options mine uses)
// of every run whose profile is not stored for its current source under
// ProfileFingerprint, in the table schema.RunProfiles, so that trajmine
// mine reads no events for its profiles. It reads the runs as mine's
// profileRuns does: the events of the runs with context ops or
// manage_context calls (with the uses DeriveUses stored: call that
// first), every other run's shape. It returns how many runs it profiled;
// trajmine ingest calls it after DeriveUses.
func DeriveProfiles(ctx context.Context, st *store.Store) (int, error) {
	fp := ProfileFingerprint()
	want, runs, err := st.RunsWithoutProfiles(ctx, fp)
	if err != nil || len(want) == 0 {
		return 0, err
	}
	env, err := NewEnv(ctx, st)
	if err != nil {
		return 0, err
	}
	only := make(map[string]bool, len(want))
	ids := make([]string, 0, len(want))
	for id := range want {
		only[id] = true
		ids = append(ids, id)
	}
	keep := func(r *schema.Run) bool { _, ok := want[r.RunID]; return ok }
	if len(want) == runs {
		only = nil // every run: read whole, without run lists (keep still checks)
	}
	profiles, err := profileRuns(ctx, st, env, keep, only)
	if err != nil {
		return 0, fmt.Errorf("derive profiles: %w", err)
	}
	// the rows of these runs are replaced; those of runs no longer in the
	// store (their source re-imported) go too
	where := "run_id IN (SELECT unnest(?::VARCHAR[])) OR run_id NOT IN (SELECT run_id FROM runs)"
	err = st.WriteDerived(ctx, store.Derived{Table: schema.RunProfiles, Where: where, Args: []any{ids}, Rows: func(add func(...any) error) error {
		for i := range profiles {
			p := &profiles[i]
			b, err := json.Marshal(p)
			if err != nil {
				return fmt.Errorf("run %s: %w", p.RunID, err)
			}
			if err := add(p.RunID, want[p.RunID], fp, string(b)); err != nil {
				return err
			}
		}
		return nil
	}})
	if err != nil {
		return 0, fmt.Errorf("derive profiles: %w", err)
	}
	return len(profiles), nil
}
