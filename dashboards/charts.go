package dashboards

import (
	"fmt"
	"slices"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"
)

// Section ids, in page order (by importance: the answer first, then what
// to do about it, then the evidence).
const (
	SecVerdict         = "verdict"
	SecRecommendations = "recommendations"
	SecPolicies        = "policies"
	SecOccupancy       = "occupancy"
	SecDrilldown       = "drilldown"
	SecRent            = "rent"
	SecSurvival        = "survival"
	SecProcess         = "process"
	SecBehaviour       = "behaviour"
)

// Chart is one chart of the page: a stable id (its element and golden
// file name), the section it belongs to, its ECharts option and, for charts
// a selector switches, the variants (the first is shown first; Option is
// then the default variant's). A chart whose data holds nothing to draw
// is not drawn: Empty says why, and the page shows that sentence instead.
type Chart struct {
	ID       string
	Section  string
	Height   int // pixels
	Option   Option
	Variants []ChartVariant
	// Run is the sampled run (RunKey) a click on the chart opens; "" none.
	Run string
	// Caption is what the chart shows and from which table, under it as
	// text (it wraps where a chart's subtitle would be cut); "" none.
	Caption string
	// Empty, when set, replaces the chart: why there is nothing to draw.
	Empty string
}

// ChartVariant is one selectable state of a chart.
type ChartVariant struct {
	Key    string
	Label  string
	Option Option
}

// SmallMultiples is the most runs drawn as small multiples (the top runs).
const SmallMultiples = 12

var palette = []string{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
	"#9c755f", "#bab0ac", "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79"}

func baseOption() Option {
	return Option{
		Tooltip:   richTooltip("axis"),
		Color:     palette,
		TextStyle: &opts.TextStyle{FontFamily: "sans-serif"},
	}
}

// title is a centred chart title with a subtitle.
func title(text, sub string) *opts.Title {
	return &opts.Title{Title: text, Subtitle: sub, Left: "center"}
}

// grid is the plot area, its label-inclusive edges in pixels (or "3%").
func grid(left, right, top, bottom string) *opts.Grid {
	return &opts.Grid{Left: left, Right: right, Top: top, Bottom: bottom, ContainLabel: opts.Bool(true)}
}

// emptyChart is a chart with nothing to draw: the page shows why instead.
func emptyChart(id, section, why string) Chart {
	return Chart{ID: id, Section: section, Empty: why, Option: Option{Series: []Series{}}}
}

// Widths the legend layout assumes (pixels of a 1440 px page).
const (
	fullWidth = 1300
	halfWidth = 620
)

// legendRows estimates how many lines a plain legend of names takes at
// width w: ECharts wraps a plain legend, and every item must stay visible
// (a scrolling legend hides entries on other pages).
func legendRows(names []string, w int) int {
	rows, x := 1, 0
	for _, n := range names {
		iw := 25 + 5 + 7*len([]rune(n)) + 10 // symbol, gap, text, item gap
		if x > 0 && x+iw > w {
			rows++
			x = 0
		}
		x += iw
	}
	return rows
}

// withLegend sets a plain legend of the series' names from top (pixels)
// and moves the grid below it; below is the grid's extra top margin.
func withLegend(o *Option, top, w, below int, sel map[string]bool) {
	names := make([]string, 0, len(o.Series))
	for _, se := range o.Series {
		if se.Name != "" && !slices.Contains(names, se.Name) {
			names = append(names, se.Name)
		}
	}
	o.Legend = &opts.Legend{Top: fmt.Sprint(top), Selected: sel}
	if o.Grid != nil {
		o.Grid.Top = fmt.Sprint(top + 26*legendRows(names, w) + max(below, 20))
	}
}

// Charts returns every chart of the page for d, in page order. Chart ids
// are stable: the same Data gives the same ids and options.
func Charts(d *Data) []Chart {
	var cs []Chart
	cs = append(cs, endsChart(d), peaksChart(d))
	if d.Recommendations != nil {
		cs = append(cs, recommendChart(d))
	}
	cs = append(cs, policyCharts(d)...)
	cs = append(cs, runsScatter(d))
	cs = append(cs, smallMultiples(d)...)
	cs = append(cs, runChart(d))
	cs = append(cs, timelineChart(d))
	cs = append(cs, rentChart(d), survivalChart(d))
	if d.Variants != nil {
		cs = append(cs, variantsChart(d.Variants))
	}
	if len(d.Behaviour) > 0 {
		cs = append(cs, behaviourChart(d.Behaviour))
	}
	return cs
}

