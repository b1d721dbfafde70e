package dashboards

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"
)

// The process map's artificial start and end nodes, as mining names them
// (mining.Start, mining.End): an edge from StartNode enters the activity a
// case starts with, an edge to EndNode leaves the one it ends with.
const (
	StartNode = "▶"
	EndNode   = "■"
)

// Layout of the process map (ECharts coordinates, scaled to fit).
const (
	layerGap = 240.0
	rowGap   = 80.0
)

// processLayout places the process map left to right, as the
// directly-follows views of Disco and PM4Py do:
//
//  1. the start node is layer 0; every activity's layer is its
//     breadth-first depth from the start over the edges (self-loops and
//     edges back to an earlier layer do not move a node); activities the
//     start does not reach go one layer right of the deepest reached one;
//  2. the end node is one layer right of the deepest activity;
//  3. within a layer, activities by count (highest first, ties by name),
//     spread vertically around the middle.
//
// It returns each node's layer and (x, y). When the map has no edge from
// the start (or to the end), start (end) edges are added to the activities
// with no incoming (outgoing) edge from another activity, or to the most
// frequent activity, and flagged inferred.
func processLayout(pm *ProcessMap) (nodes []ProcessNode, edges []layoutEdge, pos map[string][2]float64, layer map[string]int) {
	known := map[string]bool{StartNode: true, EndNode: true}
	for _, n := range pm.Nodes {
		if !known[n.ID] {
			known[n.ID] = true
			nodes = append(nodes, n)
		}
	}
	hasIn, hasOut := map[string]bool{}, map[string]bool{}
	start, end := false, false
	for _, e := range pm.Edges {
		for _, id := range []string{e.From, e.To} {
			if !known[id] {
				known[id] = true
				nodes = append(nodes, ProcessNode{ID: id, Label: id})
			}
		}
		edges = append(edges, layoutEdge{ProcessEdge: e})
		start = start || e.From == StartNode
		end = end || e.To == EndNode
		if e.From != e.To && e.From != StartNode {
			hasIn[e.To] = true
		}
		if e.From != e.To && e.To != EndNode {
			hasOut[e.From] = true
		}
	}
	top := ""
	for _, n := range nodes {
		if top == "" || n.Count > nodeCount(nodes, top) {
			top = n.ID
		}
	}
	if !start && top != "" {
		k := 0
		for _, n := range nodes {
			if !hasIn[n.ID] {
				edges = append(edges, layoutEdge{ProcessEdge: ProcessEdge{From: StartNode, To: n.ID}, inferred: true})
				k++
			}
		}
		if k == 0 {
			edges = append(edges, layoutEdge{ProcessEdge: ProcessEdge{From: StartNode, To: top}, inferred: true})
		}
	}
	if !end && top != "" {
		k := 0
		for _, n := range nodes {
			if !hasOut[n.ID] {
				edges = append(edges, layoutEdge{ProcessEdge: ProcessEdge{From: n.ID, To: EndNode}, inferred: true})
				k++
			}
		}
		if k == 0 {
			edges = append(edges, layoutEdge{ProcessEdge: ProcessEdge{From: top, To: EndNode}, inferred: true})
		}
	}
	// 1. breadth-first depth from the start
	out := map[string][]string{}
	for _, e := range edges {
		if e.To != EndNode && e.From != e.To {
			out[e.From] = append(out[e.From], e.To)
		}
	}
	layer = map[string]int{StartNode: 0}
	queue := []string{StartNode}
	deepest := 0
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		for _, to := range out[id] {
			if _, ok := layer[to]; !ok {
				layer[to] = layer[id] + 1
				deepest = max(deepest, layer[to])
				queue = append(queue, to)
			}
		}
	}
	unreached := false
	for _, n := range nodes {
		if _, ok := layer[n.ID]; !ok {
			layer[n.ID] = deepest + 1
			unreached = true
		}
	}
	if unreached {
		deepest++
	}
	layer[EndNode] = deepest + 1
	// 3. spread each layer vertically
	byLayer := map[int][]ProcessNode{0: {{ID: StartNode, Label: "start"}}, deepest + 1: {{ID: EndNode, Label: "end"}}}
	for _, n := range nodes {
		byLayer[layer[n.ID]] = append(byLayer[layer[n.ID]], n)
	}
	pos = map[string][2]float64{}
	for l, ns := range byLayer {
		slices.SortFunc(ns, func(a, b ProcessNode) int { return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.ID, b.ID)) })
		for i, n := range ns {
			pos[n.ID] = [2]float64{float64(l) * layerGap, (float64(i) - float64(len(ns)-1)/2) * rowGap}
		}
	}
	return nodes, edges, pos, layer
}

