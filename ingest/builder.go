package ingest

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/actions"
	"github.com/trajmine/trajmine/schema"
)

// RunBuilder assembles one run from an importer's events. The importer sets
// descriptive fields on Run (model, harness, task, end reason …) and feeds
// events in log order; the builder does everything every format shares
// (see the package doc). Call Finish once at the end.
type RunBuilder struct {
	// Run holds the run's metadata; counts and totals are filled by Finish.
	Run schema.Run

	f        *File
	seq      int64
	calls    int64 // model calls begun
	callIdx  int64 // index of the current (latest) model call
	curCall  string
	explicit bool
	inOutput bool
	lastSeq  int64
	lastTurn int64
	usage    map[int64]*schema.Usage
	toolCall map[string]*callInfo
	keys     map[string]int
	models   map[string]int
	estTok   int64
	outputs  int64 // output events (what the model said or did)
	first    *time.Time
	last     *time.Time
	finished bool
	stated   *schema.Usage // run totals as the log itself states them
	lastLine int64         // line of the latest event, where usage problems are reported
	err      error         // a strict-mode reject, returned by Finish

	// the tool calls' action classes (classify): the harness they were
	// classified with, and whether it changed between two calls
	classified   bool
	classHarness string
	classMixed   bool
	mentions     bool // a system event's text contains manage_context

	inferFailures bool // the format's tool results may carry no failure flag (textFailureFormats)
}

type callInfo struct {
	name, target string
	turn         int64
}

// NewRun starts a run with the log's own id. The stored id may differ when
// another file already holds a run with that id (see Tx.ClaimRunID).
func (f *File) NewRun(id string) (*RunBuilder, error) {
	if err := f.begin(); err != nil {
		return nil, err
	}
	if id == "" {
		sha, err := f.hash()
		if err != nil {
			return nil, err
		}
		id = "run-" + sha[:min(12, len(sha))]
	}
	claimed, err := f.tx.ClaimRunID(strings.Clone(id)) // ids outlive the line they came from
	if err != nil {
		return nil, fmt.Errorf("claim run id %q: %w", id, err)
	}
	f.runs++
	return &RunBuilder{
		Run: schema.Run{
			RunID: claimed, SourceFormat: f.format, SourcePath: f.path, SourceSHA256: f.sha,
			EndReason: schema.EndUnknown, EndReasonSource: schema.SourceInferred,
		},
		f: f, callIdx: -1, lastSeq: -1, inferFailures: textFailureFormats[f.format],
		usage: map[int64]*schema.Usage{}, toolCall: map[string]*callInfo{},
		keys: map[string]int{}, models: map[string]int{},
	}, nil
}

// ID returns the run id under which records are stored.
func (b *RunBuilder) ID() string { return b.Run.RunID }

// Turns returns the number of model calls begun so far.
func (b *RunBuilder) Turns() int64 { return b.calls }

// Call marks that the following output events belong to the model call with
// this id (e.g. an API response id). A new id starts a new turn; repeating the
// current id continues it even after interleaved inputs. Importers whose logs
// have no call identity never call it: then each run of output events that
// follows an input begins a new call.
func (b *RunBuilder) Call(id string) {
	b.explicit = true
	if id == "" || id != b.curCall || b.calls == 0 {
		b.calls++
		b.callIdx = b.calls - 1
		b.curCall = id
	}
	b.inOutput = true
}

// NewCall begins a new model call unconditionally.
func (b *RunBuilder) NewCall() {
	b.explicit = true
	b.calls++
	b.callIdx = b.calls - 1
	b.curCall = ""
	b.inOutput = true
}

// SetUsage records the logged usage of the current model call (replacing
// an earlier value for the same call). Turn and RunID are filled in.
func (b *RunBuilder) SetUsage(u schema.Usage) {
	if b.calls == 0 { // usage before any output: it still is a model call
		// SetUsageAt counts the call; outputs that follow continue it, and
		// call detection stays as it was (automatic or explicit)
		b.callIdx, b.inOutput = 0, true
	}
	b.SetUsageAt(b.callIdx, u)
}

