package eventlog_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/trajmine/trajmine/eventlog"
	"github.com/trajmine/trajmine/schema"
)

// One run with a tool call, its result and a context op, written as XES
// with the default activities.
func ExampleWriteXES() {
	ts := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	run := eventlog.RunRecords{
		Run: schema.Run{RunID: "run-1", Model: "model-a"},
		Events: []schema.Event{
			{RunID: "run-1", Seq: 0, TS: &ts, Kind: schema.KindToolCall, ToolName: "Read", CallID: "c1", Target: "main.go"},
			{RunID: "run-1", Seq: 1, Kind: schema.KindToolResult, ToolName: "Read", CallID: "c1", ToolKey: "c1"},
		},
		Ops: []schema.ContextOp{{RunID: "run-1", Seq: 1, Op: schema.OpDisable, ToolKey: "c1"}},
	}
	src := func(yield func(*eventlog.RunRecords) error) error { return yield(&run) }
	var buf bytes.Buffer
	st, err := eventlog.WriteXES(context.Background(), &buf, src, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, line := range strings.Split(buf.String(), "\n") {
		if strings.Contains(line, `key="concept:name"`) || strings.Contains(line, `key="time:timestamp"`) {
			fmt.Println(strings.TrimSpace(line))
		}
	}
	fmt.Printf("%d events, %d ops, %d without time\n", st.Events, st.Ops, st.Untimed)
	// Output:
	// <string key="concept:name" value="__INVALID__"/>
	// <string key="concept:name" value="__INVALID__"/>
	// <string key="concept:name" value="trajmine"/>
	// <string key="concept:name" value="run-1"/>
	// <string key="concept:name" value="Read"/>
	// <date key="time:timestamp" value="2025-01-02T03:04:05.000+00:00"/>
	// <string key="concept:name" value="Read"/>
	// <string key="concept:name" value="context.disable"/>
	// 2 events, 1 ops, 2 without time
}

// Runs held in memory (here flat slices, as an ingest.MemSink holds them)
// written as OCEL 2.0 JSON with custom activity names.
func ExampleWriteOCEL() {
	runs := []schema.Run{{RunID: "r"}}
	events := []schema.Event{
		{RunID: "r", Seq: 0, Kind: schema.KindToolCall, ToolName: "Bash", CallID: "c", Target: "go test ./...", Args: `{"command":"go test ./..."}`},
		{RunID: "r", Seq: 1, Kind: schema.KindToolResult, ToolName: "Bash", CallID: "c", ToolKey: "c"},
	}
	o := &eventlog.Options{
		Activity: func(_ *schema.Run, e *schema.Event) string {
			if e.Kind == schema.KindToolCall {
				return "execute"
			}
			return "" // leave everything else out
		},
	}
	st, err := eventlog.WriteOCEL(context.Background(), os.Stdout, eventlog.Records(runs, events, nil), o)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d event, %d dropped, %d objects\n", st.Events, st.Dropped, st.Objects)
	// Output:
	// {
	// "objectTypes": [
	//   {"name": "command", "attributes": [{"name": "value", "type": "string"}]},
	//   {"name": "run", "attributes": [{"name": "end_reason", "type": "string"}, {"name": "format", "type": "string"}, {"name": "harness", "type": "string"}, {"name": "input_tokens", "type": "integer"}, {"name": "model", "type": "string"}, {"name": "model_family", "type": "string"}, {"name": "n_turns", "type": "integer"}, {"name": "output_tokens", "type": "integer"}]},
	//   {"name": "tool_output", "attributes": [{"name": "call_id", "type": "string"}, {"name": "chars", "type": "integer"}, {"name": "est_tokens", "type": "integer"}, {"name": "is_error", "type": "boolean"}, {"name": "seq", "type": "integer"}, {"name": "tool", "type": "string"}, {"name": "tool_key", "type": "string"}, {"name": "turn", "type": "integer"}]}
	// ],
	// "eventTypes": [
	//   {"name": "execute", "attributes": [{"name": "call_id", "type": "string"}, {"name": "kind", "type": "string"}, {"name": "seq", "type": "integer"}, {"name": "target", "type": "string"}, {"name": "time_estimated", "type": "boolean"}, {"name": "tokens", "type": "integer"}, {"name": "tool", "type": "string"}, {"name": "turn", "type": "integer"}]}
	// ],
	// "objects": [
	// {"id":"run:r","type":"run","attributes":[{"name":"end_reason","value":"","time":"1970-01-01T00:00:00Z"},{"name":"format","value":"","time":"1970-01-01T00:00:00Z"},{"name":"harness","value":"","time":"1970-01-01T00:00:00Z"},{"name":"input_tokens","value":"0","time":"1970-01-01T00:00:00Z"},{"name":"model","value":"","time":"1970-01-01T00:00:00Z"},{"name":"model_family","value":"","time":"1970-01-01T00:00:00Z"},{"name":"n_turns","value":"0","time":"1970-01-01T00:00:00Z"},{"name":"output_tokens","value":"0","time":"1970-01-01T00:00:00Z"}],"relationships":[]},
	// {"id":"output:r:c","type":"tool_output","attributes":[{"name":"call_id","value":"c","time":"1970-01-01T00:00:00Z"},{"name":"chars","value":"0","time":"1970-01-01T00:00:00Z"},{"name":"est_tokens","value":"0","time":"1970-01-01T00:00:00Z"},{"name":"is_error","value":"false","time":"1970-01-01T00:00:00Z"},{"name":"seq","value":"1","time":"1970-01-01T00:00:00Z"},{"name":"tool","value":"Bash","time":"1970-01-01T00:00:00Z"},{"name":"tool_key","value":"c","time":"1970-01-01T00:00:00Z"},{"name":"turn","value":"0","time":"1970-01-01T00:00:00Z"}],"relationships":[{"objectId":"run:r","qualifier":"run"},{"objectId":"command:r:1bb497e3e13a1105","qualifier":"target"}]},
	// {"id":"command:r:1bb497e3e13a1105","type":"command","attributes":[{"name":"value","value":"go test ./...","time":"1970-01-01T00:00:00Z"}],"relationships":[{"objectId":"run:r","qualifier":"run"}]}
	// ],
	// "events": [
	// {"id":"event:r:0","type":"execute","time":"1970-01-01T00:00:00.000000+00:00","attributes":[{"name":"call_id","value":"c"},{"name":"kind","value":"tool_call"},{"name":"seq","value":"0"},{"name":"target","value":"go test ./..."},{"name":"time_estimated","value":"true"},{"name":"tokens","value":"0"},{"name":"tool","value":"Bash"},{"name":"turn","value":"0"}],"relationships":[{"objectId":"run:r","qualifier":"run"},{"objectId":"command:r:1bb497e3e13a1105","qualifier":"target"},{"objectId":"output:r:c","qualifier":"produces"}]}
	// ]
	// }
	// 1 event, 1 dropped, 3 objects
}