// categoryY is a category y axis of names, top to bottom, named name at its
// top; width > 0 truncates the labels to that many pixels.
func categoryY(name string, names []string, width int) *YAxis {
	a := &YAxis{YAxis: opts.YAxis{Type: "category", Data: names, Inverse: opts.Bool(true), NameLocation: "start", Name: name}}
	if width > 0 {
		a.AxisLabel = &AxisLabel{AxisLabel: opts.AxisLabel{Width: width, Overflow: "truncate"}, Interval: intp(0)}
	}
	return a
}

// bar is a bar series named name.
func bar(name string, data any) Series {
	return Series{SingleSeries: charts.SingleSeries{Name: name, Type: types.ChartBar, Data: data}}
}

func endsChart(d *Data) Chart {
	if len(d.Ends) == 0 {
		return emptyChart("verdict-ends", SecVerdict, "Runs by end reason: no runs.")
	}
	o := baseOption()
	o.Title = title("Runs by end reason", "diag_runs.end_reason")
	o.Grid = grid("3%", "6%", "70", "20")
	var labels []string
	vals := []any{}
	for _, c := range d.Ends {
		labels = append(labels, orDash(c.Label))
		vals = append(vals, c.N)
	}
	o.YAxis = categoryY("end reason", labels, 0)
	o.XAxis = &XAxis{XAxis: opts.XAxis{Type: "value", Name: "runs", NameLocation: "middle", NameGap: 25}}
	s := bar("runs", vals)
	s.BarMaxWidth, s.Label = "28", label("right", "")
	o.Series = []Series{s}
	return Chart{ID: "verdict-ends", Section: SecVerdict, Height: 300, Option: o}
}

// peakBins counts peak shares in 10 % bins, the last one "≥ 100 %".
func peakBins(peaks []float64) ([]string, []any) {
	labels := make([]string, 11)
	counts := make([]int, 11)
	for i := range 10 {
		labels[i] = fmt.Sprintf("%d–%d%%", 10*i, 10*(i+1))
	}
	labels[10] = "≥100%"
	for _, p := range peaks {
		// integer percent thresholds, as diagnose's calls ≥ 80 %
		b := min(int(p*100+1e-9)/10, 10)
		counts[max(b, 0)]++
	}
	vals := make([]any, len(counts))
	for i, c := range counts {
		vals[i] = c
	}
	return labels, vals
}

func peaksChart(d *Data) Chart {
	if len(d.Peaks) == 0 {
		return emptyChart("verdict-peaks", SecVerdict, "Peak prompt as a share of the window: no run has a known window.")
	}
	o := baseOption()
	o.Title = title("Peak prompt as a share of the window", fmt.Sprintf("%s runs with a known window (diag_runs.peak_share)", thousands(int64(len(d.Peaks)))))
	o.Grid = grid("3%", "4%", "70", "40")
	labels, vals := peakBins(d.Peaks)
	o.XAxis = &XAxis{XAxis: opts.XAxis{Type: "category", Data: labels, Name: "peak share", NameLocation: "middle", NameGap: 28},
		AxisLabel: &AxisLabel{AxisLabel: opts.AxisLabel{FontSize: 10}, Interval: intp(0)}}
	o.YAxis = &YAxis{YAxis: opts.YAxis{Type: "value", Name: "runs"}}
	s := bar("runs", vals)
	s.Label = label("top", "")
	o.Series = []Series{s}
	o.Tooltip = richTooltip("item")
	return Chart{ID: "verdict-peaks", Section: SecVerdict, Height: 300, Option: o}
}

// windowLine is a mark line at the window.
func windowLine(w int64) *opts.MarkLines {
	if w <= 0 {
		return nil
	}
	return markLines("insideEndTop", "window "+thousands(w), lineStyle("#c00", 1.5, "dashed"), opts.MarkLineNameYAxisItem{YAxis: w})
}

