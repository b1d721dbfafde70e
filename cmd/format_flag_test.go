package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/ingest"
)

// TestFormatFlag checks that --format forces one format for every file of
// the paths given, skipping detection: a folder of two message lists,
// which detection reads as openai-messages (the first generic format), is
// stored as anthropic-messages when ingest or report is told so; without
// the flag detection decides.
func TestFormatFlag(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.jsonl", "b.jsonl"} {
		rec := `{"messages":[{"role":"user","content":"hi from ` + name + `"},{"role":"assistant","content":"hello"}]}` + "\n" // two files, two sha256s
		if err := os.WriteFile(filepath.Join(dir, name), []byte(rec), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		args []string
		want string // source formats, one per file
	}{
		{"ingest detects", []string{"ingest", dir}, "openai-messages\nopenai-messages\n"},
		{"ingest forced", []string{"ingest", "--format", "anthropic-messages", dir}, "anthropic-messages\nanthropic-messages\n"},
		{"report forced", []string{"report"}, "anthropic-messages\nanthropic-messages\n"}, // args below: -o in a temporary folder
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := testDeps(t, nil)
			d.DB = filepath.Join(t.TempDir(), "x.duckdb")
			args := tc.args
			if args[0] == "report" {
				args = append([]string{"report", "--format", "anthropic-messages", "-o", filepath.Join(t.TempDir(), "r.html")}, dir)
			}
			if _, stderr, code := run(t, d, args...); code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, stderr)
			}
			out, stderr, code := run(t, d, "sql", "--format", "csv", "SELECT source_format FROM sources ORDER BY source_path")
			if code != 0 {
				t.Fatalf("sql: exit %d: %s", code, stderr)
			}
			if got := strings.TrimPrefix(out, "source_format\n"); got != tc.want {
				t.Errorf("formats stored %q, want %q", got, tc.want)
			}
		})
	}
}

// TestFormatFlagErrors checks --format's usage errors: an unknown name
// lists every valid one; report's --format needs PATH.
func TestFormatFlagErrors(t *testing.T) {
	tests := []struct {
		args []string
		msg  string
	}{
		{[]string{"ingest", "--format", "nope", fixtureDir}, `--format: unknown input format "nope" (known: ` + strings.Join(ingest.FormatNames(), ", ") + ")"},
		{[]string{"report", "--format", "nope", fixtureDir}, `--format: unknown input format "nope" (known: ` + strings.Join(ingest.FormatNames(), ", ") + ")"},
		{[]string{"report", "--format", "claude-code"}, "--format names the format of the files of PATH...: give PATH"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			d := testDeps(t, nil)
			d.DB = filepath.Join(t.TempDir(), "x.duckdb")
			_, stderr, code := run(t, d, tc.args...)
			if code != exitUsage || !strings.Contains(stderr, tc.msg) {
				t.Errorf("exit %d, stderr %q; want exit %d mentioning %q", code, stderr, exitUsage, tc.msg)
			}
		})
	}
}
