package jsonx_test

import (
	"reflect"
	"testing"

	"github.com/trajmine/trajmine/ingest/internal/jsonx"
)

// record is a detector's view of a JSONL line.
type record struct {
	Type    string `json:"type"`
	N       int32  `json:"n"`
	Message *struct {
		Role string `json:"role"`
	} `json:"message"`
	Tags []string `json:"tags"`
}

// TestDecodes: Decodes says true exactly where Unmarshal returns nil (the
// want column is by hand), and fills the value as Unmarshal does.
func TestDecodes(t *testing.T) {
	cases := []struct {
		name, in string
		want     bool
	}{
		{"a record", `{"type":"user","n":3,"message":{"role":"user"},"tags":["a"]}`, true},
		{"unknown keys skipped", `{"other":{"deep":[1,2,{"x":"y"}]},"type":"a"}`, true},
		{"null", `null`, true},
		{"empty object", `{}`, true},
		{"cut off in a value", `{"type":"user","message":{"role":"us`, false},
		{"cut off after a key", `{"type":`, false},
		{"cut in an escape", `{"type":"a\`, false},
		{"a key cut in an escape", `{"ty\`, false},
		{"not JSON", `type: user`, false},
		{"a number for a string", `{"type":12345}`, false},
		{"a string for a number", `{"n":"3"}`, false},
		{"a number too big for int32", `{"n":3000000000}`, false},
		{"an object for an array", `{"tags":{}}`, false},
		{"trailing garbage", `{"type":"a"} x`, false},
		{"empty", ``, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got, ref record
			ok := jsonx.Decodes([]byte(c.in), &got)
			err := jsonx.Unmarshal([]byte(c.in), &ref)
			if ok != c.want {
				t.Errorf("Decodes(%s) = %v, want %v", c.in, ok, c.want)
			}
			if ok != (err == nil) {
				t.Errorf("Decodes(%s) = %v, Unmarshal's error %v", c.in, ok, err)
			}
			if !reflect.DeepEqual(got, ref) {
				t.Errorf("Decodes(%s) filled %+v, Unmarshal %+v", c.in, got, ref)
			}
		})
	}
}

// FuzzDecodes: for any bytes, Decodes is true exactly where Unmarshal
// returns nil, and both fill the value alike.
func FuzzDecodes(f *testing.F) {
	for _, s := range []string{`{"type":"user","n":3,"message":{"role":"user"},"tags":["a"]}`, `{"type":"a\`, `{"n":3000000000}`, `{"ty\"`, `null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got, ref record
		ok := jsonx.Decodes(data, &got)
		err := jsonx.Unmarshal(data, &ref)
		if ok != (err == nil) {
			t.Fatalf("Decodes(%q) = %v, Unmarshal's error %v", data, ok, err)
		}
		if ok && !reflect.DeepEqual(got, ref) {
			t.Fatalf("Decodes(%q) filled %+v, Unmarshal %+v", data, got, ref)
		}
	})
}
