package layered

import (
	"math"
	"reflect"
	"testing"
)

// randomGraph reads a graph from b: up to 14 nodes (start first, end
// last when flagged), their sizes, and edges (self-loops, cycles and
// parallel edges included), some labelled.
func randomGraph(b []byte) *Graph {
	next := func() int {
		if len(b) == 0 {
			return 0
		}
		v := int(b[0])
		b = b[1:]
		return v
	}
	g := &Graph{}
	n := 1 + next()%14
	for range n {
		g.Nodes = append(g.Nodes, Size{W: float64(next() % 200), H: float64(next() % 60)})
	}
	flags := next()
	if flags&1 != 0 {
		g.First = []int{0}
	}
	if flags&2 != 0 && n > 1 {
		g.Last = []int{n - 1}
	}
	for len(b) >= 3 {
		e := Edge{From: next() % n, To: next() % n, Weight: float64(next() % 7)}
		if k := next(); k%3 != 0 {
			e.Label = Size{W: float64(k % 90), H: 8 + float64(k%9)}
		}
		g.Edges = append(g.Edges, e)
	}
	return g
}

// FuzzLayout: any graph is laid out (no error, no panic), the same way
// twice, every edge drawn (a curve of 1 + 3k finite points inside the
// drawing, its arrow's tip on its target's box), and no two boxes, nodes'
// or labels', intersect.
func FuzzLayout(f *testing.F) {
	f.Add([]byte("a small graph: cycles, loops, labels"))
	f.Add([]byte{5, 80, 30, 60, 30, 70, 30, 90, 30, 40, 30, 3, 0, 1, 1, 1, 1, 1, 5, 1, 2, 2, 2, 2, 9, 2, 1, 3, 4, 3, 4, 3, 1, 3, 4, 4, 2, 4})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 400 {
			return
		}
		g := randomGraph(b)
		l, err := Do(g, nil)
		if err != nil {
			t.Fatal(err)
		}
		if again, _ := Do(g, nil); !reflect.DeepEqual(l, again) {
			t.Fatal("two layouts of one graph differ")
		}
		in := func(p Point) bool {
			return !math.IsNaN(p.X) && !math.IsNaN(p.Y) && p.X >= -0.01 && p.Y >= -0.01 && p.X <= l.W+0.01 && p.Y <= l.H+0.01
		}
		for i, e := range g.Edges {
			r := l.Edges[i]
			if len(r.Curve) < 4 || (len(r.Curve)-1)%3 != 0 {
				t.Fatalf("edge %d: a curve of %d points", i, len(r.Curve))
			}
			for _, p := range append(r.Curve, r.Tip) {
				if !in(p) {
					t.Fatalf("edge %d: point %v outside %v × %v", i, p, l.W, l.H)
				}
			}
			c, s := l.Nodes[e.To], g.Nodes[e.To]
			onSide := math.Abs(math.Abs(r.Tip.X-c.X)-s.W/2) < 1e-6 && math.Abs(r.Tip.Y-c.Y) <= s.H/2+1e-6
			onTop := e.From == e.To && math.Abs(r.Tip.Y-(c.Y-s.H/2)) < 1e-6
			if !onSide && !onTop {
				t.Fatalf("edge %d: tip %v not on its target's box (centre %v, %v)", i, r.Tip, c, s)
			}
		}
		names, bs := boxes(g, l)
		for i := range bs {
			for j := i + 1; j < len(bs); j++ {
				if bs[i].overlaps(bs[j]) {
					t.Fatalf("%s %v overlaps %s %v", names[i], bs[i], names[j], bs[j])
				}
			}
		}
	})
}
