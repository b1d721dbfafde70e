package analysis

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/trajmine/trajmine/counterfactual"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/schema"
)

// The uses of the runs that disable outputs, stored after an import
// (DeriveUses) and read back by mine's profiles (storedUses).

// storedUses turns a run's stored uses back into counterfactual.Uses'
// form over its events (seq order): Output is the index of the used
// tool_result, Call and Kind as stored; Event (the using event) is not
// stored and is -1, and content uses carry no evidence words: what
// behavior.Run reads of a use is its output, call and kind.
func storedUses(events []schema.Event, su []store.StoredUse) []counterfactual.Use {
	out := make([]counterfactual.Use, 0, len(su))
	for _, u := range su {
		i, ok := slices.BinarySearchFunc(events, u.OutputSeq, func(e schema.Event, seq int64) int { return cmp.Compare(e.Seq, seq) })
		if !ok {
			continue
		}
		k := counterfactual.UseContent
		if u.Kind == counterfactual.UseTarget.String() {
			k = counterfactual.UseTarget
		}
		out = append(out, counterfactual.Use{Output: i, Event: -1, Call: u.Call, Kind: k})
	}
	return out
}

// DeriveUses stores the uses (counterfactual.Uses, but re-enables) of the
// runs with disable ops whose uses are not stored for their current
// source at counterfactual.UsesVersion, in the tables schema.UsesRuns and
// schema.OutputUses, so that trajmine mine profiles them without their
// text. It returns how many runs it derived; trajmine ingest calls it
// after an import.
func DeriveUses(ctx context.Context, st *store.Store) (int, error) {
	ids, err := st.RunsWithoutUses(ctx, counterfactual.UsesVersion)
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	env, err := NewEnv(ctx, st)
	if err != nil {
		return 0, err
	}
	d := &usesDeriver{}
	if err := Pass(ctx, st, store.ScanOptions{RunIDs: ids}, env, Of(d)); err != nil {
		return 0, fmt.Errorf("derive uses: %w", err)
	}
	// the rows of these runs are replaced; those of runs no longer in the
	// store (their source re-imported) go too
	where, args := "run_id IN (SELECT unnest(?::VARCHAR[])) OR run_id NOT IN (SELECT run_id FROM runs)", []any{ids}
	err = st.WriteDerived(ctx,
		store.Derived{Table: schema.UsesRuns, Where: where, Args: args, Rows: func(add func(...any) error) error {
			for _, r := range d.runs {
				if err := add(r.run.RunID, r.run.SourceSHA256, int64(counterfactual.UsesVersion), int64(len(r.uses))); err != nil {
					return err
				}
			}
			return nil
		}},
		store.Derived{Table: schema.OutputUses, Where: where, Args: args, Rows: func(add func(...any) error) error {
			for _, r := range d.runs {
				for _, u := range r.uses {
					if err := add(r.run.RunID, u.OutputSeq, u.Call, u.Kind); err != nil {
						return err
					}
				}
			}
			return nil
		}})
	if err != nil {
		return 0, fmt.Errorf("derive uses: %w", err)
	}
	return len(d.runs), nil
}

// usesDeriver collects the uses of each run of the pass (a Consumer).
type usesDeriver struct {
	runs []derivedUses
}

type derivedUses struct {
	run  schema.Run
	uses []store.StoredUse
}

func (d *usesDeriver) Worker() (func(*RunWork) *derivedUses, error) {
	return func(w *RunWork) *derivedUses {
		r := &derivedUses{run: w.Run, uses: []store.StoredUse{}}
		for _, u := range w.Uses() {
			if u.Kind == counterfactual.UseEnable {
				continue // a re-enable is not a use here (behavior.Run measures it as such)
			}
			r.uses = append(r.uses, store.StoredUse{OutputSeq: w.Events[u.Output].Seq, Call: u.Call, Kind: u.Kind.String()})
		}
		return r
	}, nil
}

func (d *usesDeriver) Add(r *derivedUses) error {
	d.runs = append(d.runs, *r)
	return nil
}
