package cmd

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/dashboards/browsertest"
	"github.com/trajmine/trajmine/simulate"
)

// TestServeFlags: the flags' defaults and values reach the options; an
// address other machines can reach is refused (exit 2, saying why and how
// to mean it) unless --http-public; a bad --poll, a missing PATH and
// --lake are usage errors.
func TestServeFlags(t *testing.T) {
	var got *ServeOptions
	c := NewServeCmd(testDeps(t, nil), func(o *ServeOptions) error { got = o; return nil })
	c.SetArgs([]string{"--poll", "250ms", "--all", "--no-redact", "--sample-top", "2", "--sample", "3", "--window", "64000", "."})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	want := &ServeOptions{Inputs: []string{"."}, HTTP: "localhost:8080", Poll: 250 * time.Millisecond, All: true, NoRedact: true, SampleTop: 2, SampleN: 3, Window: simulate.Tokens(64000), Format: "auto"}
	if diff := cmp.Diff(want, got, cmpIgnoreWriters); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
	c = NewServeCmd(testDeps(t, nil), func(o *ServeOptions) error { got = o; return nil })
	c.SetArgs([]string{"--http", "0.0.0.0:9000", "--http-public"})
	if err := c.Execute(); err != nil || got.HTTP != "0.0.0.0:9000" || !got.Public || got.Poll != 5*time.Second {
		t.Errorf("--http-public: %v, %+v", err, got)
	}
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"serve", "--http", "0.0.0.0:8080"}, "trajmine: --http 0.0.0.0:8080 listens on every interface: the page shows your logs to whoever can reach it; use localhost:8080, or add --http-public to mean it"},
		{[]string{"serve", "--http", "192.168.1.5:8080"}, "listens on host 192.168.1.5"},
		{[]string{"serve", "--poll", "-1s"}, "--poll must be ≥ 0"},
		{[]string{"serve", filepath.Join(t.TempDir(), "missing")}, "no such file or directory"},
		{[]string{"--lake", t.TempDir(), "serve"}, "--lake: trajmine serve imports and reads a database file"},
	} {
		d := testDeps(t, nil)
		_, stderr, code := run(t, d, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.err) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.err)
		}
	}
}

// lineWriter hands each line written to it to a channel (trajmine serve's
// stdout, read while it runs).
type lineWriter struct {
	mu    sync.Mutex
	buf   []byte
	lines chan string
	all   strings.Builder
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.all.Write(p)
	w.buf = append(w.buf, p...)
	for {
		i := strings.IndexByte(string(w.buf), '\n')
		if i < 0 {
			return len(p), nil
		}
		select {
		case w.lines <- string(w.buf[:i]):
		default:
		}
		w.buf = w.buf[i+1:]
	}
}

func (w *lineWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.all.String()
}

