package dashboards

// The ECharts option subset the report uses, as typed structs marshalled by
// encoding/json (ECharts 5 option names). Options hold data and plain
// settings only: no JavaScript functions, so an option is inert JSON.

// Option is an ECharts option object.
type Option struct {
	Animation bool        `json:"animation"`
	Title     *Title      `json:"title,omitempty"`
	Tooltip   *Tooltip    `json:"tooltip,omitempty"`
	Legend    *Legend     `json:"legend,omitempty"`
	Grid      *Grid       `json:"grid,omitempty"`
	XAxis     *Axis       `json:"xAxis,omitempty"`
	YAxis     *Axis       `json:"yAxis,omitempty"`
	DataZoom  []DataZoom  `json:"dataZoom,omitempty"`
	VisualMap *VisualMap  `json:"visualMap,omitempty"`
	Dataset   *Dataset    `json:"dataset,omitempty"`
	Series    []Series    `json:"series"`
	Color     []string    `json:"color,omitempty"`
	TextStyle *TextStyle  `json:"textStyle,omitempty"`
	Graphic   []GraphicEl `json:"graphic,omitempty"`
}

// Title is a chart title.
type Title struct {
	Text      string     `json:"text,omitempty"`
	Subtext   string     `json:"subtext,omitempty"`
	Left      string     `json:"left,omitempty"`
	TextStyle *TextStyle `json:"textStyle,omitempty"`
}

// TextStyle sets text size and colour.
type TextStyle struct {
	FontSize   int    `json:"fontSize,omitempty"`
	FontWeight string `json:"fontWeight,omitempty"`
	Color      string `json:"color,omitempty"`
	FontFamily string `json:"fontFamily,omitempty"`
}

// Tooltip configures tooltips. RenderMode "richText" draws them on the
// canvas: no HTML, so no log text can become markup.
type Tooltip struct {
	Trigger    string `json:"trigger,omitempty"`
	Formatter  string `json:"formatter,omitempty"` // a string template, never a function
	RenderMode string `json:"renderMode"`
	Confine    bool   `json:"confine"`
}

// Legend configures the legend.
type Legend struct {
	Type     string          `json:"type,omitempty"`
	Top      string          `json:"top,omitempty"`
	Bottom   string          `json:"bottom,omitempty"`
	Left     string          `json:"left,omitempty"`
	Selected map[string]bool `json:"selected,omitempty"`
	Data     []string        `json:"data,omitempty"`
}

// Grid is the plot area's placement.
type Grid struct {
	Left         string `json:"left,omitempty"`
	Right        string `json:"right,omitempty"`
	Top          string `json:"top,omitempty"`
	Bottom       string `json:"bottom,omitempty"`
	ContainLabel bool   `json:"containLabel"`
}

// Axis is an x or y axis.
type Axis struct {
	Type         string     `json:"type"`
	Name         string     `json:"name,omitempty"`
	NameLocation string     `json:"nameLocation,omitempty"`
	NameGap      int        `json:"nameGap,omitempty"`
	Min          any        `json:"min,omitempty"`
	Max          any        `json:"max,omitempty"`
	MinInterval  any        `json:"minInterval,omitempty"`
	Data         []string   `json:"data,omitempty"`
	Inverse      bool       `json:"inverse,omitempty"`
	AxisLabel    *AxisLabel `json:"axisLabel,omitempty"`
	SplitLine    *Show      `json:"splitLine,omitempty"`
}

// AxisLabel formats axis labels; Formatter is an ECharts string template
// such as "{value} %" (never a function).
type AxisLabel struct {
	Formatter string `json:"formatter,omitempty"`
	Interval  any    `json:"interval,omitempty"`
	Width     int    `json:"width,omitempty"`
	Overflow  string `json:"overflow,omitempty"`
	FontSize  int    `json:"fontSize,omitempty"`
}

// Show is an element toggled on or off.
type Show struct {
	Show bool `json:"show"`
}

// DataZoom is a zoom control.
type DataZoom struct {
	Type       string `json:"type"`
	XAxisIndex int    `json:"xAxisIndex"`
	Height     int    `json:"height,omitempty"`
	Bottom     int    `json:"bottom,omitempty"`
}

// VisualMap maps values to colours (heatmaps).
type VisualMap struct {
	Min        float64  `json:"min"`
	Max        float64  `json:"max"`
	Calculable bool     `json:"calculable"`
	Orient     string   `json:"orient,omitempty"`
	Left       string   `json:"left,omitempty"`
	Bottom     string   `json:"bottom,omitempty"`
	InRange    *InRange `json:"inRange,omitempty"`
}

// InRange is a visual map's colour range.
type InRange struct {
	Color []string `json:"color"`
}

// Dataset is tabular data that series refer to by column (Encode).
type Dataset struct {
	Dimensions []string `json:"dimensions"`
	Source     [][]any  `json:"source"`
}

