package dashboards

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	graphviz "github.com/goccy/go-graphviz"
	"github.com/mattn/go-runewidth"

	"github.com/trajmine/trajmine/internal/textfmt"
)

// The process map's artificial start and end nodes, as mining names them
// (mining.Start, mining.End): an edge from StartNode enters the activity a
// case starts with, an edge to EndNode leaves the one it ends with.
const (
	StartNode = "▶"
	EndNode   = "■"
)

// The process map is laid out by Graphviz dot, run in Go at report time
// (github.com/goccy/go-graphviz: Graphviz compiled to Wasm and run
// by wazero; no cgo, no network), left to right from start to end: dot
// ranks the activities, orders each rank to cross few edges, routes the
// edges as splines (self-loops included) and places every edge label as a
// node of its own, so that labels overlap neither each other nor a box.
// pmSVG then draws the positions as inline SVG.
//
// Sizes are SVG user units (dot's points, y flipped); text is drawn at
// pmFont px while dot sizes the edge labels at pmDotFont pt, so that a
// label drawn in a wider browser font still fits the room dot left it.
const (
	pmFont      = 11.0
	pmNameFont  = 12.0
	pmDotFont   = 13.0
	pmNodeH     = 42.0 // an activity's box: its name over its figure
	pmEndpoint  = 36.0 // the start and end circles' diameter
	pmMargin    = 10.0
	pmNameRunes = 28 // longer activity names are cut (the full name is the tooltip)
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

// pmMaxEdges is the most transitions a view draws: dot's time grows
// faster than the edges (on a complete map, 0.2 s for 100 labelled edges,
// 0.5 s for 150, 1 s for 200, 3 s for 300; BENCHMARKS.md), so a larger
// map's second view draws the pmMaxEdges picked by pmTopEdges, not all.
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

// dotDoc is the DOT source dot lays out: nodes n0, n1, … (graph order;
// nothing from the logs reaches it: an activity is a box of a fixed size,
// an edge label a figure), edges e0, e1, … (sel order).
func dotDoc(g *pmGraph, sel []int) []byte {
	var b bytes.Buffer
	b.WriteString("digraph pm {\n")
	b.WriteString("graph [rankdir=LR, nodesep=0.3, ranksep=0.5, margin=0, pad=0];\n")
	b.WriteString("node [shape=box, fixedsize=true, label=\"\"];\n")
	fmt.Fprintf(&b, "edge [fontname=\"Helvetica\", fontsize=%g, arrowsize=0.8];\n", pmDotFont)
	in := func(px float64) string { return strconv.FormatFloat(px/72, 'f', 4, 64) }
	fmt.Fprintf(&b, "{rank=source; n0 [shape=circle, width=%s, height=%s];}\n", in(pmEndpoint), in(pmEndpoint))
	fmt.Fprintf(&b, "{rank=sink; n1 [shape=circle, width=%s, height=%s];}\n", in(pmEndpoint), in(pmEndpoint))
	for i := 2; i < len(g.nodes); i++ {
		fmt.Fprintf(&b, "n%d [width=%s, height=%s];\n", i, in(g.nodes[i].w), in(pmNodeH))
	}
	for k, i := range sel {
		e := &g.edges[i]
		l := pmEdgeLabel(e, "frequency")
		if p := pmEdgeLabel(e, "performance"); g.timed && len(p) > len(l) {
			l = p // both views share the layout: room for the longer label
		}
		fmt.Fprintf(&b, "n%d -> n%d [id=\"e%d\"", e.from, e.to, k)
		if l != "" {
			fmt.Fprintf(&b, ", label=%s", dotQuote(l))
		}
		b.WriteString("];\n")
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// dotQuote is s as a DOT quoted string.
func dotQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}

// graphvizMu serialises the calls into go-graphviz: its Wasm
// instance is one per process.
var graphvizMu sync.Mutex

// runDot lays out a DOT document with dot and returns Graphviz's json0
// output (the input with pos, lp and bb). A panic inside the binding is
// returned as an error.
func runDot(doc []byte) (out []byte, err error) {
	graphvizMu.Lock()
	defer graphvizMu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("graphviz: %v", r)
		}
	}()
	ctx := context.Background()
	gv, err := graphviz.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("graphviz: %w", err)
	}
	defer gv.Close()
	g, err := graphviz.ParseBytes(doc)
	if err != nil {
		return nil, fmt.Errorf("graphviz: parse: %w", err)
	}
	defer g.Close()
	var b bytes.Buffer
	if err := gv.Render(ctx, g, "json0", &b); err != nil {
		return nil, fmt.Errorf("graphviz: dot: %w", err)
	}
	return b.Bytes(), nil
}