// servedLog writes an openai-messages JSONL run with one bash call whose
// output is output.
func servedLog(t *testing.T, path, id, output string) {
	t.Helper()
	b, err := json.Marshal(map[string]any{"run_id": id, "model": "gpt-4o", "messages": []any{
		map[string]any{"role": "user", "content": "run the tests of " + id},
		map[string]any{"role": "assistant", "content": "", "tool_calls": []any{map[string]any{"id": "c1", "type": "function", "function": map[string]any{"name": "bash", "arguments": `{"cmd":"make test"}`}}}},
		map[string]any{"role": "tool", "tool_call_id": "c1", "content": output},
		map[string]any{"role": "assistant", "content": "done"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestServeBrowser runs trajmine serve on a directory of logs (the Claude
// Code fixtures, a run whose tool output holds a planted string and
// hostile markup, and a run whose id holds a secret, an AWS key id) with a
// 200 ms poll, and drives the page in headless Chromium: a search for the
// planted string lists its run; opening the hit shows the run's
// conversation scrolled to the output, opened, with the string in it and
// the markup as text; the secret-named run is found and opened the same
// way, its id redacted, and the secret is in no answer the browser got
// (each URL it requested fetched again) nor in the page's DOM; a SQL
// filter narrows the run list;
// a log file written after the start appears in the run list (the page
// reloads itself) within 30 s. The conversation view and the live tools
// are screenshotted at 1440 px (kept with -screenshots DIR).
func TestServeBrowser(t *testing.T) {
	browsertest.Chromium(t)
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs")
	for _, f := range []string{"split_responses.jsonl", "overflow_subagent.jsonl"} {
		b, err := os.ReadFile(filepath.Join(fixtureDir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(logs, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(logs, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const planted = "PLANTED-needle-7f3a"
	const hostile = `</script><img src=x onerror=alert(1)>`
	servedLog(t, filepath.Join(logs, "planted.jsonl"), "planted-run", "collected 3 items\n"+strings.Repeat("ok\n", 40)+"FAILED "+planted+" "+hostile+"\n")
	const key = "AKIAX66S2O4A2QPOASTV" // an AWS access key id gitleaks knows, in a run id
	const leaky = "LEAKY-needle-91c2"
	servedLog(t, filepath.Join(logs, "release.jsonl"), "release-"+key, "deploying\n"+leaky+" done\n")

	d := testDeps(t, nil)
	d.DB = filepath.Join(dir, "serve.duckdb")
	out := &lineWriter{lines: make(chan string, 64)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- execute(ctx, NewRootCmd(d), []string{"serve", "--http", "127.0.0.1:0", "--poll", "200ms", logs}, out, io.Discard)
	}()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("trajmine serve exited %d:\n%s", code, out.String())
			}
		case <-time.After(20 * time.Second):
			t.Error("trajmine serve did not stop within 20 s of its context's end")
		}
	}
	defer stop()
	var url string
	wait := time.After(90 * time.Second)
	for url == "" {
		select {
		case l := <-out.lines:
			if m := regexp.MustCompile(`serving (http://127\.0\.0\.1:\d+/) \(this machine only\); watching `).FindStringSubmatch(l); m != nil {
				url = m[1]
			}
		case code := <-done:
			t.Fatalf("trajmine serve exited %d before serving:\n%s", code, out.String())
		case <-wait:
			t.Fatalf("trajmine serve printed no address within 90 s:\n%s", out.String())
		}
	}
	s := browsertest.Open(t, url, 120*time.Second)
	shots := browsertest.ShotDir(t, "serve")
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}

	// search the planted string: its run is listed
	s.Eval(`(function () { var q = document.querySelector('#search-tools input'); q.value = '` + planted + `';
		Array.from(document.querySelectorAll('#search-tools button')).filter(function (b) { return b.textContent === 'search'; })[0].click(); return ''; })()`)
	row := s.Wait(`(function () { var r = document.querySelector('#search-results tbody tr'); return r ? r.textContent : ''; })()`, "planted-run", 20*time.Second)
	if !strings.Contains(row, planted) {
		t.Errorf("search result row %q lacks the match", row)
	}
	s.Wait(`document.getElementById('search-note').textContent`, "1 matching event in 1 run", 5*time.Second)
	s.Shot("#live-tools", filepath.Join(shots, "live-tools.png"))

	// open the hit: the run's conversation, the output opened and in view
	s.Eval(`document.querySelector('#search-results tbody tr').click(), ''`)
	got := s.Wait(`(function () { var f = document.querySelector('#conv-list .conv-item.focus'); if (!f || !f.open) { return 'not yet'; }
		var t = f.querySelector('.conv-text'), b = f.getBoundingClientRect();
		return document.getElementById('conv-list').getAttribute('data-run') + ' | ' + (t ? t.textContent : '') + ' | ' + (b.bottom > 0 && b.top < innerHeight ? 'in view' : 'out of view'); })()`,
		planted, 20*time.Second) // the body of a <details> is filled on its toggle event, a task after it opens
	if !strings.HasPrefix(got, "planted-run | ") || !strings.Contains(got, planted+" "+hostile) || !strings.HasSuffix(got, "in view") {
		t.Errorf("opened hit: %q", got)
	}
	if m := s.Eval(`document.querySelector('#conv-list .conv-item.focus mark').textContent`); m != planted {
		t.Errorf("the match marked in the output: %q", m)
	}
	if n := s.Eval(`String(document.images.length)`); n != "0" {
		t.Errorf("%s <img> elements: the hostile output became markup", n)
	}
	s.Eval(`(function () { document.querySelector('header').style.position = 'static'; return ''; })()`)
	s.Shot("#conversation", filepath.Join(shots, "conversation.png"))

	// the run whose id holds a key: found, listed and opened by its
	// redacted id; the browser never holds the key
	s.Eval(`(function () { var q = document.querySelector('#search-tools input'); q.value = '` + leaky + `';
		Array.from(document.querySelectorAll('#search-tools button')).filter(function (b) { return b.textContent === 'search'; })[0].click(); return ''; })()`)
	row = s.Wait(`(function () { var r = document.querySelector('#search-results tbody tr'); return r ? r.textContent : ''; })()`, leaky, 20*time.Second)
	if !strings.HasPrefix(row, "release-[REDACTED:") {
		t.Errorf("the secret-named run's search row: %q", row)
	}
	s.Eval(`document.querySelector('#search-results tbody tr').click(), ''`)
	got = s.Wait(`(function () { var f = document.querySelector('#conv-list .conv-item.focus'); if (!f || !f.open) { return 'not yet'; }
		var t = f.querySelector('.conv-text'); return document.getElementById('conv-list').getAttribute('data-run') + ' | ' + (t ? t.textContent : ''); })()`,
		leaky, 20*time.Second)
	if !strings.HasPrefix(got, "release-[REDACTED:") {
		t.Errorf("opened secret-named run: %q", got)
	}
	if title := s.Eval(`document.getElementById('conversation-title').textContent`); !strings.HasPrefix(title, "Conversation: release-[REDACTED:") {
		t.Errorf("the secret-named run is not the one open: %q", title)
	}
	if s.Eval(`String(document.documentElement.outerHTML.indexOf('`+key+`'))`) != "-1" {
		t.Errorf("the key is in the page's DOM")
	}

	// a SQL filter: one run left in the run list
	s.Eval(`(function () { var q = document.querySelector('#filter-tools textarea'); q.value = "SELECT run_id FROM runs WHERE run_id LIKE 'planted%'";
		Array.from(document.querySelectorAll('#filter-tools button')).filter(function (b) { return b.textContent === 'apply'; })[0].click(); return ''; })()`)
	s.Wait(`document.getElementById('runs-pager').textContent`, "runs 1–1 of 1 (filtered from 5; 1 runs match the SQL filter)", 10*time.Second)
	s.Eval(`Array.from(document.querySelectorAll('#filter-tools button')).filter(function (b) { return b.textContent === 'clear'; })[0].click(), ''`)

	// a log written after the start: in the run list after the page reloads
	servedLog(t, filepath.Join(logs, "later", "late.jsonl"), "late-run", "a late output")
	s.Wait(`(function () { var t = document.getElementById('runs-table'), l = document.getElementById('live'); return (t ? t.textContent : '') + ' | ' + (l ? l.textContent : ''); })()`, "late-run", 30*time.Second)
	if live := s.Eval(`document.getElementById('live').textContent`); !strings.Contains(live, "Generation 2") || !strings.Contains(live, "1 new or changed file imported") {
		t.Errorf("live line after the new log: %q", live)
	}
	for _, e := range s.Errors() {
		t.Errorf("browser error: %s", e)
	}
	for _, dl := range s.Dialogs() {
		t.Errorf("a dialog opened (injected script ran?): %s", dl)
	}
	for _, u := range s.Requests() {
		if !strings.HasPrefix(u, url) {
			t.Errorf("a request outside the server: %s", u)
			continue
		}
		// every answer the browser got, again (GET only: the same answer)
		resp, err := http.Get(u)
		if err != nil {
			t.Errorf("GET %s: %v", u, err)
			continue
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d, %v", u, resp.StatusCode, err)
		}
		if strings.Contains(string(b), key) {
			t.Errorf("GET %s: the answer holds the key of a run id", u)
		}
	}
	stop()
	if o := out.String(); !strings.Contains(o, "generation 2: 6 runs on the page (1 new or changed file imported)") {
		t.Errorf("serve's output:\n%s", o)
	}
	t.Logf("screenshots in %s", shots)
}

// TestServeAddrWithoutHost: --http :0 listens on localhost, as pprof's
// -http reads an address without a host: the address printed is
// localhost's, "this machine only", and it answers there.
func TestServeAddrWithoutHost(t *testing.T) {
	dir := t.TempDir()
	servedLog(t, filepath.Join(dir, "logs", "a.jsonl"), "a-run", "ok")
	d := testDeps(t, nil)
	d.DB = filepath.Join(dir, "serve.duckdb")
	out := &lineWriter{lines: make(chan string, 64)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- execute(ctx, NewRootCmd(d), []string{"serve", "--http", ":0", "--poll", "0", filepath.Join(dir, "logs")}, out, io.Discard)
	}()
	defer func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("trajmine serve exited %d:\n%s", code, out.String())
		}
	}()
	var url string
	wait := time.After(90 * time.Second)
	for url == "" {
		select {
		case l := <-out.lines:
			if m := regexp.MustCompile(`serving (http://localhost:\d+/) \(this machine only\); not watching`).FindStringSubmatch(l); m != nil {
				url = m[1]
			}
		case code := <-done:
			done <- code
			t.Fatalf("trajmine serve exited %d before serving:\n%s", code, out.String())
		case <-wait:
			t.Fatalf("no localhost address printed within 90 s:\n%s", out.String())
		}
	}
	resp, err := http.Get(url + "api/generation")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"generation":1`) {
		t.Errorf("GET %sapi/generation: %d %s", url, resp.StatusCode, b)
	}
}
