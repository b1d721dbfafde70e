package simulate

import (
	"fmt"
	"math"
	"reflect"
	"runtime"
	"testing"

	"github.com/trajmine/trajmine/diagnose"
)

// TestAggregate: three runs whose as-logged replay is keep-all (no logged
// context management), the baseline overflow of the first set as the
// engine sets it (the log did not finish, as-logged overflows at call 5).
// Saved and Lost are the engine's per-run verdicts (TestAsLoggedSavedLost);
// Aggregate counts them and totals the tokens.
func TestAggregate(t *testing.T) {
	price := diagnose.Price{Input: 1, Output: 10, CacheRead: 0.1, CacheWrite: 1.25}
	row := func(policy string, prompt, keepAll int64, st Status, kaOverflow int, act int) Row {
		r := Row{RunResult: RunResult{RunID: "r", Policy: policy, Window: 1000, Calls: 10, Status: st, OverflowCall: -1,
			FirstActivation: act, PromptTokens: prompt, KeepAllTokens: keepAll, KeepAllOverflowAt: kaOverflow,
			AsLoggedTokens: keepAll, AsLoggedCached: keepAll / 2, AsLoggedOverflowAt: kaOverflow, BaselineOverflow: kaOverflow >= 0,
			CachedTokens: prompt / 2, KeepAllCached: keepAll / 2, OutputTokens: 100, BoundaryTurn: 10,
			CharsFull: 1000, CharsRemoved: 1000 - 1000*prompt/keepAll}, Family: "m"}
		if policy != "keep-all" {
			r.Saved = r.BaselineOverflow && st != Overflow
			r.Lost = !r.BaselineOverflow && st == Overflow
		}
		c, cc := Cost(&r.RunResult, price)
		kc, kcc := KeepAllCost(&r.RunResult, price)
		ac, acc := AsLoggedCost(&r.RunResult, price)
		r.CostUSD, r.CostCachedUSD, r.KeepAllCostUSD, r.KeepAllCostCachedUSD = &c, &cc, &kc, &kcc
		r.AsLoggedCostUSD, r.AsLoggedCostCachedUSD = &ac, &acc
		return r
	}
	rows := []Row{
		row("keep-all", 1000, 1000, Overflow, 5, -1),
		row("keep-all", 2000, 2000, Survived, -1, -1),
		row("keep-all", 3000, 3000, Censored, -1, -1),
		row("p", 500, 1000, Survived, 5, 3),
		row("p", 1000, 2000, Survived, -1, 5),
		row("p", 3000, 3000, Overflow, -1, -1),
	}
	aggs := Aggregate(rows, AggOptions{Bootstrap: 200})
	if len(aggs) != 2 || aggs[0].Policy != "keep-all" || aggs[1].Policy != "p" {
		t.Fatalf("aggs = %+v", aggs)
	}
	a := aggs[1]
	if a.Runs != 3 || a.RatioMedian != 0.5 || a.Overflow != 1 || a.Saved != 1 || a.Lost != 1 || a.Survived != 2 || a.KeepAllOverflow != 1 {
		t.Errorf("agg = %+v", a)
	}
	if a.Activated != 2 || *a.FirstActivationMedian != 4 || math.Abs(*a.CharsRemovedMedian-0.5) > 1e-12 {
		t.Errorf("activation = %d, median call %v, removed %v", a.Activated, *a.FirstActivationMedian, *a.CharsRemovedMedian)
	}
	if a.RatioLo > 0.5 || a.RatioHi < 0.5 {
		t.Errorf("CI [%v, %v] excludes the median", a.RatioLo, a.RatioHi)
	}
	// totals: p sends 500 + 1000 + 3000 = 4500 against as-logged's
	// 1000 + 2000 + 3000 = 6000: 1500 saved, ratio 0.75; 30 calls, no
	// re-invocation
	if a.Tokens != 4500 || a.AsLoggedTokens != 6000 || a.TokensSaved != 1500 || math.Abs(a.TotalRatio-0.75) > 1e-12 || a.Calls != 30 || a.ReinvPer100 != 0 {
		t.Errorf("totals: %d / %d saved %d ratio %v calls %d reinv/100 %v", a.Tokens, a.AsLoggedTokens, a.TokensSaved, a.TotalRatio, a.Calls, a.ReinvPer100)
	}
	// run-level bootstrap of Σx/Σy: every resample's ratio lies between the
	// smallest and largest per-run ratio (0.5 and 1)
	if a.TotalLo < 0.5 || a.TotalHi > 1 || a.TotalLo > a.TotalHi {
		t.Errorf("total ratio CI [%v, %v]", a.TotalLo, a.TotalHi)
	}
	if a.Rank != 1 || aggs[0].Rank != 2 || a.BaselineOverflow != 1 {
		t.Errorf("ranks: p %d, keep-all %d (want 1, 2); as-logged overflows %d, want 1", a.Rank, aggs[0].Rank, a.BaselineOverflow)
	}
	// cost: plain = prompt × 1 + 100 × 10 per run, in USD per million
	want := (500 + 1000 + 3000 + 3*1000) / 1e6
	if math.Abs(a.CostUSD-want) > 1e-12 {
		t.Errorf("cost = %v, want %v", a.CostUSD, want)
	}
	if pl, _ := aggs[0].CostRatio(); pl != 1 {
		t.Errorf("keep-all cost ratio = %v", pl)
	}
	if aggs[0].FirstActivationMedian != nil {
		t.Error("keep-all never acts: no activation median")
	}
}