// layoutPM lays out g's edges sel with dot.
func layoutPM(g *pmGraph, sel []int) (*pmLayout, error) {
	out, err := runDot(dotDoc(g, sel))
	if err != nil {
		return nil, err
	}
	l, err := parseLayout(out, len(g.nodes), len(sel))
	if err != nil {
		return nil, err
	}
	l.sel = sel
	return l, nil
}

// gvJSON is the part of Graphviz's json0 output the map reads.
type gvJSON struct {
	BB      string `json:"bb"`
	Objects []struct {
		Name string `json:"name"`
		Pos  string `json:"pos"`
	} `json:"objects"`
	Edges []struct {
		ID  string `json:"id"`
		Pos string `json:"pos"`
		LP  string `json:"lp"`
	} `json:"edges"`
}

// parseLayout reads dot's json0 output for a graph of nodes nodes
// (n0 … n(nodes-1)) and edges edges (e0 …): every node and edge must have
// a position. Coordinates become SVG's: shifted by the bounding box and
// pmMargin, y down.
func parseLayout(data []byte, nodes, edges int) (*pmLayout, error) {
	var j gvJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("graphviz json: %w", err)
	}
	bb, err := parsePoints(j.BB)
	if err != nil || len(bb) != 2 {
		return nil, fmt.Errorf("graphviz json: bb %q: want x0,y0,x1,y1", j.BB)
	}
	x0, y1 := bb[0].x, bb[1].y
	at := func(p pmPoint) pmPoint { return pmPoint{round1(p.x - x0 + pmMargin), round1(y1 - p.y + pmMargin)} }
	l := &pmLayout{w: round1(bb[1].x - x0 + 2*pmMargin), h: round1(y1 - bb[0].y + 2*pmMargin), nodes: make([]pmPoint, nodes), edges: make([]pmRoute, edges)}
	seen := make([]bool, nodes)
	for _, o := range j.Objects {
		i, ok := gvIndex(o.Name, "n", nodes)
		if !ok || o.Pos == "" {
			continue // a rank subgraph
		}
		p, err := parsePoints(o.Pos)
		if err != nil || len(p) != 1 {
			return nil, fmt.Errorf("graphviz json: node %s: pos %q: want x,y", o.Name, o.Pos)
		}
		l.nodes[i], seen[i] = at(p[0]), true
	}
	if i := slices.Index(seen, false); i >= 0 {
		return nil, fmt.Errorf("graphviz json: node n%d has no position", i)
	}
	seenE := make([]bool, edges)
	for _, e := range j.Edges {
		i, ok := gvIndex(e.ID, "e", edges)
		if !ok {
			return nil, fmt.Errorf("graphviz json: edge id %q: not one of e0…e%d", e.ID, edges-1)
		}
		sp, err := parseSpline(e.Pos)
		if err != nil {
			return nil, fmt.Errorf("graphviz json: edge %s: pos: %w", e.ID, err)
		}
		r := pmRoute{}
		for _, s := range sp {
			var pts []pmPoint
			for _, p := range s.points {
				pts = append(pts, at(p))
			}
			r.splines = append(r.splines, pts)
			if s.hasEnd {
				r.tip, r.hasTip = at(s.end), true
			}
		}
		if e.LP != "" {
			p, err := parsePoints(e.LP)
			if err != nil || len(p) != 1 {
				return nil, fmt.Errorf("graphviz json: edge %s: lp %q: want x,y", e.ID, e.LP)
			}
			r.label = at(p[0])
		}
		l.edges[i], seenE[i] = r, true
	}
	if i := slices.Index(seenE, false); i >= 0 {
		return nil, fmt.Errorf("graphviz json: edge e%d has no route", i)
	}
	return l, nil
}

// gvIndex reads name as prefix and an index below n.
func gvIndex(name, prefix string, n int) (int, bool) {
	s, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(s)
	if err != nil || i < 0 || i >= n || strconv.Itoa(i) != s {
		return 0, false
	}
	return i, true
}

// round1 rounds to a tenth (no negative zero): stable, short SVG.
func round1(f float64) float64 {
	v := math.Round(f*10) / 10
	if v == 0 {
		return 0
	}
	return v
}
