package layered

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// box is a drawn rectangle.
type box struct{ x0, y0, x1, y1 float64 }

func (a box) overlaps(b box) bool { return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1 }

func around(p Point, s Size) box { return box{p.X - s.W/2, p.Y - s.H/2, p.X + s.W/2, p.Y + s.H/2} }

// boxes are every node's box and every label's, named for messages.
func boxes(g *Graph, l *Layout) (names []string, out []box) {
	for i, n := range g.Nodes {
		names, out = append(names, "node "+itoa(i)), append(out, around(l.Nodes[i], n))
	}
	for i, e := range g.Edges {
		if e.Label != (Size{}) {
			names, out = append(names, "label of edge "+itoa(i)), append(out, around(l.Edges[i].Label, e.Label))
		}
	}
	return names, out
}

func itoa(i int) string { return strconv.Itoa(i) }

// onCurve are a route's points on its curve (not control points).
func onCurve(r Route) []Point {
	var out []Point
	for k := 0; k < len(r.Curve); k += 3 {
		out = append(out, r.Curve[k])
	}
	return out
}

// drawnCrossings counts how often two routes cross: the sign changes of
// their height difference over the x positions both pass (the curves
// between two such points are cubics with horizontal tangents, monotone
// in their difference, so a crossing shows as a sign change there). The
// graphs it is used on have nodes of one width: every route passes the
// same x positions.
func drawnCrossings(l *Layout) int {
	c := 0
	for i := range l.Edges {
		for j := i + 1; j < len(l.Edges); j++ {
			a, b := onCurve(l.Edges[i]), onCurve(l.Edges[j])
			ys := map[float64]float64{}
			for _, p := range b {
				ys[math.Round(p.X*100)] = p.Y
			}
			last := 0.0
			for _, p := range a {
				y, ok := ys[math.Round(p.X*100)]
				if !ok {
					continue
				}
				d := p.Y - y
				if math.Abs(d) < 1e-9 {
					continue
				}
				if last != 0 && (d > 0) != (last > 0) {
					c++
				}
				last = d
			}
		}
	}
	return c
}

// twoLayer is nodes 0…n-1 on the left, n…2n-1 on the right, edge i from
// i to the right node edges[i], every node 40 × 30.
func twoLayer(n int, to []int) *Graph {
	g := &Graph{}
	for range 2 * n {
		g.Nodes = append(g.Nodes, Size{40, 30})
	}
	for i, t := range to {
		g.Edges = append(g.Edges, Edge{From: i, To: n + t})
	}
	return g
}

