package cmd

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/trajmine/trajmine/analysis"
	"github.com/trajmine/trajmine/internal/holdout"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/textfmt"
	"github.com/trajmine/trajmine/schema"
	"github.com/trajmine/trajmine/simulate"
	"github.com/trajmine/trajmine/tracer"
)

// TrainOptions are the flags of trajmine train tracer.
type TrainOptions struct {
	Terminal
	Family      string
	Window      simulate.Window
	Seed        uint64
	Model       string // -o: the model file
	Epochs      int
	Samples     int
	Hidden      int
	LR          float64
	Lambda      float64
	Credit      float64
	Trigger     float64
	Keep        int
	Compressor  string
	Holdout     uint32 // --holdout-every
	Ablate      []string
	Attribution int    // --attribution: (run, output) pairs of the attributor check
	Reward      string // --reward: cost (cache-priced) or tokens
	Prices      string // --prices: price file adding to or replacing the embedded table
	NoSave      bool
}

// NewTrainCmd builds `trajmine train` with its one subcommand, tracer.
func NewTrainCmd(d *Deps, runF func(*TrainOptions) error) *cobra.Command {
	c := &cobra.Command{
		Use:   "train",
		Short: "Train a learned context policy on the store's runs",
		Args:  usageArgs(cobra.NoArgs),
	}
	o := &TrainOptions{}
	t := &cobra.Command{
		Use:   "tracer -o MODEL",
		Short: "Learn TRACER's per-tool retention offline (REINFORCE on replays)",
		Long: `Learn TRACER's per-tool retention policy from the stored runs, offline: the
replay engine (trajmine simulate) is the environment and the agent's logged
actions are held fixed, so only the context policy is learned.

At each compression event (the prompt reaches --trigger × the window) every
tool output not yet compressed, except the newest --keep, gets a retention
ratio in [0, 1] from a two-layer MLP with a Beta head, and a fixed compressor
(--compressor: truncate keeps head and tail, head the first part, summary a
stand-in of that share of its tokens) applies it. The features are what is
known at that call: tool name and class, output tokens, age in calls, uses so
far (trajmine counterfactual's provenance, earlier calls only), rank and token
share in the event, the prompt's share of the window, the run's query (the
first user message's terms, hashed), and the kind of the output's target (its
call's: a file, a directory, a glob, a URL, a command line or query, none).
--ablate holds named features (or every feature with a prefix ending in = or
#, e.g. target=) at zero, to measure what they add.

Training is REINFORCE: each epoch replays every training run --samples times
with ratios drawn from the Beta. A replay's reward is −C / keep-all's C −
--lambda × predicted re-invocations, and 1 less when the run overflows, where
C is what its prompts cost with caching, in input tokens (--reward cost, the
default): ρr × cache reads + ρw × cache writes + uncached prompt tokens +
re-invocation tokens, the reads and writes predicted by the run's provider
cache rule (as trajmine simulate predicts them), ρr and ρw the run's cache-read
and cache-write prices over its input price (--prices; a model the table lacks
gets 0.1 and 1.25 under Anthropic's rule, 0.1 and 1 under the others).
--reward tokens is the reward before caching was priced: C = prompt +
re-invocation tokens. The leave-one-out mean of the run's other samples is
the baseline (the uniform credit floor); the outcome model adds each
decision's own credit, --credit × (what its cut saves, the cut tokens at ρr
per later call − the predicted cost of its predicted re-invocation, against
keeping that output whole). The outcome model — P(re-invocation | features,
ratio) = (1 − ratio)·σ(w·x) and the log token cost of one — is refitted every
epoch. After training, TRACER's uniform baseline (tracer-uniform) is tuned on
the training runs by the same reward: r = 0, 0.1, …, 1, the best kept in the
model file.

Runs are split by run with trajmine recommend's split: a run is held out when
FNV-1a-32(run id) mod --holdout-every is 0 (about 1/every of each model
family), so recommend --model at the same --holdout-every measures the model
only on runs it never trained on (the model file records the rule, its
training runs and their model families, and recommend refuses a model trained
on a run it holds out; simulate and recommend warn when they apply it to
runs of a family it was not trained on). The training curves are printed one
line per epoch and written to the train_curves table (--no-save writes
none). On the held-out runs the mean policy is compared with keep-all, the
as-logged replay (as-logged when the catalog has it, else dtoc),
tracer-uniform at r = 0.5 and at its tuned ratio, and the other tracer-*
baselines at the same trigger and keep: Σ (prompt + re-invocation tokens) /
keep-all's and / as-logged's with bootstrap 95 % CIs (against as-logged only
over the runs both replayed over the same calls: an overflow ends a replay
early), the cost with caching against as-logged's on the same calls (as
trajmine simulate's COST ×, outputs included), re-invocations per 100 calls,
overflows, and the paired Wilcoxon test of the per-run token ratios; a
sentence says whether the learned policy beats the tuned uniform rule on
held-out cost. The attributor check replays,
for up to 200 (run, output) pairs, that output dropped alone against kept
whole, and gives Spearman's ρ between the outcome model's predicted and the
replayed re-invocation cost, and top-3 recovery per run (--attribution sets
the number of pairs). Most dropped outputs cost nothing later (no later call
uses them), so it also gives the pairs with a replayed consequence, the AUC of
the prediction for having one, ρ among those, and the ρ ceiling: what a
predictor right about every consequence would get with the zeros tied.

The same --seed, flags and database give a byte-identical model file.
Use the model as the policy tracer(model=FILE) in simulate, recommend
(--grid) and report.`,
		Example: `  trajmine train tracer -o tracer.json
  trajmine train tracer --family claude --window 64000 --seed 7 -o claude-tracer.json
  trajmine simulate --policy 'tracer(model=tracer.json)' --policy tracer-tooltype`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, args []string) error {
			o.setTerminal(c, d)
			if o.Model == "" {
				return flagErrorf("-o MODEL is required")
			}
			if strings.ContainsAny(o.Model, ",)") {
				return flagErrorf("-o: a model path cannot hold ',' or ')' (policy specs could not name it)")
			}
			if o.Holdout == 1 {
				return flagErrorf("--holdout-every 1 would hold out every run (0: train on all)")
			}
			if o.Attribution < 0 {
				return flagErrorf("--attribution must be ≥ 0")
			}
			if o.Samples < 2 || o.Epochs < 1 || o.Hidden < 1 {
				return flagErrorf("--samples must be ≥ 2, --epochs and --hidden ≥ 1")
			}
			if o.Trigger < 0 || o.Trigger > 1 || o.Keep < 0 || o.Lambda < 0 || o.Credit < 0 || o.LR <= 0 {
				return flagErrorf("--trigger must be in [0, 1]; --keep, --lambda and --credit ≥ 0; --lr > 0")
			}
			switch o.Compressor {
			case simulate.CompressTruncate, simulate.CompressHead, simulate.CompressSummary:
			default:
				return flagErrorf("--compressor must be truncate, head or summary")
			}
			if o.Reward != tracer.RewardCost && o.Reward != tracer.RewardTokens {
				return flagErrorf("--reward must be cost or tokens")
			}
			if runF != nil {
				return runF(o)
			}
			return trainRun(c.Context(), d, o)
		},
	}
	f := t.Flags()
	f.StringVarP(&o.Model, "out", "o", "", "model file to write (JSON)")
	f.StringVar(&o.Family, "family", "", "train on runs of this model family only")
	f.Var(windowVar(&o.Window, true), "window", "window to replay at: tokens (200000, 128k), own or unbounded")
	f.Uint64Var(&o.Seed, "seed", 1, "seed of every random choice (initialisation, order, sampling, split, bootstrap)")
	f.IntVar(&o.Epochs, "epochs", 30, "passes over the training runs")
	f.IntVar(&o.Samples, "samples", 2, "sampled replays per run and epoch (≥ 2)")
	f.IntVar(&o.Hidden, "hidden", 32, "hidden units of the MLP")
	f.Float64Var(&o.LR, "lr", 0.02, "Adam step size")
	f.Float64Var(&o.Lambda, "lambda", 0.02, "reward per predicted re-invocation")
	f.Float64Var(&o.Credit, "credit", 10, "weight of the outcome model's per-output credit (0: the uniform floor alone)")
	f.Float64Var(&o.Trigger, "trigger", 0.5, "compression event when the prompt reaches this share of the window")
	f.IntVar(&o.Keep, "keep", 1, "newest tool outputs left whole at an event")
	f.StringVar(&o.Compressor, "compressor", simulate.CompressTruncate, "truncate (head + tail), head or summary")
	f.Uint32Var(&o.Holdout, "holdout-every", holdout.DefaultEvery, "hold out runs whose FNV-1a(run id) mod this is 0, as recommend does (0: train on all, no evaluation)")
	f.StringSliceVar(&o.Ablate, "ablate", nil, "features held at zero (names, or prefixes ending in = or #, e.g. target=); repeatable")
	f.IntVar(&o.Attribution, "attribution", 200, "(run, output) pairs the attributor check drops one at a time (0: no check)")
	f.StringVar(&o.Reward, "reward", tracer.RewardCost, "cost: prompts priced with caching under each run's cache rule; tokens: every prompt token at the input price")
	f.StringVar(&o.Prices, "prices", "", "YAML/JSON price file (USD per million tokens) that adds to or replaces the embedded prices")
	f.BoolVar(&o.NoSave, "no-save", false, "write no table (opens the database read-only)")
	c.AddCommand(t)
	return c
}