// line is a line series named name through data, with its points drawn
// when there are fewer than two (one point draws no line).
func line(name string, data any, points int) Series {
	return Series{SingleSeries: charts.SingleSeries{Name: name, Type: types.ChartLine, Data: data, ShowSymbol: opts.Bool(points < 2), SymbolSize: 6}}
}

func smallMultiples(d *Data) []Chart {
	var cs []Chart
	for _, r := range d.Sample {
		if r.Why != "top" || len(cs) == SmallMultiples {
			continue
		}
		o := baseOption()
		share := "window unknown"
		if r.Window > 0 {
			share = "peak " + pct(r.PeakShare)
		}
		o.Title = title(snippet(r.RunID, 34), snippet(orDash(r.Model), 30)+" · "+share)
		o.Title.TitleStyle = &opts.TextStyle{FontSize: 12}
		o.Grid = grid("4%", "6%", "56", "24")
		data := make([][]int64, len(r.Calls))
		for i, c := range r.Calls {
			data[i] = []int64{c.Index, c.Prompt}
		}
		o.XAxis = &XAxis{XAxis: opts.XAxis{Type: "value", Min: 0, SplitLine: &opts.SplitLine{Show: opts.Bool(false)}, Name: "model call", NameLocation: "middle", NameGap: 20},
			AxisLabel: &AxisLabel{AxisLabel: opts.AxisLabel{FontSize: 9}}}
		var ymax any
		if r.Window > 0 {
			ymax = max(r.Window, r.PeakTokens)
		}
		o.YAxis = &YAxis{YAxis: opts.YAxis{Type: "value", Min: 0, Max: ymax, Name: "prompt tokens"}, AxisLabel: &AxisLabel{AxisLabel: opts.AxisLabel{FontSize: 9}}}
		s := line("prompt", data, len(data))
		s.AreaStyle, s.MarkLines = &opts.AreaStyle{Opacity: opts.Float(0.15)}, windowLine(r.Window)
		o.Series = []Series{s}
		cs = append(cs, Chart{ID: fmt.Sprintf("occ-small-%02d", len(cs)+1), Section: SecOccupancy, Height: 210, Option: o, Run: RunKey(sampleIndex(d, r.RunID))})
	}
	return cs
}

// recommended returns the short names of the recommended policies (any family).
func recommended(d *Data) map[string]bool {
	m := map[string]bool{}
	for _, r := range d.Recommendations {
		m[r.Short] = true
	}
	return m
}

func familyPolicy(d *Data, family string) string {
	for _, r := range d.Recommendations {
		if r.Family == family {
			return r.Short
		}
	}
	return ""
}

func sampleIndex(d *Data, id string) int {
	for i := range d.Sample {
		if d.Sample[i].RunID == id {
			return i
		}
	}
	return -1
}

// RunKey is the key of sampled run i in selectors and variants.
func RunKey(i int) string { return fmt.Sprintf("r%d", i) }

// DefaultRun is the sampled run the page shows first (in the sampled-run
// chart, the drill-down and the timeline): the main-agent run (no parent:
// not a sub-agent's or a compaction's side-call) with the most calls, ties
// to the first in the sample; when every sampled run has a parent, the
// longest of them. -1 when nothing is sampled. The top runs by peak share
// are often one-call side-calls (a compaction's summarizer call fills the
// window by design), which show nothing of a run's course.
func DefaultRun(d *Data) int {
	best := -1
	for i := range d.Sample {
		r := &d.Sample[i]
		if best < 0 {
			best = i
			continue
		}
		b := &d.Sample[best]
		if main, bmain := r.Parent == "", b.Parent == ""; main != bmain {
			if main {
				best = i
			}
		} else if len(r.Calls) > len(b.Calls) {
			best = i
		}
	}
	return best
}

// defaultRunText says which run the page opens first and why.
func defaultRunText(d *Data) string {
	i := DefaultRun(d)
	if i < 0 {
		return ""
	}
	r := &d.Sample[i]
	if r.Parent != "" {
		return fmt.Sprintf("Shown first: %s (%s calls), the longest sampled run (every sampled run is a sub-agent's or a side-call).", r.RunID, thousands(int64(len(r.Calls))))
	}
	return fmt.Sprintf("Shown first: %s (%s calls), the longest main-agent run of the sample (not a sub-agent's or a compaction's side-call).", r.RunID, thousands(int64(len(r.Calls))))
}

