package dashboards

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"

	"github.com/trajmine/trajmine/dashboards/browsertest"
)

// TestBrowserCatchesBadCharts draws deliberately broken charts and checks
// that the browser checks (browsertest.Load's chart inspection, which
// browsertest.Check fails on) report each, with the words of its problem:
// a blank chart (no series, or bars all 0), a one-point line with no
// symbol, a bar its data calls for not drawn, an empty category row, a
// series missing from its legend, a legend entry naming no series, two
// legend names for one thing, a line hidden under another, a scrolling
// legend, a legend over the plot, a clipped title, a clipped axis name and
// an axis with no title; and that good charts (a line drawn over an equal
// one narrower and dashed included) report nothing.
func TestBrowserCatchesBadCharts(t *testing.T) {
	browsertest.Chromium(t)
	axes := func(o *Option) {
		o.Grid = grid("40", "40", "80", "40")
		o.XAxis = &XAxis{XAxis: opts.XAxis{Type: "value", Name: "x"}}
		o.YAxis = &YAxis{YAxis: opts.YAxis{Type: "value", Name: "y"}}
	}
	ln := func(name string, pts ...[]int) Series {
		return Series{SingleSeries: charts.SingleSeries{Name: name, Type: types.ChartLine, Data: pts, ShowSymbol: opts.Bool(false)}}
	}
	chart := func(series ...Series) Option {
		o := baseOption()
		axes(&o)
		o.Series = series
		withLegend(&o, 30, halfWidth, 10, nil)
		return o
	}
	rows := func(vals ...any) Option {
		o := baseOption()
		o.Grid = grid("40", "40", "80", "40")
		o.YAxis = categoryY("row", []string{"a", "b"}, 0)
		o.XAxis = zeroAxis("value")
		o.Series = []Series{bar("v", vals)}
		return o
	}
	good := chart(ln("a", []int{0, 1}, []int{1, 3}))

	onePoint := chart(ln("a", []int{0, 5}))
	onePoint.Legend = nil

	missing := chart(ln("a", []int{0, 1}, []int{1, 2}), ln("b", []int{0, 2}, []int{1, 1}))
	missing.Legend = &opts.Legend{Top: "30", Data: []string{"a"}}

	stale := chart(ln("a", []int{0, 1}, []int{1, 2}))
	stale.Legend = &opts.Legend{Top: "30", Data: []string{"a", "c"}}

	twoNames := chart(ln("as logged", []int{0, 1}, []int{1, 2}), ln("as-logged", []int{0, 2}, []int{1, 1}))

	hidden := chart(ln("logged", []int{0, 1}, []int{1, 2}, []int{2, 4}), ln("replay", []int{0, 1}, []int{1, 2}, []int{2, 4}))

	over := ln("replay", []int{0, 1}, []int{1, 2}, []int{2, 4})
	over.LineStyle = lineStyle("", 1, "dashed")
	visible := chart(ln("logged", []int{0, 1}, []int{1, 2}, []int{2, 4}), over)

	scroll := good
	scroll.Legend = &opts.Legend{Type: "scroll", Top: "30"}

	overlap := good
	overlap.Grid = grid("40", "40", "20", "40")
	overlap.Legend = &opts.Legend{Top: "60"}

	noTitle := good
	noTitle.YAxis = &YAxis{YAxis: opts.YAxis{Type: "value"}}

	longTitle := good
	longTitle.Title = title("A title far too long for half of the page: it runs off both sides of the chart's box", "")

	longAxis := good
	longAxis.YAxis = &YAxis{YAxis: opts.YAxis{Type: "value", Name: "an axis name much too long to stand centred over its axis"}}

	clipped := rows(5, 8)
	clipped.XAxis.Min = 6 // the first bar ends left of the axis' start: cut to nothing

	want := map[string]string{
		"good":     "",
		"visible":  "",
		"blank":    "blank: the chart draws no data mark",
		"zeros":    "blank: the chart draws no data mark",
		"onepoint": "series a draws 0 of the 1 marks",
		"clipped":  "series v draws 1 of the 2 marks",
		"emptyrow": `row "b" is empty`,
		"missing":  "series b has data but no legend entry",
		"stale":    "legend entry c names no series with data",
		"twonames": `legend entries "as logged" and "as-logged" differ only in case or punctuation`,
		"hidden":   "line logged is hidden under line replay",
		"scroll":   "legend scrolls",
		"overlap":  "legend overlaps the plot",
		"title":    "is clipped",
		"axisname": `yAxis[0] "an axis name much too long to stand centred over its axis": its text`,
		"notitle":  "yAxis[0] has no title",
	}
	opts := map[string]Option{"good": good, "visible": visible, "blank": {Series: []Series{}}, "zeros": rows(0, 0), "onepoint": onePoint, "clipped": clipped,
		"emptyrow": rows(3, nil), "missing": missing, "stale": stale, "twonames": twoNames, "hidden": hidden, "scroll": scroll, "overlap": overlap,
		"title": longTitle, "axisname": longAxis, "notitle": noTitle}
	var b bytes.Buffer
	err := Write(&b, &Data{Title: "bad charts"}, &Options{charts: func([]Chart) []Chart {
		var cs []Chart
		for _, id := range []string{"good", "visible", "blank", "zeros", "onepoint", "clipped", "emptyrow", "missing", "stale", "twonames", "hidden", "scroll", "overlap", "title", "axisname", "notitle"} {
			cs = append(cs, Chart{ID: id, Section: SecVerdict, Height: 300, Option: opts[id]})
		}
		return cs
	}})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "bad.html")
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r := browsertest.Load(t, file, nil)
	seen := 0
	for _, c := range r.Charts {
		w, ok := want[c.ID]
		if !ok {
			continue
		}
		seen++
		got := strings.Join(c.Problems, "; ")
		switch {
		case w == "" && got != "":
			t.Errorf("chart %s: problems %q on a good chart", c.ID, got)
		case w != "" && !strings.Contains(got, w):
			t.Errorf("chart %s: problems %q, want one with %q", c.ID, got, w)
		}
	}
	if seen != len(want) {
		t.Errorf("%d of the %d charts found", seen, len(want))
	}
}
