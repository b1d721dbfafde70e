package analysis

import (
	"cmp"
	"context"
	"slices"

	"github.com/trajmine/trajmine/behavior"
	"github.com/trajmine/trajmine/counterfactual"
	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/textfmt"
	"github.com/trajmine/trajmine/recommend"
	"github.com/trajmine/trajmine/schema"
	"github.com/trajmine/trajmine/simulate"
)

// RecommendOptions are what a recommendation depends on.
type RecommendOptions struct {
	Grid         []string        // candidate specs; nil: the built-in grid
	Window       simulate.Window // replay every run at this window (the zero value: each run's own)
	HoldoutEvery uint32          // hold out runs whose FNV-1a(run id) mod this is 0
	MaxReinv     float64         // most predicted re-invocations per 100 calls a candidate may cause
	AnyMechanism bool            // candidates a family's run harnesses cannot be set to run stay eligible
	// TrainedOn holds the runs a learned candidate was trained on
	// (recommend.Options.TrainedOn: a held-out one among them is an error).
	TrainedOn map[string]bool
	// Prices is a price file (LoadPrices; "": the built-in table): each
	// run's replays are priced with its cache rule, and the choice is made
	// in dollars where a run is priced (recommend.Choose).
	Prices string
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
	if err := Pass(ctx, st, store.ScanOptions{}, env, Of(ra), Of(ba)); err != nil {
		return nil, err
	}
	return ra.Finish(ba.Groups())
}

// Recommend is recommend's part of the shared pass: each run's trace (as
// trajmine simulate replays it) replayed under every grid candidate, the
// outcomes kept per model family; the choice is made in Finish.
type Recommend struct {
	o      *RecommendOptions
	grid   *recommend.Grid
	prices diagnose.Prices
	idx    map[string]int
	fams   []recommend.FamilyOutcomes
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
	prices, err := LoadPrices(o.Prices)
	if err != nil {
		return nil, err
	}
	return &Recommend{o: o, grid: g, prices: prices, idx: map[string]int{}}, nil
}

// Worker replays one run under every candidate (Consumer), priced as
// trajmine simulate prices it (the run's price with its cache rule's
// 1-hour writes), with its outcome (runs.resolved).
func (a *Recommend) Worker() (func(*RunWork) recRun, error) {
	g, err := a.grid.Fresh()
	if err != nil {
		return nil, err
	}
	var rp simulate.Replayer
	return func(w *RunWork) recRun {
		tr := w.Trace()
		var price *diagnose.Price
		if p, ok := a.prices.Lookup(w.Run.Model, w.Run.ModelFamily); ok {
			p = tr.Cache.Price(p)
			price = &p
		}
		out := g.Replay(&rp, tr, price)
		out.Resolved = w.Run.Resolved
		return recRun{family: textfmt.OrDash(w.Run.ModelFamily), out: out}
	}, nil
}

// Add keeps one run's outcomes under its model family (Consumer).
func (a *Recommend) Add(r recRun) error {
	i, ok := a.idx[r.family]
	if !ok {
		i = len(a.fams)
		a.idx[r.family] = i
		a.fams = append(a.fams, recommend.FamilyOutcomes{Name: r.family})
	}
	a.fams[i].Runs = append(a.fams[i].Runs, r.out)
	return nil
}

// Finish chooses per family (families by name, runs by id), with the
// families' behaviour labels from groups.
func (a *Recommend) Finish(groups []behavior.Group) ([]recommend.Result, error) {
	labels := map[string]string{}
	for _, g := range groups {
		labels[textfmt.OrDash(g.Key)] = string(g.Class.Label)
	}
	fams := slices.Clone(a.fams)
	slices.SortFunc(fams, func(x, y recommend.FamilyOutcomes) int { return cmp.Compare(x.Name, y.Name) })
	// runs by id: the bootstrap CIs resample by position, so the order a
	// store (or a lake's shards) yields the runs in must not matter
	for i := range fams {
		fams[i].Runs = slices.Clone(fams[i].Runs)
		slices.SortFunc(fams[i].Runs, func(x, y recommend.RunOutcome) int { return cmp.Compare(x.RunID, y.RunID) })
	}
	o := a.o
	rs, err := recommend.Decide(fams, a.grid, recommend.Options{Grid: o.Grid, Window: o.Window, HoldoutEvery: o.HoldoutEvery,
		MaxReinvPer100: o.MaxReinv, AnyMechanism: o.AnyMechanism, TrainedOn: o.TrainedOn, Label: func(f string) string { return labels[f] }})
	if err != nil {
		return nil, err
	}
	recommend.AddWhatIf(rs, fams, a.grid) // the window what-if at a --window below the runs' windows
	return rs, nil
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

// Worker profiles one run (Consumer).
func (a *Behaviour) Worker() (func(*RunWork) *behavior.RunProfile, error) {
	return func(w *RunWork) *behavior.RunProfile {
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

// Add keeps one run's profile (Consumer).
func (a *Behaviour) Add(p *behavior.RunProfile) error {
	if p != nil { // nil: a run keep left out
		a.profiles = append(a.profiles, *p)
	}
	return nil
}

// Groups pools the profiles per model family.
func (a *Behaviour) Groups() []behavior.Group { return behavior.ByFamily(a.profiles, a.o) }