func runChart(d *Data) Chart {
	if len(d.Sample) == 0 {
		return emptyChart("occupancy-run", SecOccupancy, "No run to show call by call.")
	}
	c := Chart{ID: "occupancy-run", Section: SecOccupancy, Height: 480,
		Caption: "logged: the run's prompt per call (diag_calls.prompt_tokens: logged input incl. cache, else the estimate), the wide line; each policy's line is its replay at the run's own window (sim_calls.prompt_tokens; keep-all, dashed, is the simulator's reconstruction of the logged prompts); a line that stops early overflowed there; the dashed red line is the window. Click legend entries to show more policies."}
	for i := range d.Sample {
		c.Variants = append(c.Variants, ChartVariant{Key: RunKey(i), Label: d.Sample[i].RunID, Option: runOption(d, &d.Sample[i])})
	}
	c.Option = c.Variants[DefaultRun(d)].Option
	return c
}

// runLines styles the lines of a run's prompts so that none hides another
// where they coincide (a replay often equals what was logged): logged is
// drawn first and widest, half transparent; keep-all (the reconstruction)
// dashed above it; the other policies narrower and solid on top.
func runLines(s *Series, kind string, color string) {
	switch kind {
	case "logged":
		s.LineStyle = &opts.LineStyle{Color: color, Width: 5, Opacity: opts.Float(0.45)}
	case "keep-all":
		s.LineStyle = lineStyle(color, 2.5, "dashed")
	default:
		s.LineStyle = lineStyle(color, 1.5, "")
	}
	s.ItemStyle = &opts.ItemStyle{Color: color}
}

// runOption is one run's prompt per call: diag_calls' prompt and each
// policy's sim_calls prompt, as a dataset whose first row names the
// columns (the drill-down table reads it).
func runOption(d *Data, r *RunDetail) Option {
	o := baseOption()
	o.Title = title(snippet(r.RunID, 80), fmt.Sprintf("%s · %s · window %s", orDash(r.Model), orDash(r.Format), windowText(r.Window)))
	o.Grid = grid("3%", "4%", "110", "60")
	dims := []any{"call", "logged"}
	points := len(r.Calls)
	n := 0
	for _, c := range r.Calls {
		n = max(n, int(c.Index)+1)
	}
	for _, p := range r.Policies {
		dims = append(dims, p.Policy)
		n = max(n, len(p.Prompts))
		points = min(points, len(p.Prompts))
	}
	src := make([][]any, n+1)
	src[0] = dims
	for i := range n {
		row := make([]any, len(dims))
		row[0] = i
		src[i+1] = row
	}
	for _, c := range r.Calls {
		if c.Index >= 0 {
			src[c.Index+1][1] = c.Prompt
		}
	}
	for j, p := range r.Policies {
		for i, v := range p.Prompts {
			src[i+1][2+j] = v
		}
	}
	o.Dataset = &opts.Dataset{Source: src}
	sel := map[string]bool{}
	rec := familyPolicy(d, r.Family)
	logged := line("logged", nil, points)
	logged.Encode = &opts.Encode{X: "call", Y: "logged"}
	runLines(&logged, "logged", "#1f3b5b")
	logged.MarkLines = windowLine(r.Window)
	series := []Series{logged}
	for j, p := range r.Policies {
		s := line(p.Policy, nil, points)
		s.Encode = &opts.Encode{X: "call", Y: p.Policy}
		runLines(&s, p.Policy, palette[j%len(palette)])
		series = append(series, s)
		sel[p.Policy] = j == 0 || p.Policy == rec || p.Policy == d.BestPolicy
	}
	sel["logged"] = true
	o.Series = series
	withLegend(&o, 58, fullWidth, 12, sel)
	o.XAxis = zeroAxis("model call")
	var ymax any
	if r.Window > 0 {
		ymax = "dataMax"
		if r.Window >= r.PeakTokens {
			ymax = r.Window
		}
	}
	o.YAxis = &YAxis{YAxis: opts.YAxis{Type: "value", Name: "prompt tokens", Min: 0, Max: ymax}}
	o.DataZoom = []DataZoom{{DataZoom: opts.DataZoom{Type: "inside", XAxisIndex: 0}}, {DataZoom: opts.DataZoom{Type: "slider", XAxisIndex: 0}, Height: 18, Bottom: 8}}
	return o
}

