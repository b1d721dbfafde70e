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
// calls after it arrives (a DTOC model).
func growing(prefix string, n, calls int, ops bool) []*simulate.Trace {
	var trs []*simulate.Trace
	for k := range n {
		tr := &simulate.Trace{RunID: prefix + strconv.Itoa(k), NCalls: calls, Window: 20_000, Prefix: 100, Finished: true}
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

func TestRecommend(t *testing.T) {
	fams := []Family{
		{Name: "selective-model", Traces: growing("s", 20, 30, true)},
		{Name: "shallow-model", Traces: growing("h", 20, 30, true)},
		{Name: "short-model", Traces: growing("x", 3, 5, false)},
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
	sel, sh, short := byName["selective-model"], byName["shallow-model"], byName["short-model"]
	// every long run overflows keep-all at 20,000: the winner saves them all
	if sel.PolicyOf == "none" || sh.PolicyOf == "none" {
		t.Fatalf("keep-all chosen: %s / %s", sel.Why, sh.Why)
	}
	if sel.HeldOut == 0 || sel.Saving == nil || *sel.Saving <= 0 || *sel.SavingLo > *sel.Saving || *sel.SavingHi < *sel.Saving {
		t.Errorf("selective held-out figures: %+v", sel)
	}
	if sel.SavedRuns != sel.HeldOut {
		t.Errorf("saved %d of %d held-out runs", sel.SavedRuns, sel.HeldOut)
	}
	// the model's own ops are candidates only for the selective family
	for _, c := range sh.Candidates {
		if PolicyFamily(c.Spec) == "dtoc" && (c.Eligible || !strings.Contains(c.Why, "selective")) {
			t.Errorf("shallow family: %s eligible=%v (%s)", c.Spec, c.Eligible, c.Why)
		}
	}
	var dtocOK bool
	for _, c := range sel.Candidates {
		if c.Spec == "dtoc(placeholder=40)" {
			dtocOK = c.Eligible
		}
	}
	if !dtocOK {
		t.Error("selective family: dtoc not eligible")
	}
	// tiny families are not split and say so
	if short.HeldOut != 0 || short.Saving != nil || !strings.Contains(short.Why, "keep-all") && !strings.Contains(short.Why, "too few runs") {
		t.Errorf("short family: %+v", short)
	}
	cfg := ConfigOf(rs)
	if fc := cfg.Families["selective-model"]; fc.Policy == "" || fc.Spec != sel.Policy || len(fc.SavingCI) != 2 {
		t.Errorf("config entry = %+v", fc)
	}
}

func TestSplitSpecAndFamily(t *testing.T) {
	name, params := SplitSpec("halflife(activate=0.5,keep=4,cap=8000)")
	if name != "halflife" || params["cap"] != "8000" || len(params) != 3 {
		t.Errorf("SplitSpec = %s %v", name, params)
	}
	for spec, fam := range map[string]string{"keep-all": "none", "dtoc(placeholder=40)": "dtoc", "mask(n=3)": "masking",
		"halflife": "truncation", "compact-codex": "compaction", "tracer-tooltype": "truncation", "gemini-mask": "masking"} {
		if got := PolicyFamily(spec); got != fam {
			t.Errorf("PolicyFamily(%s) = %s, want %s", spec, got, fam)
		}
	}
}
