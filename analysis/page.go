package analysis

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/trajmine/trajmine/dashboards"
	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/internal/parallel"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/internal/textfmt"
	"github.com/trajmine/trajmine/redact"
	"github.com/trajmine/trajmine/schema"
	"github.com/trajmine/trajmine/simulate"
)

// fillMined puts trajmine mine's process map (the directly-follows graph),
// top 20 variants and behaviour profiles into the report.
func fillMined(d *dashboards.Data, m Mined) {
	if m.DFG != nil && m.Cases > 0 {
		pm := &dashboards.ProcessMap{}
		for _, n := range m.DFG.Nodes {
			pm.Nodes = append(pm.Nodes, dashboards.ProcessNode{ID: n.Name, Label: n.Name, Count: int64(n.Count), Timed: int64(n.Timed), MedianMS: 1000 * n.MedianSeconds})
		}
		for _, e := range m.DFG.Edges {
			pm.Edges = append(pm.Edges, dashboards.ProcessEdge{From: e.From, To: e.To, Count: int64(e.Count), Timed: int64(e.Timed), MedianMS: 1000 * e.MedianSeconds})
		}
		d.ProcessMap = pm
	}
	for i, v := range m.Variants {
		if i == 20 {
			break
		}
		d.Variants = append(d.Variants, dashboards.Variant{Activities: v.Activities, Runs: int64(v.Count), Share: v.Share})
	}
	for _, g := range m.Behaviour {
		mp := g.Manage
		d.Behaviour = append(d.Behaviour, dashboards.BehaviourProfile{Family: textfmt.OrDash(g.Key), Label: string(g.Class.Label), Runs: g.Runs,
			Metrics: []dashboards.Metric{
				{Name: "manage_context ops per 100 calls", Value: mp.OpsPer100},
				{Name: "tokens freed per op (median)", Value: mp.FreedPerOp.Median},
				{Name: "shallow ops", Value: mp.ShallowShare, Unit: "%"},
				{Name: "re-enable rate", Value: mp.ReEnableRate, Unit: "%"},
				{Name: "thrash share", Value: mp.ThrashShare, Unit: "%"},
				{Name: "compactions per 100 calls", Value: g.Compaction.Per100},
			}})
	}
}