func windowText(w int64) string {
	if w <= 0 {
		return "unknown"
	}
	return thousands(w)
}

// compactCurve keeps the points of a step curve where survival changes,
// and the last point (the same steps with fewer points).
func compactCurve(c []KMPoint) [][]float64 {
	out := [][]float64{{0, 1}}
	prev := 1.0
	for i, p := range c {
		if p.Survival != prev || i == len(c)-1 {
			out = append(out, []float64{float64(p.Call), round4(p.Survival)})
			prev = p.Survival
		}
	}
	return out
}

func survivalChart(d *Data) Chart {
	if len(d.Boundary) == 0 {
		return emptyChart("survival", SecSurvival, "Reading boundary: no runs.")
	}
	o := baseOption()
	o.Title = title("Reading boundary: runs not stopped while reading", "1 − the Aalen–Johansen incidence of a stop while reading, by model call")
	o.Grid = grid("3%", "4%", "120", "40")
	rec := recommended(d)
	sel := map[string]bool{}
	var series []Series
	for i, s := range d.Boundary {
		name := s.Name
		curve := compactCurve(s.Curve)
		for _, p := range curve {
			p[1] = round3(100 * p[1]) // survival in %
		}
		se := line(name, curve, len(curve))
		se.Step = "end"
		kind := name
		if i == 0 {
			kind = "logged"
			se.MarkLines = markLines("insideEndTop", "50 %: the boundary", lineStyle("#c00", 0, "dashed"), opts.MarkLineNameYAxisItem{YAxis: 50})
		}
		color := palette[(i-1+len(palette))%len(palette)]
		if i == 0 {
			color = "#222"
		}
		runLines(&se, kind, color)
		series = append(series, se)
		// shown first: the logged curve, keep-all and the policies the
		// report names (the others from the legend)
		sel[name] = i == 0 || name == "keep-all" || rec[name] || name == d.BestPolicy
	}
	o.Series = series
	withLegend(&o, 62, fullWidth, 16, sel)
	o.XAxis = zeroAxis("model call")
	o.YAxis = &YAxis{YAxis: opts.YAxis{Type: "value", Name: "not stopped (%)", Min: 0, Max: 100}, AxisLabel: &AxisLabel{AxisLabel: opts.AxisLabel{Formatter: "{value} %"}}}
	return Chart{ID: "survival", Section: SecSurvival, Height: 460, Option: o,
		Caption: "Per curve, the share of runs not yet stopped while reading at each model call: 1 − the Aalen–Johansen incidence, finishing being a competing outcome; the logged runs (diag_runs) and each policy's replay (sim_runs). The boundary is where a curve falls to 50 %. Shown first: logged, keep-all and the policies the report names; click legend entries for the others."}
}

// policyGroups returns the comparison's groups: "" (all runs) first, then families in order.
func policyGroups(d *Data) []string {
	var gs []string
	for _, a := range d.Comparison {
		if !slices.Contains(gs, a.Group) {
			gs = append(gs, a.Group)
		}
	}
	slices.SortStableFunc(gs, func(a, b string) int {
		switch {
		case a == "" && b != "":
			return -1
		case a != "" && b == "":
			return 1
		}
		return 0
	})
	return gs
}

// GroupKey is the selector key of a comparison group ("" is all runs).
func GroupKey(g string) string {
	if g == "" {
		return "all"
	}
	return "g:" + g
}

func groupLabel(g string, d *Data) string {
	n := 0
	for _, a := range d.Comparison {
		if a.Group == g {
			n = max(n, a.Runs)
		}
	}
	if g == "" {
		return fmt.Sprintf("all runs (%s)", thousands(int64(n)))
	}
	return fmt.Sprintf("%s (%s runs)", g, thousands(int64(n)))
}

// policyCaptions say what each policy chart plots, from which columns.
var policyCaptions = map[string]string{
	"policy-ratio":    "Tokens ×: Σ policy / Σ as-logged effective tokens (prompts + predicted re-invocations + summarizer input) on the same calls, the total over the runs (simulate's TOKENS ×, sim_runs.as_logged_tokens), with its run-level bootstrap 95 % CI; the dashed line is what ran.",
	"policy-outcomes": "Saved: runs lost under what ran (as-logged overflows, or the log ended on window length) that the policy gets through; lost: runs the policy overflows where what ran fits; overflow: runs the policy overflows (sim_runs.saved, lost, status).",
	"policy-reinv":    "Uses of an output that was hidden or cut at the using call, per 100 replayed calls (sim_runs.reinvocations / calls).",
	"policy-cost":     "Cost × = Σ cost_cached_usd / Σ as_logged_cost_cached_usd over the priced runs, with prompt caching (the objective), and the same without caching; the dashed line is what ran.",
}