// TestCrossingsPlanted: graphs whose input order crosses a known number
// of times (counted by hand) and whose optimum is known reach it with
// the default sweeps, and keep the input order with none.
func TestCrossingsPlanted(t *testing.T) {
	for _, tc := range []struct {
		name          string
		g             *Graph
		naive, optimo int
	}{
		// a→z, b→y, c→x: every pair crosses (3); reversed, none
		{"three reversed", twoLayer(3, []int{2, 1, 0}), 3, 0},
		// 6 reversed: 6·5/2 = 15 pairs cross
		{"six reversed", twoLayer(6, []int{5, 4, 3, 2, 1, 0}), 15, 0},
		// K2,2: a→x, b→y, a→y, b→x crosses once at best; in the input
		// order (dummies in edge order: a→x, b→y, a→y, b→x) a→y crosses
		// b→y on the left, and b→x crosses b→y and a→y on the right: 3
		{"K2,2", twoLayer(2, []int{0, 1}), 3, 1},
		// two stars, b → x, w, z and a, c, d → y (edges in that order:
		// b→x, b→w, a→y, d→y, c→y, b→z): 0 crossings in the order a, c,
		// d, b | y, w, x, z. Input order: left, a→y's dummy (3rd) below
		// b→x's and b→w's (2), c→y's (5th) below d→y's (1), b→z's (6th)
		// below c→y's and d→y's (2); right, b→x above b→w (1): 6.
		// Barycentre sweeps alone swing b's star back and forth and stall
		// at 4; transposition reaches 0
		{"two stars", &Graph{Nodes: []Size{{40, 30}, {40, 30}, {40, 30}, {40, 30}, {40, 30}, {40, 30}, {40, 30}, {40, 30}},
			Edges: []Edge{{From: 1, To: 5}, {From: 1, To: 4}, {From: 0, To: 6}, {From: 3, To: 6}, {From: 2, To: 6}, {From: 1, To: 7}}}, 6, 0},
		// three layers: a→x, b→y, x→q, y→p: one crossing between the
		// middle and right (p listed before q); swapping p and q, none
		{"three layers", &Graph{Nodes: []Size{{40, 30}, {40, 30}, {40, 30}, {40, 30}, {40, 30}, {40, 30}},
			Edges: []Edge{{From: 0, To: 2}, {From: 1, To: 3}, {From: 2, To: 5}, {From: 3, To: 4}}}, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "K2,2" {
				tc.g.Edges = append(tc.g.Edges, Edge{From: 0, To: 3}, Edge{From: 1, To: 2})
			}
			naive, err := Do(tc.g, &Options{NodeGap: DefaultNodeGap, EdgeGap: DefaultEdgeGap, LayerGap: DefaultLayerGap, Margin: DefaultMargin})
			if err != nil {
				t.Fatal(err)
			}
			if got := drawnCrossings(naive); got != tc.naive {
				t.Errorf("Iterations 0: %d crossings, want the input order's %d", got, tc.naive)
			}
			best, err := Do(tc.g, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := drawnCrossings(best); got != tc.optimo {
				t.Errorf("default: %d crossings, want %d", got, tc.optimo)
			}
		})
	}
}

// TestWeight: cycle removal follows a node's heaviest out-edge first, so
// that edge's cycle partner is the one reversed. s → a (1), s → b (5),
// a → b, b → a: b is reached first, b → a is kept forward (b left of a)
// and a → b drawn reversed; in edge order (equal weights) the opposite.
func TestWeight(t *testing.T) {
	for _, tc := range []struct {
		name            string
		wa, wb          float64
		revAB, bLeftOfA bool
	}{
		{"heavier s → b first", 1, 5, true, true},
		{"equal: edge order", 1, 1, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &Graph{Nodes: []Size{{36, 36}, {60, 30}, {60, 30}}, First: []int{0},
				Edges: []Edge{{From: 0, To: 1, Weight: tc.wa}, {From: 0, To: 2, Weight: tc.wb}, {From: 1, To: 2}, {From: 2, To: 1}}}
			l, err := Do(g, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := l.Edges[2].Reversed; got != tc.revAB {
				t.Errorf("a → b reversed %v, want %v", got, tc.revAB)
			}
			if l.Edges[3].Reversed == l.Edges[2].Reversed {
				t.Error("both or neither of a → b and b → a reversed")
			}
			if got := l.Nodes[2].X < l.Nodes[1].X; got != tc.bLeftOfA {
				t.Errorf("b left of a: %v, want %v (a at %v, b at %v)", got, tc.bLeftOfA, l.Nodes[1], l.Nodes[2])
			}
		})
	}
}

