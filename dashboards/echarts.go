package dashboards

import (
	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"
)

// The charts' options are built from go-echarts' option types (package opts
// and charts.SingleSeries, github.com/go-echarts/go-echarts/v2, which
// targets ECharts 5.4.3, the version embedded in assets/) and marshalled by
// encoding/json into the page; go-echarts' own renderer is not used (it
// would load ECharts from its assets host, and pick random chart ids).
// Options hold data and plain settings only: formatters are ECharts string
// templates, never JavaScript functions, so an option is inert JSON.
//
// Option is the top-level object that a go-echarts chart's JSON() builds
// from its many parts; it is written out here so that the page's options
// carry only what they set, in a fixed field order. Where go-echarts has no
// field for an option a chart needs, a type below embeds go-echarts' type
// and adds it:
//
//   - Tooltip: renderMode (richText: tooltips drawn on the canvas, so no log
//     text can become markup) and confine;
//   - AxisLabel: a numeric interval (go-echarts' is a string, which ECharts
//     would add to as text: "0" + 1 = "01");
//   - DataZoom: the slider's height and bottom;
//   - Label: width and overflow (truncating labels to their box).

// Option is an ECharts option object.
type Option struct {
	Animation bool            `json:"animation"`
	Title     *opts.Title     `json:"title,omitempty"`
	Tooltip   *Tooltip        `json:"tooltip,omitempty"`
	Legend    *opts.Legend    `json:"legend,omitempty"`
	Grid      *opts.Grid      `json:"grid,omitempty"`
	XAxis     *XAxis          `json:"xAxis,omitempty"`
	YAxis     *YAxis          `json:"yAxis,omitempty"`
	DataZoom  []DataZoom      `json:"dataZoom,omitempty"`
	Dataset   *opts.Dataset   `json:"dataset,omitempty"`
	Series    []Series        `json:"series"`
	Color     []string        `json:"color,omitempty"`
	TextStyle *opts.TextStyle `json:"textStyle,omitempty"`
}

// Series is one series: go-echarts' SingleSeries, with a Label that can
// truncate to a width.
type Series struct {
	charts.SingleSeries
	Label *Label `json:"label,omitempty"`
}

// Tooltip is go-echarts' tooltip with renderMode and confine.
type Tooltip struct {
	opts.Tooltip
	RenderMode string `json:"renderMode"`
	Confine    bool   `json:"confine"`
}

// XAxis is go-echarts' x axis with AxisLabel's numeric interval.
type XAxis struct {
	opts.XAxis
	AxisLabel *AxisLabel `json:"axisLabel,omitempty"`
}

// YAxis is go-echarts' y axis with AxisLabel's numeric interval.
type YAxis struct {
	opts.YAxis
	AxisLabel *AxisLabel `json:"axisLabel,omitempty"`
}

// AxisLabel is go-echarts' axis label with a numeric Interval (nil: auto;
// 0: every label) and showMinLabel/showMaxLabel left out unless set
// (go-echarts writes them as null).
type AxisLabel struct {
	opts.AxisLabel
	Interval     *int       `json:"interval,omitempty"`
	ShowMinLabel types.Bool `json:"showMinLabel,omitempty"`
	ShowMaxLabel types.Bool `json:"showMaxLabel,omitempty"`
}

// DataZoom is go-echarts' data zoom with the slider's height and bottom.
type DataZoom struct {
	opts.DataZoom
	Height int `json:"height,omitempty"`
	Bottom int `json:"bottom,omitempty"`
}

// Label is go-echarts' label with width and overflow ("truncate").
type Label struct {
	opts.Label
	Width    int    `json:"width,omitempty"`
	Overflow string `json:"overflow,omitempty"`
}

// richTooltip is a tooltip drawn on the canvas (no HTML), triggered by
// trigger ("axis" or "item").
func richTooltip(trigger string) *Tooltip {
	return &Tooltip{Tooltip: opts.Tooltip{Trigger: trigger}, RenderMode: "richText", Confine: true}
}

// label is a shown label at position with formatter (a string template).
func label(position, formatter string) *Label {
	return &Label{Label: opts.Label{Show: opts.Bool(true), Position: position, Formatter: formatter}}
}

// lineStyle is a line of colour c ("" the series colour), width w and type
// typ ("" solid, "dashed", "dotted").
func lineStyle(c string, w float32, typ string) *opts.LineStyle {
	return &opts.LineStyle{Color: c, Width: w, Type: typ}
}

// markLines draws reference lines (items opts.MarkLineNameXAxisItem or
// opts.MarkLineNameYAxisItem) with no end symbols, labelled at position
// with formatter.
func markLines(position, formatter string, ls *opts.LineStyle, items ...any) *opts.MarkLines {
	return &opts.MarkLines{Data: items, MarkLineStyle: opts.MarkLineStyle{Symbol: []string{"none", "none"},
		Label: &opts.Label{Show: opts.Bool(true), Position: position, Formatter: formatter}, LineStyle: ls}}
}

func intp(i int) *int { return &i }
