package eventlog

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/trajmine/trajmine/schema"
)

// OCEL object types.
const (
	ObjRun        = "run"         // one per run
	ObjToolOutput = "tool_output" // one per tool result (DTOC key, else call id) or key a context op names
	ObjFile       = "file"        // a file or directory path a tool acted on
	ObjCommand    = "command"     // a shell command
	ObjURL        = "url"
	ObjSearch     = "search" // a search pattern or query (with " @ path" when scoped)
	ObjTarget     = "target" // a target of no recognised kind
)

// WriteOCEL writes the runs of src to w as one OCEL 2.0 JSON log
// (ocel-standard.org): the top-level arrays objectTypes, eventTypes, objects
// and events.
//
// Objects (ids are composites of escaped parts, see idPart; stable for the
// same input):
//   - run "run:<run>": the run's attributes (as the XES trace's, see runAttrs);
//   - tool_output "output:<run>:<tool_key>": one per tool result, keyed like
//     the tool_outputs table (the DTOC key, else the call id, else
//     "seq<seq>"), with tool, tool_key, call_id, chars, est_tokens,
//     is_error, seq and turn of its result; also one per key a context op
//     names that no result has (no attributes), so every relationship
//     resolves. Related to its run ("run") and its target ("target");
//   - targets "<type>:<run>:<digest>" of type file, command, url, search or
//     target (see targetKind), digest = first 16 hex digits of the SHA-256 of
//     the target text; attribute value = the text; related to the run.
//     Targets are per run: the same path in two runs is two workspaces.
//
// Object attribute values hold from the start: their time is
// 1970-01-01T00:00:00Z, the OCEL convention for static values.
//
// Ids are unique within the log as long as run ids are (after clean), as
// store.Scan guarantees. Input that breaks the schema invariants still gives
// unique ids: an event whose seq is not larger than its predecessor's gets
// "~<index>" appended, as does a second op group whose id is taken.
//
// Events, in walk order per run (see walk):
//   - one per schema event, id "event:<run>:<seq>", type = its activity
//     (Options.Activity; the event type is the activity, as in XES), with the
//     attributes of eventAttrs. Related to the run ("run"); a tool call to
//     the output its result produced ("produces", matched by call id: the
//     first result after the call with that call id) and its target
//     ("target"); a tool result to its output ("returns") and target.
//   - one per group of context-op rows with the same seq and op kind (one
//     manage_context call disabling three keys is one event), id
//     "op:<run>:<seq>:<op>", type = its activity (Options.OpActivity of the
//     group's first row), with op, seq, turn, trigger, n_outputs (distinct
//     keys), tokens_before and tokens_after (sums over the rows, when every
//     row has the figure) and text (first detail, under TextLimit). Related
//     to the run ("run") and to EVERY tool output a key of the group names:
//     "hides" (disable), "restores" (enable), "masks" (masking), "truncates"
//     (truncation), "affects" (others). A compaction, summary or continuation
//     without keys relates to its run only.
//
// Event and object types declare exactly the attributes their records carry
// (the union over the log, sorted by name), with OCEL types string, integer,
// float, boolean and time.
//
// Attribute values are JSON strings (integers in decimal, booleans
// true/false, times as below), as the official OCEL 2.0 JSON schema
// requires; readers convert them by the declared types.
//
// Time: OCEL requires every event to have one. An event with a logged time
// has it, in UTC to the microsecond with an explicit offset
// (2025-01-02T03:04:05.000000+00:00). One without is given an estimate,
// flagged with the boolean attribute time_estimated=true (Stats.Untimed counts
// them), from the run's events in seq order:
//
//  1. p = the nearest earlier (or same-seq) event with a time:
//     time(p) + (seq − seq(p)) µs;
//  2. else f = the run's first event with a time: time(f) − (seq(f) − seq) µs;
//  3. else the run's started_at + seq µs;
//  4. else 1970-01-01T00:00:00Z + seq µs.
//
// So estimates keep the log's order and sit within microseconds of a real
// time when the run has any. A context op group takes the time of the event
// with its seq (estimated when that has none).
//
// Streaming: WriteOCEL holds one run's objects and index maps at a time,
// plus the set of event and object types. Because the type declarations come
// first in the file but are known only at the end, the events and objects
// arrays are spilled to two temporary files in Options.TempDir and copied to
// w once src is done; both are removed before WriteOCEL returns. Texts go
// through clean, as in XES, then JSON escaping.
func WriteOCEL(ctx context.Context, w io.Writer, src Source, o *Options) (st *Stats, err error) {
	dir := ""
	if o != nil {
		dir = o.TempDir
	}
	evF, err := os.CreateTemp(dir, "trajmine-ocel-events-*.json")
	if err != nil {
		return &Stats{}, fmt.Errorf("write ocel: %w", err)
	}
	defer removeTemp(evF)
	objF, err := os.CreateTemp(dir, "trajmine-ocel-objects-*.json")
	if err != nil {
		return &Stats{}, fmt.Errorf("write ocel: %w", err)
	}
	defer removeTemp(objF)

	x := &ocelWriter{
		ev:       &jsonArray{w: bufio.NewWriterSize(evF, 1<<16)},
		obj:      &jsonArray{w: bufio.NewWriterSize(objF, 1<<16)},
		activity: o.activity(),
		opAct:    o.opActivity(),
		text:     o.textLimit(),
		evTypes:  map[string]map[string]string{},
		objTypes: map[string]map[string]string{},
		outIdx:   map[string]int{},
		tgtIdx:   map[string]int{},
		callRes:  map[string][]int{},
		opIDs:    map[string]int{},
	}
	err = src(func(r *RunRecords) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		x.run(r)
		return cmp.Or(x.ev.err, x.obj.err)
	})
	if err == nil {
		err = x.finish(w, evF, objF)
	}
	if err != nil {
		return &x.st, fmt.Errorf("write ocel: %w", err)
	}
	return &x.st, nil
}

