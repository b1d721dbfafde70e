package eventlog

import (
	"bufio"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/trajmine/trajmine/schema"
)

// XES identifiers written in the log header.
const (
	// XESNamespace is the XES namespace, the log element's default namespace.
	XESNamespace = "http://www.xes-standard.org/"
	// XESVersion is the xes.version attribute: the standard's designation.
	XESVersion = "1849-2016"
)

// xesExtensions are the standard extensions the log uses, with the names,
// prefixes and URIs of IEEE 1849-2016 §7, in name order.
var xesExtensions = []struct{ name, prefix, uri string }{
	{"Concept", "concept", "http://www.xes-standard.org/concept.xesext"},
	{"Lifecycle", "lifecycle", "http://www.xes-standard.org/lifecycle.xesext"},
	{"Organizational", "org", "http://www.xes-standard.org/org.xesext"},
	{"Time", "time", "http://www.xes-standard.org/time.xesext"},
}

// Attribute types: the XES element names, which are also how the OCEL writer
// maps them (see ocelType).
const (
	tString = "string"
	tInt    = "int"
	tFloat  = "float"
	tBool   = "boolean"
	tDate   = "date"
)

// attr is one typed attribute of a trace, event or OCEL record. The value
// is s (string, float: preformatted), n (int; boolean as 0/1) or t (date),
// by typ, and is formatted when written (see appendValue).
type attr struct {
	typ, key, s string
	n           int64
	t           time.Time
}

type attrs []attr

func (a *attrs) str(key, val string) { *a = append(*a, attr{typ: tString, key: key, s: val}) }
func (a *attrs) strIf(key, val string) {
	if val != "" {
		a.str(key, val)
	}
}
func (a *attrs) int(key string, v int64) { *a = append(*a, attr{typ: tInt, key: key, n: v}) }
func (a *attrs) intPtr(key string, v *int64) {
	if v != nil {
		a.int(key, *v)
	}
}
func (a *attrs) bool(key string, v bool) {
	n := int64(0)
	if v {
		n = 1
	}
	*a = append(*a, attr{typ: tBool, key: key, n: n})
}
func (a *attrs) date(key string, t time.Time) { *a = append(*a, attr{typ: tDate, key: key, t: t}) }

// float adds a finite v ("INF" and "NaN" have no JSON or OCEL form); a
// non-finite value is left out.
func (a *attrs) float(key string, v float64) {
	if !math.IsInf(v, 0) && !math.IsNaN(v) {
		*a = append(*a, attr{typ: tFloat, key: key, s: strconv.FormatFloat(v, 'g', -1, 64)})
	}
}

// appendValue appends the text of a non-string value: an integer in
// decimal, true/false, a float as formatted, a date in UTC by layout.
// None of these needs escaping in XML or JSON.
func (a *attr) appendValue(b []byte, layout string) []byte {
	switch a.typ {
	case tInt:
		return strconv.AppendInt(b, a.n, 10)
	case tBool:
		return strconv.AppendBool(b, a.n != 0)
	case tDate:
		return a.t.UTC().AppendFormat(b, layout)
	}
	return append(b, a.s...)
}

// sort orders attributes by key, so output does not depend on the order
// they were added in.
func (a attrs) sort() {
	slices.SortFunc(a, func(x, y attr) int { return strings.Compare(x.key, y.key) })
}

// runAttrs are a run's attributes (XES trace attributes; OCEL run object
// attributes, without concept:name), unsorted. Optional fields appear only
// when the run has them.
func runAttrs(a *attrs, r *schema.Run) {
	a.str("model", clean(r.Model, 0))
	a.str("model_family", clean(r.ModelFamily, 0))
	a.str("harness", clean(r.Harness, 0))
	a.str("format", clean(r.SourceFormat, 0))
	a.strIf("task_id", clean(r.TaskID, 0))
	a.strIf("parent_run_id", clean(r.ParentRunID, 0))
	a.str("end_reason", clean(string(r.EndReason), 0))
	if r.Resolved != nil {
		a.bool("resolved", *r.Resolved)
	}
	a.intPtr("window_tokens", r.WindowTokens)
	a.int("n_turns", r.NTurns)
	a.int("input_tokens", r.InputTokens)
	a.int("output_tokens", r.OutputTokens)
	if r.CostUSD != nil {
		a.float("cost_usd", *r.CostUSD)
	}
	if r.StartedAt != nil {
		a.date("started_at", *r.StartedAt)
	}
	if r.EndedAt != nil {
		a.date("ended_at", *r.EndedAt)
	}
}

