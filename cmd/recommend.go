package cmd

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/trajmine/trajmine/analysis"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/textfmt"
	"github.com/trajmine/trajmine/tracer"

	"github.com/goccy/go-yaml"
	"github.com/spf13/cobra"

	"github.com/trajmine/trajmine/recommend"
	"github.com/trajmine/trajmine/simulate"
)

// RecommendOptions are the flags of trajmine recommend.
type RecommendOptions struct {
	Terminal
	Grid         []string
	Window       simulate.Window
	HoldoutEvery uint32
	MaxReinv     float64
	JSON         bool
	YAML         bool
	Config       string    // --config HARNESS: print each family's policy in that harness's own settings
	AnyMechanism bool      // with --config: choose among every candidate, not only what HARNESS can run
	Model        string    // --model FILE: also consider tracer(model=FILE), a trajmine train tracer model
	Err          io.Writer // warnings (a learned policy's model families)
}

// NewRecommendCmd builds `trajmine recommend`.
func NewRecommendCmd(d *Deps, runF func(*RecommendOptions) error) *cobra.Command {
	o := &RecommendOptions{}
	c := &cobra.Command{
		Use:   "recommend",
		Short: "Choose a context policy per model family, checked by replay on held-out runs",
		Long: `Choose a context policy for each model family by replaying the family's runs
under a grid of candidate policies (trajmine simulate's engine), comparing each
with what ran (the as-logged baseline: each run replayed under its own logged
context management), and checking the winner on runs it was not chosen on.

Runs are split per family: a run is held out when FNV-1a(run id) mod
--holdout-every is 0 (trajmine train tracer's split too). A --model trained on
a run held out here is refused: that run could not measure it. Evidence rules: a family gets a recommendation only with
at least ` + strconv.Itoa(recommend.DefaultMinTrain) + ` training and ` + strconv.Itoa(recommend.DefaultMinHeldOut) + ` held-out runs; below that it prints
"insufficient evidence: N runs (T training, H held out), need …: collect about K
more runs of FAMILY" and still lists the candidates.

On the training runs each candidate is compared with what ran in dollars:
cost with prompt caching (Σ policy / Σ as-logged over the priced runs), or
cost per solved task where the runs' outcomes are known (a replay cannot
know whether a run would still solve: it keeps each run's outcome, and a run
the candidate loses counts as unsolved), or, where no run is priced, prompt
tokens (said as such), each with a run-level bootstrap 95 % CI. A candidate
is excluded by every gate it fails, in this order, and the text lists each
(e.g. "mask: cost × 2.248 [1.902, 2.601], not below what ran"):
harness (unless --any-mechanism: every harness of the family's runs must be
able to run it, e.g. no masking for Claude Code, whose settings are
auto-compaction's, and no keep-all for Codex, which cannot turn compaction
off; runs whose harness has no known settings, such as eval frameworks and
plain message lists, take only API-level settings: the Anthropic Messages
API's context edits for Claude models and DTOC's manage_context tool, said
so; with --any-mechanism only another harness's own mechanism, e.g.
compact-codex for Claude Code runs, is excluded), behaviour (the model's own
ops, the dtoc policies, only for families whose manage_context behaviour is
selective), lost (it loses a run what ran gets through), re-invocations
(more than --max-reinv per 100 calls), cost (the upper end of its CI is not
below 1: it is not strictly cheaper than what ran, so it is never presented
as a saving). Of the rest the cheapest wins, then the one saving more runs,
then the lower effective ratio (effective tokens against what ran's). At a
run's own window a run whose log finished is never counted as saved.
--window N below the windows the runs ran at asks
the window what-if (could these runs move to an N-token model?): a run with
a call whose logged prompt plus output exceeds N dies under what ran at that
call, finished log or not; a candidate that keeps every call within N carries
it to its logged end and saves it (what the agent would have done after is
unknown), and the held-out gates count those saved and lost at N. A line
under each family says how many of its runs die at N and how many the
training choice carries. The default grid holds every harness's own settings (compact-codex,
compact-gemini, …), so recommend and recommend --config HARNESS choose among
the same candidates for a family of that harness's runs.

The held-out runs put the winner through the same gates: it is recommended
only when its held-out CI is below what ran, it loses no held-out run and it
stays within --max-reinv; otherwise the output keeps what ran (as-logged)
and says which gate it failed. For each family the text shows the top
candidates side by side: the ratio in the currency with its CI, tokens,
runs saved and lost, re-invocations per 100 calls, and every gate that
excluded each. trajmine report's headline and page state the same choice.

--yaml or --json writes trajmine's own record of the choice (policy spec,
parameters, expected saving, evidence; families with insufficient evidence
listed apart), which no harness reads. --config HARNESS prints, per family, a
ready-to-paste snippet in that harness's own format with its real setting
names (Claude Code settings/env, Codex config.toml, OpenHands [condenser],
SWE-agent history_processors, mini-swe-agent, Gemini CLI settings.json, the
Anthropic Messages API's context_management edits, DTOC's manage_context
tool), or says that the harness has no setting for the chosen policy; when
the winner was replayed without the agent's manage_context calls (every
policy but dtoc and what ran replaces them), the snippet says to remove the
tool. With --config the candidates are only what that harness can run (the
default grid's, which hold its own settings, or --grid's), so the choice is
one it can be configured to make; --any-mechanism lifts this. Names and
semantics come from shared/docs/harness-config.md; where a setting only
approximates the replayed rule, or is documented but unconfirmed, a note says
so.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, args []string) error {
			o.setTerminal(c, d)
			if o.JSON && o.YAML {
				return flagErrorf("--json and --yaml exclude each other")
			}
			if o.Config != "" && !slices.Contains(recommend.Harnesses, o.Config) {
				return flagErrorf("--config: unknown harness %q (known: %s)", o.Config, strings.Join(recommend.Harnesses, ", "))
			}

			if o.MaxReinv < 0 {
				return flagErrorf("--max-reinv must be ≥ 0")
			}
			for _, s := range o.Grid {
				if _, err := simulate.Parse(s); err != nil {
					return flagErrorf("--grid: %v", err)
				}
			}
			o.Err = c.ErrOrStderr()
			if runF != nil {
				return runF(o)
			}
			return onStore(c.Context(), d, true, o, recommendRun)
		},
	}
	c.Flags().StringArrayVar(&o.Grid, "grid", nil, "candidate policy spec (repeatable; default: the built-in grid, see --help)")
	c.Flags().Var(windowVar(&o.Window, true), "window", "replay every run at this window: tokens (200000, 128k), own or unbounded")
	c.Flags().Uint32Var(&o.HoldoutEvery, "holdout-every", recommend.DefaultHoldoutEvery, "hold out runs whose FNV-1a(run id) mod this is 0")
	c.Flags().Float64Var(&o.MaxReinv, "max-reinv", recommend.DefaultMaxReinv, "most predicted re-invocations per 100 calls a candidate may cause")
	c.Flags().BoolVar(&o.JSON, "json", false, "print the config and every candidate's figures as JSON")
	c.Flags().BoolVar(&o.YAML, "yaml", false, "print trajmine's own config (policy specs) as YAML")
	c.Flags().BoolVar(&o.AnyMechanism, "any-mechanism", false, "choose among every candidate, not only those the runs' harness (or --config's) can be set to run")
	c.Flags().StringVar(&o.Model, "model", "", "also consider the learned policy tracer(model=FILE) of a trajmine train tracer model (no harness can be set to run it: with --any-mechanism it may win)")
	c.Flags().StringVar(&o.Config, "config", "", "print each family's policy as HARNESS's own settings: "+strings.Join(recommend.Harnesses, ", "))
	return c
}

// recommendRun chooses a policy per model family on the store's runs and
// prints the choice: as text, JSON, YAML or --config's harness settings.
func recommendRun(ctx context.Context, st *store.Store, o *RecommendOptions) error {
	ao := o.analysis()
	if o.Model != "" && slices.Contains(ao.Grid, "tracer(model="+o.Model+")") {
		// a held-out run the model was trained on cannot measure it: Decide refuses
		m, err := tracer.ReadModel(o.Model)
		if err != nil {
			return err
		}
		ao.TrainedOn = make(map[string]bool, len(m.Training.RunIDs))
		for _, id := range m.Training.RunIDs {
			ao.TrainedOn[id] = true
		}
	}
	rs, err := analysis.RecommendStore(ctx, st, ao)
	if err != nil {
		return err
	}
	warnModelFamilies(o.Err, recommendFamilies(ao.Grid, rs))
	switch {
	case o.Config != "":
		return writeHarnessConfigs(o.Out, rs, o.Config, windowTokens(o.Window))
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
	return writeRecommend(o.Out, rs, o.Width, o.Bold)
}

// analysis is what the recommendation depends on. With --config (and not
// --any-mechanism) the candidates are what that harness can run
// (recommend.GridFor).
func (o *RecommendOptions) analysis() *analysis.RecommendOptions {
	grid := o.Grid
	if o.Config != "" && !o.AnyMechanism {
		grid, _ = recommend.GridFor(o.Config, o.Grid) // the harness was checked with the flags
	}
	if o.Model != "" && (o.Config == "" || o.AnyMechanism) { // no harness setting runs a learned policy
		if len(grid) == 0 {
			grid = slices.Clone(recommend.DefaultGrid)
		}
		grid = append(grid, "tracer(model="+o.Model+")")
	}
	return &analysis.RecommendOptions{Grid: grid, Window: o.Window, HoldoutEvery: o.HoldoutEvery, MaxReinv: o.MaxReinv, AnyMechanism: o.AnyMechanism}
}

// recommendFamilies are, per model file of a tracer(model=FILE) candidate
// in grid, the runs per model family it was replayed on (every family
// recommend reports).
func recommendFamilies(grid []string, rs []recommend.Result) map[string]map[string]int {
	out := map[string]map[string]int{}
	for _, spec := range grid {
		if p, err := simulate.Parse(spec); err == nil {
			spec = p.Name() // canonical: tracer(model=FILE)
		}
		if path := modelPath(spec); path != "" {
			out[path] = map[string]int{}
			for _, r := range rs {
				out[path][r.Family] += r.Runs
			}
		}
	}
	return out
}

// recommendTop is how many candidates the text shows per family.
const recommendTop = 5

// writeRecommend prints each family's verdict and its top candidates with
// every gate each of them failed, the prose wrapped and the tables fitted
// to width (≤ 0: natural widths).
func writeRecommend(w io.Writer, rs []recommend.Result, width int, bold bool) error {
	if len(rs) == 0 {
		fmt.Fprintln(w, "no runs: import some with trajmine ingest")
		return nil
	}
	n := 0
	for _, r := range rs {
		if !r.Insufficient {
			n++
		}
	}
	printWrapped(w, width, fmt.Sprintf("recommend: %d model families, %d with enough runs (≥ %d training, ≥ %d held out); each candidate compared with what ran (as-logged) on the same calls, chosen by cost with prompt caching (per solved task where outcomes are known; tokens where no run is priced) (--json for every candidate)",
		len(rs), n, recommend.DefaultMinTrain, recommend.DefaultMinHeldOut))
	for _, r := range rs {
		fmt.Fprintln(w)
		writeFamilyVerdict(w, r, width, "")
		cur := r.Choice.Currency
		t := &table{header: []string{"", "CANDIDATE", strings.ToUpper(cur.Label()), "95% CI", "TOKENS ×", "TOKENS SAVED", "RUNS SAVED", "LOST", "REINV/100 CALLS", "EXCLUDED BY"},
			right: []bool{false, false, true, true, true, true, true, true, true, false}, indent: "  ", optionalHint: "--json has every candidate's figures; widen the terminal"}
		tokens := 4 // the TOKENS × column; with tokens the objective, the third says it
		if cur == recommend.CurrencyTokens {
			t.header, t.right = slices.Delete(t.header, tokens, tokens+1), slices.Delete(t.right, tokens, tokens+1)
		}
		top := recommend.Top(r, recommendTop)
		var why []string
		for _, c := range top {
			mark := ""
			switch {
			case c.Spec == r.Policy && !r.Insufficient:
				mark = "→"
			case c.Spec == r.Best:
				mark = "·"
			}
			rule := "-"
			if c.Rule != "" {
				rule = strings.Join(c.Rules, ", ")
				why = append(why, shortSpec(c.Spec)+": "+strings.Join(c.Whys, "; "))
			}
			f := c.Objective(cur)
			row := []string{mark, shortSpec(c.Spec), textfmt.Ratio(f.X), textfmt.RatioCI(f.Lo, f.Hi), textfmt.Ratio(c.Tokens.X), signedThousands(c.TokensSaved), strconv.Itoa(c.Saved), strconv.Itoa(c.Lost), fmt.Sprintf("%.1f", c.ReinvPer100), rule}
			if cur == recommend.CurrencyTokens {
				row = slices.Delete(row, tokens, tokens+1)
			}
			t.add(row...)
		}
		t.collapse(0) // no mark: no mark column
		t.key = t.columns("CANDIDATE")
		t.optional = t.columns("REINV/100 CALLS", "LOST", "RUNS SAVED", "TOKENS SAVED", "TOKENS ×", "95% CI")
		if err := t.write(w, width, bold); err != nil {
			return err
		}
		for _, x := range why {
			printIndented(w, width, "  not chosen: ", "    ", x)
		}
	}
	fmt.Fprintln(w)
	printWrapped(w, width, "(training figures against as-logged; → recommended, · the training choice the held-out runs did not confirm; a CI not below 1 is never a saving)")
	return nil
}

// whatIfText is a family's window what-if (recommend.AddWhatIf): at the
// --window below its runs' windows, how many die under what ran and how
// many the training choice carries to their logged end.
func whatIfText(r recommend.Result) string {
	x := r.WhatIf
	n := thousands(x.Window)
	why := fmt.Sprintf("their logged prompts exceed %s, below the windows they ran at", n)
	if x.Dead == 1 {
		why = fmt.Sprintf("its logged prompts exceed %s, below the window it ran at", n)
	}
	if logged := x.Dead - x.AtWindow; logged > 0 {
		ended := thousands(int64(logged)) + " ended on window length in their logs"
		if logged == 1 {
			ended = "1 ended on window length in its log"
		}
		why = fmt.Sprintf("%s because their logged prompts exceed %s, below the windows they ran at; %s", thousands(int64(x.AtWindow)), n, ended)
	}
	die := "die"
	if x.Dead == 1 {
		die = "dies"
	}
	s := fmt.Sprintf("window what-if: at %s tokens %s of the %s %s under what ran (%s)", n, thousands(int64(x.Dead)), countOf(x.Runs, "run"), die, why)
	if x.Policy == "" {
		return s + "; no candidate was chosen to carry them"
	}
	who := "the training choice"
	if r.Policy == x.Policy && !r.Insufficient {
		who = "the recommended"
	}
	still := thousands(int64(x.Dead-x.Carried)) + " still die there"
	if x.Dead-x.Carried == 1 {
		still = "1 still dies there"
	}
	return s + fmt.Sprintf("; %s %s carries %s of them to their logged end, %s (training and held-out runs; what the agents would have done after their logged ends is unknown)",
		who, shortSpec(x.Policy), thousands(int64(x.Carried)), still)
}

// shortSpec is a spec with its default parameters left out.
func shortSpec(spec string) string {
	if p, err := simulate.Parse(spec); err == nil {
		return simulate.Short(p)
	}
	return spec
}
