package mining

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/trajmine/trajmine/schema"
)

// Mode says how a tool call is named as an activity.
type Mode int

// Activity naming modes. ModeTool is the zero value.
const (
	// ModeTool names a call by its tool name as logged ("Read", "read_file").
	ModeTool Mode = iota
	// ModeClass names a call by its action class (read, search, edit,
	// execute, test, context, submit, other) from Options.Class.
	ModeClass
	// ModeToolTarget names a call by its tool and the kind of its target:
	// "tool:kind", see TargetKind.
	ModeToolTarget
)

var modeNames = [...]string{ModeTool: "tool", ModeClass: "class", ModeToolTarget: "tool-target"}

// String returns the mode's name: tool, class or tool-target.
func (m Mode) String() string {
	if m < 0 || int(m) >= len(modeNames) {
		return fmt.Sprintf("Mode(%d)", int(m))
	}
	return modeNames[m]
}

// ParseMode returns the mode named s (tool, class or tool-target).
func ParseMode(s string) (Mode, error) {
	for i, n := range modeNames {
		if n == s {
			return Mode(i), nil
		}
	}
	return ModeTool, fmt.Errorf("unknown activity mode %q (want class, tool or tool-target)", s)
}

// ClassFunc returns the action class of one tool call: harness is the run's
// harness, tool the tool name and args its canonical JSON arguments
// (schema.Event.Args). It must be deterministic and safe to call again with
// the same arguments (results are memoised).
type ClassFunc func(harness, tool, args string) string

// Options configure a Builder. A nil *Options means ModeTool.
type Options struct {
	// Mode names the tool-call activities.
	Mode Mode
	// Class classifies tool calls. ModeClass requires it; ModeToolTarget uses
	// it for targets that are command lines or queries (see TargetKind).
	Class ClassFunc
	// StoredClasses: a tool call whose Event.ActionClass is set has that
	// class, and Class is asked only for the others. Set it when Class is
	// the classifier that gave the stored classes (the default rules:
	// trajmine's store reads ActionClass back only from runs it classified).
	StoredClasses bool
}

// Names of the artificial start and end nodes of graphs and models.
const (
	Start = "▶"
	End   = "■"
)

// OpActivity returns the activity name of a context operation:
// "context.disable" and "context.enable" for DTOC's manage_context, the
// operation's own name otherwise ("compaction", "summary", "masking",
// "truncation", "continuation").
func OpActivity(op schema.OpKind) string {
	switch op {
	case schema.OpDisable, schema.OpEnable:
		return "context." + string(op)
	}
	return string(op)
}

// Event is one activity instance of a case.
type Event struct {
	Activity int32 // index into Log.Activities
	Seq      int64 // seq of the event that carried it (schema.Event.Seq, schema.ContextOp.Seq)
	TS       int64 // microseconds since the Unix epoch; 0 when not logged
	Tokens   int64 // see Builder.AddRun
}

// Case is one run with its events in order.
type Case struct {
	ID          string
	ModelFamily string
	Harness     string
	Format      string // source format
	Resolved    *bool
	Start       int64   // run start, microseconds since the Unix epoch; 0 when unknown
	Events      []Event // in order: timestamp, then seq
}

// Log is an event log: cases (a Builder's log: in case id order, whatever
// order the runs were added in) over an interned activity table. Logs made
// by Filter and Select share their parent's activity table and events.
type Log struct {
	// Activities maps an activity id (Event.Activity) to its name, in order
	// of first appearance.
	Activities []string
	Cases      []Case
	ids        map[string]int32
}

// Events returns the number of events over all cases.
func (l *Log) Events() int {
	n := 0
	for i := range l.Cases {
		n += len(l.Cases[i].Events)
	}
	return n
}

// ActivityID returns the id of the named activity.
func (l *Log) ActivityID(name string) (int32, bool) {
	id, ok := l.ids[name]
	return id, ok
}

// Trace returns the activity names of case i, in order.
func (l *Log) Trace(i int) []string {
	evs := l.Cases[i].Events
	out := make([]string, len(evs))
	for k, e := range evs {
		out[k] = l.Activities[e.Activity]
	}
	return out
}

// NewLog builds a log from traces given as activity names, one case per
// trace with ids "c1", "c2", … and no timestamps or tokens (Seq is the
// 0-based position): for tests, examples and small hand-made logs.
func NewLog(traces ...[]string) *Log {
	l := &Log{ids: map[string]int32{}}
	for i, tr := range traces {
		c := Case{ID: fmt.Sprintf("c%d", i+1)}
		for k, a := range tr {
			c.Events = append(c.Events, Event{Activity: l.intern(a), Seq: int64(k)})
		}
		l.Cases = append(l.Cases, c)
	}
	return l
}

