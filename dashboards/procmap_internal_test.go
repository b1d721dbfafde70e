package dashboards

import (
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/internal/testutil"
)

// PlantedMap, BusyMap and SynthMap are plantedMap, busyMap and synthMap
// for the browser test (package dashboards_test).
var PlantedMap, BusyMap, SynthMap = plantedMap, busyMap, synthMap

// plantedMap is a process map with a self-loop (read → read), two edges
// whose labels an unrouted map draws on the same spot (read → edit and
// edit → read: one straight line each way between the same two boxes,
// labels at its middle), an edge with no timestamps (read → test) and
// known medians (ms):
//
//	▶ → read 4 · read → read 3, 500 ms · read → edit 5, 2000 ms ·
//	edit → read 4, 1300 ms · read → test 2, untimed · test → ■ 2 ·
//	edit → ■ 2; read 1500 ms, edit 250 ms, test untimed.
func plantedMap() *ProcessMap {
	return &ProcessMap{
		Nodes: []ProcessNode{{ID: "read", Label: "read", Count: 10, Timed: 8, MedianMS: 1500}, {ID: "edit", Label: "edit", Count: 6, Timed: 5, MedianMS: 250},
			{ID: "test", Label: "test", Count: 4}},
		Edges: []ProcessEdge{{From: StartNode, To: "read", Count: 4}, {From: "read", To: "read", Count: 3, Timed: 3, MedianMS: 500},
			{From: "read", To: "edit", Count: 5, Timed: 4, MedianMS: 2000}, {From: "edit", To: "read", Count: 4, Timed: 4, MedianMS: 1300},
			{From: "read", To: "test", Count: 2}, {From: "test", To: EndNode, Count: 2}, {From: "edit", To: EndNode, Count: 2}},
	}
}

// busyActs are busyMap's activities.
var busyActs = []string{"a", "b", "c", "d", "e", "f", "g", "h"}

// busyMap has every edge between 8 activities (loops included), from
// start and to end: 80 transitions, no timestamps.
func busyMap() *ProcessMap {
	pm := &ProcessMap{}
	for i, a := range busyActs {
		pm.Nodes = append(pm.Nodes, ProcessNode{ID: a, Count: int64(100 - i)})
		pm.Edges = append(pm.Edges, ProcessEdge{From: StartNode, To: a, Count: 1}, ProcessEdge{From: a, To: EndNode, Count: 1})
		for j, b := range busyActs {
			pm.Edges = append(pm.Edges, ProcessEdge{From: a, To: b, Count: int64(1 + (i*7+j*3)%11)})
		}
	}
	return pm
}

// svgLabel is one edge label read back from a drawn map.
type svgLabel struct {
	from, to, text string
	loop           bool
	x, y           float64
}

type svgBox struct{ x0, y0, x1, y1 float64 }

func (a svgBox) overlaps(b svgBox) bool {
	return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1
}

// labelBox is the room a label takes when drawn: 11 px text at up to
// 0.65 em a character (DejaVu Sans' digits are 0.636 em), on its 1.5 px
// halo.
func labelBox(l svgLabel) svgBox {
	const font = 11.0 // the SVG's font-size for labels
	w := 0.65*font*float64(len([]rune(l.text))) + 3
	return svgBox{l.x - w/2, l.y - font/2 - 1.5, l.x + w/2, l.y + font/2 + 1.5}
}

// drawnMap is what a test reads back from an SVG: edge labels, loop
// edges (from → path d) and node boxes by id (circles included), and the
// node names and figures shown.
type drawnMap struct {
	labels  []svgLabel
	loops   map[string]string
	boxes   map[string]svgBox
	figures map[string]string // node id → "name|figure"
	titles  []string
}

