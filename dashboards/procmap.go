package dashboards

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/mattn/go-runewidth"

	"github.com/trajmine/trajmine/internal/layered"
	"github.com/trajmine/trajmine/internal/textfmt"
)

// The process map's artificial start and end nodes, as mining names them
// (mining.Start, mining.End): an edge from StartNode enters the activity a
// case starts with, an edge to EndNode leaves the one it ends with.
const (
	StartNode = "▶"
	EndNode   = "■"
)

// The process map is laid out in layers at report time by
// internal/layered (pure Go: nothing runs at start-up, nothing is written
// to disk), left to right from start to end, as Graphviz dot would: the
// activities in layers, each layer ordered to cross few edges, every edge
// label a box of its own in the layer between its two ends (labels never
// overlap each other or a box), self-loops over their box. pmSVG then
// draws the positions as inline SVG.
//
// Sizes are SVG user units; text is drawn at 11 px (labels, figures) and
// 12 px (names), and the label boxes are sized a little wider
// (pmLabelSize), so that a label drawn in a wider browser font still fits.
const (
	pmNodeH     = 42.0 // an activity's box: its name over its figure
	pmEndpoint  = 36.0 // the start and end circles' diameter
	pmNameRunes = 28   // longer activity names are cut (the full name is the tooltip)
)

// pmKind is what a process-map node is.
type pmKind int

const (
	pmActivity pmKind = iota
	pmStart
	pmEnd
)

// pmGraph is the process map to lay out: nodes[0] is start, nodes[1] end,
// then the activities in the map's order; edges in the map's order, then
// inferred start and end edges.
type pmGraph struct {
	nodes []pmNode
	edges []pmEdge
	// timed: some edge between two activities has a duration (else the
	// logs have no timestamps and there is no performance view).
	timed bool
}

type pmNode struct {
	ProcessNode
	kind pmKind
	w    float64 // box width
}

type pmEdge struct {
	ProcessEdge
	from, to int // node indices
	// inferred start and end edges (the map had none) have no count
	inferred bool
}

func (e *pmEdge) loop() bool { return e.from == e.to }

// endpoint reports whether e leaves start or enters end: it has no duration.
func (e *pmEdge) endpoint() bool { return e.from == 0 || e.to == 1 }

// newPMGraph gathers pm's nodes and edges. When the map has no edge from
// the start (or to the end), start (end) edges are added to the activities
// with no incoming (outgoing) edge from another activity, or to the most
// frequent activity, and flagged inferred.
func newPMGraph(pm *ProcessMap) *pmGraph {
	g := &pmGraph{nodes: []pmNode{{ProcessNode: ProcessNode{ID: StartNode, Label: "start"}, kind: pmStart}, {ProcessNode: ProcessNode{ID: EndNode, Label: "end"}, kind: pmEnd}}}
	index := map[string]int{StartNode: 0, EndNode: 1}
	add := func(n ProcessNode) int {
		if i, ok := index[n.ID]; ok {
			return i
		}
		if n.Label == "" {
			n.Label = n.ID
		}
		index[n.ID] = len(g.nodes)
		g.nodes = append(g.nodes, pmNode{ProcessNode: n})
		return len(g.nodes) - 1
	}
	for _, n := range pm.Nodes {
		add(n)
	}
	hasIn, hasOut := map[int]bool{}, map[int]bool{}
	start, end := false, false
	for _, e := range pm.Edges {
		f, t := add(ProcessNode{ID: e.From}), add(ProcessNode{ID: e.To})
		g.edges = append(g.edges, pmEdge{ProcessEdge: e, from: f, to: t})
		start = start || f == 0
		end = end || t == 1
		if f != t && f != 0 {
			hasIn[t] = true
		}
		if f != t && t != 1 {
			hasOut[f] = true
		}
		if f != t && f != 0 && t != 1 && e.Timed > 0 {
			g.timed = true
		}
	}
	top := -1
	for i := 2; i < len(g.nodes); i++ {
		if top < 0 || g.nodes[i].Count > g.nodes[top].Count {
			top = i
		}
	}
	infer := func(has map[int]bool, edge func(int) pmEdge) {
		k := 0
		for i := 2; i < len(g.nodes); i++ {
			if !has[i] {
				g.edges = append(g.edges, edge(i))
				k++
			}
		}
		if k == 0 {
			g.edges = append(g.edges, edge(top))
		}
	}
	if !start && top >= 0 {
		infer(hasIn, func(i int) pmEdge {
			return pmEdge{ProcessEdge: ProcessEdge{From: StartNode, To: g.nodes[i].ID}, from: 0, to: i, inferred: true}
		})
	}
	if !end && top >= 0 {
		infer(hasOut, func(i int) pmEdge {
			return pmEdge{ProcessEdge: ProcessEdge{From: g.nodes[i].ID, To: EndNode}, from: i, to: 1, inferred: true}
		})
	}
	for i := range g.nodes {
		n := &g.nodes[i]
		switch n.kind {
		case pmStart, pmEnd:
			n.w = pmEndpoint
		default:
			chars := max(runewidth.StringWidth(pmName(n)), len(pmNodeFigure(n, "frequency")))
			if g.timed {
				chars = max(chars, len(pmNodeFigure(n, "performance")))
			}
			n.w = min(max(7.4*float64(chars)+24, 80), 260)
		}
	}
	return g
}

// pmName is the name an activity's box shows (cut to pmNameRunes).
func pmName(n *pmNode) string { return snippet(n.Label, pmNameRunes) }

// pmNodeFigure is the figure under an activity's name: its events, or the
// median time from it to the next event.
func pmNodeFigure(n *pmNode, mode string) string {
	if mode == "performance" {
		return medianText(n.Timed, n.MedianMS)
	}
	return thousands(n.Count)
}