func removeTemp(f *os.File) {
	f.Close()
	os.Remove(f.Name())
}

type ocelWriter struct {
	ev, obj  *jsonArray
	activity ActivityFunc
	opAct    OpActivityFunc
	text     int
	st       Stats
	evTypes  map[string]map[string]string // event type → attribute → OCEL type
	objTypes map[string]map[string]string // object type → attribute → OCEL type

	// per run, reused
	runObj  string
	runPart string // the run id, cleaned and escaped for ids
	outputs []ocelObject
	outIdx  map[string]int   // tool key → index in outputs
	targets []ocelObject     // in order of first sight
	tgtIdx  map[string]int   // target text → index in targets
	callRes map[string][]int // call id → indices (into the run's events) of results with it, seq order
	opIDs   map[string]int   // op event id → times used in this run
	ops     []schema.ContextOp
	a       attrs
	rels    []rel
	line    []byte // the record being written
	id      []byte // the id being built

	// time anchors of the current run
	first, last *schema.Event // first event with a time; latest event with a time so far
	startedAt   *time.Time
}

type rel struct{ id, qualifier string }

// ocelObject is a tool output or target object of the current run.
type ocelObject struct {
	id, typ string
	value   string // a target's text
	target  int    // an output's target: index into targets, -1 for none
	result  int    // an output's result: index into the run's events, -1 for none
}

