package mining

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// num formats v with prec decimals, without a negative zero.
func num(v float64, prec int) string {
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.TrimLeft(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-")
	}
	return s
}

// secs formats a duration in seconds ("-" when there is none).
func secs(v float64, ok bool) string {
	if !ok {
		return "-"
	}
	return num(v, 3) + "s"
}

// WriteText writes the graph in its canonical text form: a header, one
// "node" line per activity (by name), one "edge" line per edge (▶ first,
// ■ last, else by name). Names are written as in the model format.
//
//	dfg: 2 cases, 5 events, 3 activities, 5 edges
//	node a count=2 cases=2 tokens=20
//	edge ▶ -> a count=2 cases=2 timed=0 mean=- median=- tokens=20 mean_tokens=10.0
func (d *DFG) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "dfg: %d cases, %d events, %d activities, %d edges\n", d.Cases, d.Events, len(d.Nodes), len(d.Edges))
	for _, n := range d.Nodes {
		fmt.Fprintf(bw, "node %s count=%d cases=%d tokens=%d\n", quoteName(n.Name), n.Count, n.Cases, n.Tokens)
	}
	for _, e := range d.Edges {
		fmt.Fprintf(bw, "edge %s -> %s count=%d cases=%d timed=%d mean=%s median=%s tokens=%d mean_tokens=%s\n",
			quoteName(e.From), quoteName(e.To), e.Count, e.Cases, e.Timed,
			secs(e.MeanSeconds, e.Timed > 0), secs(e.MedianSeconds, e.Timed > 0), e.Tokens, num(e.MeanTokens, 1))
	}
	return bw.Flush()
}

// WriteVariants writes the first top variants (all when top <= 0), one line
// each with rank, count, share, cumulative share, an example case and the
// activities ("(no events)" for cases without any), and a last line
// counting the variants left out.
//
//	variants: 4 cases, 3 variants
//	#1 count=2 share=0.500 cumulative=0.500 example=c1: a, b, c
func WriteVariants(w io.Writer, vs []Variant, top int) error {
	bw := bufio.NewWriter(w)
	cases := 0
	for _, v := range vs {
		cases += v.Count
	}
	fmt.Fprintf(bw, "variants: %d cases, %d variants\n", cases, len(vs))
	n := len(vs)
	if top > 0 && top < n {
		n = top
	}
	for i, v := range vs[:n] {
		names := make([]string, len(v.Activities))
		for k, a := range v.Activities {
			names[k] = quoteName(a)
		}
		seq := strings.Join(names, ", ")
		if seq == "" {
			seq = "(no events)"
		}
		fmt.Fprintf(bw, "#%d count=%d share=%s cumulative=%s example=%s: %s\n", i+1, v.Count, num(v.Share, 3), num(v.Cumulative, 3), quoteName(v.Example), seq)
	}
	if n < len(vs) {
		left := 0
		for _, v := range vs[n:] {
			left += v.Count
		}
		fmt.Fprintf(bw, "… %d more variants (%d cases)\n", len(vs)-n, left)
	}
	return bw.Flush()
}

// WriteText writes the net canonically: a header with the thresholds, one
// "arc" line per kept arc with its reasons, then one "dependency" line per
// observed pair with its counts and measures.
//
//	heuristics: 2 cases, 3 activities, 4 arcs (dependency>=0.9 positive>=1 relative-to-best<=0.05 loop1>=0.9 loop2>=0.9 all-tasks-connected=true)
//	arc a -> b count=2 dependency=0.667 reasons=threshold
//	dependency a -> b count=2 back=0 value=0.667 loop2=0 loop2_value=0.000
func (h *HeuristicsNet) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	o := h.Options
	fmt.Fprintf(bw, "heuristics: %d cases, %d activities, %d arcs (dependency>=%s positive>=%d relative-to-best<=%s loop1>=%s loop2>=%s all-tasks-connected=%t)\n",
		h.Cases, len(h.Nodes), len(h.Arcs), num(o.DependencyThreshold, 3), o.PositiveObservations, num(o.RelativeToBest, 3),
		num(o.LengthOneLoopThreshold, 3), num(o.LengthTwoLoopThreshold, 3), o.AllTasksConnected)
	for _, n := range h.Nodes {
		fmt.Fprintf(bw, "node %s count=%d cases=%d\n", quoteName(n.Name), n.Count, n.Cases)
	}
	for _, a := range h.Arcs {
		fmt.Fprintf(bw, "arc %s -> %s count=%d dependency=%s reasons=%s\n", quoteName(a.From), quoteName(a.To), a.Count, num(a.Dependency, 3), strings.Join(a.Reasons, ","))
	}
	for _, d := range h.Dependencies {
		fmt.Fprintf(bw, "dependency %s -> %s count=%d back=%d value=%s loop2=%d loop2_value=%s\n", quoteName(d.From), quoteName(d.To), d.Count, d.Back, num(d.Value, 3), d.Loop2, num(d.L2, 3))
	}
	return bw.Flush()
}

