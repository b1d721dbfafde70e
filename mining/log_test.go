package mining_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/trajmine/trajmine/internal/testutil"
	"github.com/trajmine/trajmine/mining"
	"github.com/trajmine/trajmine/schema"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func at(sec float64) *time.Time {
	t := t0.Add(time.Duration(sec * float64(time.Second)))
	return &t
}

func i64(v int64) *int64 { return &v }

func call(seq int64, ts *time.Time, tool, id, target, args string, tok int64) schema.Event {
	return schema.Event{Seq: seq, TS: ts, Kind: schema.KindToolCall, ToolName: tool, CallID: id, Target: target, Args: args, EstTokens: tok}
}

func result(seq int64, ts *time.Time, id, key string, tok int64) schema.Event {
	return schema.Event{Seq: seq, TS: ts, Kind: schema.KindToolResult, CallID: id, ToolKey: key, EstTokens: tok}
}

// runs are two hand-made runs. r1 (resolved, DTOC):
//
//	seq 0  Read /src/main.go  t=0s   5 + result 100 (key k1)  → tokens 105
//	seq 2  bash "go test ./..." t=3s 10 + result 50 (key k2)  → 60
//	seq 4  manage_context disable k1, t=4s                    → context.disable, 100 (k1's output)
//	seq 6  Read /README       t=10s  5 + result 20            → 25
//	seq 8  compaction event   t=12s, op before 1000 after 200 → compaction, 800
//	seq 9  edit a.py          no ts, no call id: 7 + 3         → 10
//
// Edges of r1 with times: Read→bash 3s, bash→context.disable 1s,
// context.disable→Read 6s, Read→compaction 2s; compaction→edit untimed.
//
// r2 (failed) has timestamps out of seq order: seq 0 A at 5s, seq 1 B at 1s,
// seq 2 C without one, ordered as if at 1s (the last timestamp before it in
// seq order: B's), after B by seq: B, C, A.
func runs() []struct {
	run    schema.Run
	events []schema.Event
	ops    []schema.ContextOp
} {
	yes, no := true, false
	return []struct {
		run    schema.Run
		events []schema.Event
		ops    []schema.ContextOp
	}{
		{
			run: schema.Run{RunID: "r1", Harness: "openai", ModelFamily: "gpt-5", SourceFormat: "openai-messages", Resolved: &yes, StartedAt: at(0)},
			events: []schema.Event{
				call(0, at(0), "Read", "c1", "/src/main.go", `{"file_path":"/src/main.go"}`, 5),
				result(1, at(1), "c1", "k1", 100),
				call(2, at(3), "bash", "c2", "go test ./...", `{"command":"go test ./..."}`, 10),
				result(3, nil, "c2", "k2", 50),
				{Seq: 4, TS: at(4), Kind: schema.KindToolCall, ToolName: "manage_context", CallID: "c3", Args: `{"disable":["k1"]}`, EstTokens: 8},
				result(5, nil, "c3", "c3", 2),
				call(6, at(10), "Read", "c4", "/README", `{"file_path":"/README"}`, 5),
				result(7, nil, "c4", "c4", 20),
				{Seq: 8, TS: at(12), Kind: schema.KindCompaction},
				call(9, nil, "edit", "", "a.py", `{"path":"a.py"}`, 7),
				result(10, nil, "", "t10", 3),
			},
			ops: []schema.ContextOp{
				{Seq: 8, Op: schema.OpCompaction, TokensBefore: i64(1000), TokensAfter: i64(200)},
				{Seq: 4, Op: schema.OpDisable, ToolKey: "k1"},
			},
		},
		{
			run: schema.Run{RunID: "r2", Harness: "claude-code", ModelFamily: "claude-opus-4", SourceFormat: "claude-code", Resolved: &no, StartedAt: at(100)},
			events: []schema.Event{
				call(0, at(5), "A", "x", "", "{}", 1),
				call(1, at(1), "B", "y", "https://example.com/x", "{}", 2),
				call(2, nil, "C", "z", "src/*.go", "{}", 3),
			},
		},
	}
}