// eventAttrs are the attributes shared by both formats for a schema event:
// kind, seq, turn, tokens (est_tokens), and role, tool, target, tool_key,
// call_id, exit_code and text when set; is_error on tool results and on
// events flagged as errors.
func eventAttrs(a *attrs, e *schema.Event, textLimit int) {
	a.str("kind", clean(string(e.Kind), 0))
	a.int("seq", e.Seq)
	a.int("turn", e.Turn)
	a.int("tokens", e.EstTokens)
	a.strIf("role", clean(e.Role, 0))
	a.strIf("tool", clean(e.ToolName, 0))
	a.strIf("target", clean(e.Target, 0))
	a.strIf("tool_key", clean(e.ToolKey, 0))
	a.strIf("call_id", clean(e.CallID, 0))
	a.intPtr("exit_code", e.ExitCode)
	if e.Kind == schema.KindToolResult || e.IsError {
		a.bool("is_error", e.IsError)
	}
	if textLimit > 0 {
		a.strIf("text", clean(e.Text, textLimit))
	}
}

// WriteXES writes the runs of src to w as one XES log (IEEE 1849-2016):
//
//	<log xes.version="1849-2016" xes.features="" xmlns="http://www.xes-standard.org/">
//
// declaring the Concept, Lifecycle, Organizational and Time extensions,
// global trace and event attributes, the classifiers Activity
// (concept:name), Activity_kind (concept:name kind) and Resource
// (org:resource), and the log's concept:name and lifecycle:model
// ("standard"); then one <trace> per run and, in it, one <event> per schema
// event and per context op, in the order walk gives (seq order, each op after
// the event it was read from).
//
// A trace has concept:name = the run id and the run's model, model_family,
// harness, format (source format), end_reason, n_turns, input_tokens and
// output_tokens; task_id, parent_run_id, resolved (boolean), window_tokens
// (int), cost_usd (float), started_at and ended_at (date) when known.
//
// An event has concept:name = its activity (Options.Activity), lifecycle:transition
// "complete" (each log record is one completed step), org:resource (see
// resource), time:timestamp, kind, seq, turn, tokens (est_tokens), and the
// event's role, tool, target, tool_key, call_id, exit_code, is_error and text
// where set (see eventAttrs). A context op's event has kind "op", op (the op
// kind), seq, turn, tool_key, trigger, tokens_before and tokens_after where
// the log says, and its detail as text under Options.TextLimit.
//
// Time: time:timestamp is the event's logged time in UTC, to the millisecond,
// with an explicit offset (2025-01-02T03:04:05.000+00:00). An event the log
// gives no time has no time:timestamp: none is invented (Stats.Untimed counts
// them). A context op has no time of its own; it takes that of the event it
// was read from (same seq) when that event has one.
//
// Every attribute is typed (string, int, float, boolean, date); each
// element's attributes are sorted by key. Text from logs goes through clean
// (invalid UTF-8 → U+FFFD, characters XML 1.0 forbids dropped) and is then
// escaped by encoding/xml, so any input gives well-formed XML. Memory is one
// run's attributes at a time; output is buffered and flushed at the end.
//
// The root element follows the standard's text (xes.version "1849-2016",
// the XES namespace); the XSD printed in IEEE 1849-2016 declares neither
// that namespace nor a version type that admits "1849-2016", and
// testdata/README.md says how the tests validate against it regardless.
func WriteXES(ctx context.Context, w io.Writer, src Source, o *Options) (*Stats, error) {
	cw := &countWriter{w: w}
	x := &xesWriter{
		bw:       bufio.NewWriterSize(cw, 1<<16),
		activity: o.activity(),
		opAct:    o.opActivity(),
		text:     o.textLimit(),
	}
	name := "trajmine"
	if o != nil && o.LogName != "" {
		name = o.LogName
	}
	x.header(clean(name, 0))
	err := src(func(r *RunRecords) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if cw.err != nil { // bufio.Writer keeps the error; stop instead of formatting the rest
			return cw.err
		}
		return x.trace(r)
	})
	return x.finish(err, cw)
}

// finish ends a log whose traces were written with err (nil: all of
// them): it closes the log element, flushes and returns the stats with
// the bytes cw counted once flushed.
func (x *xesWriter) finish(err error, cw *countWriter) (*Stats, error) {
	if err == nil {
		x.bw.WriteString("</log>\n")
		err = x.bw.Flush()
	}
	x.st.Bytes = cw.n
	if err != nil {
		return &x.st, fmt.Errorf("write xes: %w", err)
	}
	return &x.st, nil
}

type xesWriter struct {
	bw       *bufio.Writer
	activity ActivityFunc
	opAct    OpActivityFunc
	text     int
	st       Stats
	a        attrs  // reused per element
	scratch  []byte // reused per value
}

// esc writes s (already through clean) as an XML attribute value: as is
// when it holds none of & < > " ' and no control character, else escaped by
// encoding/xml (those become references: &amp; &lt; … &#xA;).
func (x *xesWriter) esc(s string) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20, c == '&', c == '<', c == '>', c == '"', c == '\'':
			_ = xml.EscapeText(x.bw, []byte(s)) // a bufio.Writer's error sticks and surfaces at Flush
			return
		}
	}
	x.bw.WriteString(s)
}