func policyCharts(d *Data) []Chart {
	ids := []string{"policy-ratio", "policy-outcomes", "policy-reinv", "policy-cost"}
	cs := make([]Chart, len(ids))
	for i, id := range ids {
		cs[i] = Chart{ID: id, Section: SecPolicies, Height: 150 + 26*max(len(d.Policies), 3), Caption: policyCaptions[id]}
	}
	groups := policyGroups(d)
	for _, g := range groups {
		var aggs []PolicyAgg
		for _, a := range d.Comparison {
			if a.Group == g {
				aggs = append(aggs, a)
			}
		}
		key, lbl := GroupKey(g), groupLabel(g, d)
		for i, o := range []Option{ratioOption(aggs, lbl), outcomesOption(aggs, lbl), reinvOption(aggs, lbl), costOption(aggs, lbl)} {
			cs[i].Variants = append(cs[i].Variants, ChartVariant{Key: key, Label: lbl, Option: o})
		}
	}
	if len(groups) == 0 {
		for i := range cs {
			cs[i] = emptyChart(ids[i], SecPolicies, "No runs were replayed.")
		}
		return cs
	}
	for i := range cs {
		cs[i].Option = cs[i].Variants[0].Option
	}
	// the first group is all runs: what none of its rows has, no group has
	all := cs[0].Variants[0].Label
	if !slices.ContainsFunc(d.Comparison, func(a PolicyAgg) bool { return a.Group == "" && a.ReinvPer100 > 0 }) && strings.HasPrefix(all, "all runs") {
		cs[2] = emptyChart("policy-reinv", SecPolicies, "Predicted re-invocations: none. No policy hid or cut an output that a later call used (0 re-invocations per 100 calls for every policy).")
	}
	if !slices.ContainsFunc(d.Comparison, func(a PolicyAgg) bool { return a.Group == "" && a.Priced > 0 }) && strings.HasPrefix(all, "all runs") {
		cs[3] = emptyChart("policy-cost", SecPolicies, "Cost against what ran: no run is priced (no model of the runs is in the price table).")
	}
	return cs
}

// policyBars is a horizontal bar chart with one row per policy of aggs,
// in their order, against the value axis x.
func policyBars(title, sub string, aggs []PolicyAgg, x *XAxis) Option {
	o := hbarOption(title, sub)
	names := make([]string, len(aggs))
	for i, a := range aggs {
		names[i] = a.Policy
	}
	o.YAxis, o.XAxis = categoryY("policy", names, 220), x
	return o
}

// valueAxis is a value axis named name, the name centred along it.
func valueAxis(name string) *XAxis {
	return &XAxis{XAxis: opts.XAxis{Type: "value", Name: name, NameLocation: "middle", NameGap: 28}}
}

// zeroAxis is a valueAxis that starts at 0.
func zeroAxis(name string) *XAxis {
	a := valueAxis(name)
	a.Min = 0
	return a
}

func hbarOption(text, sub string) Option {
	o := baseOption()
	o.Title = title(text, sub)
	o.Grid = grid("3%", "8%", "90", "40")
	return o
}

// asLoggedLine is the dashed reference line at 1 × what ran.
func asLoggedLine() *opts.MarkLines {
	return markLines("end", "what ran", lineStyle("#888", 0, "dashed"), opts.MarkLineNameXAxisItem{XAxis: 1})
}

