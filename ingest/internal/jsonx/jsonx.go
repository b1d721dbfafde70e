// Package jsonx is github.com/goccy/go-json, which the importers use for its
// speed, with two repairs: a number that does not fit the integer field it
// is decoded into is reported as what it is, and every decoding error is
// told in plain words that name the JSON field, not the Go one (Explain,
// explain.go).
//
// goccy stops an integer at its '.' or 'e' and then reports the rest as
// "expected comma after object element": a token count of 1.5 or 1e308 read
// as a syntax error. When goccy fails that way (or with its own type error
// for a number), Unmarshal decodes the same bytes again with encoding/json,
// whose type errors give the field's path, and returns a *NumberError such
// as "field usage.output_tokens: 1.5 is not a whole number". The second decode
// happens only for input that already failed, so valid input costs nothing;
// other errors are worded when their Error is called (a caller testing
// whether a value decodes pays nothing more).
//
// And one guard: goccy compiles a type's decoder (or encoder) on the type's
// first use and publishes it in a cache without synchronisation
// (internal/decoder/compile_norace.go), so two goroutines meeting a new type
// at once can run a decoder another is still building: a nil struct decoder
// and a panic (goccy/go-json#495, seen here once in the importers' parallel
// workers). Unmarshal, Decoder.Decode, Marshal and Encoder.Encode compile
// each type once under a lock first (prepare); every later use follows a
// sync.Map load of the type, which orders it after that compilation. The
// compilation runs none of the type's own code (no UnmarshalJSON), so an
// UnmarshalJSON may itself call Unmarshal. (Encoding is guarded the same
// way, but a MarshalJSON that calls Marshal would wait for the lock: no
// type here has one.)
package jsonx

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"

	gj "github.com/goccy/go-json"
)

// The goccy types the importers use.
type (
	RawMessage         = gj.RawMessage
	Number             = gj.Number
	Delim              = gj.Delim
	SyntaxError        = gj.SyntaxError
	UnmarshalTypeError = gj.UnmarshalTypeError
)

// Decoder is goccy's Decoder, its Decode guarded (see the package doc).
type Decoder struct{ *gj.Decoder }

// Decode is goccy's Decode of the next value into v.
func (d *Decoder) Decode(v any) error {
	prepare(v, false)
	return d.Decoder.Decode(v)
}

// Encoder is goccy's Encoder, its Encode guarded (see the package doc).
type Encoder struct{ *gj.Encoder }

// Encode is goccy's Encode of v.
func (e *Encoder) Encode(v any) error {
	prepare(v, true)
	return e.Encoder.Encode(v)
}

// prepared holds the types whose goccy decoder ([0]) or encoder ([1])
// has been compiled under prepareMu (keyed by the reflect.Type itself: a
// lookup allocates nothing).
var (
	prepared  [2]sync.Map // reflect.Type → struct{}
	prepareMu sync.Mutex
)

// prepare makes goccy compile the decoder (or, for enc, the encoder) of
// v's type under a lock the first time the type is met, from a fresh value
// of the type (goccy caches by the dynamic type alone).
func prepare(v any, enc bool) {
	t := reflect.TypeOf(v)
	if t == nil {
		return
	}
	m := &prepared[0]
	if enc {
		m = &prepared[1]
	}
	if _, ok := m.Load(t); ok {
		return
	}
	prepareMu.Lock()
	defer prepareMu.Unlock()
	if _, ok := m.Load(t); ok {
		return
	}
	switch {
	case enc:
		_, _ = gj.Marshal(reflect.Zero(t).Interface())
	case t.Kind() == reflect.Pointer:
		// empty input: goccy compiles the decoder, then fails at the end
		// of input before any value is read, so no UnmarshalJSON of the
		// type runs under the lock ("null" ran one, and an UnmarshalJSON
		// that calls Unmarshal waited for this lock forever: an OpenHands
		// import hung on its ohInt)
		_ = gj.Unmarshal(nil, reflect.New(t.Elem()).Interface())
	}
	m.Store(t, struct{}{})
}

// Marshal is goccy's Marshal.
func Marshal(v any) ([]byte, error) {
	prepare(v, true)
	return gj.Marshal(v)
}

// Valid is encoding/json's Valid: goccy's panics on a string with invalid
// UTF-8 that crosses its read buffer (found by FuzzImporters).
func Valid(data []byte) bool { return stdjson.Valid(data) }

// Compact is goccy's Compact.
func Compact(dst *bytes.Buffer, src []byte) error { return gj.Compact(dst, src) }

// NewDecoder is goccy's NewDecoder (its Decode is guarded, not repaired).
func NewDecoder(r io.Reader) *Decoder { return &Decoder{gj.NewDecoder(r)} }

// NewEncoder is goccy's NewEncoder.
func NewEncoder(w io.Writer) *Encoder { return &Encoder{gj.NewEncoder(w)} }

// NumberError is a number that does not fit the integer field it was
// decoded into.
type NumberError struct {
	Field  string // dotted path of the field, as encoding/json names it
	Value  string // the number as written
	Type   string // the field's Go type
	Reason string // "is not a whole number", "is out of range for int64", …
	Offset int64  // byte offset just after the number
}

func (e *NumberError) Error() string {
	if e.Field == "" {
		return e.Value + " " + e.Reason
	}
	return "field " + e.Field + ": " + e.Value + " " + e.Reason
}

