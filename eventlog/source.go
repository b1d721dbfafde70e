package eventlog

import (
	"cmp"
	"slices"

	"github.com/trajmine/trajmine/schema"
)

// RunRecords is one run with its records, as the writers take it.
type RunRecords struct {
	Run    schema.Run
	Events []schema.Event     // seq order
	Ops    []schema.ContextOp // seq order (store order: seq, op, tool_key)
}

// Source streams runs to yield, one at a time, in a stable order (run_id
// order for store.Scan and Records). It stops at, and returns, the first
// non-nil error from yield. yield does not keep the *RunRecords or its
// slices, so a Source may reuse them for the next run.
//
// cmd adapts store.Scan with
//
//	src := func(yield func(*eventlog.RunRecords) error) error {
//		return st.Scan(ctx, store.ScanOptions{}, func(d *store.RunData) error {
//			return yield(&eventlog.RunRecords{Run: d.Run, Events: d.Events, Ops: d.Ops})
//		})
//	}
type Source func(yield func(*RunRecords) error) error

// Records is the Source over in-memory records (e.g. an ingest.MemSink's
// Runs, Events and ContextOps): runs in run_id order, each with its events
// sorted by seq and its ops by (seq, op, tool_key), the order store.Scan
// gives, so both paths export identical logs. Events and ops of run ids not
// in runs are left out. The input slices are not modified.
func Records(runs []schema.Run, events []schema.Event, ops []schema.ContextOp) Source {
	return func(yield func(*RunRecords) error) error {
		rs := slices.Clone(runs)
		slices.SortStableFunc(rs, func(a, b schema.Run) int { return cmp.Compare(a.RunID, b.RunID) })
		evBy := map[string][]schema.Event{}
		for _, e := range events {
			evBy[e.RunID] = append(evBy[e.RunID], e)
		}
		opBy := map[string][]schema.ContextOp{}
		for _, o := range ops {
			opBy[o.RunID] = append(opBy[o.RunID], o)
		}
		for i := range rs {
			ev := evBy[rs[i].RunID]
			slices.SortStableFunc(ev, func(a, b schema.Event) int { return cmp.Compare(a.Seq, b.Seq) })
			op := opBy[rs[i].RunID]
			slices.SortStableFunc(op, func(a, b schema.ContextOp) int {
				return cmp.Or(cmp.Compare(a.Seq, b.Seq), cmp.Compare(a.Op, b.Op), cmp.Compare(a.ToolKey, b.ToolKey))
			})
			if err := yield(&RunRecords{Run: rs[i], Events: ev, Ops: op}); err != nil {
				return err
			}
		}
		return nil
	}
}

// ActivityFunc names the activity of event e of run. An empty name leaves the
// event out of the log (and counts it in Stats.Dropped).
type ActivityFunc func(run *schema.Run, e *schema.Event) string

// OpActivityFunc names the activity of context op c of run. An empty name
// leaves the op out of the log.
type OpActivityFunc func(run *schema.Run, c *schema.ContextOp) string

// DefaultActivity is the tool name for tool calls and tool results that name
// their tool, else the event kind ("user", "assistant", "tool_call", …). A
// call and its result therefore share an activity; the "kind" attribute (and
// the XES classifier Activity_kind) tells them apart.
func DefaultActivity(_ *schema.Run, e *schema.Event) string {
	if (e.Kind == schema.KindToolCall || e.Kind == schema.KindToolResult) && e.ToolName != "" {
		return e.ToolName
	}
	return string(e.Kind)
}

// DefaultOpActivity is "context." followed by the op kind: context.disable,
// context.enable, context.compaction, context.summary, …
func DefaultOpActivity(_ *schema.Run, c *schema.ContextOp) string {
	return "context." + string(c.Op)
}

// Options configures the writers. A nil *Options means the defaults.
type Options struct {
	// Activity names events; nil means DefaultActivity.
	Activity ActivityFunc
	// OpActivity names context ops; nil means DefaultOpActivity.
	OpActivity OpActivityFunc
	// LogName is the XES log's concept:name; "" means "trajmine".
	LogName string
	// TextLimit, when positive, adds each event's text (an op's detail),
	// cut to its first TextLimit characters, as the string attribute "text".
	// Zero leaves texts out: they can be most of a log's size.
	TextLimit int
	// TempDir is where WriteOCEL spills its events and objects arrays while
	// it streams ("" means os.TempDir()).
	TempDir string
}

func (o *Options) activity() ActivityFunc {
	if o == nil || o.Activity == nil {
		return DefaultActivity
	}
	return o.Activity
}

func (o *Options) opActivity() OpActivityFunc {
	if o == nil || o.OpActivity == nil {
		return DefaultOpActivity
	}
	return o.OpActivity
}

func (o *Options) textLimit() int {
	if o == nil {
		return 0
	}
	return o.TextLimit
}

// Stats says what a writer wrote.
type Stats struct {
	Runs    int64 // traces (XES) / run objects (OCEL)
	Events  int64 // log events from schema events
	Ops     int64 // log events from context ops: one per row (XES), one per (seq, op) group (OCEL)
	Dropped int64 // events and op rows whose activity was ""
	// Untimed counts log events without a logged time: in XES they have no
	// time:timestamp; in OCEL their time is estimated (time_estimated=true).
	Untimed int64
	Objects int64 // OCEL objects (runs, tool outputs, targets); 0 for XES
	Bytes   int64 // bytes written to the writer
}

// step is one log event of a run in log order: a schema event or a context op.
type step struct {
	ev *schema.Event     // nil for an op
	op *schema.ContextOp // nil for an event
	// carrier is the event with the op's seq, if the run has one (the
	// manage_context call or compaction event the op was read from).
	carrier *schema.Event
}

// walk calls fn for each event and op of r in log order:
//
//  1. events in the order given (seq order);
//  2. each op right after the event with the same seq (its carrier), ops of
//     one seq in the order given;
//  3. an op whose seq has no event comes before the first event with a
//     larger seq (or at the end).
func walk(r *RunRecords, fn func(s step) error) error {
	j := 0
	for i := range r.Events {
		e := &r.Events[i]
		for j < len(r.Ops) && r.Ops[j].Seq < e.Seq {
			if err := fn(step{op: &r.Ops[j]}); err != nil {
				return err
			}
			j++
		}
		if err := fn(step{ev: e}); err != nil {
			return err
		}
		// Later events with the same seq (invalid input) still carry the ops.
		if i+1 < len(r.Events) && r.Events[i+1].Seq == e.Seq {
			continue
		}
		for j < len(r.Ops) && r.Ops[j].Seq == e.Seq {
			if err := fn(step{op: &r.Ops[j], carrier: e}); err != nil {
				return err
			}
			j++
		}
	}
	for ; j < len(r.Ops); j++ {
		if err := fn(step{op: &r.Ops[j]}); err != nil {
			return err
		}
	}
	return nil
}

// resource is the org:resource of an event: who produced it.
//
//	assistant, reasoning, tool_call → "model"; tool_result → "tool";
//	user → "user"; system → "system"; context_op, compaction, error and
//	anything else → "harness"; a context op → "model" when the model asked
//	for it (trigger manage_context), else "harness".
func resource(s step) string {
	if s.op != nil {
		if s.op.Trigger == "manage_context" {
			return "model"
		}
		return "harness"
	}
	switch s.ev.Kind {
	case schema.KindAssistant, schema.KindReasoning, schema.KindToolCall:
		return "model"
	case schema.KindToolResult:
		return "tool"
	case schema.KindUser:
		return "user"
	case schema.KindSystem:
		return "system"
	}
	return "harness"
}
