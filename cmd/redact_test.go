package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const leakyLog = "testdata/secrets/leaky.jsonl"

// the fake secrets of testdata/secrets/leaky.jsonl (README.md there)
var leakySecrets = []string{
	"AKIAX66S2O4A2QPOASTV",                     // AWS access key id
	"sNcCGctd76LCNUH1lS+2wLfKkaVE/tNMO66iv9b4", // AWS secret access key
	"ghp_13Fa61ESYhD1NfFPb9jTo6z5xcIcQPzMuEGQ", // GitHub PAT
	"xoxb-135118130601-0624329038311-PjryAczD4UDDqcdbTmBQq79G",
	"sk_live_ygZnhAOgshDBj1zpi4i4zBGo",
	"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",
	"sk-ant-api03-K0ksfMHM4OjHWN9cpoQZI5LBIb8azk1tCR0nIbOvV1LUBuzfkJacmIynp--TcaiG1pQ19WEzNuCxwXTjsdAs0lHL2RPYzAA",
	"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJzdmMtZGVwbG95IiwiaWF0IjoxNzY3MjI1NjAwLCJzY29wZSI6ImFkbWluIn0.QF6dcSc400lsEFcwfvHCU_e-qFO81VQFL0b0aA3taBr",
	"bLg5GmNp87zraDd6uV", // password=
	"tuSvXppcHsjTqu0whpfFdtOp3rzHjUsGd0wyanwfQuvxBGtpMZh4mNU5MP4fLi38", // a line of the private key
}

// shown is what of a secret a cut text can show: its first 12 characters.
func shown(s string) string { return s[:12] }

// TestReportRedacts ingests the leaky log and writes the page: by default
// no secret (nor its first 12 characters) is on it and the header says 9
// were redacted (hand-counted: README.md there); with --no-redact they are
// there, and the header says so.
func TestReportRedacts(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		line     string
		visible  []string // secrets on the page (their first 12 characters: the targets are cut)
		redacted bool
	}{
		{"default", nil, "9 secrets redacted in the log text shown (--no-redact to keep them).", nil, true},
		{"no-redact", []string{"--no-redact"}, "Log text is shown as logged: secrets are not redacted (--no-redact).",
			[]string{leakySecrets[0], leakySecrets[2], leakySecrets[7], leakySecrets[8], leakySecrets[9]}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := testDeps(t, nil)
			d.DB = filepath.Join(t.TempDir(), "x.duckdb")
			page := filepath.Join(t.TempDir(), "page.html")
			args := append([]string{"report", "-o", page, leakyLog}, tc.args...)
			if _, stderr, code := run(t, d, args...); code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			b, err := os.ReadFile(page)
			if err != nil {
				t.Fatal(err)
			}
			html := string(b)
			if !strings.Contains(html, tc.line) {
				t.Errorf("page lacks %q", tc.line)
			}
			for _, s := range leakySecrets {
				on := strings.Contains(html, shown(s))
				if tc.redacted && on {
					t.Errorf("page shows %s…", shown(s))
				}
			}
			for _, s := range tc.visible {
				if !strings.Contains(html, shown(s)) {
					t.Errorf("--no-redact: page lacks %s…", shown(s))
				}
			}
			if n := strings.Count(html, "[REDACTED:"); tc.redacted != (n > 0) {
				t.Errorf("%d markers on the page", n)
			}
		})
	}
}

// TestShowRedacts: trajmine show prints no secret, in text or JSON (13
// markers there: README.md), unless --no-redact.
func TestShowRedacts(t *testing.T) {
	d := testDeps(t, nil)
	d.DB = filepath.Join(t.TempDir(), "x.duckdb")
	if _, stderr, code := run(t, d, "ingest", leakyLog); code != 0 {
		t.Fatal(stderr)
	}
	tests := []struct {
		args    []string
		markers int      // -1: some
		visible []string // secrets printed
	}{
		{[]string{"show", "leaky-deploy"}, -1, nil},
		{[]string{"show", "--json", "leaky-deploy"}, 13, nil},
		{[]string{"show", "--no-redact", "leaky-deploy"}, 0, []string{shown(leakySecrets[0]), shown(leakySecrets[8])}},
		{[]string{"show", "--json", "--no-redact", "leaky-deploy"}, 0, leakySecrets},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args[1:], " "), func(t *testing.T) {
			stdout, stderr, code := run(t, d, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			n := strings.Count(stdout, "[REDACTED:")
			if tc.markers >= 0 && n != tc.markers || tc.markers < 0 && n == 0 {
				t.Errorf("%d markers, want %d\n%s", n, tc.markers, stdout)
			}
			for _, s := range leakySecrets {
				if len(tc.visible) == 0 && strings.Contains(stdout, shown(s)) {
					t.Errorf("prints %s…", shown(s))
				}
			}
			for _, s := range tc.visible {
				if !strings.Contains(stdout, s) {
					t.Errorf("lacks %s", s)
				}
			}
		})
	}
}
