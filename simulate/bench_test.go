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
	windows := []int64{0, 20_480}
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
						evals += int64(rp.Replay(tr, p, Options{Window: w}).Calls)
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

func TestSynthTraceReplays(t *testing.T) {
	tr := synthTrace(1, 200)
	var rp Replayer
	for _, p := range catalogPolicies(t) {
		r := rp.Replay(tr, p, Options{Window: 20_480})
		if r.Calls == 0 && r.Status != Overflow {
			t.Errorf("%s: no calls replayed", p.Name())
		}
		// determinism: the same replay twice is identical
		if r2 := rp.Replay(tr, p, Options{Window: 20_480}); r2 != r {
			t.Errorf("%s: replay not deterministic:\n%+v\n%+v", p.Name(), r, r2)
		}
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
					evals += int64(rp.Replay(tr, p, Options{Window: w}).Calls)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(evals), "ns/eval")
		})
	}
}