// Page is the page's data from a Report; source and database are the
// page's header lines. Every figure is the one the CLI prints (and the
// tables it is stored in), converted:
//
//  1. verdict, groups, end reasons, peak shares, rent: Report.Diagnosis
//     (diag_runs, diag_calls, diag_rent);
//  2. reading-boundary curves: diagnose's, then diagnose.Boundary over each
//     policy's results (sim_runs: boundary_turn, boundary_event);
//  3. comparison: simulate's over all runs and per model family (trajmine
//     simulate --by model), both computed in AnalyseReport;
//  4. recommendations, the headline and the best-policy card:
//     Report.Recs, recommend's results from the same pass (trajmine
//     recommend's), and Decide over them (recommend.Choose's pick per
//     family, checked on the held-out runs);
//  5. the sample (Report.Sample, drawn by sample: dashboards.SampleRuns
//     over diagnose's runs): each run's diag_calls, its sim_runs rows, its
//     tool outputs, and its prompts and what each policy did to each
//     output from the run replayed again by the same engine, watching the
//     outputs' renderings (the replay's calls are the sim_calls rows
//     report writes);
//  6. every run's compact record (runRecords): diag_runs, diag_calls and
//     sim_runs figures, so that the page reaches every run;
//  7. the process map, variants and behaviour profiles: Report.Mined
//     (fillMined);
//
// then the page's other log-derived text is redacted (redactPage).
func Page(rep *Report, totals []FormatTotals, source, database string) *dashboards.Data {
	diag, sim, recs, mined, sample := rep.Diagnosis, rep.Simulation, rep.Recs, rep.Mined, rep.Sample
	d := &dashboards.Data{
		Title:     "trajmine report",
		Generated: "generated " + time.Now().UTC().Format("2006-01-02 15:04 UTC"),
		Source:    source,
		Database:  database,
	}
	for _, a := range totals {
		d.Formats = append(d.Formats, dashboards.FormatTotals{Format: a.Format, Runs: a.Runs, Calls: a.Calls, InputTokens: a.InputTokens, OutputTokens: a.OutputTokens,
			CacheReadTokens: a.CacheReadTokens, EstTokens: a.EstTokens, NoUsage: a.NoUsage, Overflow: a.Overflow})
	}
	fillMined(d, mined)
	v, t := diag.Verdict, diag.Totals
	d.Verdict = dashboards.Verdict{Text: strings.TrimSpace(diag.VerdictText()), Runs: v.Runs, WindowEnds: v.WindowEnds, Share: v.Share, Explicit: v.Explicit,
		Inferred: v.Inferred, UnknownWindow: v.UnknownWindow, BoundaryFound: v.BoundaryFound, BoundaryCall: v.BoundaryCall, BoundaryEvents: diag.ReadingBoundary.Events,
		TopRentTool: v.TopRentTool, TopRentShare: v.TopRentShare, SystemPromptShare: v.SystemPromptShare, ToolDefinitionsShare: v.ToolDefinitionsShare,
		ReReadsVisible: t.ReReadsVisible, ReReadsHidden: t.ReReadsHidden, ReReadsPending: t.ReReadsPending, Stalls: t.Stalls, StallRuns: t.StallRuns,
		SpendUSD: t.SpendUSD, CostLogged: t.CostLogged, CostPriced: t.CostPriced, CostUnknown: t.CostUnknown, PerSolvedUSD: t.PerSolved.USD,
		Resolved: t.PerSolved.Resolved, Failed: t.PerSolved.Failed, Excluded: t.PerSolved.Excluded}
	for _, g := range diag.Groups {
		d.Groups = append(d.Groups, dashboards.Group(g))
	}
	ends := map[string]int{}
	for _, r := range diag.Runs {
		ends[string(r.End.Reason)]++
		if r.Occupancy.Window > 0 {
			d.Peaks = append(d.Peaks, r.Occupancy.PeakShare)
		}
	}
	for k, n := range ends {
		d.Ends = append(d.Ends, dashboards.Count{Label: k, N: n})
	}
	slices.SortFunc(d.Ends, func(a, b dashboards.Count) int { return cmp.Or(cmp.Compare(b.N, a.N), cmp.Compare(a.Label, b.Label)) })
	for _, r := range diag.RentByTool {
		d.Rent = append(d.Rent, dashboards.ToolRent(r))
	}

	short := map[string]string{}
	for _, p := range sim.Policies {
		short[p.Spec] = p.Short
		d.Policies = append(d.Policies, dashboards.Policy{Spec: p.Spec, Short: p.Short})
	}
	d.Boundary = append(d.Boundary, survivalOf("logged", diag.ReadingBoundary))
	byPolicy := map[string][]diagnose.BoundaryRun{}
	for i := range sim.Results {
		r := &sim.Results[i]
		byPolicy[r.Policy] = append(byPolicy[r.Policy], r.BoundaryInput())
	}
	for _, p := range sim.Policies {
		d.Boundary = append(d.Boundary, survivalOf(p.Short, diagnose.Boundary(byPolicy[p.Spec])))
	}
	d.Accuracy = simulate.AccuracyText(sim.Accuracy) + "; " + simulate.LoggedAccuracyText(sim.LoggedAccuracy) + "; " + simulate.CacheAccuracyText(sim.CacheAccuracy)
	// simulate's table in its rank order (by cost where priced), with the
	// CLI's names and units (writeComparison): COST × with caching and its
	// CI, $ SAVED, TOKENS ×, REINV/100 CALLS
	for _, a := range slices.Concat(simulate.Ranked(sim.Comparison), simulate.Ranked(sim.Groups)) { // Groups: by model family (AnalyseReport)
		c, _ := a.CostRatio()
		d.Comparison = append(d.Comparison, dashboards.PolicyAgg{Group: a.Group, Policy: short[a.Policy], Runs: a.Runs, Acted: a.Activated,
			Ratio: a.EffectiveRatio, RatioLo: a.EffectiveLo, RatioHi: a.EffectiveHi, TokensSaved: a.TokensSaved,
			Overflow: a.Overflow, KeepAllOverflow: a.KeepAllOverflow, Saved: a.Saved, Lost: a.Lost,
			BoundaryFound: a.BoundaryFound, BoundaryCall: a.BoundaryCall, Reinvocations: a.Reinvocations, ReinvPer100: a.ReinvPer100, ReinvocationTokens: a.ReinvocationTok,
			Priced: a.Priced, Cost: a.CostCachedRatio, CostLo: a.CostCachedLo, CostHi: a.CostCachedHi, Uncached: c,
			SavedUSD: a.AsLoggedCostCachedUSD - a.CostCachedUSD, CostCachedUSD: a.CostCachedUSD})
	}
	d.Recommendations = []dashboards.Recommendation{}
	for _, r := range recs {
		d.Recommendations = append(d.Recommendations, dashboards.Recommendation{Family: r.Family, Label: r.Label, Runs: r.Runs, Train: r.Train, HeldOut: r.HeldOut,
			Policy: r.Policy, Short: r.Short, Mechanism: r.Mechanism, Currency: string(r.Currency), Saving: r.Saving, SavingLo: r.SavingLo, SavingHi: r.SavingHi, ReinvPer100: r.ReinvPer100,
			SavedRuns: r.SavedRuns, Why: r.Why, Note: strings.TrimSuffix(strings.TrimPrefix(ApplyNote(r), " ("), ")")})
	}

	d.SampleRule, d.Sample = sample.Rule, sample.Runs
	d.Headline = Headline(rep)
	d.Decision = DecisionCard(Decide(recs))
	best := BestPolicy(rep)
	for _, p := range sim.Policies {
		if p.Spec == best && best != "" {
			d.BestPolicy = p.Short
		}
	}
	d.Runs = runRecords(diag.Runs, sim)
	d.TimelinePolicies = timelineReplays(d.Runs, sim, best)
	redactPage(d, rep.Redactor)
	return d
}

