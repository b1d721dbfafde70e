package jsonx_test

import (
	stdjson "encoding/json"
	"errors"
	"fmt"
	"testing"

	gj "github.com/goccy/go-json"

	"github.com/trajmine/trajmine/ingest/internal/jsonx"
)

// ccUsage and ccMessage have the shape of the claude-code importer's
// message (issue 31's repro: message.usage.input_tokens written as a
// string).
type ccUsage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

type ccMessage struct {
	ID      string            `json:"id"`
	Usage   ccUsage           `json:"usage"`
	Content []json2Block      `json:"content"`
	Stop    *string           `json:"stop_reason"`
	Meta    map[string]string `json:"meta"`
	Done    bool              `json:"done"`
	Cost    float64           `json:"cost"`
	Raw     []byte            `json:"raw"`
	N       stdjson.Number    `json:"n"`
}

type json2Block struct {
	Type string `json:"type"`
}

// TestExplain: a decoding error, from goccy (Unmarshal) or encoding/json
// (Explain with the input, FromStd without), in plain words: the JSON
// field and what was expected and found, or what is wrong with the syntax.
func TestExplain(t *testing.T) {
	lenient := map[string]bool{"line break in a string": true, "bad number": true} // goccy accepts them
	long := `"` + "abcdefghij" + "abcdefghij" + "abcdefghij" + "abcdefghij" + `"`
	for _, tc := range []struct {
		name, in string
		want     string // from Unmarshal, and Explain of encoding/json's error with the input
		noInput  string // FromStd of encoding/json's error ("": want)
	}{
		{"issue 31 repro", `{"id":"m","usage":{"input_tokens":"3","output_tokens":8}}`,
			`field usage.input_tokens: a number was expected, got "3"`,
			`field usage.input_tokens: a number was expected, got a string`},
		{"string clipped", `{"usage":{"input_tokens":` + long + `}}`,
			`field usage.input_tokens: a number was expected, got "abcdefghijabcdefghijabcdefghija…"`,
			`field usage.input_tokens: a number was expected, got a string`},
		{"string with an escaped quote", `{"usage":{"input_tokens":"a\"b"}}`,
			`field usage.input_tokens: a number was expected, got "a\"b"`,
			`field usage.input_tokens: a number was expected, got a string`},
		{"object for a number", `{"usage":{"output_tokens":{"n":1}}}`,
			`field usage.output_tokens: a number was expected, got an object`, ""},
		{"array for an object", `{"usage":[1]}`,
			`field usage: an object was expected, got an array`, ""},
		{"string for an array", `{"content":"hello"}`,
			`field content: an array was expected, got "hello"`,
			`field content: an array was expected, got a string`},
		{"number for a string", `{"id":12}`,
			`field id: a string was expected, got 12`, "field id: a string was expected, got a number"},
		{"in an array element", `{"content":[{"type":7}]}`,
			`field content.type: a string was expected, got 7`, "field content.type: a string was expected, got a number"},
		{"bool for a pointer to a string", `{"stop_reason":true}`,
			`field stop_reason: a string was expected, got true`, "field stop_reason: a string was expected, got true or false"},
		{"map value", `{"meta":{"k":1}}`,
			`field meta: a string was expected, got 1`, "field meta: a string was expected, got a number"},
		{"string for a bool", `{"done":"yes"}`,
			`field done: true or false was expected, got "yes"`, "field done: true or false was expected, got a string"},
		{"object for a float", `{"cost":{}}`,
			`field cost: a number was expected, got an object`, ""},
		{"number for bytes", `{"raw":1}`,
			`field raw: a string was expected, got 1`, "field raw: a string was expected, got a number"},
		{"object for json.Number", `{"n":{}}`,
			`field n: a number was expected, got an object`, ""},
		{"top level", `[1,2]`,
			`an object was expected, got an array`, ""},
		{"number that is no integer", `{"usage":{"output_tokens":1.5}}`,
			`field usage.output_tokens: 1.5 is not a whole number`, ""},
		// syntax
		{"cut off", `{"usage":{"input_tokens":3`,
			jsonx.CutOff, ""},
		{"empty", ``, jsonx.CutOff, ""},
		{"trailing comma", `{"id":"m",}`,
			`a quoted key was expected, got '}'`, ""},
		{"no value", `{"id":}`,
			`a value was expected, got '}'`, ""},
		{"no colon", `{"id" "m"}`,
			`':' was expected after the key, got '"'`, ""},
		{"no comma", `{"id":"m" "x":1}`,
			`',' or '}' was expected, got '"'`, ""},
		{"array without comma", `{"content":[{} {}]}`,
			`',' or ']' was expected, got '{'`, ""},
		{"raw NUL in a string", "{\"id\":\"a\x00b\"}",
			`a raw control character '\x00' inside a string (it must be escaped)`, ""},
		{"line break in a string", "{\"id\":\"a\nb\"}",
			`a line break inside a string (it must be written \n)`, ""},
		{"bad escape", `{"id":"a\qb"}`,
			`an invalid escape in a string: a backslash before 'q'`, ""},
		{"bad unicode escape", `{"id":"\u12x4"}`,
			`an invalid \u escape in a string: 'x' is not a hex digit`, ""},
		{"bad number", `{"cost":1.}`,
			`a malformed number: a digit was expected after the decimal point, got '}'`, ""},
		{"bad exponent", `{"cost":1e}`,
			`a malformed number: a digit was expected in the exponent, got '}'`, ""},
		{"misspelt literal", `{"done":tru}`,
			`a misspelt true: 'e' was expected, got '}'`, ""},
		{"data after the value", `{"id":"m"} x`,
			`more data after the JSON value, from 'x'`, ""},
		{"quote as the character", `{"id":'m'}`,
			`a value was expected, got '\''`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m ccMessage
			err := jsonx.Unmarshal([]byte(tc.in), &m)
			if lenient[tc.name] && err == nil {
				// goccy accepts it; encoding/json's reading below
			} else if err == nil || err.Error() != tc.want {
				t.Errorf("Unmarshal: %v, want %q", err, tc.want)
			}
			serr := stdjson.Unmarshal([]byte(tc.in), new(ccMessage))
			if got := jsonx.Explain(serr, []byte(tc.in)); got == nil || got.Error() != tc.want {
				t.Errorf("Explain(%q): %v, want %q", serr, got, tc.want)
			}
			want := tc.noInput
			if want == "" {
				want = tc.want
			}
			if got := jsonx.FromStd(serr); got == nil || got.Error() != want {
				t.Errorf("FromStd(%q): %v, want %q", serr, got, want)
			}
		})
	}
}

