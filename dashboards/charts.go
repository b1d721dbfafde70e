package dashboards

import (
	"fmt"
	"slices"
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
// then the first variant's).
type Chart struct {
	ID       string
	Section  string
	Height   int // pixels
	Option   Option
	Variants []ChartVariant
	// Run is the sampled run (RunKey) a click on the chart opens; "" none.
	Run string
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
		Tooltip:   &Tooltip{Trigger: "axis", RenderMode: "richText", Confine: true},
		Color:     palette,
		TextStyle: &TextStyle{FontFamily: "sans-serif"},
	}
}

func noData(o Option, text string) Option {
	o.Graphic = append(o.Graphic, GraphicEl{Type: "text", Left: "center", Top: "middle", Style: GraphicStyle{Text: text, FontSize: 14, Fill: "#888"}})
	return o
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
	o.Legend = &Legend{Top: fmt.Sprint(top), Selected: sel}
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
	if d.ProcessMap != nil {
		cs = append(cs, processChart(d.ProcessMap))
	}
	if d.Variants != nil {
		cs = append(cs, variantsChart(d.Variants))
	}
	if len(d.Behaviour) > 0 {
		cs = append(cs, behaviourChart(d.Behaviour))
	}
	return cs
}

func endsChart(d *Data) Chart {
	o := baseOption()
	o.Title = &Title{Text: "Runs by end reason", Subtext: "diag_runs.end_reason", Left: "center"}
	o.Grid = &Grid{Left: "3%", Right: "6%", Top: "70", Bottom: "20", ContainLabel: true}
	var labels []string
	vals := []any{}
	for _, c := range d.Ends {
		labels = append(labels, orDash(c.Label))
		vals = append(vals, c.N)
	}
	o.YAxis = &Axis{Type: "category", Data: labels, Inverse: true, NameLocation: "start", Name: "end reason"}
	o.XAxis = &Axis{Type: "value", Name: "runs", NameLocation: "middle", NameGap: 25}
	o.Series = []Series{{Name: "runs", Type: "bar", Data: vals, BarMaxWidth: 28, Label: &Label{Show: true, Position: "right"}}}
	if len(vals) == 0 {
		o = noData(o, "no runs")
	}
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
	o := baseOption()
	o.Title = &Title{Text: "Peak prompt as a share of the window", Subtext: fmt.Sprintf("%s runs with a known window (diag_runs.peak_share)", thousands(int64(len(d.Peaks)))), Left: "center"}
	o.Grid = &Grid{Left: "3%", Right: "4%", Top: "70", Bottom: "40", ContainLabel: true}
	labels, vals := peakBins(d.Peaks)
	o.XAxis = &Axis{Type: "category", Data: labels, Name: "peak share", NameLocation: "middle", NameGap: 28, AxisLabel: &AxisLabel{Interval: 0, FontSize: 10}}
	o.YAxis = &Axis{Type: "value", Name: "runs"}
	o.Series = []Series{{Name: "runs", Type: "bar", Data: vals, Label: &Label{Show: true, Position: "top"}}}
	o.Tooltip = &Tooltip{Trigger: "item", RenderMode: "richText", Confine: true}
	if len(d.Peaks) == 0 {
		o = noData(o, "no run has a known window")
	}
	return Chart{ID: "verdict-peaks", Section: SecVerdict, Height: 300, Option: o}
}

