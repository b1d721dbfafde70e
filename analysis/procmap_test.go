package analysis

import (
	"testing"

	"github.com/trajmine/trajmine/dashboards"
	"github.com/trajmine/trajmine/mining"
)

// TestFillMinedDurations: the page's process map carries the mined
// medians (ms) and how many occurrences were timed, for activities and
// edges, from a log with known timestamps (seconds; c has none):
//
//	c1: a@0 a@2 b@5    c2: a@10 b@14 c
//
// By hand: a → a [2 s]; a → b [3 s, 4 s]: median 3.5 s; b → c untimed.
// Activities, from each event to the next of its run: a [2, 3, 4]: 3 s;
// b [] (c1's b is last, c2's b → c untimed); c untimed. (The page showed 0
// ms for every activity: their durations were never filled.)
func TestFillMinedDurations(t *testing.T) {
	const base = 1_700_000_000
	at := func(a int32, s int64) mining.Event { return mining.Event{Activity: a, TS: (base + s) * 1_000_000} }
	l := &mining.Log{Activities: []string{"a", "b", "c"}, Cases: []mining.Case{
		{ID: "c1", Events: []mining.Event{at(0, 0), at(0, 2), at(1, 5)}},
		{ID: "c2", Events: []mining.Event{at(0, 10), at(1, 14), {Activity: 2}}},
	}}
	var d dashboards.Data
	fillMined(&d, Mined{Cases: 2, DFG: mining.NewDFG(l)})
	if d.ProcessMap == nil {
		t.Fatal("no process map")
	}
	type timing struct {
		timed int64
		ms    float64
	}
	got := map[string]timing{}
	for _, n := range d.ProcessMap.Nodes {
		got[n.ID] = timing{n.Timed, n.MedianMS}
	}
	for _, e := range d.ProcessMap.Edges {
		got[e.From+">"+e.To] = timing{e.Timed, e.MedianMS}
	}
	for _, tc := range []struct {
		key  string
		want timing
	}{
		{"a", timing{3, 3000}}, {"b", timing{}}, {"c", timing{}},
		{"a>a", timing{1, 2000}}, {"a>b", timing{2, 3500}}, {"b>c", timing{}}, {"▶>a", timing{}},
	} {
		if g, ok := got[tc.key]; !ok || g != tc.want {
			t.Errorf("%s: %+v (present %v), want %+v", tc.key, g, ok, tc.want)
		}
	}
}
