package recommend

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/simulate"
)

// growing builds n runs of calls read_file calls whose results (1,000–2,500
// tokens) are never used again; keep-all overflows a 20,000-token window
// around call 14. With ops, each run's log also disables every result three
// calls after it arrives (a DTOC model), which keeps what ran under the
// window. finished says whether the logs finished.
func growing(prefix string, n, calls int, ops, finished bool) []*simulate.Trace {
	var trs []*simulate.Trace
	for k := range n {
		tr := &simulate.Trace{RunID: prefix + strconv.Itoa(k), Harness: "swe-agent", NCalls: calls, Window: 20_000, Prefix: 100, Finished: finished}
		tr.Items = append(tr.Items, simulate.Item{Kind: simulate.ItemUser, Head: true, Call: -1, Tokens: 50, Chars: 200})
		for t := range calls {
			call := int32(len(tr.Items))
			r := int32(1000 + (k*37+t*91)%1500)
			tr.Items = append(tr.Items,
				simulate.Item{Seq: int64(2*t + 1), Since: int32(t + 1), Kind: simulate.ItemToolCall, Class: simulate.ClassRead, Call: -1, Tokens: 10, Chars: 40},
				simulate.Item{Seq: int64(2*t + 2), Since: int32(t + 1), Kind: simulate.ItemToolResult, Class: simulate.ClassRead, Call: call, Tokens: r, Chars: 4 * r, Lines: r / 10})
			tr.Output = append(tr.Output, 10)
			if ops && t+4 < calls {
				tr.Ops = append(tr.Ops, simulate.LoggedOp{Item: call + 1, From: int32(t + 4)})
			}
		}
		tr.Finalize()
		trs = append(trs, tr)
	}
	return trs
}

