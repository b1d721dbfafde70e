package layered

import (
	"cmp"
	"slices"
)

// vnode is a node of the layered graph: a graph node, or a dummy on a
// long edge (a label's dummy carries the label's size).
type vnode struct {
	layer int
	node  int // graph node, or -1 for a dummy
	edge  int // a dummy's edge
	label bool
	// w is the extent along x; above and below the extents from y (a
	// dummy's y is its edge's line).
	w, above, below float64
	up, down        []int // neighbours in the layers left and right
	pos             int
	y               float64
}

func (v *vnode) dummy() bool { return v.node < 0 }

// sugi is the layered graph being laid out.
type sugi struct {
	v      []vnode
	layers [][]int
	// chains are per edge its vnodes left to right (nil for a loop).
	chains [][]int
	rev    []bool
	// loops are per node its self-loops (edge indices).
	loops [][]int
}

// expand builds the layered graph: ranks doubled, long edges split by
// dummies, each label the dummy of its edge's middle layer (package doc,
// steps 2 and 3). vnode i < len(g.Nodes) is node i.
func expand(g *Graph, rev []bool, rank []int) *sugi {
	s := &sugi{chains: make([][]int, len(g.Edges)), rev: rev, loops: make([][]int, len(g.Nodes))}
	for i, e := range g.Edges {
		if e.From == e.To {
			s.loops[e.From] = append(s.loops[e.From], i)
		}
	}
	for i, n := range g.Nodes {
		v := vnode{layer: 2 * rank[i], node: i, w: n.W, above: n.H / 2, below: n.H / 2}
		if ls := s.loops[i]; len(ls) > 0 {
			v.above += loopRoom(g, ls)
			v.w = max(v.w, 2*(loopHalf(n.W, len(ls)-1)+6))
			for _, e := range ls {
				v.w = max(v.w, g.Edges[e].Label.W)
			}
		}
		s.v = append(s.v, v)
	}
	for i, e := range g.Edges {
		if e.From == e.To {
			continue
		}
		f, t := e.From, e.To
		if rev[i] {
			f, t = t, f
		}
		lf, lt := 2*rank[f], 2*rank[t]
		mid := lf + (lt-lf)/2
		chain := []int{f}
		for l := lf + 1; l < lt; l++ {
			d := vnode{layer: l, node: -1, edge: i, above: 1, below: 1}
			if l == mid && e.Label != (Size{}) {
				d.label, d.w, d.above, d.below = true, e.Label.W, 3, labelGap+e.Label.H
			}
			chain = append(chain, len(s.v))
			s.v = append(s.v, d)
		}
		chain = append(chain, t)
		for k := 1; k < len(chain); k++ {
			a, b := chain[k-1], chain[k]
			s.v[a].down = append(s.v[a].down, b)
			s.v[b].up = append(s.v[b].up, a)
		}
		s.chains[i] = chain
	}
	layers := 0
	for _, v := range s.v {
		layers = max(layers, v.layer+1)
	}
	s.layers = make([][]int, layers)
	for i := range s.v {
		l := s.v[i].layer
		s.v[i].pos = len(s.layers[l])
		s.layers[l] = append(s.layers[l], i)
	}
	return s
}

// loopRoom is the room a node's self-loops ls take over its box: the
// tallest loop, then the loops' labels stacked; at least the height of
// the tallest loop's control points (4/3 of its height).
func loopRoom(g *Graph, ls []int) float64 {
	h := loopHeight(len(ls) - 1)
	r := h + 1 + labelGap
	for _, e := range ls {
		r += g.Edges[e].Label.H + 2
	}
	return max(r, h*4/3)
}

// loopHalf is half the width of a node's k-th self-loop at its box's top
// (a box w wide): a quarter of the box, 3 more per loop, within the box.
func loopHalf(w float64, k int) float64 { return max(min(w/4+3*float64(k), w/2-5), 2) }

