package cmd

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/trajmine/trajmine/analysis"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/textfmt"
	"github.com/trajmine/trajmine/mining"
	"github.com/trajmine/trajmine/recommend"
	"github.com/trajmine/trajmine/schema"
	"github.com/trajmine/trajmine/simulate"
)

// The report's text is made of sections, each written by its own writer
// from the analysis.Report, reusing the writers of the command that owns
// the figures (simulate's comparison and accuracy lines, recommend's
// family verdicts, mine's tables, diagnose's verdict, runs' table). By
// default trajmine report prints one screen: the headline, the top
// policies and what to do (reportScreen); --full prints every section
// (reportFull).

// reportText is what the report's text sections read: the analysis, the
// runs reported on and their totals per format, and the terminal.
type reportText struct {
	Terminal
	res    *analysis.Report
	runs   []schema.Run
	totals []analysis.FormatTotals
	window simulate.Window // --window (the zero value: each run's own)
	limit  int             // --limit: runs listed
}

// reportScreen writes the default report: the headline's three
// sentences, the top policies by cost and what to read next.
func (r *reportText) reportScreen() error {
	r.headline()
	if err := r.topPolicies(); err != nil {
		return err
	}
	r.more()
	return nil
}

// reportFull writes every section (--full).
func (r *reportText) reportFull() error {
	r.headline()
	r.verdict()
	r.policies()
	r.recommendations()
	if err := r.behaviour(); err != nil {
		return err
	}
	if err := r.formats(); err != nil {
		return err
	}
	return r.runTable()
}

// headline is analysis.Headline's sentences: window ends, the decision,
// what to do next.
func (r *reportText) headline() {
	fmt.Fprintln(r.Out)
	printWrapped(r.Out, r.Width, analysis.Headline(r.res)...)
}

// reportTopPolicies is how many policies the default report lists.
const reportTopPolicies = 5