// SetUsageAt records the logged usage of model call turn. A negative count
// (input, output, cache read or write, reasoning: one rule for all) is set to
// 0 and recorded as a reject, naming the field and the logged value, at the
// line being read (File.Lines, lineReader), else at the latest event's;
// in strict mode Finish then fails the file.
func (b *RunBuilder) SetUsageAt(turn int64, u schema.Usage) {
	u.RunID, u.Turn = b.Run.RunID, turn
	u.Model, u.RequestID = strings.Clone(u.Model), strings.Clone(u.RequestID)
	b.nonNegative(&u, fmt.Sprintf("model call %d", turn+1))
	if u.InputTokens < u.CacheReadTokens+u.CacheWriteTokens {
		u.InputTokens = u.CacheReadTokens + u.CacheWriteTokens
	}
	if turn >= b.calls {
		b.calls = turn + 1
	}
	b.usage[turn] = &u
}

// Usage returns the usage recorded for turn, or nil.
func (b *RunBuilder) Usage(turn int64) *schema.Usage { return b.usage[turn] }

// Add appends one event. The builder sets RunID, Seq, Turn, Chars and
// EstTokens; for tool calls it canonicalises Args and derives Target; for tool
// results it links the call, unwraps DTOC envelopes, in formats whose results
// may carry no failure flag (textFailureFormats) marks one that has neither
// IsError nor an exit code failed when its text says so (ErrorRule), and
// emits the tool_outputs row; manage_context calls also emit context_ops rows.
func (b *RunBuilder) Add(e schema.Event) error { return b.add(e, false) }