// traceCollector is the shared pass's part of train: every run's replay trace.
type traceCollector struct {
	family string
	traces []*simulate.Trace
}

func (a *traceCollector) Worker() (func(w *analysis.RunWork) *simulate.Trace, error) {
	return func(w *analysis.RunWork) *simulate.Trace {
		if a.family != "" && w.Run.ModelFamily != a.family {
			return nil
		}
		return w.Trace()
	}, nil
}

func (a *traceCollector) Add(tr *simulate.Trace) error {
	if tr != nil { // nil: a run of another family
		a.traces = append(a.traces, tr)
	}
	return nil
}

func trainRun(ctx context.Context, d *Deps, o *TrainOptions) error {
	st, err := d.open(ctx, o.NoSave)
	if err != nil {
		return err
	}
	defer st.Close()
	env, err := analysis.NewEnv(ctx, st)
	if err != nil {
		return err
	}
	prices, err := analysis.LoadPrices(o.Prices)
	if err != nil {
		return err
	}
	col := &traceCollector{family: o.Family}
	if err := analysis.Pass(ctx, st, store.ScanOptions{}, env, analysis.Of(col)); err != nil {
		return err
	}
	if len(col.traces) == 0 {
		if o.Family != "" {
			return fmt.Errorf("train tracer: no runs of family %q", o.Family)
		}
		return fmt.Errorf("train tracer: no runs in the database")
	}
	train, held := tracer.Split(col.traces, o.Holdout)
	if len(train) == 0 {
		return fmt.Errorf("train tracer: all %d runs are held out (%s): use a larger --holdout-every", len(held), holdout.Rule(o.Holdout))
	}
	w := o.Out
	fmt.Fprintf(w, "training on %s, %d held out (%s, recommend's split); reward: %s\n", countOf(len(train), "run"), len(held), holdout.Rule(o.Holdout), rewardText(o.Reward))
	et := &table{header: []string{"EPOCH", "REWARD", "TOKENS/KEEP-ALL", "COST/KEEP-ALL", "REINV/100", "OVERFLOWS", "MEAN RATIO", "MEAN-POLICY REWARD", "MEAN-POLICY TOKENS", "OUTCOME LOGLOSS"},
		right: []bool{true, true, true, true, true, true, true, true, true, true}, optionalHint: "the model file has every figure; widen the terminal"}
	et.optional = []int{9, 8, 7, 6}
	t0 := time.Now()
	m, err := tracer.Train(ctx, train, &tracer.Options{Seed: o.Seed, Window: o.Window, Epochs: o.Epochs, Samples: o.Samples,
		Hidden: o.Hidden, LR: o.LR, Lambda: orNeg(o.Lambda), Credit: orNeg(o.Credit), Trigger: o.Trigger, Keep: orNegInt(o.Keep),
		Compressor: o.Compressor, Ablate: o.Ablate, Reward: o.Reward, Prices: prices, Family: o.Family}, func(e tracer.Epoch) {
		loss := "-"
		if e.OutcomeLoss >= 0 {
			loss = fmt.Sprintf("%.4f", e.OutcomeLoss)
		}
		et.add(strconv.Itoa(e.Epoch), fmt.Sprintf("%.4f", e.Reward), fmt.Sprintf("%.4f", e.TokenRatio), fmt.Sprintf("%.4f", e.CostRatio), fmt.Sprintf("%.2f", e.ReinvPer100),
			strconv.Itoa(e.Overflows), fmt.Sprintf("%.3f", e.MeanRatio), fmt.Sprintf("%.4f", e.MeanReward), fmt.Sprintf("%.4f", e.MeanTokens), loss)
	})
	if err != nil {
		return err
	}
	if err := et.write(w, o.Width, o.Bold); err != nil {
		return err
	}
	elapsed := time.Since(t0)
	m.Training.Split, m.Training.HoldoutEvery = holdout.Rule(o.Holdout), o.Holdout
	if err := tracer.WriteModel(o.Model, m); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s (%s in %s); use it as tracer(model=%s)\n", o.Model, countOf(len(m.Training.Curves), "epoch"), textfmt.Duration(elapsed), o.Model)
	if u := m.Training.Uniform; u != nil {
		printWrapped(w, o.Width, tunedText(u, len(train)))
	}
	if !o.NoSave {
		err := st.WriteDerived(ctx, store.Derived{Table: schema.TrainCurves, Where: "model = ?", Args: []any{o.Model},
			Rows: func(add func(vals ...any) error) error {
				for _, e := range m.Training.Curves {
					if err := add(o.Model, int64(e.Epoch), e.Reward, e.TokenRatio, e.ReinvPer100, int64(e.Overflows), e.MeanRatio,
						int64(e.Decisions), e.MeanReward, e.MeanTokens, e.OutcomeLoss); err != nil {
						return err
					}
				}
				return nil
			}})
		if err != nil {
			return err
		}
	}
	if len(held) == 0 {
		return nil
	}
	rep, err := tracer.Evaluate(held, m, &tracer.EvalOptions{Window: o.Window, Seed: o.Seed, Attribution: orNegInt(o.Attribution), Prices: prices})
	if err != nil {
		return err
	}
	writeTracerReport(w, rep, o.Width, o.Bold)
	return nil
}

