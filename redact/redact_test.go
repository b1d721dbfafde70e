package redact_test

import (
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/redact"
)

// the fake secrets of testdata/planted.txt (see testdata/README.md)
var planted = map[string]string{
	"aws-access-token":    "AKIAX66S2O4A2QPOASTV",
	"aws-secret":          "sNcCGctd76LCNUH1lS+2wLfKkaVE/tNMO66iv9b4",
	"github-pat":          "ghp_13Fa61ESYhD1NfFPb9jTo6z5xcIcQPzMuEGQ",
	"slack-bot-token":     "xoxb-135118130601-0624329038311-PjryAczD4UDDqcdbTmBQq79G",
	"stripe-access-token": "sk_live_ygZnhAOgshDBj1zpi4i4zBGo",
	"openai-api-key":      "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",
	"anthropic-api-key":   "sk-ant-api03-K0ksfMHM4OjHWN9cpoQZI5LBIb8azk1tCR0nIbOvV1LUBuzfkJacmIynp--TcaiG1pQ19WEzNuCxwXTjsdAs0lHL2RPYzAA",
	"jwt":                 "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJzdmMtZGVwbG95IiwiaWF0IjoxNzY3MjI1NjAwLCJzY29wZSI6ImFkbWluIn0.QF6dcSc400lsEFcwfvHCU_e-qFO81VQFL0b0aA3taBr",
	"password":            "bLg5GmNp87zraDd6uV",
	"private-key":         "tuSvXppcHsjTqu0whpfFdtOp3rzHjUsGd0wyanwfQuvxBGtpMZh4mNU5MP4fLi38",
}

func TestText(t *testing.T) {
	tests := []struct {
		name, in, want string
		n              int
	}{
		{"empty", "", "", 0},
		{"no keyword", "ok  \tgithub.com/x/y\t0.012s\nPASS\n", "ok  \tgithub.com/x/y\t0.012s\nPASS\n", 0},
		{"keyword, no secret", "the key is in the cache; token budget 8000", "the key is in the cache; token budget 8000", 0},
		{"aws access key id", "export AWS_ACCESS_KEY_ID=" + planted["aws-access-token"] + "\n", "export AWS_ACCESS_KEY_ID=[REDACTED:aws-access-token]\n", 1},
		{"aws secret (generic rule)", "aws_secret_access_key = " + planted["aws-secret"] + "\n", "aws_secret_access_key = [REDACTED:generic-api-key]\n", 1},
		{"github pat", "git clone https://" + planted["github-pat"] + "@github.com/o/r", "git clone https://[REDACTED:github-pat]@github.com/o/r", 1},
		{"slack bot token", "SLACK_BOT_TOKEN=" + planted["slack-bot-token"], "SLACK_BOT_TOKEN=[REDACTED:slack-bot-token]", 1},
		{"stripe live key", `stripe.api_key = "` + planted["stripe-access-token"] + `"`, `stripe.api_key = "[REDACTED:stripe-access-token]"`, 1},
		{"openai project key", "OPENAI_API_KEY=" + planted["openai-api-key"] + "\n", "OPENAI_API_KEY=[REDACTED:openai-api-key]\n", 1},
		{"anthropic key", "ANTHROPIC_API_KEY=" + planted["anthropic-api-key"] + "\n", "ANTHROPIC_API_KEY=[REDACTED:anthropic-api-key]\n", 1},
		{"jwt alone", "token: " + planted["jwt"] + "\n", "token: [REDACTED:jwt]\n", 1},
		// curl-auth-header and jwt both find it: one span, the first rule by id
		{"jwt in a curl header", `curl -H "Authorization: Bearer ` + planted["jwt"] + `" https://x`, `curl -H "Authorization: Bearer [REDACTED:curl-auth-header]" https://x`, 1},
		{"password", "config/db.ini:password=" + planted["password"] + "\n", "config/db.ini:password=[REDACTED:generic-api-key]\n", 1},
		// the rule ends the key at a quote, whitespace, ';' or \n: here a \"
		{"anthropic key in JSON-escaped arguments", `{"command":"curl -H \"x-api-key: ` + planted["anthropic-api-key"] + `\" https://x"}`,
			`{"command":"curl -H \"x-api-key: [REDACTED:anthropic-api-key]\" https://x"}`, 1},
		// a repository's mark of a false positive is log text here
		{"gitleaks:allow in the log", "GITHUB_TOKEN=" + planted["github-pat"] + " # gitleaks:allow", "GITHUB_TOKEN=[REDACTED:github-pat] # gitleaks:allow", 1},
		{"twice", "a " + planted["github-pat"] + " b " + planted["github-pat"] + " c", "a [REDACTED:github-pat] b [REDACTED:github-pat] c", 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, n := redact.Text(tc.in)
			if got != tc.want || n != tc.n {
				t.Errorf("Text(%q) = %q, %d; want %q, %d", tc.in, got, n, tc.want, tc.n)
			}
		})
	}
}

