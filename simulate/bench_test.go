package simulate

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// synthTrace builds a deterministic synthetic run of n calls: a task, then
// per call an assistant message and a tool call (read 45 %, execute 30 %,
// search 15 %, edit 10 %) whose result of 50–16,000 characters arrives for
// the next call, logged output tokens, a DTOC disable of an old output every
// 7 calls and an enable every 23, and one content use of an earlier output
// per call.
func synthTrace(seed uint64, n int) *Trace {
	rng := rand.New(rand.NewPCG(seed, 0x7a7a))
	tr := &Trace{RunID: "synth-" + strconv.FormatUint(seed, 10), Format: "synth", Family: "synth", Window: 200_000,
		NCalls: n, Prefix: 8000, Finished: seed%3 != 0}
	tr.Items = append(tr.Items, Item{Seq: 0, Kind: ItemUser, Head: true, Call: -1, Tokens: 400, Chars: 1600})
	var results []int32
	seq := int64(1)
	for t := 0; t < n; t++ {
		class, tool := ClassRead, "read_file"
		switch x := rng.IntN(100); {
		case x >= 90:
			class, tool = ClassEdit, "edit_file"
		case x >= 75:
			class, tool = ClassSearch, "grep"
		case x >= 45:
			class, tool = ClassExecute, "bash"
		}
		at := int32(rng.IntN(400) + 20)
		tr.Items = append(tr.Items, Item{Seq: seq, Since: int32(t + 1), Kind: ItemAssistant, Call: -1, Tokens: at / 4, Chars: at})
		call := int32(len(tr.Items))
		tr.Items = append(tr.Items, Item{Seq: seq + 1, Since: int32(t + 1), Kind: ItemToolCall, Class: class, Call: -1, Tokens: 30, Chars: 120, Tool: tool})
		chars := int32(50 + rng.IntN(16_000))
		r := int32(len(tr.Items))
		tr.Items = append(tr.Items, Item{Seq: seq + 2, Since: int32(t + 1), Kind: ItemToolResult, Class: class, Call: call,
			Tokens: chars / 4, Chars: chars, Lines: chars / 60, Tool: tool, Key: "k" + strconv.Itoa(t)})
		seq += 3
		tr.Output = append(tr.Output, at/4+30+int32(rng.IntN(200)))
		if len(results) > 0 {
			o := results[rng.IntN(len(results))]
			tr.Uses = append(tr.Uses, Use{Item: o, Call: int32(t), Content: true, Offsets: []int32{int32(rng.IntN(int(tr.Items[o].Chars)))}})
		}
		if t%7 == 6 && len(results) > 3 {
			tr.Ops = append(tr.Ops, LoggedOp{Item: results[len(results)-3], From: int32(t + 1)})
		}
		if t%23 == 22 && len(results) > 10 {
			tr.Ops = append(tr.Ops, LoggedOp{Item: results[len(results)-10], From: int32(t + 1), Visible: true})
		}
		if rng.IntN(40) == 0 {
			tr.Stalls = append(tr.Stalls, int32(t+1))
		}
		results = append(results, r)
	}
	if tr.Stalls != nil && int(tr.Stalls[len(tr.Stalls)-1]) >= n {
		tr.Stalls = tr.Stalls[:len(tr.Stalls)-1]
	}
	tr.Finalize()
	return tr
}

// catalogPolicies builds one policy per catalog entry, with halflife's stall
// message on (its most expensive form).
func catalogPolicies(tb testing.TB) []Policy {
	var ps []Policy
	for _, s := range DefaultSpecs() {
		if s == "halflife" {
			s = "halflife(stall=true)"
		}
		p, err := Parse(s)
		if err != nil {
			tb.Fatal(err)
		}
		ps = append(ps, p)
	}
	return ps
}