func (x *ocelWriter) run(r *RunRecords) {
	x.st.Runs++
	x.runPart = idPart.Replace(clean(r.Run.RunID, 0))
	x.runObj = "run:" + x.runPart
	x.outputs, x.targets = x.outputs[:0], x.targets[:0]
	clear(x.outIdx)
	clear(x.tgtIdx)
	clear(x.callRes)
	clear(x.opIDs)
	x.first, x.last, x.startedAt = nil, nil, r.Run.StartedAt

	// Pass 1: outputs from results, call → result links, the first timed event.
	for i := range r.Events {
		e := &r.Events[i]
		if e.TS != nil && x.first == nil {
			x.first = e
		}
		if e.Kind != schema.KindToolResult {
			continue
		}
		k := x.output(e.OutputKey())
		if x.outputs[k].result < 0 {
			x.outputs[k].result = i
		}
		if e.CallID != "" {
			x.callRes[e.CallID] = append(x.callRes[e.CallID], i)
		}
	}

	// Ops grouped by (seq, op): sorted copy, stable.
	x.ops = append(x.ops[:0], r.Ops...)
	slices.SortStableFunc(x.ops, func(a, b schema.ContextOp) int {
		return cmp.Or(cmp.Compare(a.Seq, b.Seq), cmp.Compare(a.Op, b.Op))
	})

	// Pass 2: events and op groups in log order.
	j := 0
	for i := range r.Events {
		e := &r.Events[i]
		for j < len(x.ops) && x.ops[j].Seq < e.Seq {
			j = x.opGroup(r, j, nil)
		}
		if e.TS != nil {
			x.last = e
		}
		x.event(r, i)
		if i+1 < len(r.Events) && r.Events[i+1].Seq == e.Seq {
			continue
		}
		for j < len(x.ops) && x.ops[j].Seq == e.Seq {
			j = x.opGroup(r, j, e)
		}
	}
	for j < len(x.ops) {
		j = x.opGroup(r, j, nil)
	}

	// Objects: the run, its outputs, its targets.
	x.a = x.a[:0]
	runAttrs(&x.a, &r.Run)
	x.object(x.runObj, ObjRun, x.a, nil)
	for _, out := range x.outputs {
		rels := append(x.rels[:0], rel{x.runObj, "run"})
		if out.target >= 0 {
			rels = append(rels, rel{x.targets[out.target].id, "target"})
		}
		x.a = x.a[:0]
		if out.result >= 0 {
			outputAttrs(&x.a, &r.Events[out.result])
		}
		x.object(out.id, ObjToolOutput, x.a, rels)
	}
	for _, t := range x.targets {
		x.a = append(x.a[:0], attr{typ: tString, key: "value", s: t.value})
		x.object(t.id, t.typ, x.a, append(x.rels[:0], rel{x.runObj, "run"}))
	}
}

// outputAttrs adds a tool output object's attributes, from its result e.
func outputAttrs(a *attrs, e *schema.Event) {
	a.str("tool_key", clean(e.OutputKey(), 0))
	a.strIf("tool", clean(e.ToolName, 0))
	a.strIf("call_id", clean(e.CallID, 0))
	a.int("chars", e.Chars)
	a.int("est_tokens", e.EstTokens)
	a.bool("is_error", e.IsError)
	a.intPtr("exit_code", e.ExitCode)
	a.int("seq", e.Seq)
	a.int("turn", e.Turn)
}

// output returns the index of the output object with tool key key, adding
// one (without attributes) if the run has none yet.
//
// Keys are compared after clean, so two keys that differ only in bytes clean
// drops are one object (their ids would be equal).
func (x *ocelWriter) output(key string) int {
	key = clean(key, 0)
	if k, ok := x.outIdx[key]; ok {
		return k
	}
	x.outputs = append(x.outputs, ocelObject{id: "output:" + x.runPart + ":" + idPart.Replace(key), typ: ObjToolOutput, target: -1, result: -1})
	x.outIdx[key] = len(x.outputs) - 1
	return len(x.outputs) - 1
}

// target returns the index of the target object for e's target, adding it
// (typed by targetKind of e, the first event naming it) if new.
func (x *ocelWriter) target(e *schema.Event) int {
	if k, ok := x.tgtIdx[e.Target]; ok {
		return k
	}
	typ := targetKind(e)
	x.targets = append(x.targets, ocelObject{id: typ + ":" + x.runPart + ":" + digest(e.Target), typ: typ, value: clean(e.Target, 0), target: -1, result: -1})
	x.tgtIdx[e.Target] = len(x.targets) - 1
	return len(x.targets) - 1
}