// orNeg maps a flag's 0 to the library's "none" (a negative value), since
// the library's zero means its default.
func orNeg(v float64) float64 {
	if v == 0 {
		return -1
	}
	return v
}

func orNegInt(v int) int {
	if v == 0 {
		return -1
	}
	return v
}

// modelPath is the model file a tracer(model=FILE) spec names ("" for
// any other spec, or the untrained tracer).
func modelPath(spec string) string {
	rest, ok := strings.CutPrefix(spec, "tracer(model=")
	if !ok {
		return ""
	}
	return strings.TrimSuffix(rest, ")")
}

// warnModelFamilies writes a warning for each model family a learned
// policy was applied to that its model file was not trained on
// (tracer.Model.FamilyWarning): families maps each model file to the runs
// per family it was replayed on. A model file that records no family
// gets one warning naming them all.
func warnModelFamilies(errw io.Writer, families map[string]map[string]int) {
	for _, path := range slices.Sorted(maps.Keys(families)) {
		m, err := tracer.ReadModel(path)
		if err != nil {
			continue // the replay read it; nothing to add
		}
		fams := slices.Sorted(maps.Keys(families[path]))
		if len(m.Training.Families) == 0 {
			fmt.Fprintf(errw, "warning: %s\n", m.FamilyWarning(path, strings.Join(fams, ", ")))
			continue
		}
		for _, f := range fams {
			if msg := m.FamilyWarning(path, f); msg != "" {
				fmt.Fprintf(errw, "warning: %s (applied here to %s)\n", msg, countOf(families[path][f], "run"))
			}
		}
	}
}