// layoutEdge is a process-map edge; inferred start and end edges have no
// count.
type layoutEdge struct {
	ProcessEdge
	inferred bool
}

func nodeCount(ns []ProcessNode, id string) int64 {
	for _, n := range ns {
		if n.ID == id {
			return n.Count
		}
	}
	return 0
}

// nodeColor shades a node from light to dark blue by t in [0, 1] and
// returns the label colour that reads on it.
func nodeColor(t float64) (fill, text string) {
	lo, hi := [3]float64{0xde, 0xeb, 0xf7}, [3]float64{0x21, 0x71, 0xb5}
	var c [3]int
	for i := range c {
		c[i] = int(lo[i] + (hi[i]-lo[i])*t + 0.5)
	}
	text = "#111"
	if t > 0.55 {
		text = "#fff"
	}
	return fmt.Sprintf("#%02x%02x%02x", c[0], c[1], c[2]), text
}

// timedText is a median duration, or "no timestamps" when no occurrence
// was timed (a log without timestamps: not 0 ms).
func timedText(timed int64, ms float64) string {
	if timed == 0 {
		return "no timestamps"
	}
	return durationText(ms)
}

func durationText(ms float64) string {
	switch {
	case ms >= 60000:
		return fmt.Sprintf("%.1f min", ms/60000)
	case ms >= 1000:
		return fmt.Sprintf("%.1f s", ms/1000)
	}
	return fmt.Sprintf("%.0f ms", ms)
}