func (l *Log) intern(name string) int32 {
	if id, ok := l.ids[name]; ok {
		return id
	}
	id := int32(len(l.Activities))
	name = strings.Clone(name)
	l.Activities = append(l.Activities, name)
	l.ids[name] = id
	return id
}

// Builder builds a Log run by run.
type Builder struct {
	o      Options
	log    *Log
	events []Event // all cases' events, in AddRun order; cut into cases by Log
	spans  [][2]int
	memo   map[classKey]string
	strs   map[string]string
	// per-run scratch, reused
	calls  []int // index into the run's events of each tool call, seq order
	tokens []int64
	keys   map[string]int64
	callOf map[string]int
	queue  []int
	tsBy   map[int64]int64
	pend   []Event
}

type classKey struct{ harness, tool, args string }

const (
	memoMaxArgs    = 1024
	memoMaxEntries = 1 << 17
)

// NewBuilder returns a Builder. ModeClass without Options.Class is an error.
func NewBuilder(o *Options) (*Builder, error) {
	if o == nil {
		o = &Options{}
	}
	if o.Mode < ModeTool || o.Mode > ModeToolTarget {
		return nil, fmt.Errorf("new builder: unknown mode %d", int(o.Mode))
	}
	if o.Mode == ModeClass && o.Class == nil {
		return nil, fmt.Errorf("new builder: mode class needs a classifier (Options.Class)")
	}
	return &Builder{
		o:      *o,
		log:    &Log{ids: map[string]int32{}},
		memo:   map[classKey]string{},
		strs:   map[string]string{},
		keys:   map[string]int64{},
		callOf: map[string]int{},
		tsBy:   map[int64]int64{},
	}, nil
}

// AddRun adds one run as a case. events are the run's records of kinds
// tool_call and tool_result (others are used only for the timestamps of
// context ops at their seq, then ignored); ops are its context_ops rows.
// Both may be in any order and may be reused by the caller after AddRun
// returns: the Builder copies what it keeps.
//
//  1. Each tool result's est_tokens is added to its call: the call with the
//     same call_id, else (no call id) the oldest call of the run that has no
//     result yet.
//  2. Context ops are grouped by (seq, op): each group is one activity named
//     by OpActivity, at that seq, with the timestamp of the run's event at
//     that seq when it has one. A tool call at the same seq as op groups
//     (DTOC's manage_context) is replaced by them, in the order of
//     schema.OpKinds. Tokens of a disable or enable group: the est_tokens of
//     the tool outputs it hides or restores (by tool_key, the outputs' keys
//     in this run); of another op: tokens_before − tokens_after summed over
//     rows that log both (the tokens it freed), else 0.
//  3. Every other tool call is one activity named by the Builder's mode.
//     Tokens: the call's own est_tokens plus its results' (what the step
//     added to the context).
//  4. Events are ordered by timestamp, then seq. An event without a
//     timestamp takes, for ordering only, the last timestamp before it in
//     seq order (the first timestamp of the run when none is before), so it
//     stays next to its neighbours; its Event.TS stays 0.
func (b *Builder) AddRun(run *schema.Run, events []schema.Event, ops []schema.ContextOp) error {
	if run == nil {
		return fmt.Errorf("add run: nil run")
	}
	l := b.log
	c := Case{
		ID:          strings.Clone(run.RunID),
		ModelFamily: b.internString(run.ModelFamily),
		Harness:     b.internString(run.Harness),
		Format:      b.internString(run.SourceFormat),
	}
	if run.Resolved != nil {
		v := *run.Resolved
		c.Resolved = &v
	}
	if run.StartedAt != nil {
		c.Start = run.StartedAt.UnixMicro()
	}

	if !sort.SliceIsSorted(events, func(i, j int) bool { return events[i].Seq < events[j].Seq }) {
		events = slices.Clone(events)
		slices.SortStableFunc(events, func(a, b schema.Event) int { return cmp.Compare(a.Seq, b.Seq) })
	}
	// 1. results to calls
	b.calls, b.tokens, b.queue = b.calls[:0], b.tokens[:0], b.queue[:0]
	clear(b.keys)
	clear(b.callOf)
	clear(b.tsBy)
	for i := range events {
		e := &events[i]
		if e.TS != nil && len(ops) > 0 {
			b.tsBy[e.Seq] = e.TS.UnixMicro()
		}
		switch e.Kind {
		case schema.KindToolCall:
			k := len(b.calls)
			b.calls = append(b.calls, i)
			b.tokens = append(b.tokens, e.EstTokens)
			if e.CallID != "" {
				b.callOf[e.CallID] = k
			} else {
				b.queue = append(b.queue, k)
			}
		case schema.KindToolResult:
			if e.ToolKey != "" && len(ops) > 0 {
				b.keys[e.ToolKey] += e.EstTokens
			}
			if e.CallID != "" {
				if k, ok := b.callOf[e.CallID]; ok {
					b.tokens[k] += e.EstTokens
				}
			} else if len(b.queue) > 0 {
				b.tokens[b.queue[0]] += e.EstTokens
				b.queue = b.queue[1:]
			}
		}
	}
	// 2. op groups
	b.pend = b.pend[:0]
	if len(ops) > 0 {
		ops = slices.Clone(ops)
		slices.SortStableFunc(ops, func(x, y schema.ContextOp) int {
			if c := cmp.Compare(x.Seq, y.Seq); c != 0 {
				return c
			}
			return cmp.Compare(opRank(x.Op), opRank(y.Op))
		})
		for i := 0; i < len(ops); {
			j := i
			var tok int64
			for ; j < len(ops) && ops[j].Seq == ops[i].Seq && ops[j].Op == ops[i].Op; j++ {
				o := &ops[j]
				switch o.Op {
				case schema.OpDisable, schema.OpEnable:
					tok += b.keys[o.ToolKey]
				default:
					if o.TokensBefore != nil && o.TokensAfter != nil {
						tok += *o.TokensBefore - *o.TokensAfter
					}
				}
			}
			b.pend = append(b.pend, Event{Activity: l.intern(OpActivity(ops[i].Op)), Seq: ops[i].Seq, TS: b.tsBy[ops[i].Seq], Tokens: tok})
			i = j
		}
	}
	// 3. tool calls, merged with the op groups by seq
	b.reserve(len(b.calls) + len(b.pend))
	start := len(b.events)
	oi := 0
	for k, i := range b.calls {
		e := &events[i]
		for oi < len(b.pend) && b.pend[oi].Seq < e.Seq {
			b.events = append(b.events, b.pend[oi])
			oi++
		}
		if oi < len(b.pend) && b.pend[oi].Seq == e.Seq {
			continue // replaced by its ops
		}
		var ts int64
		if e.TS != nil {
			ts = e.TS.UnixMicro()
		}
		b.events = append(b.events, Event{Activity: b.activity(run.Harness, e), Seq: e.Seq, TS: ts, Tokens: b.tokens[k]})
	}
	b.events = append(b.events, b.pend[oi:]...)
	// 4. order by timestamp, then seq
	orderEvents(b.events[start:])
	b.spans = append(b.spans, [2]int{start, len(b.events)})
	l.Cases = append(l.Cases, c)
	return nil
}