// windowLine is a mark line at the window.
func windowLine(w int64) *MarkLine {
	if w <= 0 {
		return nil
	}
	return &MarkLine{Silent: true, Symbol: []string{"none", "none"}, Label: &Label{Show: true, Position: "insideEndTop", Formatter: "window " + thousands(w)},
		LineStyle: &LineStyle{Type: "dashed", Color: "#c00", Width: 1.5}, Data: []MarkLineItem{{YAxis: w}}}
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
		o.Title = &Title{Text: snippet(r.RunID, 34), Subtext: snippet(orDash(r.Model), 30) + " · " + share, Left: "center", TextStyle: &TextStyle{FontSize: 12}}
		o.Grid = &Grid{Left: "4%", Right: "6%", Top: "56", Bottom: "24", ContainLabel: true}
		data := make([][]int64, len(r.Calls))
		for i, c := range r.Calls {
			data[i] = []int64{c.Turn, c.Prompt}
		}
		o.XAxis = &Axis{Type: "value", Min: 0, SplitLine: &Show{Show: false}, Name: "model call", NameLocation: "middle", NameGap: 20, AxisLabel: &AxisLabel{FontSize: 9}}
		var ymax any
		if r.Window > 0 {
			ymax = max(r.Window, r.PeakTokens)
		}
		o.YAxis = &Axis{Type: "value", Min: 0, Max: ymax, AxisLabel: &AxisLabel{FontSize: 9}, Name: "prompt tokens"}
		o.Series = []Series{{Name: "prompt", Type: "line", Data: data, ShowSymbol: boolp(len(data) < 2), SymbolSize: 6, AreaStyle: &AreaStyle{Opacity: 0.15}, MarkLine: windowLine(r.Window)}}
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

func runChart(d *Data) Chart {
	c := Chart{ID: "occupancy-run", Section: SecOccupancy, Height: 420}
	for i := range d.Sample {
		c.Variants = append(c.Variants, ChartVariant{Key: RunKey(i), Label: d.Sample[i].RunID, Option: runOption(d, &d.Sample[i])})
	}
	if len(c.Variants) > 0 {
		c.Option = c.Variants[0].Option
	} else {
		c.Option = noData(baseOption(), "no runs")
		c.Option.Series = []Series{}
	}
	return c
}

// runOption is one run's prompt per call: diag_calls' prompt and each
// policy's sim_calls prompt, as a dataset (the drill-down table reads it).
func runOption(d *Data, r *RunDetail) Option {
	o := baseOption()
	o.Title = &Title{Text: snippet(r.RunID, 80), Subtext: fmt.Sprintf("%s · %s · window %s", orDash(r.Model), orDash(r.Format), windowText(r.Window)), Left: "center"}
	o.Grid = &Grid{Left: "3%", Right: "4%", Top: "110", Bottom: "60", ContainLabel: true}
	dims := []string{"call", "logged"}
	points := len(r.Calls)
	n := 0
	for _, c := range r.Calls {
		n = max(n, int(c.Turn)+1)
	}
	for _, p := range r.Policies {
		dims = append(dims, p.Policy)
		n = max(n, len(p.Prompts))
		points = min(points, len(p.Prompts))
	}
	src := make([][]any, n)
	for i := range src {
		row := make([]any, len(dims))
		row[0] = i
		src[i] = row
	}
	for _, c := range r.Calls {
		if c.Turn >= 0 {
			src[c.Turn][1] = c.Prompt
		}
	}
	for j, p := range r.Policies {
		for i, v := range p.Prompts {
			src[i][2+j] = v
		}
	}
	o.Dataset = &Dataset{Dimensions: dims, Source: src}
	sel := map[string]bool{}
	rec := familyPolicy(d, r.Family)
	// a run with one call (or a policy line of one point) draws its point
	symbols := boolp(points < 2)
	series := []Series{{Name: "logged", Type: "line", Encode: map[string]any{"x": "call", "y": "logged"}, ShowSymbol: symbols,
		LineStyle: &LineStyle{Width: 2.5, Color: "#222"}, ItemStyle: &ItemStyle{Color: "#222"}, MarkLine: windowLine(r.Window), Z: 3}}
	for j, p := range r.Policies {
		series = append(series, Series{Name: p.Policy, Type: "line", Encode: map[string]any{"x": "call", "y": p.Policy}, ShowSymbol: symbols,
			LineStyle: &LineStyle{Width: 1.5}, ItemStyle: &ItemStyle{Color: palette[j%len(palette)]}})
		sel[p.Policy] = j == 0 || p.Policy == rec
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
	o.YAxis = &Axis{Type: "value", Name: "prompt tokens", Min: 0, Max: ymax}
	o.DataZoom = []DataZoom{{Type: "inside", XAxisIndex: 0}, {Type: "slider", XAxisIndex: 0, Height: 18, Bottom: 8}}
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
			out = append(out, []float64{float64(p.Turn), round4(p.Survival)})
			prev = p.Survival
		}
	}
	return out
}

