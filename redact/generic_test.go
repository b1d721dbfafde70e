package redact

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// genericFindings is what genericRule finds in s, as match and secret,
// sorted: over the whole of s, or over each of its generic windows.
func genericFindings(t testing.TB, s string, windows bool) []string {
	d, err := detector()
	if err != nil {
		t.Fatal(err)
	}
	parts := []string{s}
	if windows {
		parts = genericWindows(s, d.keywords)
	}
	var out []string
	for _, p := range parts {
		for _, f := range d.generic.DetectString(p) {
			out = append(out, f.Match+"\x00"+f.Secret)
		}
	}
	slices.Sort(out)
	return out
}

// TestGenericWindows: the windows are the keyword lines, up to 8 blank
// lines after each and the line after those, joined when they touch.
func TestGenericWindows(t *testing.T) {
	d, err := detector()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"no keyword", "ok\nPASS\n", nil},
		{"one line", "token = abcdefghij0123", []string{"token = abcdefghij0123"}},
		{"keyword line and the next, with the newline before", "a\nb\napi_key =\n  x1y2z3w4v5u6\nc\nd\n", []string{"\napi_key =\n  x1y2z3w4v5u6\n"}},
		{"blank lines between", "x\nSECRET\n\"\n=\n\n'abcdefghijkl'\ny\n", []string{"\nSECRET\n\"\n=\n\n'abcdefghijkl'\n"}},
		{"8 blank lines at most", "key\n" + strings.Repeat("\n", 9) + "z\n", []string{"key\n" + strings.Repeat("\n", 9)}},
		{"two windows", "key: 1\nx\ny\nz\ntoken: 2\nw\nv\n", []string{"key: 1\nx\n", "\ntoken: 2\nw\n"}},
		{"touching windows joined", "key: 1\nx\ntoken: 2\nw\nv\n", []string{"key: 1\nx\ntoken: 2\nw\n"}},
		{"all one window: s", "key: 1\nx", []string{"key: 1\nx"}},
		{"folded s and a keyword: the whole text", "a\nſecret = q1w2e3r4t5y6\nb\nc\ntoken\n", []string{"a\nſecret = q1w2e3r4t5y6\nb\nc\ntoken\n"}},
		{"folded s, no keyword: none (gitleaks runs no rule)", "a\nſecret = q1w2e3r4t5y6\nb\n", nil},
		{"Kelvin sign: the whole text", "\u212Aey = q1w2e3r4t5y6\ntoken\nz\nz\n", []string{"\u212Aey = q1w2e3r4t5y6\ntoken\nz\nz\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := genericWindows(tc.in, d.keywords)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestGenericWindowsFind: on the planted secrets and on texts where the
// rule matches across lines, the windows find what the whole text does.
func TestGenericWindowsFind(t *testing.T) {
	planted, err := os.ReadFile("testdata/planted.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		string(planted),
		"x\npassword\n\"\n=\n\n'bLg5GmNp87zraDd6uV'\ny\n",
		"aws_secret_access_key = sNcCGctd76LCNUH1lS+2wLfKkaVE/tNMO66iv9b4\nmore\nkey:\tQ9w8E7r6T5y4U3i2\n",
		"ſecret = bLg5GmNp87zraDd6uV\nx\ny\nz\ntoken\n",
	} {
		if len(genericFindings(t, s, false)) == 0 {
			t.Errorf("%q: the rule finds nothing: not a test of the windows", s)
		}
		sameFindings(t, s)
	}
}

// sameFindings fails t unless the windows of s find what s does, but for
// what gitleaks allowlists in s by a line that is all of s up to a match
// on its last line (genericWindows): such a match, in the windows only,
// is in the last line of s, which has no newline at its end.
func sameFindings(t *testing.T, s string) {
	t.Helper()
	whole, win := genericFindings(t, s, false), genericFindings(t, s, true)
	last := s[strings.LastIndexByte(s, '\n')+1:]
	for _, f := range win {
		if i, found := slices.BinarySearch(whole, f); found {
			whole = slices.Delete(whole, i, i+1)
			continue
		}
		if match, _, _ := strings.Cut(f, "\x00"); !strings.Contains(last, strings.TrimLeft(match, "\n")) {
			t.Errorf("%q: the windows find %q, not on the last line (%q)", s, f, last)
		}
	}
	if len(whole) > 0 {
		t.Errorf("%q: the windows miss %q", s, whole)
	}
}

// FuzzGenericWindows: genericRule finds the same matches and secrets in
// the generic windows of a text as in the whole text (sameFindings).
func FuzzGenericWindows(f *testing.F) {
	for _, s := range []string{
		"token = abcdefghij0123",
		"api_key =\n  x1y2z3w4v5u6\n",
		"SECRET\n\"\n=\n\n'abcdefghijkl'\ny\n",
		"primary_key = 'abcdef0123456789'\nmonkey: q1w2e3r4t5y6u7\n",
		"ſecret = q1w2e3r4t5y6\n",
		"key\n\n\n\n\n\n\n\n\n= zzqqxxyyww11\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { sameFindings(t, s) })
}

// TestGenericWindowsLastLine: gitleaks allowlists a key on the last line
// of a text without a final newline when an import stands anywhere
// before it (its line is then all of the text); the windows find it, as
// gitleaks does when the text ends in a newline.
func TestGenericWindowsLastLine(t *testing.T) {
	src := "import { get } from './http'\n\nconst apiKey = 'q1W2e3R4t5Y6u7I8o9'"
	want := []string{"apiKey = 'q1W2e3R4t5Y6u7I8o9'\x00q1W2e3R4t5Y6u7I8o9"}
	tests := []struct {
		name, in string
		whole    []string
	}{
		{"no final newline: gitleaks allowlists it", src, nil},
		{"final newline: gitleaks finds it", src + "\n", want},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.whole, genericFindings(t, tc.in, false)); diff != "" {
				t.Errorf("whole text (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want, genericFindings(t, tc.in, true)); diff != "" {
				t.Errorf("windows (-want +got):\n%s", diff)
			}
		})
	}
}
