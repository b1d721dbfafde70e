package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-runewidth"

	"github.com/trajmine/trajmine/compare"
	"github.com/trajmine/trajmine/internal/testutil"
)

// plantedRun is one planted run of the compare tests as an
// openai-messages JSONL line: K tool calls that each read an output, then
// a final answer, with the per-call usage the planted harness logged.
type plantedRun struct {
	id, task string
	resolved bool
	// dtoc: the outputs come in DTOC's envelope (key k<j>) and from the
	// second read on the agent disables the previous output with
	// manage_context in the same model call
	dtoc    bool
	reads   []int // characters of each tool output read, in order
	prompts []int // logged prompt tokens per model call (len(reads)+1)
	seconds int
}

// The planted token model: a system message of 1,600 characters and a
// task of 400 (est 400 + 100 tokens) and 200 tokens the log never shows
// (tool schemas): base = 700 logged tokens before the first output; each
// tool call adds about 15 tokens, each output its characters / 4, and a
// masked output (mask(n=1): every output but the newest becomes
// "Old environment output: (N lines omitted)", 42 characters) 11.
const (
	plantBase    = 700
	plantCall    = 15
	plantMasked  = 11
	plantOutput  = 40 // output tokens per call
	plantTasks   = 12
	plantLineLen = 80
)

// plantReads is task i's outputs: K = 6 + i mod 5 reads of 50 + 5·((i+j)
// mod 4) lines of 80 characters (1,000 to 1,300 tokens).
func plantReads(i int) []int {
	var out []int
	for j := range 6 + i%5 {
		out = append(out, plantLineLen*(50+5*((i+j)%4)))
	}
	return out
}

// keepAllPrompts are the logged prompts of a run that kept every output:
// call t sees base + Σ_{j<t} (call + output_j).
func keepAllPrompts(reads []int) []int {
	p := []int{plantBase}
	for _, r := range reads {
		p = append(p, p[len(p)-1]+plantCall+r/4)
	}
	return p
}

// maskedPrompts are the logged prompts of a harness that masked every
// output but the newest, scaled by 1 + noise: call t sees base + t calls +
// (t − 1) masked outputs + output_{t−1}.
func maskedPrompts(reads []int, noise float64) []int {
	p := []int{int(float64(plantBase) * (1 + noise))}
	for t := 1; t <= len(reads); t++ {
		v := plantBase + t*plantCall + (t-1)*plantMasked + reads[t-1]/4
		p = append(p, int(float64(v)*(1+noise)))
	}
	return p
}

// dtocPrompts are the logged prompts of an agent that disabled each
// output at the call after it read it (DTOC, placeholder 40 tokens),
// scaled by 1 + noise: call t sees base + t calls of 30 tokens (the read
// and the manage_context call) + (t − 1) placeholders + output_{t−1}.
func dtocPrompts(reads []int, noise float64) []int {
	p := []int{int(float64(plantBase) * (1 + noise))}
	for t := 1; t <= len(reads); t++ {
		v := plantBase + t*(plantCall+15) + (t-1)*40 + reads[t-1]/4
		p = append(p, int(float64(v)*(1+noise)))
	}
	return p
}

