package diagnose

import (
	"cmp"
	"hash/maphash"
	"slices"
	"strconv"

	"github.com/trajmine/trajmine/schema"
)

// Stall is a (command, output) pair that occurred at least twice in one run:
// the same tool name and the same action (its canonical arguments, else its
// target when the log has no arguments), answered by the same output text
// with the same failing flag. A pair whose output failed (Failing) is a
// stall in the half-life note's sense, "a command repeats with an identical
// error"; one whose output did not fail is a repeat.
type Stall struct {
	Tool    string `json:"tool"`
	Target  string `json:"target"`
	Failing bool   `json:"failing"` // the output is flagged is_error or its exit code is non-zero
	// IsError: every output of the pair is flagged is_error (Failing may
	// come from the exit code alone).
	IsError bool `json:"is_error"`
	// Inferred: the pair fails and every one of its outputs was marked
	// failed by a text rule at import (schema.Event.ErrorRule: the log has
	// no error flag or exit code for it), none by its log.
	Inferred   bool    `json:"inferred,omitempty"`
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

// RunStalls is one run's stalls and repeats.
type RunStalls struct {
	RunID    string  `json:"run_id"`
	NStalls  int64   `json:"stalls"`       // Σ (occurrences - 1) over Stalls
	NRepeats int64   `json:"repeats"`      // Σ (occurrences - 1) over Repeated
	Stalls   []Stall `json:"stall_pairs"`  // failing pairs, by first seq
	Repeated []Stall `json:"repeat_pairs"` // pairs whose output did not fail, by first seq
}

// EndsInStall reports whether the run's last tool call (seq lastCall) is a
// second or later occurrence of a stall: the run stopped on a command that
// had already failed with the same output.
func (s *RunStalls) EndsInStall(lastCall int64) (Stall, bool) {
	for _, g := range s.Stalls {
		if i := slices.Index(g.Seqs, lastCall); i > 0 {
			return g, true
		}
	}
	return Stall{}, false
}

// failing reports whether a tool result failed: flagged is_error (by its
// log, or at import by a text rule where the log has neither a flag nor an
// exit code: ErrorRule), or a logged non-zero exit code.
func failing(e *schema.Event) bool {
	return e.IsError || (e.ExitCode != nil && *e.ExitCode != 0)
}

// Stalls finds repeated (command, output) pairs in one run's events (in seq order):
//
//  1. Each tool_call with non-empty arguments or target is paired with its
//     tool_result: the first result with the same call_id, else (for calls
//     without one) the first result with the same tool_key. Calls without a
//     result are skipped.
//  2. The pair key is (tool name, action, failing, hash of the result text),
//     the action being the call's canonical arguments, or its target when it
//     has none: different edits of one file are different actions even when
//     each is answered "file updated". A failing output therefore matches
//     only a failing output with the same text; other outputs match on
//     identical text.
//  3. Every key seen two or more times, consecutive or not, is a Stall with
//     the seqs of all its occurrences: in Stalls when failing, else in
//     Repeated.
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
	action := func(e *schema.Event) string {
		if e.Args != "" {
			return "a" + e.Args
		}
		return "t" + e.Target
	}
	// Pairs whose (tool, action, failing, text length) is unique cannot
	// repeat: only the others' texts are hashed, with maphash (FNV over
	// every output was most of diagnose's time on large corpora).
	type sizeKey struct {
		tool, action string
		fail         bool
		size         int
	}
	type pair struct{ call, result int }
	var pairs []pair
	sizes := map[sizeKey]int{}
	for i, e := range events {
		if e.Kind != schema.KindToolCall || (e.Target == "" && e.Args == "") {
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
		sizes[sizeKey{e.ToolName, action(&e), failing(&events[j]), len(events[j].Text)}]++
	}
	type pairKey struct {
		tool, action string
		fail         bool
		hash         uint64
	}
	groups := map[pairKey]*Stall{}
	texts := map[pairKey]string{} // a group's output text, for its FNV hash
	var order []pairKey
	for _, p := range pairs {
		e, r := &events[p.call], &events[p.result]
		a, f := action(e), failing(r)
		if sizes[sizeKey{e.ToolName, a, f, len(r.Text)}] < 2 {
			continue
		}
		k := pairKey{e.ToolName, a, f, maphash.String(stallSeed, r.Text)}
		g := groups[k]
		if g == nil {
			g = &Stall{Tool: e.ToolName, Target: e.Target, Failing: f, IsError: r.IsError, Inferred: f && r.ErrorRule != ""}
			groups[k] = g
			texts[k] = r.Text
			order = append(order, k)
		}
		g.IsError = g.IsError && r.IsError
		g.Inferred = g.Inferred && r.ErrorRule != ""
		g.Seqs = append(g.Seqs, e.Seq)
		g.ResultSeqs = append(g.ResultSeqs, r.Seq)
	}
	for _, k := range order {
		g := groups[k]
		if len(g.Seqs) < 2 {
			continue
		}
		g.Hash = strconv.FormatUint(fnv64a(texts[k]), 16)
		n := int64(len(g.Seqs) - 1)
		if g.Failing {
			res.Stalls = append(res.Stalls, *g)
			res.NStalls += n
		} else {
			res.Repeated = append(res.Repeated, *g)
			res.NRepeats += n
		}
	}
	first := func(a, b Stall) int { return cmp.Compare(a.Seqs[0], b.Seqs[0]) }
	slices.SortStableFunc(res.Stalls, first)
	slices.SortStableFunc(res.Repeated, first)
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