// rewardText names a --reward in words.
func rewardText(r string) string {
	if r == tracer.RewardTokens {
		return "tokens (every prompt token at the input price)"
	}
	return "cost with caching (prompts priced under each run's cache rule)"
}

// tunedText says which uniform ratio the training runs chose, and how the
// seed's r = 0.5 fared.
func tunedText(u *tracer.Tuned, runs int) string {
	var half string
	for _, p := range u.Grid {
		if p.R == 0.5 && u.R != 0.5 {
			half = fmt.Sprintf("; r = 0.5: %.4f", p.Reward)
		}
	}
	return fmt.Sprintf("uniform rule tuned on the %d training runs by the same reward: %s, mean reward %.4f, the best of r = 0, 0.1, …, 1%s",
		runs, u.Spec, u.Reward, half)
}

// writeTracerReport prints the held-out table, the learned retention per
// tool and the attributor check.
func writeTracerReport(w io.Writer, rep *tracer.Report, width int, bold bool) {
	fmt.Fprintf(w, "\nheld-out runs: %d\n", rep.Runs)
	if rep.Note != "" {
		printWrapped(w, width, "note: "+rep.Note)
	}
	if rep.Runs < 20 {
		printWrapped(w, width, fmt.Sprintf("note: %d held-out runs are too few to conclude; the CIs and p-values below are descriptive only", rep.Runs))
	}
	ci := func(v, lo, hi float64, f string) string {
		if math.IsNaN(v) {
			return "-"
		}
		return fmt.Sprintf(f+" ["+f+", "+f+"]", v, lo, hi)
	}
	ht := &table{header: []string{"POLICY", "TOKENS/KEEP-ALL [95% CI]", "COST/" + strings.ToUpper(rep.Logged) + " CACHED [95% CI]", "TOKENS/" + strings.ToUpper(rep.Logged) + " [95% CI] (RUNS)",
		"REINV/100 CALLS [95% CI]", "OVERFLOWS", "LEARNED − POLICY (median where they differ; runs)", "WILCOXON p"}, key: []int{0},
		right: []bool{false, true, true, true, true, true, true, true}, optionalHint: "widen the terminal"}
	ht.optional = []int{7, 6, 3}
	for _, r := range rep.Rows {
		p, med := "-", "-"
		if !math.IsNaN(r.P) {
			p = fmt.Sprintf("%.3g", r.P)
			med = fmt.Sprintf("%s (%d)", fmtNaN(r.Median, "%+.4f"), r.Differ)
		}
		name := r.Policy
		if r.Label != "" {
			name += " [" + r.Label + "]"
		}
		ht.add(name, ci(r.TokenRatio, r.TokenLo, r.TokenHi, "%.3f"), ci(r.CostRatio, r.CostLo, r.CostHi, "%.3f"),
			fmt.Sprintf("%s (%d)", ci(r.VsLogged, r.VsLoggedLo, r.VsLoggedHi, "%.3f"), r.LoggedRuns),
			ci(r.ReinvPer100, r.ReinvLo, r.ReinvHi, "%.2f"), strconv.Itoa(r.Overflows), med, p)
	}
	_ = ht.write(w, width, bold)
	priced := "over every run, each at its model's price"
	switch {
	case rep.Priced == 0:
		priced = "the price table prices none of the runs: every run at a stand-in price (input 1, cache read 0.1, write 1.25 under Anthropic's rule and 1 under the others, output 5 per million)"
	case rep.Priced < rep.Runs:
		priced = fmt.Sprintf("over the %d of the %d runs the price table prices", rep.Priced, rep.Runs)
	}
	printWrapped(w, width, fmt.Sprintf("COST: Σ cost with caching / Σ %s's on the same calls (trajmine simulate's COST ×), %s; the model was trained on %s", rep.Logged, priced, rewardText(rep.Reward)))
	if rep.Verdict != "" {
		printWrapped(w, width, rep.Verdict)
	} else {
		printWrapped(w, width, "the model file records no tuned uniform rule (trained before trajmine tuned one): only r = 0.5 is shown")
	}
	fmt.Fprintln(w, "\nlearned retention on held-out runs (mean ratio per tool):")
	rt := &table{header: []string{"TOOL", "OUTPUTS", "MEAN RATIO"}, right: []bool{false, true, true}}
	for _, t := range rep.Retention {
		rt.add(t.Tool, strconv.Itoa(t.N), fmt.Sprintf("%.3f", t.Ratio))
	}
	_ = rt.write(w, width, bold)
	a := rep.Attr
	fmt.Fprintln(w)
	printFitted(w, width, fmt.Sprintf("attributor check: %d (run, output) pairs, Spearman ρ(predicted, replayed consequence) = %s (the seed reports 0.66); top-3 recovery %s over %d runs\n",
		a.Pairs, fmtNaN(a.Spearman, "%.3f"), fmtNaN(a.Top3, "%.2f"), a.Top3Runs)+
		fmt.Sprintf("  of which %d have a replayed consequence: AUC of the prediction for having one %s; ρ among those %s; ρ ceiling with the other %d tied at zero %s",
			a.Positive, fmtNaN(a.AUC, "%.3f"), fmtNaN(a.SpearmanPositive, "%.3f"), a.Pairs-a.Positive, fmtNaN(a.Ceiling, "%.3f")))
}

func fmtNaN(v float64, f string) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf(f, v)
}
