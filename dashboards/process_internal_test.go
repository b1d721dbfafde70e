package dashboards

import (
	"fmt"
	"testing"
)

// TestTopEdgesKeepsLoops: a map with more transitions than the default
// view draws keeps every self-loop, however rare (the busiest transition
// of real maps is often read → read; a rare loop must not hide either),
// beside each node's busiest edge in and out; the counts are chosen so
// that the most-frequent fill alone would drop both loops.
func TestTopEdgesKeepsLoops(t *testing.T) {
	var edges []layoutEdge
	add := func(from, to string, n int64) {
		edges = append(edges, layoutEdge{ProcessEdge: ProcessEdge{From: from, To: to, Count: n}})
	}
	// 8 nodes: limit max(12, 16) = 16; 20 edges between other nodes with
	// counts 100…81, and two loops with counts 1 and 2
	for i := 0; i < 20; i++ {
		add(fmt.Sprint("n", i%8), fmt.Sprint("n", (i+1+i/8)%8), int64(100-i))
	}
	add("n3", "n3", 1)
	add("n5", "n5", 2)
	kept := map[string]bool{}
	for _, e := range topEdges(edges) {
		kept[e.From+">"+e.To] = true
	}
	for _, loop := range []string{"n3>n3", "n5>n5"} {
		if !kept[loop] {
			t.Errorf("self-loop %s dropped from the default view", loop)
		}
	}
	if n := len(topEdges(edges)); n >= len(edges) {
		t.Errorf("default view kept all %d edges: the limit was not applied", n)
	}
}

// TestTimedText: a transition or activity never timed reads "no
// timestamps", not 0 ms; a timed one its median.
func TestTimedText(t *testing.T) {
	for _, tc := range []struct {
		timed int64
		ms    float64
		want  string
	}{
		{0, 0, "no timestamps"},
		{3, 0, "0 ms"},
		{2, 3500, "3.5 s"},
		{1, 90000, "1.5 min"},
	} {
		if got := timedText(tc.timed, tc.ms); got != tc.want {
			t.Errorf("timedText(%d, %v) = %q, want %q", tc.timed, tc.ms, got, tc.want)
		}
	}
}
