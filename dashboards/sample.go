package dashboards

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"slices"
)

// Candidate is a run the sample is drawn from (a diag_runs row).
type Candidate struct {
	RunID      string
	PeakShare  float64 // peak_share; ignored when the window is unknown
	PeakTokens int64
	Known      bool // the run's window is known
}

// Pick is one sampled run: its index in the candidates and why it was chosen.
type Pick struct {
	Index int
	Why   string // "top" or "sample"
}

// SampleRuns chooses the runs the report shows call by call, so that the
// page stays small whatever the number of runs:
//
//  1. the top runs: by peak share of the window, highest first (runs with an
//     unknown window after those with one), ties by peak tokens then run id;
//  2. then random more of the others: those with the smallest FNV-1a 64-bit
//     hash of the run id (ties by run id): deterministic, so the same
//     database gives the same sample, and unrelated to size or order.
//
// It returns the picks in that order and the rule as the page states it.
func SampleRuns(cands []Candidate, top, random int) ([]Pick, string) {
	idx := make([]int, len(cands))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		x, y := &cands[a], &cands[b]
		if x.Known != y.Known {
			if x.Known {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(y.PeakShare, x.PeakShare), cmp.Compare(y.PeakTokens, x.PeakTokens), cmp.Compare(x.RunID, y.RunID))
	})
	top = min(max(top, 0), len(idx))
	picks := make([]Pick, 0, top+random)
	for _, i := range idx[:top] {
		picks = append(picks, Pick{Index: i, Why: "top"})
	}
	rest := slices.Clone(idx[top:])
	hashes := make(map[int]uint64, len(rest))
	for _, i := range rest {
		h := fnv.New64a()
		h.Write([]byte(cands[i].RunID))
		hashes[i] = h.Sum64()
	}
	slices.SortStableFunc(rest, func(a, b int) int {
		return cmp.Or(cmp.Compare(hashes[a], hashes[b]), cmp.Compare(cands[a].RunID, cands[b].RunID))
	})
	random = min(max(random, 0), len(rest))
	for _, i := range rest[:random] {
		picks = append(picks, Pick{Index: i, Why: "sample"})
	}
	rule := fmt.Sprintf("%d of %d runs are shown call by call: the %d with the highest peak share of their window "+
		"(peak_tokens / window_tokens in diag_runs; runs with an unknown window last; ties by peak tokens, then run id), "+
		"and %d more: those of the rest with the smallest FNV-1a 64-bit hash of the run id "+
		"(deterministic: the same database gives the same sample). Every other figure covers all %d runs.",
		len(picks), len(cands), top, random, len(cands))
	return picks, rule
}