// Series is one series of a chart.
type Series struct {
	Name         string         `json:"name,omitempty"`
	Type         string         `json:"type"`
	Data         any            `json:"data,omitempty"`
	Encode       map[string]any `json:"encode,omitempty"`
	Step         string         `json:"step,omitempty"`
	ShowSymbol   *bool          `json:"showSymbol,omitempty"`
	Symbol       string         `json:"symbol,omitempty"`
	SymbolSize   int            `json:"symbolSize,omitempty"`
	ConnectNulls bool           `json:"connectNulls,omitempty"`
	Stack        string         `json:"stack,omitempty"`
	BarMaxWidth  int            `json:"barMaxWidth,omitempty"`
	LineStyle    *LineStyle     `json:"lineStyle,omitempty"`
	ItemStyle    *ItemStyle     `json:"itemStyle,omitempty"`
	AreaStyle    *AreaStyle     `json:"areaStyle,omitempty"`
	Label        *Label         `json:"label,omitempty"`
	MarkLine     *MarkLine      `json:"markLine,omitempty"`
	Z            int            `json:"z,omitempty"`
	Silent       bool           `json:"silent,omitempty"`
	Large        bool           `json:"large,omitempty"`
	BarWidth     string         `json:"barWidth,omitempty"`
	BarGap       string         `json:"barGap,omitempty"`

	// graph series
	Top       string      `json:"top,omitempty"`
	Bottom    string      `json:"bottom,omitempty"`
	Left      string      `json:"left,omitempty"`
	Right     string      `json:"right,omitempty"`
	Layout    string      `json:"layout,omitempty"`
	Roam      bool        `json:"roam,omitempty"`
	Force     *Force      `json:"force,omitempty"`
	Links     []GraphLink `json:"links,omitempty"`
	EdgeLabel *Label      `json:"edgeLabel,omitempty"`
	EdgeSym   []string    `json:"edgeSymbol,omitempty"`
}

// LineStyle styles lines.
type LineStyle struct {
	Width     float64 `json:"width,omitempty"`
	Type      string  `json:"type,omitempty"`
	Color     string  `json:"color,omitempty"`
	Opacity   float64 `json:"opacity,omitempty"`
	Curveness float64 `json:"curveness,omitempty"`
}

// ItemStyle styles items.
type ItemStyle struct {
	Color       string  `json:"color,omitempty"`
	BorderColor string  `json:"borderColor,omitempty"`
	BorderWidth float64 `json:"borderWidth,omitempty"`
}

// AreaStyle fills the area under a line.
type AreaStyle struct {
	Opacity float64 `json:"opacity"`
}

// Label is a data label; Formatter is a string template.
type Label struct {
	Show       bool   `json:"show"`
	Position   string `json:"position,omitempty"`
	Formatter  string `json:"formatter,omitempty"`
	FontSize   int    `json:"fontSize,omitempty"`
	LineHeight int    `json:"lineHeight,omitempty"`
	Color      string `json:"color,omitempty"`
	Width      int    `json:"width,omitempty"`
	Overflow   string `json:"overflow,omitempty"`
}

// MarkLine draws reference lines.
type MarkLine struct {
	Silent    bool           `json:"silent"`
	Symbol    []string       `json:"symbol"`
	Label     *Label         `json:"label,omitempty"`
	LineStyle *LineStyle     `json:"lineStyle,omitempty"`
	Data      []MarkLineItem `json:"data"`
}

// MarkLineItem is one reference line at an x or y value.
type MarkLineItem struct {
	Name  string `json:"name,omitempty"`
	XAxis any    `json:"xAxis,omitempty"`
	YAxis any    `json:"yAxis,omitempty"`
}

// Force configures a force-directed graph layout.
type Force struct {
	Repulsion  float64 `json:"repulsion"`
	EdgeLength float64 `json:"edgeLength"`
}

// GraphNode is one node of a graph series; X and Y place it when the
// series' layout is "none".
type GraphNode struct {
	Name       string     `json:"name"`
	Value      float64    `json:"value"`
	SymbolSize any        `json:"symbolSize"`
	Symbol     string     `json:"symbol,omitempty"`
	X          *float64   `json:"x,omitempty"`
	Y          *float64   `json:"y,omitempty"`
	ItemStyle  *ItemStyle `json:"itemStyle,omitempty"`
	Label      *Label     `json:"label,omitempty"`
}

// GraphLink is one edge of a graph series.
type GraphLink struct {
	Source    string     `json:"source"`
	Target    string     `json:"target"`
	Value     float64    `json:"value"`
	LineStyle *LineStyle `json:"lineStyle,omitempty"`
	Label     *Label     `json:"label,omitempty"`
	Symbol    []string   `json:"symbol,omitempty"`
}

// BarItem is one bar with its own name, colour and label (the variants'
// sequence chart).
type BarItem struct {
	Value     float64    `json:"value"`
	Name      string     `json:"name"`
	ItemStyle *ItemStyle `json:"itemStyle,omitempty"`
}

// GraphicEl is a free graphic element (used for "no data" notes).
type GraphicEl struct {
	Type  string       `json:"type"`
	Left  string       `json:"left"`
	Top   string       `json:"top"`
	Style GraphicStyle `json:"style"`
}

// GraphicStyle styles a graphic text element.
type GraphicStyle struct {
	Text     string `json:"text"`
	FontSize int    `json:"fontSize"`
	Fill     string `json:"fill"`
}

func boolp(b bool) *bool { return &b }
