package diagnose

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/schema"
)

// occEv builds an event of a turn with est tokens.
func occEv(turn int64, kind schema.EventKind, est int64) schema.Event {
	role := "user"
	if kind.IsOutput() {
		role = "assistant"
	}
	if kind == schema.KindCompaction || kind == schema.KindContextOp {
		role = "system"
	}
	return schema.Event{Turn: turn, Kind: kind, Role: role, EstTokens: est}
}

func TestOccupancy(t *testing.T) {
	// three calls with estimated prompts 100, 300, 600 (each adds input
	// only: their outputs have no tokens), then the result of the last call's
	// tool call (4,000), which no call was sent: no call, no prompt
	events := []schema.Event{
		occEv(0, schema.KindUser, 100), occEv(0, schema.KindToolCall, 0),
		occEv(1, schema.KindToolResult, 200), occEv(1, schema.KindToolCall, 0),
		occEv(2, schema.KindToolResult, 300), occEv(2, schema.KindAssistant, 0),
		occEv(3, schema.KindToolResult, 4000),
	}
	tests := []struct {
		name   string
		events []schema.Event // nil: events
		usage  []schema.Usage
		ops    []schema.ContextOp
		window int64
		want   RunOccupancy
	}{
		{
			name:   "estimated only",
			window: 1000,
			want: RunOccupancy{Window: 1000, EstimatedCalls: 3, PeakTokens: 600, PeakCall: 2, PeakShare: 0.6, Calls50: 1, Compactions: []int64{},
				Calls: []CallOccupancy{{0, 100, PromptEstimated, 0.1}, {1, 300, PromptEstimated, 0.3}, {2, 600, PromptEstimated, 0.6}}},
		},
		{
			name:   "logged beats estimated, estimated usage rows ignored",
			usage:  []schema.Usage{{Turn: 0, InputTokens: 500}, {Turn: 1, InputTokens: 960}, {Turn: 2, InputTokens: 1, Estimated: true}},
			window: 1000,
			want: RunOccupancy{Window: 1000, LoggedCalls: 2, EstimatedCalls: 1, PeakTokens: 960, PeakCall: 1, PeakShare: 0.96, Calls50: 3, Calls80: 1, Calls95: 1, Compactions: []int64{},
				Calls: []CallOccupancy{{0, 500, PromptLogged, 0.5}, {1, 960, PromptLogged, 0.96}, {2, 600, PromptEstimated, 0.6}}},
		},
		{
			name:   "peak is a max not a sum; thresholds inclusive",
			usage:  []schema.Usage{{Turn: 0, InputTokens: 800}, {Turn: 1, InputTokens: 800}, {Turn: 2, InputTokens: 950}},
			window: 1000,
			want: RunOccupancy{Window: 1000, LoggedCalls: 3, PeakTokens: 950, PeakCall: 2, PeakShare: 0.95, Calls50: 3, Calls80: 3, Calls95: 1, Compactions: []int64{},
				Calls: []CallOccupancy{{0, 800, PromptLogged, 0.8}, {1, 800, PromptLogged, 0.8}, {2, 950, PromptLogged, 0.95}}},
		},
		{
			// turn 4 has a usage row and no event: the last call; turn 3,
			// before it, is then a call too (100 + 200 + 300 + 4,000)
			name:   "usage-only turn is a call, and the turns before it; unknown window counts nothing",
			usage:  []schema.Usage{{Turn: 4, InputTokens: 700}},
			window: 0,
			want: RunOccupancy{LoggedCalls: 1, EstimatedCalls: 4, PeakTokens: 4600, PeakCall: 3, Compactions: []int64{},
				Calls: []CallOccupancy{{0, 100, PromptEstimated, 0}, {1, 300, PromptEstimated, 0}, {2, 600, PromptEstimated, 0}, {3, 4600, PromptEstimated, 0}, {4, 700, PromptLogged, 0}}},
		},
		{
			name:   "inputs and no model output or usage: no call",
			events: []schema.Event{occEv(0, schema.KindSystem, 50), occEv(0, schema.KindUser, 100)},
			window: 1000,
			want:   RunOccupancy{Window: 1000, Calls: []CallOccupancy{}, Compactions: []int64{}},
		},
		{
			name:   "compaction points",
			ops:    []schema.ContextOp{{Turn: 2, Op: schema.OpSummary}, {Turn: 2, Op: schema.OpCompaction}, {Turn: 1, Op: schema.OpTruncation}, {Turn: 1, Op: schema.OpDisable}, {Turn: 0, Op: schema.OpMasking}},
			window: 1000,
			want: RunOccupancy{Window: 1000, EstimatedCalls: 3, PeakTokens: 600, PeakCall: 2, PeakShare: 0.6, Calls50: 1, Compactions: []int64{1, 2},
				Calls: []CallOccupancy{{0, 100, PromptEstimated, 0.1}, {1, 300, PromptEstimated, 0.3}, {2, 600, PromptEstimated, 0.6}}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			evs := tc.events
			if evs == nil {
				evs = events
			}
			got := Occupancy(schema.Run{}, evs, tc.usage, tc.ops, tc.window)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Occupancy (-want +got):\n%s", diff)
			}
		})
	}
}