// add is Add; textValid says the importer knows e.Text is valid UTF-8
// (the one-pass decode of its line made it: spanStr), so that it is not
// checked again.
func (b *RunBuilder) add(e schema.Event, textValid bool) error {
	if b.finished {
		return fmt.Errorf("run %s: event after Finish", b.Run.RunID)
	}
	e.RunID, e.Seq = b.Run.RunID, b.seq
	b.seq++
	if e.Line > 0 {
		b.lastLine = e.Line
	}
	if e.Kind.IsOutput() {
		b.outputs++
		if !b.explicit && !b.inOutput || b.calls == 0 {
			b.calls++
			b.callIdx = b.calls - 1
		}
		b.inOutput = true
		e.Turn = b.callIdx
	} else {
		if !b.explicit {
			b.inOutput = false
		}
		e.Turn = b.calls
	}
	if e.TS != nil {
		t := e.TS.UTC()
		e.TS = &t
		if b.first == nil || t.Before(*b.first) {
			b.first = &t
		}
		if b.last == nil || t.After(*b.last) {
			b.last = &t
		}
	}
	if !textValid && !utf8.ValidString(e.Text) {
		e.Text = strings.ToValidUTF8(e.Text, "\uFFFD")
	}
	textValid = true // e.Text is valid UTF-8 until it is set again below
	if e.Kind == schema.KindSystem && !b.mentions && strings.Contains(e.Text, "manage_context") {
		b.mentions = true
	}
	var ops []schema.ContextOp
	switch e.Kind {
	case schema.KindToolCall:
		if e.Args != "" {
			e.Args = CanonicalJSON([]byte(e.Args))
		}
		b.classify(&e)
		if e.Target == "" {
			e.Target = Target(e.ToolName, []byte(e.Args))
		}
		if e.Text == "" {
			e.Text, textValid = e.ToolName+" "+e.Args, false
		}
		if e.CallID != "" {
			// clone what outlives the line: decoders may return strings that
			// share the line's buffer, and keeping one would pin all of it
			b.toolCall[strings.Clone(e.CallID)] = &callInfo{name: strings.Clone(e.ToolName), target: strings.Clone(e.Target), turn: e.Turn}
		}
		if isManageContext(e.ToolName) {
			ops = manageContextOps(e)
		}
	case schema.KindToolResult:
		if c, ok := b.toolCall[e.CallID]; ok && e.CallID != "" {
			if e.ToolName == "" {
				e.ToolName = c.name
			}
			if e.Target == "" {
				e.Target = c.target
			}
		}
		if key, inner, ok := dtocEnvelope(e.Text); ok {
			// the model saw the envelope: its tokens are what the whole
			// text estimates to beyond the inner result's
			e.EnvelopeTokens = max(b.f.est.Count(e.Text)-b.f.est.Count(inner), 0)
			e.ToolKey, e.Text, textValid = key, inner, false
		}
		if b.inferFailures {
			inferFailure(&e)
		}
		if e.ToolKey == "" {
			e.ToolKey = e.CallID
		}
		if e.ToolKey == "" {
			e.ToolKey = "t" + strconv.FormatInt(e.Seq, 10)
		}
		if n := b.keys[e.ToolKey]; n > 0 {
			base := e.ToolKey
			for { // a key like "x#2" may also be the log's own
				n++
				e.ToolKey = base + "#" + strconv.Itoa(n)
				if b.keys[e.ToolKey] == 0 {
					break
				}
			}
			b.keys[strings.Clone(base)] = n
			b.keys[e.ToolKey] = 1
		} else {
			b.keys[strings.Clone(e.ToolKey)] = 1
		}
	}
	if textValid {
		e.Chars = int64(validRuneCount(e.Text))
	} else {
		e.Chars = int64(utf8.RuneCountInString(e.Text))
	}
	if c, ok := b.f.est.(CharsPerToken); ok {
		e.EstTokens = c.ofRunes(e.Chars) // the runes just counted
	} else {
		e.EstTokens = b.f.est.Count(e.Text)
	}
	b.estTok += e.EstTokens
	b.lastSeq, b.lastTurn = e.Seq, e.Turn
	var err error
	if rt, ok := b.f.tx.(repairTx); ok && textValid {
		err = rt.eventValidText(&e) // the text was checked above: not again
	} else {
		err = b.f.tx.Event(&e)
	}
	if err != nil {
		return err
	}
	b.f.events++
	if e.Kind == schema.KindToolResult {
		o := schema.ToolOutput{RunID: e.RunID, ToolKey: e.ToolKey, CallID: e.CallID, ToolName: e.ToolName,
			Target: e.Target, Turn: e.Turn, Seq: e.Seq, Chars: e.Chars, EstTokens: e.EstTokens, IsError: e.IsError}
		if err := b.f.tx.ToolOutput(&o); err != nil {
			return err
		}
	}
	for i := range ops {
		if err := b.f.tx.ContextOp(&ops[i]); err != nil {
			return err
		}
	}
	return nil
}

// Op records a context operation carried by the most recently added event
// (its seq and turn are used).
func (b *RunBuilder) Op(op schema.ContextOp) error {
	op.RunID, op.Seq, op.Turn = b.Run.RunID, max(b.lastSeq, 0), max(b.lastTurn, 0)
	return b.f.tx.ContextOp(&op)
}

// SetLoggedTotals records the run's token totals as the log itself states
// them (e.g. a final result message). Finish then reports, per field, the
// larger of these and the sum over the usage rows: some logs repeat
// start-of-response placeholders as each call's output tokens, and only their
// final totals are right. The usage rows stay as logged.
// Negative totals are set to 0 and rejected, as in SetUsageAt.
func (b *RunBuilder) SetLoggedTotals(u schema.Usage) {
	b.nonNegative(&u, "logged totals")
	b.stated = &u
}