// DecisionCard is the best-policy card's figures: the decision's lead
// family's policy on its held-out runs (what the headline says), or none
// with the headline's reason.
func DecisionCard(dec Decision) dashboards.Decision {
	r := dec.Lead
	if r == nil {
		return dashboards.Decision{Reason: dec.Reason()}
	}
	h := r.HeldOutFigures
	f := h.Objective(r.Currency)
	note := strings.TrimSuffix(strings.TrimPrefix(ApplyNote(*r), " ("), ")")
	return dashboards.Decision{Policy: r.Short, Family: r.Family, Currency: string(r.Currency), Ratio: f.X, Lo: f.Lo, Hi: f.Hi, Tokens: h.Tokens.X,
		HeldOut: r.HeldOut, Saved: h.Saved, Lost: h.Lost, LostLogged: h.LostLogged, ReinvPer100: h.ReinvPer100, More: len(dec.Named) - 1, Note: note}
}

// runRecords are every run's compact records for the page's run list and
// timeline: diag_runs' figures and cost, the run's diag_calls
// (DiagCallRows) and its sim_runs rows (report replays every run at its
// own window), in sim.Policies order.
func runRecords(runs []diagnose.RunDiagnosis, sim Simulation) []dashboards.RunRecord {
	col := map[string]int{}
	for i, p := range sim.Policies {
		col[p.Spec] = i
	}
	byRun := map[string][]dashboards.PolicyOutcome{}
	for i := range sim.Results {
		x := &sim.Results[i]
		k, ok := col[x.Policy]
		if !ok {
			continue
		}
		ps := byRun[x.RunID]
		if ps == nil {
			ps = make([]dashboards.PolicyOutcome, len(sim.Policies))
			for j := range ps {
				ps[j].OverflowCall = -1
			}
			byRun[x.RunID] = ps
		}
		ps[k] = dashboards.PolicyOutcome{Status: string(x.Status), OverflowCall: x.OverflowCall, TokenRatio: x.TokenRatio(), Saved: x.Saved, Lost: x.Lost}
	}
	out := make([]dashboards.RunRecord, len(runs))
	for i := range runs {
		r := &runs[i]
		occ := r.Occupancy
		rec := dashboards.RunRecord{RunID: r.RunID, StoreID: r.RunID, Model: r.Model, Family: r.ModelFamily, Format: r.SourceFormat, Window: occ.Window,
			PeakTokens: occ.PeakTokens, PeakShare: occ.PeakShare, EndReason: string(r.End.Reason), EndSource: string(r.End.Source),
			CostUSD: r.Cost.USD, CostKnown: r.Cost.Source != diagnose.CostUnknown, Policies: byRun[r.RunID]}
		rows := DiagCallRows(r)
		rec.Calls = make([]dashboards.Call, len(rows))
		for k, c := range rows {
			rec.Calls[k] = dashboards.Call{Index: c.Turn, Prompt: c.PromptTokens, Estimated: c.PromptSource == string(diagnose.PromptEstimated), Compaction: c.Compaction}
		}
		out[i] = rec
	}
	return out
}

