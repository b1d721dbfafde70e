package ingest

import (
	stdjson "encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/internal/testutil"
)

// TestReducedLinesDecodeAlike shows that the reduced decoding of head lines
// (detect_reduce.go) changes nothing: on every fixture under testdata and
// every file of the shared corpora, each head whole, cut inside its last
// line, cut at a third and without the front of its first line, every line
// a detector decodes reduced is decoded whole too, and both must decode or
// fail alike, into equal values; and every candidate and DetectFormat's
// pick are those of detection with every line decoded whole.
func TestReducedLinesDecodeAlike(t *testing.T) {
	defer func() { checkReduced, reduceLines = nil, true }()
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
			var lines, shorter, failed int
			checkReduced = func(whole, reduced []byte, wholeOK, reducedOK bool, wholeV, reducedV any) {
				lines++
				if len(reduced) < len(whole) {
					shorter++
				}
				if !wholeOK {
					failed++
				}
				if wholeOK != reducedOK || wholeOK && !reflect.DeepEqual(wholeV, reducedV) {
					t.Errorf("%T: line %.200q decodes %v into %+v; reduced to %.200q, %v into %+v", wholeV, whole, wholeOK, wholeV, reduced, reducedOK, reducedV)
				}
			}
			heads := eachFixtureHead(t, r.root(t), func(path string, head []byte) {
				reduceLines = true
				fast := detectClaims(path, head)
				reduceLines = false
				whole := detectClaims(path, head)
				reduceLines = true
				if fast != whole {
					t.Errorf("%s (head of %d bytes): reduced %q, whole %q", path, len(head), fast, whole)
				}
			})
			// lines were reduced, some shorter, and some fail to decode
			// (a record type another detector's struct does not take)
			if heads == 0 || lines == 0 || shorter == 0 {
				t.Fatalf("%d heads, %d lines decoded both ways, %d shorter reduced: the comparison did not run", heads, lines, shorter)
			}
			t.Logf("%d heads, %d lines decoded both ways (%d shorter reduced, %d failed)", heads, lines, shorter, failed)
		})
	}
}

// fuzzRecord is a struct of every kind of field the detectors read.
type fuzzRecord struct {
	Type      string             `json:"type"`
	SessionID *string            `json:"sessionId"`
	Data      stdjson.RawMessage `json:"data"`
	N         int                `json:"n"`
	F         float64
	Tags      []string          `json:"tags,omitempty"`
	Sub       struct{ A any }   `json:"sub"`
	Meta      map[string]string `json:"meta"`
	Flag      bool              `json:"flag,string"`
	skipped   string            // unexported: never filled
}

// skippedField keeps fuzzRecord.skipped read: a line with a "skipped" key
// must leave it empty, reduced or not.
func (r *fuzzRecord) skippedField() string { return r.skipped }

// FuzzReducedLine: any line spanLine accepts decodes reduced as it does
// whole, into an equal value.
func FuzzReducedLine(f *testing.F) {
	for _, s := range []string{
		`{"type":"user","message":{"content":"hi"},"sessionId":"s"}`,
		`{"TYPE":"a","Type":"b","type":"c"}`,
		`{"type":1}`,
		`{"typ":"x","types":["y"],"ty\u0070e":"z"}`,
		`{"sessionid":null,"SESSIONID":"q","data":{"k":[1,2,{"x":"\u00e9"}]}}`,
		`{"n":1e3,"f":-0.5,"tags":["a",null],"meta":{"a":"b"}}`,
		`{"sub":{"a":[true,false,null]},"flag":"true","skipped":"s"}`,
		`{"ſessionId":"long s","K":1}`,
		`{"x":"\ud83d\ude00","type":"emoji"}`,
		`{ "type" : "spaced" , "data" : [ ] }`,
		`{}`,
		`{"a":"\x01raw control","type":"t"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		sl := spanLine(line)
		if !sl.ok {
			return
		}
		names := namesOf[fuzzRecord]()
		reduced := sl.reduced(names)
		var whole, red fuzzRecord
		wholeOK := lineDecodes(line, &whole)
		redOK := lineDecodes(reduced, &red)
		if whole.skippedField() != "" || red.skippedField() != "" {
			t.Errorf("line %q filled an unexported field", line)
		}
		if wholeOK != redOK || wholeOK && !reflect.DeepEqual(whole, red) {
			t.Errorf("line %q decodes %v into %+v; reduced to %q, %v into %+v", line, wholeOK, whole, reduced, redOK, red)
		}
	})
}

// TestStructNames: the field names a struct's lines are reduced to, with
// those of a struct a field holds (name{…}), or none (decoded whole, "-")
// for a type with its own decoding, an embedded field or a tag name the
// decoders may not take as it is.
func TestStructNames(t *testing.T) {
	type inner struct{ A string }
	for _, tc := range []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[fuzzRecord](), "data f flag meta n sessionid sub{a} tags type"},
		{reflect.TypeFor[struct {
			A string `json:"-"`
			B string `json:",omitempty"`
		}](), "b"},
		{reflect.TypeFor[struct{ inner }](), "-"},
		{reflect.TypeFor[struct {
			A string `json:"a b"`
		}](), "-"},
		{reflect.TypeFor[stdjson.RawMessage](), "-"},
		{reflect.TypeFor[selfDecoding](), "-"},
		// held structs: by pointer too, one level down only; not one
		// decoded by itself, nor under a name two fields share, nor
		// with an option other than omitempty
		{reflect.TypeFor[struct {
			M *struct {
				Role string `json:"role"`
				Deep struct{ X int }
			} `json:"message"`
			S  selfDecoding
			D1 inner `json:"d"`
			D2 inner `json:"D"`
			Q  inner `json:"q,omitzero"`
			O  inner `json:"o,omitempty"`
		}](), "d message{deep role} o{a} q s"},
	} {
		if got := describeFields(structNames(tc.typ, 1)); got != tc.want {
			t.Errorf("structNames(%v) = %s, want %s", tc.typ, got, tc.want)
		}
	}
}

// describeFields writes names as their sorted keys, each with the fields
// of what it holds in braces, or "-" for none.
func describeFields(names structFields) string {
	if names == nil {
		return "-"
	}
	var keys []string
	for k := range names {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k)
		if sub := names[k]; sub != nil {
			b.WriteString("{" + describeFields(sub) + "}")
		}
	}
	return b.String()
}

// selfDecoding decodes itself: its lines are decoded whole.
type selfDecoding struct{ A string }

func (s *selfDecoding) UnmarshalJSON(b []byte) error { s.A = string(b); return nil }

// eachFixtureHead calls fn with every head (detectHeads) of every file
// under root and returns how many.
func eachFixtureHead(t *testing.T, root string, fn func(path string, head []byte)) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, head := range detectHeads(data) {
			fn(path, head)
			n++
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return n
}
