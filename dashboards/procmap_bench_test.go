package dashboards

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/trajmine/trajmine/mining"
)

// synthMap is the process map of testdata/procmap/synth-1000-dfg.json:
// the DFG of trajmine mine (its defaults: activities by class) on
// trajmine synth -n 1000 --seed 7, ingested (1,000 runs, 43,851 events;
// 9 activities, 57 transitions), converted as analysis.Page does.
func synthMap(tb testing.TB) *ProcessMap {
	tb.Helper()
	b, err := os.ReadFile("testdata/procmap/synth-1000-dfg.json")
	if err != nil {
		tb.Fatal(err)
	}
	var d mining.DFG
	if err := json.Unmarshal(b, &d); err != nil {
		tb.Fatal(err)
	}
	pm := &ProcessMap{}
	for _, n := range d.Nodes {
		pm.Nodes = append(pm.Nodes, ProcessNode{ID: n.Name, Label: n.Name, Count: int64(n.Count), Timed: int64(n.Timed), MedianMS: 1000 * n.MedianSeconds})
	}
	for _, e := range d.Edges {
		pm.Edges = append(pm.Edges, ProcessEdge{From: e.From, To: e.To, Count: int64(e.Count), Timed: int64(e.Timed), MedianMS: 1000 * e.MedianSeconds})
	}
	return pm
}

// completeMap has every edge between n activities (loops included), from
// start and to end: n² + 2n transitions.
func completeMap(n int) *ProcessMap {
	pm := &ProcessMap{}
	name := func(i int) string { return "activity-" + string(rune('a'+i%26)) + string(rune('a'+i/26)) }
	for i := range n {
		pm.Nodes = append(pm.Nodes, ProcessNode{ID: name(i), Count: int64(1000 - i), Timed: 10, MedianMS: float64(100 * (i + 1))})
		pm.Edges = append(pm.Edges, ProcessEdge{From: StartNode, To: name(i), Count: 1}, ProcessEdge{From: name(i), To: EndNode, Count: 1})
		for j := range n {
			pm.Edges = append(pm.Edges, ProcessEdge{From: name(i), To: name(j), Count: int64(1 + (i*7+j*3)%11), Timed: 1, MedianMS: float64(10 * (i + j + 1))})
		}
	}
	return pm
}

// BenchmarkProcessMap times processViewOf (both layouts, every
// view drawn) on the synth store's map and on complete maps of 8 and 20
// activities.
func BenchmarkProcessMap(b *testing.B) {
	for _, bc := range []struct {
		name string
		pm   *ProcessMap
	}{{"synth-1000", synthMap(b)}, {"complete-8", completeMap(8)}, {"complete-20", completeMap(20)}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if v := processViewOf(bc.pm); v.Empty != "" {
					b.Fatal(v.Empty)
				}
			}
		})
	}
}

// TestSynthMapViews: the synth store's map draws all four views, with the
// medians of its timed edges (read → read: 13,681 transitions).
func TestSynthMapViews(t *testing.T) {
	v := processViewOf(synthMap(t))
	if got := keys(v); got != "[frequency performance frequency-all performance-all]" {
		t.Fatalf("views %s (empty %q)", got, v.Empty)
	}
	m := readSVG(t, string(v.Variants[0].SVG))
	if m.loops["read>read"] == "" {
		t.Error("read → read, the busiest transition, is not drawn")
	}
	for a := range m.labels {
		for b := a + 1; b < len(m.labels); b++ {
			if labelBox(m.labels[a]).overlaps(labelBox(m.labels[b])) {
				t.Errorf("labels %+v and %+v overlap", m.labels[a], m.labels[b])
			}
		}
	}
}

// BenchmarkLayoutSynth times the layout alone (layoutPM: internal/layered)
// of the synth store's whole map: 11 nodes, all 57 transitions.
func BenchmarkLayoutSynth(b *testing.B) {
	g := newPMGraph(synthMap(b))
	all := make([]int, len(g.edges))
	for i := range all {
		all[i] = i
	}
	for b.Loop() {
		if _, err := layoutPM(g, all); err != nil {
			b.Fatal(err)
		}
	}
}
