package jsonx

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
)

// heapJunk holds blocks of letters until they are dropped as garbage.
var heapJunk [][]byte

// cutKey is a struct goccy decodes with its key decoder.
type cutKey struct {
	A string `json:"a"`
	B int    `json:"bleId"`
}

// TestUnmarshalTrailingBackslash decodes inputs that end in a backslash
// inside a key that begins as a field's name does (FuzzCursorIDEBubble
// found one): goccy's key decoder takes
// the NUL it appends for the escaped byte and reads on past the end of its
// copy. Freed blocks of letters of the copy's size lie in the heap, so the
// bytes past it are not NULs, as they were when the fuzzer found it. Each
// must give the cut-off error, never a panic.
func TestUnmarshalTrailingBackslash(t *testing.T) {
	var inputs []string
	for _, n := range []int{15, 23, 31, 47} { // goccy's copy: n+1 bytes, a size class
		in := `{"a":"` + strings.Repeat("x", n-len(`{"a":"","ble\`)) + `","ble\`
		inputs = append(inputs, in)
	}
	inputs = append(inputs, `{"\`, `{"a\`, `{"b\\\`, `{"ble\n`, `{"a\\\"`)
	for round := range 200 {
		for _, in := range inputs {
			for range 64 {
				heapJunk = append(heapJunk, bytes.Repeat([]byte{'a'}, len(in)+1))
			}
		}
		heapJunk = nil // garbage now: freed blocks of letters
		runtime.GC()
		for _, in := range inputs {
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("round %d: Unmarshal(%q) panicked: %v", round, in, r)
					}
				}()
				var v cutKey
				err = Unmarshal([]byte(in), &v)
			}()
			if err == nil || !strings.Contains(err.Error(), "cut off") {
				t.Fatalf("Unmarshal(%q) = %v, want the cut-off error", in, err)
			}
		}
	}
}

// fuzzShape is a struct with nested keys for FuzzUnmarshalNoPanic.
type fuzzShape struct {
	Type    string         `json:"type"`
	Message *fuzzShape     `json:"message"`
	Content []fuzzShape    `json:"content"`
	Usage   map[string]int `json:"usage"`
	ID      string         `json:"id"`
	Re      string         `json:"re"`
	Text    string         `json:"text"`
	N       int64          `json:"n"`
}

// FuzzUnmarshalNoPanic decodes any bytes into a struct, a map and through
// the Decoder: an error or a value, never a panic.
func FuzzUnmarshalNoPanic(f *testing.F) {
	for _, s := range []string{`{"type":"a","message":{"content":[{"text":"x"}]}}`, `{"re\`, `{"ty\"`, `{"usage":{"a":1}}`, `{"id":"\ud800"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var s fuzzShape
		_ = Unmarshal(data, &s)
		var m map[string]any
		_ = Unmarshal(data, &m)
		d := NewDecoder(bytes.NewReader(data))
		for range 4 {
			var v fuzzShape
			if d.Decode(&v) != nil {
				break
			}
		}
	})
}

// TestUnmarshalSurrogateEscape decodes strings that end in the first half
// of a surrogate pair, at the end of the text: goccy computes a pointer
// past its buffer there, which aborts the process under -race (checkptr),
// so Unmarshal hands them to encoding/json. The values are encoding/json's
// (a lone half is U+FFFD), and a text without such an escape still goes to
// goccy (highSurrogateEscape's cases).
func TestUnmarshalSurrogateEscape(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
	}{
		{`{"id":"\ud800"}`, "\ufffd"},
		{`{"id":"x\uDBFF"}`, "x\ufffd"},
		{`{"id":"\ud83d\ude00"}`, "😀"},
		{`{"id":"a\u00e9"}`, "aé"},
	} {
		var v struct {
			ID string `json:"id"`
		}
		if err := Unmarshal([]byte(tc.in), &v); err != nil || v.ID != tc.want {
			t.Errorf("Unmarshal(%s) = %q, %v; want %q", tc.in, v.ID, err, tc.want)
		}
	}
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{`"\ud800"`, true},
		{`"\uD9ff"`, true},
		{`"\uDA00"`, true},
		{`"\udb00"`, true},
		{`"\udc00"`, false}, // the second half: goccy looks no further
		{`"\u00e9"`, false},
		{`"\\ud800"`, false}, // an escaped backslash, then text
		{`"\\\ud800"`, true},
		{`"\ud`, false},
		{`no escapes`, false},
	} {
		if got := highSurrogateEscape([]byte(tc.in)); got != tc.want {
			t.Errorf("highSurrogateEscape(%s) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
