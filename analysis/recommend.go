package analysis

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/trajmine/trajmine/behavior"
	"github.com/trajmine/trajmine/counterfactual"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/textfmt"
	"github.com/trajmine/trajmine/recommend"
	"github.com/trajmine/trajmine/schema"
	"github.com/trajmine/trajmine/simulate"
)

// RecommendOptions are what a recommendation depends on.
type RecommendOptions struct {
	Grid         []string // candidate specs; nil: the built-in grid
	Window       int64    // replay every run at this window; 0: each run's own
	HoldoutEvery uint32   // hold out runs whose FNV-1a(run id) mod this is 0
	MaxReinv     float64  // most predicted re-invocations per 100 calls a candidate may cause
	AnyMechanism bool     // candidates a family's run harnesses cannot be set to run stay eligible
	// TrainedOn holds the runs a learned candidate was trained on
	// (recommend.Options.TrainedOn: a held-out one among them is an error).
	TrainedOn map[string]bool
}

// RecommendStore chooses a policy per model family over the store (see
// trajmine recommend --help) in one shared pass with the behaviour
// profiles that label the families.
func RecommendStore(ctx context.Context, st *store.Store, o *RecommendOptions) ([]recommend.Result, error) {
	env, err := NewEnv(ctx, st)
	if err != nil {
		return nil, err
	}
	ra, err := NewRecommend(o)
	if err != nil {
		return nil, err
	}
	ba := NewBehaviour(env, nil)
	if err := Pass(ctx, st, store.ScanOptions{}, env, ra, ba); err != nil {
		return nil, err
	}
	return ra.Finish(ba.Groups())
}

// Recommend is recommend's part of the shared pass: each run's trace (as
// trajmine simulate replays it) replayed under every grid candidate, the
// outcomes kept per model family; the choice is made in Finish.
type Recommend struct {
	o    *RecommendOptions
	grid *recommend.Grid
	idx  map[string]int
	fams []recommend.FamilyOutcomes
}

type recRun struct {
	family string
	out    recommend.RunOutcome
}

// NewRecommend prepares the grid of candidates o names.
func NewRecommend(o *RecommendOptions) (*Recommend, error) {
	g, err := recommend.NewGrid(o.Grid, o.Window)
	if err != nil {
		return nil, err
	}
	return &Recommend{o: o, grid: g, idx: map[string]int{}}, nil
}

// Worker replays one run under every candidate (Analysis).
func (a *Recommend) Worker() (func(*RunWork) any, error) {
	g, err := a.grid.Fresh()
	if err != nil {
		return nil, err
	}
	var rp simulate.Replayer
	return func(w *RunWork) any {
		return recRun{family: textfmt.OrDash(w.Run.ModelFamily), out: g.Replay(&rp, w.Trace())}
	}, nil
}

// Add keeps one run's outcomes under its model family (Analysis).
func (a *Recommend) Add(v any) error {
	r := v.(recRun)
	i, ok := a.idx[r.family]
	if !ok {
		i = len(a.fams)
		a.idx[r.family] = i
		a.fams = append(a.fams, recommend.FamilyOutcomes{Name: r.family})
	}
	a.fams[i].Runs = append(a.fams[i].Runs, r.out)
	return nil
}

// Finish chooses per family (families by name, runs in scan order), with
// the families' behaviour labels from groups.
func (a *Recommend) Finish(groups []behavior.Group) ([]recommend.Result, error) {
	labels := map[string]string{}
	for _, g := range groups {
		labels[textfmt.OrDash(g.Key)] = string(g.Class.Label)
	}
	fams := slices.Clone(a.fams)
	slices.SortFunc(fams, func(x, y recommend.FamilyOutcomes) int { return cmp.Compare(x.Name, y.Name) })
	o := a.o
	return recommend.Decide(fams, a.grid, recommend.Options{Grid: o.Grid, Window: o.Window, HoldoutEvery: o.HoldoutEvery,
		MaxReinvPer100: o.MaxReinv, AnyMechanism: o.AnyMechanism, TrainedOn: o.TrainedOn, Label: func(f string) string { return labels[f] }})
}

// Behaviour profiles each run's context management (package
// behavior) in the shared pass; Groups pools them per model family.
type Behaviour struct {
	o        *behavior.Options
	keep     func(*schema.Run) bool // nil keeps every run
	profiles []behavior.RunProfile
	// stored are uses read from the store (store.StoredUses) for runs
	// scanned without text: their profiles take these instead of
	// counterfactual.Uses of their events (mine only; see mineBehaviour).
	stored map[string][]store.StoredUse
}

// NewBehaviour profiles the runs keep selects (nil: every run).
func NewBehaviour(env *Env, keep func(*schema.Run) bool) *Behaviour {
	return &Behaviour{o: &behavior.Options{Classify: env.classify}, keep: keep}
}

// Worker profiles one run (Analysis).
func (a *Behaviour) Worker() (func(*RunWork) any, error) {
	return func(w *RunWork) any {
		if a.keep != nil && !a.keep(&w.Run) {
			return nil
		}
		o := *a.o
		o.Classify, o.Uses = w.Classify, w.Uses
		if su, ok := a.stored[w.Run.RunID]; ok {
			uses := storedUses(w.Events, su)
			o.Uses = func() []counterfactual.Use { return uses }
		}
		p := behavior.Run(w.Run, w.Events, w.Usage, w.Ops, &o)
		return &p
	}, nil
}

// Add keeps one run's profile (Analysis).
func (a *Behaviour) Add(v any) error {
	if p, ok := v.(*behavior.RunProfile); ok {
		a.profiles = append(a.profiles, *p)
	}
	return nil
}

// Groups pools the profiles per model family.
func (a *Behaviour) Groups() []behavior.Group { return behavior.ByFamily(a.profiles, a.o) }

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
	if err := Pass(ctx, st, store.ScanOptions{RunIDs: ids}, env, d); err != nil {
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

// usesDeriver collects the uses of each run of the pass (Analysis).
type usesDeriver struct {
	runs []derivedUses
}

type derivedUses struct {
	run  schema.Run
	uses []store.StoredUse
}

func (d *usesDeriver) Worker() (func(*RunWork) any, error) {
	return func(w *RunWork) any {
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

func (d *usesDeriver) Add(v any) error {
	d.runs = append(d.runs, *v.(*derivedUses))
	return nil
}