// timeOf is the OCEL time of a record with seq and logged time ts, and
// whether it is estimated (see WriteOCEL for the rules).
func (x *ocelWriter) timeOf(seq int64, ts *time.Time) (time.Time, bool) {
	if ts != nil {
		return *ts, false
	}
	var t time.Time
	switch {
	case x.last != nil:
		t = x.last.TS.Add(time.Duration(seq-x.last.Seq) * time.Microsecond)
	case x.first != nil:
		t = x.first.TS.Add(-time.Duration(x.first.Seq-seq) * time.Microsecond)
	case x.startedAt != nil:
		t = x.startedAt.Add(time.Duration(seq) * time.Microsecond)
	default:
		t = epoch.Add(time.Duration(seq) * time.Microsecond)
	}
	return t, true
}

func (x *ocelWriter) event(r *RunRecords, i int) {
	e := &r.Events[i]
	act := x.activity(&r.Run, e)
	if act == "" {
		x.st.Dropped++
		return
	}
	x.st.Events++
	x.a = x.a[:0]
	eventAttrs(&x.a, e, x.text)
	tm, est := x.timeOf(e.Seq, e.TS)
	if est {
		x.a.bool("time_estimated", true)
		x.st.Untimed++
	}
	x.rels = append(x.rels[:0], rel{x.runObj, "run"})
	tgt := -1
	if e.Target != "" && (e.Kind == schema.KindToolCall || e.Kind == schema.KindToolResult) {
		tgt = x.target(e)
		x.rels = append(x.rels, rel{x.targets[tgt].id, "target"})
	}
	switch e.Kind {
	case schema.KindToolCall:
		if res := x.resultOf(r, e); res >= 0 {
			k := x.output(r.Events[res].OutputKey())
			x.rels = append(x.rels, rel{x.outputs[k].id, "produces"})
			if x.outputs[k].target < 0 {
				x.outputs[k].target = tgt
			}
		}
	case schema.KindToolResult:
		k := x.output(e.OutputKey())
		x.rels = append(x.rels, rel{x.outputs[k].id, "returns"})
		if x.outputs[k].target < 0 {
			x.outputs[k].target = tgt
		}
	}
	x.id = strconv.AppendInt(append(append(append(x.id[:0], "event:"...), x.runPart...), ':'), e.Seq, 10)
	if i > 0 && e.Seq <= r.Events[i-1].Seq { // seq not increasing (invalid input): keep ids unique
		x.id = strconv.AppendInt(append(x.id, '~'), int64(i), 10)
	}
	x.writeEvent(x.id, clean(act, 0), tm, x.a, x.rels)
}

// resultOf is the index of the result of call e (the first result after it
// with its call id, each result matched once), or -1.
func (x *ocelWriter) resultOf(r *RunRecords, e *schema.Event) int {
	if e.CallID == "" {
		return -1
	}
	list := x.callRes[e.CallID]
	for n, i := range list {
		if r.Events[i].Seq > e.Seq {
			x.callRes[e.CallID] = list[n+1:]
			return i
		}
	}
	return -1
}

// opQualifier is the qualifier of the relation from an op event to an output.
func opQualifier(op schema.OpKind) string {
	switch op {
	case schema.OpDisable:
		return "hides"
	case schema.OpEnable:
		return "restores"
	case schema.OpMasking:
		return "masks"
	case schema.OpTruncation:
		return "truncates"
	}
	return "affects"
}

