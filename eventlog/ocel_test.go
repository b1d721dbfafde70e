package eventlog_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/trajmine/trajmine/eventlog"
	"github.com/trajmine/trajmine/internal/testutil"
)

func writeOCEL(t *testing.T, runs []eventlog.RunRecords, o *eventlog.Options) ([]byte, *eventlog.Stats) {
	t.Helper()
	if o == nil {
		o = &eventlog.Options{}
	}
	o.TempDir = t.TempDir()
	var buf bytes.Buffer
	st, err := eventlog.WriteOCEL(context.Background(), &buf, slice(runs), o)
	if err != nil {
		t.Fatal(err)
	}
	if st.Bytes != int64(buf.Len()) {
		t.Errorf("Stats.Bytes = %d, wrote %d", st.Bytes, buf.Len())
	}
	if left, _ := os.ReadDir(o.TempDir); len(left) != 0 {
		t.Errorf("WriteOCEL left %d temporary files", len(left))
	}
	return buf.Bytes(), st
}

func TestWriteOCELGolden(t *testing.T) {
	doc, st := writeOCEL(t, goldenRuns(), &eventlog.Options{TextLimit: 40})
	testutil.Golden(t, string(doc), "testdata/golden.ocel.golden")
	d := validateOCEL(t, doc)
	want := eventlog.Stats{Runs: 2, Events: 16, Ops: 4, Untimed: 7, Objects: 7 + 4, Bytes: int64(len(doc))}
	if diff := cmp.Diff(want, *st); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
	if int64(len(d.Events)) != st.Events+st.Ops || int64(len(d.Objects)) != st.Objects {
		t.Errorf("document has %d events and %d objects; stats %+v", len(d.Events), len(d.Objects), *st)
	}
}

func TestWriteOCELRelationships(t *testing.T) {
	doc, _ := writeOCEL(t, goldenRuns(), nil)
	d := validateOCEL(t, doc)
	ev := map[string]*ocelEvent{}
	for i := range d.Events {
		ev[d.Events[i].ID] = &d.Events[i]
	}
	rels := func(id string) map[string]string {
		e := ev[id]
		if e == nil {
			t.Fatalf("no event %s", id)
		}
		m := map[string]string{}
		for _, r := range e.Relationships {
			m[r.ObjectID] = r.Qualifier
		}
		return m
	}
	for _, tc := range []struct {
		event string
		want  map[string]string
	}{
		// The call produces the output its result returns; both act on the file.
		{"event:run-1:3", map[string]string{"run:run-1": "run", "output:run-1:k1": "produces", "file:run-1:" + digest("/repo/main.go"): "target"}},
		{"event:run-1:4", map[string]string{"run:run-1": "run", "output:run-1:k1": "returns", "file:run-1:" + digest("/repo/main.go"): "target"}},
		{"event:run-1:5", map[string]string{"run:run-1": "run", "output:run-1:c2": "produces", "command:run-1:" + digest("go test ./..."): "target"}},
		// One manage_context call, two disable rows: one event hiding both outputs.
		{"op:run-1:7:disable", map[string]string{"run:run-1": "run", "output:run-1:k1": "hides", "output:run-1:c2": "hides"}},
		{"op:run-1:9:enable", map[string]string{"run:run-1": "run", "output:run-1:k1": "restores"}},
		{"op:run-1:11:compaction", map[string]string{"run:run-1": "run"}},
		{"event:run-1:0", map[string]string{"run:run-1": "run"}},
		{"event:run-2:1", map[string]string{"run:run-2": "run", "output:run-2:g1": "produces", "search:run-2:" + digest("TODO @ src"): "target"}},
		// A truncation naming a key no result has still resolves.
		{"op:run-2:5:truncation", map[string]string{"run:run-2": "run", "output:run-2:x9": "truncates"}},
	} {
		if diff := cmp.Diff(tc.want, rels(tc.event)); diff != "" {
			t.Errorf("%s relationships (-want +got):\n%s", tc.event, diff)
		}
	}
	objs := map[string]ocelObject{}
	for _, o := range d.Objects {
		objs[o.ID] = o
	}
	out := objs["output:run-1:k1"]
	if diff := cmp.Diff([]ocelRel{{"run:run-1", "run"}, {"file:run-1:" + digest("/repo/main.go"), "target"}}, out.Relationships); diff != "" {
		t.Errorf("output k1 relationships (-want +got):\n%s", diff)
	}
	if out.Type != "tool_output" {
		t.Errorf("output k1 type %q", out.Type)
	}
	// Op group attributes.
	dis := ev["op:run-1:7:disable"]
	for name, want := range map[string]string{"n_outputs": "2", "op": "disable", "kind": "op", "trigger": "manage_context"} {
		if got, _ := dis.attr(name); got != want {
			t.Errorf("disable %s = %q, want %q", name, got, want)
		}
	}
	comp := ev["op:run-1:11:compaction"]
	for name, want := range map[string]string{"tokens_before": "150000", "tokens_after": "20000"} {
		if got, _ := comp.attr(name); got != want {
			t.Errorf("compaction %s = %q, want %q", name, got, want)
		}
	}
}