func buildLog(t *testing.T, o *mining.Options) *mining.Log {
	t.Helper()
	b, err := mining.NewBuilder(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs() {
		if err := b.AddRun(&r.run, r.events, r.ops); err != nil {
			t.Fatal(err)
		}
	}
	return b.Log()
}

func classify(harness, tool, args string) string {
	switch {
	case strings.Contains(args, "go test"):
		return "test"
	case tool == "Read":
		return "read"
	case tool == "edit":
		return "edit"
	}
	return ""
}

func TestBuilder(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    *mining.Options
		r1   string
		r2   string
	}{
		{"tool", nil, "Read bash context.disable Read compaction edit", "B C A"},
		{"class", &mining.Options{Mode: mining.ModeClass, Class: classify}, "read test context.disable read compaction edit", "other other other"},
		{"tool-target", &mining.Options{Mode: mining.ModeToolTarget}, "Read:.go bash:cmd context.disable Read:file compaction edit:.py", "B:url C:glob A"},
		{"tool-target-class", &mining.Options{Mode: mining.ModeToolTarget, Class: classify}, "Read:.go bash:test context.disable Read:file compaction edit:.py", "B:url C:glob A"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := buildLog(t, tc.o)
			if got := strings.Join(l.Trace(0), " "); got != tc.r1 {
				t.Errorf("r1 = %s\nwant %s", got, tc.r1)
			}
			if got := strings.Join(l.Trace(1), " "); got != tc.r2 {
				t.Errorf("r2 = %s\nwant %s", got, tc.r2)
			}
		})
	}

	l := buildLog(t, nil)
	var toks []int64
	for _, e := range l.Cases[0].Events {
		toks = append(toks, e.Tokens)
	}
	if got, want := toks, []int64{105, 60, 100, 25, 800, 10}; !equal(got, want) {
		t.Errorf("r1 tokens %v, want %v", got, want)
	}
	if c := l.Cases[0]; c.ID != "r1" || c.Harness != "openai" || c.ModelFamily != "gpt-5" || c.Format != "openai-messages" || c.Resolved == nil || !*c.Resolved || c.Start != t0.UnixMicro() {
		t.Errorf("case r1 = %+v", c)
	}
	if e := l.Cases[0].Events[2]; e.TS != at(4).UnixMicro() || e.Seq != 4 {
		t.Errorf("context.disable event %+v: want the ts of seq 4", e)
	}
	if e := l.Cases[0].Events[5]; e.TS != 0 {
		t.Errorf("edit event %+v: want no timestamp", e)
	}

	var b bytes.Buffer
	must(t, mining.NewDFG(l).WriteText(&b))
	testutil.Golden(t, b.String(), "testdata/builder_dfg.golden")
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestBuilderErrors(t *testing.T) {
	if _, err := mining.NewBuilder(&mining.Options{Mode: mining.ModeClass}); err == nil {
		t.Error("ModeClass without a classifier: no error")
	}
	if _, err := mining.NewBuilder(&mining.Options{Mode: 7}); err == nil {
		t.Error("unknown mode: no error")
	}
	b, _ := mining.NewBuilder(nil)
	if err := b.AddRun(nil, nil, nil); err == nil {
		t.Error("nil run: no error")
	}
}