func processChart(pm *ProcessMap) Chart {
	nodes, edges, pos, layer := processLayout(pm)
	rows := 1
	perLayer := map[int]int{}
	for _, n := range nodes {
		perLayer[layer[n.ID]]++
		rows = max(rows, perLayer[layer[n.ID]])
	}
	c := Chart{ID: "process-map", Section: SecProcess, Height: min(max(360, 120+70*rows), 900)}
	all, top := edges, topEdges(edges)
	for _, key := range []string{"frequency", "performance", "frequency-all", "performance-all"} {
		mode, every := strings.CutSuffix(key, "-all")
		edges := all
		if !every {
			edges = top
		}
		o := baseOption()
		o.Tooltip = richTooltip("item")
		sub := "left to right from start; box shade and edge width: how often; edge label: transitions (count)"
		if mode == "performance" {
			sub = "left to right from start; box shade and edge width: median time; box: median time from the activity to the run's next event; edge label: median time between the two activities (no timestamps: the logs have none)"
		}
		if len(edges) < len(all) {
			sub += fmt.Sprintf(" · %d of %d transitions (all from start and to end, each activity's most frequent in and out, then the most frequent)", len(edges), len(all))
		}
		o.Title = title("Process map (directly-follows graph)", sub)
		var nmax, emax float64
		for _, n := range nodes {
			nmax = max(nmax, val(mode, n.Count, n.MedianMS))
		}
		for _, e := range edges {
			emax = max(emax, val(mode, e.Count, e.MedianMS))
		}
		// node names are the labels (unique: a repeated label gets its id)
		name := map[string]string{StartNode: StartNode, EndNode: EndNode}
		used := map[string]bool{StartNode: true, EndNode: true}
		for _, n := range nodes {
			l := n.Label
			if l == "" {
				l = n.ID
			}
			if used[l] {
				l += " (" + n.ID + ")"
			}
			used[l] = true
			name[n.ID] = l
		}
		loops := map[string]int64{}
		for _, e := range edges {
			if e.From == e.To {
				loops[e.From] = e.Count
			}
		}
		var gn []GraphNode
		for _, id := range []string{StartNode, EndNode} {
			p := pos[id]
			color, lbl := "#59a14f", "start"
			if id == EndNode {
				color, lbl = "#e15759", "end"
			}
			l := label("bottom", lbl)
			l.FontSize, l.Color = 12, "#333"
			gn = append(gn, GraphNode{GraphNode: opts.GraphNode{Name: id, SymbolSize: 34, Symbol: "circle", ItemStyle: &opts.ItemStyle{Color: color}}, X: p[0], Y: p[1], Label: l})
		}
		for _, n := range nodes {
			p := pos[n.ID]
			v := val(mode, n.Count, n.MedianMS)
			fill, text := nodeColor(safeDiv(v, nmax))
			f := "{b}\n" + thousands(n.Count)
			if mode == "performance" {
				f = "{b}\n" + timedText(n.Timed, n.MedianMS)
			}
			l := label("inside", f)
			l.FontSize, l.LineHeight, l.Color, l.Width, l.Overflow = 11, 14, text, 140, "truncate"
			gn = append(gn, GraphNode{GraphNode: opts.GraphNode{Name: name[n.ID], Value: float32(round3(v)), Symbol: "roundRect", SymbolSize: []int{150, 40},
				ItemStyle: &opts.ItemStyle{Color: fill, BorderColor: "#2171b5", BorderWidth: 1}}, X: p[0], Y: p[1], Label: l})
			if _, ok := loops[n.ID]; ok {
				// a self-loop is drawn through a point above the node
				// (ECharts draws no edge from a node to itself)
				gn = append(gn, GraphNode{GraphNode: opts.GraphNode{Name: loopNode(name[n.ID]), Symbol: "circle", SymbolSize: 1, ItemStyle: &opts.ItemStyle{Color: "#b07aa1"}},
					X: p[0], Y: p[1] - 0.62*rowGap, Label: noLabel()})
			}
		}
		var links []GraphLink
		for _, e := range edges {
			v := val(mode, e.Count, e.MedianMS)
			ls := &opts.LineStyle{Width: float32(round3(1 + 6*safeDiv(v, emax))), Opacity: opts.Float(0.75), Color: "#6b7f99"}
			lf, lt := layer[e.From], layer[e.To]
			switch {
			case e.From == e.To:
				ls.Color = "#b07aa1" // self-loop
			case lt <= lf:
				ls.Curveness = 0.35 // back to an earlier layer
				ls.Color = "#e15759"
			case lt > lf+1:
				ls.Curveness = 0.2 // skips a layer
			}
			el := &opts.EdgeLabel{Show: opts.Bool(true), Formatter: thousands(e.Count), FontSize: 10, Color: "#333"}
			if mode == "performance" {
				el.Formatter = timedText(e.Timed, e.MedianMS)
			}
			if e.inferred {
				el = &opts.EdgeLabel{Show: opts.Bool(false)}
				ls.Type = "dashed"
			}
			if e.From == e.To {
				ls.Curveness = 0.9
				up := *ls
				links = append(links, GraphLink{GraphLink: opts.GraphLink{Source: name[e.From], Target: loopNode(name[e.From]), Value: float32(round3(v)), LineStyle: &up,
					Label: &opts.EdgeLabel{Show: opts.Bool(false)}}, Symbol: []string{"none", "none"}},
					GraphLink{GraphLink: opts.GraphLink{Source: loopNode(name[e.From]), Target: name[e.To], Value: float32(round3(v)), LineStyle: ls, Label: el}})
				continue
			}
			links = append(links, GraphLink{GraphLink: opts.GraphLink{Source: name[e.From], Target: name[e.To], Value: float32(round3(v)), LineStyle: ls, Label: el}})
		}
		o.Series = []Series{{SingleSeries: charts.SingleSeries{Name: mode, Type: types.ChartGraph, Top: "100", Bottom: "40", Left: "60", Right: "60", Layout: "none", Roam: opts.Bool(true),
			Data: gn, Links: links, EdgeSymbol: []string{"none", "arrow"}, EdgeLabel: &opts.EdgeLabel{Show: opts.Bool(true), FontSize: 10}}}}
		c.Variants = append(c.Variants, ChartVariant{Key: key, Label: key, Option: o})
	}
	c.Option = c.Variants[0].Option
	return c
}

// topEdges keeps the transitions a readable map draws (Disco's paths
// slider at its default): every start and end edge, every self-loop (a
// read → read is often the busiest transition), each node's most frequent
// incoming and outgoing edge to another node, then the most frequent
// others, up to max(12, 2 × nodes) edges; in edges' order.
func topEdges(edges []layoutEdge) []layoutEdge {
	nodes := map[string]bool{}
	for _, e := range edges {
		nodes[e.From], nodes[e.To] = true, true
	}
	limit := max(12, 2*len(nodes))
	keep := make([]bool, len(edges))
	bestIn, bestOut := map[string]int{}, map[string]int{}
	for i, e := range edges {
		if e.inferred || e.From == StartNode || e.To == EndNode {
			keep[i] = true
		}
		if e.From == e.To {
			keep[i] = true
			continue
		}
		if j, ok := bestOut[e.From]; !ok || e.Count > edges[j].Count {
			bestOut[e.From] = i
		}
		if j, ok := bestIn[e.To]; !ok || e.Count > edges[j].Count {
			bestIn[e.To] = i
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
	order := make([]int, len(edges))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(edges[b].Count, edges[a].Count) })
	for _, i := range order {
		if n >= limit {
			break
		}
		if !keep[i] {
			keep[i] = true
			n++
		}
	}
	var out []layoutEdge
	for i, e := range edges {
		if keep[i] {
			out = append(out, e)
		}
	}
	return out
}

