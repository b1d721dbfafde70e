package behavior_test

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/trajmine/trajmine/behavior"
	"github.com/trajmine/trajmine/counterfactual"
	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/schema"
)

var approx = cmpopts.EquateApprox(0, 1e-9)

// manageRun is a 10-call DTOC run (window 10000, call t's logged prompt
// 1000·(t+1)):
//
//	call 0  reads a.py          → k1, 1040 tokens, seen from call 1
//	call 1  runs pytest         → k2,  240 tokens, seen from call 2
//	call 3  manage_context disable k1, k2 (text 5, call 20, status 10 tokens)
//	call 5  runs pytest again   → k5 (a target use of k2, hidden since call 4)
//	call 6  manage_context enable k1 (3 calls after its disable: thrash)
//	call 8  manage_context disable k2 (already hidden), zz (unknown)
func manageRun() *runBuilder {
	b := newRun("m1", "fam-a", 10, 10000, func(t int64) int64 { return 1000 * (t + 1) })
	b.tool(0, "read_file", "a.py", "k1", 1040)
	b.tool(1, "run_tests", "pytest", "k2", 240)
	b.manage(3, []string{"k1", "k2"}, nil, 5, 20, 10)
	b.tool(5, "run_tests", "pytest", "k5", 100)
	b.manage(6, nil, []string{"k1"}, 0, 20, 10)
	b.manage(8, []string{"k2", "zz"}, nil, 0, 20, 10)
	return b
}

func TestRunManage(t *testing.T) {
	b := manageRun()
	got := behavior.Run(b.run, b.events, b.usage, b.ops, nil)
	want := behavior.ManageRun{
		HasTool: true,
		Enables: 1,
		Ops: []behavior.ManageOp{
			{Call: 3, Seq: 5, Disabled: []string{"k1", "k2"}, Enabled: []string{}, Freed: 1200, Prompt: 4000, PromptSource: diagnose.PromptLogged, Fill: 0.4,
				CallTokens: 25, StatusTokens: 10, OverheadRent: 25*6 + 10*6, CallPrompt: 4000, Saved: 3000 + 1200},
			{Call: 6, Seq: 9, Disabled: []string{}, Enabled: []string{"k1"}, Prompt: 7000, PromptSource: diagnose.PromptLogged, Fill: 0.7,
				CallTokens: 20, StatusTokens: 10, OverheadRent: 20*3 + 10*3, CallPrompt: 7000},
			{Call: 8, Seq: 11, Disabled: []string{"k2", "zz"}, Enabled: []string{}, Shallow: true, Prompt: 9000, PromptSource: diagnose.PromptLogged, Fill: 0.9,
				CallTokens: 20, StatusTokens: 10, OverheadRent: 20*1 + 10*1, CallPrompt: 9000},
		},
		Hides: []behavior.Hide{
			{Key: "k1", Call: 3, Seq: 5, Found: true, Tool: "read_file", Class: "read", Target: "a.py", OutputCall: 1, Age: 2,
				Tokens: 1040, Freed: 1000, HiddenCalls: 3, Saved: 3000, Reenabled: true, ReenabledAfter: 3, Thrash: true},
			{Key: "k2", Call: 3, Seq: 5, Found: true, Tool: "run_tests", Class: "other", Target: "pytest", OutputCall: 2, Age: 1,
				Tokens: 240, Freed: 200, HiddenCalls: 6, Saved: 1200, ReenabledAfter: -1, NeededUses: 1, Needed: true},
			{Key: "k2", Call: 8, Seq: 11, Found: true, Redundant: true, Tool: "run_tests", Class: "other", Target: "pytest", OutputCall: 2, Age: 6, ReenabledAfter: -1},
			{Key: "zz", Call: 8, Seq: 11, ReenabledAfter: -1},
		},
	}
	if diff := cmp.Diff(want, got.Manage, approx); diff != "" {
		t.Errorf("manage (-want +got):\n%s", diff)
	}
	if got.Calls != 10 || got.Window != 10000 || got.WindowSource != diagnose.WindowFromLog || len(got.Compactions) != 0 {
		t.Errorf("calls %d window %d (%s), %d compactions", got.Calls, got.Window, got.WindowSource, len(got.Compactions))
	}

	// Options: a 0-token placeholder, shallow below 2000, thrash within 2 calls.
	got = behavior.Run(b.run, b.events, b.usage, b.ops, &behavior.Options{PlaceholderTokens: -1, ShallowTokens: 2000, ThrashWindow: 2})
	h := got.Manage.Hides[0]
	if h.Freed != 1040 || h.Thrash || !got.Manage.Ops[0].Shallow || got.Manage.Ops[0].Freed != 1280 {
		t.Errorf("with options: hide %+v, op %+v", h, got.Manage.Ops[0])
	}

	// Options.Uses: the caller's uses are the ones counted. k2's one need
	// (the target use at call 5) is the run's own Uses; given none, it has
	// none; given them, the same as computing them.
	got = behavior.Run(b.run, b.events, b.usage, b.ops, &behavior.Options{Uses: func() []counterfactual.Use { return nil }})
	if h := got.Manage.Hides[1]; h.Key != "k2" || h.NeededUses != 0 || h.Needed {
		t.Errorf("no uses given: hide %+v, want k2 with no need", h)
	}
	own := counterfactual.Uses(b.events)
	got = behavior.Run(b.run, b.events, b.usage, b.ops, &behavior.Options{Uses: func() []counterfactual.Use { return own }})
	if diff := cmp.Diff(want, got.Manage, approx); diff != "" {
		t.Errorf("uses given (-want +got):\n%s", diff)
	}
}