// opGroup writes the op rows x.ops[j:k] that share seq and op kind as one
// event and returns k. carrier is the event with their seq, if any.
func (x *ocelWriter) opGroup(r *RunRecords, j int, carrier *schema.Event) int {
	first := &x.ops[j]
	k := j + 1
	for k < len(x.ops) && x.ops[k].Seq == first.Seq && x.ops[k].Op == first.Op {
		k++
	}
	group := x.ops[j:k]
	act := x.opAct(&r.Run, first)
	if act == "" {
		x.st.Dropped += int64(len(group))
		return k
	}
	x.st.Ops++
	x.a = x.a[:0]
	x.a.str("kind", "op")
	x.a.str("op", clean(string(first.Op), 0))
	x.a.int("seq", first.Seq)
	x.a.int("turn", first.Turn)
	var before, after int64
	haveBefore, haveAfter := true, true
	trigger, detail := "", ""
	x.rels = append(x.rels[:0], rel{x.runObj, "run"})
	q := opQualifier(first.Op)
	keys := 0
	for g := range group {
		c := &group[g]
		trigger, detail = cmp.Or(trigger, c.Trigger), cmp.Or(detail, c.Detail)
		if c.TokensBefore != nil {
			before += *c.TokensBefore
		} else {
			haveBefore = false
		}
		if c.TokensAfter != nil {
			after += *c.TokensAfter
		} else {
			haveAfter = false
		}
		if c.ToolKey == "" {
			continue
		}
		id := x.outputs[x.output(c.ToolKey)].id
		if !slices.ContainsFunc(x.rels, func(r rel) bool { return r.id == id }) {
			x.rels = append(x.rels, rel{id, q})
			keys++
		}
	}
	if keys > 0 {
		x.a.int("n_outputs", int64(keys))
	}
	if haveBefore {
		x.a.int("tokens_before", before)
	}
	if haveAfter {
		x.a.int("tokens_after", after)
	}
	x.a.strIf("trigger", clean(trigger, 0))
	if x.text > 0 {
		x.a.strIf("text", clean(detail, x.text))
	}
	var ts *time.Time
	if carrier != nil {
		ts = carrier.TS
	}
	tm, est := x.timeOf(first.Seq, ts)
	if est {
		x.a.bool("time_estimated", true)
		x.st.Untimed++
	}
	x.id = strconv.AppendInt(append(append(append(x.id[:0], "op:"...), x.runPart...), ':'), first.Seq, 10)
	x.id = append(append(x.id, ':'), idPart.Replace(clean(string(first.Op), 0))...)
	if n := x.opIDs[string(x.id)]; n > 0 { // op kinds that clean to the same text (invalid input)
		x.opIDs[string(x.id)] = n + 1
		x.id = strconv.AppendInt(append(x.id, '~'), int64(n), 10)
	} else {
		x.opIDs[string(x.id)] = 1
	}
	x.writeEvent(x.id, clean(act, 0), tm, x.a, x.rels)
	return k
}

// ocelType maps an attribute type to its OCEL name.
func ocelType(t string) string {
	switch t {
	case tInt:
		return "integer"
	case tDate:
		return "time"
	}
	return t // string, float, boolean
}

// declare records that records of type typ carry the attributes a.
func declare(types map[string]map[string]string, typ string, a attrs) {
	m := types[typ]
	if m == nil {
		m = map[string]string{}
		types[typ] = m
	}
	for i := range a {
		if _, ok := m[a[i].key]; !ok {
			m[a[i].key] = ocelType(a[i].typ)
		}
	}
}

// writeEvent writes one event line:
// {"id":…,"type":…,"time":…,"attributes":[{"name":…,"value":…}…],"relationships":[{"objectId":…,"qualifier":…}…]}
func (x *ocelWriter) writeEvent(id []byte, typ string, tm time.Time, a attrs, rels []rel) {
	a.sort()
	declare(x.evTypes, typ, a)
	b := appendIDType(x.line[:0], id, typ)
	b = append(b, `,"time":"`...)
	b = append(tm.UTC().AppendFormat(b, ocelTime), '"')
	b = appendAttrsRels(b, a, "", rels)
	x.line = b
	x.ev.add(b)
}

