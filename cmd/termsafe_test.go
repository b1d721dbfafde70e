package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTermSafe(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text\nwith\ttabs", "plain text\nwith\ttabs"},
		{"red \x1b[31mALERT\x1b[0m", `red \x1b[31mALERT\x1b[0m`},
		{"title \x1b]0;pwned\x07", `title \x1b]0;pwned\x07`},
		{"csi \u009b31m", `csi \u009b31m`},
		{"over\rwrite", `over\x0dwrite`},
		{"bs\b del\x7f", `bs\x08 del\x7f`},
		{"bad \xff byte", `bad \xff byte`},
		{"émoji ✓ 日本", "émoji ✓ 日本"},
	} {
		if got := termSafe(tc.in); got != tc.want {
			t.Errorf("termSafe(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	var b strings.Builder
	w := safeWriter{w: &b, keepCR: true}
	w.Write([]byte("50%\r\x1b[2K"))
	if got := b.String(); got != `50%`+"\r"+`\x1b[2K` {
		t.Errorf("safeWriter keepCR: %q", got)
	}
}

// TestNoTerminalEscapesFromLogs: a session id carrying a colour sequence and
// an OSC window-title sequence, and a malformed line with an escape in it,
// reach neither `show` nor the ingest warnings raw (issue 19.8).
func TestNoTerminalEscapesFromLogs(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(fixtureDir, "split_responses.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	hostile := strings.ReplaceAll(string(data), `"s-split"`, `"s-\u001b[31mred\u001b]0;pwned\u0007"`)
	hostile += "{\"type\":\"assistant\",\"sessionId\":\"s\u001b[2J\x1b[H\",broken\n"
	dir := t.TempDir()
	p := filepath.Join(dir, "hostile.jsonl")
	if err := os.WriteFile(p, []byte(hostile), 0o644); err != nil {
		t.Fatal(err)
	}
	d := testDeps(t, nil)
	d.DB = filepath.Join(dir, "t.duckdb")
	_, stderr, code := run(t, d, "ingest", p)
	if code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "hostile.jsonl:15:") || strings.ContainsAny(stderr, "\x1b\x07") {
		t.Errorf("ingest stderr not positioned or not escaped: %q", stderr)
	}
	stdout, stderr, code := run(t, d, "show", "s-")
	if code != 0 {
		t.Fatalf("show: exit %d: %s", code, stderr)
	}
	if strings.ContainsAny(stdout, "\x1b\x07") || !strings.Contains(stdout, `run s-\x1b[31mred\x1b]0;pwned\x07`) {
		t.Errorf("show printed escapes raw or not visibly:\n%q", stdout[:min(len(stdout), 300)])
	}
}

// TestJSONEscapesC1 is issue 31.6: `show --json` to a pipe printed the C1
// control U+009B (a CSI to a terminal) as its raw bytes while ESC was
// escaped. Every JSON trajmine prints writes C1 controls as \u00XX, and
// the output still decodes to the logged text.
func TestJSONEscapesC1(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(fixtureDir, "split_responses.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	const id = "s-\u009b31mred\u0085x"
	hostile := strings.ReplaceAll(string(data), `"s-split"`, `"`+id+`"`)
	dir := t.TempDir()
	p := filepath.Join(dir, "c1.jsonl")
	if err := os.WriteFile(p, []byte(hostile), 0o644); err != nil {
		t.Fatal(err)
	}
	d := testDeps(t, nil)
	d.DB = filepath.Join(dir, "t.duckdb")
	if _, stderr, code := run(t, d, "ingest", p); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	for _, args := range [][]string{{"show", "--json", "s-"}, {"runs", "--json"}, {"sql", "--format", "json", "SELECT run_id FROM runs"}} {
		stdout, stderr, code := run(t, d, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		if strings.Contains(stdout, "\u009b") || strings.Contains(stdout, "\u0085") {
			t.Errorf("%v printed a raw C1 control", args)
		}
		if !strings.Contains(stdout, `s-\u009b31mred\u0085x`) {
			t.Errorf("%v: the id is not written with \\u escapes:\n%.300s", args, stdout)
		}
		var v any
		if err := json.Unmarshal([]byte(stdout), &v); err != nil {
			t.Errorf("%v: not JSON: %v", args, err)
		} else if !strings.Contains(fmt.Sprint(v), id) {
			t.Errorf("%v: the decoded output lost the logged id", args)
		}
	}
}

func TestEscapeC1(t *testing.T) {
	tests := []struct{ in, want string }{
		{`"plain"`, `"plain"`},
		{"\"\u0080\u009f\"", `"\u0080\u009f"`},
		{"\"\u00a0é\u0100\"", "\"\u00a0é\u0100\""}, // U+00A0 and above are not controls
		{"\"a\u009bb\"", `"a\u009bb"`},
	}
	for _, tc := range tests {
		if got := string(escapeC1([]byte(tc.in))); got != tc.want {
			t.Errorf("escapeC1(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
