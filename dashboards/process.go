package dashboards

import (
	"fmt"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"
)

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
