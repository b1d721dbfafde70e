package eventlog

import (
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	for _, tc := range []struct {
		in    string
		limit int
		want  string
	}{
		{"plain", 0, "plain"},
		{"tab\tnl\ncr\r", 0, "tab\tnl\ncr\r"},
		{"a\x00b\x01c\x1fd\x7fe", 0, "abcd\x7fe"},
		{"bad\xffutf8\xc3", 0, "bad\ufffdutf8\ufffd"},
		{"nonchar\ufffe\uffff.", 0, "nonchar."},
		{"emoji 😀", 0, "emoji 😀"},
		{"abcdef", 3, "abc"},
		{"\x00abcdef", 3, "abc"},
		{"é😀ab", 2, "é😀"},
		{"", 5, ""},
	} {
		if got := clean(tc.in, tc.limit); got != tc.want {
			t.Errorf("clean(%q, %d) = %q, want %q", tc.in, tc.limit, got, tc.want)
		}
	}
}

func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "plain", `q"b\s`, "ctl\x00\x01\x1f\t\n\r", "bad\xff", "😀 \u2028 </script>"} {
		b := appendJSONString(nil, s)
		var back string
		if err := json.Unmarshal(b, &back); err != nil {
			t.Errorf("appendJSONString(%q) = %s: not JSON: %v", s, b, err)
			continue
		}
		want := strings.ToValidUTF8(s, "\ufffd")
		if back != want {
			t.Errorf("appendJSONString(%q) reads back as %q, want %q", s, back, want)
		}
	}
}

// FuzzClean checks that cleaned text is valid UTF-8 made of XML 1.0
// characters only, survives an XML attribute and a JSON string unchanged,
// and that clean is idempotent.
func FuzzClean(f *testing.F) {
	for _, s := range []string{"", "<script>]]>", "\x00\x01\xff\xfe", "\ufffe\uffff\U0010FFFF", "a\r\nb\tc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := clean(s, 0)
		if !utf8.ValidString(c) {
			t.Fatalf("clean(%q) = %q: invalid UTF-8", s, c)
		}
		for _, r := range c {
			if !xmlChar(r) {
				t.Fatalf("clean(%q) = %q holds %U", s, c, r)
			}
		}
		if clean(c, 0) != c {
			t.Fatalf("clean not idempotent on %q", s)
		}
		var sb strings.Builder
		sb.WriteString(`<a v="`)
		if err := xml.EscapeText(&sb, []byte(c)); err != nil {
			t.Fatal(err)
		}
		sb.WriteString(`"/>`)
		var el struct {
			V string `xml:"v,attr"`
		}
		if err := xml.Unmarshal([]byte(sb.String()), &el); err != nil {
			t.Fatalf("escaped %q does not parse: %v", c, err)
		}
		if el.V != c {
			t.Fatalf("XML attribute reads back %q, want %q", el.V, c)
		}
		var back string
		if err := json.Unmarshal(appendJSONString(nil, c), &back); err != nil || back != c {
			t.Fatalf("JSON string reads back %q (%v), want %q", back, err, c)
		}
	})
}
