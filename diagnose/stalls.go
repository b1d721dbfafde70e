package diagnose

import (
	"cmp"
	"hash/maphash"
	"slices"
	"strconv"

	"github.com/trajmine/trajmine/schema"
)

// Stall is a (command, output) pair that occurred at least twice in one run:
// the same tool name and non-empty target, answered by the same output text
// with the same is_error flag.
type Stall struct {
	Tool       string  `json:"tool"`
	Target     string  `json:"target"`
	IsError    bool    `json:"is_error"`
	Hash       string  `json:"hash"`        // FNV-1a 64 of the output text, hex
	Seqs       []int64 `json:"seqs"`        // tool_call seqs, ascending
	ResultSeqs []int64 `json:"result_seqs"` // the matching tool_result seqs
}

// stallSeed seeds the hash that groups outputs by text (maphash: many times
// faster than FNV on long outputs; FNV-1a is computed for reported pairs
// only, so Hash does not depend on the seed).
var stallSeed = maphash.MakeSeed()

// Count returns the number of occurrences of the pair.
func (s Stall) Count() int { return len(s.Seqs) }

// RunStalls is one run's stalls.
type RunStalls struct {
	RunID   string  `json:"run_id"`
	Repeats int64   `json:"repeats"` // Σ (occurrences - 1) over Stalls
	Errors  int64   `json:"errors"`  // Repeats of pairs whose output is flagged is_error
	Stalls  []Stall `json:"stalls"`  // by first seq
}

// Stalls finds repeated (command, output) pairs in one run's events (in seq order):
//
//  1. Each tool_call with a non-empty target is paired with its tool_result:
//     the first result with the same call_id, else (for calls without one)
//     the first result with the same tool_key. Calls without a result are skipped.
//  2. The pair key is (tool name, target, is_error, hash of the result text).
//     A flagged error therefore matches only an identically flagged error with
//     the same text; unflagged results match on identical text.
//  3. Every key seen two or more times, consecutive or not, is a Stall with
//     the seqs of all its occurrences.
func Stalls(events []schema.Event) RunStalls {
	var res RunStalls
	if len(events) > 0 {
		res.RunID = events[0].RunID
	}
	byCall := map[string]int{}
	byKey := map[string]int{}
	for i, e := range events {
		if e.Kind != schema.KindToolResult {
			continue
		}
		if e.CallID != "" {
			if _, ok := byCall[e.CallID]; !ok {
				byCall[e.CallID] = i
			}
		} else if e.ToolKey != "" {
			if _, ok := byKey[e.ToolKey]; !ok {
				byKey[e.ToolKey] = i
			}
		}
	}
	// Pairs whose (tool, target, is_error, text length) is unique cannot
	// repeat: only the others' texts are hashed, with maphash (FNV over
	// every output was most of diagnose's time on large corpora).
	type sizeKey struct {
		tool, target string
		isErr        bool
		size         int
	}
	type pair struct{ call, result int }
	var pairs []pair
	sizes := map[sizeKey]int{}
	for i, e := range events {
		if e.Kind != schema.KindToolCall || e.Target == "" {
			continue
		}
		j, ok := -1, false
		if e.CallID != "" {
			j, ok = byCall[e.CallID]
		} else if e.ToolKey != "" {
			j, ok = byKey[e.ToolKey]
		}
		if !ok {
			continue
		}
		pairs = append(pairs, pair{i, j})
		sizes[sizeKey{e.ToolName, e.Target, events[j].IsError, len(events[j].Text)}]++
	}
	type pairKey struct {
		tool, target string
		isErr        bool
		hash         uint64
	}
	groups := map[pairKey]*Stall{}
	texts := map[pairKey]string{} // a group's output text, for its FNV hash
	var order []pairKey
	for _, p := range pairs {
		e, r := &events[p.call], &events[p.result]
		if sizes[sizeKey{e.ToolName, e.Target, r.IsError, len(r.Text)}] < 2 {
			continue
		}
		k := pairKey{e.ToolName, e.Target, r.IsError, maphash.String(stallSeed, r.Text)}
		g := groups[k]
		if g == nil {
			g = &Stall{Tool: e.ToolName, Target: e.Target, IsError: r.IsError}
			groups[k] = g
			texts[k] = r.Text
			order = append(order, k)
		}
		g.Seqs = append(g.Seqs, e.Seq)
		g.ResultSeqs = append(g.ResultSeqs, r.Seq)
	}
	for _, k := range order {
		g := groups[k]
		if len(g.Seqs) < 2 {
			continue
		}
		g.Hash = strconv.FormatUint(fnv64a(texts[k]), 16)
		res.Stalls = append(res.Stalls, *g)
		n := int64(len(g.Seqs) - 1)
		res.Repeats += n
		if g.IsError {
			res.Errors += n
		}
	}
	slices.SortStableFunc(res.Stalls, func(a, b Stall) int { return cmp.Compare(a.Seqs[0], b.Seqs[0]) })
	return res
}

// fnv64a is FNV-1a 64 of s (hash/fnv's, without copying s to a []byte).
func fnv64a(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