// topPolicies is the compact comparison: the first policies by cost
// against what ran (simulate.Ranked: by COST ×, else tokens saved), what
// ran itself left out (it is the 1.000 the ratios are against).
func (r *reportText) topPolicies() error {
	sim := r.res.Simulation
	short := map[string]string{}
	for _, p := range sim.Policies {
		short[p.Spec] = p.Short
	}
	var rows []simulate.Agg
	for _, a := range simulate.Ranked(sim.Comparison) {
		if a.Group == "" && a.Policy != simulate.AsLoggedName {
			rows = append(rows, a)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	shown := rows[:min(len(rows), reportTopPolicies)]
	by := "cost"
	if !simulate.RankedByCost(sim.Comparison, "", shown[0].Window) {
		by = "tokens saved (no run priced)"
	}
	fmt.Fprintln(r.Out)
	printWrapped(r.Out, r.Width, fmt.Sprintf("Top %d of %s by %s against what ran, %s (trajmine simulate lists them all; trajmine policies explains them):",
		len(shown), textfmt.Plural(len(rows), "policy", "policies")+" replayed", by, r.windowText()))
	t := &table{header: []string{"#", "POLICY", "COST ×", "95% CI", "TOKENS ×", "TOKENS SAVED", "RUNS SAVED", "LOST"},
		right: []bool{true, false, true, true, true, true, true, true}}
	oracle := false
	for i, a := range shown {
		cost, ci := "-", "-"
		if a.Priced > 0 {
			cost, ci = textfmt.Ratio(a.CostCachedRatio), textfmt.RatioCI(a.CostCachedLo, a.CostCachedHi)
		}
		name := short[a.Policy]
		oracle = oracle || strings.Contains(a.Policy, "oracle")
		t.add(strconv.Itoa(i+1), name, cost, ci, textfmt.Ratio(a.EffectiveRatio), textfmt.Tokens(a.TokensSaved), thousands(int64(a.Saved)), thousands(int64(a.Lost)))
	}
	t.collapse(t.columns("LOST")...)
	t.key = t.columns("POLICY")
	t.optional = t.columns("TOKENS SAVED", "TOKENS ×", "95% CI")
	t.optionalHint = "trajmine simulate has every column"
	legend := "× = Σ policy / Σ what ran on the same calls (1.000 = what ran; cost with prompt caching), 95% CI over runs; RUNS SAVED: runs that ended on window length the policy carries to their logged end"
	if oracle {
		legend += "; an oracle knows which outputs the run will use: a bound, not a setting"
	}
	t.footer = []string{legend}
	return t.write(r.Out, r.Width, r.Bold)
}

// windowText is the window the report replayed at.
func (r *reportText) windowText() string {
	if n, fixed := r.window.Fixed(); fixed {
		return "at a window of " + thousands(n) + " tokens (--window)"
	}
	return "each run at its own window"
}

// more says where the rest is: --full, the commands, the glossary.
func (r *reportText) more() {
	fmt.Fprintln(r.Out)
	printWrapped(r.Out, r.Width, "More: trajmine report --full prints every table (diagnosis, every policy, each model family's recommendation, "+
		"the agents' behaviour, totals per format, the runs); trajmine help terms explains the words.")
}

// verdict is diagnose's verdict (trajmine diagnose's tables hold its figures).
func (r *reportText) verdict() {
	fmt.Fprintln(r.Out)
	printFitted(r.Out, r.Width, "Verdict (trajmine diagnose has the tables): "+r.res.Diagnosis.VerdictText())
}

// policies is simulate's comparison at the report's window: its accuracy
// lines and its table (writeAccuracyLine, writeComparison).
func (r *reportText) policies() {
	sim := r.res.Simulation
	fmt.Fprintln(r.Out)
	if n, fixed := r.window.Fixed(); fixed {
		printWrapped(r.Out, r.Width, fmt.Sprintf("Context policies replayed at a window of %s tokens (--window; trajmine simulate; trajmine policies explains them):", thousands(n)))
	} else {
		printWrapped(r.Out, r.Width, "Context policies replayed at each run's own window (trajmine simulate; trajmine policies explains them):")
	}
	writeAccuracyLine(r.Out, sim.Accuracy, sim.LoggedAccuracy, r.Width)
	short := map[string]string{}
	for _, p := range sim.Policies {
		short[p.Spec] = p.Short
	}
	writeComparison(r.Out, sim.Comparison, short, false, r.Width, r.Bold)
}

// recommendations is each model family's verdict as trajmine recommend
// states it (writeFamilyVerdict), without its candidates' tables.
func (r *reportText) recommendations() {
	fmt.Fprintln(r.Out)
	fmt.Fprintln(r.Out, "Recommended policy per model family (trajmine recommend):")
	for _, rec := range r.res.Recs {
		writeFamilyVerdict(r.Out, rec, r.Width, "  ")
	}
}

// behaviour is trajmine mine's summary: its top variants, busiest edges
// and manage_context behaviour per family (mining.WriteVariants,
// edgesTable, behaviourTable).
func (r *reportText) behaviour() error {
	mined := r.res.Mined
	fmt.Fprintln(r.Out)
	printWrapped(r.Out, r.Width, fmt.Sprintf("Agent behaviour (trajmine mine): %s, %s by action class; top variants:", countOf(mined.Cases, "run"), countOf(mined.Events, "event")))
	var vb strings.Builder
	if err := mining.WriteVariants(&vb, mined.Variants, reportTop); err != nil {
		return err
	}
	printFitted(r.Out, r.Width, vb.String())
	fmt.Fprintln(r.Out, "busiest edges:")
	if err := edgesTable(mined.DFG, reportTop).write(r.Out, r.Width, r.Bold); err != nil {
		return err
	}
	fmt.Fprintln(r.Out, "manage_context behaviour per model family:")
	return behaviourTable(mined.Behaviour).write(r.Out, r.Width, r.Bold)
}

// formats is the totals per format (analysis.TotalsByFormat) with their
// sum (analysis.FormatTotals.Add) under them.
func (r *reportText) formats() error {
	fmt.Fprintln(r.Out)
	return formatTotalsTable(r.totals).write(r.Out, r.Width, r.Bold)
}

// formatTotalsTable is the totals per format, a totals row when there is
// more than one.
func formatTotalsTable(totals []analysis.FormatTotals) *table {
	t := &table{header: []string{"FORMAT", "RUNS", "CALLS", "LOGGED IN", "LOGGED OUT", "CACHE READ", "EST. EVENT TOKENS", "NO USAGE", "OVERFLOW"},
		footer: []string{"LOGGED IN/OUT: sums of per-call logged usage (input incl. cache); EST. EVENT TOKENS: sum of the events' estimated tokens;",
			"NO USAGE: runs whose log has no per-call usage; OVERFLOW: runs whose end reason is context_overflow."}}
	row := func(name string, a analysis.FormatTotals) []string {
		return []string{name, thousands(a.Runs), thousands(a.Calls), thousands(a.InputTokens), thousands(a.OutputTokens), thousands(a.CacheReadTokens), thousands(a.EstTokens), thousands(a.NoUsage), thousands(a.Overflow)}
	}
	var tot analysis.FormatTotals
	for _, a := range totals {
		t.add(row(a.Format, a)...)
		tot.Add(a)
	}
	if len(totals) > 1 {
		t.totals = row("total", tot)
	}
	if tot.CopiedCalls > 0 {
		t.footer = append(t.footer, fmt.Sprintf("Each API response is counted once: %s that resumed sessions copied from earlier runs are left out of LOGGED IN/OUT here and counted in the run they came from.",
			countOf(int(tot.CopiedCalls), "call")))
	}
	t.key = []int{0}
	t.optional = t.columns("CACHE READ", "EST. EVENT TOKENS", "NO USAGE", "LOGGED OUT")
	t.optionalHint = "--json has every column; widen the terminal"
	return t
}

// runTable is the runs table (trajmine runs' writeRunsTable) of the first
// --limit runs, with the end reasons this report's diagnosis decided (as
// trajmine runs shows them once diag_runs holds them).
func (r *reportText) runTable() error {
	fmt.Fprintln(r.Out)
	shown := r.runs
	if r.limit > 0 && len(shown) > r.limit {
		shown = shown[:r.limit]
	}
	diag := r.res.Diagnosis
	ends := make(map[string]store.DiagEnd, len(diag.Runs))
	for _, d := range diag.Runs {
		ends[d.RunID] = store.DiagEnd{Reason: d.End.Reason, Source: d.End.Source, Rule: d.End.Rule, Why: d.End.Why}
	}
	rows := make([]RunRow, len(shown))
	for i, run := range shown {
		rows[i] = RunRow{Run: run, End: runEnd(run, ends)}
	}
	if err := writeRunsTable(r.Out, rows, r.Width, r.Bold); err != nil {
		return err
	}
	if len(shown) < len(r.runs) {
		fmt.Fprintf(r.Out, "… and %d more (--limit 0 lists all)\n", len(r.runs)-len(shown))
	}
	return nil
}

// writeFamilyVerdict is a model family's recommendation in a sentence
// (recommend.Result.Why) and, at a --window below its runs' windows, its
// window what-if, indented by indent: trajmine recommend's line above each
// family's candidates and the report's line per family.
func writeFamilyVerdict(w io.Writer, r recommend.Result, width int, indent string) {
	printIndented(w, width, indent, indent+"  ", fmt.Sprintf("%s (%s): %s", r.Family, countOf(r.Runs, "run"), r.Why))
	if r.WhatIf != nil {
		printIndented(w, width, indent+"  ", indent+"  ", whatIfText(r))
	}
}
