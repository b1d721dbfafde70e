package browsertest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// allocatorOptions are the headless Chromium flags of every browser test:
// a window Width wide, no sandbox or GPU, and the network cut: every host
// resolves nowhere but 127.0.0.1, where trajmine serve's tests listen.
func allocatorOptions(bin, dataDir string) []chromedp.ExecAllocatorOption {
	return append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.NoSandbox,
		chromedp.Headless,
		chromedp.DisableGPU,
		chromedp.WindowSize(Width, 900),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("no-first-run", true),
		chromedp.UserDataDir(dataDir),
	)
}

// Session is a page open in headless Chromium that a test drives step by
// step (Eval, Wait, Shot), for pages that change while they are open
// (trajmine serve's, which reloads on new logs). It records console
// errors, exceptions, dialogs and requests as Load does.
type Session struct {
	t      testing.TB
	ctx    context.Context
	cancel func()

	mu       sync.Mutex
	errors   []string
	dialogs  []string
	requests []string
}

// Open opens url in headless Chromium (the network cut, as Load's) and
// waits until the page's script set data-ready; the session ends with the
// test. Every call is bounded by timeout in all.
func Open(t testing.TB, url string, timeout time.Duration) *Session {
	t.Helper()
	bin := Chromium(t)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), allocatorOptions(bin, t.TempDir())...)
	ctx, cancelC := chromedp.NewContext(actx)
	if err := chromedp.Do(ctx); err != nil {
		cancelC()
		cancelA()
		t.Fatalf("start chromium: %v", err)
	}
	tctx, cancelT := context.WithTimeout(ctx, timeout)
	s := &Session{t: t, ctx: tctx, cancel: func() { cancelT(); cancelC(); cancelA() }}
	t.Cleanup(s.cancel)
	if err := watch(ctx, tctx, &s.mu, &s.errors, &s.requests, &s.dialogs); err != nil {
		t.Fatalf("listen: %v", err)
	}
	if err := chromedp.Do(tctx, chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("body")), waitAttr("html", "data-ready")); err != nil {
		t.Fatalf("load %s: %v\nbrowser errors:\n%s", url, err, strings.Join(s.Errors(), "\n"))
	}
	return s
}

// Eval evaluates js in the page and returns its value as a string (a
// string as it is, anything else in its JSON form).
func (s *Session) Eval(js string) string {
	s.t.Helper()
	v, err := chromedp.Run(s.ctx, chromedp.Evaluate[any](js))
	if err != nil {
		s.t.Fatalf("evaluate %.80q: %v", js, err)
	}
	if str, ok := v.(string); ok {
		return str
	}
	return fmt.Sprint(v)
}

// Wait evaluates js every 100 ms until its value contains want, and
// returns the value; the test fails when within is over first (with the
// last value). A page reload between two evaluations is waited out.
func (s *Session) Wait(js, want string, within time.Duration) string {
	s.t.Helper()
	end := time.Now().Add(within)
	last := ""
	for {
		v, err := chromedp.Run(s.ctx, chromedp.Evaluate[any](js))
		if err == nil {
			last = fmt.Sprint(v)
			if str, ok := v.(string); ok {
				last = str
			}
			if strings.Contains(last, want) {
				return last
			}
		} else {
			last = "error: " + err.Error()
		}
		if time.Now().After(end) || s.ctx.Err() != nil {
			s.t.Fatalf("waited %v for %.80q to give %q; last %.300q\nbrowser errors:\n%s", within, js, want, last, strings.Join(s.Errors(), "\n"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Shot writes a screenshot of the first element matching sel to file.
func (s *Session) Shot(sel, file string) {
	s.t.Helper()
	png, err := chromedp.Run(s.ctx, chromedp.Screenshot(chromedp.CSS(sel)))
	if err != nil {
		s.t.Fatalf("screenshot %s: %v", sel, err)
	}
	if err := os.WriteFile(file, png, 0o644); err != nil {
		s.t.Fatal(err)
	}
}

// Errors are the console errors, exceptions and error log entries so far.
func (s *Session) Errors() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.errors...)
}

// Dialogs are the dialogs opened so far (an injected script ran).
func (s *Session) Dialogs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.dialogs...)
}

// Requests are the URLs requested so far, the page's own included.
func (s *Session) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}
