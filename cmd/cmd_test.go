package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/internal/testutil"
)

func testDeps(t *testing.T, env map[string]string) *Deps {
	t.Helper()
	home := t.TempDir()
	return &Deps{
		Getenv:   func(k string) string { return env[k] },
		HomeDir:  func() (string, error) { return home, nil },
		ErrIsTTY: func() bool { return false },
	}
}

// run executes trajmine with args and returns stdout, stderr and the exit code.
func run(t *testing.T, d *Deps, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := execute(context.Background(), NewRootCmd(d), args, &out, &errb)
	if len(args) > 0 && (args[0] == "ingest" || args[0] == "report" || args[0] == "outcomes") {
		checkStore(t, d)
	}
	return out.String(), errb.String(), code
}

// checkStore runs `trajmine check` on d's database, if there is one: every
// test that imports leaves a consistent store (issue 19).
func checkStore(t *testing.T, d *Deps) {
	t.Helper()
	if _, err := os.Stat(d.dbPath()); err != nil {
		return
	}
	var out, errb bytes.Buffer
	if code := execute(context.Background(), NewRootCmd(d), []string{"check"}, &out, &errb); code != 0 {
		t.Errorf("trajmine check after import: exit %d\n%s%s", code, out.String(), errb.String())
	}
}

const fixtureDir = "../ingest/testdata/claude-code"

func TestFlagParsing(t *testing.T) {
	var got *IngestOptions
	c := NewIngestCmd(testDeps(t, nil), func(o *IngestOptions) error { got = o; return nil })
	c.SetArgs([]string{"--format", "codex-cli", "--strict", "--tokenizer", "o200k_base", "--workers", "3", "a.jsonl", "dir"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	want := &IngestOptions{Inputs: []string{"a.jsonl", "dir"}, Format: "codex-cli", Strict: true, Tokenizer: "o200k_base", Workers: 3, MaxDecompressed: 1 << 30}
	if diff := cmp.Diff(want, got, cmpIgnoreWriters); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
}

var cmpIgnoreWriters = cmp.FilterPath(func(p cmp.Path) bool {
	n := p.Last().String()
	return n == ".Out" || n == ".Err"
}, cmp.Ignore())

func TestUsageErrors(t *testing.T) {
	d := testDeps(t, nil)
	d.DB = filepath.Join(t.TempDir(), "x.duckdb")
	tests := []struct {
		args []string
		msg  string
	}{
		{[]string{"ingest", "--format", "nope", fixtureDir}, `--format: unknown input format "nope"`},
		{[]string{"ingest", "--tokenizer", "p50k", fixtureDir}, `--tokenizer: unknown tokenizer "p50k"`},
		{[]string{"sql", "--format", "xml", "SELECT 1"}, `--format must be table, csv or json`},
		{[]string{"runs", "--bogus"}, `unknown flag: --bogus`},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, stderr, code := run(t, d, tc.args...)
			if code != exitUsage || !strings.Contains(stderr, tc.msg) || !strings.HasPrefix(stderr, "trajmine: ") {
				t.Errorf("exit %d, stderr %q; want exit 2 mentioning %q", code, stderr, tc.msg)
			}
		})
	}
}

// TestUsageOfFailingCommand: a usage error prints the usage of the
// command that failed, not the root's list of commands.
func TestUsageOfFailingCommand(t *testing.T) {
	d := testDeps(t, nil)
	d.DB = filepath.Join(t.TempDir(), "x.duckdb")
	tests := []struct {
		args  []string
		usage string // its first line
	}{
		{[]string{"sql", "--format", "xml", "x"}, "  trajmine sql [--format table|csv|json] [--timeout D] [--no-redact] QUERY [flags]"},
		{[]string{"show"}, "  trajmine show RUN [flags]"},
		{[]string{"runs", "--bogus"}, "  trajmine runs [flags]"},
		{[]string{"report", "--demo", "x"}, "  trajmine report [PATH...] [flags]"},
		{[]string{"--bogus"}, "  trajmine [command]"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, stderr, code := run(t, d, tc.args...)
			_, usage, _ := strings.Cut(stderr, "Usage:\n")
			first, _, _ := strings.Cut(usage, "\n")
			if code != exitUsage || first != tc.usage {
				t.Errorf("exit %d, usage %q; want exit 2, usage %q\n%s", code, first, tc.usage, stderr)
			}
			if tc.args[0] != "--bogus" && strings.Contains(stderr, "Available Commands:") {
				t.Errorf("prints the root's commands:\n%s", stderr)
			}
		})
	}
}

