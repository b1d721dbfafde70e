package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/trajmine/trajmine/analysis"
	"github.com/trajmine/trajmine/dashboards"
	"github.com/trajmine/trajmine/dashboards/browsertest"
	"github.com/trajmine/trajmine/internal/store"
)

func TestReportDemoWithoutLocalLogs(t *testing.T) {
	d := testDeps(t, nil)
	dir := t.TempDir()
	d.DB = filepath.Join(dir, "demo.duckdb")
	html := filepath.Join(dir, "demo.html")
	stdout, stderr, code := run(t, d, "report", "--full", "--demo-sessions", "12", "-o", html)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"showing a generated demo corpus of 12 runs", "imported ", "claude-code", "codex-cli", "openai-messages", "RUN  "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report output lacks %q:\n%s", want, stdout)
		}
	}
	lines := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
	if last := lines[len(lines)-1]; !strings.HasSuffix(last, " "+html) {
		t.Errorf("the last line is %q, want the report's path %s", last, html)
	}
	if st, err := os.Stat(html); err != nil || st.Size() < 1<<20 {
		t.Errorf("report file: %v", err)
	}
	if _, err := os.Stat(d.DB); !os.IsNotExist(err) {
		t.Errorf("the demo went into the user's database %s (%v)", d.DB, err)
	}
}

func TestReportJSON(t *testing.T) {
	d := testDeps(t, nil)
	dir := t.TempDir()
	d.DB = filepath.Join(dir, "r.duckdb")
	html := filepath.Join(dir, "r.html")
	stdout, stderr, code := run(t, d, "report", "--json", "-o", html, fixtureDir)
	if code != 0 {
		t.Fatal(stderr)
	}
	var got struct {
		Source  string `json:"source"`
		Ingest  struct{ Files, Rejects int }
		Formats []struct {
			Format string `json:"source_format"`
			Runs   int    `json:"runs"`
		}
		Runs []struct {
			RunID string `json:"run_id"`
		}
		HTML string `json:"html_report"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("report --json is not JSON: %v\n%s", err, stdout)
	}
	if got.Ingest.Files != 2 || got.Ingest.Rejects != 1 || len(got.Runs) != 3 || len(got.Formats) != 1 || got.Formats[0].Runs != 3 || got.HTML != html {
		t.Errorf("report --json = %+v", got)
	}
	if _, err := os.Stat(html); err != nil {
		t.Error(err)
	}
	if !strings.HasSuffix(strings.TrimSpace(stderr), html) {
		t.Errorf("stderr does not end with the report's path: %q", stderr)
	}
}

func TestReportFlags(t *testing.T) {
	var got *ReportOptions
	c := NewReportCmd(testDeps(t, nil), func(o *ReportOptions) error { got = o; return nil })
	c.SetArgs([]string{"-o", "x.html", "--sample-top", "3", "--sample", "5", "--all", "a"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Output != "x.html" || got.SampleTop != 3 || got.SampleN != 5 || len(got.Inputs) != 1 || !got.All {
		t.Errorf("options = %+v", got)
	}
	d := testDeps(t, nil)
	for _, args := range [][]string{{"report", "-o", ""}, {"report", "--sample", "-1"}, {"report", "--demo", "a"}} {
		if _, stderr, code := run(t, d, args...); code != exitUsage {
			t.Errorf("%v: exit %d, %s", args, code, stderr)
		}
	}
}

// Hostile text as logs may hold it.
const (
	xssScript = `<script>alert(1)</script>`
	xssImg    = `</script><img src=x onerror=alert(1)>`
	xssURL    = `javascript:alert(1)`
)

// writeHostileCorpus writes an openai-messages JSONL of n runs whose run
// ids, model names, tool names, arguments and outputs carry hostile text,
// with a small window so that runs overflow and policies act.
func writeHostileCorpus(t *testing.T, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	for k := range n {
		id := fmt.Sprintf("%s-%d", []string{xssScript, xssImg, "run-" + xssURL}[k%3], k)
		model := []string{"gpt-4o" + xssImg, "gpt-4o-mini", "claude-sonnet-4-" + xssScript}[k%3]
		msgs := []map[string]any{
			{"role": "system", "content": "You are an agent. " + xssScript},
			{"role": "user", "content": "Fix the bug described at " + xssURL + " " + xssImg},
		}
		for c := range 6 + 2*k {
			call := fmt.Sprintf("call_%d_%d", k, c)
			tool := []string{"read_file", "bash", "grep", xssScript}[c%4]
			msgs = append(msgs, map[string]any{"role": "assistant", "content": "step " + xssImg, "tool_calls": []map[string]any{
				{"id": call, "type": "function", "function": map[string]any{"name": tool, "arguments": fmt.Sprintf(`{"path": "src/%s.go", "url": %q}`, xssImg, xssURL)}}}})
			out := strings.Repeat(fmt.Sprintf("line %d %s <a href=%q>x</a> %s\n", c, xssScript, xssURL, xssImg), 20+10*c)
			msgs = append(msgs, map[string]any{"role": "tool", "tool_call_id": call, "content": out})
		}
		msgs = append(msgs, map[string]any{"role": "assistant", "content": "done " + xssScript})
		line, err := json.Marshal(map[string]any{"run_id": id, "model": model, "window_tokens": 12000, "messages": msgs})
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	p := filepath.Join(dir, "hostile.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReportHostileHTML runs the whole report on logs full of hostile text
// and checks the page: statically (no markup from log text, every string
// escaped) and in headless Chromium (no dialog, console error or request;
// every chart drawn; the strings shown as text), with a screenshot of each
// section (kept with -screenshots DIR, or $TRAJMINE_SCREENSHOTS).
func TestReportHostileHTML(t *testing.T) {
	d := testDeps(t, nil)
	dir := t.TempDir()
	d.DB = filepath.Join(dir, "x.duckdb")
	corpus := writeHostileCorpus(t, dir, 9)
	html := filepath.Join(dir, "report.html")
	stdout, stderr, code := run(t, d, "report", "--full", "-o", html, "--sample-top", "2", "--sample", "3", corpus)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	outside := page[:strings.Index(page, `<script type="application/json"`)]
	for _, bad := range []string{xssScript, xssImg, "<img", `href="javascript:`, "onerror=alert(1)>"} {
		if strings.Contains(outside, bad) {
			t.Errorf("the page holds %q unescaped", bad)
		}
	}
	if n := strings.Count(strings.ToLower(page), "</script"); n != 4 {
		t.Errorf("%d </script> tags, want 4: log text closed a script", n)
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", `\u003cscript\u003ealert(1)\u003c/script\u003e`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks the escaped form %q", want)
		}
	}
	// the CLI's verdict line is the page's
	verdict := regexp.MustCompile(`Verdict \(trajmine diagnose has the tables\): (.*)\n`).FindStringSubmatch(stdout)
	if verdict == nil || !strings.Contains(page, htmlEscape(verdict[1])) {
		t.Errorf("the page does not hold the CLI's verdict %q", verdict)
	}
	// and the CLI's token ratios
	for _, m := range regexp.MustCompile(`\d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\]`).FindAllString(stdout, -1) {
		if !strings.Contains(page, m) {
			t.Errorf("the page lacks the CLI's token ratio %s", m)
		}
	}
	if strings.Contains(page, "Recommendations: not computed") {
		t.Error("recommendations missing")
	}

	browsertest.Chromium(t)
	shots := browsertest.ShotDir(t, "report")
	// every run is in the run list, not only the sample (5 of 9 here)
	r := browsertest.Load(t, html, &browsertest.Options{ShotDir: shots, Select: []string{"r1", "r4", "r0"},
		Steps: []string{`document.getElementById('runs-pager').textContent`}})
	browsertest.Check(t, html, r, 0)
	if len(r.Steps) != 1 || !strings.Contains(r.Steps[0], "runs 1–9 of 9") {
		t.Errorf("the run list shows %q, want all 9 runs", r.Steps)
	}
	if r.Images != 0 {
		t.Errorf("%d <img> elements: injected markup", r.Images)
	}
	for _, want := range []string{xssScript, xssImg, xssURL} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("the page does not show %q as text", want)
		}
	}
	if len(r.Sections) < 9 {
		t.Errorf("screenshots of %d sections", len(r.Sections))
	}
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