// reserve makes room for n more events, doubling the capacity (append
// grows large slices by only 1.25×: a million events were copied many times).
func (b *Builder) reserve(n int) {
	if cap(b.events)-len(b.events) >= n {
		return
	}
	evs := make([]Event, len(b.events), max(2*cap(b.events), len(b.events)+n, 1024))
	copy(evs, b.events)
	b.events = evs
}

// orderEvents sorts evs (in seq order) by timestamp, then seq, filling
// missing timestamps forward for ordering.
func orderEvents(evs []Event) {
	var first int64
	sorted := true
	var last int64
	for _, e := range evs {
		if e.TS == 0 {
			continue
		}
		if first == 0 {
			first = e.TS
		}
		if e.TS < last {
			sorted = false
		}
		last = e.TS
	}
	if sorted {
		return // timestamps (where present) are already in seq order
	}
	type keyed struct {
		key int64
		ev  Event
	}
	ks := make([]keyed, len(evs))
	cur := first
	for i, e := range evs {
		if e.TS != 0 {
			cur = e.TS
		}
		ks[i] = keyed{cur, e}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int {
		if c := cmp.Compare(a.key, b.key); c != 0 {
			return c
		}
		return cmp.Compare(a.ev.Seq, b.ev.Seq)
	})
	for i := range ks {
		evs[i] = ks[i].ev
	}
}

func opRank(op schema.OpKind) int64 {
	for i, k := range schema.OpKinds {
		if k == op {
			return int64(i)
		}
	}
	return int64(len(schema.OpKinds))
}

// internString shares one copy of the repeated per-case strings.
func (b *Builder) internString(s string) string {
	if v, ok := b.strs[s]; ok {
		return v
	}
	v := strings.Clone(s)
	b.strs[v] = v
	return v
}

func (b *Builder) activity(harness string, e *schema.Event) int32 {
	tool := e.ToolName
	if tool == "" {
		tool = "(none)"
	}
	l := b.log
	switch b.o.Mode {
	case ModeClass:
		return l.intern(b.class(harness, e))
	case ModeToolTarget:
		kind := TargetKind(e.Target)
		if kind == kindCommand && b.o.Class != nil {
			return b.intern2(tool, ":", b.class(harness, e))
		}
		if kind == "" {
			return l.intern(tool)
		}
		return b.intern2(tool, ":", kind)
	}
	return l.intern(tool)
}