// timelineReplays fills each run record's Replays: its prompt tokens per
// replayed call (sim_calls.prompt_tokens) under as-logged, keep-all and
// best (the best-policy card's policy, a spec; "" none), the policies
// whose short names it returns, in that order; none when the simulation
// kept no prompts (SimulateOptions.Prompts).
func timelineReplays(recs []dashboards.RunRecord, sim Simulation, best string) []string {
	if sim.prompts == nil {
		return nil
	}
	var specs, names []string
	for _, spec := range []string{simulate.AsLoggedName, "keep-all", best} {
		for _, p := range sim.Policies {
			if spec != "" && p.Spec == spec && !slices.Contains(specs, spec) {
				specs, names = append(specs, spec), append(names, p.Short)
			}
		}
	}
	for i := range recs {
		r := &recs[i]
		if _, ok := sim.prompts[r.RunID]; !ok {
			continue
		}
		r.Replays = make([][]int64, len(specs))
		for k, spec := range specs {
			r.Replays[k] = sim.CallPrompts(r.RunID, spec)
		}
	}
	return names
}

// Sample is the report's drill-down: the sampling rule and the
// sampled runs.
type Sample struct {
	Rule string
	Runs []dashboards.RunDetail
}

// sample draws the sample (dashboards.SampleRuns over diagnose's
// runs) and builds each sampled run's drill-down (reportRunDetail); add
// receives the sampled runs' sim_calls rows.
func sample(ctx context.Context, st *store.Store, o *ReportOptions, diag diagnose.Summary, sim Simulation, add func(vals ...any) error) (Sample, error) {
	var out Sample
	byRun := map[string][]int{}
	for i := range sim.Results {
		byRun[sim.Results[i].RunID] = append(byRun[sim.Results[i].RunID], i)
	}
	cands := make([]dashboards.Candidate, len(diag.Runs))
	for i, r := range diag.Runs {
		cands[i] = dashboards.Candidate{RunID: r.RunID, PeakShare: r.Occupancy.PeakShare, PeakTokens: r.Occupancy.PeakTokens, Known: r.Occupancy.Window > 0}
	}
	picks, rule := dashboards.SampleRuns(cands, o.SampleTop, o.SampleN)
	out.Rule = rule
	pols, err := reportPolicies(o)
	if err != nil {
		return out, err
	}
	o.progress(StageSample, 0, len(picks))
	// the sampled runs are read and replayed on every CPU; their details
	// and sim_calls rows are taken here in the sample's order
	type detail struct {
		rd   dashboards.RunDetail
		rows [][]any // sim_calls rows
		err  error
	}
	done := make([]chan detail, len(picks))
	for i := range done {
		done[i] = make(chan detail, 1)
	}
	ctx, cancel := context.WithCancel(ctx)
	wait := parallel.Start(ctx, len(picks), func(i int) {
		r := &diag.Runs[picks[i].Index]
		var d detail
		d.rd, d.err = reportRunDetail(ctx, st, r, picks[i].Why, sim, byRun[r.RunID], pols, o.Window, o.Redact, func(vals ...any) error {
			d.rows = append(d.rows, vals)
			return nil
		})
		done[i] <- d
	})
	defer func() { cancel(); wait() }() // no worker outlives the call
	for i := range picks {
		d := <-done[i]
		if d.err != nil {
			return out, d.err
		}
		for _, vals := range d.rows {
			if add == nil {
				break
			}
			if err := add(vals...); err != nil {
				return out, err
			}
		}
		out.Runs = append(out.Runs, d.rd)
		o.progress(StageSample, i+1, len(picks))
	}
	return out, nil
}