func (x *xesWriter) header(logName string) {
	var trace, event attrs
	trace.str("concept:name", "__INVALID__")
	trace.str("format", "__INVALID__")
	trace.str("harness", "__INVALID__")
	trace.str("model", "__INVALID__")
	event.str("concept:name", "__INVALID__")
	event.str("kind", "__INVALID__")
	event.str("lifecycle:transition", "complete")
	event.str("org:resource", "__INVALID__")
	event.int("seq", -1)
	event.int("turn", -1)
	x.preamble(logName, trace, event, []classifier{
		{"Activity", "concept:name"}, {"Activity_kind", "concept:name kind"}, {"Resource", "org:resource"}})
}

// classifier is one XES event classifier: a name and its attribute keys.
type classifier struct{ name, keys string }

// preamble writes a log's opening: the XML declaration, the log element,
// the extensions, the trace and event globals (the attributes every trace
// and event has, with their defaults), the classifiers and the log's own
// name and lifecycle model.
func (x *xesWriter) preamble(logName string, trace, event attrs, cls []classifier) {
	b := x.bw
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<log xes.version="` + XESVersion + `" xes.features="" xmlns="` + XESNamespace + `">` + "\n")
	for _, e := range xesExtensions {
		b.WriteString("\t<extension name=\"" + e.name + "\" prefix=\"" + e.prefix + "\" uri=\"" + e.uri + "\"/>\n")
	}
	b.WriteString("\t<global scope=\"trace\">\n")
	x.attrs("\t\t", trace)
	b.WriteString("\t</global>\n")
	b.WriteString("\t<global scope=\"event\">\n")
	x.attrs("\t\t", event)
	b.WriteString("\t</global>\n")
	for _, c := range cls {
		b.WriteString("\t<classifier name=\"" + c.name + "\" keys=\"" + c.keys + "\"/>\n")
	}
	var g attrs
	g.str("concept:name", logName)
	g.str("lifecycle:model", "standard")
	x.attrs("\t", g)
}

// attrs writes one element per attribute, in the order given.
func (x *xesWriter) attrs(indent string, as attrs) {
	b := x.bw
	for _, a := range as {
		b.WriteString(indent)
		b.WriteByte('<')
		b.WriteString(a.typ)
		b.WriteString(` key="`)
		b.WriteString(a.key) // keys are this package's constants: valid xs:Name, nothing to escape
		b.WriteString(`" value="`)
		if a.typ == tString {
			x.esc(a.s)
		} else {
			x.scratch = a.appendValue(x.scratch[:0], xesTime)
			b.Write(x.scratch)
		}
		b.WriteString("\"/>\n")
	}
}

func (x *xesWriter) trace(r *RunRecords) error {
	x.st.Runs++
	x.bw.WriteString("\t<trace>\n")
	x.a = x.a[:0]
	x.a.str("concept:name", clean(r.Run.RunID, 0))
	runAttrs(&x.a, &r.Run)
	x.a.sort()
	x.attrs("\t\t", x.a)
	err := walk(r, func(s step) error {
		x.a = x.a[:0]
		var act string
		if s.ev != nil {
			act = x.activity(&r.Run, s.ev)
		} else {
			act = x.opAct(&r.Run, s.op)
		}
		if act == "" {
			x.st.Dropped++
			return nil
		}
		x.a.str("concept:name", clean(act, 0))
		var ts *time.Time
		if s.ev != nil {
			x.st.Events++
			eventAttrs(&x.a, s.ev, x.text)
			ts = s.ev.TS
		} else {
			x.st.Ops++
			x.a.str("kind", "op")
			x.a.str("op", clean(string(s.op.Op), 0))
			x.a.int("seq", s.op.Seq)
			x.a.int("turn", s.op.Turn)
			x.a.strIf("tool_key", clean(s.op.ToolKey, 0))
			x.a.strIf("trigger", clean(s.op.Trigger, 0))
			x.a.intPtr("tokens_before", s.op.TokensBefore)
			x.a.intPtr("tokens_after", s.op.TokensAfter)
			if x.text > 0 {
				x.a.strIf("text", clean(s.op.Detail, x.text))
			}
			if s.carrier != nil {
				ts = s.carrier.TS
			}
		}
		x.a.str("lifecycle:transition", "complete")
		x.a.str("org:resource", resource(s))
		if ts != nil {
			x.a.date("time:timestamp", *ts)
		} else {
			x.st.Untimed++
		}
		x.a.sort()
		x.bw.WriteString("\t\t<event>\n")
		x.attrs("\t\t\t", x.a)
		x.bw.WriteString("\t\t</event>\n")
		return nil
	})
	x.bw.WriteString("\t</trace>\n")
	return err
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w   io.Writer
	n   int64
	err error // first write error
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	if err != nil && c.err == nil {
		c.err = err
	}
	return n, err
}