func (b *Builder) intern2(a, sep, c string) int32 {
	// the common case (already interned) without building the string on the heap
	var buf [128]byte
	n := len(a) + len(sep) + len(c)
	if n <= len(buf) {
		s := append(append(append(buf[:0], a...), sep...), c...)
		if id, ok := b.log.ids[string(s)]; ok {
			return id
		}
	}
	return b.log.intern(a + sep + c)
}

func (b *Builder) class(harness string, e *schema.Event) string {
	if b.o.StoredClasses && e.ActionClass != "" {
		return e.ActionClass
	}
	tool, args := e.ToolName, e.Args
	k := classKey{harness, tool, args}
	if len(args) <= memoMaxArgs {
		if name, ok := b.memo[k]; ok {
			return name
		}
	}
	name := b.o.Class(harness, tool, args)
	if name == "" {
		name = "other"
	}
	if len(args) <= memoMaxArgs && len(b.memo) < memoMaxEntries {
		name = b.internString(name)
		b.memo[classKey{b.internString(harness), b.internString(tool), strings.Clone(args)}] = name
	}
	return name
}

// Log returns the log built so far, its cases in case id order. The
// Builder must not be used after.
func (b *Builder) Log() *Log {
	l := b.log
	evs := slices.Clip(b.events)
	for i, sp := range b.spans {
		l.Cases[i].Events = evs[sp[0]:sp[1]:sp[1]]
	}
	// case id order: what is mined (fitness lists, float sums) is then the
	// same whichever reader added the runs in whichever order
	if !slices.IsSortedFunc(l.Cases, cmpCaseID) {
		slices.SortStableFunc(l.Cases, cmpCaseID)
	}
	b.log, b.events, b.spans = nil, nil, nil
	return l
}

func cmpCaseID(a, b Case) int { return strings.Compare(a.ID, b.ID) }

// Target kinds returned by TargetKind besides file extensions.
const (
	kindCommand = "cmd"
)

// targetChars classes the bytes TargetKind looks for.
var targetChars = func() (t [256]uint8) {
	for _, c := range []byte(" \t\n\r|&;<>$`'\"()=") {
		t[c] |= charShell
	}
	for _, c := range []byte("/.") {
		t[c] |= charPath
	}
	for _, c := range []byte("*?[") {
		t[c] |= charGlob
	}
	return t
}()

const (
	charShell = 1 << iota // a shell metacharacter or blank: a command
	charPath              // '/' or '.': a path
	charGlob              // a glob metacharacter
)

// TargetKind returns the kind of a tool call's normalised target
// (schema.Event.Target), the suffix of ModeToolTarget activities:
//
//   - "" for an empty target (the activity is the tool name alone);
//   - "url" for http:// and https:// targets;
//   - "cmd" for a command line or a query: a target with white space or any
//     of | & ; < > $ ` ' " ( ) =, or with neither a slash nor a dot (a bare
//     word such as "ls" or "pytest"). In ModeToolTarget with a classifier,
//     the activity then takes the call's action class instead, e.g.
//     "Bash:test", "Grep:search";
//   - for a path: "glob" when it has * ? or [; "dir" when it ends in / or
//     its last element is . or ..; else its extension, lower-cased
//     (".go", ".py", ".gitignore") when that is 1–12 letters, digits, _, +
//     or -; else "file" (no or an unusual extension: "Makefile" in a
//     directory, "/usr/bin/env").
func TargetKind(target string) string {
	t := strings.TrimSpace(target)
	if t == "" {
		return ""
	}
	if strings.HasPrefix(t, "http://") || strings.HasPrefix(t, "https://") {
		return "url"
	}
	var seen uint8 // the targetChars classes present in t, in one pass
	for k := 0; k < len(t); k++ {
		seen |= targetChars[t[k]]
	}
	if seen&charShell != 0 || seen&charPath == 0 {
		return kindCommand
	}
	if seen&charGlob != 0 {
		return "glob"
	}
	if strings.HasSuffix(t, "/") {
		return "dir"
	}
	base := t
	if i := strings.LastIndexByte(t, '/'); i >= 0 {
		base = t[i+1:]
	}
	if base == "." || base == ".." {
		return "dir"
	}
	i := strings.LastIndexByte(base, '.')
	if i < 0 || i == len(base)-1 {
		return "file"
	}
	ext := base[i+1:]
	if len(ext) > 12 {
		return "file"
	}
	for k := 0; k < len(ext); k++ {
		c := ext[k]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '+' || c == '-') {
			return "file"
		}
	}
	return "." + strings.ToLower(ext)
}
