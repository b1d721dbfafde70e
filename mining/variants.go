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

// CollapseRepeats returns the case's events with every run of consecutive
// events of one activity kept as its first: read, read, read, edit, read
// → read, edit, read.
func CollapseRepeats(evs []Event) []Event {
	out := make([]Event, 0, len(evs))
	for i, e := range evs {
		if i > 0 && e.Activity == evs[i-1].Activity {
			continue
		}
		out = append(out, e)
	}
	return out
}

// FirstOccurrences returns the case's events with every activity kept
// at its first occurrence only: read, search, read, edit, test, edit →
// read, search, edit, test (the order in which the case took up each
// activity).
func FirstOccurrences(evs []Event) []Event {
	out := make([]Event, 0, 8)
	seen := map[int32]bool{}
	for _, e := range evs {
		if !seen[e.Activity] {
			seen[e.Activity] = true
			out = append(out, e)
		}
	}
	return out
}

// CollapsedVariants returns the variants of l with consecutive repeats
// collapsed (CollapseRepeats): cases that differ only in how many times
// they repeated a step share a variant. Order, shares and examples are
// Variants'.
func CollapsedVariants(l *Log) []Variant { return Variants(mapEvents(l, CollapseRepeats)) }

// OrderVariants returns the variants of l by the order in which each case
// took up its activities (FirstOccurrences): the coarsest level, where
// long cases that share no path still share a way of working (read,
// search, edit, test against read, edit, test).
func OrderVariants(l *Log) []Variant { return Variants(mapEvents(l, FirstOccurrences)) }

// mapEvents is l with every case's events replaced by f of them.
func mapEvents(l *Log, f func([]Event) []Event) *Log {
	c := &Log{Activities: l.Activities, ids: l.ids, Cases: make([]Case, len(l.Cases))}
	for i := range l.Cases {
		c.Cases[i] = l.Cases[i]
		c.Cases[i].Events = f(l.Cases[i].Events)
	}
	return c
}

// VariantLevel is how coarsely variants are keyed.
type VariantLevel string

// The variant levels, finest first.
const (
	LevelExact     VariantLevel = "as logged"
	LevelCollapsed VariantLevel = "repeats collapsed"
	LevelOrder     VariantLevel = "order of first occurrence"
)

// CoarseVariants returns the variants of l at the finest level below
// exact at which cases share variants — repeats collapsed, unless that
// leaves more variants than half the cases, then the order of first
// occurrence — and the level.
func CoarseVariants(l *Log) ([]Variant, VariantLevel) {
	if vs := CollapsedVariants(l); 2*len(vs) <= len(l.Cases) {
		return vs, LevelCollapsed
	}
	return OrderVariants(l), LevelOrder
}