// object writes one object line:
// {"id":…,"type":…,"attributes":[{"name":…,"value":…,"time":…}…],"relationships":[…]}
func (x *ocelWriter) object(id, typ string, a attrs, rels []rel) {
	x.st.Objects++
	a.sort()
	declare(x.objTypes, typ, a)
	b := appendIDType(x.line[:0], id, typ)
	b = appendAttrsRels(b, a, `,"time":"`+staticTime+`"`, rels)
	x.line = b
	x.obj.add(b)
}

// appendIDType opens an event or object line: {"id":…,"type":….
func appendIDType[T string | []byte](b []byte, id T, typ string) []byte {
	b = append(b, `{"id":`...)
	b = appendJSONString(b, id)
	b = append(b, `,"type":`...)
	return appendJSONString(b, typ)
}

// appendAttrsRels closes an event or object line:
// ,"attributes":[{"name":…,"value":…<attrTail>}…],"relationships":[…]}
// (attrTail: an object attribute's "time" member, "" for an event's).
func appendAttrsRels(b []byte, a attrs, attrTail string, rels []rel) []byte {
	b = appendJoined(append(b, `,"attributes":[`...), a, ",", func(b []byte, at attr) []byte {
		b = appendJSONString(append(b, `{"name":`...), at.key)
		b = appendJSONValue(append(b, `,"value":`...), &at)
		return append(append(b, attrTail...), '}')
	})
	b = appendJoined(append(b, `],"relationships":[`...), rels, ",", func(b []byte, r rel) []byte {
		b = appendJSONString(append(b, `{"objectId":`...), r.id)
		b = appendJSONString(append(b, `,"qualifier":`...), r.qualifier)
		return append(b, '}')
	})
	return append(b, "]}"...)
}

// appendJoined appends elem's encoding of each of xs, sep between them.
func appendJoined[T any](b []byte, xs []T, sep string, elem func(b []byte, x T) []byte) []byte {
	for i, x := range xs {
		if i > 0 {
			b = append(b, sep...)
		}
		b = elem(b, x)
	}
	return b
}

// finish writes the document to w: the type declarations, then the spilled
// objects and events arrays.
func (x *ocelWriter) finish(w io.Writer, evF, objF *os.File) error {
	if err := cmp.Or(x.ev.w.Flush(), x.obj.w.Flush()); err != nil {
		return err
	}
	cw := &countWriter{w: w}
	bw := bufio.NewWriterSize(cw, 1<<16)
	bw.WriteString("{\n\"objectTypes\": ")
	bw.Write(typeDecls(x.objTypes))
	bw.WriteString(",\n\"eventTypes\": ")
	bw.Write(typeDecls(x.evTypes))
	bw.WriteString(",\n\"objects\": [")
	if err := copyFile(bw, objF); err != nil {
		return err
	}
	bw.WriteString("\n],\n\"events\": [")
	if err := copyFile(bw, evF); err != nil {
		return err
	}
	bw.WriteString("\n]\n}\n")
	err := bw.Flush()
	x.st.Bytes = cw.n
	return err
}

func copyFile(w io.Writer, f *os.File) error {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err := io.Copy(w, f)
	return err
}

// typeDecls renders type declarations, types and attributes sorted by name:
// [{"name":…,"attributes":[{"name":…,"type":…}…]}…]
func typeDecls(types map[string]map[string]string) []byte {
	names := make([]string, 0, len(types))
	for n := range types {
		names = append(names, n)
	}
	slices.Sort(names)
	b := appendJoined([]byte("["), names, ",", func(b []byte, n string) []byte {
		b = appendJSONString(append(b, "\n  {\"name\": "...), n)
		attrNames := make([]string, 0, len(types[n]))
		for a := range types[n] {
			attrNames = append(attrNames, a)
		}
		slices.Sort(attrNames)
		b = appendJoined(append(b, ", \"attributes\": ["...), attrNames, ", ", func(b []byte, a string) []byte {
			b = appendJSONString(append(b, `{"name": `...), a)
			b = appendJSONString(append(b, `, "type": `...), types[n][a])
			return append(b, '}')
		})
		return append(b, "]}"...)
	})
	if len(names) > 0 {
		b = append(b, '\n')
	}
	return append(b, ']')
}

