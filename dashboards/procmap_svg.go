package dashboards

import (
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"
)

// processView is the process map as the page shows it: one inline SVG per
// view (Variants, the first shown), or the sentence saying why there is
// none (Empty).
type processView struct {
	Empty string
	// Note says what the page cannot show (no timestamps: no performance
	// view).
	Note     string
	Variants []pmVariant
}

// pmVariant is one view of the map: frequency or performance, of the
// default transitions or of all.
type pmVariant struct {
	Key, Label, Caption string
	SVG                 template.HTML // from pmSVG: every text escaped
}

// processViewOf lays out and draws pm: the default transitions
// (pmTopEdges up to pmDefaultLimit) and, when that leaves some out, all of
// them (at most pmMaxEdges: then pmTopEdges' pick of that many), each by
// frequency and (when the logs have timestamps) by performance. The two
// views of one set of transitions share their layout.
func processViewOf(pm *ProcessMap) processView {
	if pm == nil {
		return processView{Empty: "Process map: not computed for this report."}
	}
	g := newPMGraph(pm)
	if len(g.nodes) == 2 {
		return processView{Empty: "Process map: no run has an activity (no tool call or context operation)."}
	}
	all := make([]int, len(g.edges))
	for i := range all {
		all[i] = i
	}
	sets := []struct {
		suffix string
		sel    []int
	}{{"", pmTopEdges(g, pmDefaultLimit(g))}}
	if len(sets[0].sel) < len(all) {
		more := all
		if len(all) > pmMaxEdges {
			more = pmTopEdges(g, pmMaxEdges)
		}
		sets = append(sets, struct {
			suffix string
			sel    []int
		}{"-all", more})
	}
	v := processView{}
	if !g.timed {
		v.Note = "These runs' logs have no timestamps between activities: the map has no performance view."
	}
	transitions := 0
	for _, e := range g.edges {
		if !e.inferred {
			transitions++
		}
	}
	for _, s := range sets {
		l, err := layoutPM(g, s.sel)
		if err != nil {
			return processView{Empty: "Process map: the layout failed: " + err.Error()}
		}
		shown := 0
		for _, i := range s.sel {
			if !g.edges[i].inferred {
				shown++
			}
		}
		of := ""
		if shown < transitions {
			of = fmt.Sprintf(" Showing %s of the %s transitions: every one from start and to end, every loop, each activity's most frequent in and out, then the most frequent.",
				thousands(int64(shown)), thousands(int64(transitions)))
		}
		for _, mode := range []string{"frequency", "performance"} {
			if mode == "performance" && !g.timed {
				continue
			}
			label := mode
			if mode == "performance" {
				label = "performance (median times)"
			}
			switch {
			case s.suffix != "" && shown < transitions:
				label += fmt.Sprintf(", %s of %s transitions", thousands(int64(shown)), thousands(int64(transitions)))
			case s.suffix != "":
				label += fmt.Sprintf(", all %s transitions", thousands(int64(transitions)))
			}
			v.Variants = append(v.Variants, pmVariant{Key: mode + s.suffix, Label: label, Caption: pmCaption(g, mode) + of, SVG: pmSVG(g, l, mode)})
		}
	}
	return v
}

func pmCaption(g *pmGraph, mode string) string {
	dashed := ""
	for _, e := range g.edges {
		if e.inferred {
			dashed = " Dashed: an inferred start or end (the map has no edge from start or to end)."
			break
		}
	}
	if mode == "performance" {
		return "Laid out in layers, left to right from start to end (a right-to-left edge closes a loop back). Box: the median time from the activity to the next event of its run; " +
			"edge label and width: the median time between the two activities, from consecutive events' timestamps; “no timestamps” where the logs have none." + dashed
	}
	return "Laid out in layers, left to right from start to end (a right-to-left edge closes a loop back). Box shade and edge width: how often; edge label: transitions; " +
		"a loop: the activity directly repeated." + dashed
}

// svgMap is what the SVG template draws.
type svgMap struct {
	W, H, Label string
	Edges       []svgEdge
	Nodes       []svgNode
}

type svgEdge struct {
	Class, From, To, Title    string
	D, Stroke, Width, Arrow   string
	Dash                      bool
	Label, LabelClass, LX, LY string
}

type svgNode struct {
	Class, ID, Title     string
	Circle               bool
	X, Y, W, H           string // box
	CX, CY, R            string // circle
	Fill, Stroke, Colour string
	Name, Figure         string
	NameY, FigureY       string
}

