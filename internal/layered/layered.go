package layered

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Size is a box's width (along the layers, left to right) and height.
type Size struct{ W, H float64 }

// Point is a position; y grows downwards (SVG's).
type Point struct{ X, Y float64 }

// Edge is a directed edge between two nodes (indices into Graph.Nodes).
// Label is its label's size (zero: no label). Weight orders the
// depth-first search of cycle removal: of a node's out-edges the heaviest
// is followed first, and so is kept forward.
type Edge struct {
	From, To int
	Label    Size
	Weight   float64
}

// Graph is what Do lays out. First nodes are pinned to the first
// layer, Last nodes to the last (a process map's start and end).
type Graph struct {
	Nodes       []Size
	Edges       []Edge
	First, Last []int
}

// Options tunes Do; nil means the defaults (the Default constants). In
// a non-nil Options every field counts as set: zero means zero.
type Options struct {
	// NodeGap is the least room between two boxes of one layer (a node,
	// a label, or a loop's label), default 14; edges passing through a
	// layer keep EdgeGap between each other and from boxes, default 6.
	NodeGap, EdgeGap float64
	// LayerGap is the room between two layers, default 24.
	LayerGap float64
	// Margin is the room around the drawing, default 10.
	Margin float64
	// Iterations is the crossing minimisation's sweeps, default 24; 0
	// keeps the input order (nodes in index order, each layer's dummies
	// in edge order after them).
	Iterations int
}

// Defaults of Options.
const (
	DefaultNodeGap    = 14.0
	DefaultEdgeGap    = 6.0
	DefaultLayerGap   = 24.0
	DefaultMargin     = 10.0
	DefaultIterations = 24
)

// Drawing sizes that are not options.
const (
	arrowLen   = 8.0  // an arrowhead's length
	loopH      = 18.0 // a self-loop's height over its box
	labelGap   = 3.0  // between an edge and its label
	portMargin = 6.0  // ports keep off a box's corners
	coordIters = 8    // coordinate sweeps (down and up each)
)

// Layout is a laid-out graph: W × H, every node's centre (by index) and
// every edge's route (by index).
type Layout struct {
	W, H  float64
	Nodes []Point
	Edges []Route
}

// Route is how an edge is drawn: Curve is a start point and three points
// per cubic Bézier segment, ending at the base of the arrow, whose tip is
// Tip (on the target's box). Label is the centre of the edge's label (when
// it has one). Reversed: the edge runs right to left (it closes a cycle);
// Loop: a self-loop.
type Route struct {
	Curve          []Point
	Tip            Point
	Label          Point
	Reversed, Loop bool
}

// options is o with the defaults filled in.
func options(o *Options) Options {
	r := Options{NodeGap: DefaultNodeGap, EdgeGap: DefaultEdgeGap, LayerGap: DefaultLayerGap, Margin: DefaultMargin, Iterations: DefaultIterations}
	if o != nil {
		r = *o
	}
	return r
}

// check reports the first thing wrong with g or o.
func check(g *Graph, o *Options) error {
	bad := func(f float64) bool { return f < 0 || math.IsNaN(f) || math.IsInf(f, 0) }
	for i, n := range g.Nodes {
		if bad(n.W) || bad(n.H) {
			return fmt.Errorf("layered: node %d: size %gx%g: want finite, not negative", i, n.W, n.H)
		}
	}
	for i, e := range g.Edges {
		if e.From < 0 || e.From >= len(g.Nodes) || e.To < 0 || e.To >= len(g.Nodes) {
			return fmt.Errorf("layered: edge %d: %d → %d: want nodes 0…%d", i, e.From, e.To, len(g.Nodes)-1)
		}
		if bad(e.Label.W) || bad(e.Label.H) {
			return fmt.Errorf("layered: edge %d: label %gx%g: want finite, not negative", i, e.Label.W, e.Label.H)
		}
		if math.IsNaN(e.Weight) {
			return fmt.Errorf("layered: edge %d: weight NaN", i)
		}
	}
	for _, list := range [][]int{g.First, g.Last} {
		for _, n := range list {
			if n < 0 || n >= len(g.Nodes) {
				return fmt.Errorf("layered: pinned node %d: want nodes 0…%d", n, len(g.Nodes)-1)
			}
		}
	}
	if slices.ContainsFunc(g.First, func(n int) bool { return slices.Contains(g.Last, n) }) {
		return fmt.Errorf("layered: a node is both first and last")
	}
	for i, e := range g.Edges {
		if e.From == e.To {
			continue
		}
		if slices.Contains(g.First, e.From) && slices.Contains(g.First, e.To) || slices.Contains(g.Last, e.From) && slices.Contains(g.Last, e.To) {
			return fmt.Errorf("layered: edge %d: %d → %d joins two nodes pinned to the same layer", i, e.From, e.To)
		}
	}
	if o != nil {
		if bad(o.NodeGap) || bad(o.EdgeGap) || bad(o.LayerGap) || bad(o.Margin) || o.Iterations < 0 {
			return fmt.Errorf("layered: options %+v: want finite, not negative", *o)
		}
	}
	return nil
}