// WriteText writes the replay canonically: the log's figures, the
// deviations by count, then the first top cases (all when top <= 0) by
// fitness (ascending), then id, with their token counts and deviations as
// position:from->to.
//
//	conformance: 2 cases, fitness=0.900 mean=0.900 fitting=1/2
//	deviation a -> c count=1 cases=1
//	case c2 fitness=0.800 p=5 c=5 m=1 r=1 deviations=2:a->c,3:c->b
func (c *Conformance) WriteText(w io.Writer, top int) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "conformance: %d cases, fitness=%s mean=%s fitting=%d/%d\n", len(c.Cases), num(c.Fitness, 3), num(c.MeanFitness, 3), c.Fitting, len(c.Cases))
	for _, d := range c.Deviations {
		fmt.Fprintf(bw, "deviation %s -> %s count=%d cases=%d\n", quoteName(d.From), quoteName(d.To), d.Count, d.Cases)
	}
	order := make([]int, len(c.Cases))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if c.Cases[a].Fitness != c.Cases[b].Fitness {
			if c.Cases[a].Fitness < c.Cases[b].Fitness {
				return -1
			}
			return 1
		}
		return strings.Compare(c.Cases[a].Case, c.Cases[b].Case)
	})
	if top > 0 && top < len(order) {
		order = order[:top]
	}
	for _, i := range order {
		cf := &c.Cases[i]
		devs := make([]string, len(cf.Deviations))
		for k, d := range cf.Deviations {
			devs[k] = fmt.Sprintf("%d:%s->%s", d.Pos, quoteName(d.From), quoteName(d.To))
		}
		dv := "-"
		if len(devs) > 0 {
			dv = strings.Join(devs, ",")
		}
		fmt.Fprintf(bw, "case %s fitness=%s p=%d c=%d m=%d r=%d deviations=%s\n", quoteName(cf.Case), num(cf.Fitness, 3), cf.Produced, cf.Consumed, cf.Missing, cf.Remaining, dv)
	}
	return bw.Flush()
}

// WriteText writes the comparison: a header, then a line on how edges
// are tested and the first top edges, then a line on the variants and the
// first top variants (all when top <= 0), in their order (lowest Q first):
// a rate-tested edge with both groups' mean rates per 100 transitions, the
// difference, Welch's t, P and Q, and its presence; a presence
// test with both groups' cases and shares, the difference, P and Q. Every
// line ends with the unnormalised presence test's p (presence_p).
//
//	compare: A=resolved (3 cases) B=failed (2 cases)
//	edges: 5 tested, 1 with q <= 0.05 (rate: 100 × count / transitions per case, Welch's t; ▶/■ edges: presence, Fisher's exact; q: Benjamini–Hochberg)
//	edge a -> b rate A=33.333 B=0.000 diff=+33.333 t=+1.414 p=0.293 q=0.340 cases A=2/3 B=0/2 presence_p=0.068
//	variants: repeats collapsed: 2 (4 as logged) in 5 cases, 0 with q <= 0.05 (presence, Fisher's exact; q: Benjamini–Hochberg)
//	variant a, b cases A=2/3=0.667 B=0/2=0.000 diff=+0.667 p=0.400 q=1.000 presence_p=0.068
func (c *Comparison) WriteText(w io.Writer, top int) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "compare: A=%s (%d cases) B=%s (%d cases)\n", quoteName(c.A), c.CasesA, quoteName(c.B), c.CasesB)
	signed := func(v float64) string {
		s := num(v, 3)
		if !strings.HasPrefix(s, "-") {
			s = "+" + s
		}
		return s
	}
	sig := func(ds []Difference) int {
		n := 0
		for _, d := range ds {
			if d.Q <= FDR {
				n++
			}
		}
		return n
	}
	for _, sec := range []struct {
		kind string
		ds   []Difference
	}{{"edge", c.Edges}, {"variant", c.Variants}} {
		ds := sec.ds
		if sec.kind == "edge" {
			fmt.Fprintf(bw, "edges: %d tested, %d with q <= %s (rate: 100 × count / transitions per case, Welch's t; ▶/■ edges: presence, Fisher's exact; q: Benjamini–Hochberg)\n",
				len(ds), sig(ds), num(FDR, 2))
		} else {
			fmt.Fprintf(bw, "variants: %s: %d (%d as logged) in %d cases, %d with q <= %s (presence, Fisher's exact; q: Benjamini–Hochberg)\n",
				c.VariantLevel, c.VariantsCoarse, c.VariantsExact, c.CasesA+c.CasesB, sig(ds), num(FDR, 2))
		}
		if top > 0 && top < len(ds) {
			ds = ds[:top]
		}
		for _, d := range ds {
			if d.Test == "rate" {
				fmt.Fprintf(bw, "%s %s rate A=%s B=%s diff=%s t=%s p=%s q=%s cases A=%d/%d B=%d/%d presence_p=%s\n", sec.kind, d.Key, num(d.RateA, 3), num(d.RateB, 3),
					signed(d.Diff), signed(d.T), num(d.P, 3), num(d.Q, 3), d.CasesA, c.CasesA, d.CasesB, c.CasesB, num(d.PresenceP, 3))
				continue
			}
			fmt.Fprintf(bw, "%s %s cases A=%d/%d=%s B=%d/%d=%s diff=%s p=%s q=%s presence_p=%s\n", sec.kind, d.Key, d.CasesA, c.CasesA, num(d.ShareA, 3),
				d.CasesB, c.CasesB, num(d.ShareB, 3), signed(d.Diff), num(d.P, 3), num(d.Q, 3), num(d.PresenceP, 3))
		}
		if len(ds) < len(sec.ds) {
			fmt.Fprintf(bw, "… %d more %ss\n", len(sec.ds)-len(ds), sec.kind)
		}
	}
	return bw.Flush()
}

