package ingest

import (
	"bytes"
	"slices"
	"strings"
)

// canonicalFast is CanonicalJSON for the tool arguments most logs hold,
// written from the text itself (validJSON, then the spans of its members)
// rather than decoded into maps and encoded again: keys of printable
// ASCII that need no escape, strings whose escapes are \n, \t, \r, \",
// \\ or \/, numbers and literals as written. On anything else (an escape
// or a character the encoder writes otherwise, a repeated key, invalid
// JSON) ok is false and CanonicalJSON decodes. FuzzCanonicalJSON checks
// the two against each other.
func canonicalFast(raw []byte) (string, bool) {
	if !validJSON(raw) {
		return "", false
	}
	var b strings.Builder
	b.Grow(len(raw))
	if !canonicalValue(&b, raw, jsonWS(raw, 0)) {
		return "", false
	}
	return b.String(), true
}

// canonicalMember is an object member: its key (needing no escape) and
// the span of its value.
type canonicalMember struct {
	key    []byte
	vs, ve int
}

// canonicalValue writes the valid value at raw[i] canonically, or returns
// false.
func canonicalValue(b *strings.Builder, raw []byte, i int) bool {
	switch raw[i] {
	case '{':
		var ms []canonicalMember
		ok := spanMembers(raw, nil, i, func(key []byte, vs, ve int) bool {
			for _, c := range key {
				// the encoder escapes '<', '>' and '&' in a key
				if c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
					return false
				}
			}
			ms = append(ms, canonicalMember{key, vs, ve})
			return true
		})
		if !ok {
			return false
		}
		slices.SortFunc(ms, func(x, y canonicalMember) int { return bytes.Compare(x.key, y.key) })
		b.WriteByte('{')
		for k, m := range ms {
			if k > 0 {
				if bytes.Equal(m.key, ms[k-1].key) {
					return false // a repeated key: the decoder keeps the last
				}
				b.WriteByte(',')
			}
			b.WriteByte('"')
			b.Write(m.key)
			b.WriteString(`":`)
			if !canonicalValue(b, raw, m.vs) {
				return false
			}
		}
		b.WriteByte('}')
		return true
	case '[':
		b.WriteByte('[')
		n := 0
		ok := spanElems(raw, nil, i, func(vs, ve int) bool {
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			return canonicalValue(b, raw, vs)
		})
		b.WriteByte(']')
		return ok
	case '"':
		return canonicalString(b, raw[i:jsonSkipString(raw, i)])
	}
	b.Write(raw[i:jsonSkipValue(raw, i)]) // a number or a literal, as written
	return true
}

// canonicalString writes the valid string s (quotes included) as the
// encoder would write its value, or returns false when that is not s
// itself bar an escaped '/'.
func canonicalString(b *strings.Builder, s []byte) bool {
	in := s[1 : len(s)-1]
	b.WriteByte('"')
	start := 0 // in[start:i] is still to be written as it is
	for i := 0; i < len(in); i++ {
		c := in[i]
		if c >= 0x20 && c != '\\' && c != 0xe2 {
			continue
		}
		switch {
		case c < 0x20:
			return false // a raw control character: the decoder refuses it
		case c == 0xe2:
			if i+2 < len(in) && in[i+1] == 0x80 && (in[i+2] == 0xa8 || in[i+2] == 0xa9) {
				return false // U+2028, U+2029: the encoder escapes them
			}
			continue
		}
		b.Write(in[start:i])
		switch e := in[i+1]; e {
		case 'n', 't', 'r', '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(e)
		case '/':
			b.WriteByte('/')
		default:
			return false // \b and \f are written as \u escapes, \u escapes are decoded
		}
		i++
		start = i + 1
	}
	b.Write(in[start:])
	b.WriteByte('"')
	return true
}
