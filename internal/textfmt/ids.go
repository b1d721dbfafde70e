package textfmt

import (
	"github.com/mattn/go-runewidth"
)

// CutMiddle shortens s to at most w columns by cutting its middle,
// marked with "…": the head and the tail stay, the tail as long as the
// head or one shorter ("0199c53d…/agent-a1b2" of a sub-agent's id). A
// run id's tail is what tells a session's sub-agents apart, its head the
// sessions. s that fits is returned whole; w < 2 is taken as 2.
func CutMiddle(s string, w int) string {
	if runewidth.StringWidth(s) <= w {
		return s
	}
	w = max(w, 2)
	r := []rune(s)
	headW := (w - 1 + 1) / 2 // the head takes the odd column
	tailW := w - 1 - headW
	head, hw := 0, 0
	for head < len(r) && hw+runewidth.RuneWidth(r[head]) <= headW {
		hw += runewidth.RuneWidth(r[head])
		head++
	}
	tail, tw := len(r), 0
	for tail > head && tw+runewidth.RuneWidth(r[tail-1]) <= tailW {
		tw += runewidth.RuneWidth(r[tail-1])
		tail--
	}
	return string(r[:head]) + "…" + string(r[tail:])
}

// UniqueWidth is the fewest columns, at least lo, at which CutMiddle
// leaves the distinct strings of ids distinct, so that no two ids printed
// together read alike (git's short hashes are unique the same way): a
// session and its sub-agents, whose ids share their first 30 characters,
// keep enough of their tails. At any width above it they stay distinct
// too (a wider cut keeps at least as much head and tail).
func UniqueWidth(ids []string, lo int) int {
	widest := lo
	for _, id := range ids {
		widest = max(widest, runewidth.StringWidth(id))
	}
	distinct := map[string]bool{}
	for _, id := range ids {
		distinct[id] = true
	}
	for w := max(lo, 2); w < widest; w++ {
		seen := make(map[string]bool, len(distinct))
		ok := true
		for id := range distinct {
			c := CutMiddle(id, w)
			if seen[c] {
				ok = false
				break
			}
			seen[c] = true
		}
		if ok {
			return w
		}
	}
	return widest
}
