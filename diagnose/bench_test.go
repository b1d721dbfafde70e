package diagnose

import (
	"bufio"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trajmine/trajmine/schema"
)

// benchRun is one synthetic run as schema records.
type benchRun struct {
	run    schema.Run
	events []schema.Event
	usage  []schema.Usage
	ops    []schema.ContextOp
}

// benchText is shared backing text for tool outputs: outputs are slices of it,
// so 10,000 runs do not hold gigabytes of distinct strings.
var benchText = func() string {
	r := rand.New(rand.NewPCG(7, 7))
	var sb strings.Builder
	words := []string{"func", "return", "err", "nil", "if", "for", "range", "self", "def", "import", "assert", "test", "FAILED", "ok", "\n", "  ", "{", "}", "x", "value"}
	for sb.Len() < 1<<17 {
		sb.WriteString(words[r.IntN(len(words))])
		sb.WriteByte(' ')
	}
	return sb.String()
}()

var (
	benchFiles = func() []string {
		var fs []string
		for i := range 40 {
			fs = append(fs, "src/pkg"+strconv.Itoa(i%7)+"/file"+strconv.Itoa(i)+".py")
		}
		return fs
	}()
	benchCmds = []string{"pytest -x", "pytest tests/test_core.py", "go test ./...", "make", "ls -la", "git diff", "python -m mypy src", "npm test", "git status", "python repro.py"}
	benchPats = []string{"TODO", "def main", "class Config", "import os", "raise ValueError", "context_length"}
)

// benchSpan returns a tool output of about n chars from the shared text,
// starting at an offset derived from seed (same seed, same text).
func benchSpan(seed uint64, n int) string {
	n = min(n, len(benchText)-1)
	off := int(seed % uint64(len(benchText)-n))
	return benchText[off : off+n]
}

// genBenchRun builds one run of n model calls: a system prompt and task, then
// per call an assistant message and a tool call (read_file 45%, bash 30%,
// grep 15%, edit_file 10%) whose result is input to the next call; usage per
// call with prompt caching (the previous prompt is a cache read, the rest a
// cache write); a compaction about every 90 calls, after which the prompt
// restarts from a summary. Tool output sizes: reads 500–16,000 chars, shell
// 100–8,000, grep 200–4,000, edits 50–300 (≈ 4 chars per token).
func genBenchRun(r *rand.Rand, id, n int) benchRun {
	runID := "bench-" + strconv.Itoa(id)
	resolved := r.IntN(3) == 0
	br := benchRun{run: schema.Run{
		RunID: runID, SourceFormat: "synthetic", Harness: "bench", Model: "claude-sonnet-4-5-20250929",
		ModelFamily: "claude-sonnet-4", Resolved: &resolved, NTurns: int64(n), EndReason: schema.EndUnknown,
	}}
	br.events = make([]schema.Event, 0, 3*n+2)
	br.usage = make([]schema.Usage, 0, n)
	var seq int64
	add := func(e schema.Event) {
		e.RunID, e.Seq = runID, seq
		seq++
		br.events = append(br.events, e)
	}
	add(schema.Event{Turn: 0, Kind: schema.KindSystem, Role: "system", Chars: 12_000, EstTokens: 3_000, Text: benchSpan(1, 12_000)})
	add(schema.Event{Turn: 0, Kind: schema.KindUser, Role: "user", Chars: 2_000, EstTokens: 500, Text: benchSpan(2, 2_000)})
	prompt, prev := int64(3_500), int64(0)
	for t := range int64(n) {
		out := int64(50 + r.IntN(1500))
		if t > 0 && t%90 == 0 && r.IntN(2) == 0 {
			after := int64(4_000)
			before := prompt
			br.ops = append(br.ops, schema.ContextOp{RunID: runID, Seq: seq, Turn: t, Op: schema.OpCompaction, TokensBefore: &before, TokensAfter: &after, Trigger: "auto"})
			add(schema.Event{Turn: t, Kind: schema.KindCompaction, Role: "user", Chars: 2_000, EstTokens: 500, Text: benchSpan(uint64(seq), 2_000)})
			prompt, prev = after, 0
		}
		cacheRead := min(prev, prompt)
		br.usage = append(br.usage, schema.Usage{RunID: runID, Turn: t, Model: br.run.Model, InputTokens: prompt, CacheReadTokens: cacheRead, CacheWriteTokens: prompt - cacheRead, OutputTokens: out})
		add(schema.Event{Turn: t, Kind: schema.KindAssistant, Role: "assistant", Chars: 4 * out / 2, EstTokens: out / 2, Text: benchSpan(uint64(seq), int(2*out))})
		if t == int64(n)-1 {
			break
		}
		var name, target, args string
		var chars int
		isErr := false
		switch p := r.IntN(100); {
		case p < 45:
			name, target = "read_file", benchFiles[r.IntN(len(benchFiles))]
			args, chars = `{"path":"`+target+`"}`, 500+r.IntN(15_500)
		case p < 75:
			name, target = "bash", benchCmds[r.IntN(len(benchCmds))]
			args, chars = `{"command":"`+target+`"}`, 100+r.IntN(7_900)
			isErr = strings.HasPrefix(target, "pytest") && r.IntN(2) == 0
		case p < 90:
			name, target = "grep", benchPats[r.IntN(len(benchPats))]
			args, chars = `{"pattern":"`+target+`"}`, 200+r.IntN(3_800)
		default:
			name, target = "edit_file", benchFiles[r.IntN(len(benchFiles))]
			args, chars = `{"path":"`+target+`","old":"a","new":"b"}`, 50+r.IntN(250)
		}
		// identical commands give identical output half the time (stalls)
		textSeed := uint64(seq) * 7919
		if r.IntN(2) == 0 {
			textSeed = uint64(len(target)*131 + int(target[0]))
			chars = 100 + len(target)*40
		}
		callID := "c" + strconv.FormatInt(t, 10)
		add(schema.Event{Turn: t, Kind: schema.KindToolCall, Role: "assistant", ToolName: name, CallID: callID, ToolKey: callID, Target: target, Args: args, Chars: int64(len(args)), EstTokens: int64(len(args) / 4)})
		tok := int64(chars / 4)
		add(schema.Event{Turn: t + 1, Kind: schema.KindToolResult, Role: "tool", ToolName: name, CallID: callID, ToolKey: callID, Target: target, Chars: int64(chars), EstTokens: tok, IsError: isErr, Text: benchSpan(textSeed, chars)})
		prev = prompt
		prompt += out + tok
	}
	return br
}

