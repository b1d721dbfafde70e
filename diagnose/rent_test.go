package diagnose_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/trajmine/trajmine/diagnose"
	"github.com/trajmine/trajmine/schema"
)

// rentCall builds a tool_call event.
func rentCall(seq, turn int64, id, tool, target string) schema.Event {
	return schema.Event{RunID: "r", Seq: seq, Turn: turn, Kind: schema.KindToolCall, ToolName: tool, CallID: id, Target: target}
}

// rentResult builds a tool_result event whose tool key is its call id.
func rentResult(seq, turn int64, id, tool string, est int64) schema.Event {
	return schema.Event{RunID: "r", Seq: seq, Turn: turn, Kind: schema.KindToolResult, ToolName: tool, CallID: id, ToolKey: id, EstTokens: est}
}

// rentEvent builds an event of another kind.
func rentEvent(seq, turn int64, kind schema.EventKind) schema.Event {
	return schema.Event{RunID: "r", Seq: seq, Turn: turn, Kind: kind}
}

// rentOp builds a context op.
func rentOp(seq, turn int64, op schema.OpKind, key string) schema.ContextOp {
	return schema.ContextOp{RunID: "r", Seq: seq, Turn: turn, Op: op, ToolKey: key}
}

// rentCompacted: three outputs cut by a compaction at turn 4, one after it; last call 5.
var rentCompacted = struct {
	events []schema.Event
	ops    []schema.ContextOp
}{
	events: []schema.Event{
		rentEvent(0, 0, schema.KindUser),
		rentCall(1, 0, "c1", "read_file", "a.go"),
		rentResult(2, 1, "c1", "read_file", 100),
		rentCall(3, 1, "c2", "bash", "ls"),
		rentResult(4, 2, "c2", "bash", 10),
		rentCall(5, 2, "c3", "read_file", "b.go"),
		rentResult(6, 3, "c3", "read_file", 50),
		rentEvent(7, 3, schema.KindAssistant),
		rentEvent(8, 4, schema.KindContextOp),
		rentCall(9, 4, "c4", "bash", "ls"),
		rentResult(10, 5, "c4", "bash", 20),
		rentEvent(11, 5, schema.KindAssistant),
	},
	ops: []schema.ContextOp{rentOp(8, 4, schema.OpCompaction, "")},
}

// rentDTOC: k1 disabled by call 1 and re-enabled by call 3; last call 5.
var rentDTOC = struct {
	events []schema.Event
	ops    []schema.ContextOp
}{
	events: []schema.Event{
		rentEvent(0, 0, schema.KindUser),
		rentCall(1, 0, "k1", "read_file", "a.go"),
		rentResult(2, 1, "k1", "read_file", 100),
		rentCall(3, 1, "m1", "manage_context", ""),
		rentResult(4, 2, "m1", "manage_context", 5),
		rentCall(5, 2, "c2", "bash", "ls"),
		rentResult(6, 3, "c2", "bash", 10),
		rentCall(7, 3, "m2", "manage_context", ""),
		rentResult(8, 4, "m2", "manage_context", 5),
		rentEvent(9, 4, schema.KindAssistant),
		rentEvent(10, 5, schema.KindAssistant),
	},
	ops: []schema.ContextOp{rentOp(3, 1, schema.OpDisable, "k1"), rentOp(7, 3, schema.OpEnable, "k1")},
}

