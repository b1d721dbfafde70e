package eventlog_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/trajmine/trajmine/eventlog"
	"github.com/trajmine/trajmine/schema"
)

var t0 = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

func at(d time.Duration) *time.Time { t := t0.Add(d); return &t }
func i64(v int64) *int64            { return &v }

// goldenRuns are two small hand-built runs covering every record shape the
// writers handle:
//
// run-1 (timed, with DTOC ops): system (no time), user, assistant, a Read of
// a file whose result has a DTOC key k1 and no time, a failing Bash command,
// manage_context disabling k1 and c2 (two op rows, one call), manage_context
// enabling k1, an auto compaction with token counts, and a last user event
// without time.
//
// run-2 (no times at all, no start): a search call and its result, and a
// truncation op at a seq no event has, naming a key no result has.
func goldenRuns() []eventlog.RunRecords {
	yes := true
	window := int64(200000)
	cost := 0.125
	r1 := eventlog.RunRecords{
		Run: schema.Run{RunID: "run-1", SourceFormat: "claude-code", Harness: "claude-code", Model: "claude-sonnet-4",
			ModelFamily: "claude", TaskID: "task-7", Resolved: &yes, WindowTokens: &window, StartedAt: at(0), EndedAt: at(30 * time.Second),
			EndReason: schema.EndFinished, NTurns: 5, InputTokens: 51000, OutputTokens: 900, CostUSD: &cost},
		Events: []schema.Event{
			{Seq: 0, Kind: schema.KindSystem, Role: "system", Text: "You are an agent.", EstTokens: 5},
			{Seq: 1, TS: at(0), Kind: schema.KindUser, Role: "user", Text: "Fix the failing test.", EstTokens: 6},
			{Seq: 2, TS: at(2 * time.Second), Turn: 0, Kind: schema.KindAssistant, Role: "assistant", Text: "Reading main.go.", EstTokens: 4},
			{Seq: 3, TS: at(3 * time.Second), Turn: 0, Kind: schema.KindToolCall, ToolName: "Read", CallID: "c1", Target: "/repo/main.go",
				Args: `{"file_path":"/repo/main.go"}`, EstTokens: 12},
			{Seq: 4, Turn: 1, Kind: schema.KindToolResult, ToolName: "Read", CallID: "c1", ToolKey: "k1", Target: "/repo/main.go",
				Text: "package main\n", Chars: 4800, EstTokens: 1200},
			{Seq: 5, TS: at(5 * time.Second), Turn: 1, Kind: schema.KindToolCall, ToolName: "Bash", CallID: "c2", Target: "go test ./...",
				Args: `{"command":"go test ./..."}`, EstTokens: 10},
			{Seq: 6, TS: at(9 * time.Second), Turn: 2, Kind: schema.KindToolResult, ToolName: "Bash", CallID: "c2", ToolKey: "c2",
				Target: "go test ./...", Text: "FAIL", Chars: 4, EstTokens: 1, IsError: true, ExitCode: i64(1)},
			{Seq: 7, TS: at(10 * time.Second), Turn: 2, Kind: schema.KindToolCall, ToolName: "manage_context", CallID: "c3",
				Args: `{"disable":["k1","c2"]}`, EstTokens: 15},
			{Seq: 8, TS: at(10*time.Second + 500*time.Millisecond), Turn: 3, Kind: schema.KindToolResult, ToolName: "manage_context",
				CallID: "c3", ToolKey: "c3", Text: "ok", Chars: 2, EstTokens: 1},
			{Seq: 9, TS: at(12 * time.Second), Turn: 3, Kind: schema.KindToolCall, ToolName: "manage_context", CallID: "c4",
				Args: `{"enable":["k1"]}`, EstTokens: 9},
			{Seq: 10, TS: at(12 * time.Second), Turn: 4, Kind: schema.KindToolResult, ToolName: "manage_context", CallID: "c4",
				ToolKey: "c4", Text: "ok", Chars: 2, EstTokens: 1},
			{Seq: 11, TS: at(20 * time.Second), Turn: 4, Kind: schema.KindCompaction, Role: "system", Text: "Summary: fixed main.go", EstTokens: 6},
			{Seq: 12, Turn: 4, Kind: schema.KindUser, Role: "user", Text: "Thanks", EstTokens: 2},
		},
		Ops: []schema.ContextOp{
			{Seq: 7, Turn: 2, Op: schema.OpDisable, ToolKey: "c2", Trigger: "manage_context"},
			{Seq: 7, Turn: 2, Op: schema.OpDisable, ToolKey: "k1", Trigger: "manage_context"},
			{Seq: 9, Turn: 3, Op: schema.OpEnable, ToolKey: "k1", Trigger: "manage_context"},
			{Seq: 11, Turn: 4, Op: schema.OpCompaction, TokensBefore: i64(150000), TokensAfter: i64(20000), Trigger: "auto", Detail: "auto compact"},
		},
	}
	r2 := eventlog.RunRecords{
		Run: schema.Run{RunID: "run-2", SourceFormat: "swe-agent-traj", Harness: "swe-agent", Model: "gpt-4o", ModelFamily: "gpt",
			EndReason: schema.EndUnknown, NTurns: 1},
		Events: []schema.Event{
			{Seq: 0, Kind: schema.KindUser, Role: "user", Text: "Find the TODOs", EstTokens: 4},
			{Seq: 1, Kind: schema.KindToolCall, ToolName: "grep", CallID: "g1", Target: "TODO @ src", Args: `{"pattern":"TODO","path":"src"}`, EstTokens: 8},
			{Seq: 2, Turn: 1, Kind: schema.KindToolResult, ToolName: "grep", CallID: "g1", ToolKey: "g1", Target: "TODO @ src", Text: "src/a.go:3: TODO", Chars: 16, EstTokens: 4},
		},
		Ops: []schema.ContextOp{
			{Seq: 5, Turn: 1, Op: schema.OpTruncation, ToolKey: "x9", TokensBefore: i64(400), TokensAfter: i64(100), Trigger: "history"},
		},
	}
	for i := range r1.Events {
		r1.Events[i].RunID = r1.Run.RunID
	}
	for i := range r2.Events {
		r2.Events[i].RunID = r2.Run.RunID
	}
	return []eventlog.RunRecords{r1, r2}
}