// BenchmarkReplayCatalog is the benchmark: SIM_BENCH_RUNS synthetic
// runs (default 10,000) × 200 calls × every catalog policy, at the runs' own
// 200k window and at 20,480, on every CPU. Traces are generated per run
// inside the timed loop (streamed, never all in memory), so the figure
// includes building them. Reports call-policy evaluations per second and
// peak RSS.
func BenchmarkReplayCatalog(b *testing.B) {
	runs := 10_000
	if s := os.Getenv("SIM_BENCH_RUNS"); s != "" {
		runs, _ = strconv.Atoi(s)
	}
	windows := []Window{OwnWindow, 20_480}
	npol := len(catalogPolicies(b))
	var evals atomic.Int64
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		var next atomic.Int64
		var wg sync.WaitGroup
		for range runtime.GOMAXPROCS(0) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ps := catalogPolicies(b)
				var rp Replayer
				for {
					k := next.Add(1) - 1
					if k >= int64(runs) {
						return
					}
					tr := synthTrace(uint64(k), 200)
					for _, w := range windows {
						for _, p := range ps {
							r := rp.Replay(tr, p, Options{Window: w})
							evals.Add(int64(r.Calls))
						}
					}
				}
			}()
		}
		wg.Wait()
	}
	el := time.Since(start)
	b.ReportMetric(float64(evals.Load())/el.Seconds(), "evals/s")
	b.ReportMetric(float64(el.Milliseconds())/float64(b.N), "ms/op")
	b.ReportMetric(float64(peakRSS())/(1<<20), "peakRSS-MB")
	b.Logf("%d runs × 200 calls × %d policies × %d windows: %d call-policy evaluations in %v (%d CPUs)",
		runs, npol, len(windows), evals.Load()/int64(b.N), el/time.Duration(b.N), runtime.GOMAXPROCS(0))
}

// BenchmarkReplayLength replays 500 runs of 100, 200 and 400 calls under
// every catalog policy on one goroutine, each at a window of half its final
// keep-all prompt (so every policy has the same share of work to do at
// every length): ns per call-policy evaluation should stay flat if the cost
// is linear in run length.
func BenchmarkReplayLength(b *testing.B) {
	for _, n := range []int{100, 200, 400} {
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			ps := catalogPolicies(b)
			trs := make([]*Trace, 500)
			for i := range trs {
				trs[i] = synthTrace(uint64(i), n)
			}
			var rp Replayer
			var evals int64
			b.ResetTimer()
			for range b.N {
				for _, tr := range trs {
					w := tr.keepAllPrompts()[tr.NCalls-1] / 2
					for _, p := range ps {
						evals += int64(rp.Replay(tr, p, Options{Window: Tokens(w)}).Calls)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(evals), "ns/eval")
		})
	}
}