// jsonArray writes the elements of a JSON array, one per line, separated by
// commas (the brackets are written by finish).
type jsonArray struct {
	w   *bufio.Writer
	n   int
	err error
}

func (a *jsonArray) add(elem []byte) {
	if a.err != nil {
		return
	}
	if a.n > 0 {
		a.w.WriteByte(',')
	}
	a.w.WriteByte('\n')
	_, a.err = a.w.Write(elem)
	a.n++
}

// staticTime is the time of every object attribute value: 1970-01-01
// (UTC), the OCEL 2.0 convention for a value that holds from the start.
const staticTime = "1970-01-01T00:00:00Z"

// appendJSONValue appends the value of a as a JSON string (the official
// schema types every attribute value as a string).
func appendJSONValue(b []byte, a *attr) []byte {
	if a.typ == tString {
		return appendJSONString(b, a.s)
	}
	b = append(b, '"')
	return append(a.appendValue(b, ocelTime), '"')
}

// jsonShortEscape is the letter of an ASCII character's two-character
// escape in appendJSONString (\n for a newline), 0 for one without.
var jsonShortEscape = [utf8.RuneSelf]byte{'"': '"', '\\': '\\', '\n': 'n', '\r': 'r', '\t': 't'}

// appendJSONString appends s as a JSON string: quote and backslash escaped,
// control characters as \uXXXX (tab, newline, carriage return as \t \n \r),
// invalid UTF-8 as \ufffd.
func appendJSONString[T string | []byte](b []byte, s T) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			if e := jsonShortEscape[c]; e != 0 {
				b = append(b, '\\', e)
			} else {
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, w := utf8.DecodeRuneInString(string(s[i:]))
		if r == utf8.RuneError && w == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += w
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// Argument names ingest.Target reads, by the kind of target they give, in
// its order of precedence.
var (
	searchArgs  = []string{"pattern", "query", "regex", "q", "search", "search_term"}
	pathArgs    = []string{"file_path", "filePath", "path", "notebook_path", "absolute_path", "file", "filename", "target_file", "dir_path", "directory"}
	commandArgs = []string{"command", "cmd", "script", "commands", "input"}
	urlArgs     = []string{"url", "uri"}
)

// targetKind is the object type of e's target:
//
//  1. from the call's JSON arguments, in ingest.Target's precedence: a
//     non-empty search argument → search; a path argument → file; a command
//     argument (string or array) → command; a url/uri → url;
//  2. without usable arguments (e.g. a tool result), from the text: "://" →
//     url; " @ " → search; a leading "/", "./", "../" or "~", or a single
//     word with "/" → file; several words → command; else target.
func targetKind(e *schema.Event) string {
	if e.Args != "" {
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(e.Args), &m) == nil {
			has := func(keys []string, arrays bool) bool {
				for _, k := range keys {
					v := strings.TrimSpace(string(m[k]))
					if (len(v) > 2 && v[0] == '"') || (arrays && len(v) > 2 && v[0] == '[') {
						return true
					}
				}
				return false
			}
			switch {
			case has(searchArgs, false):
				return ObjSearch
			case has(pathArgs, false):
				return ObjFile
			case has(commandArgs, true):
				return ObjCommand
			case has(urlArgs, false):
				return ObjURL
			}
		}
	}
	t := e.Target
	switch {
	case strings.Contains(t, "://"):
		return ObjURL
	case strings.Contains(t, " @ "):
		return ObjSearch
	case strings.HasPrefix(t, "/") || strings.HasPrefix(t, "./") || strings.HasPrefix(t, "../") || strings.HasPrefix(t, "~"):
		if strings.ContainsAny(t, " \t\n") {
			return ObjCommand
		}
		return ObjFile
	case strings.ContainsAny(t, " \t\n"):
		return ObjCommand
	case strings.Contains(t, "/"):
		return ObjFile
	}
	return ObjTarget
}