// plantedCorpus writes the off, on and on-but-the-agents-changed runs of
// plantTasks tasks (off/runs.jsonl, on/runs.jsonl, changed/runs.jsonl)
// under dir:
//
//   - off: every output kept; solves the tasks with i mod 3 ≠ 0 (8 of 12);
//   - on: the harness masked every output but the newest (mask(n=1)), the
//     agent did the same reads: a replay of the off runs under mask(n=1)
//     predicts the change; the runs vary by ±3 % (noise −0.03, 0, +0.03
//     by task); solves every even task and the odd ones with i mod 3 ≠ 0;
//   - changed: masked the same way, but the agents, having lost the
//     outputs, read every file twice (2K calls): the observed change is
//     far smaller than the replay predicts;
//   - dtoc: the agent itself disabled every output with manage_context at
//     the call after it read it (DTOC envelopes, ±3 % noise), solving as off.
func plantedCorpus(t *testing.T, dir string) {
	t.Helper()
	start := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	for _, cond := range []string{"off", "on", "changed", "dtoc"} {
		var lines []string
		for i := range plantTasks {
			reads := plantReads(i)
			r := plantedRun{id: fmt.Sprintf("%s-t%02d", cond, i), task: fmt.Sprintf("t%02d", i), resolved: i%3 != 0, reads: reads, seconds: 600}
			noise := 0.03 * float64(i%3-1)
			switch cond {
			case "off":
				r.prompts = keepAllPrompts(reads)
			case "on":
				r.prompts, r.seconds, r.resolved = maskedPrompts(reads, noise), 400, i%2 == 0 || i%3 != 0
			case "changed":
				twice := append(append([]int{}, reads...), reads...)
				r.reads, r.prompts, r.seconds = twice, maskedPrompts(twice, noise), 900
			case "dtoc":
				r.prompts, r.dtoc = dtocPrompts(reads, noise), true
			}
			lines = append(lines, plantedLine(t, r, start.Add(time.Duration(i)*time.Hour)))
		}
		if err := os.MkdirAll(filepath.Join(dir, cond), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, cond, "runs.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	prices := "planted-1: {input: 1, output: 4, cache_read: 1, cache_write: 1}\n" // $ per million tokens; caching changes nothing
	if err := os.WriteFile(filepath.Join(dir, "prices.yaml"), []byte(prices), 0o644); err != nil {
		t.Fatal(err)
	}
}

func plantedLine(t *testing.T, r plantedRun, start time.Time) string {
	t.Helper()
	text := func(chars int, fill string) string {
		line := strings.Repeat(fill, plantLineLen-1) + "\n"
		return strings.Repeat(line, chars/plantLineLen)
	}
	msgs := []any{
		map[string]any{"role": "system", "content": strings.Repeat("s", 1600)},
		map[string]any{"role": "user", "content": strings.Repeat("u", 400)},
	}
	var usage []any
	for j, n := range r.reads {
		id := fmt.Sprintf("c%d", j)
		calls := []any{map[string]any{"id": id, "type": "function",
			"function": map[string]any{"name": "bash", "arguments": fmt.Sprintf(`{"command":"cat f%d.py"}`, j%len(plantReadsOf(r)))}}}
		if r.dtoc && j > 0 {
			calls = append(calls, map[string]any{"id": fmt.Sprintf("m%d", j), "type": "function",
				"function": map[string]any{"name": "manage_context", "arguments": fmt.Sprintf(`{"disable":["k%d"]}`, j-1)}})
		}
		body := text(n, string(rune('a'+j%26)))
		if r.dtoc {
			env, err := json.Marshal(map[string]any{"tool_key": fmt.Sprintf("k%d", j), "tool_result": body, "estimated_tokens": n / 4})
			if err != nil {
				t.Fatal(err)
			}
			body = string(env)
		}
		msgs = append(msgs, map[string]any{"role": "assistant", "content": "", "tool_calls": calls}, map[string]any{"role": "tool", "tool_call_id": id, "content": body})
		if r.dtoc && j > 0 {
			msgs = append(msgs, map[string]any{"role": "tool", "tool_call_id": fmt.Sprintf("m%d", j), "content": "ok"})
		}
		usage = append(usage, map[string]any{"prompt_tokens": r.prompts[j], "completion_tokens": plantOutput})
	}
	msgs = append(msgs, map[string]any{"role": "assistant", "content": "done"})
	usage = append(usage, map[string]any{"prompt_tokens": r.prompts[len(r.reads)], "completion_tokens": plantOutput})
	b, err := json.Marshal(map[string]any{"run_id": r.id, "model": "planted-1", "harness": "planted", "messages": msgs, "usage": usage,
		"outcome":    map[string]any{"resolved": r.resolved, "task_id": r.task},
		"started_at": start.Format(time.RFC3339), "ended_at": start.Add(time.Duration(r.seconds) * time.Second).Format(time.RFC3339)})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// plantReadsOf is the number of distinct files a run reads (a changed run
// reads each twice).
func plantReadsOf(r plantedRun) []int {
	var i int
	if _, err := fmt.Sscanf(r.task, "t%d", &i); err != nil {
		return r.reads
	}
	return plantReads(i)
}

// compareStore imports the planted off runs and the runs of cond (on or
// changed) tagged dtoc=off and dtoc=on into a database of their own.
func compareStore(t *testing.T, dir, cond string) *Deps {
	t.Helper()
	d := testDeps(t, map[string]string{"COLUMNS": "100"})
	d.DB = filepath.Join(t.TempDir(), "cmp.duckdb")
	for _, step := range [][]string{
		{"ingest", "--tag", "dtoc=off", filepath.Join(dir, "off")},
		{"ingest", "--tag", "dtoc=on", filepath.Join(dir, cond)},
	} {
		stdout, stderr, code := run(t, d, step...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", step, code, stderr)
		}
		if want := fmt.Sprintf("tagged %s: %d run(s) carry it\n", step[2], plantTasks); !strings.HasSuffix(stdout, want) {
			t.Errorf("%v: stdout %q lacks %q", step, stdout, want)
		}
	}
	return d
}

// TestComparePlanted: compare on the planted corpus, by the ingest tag:
// the table (golden at 100 columns), the JSON (golden), and the simulator
// check, which agrees where the replay is right (the harness masked, the
// agents acted alike) and disagrees where the agents changed what they did.
func TestComparePlanted(t *testing.T) {
	dir := t.TempDir()
	plantedCorpus(t, dir)
	prices := filepath.Join(dir, "prices.yaml")
	for _, tc := range []struct {
		cond, verdict string
	}{{"on", compare.Agree}, {"changed", compare.Disagree}} {
		t.Run(tc.cond, func(t *testing.T) {
			d := compareStore(t, dir, tc.cond)
			args := []string{"compare", "--by", "tag:dtoc", "--replay", "mask(n=1)", "--prices", prices}
			stdout, stderr, code := run(t, d, args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			fits(t, stdout, 100)
			testutil.Golden(t, stdout, filepath.Join("testdata", "compare-planted-"+tc.cond+"-100-columns.stdout"))
			stdout, stderr, code = run(t, d, append(args, "--json")...)
			if code != 0 {
				t.Fatalf("--json: exit %d\n%s", code, stderr)
			}
			var res compare.Result
			if err := json.Unmarshal([]byte(stdout), &res); err != nil {
				t.Fatal(err)
			}
			if len(res.Check) != 1 || res.Check[0].Tokens.Verdict != tc.verdict || res.Check[0].Cost.Verdict != tc.verdict || res.Check[0].Runs != plantTasks {
				t.Errorf("simulator check %+v, want %s", res.Check, tc.verdict)
			}
			r := res.Comparisons[0].Rows[0]
			// off solves 8 (i mod 3 ≠ 0); on also the even multiples of 3 (0, 6): 10; changed as off
			wantOn := map[string]int{"on": 10, "changed": 8}[tc.cond]
			if r.Paired != plantTasks || r.Solve.Ref != 8 || r.Solve.Group != wantOn {
				t.Errorf("row %+v", r)
			}
			if tc.cond == "on" {
				testutil.Golden(t, stdout, filepath.Join("testdata", "compare-planted-on.json"))
			}
		})
	}
}

// TestCompareDTOCDetected: with no --replay, groups by manage_context use
// (the dtoc runs call it, the off runs do not) are checked by replaying the
// dtoc runs without it (keep-all): the replay predicts the observed change
// in input tokens and cost (agree), the default path of the check.
func TestCompareDTOCDetected(t *testing.T) {
	dir := t.TempDir()
	plantedCorpus(t, dir)
	d := testDeps(t, map[string]string{"COLUMNS": "100"})
	d.DB = filepath.Join(t.TempDir(), "dtoc.duckdb")
	if _, stderr, code := run(t, d, "ingest", filepath.Join(dir, "off"), filepath.Join(dir, "dtoc")); code != 0 {
		t.Fatal(stderr)
	}
	out, stderr, code := run(t, d, "compare", "--by", "manage-context", "--prices", filepath.Join(dir, "prices.yaml"), "--json")
	if code != 0 {
		t.Fatal(stderr)
	}
	var res compare.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Reference != compare.GroupOff || len(res.Check) != 1 {
		t.Fatalf("reference %s, check %+v, note %q", res.Reference, res.Check, res.CheckNote)
	}
	c := res.Check[0]
	if c.Mechanism != "manage_context" || c.Policy != "keep-all" || c.Replayed != compare.GroupOn || !c.Invert || c.Runs != plantTasks ||
		c.Tokens.Verdict != compare.Agree || c.Cost.Verdict != compare.Agree || c.Tokens.Observed > -0.5 {
		t.Errorf("check %+v", c)
	}
	if g := res.Groups[1]; g.Name != compare.GroupOn || g.ManageContext != plantTasks {
		t.Errorf("groups %+v", res.Groups)
	}
}

// TestIngestTagLake: a lake holds no tags, and ingest --tag says so
// before importing anything.
func TestIngestTagLake(t *testing.T) {
	d := testDeps(t, nil)
	d.Lake = t.TempDir()
	_, stderr, code := run(t, d, "ingest", "--tag", "dtoc=on", fixtureDir)
	if code != exitUsage || !strings.Contains(stderr, "--tag: a lake holds no tags") {
		t.Errorf("exit %d, %s", code, stderr)
	}
	if _, stderr, code := run(t, testDeps(t, nil), "ingest", "--db", filepath.Join(t.TempDir(), "x.duckdb"), "--tag", "dtoc", fixtureDir); code != exitUsage || !strings.Contains(stderr, "want KEY=VALUE") {
		t.Errorf("--tag dtoc: exit %d, %s", code, stderr)
	}
}

// TestCompareUsage: flag errors name the flag and exit 2.
func TestCompareUsage(t *testing.T) {
	d := testDeps(t, nil)
	d.DB = filepath.Join(t.TempDir(), "x.duckdb")
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"compare"}, "say how to group the runs"},
		{[]string{"compare", "--by", "model", "--group", "a=x"}, "--by and --group: give one"},
		{[]string{"compare", "--by", "format"}, `--by: "format": want model, harness, manage-context or tag:KEY`},
		{[]string{"compare", "--group", "a=x"}, "give two groups or more"},
		{[]string{"compare", "--group", "a=x", "--group", "a=y"}, `the name "a" is given twice`},
		{[]string{"compare", "--group", "a=colour=red", "--group", "b=y"}, `unknown key "colour"`},
		{[]string{"compare", "--by", "model", "--boot", "10"}, "--boot must be ≥ 100"},
		{[]string{"compare", "--by", "model", "--min-pairs", "1"}, "--min-pairs ≥ 2"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, stderr, code := run(t, d, tc.args...)
			if code != exitUsage || !strings.Contains(stderr, tc.msg) {
				t.Errorf("exit %d, stderr %q; want exit 2 mentioning %q", code, stderr, tc.msg)
			}
		})
	}
}

