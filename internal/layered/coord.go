package layered

import (
	"cmp"
	"math"
	"slices"
)

// gap is the least room between a and b, one above the other in a layer.
func (s *sugi) gap(a, b int, o *Options) float64 {
	if s.v[a].dummy() && !s.v[a].label || s.v[b].dummy() && !s.v[b].label {
		return o.EdgeGap
	}
	return o.NodeGap
}

// offsets are, for a layer in its order, each node's least distance below
// the first one's y.
func (s *sugi) offsets(layer []int, o *Options) []float64 {
	off := make([]float64, len(layer))
	for i := 1; i < len(layer); i++ {
		a, b := layer[i-1], layer[i]
		off[i] = off[i-1] + s.v[a].below + s.gap(a, b, o) + s.v[b].above
	}
	return off
}

// place sets the y of a layer's nodes: in their order, their gaps kept,
// as close to want as least squares (weights w) allow. With z = y − offset
// the gaps are z non-decreasing: a weighted isotonic regression, solved
// by pooling adjacent violators.
func place(ys, want, w, off []float64) {
	type block struct{ sum, weight float64 }
	var blocks []block
	var size []int
	for i := range want {
		blocks = append(blocks, block{w[i] * (want[i] - off[i]), w[i]})
		size = append(size, 1)
		for len(blocks) > 1 {
			a, b := blocks[len(blocks)-2], blocks[len(blocks)-1]
			if a.sum/a.weight <= b.sum/b.weight {
				break
			}
			blocks = blocks[:len(blocks)-1]
			blocks[len(blocks)-1] = block{a.sum + b.sum, a.weight + b.weight}
			n := size[len(size)-1]
			size = size[:len(size)-1]
			size[len(size)-1] += n
		}
	}
	i := 0
	for k, b := range blocks {
		for range size[k] {
			ys[i] = b.sum/b.weight + off[i]
			i++
		}
	}
}

// coordinates sets every vnode's y (package doc, step 5).
func (s *sugi) coordinates(o *Options) {
	offs := make([][]float64, len(s.layers))
	for l, layer := range s.layers {
		offs[l] = s.offsets(layer, o)
		if len(layer) == 0 {
			continue
		}
		last := layer[len(layer)-1]
		mid := (offs[l][len(layer)-1] + s.v[last].below - s.v[layer[0]].above) / 2
		for i, v := range layer {
			s.v[v].y = offs[l][i] - mid
		}
	}
	sweep := func(l int) {
		layer := s.layers[l]
		want, w, ys := make([]float64, len(layer)), make([]float64, len(layer)), make([]float64, len(layer))
		for i, v := range layer {
			vn := &s.v[v]
			want[i], w[i] = vn.y, 1
			if vn.dummy() {
				w[i] = 4
			}
			n, sum := 0, 0.0
			for _, nb := range [2][]int{vn.up, vn.down} {
				for _, u := range nb {
					sum += s.v[u].y
					n++
				}
			}
			if n > 0 {
				want[i] = sum / float64(n)
			}
		}
		place(ys, want, w, offs[l])
		for i, v := range layer {
			s.v[v].y = ys[i]
		}
	}
	for range coordIters {
		for l := range s.layers {
			sweep(l)
		}
		for l := len(s.layers) - 1; l >= 0; l-- {
			sweep(l)
		}
	}
}

