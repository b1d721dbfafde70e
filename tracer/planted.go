package tracer

import (
	"fmt"
	"math/rand/v2"

	"github.com/trajmine/trajmine/simulate"
)

// Planted tool types (PlantedTraces).
const (
	PlantedReused = "schema_lookup" // small; every output is used three times later, evidence anywhere in it
	PlantedNever  = "log_dump"      // no output is ever used again
	PlantedSome   = "read_file"     // 30 % of outputs used once later, evidence in the first tenth
)

// PlantedTraces builds n replay traces with planted reuse, for testing
// that training finds it: 30 calls each; call t makes one tool call
// (20 tokens) whose result is first seen by call t+1: PlantedReused
// (search class, 150–450 tokens, 30 %), PlantedNever (execute class,
// 1,000–3,000 tokens, 30 %) or PlantedSome (read class, 300–900 tokens, 40 %);
// 4 characters per token; 80 output tokens per call; a 400-token prefix
// and a 60-token task; window 32,000. Runs alternate between two families
// (planted-a, planted-b) and four queries. Deterministic for seed.
func PlantedTraces(n int, seed uint64) []*simulate.Trace {
	rng := rand.New(rand.NewPCG(seed, 0x9A47))
	queries := []string{"which customers churned last quarter", "join the orders and payments schemas",
		"why does the nightly job fail", "summarise revenue by region"}
	out := make([]*simulate.Trace, n)
	const calls = 30
	for r := range n {
		tr := plantedTrace(fmt.Sprintf("planted-%04d", r), r, 32000, 400, calls, queries[rng.IntN(len(queries))])
		for t := range calls {
			var tool string
			var class uint8
			var tok int32
			switch u := rng.Float64(); {
			case u < 0.3:
				tool, class, tok = PlantedReused, simulate.ClassSearch, 150+rng.Int32N(300)
			case u < 0.6:
				tool, class, tok = PlantedNever, simulate.ClassExecute, 1000+rng.Int32N(2000)
			default:
				tool, class, tok = PlantedSome, simulate.ClassRead, 300+rng.Int32N(600)
			}
			res := addPlantedCall(tr, t, tool, class, simulate.TargetNone, tok)
			later := func() int32 { return int32(t+2) + rng.Int32N(int32(max(calls-t-2, 1))) }
			switch tool {
			case PlantedReused:
				if t+2 < calls {
					for range 3 {
						tr.Uses = append(tr.Uses, simulate.Use{Item: res, Call: later(), Content: true, Offsets: []int32{rng.Int32N(4 * tok)}})
					}
				}
			case PlantedSome:
				if t+2 < calls && rng.Float64() < 0.3 {
					tr.Uses = append(tr.Uses, simulate.Use{Item: res, Call: later(), Content: true, Offsets: []int32{rng.Int32N(4 * tok / 10)}})
				}
			}
		}
		tr.Finalize()
		out[r] = tr
	}
	return out
}

// PlantedTargetTool is the one tool of PlantedTargetTraces.
const PlantedTargetTool = "fetch"

// PlantedTargetTraces builds n replay traces where only the target kind
// tells reuse apart: 30 calls each, every one a PlantedTargetTool call
// (read class, 300–500 tokens) whose target is a file (half the calls;
// each such output is used twice, at calls from 20 on, evidence anywhere
// in it) or a URL (never used again), sizes drawn alike; a 12,000-token
// prefix, so a re-invocation (the output again and one call's prompt)
// costs more than dropping an output saves; window 40,000 (the first
// compression event comes near call 16, before any use is seen).
// Otherwise as PlantedTraces. Deterministic for seed.
func PlantedTargetTraces(n int, seed uint64) []*simulate.Trace {
	rng := rand.New(rand.NewPCG(seed, 0x7A49))
	queries := []string{"which customers churned last quarter", "why does the nightly job fail"}
	out := make([]*simulate.Trace, n)
	const calls = 30
	for r := range n {
		tr := plantedTrace(fmt.Sprintf("target-%04d", r), r, 40000, 12000, calls, queries[rng.IntN(len(queries))])
		for t := range calls {
			target := simulate.TargetURL
			if rng.Float64() < 0.5 {
				target = simulate.TargetFile
			}
			tok := 300 + rng.Int32N(200)
			res := addPlantedCall(tr, t, PlantedTargetTool, simulate.ClassRead, target, tok)
			if from := max(t+2, 20); target == simulate.TargetFile && from < calls {
				for range 2 {
					tr.Uses = append(tr.Uses, simulate.Use{Item: res, Call: int32(from) + rng.Int32N(int32(calls-from)), Content: true,
						Offsets: []int32{rng.Int32N(4 * tok)}})
				}
			}
		}
		tr.Finalize()
		out[r] = tr
	}
	return out
}

