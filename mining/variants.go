package mining

import (
	"cmp"
	"encoding/binary"
	"slices"
)

// Variant is one distinct activity sequence and the cases that follow it.
type Variant struct {
	Activities []string `json:"activities"`
	Count      int      `json:"count"`      // cases
	Share      float64  `json:"share"`      // Count / cases in the log
	Cumulative float64  `json:"cumulative"` // share of the log covered by this and every variant before it
	Example    string   `json:"example"`    // the smallest id of its cases (whatever the log's case order)
}

// variantKey appends the activity sequence of evs to buf as uvarints.
func variantKey(buf []byte, evs []Event) []byte {
	for _, e := range evs {
		buf = binary.AppendUvarint(buf, uint64(uint32(e.Activity)))
	}
	return buf
}

// Variants returns the variants of l, by count (descending), then by their
// activity sequences compared name by name (a sequence before any longer
// sequence it starts). Cumulative is the running sum of Share in that
// order, so the first k variants cover Cumulative[k−1] of the cases.
func Variants(l *Log) []Variant {
	type acc struct {
		count int
		first int
	}
	idx := map[string]int{}
	var accs []acc
	var key []byte
	for ci := range l.Cases {
		key = variantKey(key[:0], l.Cases[ci].Events)
		if i, ok := idx[string(key)]; ok {
			accs[i].count++
			if l.Cases[ci].ID < l.Cases[accs[i].first].ID {
				accs[i].first = ci
			}
			continue
		}
		idx[string(key)] = len(accs)
		accs = append(accs, acc{count: 1, first: ci})
	}
	out := make([]Variant, len(accs))
	for i, a := range accs {
		out[i] = Variant{Activities: l.Trace(a.first), Count: a.count, Example: l.Cases[a.first].ID}
	}
	slices.SortFunc(out, func(a, b Variant) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return slices.Compare(a.Activities, b.Activities)
	})
	total := float64(len(l.Cases))
	cum := 0
	for i := range out {
		cum += out[i].Count
		out[i].Share = float64(out[i].Count) / total
		out[i].Cumulative = float64(cum) / total
	}
	return out
}
