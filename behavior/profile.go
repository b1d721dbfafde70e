package behavior

import (
	"cmp"
	"slices"
)

// ManageProfile pools the manage_context behaviour of a set of runs (a model
// family, usually). Rates and distributions are pooled over the tool runs'
// ops and hides, not averaged per run, so long runs weigh more.
type ManageProfile struct {
	// Runs is the runs pooled; ToolRuns those that had manage_context
	// (ManageRun.HasTool). Every figure below is over the tool runs.
	Runs     int `json:"runs"`
	ToolRuns int `json:"tool_runs"`
	// Calls is the model calls of the tool runs; Ops their manage_context
	// calls, DisablingOps those that disable at least one key; Disables and
	// Enables the keys disabled and enabled (context ops).
	Calls        int64 `json:"calls"`
	Ops          int64 `json:"ops"`
	DisablingOps int64 `json:"disabling_ops"`
	Disables     int64 `json:"disables"`
	Enables      int64 `json:"enables"`
	// OpsPer100 = 100 × Ops / Calls; DisablesPer100 = 100 × Disables / Calls;
	// KeysPerOp = Disables / DisablingOps.
	OpsPer100      float64 `json:"ops_per_100"`
	DisablesPer100 float64 `json:"disables_per_100"`
	KeysPerOp      float64 `json:"keys_per_op"`
	// FreedPerOp is ManageOp.Freed over the disabling ops: the tokens of the
	// outputs each call hides, less a placeholder per output;
	// FreedPerHide is Hide.Freed over the effective hides.
	FreedPerOp   Dist `json:"freed_per_op"`
	FreedPerHide Dist `json:"freed_per_hide"`
	// FillAtOp is ManageOp.Fill (prompt / window at the manage_context
	// call) over the ops of runs whose window is known.
	FillAtOp Dist `json:"fill_at_op"`
	// ShallowOps counts the shallow disabling ops (freeing fewer than
	// Options.ShallowTokens); ShallowShare = ShallowOps / DisablingOps.
	ShallowOps   int64   `json:"shallow_ops"`
	ShallowShare float64 `json:"shallow_share"`
	// ReEnableRate = Enables / Disables.
	ReEnableRate float64 `json:"reenable_rate"`
	// Thrashes counts the disables re-enabled within Options.ThrashWindow
	// calls (Hide.Thrash); ThrashShare = Thrashes / Disables.
	Thrashes    int64   `json:"thrashes"`
	ThrashShare float64 `json:"thrash_share"`
	// OverheadTokens = Σ CallTokens + StatusTokens over the ops: what the
	// calls add to the context; OverheadRent and CallPrompt are the sums of
	// the ops' fields, Saved of the hides' (freed × calls hidden).
	OverheadTokens int64 `json:"overhead_tokens"`
	OverheadRent   int64 `json:"overhead_rent"`
	CallPrompt     int64 `json:"call_prompt"`
	Saved          int64 `json:"saved"`
	// Net = Saved − OverheadRent − CallPrompt: prompt tokens the tool saved
	// net of its cost (negative: it cost more than it saved).
	// SavedPerCost = Saved / (OverheadRent + CallPrompt).
	Net          int64   `json:"net"`
	SavedPerCost float64 `json:"saved_per_cost"`
	// Age is Hide.Age (calls since the output arrived) over the hides of
	// known outputs; ByTool and ByClass split those hides by the output's
	// tool name and action class (count, and tokens freed).
	Age     Dist    `json:"age"`
	ByTool  []Share `json:"by_tool"`
	ByClass []Share `json:"by_class"`
	// Hidden counts the effective hides (known output, in the prompt when
	// disabled); Needed those whose output a call used while it was hidden
	// (Hide.Needed); NeededShare = Needed / Hidden.
	Hidden      int64   `json:"hidden"`
	Needed      int64   `json:"needed"`
	NeededShare float64 `json:"needed_share"`
}

