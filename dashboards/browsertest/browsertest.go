// Package browsertest checks a generated report in headless Chromium
// (chromedp) at 1440 px: it loads the file from a file:// URL with the
// network cut, records console errors, exceptions, dialogs and every
// request, opens every <details>, checks each chart through the ECharts
// instance (a drawn canvas; every series with data drawn, and visible in
// the legend when it has one; a title on every axis), and takes a
// screenshot of the first screen and of each section. It is imported only
// by tests (dashboards, cmd).
package browsertest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Chromium returns the Chromium binary ($CHROMIUM, else /usr/bin/chromium,
// else chromium on $PATH). When there is none the test is skipped, except
// under CI=true (.ci/run installs Debian's chromium), where it fails.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, p := range []string{os.Getenv("CHROMIUM"), "/usr/bin/chromium"} {
		if p == "" {
			continue
		}
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	if strings.EqualFold(os.Getenv("CI"), "true") {
		t.Fatal("chromium not found (/usr/bin/chromium, $CHROMIUM): required under CI=true; .ci/run installs Debian's chromium")
	}
	t.Skip("chromium not found at /usr/bin/chromium (set $CHROMIUM, or apt-get install chromium, to run the browser test)")
	return ""
}

// Chart is one chart container's state after load.
type Chart struct {
	ID     string `json:"id"`
	Canvas int    `json:"canvas"` // canvases with a non-zero size
	SVG    int    `json:"svg"`
	Inked  int    `json:"inked"` // sampled canvas pixels that are not transparent
	// Problems are what the ECharts instance shows wrong: a series with
	// data that draws nothing (e.g. one point with no symbol), a series
	// with no legend entry or on a scrolled-away legend page, a legend over
	// the plot, an axis with no title.
	Problems []string `json:"problems"`
}

// Result is what loading the page showed.
type Result struct {
	Ready    string   // the page script's data-ready attribute (charts initialised)
	Errors   []string // console errors, exceptions, error log entries
	Dialogs  []string // alert/confirm/prompt dialogs opened
	Requests []string // every request URL, the page itself included
	Charts   []Chart
	// Sections maps each <section id> to its screenshot file.
	Sections map[string]string
	// FirstScreen is the screenshot of the viewport on load (1440 × 900,
	// every <details> closed); "" without ShotDir.
	FirstScreen string
	Text        string // document.body.innerText
	Images      int    // <img> elements in the document
	Scripts     int    // <script> elements in the document
	// Steps are the Options.Steps results, in order.
	Steps []string
	// Opened is the time from navigation until the page's script had
	// initialised every chart (data-ready set).
	Opened time.Duration
}

// Options configures Load.
type Options struct {
	// ShotDir receives one PNG per section (section-<id>.png); "" takes none.
	ShotDir string
	// Select, when set, picks these values (in order) in the first
	// <select class="run-select"> and checks the charts again afterwards.
	Select []string
	// Steps are JavaScript expressions evaluated in order once the page is
	// loaded and every <details> open (clicks, typing), each giving a
	// string: Result.Steps holds them. A step's effects may be asynchronous:
	// each is evaluated 200 ms after the one before.
	Steps []string
}

// Width is the browser window's width in pixels.
const Width = 1440