func readSVG(t *testing.T, svg string) drawnMap {
	t.Helper()
	m := drawnMap{loops: map[string]string{}, boxes: map[string]svgBox{}, figures: map[string]string{}}
	dec := xml.NewDecoder(strings.NewReader(svg))
	var stack []xml.StartElement
	var node string
	var lbl *svgLabel
	attr := func(e xml.StartElement, name string) string {
		for _, a := range e.Attr {
			if a.Name.Local == name {
				return a.Value
			}
		}
		return ""
	}
	f := func(e xml.StartElement, name string) float64 {
		v, err := strconv.ParseFloat(attr(e, name), 64)
		if err != nil {
			t.Fatalf("<%s %s=%q>: %v", e.Name.Local, name, attr(e, name), err)
		}
		return v
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG does not parse as XML: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			stack = append(stack, e)
			cls := attr(e, "class")
			switch e.Name.Local {
			case "g":
				node = ""
				if strings.Contains(cls, "pm-node") {
					node = attr(e, "data-id")
				}
			case "path":
				if p := stack[len(stack)-2]; strings.Contains(attr(p, "class"), "pm-loop") {
					m.loops[attr(p, "data-from")+">"+attr(p, "data-to")] = attr(e, "d")
				}
			case "text":
				if strings.Contains(cls, "pm-elabel") {
					lbl = &svgLabel{from: attr(e, "data-from"), to: attr(e, "data-to"), loop: strings.Contains(cls, "pm-loop-label"), x: f(e, "x"), y: f(e, "y")}
				}
			case "rect":
				x, y := f(e, "x"), f(e, "y")
				m.boxes[node] = svgBox{x, y, x + f(e, "width"), y + f(e, "height")}
			case "circle":
				x, y, r := f(e, "cx"), f(e, "cy"), f(e, "r")
				m.boxes[node] = svgBox{x - r, y - r, x + r, y + r}
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
			if e.Name.Local == "text" && lbl != nil {
				m.labels = append(m.labels, *lbl)
				lbl = nil
			}
		case xml.CharData:
			if len(stack) == 0 {
				continue
			}
			top := stack[len(stack)-1]
			switch {
			case top.Name.Local == "title":
				m.titles = append(m.titles, string(e))
			case lbl != nil && top.Name.Local == "text":
				lbl.text += string(e)
			case top.Name.Local == "text" && node != "" && (attr(top, "class") == "pm-name" || attr(top, "class") == "pm-figure"):
				if attr(top, "class") == "pm-name" {
					m.figures[node] = string(e) + m.figures[node]
				} else {
					m.figures[node] += "|" + string(e)
				}
			}
		}
	}
	return m
}

// TestProcessMapPlanted draws the planted map and checks each view: its
// edge labels (by hand), the self-loop drawn with its label, no two edge
// labels overlapping and none over a box, start left of every box and end
// right of them, the same bytes twice, and the golden SVG.
func TestProcessMapPlanted(t *testing.T) {
	v := processViewOf(plantedMap())
	if v.Empty != "" || v.Note != "" {
		t.Fatalf("empty %q, note %q", v.Empty, v.Note)
	}
	want := []struct {
		key     string
		labels  map[string]string // from>to → label
		figures map[string]string
	}{
		{"frequency", map[string]string{"▶>read": "4", "read>read": "3", "read>edit": "5", "edit>read": "4", "read>test": "2", "test>■": "2", "edit>■": "2"},
			map[string]string{"read": "read|10", "edit": "edit|6", "test": "test|4"}},
		{"performance", map[string]string{"read>read": "500 ms", "read>edit": "2.0 s", "edit>read": "1.3 s", "read>test": "no timestamps"},
			map[string]string{"read": "read|1.5 s", "edit": "edit|250 ms", "test": "test|no timestamps"}},
	}
	if len(v.Variants) != len(want) {
		t.Fatalf("%d views, want %d (the map is small: no all-transitions view)", len(v.Variants), len(want))
	}
	if c := v.Variants[0].Caption; strings.Contains(c, "Dashed") {
		t.Errorf("caption %q: no edge is inferred", c)
	}
	var golden strings.Builder
	for i, w := range want {
		pv := v.Variants[i]
		t.Run(w.key, func(t *testing.T) {
			if pv.Key != w.key {
				t.Fatalf("view %d is %q, want %q", i, pv.Key, w.key)
			}
			m := readSVG(t, string(pv.SVG))
			got := map[string]string{}
			for _, l := range m.labels {
				got[l.from+">"+l.to] = l.text
			}
			if fmt.Sprint(got) != fmt.Sprint(w.labels) {
				t.Errorf("edge labels %v, want %v", got, w.labels)
			}
			if fmt.Sprint(m.figures) != fmt.Sprint(w.figures) {
				t.Errorf("boxes %v, want %v", m.figures, w.figures)
			}
			if d := m.loops["read>read"]; d == "" || len(m.loops) != 1 {
				t.Errorf("loops drawn %v, want read → read", m.loops)
			}
			if !slices.ContainsFunc(m.labels, func(l svgLabel) bool { return l.loop && l.from == "read" && l.to == "read" }) {
				t.Error("the loop's label is not marked pm-loop-label")
			}
			for a := range m.labels {
				la := labelBox(m.labels[a])
				for b := a + 1; b < len(m.labels); b++ {
					if la.overlaps(labelBox(m.labels[b])) {
						t.Errorf("labels %+v and %+v overlap", m.labels[a], m.labels[b])
					}
				}
				for id, box := range m.boxes {
					if la.overlaps(box) {
						t.Errorf("label %+v lies over node %s %+v", m.labels[a], id, box)
					}
				}
			}
			start, end := m.boxes[StartNode], m.boxes[EndNode]
			for _, id := range []string{"read", "edit", "test"} {
				if b := m.boxes[id]; !(start.x1 <= b.x0 && b.x1 <= end.x0) {
					t.Errorf("box %s %+v not between start %+v and end %+v", id, b, start, end)
				}
			}
			golden.WriteString("<!-- " + pv.Key + ": " + pv.Label + " -->\n" + string(pv.SVG) + "\n")
		})
	}
	if again := processViewOf(plantedMap()); fmt.Sprint(again) != fmt.Sprint(v) {
		t.Error("the same map drew different bytes")
	}
	testutil.Golden(t, golden.String(), "testdata/procmap/planted.svg.golden")
}