// nonNegative sets each negative count of u (what names it in the reject)
// to 0 and records a reject per count, naming the field and the logged
// value, at the line being read (File.Lines, lineReader), else at the
// latest event's. In strict mode the reject's error is kept for Finish.
func (b *RunBuilder) nonNegative(u *schema.Usage, what string) {
	for _, c := range []struct {
		name string
		v    *int64
	}{
		{"input_tokens", &u.InputTokens}, {"output_tokens", &u.OutputTokens},
		{"cache_read_tokens", &u.CacheReadTokens}, {"cache_write_tokens", &u.CacheWriteTokens},
		{"reasoning_tokens", &u.ReasoningTokens},
	} {
		if *c.v >= 0 {
			continue
		}
		reason := fmt.Sprintf("run %s, %s: negative %s %d set to 0", b.Run.RunID, what, c.name, *c.v)
		*c.v = 0
		line := b.f.line // the usage's own line, in a line-by-line format
		if line == 0 {
			line = max(b.lastLine, 1)
		}
		if err := b.f.Reject(line, reason, nil); err != nil && b.err == nil {
			b.err = err
		}
	}
}

// SetEnd records an explicit end reason from the log.
func (b *RunBuilder) SetEnd(reason schema.EndReason, detail string) {
	b.Run.EndReason, b.Run.EndReasonSource, b.Run.EndReasonDetail = reason, schema.SourceExplicit, strings.Clone(detail)
}

// ClearEnd forgets an end reason recorded earlier: the log went on after it
// (e.g. the user carried on after an interruption).
func (b *RunBuilder) ClearEnd() {
	b.Run.EndReason, b.Run.EndReasonSource, b.Run.EndReasonDetail = schema.EndUnknown, schema.SourceInferred, ""
}

// NoteModel counts one use of model (for the run's dominant model when the
// log has no per-call usage).
func (b *RunBuilder) NoteModel(model string) {
	if model == "" {
		return
	}
	if _, ok := b.models[model]; !ok {
		model = strings.Clone(model)
	}
	b.models[model]++
}

// Finish emits the usage rows and the run row with totals:
// input/output/cache totals are sums over the per-call usage rows (or, per
// field, the log's own stated totals when larger: SetLoggedTotals); n_turns is
// the number of model calls; model is the most used model (ties: first name in
// sort order) unless the importer set one. A run with neither an output
// event nor a usage row (nothing of the model read) is stored all the same,
// and Options.Warn is told of it unless the file had rejects (which say
// what was lost).
func (b *RunBuilder) Finish() error {
	if b.finished {
		return nil
	}
	b.finished = true
	if b.err != nil {
		return b.err
	}
	r := &b.Run
	if b.outputs == 0 && len(b.usage) == 0 && b.f.rejects == 0 && b.f.warn != nil {
		// nothing of the model was read, and no reject says why: most
		// likely a file of another format that this one's detection
		// claimed (issue 30.10)
		b.f.warn(fmt.Errorf("%s: run %s: empty run (no model output, no usage read as %s)", b.f.path, r.RunID, b.f.format))
	}
	turns := make([]int64, 0, len(b.usage))
	for t := range b.usage {
		turns = append(turns, t)
	}
	slices.Sort(turns)
	for _, t := range turns {
		u := b.usage[t]
		if u.Model != "" {
			b.models[u.Model]++
		}
		r.InputTokens += u.InputTokens
		r.OutputTokens += u.OutputTokens
		r.CacheReadTokens += u.CacheReadTokens
		r.CacheWriteTokens += u.CacheWriteTokens
		r.ReasoningTokens += u.ReasoningTokens
		if u.Estimated {
			r.UsageEstimated = true
		} else {
			r.UsageCalls++
		}
		if err := b.f.tx.Usage(u); err != nil {
			return err
		}
	}
	if s := b.stated; s != nil {
		r.InputTokens = max(r.InputTokens, s.InputTokens)
		r.OutputTokens = max(r.OutputTokens, s.OutputTokens)
		r.CacheReadTokens = max(r.CacheReadTokens, s.CacheReadTokens)
		r.CacheWriteTokens = max(r.CacheWriteTokens, s.CacheWriteTokens)
		r.ReasoningTokens = max(r.ReasoningTokens, s.ReasoningTokens)
	}
	if len(b.usage) == 0 && b.calls > 0 {
		r.UsageEstimated = true
	}
	r.NTurns = b.calls
	if r.Model == "" {
		best := ""
		for m, n := range b.models {
			if best == "" || n > b.models[best] || n == b.models[best] && m < best {
				best = m
			}
		}
		r.Model = best
	}
	if r.ModelFamily == "" {
		r.ModelFamily = ModelFamily(r.Model)
	}
	if r.StartedAt == nil {
		r.StartedAt = b.first
	}
	if r.EndedAt == nil {
		r.EndedAt = b.last
	}
	r.EstTokens = b.estTok
	r.Estimator = b.f.est.Name()
	if r.EndReason == "" {
		r.EndReason, r.EndReasonSource = schema.EndUnknown, schema.SourceInferred
	}
	r.ClassifiedBy = ""
	if !b.classMixed && (!b.classified || validUTF8(r.Harness) == b.classHarness) {
		r.ClassifiedBy = actions.DefaultFingerprint()
	}
	mentions := b.mentions
	r.SystemMentionsManageContext = &mentions
	return b.f.tx.Run(r)
}

