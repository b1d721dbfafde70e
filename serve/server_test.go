package serve_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/dashboards"
	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/redact"
	"github.com/trajmine/trajmine/serve"
)

const (
	hostile = `</script><img src=x onerror=alert(1)>`
	planted = "PLANTED-7f3a"
	// secret is a GitHub token (gitleaks' github-pat rule: ghp_ and 36
	// letters and digits)
	secret = "ghp_aB3dE6gH9jaB3dE6gH9jaB3dE6gH9jkLmNoP"
)

// logLine is an openai-messages JSONL run: a user message, one bash call
// and its output, a closing reply.
func logLine(t *testing.T, id, model, user, output string) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"run_id": id, "model": model, "messages": []any{
		map[string]any{"role": "user", "content": user},
		map[string]any{"role": "assistant", "content": "", "tool_calls": []any{map[string]any{"id": id + "-c1", "type": "function", "function": map[string]any{"name": "bash", "arguments": `{"cmd":"make test"}`}}}},
		map[string]any{"role": "tool", "tool_call_id": id + "-c1", "content": output},
		map[string]any{"role": "assistant", "content": "done"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// build is a Build for tests: the files imported through ingest, every
// run of the store on the page (no report), its id kept as logged.
func build(ctx context.Context, st *store.Store, files []string) (*dashboards.Data, error) {
	return buildRedacted(nil)(ctx, st, files)
}

// buildRedacted is build with the run ids redacted by red as
// analysis.Page redacts them (RunID redacted, StoreID the store's).
func buildRedacted(red *redact.Redactor) func(ctx context.Context, st *store.Store, files []string) (*dashboards.Data, error) {
	return func(ctx context.Context, st *store.Store, files []string) (*dashboards.Data, error) {
		if len(files) > 0 {
			if _, err := ingest.Files(ctx, st, files, &ingest.Options{}); err != nil {
				return nil, err
			}
		}
		runs, err := st.Runs(ctx, store.RunFilter{})
		if err != nil {
			return nil, err
		}
		d := &dashboards.Data{Title: "serve test"}
		for _, r := range runs {
			d.Runs = append(d.Runs, dashboards.RunRecord{RunID: red.String(r.RunID), StoreID: r.RunID, Model: r.Model, Family: r.ModelFamily, Format: r.SourceFormat})
		}
		return d, nil
	}
}

// handles is each run's handle by its id as the API shows it (the
// unfiltered /api/runs).
func handles(t *testing.T, ts *httptest.Server) map[string]string {
	t.Helper()
	_, _, body := get(t, ts, "GET", "/api/runs", "")
	var r struct {
		RunIDs []string `json:"run_ids"`
		Runs   []string `json:"runs"`
	}
	if err := json.Unmarshal([]byte(body), &r); err != nil || len(r.RunIDs) != len(r.Runs) {
		t.Fatalf("/api/runs: %v: %s", err, body)
	}
	m := map[string]string{}
	for i, id := range r.RunIDs {
		m[id] = r.Runs[i]
	}
	return m
}

// newServer is a Server over a new database holding the alpha and beta
// runs of a logs directory, refreshed once, with its handler under
// httptest.
func newServer(t *testing.T, o serve.Options) (*serve.Server, *httptest.Server, string) {
	t.Helper()
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs")
	writeFile(t, filepath.Join(logs, "a.jsonl"),
		logLine(t, "alpha", "gpt-4o", "run the tests", "coverage is 100% done\n"+planted+" "+hostile+"\nexport TOKEN="+secret+" # needle")+
			logLine(t, "beta", "claude-sonnet-4", "O'Reilly's ' OR 1=1 --", "coverage is 1000 lines"))
	red, err := redact.New()
	if err != nil {
		t.Fatal(err)
	}
	o.DB = filepath.Join(dir, "serve.duckdb")
	if o.Redact == nil {
		o.Redact = red
	}
	o.Build = buildRedacted(o.Redact)
	if o.Paths == nil {
		o.Paths = func() []string { return []string{logs} }
	}
	s := serve.New(o)
	t.Cleanup(func() { s.Close() })
	if err := s.Refresh(context.Background(), o.Paths()); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return s, ts, logs
}

func get(t *testing.T, ts *httptest.Server, method, path, host string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

// TestHandlers: each endpoint's status and answer, the security rules
// (a Host that is not loopback is refused, only GET and HEAD, no framing,
// no sniffing), escaping (a hostile output is JSON with < and > escaped)
// and redaction (a secret in an output never leaves the server).
func TestHandlers(t *testing.T) {
	_, ts, _ := newServer(t, serve.Options{})
	q := url.QueryEscape
	hs := handles(t, ts)
	alpha := hs["alpha"]
	if alpha == "" || hs["beta"] == "" || alpha == hs["beta"] || strings.Contains(alpha, "alpha") {
		t.Fatalf("handles %v", hs)
	}
	tests := []struct {
		name, method, path, host string
		code                     int
		has                      []string
		lacks                    []string
	}{
		{"page", "GET", "/", "", 200, []string{"<!DOCTYPE html>", "connect-src 'self'", `"live":{"generation":1`}, nil},
		{"page at localhost", "GET", "/", "localhost:8080", 200, []string{"<!DOCTYPE html>"}, nil},
		{"rebinding host", "GET", "/", "evil.example:8080", 421, []string{`"error":"host \"evil.example:8080\": trajmine serve answers requests to localhost only`}, []string{"DOCTYPE"}},
		{"rebinding host on the API", "GET", "/api/conversation?run=" + alpha, "evil.example", 421, nil, []string{"coverage"}},
		{"post", "POST", "/api/generation", "", 405, []string{"POST: only GET reads from trajmine serve"}, nil},
		{"unknown path", "GET", "/etc/passwd", "", 404, nil, nil},
		{"generation", "GET", "/api/generation", "", 200, []string{`"generation":1`, `"runs":2`, `"text":{"events":8,`}, nil},
		{"conversation", "GET", "/api/conversation?run=" + alpha, "", 200, []string{`"run_id":"alpha"`, planted, `\u003c/script\u003e\u003cimg src=x onerror=alert(1)\u003e`, "[REDACTED:github-pat]"},
			[]string{"</script>", secret}},
		{"no run", "GET", "/api/conversation?run=nope", "", 404, []string{`run \"nope\": no such run`}, nil},
		{"a run id is not a handle", "GET", "/api/conversation?run=alpha", "", 404, []string{`no such run`}, []string{planted}},
		{"conversation without run", "GET", "/api/conversation", "", 400, []string{"give a run's handle"}, nil},
		{"event", "GET", "/api/event?run=" + alpha + "&seq=2", "", 200, []string{planted, "[REDACTED:github-pat]"}, []string{secret}},
		{"event by run id", "GET", "/api/event?run=alpha&seq=2", "", 404, []string{"no such run"}, []string{planted}},
		{"no event", "GET", "/api/event?run=" + alpha + "&seq=99", "", 404, []string{"no such event"}, nil},
		{"bad seq", "GET", "/api/event?run=" + alpha + "&seq=x", "", 400, nil, nil},
		{"search", "GET", "/api/search?q=" + q(planted), "", 200, []string{`"run_id":"alpha"`, `"run":"` + alpha + `"`, `"in_page":true`, `"index":0`, `"total_runs":1`, "scanned the text of all 8 events"}, []string{secret}},
		{"search: the second run", "GET", "/api/search?q=" + q("1000 lines"), "", 200, []string{`"run_id":"beta"`, `"run":"` + hs["beta"] + `"`, `"index":1`}, nil},
		{"search: % literal", "GET", "/api/search?q=" + q("100%"), "", 200, []string{`"total_runs":1`, `"run_id":"alpha"`}, []string{"beta"}},
		{"search: a quote is data", "GET", "/api/search?q=" + q("' OR 1=1 --"), "", 200, []string{`"total_runs":1`, `"run_id":"beta"`}, nil},
		{"search: a match on a secret is not repeated", "GET", "/api/search?q=" + q("ghp_aB3"), "", 200, []string{`"total_hits":1`, `"match":""`, "[REDACTED:github-pat]"}, []string{secret, "ghp_aB3"}},
		{"search: regexp", "GET", "/api/search?regex=1&q=" + q(`cover\w+ is 1000`), "", 200, []string{`"run_id":"beta"`, `"match":"coverage is 1000"`}, []string{"alpha"}},
		{"search: bad regexp", "GET", "/api/search?regex=1&q=" + q("("), "", 400, []string{"error"}, nil},
		{"search: nothing", "GET", "/api/search", "", 400, []string{"give the text to look for"}, nil},
		{"search: bad limit", "GET", "/api/search?q=x&limit=0", "", 400, []string{"a number of runs from 1 to 1000"}, nil},
		{"filter", "GET", "/api/runs?family=gpt-4o", "", 200, []string{`"run_ids":["alpha"]`, `"runs":["` + alpha + `"]`, `"args":["gpt-4o",100000]`, "r.model_family = ?"}, nil},
		{"filter: a quote is data", "GET", "/api/runs?family=" + q("x' OR '1'='1"), "", 200, []string{`"run_ids":[]`}, []string{"OR '1'='1' "}},
		{"filter: text", "GET", "/api/runs?text=" + q("1000 LINES"), "", 200, []string{`"run_ids":["beta"]`}, nil},
		{"filter: calls", "GET", "/api/runs?min_calls=2&max_calls=2", "", 200, []string{`"run_ids":["alpha","beta"]`}, nil},
		{"filter: not a number", "GET", "/api/runs?min_calls=two", "", 400, []string{`min_calls \"two\": a whole number of model calls`}, nil},
		{"filter: sql", "GET", "/api/runs?sql=" + q("SELECT run_id FROM runs WHERE model LIKE 'claude%'"), "", 200, []string{`"run_ids":["beta"]`, "and the runs of your query"}, nil},
		{"filter: sql and a field", "GET", "/api/runs?family=gpt-4o&sql=" + q("SELECT run_id FROM runs WHERE model LIKE 'claude%'"), "", 200, []string{`"run_ids":[]`}, nil},
		{"filter: sql that writes", "GET", "/api/runs?sql=" + q("DELETE FROM runs"), "", 400, []string{"DELETE is refused"}, nil},
		{"filter: sql that reads a file", "GET", "/api/runs?sql=" + q("SELECT content AS run_id FROM read_text('/etc/hostname')"), "", 400, []string{"file system operations are disabled"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, h, body := get(t, ts, tc.method, tc.path, tc.host)
			if code != tc.code {
				t.Errorf("status %d, want %d: %.300s", code, tc.code, body)
			}
			for _, s := range tc.has {
				if !strings.Contains(body, s) {
					t.Errorf("answer lacks %q: %.600s", s, body)
				}
			}
			for _, s := range tc.lacks {
				if strings.Contains(body, s) {
					t.Errorf("answer has %q: %.600s", s, body)
				}
			}
			if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("X-Frame-Options") != "DENY" || h.Get("Access-Control-Allow-Origin") != "" {
				t.Errorf("headers %v", h)
			}
		})
	}
	// the database was not changed by any of it: the runs are both there
	if _, _, body := get(t, ts, "GET", "/api/runs", ""); !strings.Contains(body, `"run_ids":["alpha","beta"]`) {
		t.Errorf("after the requests: %s", body)
	}
}

// TestPublicHost: with Options.Public any Host is answered.
func TestPublicHost(t *testing.T) {
	_, ts, _ := newServer(t, serve.Options{Public: true})
	if code, _, _ := get(t, ts, "GET", "/api/generation", "trajmine.lan:8080"); code != 200 {
		t.Errorf("public server: status %d for another host", code)
	}
}

// TestNoRedact: without a redactor the secret is answered as logged.
func TestNoRedact(t *testing.T) {
	_, ts, _ := newServer(t, serve.Options{})
	_, _, redacted := get(t, ts, "GET", "/api/event?run="+handles(t, ts)["alpha"]+"&seq=2", "")
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs")
	writeFile(t, filepath.Join(logs, "a.jsonl"), logLine(t, "alpha", "gpt-4o", "x", "TOKEN="+secret))
	plain := serve.New(serve.Options{DB: filepath.Join(dir, "p.duckdb"), Build: build, Paths: func() []string { return []string{logs} }})
	defer plain.Close()
	if err := plain.Refresh(context.Background(), []string{logs}); err != nil {
		t.Fatal(err)
	}
	ts2 := httptest.NewServer(plain.Handler())
	defer ts2.Close()
	_, _, body := get(t, ts2, "GET", "/api/event?run="+handles(t, ts2)["alpha"]+"&seq=2", "")
	if !strings.Contains(body, secret) || strings.Contains(redacted, secret) {
		t.Errorf("no redactor: %s; redactor: %s", body, redacted)
	}
}

// TestWatch: a log file written after the first refresh, even before
// Watch starts, is imported within a few polls and raises the generation.
func TestWatch(t *testing.T) {
	s, ts, logs := newServer(t, serve.Options{Poll: 50 * time.Millisecond})
	writeFile(t, filepath.Join(logs, "later", "b.jsonl"), logLine(t, "gamma", "gpt-4o", "later", "a late output"))
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); s.Watch(ctx) }()
	defer func() { cancel(); wg.Wait() }()
	gen := func() (g struct {
		Generation int64  `json:"generation"`
		Runs       int    `json:"runs"`
		Error      string `json:"error"`
		Updated    string `json:"updated"`
	}) {
		_, _, body := get(t, ts, "GET", "/api/generation", "")
		if err := json.Unmarshal([]byte(body), &g); err != nil {
			t.Fatal(err)
		}
		return g
	}
	deadline := time.Now().Add(20 * time.Second)
	for gen().Generation < 2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if g := gen(); g.Generation != 2 || g.Runs != 3 || !strings.HasSuffix(g.Updated, ", 1 new or changed file imported") {
		t.Fatalf("after a new log: %+v", g)
	}
	if _, _, body := get(t, ts, "GET", "/", ""); !strings.Contains(body, `"live":{"generation":2`) || !strings.Contains(body, `"all_runs":3`) {
		t.Errorf("the page is not generation 2 with the new run")
	}
}

// TestRefreshFails: a failed Build leaves the page and the store handle
// as they were and reports the error, redacted (it names a file whose
// name holds a key).
func TestRefreshFails(t *testing.T) {
	fail := errors.New("build failed on purpose: /logs/release-AKIAX66S2O4A2QPOASTV.jsonl")
	calls := 0
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs")
	writeFile(t, filepath.Join(logs, "a.jsonl"), logLine(t, "alpha", "gpt-4o", "x", "y"))
	red, err := redact.New()
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	s := serve.New(serve.Options{DB: filepath.Join(dir, "f.duckdb"), Redact: red, Log: &log, Paths: func() []string { return []string{logs} },
		Build: func(ctx context.Context, st *store.Store, files []string) (*dashboards.Data, error) {
			calls++
			if calls > 1 {
				return nil, fail
			}
			return build(ctx, st, files)
		}})
	defer s.Close()
	if err := s.Refresh(context.Background(), []string{logs}); err != nil {
		t.Fatal(err)
	}
	if err := s.Refresh(context.Background(), nil); !errors.Is(err, fail) {
		t.Fatalf("second refresh: %v", err)
	}
	if l := log.String(); !strings.Contains(l, "refresh failed (the page stays generation 1): build failed on purpose: /logs/release-[REDACTED:aws-access-token].jsonl") {
		t.Errorf("the server's log: %q", l)
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	_, _, g := get(t, ts, "GET", "/api/generation", "")
	if !strings.Contains(g, `"generation":1`) || !strings.Contains(g, `"error":"build failed on purpose: /logs/release-[REDACTED:aws-access-token].jsonl"`) {
		t.Errorf("generation after a failed refresh: %s", g)
	}
	if code, _, body := get(t, ts, "GET", "/api/runs", ""); code != 200 || !cmp.Equal(strings.TrimSpace(body)[:20], `{"run_ids":["alpha"]`) {
		t.Errorf("the API after a failed refresh: %d %s", code, body)
	}
}

// TestSecretRunID: a run whose id holds a key (an AWS access key id, as
// a file name can) is searched, listed and opened through its handle,
// whether the page lists it or not; no answer holds the key, and the run
// is named by its id redacted as the page shows it.
func TestSecretRunID(t *testing.T) {
	const key = "AKIAX66S2O4A2QPOASTV"
	const id = "release-" + key
	red, err := redact.New()
	if err != nil {
		t.Fatal(err)
	}
	shown := red.String(id)
	if shown == id || !strings.HasPrefix(shown, "release-[REDACTED:") {
		t.Fatalf("the redactor keeps %q as %q", id, shown)
	}
	for _, inPage := range []bool{true, false} {
		dir := t.TempDir()
		logs := filepath.Join(dir, "logs")
		writeFile(t, filepath.Join(logs, "a.jsonl"), logLine(t, "plain", "gpt-4o", "x", "nothing here")+logLine(t, id, "gpt-4o", "deploy", "deploying "+planted))
		b := buildRedacted(red)
		wantIndex := -1 // the secret run's place in the page's run list
		s := serve.New(serve.Options{DB: filepath.Join(dir, "s.duckdb"), Redact: red, Paths: func() []string { return []string{logs} },
			Build: func(ctx context.Context, st *store.Store, files []string) (*dashboards.Data, error) {
				d, err := b(ctx, st, files)
				if err != nil {
					return nil, err
				}
				var kept []dashboards.RunRecord
				for _, r := range d.Runs {
					if r.StoreID == id {
						if !inPage { // the page lists the plain run only
							continue
						}
						wantIndex = len(kept)
					}
					kept = append(kept, r)
				}
				d.Runs = kept
				return d, nil
			}})
		defer s.Close()
		if err := s.Refresh(context.Background(), []string{logs}); err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(s.Handler())
		defer ts.Close()
		var bodies []string
		_, _, body := get(t, ts, "GET", "/api/search?q="+url.QueryEscape(planted), "")
		bodies = append(bodies, body)
		var res struct {
			Runs []struct {
				RunID  string `json:"run_id"`
				Run    string `json:"run"`
				InPage bool   `json:"in_page"`
				Index  int    `json:"index"`
				Seq    int64  `json:"seq"`
			} `json:"runs"`
		}
		if err := json.Unmarshal([]byte(body), &res); err != nil || len(res.Runs) != 1 {
			t.Fatalf("search: %v: %s", err, body)
		}
		hit := res.Runs[0]
		if hit.RunID != shown || hit.InPage != inPage || hit.Index != wantIndex || hit.Run == "" {
			t.Errorf("in page %v: hit %+v, want %q at index %d", inPage, hit, shown, wantIndex)
		}
		code, _, body := get(t, ts, "GET", "/api/conversation?run="+hit.Run, "")
		bodies = append(bodies, body)
		if code != 200 || !strings.Contains(body, `"run_id":"`+shown+`"`) || !strings.Contains(body, "deploying "+planted) {
			t.Errorf("in page %v: conversation %d %.400s", inPage, code, body)
		}
		code, _, body = get(t, ts, "GET", "/api/event?run="+hit.Run+"&seq="+strconv.FormatInt(hit.Seq, 10), "")
		bodies = append(bodies, body)
		if code != 200 || !strings.Contains(body, "deploying "+planted) {
			t.Errorf("in page %v: event %d %s", inPage, code, body)
		}
		for _, p := range []string{"/", "/api/runs", "/api/generation", "/api/conversation?run=" + url.QueryEscape(id)} {
			_, _, body := get(t, ts, "GET", p, "")
			bodies = append(bodies, body)
		}
		if hs := handles(t, ts); hs[shown] != hit.Run {
			t.Errorf("in page %v: /api/runs names the run %q, the search %q", inPage, hs[shown], hit.Run)
		}
		if page := bodies[len(bodies)-4]; inPage != strings.Contains(page, hit.Run) {
			t.Errorf("in page %v: the page's handles: %v", inPage, strings.Contains(page, hit.Run))
		}
		for i, b := range bodies {
			if strings.Contains(b, key) {
				t.Errorf("in page %v: answer %d holds the key: %.300s", inPage, i, b)
			}
		}
	}
}
