package ingest

import "github.com/trajmine/trajmine/schema"

// heldUsage is a model call's usage logged before the call's outputs (Codex
// 0.40 rollouts, OpenHands SDK token events): it waits for the output that
// begins its call. The zero value holds none.
type heldUsage struct{ u *schema.Usage }

// hold keeps u for the next call. A usage held already saw no output after
// it: it was a call of its own, after the last.
func (h *heldUsage) hold(b *RunBuilder, u schema.Usage) {
	h.flush(b)
	h.u = &u
}

// take returns the held usage and forgets it; ok is false when none is held.
func (h *heldUsage) take() (u schema.Usage, ok bool) {
	if h.u == nil {
		return schema.Usage{}, false
	}
	u, h.u = *h.u, nil
	return u, true
}

// flush records a held usage as a call of its own after the last (its
// outputs never came) and forgets it.
func (h *heldUsage) flush(b *RunBuilder) {
	if u, ok := h.take(); ok {
		b.SetUsageAt(b.Turns(), u)
	}
}