// TestPlanted redacts the fixture: every planted secret goes, 10 in all
// (one per line of testdata/README.md's table; the key block is one).
func TestPlanted(t *testing.T) {
	b, err := os.ReadFile("testdata/planted.txt")
	if err != nil {
		t.Fatal(err)
	}
	r, err := redact.New()
	if err != nil {
		t.Fatal(err)
	}
	got, n := r.Text(string(b))
	for name, s := range planted {
		if strings.Contains(got, s) {
			t.Errorf("%s survives: %s", name, s)
		}
	}
	if n != 10 || r.Count() != 10 {
		t.Errorf("redacted %d (count %d), want 10:\n%s", n, r.Count(), got)
	}
	var rules []string
	for _, l := range strings.Split(got, "\n") {
		if i := strings.Index(l, "[REDACTED:"); i >= 0 {
			rules = append(rules, l[i+len("[REDACTED:"):strings.Index(l, "]")])
		}
	}
	want := []string{"aws-access-token", "generic-api-key", "github-pat", "slack-bot-token", "stripe-access-token",
		"openai-api-key", "anthropic-api-key", "curl-auth-header", "generic-api-key", "private-key"}
	if diff := cmp.Diff(want, rules); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
}

func TestConcurrent(t *testing.T) {
	r, err := redact.New()
	if err != nil {
		t.Fatal(err)
	}
	in := "GITHUB_TOKEN=" + planted["github-pat"]
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				if got := r.String(in); got != "GITHUB_TOKEN=[REDACTED:github-pat]" {
					t.Errorf("got %q", got)
				}
			}
		}()
	}
	wg.Wait()
	if r.Count() != 80 {
		t.Errorf("count %d, want 80", r.Count())
	}
}

func TestNil(t *testing.T) {
	var r *redact.Redactor
	if got, n := r.Text(planted["github-pat"]); got != planted["github-pat"] || n != 0 || r.Count() != 0 {
		t.Errorf("nil Redactor: %q, %d", got, n)
	}
}

func TestHead(t *testing.T) {
	pad := strings.Repeat("x", 90) + "\n"
	key, err := os.ReadFile("testdata/planted.txt")
	if err != nil {
		t.Fatal(err)
	}
	block := string(key[strings.Index(string(key), "-----BEGIN"):])
	tests := []struct {
		name, in string
		n        int
		want     string
		redacted int
	}{
		{"short", "GITHUB_TOKEN=" + planted["github-pat"], 100, "GITHUB_TOKEN=[REDACTED:github-pat]", 1},
		{"cut before the secret", pad + "GITHUB_TOKEN=" + planted["github-pat"], 50, pad[:50], 0},
		{"secret across the cut: cut, not matched", pad + "GITHUB_TOKEN=" + planted["github-pat"], 110, (pad + "GITHUB_TOKEN=" + planted["github-pat"])[:110], 0},
		{"key block across the cut: read to its end", pad + block + pad, 100, pad + "[REDACTED:private-key]\n" + pad, 1},
		{"rune boundary", "é" + "é", 3, "é", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := redact.New()
			if err != nil {
				t.Fatal(err)
			}
			got, n := r.Head(tc.in, tc.n)
			if got != tc.want || n != tc.redacted {
				t.Errorf("Head(…, %d) = %q, %d; want %q, %d", tc.n, got, n, tc.want, tc.redacted)
			}
		})
	}
}

func TestMarkers(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"a [REDACTED:jwt] b [REDACTED:github-pat]", 2},
		{"a [REDACTED:jwt] b [REDAC…", 2},
		{"a [x] b [", 0},
		{"list[0]", 0},
	}
	for _, tc := range tests {
		if got := redact.Markers(tc.in); got != tc.want {
			t.Errorf("Markers(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