// loopNode is the name of the point a self-loop of node name passes through.
func loopNode(name string) string { return "↻ " + name }

func val(mode string, count int64, ms float64) float64 {
	if mode == "performance" {
		return ms
	}
	return float64(count)
}

// ActivityColour is an activity's colour in the variants chart (the page's
// key below it).
type ActivityColour struct {
	Name, Colour string
}

// activityColours gives each activity of vs a palette colour, in order of
// first appearance.
func activityColours(vs []Variant) []ActivityColour {
	var out []ActivityColour
	seen := map[string]bool{}
	for _, v := range vs {
		for _, a := range v.Activities {
			if !seen[a] {
				seen[a] = true
				out = append(out, ActivityColour{Name: a, Colour: palette[len(out)%len(palette)]})
			}
		}
	}
	return out
}

// VariantSteps is the most activities the variants chart draws per variant.
const VariantSteps = 40

// variantsChart draws each variant as a row of coloured activity blocks in
// order (a sequence chart), labelled with its rank, runs and share: one
// stacked bar series per position, each block coloured by its activity.
// A variant of no events (runs with no activity: no tool call, no context
// operation) has nothing to draw: it keeps its rank in the table and the
// subtitle counts its runs, but gets no row.
func variantsChart(vs []Variant) Chart {
	colour := map[string]string{}
	for _, k := range activityColours(vs) {
		colour[k.Name] = k.Colour
	}
	steps := 0
	var rows []string
	var drawn []Variant
	var none int64
	noneShare := 0.0
	for i, v := range vs {
		if len(v.Activities) == 0 {
			none += v.Runs
			noneShare += v.Share
			continue
		}
		runs := "runs"
		if v.Runs == 1 {
			runs = "run"
		}
		rows = append(rows, fmt.Sprintf("#%d · %s %s (%s)", i+1, thousands(v.Runs), runs, pct(v.Share)))
		drawn = append(drawn, v)
		steps = max(steps, min(len(v.Activities), VariantSteps))
	}
	if len(drawn) == 0 {
		return emptyChart("process-variants", SecProcess, "Variants: no run has an activity (no tool call or context operation).")
	}
	sub := "each row one distinct sequence of activities, in order; block colour: the activity"
	if none > 0 {
		sub += fmt.Sprintf(" · not drawn: %s runs (%s) with no events", thousands(none), pct(noneShare))
	}
	o := hbarOption("Variants: activity sequences", sub)
	o.Tooltip = richTooltip("item")
	o.Tooltip.Formatter = "{b}"
	for k := range steps {
		data := make([]any, len(drawn))
		for i, v := range drawn {
			switch {
			case k >= len(v.Activities):
				data[i] = nil
			case k == VariantSteps-1 && len(v.Activities) > VariantSteps:
				data[i] = opts.BarData{Value: 1, Name: fmt.Sprintf("… %d more", len(v.Activities)-k), ItemStyle: &opts.ItemStyle{Color: "#ccc"}}
			default:
				a := v.Activities[k]
				data[i] = opts.BarData{Value: 1, Name: a, ItemStyle: &opts.ItemStyle{Color: colour[a], BorderColor: "#fff", BorderWidth: 1}}
			}
		}
		s := Series{SingleSeries: charts.SingleSeries{Type: types.ChartBar, Stack: "variant", Data: data, BarWidth: "70%"}}
		s.Label = label("inside", "{b}")
		s.Label.Show = opts.Bool(steps <= 16)
		s.Label.FontSize, s.Label.Color, s.Label.Width, s.Label.Overflow = 10, "#fff", max(20, 1000/max(steps, 1)-6), "truncate"
		o.Series = append(o.Series, s)
	}
	o.YAxis = categoryY("variant", rows, 0)
	o.YAxis.AxisLabel = &AxisLabel{Interval: intp(0)}
	o.XAxis = &XAxis{XAxis: opts.XAxis{Type: "value", Name: "activity position in the run", NameLocation: "middle", NameGap: 28, Min: 0, Max: max(steps, 1), MinInterval: 1}}
	o.Grid.Top = "70"
	return Chart{ID: "process-variants", Section: SecProcess, Height: 130 + 30*max(len(drawn), 2), Option: o}
}
