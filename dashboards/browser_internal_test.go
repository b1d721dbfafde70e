package dashboards

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/dashboards/browsertest"
)

// TestBrowserCatchesBadCharts draws deliberately broken charts and checks
// that the browser checks (browsertest.Load's chart inspection, which
// browsertest.Check fails on) report each: a blank canvas, a one-point
// line with no symbol, a series missing from its legend, a scrolling
// legend, a legend over the plot and an axis with no title; and that a
// good chart reports nothing.
func TestBrowserCatchesBadCharts(t *testing.T) {
	browsertest.Chromium(t)
	axes := func(o *Option) {
		o.Grid = &Grid{Left: "40", Right: "40", Top: "80", Bottom: "40", ContainLabel: true}
		o.XAxis = &Axis{Type: "value", Name: "x"}
		o.YAxis = &Axis{Type: "value", Name: "y"}
	}
	line := func(name string, pts ...[]int) Series {
		return Series{Name: name, Type: "line", Data: pts, ShowSymbol: boolp(false)}
	}
	good := baseOption()
	axes(&good)
	good.Series = []Series{line("a", []int{0, 1}, []int{1, 3})}
	withLegend(&good, 30, halfWidth, 10, nil)

	onePoint := baseOption()
	axes(&onePoint)
	onePoint.Series = []Series{line("a", []int{0, 5})}

	missing := baseOption()
	axes(&missing)
	missing.Series = []Series{line("a", []int{0, 1}, []int{1, 2}), line("b", []int{0, 2}, []int{1, 1})}
	missing.Legend = &Legend{Top: "30", Data: []string{"a"}}

	scroll := good
	scroll.Legend = &Legend{Type: "scroll", Top: "30"}

	overlap := good
	overlap.Grid = &Grid{Left: "40", Right: "40", Top: "20", Bottom: "40"}
	overlap.Legend = &Legend{Top: "60"}

	noTitle := good
	noTitle.YAxis = &Axis{Type: "value"}

	want := map[string]string{
		"good":     "",
		"blank":    "not drawn",
		"onepoint": "draws nothing",
		"missing":  "no legend entry",
		"scroll":   "legend scrolls",
		"overlap":  "legend overlaps the plot",
		"notitle":  "yAxis[0] has no title",
	}
	opts := map[string]Option{"good": good, "blank": {Series: []Series{}}, "onepoint": onePoint, "missing": missing, "scroll": scroll, "overlap": overlap, "notitle": noTitle}
	var b bytes.Buffer
	err := Write(&b, &Data{Title: "bad charts"}, &Options{charts: func([]Chart) []Chart {
		var cs []Chart
		for _, id := range []string{"good", "blank", "onepoint", "missing", "scroll", "overlap", "notitle"} {
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
			continue // the template's own containers (occupancy-run)
		}
		seen++
		got := strings.Join(c.Problems, "; ")
		if c.Canvas+c.SVG == 0 || c.Inked == 0 {
			got += "; not drawn"
		}
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