// peakRSS returns the process's peak resident set (VmHWM) in bytes, 0 when unknown.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// TestSynthTraceReplays replays a 200-call synthetic run under every
// catalog policy at a 20,480-token window. Expectations come from the trace
// itself, computed here without the engine: keep-all's prompt at call t is
// the prefix plus the tokens of every item first seen by call t or earlier
// (the synthetic run has no expiring items), and a call overflows when its
// prompt plus its output exceeds the window. Then, per policy,
//
//   - KeepAllTokens is that sum over the calls the policy replayed and
//     KeepAllOverflowAt the first call where keep-all overflows;
//   - keep-all's prompts are exactly those, and it stops at that call;
//   - every replayed prompt fits: prompt + output ≤ window;
//   - dtoc-tracking adds its 15-token envelope to every visible tool result
//     and hides nothing: keep-all + 15 × (results seen);
//   - halflife(stall=true) injects 40 tokens at each logged stall and
//     otherwise only cuts: ≤ keep-all + 40 × (stalls so far);
//   - every other policy only hides, cuts or summarizes: ≤ keep-all at every
//     call;
//   - the same replay twice is identical.
func TestSynthTraceReplays(t *testing.T) {
	const window = 20_480
	tr := synthTrace(1, 200)
	ka := make([]int64, tr.NCalls)      // keep-all prompt per call
	results := make([]int64, tr.NCalls) // tool results seen per call
	stalls := make([]int64, tr.NCalls)  // stalls logged at or before the call
	for c := range tr.NCalls {
		ka[c] = tr.Prefix
		for _, it := range tr.Items {
			if int(it.Since) <= c {
				ka[c] += int64(it.Tokens)
				if it.Kind == ItemToolResult {
					results[c]++
				}
			}
		}
		for _, st := range tr.Stalls {
			if int(st) <= c {
				stalls[c]++
			}
		}
	}
	kaOver := -1
	for c := range tr.NCalls {
		if ka[c]+int64(tr.Output[c]) > window {
			kaOver = c
			break
		}
	}
	// keep-all overflows at call 9 (results of up to 4,000 tokens): the
	// policies that cut replay past it, and the overflow checks bite
	if kaOver <= 0 {
		t.Fatalf("fixture: keep-all overflows at call %d; the checks below want a run that fits the window for a while, then not", kaOver)
	}
	var rp Replayer
	for _, p := range catalogPolicies(t) {
		t.Run(Short(p), func(t *testing.T) {
			var calls []CallResult
			r := rp.Replay(tr, p, Options{Window: window, Calls: &calls})
			if r.Calls == 0 && r.Status != Overflow {
				t.Fatalf("no calls replayed")
			}
			// determinism: the same replay twice is identical
			if r2 := rp.Replay(tr, p, Options{Window: window}); r2 != r {
				t.Errorf("replay not deterministic:\n%+v\n%+v", r, r2)
			}
			if r.KeepAllOverflowAt != kaOver {
				t.Errorf("KeepAllOverflowAt = %d, want %d", r.KeepAllOverflowAt, kaOver)
			}
			var kaSum, sum int64
			for _, c := range calls {
				if c.Overflow {
					if c.Call != r.OverflowCall || r.Status != Overflow {
						t.Errorf("call %d overflows, result says %s at %d", c.Call, r.Status, r.OverflowCall)
					}
					continue
				}
				kaSum += ka[c.Call]
				sum += c.PromptTokens
				if c.PromptTokens+int64(tr.Output[c.Call]) > window {
					t.Errorf("call %d: prompt %d + output %d > %d replayed", c.Call, c.PromptTokens, tr.Output[c.Call], window)
				}
				switch name := p.Name(); {
				case name == "keep-all":
					if c.PromptTokens != ka[c.Call] {
						t.Errorf("call %d: prompt %d, want %d", c.Call, c.PromptTokens, ka[c.Call])
					}
				case strings.HasPrefix(name, "dtoc-tracking"):
					if want := ka[c.Call] + 15*results[c.Call]; c.PromptTokens != want {
						t.Errorf("call %d: prompt %d, want keep-all %d + 15 × %d results = %d", c.Call, c.PromptTokens, ka[c.Call], results[c.Call], want)
					}
				case strings.HasPrefix(name, "halflife"):
					if bound := ka[c.Call] + 40*stalls[c.Call]; c.PromptTokens > bound {
						t.Errorf("call %d: prompt %d > keep-all %d + 40 × %d stalls", c.Call, c.PromptTokens, ka[c.Call], stalls[c.Call])
					}
				default:
					if c.PromptTokens > ka[c.Call] {
						t.Errorf("call %d: prompt %d > keep-all's %d", c.Call, c.PromptTokens, ka[c.Call])
					}
				}
			}
			if r.KeepAllTokens != kaSum || r.PromptTokens != sum {
				t.Errorf("KeepAllTokens %d, PromptTokens %d; want Σ keep-all %d, Σ calls %d", r.KeepAllTokens, r.PromptTokens, kaSum, sum)
			}
			if p.Name() == "keep-all" && (r.Status != Overflow || r.OverflowCall != kaOver || r.Calls != kaOver) {
				t.Errorf("keep-all: %s at call %d after %d calls, want overflow at %d", r.Status, r.OverflowCall, r.Calls, kaOver)
			}
		})
	}
}

// BenchmarkReplayPolicy replays 200 synthetic runs of 200 calls under each
// catalog policy alone (window: half each run's final keep-all prompt), for
// ns per call-policy evaluation per policy; keep-all, the cost of walking
// a trace at all, is the baseline the others are compared with.
func BenchmarkReplayPolicy(b *testing.B) {
	trs := make([]*Trace, 200)
	for i := range trs {
		trs[i] = synthTrace(uint64(i), 200)
	}
	for _, p := range catalogPolicies(b) {
		b.Run(Short(p), func(b *testing.B) {
			var rp Replayer
			var evals int64
			for range b.N {
				for _, tr := range trs {
					w := tr.keepAllPrompts()[tr.NCalls-1] / 2
					evals += int64(rp.Replay(tr, p, Options{Window: Tokens(w)}).Calls)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(evals), "ns/eval")
		})
	}
}