func ratioOption(aggs []PolicyAgg, group string) Option {
	o := policyBars("Tokens × what ran: total and 95 % CI", group, aggs, zeroAxis("tokens × what ran (as-logged)"))
	box := make([]any, len(aggs))
	tot := make([]any, len(aggs))
	for i, a := range aggs {
		box[i] = []float64{round4(a.RatioLo), round4(a.Ratio), round4(a.Ratio), round4(a.Ratio), round4(a.RatioHi)}
		tot[i] = []any{round4(a.Ratio), a.Policy}
	}
	o.Tooltip = richTooltip("item")
	ci := Series{SingleSeries: charts.SingleSeries{Name: "95 % CI", Type: types.ChartBoxPlot, Data: box,
		ItemStyle: &opts.ItemStyle{Color: "#fff", BorderColor: "#4e79a7", BorderWidth: 2}}}
	total := Series{SingleSeries: charts.SingleSeries{Name: "total ratio (Σ policy / Σ as-logged)", Type: types.ChartScatter, Data: tot, SymbolSize: 9,
		ItemStyle: &opts.ItemStyle{Color: "#e15759"}, MarkLines: asLoggedLine()}}
	o.Series = []Series{ci, total}
	withLegend(&o, 56, halfWidth, 10, nil)
	return o
}

func outcomesOption(aggs []PolicyAgg, group string) Option {
	o := policyBars("Runs saved from overflow", group, aggs, valueAxis("runs"))
	saved, lost, over := make([]any, len(aggs)), make([]any, len(aggs)), make([]any, len(aggs))
	for i, a := range aggs {
		saved[i], lost[i], over[i] = a.Saved, a.Lost, a.Overflow
	}
	o.Series = []Series{bar("saved", saved), bar("lost", lost), bar("overflow", over)}
	for i, c := range []string{"#59a14f", "#e15759", "#bab0ac"} {
		o.Series[i].ItemStyle = &opts.ItemStyle{Color: c}
	}
	withLegend(&o, 56, halfWidth, 10, nil)
	return o
}

func reinvOption(aggs []PolicyAgg, group string) Option {
	o := policyBars("Predicted re-invocations per 100 calls", group, aggs, valueAxis("re-invocations per 100 calls"))
	v := make([]any, len(aggs))
	for i, a := range aggs {
		v[i] = round3(a.ReinvPer100)
	}
	s := bar("re-invocations per 100 calls", v)
	s.ItemStyle, s.Label = &opts.ItemStyle{Color: "#f28e2b"}, label("right", "")
	o.Series = []Series{s}
	return o
}

func costOption(aggs []PolicyAgg, group string) Option {
	sub := group
	plain, cached := make([]any, len(aggs)), make([]any, len(aggs))
	priced := false
	for i, a := range aggs {
		if a.Priced == 0 {
			continue
		}
		priced = true
		plain[i], cached[i] = round4(a.Uncached), round4(a.Cost)
	}
	if !priced {
		sub += " · no priced run"
	}
	o := policyBars("Cost × what ran, with and without caching", sub, aggs, zeroAxis("cost × what ran (as-logged)"))
	c := bar("cost × (with caching)", cached)
	c.ItemStyle, c.MarkLines = &opts.ItemStyle{Color: "#76b7b2"}, asLoggedLine()
	u := bar("without caching", plain)
	u.ItemStyle = &opts.ItemStyle{Color: "#4e79a7"}
	o.Series = []Series{c, u}
	withLegend(&o, 56, halfWidth, 10, nil)
	return o
}

// RentTop is the number of tools the rent chart shows.
const RentTop = 15

func rentChart(d *Data) Chart {
	rows := d.Rent
	if len(rows) > RentTop {
		rows = rows[:RentTop]
	}
	if len(rows) == 0 {
		return emptyChart("rent-tools", SecRent, "Token rent by tool: no tool output was carried by a later call.")
	}
	o := hbarOption("Token rent by tool", fmt.Sprintf("share of Σ est_tokens × the calls that carried them (diag_rent); top %d", RentTop))
	names := make([]string, len(rows))
	v := make([]any, len(rows))
	for i, t := range rows {
		names[i] = orDash(t.Tool)
		v[i] = round3(100 * t.Share)
	}
	o.YAxis = categoryY("tool", names, 200)
	o.XAxis = zeroAxis("% of token rent")
	s := bar("share of rent (%)", v)
	s.ItemStyle, s.Label = &opts.ItemStyle{Color: "#b07aa1"}, label("right", "{c} %")
	o.Series = []Series{s}
	return Chart{ID: "rent-tools", Section: SecRent, Height: 140 + 26*max(len(rows), 3), Option: o}
}

