package ingest

import (
	"bytes"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"
)

// One-pass reading of a JSON text already checked (validJSON):
// the spans of an object's members and an array's elements, without
// decoding what is not read, and the values of the strings that are. The
// scan trusts the syntax, so it must only ever see validated bytes; the
// importers that use it fall back to their JSON decoder on anything else.

// validJSON reports whether b is one JSON text the scan below may trust:
// valid UTF-8 without a NUL byte (the JSON decoder, goccy/go-json, reads a
// NUL as the end of its input), white space, structure, literals and
// numbers as JSON has them, strings closed, nesting at most
// validJSONDepth. It checks in one pass what the scan needs, not all of
// JSON: inside strings it neither checks escapes nor refuses control
// characters, which the JSON decoder takes in a value it skips as well;
// a string the importer reads is decoded by spanStr, which leaves one
// with an escape it does not know to the decoder.
func validJSON(b []byte) bool { return validJSONTape(b, nil) }

// validJSONTape is validJSON that also notes, in t when it is not nil, the
// values the scan will skip without reading them again (spanTape).
func validJSONTape(b []byte, t *spanTape) bool {
	if bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b) {
		return false
	}
	i, ok := validValue(b, jsonWS(b, 0), 0, t)
	return ok && jsonWS(b, i) == len(b)
}

// spanTape holds where each object and array and each string of at least
// tapeMinString bytes that validJSONTape passed ends, by its start, so
// that the scan skips such a value in one step: without it a long string
// inside a block inside a message's content is read again to skip the
// message, the content, the block, then the string. at holds the starts
// in increasing order (the order the values open in), end the offset past
// each.
type spanTape struct{ at, end []int }

// tapeMinString is the length from which a string is on the tape: a
// shorter one is skipped as fast as it is looked up.
const tapeMinString = 64

// tapes are reused from line to line.
var tapes = sync.Pool{New: func() any { return new(spanTape) }}

// add puts the value at b[i] on the tape, its end not known yet; it returns
// the value's index.
func (t *spanTape) add(i int) int {
	t.at = append(t.at, i)
	t.end = append(t.end, 0)
	return len(t.at) - 1
}

// skip returns the offset past the valid value at b[i]: from the tape when
// it is there (t may be nil), else by jsonSkipValue.
func (t *spanTape) skip(b []byte, i int) int {
	if t != nil && (b[i] == '{' || b[i] == '[' || b[i] == '"') {
		if k, ok := slices.BinarySearch(t.at, i); ok {
			return t.end[k]
		}
	}
	return jsonSkipValue(b, i)
}

// validJSONDepth is the deepest nesting validJSON takes.
const validJSONDepth = 1000

// validValue checks the value at b[i] and returns the offset past it; t
// (may be nil) is given the value and those inside it (spanTape).
func validValue(b []byte, i, depth int, t *spanTape) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch b[i] {
	case '"':
		j, ok := validString(b, i)
		if ok && t != nil && j-i >= tapeMinString {
			t.end[t.add(i)] = j
		}
		return j, ok
	case '{', '[':
		if depth >= validJSONDepth {
			return i, false
		}
		k := -1 // the value's index on the tape
		if t != nil {
			k = t.add(i)
		}
		closer := byte('}')
		if b[i] == '[' {
			closer = ']'
		}
		i = jsonWS(b, i+1)
		if i < len(b) && b[i] == closer {
			if k >= 0 {
				t.end[k] = i + 1
			}
			return i + 1, true
		}
		for {
			var ok bool
			if closer == '}' {
				if i >= len(b) || b[i] != '"' {
					return i, false
				}
				if i, ok = validString(b, i); !ok {
					return i, false
				}
				if i = jsonWS(b, i); i >= len(b) || b[i] != ':' {
					return i, false
				}
				i = jsonWS(b, i+1)
			}
			if i, ok = validValue(b, i, depth+1, t); !ok {
				return i, false
			}
			if i = jsonWS(b, i); i >= len(b) {
				return i, false
			}
			switch b[i] {
			case closer:
				if k >= 0 {
					t.end[k] = i + 1
				}
				return i + 1, true
			case ',':
				i = jsonWS(b, i+1)
			default:
				return i, false
			}
		}
	case 't':
		return validLiteral(b, i, "true")
	case 'f':
		return validLiteral(b, i, "false")
	case 'n':
		return validLiteral(b, i, "null")
	}
	return validNumber(b, i)
}

func validLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}