func TestVisibilitySpans(t *testing.T) {
	tests := []struct {
		name   string
		events []schema.Event
		ops    []schema.ContextOp
		opts   *diagnose.VisibilityOptions
		want   map[string][]diagnose.Span
		last   int64
	}{
		{
			name: "compaction cut-off", events: rentCompacted.events, ops: rentCompacted.ops, last: 5,
			want: map[string][]diagnose.Span{"c1": {{1, 3}}, "c2": {{2, 3}}, "c3": {{3, 3}}, "c4": {{5, 5}}},
		},
		{
			name: "dtoc disable then enable", events: rentDTOC.events, ops: rentDTOC.ops, last: 5,
			want: map[string][]diagnose.Span{"k1": {{1, 1}, {4, 5}}, "m1": {{2, 5}}, "c2": {{3, 5}}, "m2": {{4, 5}}},
		},
		{
			name: "disable and enable in one call is a no-op", events: rentDTOC.events, last: 5,
			ops:  []schema.ContextOp{rentOp(3, 1, schema.OpDisable, "k1"), rentOp(3, 1, schema.OpEnable, "k1")},
			want: map[string][]diagnose.Span{"k1": {{1, 5}}, "m1": {{2, 5}}, "c2": {{3, 5}}, "m2": {{4, 5}}},
		},
		{
			name: "keyed masking hides only its key", events: rentCompacted.events, last: 5,
			ops:  []schema.ContextOp{rentOp(8, 4, schema.OpMasking, "c1")},
			want: map[string][]diagnose.Span{"c1": {{1, 3}}, "c2": {{2, 5}}, "c3": {{3, 5}}, "c4": {{5, 5}}},
		},
		{
			name: "keyless truncation cuts everything older", events: rentCompacted.events, last: 5,
			ops:  []schema.ContextOp{rentOp(8, 4, schema.OpTruncation, "")},
			want: map[string][]diagnose.Span{"c1": {{1, 3}}, "c2": {{2, 3}}, "c3": {{3, 3}}, "c4": {{5, 5}}},
		},
		{
			name: "NTurns sets the last call", events: rentCompacted.events, last: 3,
			opts: &diagnose.VisibilityOptions{NCalls: 4},
			want: map[string][]diagnose.Span{"c1": {{1, 3}}, "c2": {{2, 3}}, "c3": {{3, 3}}, "c4": nil},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := diagnose.NewVisibility(tc.events, tc.ops, tc.opts)
			got := map[string][]diagnose.Span{}
			for _, o := range v.Outputs {
				got[o.ToolKey] = o.Spans
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("spans (-want +got):\n%s", diff)
			}
			if v.LastCall != tc.last {
				t.Errorf("LastTurn = %d, want %d", v.LastCall, tc.last)
			}
		})
	}
}

func TestVisibilityInPrompt(t *testing.T) {
	v := diagnose.NewVisibility(rentDTOC.events, rentDTOC.ops, nil)
	for _, tc := range []struct {
		turn int64
		want []string
	}{
		{0, nil},
		{1, []string{"k1"}},
		{2, []string{"m1"}},
		{3, []string{"m1", "c2"}},
		{4, []string{"k1", "m1", "c2", "m2"}},
		{6, nil},
	} {
		if diff := cmp.Diff(tc.want, v.InPrompt(tc.turn), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("InPrompt(%d) (-want +got):\n%s", tc.turn, diff)
		}
	}
	if v.VisibleAt("k1", 2) || !v.VisibleAt("k1", 4) || v.VisibleAt("nope", 1) {
		t.Errorf("VisibleAt disagrees with the spans")
	}
}

func TestRent(t *testing.T) {
	tests := []struct {
		name   string
		events []schema.Event
		ops    []schema.ContextOp
		want   diagnose.RunRent
	}{
		{
			name: "compaction cut-off", events: rentCompacted.events, ops: rentCompacted.ops,
			want: diagnose.RunRent{RunID: "r", Total: 390, Tools: []diagnose.ToolRent{
				{Tool: "read_file", Rent: 100*3 + 50*1, Share: 350.0 / 390, Outputs: 2, Tokens: 150, MeanTokens: 75},
				{Tool: "bash", Rent: 10*2 + 20*1, Share: 40.0 / 390, Outputs: 2, Tokens: 30, MeanTokens: 15},
			}},
		},
		{
			name: "dtoc hidden interval not counted", events: rentDTOC.events, ops: rentDTOC.ops,
			want: diagnose.RunRent{RunID: "r", Total: 360, Tools: []diagnose.ToolRent{
				{Tool: "read_file", Rent: 100 * 3, Share: 300.0 / 360, Outputs: 1, Tokens: 100, MeanTokens: 100},
				{Tool: "bash", Rent: 10 * 3, Share: 30.0 / 360, Outputs: 1, Tokens: 10, MeanTokens: 10},
				{Tool: "manage_context", Rent: 5*4 + 5*2, Share: 30.0 / 360, Outputs: 2, Tokens: 10, MeanTokens: 5},
			}},
		},
		{
			name: "no outputs", events: []schema.Event{rentEvent(0, 0, schema.KindUser)},
			want: diagnose.RunRent{RunID: "r"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := diagnose.NewVisibility(tc.events, tc.ops, nil).Rent()
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty(), cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("Rent (-want +got):\n%s", diff)
			}
		})
	}
}

