package dashboards_test

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/dashboards"
	"github.com/trajmine/trajmine/dashboards/browsertest"
	"github.com/trajmine/trajmine/internal/testutil"
)

// TestChartGolden goldens every chart's option JSON (with its variants) by
// its stable id: dashboards/testdata/charts/<id>.golden.
func TestChartGolden(t *testing.T) {
	charts := dashboards.Charts(fixture(true))
	seen := map[string]bool{}
	for _, c := range charts {
		if seen[c.ID] {
			t.Errorf("chart id %s twice", c.ID)
		}
		seen[c.ID] = true
		t.Run(c.ID, func(t *testing.T) {
			b, err := json.MarshalIndent(struct {
				ID       string                    `json:"id"`
				Section  string                    `json:"section"`
				Height   int                       `json:"height"`
				Empty    string                    `json:"empty,omitempty"`
				Caption  string                    `json:"caption,omitempty"`
				Option   dashboards.Option         `json:"option"`
				Variants []dashboards.ChartVariant `json:"variants,omitempty"`
			}{c.ID, c.Section, c.Height, c.Empty, c.Caption, c.Option, c.Variants}, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			testutil.Golden(t, string(b)+"\n", filepath.Join("testdata", "charts", c.ID+".golden"))
		})
	}
	// the list of ids is part of the contract too
	var ids []string
	for _, c := range charts {
		ids = append(ids, c.Section+" "+c.ID)
	}
	testutil.Golden(t, strings.Join(ids, "\n")+"\n", filepath.Join("testdata", "chart-ids.golden"))
}

func TestChartsDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	if err := dashboards.Write(&a, fixture(true), nil); err != nil {
		t.Fatal(err)
	}
	if err := dashboards.Write(&b, fixture(true), nil); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two renderings of the same data differ")
	}
}