// validString returns the offset past the string at b[i] ('"'): at the
// first quote after it with an even number of backslashes before it.
func validString(b []byte, i int) (int, bool) {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b), false
		}
		j += k
		n := 0
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return j + 1, true
		}
		j++
	}
}

// validNumber checks a number: "-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?"
func validNumber(b []byte, i int) (int, bool) {
	digits := func(i int) int {
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b) || b[i] < '0' || b[i] > '9':
		return i, false
	case b[i] == '0':
		i++
	default:
		i = digits(i)
	}
	if i < len(b) && b[i] == '.' {
		j := digits(i + 1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}

// spanMembers calls fn with each member of the valid object at b[i] ('{'):
// the key's raw bytes (between its quotes, escapes not undone) and its
// value's span [vs, ve). It stops when fn returns false and returns false
// then. t is b's tape, or nil.
func spanMembers(b []byte, t *spanTape, i int, fn func(key []byte, vs, ve int) bool) bool {
	i = jsonWS(b, i+1)
	if b[i] == '}' {
		return true
	}
	for {
		ke := jsonSkipString(b, i)
		key := b[i+1 : ke-1]
		vs := jsonWS(b, jsonWS(b, ke)+1) // past the ':'
		ve := t.skip(b, vs)
		if !fn(key, vs, ve) {
			return false
		}
		i = jsonWS(b, ve)
		if b[i] == '}' {
			return true
		}
		i = jsonWS(b, i+1) // past the ','
	}
}

// spanElems is spanMembers for the elements of the valid array at b[i].
func spanElems(b []byte, t *spanTape, i int, fn func(vs, ve int) bool) bool {
	i = jsonWS(b, i+1)
	if b[i] == ']' {
		return true
	}
	for {
		ve := t.skip(b, i)
		if !fn(i, ve) {
			return false
		}
		i = jsonWS(b, ve)
		if b[i] == ']' {
			return true
		}
		i = jsonWS(b, i+1)
	}
}

// spanStr returns the value of the valid string s (quotes included) as the
// JSON decoder gives it. Escapes other than \u are undone here; a string
// with a \u escape is left to the decoder (surrogates), as is one it fails
// on (ok false). valid reports that v is valid UTF-8 without a check: so
// is every value spanStr makes itself, since validJSON found the text
// valid UTF-8 and the value is the text cut at quotes and backslashes
// (ASCII bytes, so at rune boundaries) with ASCII in place of the escapes;
// a value the decoder makes is not known (a \u escape may be half of a
// surrogate pair).
func spanStr(s []byte) (v string, ok, valid bool) {
	in := s[1 : len(s)-1]
	k := bytes.IndexByte(in, '\\')
	if k < 0 {
		return string(in), true, true
	}
	// a Builder's buffer is not cleared when it is made (a []byte is), and
	// its String is not a copy
	var out strings.Builder
	out.Grow(len(in))
	for k >= 0 {
		out.Write(in[:k])
		var c byte
		switch in[k+1] {
		case '"', '\\', '/':
			c = in[k+1]
		case 'b':
			c = '\b'
		case 'f':
			c = '\f'
		case 'n':
			c = '\n'
		case 'r':
			c = '\r'
		case 't':
			c = '\t'
		default: // \u
			if json.Unmarshal(s, &v) != nil {
				return "", false, false
			}
			return v, true, false
		}
		out.WriteByte(c)
		in = in[k+2:]
		k = bytes.IndexByte(in, '\\')
	}
	out.Write(in)
	return out.String(), true, true
}

// spanKey classifies an object key for a struct decoded by the JSON
// decoder, whose fields are names: the index of the field the key is
// exactly, -1 for a key that is no field's, or -2 when the decoder might
// still match it to a field (a key with an escape or a byte outside ASCII,
// or a field's name in other case: the decoder folds case), so that the
// caller leaves the value to the decoder.
func spanKey(key []byte, names []string) int {
	for i, n := range names {
		if string(key) == n {
			return i
		}
	}
	for _, c := range key {
		if c >= utf8.RuneSelf || c == '\\' {
			return -2
		}
	}
	for _, n := range names {
		if len(n) == len(key) && strings.EqualFold(string(key), n) {
			return -2
		}
	}
	return -1
}

// spanInt reads a valid number as an int64 the way the JSON decoder would
// accept it: digits only (a minus before them), at most 18 of them.
func spanInt(s []byte) (int64, bool) {
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	if len(s) == 0 || len(s) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}