// Load opens file in headless Chromium (network cut: every host resolves
// nowhere) and reports what happened.
func Load(t testing.TB, file string, o *Options) *Result {
	t.Helper()
	if o == nil {
		o = &Options{}
	}
	bin := Chromium(t)
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	url := "file://" + abs
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.NoSandbox,
		chromedp.Headless,
		chromedp.DisableGPU,
		chromedp.WindowSize(Width, 900),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("no-first-run", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	// start the browser on the context without a deadline (a timeout on the
	// first Run would end the browser), then bound everything else
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	tctx, cancelT := context.WithTimeout(ctx, 60*time.Second)
	defer cancelT()

	res := &Result{Sections: map[string]string{}}
	var mu sync.Mutex
	dialogs := make(chan struct{}, 16)
	err = chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeAssert {
				var parts []string
				for _, a := range e.Args {
					parts = append(parts, string(a.Value)+a.Description)
				}
				res.Errors = append(res.Errors, "console."+string(e.Type)+": "+strings.Join(parts, " "))
			}
		case *runtime.EventExceptionThrown:
			msg := e.ExceptionDetails.Text
			if e.ExceptionDetails.Exception != nil {
				msg += " " + e.ExceptionDetails.Exception.Description
			}
			res.Errors = append(res.Errors, "exception: "+msg)
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.EntryLevelError {
				res.Errors = append(res.Errors, "log: "+e.Entry.Text+" "+e.Entry.URL)
			}
		case *network.EventRequestWillBeSent:
			res.Requests = append(res.Requests, e.Request.URL)
		case *page.EventJavascriptDialogOpening:
			res.Dialogs = append(res.Dialogs, string(e.Type)+": "+e.Message)
			select {
			case dialogs <- struct{}{}:
			default:
			}
		}
	})
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	// dismiss dialogs from another goroutine (a listener must not run commands)
	go func() {
		for {
			select {
			case <-tctx.Done():
				return
			case <-dialogs:
				_, _ = chromedp.Call(tctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
			}
		}
	}()
	t0 := time.Now()
	if err := chromedp.Do(tctx, chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("body")), waitAttr("html", "data-ready")); err != nil {
		mu.Lock()
		errs := strings.Join(res.Errors, "\n")
		mu.Unlock()
		t.Fatalf("load %s: %v\nbrowser errors:\n%s", url, err, errs)
	}
	res.Opened = time.Since(t0)
	// let ECharts paint (it draws on the next animation frames)
	if err := chromedp.Do(tctx, chromedp.Sleep(500*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	eval := func(js string, dst any) {
		t.Helper()
		v, err := chromedp.Run(tctx, chromedp.Evaluate[jsonv2.Value](js))
		if err != nil {
			t.Fatalf("evaluate %.60q: %v", js, err)
		}
		if dst != nil {
			if err := jsonv2.Unmarshal(v, dst); err != nil {
				t.Fatalf("decode %.60q: %v", js, err)
			}
		}
	}
	if o.ShotDir != "" {
		if err := os.MkdirAll(o.ShotDir, 0o755); err != nil {
			t.Fatal(err)
		}
		png, err := chromedp.Run(tctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatalf("screenshot: %v", err)
		}
		res.FirstScreen = filepath.Join(o.ShotDir, "first-screen.png")
		if err := os.WriteFile(res.FirstScreen, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// open every <details>: the charts in them are drawn when opened
	eval(`document.querySelectorAll('details').forEach(function (d) { d.open = true; }); true`, nil)
	if err := chromedp.Do(tctx, chromedp.Sleep(700*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	eval(`document.documentElement.getAttribute('data-ready')`, &res.Ready)
	eval(chartsJS, &res.Charts)
	eval(`document.body.innerText`, &res.Text)
	eval(`document.getElementsByTagName('img').length`, &res.Images)
	eval(`document.getElementsByTagName('script').length`, &res.Scripts)
	for _, v := range o.Select {
		var got string
		eval(fmt.Sprintf(`(function(){var s=document.querySelector('select.run-select'); s.value=%q; s.dispatchEvent(new Event('change')); return s.value})()`, v), &got)
		if got != v {
			t.Errorf("select %s: the selector holds %q", v, got)
		}
		if err := chromedp.Do(tctx, chromedp.Sleep(300*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		var again []Chart
		eval(chartsJS, &again)
		for _, c := range again {
			if c.Canvas+c.SVG == 0 || (c.SVG == 0 && c.Inked == 0) {
				mu.Lock()
				res.Errors = append(res.Errors, fmt.Sprintf("after selecting run %s: chart %s is empty", v, c.ID))
				mu.Unlock()
			}
			for _, p := range c.Problems {
				mu.Lock()
				res.Errors = append(res.Errors, fmt.Sprintf("after selecting run %s: chart %s: %s", v, c.ID, p))
				mu.Unlock()
			}
		}
	}
	for _, js := range o.Steps {
		var got string
		eval(js, &got)
		res.Steps = append(res.Steps, got)
		if err := chromedp.Do(tctx, chromedp.Sleep(200*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
	}
	if o.ShotDir != "" {
		var ids []string
		eval(`Array.from(document.querySelectorAll('section[id]')).map(s => s.id)`, &ids)
		// the sticky header would cover the top of each shot
		eval(`document.querySelector('header').style.position = 'static'`, nil)
		for _, id := range ids {
			png, err := chromedp.Run(tctx, chromedp.Screenshot(chromedp.CSS("#"+id)))
			if err != nil {
				t.Fatalf("screenshot %s: %v", id, err)
			}
			p := filepath.Join(o.ShotDir, "section-"+id+".png")
			if err := os.WriteFile(p, png, 0o644); err != nil {
				t.Fatal(err)
			}
			res.Sections[id] = p
		}
	}
	mu.Lock()
	defer mu.Unlock()
	out := *res
	out.Errors = append([]string(nil), res.Errors...)
	out.Requests = append([]string(nil), res.Requests...)
	out.Dialogs = append([]string(nil), res.Dialogs...)
	return &out
}

// waitAttr waits until the element matching sel has attribute name.
func waitAttr(sel, name string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for {
			ok, err := chromedp.Evaluate[bool](fmt.Sprintf(`document.querySelector(%q).hasAttribute(%q)`, sel, name))(ctx, t)
			if err != nil {
				return err
			}
			if ok {
				return nil
			}
			select {
			case <-ctx.Done():
				return errors.Join(ctx.Err(), fmt.Errorf("the page never set %s on %s (its script did not finish)", name, sel))
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
}

// chartsJS inspects every chart container: its canvases (with a sample of
// non-transparent pixels) and SVGs, and through its ECharts instance:
//
//  1. every series with data that the legend leaves selected draws
//     something: an element with an extent, where a polyline of fewer than
//     two points counts as nothing (a one-call run with no symbol);
//  2. when the chart has a legend, every series with data has an entry,
//     the legend does not page (a scrolling legend hides entries), and it
//     does not overlap the plot area (the grid);
//  3. every shown x and y axis has a title.
const chartsJS = `Array.from(document.querySelectorAll('[data-chart]')).map(function (el) {
  var inked = 0, canvas = 0, problems = [];
  el.querySelectorAll('canvas').forEach(function (c) {
    if (c.width === 0 || c.height === 0) { return; }
    canvas++;
    var d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    for (var i = 3; i < d.length; i += 4 * 7) { if (d[i] !== 0) { inked++; } }
  });
  var ch = window.echarts && echarts.getInstanceByDom(el);
  if (!ch) {
    problems.push('no ECharts instance');
  } else {
    var model = ch.getModel(), opt = ch.getOption();
    var legend = model.getComponent('legend', 0);
    if (legend && legend.get('show') === false) { legend = null; }
    var names = legend ? legend.getData().map(function (it) { return it.get('name'); }) : [];
    if (legend && legend.get('type') === 'scroll') { problems.push('the legend scrolls: entries on other pages are hidden'); }
    model.eachSeries(function (s) {
      var n = s.getData().count();
      if (n === 0) { return; }
      var name = s.name || '';
      if (legend && name && names.indexOf(name) < 0) { problems.push('series ' + name + ' has data but no legend entry'); }
      if (model.isSeriesFiltered(s)) { return; }
      var view = ch.getViewOfSeriesModel(s), drawn = 0;
      if (view && view.group) {
        view.group.traverse(function (e) {
          if (e.isGroup || e.invisible || e.ignore) { return; }
          if (e.shape && e.shape.points && e.shape.points.length <= 2 && e.type !== 'ec-symbol') { return; }
          var r = e.getBoundingRect();
          if (r.width > 0 || r.height > 0) { drawn++; }
        });
      }
      if (drawn === 0) { problems.push('series ' + (name || s.subType) + ' has ' + n + ' data items but draws nothing'); }
    });
    var grid = model.getComponent('grid', 0);
    if (legend && grid && grid.coordinateSystem) {
      var lv = ch.getViewOfComponentModel(legend);
      if (lv && lv.group) {
        lv.group.updateTransform();
        var lr = lv.group.getBoundingRect().clone();
        if (lv.group.transform) { lr.applyTransform(lv.group.transform); }
        var gr = grid.coordinateSystem.getRect();
        if (lr.width > 0 && lr.y + lr.height > gr.y + 1 && lr.y < gr.y + gr.height && lr.x < gr.x + gr.width && lr.x + lr.width > gr.x) {
          problems.push('the legend overlaps the plot (legend bottom ' + Math.round(lr.y + lr.height) + ' px, plot top ' + Math.round(gr.y) + ' px)');
        }
      }
    }
    ['xAxis', 'yAxis'].forEach(function (k) {
      (opt[k] || []).forEach(function (a, i) {
        if (a.show !== false && !a.name) { problems.push(k + '[' + i + '] has no title'); }
      });
    });
  }
  return { id: el.getAttribute('data-chart'), canvas: canvas, svg: el.querySelectorAll('svg').length, inked: inked, problems: problems };
})`

// Check fails t for every console error, dialog, request other than the
// page itself, and chart without a drawn canvas or SVG; want is the
// number of charts expected (0: any, but at least one).
func Check(t testing.TB, file string, r *Result, want int) {
	t.Helper()
	abs, _ := filepath.Abs(file)
	for _, e := range r.Errors {
		t.Errorf("browser error: %s", e)
	}
	for _, d := range r.Dialogs {
		t.Errorf("a dialog opened (injected script ran?): %s", d)
	}
	for _, u := range r.Requests {
		if u != "file://"+abs {
			t.Errorf("network request: %s", u)
		}
	}
	if len(r.Charts) == 0 || (want > 0 && len(r.Charts) != want) {
		t.Errorf("%d chart containers, want %d", len(r.Charts), want)
	}
	if r.Ready != fmt.Sprint(len(r.Charts)) {
		t.Errorf("the page initialised %s charts, the document has %d containers", r.Ready, len(r.Charts))
	}
	for _, c := range r.Charts {
		if c.Canvas+c.SVG == 0 || (c.SVG == 0 && c.Inked == 0) {
			t.Errorf("chart %s was not drawn: %+v", c.ID, c)
		}
		for _, p := range c.Problems {
			t.Errorf("chart %s: %s", c.ID, p)
		}
	}
}
