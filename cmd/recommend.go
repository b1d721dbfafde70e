package cmd

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/goccy/go-yaml"
	"github.com/spf13/cobra"

	"github.com/trajmine/trajmine/behavior"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/recommend"
	"github.com/trajmine/trajmine/schema"
	"github.com/trajmine/trajmine/simulate"
)

// RecommendOptions are the flags of trajmine recommend.
type RecommendOptions struct {
	Grid         []string
	Window       int64
	HoldoutEvery uint32
	MaxReinv     float64
	JSON         bool
	YAML         bool
	Out          io.Writer
}

// NewRecommendCmd builds `trajmine recommend`.
func NewRecommendCmd(d *Deps, runF func(*RecommendOptions) error) *cobra.Command {
	o := &RecommendOptions{}
	c := &cobra.Command{
		Use:   "recommend",
		Short: "Choose a context policy per model family, checked by replay on held-out runs",
		Long: `Choose a context policy for each model family by replaying the family's runs
under a grid of candidate policies (trajmine simulate's engine) and checking
the winner on runs it was not chosen on.

Runs are split per family: a run is held out when FNV-1a(run id) mod
--holdout-every is 0; families with fewer than 8 runs are not split. On the
training runs a candidate is eligible when it loses no run keep-all gets
through, predicts at most --max-reinv re-invocations per 100 calls, and is
allowed by the family's manage_context behaviour (the model's own ops, the
dtoc policies, only for families whose behaviour is selective). The eligible
candidate that saves the most runs from overflow wins, then the one with the
lowest Σ effective tokens / Σ keep-all tokens over the family's runs
(effective = prompts + re-invocations + summarizer input, same calls);
keep-all when none beats it.
The held-out runs give the expected saving with a bootstrap 95 % CI.

The text output explains each choice in one line; --yaml or --json writes a
config a harness can load (policy, parameters, expected saving, evidence).`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, args []string) error {
			o.Out = c.OutOrStdout()
			if o.JSON && o.YAML {
				return flagErrorf("--json and --yaml exclude each other")
			}
			if o.Window < 0 || o.MaxReinv < 0 {
				return flagErrorf("--window and --max-reinv must be ≥ 0")
			}
			for _, s := range o.Grid {
				if _, err := simulate.Parse(s); err != nil {
					return flagErrorf("--grid: %v", err)
				}
			}
			if runF != nil {
				return runF(o)
			}
			st, err := d.open(c.Context(), true)
			if err != nil {
				return err
			}
			defer st.Close()
			rs, err := recommendCompute(c.Context(), st, o)
			if err != nil {
				return err
			}
			switch {
			case o.JSON:
				return writeJSON(o.Out, struct {
					Config  recommend.Config   `json:"config"`
					Results []recommend.Result `json:"results"`
				}{recommend.ConfigOf(rs), rs})
			case o.YAML:
				b, err := yaml.Marshal(recommend.ConfigOf(rs))
				if err != nil {
					return err
				}
				_, err = o.Out.Write(b)
				return err
			}
			return writeRecommend(o.Out, rs)
		},
	}
	c.Flags().StringArrayVar(&o.Grid, "grid", nil, "candidate policy spec (repeatable; default: the built-in grid, see --help)")
	c.Flags().Int64Var(&o.Window, "window", 0, "replay every run at this window (default: each run's own)")
	c.Flags().Uint32Var(&o.HoldoutEvery, "holdout-every", 4, "hold out runs whose FNV-1a(run id) mod this is 0")
	c.Flags().Float64Var(&o.MaxReinv, "max-reinv", 2, "most predicted re-invocations per 100 calls a candidate may cause")
	c.Flags().BoolVar(&o.JSON, "json", false, "print the config and every candidate's figures as JSON")
	c.Flags().BoolVar(&o.YAML, "yaml", false, "print the config as YAML")
	return c
}