// TestGaps: the options' room, by hand. s → t, both 36 × 36: t is two
// layers right (a dummy layer of no width between), so t.X − s.X =
// 18 + LayerGap + LayerGap + 18; with a label 30 wide, 30 more. s → a,
// s → b (a, b 60 × 30, nothing else): a and b are pulled together to
// NodeGap apart. s → t twice: the two dummies are pulled together to
// EdgeGap + 2 apart (an edge's line takes 1 each side). The drawing
// starts Margin from its edges.
func TestGaps(t *testing.T) {
	for _, o := range []Options{
		{NodeGap: 14, EdgeGap: 6, LayerGap: 24, Margin: 10, Iterations: 24},
		{NodeGap: 40, EdgeGap: 12, LayerGap: 50, Margin: 3, Iterations: 24},
	} {
		st := &Graph{Nodes: []Size{{36, 36}, {36, 36}}, Edges: []Edge{{From: 0, To: 1}}}
		l, err := Do(st, &o)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := l.Nodes[1].X-l.Nodes[0].X, 36+2*o.LayerGap; math.Abs(got-want) > 1e-9 {
			t.Errorf("%+v: s → t %v apart, want %v", o, got, want)
		}
		if l.Nodes[0].X-18 != o.Margin || l.Nodes[0].Y-18 != o.Margin || math.Abs(l.W-(2*o.Margin+72+2*o.LayerGap)) > 1e-9 || l.H != 2*o.Margin+36 {
			t.Errorf("%+v: s at %v, %v × %v: want the margin %v around", o, l.Nodes[0], l.W, l.H, o.Margin)
		}
		st.Edges[0].Label = Size{30, 14}
		if l, err = Do(st, &o); err != nil {
			t.Fatal(err)
		}
		if got, want := l.Nodes[1].X-l.Nodes[0].X, 36+2*o.LayerGap+30; math.Abs(got-want) > 1e-9 {
			t.Errorf("%+v: s → t labelled %v apart, want %v", o, got, want)
		}
		fan := &Graph{Nodes: []Size{{36, 36}, {60, 30}, {60, 30}}, Edges: []Edge{{From: 0, To: 1}, {From: 0, To: 2}}}
		if l, err = Do(fan, &o); err != nil {
			t.Fatal(err)
		}
		if got := math.Abs(l.Nodes[2].Y-l.Nodes[1].Y) - 30; math.Abs(got-o.NodeGap) > 1e-6 {
			t.Errorf("%+v: a and b %v apart, want NodeGap", o, got)
		}
		twice := &Graph{Nodes: []Size{{36, 36}, {36, 36}}, Edges: []Edge{{From: 0, To: 1}, {From: 0, To: 1}}}
		if l, err = Do(twice, &o); err != nil {
			t.Fatal(err)
		}
		// the dummy is each curve's second point on the curve
		if got := math.Abs(l.Edges[1].Curve[3].Y - l.Edges[0].Curve[3].Y); math.Abs(got-(o.EdgeGap+2)) > 1e-6 {
			t.Errorf("%+v: parallel edges %v apart, want EdgeGap + 2", o, got)
		}
	}
}

