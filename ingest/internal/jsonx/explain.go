package jsonx

import (
	"encoding"
	stdjson "encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"

	gj "github.com/goccy/go-json"
)

// Plain words for decoding errors (issue 31). A decoder's own words name Go
// types and struct fields ("json: cannot unmarshal number \" into Go struct
// field ccUsage.InputTokens of type int64"); the person reading a reject
// wants the JSON field and what is wrong with its value: "field
// usage.input_tokens: a number was expected, got \"3\"". The field is the
// JSON key path encoding/json reports (from the value decoded, not from the
// file's root: the importer's reject says which value that is), and the
// value found is quoted from the input when it is a string, a number or
// true/false, else named ("an object", "an array"). Syntax errors get plain
// words too ("',' or '}' was expected, got 'x'", "the JSON is cut off");
// the importer's reject gives the line.

// CutOff is what a JSON text that ends inside its value is told
// (encoding/json's "unexpected end of JSON input", a Decoder's unexpected
// EOF).
const CutOff = "the JSON is cut off: it ends before its value is complete"

// Error is a decoding error in plain words. Its Unwrap is the decoder's
// own error, so errors.As still finds the syntax error's offset.
type Error struct {
	err  error        // the decoder's error
	data []byte       // for an explanation on demand: a copy of the input
	typ  reflect.Type // … and the pointer type it was decoded into
	once sync.Once
	text string
}

func (e *Error) Error() string {
	e.once.Do(func() {
		if e.text == "" {
			e.text = e.explain()
		}
		e.data = nil
	})
	return e.text
}

func (e *Error) Unwrap() error { return e.err }

// explain decodes the input again with encoding/json, whose type errors
// name the JSON field, and words its error; goccy's own error when
// encoding/json decodes the input.
func (e *Error) explain() string {
	if e.typ != nil && e.typ.Kind() == reflect.Pointer {
		if serr := stdjson.Unmarshal(e.data, reflect.New(e.typ.Elem()).Interface()); serr != nil {
			return Explain(serr, e.data).Error()
		}
	}
	return plain(e.err, nil)
}

// Explain returns err, an error from decoding data (with goccy or
// encoding/json; data may be nil), in plain words: an *Error, or a
// *NumberError for a number that does not fit its integer field. An error
// that is already explained, or is no decoder's, is returned as it is; a
// decoder's error wrapped in another keeps the outer words around its
// plain ones.
func Explain(err error, data []byte) error {
	switch e := err.(type) {
	case nil, *Error, *NumberError:
		return err
	case *stdjson.UnmarshalTypeError:
		if e.Type != nil && isInt(e.Type) && strings.HasPrefix(e.Value, "number ") {
			v := strings.TrimPrefix(e.Value, "number ")
			return &NumberError{Field: e.Field, Value: v, Type: e.Type.String(), Reason: numberReason(v, e.Type), Offset: e.Offset}
		}
		return &Error{err: err, text: plain(err, data)}
	case *stdjson.SyntaxError, *gj.SyntaxError, *gj.UnmarshalTypeError:
		return &Error{err: err, text: plain(err, data)}
	}
	inner := decoderErr(err)
	if inner == nil {
		return err
	}
	outer, words := err.Error(), inner.Error()
	if !strings.HasSuffix(outer, words) {
		return err
	}
	return &Error{err: err, text: outer[:len(outer)-len(words)] + Explain(inner, nil).Error()}
}

// decoderErr is the decoder's error inside err, or nil.
func decoderErr(err error) error {
	var (
		ste *stdjson.UnmarshalTypeError
		sse *stdjson.SyntaxError
		gte *gj.UnmarshalTypeError
		gse *gj.SyntaxError
		xe  *Error
		ne  *NumberError
	)
	switch {
	case errors.As(err, &xe), errors.As(err, &ne):
		return nil // explained already
	case errors.As(err, &ste):
		return ste
	case errors.As(err, &sse):
		return sse
	case errors.As(err, &gte):
		return gte
	case errors.As(err, &gse):
		return gse
	}
	return nil
}

// plain words err, a decoder's error from decoding data (nil: unknown).
func plain(err error, data []byte) string {
	switch e := err.(type) {
	case *stdjson.UnmarshalTypeError:
		return typeText(e.Field, e.Value, e.Type, gotText(e.Value, e.Offset, data))
	case *gj.UnmarshalTypeError:
		// goccy names Go fields, and its value and offset are not always
		// those of the input: the kind of the value, and no field
		kind, _, _ := strings.Cut(e.Value, " ")
		return typeText("", kind, e.Type, gotText(kind, 0, nil))
	case *stdjson.SyntaxError:
		return syntaxText(e.Error())
	case *gj.SyntaxError:
		if data != nil {
			var v any
			var se *stdjson.SyntaxError
			if errors.As(stdjson.Unmarshal(data, &v), &se) {
				return syntaxText(se.Error())
			}
		}
		return syntaxText(e.Error())
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// typeText is "field <field>: <what t takes> was expected, got <got>".
func typeText(field, value string, t reflect.Type, got string) string {
	s := expected(t) + " was expected, got " + got
	if field != "" {
		s = "field " + field + ": " + s
	}
	return s
}

var (
	numberType          = reflect.TypeFor[stdjson.Number]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// expected says what JSON a value of type t is decoded from.
func expected(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == numberType:
		return "a number"
	case reflect.PointerTo(t).Implements(textUnmarshalerType):
		return "a string" // time.Time and the like
	}
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "a string" // base64
		}
		return "an array"
	case reflect.Array:
		return "an array"
	}
	return "another value"
}

