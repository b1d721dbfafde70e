package dashboards_test

import (
	"fmt"

	"github.com/trajmine/trajmine/dashboards"
)

// Hostile text as logs may hold it: every string from a log goes through
// these in the fixture.
const (
	xssScript = `<script>alert(1)</script>`
	xssImg    = `</script><img src=x onerror=alert(1)>`
	xssURL    = `javascript:alert(1)`
)

func f64(v float64) *float64 { return &v }

// fixture is a small, complete report: three sampled runs, two families,
// three policies, every optional section, and hostile text in run ids,
// model names, tool names, targets and outputs.
func fixture(full bool) *dashboards.Data {
	pols := []dashboards.Policy{{Spec: "keep-all", Short: "keep-all"}, {Spec: "mask(n=5,placeholder=x)", Short: "mask(n=5)"}, {Spec: "halflife(activate=0.5,keep=4,cap=8000)", Short: "halflife"}}
	d := &dashboards.Data{
		Title:     "trajmine report",
		Generated: "generated 2026-01-02 03:04 UTC",
		Source:    "fixture " + xssScript,
		Database:  "/tmp/" + xssImg + ".duckdb",
		Formats:   []dashboards.FormatTotals{{Format: "openai-messages", Runs: 3, Calls: 30, InputTokens: 123456, OutputTokens: 2345, EstTokens: 100000, Overflow: 1}},
		Verdict: dashboards.Verdict{Text: "1 of 3 runs (33.3%) ended on window length (1 explicit, 0 inferred); reading boundary at call 9; " + xssScript + " holds 40.0% of token rent",
			Runs: 3, WindowEnds: 1, Share: 1.0 / 3, Explicit: 1, BoundaryFound: true, BoundaryCall: 9, BoundaryEvents: 2,
			TopRentTool: xssScript, TopRentShare: 0.4, SystemPromptShare: 0.1, SpendUSD: 1.5, CostPriced: 3, PerSolvedUSD: f64(0.75), Resolved: 2, Failed: 1,
			ReReadsVisible: 4, ReReadsHidden: 1, Stalls: 2, StallRuns: 1},
		Groups:   []dashboards.Group{{Key: "gpt-" + xssImg, Runs: 2, WindowEnds: 1, KnownWindow: 2, MedianPeak: 0.7, MaxPeak: 0.98, RunsPeakGE80: 1, MaxPeakTokens: 125000}, {Key: "claude-sonnet-4", Runs: 1, KnownWindow: 1, MedianPeak: 0.3, MaxPeak: 0.3, MaxPeakTokens: 60000}},
		Ends:     []dashboards.Count{{Label: "finished", N: 2}, {Label: "context_overflow", N: 1}},
		Peaks:    []float64{0.98, 0.42, 0.3, 1.2},
		Rent:     []dashboards.ToolRent{{Tool: xssScript, Rent: 4000, Share: 0.4, Outputs: 3, Tokens: 900, MeanTokens: 300}, {Tool: "(system prompt)", Rent: 1000, Share: 0.1, Outputs: 1, Tokens: 100, MeanTokens: 100}, {Tool: "bash", Rent: 5000, Share: 0.5, Outputs: 4, Tokens: 800, MeanTokens: 200}},
		Policies: pols,
		Accuracy: "keep-all accuracy (out of sample, against logged input): median |error| 3.0% over 20 calls in 3 runs",
		Boundary: []dashboards.Survival{
			{Name: "logged", Runs: 3, Events: 2, Censored: 1, Found: true, Call: 9, Curve: []dashboards.KMPoint{{Call: 5, AtRisk: 3, Censored: 1, Survival: 1}, {Call: 9, AtRisk: 2, Events: 1, Survival: 0.5}, {Call: 12, AtRisk: 1, Events: 1, Survival: 0}}},
			{Name: "keep-all", Runs: 3, Events: 1, Censored: 2, Curve: []dashboards.KMPoint{{Call: 5, AtRisk: 3, Censored: 1, Survival: 1}, {Call: 12, AtRisk: 2, Events: 1, Censored: 1, Survival: 0.5}}, Found: true, Call: 12},
			{Name: "mask(n=5)", Runs: 3, Censored: 3, Curve: []dashboards.KMPoint{{Call: 5, AtRisk: 3, Censored: 1, Survival: 1}, {Call: 12, AtRisk: 2, Censored: 2, Survival: 1}}},
			{Name: "halflife", Runs: 3, Censored: 3, Curve: []dashboards.KMPoint{{Call: 5, AtRisk: 3, Censored: 1, Survival: 1}, {Call: 12, AtRisk: 2, Censored: 2, Survival: 1}}},
		},
		SampleRule: "3 of 3 runs are shown call by call.",
	}
	for _, g := range []string{"", "gpt-" + xssImg, "claude-sonnet-4"} {
		for i, p := range pols {
			a := dashboards.PolicyAgg{Group: g, Policy: p.Short, Runs: 3, Ratio: 1 - 0.2*float64(i), RatioLo: 0.95 - 0.2*float64(i), RatioHi: 1.02 - 0.2*float64(i), Overflow: 1 - min(i, 1), KeepAllOverflow: 1,
				Saved: min(i, 1), Reinvocations: int64(3 * i), ReinvPer100: 10 * float64(i), TokensSaved: int64(2000 * i), Priced: 3,
				Uncached: 1 - 0.15*float64(i), Cost: 1 + 0.1*float64(i), CostLo: 0.95 + 0.1*float64(i), CostHi: 1.05 + 0.1*float64(i), SavedUSD: -0.06 * float64(i), CostCachedUSD: 0.6}
			if i == 0 {
				a.BoundaryFound, a.BoundaryCall = true, 12
			}
			if g != "" {
				a.Runs = 1
			}
			d.Comparison = append(d.Comparison, a)
		}
	}
	models := []string{"gpt-" + xssImg, "gpt-4o", "claude-sonnet-4"}
	ids := []string{xssScript, "run-" + xssURL, "run-3"}
	for k := range 3 {
		n := 8 + 4*k
		r := dashboards.RunDetail{RunID: ids[k], Model: models[k], Family: models[k], Harness: "h", Format: "openai-messages", Window: 128000, WindowSource: "known-model",
			PeakTokens: int64(40000 * (k + 1)), PeakShare: float64(40000*(k+1)) / 128000, EndReason: "finished", EndSource: "explicit", EndWhy: "the log says " + xssImg, Why: "top"}
		if k == 2 {
			r.Why = "sample"
		}
		for t := range n {
			r.Calls = append(r.Calls, dashboards.Call{Index: int64(t), Prompt: int64(5000 * (t + 1) * (k + 1) / 2), Estimated: t%3 == 0, Compaction: t == 5})
		}
		for j, p := range pols {
			rp := dashboards.RunPolicy{Policy: p.Short, Status: "survived", OverflowCall: -1, FirstActivation: -1, TokenRatio: 1 - 0.2*float64(j), PeakTokens: r.PeakTokens}
			if j > 0 {
				rp.FirstActivation = 3
				rp.PlaceholdersMax = 2
				rp.CharsRemoved = 0.25
			}
			for t := range n {
				rp.Prompts = append(rp.Prompts, int64(float64(5000*(t+1)*(k+1)/2)*(1-0.1*float64(j))))
			}
			r.Policies = append(r.Policies, rp)
		}
		for o := range 4 {
			out := dashboards.ToolOutput{Seq: int64(10 * o), Call: int64(o), Tool: []string{"bash", xssScript, "read_file", "fetch"}[o], Key: fmt.Sprintf("call_%d", o),
				Target: []string{"ls -la", xssImg, "/src/main.go", xssURL}[o], EstTokens: int64(100 * (o + 1)), Chars: int64(400 * (o + 1)),
				Preview: []string{"total 8\n" + xssScript, xssImg + " <a href=\"" + xssURL + "\">click</a>", "package main", "[link](" + xssURL + ")"}[o],
				Actions: []dashboards.Action{{}, {Mode: "placeholder", Call: 4 + o}, {}}}
			if o == 1 {
				out.Actions[2] = dashboards.Action{Mode: "truncated", Call: 6}
			}
			r.Outputs = append(r.Outputs, out)
		}
		d.Sample = append(d.Sample, r)
	}
	// every run's compact record: the three sampled runs, a one-call run
	// and a run with an unknown window that overflowed
	for _, r := range d.Sample {
		rec := dashboards.RunRecord{RunID: r.RunID, Model: r.Model, Family: r.Family, Format: r.Format, Window: r.Window,
			PeakTokens: r.PeakTokens, PeakShare: r.PeakShare, EndReason: r.EndReason, EndSource: r.EndSource, Calls: r.Calls, CostUSD: 0.5, CostKnown: true}
		for _, p := range r.Policies {
			rec.Policies = append(rec.Policies, dashboards.PolicyOutcome{Status: p.Status, OverflowCall: p.OverflowCall, TokenRatio: p.TokenRatio})
		}
		d.Runs = append(d.Runs, rec)
	}
	d.Runs = append(d.Runs,
		dashboards.RunRecord{RunID: "one-call " + xssImg, Model: "gpt-4o", Family: "gpt-4o", Format: "openai-messages", Window: 128000, PeakTokens: 9000,
			PeakShare: 9000.0 / 128000, EndReason: "finished", EndSource: "explicit", Calls: []dashboards.Call{{Index: 0, Prompt: 9000}}},
		dashboards.RunRecord{RunID: "overflowed", Model: "local-" + xssScript, Family: "local", Format: "codex", PeakTokens: 210000,
			EndReason: "context_overflow", EndSource: "inferred", Calls: []dashboards.Call{{Index: 0, Prompt: 90000}, {Index: 1, Prompt: 150000, Estimated: true}, {Index: 2, Prompt: 60000, Compaction: true}, {Index: 3, Prompt: 210000}},
			Policies: []dashboards.PolicyOutcome{{Status: "overflow", OverflowCall: 3, TokenRatio: 1}, {Status: "overflow", OverflowCall: 3, TokenRatio: 0.9}, {Status: "survived", OverflowCall: -1, TokenRatio: 0.55, Saved: true}},
			// not sampled: its replays under the timeline's policies
			// (keep-all, and mask(n=5), which overflows at call 3 too)
			Replays: [][]int64{{90000, 150000, 150000, 210000}, {90000, 120000, 50000, 200000}}})
	d.TimelinePolicies = []string{"keep-all", "mask(n=5)"}
	if !full {
		return d
	}
	d.Recommendations = []dashboards.Recommendation{
		{Family: "gpt-" + xssImg, Runs: 12, Train: 9, HeldOut: 3, Policy: "mask(n=5,placeholder=x)", Short: "mask(n=5)", Mechanism: "masking", Currency: "cost", Saving: f64(0.2), SavingLo: f64(0.0003), SavingHi: f64(0.3), ReinvPer100: f64(0.5), SavedRuns: 1, Why: "saves 1 run " + xssScript},
		{Family: "claude-sonnet-4", Runs: 1, Train: 1, Policy: "keep-all", Short: "keep-all", Mechanism: "none", Why: "too few runs to hold some out"},
	}
	// the CLI's decision: gpt's recommendation, its held-out figures
	d.Decision = dashboards.Decision{Policy: "mask(n=5)", Family: "gpt-" + xssImg, Currency: "cost", Ratio: 0.8, Lo: 0.7, Hi: 0.9997, Tokens: 0.6,
		HeldOut: 3, Saved: 1, LostLogged: 1, ReinvPer100: 0.5, Note: "remove the agent's manage_context tool"}
	d.ProcessMap = &dashboards.ProcessMap{
		Nodes: []dashboards.ProcessNode{{ID: "a", Label: "read " + xssScript, Count: 10, Timed: 8, MedianMS: 1200}, {ID: "b", Label: "edit", Count: 6, Timed: 6, MedianMS: 800},
			{ID: "c", Label: "test", Count: 4, Timed: 2, MedianMS: 5000}},
		Edges: []dashboards.ProcessEdge{{From: dashboards.StartNode, To: "a", Count: 3}, {From: "a", To: "b", Count: 6, Timed: 6, MedianMS: 300}, {From: "b", To: "b", Count: 2, Timed: 2, MedianMS: 50},
			{From: "b", To: "c", Count: 4, Timed: 4, MedianMS: 900}, {From: "c", To: "a", Count: 2, Timed: 2, MedianMS: 100}, {From: "c", To: dashboards.EndNode, Count: 3}},
	}
	d.Variants = []dashboards.Variant{{Activities: []string{"read " + xssScript, "edit", "test"}, Runs: 2, Share: 2.0 / 3}, {Activities: []string{"read", "test"}, Runs: 1, Share: 1.0 / 3}}
	d.Behaviour = []dashboards.BehaviourProfile{
		{Family: "gpt-" + xssImg, Label: "selective", Runs: 2, Metrics: []dashboards.Metric{{Name: "runs with ops", Value: 0.5, Unit: "%"}, {Name: "disable share", Value: 0.8, Unit: "%"}, {Name: "ops per 100 calls", Value: 3.2}}},
		{Family: "claude-sonnet-4", Label: "never", Runs: 1, Metrics: []dashboards.Metric{{Name: "runs with ops", Value: 0, Unit: "%"}}},
	}
	return d
}