// hostile is text an agent log can hold that must not break the documents:
// markup, a CDATA terminator, entities, NUL and other C0 controls, an ANSI
// escape, invalid UTF-8, the non-characters U+FFFE/U+FFFF, line separators
// and a character outside the BMP.
const hostile = "<script>alert('x')</script> ]]> &amp; \"q\" \x00nul \x01\x02\x08\x0b\x0c\x1b[31mred\x1b[0m \x7f " +
	"bad:\xff\xfe\xc3 tab:\t nl:\n cr:\r \u2028\u2029 \ufffe\uffff 😀 </log>"

// hostileRuns is one run whose every text field holds hostile text.
func hostileRuns() []eventlog.RunRecords {
	id := "run<" + hostile
	r := eventlog.RunRecords{
		Run: schema.Run{RunID: id, SourceFormat: hostile, Harness: hostile, Model: hostile, ModelFamily: hostile, TaskID: hostile,
			EndReason: schema.EndReason(hostile), StartedAt: at(0)},
		Events: []schema.Event{
			{Seq: 0, TS: at(0), Kind: schema.KindUser, Role: hostile, Text: hostile},
			{Seq: 1, TS: at(time.Second), Kind: schema.KindToolCall, ToolName: hostile, CallID: hostile, Target: hostile, Args: `{"command":"` + "x" + `"}`, Text: hostile},
			{Seq: 2, Kind: schema.KindToolResult, ToolName: hostile, CallID: hostile, ToolKey: hostile, Target: hostile, Text: hostile},
		},
		Ops: []schema.ContextOp{{Seq: 2, Op: schema.OpDisable, ToolKey: hostile, Trigger: hostile, Detail: hostile}},
	}
	for i := range r.Events {
		r.Events[i].RunID = id
	}
	return []eventlog.RunRecords{r}
}