// plantedTrace starts planted run number r: family planted-a or planted-b
// by r's parity, finished, with the 60-token task (240 characters) as its
// one head item.
func plantedTrace(id string, r int, window, prefix int64, calls int, query string) *simulate.Trace {
	tr := &simulate.Trace{RunID: id, Family: []string{"planted-a", "planted-b"}[r%2],
		Window: window, Prefix: prefix, NCalls: calls, Finished: true, Query: query}
	tr.Items = append(tr.Items, simulate.Item{Seq: 0, Kind: simulate.ItemUser, Head: true, Call: -1, Tokens: 60, Chars: 240})
	return tr
}

// addPlantedCall appends model call t's one tool call (20 tokens) and its
// result of tok tokens (4 characters a token, 10 tokens a line, tool key
// k<t>), first seen by call t+1, and the call's 80 output tokens. It
// returns the result's item index.
func addPlantedCall(tr *simulate.Trace, t int, tool string, class, target uint8, tok int32) int32 {
	call := int32(len(tr.Items))
	tr.Items = append(tr.Items,
		simulate.Item{Seq: int64(call), Since: int32(t + 1), Kind: simulate.ItemToolCall, Class: class, Target: target,
			Call: -1, Tokens: 20, Chars: 80, Tool: tool},
		simulate.Item{Seq: int64(call) + 1, Since: int32(t + 1), Kind: simulate.ItemToolResult, Class: class, Target: target,
			Call: call, Tokens: tok, Chars: 4 * tok, Lines: tok / 10, Tool: tool, Key: fmt.Sprintf("k%d", t)})
	tr.Output = append(tr.Output, 80)
	return call + 1
}

// Planted evidence tools (PlantedEvidenceTraces).
const (
	PlantedLookup = "lookup" // read class; each output used by the run's last call, its evidence at 55 % of its characters
	PlantedDump   = "dump"   // execute class; never used again
)

// PlantedEvidenceTraces builds n traces on which TRACER's uniform baseline
// (tracer-uniform, which keeps the first r of each output's characters)
// has a known best ratio, 0.6 on UniformGrid: 100 calls each; call t makes
// one tool call whose result, first seen by call t+1, is a PlantedLookup
// output at even t and a PlantedDump output at odd t, 900–1,100 tokens
// each; every lookup output is used by the last call, its evidence at 55 %
// of its characters. A 2,000-token prefix and a window of 110,000
// (keep-all's last prompt is about 104,000: no policy overflows), so the
// first compression event (trigger 0.5) comes near call 52, and another
// whenever the prompt grows back to half the window. Below 0.6 every
// lookup output cut loses its evidence (a re-invocation at the last call:
// the output again and that call's prompt, tens of thousands of tokens,
// billed uncached); from 0.6 on none does, and a smaller ratio saves more.
// A policy that keeps lookups at 0.6 or more and cuts dumps further beats
// every uniform ratio. Deterministic for seed; families as PlantedTraces.
func PlantedEvidenceTraces(n int, seed uint64) []*simulate.Trace {
	rng := rand.New(rand.NewPCG(seed, 0xE71D))
	out := make([]*simulate.Trace, n)
	const calls = 100
	for r := range n {
		tr := plantedTrace(fmt.Sprintf("evidence-%04d", r), r, 110000, 2000, calls, "find the failing lookup")
		for t := range calls {
			tok := 900 + rng.Int32N(201)
			if t%2 == 1 {
				addPlantedCall(tr, t, PlantedDump, simulate.ClassExecute, simulate.TargetCommand, tok)
				continue
			}
			res := addPlantedCall(tr, t, PlantedLookup, simulate.ClassRead, simulate.TargetFile, tok)
			if t+1 < calls-1 {
				tr.Uses = append(tr.Uses, simulate.Use{Item: res, Call: calls - 1, Content: true, Offsets: []int32{4 * tok * 55 / 100}})
			}
		}
		tr.Finalize()
		out[r] = tr
	}
	return out
}
