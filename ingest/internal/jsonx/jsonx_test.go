package jsonx_test

import (
	stdjson "encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/ingest/internal/jsonx"
)

type usage struct {
	Usage struct {
		Input  int64  `json:"input_tokens"`
		Output int64  `json:"output_tokens"`
		Small  uint8  `json:"small"`
		Note   string `json:"note"`
	} `json:"usage"`
}

// TestUnmarshalNumbers: goccy reports 1.5 in an integer field as "expected
// comma after object element"; Unmarshal says what is wrong with the number.
func TestUnmarshalNumbers(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"usage":{"output_tokens":1.5,"note":"x"}}`, "field usage.output_tokens: 1.5 is not a whole number"},
		{`{"usage":{"output_tokens":1e308}}`, "field usage.output_tokens: 1e308 is out of range for int64"},
		{`{"usage":{"output_tokens":-1e19}}`, "field usage.output_tokens: -1e19 is out of range for int64"},
		{`{"usage":{"output_tokens":99999999999999999999}}`, "field usage.output_tokens: 99999999999999999999 is out of range for int64"},
		{`{"usage":{"input_tokens":1e3}}`, "field usage.input_tokens: 1e3 is not written as an integer"},
		{`{"usage":{"input_tokens":2.0}}`, "field usage.input_tokens: 2.0 is not written as an integer"},
		{`{"usage":{"small":256}}`, "field usage.small: 256 is out of range for uint8"},
		{`{"usage":{"small":-1}}`, "field usage.small: -1 is out of range for uint8"},
		// not number errors: goccy's own message stays
		{`{"usage":{"output_tokens":1,}}`, ""},
		{`{"usage":{"note":5}}`, ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			var v usage
			err := jsonx.Unmarshal([]byte(tc.in), &v)
			if err == nil {
				t.Fatal("no error")
			}
			var ne *jsonx.NumberError
			if tc.want == "" {
				if errors.As(err, &ne) {
					t.Errorf("got a NumberError %q for a different problem", err)
				}
				return
			}
			if !errors.As(err, &ne) || err.Error() != tc.want {
				t.Errorf("got %q, want %q", err, tc.want)
			}
		})
	}
	var v usage
	if err := jsonx.Unmarshal([]byte(`{"usage":{"input_tokens":12,"output_tokens":-3}}`), &v); err != nil || v.Usage.Input != 12 || v.Usage.Output != -3 {
		t.Errorf("valid input: %v %+v", err, v)
	}
}

// TestFromStd: encoding/json's type errors (codex-cli decodes with it) get
// the same wording.
func TestFromStd(t *testing.T) {
	var v usage
	err := jsonx.FromStd(stdjson.Unmarshal([]byte(`{"usage":{"output_tokens":1.5}}`), &v))
	if got, want := err.Error(), "field usage.output_tokens: 1.5 is not a whole number"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	other := errors.New("x")
	if jsonx.FromStd(other) != other {
		t.Errorf("other errors must pass through")
	}
}

// TestValid: invalid UTF-8 in a long string is valid JSON (encoding/json's
// rule) and does not panic (goccy's Valid indexed past its 1 KiB read
// buffer on this input, from FuzzImporters).
func TestValid(t *testing.T) {
	long := `{"k` + strings.Repeat("\xe3", 1500) + `": 1}`
	tests := []struct {
		in   string
		want bool
	}{
		{`{"a": [1, "x"]}`, true},
		{`{"a": `, false},
		{long, true},
		{long[:1200], false},
	}
	for _, tc := range tests {
		if got := jsonx.Valid([]byte(tc.in)); got != tc.want {
			t.Errorf("Valid(%.30q…) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
