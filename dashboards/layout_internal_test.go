package dashboards

import (
	"fmt"
	"slices"
	"testing"
)

func TestDownsample(t *testing.T) {
	var calls []Call
	for i := range 1000 {
		calls = append(calls, Call{Index: int64(i), Prompt: int64((i * 37) % 1001)})
	}
	calls[500].Prompt = 5000 // the peak
	got := downsample(calls, 50)
	if len(got) > 50 || got[0].Index != 0 || got[len(got)-1].Index != 999 {
		t.Fatalf("%d calls, first %d, last %d", len(got), got[0].Index, got[len(got)-1].Index)
	}
	if !slices.ContainsFunc(got, func(c Call) bool { return c.Prompt == 5000 }) {
		t.Error("the peak call was dropped")
	}
	if !slices.IsSortedFunc(got, func(a, b Call) int { return int(a.Index - b.Index) }) {
		t.Error("calls out of order")
	}
	if short := downsample(calls[:10], 50); len(short) != 10 {
		t.Errorf("a short run was downsampled to %d", len(short))
	}
}

// TestProcessLayout: start on the left, end on the right, each activity
// right of the one that first reaches it, layers spread vertically, and
// start and end edges inferred when the map has none.
func TestProcessLayout(t *testing.T) {
	pm := &ProcessMap{
		Nodes: []ProcessNode{{ID: "a", Count: 5}, {ID: "b", Count: 4}, {ID: "c", Count: 3}, {ID: "d", Count: 1}},
		Edges: []ProcessEdge{{From: StartNode, To: "a", Count: 5}, {From: "a", To: "b", Count: 3}, {From: "a", To: "c", Count: 2}, {From: "b", To: "b", Count: 2},
			{From: "c", To: "a", Count: 1}, {From: "b", To: "d", Count: 1}, {From: "d", To: EndNode, Count: 1}, {From: "c", To: EndNode, Count: 2}},
	}
	_, _, pos, layer := processLayout(pm)
	got := fmt.Sprint(layer[StartNode], layer["a"], layer["b"], layer["c"], layer["d"], layer[EndNode])
	if got != "0 1 2 2 3 4" {
		t.Errorf("layers = %s, want 0 1 2 2 3 4", got)
	}
	if pos["b"][0] != pos["c"][0] || pos["b"][1] == pos["c"][1] || pos["b"][1] > pos["c"][1] {
		t.Errorf("b %v and c %v: one layer, spread, b (more frequent) first", pos["b"], pos["c"])
	}
	// no start or end edge: inferred, to the activities nothing enters / leaves
	_, edges, _, layer := processLayout(&ProcessMap{Nodes: []ProcessNode{{ID: "x", Count: 2}, {ID: "y", Count: 2}}, Edges: []ProcessEdge{{From: "x", To: "y", Count: 2}}})
	var inferred []string
	for _, e := range edges {
		if e.inferred {
			inferred = append(inferred, e.From+"→"+e.To)
		}
	}
	if fmt.Sprint(inferred) != "[▶→x y→■]" || layer["y"] != 2 || layer[EndNode] != 3 {
		t.Errorf("inferred %v, layers %v", inferred, layer)
	}
	// the chart draws the self-loop through its loop point
	c := processChart(pm)
	links, _ := c.Option.Series[0].Links.([]GraphLink)
	if !slices.ContainsFunc(links, func(l GraphLink) bool {
		return l.Source == loopNode("b") && l.Target == "b" && l.Label.Formatter == "2"
	}) {
		t.Errorf("no labelled self-loop on b: %+v", links)
	}
}