func survivalOf(name string, b diagnose.ReadingBoundary) dashboards.Survival {
	// the curve drawn is 1 − the Aalen–Johansen incidence of reading stops
	// (finishing competing), the boundary's own curve
	s := dashboards.Survival{Name: name, Runs: b.Runs, Events: b.Events, Censored: b.Censored + b.Finished, Found: b.Found, Call: b.Call}
	for _, p := range b.CIF {
		s.Curve = append(s.Curve, dashboards.KMPoint{Call: p.Call, AtRisk: p.AtRisk, Events: p.Events, Censored: p.Finished + p.Censored, Survival: 1 - p.Incidence})
	}
	return s
}

// reportRunDetail is one sampled run: its diag_calls, sim_runs rows (rows
// indexes sim.Results), its prompts per policy and call and its tool outputs
// with what each policy did to them, both from the run replayed again
// (ReplayOutputs); the replay's calls go to add as sim_calls rows.
func reportRunDetail(ctx context.Context, st *store.Store, r *diagnose.RunDiagnosis, why string, sim Simulation, rows []int,
	pols []simulate.Policy, window simulate.Window, red *redact.Redactor, add func(vals ...any) error) (dashboards.RunDetail, error) {
	occ := r.Occupancy
	rd := dashboards.RunDetail{RunID: r.RunID, Model: r.Model, Family: r.ModelFamily, Harness: r.Harness, Format: r.SourceFormat, Window: occ.Window,
		WindowSource: r.WindowSource, PeakTokens: occ.PeakTokens, PeakShare: occ.PeakShare, EndReason: string(r.End.Reason), EndSource: string(r.End.Source),
		EndWhy: r.End.Why, Why: why}
	for _, c := range DiagCallRows(r) {
		rd.Calls = append(rd.Calls, dashboards.Call{Index: c.Turn, Prompt: c.PromptTokens, Estimated: c.PromptSource == string(diagnose.PromptEstimated), Compaction: c.Compaction})
	}
	// its parent (a sub-agent's or side-call's): the page opens a
	// main-agent run first (dashboards.DefaultRun)
	runs, err := st.Runs(ctx, store.RunFilter{RunID: r.RunID})
	if err != nil {
		return rd, err
	}
	if len(runs) == 1 {
		rd.Parent = runs[0].ParentRunID
	}
	outs, acts, replays, err := ReplayOutputs(ctx, st, r.RunID, pols, window, red)
	if err != nil {
		return rd, err
	}
	for _, p := range pols {
		x := replays[p.Name()]
		if add == nil {
			break
		}
		for i := range x.calls {
			if err := add(simCallValues(r.RunID, p.Name(), x.window, &x.calls[i])...); err != nil {
				return rd, err
			}
		}
	}
	short := map[string]string{}
	for _, p := range sim.Policies {
		short[p.Spec] = p.Short
	}
	for _, i := range rows {
		x := &sim.Results[i]
		var prompts []int64
		for _, c := range replays[x.Policy].calls {
			prompts = append(prompts, c.PromptTokens)
		}
		rd.Policies = append(rd.Policies, dashboards.RunPolicy{Policy: short[x.Policy], Status: string(x.Status), OverflowCall: x.OverflowCall,
			FirstActivation: x.FirstActivation, TokenRatio: x.TokenRatio(), PeakTokens: x.PeakTokens, Reinvocations: x.Reinvocations,
			PlaceholdersMax: x.PlaceholdersMax, CharsRemoved: x.CharsRemovedShare(), Prompts: prompts})
	}
	for i := range outs {
		outs[i].Actions = make([]dashboards.Action, len(sim.Policies))
		for j, p := range sim.Policies {
			outs[i].Actions[j] = acts[p.Spec][i]
		}
	}
	rd.Outputs = outs
	return rd, nil
}

