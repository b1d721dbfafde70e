package ingest

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestJSONLines checks that jsonLines hands fn each line decoded and rejects
// a line that is not JSON before fn sees it.
func TestJSONLines(t *testing.T) {
	type rec struct {
		Type string `json:"type"`
	}
	tests := []struct {
		name, in string
		want     []string
		reject   string
	}{
		{"records", "{\"type\":\"a\"}\n\n{\"type\":\"b\"}\n", []string{"1:a", "3:b"}, ""},
		{"bad line", "{\"type\":\"a\"}\n{\"type\":\n", []string{"1:a"}, "x.jsonl:2: invalid JSON: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &File{path: "x.jsonl", strict: true}
			var got []string
			err := jsonLines(f, strings.NewReader(tc.in), func(line int64, raw []byte, r *rec) error {
				got = append(got, fmt.Sprintf("%d:%s", line, r.Type))
				return nil
			})
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("fn saw %q, want %q", got, tc.want)
			}
			var se *SyntaxError
			switch {
			case tc.reject == "" && err != nil:
				t.Errorf("err = %v, want nil", err)
			case tc.reject != "" && (!errors.As(err, &se) || !strings.HasPrefix(se.Error(), tc.reject)):
				t.Errorf("err = %v, want a rejection starting %q", err, tc.reject)
			}
		})
	}
}

// TestDecodeRecord checks decodeRecord's reasons for a line that is not a
// record, and that it decodes one that is.
func TestDecodeRecord(t *testing.T) {
	tests := []struct{ in, why, typ string }{
		{`{"type":"a"}`, "", "a"},
		{`["type"]`, "record is not a JSON object", ""},
		{`{"type":`, "invalid JSON: ", ""},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			var r struct {
				Type string `json:"type"`
			}
			why := decodeRecord([]byte(tc.in), &r)
			if (why == "") != (tc.why == "") || !strings.HasPrefix(why, tc.why) || r.Type != tc.typ {
				t.Errorf("decodeRecord(%s) = %q, type %q; want %q…, type %q", tc.in, why, r.Type, tc.why, tc.typ)
			}
		})
	}
}
