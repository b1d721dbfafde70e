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
		r := Row{RunResult: RunResult{RunID: "r", Policy: policy, WindowTokens: 1000, Calls: 10, Status: st, OverflowCall: -1,
			FirstActivation: act, PromptTokens: prompt, KeepAllTokens: keepAll, KeepAllOverflowAt: kaOverflow,
			AsLoggedPromptTokens: keepAll, AsLoggedCached: keepAll / 2, AsLoggedOverflowAt: kaOverflow, BaselineOverflow: kaOverflow >= 0,
			CachedTokens: prompt / 2, KeepAllCached: keepAll / 2, OutputTokens: 100, BoundaryCall: 10,
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
	if a.EffectiveTokens != 4500 || a.AsLoggedEffectiveTokens != 6000 || a.TokensSaved != 1500 || math.Abs(a.EffectiveRatio-0.75) > 1e-12 || a.Calls != 30 || a.ReinvPer100 != 0 {
		t.Errorf("totals: %d / %d saved %d ratio %v calls %d reinv/100 %v", a.EffectiveTokens, a.AsLoggedEffectiveTokens, a.TokensSaved, a.EffectiveRatio, a.Calls, a.ReinvPer100)
	}
	// run-level bootstrap of Σx/Σy: every resample's ratio lies between the
	// smallest and largest per-run ratio (0.5 and 1)
	if a.EffectiveLo < 0.5 || a.EffectiveHi > 1 || a.EffectiveLo > a.EffectiveHi {
		t.Errorf("total ratio CI [%v, %v]", a.EffectiveLo, a.EffectiveHi)
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
	// cost with caching, per run in USD per million: cached × 0.1 +
	// (prompt − cached) × 1.25 + 100 × 10 (no re-invocation, nothing
	// uncached). p: cached = prompt / 2, so 500 → 25 + 312.5 + 1000 =
	// 1,337.5; 1,000 → 1,675; 3,000 → 3,025 (Σ 6,037.5). As-logged on the
	// same calls (its prompts 1,000, 2,000, 3,000, half cached): 1,675,
	// 2,350, 3,025 (Σ 7,050). Ratio 6,037.5 / 7,050 = 0.856383; every
	// resample's ratio lies between the smallest and largest per-run ratio
	// (1,337.5 / 1,675 = 0.798507, 1,675 / 2,350 = 0.712766, 1): in
	// [0.712766, 1].
	if want := 6037.5 / 7050; math.Abs(a.CostCachedRatio-want) > 1e-12 {
		t.Errorf("cost with caching × = %v, want %v", a.CostCachedRatio, want)
	}
	if a.CostCachedLo < 1675.0/2350-1e-12 || a.CostCachedHi > 1+1e-12 || a.CostCachedLo > a.CostCachedRatio || a.CostCachedHi < a.CostCachedRatio {
		t.Errorf("cost with caching CI [%v, %v] around %v", a.CostCachedLo, a.CostCachedHi, a.CostCachedRatio)
	}
	if k := aggs[0]; k.CostCachedRatio != 1 || k.CostCachedLo != 1 || k.CostCachedHi != 1 {
		t.Errorf("keep-all against itself: cost × %v [%v, %v], want 1 [1, 1]", k.CostCachedRatio, k.CostCachedLo, k.CostCachedHi)
	}
}

// TestRankByCost: the ranking is by the objective, cost with caching
// against what ran, where a run is priced (issue 27: a policy that saves
// tokens but raises the bill ranks below one that costs less), and by
// tokens saved where none is; ties by runs lost, then the order given.
func TestRankByCost(t *testing.T) {
	type agg struct {
		policy string
		priced int
		cost   float64
		saved  int64
		lost   int
	}
	for _, tc := range []struct {
		name string
		aggs []agg
		want []string // policies by rank
	}{
		{"priced: cost first, though mask saves the most tokens",
			[]agg{{"mask", 10, 2.25, 5000, 0}, {"clear", 10, 0.93, 3000, 0}, {"keep-all", 10, 1.01, -100, 0}},
			[]string{"clear", "keep-all", "mask"}},
		{"priced: equal cost, then tokens saved, then runs lost",
			[]agg{{"a", 10, 0.9, 100, 1}, {"b", 10, 0.9, 200, 0}, {"c", 10, 0.9, 100, 0}},
			[]string{"b", "c", "a"}},
		{"a policy with no priced run ranks after the priced ones",
			[]agg{{"unpriced", 0, 0, 9000, 0}, {"dear", 10, 3, 10, 0}},
			[]string{"dear", "unpriced"}},
		{"nothing priced: tokens saved, then runs lost, then order",
			[]agg{{"mask", 0, 0, 5000, 1}, {"clear", 0, 0, 3000, 0}, {"half", 0, 0, 5000, 0}, {"other", 0, 0, 3000, 0}},
			[]string{"half", "mask", "clear", "other"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var aggs []Agg
			for _, a := range tc.aggs {
				aggs = append(aggs, Agg{Policy: a.policy, Priced: a.priced, CostCachedRatio: a.cost, TokensSaved: a.saved, Lost: a.lost})
			}
			rank(aggs)
			var got []string
			for _, a := range Ranked(aggs) {
				got = append(got, a.Policy)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("ranked %v, want %v", got, tc.want)
			}
			if by := RankedByCost(aggs, "", 0); by != (tc.aggs[0].priced > 0 || tc.aggs[1].priced > 0) {
				t.Errorf("RankedByCost = %v", by)
			}
		})
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
		r := Row{RunResult: RunResult{RunID: fmt.Sprint("r", i/8), Policy: fmt.Sprint("p", i%8), WindowTokens: 1000, Calls: 10 + i%7, Status: Survived,
			OverflowCall: -1, FirstActivation: i % 5, PromptTokens: int64(500 + 37*i%900), KeepAllTokens: 1000, AsLoggedPromptTokens: 1000,
			KeepAllOverflowAt: -1, AsLoggedOverflowAt: -1, BoundaryCall: int64(i % 9)}, Family: fmt.Sprint("f", i%3)}
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