func TestEdgePerformance(t *testing.T) {
	d := mining.NewDFG(buildLog(t, nil))
	want := map[string]struct {
		timed        int
		mean, median float64
		tokens       int64
	}{
		"Read bash":            {1, 3, 3, 60},
		"bash context.disable": {1, 1, 1, 100},
		"context.disable Read": {1, 6, 6, 25},
		"Read compaction":      {1, 2, 2, 800},
		"compaction edit":      {0, 0, 0, 10},
		"B C":                  {0, 0, 0, 3},
		"C A":                  {0, 0, 0, 1},
		mining.Start + " Read": {0, 0, 0, 105},
		"edit " + mining.End:   {0, 0, 0, 0},
		"A " + mining.End:      {0, 0, 0, 0},
		mining.Start + " B":    {0, 0, 0, 2},
	}
	got := 0
	for _, e := range d.Edges {
		w, ok := want[e.From+" "+e.To]
		if !ok {
			t.Errorf("unexpected edge %s -> %s", e.From, e.To)
			continue
		}
		got++
		if e.Timed != w.timed || !near(e.MeanSeconds, w.mean) || !near(e.MedianSeconds, w.median) || e.Tokens != w.tokens {
			t.Errorf("edge %s -> %s = %+v, want %+v", e.From, e.To, e, w)
		}
	}
	if got != len(want) {
		t.Errorf("%d edges, want %d", got, len(want))
	}

	// median of an even count is the mean of the middle two; mean over all
	b, _ := mining.NewBuilder(nil)
	run := schema.Run{RunID: "m"}
	var evs []schema.Event
	for i, sec := range []float64{0, 1, 11, 12, 15} { // x→y steps: 1, 10, 1, 3 s
		tool := "x"
		if i%2 == 1 {
			tool = "y"
		}
		evs = append(evs, call(int64(i), at(sec), tool, "", "", "", 0))
	}
	must(t, b.AddRun(&run, evs, nil))
	for _, e := range mining.NewDFG(b.Log()).Edges {
		switch e.From + e.To {
		case "xy": // 1 s and 1 s
			if !near(e.MeanSeconds, 1) || !near(e.MedianSeconds, 1) {
				t.Errorf("x→y %+v", e)
			}
		case "yx": // 10 s and 3 s: mean 6.5, median (3+10)/2
			if !near(e.MeanSeconds, 6.5) || !near(e.MedianSeconds, 6.5) || e.Timed != 2 {
				t.Errorf("y→x %+v", e)
			}
		}
	}
}

func TestTargetKind(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"  ", ""},
		{"/src/main.go", ".go"},
		{"src/App.TSX", ".tsx"},
		{"a.py", ".py"},
		{".gitignore", ".gitignore"},
		{"/repo/.github/", "dir"},
		{".", "dir"},
		{"../..", "dir"},
		{"**/*.ts", "glob"},
		{"src/[ab].go", "glob"},
		{"https://example.com/a.html", "url"},
		{"http://x", "url"},
		{"go test ./...", "cmd"},
		{"ls", "cmd"},
		{"Makefile", "cmd"},
		{"/usr/bin/env", "file"},
		{"src/data.tar.gz", ".gz"},
		{"notes.averyveryverylongext", "file"},
		{"a.b~c", "file"},
		{"x.", "file"},
		{"pattern @ /src", "cmd"},
		{"a|b", "cmd"},
		{"src/a=b.go", "cmd"},
		{"x\ty/z.go", "cmd"},
		{"dir/sub;rm", "cmd"},
		{"$HOME/x.go", "cmd"},
		{"`pwd`/a.go", "cmd"},
		{"\"quoted/a.go\"", "cmd"},
		{"'a.go'", "cmd"},
		{"(a)/b.go", "cmd"},
		{"a<b/c.go", "cmd"},
		{"x/a?b.go", "glob"},
		{"x/a*", "glob"},
	} {
		if got := mining.TargetKind(tc.in); got != tc.want {
			t.Errorf("TargetKind(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestModes(t *testing.T) {
	for _, m := range []mining.Mode{mining.ModeTool, mining.ModeClass, mining.ModeToolTarget} {
		got, err := mining.ParseMode(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMode(%q) = %v, %v", m.String(), got, err)
		}
	}
	if _, err := mining.ParseMode("activity"); err == nil {
		t.Error("ParseMode(activity): no error")
	}
	if s := mining.Mode(9).String(); s != "Mode(9)" {
		t.Errorf("Mode(9) = %s", s)
	}
}
