package redact

import (
	"strings"
	"testing"
)

// FuzzURLPasswords: the scanner never panics; its spans are in order,
// apart, inside the text, each between a ':' and an '@' with no
// authority terminator in it; and the text with them replaced by markers
// has no URL password left.
func FuzzURLPasswords(f *testing.F) {
	for _, s := range []string{
		"postgres://user:pass@host/db",
		"redis://:p@h",
		"https://example.com/@user",
		"a://b:c@d://e:f@g",
		"postgres://u:p@ss@h/db",
		"x://" + strings.Repeat("a:", 600) + "@h",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp := urlPasswords(s)
		last := 0
		for _, p := range sp {
			if p.start < last || p.end <= p.start || p.end > len(s) || p.rule != URLPasswordRule {
				t.Fatalf("span %+v after %d in %q", p, last, s)
			}
			if s[p.start-1] != ':' || s[p.end] != '@' {
				t.Fatalf("span %+v of %q is not between ':' and '@'", p, s)
			}
			for i := p.start; i < p.end; i++ {
				if authorityEnd(s[i]) {
					t.Fatalf("span %+v of %q holds %q", p, s, s[i])
				}
			}
			last = p.end
		}
		var b strings.Builder
		last = 0
		for _, p := range sp {
			b.WriteString(s[last:p.start])
			b.WriteString(Marker(p.rule))
			last = p.end
		}
		b.WriteString(s[last:])
		if again := urlPasswords(b.String()); len(again) != 0 {
			t.Fatalf("%q redacted is %q, which still has %+v", s, b.String(), again)
		}
	})
}