// rentSys builds a system event with role (system, developer, tools, assistant …).
func rentSys(seq, turn int64, role string, est int64) schema.Event {
	return schema.Event{RunID: "r", Seq: seq, Turn: turn, Kind: schema.KindSystem, Role: role, EstTokens: est}
}

// rentPrefixed: a system prompt (1000) and tool definitions (200) at call 0,
// a keyless truncation at call 2 (cuts outputs, not the prefix), a
// compaction at call 3 after which the harness logs its system prompt again;
// last call 4.
var rentPrefixed = struct {
	events []schema.Event
	ops    []schema.ContextOp
}{
	events: []schema.Event{
		rentSys(0, 0, "system", 1000),
		rentSys(1, 0, schema.RoleToolDefinitions, 200),
		rentEvent(2, 0, schema.KindUser),
		rentCall(3, 0, "c1", "read_file", "a.go"),
		rentResult(4, 1, "c1", "read_file", 100),
		rentCall(5, 1, "c2", "bash", "ls"),
		rentResult(6, 2, "c2", "bash", 10),
		rentEvent(7, 2, schema.KindContextOp),
		rentSys(8, 2, "assistant", 500), // a harness notice (Claude Code's synthetic message): not the system prompt
		rentEvent(9, 3, schema.KindContextOp),
		rentSys(10, 3, "Developer", 1000),
		rentEvent(11, 3, schema.KindAssistant),
		rentEvent(12, 4, schema.KindAssistant),
	},
	ops: []schema.ContextOp{rentOp(7, 2, schema.OpTruncation, ""), rentOp(9, 3, schema.OpCompaction, "")},
}

// TestRentPrefix checks the system-prompt and tool-definition rent on a
// hand-built run: tokens × calls that carried them, until a compaction.
func TestRentPrefix(t *testing.T) {
	const total = 5700
	tests := []struct {
		name   string
		events []schema.Event
		ops    []schema.ContextOp
		want   diagnose.RunRent
	}{
		{
			// system prompt: 1000 × calls 0–2 (compaction at 3) + 1000 × calls 3–4 = 5000;
			// tool definitions: 200 × calls 0–2 = 600; read_file: 100 × call 1
			// (the truncation at call 2 cuts it); bash: its output arrives at
			// call 2, already truncated: 0.
			name: "prefix until compaction", events: rentPrefixed.events, ops: rentPrefixed.ops,
			want: diagnose.RunRent{RunID: "r", Total: total, SystemPrompt: 5000, ToolDefinitions: 600, Tools: []diagnose.ToolRent{
				{Tool: diagnose.RentSystemPrompt, Rent: 5000, Share: 5000.0 / total, Outputs: 2, Tokens: 2000, MeanTokens: 1000},
				{Tool: diagnose.RentToolDefinitions, Rent: 600, Share: 600.0 / total, Outputs: 1, Tokens: 200, MeanTokens: 200},
				{Tool: "read_file", Rent: 100, Share: 100.0 / total, Outputs: 1, Tokens: 100, MeanTokens: 100},
				{Tool: "bash", Rent: 0, Share: 0, Outputs: 1, Tokens: 10, MeanTokens: 10},
			}},
		},
		{
			name: "prefix without ops", events: []schema.Event{rentSys(0, 0, "system", 10), rentEvent(1, 0, schema.KindAssistant), rentEvent(2, 1, schema.KindAssistant)},
			want: diagnose.RunRent{RunID: "r", Total: 20, SystemPrompt: 20, Tools: []diagnose.ToolRent{
				{Tool: diagnose.RentSystemPrompt, Rent: 20, Share: 1, Outputs: 1, Tokens: 10, MeanTokens: 10},
			}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := diagnose.NewVisibility(tc.events, tc.ops, nil)
			got := v.Rent()
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty(), cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("Rent (-want +got):\n%s", diff)
			}
			for turn := int64(0); turn <= v.LastCall; turn++ {
				for _, k := range v.InPrompt(turn) {
					if _, ok := v.Output(k); !ok {
						t.Errorf("InPrompt(%d) lists %q, not an output", turn, k)
					}
				}
			}
		})
	}
	if !diagnose.IsPrefix(diagnose.RentSystemPrompt) || !diagnose.IsPrefix(diagnose.RentToolDefinitions) || diagnose.IsPrefix("read_file") {
		t.Error("IsPrefix")
	}
}