func recommendChart(d *Data) Chart {
	var names []string
	box, med := []any{}, []any{}
	for _, r := range d.Recommendations {
		if r.Saving == nil || r.SavingLo == nil || r.SavingHi == nil {
			continue
		}
		name := r.Family + ": " + r.Short
		if r.Currency != "" && r.Currency != "cost" {
			name += " (" + r.Currency + ")"
		}
		names = append(names, name)
		lo, mid, hi := round3(100**r.SavingLo), round3(100**r.Saving), round3(100**r.SavingHi)
		box = append(box, []float64{lo, mid, mid, mid, hi})
		med = append(med, []any{mid, name})
	}
	if len(names) == 0 {
		return emptyChart("recommend-saving", SecRecommendations, "Expected saving: no family has one yet. A family needs enough runs to hold some out (≥ 10 training and ≥ 5 held-out runs); the table says what each lacks.")
	}
	o := hbarOption("Expected saving of the recommended policy (held-out runs)", "1 − Σ policy / Σ what ran on the held-out runs, with a bootstrap 95 % CI")
	o.Tooltip = richTooltip("item")
	o.YAxis = categoryY("family: policy", names, 260)
	o.XAxis = &XAxis{XAxis: opts.XAxis{Type: "value", Name: "expected saving (% of what ran)", NameLocation: "middle", NameGap: 28},
		AxisLabel: &AxisLabel{AxisLabel: opts.AxisLabel{Formatter: "{value} %"}}}
	ci := Series{SingleSeries: charts.SingleSeries{Name: "95 % CI", Type: types.ChartBoxPlot, Data: box,
		ItemStyle: &opts.ItemStyle{Color: "#fff", BorderColor: "#59a14f", BorderWidth: 2}}}
	sv := Series{SingleSeries: charts.SingleSeries{Name: "saving", Type: types.ChartScatter, Data: med, SymbolSize: 9, ItemStyle: &opts.ItemStyle{Color: "#59a14f"}}}
	o.Series = []Series{ci, sv}
	return Chart{ID: "recommend-saving", Section: SecRecommendations, Height: 140 + 30*max(len(names), 2), Option: o,
		Caption: "In the currency the family was decided in (cost with prompt caching; per solved task where outcomes are known; tokens where nothing is priced: in brackets); families short of runs have none."}
}

func safeDiv(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// behaviourChart draws each family's rates per 100 model calls
// (manage_context operations, compactions): what every family has, tool
// or not. The shares (shallow ops, re-enable rate, thrash share) are of
// manage_context operations: 0 for a family with none, they stay in the
// table.
func behaviourChart(bs []BehaviourProfile) Chart {
	var metrics []string
	for _, b := range bs {
		for _, m := range b.Metrics {
			if m.Unit == "" && strings.HasSuffix(m.Name, "per 100 calls") && !slices.Contains(metrics, m.Name) {
				metrics = append(metrics, m.Name)
			}
		}
	}
	fams := make([]string, len(bs))
	for i, b := range bs {
		fams[i] = b.Family
		if b.Label != "" {
			fams[i] += " (" + b.Label + ")"
		}
	}
	o := hbarOption("manage_context operations and compactions by model family", "per 100 model calls (behaviour profiles)")
	o.YAxis = categoryY("model family", fams, 0)
	o.XAxis = zeroAxis("per 100 model calls")
	nonzero := false
	for _, name := range metrics {
		v := make([]any, len(bs))
		for i, b := range bs {
			v[i] = 0.0
			for _, m := range b.Metrics {
				if m.Name == name {
					v[i] = round3(m.Value)
					nonzero = nonzero || v[i] != 0.0
				}
			}
		}
		o.Series = append(o.Series, bar(name, v))
	}
	if !nonzero {
		return emptyChart("behaviour", SecBehaviour, "manage_context behaviour: no family used manage_context or compacted its context (0 per 100 calls for every family).")
	}
	withLegend(&o, 56, fullWidth, 10, nil)
	return Chart{ID: "behaviour", Section: SecBehaviour, Height: 140 + 40*max(len(bs), 2), Option: o,
		Caption: "Rates per 100 model calls, by model family (its manage_context label in brackets). The shares of manage_context operations (shallow ops, re-enable rate, thrash share) are in the table: they are 0 for a family that never calls it."}
}