func TestSummarizeManage(t *testing.T) {
	b := manageRun()
	plain := newRun("p1", "fam-a", 4, 10000, func(t int64) int64 { return 500 })
	plain.dtoc = false
	plain.tool(0, "read_file", "x.py", "x", 100)
	runs := []behavior.RunProfile{
		behavior.Run(b.run, b.events, b.usage, b.ops, nil),
		behavior.Run(plain.run, plain.events, plain.usage, plain.ops, nil), // no manage_context: not pooled
	}
	got := behavior.Summarize(runs, nil).Manage
	want := behavior.ManageProfile{
		Runs: 2, ToolRuns: 1, Calls: 10, Ops: 3, DisablingOps: 2, Disables: 4, Enables: 1,
		OpsPer100: 30, DisablesPer100: 40, KeysPerOp: 2,
		FreedPerOp:   behavior.Dist{N: 2, Min: 0, P10: 120, Median: 600, P90: 1080, Max: 1200, Mean: 600},
		FreedPerHide: behavior.Dist{N: 2, Min: 200, P10: 280, Median: 600, P90: 920, Max: 1000, Mean: 600},
		FillAtOp:     behavior.Dist{N: 3, Min: 0.4, P10: 0.46, Median: 0.7, P90: 0.86, Max: 0.9, Mean: 2.0 / 3},
		ShallowOps:   1, ShallowShare: 0.5, ReEnableRate: 0.25, Thrashes: 1, ThrashShare: 0.25,
		OverheadTokens: 95, OverheadRent: 330, CallPrompt: 20000, Saved: 4200, Net: 4200 - 330 - 20000, SavedPerCost: 4200.0 / 20330,
		Age:     behavior.Dist{N: 3, Min: 1, P10: 1.2, Median: 2, P90: 5.2, Max: 6, Mean: 3},
		ByTool:  []behavior.Share{{Name: "run_tests", Count: 2, Share: 2.0 / 3, Tokens: 200}, {Name: "read_file", Count: 1, Share: 1.0 / 3, Tokens: 1000}},
		ByClass: []behavior.Share{{Name: "other", Count: 2, Share: 2.0 / 3, Tokens: 200}, {Name: "read", Count: 1, Share: 1.0 / 3, Tokens: 1000}},
		Hidden:  2, Needed: 1, NeededShare: 0.5,
	}
	if diff := cmp.Diff(want, got, approx); diff != "" {
		t.Errorf("profile (-want +got):\n%s", diff)
	}
	groups := behavior.ByFamily(runs, nil)
	if len(groups) != 1 || groups[0].Key != "fam-a" || groups[0].Runs != 2 || groups[0].Class.Label != behavior.LabelUnknown {
		t.Errorf("ByFamily = %+v", groups)
	}
}

