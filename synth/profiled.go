package synth

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// profiledMinCalls is the fewest planned model calls of a profiled run, so
// that every profile has room to act.
const profiledMinCalls = 16

// reEnable is a scheduled re-enable of a disabled output.
type reEnable struct {
	item int // index in openaiWriter.items
	due  int // the first call (0-based) that may enable it
}

// freed returns the tokens disabling item it frees in profile units:
// estimated_tokens − PlaceholderTokens (may be ≤ 0).
func (w *openaiWriter) freed(it oitem) int { return it.est4 - w.prof.PlaceholderTokens }

// profiledManage decides whether the next model call is a manage_context
// call of the run's profile, makes it if so and reports whether it did:
//
//  1. The credit grows by OpsPer100/100.
//  2. If scheduled re-enables are due (due ≤ this call) for outputs still
//     disabled, the call enables them all, disables nothing and costs a
//     credit.
//  3. Else, if the credit is ≥ 1 and pickDisable finds outputs to disable,
//     the call disables them and costs a credit.
func (w *openaiWriter) profiledManage() bool {
	p := w.prof
	w.credit += p.OpsPer100 / 100
	call := w.a.n
	var on []int
	kept := w.pending[:0]
	for _, pe := range w.pending {
		switch {
		case !w.items[pe.item].disabled:
		case pe.due <= call:
			on = append(on, pe.item)
		default:
			kept = append(kept, pe)
		}
	}
	w.pending = kept
	if len(on) > 0 {
		slices.Sort(on)
		w.credit--
		w.manageProfiled(nil, on)
		return true
	}
	if w.credit < 1 {
		return false
	}
	off := w.pickDisable()
	if off == nil {
		return false
	}
	w.credit--
	w.manageProfiled(off, nil)
	return true
}

// pickDisable chooses the outputs a disabling call of the profile would
// disable now, or nil when no choice meets the profile (see
// Profile.MinFreed): eligible are enabled tool results (not manage_context
// status results) with MinAge ≤ age ≤ MaxAge, 0 < freed ≤ MaxFreed and, with
// AvoidRecent, not of a file among the last AvoidRecent reads.
func (w *openaiWriter) pickDisable() []int {
	p, r, call := w.prof, w.r, w.a.n
	recent := map[*srcFile]bool{}
	if p.AvoidRecent > 0 {
		for _, f := range w.a.read[max(0, len(w.a.read)-p.AvoidRecent):] {
			recent[f] = true
		}
	}
	var elig []int
	for i, it := range w.items {
		if it.key == "" || it.disabled || it.tool == "manage_context" {
			continue
		}
		age, f := call-it.call, w.freed(it)
		if age < p.MinAge || (p.MaxAge > 0 && age > p.MaxAge) || f <= 0 || f > p.MaxFreed {
			continue
		}
		if it.file != nil && recent[it.file] {
			continue
		}
		elig = append(elig, i)
	}
	switch p.Order {
	case OrderLargest:
		slices.SortStableFunc(elig, func(x, y int) int { return cmp.Compare(w.freed(w.items[y]), w.freed(w.items[x])) })
	case OrderRecent:
		slices.Reverse(elig)
	case OrderRandom:
		r.Shuffle(len(elig), func(i, j int) { elig[i], elig[j] = elig[j], elig[i] })
	}
	target := between(r, p.MinFreed, p.MaxFreed)
	var off []int
	sum := 0
	for _, i := range elig {
		f := w.freed(w.items[i])
		if sum+f > p.MaxFreed {
			continue
		}
		off = append(off, i)
		sum += f
		if sum >= target || len(off) == p.MaxKeys {
			break
		}
	}
	if sum < p.MinFreed || len(off) < p.MinKeys {
		return nil
	}
	return off
}

// manageProfiled makes a manage_context call that disables the items off
// and enables the items on, and schedules re-enables of what it disabled.
func (w *openaiWriter) manageProfiled(off, on []int) {
	a, r, p := w.a, w.r, w.prof
	call := a.n
	disable, enable := strs{}, strs{}
	for _, i := range off {
		disable = append(disable, w.items[i].key)
	}
	for _, i := range on {
		enable = append(enable, w.items[i].key)
	}
	id := w.manageCall(enable, disable, len(on) > 0, "Dropping tool outputs I no longer need to keep the context small.",
		"I need those outputs again; re-enabling them.")
	var parts []string
	if len(off) > 0 {
		freed := 0
		for _, i := range off {
			freed += w.items[i].tok - w.items[i].stub
		}
		parts = append(parts, "Disabled "+strings.Join(disable, ", ")+" ("+strconv.Itoa(freed)+" tokens freed).")
	}
	if len(on) > 0 {
		parts = append(parts, "Enabled "+strings.Join(enable, ", ")+".")
	}
	w.toolMessage(id, "manage_context", strings.Join(parts, " "))
	for _, i := range off {
		w.setDisabled(i, true)
		if p.ReEnable > 0 && chance(r, p.ReEnable) {
			w.pending = append(w.pending, reEnable{item: i, due: call + between(r, p.ReEnableAfterMin, p.ReEnableAfterMax)})
		}
	}
	for _, i := range on {
		w.setDisabled(i, false)
	}
	w.manages++
	w.disables += len(off)
	w.enables += len(on)
	w.lastManage = call
}