// TestCompareCorpusOutcomes: the real runs of ../shared/corpus-outcomes
// (20 mini-swe-agent runs of one model, gemini-3-pro, on 20 SWE-bench
// Verified tasks, 13 resolved) hold one condition: --by model makes one
// group, which compare refuses, and any split of them shares no task. So
// the end-to-end run splits them by start time (the 10 runs started before
// 2025-11-19T00:05Z against the 10 after) and compares them unpaired, as
// it says (golden at 100 columns).
func TestCompareCorpusOutcomes(t *testing.T) {
	dir := filepath.Join(testutil.SharedDir(t, "corpus-outcomes"), "mini-swe-agent-swebench")
	d := testDeps(t, map[string]string{"COLUMNS": "100"})
	d.DB = filepath.Join(t.TempDir(), "real.duckdb")
	if _, stderr, code := run(t, d, "ingest", dir); code != 0 {
		t.Fatal(stderr)
	}
	_, stderr, code := run(t, d, "compare", "--by", "model")
	if code != exitFailed || !strings.Contains(stderr, "compare needs two groups with runs; the runs make one group (gemini-3-pro, 20 runs)") {
		t.Errorf("--by model: exit %d, %s", code, stderr)
	}
	stdout, stderr, code := run(t, d, "compare", "--group", "early=until=2025-11-19T00:05:00Z", "--group", "late=since=2025-11-19T00:05:00Z", "--reference", "early")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	fits(t, stdout, 100)
	testutil.Golden(t, stdout, filepath.Join("testdata", "compare-corpus-outcomes-100-columns.stdout"))
}