func TestCost(t *testing.T) {
	p := diagnose.Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}
	r := RunResult{PromptTokens: 1_000_000, CachedTokens: 800_000, OutputTokens: 10_000, ReinvocationTok: 50_000, SummarizerIn: 20_000, SummarizerOut: 1_000}
	plain, cached := Cost(&r, p)
	// plain: 1.07M × 3 + 11k × 15 ; cached: 0.8M × 0.3 + 0.2M × 3.75 + 70k × 3 + 11k × 15
	if math.Abs(plain-(3.21+0.165)) > 1e-9 || math.Abs(cached-(0.24+0.75+0.21+0.165)) > 1e-9 {
		t.Errorf("cost = %v / %v", plain, cached)
	}
	p.CacheWrite = 0 // no write premium: the input price
	if _, c := Cost(&r, p); math.Abs(c-(0.24+0.6+0.21+0.165)) > 1e-9 {
		t.Errorf("cached without write price = %v", c)
	}
}

// TestAggregateParallel: Aggregate summarises its groups on every CPU; the
// result is the one a single CPU computes (each group's bootstrap is seeded
// alike), in the same order, with the same ranks.
func TestAggregateParallel(t *testing.T) {
	var rows []Row
	for i := range 400 {
		r := Row{RunResult: RunResult{RunID: fmt.Sprint("r", i/8), Policy: fmt.Sprint("p", i%8), Window: 1000, Calls: 10 + i%7, Status: Survived,
			OverflowCall: -1, FirstActivation: i % 5, PromptTokens: int64(500 + 37*i%900), KeepAllTokens: 1000, AsLoggedTokens: 1000,
			KeepAllOverflowAt: -1, AsLoggedOverflowAt: -1, BoundaryTurn: int64(i % 9)}, Family: fmt.Sprint("f", i%3)}
		rows = append(rows, r)
	}
	o := AggOptions{Bootstrap: 300, Group: func(r *Row) string { return r.Family }}
	prev := runtime.GOMAXPROCS(1)
	one := Aggregate(rows, o)
	runtime.GOMAXPROCS(4)
	many := Aggregate(rows, o)
	runtime.GOMAXPROCS(prev)
	if len(one) != 24 {
		t.Fatalf("%d aggregates, want 3 families × 8 policies", len(one))
	}
	for i := range one {
		if !reflect.DeepEqual(one[i], many[i]) {
			t.Errorf("aggregate %d (%s, %s) differs on 4 CPUs from 1", i, one[i].Group, one[i].Policy)
		}
	}
}
