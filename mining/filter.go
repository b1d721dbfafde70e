package mining

import (
	"fmt"
	"slices"
	"time"
)

// Outcome selects cases by their run's outcome.
type Outcome int

// Outcomes. OutcomeAny is the zero value.
const (
	OutcomeAny      Outcome = iota // every case
	OutcomeResolved                // resolved = true
	OutcomeFailed                  // resolved = false
	OutcomeUnknown                 // resolved not logged
)

var outcomeNames = [...]string{OutcomeAny: "any", OutcomeResolved: "resolved", OutcomeFailed: "failed", OutcomeUnknown: "unknown"}

// String returns the outcome's name: any, resolved, failed or unknown.
func (o Outcome) String() string {
	if o < 0 || int(o) >= len(outcomeNames) {
		return fmt.Sprintf("Outcome(%d)", int(o))
	}
	return outcomeNames[o]
}

// ParseOutcome returns the outcome named s ("" means any).
func ParseOutcome(s string) (Outcome, error) {
	if s == "" {
		return OutcomeAny, nil
	}
	for i, n := range outcomeNames {
		if n == s {
			return Outcome(i), nil
		}
	}
	return OutcomeAny, fmt.Errorf("unknown outcome %q (want any, resolved, failed or unknown)", s)
}

// Filter selects cases. Every condition that is set must hold; an empty
// list or zero value sets no condition.
type Filter struct {
	ModelFamilies []string // case model family is one of these
	Harnesses     []string // case harness is one of these
	Formats       []string // case source format is one of these
	Outcome       Outcome
	// From and To bound the case start: From <= start < To. A case without
	// a start time fails a set bound.
	From, To time.Time
	// With keeps cases having at least one event of any of these
	// activities; Without drops cases having any of these.
	With, Without []string
}

// Match reports whether case c of l passes f.
func (f *Filter) Match(l *Log, c *Case) bool {
	if f == nil {
		return true
	}
	if len(f.ModelFamilies) > 0 && !slices.Contains(f.ModelFamilies, c.ModelFamily) ||
		len(f.Harnesses) > 0 && !slices.Contains(f.Harnesses, c.Harness) ||
		len(f.Formats) > 0 && !slices.Contains(f.Formats, c.Format) {
		return false
	}
	switch f.Outcome {
	case OutcomeResolved:
		if c.Resolved == nil || !*c.Resolved {
			return false
		}
	case OutcomeFailed:
		if c.Resolved == nil || *c.Resolved {
			return false
		}
	case OutcomeUnknown:
		if c.Resolved != nil {
			return false
		}
	}
	if !f.From.IsZero() && (c.Start == 0 || c.Start < f.From.UnixMicro()) {
		return false
	}
	if !f.To.IsZero() && (c.Start == 0 || c.Start >= f.To.UnixMicro()) {
		return false
	}
	if len(f.With) > 0 && !hasAny(l, c, f.With) {
		return false
	}
	if len(f.Without) > 0 && hasAny(l, c, f.Without) {
		return false
	}
	return true
}

func hasAny(l *Log, c *Case, names []string) bool {
	var ids []int32
	for _, n := range names {
		if id, ok := l.ids[n]; ok {
			ids = append(ids, id)
		}
	}
	for _, e := range c.Events {
		if slices.Contains(ids, e.Activity) {
			return true
		}
	}
	return false
}

// Filter returns the log of the cases that pass f, in the same order. It
// shares l's activity table and events (nothing is copied but the case list).
func (l *Log) Filter(f *Filter) *Log {
	return l.Select(func(c *Case) bool { return f.Match(l, c) })
}

// Select returns the log of the cases for which keep is true, sharing l's
// activity table and events.
func (l *Log) Select(keep func(*Case) bool) *Log {
	out := &Log{Activities: l.Activities, ids: l.ids}
	for i := range l.Cases {
		if keep(&l.Cases[i]) {
			out.Cases = append(out.Cases, l.Cases[i])
		}
	}
	return out
}