// numberReason says why value does not fit an integer of type t.
func numberReason(value string, t reflect.Type) string {
	f, err := strconv.ParseFloat(value, 64)
	if err == nil && f != math.Trunc(f) {
		return "is not a whole number"
	}
	var lo, hi float64 // the type's range
	switch t.Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		lo, hi = 0, math.Ldexp(1, t.Bits())
	default:
		lo, hi = -math.Ldexp(1, t.Bits()-1), math.Ldexp(1, t.Bits()-1)
	}
	if err != nil || f < lo || f >= hi {
		return "is out of range for " + t.String()
	}
	return "is not written as an integer" // 1e3, 2.0
}

// FromStd is Explain of an encoding/json error without the input: a type
// error for a number decoded into an integer becomes a *NumberError, other
// decoding errors get plain words (a string found is named, not quoted),
// and other errors are returned as they are.
func FromStd(err error) error { return Explain(err, nil) }

func isInt(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}

// cutInEscape reports whether data ends inside an escape: its last byte a
// backslash, or its last but one a backslash that escapes the last (an odd
// run of backslashes). Such a text is never valid JSON, and goccy's struct
// key decoder (v0.10.6) reads past the end of its buffer on it: after an
// escape in a key it skips one byte unchecked, here the NUL that ends its
// copy (TestUnmarshalTrailingBackslash).
func cutInEscape(data []byte) bool {
	n := len(data)
	if n == 0 {
		return false
	}
	if data[n-1] == '\\' {
		return true
	}
	run := 0
	for i := n - 2; i >= 0 && data[i] == '\\'; i-- {
		run++
	}
	return run%2 == 1
}

// highSurrogateEscape reports whether data holds a \uD800–\uDBFF escape
// (the first half of a surrogate pair). goccy's string unescaping (v0.10.6)
// computes a pointer up to 11 bytes past such an escape to see whether the
// pair's second half fits, past its buffer when the escape is near the
// text's end; it never reads there, but the pointer is invalid, and Go's
// checkptr (on under -race) aborts the process on it
// (TestUnmarshalSurrogateEscape). Such texts are rare (a lone or split
// surrogate pair in a log); encoding/json decodes them.
func highSurrogateEscape(data []byte) bool {
	for i := 0; ; {
		j := bytes.Index(data[i:], []byte(`\u`))
		if j < 0 {
			return false
		}
		i += j + 2
		if i+2 <= len(data) && (data[i] == 'd' || data[i] == 'D') {
			switch data[i+1] {
			case '8', '9', 'a', 'b', 'A', 'B':
				// \u is an escape only after an even run of backslashes
				n := 0
				for p := i - 3; p >= 0 && data[p] == '\\'; p-- {
					n++
				}
				if n%2 == 0 {
					return true
				}
			}
		}
	}
}

// unmarshalStd decodes data into v with encoding/json, its errors in plain
// words as Unmarshal's.
func unmarshalStd(data []byte, v any) error {
	err := stdjson.Unmarshal(data, v)
	if err == nil {
		return nil
	}
	return Explain(err, data)
}

// Decodes reports whether Unmarshal(data, v) returns nil, decoding into v
// as Unmarshal does, but makes no error: a syntax error's explanation
// decodes the input twice more with encoding/json, which format detection,
// trying each of a head's lines with each importer and passing over those
// that fail (issue 33), has no use for.
func Decodes(data []byte, v any) bool {
	return !cutInEscape(data) && decode(data, v) == nil
}

// decode is goccy's Unmarshal of data into v, v's decoder compiled first
// (prepare), or encoding/json's for a text with a high-surrogate escape
// (highSurrogateEscape): Unmarshal and Decodes before their errors.
func decode(data []byte, v any) error {
	if highSurrogateEscape(data) {
		return stdjson.Unmarshal(data, v)
	}
	prepare(v, false)
	return gj.Unmarshal(data, v)
}

// Unmarshal is goccy's Unmarshal, with number errors repaired and every
// error in plain words (see the package doc and Explain). A syntax error
// or a number's type error is explained at once (encoding/json decodes the
// input again, as for a *NumberError); any other error is explained when
// its Error is called, from a copy of the input, so that a caller that only
// tests whether a value decodes (and there are many) pays no second decode.
func Unmarshal(data []byte, v any) error {
	if cutInEscape(data) { // encoding/json would say "invalid character ' ' in string escape code"
		var x any
		return &Error{err: stdjson.Unmarshal(data, &x), text: CutOff}
	}
	if highSurrogateEscape(data) {
		return unmarshalStd(data, v)
	}
	err := decode(data, v)
	if err == nil {
		return nil
	}
	rt := reflect.TypeOf(v)
	var se *gj.SyntaxError
	var te *gj.UnmarshalTypeError
	if !errors.As(err, &se) && !(errors.As(err, &te) && strings.HasPrefix(te.Value, "number")) {
		return &Error{err: err, data: bytes.Clone(data), typ: rt}
	}
	if rt == nil || rt.Kind() != reflect.Pointer || reflect.ValueOf(v).IsNil() {
		return Explain(err, data)
	}
	serr := stdjson.Unmarshal(data, reflect.New(rt.Elem()).Interface())
	if ne, ok := Explain(serr, data).(*NumberError); ok {
		return ne
	}
	text := plain(err, data)
	if serr != nil {
		text = Explain(serr, data).Error()
	}
	return &Error{err: err, text: text}
}