// pmTmpl draws a laid-out map: the edges, then their labels (over every
// edge, each on a white halo), then the nodes. html/template escapes every
// name and figure (HTML text, RCDATA in <title>, attribute values).
var pmTmpl = template.Must(template.New("pm").Parse(`<svg class="pm-svg" viewBox="0 0 {{.W}} {{.H}}" width="{{.W}}" height="{{.H}}" role="img" aria-label="{{.Label}}" font-family="Helvetica, Arial, sans-serif">
{{range .Edges}}<g class="{{.Class}}" data-from="{{.From}}" data-to="{{.To}}"><title>{{.Title}}</title>` +
	`<path d="{{.D}}" fill="none" stroke="{{.Stroke}}" stroke-width="{{.Width}}"{{if .Dash}} stroke-dasharray="5 4"{{end}}/>` +
	`{{if .Arrow}}<polygon points="{{.Arrow}}" fill="{{.Stroke}}"/>{{end}}</g>
{{end}}{{range .Edges}}{{if .Label}}<text class="{{.LabelClass}}" data-from="{{.From}}" data-to="{{.To}}" x="{{.LX}}" y="{{.LY}}" text-anchor="middle" dominant-baseline="central" font-size="11" fill="#333" stroke="#fff" stroke-width="3" paint-order="stroke"><title>{{.Title}}</title>{{.Label}}</text>
{{end}}{{end}}{{range .Nodes}}<g class="{{.Class}}" data-id="{{.ID}}"><title>{{.Title}}</title>` +
	`{{if .Circle}}<circle cx="{{.CX}}" cy="{{.CY}}" r="{{.R}}" fill="{{.Fill}}"/><text x="{{.CX}}" y="{{.CY}}" text-anchor="middle" dominant-baseline="central" font-size="10" fill="{{.Colour}}">{{.Name}}</text>` +
	`{{else}}<rect x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}" rx="6" fill="{{.Fill}}" stroke="{{.Stroke}}"/>` +
	`<text class="pm-name" x="{{.CX}}" y="{{.NameY}}" text-anchor="middle" dominant-baseline="central" font-size="12" font-weight="600" fill="{{.Colour}}">{{.Name}}</text>` +
	`<text class="pm-figure" x="{{.CX}}" y="{{.FigureY}}" text-anchor="middle" dominant-baseline="central" font-size="11" fill="{{.Colour}}">{{.Figure}}</text>{{end}}</g>
{{end}}</svg>`))

// Edge colours: a transition, a self-loop, one drawn dashed (inferred, or
// with no timestamps in the performance view).
const (
	pmEdgeColour  = "#7b8da6"
	pmLoopColour  = "#9c5d91"
	pmFaintColour = "#b3b3b3"
)

// pmSVG draws layout l of g in mode ("frequency" or "performance").
func pmSVG(g *pmGraph, l *pmLayout, mode string) template.HTML {
	perf := mode == "performance"
	m := svgMap{W: fnum(l.w), H: fnum(l.h), Label: "process map, " + mode}
	var emax, nmax float64
	for _, i := range l.sel {
		e := &g.edges[i]
		if !e.inferred {
			emax = max(emax, pmEdgeValue(e, perf))
		}
	}
	for i := 2; i < len(g.nodes); i++ {
		nmax = max(nmax, pmNodeValue(&g.nodes[i], perf))
	}
	for k, i := range l.sel {
		e, r := &g.edges[i], &l.edges[k]
		from, to := &g.nodes[e.from], &g.nodes[e.to]
		se := svgEdge{Class: "pm-edge", From: from.ID, To: to.ID, Stroke: pmEdgeColour, Width: "1"}
		se.Title = fmt.Sprintf("%s → %s — %s", from.Label, to.Label, pmEdgeTitle(e))
		switch {
		case e.inferred, perf && !e.endpoint() && e.Timed == 0:
			se.Stroke, se.Dash = pmFaintColour, true
		case e.loop():
			se.Class, se.Stroke = "pm-edge pm-loop", pmLoopColour
		}
		if !e.inferred && (!perf || !e.endpoint()) {
			se.Width = fnum(round1(1 + 5*safeDiv(pmEdgeValue(e, perf), emax)))
		}
		var d strings.Builder
		for _, sp := range r.splines {
			fmt.Fprintf(&d, "M%s,%s C", fnum(sp[0].x), fnum(sp[0].y))
			for j, p := range sp[1:] {
				if j > 0 {
					d.WriteByte(' ')
				}
				fmt.Fprintf(&d, "%s,%s", fnum(p.x), fnum(p.y))
			}
			d.WriteByte(' ')
		}
		se.D = strings.TrimSpace(d.String())
		if r.hasTip && len(r.splines) > 0 {
			last := r.splines[len(r.splines)-1]
			se.Arrow = arrowHead(last[len(last)-1], r.tip)
		}
		if lbl := pmEdgeLabel(e, mode); lbl != "" {
			se.Label, se.LX, se.LY, se.LabelClass = lbl, fnum(r.label.x), fnum(r.label.y), "pm-elabel"
			if e.loop() {
				se.LabelClass += " pm-loop-label"
			}
		}
		m.Edges = append(m.Edges, se)
	}
	for i := range g.nodes {
		n, p := &g.nodes[i], l.nodes[i]
		sn := svgNode{Class: "pm-node", ID: n.ID, CX: fnum(p.x), CY: fnum(p.y)}
		switch n.kind {
		case pmStart, pmEnd:
			sn.Circle, sn.R, sn.Name, sn.Colour = true, fnum(pmEndpoint/2), n.Label, "#fff"
			sn.Class += " pm-" + n.Label
			sn.Fill, sn.Title = "#59a14f", "start: where every run begins"
			if n.kind == pmEnd {
				sn.Fill, sn.Title = "#e15759", "end: where every run ends"
			}
		default:
			t := safeDiv(pmNodeValue(n, perf), nmax)
			sn.Fill, sn.Colour = shade(pmBlues, t)
			if perf {
				sn.Fill, sn.Colour = shade(pmOranges, t)
				if n.Timed == 0 {
					sn.Fill, sn.Colour = "#f0f0f0", "#555"
				}
			}
			sn.Stroke = "#5b6f8a"
			sn.X, sn.Y, sn.W, sn.H = fnum(round1(p.x-n.w/2)), fnum(round1(p.y-pmNodeH/2)), fnum(n.w), fnum(pmNodeH)
			sn.Name, sn.Figure = pmName(n), pmNodeFigure(n, mode)
			sn.NameY, sn.FigureY = fnum(round1(p.y-8)), fnum(round1(p.y+10))
			sn.Title = fmt.Sprintf("%s — %s events; %s", n.Label, thousands(n.Count), pmTimeTitle(n.Timed, n.MedianMS, "from it to the next event of its run"))
		}
		m.Nodes = append(m.Nodes, sn)
	}
	var b strings.Builder
	if err := pmTmpl.Execute(&b, m); err != nil {
		// the template and its data are the package's own: an error
		// here is a bug, shown rather than hidden
		return template.HTML(template.HTMLEscapeString("process map: " + err.Error()))
	}
	return template.HTML(b.String())
}