// synthRuns builds runs totalling about n events: per run, a user prompt
// then rounds of assistant text, a tool call and its DTOC-keyed result, and
// every tenth round a manage_context call disabling the two previous
// outputs; every 50th run has no timestamps.
func synthRuns(n int) []eventlog.RunRecords {
	const perRun = 1000
	tools := []struct{ name, args, target string }{
		{"Read", `{"file_path":"/repo/pkg/file%d.go"}`, "/repo/pkg/file%d.go"},
		{"Bash", `{"command":"go test ./pkg%d/..."}`, "go test ./pkg%d/..."},
		{"Grep", `{"pattern":"func Test%d"}`, "func Test%d"},
	}
	var runs []eventlog.RunRecords
	for r := 0; len(runs)*perRun < n; r++ {
		id := fmt.Sprintf("synth-%05d", r)
		rr := eventlog.RunRecords{Run: schema.Run{RunID: id, SourceFormat: "synth", Harness: "synth", Model: "model-a", ModelFamily: "a", StartedAt: at(0)}}
		timed := r%50 != 49
		ts := func(seq int64) *time.Time {
			if !timed {
				return nil
			}
			return at(time.Duration(seq) * 700 * time.Millisecond)
		}
		seq := int64(0)
		add := func(e schema.Event) {
			e.RunID, e.Seq, e.TS = id, seq, ts(seq)
			rr.Events = append(rr.Events, e)
			seq++
		}
		add(schema.Event{Kind: schema.KindUser, Role: "user", Text: "Solve the task.", EstTokens: 4})
		for round := 0; seq < perRun-4; round++ {
			tl := tools[round%len(tools)]
			call := fmt.Sprintf("call-%d", round)
			add(schema.Event{Turn: int64(round), Kind: schema.KindAssistant, Text: "Next I will look at the code.", EstTokens: 8})
			add(schema.Event{Turn: int64(round), Kind: schema.KindToolCall, ToolName: tl.name, CallID: call,
				Args: fmt.Sprintf(tl.args, round%40), Target: fmt.Sprintf(tl.target, round%40), EstTokens: 20})
			add(schema.Event{Turn: int64(round + 1), Kind: schema.KindToolResult, ToolName: tl.name, CallID: call, ToolKey: "k" + call,
				Target: fmt.Sprintf(tl.target, round%40), Text: "result text", Chars: 2000, EstTokens: 500})
			if round%10 == 9 {
				mc := fmt.Sprintf("mc-%d", round)
				add(schema.Event{Turn: int64(round + 1), Kind: schema.KindToolCall, ToolName: "manage_context", CallID: mc,
					Args: fmt.Sprintf(`{"disable":["kcall-%d","kcall-%d"]}`, round-1, round), EstTokens: 15})
				for _, k := range []int{round - 1, round} {
					rr.Ops = append(rr.Ops, schema.ContextOp{RunID: id, Seq: seq - 1, Turn: int64(round + 1), Op: schema.OpDisable,
						ToolKey: fmt.Sprintf("kcall-%d", k), Trigger: "manage_context"})
				}
			}
		}
		runs = append(runs, rr)
	}
	return runs
}

// slice is a Source over runs.
func slice(runs []eventlog.RunRecords) eventlog.Source {
	return func(yield func(*eventlog.RunRecords) error) error {
		for i := range runs {
			if err := yield(&runs[i]); err != nil {
				return err
			}
		}
		return nil
	}
}

// digest is the target id part WriteOCEL documents: the first 16 hex digits
// of the SHA-256 of the target text.
func digest(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}