// pmEdgeLabel is an edge's label: its transitions, or the median time
// between its two activities ("" for inferred edges, and in the
// performance view for edges from start and to end, which have none).
func pmEdgeLabel(e *pmEdge, mode string) string {
	switch {
	case e.inferred:
		return ""
	case mode == "performance" && e.endpoint():
		return ""
	case mode == "performance":
		return medianText(e.Timed, e.MedianMS)
	}
	return thousands(e.Count)
}

// medianText is a median duration, or "no timestamps" when none of the
// occurrences had two timestamps to measure it from.
func medianText(timed int64, ms float64) string {
	if timed == 0 {
		return "no timestamps"
	}
	return durationText(ms)
}

// durationText is a duration of ms milliseconds as the CLI prints one
// (textfmt.Duration).
func durationText(ms float64) string {
	return textfmt.Duration(time.Duration(ms * float64(time.Millisecond)))
}

// pmMaxEdges is the most transitions a view draws: past it a map is a
// hairball no reader follows (and its layout's time grows with the edges
// times the layers they cross; BENCHMARKS.md), so a larger map's second
// view draws the pmMaxEdges picked by pmTopEdges, not all.
const pmMaxEdges = 150

// pmDefaultLimit is the edges the default view draws at most, besides the
// ones pmTopEdges always keeps: max(12, 2 × nodes).
func pmDefaultLimit(g *pmGraph) int { return max(12, 2*len(g.nodes)) }

// pmTopEdges picks the transitions a view draws (Disco's paths slider):
// every start and end edge, every self-loop, each activity's most
// frequent incoming and outgoing edge (loops aside), then the most
// frequent others, up to limit edges; as indices into g.edges, in order.
func pmTopEdges(g *pmGraph, limit int) []int {
	keep := make([]bool, len(g.edges))
	bestIn, bestOut := map[int]int{}, map[int]int{}
	for i := range g.edges {
		e := &g.edges[i]
		if e.inferred || e.endpoint() || e.loop() {
			keep[i] = true
			continue
		}
		if j, ok := bestOut[e.from]; !ok || e.Count > g.edges[j].Count {
			bestOut[e.from] = i
		}
		if j, ok := bestIn[e.to]; !ok || e.Count > g.edges[j].Count {
			bestIn[e.to] = i
		}
	}
	for _, i := range bestIn {
		keep[i] = true
	}
	for _, i := range bestOut {
		keep[i] = true
	}
	n := 0
	for _, k := range keep {
		if k {
			n++
		}
	}
	order := make([]int, len(g.edges))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(g.edges[b].Count, g.edges[a].Count) })
	for _, i := range order {
		if n >= limit {
			break
		}
		if !keep[i] {
			keep[i] = true
			n++
		}
	}
	var out []int
	for i, k := range keep {
		if k {
			out = append(out, i)
		}
	}
	return out
}

// pmLayout is one laid-out process map: every node of its graph and the
// edges sel (indices into the graph's edges), in SVG coordinates.
type pmLayout struct {
	w, h  float64
	nodes []pmPoint // centres, per graph node
	sel   []int
	edges []pmRoute // per sel
}

type pmPoint struct{ x, y float64 }

// pmRoute is an edge's route: one or more splines (each a start point and
// three points per cubic Bézier segment), the arrow's tip, and the label's
// centre.
type pmRoute struct {
	splines [][]pmPoint
	tip     pmPoint
	hasTip  bool
	label   pmPoint
}

// pmLabelSize is the room an edge label of text takes, drawn at 11
// px: a little more than the text (a browser's font may be wider than the
// estimate).
func pmLabelSize(text string) layered.Size {
	if text == "" {
		return layered.Size{}
	}
	return layered.Size{W: 6.6*float64(runewidth.StringWidth(text)) + 8, H: 15}
}

// layoutPM lays out g's edges sel in layers (internal/layered), left to
// right from start (first) to end (last). Both views of a set of
// transitions share one layout: each label takes the room of the longer
// of its two texts.
func layoutPM(g *pmGraph, sel []int) (*pmLayout, error) {
	lg := &layered.Graph{First: []int{0}, Last: []int{1}}
	for _, n := range g.nodes {
		h := pmNodeH
		if n.kind != pmActivity {
			h = pmEndpoint
		}
		lg.Nodes = append(lg.Nodes, layered.Size{W: n.w, H: h})
	}
	for _, i := range sel {
		e := &g.edges[i]
		l := pmEdgeLabel(e, "frequency")
		if p := pmEdgeLabel(e, "performance"); g.timed && len(p) > len(l) {
			l = p
		}
		lg.Edges = append(lg.Edges, layered.Edge{From: e.from, To: e.to, Label: pmLabelSize(l), Weight: float64(e.Count)})
	}
	lay, err := layered.Do(lg, nil)
	if err != nil {
		return nil, err
	}
	pt := func(p layered.Point) pmPoint { return pmPoint{round1(p.X), round1(p.Y)} }
	l := &pmLayout{w: round1(lay.W), h: round1(lay.H), sel: sel, nodes: make([]pmPoint, len(lay.Nodes)), edges: make([]pmRoute, len(lay.Edges))}
	for i, p := range lay.Nodes {
		l.nodes[i] = pt(p)
	}
	for k, r := range lay.Edges {
		var sp []pmPoint
		for _, p := range r.Curve {
			sp = append(sp, pt(p))
		}
		l.edges[k] = pmRoute{splines: [][]pmPoint{sp}, tip: pt(r.Tip), hasTip: true, label: pt(r.Label)}
	}
	return l, nil
}

// round1 rounds to a tenth (no negative zero): stable, short SVG.
func round1(f float64) float64 {
	v := math.Round(f*10) / 10
	if v == 0 {
		return 0
	}
	return v
}