func TestUnknownFormatNamesFormatsTried(t *testing.T) {
	d := testDeps(t, nil)
	d.DB = filepath.Join(t.TempDir(), "x.duckdb")
	p := filepath.Join(t.TempDir(), "notes.json")
	if err := os.WriteFile(p, []byte(`{"hello": "world"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := run(t, d, "ingest", p)
	if code != exitFailed || !strings.Contains(stderr, "unknown format (tried: claude-code, codex-cli") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// TestGolden runs the documented commands on the fixture database and
// compares stdout and stderr with testdata/<name>.stdout|.stderr.
func TestGolden(t *testing.T) {
	d := testDeps(t, nil)
	d.DB = filepath.Join(t.TempDir(), "golden.duckdb")
	steps := []struct {
		name string
		args []string
		code int
	}{
		{"ingest", []string{"ingest", "--workers", "1", fixtureDir}, 0},
		{"ingest-again", []string{"ingest", fixtureDir}, 0},
		{"rejects", []string{"rejects"}, 0},
		{"rejects-json", []string{"rejects", "--json"}, 0},
		{"runs", []string{"runs"}, 0},
		{"runs-json", []string{"runs", "--json"}, 0},
		{"show", []string{"show", "s-split"}, 0},
		{"show-prefix", []string{"show", "s-main/agent"}, 0},
		{"show-missing", []string{"show", "nope"}, 1},
		{"show-ambiguous", []string{"show", "s-"}, 1},
		{"sql-csv", []string{"sql", "--format", "csv", "SELECT run_id, turn, input_tokens, output_tokens FROM usage ORDER BY run_id, turn"}, 0},
		{"sql-json", []string{"sql", "--format", "json", "SELECT op, tool_key, tokens_before FROM context_ops ORDER BY run_id, seq"}, 0},
		{"sql-readonly", []string{"sql", "DELETE FROM runs"}, 1},
		{"formats", []string{"formats"}, 0},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			stdout, stderr, code := run(t, d, s.args...)
			if code != s.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, s.code, stderr)
			}
			stderr = strings.ReplaceAll(stderr, d.DB, "DB")
			testutil.Golden(t, stdout, filepath.Join("testdata", s.name+".stdout"))
			testutil.Golden(t, stderr, filepath.Join("testdata", s.name+".stderr"))
		})
	}
}

func TestDBResolution(t *testing.T) {
	d := testDeps(t, map[string]string{"TRAJMINE_DB": "/env.duckdb"})
	if got := d.dbPath(); got != "/env.duckdb" {
		t.Errorf("TRAJMINE_DB: got %q", got)
	}
	d.DB = "/flag.duckdb"
	if got := d.dbPath(); got != "/flag.duckdb" {
		t.Errorf("--db: got %q", got)
	}
	if got := testDeps(t, nil).dbPath(); got != DefaultDB {
		t.Errorf("default: got %q", got)
	}
}

func TestExportParquetCommand(t *testing.T) {
	d := testDeps(t, nil)
	d.DB = filepath.Join(t.TempDir(), "x.duckdb")
	if _, stderr, code := run(t, d, "ingest", fixtureDir); code != 0 {
		t.Fatal(stderr)
	}
	out := t.TempDir()
	stdout, stderr, code := run(t, d, "export", "parquet", out)
	if code != 0 {
		t.Fatal(stderr)
	}
	if !strings.Contains(stdout, "runs          3 rows") {
		t.Errorf("export output:\n%s", stdout)
	}
	if _, err := os.Stat(filepath.Join(out, "events", "source_format=claude-code")); err != nil {
		t.Error(err)
	}
}

func TestCalibrateCommand(t *testing.T) {
	d := testDeps(t, nil)
	d.DB = filepath.Join(t.TempDir(), "x.duckdb")
	corpus := t.TempDir()
	if _, stderr, code := run(t, d, "synth", "-n", "12", "--seed", "7", corpus); code != 0 {
		t.Fatal(stderr)
	}
	if _, stderr, code := run(t, d, "ingest", corpus); code != 0 {
		t.Fatal(stderr)
	}
	stdout, stderr, code := run(t, d, "calibrate")
	if code != 0 {
		t.Fatal(stderr)
	}
	testutil.Golden(t, stdout, filepath.Join("testdata", "calibrate.stdout"))
	// show now prints the calibrated estimate: offset + factor × estimate
	id, _, _ := run(t, d, "sql", "--format", "csv", "SELECT run_id FROM runs WHERE model_family = 'gpt-5' ORDER BY run_id LIMIT 1")
	id = strings.TrimSpace(strings.TrimPrefix(id, "run_id\n"))
	stdout, stderr, code = run(t, d, "show", id)
	if code != 0 || !strings.Contains(stdout, "  calibrated ") {
		t.Errorf("show %s after calibrate: exit %d, %s\n%s", id, code, stderr, stdout)
	}
}
