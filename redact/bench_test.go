package redact_test

import (
	"strings"
	"testing"

	"github.com/trajmine/trajmine/redact"
)

// Realistic tool outputs, as the page previews them (240 characters) and as
// trajmine show --json prints them whole (a few KiB): a test run's log
// (no rule keyword) and a source file read (keywords such as "key" and
// "token" occur, so the rules that use them run; no secret).
var benchTexts = []struct{ name, text string }{
	{"pytest", strings.Repeat(`============================= test session starts ==============================
platform linux -- Python 3.12.3, pytest-8.2.0, pluggy-1.5.0
rootdir: /repo
collected 48 items

tests/test_rolling.py ....F...........................................    [100%]
tests/test_window.py::test_window_size FAILED
E       AssertionError: assert [(1, 2), (2, 3)] == [(1, 2), (2, 3), (3, 4)]
`, 6)},
	{"source", strings.Repeat(`def get_cached(self, key: str, *, token_budget: int = 8000) -> Optional[Entry]:
    """Return the cache entry for key, or None when it expired."""
    entry = self._entries.get(key)
    if entry is None or entry.expires_at < time.monotonic():
        return None
    self.hits += 1
    return entry
`, 6)},
}

// BenchmarkRedact is Redactor.Text on each text, whole and as a 240-
// character preview; BenchmarkRedactBaseline is the plain copy of the same
// text (what the page does without redaction).
func BenchmarkRedact(b *testing.B) {
	r, err := redact.New()
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range benchTexts {
		for _, size := range []struct {
			name string
			n    int
		}{{"preview", 240}, {"whole", len(tc.text)}} {
			s := tc.text[:size.n]
			b.Run(tc.name+"/"+size.name, func(b *testing.B) {
				b.SetBytes(int64(len(s)))
				for b.Loop() {
					r.Text(s)
				}
			})
		}
	}
}

var sink string

func BenchmarkRedactBaseline(b *testing.B) {
	for _, tc := range benchTexts {
		for _, size := range []struct {
			name string
			n    int
		}{{"preview", 240}, {"whole", len(tc.text)}} {
			s := tc.text[:size.n]
			b.Run(tc.name+"/"+size.name, func(b *testing.B) {
				b.SetBytes(int64(len(s)))
				for b.Loop() {
					sink = strings.Clone(s)
				}
			})
		}
	}
}
