package behavior

import (
	"cmp"
	"slices"

	"github.com/trajmine/trajmine/counterfactual"
	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/schema"
)

// ProfileVersion numbers what Run answers. Bump it with any change that
// changes some RunProfile of the same records and options (its code,
// diagnose's windows and occupancy, or counterfactual.Uses, which it reads:
// 2 for UsesVersion 2): trajmine ingest stores
// every run's profile under a fingerprint holding this number (table
// run_profiles) and readers trust only their own fingerprint's rows.
// analysis.TestProfileVersion pins the profiles of the ingest fixtures to it.
// 3: the stored JSON names a model call "call" (turn, output_turn → call,
// output_call), so rows of version 2 are derived again.
const ProfileVersion = 3

// RunProfile is one run's context-management behaviour.
type RunProfile struct {
	RunID        string `json:"run_id"`
	Model        string `json:"model"`
	ModelFamily  string `json:"model_family"`
	Harness      string `json:"harness"`
	SourceFormat string `json:"source_format"`
	// Window is the context window used for fill figures (0 = unknown) and
	// WindowSource where it came from (diagnose.Window's sources).
	Window       int64  `json:"window_tokens"`
	WindowSource string `json:"window_source"`
	// Calls is the run's model calls: run.NTurns, else the last call seen
	// in its events plus one.
	Calls       int64        `json:"calls"`
	Manage      ManageRun    `json:"manage"`
	Compactions []Compaction `json:"compactions"`
}

// Run profiles one run from its records: events in seq order (sorted by
// seq if they are not), its usage rows and its context ops. Records of
// other runs must not be passed. It is pure and deterministic.
func Run(run schema.Run, events []schema.Event, usage []schema.Usage, ops []schema.ContextOp, o *Options) RunProfile {
	opt := o.resolve()
	if !slices.IsSortedFunc(events, bySeq) {
		events = slices.Clone(events)
		slices.SortStableFunc(events, bySeq)
	}
	ops = slices.Clone(ops)
	slices.SortStableFunc(ops, func(a, b schema.ContextOp) int { return cmp.Compare(a.Seq, b.Seq) })

	window, wsrc := diagnose.Window(run, opt.window)
	occ := diagnose.Occupancy(run, events, usage, ops, window)
	v := diagnose.NewVisibility(events, ops, &diagnose.VisibilityOptions{NCalls: run.NTurns})
	rc := &runCtx{
		run: run, events: events, ops: ops, opt: opt, window: window, v: v,
		prompts: make(map[int64]diagnose.CallOccupancy, len(occ.Calls)),
	}
	for _, c := range occ.Calls {
		rc.prompts[c.Call] = c
	}
	for _, op := range ops {
		if diagnose.IsCut(op) {
			rc.cuts = append(rc.cuts, op)
		}
	}
	p := RunProfile{
		RunID: run.RunID, Model: run.Model, ModelFamily: run.ModelFamily, Harness: run.Harness,
		SourceFormat: run.SourceFormat, Window: window, WindowSource: wsrc,
		Calls: max(run.NTurns, v.LastCall+1),
	}
	p.Manage = rc.manage()
	p.Compactions = rc.compactions()
	return p
}

func bySeq(a, b schema.Event) int { return cmp.Compare(a.Seq, b.Seq) }

// runCtx is what the analyses of one run share.
type runCtx struct {
	run     schema.Run
	events  []schema.Event
	ops     []schema.ContextOp // by seq
	opt     resolved
	window  int64
	v       *diagnose.Visibility
	prompts map[int64]diagnose.CallOccupancy
	cuts    []schema.ContextOp // ops that remove every older output, by seq

	callIdx map[string]int     // call_id → index of its tool_call event (set by manage)
	uses    map[string][]int64 // tool key → calls that used the output, ascending (lazy)
	usesOK  bool
}