// compactionRun is a 20-call run (window 10000) that compacts twice:
// before call 5 (tokens_before 8200 logged) and before call 15 (nothing
// logged: the prompts of calls 14 and 15 stand in).
func compactionRun() *runBuilder {
	prompt := func(t int64) int64 {
		switch {
		case t < 5:
			return 1000 * (t + 4)
		case t < 15:
			return 1500 + 500*(t-5)
		}
		return 2000
	}
	b := newRun("c1", "fam-b", 20, 10000, prompt)
	b.dtoc = false
	b.tool(0, "read_file", "a.py", "r1", 300)
	b.tool(1, "read_file", "b.py", "r2", 400)
	b.tool(2, "search", "pat", "s1", 50)
	b.tool(3, "read_file", "c.py", "r3", 500)
	b.compaction(5, schema.OpCompaction, ptr(8200), nil)
	b.tool(5, "read_file", "a.py", "r4", 300)
	b.tool(7, "read_file", "b.py", "r5", 450)
	b.tool(8, "read_file", "a.py", "r6", 300)
	b.tool(9, "read_file", "d.py", "r7", 100)
	b.compaction(15, schema.OpSummary, nil, nil)
	b.tool(16, "read_file", "c.py", "r8", 500)
	return b
}

func TestRunCompactions(t *testing.T) {
	b := compactionRun()
	got := behavior.Run(b.run, b.events, b.usage, b.ops, nil)
	want := []behavior.Compaction{
		{Call: 5, Seq: 8, Op: schema.OpCompaction, Trigger: "auto", Ops: 1, Before: 8200, BeforeSource: behavior.TokensFromOp,
			After: 1500, AfterSource: "logged", Fill: 0.82, Dropped: 6700, DroppedShare: 6700.0 / 8200,
			ReadTargets: 3, RereadTargets: 2, Rereads: 3, RereadTokens: 1050},
		{Call: 15, Seq: 17, Op: schema.OpSummary, Trigger: "auto", Ops: 1, Before: 6000, BeforeSource: "logged",
			After: 2000, AfterSource: "logged", Fill: 0.6, Dropped: 4000, DroppedShare: 4000.0 / 6000,
			ReadTargets: 4, RereadTargets: 1, Rereads: 1, RereadTokens: 500},
	}
	if diff := cmp.Diff(want, got.Compactions, approx); diff != "" {
		t.Errorf("compactions (-want +got):\n%s", diff)
	}
	if got.Manage.HasTool || len(got.Manage.Ops) != 0 {
		t.Errorf("manage = %+v, want no tool", got.Manage)
	}

	// a re-read window of 2 calls sees only the read at call 5
	got = behavior.Run(b.run, b.events, b.usage, b.ops, &behavior.Options{RereadWindow: 2})
	if c := got.Compactions[0]; c.Rereads != 1 || c.RereadTargets != 1 {
		t.Errorf("window 2: %+v", c)
	}

	prof := behavior.Summarize([]behavior.RunProfile{behavior.Run(b.run, b.events, b.usage, b.ops, nil)}, nil).Compaction
	wantProf := behavior.CompactionProfile{
		Runs: 1, CompactedRuns: 1, Calls: 20, Compactions: 2, Per100: 10,
		ByOp:         []behavior.Share{{Name: "compaction", Count: 1, Share: 0.5, Tokens: 6700}, {Name: "summary", Count: 1, Share: 0.5, Tokens: 4000}},
		FireCall:     behavior.Dist{N: 2, Min: 5, P10: 6, Median: 10, P90: 14, Max: 15, Mean: 10},
		FirePosition: behavior.Dist{N: 2, Min: 0.25, P10: 0.3, Median: 0.5, P90: 0.7, Max: 0.75, Mean: 0.5},
		Fill:         behavior.Dist{N: 2, Min: 0.6, P10: 0.622, Median: 0.71, P90: 0.798, Max: 0.82, Mean: 0.71},
		Before:       behavior.Dist{N: 2, Min: 6000, P10: 6220, Median: 7100, P90: 7980, Max: 8200, Mean: 7100},
		LoggedBefore: 1,
		Dropped:      behavior.Dist{N: 2, Min: 4000, P10: 4270, Median: 5350, P90: 6430, Max: 6700, Mean: 5350},
		DroppedShare: behavior.NewDist([]float64{6700.0 / 8200, 4000.0 / 6000}),
		ReadTargets:  7, RereadTargets: 3, Rereads: 4, RereadTokens: 1550, RereadShare: 3.0 / 7, WithRereads: 2, WithRereadsShare: 1,
	}
	if diff := cmp.Diff(wantProf, prof, approx); diff != "" {
		t.Errorf("compaction profile (-want +got):\n%s", diff)
	}
}

