package ingest

import (
	"bytes"
	"reflect"
	"strings"
	"sync"
)

// One look at a head's lines for all the JSONL detectors (issue 33). Every
// detector that reads a head's first records (detectJSONL, anyJSONL)
// decodes each line into a struct of its own, and the JSON decoder skips,
// for each of them again, every member the struct has no field for: in a
// Claude Code head, the whole message of every record, seven times. So the
// lines of a head are scanned once (spansOf: each line's top-level
// members, and one level down those of each member's object value), and a
// detector decodes its reduced line: the object of only the members whose
// key its struct may match, the object a field of struct type reads
// reduced the same way to that struct's fields.
//
// The reduced line decodes exactly as the line does, into the same value,
// when:
//   - the line is valid JSON as validJSON judges it (every member the
//     struct does not read is then one the decoder skips without error,
//     jsonspan.go) and an object;
//   - it holds no escape \uD8–\uDB (jsonx decodes such a text with
//     encoding/json, not goccy: the member holding it could be dropped);
//   - every member that can match a field is kept, in its order, with its
//     bytes: the decoder matches keys ignoring ASCII case, so a key is kept
//     when it equals a field's name ignoring ASCII case, or when it holds a
//     backslash or a byte outside ASCII (an escape, or a case the test
//     cannot judge);
//   - the struct's fields are all it decodes: a struct type with no
//     UnmarshalJSON or UnmarshalText of its own and no embedded field (for
//     a held struct too, which is reduced only when its field has no tag
//     option but omitempty and no other field shares its name).
//
// Any other line, or struct, is decoded whole. TestReducedLinesDecodeAlike
// decodes both ways every line of every fixture head for every detector;
// FuzzReducedLine does so for arbitrary lines.

// reduceLines turns the reduced decoding on; tests turn it off to compare.
var reduceLines = true

// checkReduced, set by TestReducedLinesDecodeAlike only, is given each line
// detectJSONL decoded reduced, decoded whole too: both lines, whether each
// decoded, and both values.
var checkReduced func(whole, reduced []byte, wholeOK, reducedOK bool, wholeV, reducedV any)

// spanLines is how many lines of a head spansOf scans: the most any
// detector reads (voteLines).
const spanLines = voteLines

// lineMember is one top-level member of a line: its bytes, from its key's
// opening quote to its value's end (the value from vs), and its key in
// lower case (ASCII), or kept set when the key holds a backslash or a
// non-ASCII byte; for a value that is an object, its own members (sub,
// obj set), one level down.
type lineMember struct {
	start, vs, end int
	key            string
	kept, obj      bool
	sub            []lineMember
}

// spannedLine is a head's line, trimmed, and its members when the reduced
// decoding applies (ok).
type spannedLine struct {
	line    []byte
	members []lineMember
	ok      bool
}

// headSpans is a head's first spanLines non-blank lines, scanned, over a
// copy of the head (src, to recognise the head again).
type headSpans struct {
	src   []byte
	lines []spannedLine
}

// spanCache holds the spans of the last heads scanned: the detectors of one
// head run one after the other (Candidates), several heads at once on the
// pipeline's workers.
var spanCache struct {
	mu      sync.Mutex
	entries [16]*headSpans
	next    int
	places  [16]headPlace
}

// headPlace is where a head was when scanned: a cheap first test before its
// bytes are compared.
type headPlace struct {
	p *byte
	n int
}

func placeOf(head []byte) headPlace {
	if len(head) == 0 {
		return headPlace{}
	}
	return headPlace{&head[0], len(head)}
}

// spansOf returns the scanned lines of head, from the cache when the same
// bytes at the same place were scanned last.
func spansOf(head []byte) *headSpans {
	k := placeOf(head)
	spanCache.mu.Lock()
	for i, e := range spanCache.entries {
		if e != nil && spanCache.places[i] == k && bytes.Equal(e.src, head) {
			spanCache.mu.Unlock()
			return e
		}
	}
	spanCache.mu.Unlock()
	hs := &headSpans{src: bytes.Clone(head)}
	headLines(hs.src, spanLines, func(line []byte) (bool, bool) {
		hs.lines = append(hs.lines, spanLine(line))
		return false, false
	})
	spanCache.mu.Lock()
	spanCache.entries[spanCache.next], spanCache.places[spanCache.next] = hs, k
	spanCache.next = (spanCache.next + 1) % len(spanCache.entries)
	spanCache.mu.Unlock()
	return hs
}

// spanLine scans one trimmed line.
func spanLine(line []byte) spannedLine {
	sl := spannedLine{line: line}
	if len(line) == 0 || line[0] != '{' || !validJSON(line) || highSurrogate(line) {
		return sl
	}
	sl.members = objectMembers(line, 0, 1)
	sl.ok = true
	return sl
}

