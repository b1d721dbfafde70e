package ingest

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"
	"github.com/trajmine/trajmine/internal/testutil"
)

// unmarshalDecodes is what every detector tested before lineDecodes: that
// json.Unmarshal of the line returns nil (its error explained, then
// dropped).
func unmarshalDecodes(line []byte, v any) bool { return json.Unmarshal(line, v) == nil }

// decodeEveryLine is mayHoldType off: every line is decoded, as before
// anyJSONLOf.
func decodeEveryLine([]byte, []string) bool { return true }

// detectClaims is what detection says of a head: every candidate, in
// order, and DetectFormat's pick or its error.
func detectClaims(name string, head []byte) string {
	var b strings.Builder
	for _, im := range Candidates(name, head) {
		b.WriteString(im.Name() + " ")
	}
	b.WriteString("→ ")
	im, err := DetectFormat(name, head)
	switch {
	case err != nil:
		b.WriteString("error: " + err.Error())
	default:
		b.WriteString(im.Name())
	}
	return b.String()
}

// detectHeads are the heads detection is tried on for one file: the head
// ingest reads, the same cut inside its last line (a line cut by the head)
// and cut at a third of it, and the head from its second line on (a first
// line cut off in front).
func detectHeads(data []byte) [][]byte {
	head := data[:min(len(data), HeadSize)]
	heads := [][]byte{head}
	if len(head) > 2 {
		heads = append(heads, head[:len(head)-2], head[:len(head)/3])
	}
	if i := bytes.IndexByte(head, '\n'); i > 0 && i < len(head)-1 {
		heads = append(heads, head[i/2:])
	}
	return heads
}

// compareDecodes runs detection on every head of every file under root
// with detection's shortcuts (lineDecodes, mayHoldType) and without them
// (unmarshalDecodes, decodeEveryLine), and fails on any claim that
// differs. It returns how many heads it judged, how many line decodes
// failed (the lines whose error json.Decodes does not explain) and how
// many lines or heads mayHoldType passed over.
func compareDecodes(t *testing.T, root string) (heads, failed, passed int) {
	t.Helper()
	counting := func(decodes func([]byte, any) bool) func([]byte, any) bool {
		return func(line []byte, v any) bool {
			ok := decodes(line, v)
			if !ok {
				failed++
			}
			return ok
		}
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, head := range detectHeads(data) {
			lineDecodes = counting(json.Decodes)
			mayHoldType = func(b []byte, types []string) bool {
				ok := holdsType(b, types)
				if !ok {
					passed++
				}
				return ok
			}
			fast := detectClaims(path, head)
			lineDecodes, mayHoldType = unmarshalDecodes, decodeEveryLine
			slow := detectClaims(path, head)
			lineDecodes, mayHoldType = json.Decodes, holdsType
			if fast != slow {
				t.Errorf("%s (head of %d bytes): with json.Decodes %q, with json.Unmarshal %q", path, len(head), fast, slow)
			}
			heads++
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return heads, failed, passed
}

// TestDetectDecodesClaims shows that detection with its shortcuts, line
// decodes through json.Decodes (no error explained) and the lines
// anyJSONLOf passes over undecoded, claims exactly what it claimed with
// json.Unmarshal's nil test on every line, on every fixture under testdata and every file of the shared
// corpora, each head whole, cut inside its last line, cut at a third, and
// without the front of its first line.
func TestDetectDecodesClaims(t *testing.T) {
	defer func() { lineDecodes, mayHoldType = json.Decodes, holdsType }()
	roots := []struct {
		name string
		root func(t *testing.T) string
	}{
		{"testdata", func(*testing.T) string { return "testdata" }},
		{"corpus", func(t *testing.T) string { return testutil.CorpusDir(t) }},
		{"corpus-more", func(t *testing.T) string { return testutil.SharedDir(t, "corpus-more") }},
		{"corpus-outcomes", func(t *testing.T) string { return testutil.SharedDir(t, "corpus-outcomes") }},
	}
	for _, r := range roots {
		t.Run(r.name, func(t *testing.T) {
			heads, failed, passed := compareDecodes(t, r.root(t))
			// every root holds JSONL files longer than a third of a
			// head's last line, so cut heads have lines that fail, and
			// JSONL files of other formats than Kimi's, OpenClaw's and
			// Copilot CLI's, whose heads anyJSONLOf passes over
			if heads == 0 || failed == 0 || passed == 0 {
				t.Fatalf("%d heads judged, %d line decodes failed, %d passed over: the comparison did not run through lineDecodes and mayHoldType", heads, failed, passed)
			}
			t.Logf("%d heads, %d failed line decodes, %d passed over undecoded", heads, failed, passed)
		})
	}
}

// TestAnyJSONLOf: the lines anyJSONLOf passes over are only those whose
// type cannot be one it claims; a type written with \u escapes, or a line
// whose type is not the text that holds it, is decoded and judged (want
// by hand).
func TestAnyJSONLOf(t *testing.T) {
	types := []string{"turn.prompt", "metadata"}
	claims := func(r *struct {
		Type string `json:"type"`
	}) bool {
		return slices.Contains(types, r.Type)
	}
	cases := []struct {
		name, head string
		want       bool
	}{
		{"the type as it is", `{"type":"turn.prompt"}`, true},
		{"the type on the second line", "{\"type\":\"x\"}\n\n{\"type\":\"metadata\"}\n", true},
		{"a letter as a \\u escape", `{"type":"turn.\u0070rompt"}`, true},
		{"every letter as a \\u escape", `{"type":"\u006d\u0065\u0074\u0061\u0064\u0061\u0074\u0061"}`, true},
		{"the key in capitals", `{"TYPE":"metadata"}`, true},
		{"the text in another field", `{"type":"x","note":"turn.prompt"}`, false},
		{"no type of the list", `{"type":"user","message":"hello"}`, false},
		{"a type that holds one", `{"type":"turn.prompt2"}`, false},
		{"an escape that is not \\u", `{"type":"turn.\/prompt"}`, false},
		{"the type past line n", "{}\n{}\n{\"type\":\"metadata\"}\n", false},
		{"cut off", `{"type":"turn.prompt"`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := anyJSONLOf([]byte(c.head), 2, types, claims); got != c.want {
				t.Errorf("anyJSONLOf(%s) = %v, want %v", c.head, got, c.want)
			}
		})
	}
}

// TestDetectTypesLiteral: every type list anyJSONLOf is given holds only
// texts no JSON escape but \u writes, as its pass-over needs.
func TestDetectTypesLiteral(t *testing.T) {
	for name, types := range map[string][]string{"kimi": kimiDetectTypes, "openclaw": ocDetectTypes, "copilot": copilotDetectTypes} {
		if len(types) == 0 {
			t.Errorf("%s: no types", name)
		}
		for _, ty := range types {
			if !typeLiteral(ty) {
				t.Errorf("%s: type %q has a character a JSON escape other than \\u writes", name, ty)
			}
		}
	}
	for _, c := range []struct {
		t    string
		want bool
	}{{"turn.prompt", true}, {"tool.execution_start", true}, {"a-b", true}, {"", false}, {"a/b", false}, {"a b", false}, {`a"b`, false}, {"é", false}} {
		if got := typeLiteral(c.t); got != c.want {
			t.Errorf("typeLiteral(%q) = %v, want %v", c.t, got, c.want)
		}
	}
}