// classify sets a tool call's ActionClass by the default classifier
// (actions.Default), from the fields as the sink stores them (invalid
// UTF-8 repaired: repairTx runs after the builder), with the run's harness
// as the importer has set it so far. Finish keeps the classes (sets
// ClassifiedBy) only when every call was classified with the run's final
// harness: a reader classifies the calls of any other run again.
func (b *RunBuilder) classify(e *schema.Event) {
	cl, err := actions.Default()
	if err != nil || b.classMixed {
		return
	}
	h := validUTF8(b.Run.Harness)
	switch {
	case !b.classified:
		b.classified, b.classHarness = true, h
	case h != b.classHarness:
		b.classMixed = true
		return
	}
	c, _ := cl.Classify(h, validUTF8(e.ToolName), validUTF8(e.Args))
	e.ActionClass = c.String()
}

// validUTF8 is s as repairTx stores it.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

func isManageContext(name string) bool {
	return name == "manage_context" || strings.HasSuffix(name, "__manage_context")
}

// manageContextOps turns manage_context {"enable":[keys],"disable":[keys]}
// into one op per key (disable first, then enable, each in argument order).
func manageContextOps(e schema.Event) []schema.ContextOp {
	var args struct {
		Enable  []json.RawMessage `json:"enable"`
		Disable []json.RawMessage `json:"disable"`
	}
	if json.Unmarshal([]byte(e.Args), &args) != nil {
		return nil
	}
	var ops []schema.ContextOp
	add := func(op schema.OpKind, keys []json.RawMessage) {
		for _, k := range keys {
			key := scalarString(k)
			if key == "" {
				continue
			}
			ops = append(ops, schema.ContextOp{RunID: e.RunID, Seq: e.Seq, Turn: e.Turn, Op: op, ToolKey: key, Trigger: "manage_context"})
		}
	}
	add(schema.OpDisable, args.Disable)
	add(schema.OpEnable, args.Enable)
	return ops
}

// dtocEnvelope recognises a DTOC tool result
// {"tool_key": K, "tool_result": R, "estimated_tokens": N} and returns K and
// the inner result text (R itself when a string, else its JSON).
func dtocEnvelope(text string) (key, inner string, ok bool) {
	t := strings.TrimSpace(text)
	if len(t) < 2 || t[0] != '{' || !strings.Contains(t, `"tool_key"`) {
		return "", "", false
	}
	var env struct {
		ToolKey    json.RawMessage `json:"tool_key"`
		ToolResult json.RawMessage `json:"tool_result"`
	}
	if json.Unmarshal([]byte(t), &env) != nil || env.ToolKey == nil || env.ToolResult == nil {
		return "", "", false
	}
	key = scalarString(env.ToolKey)
	if key == "" {
		return "", "", false
	}
	var s string
	if json.Unmarshal(env.ToolResult, &s) == nil {
		return key, s, true
	}
	var buf bytes.Buffer
	if json.Compact(&buf, env.ToolResult) != nil {
		return key, string(env.ToolResult), true
	}
	return key, buf.String(), true
}