// Unknown windows and missing usage: fill is left out, prompts are estimated.
func TestRunEstimatedPrompts(t *testing.T) {
	b := manageRun()
	b.run.WindowTokens, b.run.ModelFamily = nil, "no-such-family"
	got := behavior.Run(b.run, b.events, nil, b.ops, nil)
	if got.Window != 0 || got.WindowSource != diagnose.WindowUnknown {
		t.Fatalf("window %d %s", got.Window, got.WindowSource)
	}
	est := diagnose.EstimatedPrompts(b.events)
	for _, op := range got.Manage.Ops {
		if op.PromptSource != diagnose.PromptEstimated || op.Prompt != est[op.Call] || op.Fill != 0 {
			t.Errorf("op at %d: prompt %d (%s) fill %g, want estimated %d", op.Call, op.Prompt, op.PromptSource, op.Fill, est[op.Call])
		}
	}
	if p := behavior.Summarize([]behavior.RunProfile{got}, nil).Manage; p.FillAtOp.N != 0 {
		t.Errorf("fill pooled over a run with no window: %+v", p.FillAtOp)
	}
	got = behavior.Run(b.run, b.events, nil, b.ops, &behavior.Options{Window: 20000})
	if got.Window != 20000 || got.Manage.Ops[0].Fill != float64(est[3])/20000 {
		t.Errorf("--window: %d, fill %g", got.Window, got.Manage.Ops[0].Fill)
	}
}

// Events out of seq order give the same profile.
func TestRunSortsEvents(t *testing.T) {
	b := manageRun()
	want := behavior.Run(b.run, b.events, b.usage, b.ops, nil)
	r := rand.New(rand.NewPCG(1, 2))
	r.Shuffle(len(b.events), func(i, j int) { b.events[i], b.events[j] = b.events[j], b.events[i] })
	r.Shuffle(len(b.ops), func(i, j int) { b.ops[i], b.ops[j] = b.ops[j], b.ops[i] })
	got := behavior.Run(b.run, b.events, b.usage, b.ops, nil)
	// ops of one seq keep their order: disable k1, k2 become any order
	if diff := cmp.Diff(want.Compactions, got.Compactions); diff != "" {
		t.Errorf("compactions differ:\n%s", diff)
	}
	if w, g := behavior.Summarize([]behavior.RunProfile{want}, nil), behavior.Summarize([]behavior.RunProfile{got}, nil); !cmp.Equal(w, g, approx) {
		t.Errorf("profiles differ:\n%s", cmp.Diff(w, g, approx))
	}
}