// dotString quotes s as a DOT string (double quotes, backslash and line
// breaks escaped).
func dotString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// dotWriter holds the node ids of one DOT graph.
type dotWriter struct {
	bw  *bufio.Writer
	ids map[string]string
}

func newDOT(w io.Writer, name string, nodes []Node) *dotWriter {
	d := &dotWriter{bw: bufio.NewWriter(w), ids: map[string]string{}}
	fmt.Fprintf(d.bw, "digraph %s {\n  rankdir=LR;\n  node [shape=box, style=rounded, fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=10];\n", name)
	d.node(Start, Start, "shape=circle")
	for _, n := range nodes {
		d.node(n.Name, n.Name+"\n"+strconv.Itoa(n.Count), "")
	}
	d.node(End, End, "shape=circle")
	return d
}

func (d *dotWriter) node(name, label, attrs string) {
	id := "n" + strconv.Itoa(len(d.ids))
	d.ids[name] = id
	if attrs != "" {
		attrs = ", " + attrs
	}
	fmt.Fprintf(d.bw, "  %s [label=%s%s];\n", id, dotString(label), attrs)
}

func (d *dotWriter) edge(from, to, label string, width float64) {
	fmt.Fprintf(d.bw, "  %s -> %s [label=%s, penwidth=%s];\n", d.ids[from], d.ids[to], dotString(label), num(width, 2))
}

func (d *dotWriter) close() error {
	d.bw.WriteString("}\n")
	return d.bw.Flush()
}

// penwidth is 1 + 4 · count / max: the busiest edge is 5 points wide.
func penwidth(count, max int) float64 {
	if max <= 0 {
		return 1
	}
	return 1 + 4*float64(count)/float64(max)
}

// busiest is the largest count of edges (0 for none), the max of penwidth.
func busiest[E any](edges []E, count func(E) int) int {
	most := 0
	for _, e := range edges {
		most = max(most, count(e))
	}
	return most
}

// WriteDOT writes the graph in Graphviz DOT: ▶ and ■ as circles, one box
// per activity labelled with its name and count, one edge per relation
// labelled with its count (and its median time when timed), its width
// 1 + 4 · count / (largest count). Nodes are numbered in canonical order.
func (d *DFG) WriteDOT(w io.Writer) error {
	g := newDOT(w, "dfg", d.Nodes)
	most := busiest(d.Edges, func(e Edge) int { return e.Count })
	for _, e := range d.Edges {
		label := strconv.Itoa(e.Count)
		if e.Timed > 0 {
			label += "\n" + secs(e.MedianSeconds, true)
		}
		g.edge(e.From, e.To, label, penwidth(e.Count, most))
	}
	return g.close()
}

// WriteDOT writes the dependency graph in Graphviz DOT, like DFG.WriteDOT,
// each arc labelled with its dependency measure and count.
func (h *HeuristicsNet) WriteDOT(w io.Writer) error {
	g := newDOT(w, "heuristics", h.Nodes)
	most := busiest(h.Arcs, func(a HeuristicsArc) int { return a.Count })
	for _, a := range h.Arcs {
		if _, ok := g.ids[a.From]; !ok {
			continue
		}
		g.edge(a.From, a.To, num(a.Dependency, 3)+" ("+strconv.Itoa(a.Count)+")", penwidth(a.Count, most))
	}
	return g.close()
}