// genBenchRuns builds count runs; calls == 0 means 20–200 calls each.
func genBenchRuns(count, calls int) ([]benchRun, int) {
	r := rand.New(rand.NewPCG(2026, 4))
	runs := make([]benchRun, count)
	total := 0
	for i := range runs {
		n := calls
		if n == 0 {
			n = 20 + r.IntN(181)
		}
		runs[i] = genBenchRun(r, i, n)
		total += n
	}
	return runs, total
}

// diagnoseAll runs every pure per-run diagnosis of the package over runs.
func diagnoseAll(runs []benchRun) (windowEnds, rereads, stalls int64) {
	rents := make([]RunRent, 0, len(runs))
	costs := make([]Cost, 0, len(runs))
	rs := make([]schema.Run, 0, len(runs))
	for _, br := range runs {
		res := Run(br.run, br.events, br.usage, br.ops, 0)
		if res.End.WindowEnd() {
			windowEnds++
		}
		v := NewVisibility(br.events, br.ops, &VisibilityOptions{NCalls: br.run.NTurns})
		rents = append(rents, v.Rent())
		rereads += ReReads(br.events, v, nil).Total()
		stalls += Stalls(br.events).NRepeats
		costs = append(costs, RunCost(br.run, br.usage, nil))
		rs = append(rs, br.run)
	}
	_ = RentByTool(rents)
	_ = CostPerSolved(costs, rs)
	return
}

// peakRSSMB reads VmHWM (peak resident set) of this process in MB; 0 when unavailable.
func peakRSSMB() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

// BenchmarkDiagnose10k diagnoses 10,000 synthetic runs (20–200 calls each)
// held in memory: Run (window, occupancy, end reason), Visibility and Rent,
// ReReads, Stalls and RunCost per run, then RentByTool and CostPerSolved.
// No store read: pure computation.
func BenchmarkDiagnose10k(b *testing.B) {
	runs, calls := genBenchRuns(10_000, 0)
	b.ResetTimer()
	start := time.Now()
	var we, rr, st int64
	for range b.N {
		we, rr, st = diagnoseAll(runs)
	}
	sec := time.Since(start).Seconds()
	b.ReportMetric(float64(len(runs)*b.N)/sec, "runs/s")
	b.ReportMetric(float64(calls*b.N)/sec, "calls/s")
	b.ReportMetric(float64(calls), "calls")
	b.ReportMetric(peakRSSMB(), "peakRSS_MB")
	b.Logf("%d runs, %d calls, %d window ends, %d re-reads, %d stall repeats", len(runs), calls, we, rr, st)
}

// BenchmarkDiagnosePerCall diagnoses 500 runs of exactly 100, 200 and 400
// calls: ns/call should stay flat if the cost is linear in the number of calls.
func BenchmarkDiagnosePerCall(b *testing.B) {
	for _, n := range []int{100, 200, 400} {
		b.Run("calls="+strconv.Itoa(n), func(b *testing.B) {
			runs, calls := genBenchRuns(500, n)
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				diagnoseAll(runs)
			}
			b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(calls*b.N), "ns/call")
		})
	}
}