func TestClassify(t *testing.T) {
	base := behavior.ManageProfile{ToolRuns: 5, OpsPer100: 5, DisablingOps: 10}
	with := func(f func(*behavior.ManageProfile)) behavior.ManageProfile { p := base; f(&p); return p }
	for _, tc := range []struct {
		name string
		p    behavior.ManageProfile
		th   *behavior.Thresholds
		want behavior.Label
	}{
		{"no tool", behavior.ManageProfile{Runs: 3}, nil, behavior.LabelNoTool},
		{"never", with(func(p *behavior.ManageProfile) { p.OpsPer100, p.DisablingOps = 0.4, 1 }), nil, behavior.LabelNever},
		{"too few ops", with(func(p *behavior.ManageProfile) { p.DisablingOps = 2 }), nil, behavior.LabelUnknown},
		{"thrasher", with(func(p *behavior.ManageProfile) { p.ThrashShare, p.ShallowShare = 0.25, 0.9 }), nil, behavior.LabelThrasher},
		{"shallow", with(func(p *behavior.ManageProfile) { p.ThrashShare, p.ShallowShare = 0.2, 0.5 }), nil, behavior.LabelShallow},
		{"selective", with(func(p *behavior.ManageProfile) { p.ThrashShare, p.ShallowShare = 0.1, 0.4 }), nil, behavior.LabelSelective},
		{"own thresholds", with(func(p *behavior.ManageProfile) { p.ShallowShare = 0.4 }),
			&behavior.Thresholds{NeverOpsPer100: 1, MinDisablingOps: 1, ThrashShare: 0.5, ShallowShare: 0.3}, behavior.LabelShallow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := behavior.Classify(tc.p, tc.th)
			if got.Label != tc.want || got.Reason == "" {
				t.Errorf("Classify = %+v, want %s", got, tc.want)
			}
		})
	}
}

func TestNewDist(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []float64
		want behavior.Dist
	}{
		{"empty", nil, behavior.Dist{}},
		{"one", []float64{7}, behavior.Dist{N: 1, Min: 7, P10: 7, Median: 7, P90: 7, Max: 7, Mean: 7}},
		{"unsorted", []float64{10, 0, 5}, behavior.Dist{N: 3, Min: 0, P10: 1, Median: 5, P90: 9, Max: 10, Mean: 5}},
		{"eleven", []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, behavior.Dist{N: 11, Min: 0, P10: 1, Median: 5, P90: 9, Max: 10, Mean: 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, behavior.NewDist(tc.in), approx); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// Results encode as JSON, also when empty (no NaN).
func TestJSON(t *testing.T) {
	b := manageRun()
	runs := []behavior.RunProfile{behavior.Run(b.run, b.events, b.usage, b.ops, nil)}
	for _, v := range []any{runs, behavior.ByFamily(runs, nil), behavior.Summarize(nil, nil)} {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "NaN") {
			t.Errorf("NaN in %s", data)
		}
	}
}

// Compaction ops of one turn are one compaction (Claude Code logs the
// boundary with tokens_before and then the summary).
func TestCompactionMerge(t *testing.T) {
	b := newRun("c2", "fam-b", 6, 10000, func(t int64) int64 { return 900 })
	b.tool(0, "read_file", "a.py", "r1", 300)
	b.compaction(2, schema.OpCompaction, ptr(9500), nil)
	b.compaction(2, schema.OpSummary, nil, ptr(700))
	b.compaction(4, schema.OpContinuation, nil, nil)
	got := behavior.Run(b.run, b.events, b.usage, b.ops, nil).Compactions
	want := []behavior.Compaction{
		{Call: 2, Seq: 2, Op: schema.OpCompaction, Trigger: "auto", Ops: 2, Before: 9500, BeforeSource: behavior.TokensFromOp,
			After: 700, AfterSource: behavior.TokensFromOp, Fill: 0.95, Dropped: 8800, DroppedShare: 8800.0 / 9500, ReadTargets: 1},
		{Call: 4, Seq: 4, Op: schema.OpContinuation, Trigger: "auto", Ops: 1, Before: 900, BeforeSource: "logged",
			After: 900, AfterSource: "logged", Fill: 0.09, ReadTargets: 1},
	}
	if diff := cmp.Diff(want, got, approx); diff != "" {
		t.Errorf("compactions (-want +got):\n%s", diff)
	}
}