func TestWriteOCELTimes(t *testing.T) {
	doc, _ := writeOCEL(t, goldenRuns(), nil)
	d := validateOCEL(t, doc)
	for _, tc := range []struct {
		event, time string
		estimated   bool
	}{
		{"event:run-1:1", "2025-01-02T03:04:05.000000+00:00", false},
		// before the first timed event (seq 1): back from it
		{"event:run-1:0", "2025-01-02T03:04:04.999999+00:00", true},
		// after a timed event: forward from the nearest earlier one (seq 3)
		{"event:run-1:4", "2025-01-02T03:04:08.000001+00:00", true},
		{"op:run-1:7:disable", "2025-01-02T03:04:15.000000+00:00", false},
		{"op:run-1:11:compaction", "2025-01-02T03:04:25.000000+00:00", false},
		{"event:run-1:12", "2025-01-02T03:04:25.000001+00:00", true},
		// a run without any time nor start: the epoch plus seq µs
		{"event:run-2:0", "1970-01-01T00:00:00.000000+00:00", true},
		{"event:run-2:2", "1970-01-01T00:00:00.000002+00:00", true},
		{"op:run-2:5:truncation", "1970-01-01T00:00:00.000005+00:00", true},
	} {
		var e *ocelEvent
		for i := range d.Events {
			if d.Events[i].ID == tc.event {
				e = &d.Events[i]
			}
		}
		if e == nil {
			t.Fatalf("no event %s", tc.event)
		}
		est, ok := e.attr("time_estimated")
		if e.Time != tc.time || ok != tc.estimated || (ok && est != "true") {
			t.Errorf("%s: time %s (estimated %v %q), want %s (estimated %v)", tc.event, e.Time, ok, est, tc.time, tc.estimated)
		}
	}
}

func TestWriteOCELHostile(t *testing.T) {
	doc, _ := writeOCEL(t, hostileRuns(), &eventlog.Options{TextLimit: 1000})
	for _, bad := range []string{"\x00", "\x01", "\x1b", "\xff", "\ufffe"} {
		if bytes.Contains(doc, []byte(bad)) {
			t.Errorf("OCEL contains raw %q", bad)
		}
	}
	d := validateOCEL(t, doc)
	text, _ := d.Events[0].attr("text")
	want := "<script>alert('x')</script> ]]> &amp; \"q\" nul [31mred[0m \x7f bad:\ufffd\ufffd\ufffd tab:\t nl:\n cr:\r \u2028\u2029  😀 </log>"
	if text != want {
		t.Errorf("text read back\n got %q\nwant %q", text, want)
	}
	if !strings.HasPrefix(d.Objects[0].ID, "run:run<") || strings.Count(d.Objects[0].ID, ":") != 1 {
		t.Errorf("run id not escaped for ids: %q", d.Objects[0].ID)
	}
}

func TestWriteOCELErrors(t *testing.T) {
	boom := errors.New("boom")
	dir := t.TempDir()
	_, err := eventlog.WriteOCEL(context.Background(), &bytes.Buffer{}, func(func(*eventlog.RunRecords) error) error { return boom }, &eventlog.Options{TempDir: dir})
	if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "write ocel: ") {
		t.Errorf("source error: %v", err)
	}
	_, err = eventlog.WriteOCEL(context.Background(), failWriter{}, slice(goldenRuns()), &eventlog.Options{TempDir: dir})
	if !errors.Is(err, errFull) {
		t.Errorf("writer error: %v", err)
	}
	_, err = eventlog.WriteOCEL(context.Background(), &bytes.Buffer{}, slice(goldenRuns()), &eventlog.Options{TempDir: dir + "/missing"})
	if err == nil {
		t.Errorf("missing temp dir: no error")
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("%d temporary files left", len(left))
	}
	doc, st := writeOCEL(t, nil, nil)
	if st.Runs != 0 {
		t.Errorf("empty: %+v", st)
	}
	validateOCEL(t, doc)
}