func survivalChart(d *Data) Chart {
	o := baseOption()
	o.Title = &Title{Text: "Reading boundary: runs not stopped while reading (1 − Aalen–Johansen incidence)", Subtext: "by model call, finishing a competing outcome; logged runs (diag_runs) and each policy's replay (sim_runs)", Left: "center"}
	o.Grid = &Grid{Left: "3%", Right: "4%", Top: "120", Bottom: "40", ContainLabel: true}
	rec := recommended(d)
	sel := map[string]bool{}
	var series []Series
	for i, s := range d.Boundary {
		name := s.Name
		curve := compactCurve(s.Curve)
		for _, p := range curve {
			p[1] = round3(100 * p[1]) // survival in %
		}
		se := Series{Name: name, Type: "line", Step: "end", Data: curve, ShowSymbol: boolp(len(curve) < 2), LineStyle: &LineStyle{Width: 1.5}}
		if i == 0 {
			se.LineStyle = &LineStyle{Width: 3, Color: "#222"}
			se.ItemStyle = &ItemStyle{Color: "#222"}
			se.MarkLine = &MarkLine{Silent: true, Symbol: []string{"none", "none"}, Label: &Label{Show: true, Position: "insideEndTop", Formatter: "50 %: the boundary"},
				LineStyle: &LineStyle{Type: "dashed", Color: "#c00"}, Data: []MarkLineItem{{YAxis: 50}}}
		}
		series = append(series, se)
		sel[name] = i <= 1 || rec[name] || len(rec) == 0
	}
	if len(series) == 0 {
		o = noData(o, "no runs")
		series = []Series{}
	}
	o.Series = series
	withLegend(&o, 62, fullWidth, 16, sel)
	o.XAxis = zeroAxis("model call")
	o.YAxis = &Axis{Type: "value", Name: "not yet stopped while reading (%)", Min: 0, Max: 100, AxisLabel: &AxisLabel{Formatter: "{value} %"}}
	return Chart{ID: "survival", Section: SecSurvival, Height: 460, Option: o}
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

func policyCharts(d *Data) []Chart {
	ids := []string{"policy-ratio", "policy-outcomes", "policy-reinv", "policy-cost"}
	cs := make([]Chart, len(ids))
	for i, id := range ids {
		cs[i] = Chart{ID: id, Section: SecPolicies, Height: 150 + 26*max(len(d.Policies), 3)}
	}
	for _, g := range policyGroups(d) {
		var aggs []PolicyAgg
		for _, a := range d.Comparison {
			if a.Group == g {
				aggs = append(aggs, a)
			}
		}
		key, label := GroupKey(g), groupLabel(g, d)
		for i, o := range []Option{ratioOption(aggs, label), outcomesOption(aggs, label), reinvOption(aggs, label), costOption(aggs, label)} {
			cs[i].Variants = append(cs[i].Variants, ChartVariant{Key: key, Label: label, Option: o})
		}
	}
	for i := range cs {
		if len(cs[i].Variants) > 0 {
			cs[i].Option = cs[i].Variants[0].Option
		} else {
			cs[i].Option = noData(baseOption(), "no runs")
			cs[i].Option.Series = []Series{}
		}
	}
	return cs
}

func policyAxis(aggs []PolicyAgg) *Axis {
	names := make([]string, len(aggs))
	for i, a := range aggs {
		names[i] = a.Policy
	}
	return &Axis{Type: "category", Data: names, Inverse: true, NameLocation: "start", Name: "policy", AxisLabel: &AxisLabel{Interval: 0, Width: 220, Overflow: "truncate"}}
}

// policyBars is a horizontal bar chart with one row per policy of aggs,
// in their order, against the value axis x.
func policyBars(title, sub string, aggs []PolicyAgg, x *Axis) Option {
	o := hbarOption(title, sub)
	o.YAxis, o.XAxis = policyAxis(aggs), x
	return o
}

// valueAxis is a value axis named name, the name centred along it.
func valueAxis(name string) *Axis {
	return &Axis{Type: "value", Name: name, NameLocation: "middle", NameGap: 28}
}

// zeroAxis is a valueAxis that starts at 0.
func zeroAxis(name string) *Axis {
	a := valueAxis(name)
	a.Min = 0
	return a
}

func hbarOption(title, sub string) Option {
	o := baseOption()
	o.Title = &Title{Text: title, Subtext: sub, Left: "center"}
	o.Grid = &Grid{Left: "3%", Right: "8%", Top: "90", Bottom: "40", ContainLabel: true}
	return o
}

func ratioOption(aggs []PolicyAgg, label string) Option {
	o := policyBars("Tokens against what ran (as-logged): total and 95 % CI", label+" · Σ policy / Σ as-logged effective tokens (prompts + re-invocations + summarizer input) on the same calls, run-level bootstrap (sim_runs.as_logged_tokens)", aggs, zeroAxis("token ratio (× as-logged)"))
	box := make([]any, len(aggs))
	med := make([]any, len(aggs))
	for i, a := range aggs {
		box[i] = []float64{round4(a.RatioLo), round4(a.Ratio), round4(a.Ratio), round4(a.Ratio), round4(a.RatioHi)}
		med[i] = []any{round4(a.Ratio), a.Policy}
	}
	o.Tooltip = &Tooltip{Trigger: "item", RenderMode: "richText", Confine: true}
	o.Series = []Series{
		{Name: "95 % CI", Type: "boxplot", Data: box, ItemStyle: &ItemStyle{Color: "#fff", BorderColor: "#4e79a7", BorderWidth: 2}},
		{Name: "median", Type: "scatter", Data: med, SymbolSize: 9, ItemStyle: &ItemStyle{Color: "#e15759"}, Z: 3,
			MarkLine: &MarkLine{Silent: true, Symbol: []string{"none", "none"}, Label: &Label{Show: true, Position: "end", Formatter: "as-logged"}, LineStyle: &LineStyle{Type: "dashed", Color: "#888"}, Data: []MarkLineItem{{XAxis: 1}}}},
	}
	withLegend(&o, 56, halfWidth, 10, nil)
	return o
}

func outcomesOption(aggs []PolicyAgg, label string) Option {
	o := policyBars("Runs saved from overflow", label+" · SAVED: lost under what ran (as-logged overflows, or the log ended on window length), the policy gets through; LOST: the policy overflows where what ran fits (sim_runs.saved, lost)", aggs, valueAxis("runs"))
	saved, lost, over := make([]any, len(aggs)), make([]any, len(aggs)), make([]any, len(aggs))
	for i, a := range aggs {
		saved[i], lost[i], over[i] = a.Saved, a.Lost, a.Overflow
	}
	o.Series = []Series{
		{Name: "saved", Type: "bar", Data: saved, ItemStyle: &ItemStyle{Color: "#59a14f"}},
		{Name: "lost", Type: "bar", Data: lost, ItemStyle: &ItemStyle{Color: "#e15759"}},
		{Name: "overflow", Type: "bar", Data: over, ItemStyle: &ItemStyle{Color: "#bab0ac"}},
	}
	withLegend(&o, 56, halfWidth, 10, nil)
	return o
}

func reinvOption(aggs []PolicyAgg, label string) Option {
	o := policyBars("Predicted re-invocations per 100 calls", label+" · uses of an output that was hidden or cut at the using call, per 100 replayed calls (sim_runs.reinvocations / calls)", aggs, valueAxis("re-invocations per 100 calls"))
	v := make([]any, len(aggs))
	for i, a := range aggs {
		v[i] = round3(a.ReinvPer100)
	}
	o.Series = []Series{{Name: "re-invocations per 100 calls", Type: "bar", Data: v, ItemStyle: &ItemStyle{Color: "#f28e2b"}, Label: &Label{Show: true, Position: "right"}}}
	if !slices.ContainsFunc(aggs, func(a PolicyAgg) bool { return a.ReinvPer100 > 0 }) {
		o = noData(o, "no policy hid or cut an output that a later call used: 0 re-invocations")
	}
	return o
}

func costOption(aggs []PolicyAgg, label string) Option {
	o := policyBars("Cost against what ran (as-logged), with and without prompt caching", label+" · cost × = Σ cost_cached_usd / Σ as_logged_cost_cached_usd (the objective), and the same without caching; priced runs only", aggs, zeroAxis("cost ratio (× as-logged)"))
	plain, cached := make([]any, len(aggs)), make([]any, len(aggs))
	priced := false
	for i, a := range aggs {
		if a.Priced == 0 {
			continue
		}
		priced = true
		plain[i], cached[i] = round4(a.Uncached), round4(a.Cost)
	}
	o.Series = []Series{
		{Name: "cost × (with caching)", Type: "bar", Data: cached, ItemStyle: &ItemStyle{Color: "#76b7b2"},
			MarkLine: &MarkLine{Silent: true, Symbol: []string{"none", "none"}, Label: &Label{Show: true, Position: "end", Formatter: "as-logged"}, LineStyle: &LineStyle{Type: "dashed", Color: "#888"}, Data: []MarkLineItem{{XAxis: 1}}}},
		{Name: "without caching", Type: "bar", Data: plain, ItemStyle: &ItemStyle{Color: "#4e79a7"}},
	}
	withLegend(&o, 56, halfWidth, 10, nil)
	if !priced {
		o = noData(o, "no priced run (no model in the price table)")
	}
	return o
}

// RentTop is the number of tools the rent chart shows.
const RentTop = 15

func rentChart(d *Data) Chart {
	o := hbarOption("Token rent by tool", fmt.Sprintf("share of Σ est_tokens × the calls that carried them (diag_rent); top %d", RentTop))
	rows := d.Rent
	if len(rows) > RentTop {
		rows = rows[:RentTop]
	}
	names := make([]string, len(rows))
	v := make([]any, len(rows))
	for i, t := range rows {
		names[i] = orDash(t.Tool)
		v[i] = round3(100 * t.Share)
	}
	o.YAxis = &Axis{Type: "category", Data: names, Inverse: true, NameLocation: "start", Name: "tool", AxisLabel: &AxisLabel{Interval: 0, Width: 200, Overflow: "truncate"}}
	o.XAxis = zeroAxis("% of token rent")
	o.Series = []Series{{Name: "share of rent (%)", Type: "bar", Data: v, ItemStyle: &ItemStyle{Color: "#b07aa1"}, Label: &Label{Show: true, Position: "right", Formatter: "{c} %"}}}
	if len(rows) == 0 {
		o = noData(o, "no tool output was carried by a later call")
	}
	return Chart{ID: "rent-tools", Section: SecRent, Height: 140 + 26*max(len(rows), 3), Option: o}
}

func recommendChart(d *Data) Chart {
	o := hbarOption("Expected saving of the recommended policy (held-out runs)", "1 − Σ policy / Σ what ran on held-out runs, in the currency the family was decided in (cost with prompt caching; per solved task where outcomes are known; tokens where nothing is priced), with a bootstrap 95 % CI; families short of runs have none")
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
	o.Tooltip = &Tooltip{Trigger: "item", RenderMode: "richText", Confine: true}
	o.YAxis = &Axis{Type: "category", Data: names, Inverse: true, NameLocation: "start", Name: "family: policy", AxisLabel: &AxisLabel{Interval: 0, Width: 260, Overflow: "truncate"}}
	o.XAxis = &Axis{Type: "value", Name: "expected saving (% of what ran)", NameLocation: "middle", NameGap: 28, AxisLabel: &AxisLabel{Formatter: "{value} %"}}
	o.Series = []Series{
		{Name: "95 % CI", Type: "boxplot", Data: box, ItemStyle: &ItemStyle{Color: "#fff", BorderColor: "#59a14f", BorderWidth: 2}},
		{Name: "saving", Type: "scatter", Data: med, SymbolSize: 9, ItemStyle: &ItemStyle{Color: "#59a14f"}, Z: 3},
	}
	if len(names) == 0 {
		o = noData(o, "no family had enough runs to hold some out")
	}
	return Chart{ID: "recommend-saving", Section: SecRecommendations, Height: 140 + 30*max(len(names), 2), Option: o}
}

func safeDiv(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func behaviourChart(bs []BehaviourProfile) Chart {
	o := hbarOption("manage_context behaviour by model family", "shares per family (behaviour profiles)")
	var metrics []string
	for _, b := range bs {
		for _, m := range b.Metrics {
			if m.Unit == "%" && !slices.Contains(metrics, m.Name) {
				metrics = append(metrics, m.Name)
			}
		}
	}
	fams := make([]string, len(bs))
	for i, b := range bs {
		fams[i] = b.Family
	}
	o.YAxis = &Axis{Type: "category", Data: fams, Inverse: true, NameLocation: "start", Name: "model family"}
	o.XAxis = &Axis{Type: "value", Name: "share (%)", NameLocation: "middle", NameGap: 28, Min: 0, AxisLabel: &AxisLabel{Formatter: "{value} %"}}
	for _, name := range metrics {
		v := make([]any, len(bs))
		for i, b := range bs {
			for _, m := range b.Metrics {
				if m.Name == name {
					v[i] = round3(100 * m.Value)
				}
			}
		}
		o.Series = append(o.Series, Series{Name: name, Type: "bar", Data: v})
	}
	withLegend(&o, 56, fullWidth, 10, nil)
	if len(metrics) == 0 {
		o = noData(o, "no share metric")
		o.Series = []Series{}
	}
	return Chart{ID: "behaviour", Section: SecBehaviour, Height: 140 + 40*max(len(bs), 2), Option: o}
}