// objectMembers returns the members of the valid object at line[i], and
// for depth > 0 those of its members' values that are objects.
func objectMembers(line []byte, i, depth int) []lineMember {
	var out []lineMember
	i = jsonWS(line, i+1)
	for line[i] != '}' {
		ke := jsonSkipString(line, i)
		vs := jsonWS(line, jsonWS(line, ke)+1) // past the ':'
		ve := jsonSkipValue(line, vs)
		m := lineMember{start: i, vs: vs, end: ve}
		m.key, m.kept = foldKey(line[i+1 : ke-1])
		if depth > 0 && line[vs] == '{' {
			m.sub, m.obj = objectMembers(line, vs, depth-1), true
		}
		out = append(out, m)
		i = jsonWS(line, ve)
		if line[i] == ',' {
			i = jsonWS(line, i+1)
		}
	}
	return out
}

// foldKey returns a raw key in lower case, or kept when it holds a
// backslash or a non-ASCII byte.
func foldKey(raw []byte) (string, bool) {
	b := make([]byte, len(raw))
	for i, c := range raw {
		switch {
		case c == '\\' || c >= 0x80:
			return "", true
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		b[i] = c
	}
	return string(b), false
}

// highSurrogate reports whether line may hold a \uD800–\uDBFF escape (any
// \u followed by d8–db in either case, escaped backslash or not): a line
// jsonx decodes with encoding/json.
func highSurrogate(line []byte) bool {
	for i := 0; ; {
		j := bytes.Index(line[i:], []byte(`\u`))
		if j < 0 {
			return false
		}
		i += j + 2
		if i+2 <= len(line) && (line[i] == 'd' || line[i] == 'D') {
			switch line[i+1] {
			case '8', '9', 'a', 'b', 'A', 'B':
				return true
			}
		}
	}
}

// reduced returns the object of sl's members a struct with the fields
// names may read, an object value reduced in turn for a field of struct
// type (names' value for it not nil).
func (sl *spannedLine) reduced(names structFields) []byte {
	return reduceObject(nil, sl.line, sl.members, names)
}

func reduceObject(out, line []byte, members []lineMember, names structFields) []byte {
	out = append(out, '{')
	first := true
	for _, m := range members {
		sub, ok := names[m.key]
		if !m.kept && !ok {
			continue
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		if !m.kept && m.obj && sub != nil {
			out = append(out, line[m.start:m.vs]...)
			out = reduceObject(out, line, m.sub, sub)
			continue
		}
		out = append(out, line[m.start:m.end]...)
	}
	return append(out, '}')
}

// structFields maps the names (lower case) of the fields the decoder fills
// in a struct to the fields of the struct a field holds, when its value may
// be reduced too (nil: decoded whole).
type structFields map[string]structFields

// fieldNames maps a struct type to the names (lower case) of the fields
// the decoder fills, or to nil when its lines are decoded whole.
var fieldNames sync.Map // reflect.Type → structFields

// namesOf returns T's field names (lower case), or nil when a line must be
// decoded whole into a T.
func namesOf[T any]() structFields {
	t := reflect.TypeFor[T]()
	if v, ok := fieldNames.Load(t); ok {
		return v.(structFields)
	}
	names := structNames(t, 1)
	fieldNames.Store(t, names)
	return names
}

// structNames is namesOf for t, with the fields of the structs its fields
// hold (a struct or a pointer to one) depth levels down. A name two fields
// share is kept, without the fields of what they hold.
func structNames(t reflect.Type, depth int) structFields {
	if t.Kind() != reflect.Struct {
		return nil
	}
	for _, m := range []string{"UnmarshalJSON", "UnmarshalText"} {
		if _, ok := reflect.PointerTo(t).MethodByName(m); ok {
			return nil
		}
	}
	names := structFields{}
	for f := range t.Fields() {
		if f.Anonymous {
			return nil
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		key, kept := foldKey([]byte(name))
		if kept || !plainName(key) {
			return nil
		}
		var sub structFields
		if ft := f.Type; depth > 0 && opts == "" || depth > 0 && opts == "omitempty" {
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			sub = structNames(ft, depth-1)
		}
		if _, twice := names[key]; twice {
			sub = nil
		}
		names[key] = sub
	}
	return names
}

// plainName reports whether a field name is letters, digits, '_', '-' and
// '.' only: a tag name the decoders take as it is (of another, the
// decoder may take the field's Go name instead).
func plainName(s string) bool {
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return s != ""
}