// reportReplay is one policy's replay of a sampled run: its calls and the
// window of its sim_runs and sim_calls rows.
type reportReplay struct {
	window int64
	calls  []simulate.CallResult
}

// ReplayOutputs lists a run's tool outputs (tool_result events, seq order)
// and, per policy spec, what the policy first did to each and its replayed
// calls: the run is replayed as trajmine simulate replays it (same trace,
// calibration factor, at window) with each policy wrapped in a watcher
// that notes, after every call's rendering, the outputs no longer in full.
// With red set, each output's target and preview are redacted (the
// preview from the redacted head of the text: redact.Redactor.Head).
func ReplayOutputs(ctx context.Context, st *store.Store, runID string, pols []simulate.Policy, window simulate.Window, red *redact.Redactor) ([]dashboards.ToolOutput, map[string][]dashboards.Action, map[string]reportReplay, error) {
	rs, err := st.Runs(ctx, store.RunFilter{RunID: runID})
	if err != nil || len(rs) != 1 {
		return nil, nil, nil, cmp.Or(err, fmt.Errorf("run %q not found", runID))
	}
	run := rs[0]
	events, err := st.Events(ctx, runID)
	if err != nil {
		return nil, nil, nil, err
	}
	usage, err := st.Usage(ctx, runID)
	if err != nil {
		return nil, nil, nil, err
	}
	ops, err := st.ContextOps(ctx, runID)
	if err != nil {
		return nil, nil, nil, err
	}
	targets := map[string]string{}
	var outs []dashboards.ToolOutput
	for _, e := range events {
		switch e.Kind {
		case schema.KindToolCall:
			if e.CallID != "" {
				targets[e.CallID] = e.Target
			}
		case schema.KindToolResult:
			target := e.Target
			if target == "" {
				target = targets[e.CallID]
			}
			outs = append(outs, dashboards.ToolOutput{Seq: e.Seq, Call: e.Turn, Tool: red.String(e.ToolName), Key: red.String(e.ToolKey),
				Target: red.String(target), EstTokens: e.EstTokens, Chars: e.Chars, Preview: preview(red, e.Text)})
		}
	}
	tr, err := reportTrace(ctx, st, run, events, usage, ops)
	if err != nil {
		return nil, nil, nil, err
	}
	// tool outputs by trace item
	item := map[int32]int{}
	bySeq := map[int64]int{}
	for i, o := range outs {
		bySeq[o.Seq] = i
	}
	for i, it := range tr.Items {
		if it.Kind == simulate.ItemToolResult {
			if k, ok := bySeq[it.Seq]; ok {
				item[int32(i)] = k
			}
		}
	}
	acts := map[string][]dashboards.Action{}
	replays := map[string]reportReplay{}
	var rp simulate.Replayer
	for _, p := range pols {
		fresh, err := simulate.Fresh(p)
		if err != nil {
			return nil, nil, nil, err
		}
		w := &reportWatch{Policy: fresh, items: item, acts: make([]dashboards.Action, len(outs))}
		var calls []simulate.CallResult
		r := rp.Replay(tr, w, simulate.Options{Window: window, Calls: &calls})
		acts[p.Name()] = w.acts
		replays[p.Name()] = reportReplay{window: r.WindowTokens, calls: calls}
	}
	return outs, acts, replays, nil
}

// previewHead is how much of an output's text a redacted preview is made
// from: enough for PreviewChars characters after whitespace is collapsed,
// and for a secret that starts in them to end within it.
const previewHead = 4 * dashboards.PreviewChars

// preview is an output's preview on the page: its first PreviewChars
// characters on one line, from the redacted head of its text when red is
// set (redacting only the head keeps the cost per output bounded; a
// secret cut off by the head's end would be cut by the preview too). The
// redactor counts the secrets the preview shows markers of.
func preview(red *redact.Redactor, text string) string {
	if red == nil {
		return textfmt.Line(text, dashboards.PreviewChars)
	}
	h, n := red.Head(text, previewHead)
	p := textfmt.Line(h, dashboards.PreviewChars)
	if n > 0 {
		red.Add(redact.Markers(p)) // the secrets in what the page shows
	}
	return p
}

