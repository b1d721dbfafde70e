package ingest

import (
	"path/filepath"
	"testing"

	"github.com/trajmine/trajmine/internal/testutil"
)

// TestCanonicalFast pins what the fast path writes, against canonical
// forms written by hand, and which texts it leaves to the decoder.
func TestCanonicalFast(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{`{"b":1,"a":"x"}`, `{"a":"x","b":1}`, true},
		{` { "z" : [ 1 , 2.50 , -0 , 1E5 , true , null , { "y" : { } , "x" : [ ] } ] } `, `{"z":[1,2.50,-0,1E5,true,null,{"x":[],"y":{}}]}`, true},
		{`{"cmd":"ls \"a b\"\n\tcd \\ x\/y\r<&>—é"}`, `{"cmd":"ls \"a b\"\n\tcd \\ x/y\r<&>—é"}`, true},
		{`"top"`, `"top"`, true},
		{`{"B":1,"a":2,"_":3}`, `{"B":1,"_":3,"a":2}`, true}, // byte order: 'B' < '_' < 'a'
		// left to the decoder
		{`{"a":1,"a":2}`, ``, false},       // repeated key
		{`{"<k>":1}`, ``, false},           // a key the encoder escapes
		{`{"k\n":1}`, ``, false},           // a key with an escape
		{`{"é":1}`, ``, false},             // a key outside ASCII
		{`{"a":"x\by"}`, ``, false},        // \b: written \u0008
		{`{"a":"x\u0041"}`, ``, false},     // \u escape
		{"{\"a\":\"x\u2028\"}", ``, false}, // U+2028: escaped by the encoder
		{"{\"a\":\"x\x01\"}", ``, false},   // raw control character
		{`{"a":"x\qy"}`, ``, false},        // invalid escape
		{`{"a":1} {"b":2}`, ``, false},     // two values
		{`{"a":}`, ``, false},              // invalid JSON
	} {
		got, ok := canonicalFast([]byte(tc.in))
		if ok != tc.ok || got != tc.want {
			t.Errorf("canonicalFast(%s) = %s, %v; want %s, %v", tc.in, got, ok, tc.want, tc.ok)
		}
		if want := canonicalDecoded([]byte(tc.in)); ok && got != want {
			t.Errorf("canonicalFast(%s) = %s, the decoder's %s", tc.in, got, want)
		}
	}
}

// FuzzCanonicalJSON checks that the fast path, where it takes a text,
// writes what the decoder and encoder write. Seeds: the tool inputs of the
// Claude Code fixtures and corpus, and the cases above.
func FuzzCanonicalJSON(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":"x"}`, `{"cmd":"ls \"a b\"\n\tcd \\ x\/y\r<&>—é"}`, `[1,2.50,-0,1E5,true,null]`,
		`{"a":"x\by"}`, "{\"a\":\"x\u2028\"}", `{"a":1,"a":2}`, `{"<k>":1}`, `"s"`, `12`} {
		f.Add([]byte(s))
	}
	lines := ccLinesOf(f, "testdata/claude-code/*.jsonl", filepath.Join(testutil.RepoRoot(), "..", "shared", "corpus", "claude-code", "*.jsonl"))
	n := 0
	for _, l := range lines {
		var d ccLine
		if !decodeCCLineFast(l, &d) {
			continue
		}
		for _, b := range d.blocks {
			if b.Input != nil && n < 500 {
				f.Add([]byte(b.Input))
				n++
			}
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, ok := canonicalFast(raw)
		if !ok {
			return
		}
		if want := canonicalDecoded(raw); got != want {
			t.Fatalf("canonicalFast(%q) = %q, the decoder's %q", raw, got, want)
		}
	})
}