func render(t *testing.T, d *dashboards.Data) string {
	t.Helper()
	var b bytes.Buffer
	if err := dashboards.Write(&b, d, nil); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestHostileTextIsInert checks the HTML itself: the fixture's hostile
// strings never appear as markup, only escaped.
func TestHostileTextIsInert(t *testing.T) {
	page := render(t, fixture(true))
	checkMarkup(t, page)
	// exactly four <script> elements: two JSON blocks, ECharts, the page script
	if n := len(regexp.MustCompile(`(?i)<script[\s>]`).FindAllString(page, -1)); n != 4 {
		t.Errorf("%d <script> elements, want 4", n)
	}
	if n := strings.Count(strings.ToLower(page), "</script"); n != 4 {
		t.Errorf("%d </script> end tags, want 4 (log text closed a script?)", n)
	}
	// in HTML text the strings are entity-escaped
	for _, want := range []string{`&lt;script&gt;alert(1)&lt;/script&gt;`, `&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks the escaped text %q", want)
		}
	}
	// in the JSON blocks they are \u003c-escaped and decode back unchanged
	m := regexp.MustCompile(`(?s)<script type="application/json" id="trajmine-runs">(.*?)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no runs JSON block")
	}
	var runs struct {
		Runs []struct {
			RunID   string `json:"run_id"`
			Outputs []struct {
				Preview string `json:"preview"`
			} `json:"outputs"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(m[1]), &runs); err != nil {
		t.Fatalf("runs block is not JSON: %v", err)
	}
	if len(runs.Runs) != 3 || runs.Runs[0].RunID != xssScript || !strings.Contains(runs.Runs[0].Outputs[1].Preview, xssImg) {
		t.Errorf("runs block does not round-trip the hostile text: %+v", runs.Runs)
	}
	// the CSP allows only the page's two scripts, by hash, and no network source
	csp := regexp.MustCompile(`http-equiv="Content-Security-Policy" content="([^"]*)"`).FindStringSubmatch(page)
	if csp == nil || !strings.Contains(csp[1], "default-src 'none'") || strings.Contains(csp[1], "unsafe-inline' ;") || strings.Count(csp[1], "'sha256-") != 2 {
		t.Errorf("CSP = %v", csp)
	}
	if strings.Contains(csp[1], "script-src 'unsafe-inline'") {
		t.Error("CSP allows inline scripts")
	}
}

// TestNoExternalReference: no URL the browser could fetch.
func TestNoExternalReference(t *testing.T) {
	// ECharts' own code mentions tags and URLs in strings it never uses
	// here; look only outside it
	outside := withoutLibrary(render(t, fixture(true)))
	for _, re := range []string{`(?i)<link\b`, `(?i)@import`, `(?i)url\(`, `(?i)<iframe`, `(?i)<object`, `(?i)<embed`, `(?i)https?://`} {
		if loc := regexp.MustCompile(re).FindStringIndex(outside); loc != nil {
			t.Errorf("%s matches outside the library: …%s…", re, outside[max(0, loc[0]-60):min(len(outside), loc[1]+60)])
		}
	}
}

func TestNotComputedSections(t *testing.T) {
	page := render(t, fixture(false))
	for _, want := range []string{"Process map: not computed", "Variants: not computed", "Behaviour profiles: not computed", "Recommendations: not computed"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	page = render(t, fixture(true))
	if strings.Contains(page, "not computed") {
		t.Error("a filled section says not computed")
	}
}

func TestEmptyData(t *testing.T) {
	page := render(t, &dashboards.Data{Title: "empty"})
	if !strings.Contains(page, "no runs") {
		t.Error("an empty report does not say there are no runs")
	}
}

func TestSampleRuns(t *testing.T) {
	cands := []dashboards.Candidate{
		{RunID: "a", PeakShare: 0.5, PeakTokens: 50, Known: true},
		{RunID: "b", PeakShare: 0.9, PeakTokens: 90, Known: true},
		{RunID: "c", PeakTokens: 500},
		{RunID: "d", PeakShare: 0.9, PeakTokens: 95, Known: true},
		{RunID: "e", PeakShare: 0.1, PeakTokens: 5, Known: true},
	}
	picks, rule := dashboards.SampleRuns(cands, 2, 2)
	var got []string
	for _, p := range picks {
		got = append(got, cands[p.Index].RunID+":"+p.Why)
	}
	// top: d (0.9, more tokens), b; then the two smallest FNV-1a hashes of a, c, e
	if len(got) != 4 || got[0] != "d:top" || got[1] != "b:top" {
		t.Errorf("picks = %v", got)
	}
	again, _ := dashboards.SampleRuns(cands, 2, 2)
	for i := range picks {
		if picks[i] != again[i] {
			t.Errorf("sample not deterministic: %v vs %v", picks, again)
		}
	}
	if !strings.Contains(rule, "FNV-1a") || !strings.Contains(rule, "4 of 5 runs") {
		t.Errorf("rule = %q", rule)
	}
	if p, _ := dashboards.SampleRuns(cands, 10, 10); len(p) != 5 {
		t.Errorf("oversized sample: %d picks", len(p))
	}
}

// TestBrowser renders the fixture and loads it in headless Chromium: no
// console error, no dialog (the hostile text never runs), no request but
// the file, every chart drawn, the hostile strings shown as text; and a
// screenshot of each section (kept with -screenshots DIR).
func TestBrowser(t *testing.T) {
	browsertest.Chromium(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, []byte(render(t, fixture(true))), 0o644); err != nil {
		t.Fatal(err)
	}
	shots := browsertest.ShotDir(t, "fixture")
	steps := []struct{ js, want string }{
		// a header click sorts, the filter box filters
		{`(function () { var t = document.getElementById('groups-table'); t.querySelector('th').click(); return t.tBodies[0].rows[0].cells[0].textContent; })()`, "claude-sonnet-4"},
		{`(function () { var t = document.getElementById('groups-table'); var f = t.previousElementSibling; f.value = 'CLAUDE'; f.dispatchEvent(new Event('input'));
			return String(Array.from(t.tBodies[0].rows).filter(function (r) { return !r.hidden; }).length); })()`, "1"},
		// a run-list row opens the run's timeline, with its compaction and logged overflow
		{`(function () { var rows = document.querySelectorAll('#runs-table tbody tr'); for (var i = 0; i < rows.length; i++) { if (rows[i].cells[0].textContent === 'overflowed') { rows[i].click(); } } return ''; })()`, ""},
		{`(function () { var o = echarts.getInstanceByDom(document.getElementById('chart-run-timeline')).getOption(); var m = o.series[0].markLine.data.map(function (d) { return d.name; });
			return o.title[0].text + ' | ' + o.series.map(function (x) { return x.name; }).join(',') + ' | ' + m.join(','); })()`, "overflowed | logged,mask(n=5) (replay),keep-all (replay) | compaction,overflow (logged),overflow (mask(n=5))"},
		// a run outside the sample draws its replays call by call (the
		// record's delta-coded Rep decoded back), and the chart is not blank:
		// the policy's orange line is on the canvas
		{`(function () { var o = echarts.getInstanceByDom(document.getElementById('chart-run-timeline')).getOption();
			return o.series.slice(1).map(function (x) { return x.name + '=' + x.data.map(function (p) { return p[0] + ':' + p[1]; }).join(' '); }).join(' | '); })()`,
			"mask(n=5) (replay)=0:90000 1:120000 2:50000 3:200000 | keep-all (replay)=0:90000 1:150000 2:150000 3:210000"},
		{timelineInk, "inked"},
		// another policy: its outcome (no family recommendation: the first policy after keep-all was the default)
		{`(function () { var s = document.getElementById('timeline-policy'); s.value = 'halflife'; s.dispatchEvent(new Event('change')); var f = document.getElementById('drill-facts').textContent;
			return f.indexOf('under halflifesurvived, 0.550 × what ran\'s tokens') >= 0 ? 'facts' : f; })()`, "facts"},
		// the run list's filter box and a click on a point of the runs chart
		{`(function () { var f = document.querySelector('#runs-tools input'); f.value = 'one-call'; f.dispatchEvent(new Event('input')); return document.getElementById('runs-pager').textContent; })()`, "‹ previousruns 1–1 of 1 (filtered from 5)next ›"},
		{`(function () { var el = document.getElementById('chart-runs-scatter'), c = echarts.getInstanceByDom(el); var si = c.getOption().series.findIndex(function (s) { return s.name === 'finished'; });
			var p = c.convertToPixel({ seriesIndex: si }, [1, 9000]); var b = el.querySelector('canvas').getBoundingClientRect();
			var target = el.firstElementChild; ['mousedown', 'mouseup', 'click'].forEach(function (k) { target.dispatchEvent(new MouseEvent(k, { clientX: b.left + p[0], clientY: b.top + p[1], bubbles: true })); }); return ''; })()`, ""},
		{`echarts.getInstanceByDom(document.getElementById('chart-run-timeline')).getOption().title[0].text`, "one-call " + xssImg},
		{`decodeURIComponent(location.hash)`, "#run=one-call " + xssImg},
		// the runs the timeline's policy saved from overflow: halflife saves the overflowed run
		{`(function () { var f = document.querySelector('#runs-tools input'); f.value = ''; f.dispatchEvent(new Event('input'));
			var p = document.getElementById('timeline-policy'); p.value = 'halflife'; p.dispatchEvent(new Event('change'));
			var o = document.querySelector('#runs-tools select[aria-label="under the timeline policy"]'); o.value = 'saved'; o.dispatchEvent(new Event('change'));
			return document.querySelector('#runs-table tbody tr').cells[0].textContent + ' | ' + document.getElementById('runs-pager').textContent; })()`, "overflowed | ‹ previousruns 1–1 of 1 (filtered from 5)next ›"},
	}
	var js []string
	for _, s := range steps {
		js = append(js, s.js)
	}
	r := browsertest.Load(t, file, &browsertest.Options{ShotDir: shots, Select: []string{"r1", "r2", "r0"}, Steps: js})
	browsertest.Check(t, file, r, len(dashboards.Charts(fixture(true))))
	for i, s := range steps {
		if i >= len(r.Steps) || r.Steps[i] != s.want {
			t.Errorf("step %d = %q, want %q", i, r.Steps[i], s.want)
		}
	}
	if r.Images != 0 {
		t.Errorf("%d <img> elements: injected markup", r.Images)
	}
	if r.Scripts != 4 {
		t.Errorf("%d <script> elements, want 4", r.Scripts)
	}
	for _, want := range []string{xssScript, xssImg, xssURL} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("the page does not show %q as text", want)
		}
	}
	// every run is in the run list, the one-call run included
	for _, want := range []string{"runs 1–5 of 5", "one-call " + xssImg} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("the run list does not show %q", want)
		}
	}
	if r.FirstScreen == "" {
		t.Error("no first-screen screenshot")
	}
	for _, id := range []string{"verdict", "occupancy", "survival", "policies", "rent", "process", "behaviour", "recommendations", "drilldown", "terms"} {
		if r.Sections[id] == "" {
			t.Errorf("no screenshot of section %s", id)
		}
	}
	t.Logf("screenshots in %s", shots)
}