func TestRentByTool(t *testing.T) {
	a := diagnose.NewVisibility(rentCompacted.events, rentCompacted.ops, nil).Rent()
	b := diagnose.NewVisibility(rentDTOC.events, rentDTOC.ops, nil).Rent()
	got := diagnose.RentByTool([]diagnose.RunRent{a, b})
	want := []diagnose.ToolRent{
		{Tool: "read_file", Rent: 650, Share: 650.0 / 750, Outputs: 3, Tokens: 250, MeanTokens: 250.0 / 3},
		{Tool: "bash", Rent: 70, Share: 70.0 / 750, Outputs: 3, Tokens: 40, MeanTokens: 40.0 / 3},
		{Tool: "manage_context", Rent: 30, Share: 30.0 / 750, Outputs: 2, Tokens: 10, MeanTokens: 5},
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("RentByTool (-want +got):\n%s", diff)
	}
}

func ExampleVisibility_Rent() {
	events := []schema.Event{
		{RunID: "r", Seq: 0, Turn: 0, Kind: schema.KindToolCall, ToolName: "read_file", CallID: "c1", Target: "a.go"},
		{RunID: "r", Seq: 1, Turn: 1, Kind: schema.KindToolResult, ToolName: "read_file", CallID: "c1", ToolKey: "c1", EstTokens: 100},
		{RunID: "r", Seq: 2, Turn: 1, Kind: schema.KindToolCall, ToolName: "bash", CallID: "c2", Target: "ls"},
		{RunID: "r", Seq: 3, Turn: 2, Kind: schema.KindToolResult, ToolName: "bash", CallID: "c2", ToolKey: "c2", EstTokens: 10},
		{RunID: "r", Seq: 4, Turn: 2, Kind: schema.KindAssistant},
		{RunID: "r", Seq: 5, Turn: 3, Kind: schema.KindAssistant},
	}
	// Call 2 hides c1 from call 3 on.
	ops := []schema.ContextOp{{RunID: "r", Seq: 4, Turn: 2, Op: schema.OpDisable, ToolKey: "c1"}}
	rent := diagnose.NewVisibility(events, ops, nil).Rent()
	fmt.Println("total", rent.Total)
	for _, t := range rent.Tools {
		fmt.Printf("%s rent %d share %.2f outputs %d mean %.0f\n", t.Tool, t.Rent, t.Share, t.Outputs, t.MeanTokens)
	}
	// Output:
	// total 220
	// read_file rent 200 share 0.91 outputs 1 mean 100
	// bash rent 20 share 0.09 outputs 1 mean 10
}

// TestRentCountsEnvelope: a DTOC envelope is carried with its output and
// pays rent with it.
func TestRentCountsEnvelope(t *testing.T) {
	res := rentResult(1, 1, "c1", "read", 10)
	res.EnvelopeTokens = 5
	events := []schema.Event{
		rentCall(0, 0, "c1", "read", "a.go"), res,
		rentEvent(2, 1, schema.KindAssistant), rentEvent(3, 2, schema.KindAssistant),
	}
	got := diagnose.NewVisibility(events, nil, nil).Rent()
	// carried by calls 1 and 2: (10 + 5) × 2 = 30
	if len(got.Tools) != 1 || got.Tools[0].Rent != 30 || got.Tools[0].Tokens != 15 || got.Total != 30 {
		t.Errorf("rent %+v, want read 30 (15 tokens × 2 calls)", got)
	}
}