// redactPage passes the page's log-derived text not redacted with the
// sample (ReplayOutputs) through red: names of tools and runs, models,
// end-reason explanations, the verdict and recommendation texts, the
// mined activities. The same text always becomes the same, so the keys
// that join them on the page still do.
func redactPage(d *dashboards.Data, red *redact.Redactor) {
	if red == nil {
		d.Unredacted = true
		return
	}
	s := red.String
	d.Verdict.Text, d.Verdict.TopRentTool = s(d.Verdict.Text), s(d.Verdict.TopRentTool)
	for i := range d.Rent {
		d.Rent[i].Tool = s(d.Rent[i].Tool)
	}
	for i := range d.Recommendations {
		d.Recommendations[i].Why = s(d.Recommendations[i].Why)
	}
	if pm := d.ProcessMap; pm != nil {
		for i := range pm.Nodes {
			pm.Nodes[i].ID, pm.Nodes[i].Label = s(pm.Nodes[i].ID), s(pm.Nodes[i].Label)
		}
		for i := range pm.Edges {
			pm.Edges[i].From, pm.Edges[i].To = s(pm.Edges[i].From), s(pm.Edges[i].To)
		}
	}
	for i := range d.Variants {
		acts := slices.Clone(d.Variants[i].Activities) // shared with the Report's
		for j, a := range acts {
			acts[j] = s(a)
		}
		d.Variants[i].Activities = acts
	}
	for i := range d.Runs { // runRecords' own: the run list's ids and models
		r := &d.Runs[i]
		r.RunID, r.Model = s(r.RunID), s(r.Model)
	}
	d.Sample = slices.Clone(d.Sample) // the Report's stay as they were
	for i := range d.Sample {
		r := &d.Sample[i]
		r.RunID, r.Model, r.EndWhy, r.Parent = s(r.RunID), s(r.Model), s(r.EndWhy), s(r.Parent)
	}
	d.Redacted = red.Count()
}

// reportTrace builds a run's trace as the shared pass does for trajmine
// simulate (RunWork.Trace: its diagnosed end, calibration factor, the
// actions classifier).
func reportTrace(ctx context.Context, st *store.Store, run schema.Run, events []schema.Event, usage []schema.Usage, ops []schema.ContextOp) (*simulate.Trace, error) {
	classify, err := DefaultClassify()
	if err != nil {
		return nil, err
	}
	f := 0.0
	if c, err := st.CalibrationFor(ctx, run.SourceFormat, run.ModelFamily, run.Estimator); err == nil && c != nil && c.Factor > 0 {
		f = c.Factor
	}
	end := diagnose.Run(run, events, usage, ops, 0).End
	tr := simulate.NewTrace(run, events, usage, ops, end, &simulate.TraceOptions{Factor: f, Classify: classify})
	return tr, nil
}

// reportWatch wraps a policy and notes, per tool output, the first call at
// which the output's rendering is not full, and how.
type reportWatch struct {
	simulate.Policy
	items map[int32]int // trace item → output index
	acts  []dashboards.Action
}

// Before renders call t as the wrapped policy does, then notes the outputs
// it no longer shows in full.
func (w *reportWatch) Before(t int, s *simulate.Sim) {
	w.Policy.Before(t, s)
	w.look(t, s)
}

// OnOverflow forwards to the policy's handler; a policy without one leaves
// the prompt as it is, as the engine does.
func (w *reportWatch) OnOverflow(t int, s *simulate.Sim) {
	if h, ok := w.Policy.(simulate.OverflowHandler); ok {
		h.OnOverflow(t, s)
		w.look(t, s)
	}
}

func (w *reportWatch) look(t int, s *simulate.Sim) {
	for i, k := range w.items {
		if w.acts[k].Mode != "" || !s.Admitted(i) {
			continue
		}
		if m := s.Mode(i); m != simulate.Full {
			w.acts[k] = dashboards.Action{Mode: m.String(), Call: t}
		}
	}
}