// timelineInk is a browser step: "inked" when the run timeline's canvas
// holds pixels of the policy line's colour (#f28e2b), else what it holds.
const timelineInk = `(function () { var c = document.querySelector('#chart-run-timeline canvas'); if (!c) { return 'no canvas'; }
	var d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data, n = 0, any = 0;
	for (var i = 0; i < d.length; i += 4) { if (d[i + 3] > 0 && (d[i] < 250 || d[i + 1] < 250 || d[i + 2] < 250)) { any++; }
		if (Math.abs(d[i] - 242) < 12 && Math.abs(d[i + 1] - 142) < 12 && Math.abs(d[i + 2] - 43) < 12) { n++; } }
	return n > 20 ? 'inked' : 'blank: ' + n + ' policy pixels, ' + any + ' inked'; })()`

// withoutLibrary cuts the inlined ECharts out of a page.
func withoutLibrary(page string) string {
	for i := 0; ; {
		k := strings.Index(page[i:], "<script>")
		if k < 0 {
			return page
		}
		i += k
		if strings.Contains(page[i:min(len(page), i+400)], "Apache Software Foundation") {
			j := strings.Index(page[i:], "</script>")
			return page[:i] + page[i+j:]
		}
		i += len("<script>")
	}
}

var (
	tagRE     = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9]*)((?:\s+[a-zA-Z-]+(?:="[^"<>]*")?)*)\s*/?>`)
	attrRE    = regexp.MustCompile(`([a-zA-Z-]+)(?:="([^"]*)")?`)
	scriptsRE = regexp.MustCompile(`(?s)(<script[^>]*>).*?(</script>)`)
	knownTags = map[string]bool{"html": true, "head": true, "meta": true, "title": true, "style": true, "body": true, "header": true, "h1": true, "h2": true, "h3": true,
		"p": true, "nav": true, "a": true, "main": true, "section": true, "div": true, "span": true, "code": true, "b": true, "table": true, "thead": true, "tbody": true,
		"tr": true, "th": true, "td": true, "label": true, "select": true, "option": true, "dl": true, "footer": true, "script": true,
		"details": true, "summary": true, "small": true, "figure": true, "figcaption": true, "dt": true, "dd": true,
		// the process map's inline SVG
		"svg": true, "g": true, "path": true, "polygon": true, "text": true, "rect": true, "circle": true}
)

// checkMarkup scans every tag outside script contents: each "<" must start
// a tag of the template's own vocabulary, with no event-handler attribute,
// no src, and links only to anchors in the page. Text cannot hold an
// unescaped "<", so log text that became markup would fail here.
func checkMarkup(t *testing.T, page string) {
	t.Helper()
	for _, p := range markupProblems(page) {
		t.Error(p)
	}
}

func markupProblems(page string) []string {
	var out []string
	body := scriptsRE.ReplaceAllString(page, "$1$2")
	tags := tagRE.FindAllStringSubmatchIndex(body, -1)
	if n := strings.Count(body, "<") - 1; n != len(tags) { // - 1: <!DOCTYPE html>
		out = append(out, fmt.Sprintf("%d '<' outside scripts but %d well-formed tags: some '<' is not the template's", n+1, len(tags)))
	}
	for _, m := range tags {
		name := strings.ToLower(body[m[4]:m[5]])
		if !knownTags[name] {
			out = append(out, fmt.Sprintf("unexpected tag <%s>", name))
		}
		for _, a := range attrRE.FindAllStringSubmatch(body[m[6]:m[7]], -1) {
			k, v := strings.ToLower(a[1]), a[2]
			switch {
			case strings.HasPrefix(k, "on"):
				out = append(out, fmt.Sprintf("<%s> has an event handler %s=%q", name, k, v))
			case k == "src" || k == "srcset" || k == "action" || k == "formaction":
				out = append(out, fmt.Sprintf("<%s> has %s=%q", name, k, v))
			case k == "href" && !strings.HasPrefix(v, "#"):
				out = append(out, fmt.Sprintf("<%s> links to %q", name, v))
			}
		}
	}
	return out
}

// TestCheckMarkupCatches: the markup check fails on what an unescaped
// rendering would produce.
func TestCheckMarkupCatches(t *testing.T) {
	for _, bad := range []string{xssImg, `<a href="` + xssURL + `">x</a>`, `<p onclick="alert(1)">x</p>`, `<svg onload=alert(1)>`} {
		if len(markupProblems("<!DOCTYPE html><html><body><p>"+bad+"</p></body></html>")) == 0 {
			t.Errorf("checkMarkup accepts %q", bad)
		}
	}
}

// TestBrowserFile checks any generated report in headless Chromium, e.g.
// the benchmark's page on 10,000 runs, and logs how long it took to open
// (load, parse, every chart initialised): set $TRAJMINE_REPORT_FILE.
func TestBrowserFile(t *testing.T) {
	file := os.Getenv("TRAJMINE_REPORT_FILE")
	if file == "" {
		t.Skip("set TRAJMINE_REPORT_FILE to a report to check")
	}
	// a run outside the sample, opened from the run list: its replays are
	// drawn (series with data, and their colours on the canvas)
	steps := []string{
		`(function () { var rows = document.querySelectorAll('#runs-table tbody tr'); for (var i = 0; i < rows.length; i++) { var c = rows[i].cells; if (c[c.length - 1].textContent === '') { rows[i].click(); return c[0].textContent; } } return 'no run outside the sample'; })()`,
		`(function () { var o = echarts.getInstanceByDom(document.getElementById('chart-run-timeline')).getOption();
			var rs = o.series.filter(function (x) { return / \(replay\)$/.test(x.name) && x.data.length > 0; });
			var c = document.querySelector('#chart-run-timeline canvas'), d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data, n = 0;
			for (var i = 0; i < d.length; i += 4) { if ((Math.abs(d[i] - 242) < 12 && Math.abs(d[i + 1] - 142) < 12 && Math.abs(d[i + 2] - 43) < 12) || (Math.abs(d[i] - 78) < 12 && Math.abs(d[i + 1] - 121) < 12 && Math.abs(d[i + 2] - 167) < 12)) { n++; } }
			return rs.length >= 2 && n > 20 ? 'replays drawn' : rs.length + ' replay series, ' + n + ' pixels of theirs'; })()`,
	}
	r := browsertest.Load(t, file, &browsertest.Options{ShotDir: browsertest.ShotDir(t, "file"), Select: []string{"r1"}, Steps: steps})
	browsertest.Check(t, file, r, 0)
	if len(r.Steps) != 2 || r.Steps[1] != "replays drawn" {
		t.Errorf("a run outside the sample (%q): timeline %q", r.Steps[0], r.Steps[1:])
	}
	t.Logf("%d charts; opened (navigation to every chart initialised) in %v; run %s outside the sample: %s", len(r.Charts), r.Opened, r.Steps[0], r.Steps[1])
}

// TestEveryRunInPage: the page's compressed run records decode (gzip,
// base64, as the script does with DecompressionStream) to one record per
// run, in Data.Runs order, with the sample's index on the sampled runs and
// the calls within RunPoints.
func TestEveryRunInPage(t *testing.T) {
	d := fixture(true)
	page := render(t, d)
	m := regexp.MustCompile(`(?s)<script type="application/json" id="trajmine-runs">(.*?)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no runs JSON block")
	}
	var block struct {
		All     string `json:"all"`
		AllRuns int    `json:"all_runs"`
	}
	if err := json.Unmarshal([]byte(m[1]), &block); err != nil {
		t.Fatal(err)
	}
	raw, err := base64.StdEncoding.DecodeString(block.All)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var all struct {
		ID     []string  `json:"id"`
		Sample []int     `json:"sample"`
		Calls  []int     `json:"calls"`
		Points [][]int64 `json:"points"`
		Comp   [][]int64 `json:"comp"`
		Cost   []int64   `json:"cost"`
		Pol    [][]int64 `json:"pol"`
	}
	if err := json.NewDecoder(zr).Decode(&all); err != nil {
		t.Fatal(err)
	}
	if block.AllRuns != len(d.Runs) || len(all.ID) != len(d.Runs) {
		t.Fatalf("%d (%d) records, want %d", len(all.ID), block.AllRuns, len(d.Runs))
	}
	for i, r := range d.Runs {
		if all.ID[i] != r.RunID || all.Calls[i] != len(r.Calls) || len(all.Points[i]) != 2*len(r.Calls) {
			t.Errorf("record %d = %q, %d calls, %d values; want %q, %d calls", i, all.ID[i], all.Calls[i], len(all.Points[i]), r.RunID, len(r.Calls))
		}
		want := -1
		for k, s := range d.Sample {
			if s.RunID == r.RunID {
				want = k
			}
		}
		if all.Sample[i] != want {
			t.Errorf("record %d: sample %d, want %d", i, all.Sample[i], want)
		}
	}
	// the last run: turns 0..3, prompts 90000, 150000, 60000, 210000 delta-coded; a compaction at 2
	if got := fmt.Sprint(all.Points[4], all.Comp[4]); got != "[0 90000 1 60000 1 -90000 1 150000] [2]" {
		t.Errorf("overflowed run's record = %s", got)
	}
	// its cost is unknown; per policy (status, overflow call, ratio in 1/1,000,
	// flags: 1 saved, 2 lost): halflife (the third) saves it
	if p := all.Pol[4]; all.Cost[4] != -1 || all.Cost[0] != 5000 || len(p) != 12 || p[1] != 3 || p[2] != 1000 || p[3] != 0 || p[6] != 900 || p[9] != -1 || p[10] != 550 || p[11] != 1 {
		t.Errorf("overflowed run: cost %d, policies %v", all.Cost[4], p)
	}
}

// TestChartAxesAndLegends: every axis of every chart (and variant) has a
// title, no legend scrolls, and shares are drawn in % (no axis goes to 1).
func TestChartAxesAndLegends(t *testing.T) {
	for _, c := range dashboards.Charts(fixture(true)) {
		opts := []dashboards.Option{c.Option}
		for _, v := range c.Variants {
			opts = append(opts, v.Option)
		}
		for _, o := range opts {
			type axis struct {
				name string
				max  any
			}
			var axes []axis
			if o.XAxis != nil {
				axes = append(axes, axis{o.XAxis.Name, o.XAxis.Max})
			}
			if o.YAxis != nil {
				axes = append(axes, axis{o.YAxis.Name, o.YAxis.Max})
			}
			for _, a := range axes {
				if a.name == "" {
					t.Errorf("chart %s: an axis with no title", c.ID)
				}
				if a.max == 1 {
					t.Errorf("chart %s: axis %q ends at 1: a share not in %%?", c.ID, a.name)
				}
			}
			if o.Legend != nil && o.Legend.Type == "scroll" {
				t.Errorf("chart %s: a scrolling legend hides entries", c.ID)
			}
		}
	}
}

// TestHeadlineCards: the first screen's cards hold the Verdict's and the
// Decision's figures as the CLI prints them (textfmt: a CI bound below 1
// never prints as 1.000), and one action per recommended family.
func TestHeadlineCards(t *testing.T) {
	page := render(t, fixture(true))
	m := regexp.MustCompile(`(?s)<div class="cards headline">(.*?)\n</div>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no headline cards")
	}
	vals := regexp.MustCompile(`<span class="v">(.*?)</span>`).FindAllStringSubmatch(m[1], -1)
	var got []string
	for _, v := range vals {
		got = append(got, v[1])
	}
	// runs; window ends (share); median of the peaks 0.3, 0.42, 0.98, 1.2; top rent tool;
	// spend; the decision's held-out cost × 0.8 → 20 % less cost
	want := []string{"3", "1 <small>(33.3%)</small>", "70.0%", "40.0%", "$1.50", "20.0%"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("cards = %q, want %q", got, want)
	}
	if !strings.Contains(m[1], "less cost than what ran with <code>mask(n=5)</code> for gpt-&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;, the policy the verdict names, on its 3 held-out runs (cost × 0.800 [0.700, &lt;1.000]; tokens × 0.600; 1 of the 1 runs lost under what ran saved, 0 lost; 0.5 re-invocations per 100 calls); remove the agent&#39;s manage_context tool") {
		t.Errorf("best-policy card: %s", m[1])
	}
	// the expected saving's CI: a lower end of 0.03 % prints <0.1 %, not 0.0 %
	if !strings.Contains(page, "20.0% [&lt;0.1%, 30.0%] (cost)") {
		t.Error("recommendations: the saving's CI is not printed with its bounds kept off zero")
	}
	actions := regexp.MustCompile(`(?s)<table id="actions".*?</table>`).FindString(page)
	if strings.Count(actions, "<tr data-family=") != 2 || !strings.Contains(actions, "apply <code>mask(n=5)</code> (masking)") || !strings.Contains(actions, "keep the full context (<code>keep-all</code>)") {
		t.Errorf("actions table: %s", actions)
	}
}

// TestHeadlineFromCLI: the page shows the CLI's sentences first, and with
// a decision that names no policy its best-policy card says so with the
// CLI's reason instead of choosing one of its own (the lowest ratio,
// halflife, is not named).
func TestHeadlineFromCLI(t *testing.T) {
	d := fixture(true)
	d.Headline = []string{"None of the 3 runs ended on window length.", "No policy is named: <b>no</b> model family has the runs."}
	d.Decision = dashboards.Decision{Reason: "no model family has the ≥ 10 training and ≥ 5 held-out runs a choice needs (evidence)"}
	d.Recommendations = append(d.Recommendations,
		dashboards.Recommendation{Family: "thin", Runs: 3, Why: "insufficient evidence: 3 runs"},
		dashboards.Recommendation{Family: "kept", Runs: 30, Policy: "as-logged", Short: "as-logged", Mechanism: "logged", Why: "what ran"})
	page := render(t, d)
	for _, want := range []string{"collect more runs (no recommendation yet)", "keep your current settings (what ran)"} {
		if !strings.Contains(page, want) {
			t.Errorf("actions lack %q", want)
		}
	}
	if !strings.Contains(page, `<p class="verdict">None of the 3 runs ended on window length.</p>`) ||
		!strings.Contains(page, `<p class="verdict">No policy is named: &lt;b&gt;no&lt;/b&gt; model family has the runs.</p>`) {
		t.Error("headline sentences missing or not escaped")
	}
	m := regexp.MustCompile(`(?s)<div class="card" id="decision"><span class="v">-</span><span class="k">(.*?)</span></div>`).FindStringSubmatch(page)
	if m == nil || m[1] != "no policy is named: no model family has the ≥ 10 training and ≥ 5 held-out runs a choice needs (evidence)" || strings.Contains(m[1], "halflife") {
		t.Errorf("best-policy card does not state the CLI's none and reason: %v", m)
	}
}

// TestPolicyRatioLegend: the policy-ratio chart plots each policy's total
// ratio (Σ policy / Σ as-logged effective tokens, PolicyAgg.Ratio) with
// its CI; its legend names what is plotted (it said "median", issue 32.5).
func TestPolicyRatioLegend(t *testing.T) {
	for _, c := range dashboards.Charts(fixture(true)) {
		if c.ID != "policy-ratio" {
			continue
		}
		var names []string
		for _, s := range c.Option.Series {
			names = append(names, s.Name)
		}
		// the fixture's all-runs ratios: 1, 0.8 and 0.6 (keep-all, mask, halflife)
		if got := fmt.Sprint(names, c.Option.Series[1].Data); got != "[95 % CI total ratio (Σ policy / Σ as-logged)] [[1 keep-all] [0.8 mask(n=5)] [0.6 halflife]]" {
			t.Errorf("policy-ratio series and points = %s", got)
		}
		return
	}
	t.Error("no policy-ratio chart")
}

// TestDefaultRun: the sampled run shown first is the main-agent run (no
// parent) with the most calls, ties to the first in the sample; when every
// sampled run has a parent, the longest of them; -1 with no sample.
func TestDefaultRun(t *testing.T) {
	run := func(parent string, calls int) dashboards.RunDetail {
		return dashboards.RunDetail{Parent: parent, Calls: make([]dashboards.Call, calls)}
	}
	for _, tc := range []struct {
		name   string
		sample []dashboards.RunDetail
		want   int
	}{
		{"none", nil, -1},
		{"one", []dashboards.RunDetail{run("", 3)}, 0},
		{"side-call first", []dashboards.RunDetail{run("s", 1), run("", 4), run("", 9)}, 2},
		{"longer side-call", []dashboards.RunDetail{run("", 4), run("s", 40)}, 0},
		{"tie to the first", []dashboards.RunDetail{run("s", 9), run("", 5), run("", 5)}, 1},
		{"all side-calls", []dashboards.RunDetail{run("s", 2), run("t", 7), run("s", 7)}, 1},
	} {
		if got := dashboards.DefaultRun(&dashboards.Data{Sample: tc.sample}); got != tc.want {
			t.Errorf("%s: DefaultRun = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestEmptyCharts: a chart whose data holds nothing to draw is not drawn
// (no container, no option in the page) and the page says why instead.
func TestEmptyCharts(t *testing.T) {
	for _, tc := range []struct {
		name, id, says string
		edit           func(d *dashboards.Data)
	}{
		{"no held-out saving", "recommend-saving", "Expected saving: no family has one yet", func(d *dashboards.Data) {
			for i := range d.Recommendations {
				d.Recommendations[i].Saving = nil
			}
		}},
		{"no rate", "behaviour", "no family used manage_context or compacted", func(d *dashboards.Data) {
			for i := range d.Behaviour {
				d.Behaviour[i].Metrics = []dashboards.Metric{{Name: "shallow ops", Value: 0.5, Unit: "%"}, {Name: "compactions per 100 calls", Value: 0}}
			}
		}},
		{"no variant with events", "process-variants", "Variants: no run has an activity", func(d *dashboards.Data) {
			d.Variants = []dashboards.Variant{{Runs: 3, Share: 1}}
		}},
		{"no re-invocation", "policy-reinv", "Predicted re-invocations: none", func(d *dashboards.Data) {
			for i := range d.Comparison {
				d.Comparison[i].ReinvPer100 = 0
			}
		}},
		{"nothing priced", "policy-cost", "no run is priced", func(d *dashboards.Data) {
			for i := range d.Comparison {
				d.Comparison[i].Priced = 0
			}
		}},
		{"no tool rent", "rent-tools", "no tool output was carried", func(d *dashboards.Data) { d.Rent = nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := fixture(true)
			tc.edit(d)
			found := false
			for _, c := range dashboards.Charts(d) {
				if c.ID == tc.id {
					found = true
					if !strings.Contains(c.Empty, tc.says) {
						t.Errorf("chart %s: Empty = %q, want it to say %q", c.ID, c.Empty, tc.says)
					}
				}
			}
			if !found {
				t.Fatalf("no chart %s", tc.id)
			}
			page := render(t, d)
			if strings.Contains(page, `data-chart="`+tc.id+`"`) || strings.Contains(page, `"id":"`+tc.id+`"`) {
				t.Errorf("the page draws the empty chart %s", tc.id)
			}
			if !strings.Contains(page, `<p class="nochart" id="chart-`+tc.id+`">`) || !strings.Contains(page, htmlText(tc.says)) {
				t.Errorf("the page does not say why chart %s is empty", tc.id)
			}
		})
	}
}

// htmlText is s as html/template writes it in text.
func htmlText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}
