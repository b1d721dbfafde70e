package behavior

import "fmt"

// Label names a manage_context behaviour.
type Label string

// Labels. The first four are the behaviours the DTOC paper contrasts (and
// synth plants); the last two say that there is nothing to label.
const (
	// LabelSelective: few, deep disables (most disabling calls free at least
	// ShallowTokens) and little thrash.
	LabelSelective Label = "selective"
	// LabelShallow: most disabling calls free fewer than ShallowTokens.
	LabelShallow Label = "shallow"
	// LabelNever: the model had the tool and (almost) never called it.
	LabelNever Label = "never"
	// LabelThrasher: many disables are undone within the thrash window.
	LabelThrasher Label = "thrasher"
	// LabelNoTool: no run had manage_context.
	LabelNoTool Label = "no-tool"
	// LabelUnknown: too few disabling calls to tell.
	LabelUnknown Label = "unknown"
)

// Thresholds are the classifier's; see Classify.
type Thresholds struct {
	// NeverOpsPer100: fewer manage_context calls per 100 model calls than
	// this is "never".
	NeverOpsPer100 float64 `json:"never_ops_per_100"`
	// MinDisablingOps: fewer disabling calls than this (and not never) is
	// "unknown".
	MinDisablingOps int64 `json:"min_disabling_ops"`
	// ThrashShare: at least this share of disables re-enabled within the
	// thrash window is "thrasher".
	ThrashShare float64 `json:"thrash_share"`
	// ShallowShare: at least this share of shallow disabling calls is
	// "shallow".
	ShallowShare float64 `json:"shallow_share"`
}

// DefaultThresholds are the classifier's defaults: never below 0.5
// manage_context calls per 100 model calls (one call in 200), at least 3
// disabling calls to label anything else, thrasher from a thrash share of
// 0.25 (one disable in four undone within k calls; a selective model
// re-enables rarely and late), shallow from a shallow share of 0.5 (most
// of its disabling calls free less than ShallowTokens).
var DefaultThresholds = Thresholds{NeverOpsPer100: 0.5, MinDisablingOps: 3, ThrashShare: 0.25, ShallowShare: 0.5}

// Classification is a label and the figures that decided it.
type Classification struct {
	Label  Label  `json:"label"`
	Reason string `json:"reason"`
}

// Classify labels a pooled manage_context profile; t nil means
// DefaultThresholds. The rules, first match wins:
//
//  1. ToolRuns = 0: no-tool.
//  2. OpsPer100 < t.NeverOpsPer100: never.
//  3. DisablingOps < t.MinDisablingOps: unknown.
//  4. ThrashShare ≥ t.ThrashShare: thrasher.
//  5. ShallowShare ≥ t.ShallowShare: shallow.
//  6. Otherwise: selective.
func Classify(p ManageProfile, t *Thresholds) Classification {
	if t == nil {
		t = &DefaultThresholds
	}
	switch {
	case p.ToolRuns == 0:
		return Classification{LabelNoTool, "no run had manage_context"}
	case p.OpsPer100 < t.NeverOpsPer100:
		return Classification{LabelNever, fmt.Sprintf("%.2f manage_context calls per 100 calls < %g", p.OpsPer100, t.NeverOpsPer100)}
	case p.DisablingOps < t.MinDisablingOps:
		return Classification{LabelUnknown, fmt.Sprintf("%d disabling calls < %d", p.DisablingOps, t.MinDisablingOps)}
	case p.ThrashShare >= t.ThrashShare:
		return Classification{LabelThrasher, fmt.Sprintf("%.0f%% of disables re-enabled within the thrash window ≥ %.0f%%", 100*p.ThrashShare, 100*t.ThrashShare)}
	case p.ShallowShare >= t.ShallowShare:
		return Classification{LabelShallow, fmt.Sprintf("%.0f%% of disabling calls shallow ≥ %.0f%% (median %.0f tokens freed)", 100*p.ShallowShare, 100*t.ShallowShare, p.FreedPerOp.Median)}
	}
	return Classification{LabelSelective, fmt.Sprintf("%.0f%% of disabling calls shallow, %.0f%% thrash (median %.0f tokens freed, %.2f calls per 100)",
		100*p.ShallowShare, 100*p.ThrashShare, p.FreedPerOp.Median, p.OpsPer100)}
}