// draw places everything and routes the edges (package doc, steps 5–7).
func (s *sugi) draw(g *Graph, o *Options) *Layout {
	s.coordinates(o)
	top, bottom := math.Inf(1), math.Inf(-1)
	for _, v := range s.v {
		top, bottom = min(top, v.y-v.above), max(bottom, v.y+v.below)
	}
	if len(s.v) == 0 {
		top, bottom = 0, 0
	}
	// layer centres along x; empty layers take no room
	width := make([]float64, len(s.layers))
	xs := make([]float64, len(s.layers))
	x, prev := o.Margin, -1
	for l, layer := range s.layers {
		for _, v := range layer {
			width[l] = max(width[l], s.v[v].w)
		}
		if len(layer) == 0 {
			continue
		}
		if prev >= 0 {
			x += o.LayerGap
		}
		xs[l] = x + width[l]/2
		x += width[l]
		prev = l
	}
	out := &Layout{W: x + o.Margin, H: bottom - top + 2*o.Margin, Nodes: make([]Point, len(g.Nodes)), Edges: make([]Route, len(g.Edges))}
	at := func(v int) Point { return Point{xs[s.v[v].layer], s.v[v].y - top + o.Margin} }
	for i := range g.Nodes {
		out.Nodes[i] = at(i)
	}
	right, left := s.ports(g, at)
	for i, e := range g.Edges {
		if e.From == e.To {
			continue
		}
		chain := s.chains[i]
		src, dst := chain[0], chain[len(chain)-1]
		sp, dp := at(src), at(dst)
		r := Route{Reversed: s.rev[i]}
		ps := Point{sp.X + g.Nodes[src].W/2, right[i]}
		pts := []Point{ps}
		if b := xs[s.v[src].layer] + width[s.v[src].layer]/2; b > ps.X {
			pts = append(pts, Point{b, ps.Y})
		}
		for _, d := range chain[1 : len(chain)-1] {
			p, hw := at(d), width[s.v[d].layer]/2
			pts = append(pts, Point{p.X - hw, p.Y})
			if hw > 0 {
				pts = append(pts, Point{p.X + hw, p.Y})
			}
			if s.v[d].label {
				r.Label = Point{p.X, p.Y + labelGap + e.Label.H/2}
			}
		}
		pd := Point{dp.X - g.Nodes[dst].W/2, left[i]}
		if b := xs[s.v[dst].layer] - width[s.v[dst].layer]/2; b < pd.X {
			pts = append(pts, Point{b, pd.Y})
		}
		pts = append(pts, pd)
		dir := 1.0
		if r.Reversed {
			slices.Reverse(pts)
			dir = -1
		}
		r.Tip = pts[len(pts)-1]
		base := Point{r.Tip.X - dir*arrowLen, r.Tip.Y}
		pts = pts[:len(pts)-1]
		for len(pts) > 1 && dir*pts[len(pts)-1].X >= dir*base.X {
			pts = pts[:len(pts)-1]
		}
		pts = append(pts, base)
		r.Curve = curve(pts)
		out.Edges[i] = r
	}
	for n, ls := range s.loops {
		c, sz := out.Nodes[n], g.Nodes[n]
		boxTop := c.Y - sz.H/2
		ly := boxTop - loopHeight(len(ls)-1) - 1 - labelGap
		for k, i := range ls {
			h := loopHeight(k)
			a := loopHalf(sz.W, k)
			r := Route{Loop: true, Tip: Point{c.X + a, boxTop}}
			r.Curve = []Point{{c.X - a, boxTop}, {c.X - a - 6, boxTop - h*4/3}, {c.X + a + 6, boxTop - h*4/3}, {c.X + a, boxTop - arrowLen}}
			lh := g.Edges[i].Label.H
			r.Label = Point{c.X, ly - lh/2}
			ly -= lh + 2
			out.Edges[i] = r
		}
	}
	return out
}

// ports are per edge the y where it leaves its left end's right side
// (right) and enters its right end's left side (left): spread along the
// side, in the order of the edges' other ends, at most 10 apart.
func (s *sugi) ports(g *Graph, at func(int) Point) (right, left []float64) {
	right, left = make([]float64, len(g.Edges)), make([]float64, len(g.Edges))
	outs, ins := make([][]int, len(g.Nodes)), make([][]int, len(g.Nodes))
	for i, c := range s.chains {
		if c == nil {
			continue
		}
		outs[c[0]] = append(outs[c[0]], i)
		ins[c[len(c)-1]] = append(ins[c[len(c)-1]], i)
	}
	spread := func(n int, es []int, next func(c []int) int, ys []float64) {
		slices.SortStableFunc(es, func(a, b int) int { return cmp.Compare(at(next(s.chains[a])).Y, at(next(s.chains[b])).Y) })
		c := at(n).Y
		room := g.Nodes[n].H - 2*portMargin
		step := 0.0
		if len(es) > 1 && room > 0 {
			step = min(10, room/float64(len(es)-1))
		}
		for k, e := range es {
			ys[e] = c + (float64(k)-float64(len(es)-1)/2)*step
		}
	}
	for n := range g.Nodes {
		spread(n, outs[n], func(c []int) int { return c[1] }, right)
		spread(n, ins[n], func(c []int) int { return c[len(c)-2] }, left)
	}
	return right, left
}

// curve is a smooth path through pts: a cubic Bézier segment between each
// two, with horizontal tangents at every point (straight where the two
// are level).
func curve(pts []Point) []Point {
	out := []Point{pts[0]}
	for k := 1; k < len(pts); k++ {
		p, q := pts[k-1], pts[k]
		dx := q.X - p.X
		if math.Abs(q.Y-p.Y) < 0.05 {
			out = append(out, Point{p.X + dx/3, p.Y}, Point{p.X + 2*dx/3, q.Y}, q)
			continue
		}
		out = append(out, Point{p.X + dx/2, p.Y}, Point{q.X - dx/2, q.Y}, q)
	}
	return out
}