// TestRecommend checks the choices and the evidence rules on hand-built
// families (24 runs each, of which FNV-1a(id) % 4 == 0 holds out 6 of
// "s…" and "o…", 5 of "h…": see fnv1a32 in holdout_test.go):
//
//   - selective-model: DTOC runs whose own ops keep them under the window,
//     logs finished. What ran cannot be beaten on runs (none is lost under
//     what ran, so none can be saved), and every candidate that keeps
//     results longer sends more tokens: what ran is kept.
//   - overflowing-model: no ops, logs unfinished: what ran (keep-all here)
//     overflows every run at 20,000 tokens, so a policy that gets through
//     saves every held-out run.
//   - shallow-model: DTOC runs labelled shallow: the model's own ops are
//     excluded by the behaviour rule.
//   - short-model: 3 runs, 3 training and 0 held out (x0, x1 and x2 hash
//     to non-zero residues mod 4): insufficient evidence, and about 20
//     more runs to collect: the held-out deficit 5 − 0 = 5 at one new run
//     in 4 held out is 5 × 4 = 20 runs, the training deficit 10 − 3 = 7 at
//     3 in 4 is 7 × 4/3 = 9.3 → 10; the larger.
func TestRecommend(t *testing.T) {
	fams := []Family{
		{Name: "overflowing-model", Traces: growing("o", 24, 30, false, false)},
		{Name: "selective-model", Traces: growing("s", 24, 30, true, true)},
		{Name: "shallow-model", Traces: growing("h", 24, 30, true, true)},
		{Name: "short-model", Traces: growing("x", 3, 5, false, true)},
	}
	labels := map[string]string{"selective-model": "selective", "shallow-model": "shallow"}
	o := Options{Label: func(f string) string { return labels[f] }, Bootstrap: 200}
	rs, err := Recommend(fams, o)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Recommend(fams, o)
	if !reflect.DeepEqual(rs, again) {
		t.Fatal("Recommend is not deterministic")
	}
	byName := map[string]Result{}
	for _, r := range rs {
		byName[r.Family] = r
		t.Logf("%s: %s", r.Family, r.Why)
	}
	over, sel, sh, short := byName["overflowing-model"], byName["selective-model"], byName["shallow-model"], byName["short-model"]
	if over.Train != 18 || over.HeldOut != 6 || sel.Train != 18 || sel.HeldOut != 6 || sh.Train != 19 || sh.HeldOut != 5 {
		t.Fatalf("splits %d/%d, %d/%d, %d/%d; want 18/6, 18/6, 19/5", over.Train, over.HeldOut, sel.Train, sel.HeldOut, sh.Train, sh.HeldOut)
	}
	// overflowing: a mechanical policy, saving every held-out run, CI above zero
	if over.Insufficient || over.Mechanism == "logged" || over.Mechanism == "none" || over.Mechanism == "dtoc" {
		t.Errorf("overflowing family: %s (%s): %s", over.Short, over.Mechanism, over.Why)
	}
	if over.Saving == nil || *over.SavingLo <= 0 || *over.SavingLo > *over.Saving || *over.SavingHi < *over.Saving || over.SavedRuns != over.HeldOut || over.LostRuns != 0 {
		t.Errorf("overflowing held-out figures: %+v", over)
	}
	// selective: what ran is kept; its own ops (dtoc) are what ran, no gain
	if sel.Policy != "as-logged" || sel.Mechanism != "logged" {
		t.Errorf("selective family: %s, want as-logged: %s", sel.Policy, sel.Why)
	}
	for _, c := range sel.Candidates {
		if c.Saved != 0 {
			t.Errorf("selective family: %s saves %d runs whose logs finished", c.Spec, c.Saved)
		}
		if c.Spec == "dtoc(placeholder=40)" && c.Rule != RuleCost {
			t.Errorf("selective family: dtoc excluded by %q, want %q (it replays what ran: not below it)", c.Rule, RuleCost)
		}
	}
	// the model's own ops are candidates only for the selective family
	for _, c := range sh.Candidates {
		if Mechanism(c.Spec) == "dtoc" && (c.Eligible || c.Rule != RuleBehaviour || !strings.Contains(c.Why, "selective")) {
			t.Errorf("shallow family: %s eligible=%v rule %q (%s)", c.Spec, c.Eligible, c.Rule, c.Why)
		}
	}
	// harness mechanisms: no run of these families comes from their harness
	for _, c := range over.Candidates {
		if Harness(c.Spec) != "" && c.Rule != RuleHarness {
			t.Errorf("overflowing family: %s excluded by %q, want %q", c.Spec, c.Rule, RuleHarness)
		}
	}
	wantWhy := "insufficient evidence: 3 runs (3 training, 0 held out), need ≥ 10 training and ≥ 5 held-out: collect about 20 more runs of short-model"
	if !short.Insufficient || short.Policy != "" || short.Need != 20 || short.Why != wantWhy || short.Saving != nil {
		t.Errorf("short family: insufficient %v policy %q need %d why %q", short.Insufficient, short.Policy, short.Need, short.Why)
	}
	cfg := ConfigOf(rs)
	if fc := cfg.Families["overflowing-model"]; fc.Policy == "" || fc.Spec != over.Policy || len(fc.SavingCI) != 2 {
		t.Errorf("config entry = %+v", fc)
	}
	if _, ok := cfg.Families["short-model"]; ok || cfg.Insufficient["short-model"] != wantWhy {
		t.Errorf("config: short-model in families, or insufficient %q", cfg.Insufficient["short-model"])
	}
}

func TestSplitSpecAndMechanism(t *testing.T) {
	name, params := SplitSpec("halflife(activate=0.5,keep=4,cap=8000)")
	if name != "halflife" || params["cap"] != "8000" || len(params) != 3 {
		t.Errorf("SplitSpec = %s %v", name, params)
	}
	for spec, mech := range map[string]string{"keep-all": "none", "as-logged": "logged", "dtoc(placeholder=40)": "dtoc", "mask(n=3)": "masking",
		"halflife": "truncation", "compact-codex": "compaction", "tracer-tooltype": "truncation", "gemini-mask": "masking"} {
		if got := Mechanism(spec); got != mech {
			t.Errorf("Mechanism(%s) = %s, want %s", spec, got, mech)
		}
	}
}
