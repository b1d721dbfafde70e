package textfmt

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromium is the Chromium binary ($CHROMIUM, else chromium on $PATH);
// CI installs it (.ci/run), so a missing one fails the test.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	p, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("chromium not found ($CHROMIUM, or chromium on $PATH): the page's formatters are checked in it; apt-get install chromium")
	}
	return p
}

// TestJSMatchesGo: the page's formatters (JS, run in headless Chromium)
// print what the Go formatters print, on TestFormats' table.
func TestJSMatchesGo(t *testing.T) {
	if strings.Contains(strings.ToLower(JS), "</script") {
		t.Fatal("JS holds </script: a page cannot embed it in a <script> element")
	}
	cases := formatCases()
	type call struct {
		Fn   string `json:"fn"`
		Args []any  `json:"args"`
	}
	calls := make([]call, len(cases))
	for i, c := range cases {
		calls[i] = call{c.fn, c.args}
	}
	b, err := json.Marshal(calls)
	if err != nil {
		t.Fatal(err)
	}
	script := `(function () {
` + JS + `
  var special = {"NaN": NaN, "Infinity": Infinity, "-Infinity": -Infinity};
  return ` + string(b) + `.map(function (c) {
    return trajmineFmt[c.fn].apply(null, c.args.map(function (a) { return a in special ? special[a] : a; }));
  });
})()`
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium(t)), chromedp.NoSandbox, chromedp.Headless,
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, time.Minute)
	defer cancelT()
	got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](script))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(cases) {
		t.Fatalf("%d results for %d calls", len(got), len(cases))
	}
	for i, c := range cases {
		if got[i] != c.want || got[i] != c.got {
			t.Errorf("trajmineFmt.%s%v = %q; Go %q, want %q", c.fn, c.args, got[i], c.got, c.want)
		}
	}
}