// Do lays out g (see the package doc).
func Do(g *Graph, o *Options) (*Layout, error) {
	if err := check(g, o); err != nil {
		return nil, err
	}
	opt := options(o)
	rev := removeCycles(g)
	rank := assignRanks(g, rev)
	s := expand(g, rev, rank)
	s.order(opt.Iterations)
	return s.draw(g, &opt), nil
}

// removeCycles finds the edges to reverse: a depth-first search (package
// doc, step 1). Self-loops are never reversed.
func removeCycles(g *Graph) []bool {
	n := len(g.Nodes)
	rev := make([]bool, len(g.Edges))
	first, last := make([]bool, n), make([]bool, n)
	for _, v := range g.First {
		first[v] = true
	}
	for _, v := range g.Last {
		last[v] = true
	}
	out := make([][]int, n)
	in := make([]int, n)
	for i, e := range g.Edges {
		switch {
		case e.From == e.To:
		case first[e.To] || last[e.From]:
			rev[i] = !(first[e.From] || last[e.To])
		case first[e.From] || last[e.To]:
		default:
			out[e.From] = append(out[e.From], i)
			in[e.To]++
		}
	}
	for v := range out {
		slices.SortStableFunc(out[v], func(a, b int) int { return cmp.Compare(g.Edges[b].Weight, g.Edges[a].Weight) })
	}
	const (
		unseen = iota
		onStack
		done
	)
	state := make([]int, n)
	// an explicit stack: a long chain must not exhaust the goroutine's
	type frame struct{ v, next int }
	visit := func(root int) {
		if state[root] != unseen {
			return
		}
		stack := []frame{{root, 0}}
		state[root] = onStack
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.next == len(out[f.v]) {
				state[f.v] = done
				stack = stack[:len(stack)-1]
				continue
			}
			i := out[f.v][f.next]
			f.next++
			switch w := g.Edges[i].To; state[w] {
			case onStack:
				rev[i] = true
			case unseen:
				state[w] = onStack
				stack = append(stack, frame{w, 0})
			}
		}
	}
	for _, v := range g.First {
		visit(v)
	}
	// the First nodes' successors, heaviest edge first: edges from First
	// are not in out
	var fromFirst []int
	for i, e := range g.Edges {
		if first[e.From] && e.From != e.To && !rev[i] {
			fromFirst = append(fromFirst, i)
		}
	}
	slices.SortStableFunc(fromFirst, func(a, b int) int { return cmp.Compare(g.Edges[b].Weight, g.Edges[a].Weight) })
	for _, i := range fromFirst {
		visit(g.Edges[i].To)
	}
	for v := range n {
		if in[v] == 0 {
			visit(v)
		}
	}
	for v := range n {
		visit(v)
	}
	return rev
}

// assignRanks ranks the nodes on the acyclic graph (edges rev reversed,
// loops aside): longest path, then nodes with at least as many edges out
// as in moved right next to their nearest successor, Last nodes last
// (package doc, step 2). Ranks are not yet doubled.
func assignRanks(g *Graph, rev []bool) []int {
	n := len(g.Nodes)
	succ, pred := make([][]int, n), make([][]int, n)
	indeg := make([]int, n)
	for i, e := range g.Edges {
		if e.From == e.To {
			continue
		}
		f, t := e.From, e.To
		if rev[i] {
			f, t = t, f
		}
		succ[f] = append(succ[f], t)
		pred[t] = append(pred[t], f)
		indeg[t]++
	}
	// topological order (Kahn, lowest index first among the ready)
	var topo, ready []int
	for v := range n {
		if indeg[v] == 0 {
			ready = append(ready, v)
		}
	}
	for len(ready) > 0 {
		v := ready[0]
		ready = ready[1:]
		topo = append(topo, v)
		for _, w := range succ[v] {
			if indeg[w]--; indeg[w] == 0 {
				ready = append(ready, w)
			}
		}
	}
	rank := make([]int, n)
	for _, v := range topo {
		for _, u := range pred[v] {
			rank[v] = max(rank[v], rank[u]+1)
		}
	}
	pinned := make([]bool, n)
	for _, v := range g.First {
		pinned[v] = true
	}
	for _, v := range g.Last {
		pinned[v] = true
	}
	for k := len(topo) - 1; k >= 0; k-- {
		v := topo[k]
		if pinned[v] || len(succ[v]) == 0 || len(succ[v]) < len(pred[v]) {
			continue
		}
		nearest := math.MaxInt
		for _, w := range succ[v] {
			nearest = min(nearest, rank[w])
		}
		rank[v] = max(rank[v], nearest-1)
	}
	top := 0
	for v := range n {
		if !slices.Contains(g.Last, v) {
			top = max(top, rank[v])
		}
	}
	for _, v := range g.Last {
		rank[v] = top + 1
	}
	for _, v := range g.First {
		rank[v] = 0
	}
	return rank
}
