package behavior

import "github.com/trajmine/trajmine/schema"

// TokensFromOp is the source of a compaction's Before or After taken from the
// op's own tokens_before / tokens_after (what the harness logged). The other
// sources are diagnose's: diagnose.PromptLogged (a call's logged input) and
// diagnose.PromptEstimated (its estimated prompt).
const TokensFromOp = "op"

// Compaction is one harness compaction: a compaction, summary or
// continuation context op, together with the other such ops of the same turn
// that follow it (Claude Code logs a compaction op for the boundary and a
// summary op for the summary that replaces the history; they are one
// compaction). Everything before it leaves the context (diagnose.NewVisibility
// step 3).
type Compaction struct {
	// Call is the ops' turn (the events' call index): the first call after the compaction. Seq, Op
	// and Trigger are the first op's; Ops counts the ops merged.
	Call    int64         `json:"call"`
	Seq     int64         `json:"seq"`
	Op      schema.OpKind `json:"op"`
	Trigger string        `json:"trigger"` // as logged: "auto", "manual", …
	Ops     int           `json:"ops"`
	// Before is the context size when it fired: the first tokens_before
	// logged by its ops (BeforeSource TokensFromOp), else the prompt of call Turn−1
	// (BeforeSource "logged" or "estimated", diagnose.Occupancy); 0 with an
	// empty source when neither exists.
	Before       int64  `json:"tokens_before"`
	BeforeSource string `json:"before_source"`
	// After is the context size after it: the last tokens_after logged by
	// its ops, else the prompt of call Turn; 0 with an empty source when
	// neither exists.
	After       int64  `json:"tokens_after"`
	AfterSource string `json:"after_source"`
	// Fill = Before / window (0 when the window is unknown).
	Fill float64 `json:"fill"`
	// Dropped = max(0, Before − After) and DroppedShare = Dropped / Before,
	// when both are known (else 0).
	Dropped      int64   `json:"dropped"`
	DroppedShare float64 `json:"dropped_share"`
	// ReadTargets is the distinct targets read (Options.IsRead) before the
	// compaction; RereadTargets how many of them calls Turn … Turn+N−1 read
	// again (N = Options.RereadWindow), Rereads those read calls and
	// RereadTokens the est_tokens of their results.
	ReadTargets   int   `json:"read_targets"`
	RereadTargets int   `json:"reread_targets"`
	Rereads       int   `json:"rereads"`
	RereadTokens  int64 `json:"reread_tokens"`
}

// isCompaction reports whether op is a harness compaction.
func isCompaction(op schema.ContextOp) bool {
	return op.Op == schema.OpCompaction || op.Op == schema.OpSummary || op.Op == schema.OpContinuation
}

// compactions returns one Compaction per turn with compaction, summary or
// continuation ops, in seq order.
func (rc *runCtx) compactions() []Compaction {
	var merged []*Compaction
	var before, after []*int64
	for _, op := range rc.ops {
		if !isCompaction(op) {
			continue
		}
		if n := len(merged); n > 0 && merged[n-1].Call == op.Turn {
			merged[n-1].Ops++
			if before[n-1] == nil {
				before[n-1] = op.TokensBefore
			}
			if op.TokensAfter != nil {
				after[n-1] = op.TokensAfter
			}
			continue
		}
		merged = append(merged, &Compaction{Call: op.Turn, Seq: op.Seq, Op: op.Op, Trigger: op.Trigger, Ops: 1})
		before, after = append(before, op.TokensBefore), append(after, op.TokensAfter)
	}
	out := make([]Compaction, 0, len(merged))
	for i, cp := range merged {
		c := *cp
		if before[i] != nil {
			c.Before, c.BeforeSource = *before[i], TokensFromOp
		} else if p, src, _ := rc.prompt(c.Call - 1); src != "" {
			c.Before, c.BeforeSource = p, string(src)
		}
		if after[i] != nil {
			c.After, c.AfterSource = *after[i], TokensFromOp
		} else if p, src, _ := rc.prompt(c.Call); src != "" {
			c.After, c.AfterSource = p, string(src)
		}
		if rc.window > 0 {
			c.Fill = float64(c.Before) / float64(rc.window)
		}
		if c.BeforeSource != "" && c.AfterSource != "" {
			c.Dropped = max(0, c.Before-c.After)
			c.DroppedShare = ratio(float64(c.Dropped), float64(c.Before))
		}
		rc.rereads(&c)
		out = append(out, c)
	}
	return out
}

// rereads fills the re-read figures of c.
func (rc *runCtx) rereads(c *Compaction) {
	before := map[string]bool{}
	again := map[string]bool{}
	last := c.Call + rc.opt.reread - 1
	for i := range rc.events {
		e := &rc.events[i]
		if e.Kind != schema.KindToolCall || e.Target == "" || !rc.opt.isRead(e.ToolName, e.Args) {
			continue
		}
		switch {
		case e.Seq < c.Seq:
			before[e.Target] = true
		case e.Turn >= c.Call && e.Turn <= last && before[e.Target]:
			c.Rereads++
			again[e.Target] = true
			if res, ok := rc.result(e); ok {
				c.RereadTokens += res.EstTokens
			}
		}
	}
	c.ReadTargets, c.RereadTargets = len(before), len(again)
}
