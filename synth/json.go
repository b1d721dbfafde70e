package synth

import (
	"bufio"
	"fmt"
	"strconv"
	"time"
)

// The log formats are written with a tiny ordered JSON encoder rather than
// encoding/json: real logs have a fixed key order (JavaScript/serde insertion
// order), do not escape <, > and &, and the generator must not depend on map
// iteration. Values are built from these types:
type (
	kv struct {
		k string
		v any
	}
	obj     []kv     // a JSON object, keys in order
	arr     []any    // a JSON array
	rawJSON string   // already-encoded JSON, copied verbatim
	strs    []string // a JSON array of strings
)

// appendJSON appends the encoding of v. Supported: nil, string, bool, int,
// int64, float64, obj, arr, strs, rawJSON. Anything else is a bug in this
// package, so it panics.
func appendJSON(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case string:
		return appendString(b, x)
	case bool:
		return strconv.AppendBool(b, x)
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case float64:
		return strconv.AppendFloat(b, x, 'f', -1, 64)
	case rawJSON:
		return append(b, x...)
	case obj:
		return appendList(b, '{', x, '}', func(b []byte, e kv) []byte {
			b = append(appendString(b, e.k), ':')
			return appendJSON(b, e.v)
		})
	case arr:
		return appendList(b, '[', x, ']', appendJSON)
	case strs:
		return appendList(b, '[', x, ']', appendString)
	default:
		panic(fmt.Sprintf("synth: appendJSON: unsupported type %T", v))
	}
}

// appendList appends the elements of xs, comma-separated, between open and
// close, each by elem.
func appendList[T any](b []byte, open byte, xs []T, close byte, elem func([]byte, T) []byte) []byte {
	b = append(b, open)
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = elem(b, x)
	}
	return append(b, close)
}

// shortEscape is the letter of a character's two-character escape (\n for
// a newline), 0 for a character without one.
var shortEscape = [256]byte{'"': '"', '\\': '\\', '\n': 'n', '\r': 'r', '\t': 't', '\b': 'b', '\f': 'f'}

// appendString escapes s the way JSON.stringify and serde_json do: only the
// quote, the backslash and control characters.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		if e := shortEscape[c]; e != 0 {
			b = append(b, '\\', e)
		} else {
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// encode returns the JSON text of v.
func encode(v any) string { return string(appendJSON(nil, v)) }

// lineWriter writes one JSON value per line and remembers the first error.
type lineWriter struct {
	w     *bufio.Writer
	buf   []byte
	err   error
	lines int
}

func (lw *lineWriter) write(v any) {
	if lw.err != nil {
		return
	}
	lw.buf = appendJSON(lw.buf[:0], v)
	lw.buf = append(lw.buf, '\n')
	_, lw.err = lw.w.Write(lw.buf)
	lw.lines++
}

// isoMillis formats t like the logs do: 2025-09-25T01:22:20.083Z.
func isoMillis(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