// TestProcessMapRules: each rule of the map, on a map that calls for it.
func TestProcessMapRules(t *testing.T) {
	long := "an activity name far longer than a box holds"
	complete, acts := busyMap(), busyActs
	cases := []struct {
		name  string
		pm    *ProcessMap
		check func(t *testing.T, v processView)
	}{
		{"nil map: not computed", nil, func(t *testing.T, v processView) {
			if v.Empty != "Process map: not computed for this report." {
				t.Errorf("empty = %q", v.Empty)
			}
		}},
		{"no activity", &ProcessMap{}, func(t *testing.T, v processView) {
			if !strings.Contains(v.Empty, "no run has an activity") {
				t.Errorf("empty = %q", v.Empty)
			}
		}},
		{"no timestamps: no performance view, and the page says why", &ProcessMap{
			Nodes: []ProcessNode{{ID: "x", Count: 2}, {ID: "y", Count: 2}},
			Edges: []ProcessEdge{{From: StartNode, To: "x", Count: 2}, {From: "x", To: "y", Count: 2}, {From: "y", To: EndNode, Count: 2}}},
			func(t *testing.T, v processView) {
				if len(v.Variants) != 1 || v.Variants[0].Key != "frequency" || !strings.Contains(v.Note, "no timestamps") {
					t.Errorf("views %d (%v), note %q", len(v.Variants), keys(v), v.Note)
				}
			}},
		{"no start or end edge: inferred, dashed, unlabelled", &ProcessMap{
			Nodes: []ProcessNode{{ID: "x", Count: 2}, {ID: "y", Count: 2}},
			Edges: []ProcessEdge{{From: "x", To: "y", Count: 2, Timed: 2, MedianMS: 10}}},
			func(t *testing.T, v processView) {
				m := readSVG(t, string(v.Variants[0].SVG))
				svg := string(v.Variants[0].SVG)
				if n := strings.Count(svg, `stroke-dasharray="5 4"`); n != 2 {
					t.Errorf("%d dashed edges, want 2 (▶ → x, y → ■)", n)
				}
				if c := v.Variants[0].Caption; !strings.Contains(c, "Dashed: an inferred start or end") {
					t.Errorf("caption %q does not explain the dashed edges", c)
				}
				if len(m.labels) != 1 || m.labels[0].text != "2" {
					t.Errorf("labels %+v, want only x → y's", m.labels)
				}
				for _, w := range []string{"▶ → x — inferred: the map has no edge from start", "y → ■ — inferred: the map has no edge to end"} {
					if !strings.Contains(strings.Join(m.titles, "\n"), strings.ReplaceAll(strings.ReplaceAll(w, "▶", "start"), "■", "end")) {
						t.Errorf("no tooltip %q in %q", w, m.titles)
					}
				}
			}},
		{"long names cut in the box, whole in the tooltip; log text escaped", &ProcessMap{
			Nodes: []ProcessNode{{ID: "x", Label: long, Count: 2}, {ID: "y", Label: `<script>alert("y")</script>`, Count: 1}},
			Edges: []ProcessEdge{{From: StartNode, To: "x", Count: 2}, {From: "x", To: "y", Count: 1}, {From: "y", To: EndNode, Count: 1}}},
			func(t *testing.T, v processView) {
				svg := string(v.Variants[0].SVG)
				m := readSVG(t, svg)
				if got, want := m.figures["x"], string([]rune(long)[:pmNameRunes-1])+"…|2"; got != want {
					t.Errorf("box x shows %q, want %q", got, want)
				}
				if !slices.ContainsFunc(m.titles, func(s string) bool { return strings.HasPrefix(s, long+" — 2 events") }) {
					t.Errorf("no tooltip with the whole name: %q", m.titles)
				}
				if strings.Contains(svg, "<script") || !strings.Contains(svg, "&lt;script&gt;") {
					t.Error("the label <script> is not escaped")
				}
			}},
		{"a busy map: the default view keeps every loop, start and end edge; all of them in a second view", complete, func(t *testing.T, v processView) {
			if got := keys(v); got != "[frequency frequency-all]" {
				t.Fatalf("views %s", got)
			}
			top, all := readSVG(t, string(v.Variants[0].SVG)), readSVG(t, string(v.Variants[1].SVG))
			if len(top.loops) != len(acts) || len(all.loops) != len(acts) {
				t.Errorf("loops drawn: %d by default, %d in all, want %d", len(top.loops), len(all.loops), len(acts))
			}
			// 8 activities: 8 start, 8 end, 8 loop, 56 other edges = 80
			if len(all.labels) != 80 {
				t.Errorf("all view: %d labels, want 80", len(all.labels))
			}
			// By hand: the 24 start, end and loop edges pass the limit
			// max(12, 2 × 10 nodes) = 20, so only each activity's busiest
			// out and in join them. Count 1 + (7i + 3j) mod 11 peaks (11)
			// at j ≡ 7 + 5i, i ≡ 3 + 9j (mod 11) when that is another
			// activity. Out: a→h, c→g, d→a, e→f, g→e at 11; b→e 9, f→g
			// 10, h→f 10 (b's 11 is its loop, f's and h's j > 7). In: d→a,
			// g→e, e→f, c→g, a→h (already out), e→b 10, f→c 9, a→d 10:
			// 11 edges, 35 in all.
			var got []string
			for _, l := range top.labels {
				if l.from != StartNode && l.to != EndNode && l.from != l.to {
					got = append(got, l.from+l.to)
				}
			}
			slices.Sort(got)
			if want := "[ad ah be cg da eb ef fc fg ge hf]"; len(top.labels) != 35 || fmt.Sprint(got) != want {
				t.Errorf("default view: %d labels, others %v, want 35 and %s", len(top.labels), got, want)
			}
			if c := v.Variants[0].Caption; !strings.Contains(c, "Showing 35 of the 80 transitions") {
				t.Errorf("caption %q", c)
			}
			for a := range all.labels {
				for b := a + 1; b < len(all.labels); b++ {
					if labelBox(all.labels[a]).overlaps(labelBox(all.labels[b])) {
						t.Errorf("all view: labels %+v and %+v overlap", all.labels[a], all.labels[b])
					}
				}
			}
		}},
		{"a map of more than pmMaxEdges transitions: the second view draws pmMaxEdges of them", completeMap(13), func(t *testing.T, v processView) {
			// 13² + 2 × 13 = 195 transitions > 150
			if got := keys(v); got != "[frequency performance frequency-all performance-all]" {
				t.Fatalf("views %s", got)
			}
			if l := v.Variants[2].Label; l != "frequency, 150 of 195 transitions" {
				t.Errorf("label %q", l)
			}
			m := readSVG(t, string(v.Variants[2].SVG))
			if len(m.labels) != pmMaxEdges || len(m.loops) != 13 {
				t.Errorf("%d labels, %d loops; want %d, 13", len(m.labels), len(m.loops), pmMaxEdges)
			}
			if c := v.Variants[2].Caption; !strings.Contains(c, "Showing 150 of the 195 transitions") {
				t.Errorf("caption %q", c)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, processViewOf(tc.pm)) })
	}
}

func keys(v processView) string {
	var k []string
	for _, x := range v.Variants {
		k = append(k, x.Key)
	}
	return fmt.Sprint(k)
}

func TestMedianText(t *testing.T) {
	for _, tc := range []struct {
		timed int64
		ms    float64
		want  string
	}{
		{0, 0, "no timestamps"}, {0, 1500, "no timestamps"}, {3, 0, "0 ms"}, {1, 999, "999 ms"}, {1, 1500, "1.5 s"},
		{1, 0.4, "<1 ms"}, {1, 90000, "1m30s"}, {1, 5400000, "1h30m"},
	} {
		if got := medianText(tc.timed, tc.ms); got != tc.want {
			t.Errorf("medianText(%d, %v) = %q, want %q", tc.timed, tc.ms, got, tc.want)
		}
	}
}
