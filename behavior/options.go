package behavior

import (
	"github.com/trajmine/trajmine/counterfactual"
	"github.com/trajmine/trajmine/diagnose"
)

// Defaults of Options.
const (
	// DefaultPlaceholderTokens is what a disabled output still costs: the
	// DTOC paper's placeholders (tool key, timestamp, token estimate) cost
	// "approximately 30–50 tokens regardless of original output size".
	DefaultPlaceholderTokens = 40
	// DefaultShallowTokens: a disabling manage_context call that frees fewer
	// tokens than this is shallow. 500 tokens is about one small file read
	// or a short test log, less than one manage_context round trip costs in
	// a prompt of a few thousand tokens.
	DefaultShallowTokens = 500
	// DefaultThrashWindow is k of the thrash figure: a disable of a key
	// followed by an enable of the same key at most k calls later.
	DefaultThrashWindow = 5
	// DefaultRereadWindow is N of the compaction re-read figure: reads
	// within N calls after a compaction (calls turn … turn+N−1).
	DefaultRereadWindow = 10
)

// Options configures Run, Summarize and ByFamily. A nil *Options means
// defaults; so does a zero field.
type Options struct {
	// Window overrides every run's context window in tokens (like
	// `trajmine diagnose --window`); 0 means diagnose.Window(run, 0): the
	// logged window, else the model family's known window. Fill figures of
	// runs with an unknown window are left out.
	Window int64
	// PlaceholderTokens is subtracted from a hidden output's tokens to give
	// the tokens a disable frees. Default DefaultPlaceholderTokens; negative
	// means 0.
	PlaceholderTokens int64
	// ShallowTokens is the shallow-op threshold. Default DefaultShallowTokens.
	ShallowTokens int64
	// ThrashWindow is the thrash window k in calls. Default DefaultThrashWindow.
	ThrashWindow int64
	// RereadWindow is the compaction re-read window N in calls. Default
	// DefaultRereadWindow.
	RereadWindow int64
	// Classify returns the action class (read, search, edit, execute, …) of
	// a tool call of a harness; cmd passes the actions classifier. Nil
	// means "read" when IsRead says so, else "other".
	Classify func(harness, tool, args string) string
	// IsRead reports whether a tool call reads its target, for compaction
	// re-reads. Nil means diagnose.DefaultIsRead.
	IsRead func(tool, args string) bool
	// Thresholds are the classifier's (ByFamily). Nil means DefaultThresholds.
	Thresholds *Thresholds
	// Uses, when set, returns counterfactual.Uses of the run's events, which
	// a caller that has computed them already passes (analysis: RunWork.Uses)
	// so they are not computed twice. Nil means Run computes them.
	Uses func() []counterfactual.Use
}

// resolved is Options with defaults applied.
type resolved struct {
	window, placeholder, shallow, thrash, reread int64
	classify                                     func(harness, tool, args string) string
	uses                                         func() []counterfactual.Use
	isRead                                       func(tool, args string) bool
	th                                           Thresholds
}

func (o *Options) resolve() resolved {
	r := resolved{placeholder: DefaultPlaceholderTokens, shallow: DefaultShallowTokens,
		thrash: DefaultThrashWindow, reread: DefaultRereadWindow, isRead: diagnose.DefaultIsRead, th: DefaultThresholds}
	if o == nil {
		o = &Options{}
	}
	r.window = max(o.Window, 0)
	switch {
	case o.PlaceholderTokens > 0:
		r.placeholder = o.PlaceholderTokens
	case o.PlaceholderTokens < 0:
		r.placeholder = 0
	}
	if o.ShallowTokens > 0 {
		r.shallow = o.ShallowTokens
	}
	if o.ThrashWindow > 0 {
		r.thrash = o.ThrashWindow
	}
	if o.RereadWindow > 0 {
		r.reread = o.RereadWindow
	}
	if o.IsRead != nil {
		r.isRead = o.IsRead
	}
	r.uses = o.Uses
	r.classify = o.Classify
	if r.classify == nil {
		isRead := r.isRead
		r.classify = func(_, tool, args string) string {
			if isRead(tool, args) {
				return "read"
			}
			return "other"
		}
	}
	if o.Thresholds != nil {
		r.th = *o.Thresholds
	}
	return r
}