// gotText says what value was found: value is encoding/json's description
// ("string", "number 1.5", "bool", "object", "array"), off the offset just
// after the value (a string, number or true/false, quoted from data when
// data is known) or just inside it (an object or array).
func gotText(value string, off int64, data []byte) string {
	kind, lit, _ := strings.Cut(value, " ")
	switch kind {
	case "string":
		if s := literalBefore(data, off, true); s != "" {
			return clipLiteral(s)
		}
		return "a string"
	case "number":
		if lit == "" {
			lit = literalBefore(data, off, false)
		}
		if lit != "" {
			return clipLiteral(lit)
		}
		return "a number"
	case "bool":
		if s := literalBefore(data, off, false); s == "true" || s == "false" {
			return s
		}
		return "true or false"
	case "object":
		return "an object"
	case "array":
		return "an array"
	case "null":
		return "null"
	}
	return value
}

// literalBefore is the JSON string (str) or number or true/false literal
// ending at offset off of data, or "" when there is none.
func literalBefore(data []byte, off int64, str bool) string {
	if off <= 0 || off > int64(len(data)) {
		return ""
	}
	end := int(off)
	if !str {
		i := end
		for i > 0 && strings.IndexByte("0123456789+-.eEtrufalsn", data[i-1]) >= 0 {
			i--
		}
		return string(data[i:end])
	}
	if end < 2 || data[end-1] != '"' {
		return ""
	}
	for i := end - 2; i >= 0; i-- {
		if data[i] != '"' {
			continue
		}
		bs := 0 // backslashes before it: an odd number escapes it
		for j := i - 1; j >= 0 && data[j] == '\\'; j-- {
			bs++
		}
		if bs%2 == 0 {
			return string(data[i:end])
		}
	}
	return ""
}

// clipLiteral cuts a literal longer than 40 bytes to its first 32 (and
// "…", and the closing quote of a string), as valid UTF-8.
func clipLiteral(s string) string {
	if len(s) > 40 {
		cut := 32
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		tail := "…"
		if s[0] == '"' {
			tail = `…"`
		}
		s = s[:cut] + tail
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// syntaxText words a syntax error of encoding/json (or goccy).
func syntaxText(msg string) string {
	msg = strings.TrimPrefix(msg, "json: ")
	if strings.HasSuffix(msg, "unexpected end of JSON input") {
		return CutOff
	}
	if c, ctx, ok := invalidChar(msg); ok {
		switch {
		case ctx == "looking for beginning of value":
			return "a value was expected, got " + c
		case ctx == "looking for beginning of object key string":
			return "a quoted key was expected, got " + c
		case ctx == "after object key":
			return "':' was expected after the key, got " + c
		case ctx == "after object key:value pair":
			return "',' or '}' was expected, got " + c
		case ctx == "after array element":
			return "',' or ']' was expected, got " + c
		case ctx == "in string literal" && c == `'\n'`:
			return "a line break inside a string (it must be written \\n)"
		case ctx == "in string literal":
			return "a raw control character " + c + " inside a string (it must be escaped)"
		case ctx == "in string escape code":
			return "an invalid escape in a string: a backslash before " + c
		case strings.HasPrefix(ctx, `in \u hexadecimal character escape`):
			return `an invalid \u escape in a string: ` + c + " is not a hex digit"
		case ctx == "after decimal point in numeric literal":
			return "a malformed number: a digit was expected after the decimal point, got " + c
		case ctx == "in exponent of numeric literal":
			return "a malformed number: a digit was expected in the exponent, got " + c
		case ctx == "in numeric literal":
			return "a malformed number: unexpected " + c
		case strings.HasPrefix(ctx, "in literal "):
			// "in literal true (expecting 'r')"
			word, want, _ := strings.Cut(strings.TrimPrefix(ctx, "in literal "), " (expecting ")
			return "a misspelt " + word + ": " + strings.TrimSuffix(want, ")") + " was expected, got " + c
		case ctx == "after top-level value":
			return "more data after the JSON value, from " + c
		}
	}
	switch { // goccy's words
	case msg == "expected comma after object element", msg == "expected comma after object value":
		return "',' or '}' was expected"
	case msg == "expected colon after object key":
		return "':' was expected after the key"
	case msg == "not at beginning of value":
		return "a value was expected"
	case strings.HasPrefix(msg, "invalid character ") && strings.Contains(msg, " as "):
		_, word, _ := strings.Cut(msg, " as ")
		return "a misspelt " + word
	}
	return msg
}

// invalidChar splits encoding/json's "invalid character <c> <context>"
// (c quoted as encoding/json quotes it: 'x', '\x00', a quote mark
// escaped).
func invalidChar(msg string) (c, ctx string, ok bool) {
	rest, found := strings.CutPrefix(msg, "invalid character '")
	if !found {
		return "", "", false
	}
	end := strings.Index(rest[1:], "' ") // the char is at least one byte; a quote at rest[0] is `'` itself
	if end < 0 {
		return "", "", false
	}
	end += 1
	return "'" + rest[:end] + "'", rest[end+2:], true
}