// TestReportReplayMatchesSimCalls: report replays every run in the shared
// pass and the sampled runs again for their drill-down (per-output actions,
// prompts, sim_calls rows). Both must be what trajmine simulate computes:
// report's sim_runs and sim_calls must equal simulate's, row for row, and
// the drill-down must show some policy acting.
func TestReportReplayMatchesSimCalls(t *testing.T) {
	d := testDeps(t, nil)
	dir := t.TempDir()
	d.DB = filepath.Join(dir, "x.duckdb")
	corpus := writeHostileCorpus(t, dir, 4)
	if _, stderr, code := run(t, d, "report", "-o", filepath.Join(dir, "r.html"), corpus); code != 0 {
		t.Fatal(stderr)
	}
	dump := func() (runs, calls string) {
		t.Helper()
		q := func(sql string) string {
			out, stderr, code := run(t, d, "sql", "--format", "csv", sql)
			if code != 0 {
				t.Fatal(stderr)
			}
			return out
		}
		return q("SELECT * FROM sim_runs ORDER BY ALL"), q("SELECT * FROM sim_calls ORDER BY ALL")
	}
	reportRuns, reportCalls := dump()
	if n := strings.Count(reportCalls, "\n"); n < 100 {
		t.Fatalf("report wrote %d sim_calls lines", n)
	}
	if _, stderr, code := run(t, d, "simulate"); code != 0 {
		t.Fatal(stderr)
	}
	simRuns, simCalls := dump()
	if reportRuns != simRuns {
		t.Error("sim_runs: report's rows differ from trajmine simulate's")
	}
	if reportCalls != simCalls {
		t.Error("sim_calls: report's rows (its sample: every run here) differ from trajmine simulate's")
	}

	ctx := context.Background()
	st, err := store.Open(ctx, store.Config{Path: d.DB, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := st.Runs(ctx, store.RunFilter{})
	if err != nil || len(runs) != 4 {
		t.Fatalf("runs: %v, %d", err, len(runs))
	}
	pols, err := analysis.WithKeepAll(nil)
	if err != nil {
		t.Fatal(err)
	}
	acted := 0
	for _, run := range runs {
		_, acts, _, err := analysis.ReplayOutputs(ctx, st, run.RunID, pols, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range acts {
			for _, x := range a {
				if x.Mode != "" {
					acted++
				}
			}
		}
	}
	if acted == 0 {
		t.Error("no policy changed any output: the drill-down shows nothing")
	}
}

// BenchmarkReport times trajmine report's stages on an ingested database
// ($TRAJMINE_BENCH_DB; e.g. trajmine synth -n 10000 DIR, then trajmine
// ingest DIR): the analyses in their shared pass (diagnose, simulate with
// 19 policies, recommend, behaviour, mining; diag_* and sim_* written), the
// HTML data (sample, sim_calls, watched replays) and the page. It reports each stage's seconds, the page's size and the
// process's peak RSS (VmHWM). Skipped without the variable;
// $TRAJMINE_BENCH_HTML keeps the page.
//
//	TRAJMINE_BENCH_DB=/tmp/b10k.duckdb go test ./cmd -run '^$' -bench Report -benchtime 1x
func BenchmarkReport(b *testing.B) {
	db := os.Getenv("TRAJMINE_BENCH_DB")
	if db == "" {
		b.Skip("set TRAJMINE_BENCH_DB to an ingested database")
	}
	ctx := context.Background()
	st, err := store.Open(ctx, store.Config{Path: db})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	runs, err := st.Runs(ctx, store.RunFilter{})
	if err != nil {
		b.Fatal(err)
	}
	html := os.Getenv("TRAJMINE_BENCH_HTML") // where to keep the page
	if html == "" {
		html = filepath.Join(b.TempDir(), "report.html")
	}
	o := &analysis.ReportOptions{SampleTop: 10, SampleN: 30}
	for b.Loop() {
		stage := func(name string, f func() error) {
			t0 := time.Now()
			if err := f(); err != nil {
				b.Fatalf("%s: %v", name, err)
			}
			b.ReportMetric(time.Since(t0).Seconds(), name+"-s")
		}
		var data *dashboards.Data
		var res *analysis.Report
		stage("analyse", func() (err error) {
			res, err = analysis.AnalyseReport(ctx, st, o)
			return err
		})
		stage("html-data", func() (err error) {
			data = analysis.Page(res, analysis.TotalsByFormat(runs), "", st.Path())
			return nil
		})
		stage("html-write", func() error { return writeReportHTML(html, data) })
	}
	if fi, err := os.Stat(html); err == nil {
		b.ReportMetric(float64(fi.Size())/(1<<20), "page-MB")
	}
	b.ReportMetric(float64(len(runs)), "runs")
	if s, err := os.ReadFile("/proc/self/status"); err == nil {
		if m := regexp.MustCompile(`VmHWM:\s+(\d+) kB`).FindSubmatch(s); m != nil {
			var kb float64
			fmt.Sscan(string(m[1]), &kb)
			b.ReportMetric(kb/1024, "peak-RSS-MB")
		}
	}
}

// TestReportWindow: report --window N replays, diagnoses and recommends at
// N for every run, as the verdict's "(use --window N)" advises, and says so.
func TestReportWindow(t *testing.T) {
	dir := t.TempDir()
	d := testDeps(t, nil)
	d.DB = filepath.Join(dir, "w.duckdb")
	stdout, stderr, code := run(t, d, "report", "--full", "--window", "5000", "-o", filepath.Join(dir, "r.html"), fixtureDir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "replayed at a window of 5,000 tokens (--window") {
		t.Errorf("stdout does not say the window:\n%s", stdout)
	}
	st, err := store.Open(context.Background(), store.Config{Path: d.DB, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// the fixture's 3 runs (testdata/runs.stdout), every one at 5,000 tokens
	for q, want := range map[string]int64{
		"SELECT count(*) FROM diag_runs WHERE window_tokens = 5000":              3,
		"SELECT count(*) FROM diag_runs":                                         3,
		"SELECT count(DISTINCT run_id) FROM sim_runs WHERE window_tokens = 5000": 3,
		"SELECT count(*) FROM sim_runs WHERE window_tokens <> 5000":              0,
	} {
		var got int64
		if err := st.DB().QueryRow(q).Scan(&got); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if got != want {
			t.Errorf("%s = %d, want %d", q, got, want)
		}
	}
	if _, stderr, code := run(t, d, "report", "--window", "-1", fixtureDir); code != exitUsage {
		t.Errorf("--window -1: exit %d, %s", code, stderr)
	}
}