// CompactionProfile pools the harness compactions of a set of runs.
type CompactionProfile struct {
	// Runs is the runs pooled, CompactedRuns those with a compaction, Calls
	// the model calls of all runs and Compactions their compactions;
	// Per100 = 100 × Compactions / Calls.
	Runs          int     `json:"runs"`
	CompactedRuns int     `json:"compacted_runs"`
	Calls         int64   `json:"calls"`
	Compactions   int64   `json:"compactions"`
	Per100        float64 `json:"per_100"`
	// ByOp splits the compactions by op kind (Tokens: Σ Dropped).
	ByOp []Share `json:"by_op"`
	// FireCall is Compaction.Call (the first call after it) and
	// FirePosition Turn / the run's calls, over all compactions.
	FireCall     Dist `json:"fire_call"`
	FirePosition Dist `json:"fire_position"`
	// Fill is Compaction.Fill over compactions with a known window and
	// Before; Before over compactions with a Before, LoggedBefore counting
	// those whose Before the harness logged (TokensFromOp).
	Fill         Dist  `json:"fill"`
	Before       Dist  `json:"tokens_before"`
	LoggedBefore int64 `json:"logged_before"`
	// Dropped and DroppedShare are over compactions with Before and After.
	Dropped      Dist `json:"dropped"`
	DroppedShare Dist `json:"dropped_share"`
	// ReadTargets, RereadTargets, Rereads and RereadTokens sum the
	// compactions' fields; RereadShare = RereadTargets / ReadTargets;
	// WithRereads counts compactions followed by at least one re-read and
	// WithRereadsShare = WithRereads / Compactions.
	ReadTargets      int64   `json:"read_targets"`
	RereadTargets    int64   `json:"reread_targets"`
	Rereads          int64   `json:"rereads"`
	RereadTokens     int64   `json:"reread_tokens"`
	RereadShare      float64 `json:"reread_share"`
	WithRereads      int64   `json:"with_rereads"`
	WithRereadsShare float64 `json:"with_rereads_share"`
}

// Group is the pooled behaviour of a set of runs.
type Group struct {
	// Key names the group: the model family for ByFamily, the key function's
	// value for GroupBy, empty for Summarize.
	Key        string            `json:"key"`
	Runs       int               `json:"runs"`
	Manage     ManageProfile     `json:"manage"`
	Compaction CompactionProfile `json:"compaction"`
	// Class labels Manage with Classify and the Options' Thresholds.
	Class Classification `json:"class"`
}

// Summarize pools runs into one Group (Key "").
func Summarize(runs []RunProfile, o *Options) Group {
	th := o.resolve().th
	g := Group{Runs: len(runs), Manage: manageProfile(runs), Compaction: compactionProfile(runs)}
	g.Class = Classify(g.Manage, &th)
	return g
}

// ByFamily pools runs per model family (RunProfile.ModelFamily), sorted by
// family, and labels each family's manage_context behaviour.
func ByFamily(runs []RunProfile, o *Options) []Group {
	return GroupBy(runs, func(r *RunProfile) string { return r.ModelFamily }, o)
}

// GroupBy pools runs per key(run), sorted by key. A group does not depend
// on the order of runs: each is summarized in run id order (its sums of
// fractions would otherwise differ in the last bits between a pass over a
// store and its profiles read back in another order).
func GroupBy(runs []RunProfile, key func(*RunProfile) string, o *Options) []Group {
	parts := map[string][]RunProfile{}
	for i := range runs {
		k := key(&runs[i])
		parts[k] = append(parts[k], runs[i])
	}
	out := make([]Group, 0, len(parts))
	for k, rs := range parts {
		slices.SortStableFunc(rs, func(a, b RunProfile) int { return cmp.Compare(a.RunID, b.RunID) })
		g := Summarize(rs, o)
		g.Key = k
		out = append(out, g)
	}
	slices.SortFunc(out, func(a, b Group) int { return cmp.Compare(a.Key, b.Key) })
	return out
}

