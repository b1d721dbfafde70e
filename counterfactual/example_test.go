package counterfactual_test

import (
	"fmt"

	"github.com/trajmine/trajmine/counterfactual"
	"github.com/trajmine/trajmine/schema"
)

func ExampleUses() {
	events := []schema.Event{
		{Seq: 0, Turn: 0, Kind: schema.KindUser, Text: "Fix the rounding bug in app/billing.py"},
		{Seq: 1, Turn: 0, Kind: schema.KindToolCall, ToolName: "read_file", CallID: "c1", Target: "app/billing.py", Args: `{"path":"app/billing.py"}`},
		{Seq: 2, Turn: 1, Kind: schema.KindToolResult, ToolName: "read_file", CallID: "c1", Text: "def compute_total(items):\n    return round(sum(items))\n"},
		{Seq: 3, Turn: 1, Kind: schema.KindToolCall, ToolName: "edit", CallID: "c2", Target: "app/billing.py",
			Args: `{"new":"return sum(items)","old":"return round(sum(items))","path":"app/billing.py","where":"compute_total"}`},
	}
	uses := counterfactual.Uses(events)
	for _, u := range uses {
		fmt.Printf("call %d used output %d (%s) %v at %v\n", u.Call, u.Output, u.Kind, u.Evidence, u.Offsets)
	}
	for _, o := range counterfactual.Summarize(events, uses) {
		fmt.Printf("%s %s: %d content, %d target uses, calls %d-%d\n", o.ToolName, o.Target, o.ContentUses, o.TargetUses, o.FirstCall, o.LastCall)
	}
	// Output:
	// call 1 used output 2 (content) [compute_total] at [4]
	// call 1 used output 2 (target) [] at []
	// read_file app/billing.py: 1 content, 1 target uses, calls 1-1
}