// prompt returns call turn's prompt tokens, their source and its fill
// (prompt / window; 0 when the window is unknown).
func (rc *runCtx) prompt(turn int64) (tokens int64, src diagnose.PromptSource, fill float64) {
	c, ok := rc.prompts[turn]
	if !ok {
		return 0, "", 0
	}
	if rc.window > 0 {
		fill = float64(c.Prompt) / float64(rc.window)
	}
	return c.Prompt, c.Source, fill
}

// bound returns the last call that can carry something that entered the
// context at seq: the run's last call, or the call before the first cut
// (compaction, summary, continuation, key-less masking or truncation) after
// seq, as in diagnose.NewVisibility step 3.
func (rc *runCtx) bound(seq int64) int64 {
	last := rc.v.LastCall
	for _, c := range rc.cuts {
		if c.Seq > seq {
			return min(last, c.Turn-1)
		}
	}
	return last
}

// carried returns how many calls from call from on carry something that
// entered the context at seq and is never hidden: bound(seq) − from + 1,
// at least 0.
func (rc *runCtx) carried(from, seq int64) int64 {
	return max(0, rc.bound(seq)-from+1)
}

// usesOf returns the calls (ascending) that used the output with tool key
// key, by counterfactual.Uses over the run's events.
func (rc *runCtx) usesOf(key string) []int64 {
	if !rc.usesOK {
		rc.usesOK = true
		rc.uses = map[string][]int64{}
		uses := rc.opt.uses
		if uses == nil {
			uses = func() []counterfactual.Use { return counterfactual.Uses(rc.events) }
		}
		for _, u := range uses() {
			if u.Kind == counterfactual.UseEnable {
				continue // a re-enable is measured as such (Reenabled, Thrash), not as a need
			}
			k := rc.events[u.Output].OutputKey()
			rc.uses[k] = append(rc.uses[k], u.Call)
		}
	}
	return rc.uses[key]
}

// NeedsText reports whether Run reads the text of a run's events other
// than its system events (kind system), given the run's context ops: it
// does only through counterfactual.Uses (which later call used a hidden
// output), and only for a disable op. Without one, Run gives the same
// profile from events without text, but for ManageRun.HasTool, which is
// also true when a system event's text mentions manage_context.
func NeedsText(ops []schema.ContextOp) bool {
	for _, op := range ops {
		if op.Op == schema.OpDisable {
			return true
		}
	}
	return false
}

// Brief is all that Run reads of a run with no context ops and no
// manage_context tool call.
type Brief struct {
	// LastCall is the largest turn of the run's events and LastOutputCall
	// that of its assistant, reasoning and tool_call events (−1: none).
	LastCall, LastOutputCall int64
	// HasTool: a tool result carries a DTOC key (a tool_key that is neither
	// its call_id nor call_id#…), or a system event's text mentions
	// manage_context (ManageRun.HasTool's other sources).
	HasTool bool
}

// RunBrief is Run of a run with no context ops and no manage_context tool
// call, from its Brief alone (no events): the same profile, the same
// code (manage and compactions over no ops), without reading the events.
// For any other run its result is wrong: use Run.
func RunBrief(run schema.Run, b Brief, o *Options) RunProfile {
	opt := o.resolve()
	window, wsrc := diagnose.Window(run, opt.window)
	// diagnose.NewVisibility's LastCall
	last := b.LastOutputCall
	switch {
	case run.NTurns > 0:
		last = run.NTurns - 1
	case last < 0:
		last = b.LastCall
	}
	rc := &runCtx{run: run, opt: opt, window: window, v: &diagnose.Visibility{LastCall: last},
		prompts: map[int64]diagnose.CallOccupancy{}}
	p := RunProfile{
		RunID: run.RunID, Model: run.Model, ModelFamily: run.ModelFamily, Harness: run.Harness,
		SourceFormat: run.SourceFormat, Window: window, WindowSource: wsrc,
		Calls: max(run.NTurns, last+1),
	}
	p.Manage = rc.manage()
	p.Manage.HasTool = p.Manage.HasTool || b.HasTool
	p.Compactions = rc.compactions()
	return p
}
