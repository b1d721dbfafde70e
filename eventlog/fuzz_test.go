package eventlog_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"testing"

	"github.com/trajmine/trajmine/eventlog"
	"github.com/trajmine/trajmine/schema"
)

// FuzzWrite puts arbitrary text in every text field of a run (ids, names,
// targets, arguments, op kinds, texts) and arbitrary, possibly repeated or
// decreasing seqs, and checks that neither writer fails or panics, the XES
// is well-formed and the OCEL passes validateOCEL (schema, unique ids,
// resolvable relationships, typed values).
func FuzzWrite(f *testing.F) {
	f.Add("run-1", hostile, "disable", int64(0), int64(1), int64(1))
	f.Add("a:b%c", "]]>", "compaction", int64(5), int64(5), int64(-3))
	f.Add("", "", "", int64(-1), int64(0), int64(2))
	f.Add("r\xff", "k\x00", "dis\x00able", int64(3), int64(1), int64(2))
	f.Fuzz(func(t *testing.T, runID, text, op string, s0, s1, s2 int64) {
		r := eventlog.RunRecords{
			Run: schema.Run{RunID: runID, Model: text, Harness: text, SourceFormat: text, TaskID: text, EndReason: schema.EndReason(text)},
			Events: []schema.Event{
				{RunID: runID, Seq: s0, Kind: schema.KindToolCall, ToolName: text, CallID: text, Target: text, Args: text, Text: text, Role: text},
				{RunID: runID, Seq: s1, Kind: schema.KindToolResult, ToolName: text, CallID: text, ToolKey: text, Target: text, Text: text},
				{RunID: runID, Seq: s1, Kind: schema.EventKind(text), Text: text},
			},
			Ops: []schema.ContextOp{
				{RunID: runID, Seq: s2, Op: schema.OpKind(op), ToolKey: text, Trigger: text, Detail: text},
				{RunID: runID, Seq: s1, Op: schema.OpKind(op), ToolKey: text + "x"},
				{RunID: runID, Seq: s1, Op: schema.OpKind(op + "\x00")},
			},
		}
		runs := []eventlog.RunRecords{r}
		o := &eventlog.Options{TextLimit: 50, TempDir: t.TempDir(), LogName: text}
		var x bytes.Buffer
		if _, err := eventlog.WriteXES(context.Background(), &x, slice(runs), o); err != nil {
			t.Fatal(err)
		}
		d := xml.NewDecoder(&x)
		for {
			_, err := d.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("XES not well-formed: %v", err)
			}
		}
		var j bytes.Buffer
		if _, err := eventlog.WriteOCEL(context.Background(), &j, slice(runs), o); err != nil {
			t.Fatal(err)
		}
		validateOCEL(t, j.Bytes())
	})
}
