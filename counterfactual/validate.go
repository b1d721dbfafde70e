package counterfactual

import (
	"cmp"
	"math"
	"slices"

	"github.com/trajmine/trajmine/internal/stats"
	"github.com/trajmine/trajmine/schema"
)

// ToolReReads is one tool's predicted and observed re-reads.
//
// Observed are the re-reads the log shows: target uses by a call of the same
// tool (the tool invoked again on the output's target) and enable uses (a
// DTOC re-enable) of the tool's outputs. Predicted are the attributor's: content uses of the
// tool's outputs made by a call after the first call that saw the output
// (a use at call t > output turn: the output was needed again after it was
// first read, which a policy that dropped it would have turned into a
// re-read), counted once per (output, call).
type ToolReReads struct {
	Tool      string `json:"tool"`
	Predicted int64  `json:"predicted"`
	Observed  int64  `json:"observed"`
}

// RunReReads returns one run's ToolReReads per tool name (sorted by tool),
// from its events and their Uses. isRead, when not nil, keeps only the
// outputs whose producing call it calls a read (or search): re-reads of
// edits and commands are not re-reads.
func RunReReads(events []schema.Event, uses []Use, isRead func(tool, args string) bool) []ToolReReads {
	prod := producers(events)
	keep := func(o int) bool {
		if isRead == nil {
			return true
		}
		p := prod[o]
		return p >= 0 && isRead(events[p].ToolName, events[p].Args)
	}
	by := map[string]*ToolReReads{}
	get := func(o int) *ToolReReads {
		t := events[o].ToolName
		r := by[t]
		if r == nil {
			r = &ToolReReads{Tool: t}
			by[t] = r
		}
		return r
	}
	type oc struct {
		o    int
		call int64
	}
	seen := map[oc]bool{}
	for _, u := range uses {
		if u.Output < 0 || u.Output >= len(events) || events[u.Output].Kind != schema.KindToolResult || !keep(u.Output) {
			continue
		}
		switch u.Kind {
		case UseTarget:
			if events[u.Event].ToolName == events[u.Output].ToolName {
				get(u.Output).Observed++
			}
		case UseEnable:
			get(u.Output).Observed++
		case UseContent:
			if k := (oc{u.Output, u.Call}); u.Call > events[u.Output].Turn && !seen[k] {
				seen[k] = true
				get(u.Output).Predicted++
			}
		}
	}
	out := make([]ToolReReads, 0, len(by))
	for _, r := range by {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b ToolReReads) int { return cmp.Compare(a.Tool, b.Tool) })
	return out
}

// ReReadValidation compares predicted with observed re-reads per tool over
// the runs whose log shows at least one re-read.
type ReReadValidation struct {
	Runs  int           `json:"runs"`  // runs with an observed re-read
	Tools []ToolReReads `json:"tools"` // summed over those runs, by tool; tools with neither left out
	// Spearman is the rank correlation (average ranks for ties) of Predicted
	// and Observed over Tools; nil with fewer than MinValidationTools tools or
	// when either side is constant.
	Spearman *float64 `json:"spearman"`
}

// MinValidationTools is the fewest tools a Spearman ρ is computed over.
const MinValidationTools = 3

// ReReadValidator accumulates RunReReads over runs.
type ReReadValidator struct {
	runs int
	by   map[string]*ToolReReads
}

// Add adds one run's per-tool re-reads; a run with no observed re-read is
// left out.
func (v *ReReadValidator) Add(run []ToolReReads) {
	var obs int64
	for _, r := range run {
		obs += r.Observed
	}
	if obs == 0 {
		return
	}
	v.runs++
	if v.by == nil {
		v.by = map[string]*ToolReReads{}
	}
	for _, r := range run {
		if r.Predicted == 0 && r.Observed == 0 {
			continue
		}
		s := v.by[r.Tool]
		if s == nil {
			s = &ToolReReads{Tool: r.Tool}
			v.by[r.Tool] = s
		}
		s.Predicted += r.Predicted
		s.Observed += r.Observed
	}
}

// Result returns the validation over the runs added so far.
func (v *ReReadValidator) Result() ReReadValidation {
	res := ReReadValidation{Runs: v.runs, Tools: []ToolReReads{}}
	for _, r := range v.by {
		res.Tools = append(res.Tools, *r)
	}
	slices.SortFunc(res.Tools, func(a, b ToolReReads) int { return cmp.Compare(a.Tool, b.Tool) })
	if len(res.Tools) < MinValidationTools {
		return res
	}
	x := make([]float64, len(res.Tools))
	y := make([]float64, len(res.Tools))
	for i, r := range res.Tools {
		x[i], y[i] = float64(r.Predicted), float64(r.Observed)
	}
	if rho := Spearman(x, y); !math.IsNaN(rho) {
		res.Spearman = &rho
	}
	return res
}

// Spearman is the Spearman rank correlation of x and y (stats.Spearman).
var Spearman = stats.Spearman