func recommendCompute(ctx context.Context, st *store.Store, o *RecommendOptions) ([]recommend.Result, error) {
	env, err := newPassEnv(ctx, st)
	if err != nil {
		return nil, err
	}
	ra, err := newRecAnalysis(o)
	if err != nil {
		return nil, err
	}
	ba := newBehaviourAnalysis(env, nil)
	if err := runPass(ctx, st, store.ScanOptions{}, env, ra, ba); err != nil {
		return nil, err
	}
	return ra.finish(ba.groups())
}

// recAnalysis is recommend's part of the shared pass: each run's trace (as
// trajmine simulate replays it) replayed under every grid candidate, the
// outcomes kept per model family; the choice is made in finish.
type recAnalysis struct {
	o    *RecommendOptions
	grid *recommend.Grid
	idx  map[string]int
	fams []recommend.FamilyOutcomes
}

type recRun struct {
	family string
	out    recommend.RunOutcome
}

func newRecAnalysis(o *RecommendOptions) (*recAnalysis, error) {
	g, err := recommend.NewGrid(o.Grid, o.Window)
	if err != nil {
		return nil, err
	}
	return &recAnalysis{o: o, grid: g, idx: map[string]int{}}, nil
}

func (a *recAnalysis) worker() (func(*runWork) any, error) {
	g, err := a.grid.Fresh()
	if err != nil {
		return nil, err
	}
	var rp simulate.Replayer
	return func(w *runWork) any {
		return recRun{family: orDash(w.Run.ModelFamily), out: g.Replay(&rp, w.replayTrace())}
	}, nil
}

func (a *recAnalysis) add(v any) error {
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

// finish chooses per family (families by name, runs in scan order), with
// the families' behaviour labels from groups.
func (a *recAnalysis) finish(groups []behavior.Group) ([]recommend.Result, error) {
	labels := map[string]string{}
	for _, g := range groups {
		labels[orDash(g.Key)] = string(g.Class.Label)
	}
	fams := slices.Clone(a.fams)
	slices.SortFunc(fams, func(x, y recommend.FamilyOutcomes) int { return cmp.Compare(x.Name, y.Name) })
	o := a.o
	return recommend.Decide(fams, a.grid, recommend.Options{Grid: o.Grid, Window: o.Window, HoldoutEvery: o.HoldoutEvery,
		MaxReinvPer100: o.MaxReinv, Label: func(f string) string { return labels[f] }})
}

// behaviourAnalysis profiles each run's context management (package
// behavior) in the shared pass; groups pools them per model family.
type behaviourAnalysis struct {
	o        *behavior.Options
	keep     func(*schema.Run) bool // nil keeps every run
	profiles []behavior.RunProfile
}

func newBehaviourAnalysis(env *passEnv, keep func(*schema.Run) bool) *behaviourAnalysis {
	return &behaviourAnalysis{o: &behavior.Options{Classify: env.classify}, keep: keep}
}

func (a *behaviourAnalysis) worker() (func(*runWork) any, error) {
	return func(w *runWork) any {
		if a.keep != nil && !a.keep(&w.Run) {
			return nil
		}
		o := *a.o
		o.Classify = w.classify
		p := behavior.Run(w.Run, w.Events, w.Usage, w.Ops, &o)
		return &p
	}, nil
}

func (a *behaviourAnalysis) add(v any) error {
	if p, ok := v.(*behavior.RunProfile); ok {
		a.profiles = append(a.profiles, *p)
	}
	return nil
}

func (a *behaviourAnalysis) groups() []behavior.Group { return behavior.ByFamily(a.profiles, a.o) }

func writeRecommend(w io.Writer, rs []recommend.Result) error {
	if len(rs) == 0 {
		fmt.Fprintln(w, "no runs: import some with trajmine ingest")
		return nil
	}
	fmt.Fprintf(w, "recommend: %d model families; each choice replayed on its family's runs (--json for every candidate)\n\n", len(rs))
	for _, r := range rs {
		fmt.Fprintf(w, "%s (%s): %s\n", r.Family, countOf(r.Runs, "run"), r.Why)
	}
	return nil
}