// fits fails the test for every line of out wider than width.
func fits(t *testing.T, out string, width int) {
	t.Helper()
	for i, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if w := runewidth.StringWidth(l); w > width {
			t.Errorf("line %d is %d columns wide: %q", i+1, w, l)
		}
	}
}

// TestReportCompareSection: trajmine report --compare-by puts the
// comparison in its own section of the page, with the figures trajmine
// compare prints; a bad --compare-by is a usage error.
func TestReportCompareSection(t *testing.T) {
	dir := t.TempDir()
	plantedCorpus(t, dir)
	d := compareStore(t, dir, "on")
	page := filepath.Join(t.TempDir(), "page.html")
	if _, stderr, code := run(t, d, "report", "--all", "--compare-by", "tag:dtoc", "-o", page); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	for _, want := range []string{`<a href="#compare">Compare</a>`, `<section id="compare">`, "<h3>on vs off</h3>", "12 paired tasks",
		"-66.1% [-68.5%, -63.0%]", `<table id="compare-matrix">`, "no replayable context policy separates the groups"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if _, stderr, code := run(t, d, "report", "--all", "--compare-by", "format", "-o", page); code != exitUsage || !strings.Contains(stderr, "--compare-by:") {
		t.Errorf("--compare-by format: exit %d, %s", code, stderr)
	}
	// without it, no section
	if _, stderr, code := run(t, d, "report", "--all", "-o", page); code != 0 {
		t.Fatal(stderr)
	}
	if b, _ := os.ReadFile(page); strings.Contains(string(b), `<section id="compare">`) {
		t.Error("a compare section without --compare-by")
	}
}

// TestCompareFlags: the flags reach the comparison: --reference, --seed,
// --boot, --replay none, and --all lists every task of the matrix.
func TestCompareFlags(t *testing.T) {
	dir := t.TempDir()
	plantedCorpus(t, dir)
	d := compareStore(t, dir, "on")
	out, stderr, code := run(t, d, "compare", "--by", "tag:dtoc", "--reference", "on", "--seed", "2", "--boot", "500", "--replay", "none", "--min-pairs", "20", "--min-discordant", "2", "--json")
	if code != 0 {
		t.Fatal(stderr)
	}
	var res compare.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	r := res.Comparisons[0].Rows[0]
	if res.Reference != "on" || res.Comparisons[0].Group != "off" || res.Rules.Seed != 2 || res.Rules.B != 500 || res.Rules.MinPairs != 20 ||
		res.CheckNote != "not checked (--replay none)" || len(res.Check) != 0 || r.Metric("input tokens").Verdict != compare.TooFew || r.Solve.Verdict != compare.NoDifference {
		t.Errorf("rules %+v, reference %s, check %q, row %+v", res.Rules, res.Reference, res.CheckNote, r)
	}
	// the matrix: 35 tasks, 30 listed without --all
	m := &compare.Matrix{Columns: []compare.Column{{Group: "off"}, {Group: "on"}}}
	for i := range 35 {
		m.Tasks = append(m.Tasks, compare.Task{Task: fmt.Sprintf("t%02d", i), Cells: []compare.Cell{{Runs: 1, Known: 1, Solved: 1}, {Runs: 1, Known: 1}}, Differs: i%2 == 0})
	}
	for _, all := range []bool{false, true} {
		var b strings.Builder
		if err := writeSolveMatrix(&b, m, "off", 0, false, all); err != nil {
			t.Fatal(err)
		}
		rows := strings.Count(b.String(), "\n  t")
		more := strings.Contains(b.String(), "… and 5 more tasks")
		if all && (rows != 35 || more) || !all && (rows != 30 || !more) {
			t.Errorf("all=%v: %d rows, 'more' line %v\n%s", all, rows, more, b.String())
		}
		if first := strings.Index(b.String(), "\n  t00"); first < 0 || first > strings.Index(b.String(), "\n  t01") {
			t.Errorf("all=%v: the tasks where the groups differ are not first", all)
		}
	}
}

// TestReportCompareJSON: trajmine report --json with --compare-by holds
// the comparison as trajmine compare --json prints it with the same
// grouping (golden: the planted corpus by tag:dtoc, compare's defaults),
// and without it none.
func TestReportCompareJSON(t *testing.T) {
	dir := t.TempDir()
	plantedCorpus(t, dir)
	d := compareStore(t, dir, "on")
	page := filepath.Join(t.TempDir(), "page.html")
	var got struct {
		Comparison json.RawMessage `json:"comparison"`
	}
	stdout, stderr, code := run(t, d, "report", "--all", "--json", "--compare-by", "tag:dtoc", "-o", page)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil || len(got.Comparison) == 0 {
		t.Fatalf("no comparison in report --json (%v):\n%.400s", err, stdout)
	}
	var ind bytes.Buffer
	if err := json.Indent(&ind, got.Comparison, "", "  "); err != nil {
		t.Fatal(err)
	}
	ind.WriteByte('\n')
	testutil.Golden(t, ind.String(), filepath.Join("testdata", "report-compare.json"))
	// the same figures as trajmine compare --json
	want, stderr, code := run(t, d, "compare", "--by", "tag:dtoc", "--json")
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s", code, stderr)
	}
	var a, b any
	if err := json.Unmarshal(got.Comparison, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Error("report --json's comparison differs from trajmine compare --json's")
	}
	stdout, stderr, code = run(t, d, "report", "--all", "--json", "-o", page)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if strings.Contains(stdout, `"comparison"`) {
		t.Error("a comparison in report --json without --compare-by")
	}
}