// TestLabelsAndLoops: a → b → c and a → c labelled: a → c's label sits in
// the middle layer, b's (same x), below b or above it, never on it; a
// self-loop on b is drawn over b's top with its label above the loop, in
// the drawing; the reversed c → a starts on c's left side and its arrow
// ends on a's right side.
func TestLabelsAndLoops(t *testing.T) {
	lbl := Size{30, 14}
	g := &Graph{Nodes: []Size{{60, 30}, {80, 40}, {60, 30}},
		Edges: []Edge{{From: 0, To: 1, Label: lbl}, {From: 1, To: 2, Label: lbl}, {From: 0, To: 2, Label: lbl}, {From: 1, To: 1, Label: Size{50, 14}}, {From: 2, To: 0}}}
	l, err := Do(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	if l.Edges[2].Label.X != l.Nodes[1].X {
		t.Errorf("a → c's label at x %v, want b's layer %v", l.Edges[2].Label.X, l.Nodes[1].X)
	}
	names, bs := boxes(g, l)
	for i := range bs {
		if bs[i].x0 < 0 || bs[i].y0 < 0 || bs[i].x1 > l.W || bs[i].y1 > l.H {
			t.Errorf("%s %v outside the drawing %v × %v", names[i], bs[i], l.W, l.H)
		}
		for j := i + 1; j < len(bs); j++ {
			if bs[i].overlaps(bs[j]) {
				t.Errorf("%s %v overlaps %s %v", names[i], bs[i], names[j], bs[j])
			}
		}
	}
	loop := l.Edges[3]
	top := l.Nodes[1].Y - 20
	if !loop.Loop || loop.Curve[0].Y != top || loop.Tip.Y != top {
		t.Errorf("loop %+v: want it to leave and enter b's top (y %v)", loop, top)
	}
	if loop.Label.Y+7 > top-loopH {
		t.Errorf("loop label at y %v: want it over the loop (top of b %v, loop %v high)", loop.Label.Y, top, loopH)
	}
	back := l.Edges[4]
	if !back.Reversed || back.Curve[0].X != l.Nodes[2].X-30 || back.Tip.X != l.Nodes[0].X+30 {
		t.Errorf("c → a: reversed %v, from x %v (c's left side %v), tip x %v (a's right side %v)",
			back.Reversed, back.Curve[0].X, l.Nodes[2].X-30, back.Tip.X, l.Nodes[0].X+30)
	}
	if f := l.Edges[0]; f.Reversed || f.Tip.X != l.Nodes[1].X-40 || f.Curve[len(f.Curve)-1].X != f.Tip.X-arrowLen {
		t.Errorf("a → b: tip %v, curve ends %v: want the arrow into b's left side", f.Tip, f.Curve[len(f.Curve)-1])
	}
}

// TestFirstLast: pinned nodes take the first and last layers whatever
// the edges say (an edge into the first node is drawn reversed).
func TestFirstLast(t *testing.T) {
	g := &Graph{Nodes: []Size{{36, 36}, {36, 36}, {50, 30}, {50, 30}}, First: []int{0}, Last: []int{1},
		Edges: []Edge{{From: 2, To: 0}, {From: 1, To: 3}, {From: 2, To: 3}}}
	l, err := Do(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 2; i < 4; i++ {
		if !(l.Nodes[0].X < l.Nodes[i].X && l.Nodes[i].X < l.Nodes[1].X) {
			t.Errorf("node %d at x %v: want between first %v and last %v", i, l.Nodes[i].X, l.Nodes[0].X, l.Nodes[1].X)
		}
	}
	if !l.Edges[0].Reversed || !l.Edges[1].Reversed || l.Edges[2].Reversed {
		t.Errorf("reversed %v %v %v, want true true false", l.Edges[0].Reversed, l.Edges[1].Reversed, l.Edges[2].Reversed)
	}
}

// TestDeterministic: the same graph twice, the same layout.
func TestDeterministic(t *testing.T) {
	g := randomGraph([]byte("a deterministic layout of a graph with cycles"))
	a, err := Do(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		b, err := Do(g, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatal("two layouts of one graph differ")
		}
	}
}

func TestErrors(t *testing.T) {
	ok := func() *Graph {
		return &Graph{Nodes: []Size{{10, 10}, {10, 10}, {10, 10}}, Edges: []Edge{{From: 0, To: 1}}, First: []int{0}, Last: []int{2}}
	}
	for _, tc := range []struct {
		name string
		edit func(*Graph)
		o    *Options
		want string
	}{
		{"edge to nowhere", func(g *Graph) { g.Edges[0].To = 3 }, nil, "edge 0: 0 → 3: want nodes 0…2"},
		{"negative from", func(g *Graph) { g.Edges[0].From = -1 }, nil, "edge 0: -1 → 1"},
		{"negative size", func(g *Graph) { g.Nodes[1].W = -1 }, nil, "node 1: size -1x10"},
		{"infinite size", func(g *Graph) { g.Nodes[2].H = math.Inf(1) }, nil, "node 2: size 10x+Inf"},
		{"NaN label", func(g *Graph) { g.Edges[0].Label.H = math.NaN() }, nil, "edge 0: label 0xNaN"},
		{"NaN weight", func(g *Graph) { g.Edges[0].Weight = math.NaN() }, nil, "edge 0: weight NaN"},
		{"pinned nowhere", func(g *Graph) { g.Last = []int{7} }, nil, "pinned node 7"},
		{"first and last", func(g *Graph) { g.Last = []int{0} }, nil, "both first and last"},
		{"two firsts joined", func(g *Graph) { g.First = []int{0, 1} }, nil, "edge 0: 0 → 1 joins two nodes pinned to the same layer"},
		{"negative gap", func(*Graph) {}, &Options{NodeGap: -2}, "options"},
		{"negative iterations", func(*Graph) {}, &Options{Iterations: -1}, "options"},
	} {
		g := ok()
		tc.edit(g)
		_, err := Do(g, tc.o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := Do(ok(), nil); err != nil {
		t.Errorf("a good graph: %v", err)
	}
	if l, err := Do(&Graph{}, nil); err != nil || l.W != 2*DefaultMargin || l.H != 2*DefaultMargin {
		t.Errorf("the empty graph: %+v, %v", l, err)
	}
}

// TestMoveRight: s → a → b → c and s → x → c: longest path puts x in
// layer 1 (beside a), then x, with as many edges out as in, moves next to
// c, beside b: its edge to c is short, its edge from s long.
func TestMoveRight(t *testing.T) {
	g := &Graph{Nodes: []Size{{36, 36}, {50, 30}, {50, 30}, {50, 30}, {50, 30}},
		Edges: []Edge{{From: 0, To: 1}, {From: 1, To: 2}, {From: 2, To: 3}, {From: 0, To: 4}, {From: 4, To: 3}}}
	l, err := Do(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	if l.Nodes[4].X != l.Nodes[2].X {
		t.Errorf("x at x %v, want b's layer %v (a's is %v)", l.Nodes[4].X, l.Nodes[2].X, l.Nodes[1].X)
	}
}

// TestPorts: s (36 high) → a, s → b, a above b: the two edges leave s's
// right side 10 apart (the most; room 36 − 2·6), the one to a above,
// centred on s; each enters its target's left side at its centre.
func TestPorts(t *testing.T) {
	g := &Graph{Nodes: []Size{{36, 36}, {60, 30}, {60, 30}}, Edges: []Edge{{From: 0, To: 1}, {From: 0, To: 2}}}
	l, err := Do(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	up, down := 1, 2
	if l.Nodes[2].Y < l.Nodes[1].Y {
		up, down = 2, 1
	}
	s := l.Nodes[0]
	if y0, y1 := l.Edges[up-1].Curve[0].Y, l.Edges[down-1].Curve[0].Y; y0 != s.Y-5 || y1 != s.Y+5 {
		t.Errorf("ports at y %v and %v, want %v ∓ 5", y0, y1, s.Y)
	}
	for i, e := range l.Edges {
		if n := l.Nodes[g.Edges[i].To]; e.Tip != (Point{n.X - 30, n.Y}) {
			t.Errorf("edge %d: tip %v, want %v's left side", i, e.Tip, n)
		}
	}
}

// TestTranspose: a → y, b → x in the input order cross once; swapping x
// and y (or a and b) alone removes it: transposition finds it without any
// sweep, and pairCrossings counts by hand.
func TestTranspose(t *testing.T) {
	g := twoLayer(2, []int{1, 0})
	rev := removeCycles(g)
	s := expand(g, rev, assignRanks(g, rev))
	if c := s.crossings(); c != 1 {
		t.Fatalf("input order: %d crossings, want 1", c)
	}
	// the dummies of a → y (4) and b → x (5): with 4 above 5, their
	// right ends y (pos 1) and x (pos 0) cross once; swapped, not
	if c := s.pairCrossings(4, 5); c != 1 {
		t.Errorf("pairCrossings(4, 5) = %d, want 1", c)
	}
	if c := s.pairCrossings(5, 4); c != 1 {
		t.Errorf("pairCrossings(5, 4) = %d, want 1 (their left ends a, b then cross)", c)
	}
	s.transpose()
	if c := s.crossings(); c != 0 {
		t.Errorf("after transposition: %d crossings, want 0", c)
	}
}