func manageProfile(runs []RunProfile) ManageProfile {
	p := ManageProfile{Runs: len(runs)}
	var freedOp, freedHide, fill, age []float64
	toolN, toolT := map[string]int64{}, map[string]int64{}
	classN, classT := map[string]int64{}, map[string]int64{}
	for i := range runs {
		r := &runs[i]
		m := &r.Manage
		if !m.HasTool {
			continue
		}
		p.ToolRuns++
		p.Calls += r.Calls
		p.Enables += m.Enables
		for _, op := range m.Ops {
			p.Ops++
			if len(op.Disabled) > 0 {
				p.DisablingOps++
				freedOp = append(freedOp, float64(op.Freed))
				if op.Shallow {
					p.ShallowOps++
				}
			}
			if r.Window > 0 {
				fill = append(fill, op.Fill)
			}
			p.OverheadTokens += op.CallTokens + op.StatusTokens
			p.OverheadRent += op.OverheadRent
			p.CallPrompt += op.CallPrompt
		}
		for _, h := range m.Hides {
			p.Disables++
			p.Saved += h.Saved
			if h.Thrash {
				p.Thrashes++
			}
			if !h.Found {
				continue
			}
			age = append(age, float64(h.Age))
			toolN[h.Tool]++
			toolT[h.Tool] += h.Freed
			classN[h.Class]++
			classT[h.Class] += h.Freed
			if h.Redundant {
				continue
			}
			p.Hidden++
			freedHide = append(freedHide, float64(h.Freed))
			if h.Needed {
				p.Needed++
			}
		}
	}
	p.OpsPer100 = 100 * ratio(float64(p.Ops), float64(p.Calls))
	p.DisablesPer100 = 100 * ratio(float64(p.Disables), float64(p.Calls))
	p.KeysPerOp = ratio(float64(p.Disables), float64(p.DisablingOps))
	p.FreedPerOp, p.FreedPerHide, p.FillAtOp, p.Age = NewDist(freedOp), NewDist(freedHide), NewDist(fill), NewDist(age)
	p.ShallowShare = ratio(float64(p.ShallowOps), float64(p.DisablingOps))
	p.ReEnableRate = ratio(float64(p.Enables), float64(p.Disables))
	p.ThrashShare = ratio(float64(p.Thrashes), float64(p.Disables))
	p.Net = p.Saved - p.OverheadRent - p.CallPrompt
	p.SavedPerCost = ratio(float64(p.Saved), float64(p.OverheadRent+p.CallPrompt))
	p.ByTool, p.ByClass = shares(toolN, toolT), shares(classN, classT)
	p.NeededShare = ratio(float64(p.Needed), float64(p.Hidden))
	return p
}

func compactionProfile(runs []RunProfile) CompactionProfile {
	p := CompactionProfile{Runs: len(runs)}
	var fire, pos, fill, before, dropped, share []float64
	opN, opT := map[string]int64{}, map[string]int64{}
	for i := range runs {
		r := &runs[i]
		p.Calls += r.Calls
		if len(r.Compactions) > 0 {
			p.CompactedRuns++
		}
		for _, c := range r.Compactions {
			p.Compactions++
			opN[string(c.Op)]++
			opT[string(c.Op)] += c.Dropped
			fire = append(fire, float64(c.Call))
			pos = append(pos, ratio(float64(c.Call), float64(r.Calls)))
			if c.BeforeSource != "" {
				before = append(before, float64(c.Before))
				if r.Window > 0 {
					fill = append(fill, c.Fill)
				}
				if c.BeforeSource == TokensFromOp {
					p.LoggedBefore++
				}
				if c.AfterSource != "" {
					dropped = append(dropped, float64(c.Dropped))
					share = append(share, c.DroppedShare)
				}
			}
			p.ReadTargets += int64(c.ReadTargets)
			p.RereadTargets += int64(c.RereadTargets)
			p.Rereads += int64(c.Rereads)
			p.RereadTokens += c.RereadTokens
			if c.Rereads > 0 {
				p.WithRereads++
			}
		}
	}
	p.Per100 = 100 * ratio(float64(p.Compactions), float64(p.Calls))
	p.ByOp = shares(opN, opT)
	p.FireCall, p.FirePosition, p.Fill, p.Before = NewDist(fire), NewDist(pos), NewDist(fill), NewDist(before)
	p.Dropped, p.DroppedShare = NewDist(dropped), NewDist(share)
	p.RereadShare = ratio(float64(p.RereadTargets), float64(p.ReadTargets))
	p.WithRereadsShare = ratio(float64(p.WithRereads), float64(p.Compactions))
	return p
}
