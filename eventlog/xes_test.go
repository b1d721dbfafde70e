package eventlog_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/trajmine/trajmine/eventlog"
	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/schema"
)

// xesLog is the part of an XES document the tests read back.
type xesLog struct {
	Attrs  []xesAttr  `xml:",any"`
	Traces []xesTrace `xml:"trace"`
}

type xesTrace struct {
	Attrs  []xesAttr  `xml:",any"`
	Events []xesEvent `xml:"event"`
}

type xesEvent struct {
	Attrs []xesAttr `xml:",any"`
}

type xesAttr struct {
	XMLName xml.Name
	Key     string `xml:"key,attr"`
	Value   string `xml:"value,attr"`
}

func (e xesEvent) get(key string) (string, bool) {
	for _, a := range e.Attrs {
		if a.Key == key {
			return a.Value, true
		}
	}
	return "", false
}

func parseXES(t *testing.T, doc []byte) xesLog {
	t.Helper()
	var l xesLog
	if err := xml.Unmarshal(doc, &l); err != nil {
		t.Fatalf("parse XES: %v", err)
	}
	return l
}

func writeXES(t *testing.T, runs []eventlog.RunRecords, o *eventlog.Options) ([]byte, *eventlog.Stats) {
	t.Helper()
	var buf bytes.Buffer
	st, err := eventlog.WriteXES(context.Background(), &buf, slice(runs), o)
	if err != nil {
		t.Fatal(err)
	}
	if st.Bytes != int64(buf.Len()) {
		t.Errorf("Stats.Bytes = %d, wrote %d", st.Bytes, buf.Len())
	}
	return buf.Bytes(), st
}

func TestWriteXESGolden(t *testing.T) {
	doc, st := writeXES(t, goldenRuns(), &eventlog.Options{TextLimit: 40})
	testutil.Golden(t, string(doc), "testdata/golden.xes.golden")
	want := eventlog.Stats{Runs: 2, Events: 16, Ops: 5, Untimed: 7, Bytes: int64(len(doc))}
	if diff := cmp.Diff(want, *st); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
	validateXES(t, doc)
}

func TestWriteXESContent(t *testing.T) {
	doc, _ := writeXES(t, goldenRuns(), nil)
	l := parseXES(t, doc)
	if len(l.Traces) != 2 {
		t.Fatalf("%d traces, want 2", len(l.Traces))
	}
	tr := l.Traces[0]
	var got []string
	for _, e := range tr.Events {
		name, _ := e.get("concept:name")
		seq, _ := e.get("seq")
		ts, ok := e.get("time:timestamp")
		if !ok {
			ts = "-"
		}
		got = append(got, seq+" "+name+" "+ts)
	}
	want := []string{
		"0 system -",
		"1 user 2025-01-02T03:04:05.000+00:00",
		"2 assistant 2025-01-02T03:04:07.000+00:00",
		"3 Read 2025-01-02T03:04:08.000+00:00",
		"4 Read -",
		"5 Bash 2025-01-02T03:04:10.000+00:00",
		"6 Bash 2025-01-02T03:04:14.000+00:00",
		"7 manage_context 2025-01-02T03:04:15.000+00:00",
		"7 context.disable 2025-01-02T03:04:15.000+00:00",
		"7 context.disable 2025-01-02T03:04:15.000+00:00",
		"8 manage_context 2025-01-02T03:04:15.500+00:00",
		"9 manage_context 2025-01-02T03:04:17.000+00:00",
		"9 context.enable 2025-01-02T03:04:17.000+00:00",
		"10 manage_context 2025-01-02T03:04:17.000+00:00",
		"11 compaction 2025-01-02T03:04:25.000+00:00",
		"11 context.compaction 2025-01-02T03:04:25.000+00:00",
		"12 user -",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("run-1 events (-want +got):\n%s", diff)
	}
	// Typed attributes.
	types := map[string]string{}
	for _, e := range tr.Events {
		for _, a := range e.Attrs {
			if old, ok := types[a.Key]; ok && old != a.XMLName.Local {
				t.Errorf("attribute %s is both %s and %s", a.Key, old, a.XMLName.Local)
			}
			types[a.Key] = a.XMLName.Local
		}
	}
	for key, typ := range map[string]string{"seq": "int", "turn": "int", "tokens": "int", "exit_code": "int", "is_error": "boolean",
		"time:timestamp": "date", "tokens_before": "int", "tokens_after": "int", "concept:name": "string", "tool": "string"} {
		if types[key] != typ {
			t.Errorf("event attribute %s is <%s>, want <%s>", key, types[key], typ)
		}
	}
	traceTypes := map[string]string{}
	for _, a := range tr.Attrs {
		traceTypes[a.Key] = a.XMLName.Local
	}
	for key, typ := range map[string]string{"concept:name": "string", "model": "string", "harness": "string", "format": "string",
		"resolved": "boolean", "window_tokens": "int", "cost_usd": "float", "started_at": "date"} {
		if traceTypes[key] != typ {
			t.Errorf("trace attribute %s is <%s>, want <%s>", key, traceTypes[key], typ)
		}
	}
	// Attributes sorted by key in every element.
	for _, e := range tr.Events {
		for i := 1; i < len(e.Attrs); i++ {
			if e.Attrs[i-1].Key >= e.Attrs[i].Key {
				t.Errorf("event attributes not sorted: %s before %s", e.Attrs[i-1].Key, e.Attrs[i].Key)
			}
		}
	}
	// run-2: no time anywhere, the orphan op (seq 5) comes last.
	tr2 := l.Traces[1]
	last := tr2.Events[len(tr2.Events)-1]
	if name, _ := last.get("concept:name"); name != "context.truncation" {
		t.Errorf("run-2 last event %q, want context.truncation", name)
	}
	for _, e := range tr2.Events {
		if ts, ok := e.get("time:timestamp"); ok {
			t.Errorf("run-2 event has invented time %s", ts)
		}
	}
}

