package eventlog_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/trajmine/trajmine/eventlog"
	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/testutil"
)

// TestCorpusExports imports every file of the shared corpus and exports all
// its runs in both formats, each validated against its schema; the exports
// hold every event and op, and exporting twice gives the same bytes.
func TestCorpusExports(t *testing.T) {
	dir := testutil.CorpusDir(t)
	var m ingest.MemSink
	if _, err := ingest.Files(context.Background(), &m, []string{dir}, &ingest.Options{Warn: func(error) {}}); err != nil {
		t.Fatal(err)
	}
	if len(m.Runs) == 0 {
		t.Fatal("corpus gave no runs")
	}
	src := eventlog.Records(m.Runs, m.Events, m.ContextOps)
	ctx := context.Background()
	o := &eventlog.Options{TextLimit: 200, TempDir: t.TempDir()}

	t.Run("xes", func(t *testing.T) {
		var a, b bytes.Buffer
		st, err := eventlog.WriteXES(ctx, &a, src, o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := eventlog.WriteXES(ctx, &b, src, o); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Error("two exports differ")
		}
		if st.Runs != int64(len(m.Runs)) || st.Events != int64(len(m.Events)) || st.Ops != int64(len(m.ContextOps)) {
			t.Errorf("stats %+v; corpus has %d runs, %d events, %d ops", *st, len(m.Runs), len(m.Events), len(m.ContextOps))
		}
		l := parseXES(t, a.Bytes())
		n := 0
		for _, tr := range l.Traces {
			n += len(tr.Events)
		}
		if len(l.Traces) != len(m.Runs) || n != len(m.Events)+len(m.ContextOps) {
			t.Errorf("XES has %d traces, %d events", len(l.Traces), n)
		}
		t.Logf("%d runs, %d events, %d ops, %d untimed, %d bytes", st.Runs, st.Events, st.Ops, st.Untimed, st.Bytes)
		validateXES(t, a.Bytes())
	})

	t.Run("ocel", func(t *testing.T) {
		var a, b bytes.Buffer
		st, err := eventlog.WriteOCEL(ctx, &a, src, o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := eventlog.WriteOCEL(ctx, &b, src, o); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Error("two exports differ")
		}
		d := validateOCEL(t, a.Bytes())
		if st.Runs != int64(len(m.Runs)) || st.Events != int64(len(m.Events)) || int64(len(d.Events)) != st.Events+st.Ops {
			t.Errorf("stats %+v; corpus has %d runs, %d events; document %d events", *st, len(m.Runs), len(m.Events), len(d.Events))
		}
		outputs := 0
		for _, ob := range d.Objects {
			if ob.Type == eventlog.ObjToolOutput {
				outputs++
			}
		}
		if outputs < len(m.ToolOutputs) {
			t.Errorf("%d tool_output objects, corpus has %d tool outputs", outputs, len(m.ToolOutputs))
		}
		t.Logf("%d runs, %d events, %d op events, %d objects, %d estimated times, %d bytes", st.Runs, st.Events, st.Ops, st.Objects, st.Untimed, st.Bytes)
	})
}