// pmEdgeTitle is an edge's tooltip after its names.
func pmEdgeTitle(e *pmEdge) string {
	switch {
	case e.inferred && e.from == 0:
		return "inferred: the map has no edge from start"
	case e.inferred:
		return "inferred: the map has no edge to end"
	case e.endpoint():
		return textCount(e.Count, "run")
	}
	return textCount(e.Count, "transition") + "; " + pmTimeTitle(e.Timed, e.MedianMS, "between them")
}

func pmTimeTitle(timed int64, ms float64, what string) string {
	if timed == 0 {
		return "no timestamps to time it"
	}
	return fmt.Sprintf("median %s %s (%s timed)", durationText(ms), what, thousands(timed))
}

func textCount(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return thousands(n) + " " + noun + "s"
}

func pmEdgeValue(e *pmEdge, perf bool) float64 {
	if perf {
		if e.endpoint() || e.Timed == 0 {
			return 0
		}
		return e.MedianMS
	}
	return float64(e.Count)
}

func pmNodeValue(n *pmNode, perf bool) float64 {
	if perf {
		if n.Timed == 0 {
			return 0
		}
		return n.MedianMS
	}
	return float64(n.Count)
}

// arrowHead is the triangle from the end of an edge's spline (base) to the
// arrow's tip.
func arrowHead(base, tip pmPoint) string {
	dx, dy := tip.x-base.x, tip.y-base.y
	l := math.Hypot(dx, dy)
	if l < 0.01 {
		return ""
	}
	hw := 0.4 * l
	nx, ny := -dy/l*hw, dx/l*hw
	return fmt.Sprintf("%s,%s %s,%s %s,%s", fnum(tip.x), fnum(tip.y), fnum(round1(base.x+nx)), fnum(round1(base.y+ny)), fnum(round1(base.x-nx)), fnum(round1(base.y-ny)))
}

// Box shades, light to dark: frequency blue, performance orange.
var (
	pmBlues   = [2][3]float64{{0xde, 0xeb, 0xf7}, {0x21, 0x71, 0xb5}}
	pmOranges = [2][3]float64{{0xfe, 0xe6, 0xce}, {0xd9, 0x48, 0x01}}
)

// shade is the colour t in [0, 1] of the way along scale, and the text
// colour that reads on it.
func shade(scale [2][3]float64, t float64) (fill, text string) {
	lo, hi := scale[0], scale[1]
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

// fnum formats a coordinate: the shortest decimal, never an exponent.
func fnum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