// TestRentCopied: the copied calls of a resumed session
// (VisibilityOptions.Copied) pay no rent, their origin does; an output
// they alone carried still counts among Outputs and Tokens.
func TestRentCopied(t *testing.T) {
	tests := []struct {
		name   string
		events []schema.Event
		ops    []schema.ContextOp
		copied map[int64]bool
		want   diagnose.RunRent
	}{
		{
			// calls 0–2 copied, 3–5 its own: read_file 100 × call 3 (the
			// compaction at 4 cuts it) + 50 × call 3; bash 10 × call 3 + 20 × call 5
			name: "copied prefix", events: rentCompacted.events, ops: rentCompacted.ops, copied: map[int64]bool{0: true, 1: true, 2: true},
			want: diagnose.RunRent{RunID: "r", Total: 180, Tools: []diagnose.ToolRent{
				{Tool: "read_file", Rent: 100 + 50, Share: 150.0 / 180, Outputs: 2, Tokens: 150, MeanTokens: 75},
				{Tool: "bash", Rent: 10 + 20, Share: 30.0 / 180, Outputs: 2, Tokens: 30, MeanTokens: 15},
			}},
		},
		{
			name: "every call copied", events: rentCompacted.events, ops: rentCompacted.ops,
			copied: map[int64]bool{0: true, 1: true, 2: true, 3: true, 4: true, 5: true},
			want: diagnose.RunRent{RunID: "r", Total: 0, Tools: []diagnose.ToolRent{
				{Tool: "bash", Rent: 0, Outputs: 2, Tokens: 30, MeanTokens: 15},
				{Tool: "read_file", Rent: 0, Outputs: 2, Tokens: 150, MeanTokens: 75},
			}},
		},
		{
			// calls 0–1 copied: system prompt 1000 × call 2 + 1000 × calls
			// 3–4 = 3000; tool definitions 200 × call 2; read_file's only
			// call (1) is a copy; bash: 0 as before
			name: "copied prefix with system prompt", events: rentPrefixed.events, ops: rentPrefixed.ops, copied: map[int64]bool{0: true, 1: true},
			want: diagnose.RunRent{RunID: "r", Total: 3200, SystemPrompt: 3000, ToolDefinitions: 200, Tools: []diagnose.ToolRent{
				{Tool: diagnose.RentSystemPrompt, Rent: 3000, Share: 3000.0 / 3200, Outputs: 2, Tokens: 2000, MeanTokens: 1000},
				{Tool: diagnose.RentToolDefinitions, Rent: 200, Share: 200.0 / 3200, Outputs: 1, Tokens: 200, MeanTokens: 200},
				{Tool: "bash", Rent: 0, Outputs: 1, Tokens: 10, MeanTokens: 10},
				{Tool: "read_file", Rent: 0, Outputs: 1, Tokens: 100, MeanTokens: 100},
			}},
		},
		{
			// copied calls outside the carried spans change nothing: dtoc's
			// k1 is hidden at calls 2–3, the copies are 2 and 3 — k1 pays
			// 100 × calls 1, 4, 5 as without copies; bash 10 × calls 4–5;
			// manage_context m1 5 × calls 4–5, m2 5 × calls 4–5
			name: "copied calls inside a hidden interval", events: rentDTOC.events, ops: rentDTOC.ops, copied: map[int64]bool{2: true, 3: true},
			want: diagnose.RunRent{RunID: "r", Total: 340, Tools: []diagnose.ToolRent{
				{Tool: "read_file", Rent: 100 * 3, Share: 300.0 / 340, Outputs: 1, Tokens: 100, MeanTokens: 100},
				{Tool: "bash", Rent: 10 * 2, Share: 20.0 / 340, Outputs: 1, Tokens: 10, MeanTokens: 10},
				{Tool: "manage_context", Rent: 5*2 + 5*2, Share: 20.0 / 340, Outputs: 2, Tokens: 10, MeanTokens: 5},
			}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := diagnose.NewVisibility(tc.events, tc.ops, &diagnose.VisibilityOptions{Copied: tc.copied}).Rent()
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty(), cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("Rent (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCopiedTurns(t *testing.T) {
	tests := []struct {
		name  string
		usage []schema.Usage
		want  map[int64]bool
	}{
		{"none", []schema.Usage{{Turn: 0}, {Turn: 1}}, nil},
		{"prefix", []schema.Usage{{Turn: 0, CopyOf: "a"}, {Turn: 1, CopyOf: "a"}, {Turn: 2}}, map[int64]bool{0: true, 1: true}},
		{"two origins", []schema.Usage{{Turn: 0, CopyOf: "a"}, {Turn: 1, CopyOf: "b"}, {Turn: 3}}, map[int64]bool{0: true, 1: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, diagnose.CopiedCalls(tc.usage)); diff != "" {
				t.Errorf("CopiedTurns (-want +got):\n%s", diff)
			}
		})
	}
}