// TestExplainKeepsErrors: the decoder's error stays reachable (its syntax
// offset gives the line), an error that is no decoder's is returned as it
// is, and a decoder's error wrapped in another keeps the outer words.
func TestExplainKeepsErrors(t *testing.T) {
	err := jsonx.Unmarshal([]byte("{\n\"id\": x}"), new(ccMessage))
	var se *gj.SyntaxError
	if !errors.As(err, &se) || se.Offset == 0 {
		t.Errorf("no goccy syntax error with an offset in %v", err)
	}
	other := errors.New("read failed")
	if jsonx.Explain(other, nil) != other || jsonx.Explain(nil, nil) != nil {
		t.Error("an error that is no decoder's was changed")
	}
	serr := stdjson.Unmarshal([]byte(`{"id":}`), new(ccMessage))
	wrapped := fmt.Errorf("messages: %w", serr)
	if got, want := jsonx.Explain(wrapped, nil).Error(), "messages: a value was expected, got '}'"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	var sse *stdjson.SyntaxError
	if !errors.As(jsonx.Explain(wrapped, nil), &sse) {
		t.Error("the wrapped syntax error is gone")
	}
}

// TestUnmarshalProbeCopies: an error explained on demand explains the
// input as it was, even when the caller's buffer changed since.
func TestUnmarshalProbeCopies(t *testing.T) {
	buf := []byte(`{"content":"hello"}`)
	err := jsonx.Unmarshal(buf, new(ccMessage))
	copy(buf, `{"content":[     ]}`)
	if got, want := err.Error(), `field content: an array was expected, got "hello"`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