// loopHeight is the height of a node's k-th self-loop (nested: each one
// taller).
func loopHeight(k int) float64 { return loopH + 10*float64(k) }

// order minimises crossings (package doc, step 4).
func (s *sugi) order(iterations int) {
	if iterations == 0 {
		return
	}
	best := s.crossings()
	saved := s.save()
	for it := range iterations {
		if best == 0 {
			break
		}
		if it%2 == 0 {
			for l := 1; l < len(s.layers); l++ {
				s.sortLayer(l, true)
			}
		} else {
			for l := len(s.layers) - 2; l >= 0; l-- {
				s.sortLayer(l, false)
			}
		}
		s.transpose()
		if c := s.crossings(); c < best {
			best, saved = c, s.save()
		}
	}
	for l, layer := range saved {
		s.layers[l] = layer
		for p, v := range layer {
			s.v[v].pos = p
		}
	}
}

func (s *sugi) save() [][]int {
	out := make([][]int, len(s.layers))
	for l, layer := range s.layers {
		out[l] = slices.Clone(layer)
	}
	return out
}

// sortLayer orders layer l by the barycentre of each node's neighbours in
// the layer left of it (fromLeft) or right of it; a node with none keeps
// its position.
func (s *sugi) sortLayer(l int, fromLeft bool) {
	layer := s.layers[l]
	bary := make(map[int]float64, len(layer))
	for _, v := range layer {
		nb := s.v[v].down
		if fromLeft {
			nb = s.v[v].up
		}
		if len(nb) == 0 {
			bary[v] = float64(s.v[v].pos)
			continue
		}
		sum := 0.0
		for _, w := range nb {
			sum += float64(s.v[w].pos)
		}
		bary[v] = sum / float64(len(nb))
	}
	slices.SortStableFunc(layer, func(a, b int) int { return cmp.Compare(bary[a], bary[b]) })
	for p, v := range layer {
		s.v[v].pos = p
	}
}

// transpose swaps adjacent nodes of a layer while that lowers the
// crossings of their edges (at most 8 passes over the layers).
func (s *sugi) transpose() {
	for range 8 {
		improved := false
		for _, layer := range s.layers {
			for i := 0; i+1 < len(layer); i++ {
				u, w := layer[i], layer[i+1]
				if s.pairCrossings(u, w) > s.pairCrossings(w, u) {
					layer[i], layer[i+1] = w, u
					s.v[u].pos, s.v[w].pos = i+1, i
					improved = true
				}
			}
		}
		if !improved {
			return
		}
	}
}

// pairCrossings counts the crossings between u's and w's edges (both
// sides) were u just above w.
func (s *sugi) pairCrossings(u, w int) int {
	c := 0
	for _, side := range [2]bool{true, false} {
		nu, nw := s.v[u].up, s.v[w].up
		if !side {
			nu, nw = s.v[u].down, s.v[w].down
		}
		for _, a := range nu {
			for _, b := range nw {
				if s.v[a].pos > s.v[b].pos {
					c++
				}
			}
		}
	}
	return c
}

// crossings counts the layered graph's edge crossings: per pair of
// adjacent layers, the inversions of the edges' lower ends when sorted by
// their upper ends (a Fenwick tree).
func (s *sugi) crossings() int {
	total := 0
	for l := 0; l+1 < len(s.layers); l++ {
		var es [][2]int
		for _, v := range s.layers[l] {
			for _, w := range s.v[v].down {
				es = append(es, [2]int{s.v[v].pos, s.v[w].pos})
			}
		}
		slices.SortFunc(es, func(a, b [2]int) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
		n := len(s.layers[l+1])
		tree := make([]int, n+1)
		seen := 0
		for _, e := range es {
			// edges already seen whose lower end is right of e's
			le := 0
			for i := e[1] + 1; i > 0; i -= i & -i {
				le += tree[i]
			}
			total += seen - le
			for i := e[1] + 1; i <= n; i += i & -i {
				tree[i]++
			}
			seen++
		}
	}
	return total
}