func TestWriteXESActivity(t *testing.T) {
	// An empty activity drops the record; custom names are used as given.
	o := &eventlog.Options{
		Activity: func(_ *schema.Run, e *schema.Event) string {
			if e.Kind == schema.KindToolCall {
				return "call:" + e.ToolName
			}
			return ""
		},
		OpActivity: func(_ *schema.Run, c *schema.ContextOp) string {
			if c.Op == schema.OpDisable {
				return "hide"
			}
			return ""
		},
		LogName: "agents & <co>",
	}
	doc, st := writeXES(t, goldenRuns(), o)
	if st.Events != 5 || st.Ops != 2 || st.Dropped != 11+3 {
		t.Errorf("stats %+v, want 5 events, 2 ops, 14 dropped", *st)
	}
	l := parseXES(t, doc)
	var names []string
	for _, tr := range l.Traces {
		for _, e := range tr.Events {
			n, _ := e.get("concept:name")
			names = append(names, n)
		}
	}
	want := []string{"call:Read", "call:Bash", "call:manage_context", "hide", "hide", "call:manage_context", "call:grep"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("activities (-want +got):\n%s", diff)
	}
	if !strings.Contains(string(doc), `<string key="concept:name" value="agents &amp; &lt;co&gt;"/>`) {
		t.Errorf("log name not escaped")
	}
	validateXES(t, doc)
}

func TestWriteXESHostile(t *testing.T) {
	doc, _ := writeXES(t, hostileRuns(), &eventlog.Options{TextLimit: 1000, LogName: hostile})
	for _, bad := range []string{"<script>", "]]>", "\x00", "\x01", "\x1b", "\xff", "\ufffe", "</log>\n\t"} {
		if bad == "</log>\n\t" {
			if strings.Count(string(doc), "</log>") != 1 {
				t.Errorf("hostile </log> written raw")
			}
			continue
		}
		if strings.Contains(string(doc), bad) {
			t.Errorf("XES contains raw %q", bad)
		}
	}
	l := parseXES(t, doc)
	e := l.Traces[0].Events[0]
	text, _ := e.get("text")
	want := "<script>alert('x')</script> ]]> &amp; \"q\" nul [31mred[0m \x7f bad:\ufffd\ufffd\ufffd tab:\t nl:\n cr:\r \u2028\u2029  😀 </log>"
	if text != want {
		t.Errorf("text read back\n got %q\nwant %q", text, want)
	}
	validateXES(t, doc)
}

func TestWriteXESErrors(t *testing.T) {
	// Errors from the source, the context and the writer are returned, wrapped.
	boom := errors.New("boom")
	_, err := eventlog.WriteXES(context.Background(), &bytes.Buffer{}, func(func(*eventlog.RunRecords) error) error { return boom }, nil)
	if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "write xes: ") {
		t.Errorf("source error: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = eventlog.WriteXES(ctx, &bytes.Buffer{}, slice(goldenRuns()), nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	_, err = eventlog.WriteXES(context.Background(), failWriter{}, slice(synthRuns(5000)), nil)
	if !errors.Is(err, errFull) {
		t.Errorf("writer error: %v", err)
	}
	// An empty source is a valid empty log.
	doc, st := writeXES(t, nil, nil)
	if st.Runs != 0 || !strings.HasSuffix(string(doc), "</log>\n") {
		t.Errorf("empty log: %+v\n%s", st, doc)
	}
	validateXES(t, doc)
}

var errFull = errors.New("disk full")

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errFull }
