// Package browsertest checks a generated report in headless Chromium
// (chromedp) at 1440 px: it loads the file from a file:// URL with the
// network cut, records console errors, exceptions, dialogs and every
// request, opens every <details>, checks each chart through the ECharts
// instance against its data (charts.js: the marks each series' data calls
// for are drawn and the chart is not blank; the legend names the series,
// each once; no line hides under another; no title, legend or axis is
// clipped; every axis has a title), and takes a
// screenshot of the first screen and of each section (kept under the test
// binary's -screenshots DIR or $TRAJMINE_SCREENSHOTS: ShotDir). Session
// (session.go) opens a page, a file or trajmine serve's address, for a
// test that drives it step by step (Eval, Wait, Shot). It is imported only
// by tests (dashboards, cmd).
package browsertest

import (
	"context"
	_ "embed"
	"errors"
	"flag"
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
	Marks  int    `json:"marks"` // data marks drawn (bars, points, lines, boxes, nodes)
	// Problems are what the ECharts instance shows wrong (charts.js): marks
	// missing for the data (a blank chart, a bar not drawn, one point with
	// no symbol), a legend that does not match the series (an entry
	// missing, stale, or two names for one thing), a line hidden under
	// another, a clipped title, legend or axis, an axis with no title.
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

// screenshots is where the browser tests keep their screenshots: the
// -screenshots flag of the test binary, else $TRAJMINE_SCREENSHOTS.
var screenshots = flag.String("screenshots", "", "keep the browser tests' screenshots (one PNG per page section at 1440 px) under `DIR` (default $TRAJMINE_SCREENSHOTS; none kept when both are empty)")

// ShotDir is the directory a browser test named name writes its
// screenshots to: name under the -screenshots directory (or
// $TRAJMINE_SCREENSHOTS), else a temporary directory removed after the
// test, so that the screenshots are taken (and checked) either way but kept
// only when asked for.
func ShotDir(t testing.TB, name string) string {
	t.Helper()
	dir := *screenshots
	if dir == "" {
		dir = os.Getenv("TRAJMINE_SCREENSHOTS")
	}
	if dir == "" {
		return t.TempDir()
	}
	return filepath.Join(dir, name)
}

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
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), allocatorOptions(bin, t.TempDir())...)
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
	if err := watch(ctx, tctx, &mu, &res.Errors, &res.Requests, &res.Dialogs); err != nil {
		t.Fatalf("listen: %v", err)
	}
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

// chartsJS inspects every chart container: see charts.js.
//
//go:embed charts.js
var chartsJS string

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

// watch records the page's errors (console errors and asserts, uncaught
// exceptions, error log entries), every request it makes and every dialog
// it opens into errs, reqs and dialogs under mu, and dismisses the dialogs
// from another goroutine (a listener must not run commands) until tctx ends.
func watch(ctx, tctx context.Context, mu *sync.Mutex, errs, reqs, dialogs *[]string) error {
	opened := make(chan struct{}, 16)
	err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeAssert {
				var parts []string
				for _, a := range e.Args {
					parts = append(parts, string(a.Value)+a.Description)
				}
				*errs = append(*errs, "console."+string(e.Type)+": "+strings.Join(parts, " "))
			}
		case *runtime.EventExceptionThrown:
			msg := e.ExceptionDetails.Text
			if e.ExceptionDetails.Exception != nil {
				msg += " " + e.ExceptionDetails.Exception.Description
			}
			*errs = append(*errs, "exception: "+msg)
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.EntryLevelError {
				*errs = append(*errs, "log: "+e.Entry.Text+" "+e.Entry.URL)
			}
		case *network.EventRequestWillBeSent:
			*reqs = append(*reqs, e.Request.URL)
		case *page.EventJavascriptDialogOpening:
			*dialogs = append(*dialogs, string(e.Type)+": "+e.Message)
			select {
			case opened <- struct{}{}:
			default:
			}
		}
	})
	if err != nil {
		return err
	}
	go func() {
		for {
			select {
			case <-tctx.Done():
				return
			case <-opened:
				_, _ = chromedp.Call(tctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
			}
		}
	}()
	return nil
}
