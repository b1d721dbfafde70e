package ingest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadHead checks what Detect sees of a file: its first HeadSize bytes,
// and after a first line longer than that, a "\n" and the HeadSize bytes
// after the end of that line.
func TestReadHead(t *testing.T) {
	long := strings.Repeat("x", HeadSize+10)
	next := `{"a":1}` + "\n"
	tests := []struct {
		name, in, want string
	}{
		{"short file", "{\"a\":1}\n{\"a\":2}\n", "{\"a\":1}\n{\"a\":2}\n"},
		{"line end in the head", "{}\n" + long, ("{}\n" + long)[:HeadSize]},
		{"long first line, lines after", long + "\n" + next, long[:HeadSize] + "\n" + next},
		{"long first line, nothing after", long, long[:HeadSize]},
		{"long first line, much after", long + "\n" + strings.Repeat(next, HeadSize), long[:HeadSize] + "\n" + strings.Repeat(next, HeadSize)[:HeadSize]},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readHead(strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("head of %d bytes (%.40q…), want %d bytes (%.40q…)", len(got), got, len(tc.want), tc.want)
			}
		})
	}
}

// TestMajorityHead checks which lines the second look of DetectFormat
// leaves out: lines that are not JSON objects, a key with an invalid byte,
// a field whose JSON type most lines do not give it; and that it keeps its
// hands off a head that is not mostly objects.
func TestMajorityHead(t *testing.T) {
	tests := []struct {
		name, in, want string
		ok             bool
	}{
		{"clean", "{\"role\":\"a\"}\n{\"role\":\"b\"}\n", "", false},
		{"wrong type", "{\"role\":12345}\n{\"role\":\"a\"}\n{\"role\":\"b\"}\n", "{\"role\":\"a\"}\n{\"role\":\"b\"}\n", true},
		{"null agrees", "{\"role\":null}\n{\"role\":\"a\"}\n{\"role\":\"b\"}\n", "", false},
		{"one to one: no majority", "{\"role\":1}\n{\"role\":\"a\"}\n", "", false},
		{"bad key byte", "{\"ro\xffle\":\"a\"}\n{\"role\":\"a\"}\n{\"role\":\"b\"}\n", "{\"role\":\"a\"}\n{\"role\":\"b\"}\n", true},
		{"nested bad key byte", "{\"m\":[{\"k\xff\":1}]}\n{\"m\":[]}\n{\"m\":[]}\n", "{\"m\":[]}\n{\"m\":[]}\n", true},
		{"cut and invalid lines", "{\"a\":\"xxx\n{\"a\":\"b\"}\nnot json\n{\"a\":\"c\"}\n{\"a\":\"d\"}\n{\"a\":", "{\"a\":\"b\"}\n{\"a\":\"c\"}\n{\"a\":\"d\"}\n", true},
		{"objects fewer than half", "{\"a\":\"xxx\n{\"a\":\"b\"}\nnot json\n{\"a\":\"c\"}\n{\"a\":", "", false},
		{"blank lines kept", "{\"a\":1}\n\n[1]\n{\"a\":2}\n", "{\"a\":1}\n\n{\"a\":2}\n", true},
		{"pretty-printed document", "{\n  \"a\": 1,\n  \"b\": {\"c\": 2}\n}\n", "", false},
		{"one object only", "{\"a\":1}\nx\n", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := majorityHead([]byte(tc.in))
			if ok != tc.ok || ok && string(got) != tc.want {
				t.Errorf("majorityHead = %q, %v; want %q, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

// TestMajorityHeadJudgesThirty checks that only the first voteLines
// non-blank lines are judged: a bad line after them is kept.
func TestMajorityHeadJudgesThirty(t *testing.T) {
	in := "{\"role\":12345}\n" + strings.Repeat("{\"role\":\"a\"}\n", voteLines-1) + "{\"role\":7}\n"
	got, ok := majorityHead([]byte(in))
	want := strings.Repeat("{\"role\":\"a\"}\n", voteLines-1) + "{\"role\":7}\n"
	if !ok || string(got) != want {
		t.Errorf("majorityHead kept %q, %v; want the last line kept", got, ok)
	}
}

// FuzzDetectHead checks that the head reading and the second look of
// detection never panic, that readHead gives at most 2·HeadSize+1 bytes,
// and that majorityHead only leaves lines out, in order.
func FuzzDetectHead(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*/*.jsonl")
	for _, s := range seeds[:min(len(seeds), 40)] {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b[:min(len(b), 8<<10)])
		}
	}
	f.Add([]byte("{\"ro\xffle\":\"a\"}\n{\"role\":\"a\"}\n{\"role\":12}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		head, err := readHead(bytes.NewReader(data))
		if err != nil || len(head) > 2*HeadSize+1 {
			t.Fatalf("readHead: %d bytes, %v", len(head), err)
		}
		_, _ = DetectFormat("fuzz.jsonl", head)
		clean, ok := majorityHead(data)
		if !ok {
			return
		}
		rest := data
		for l := range bytes.Lines(clean) {
			i := bytes.Index(rest, l)
			if i < 0 {
				t.Fatalf("majorityHead made a line %q that is not in the head", l)
			}
			rest = rest[i+len(l):]
		}
		if len(clean) >= len(data) {
			t.Fatal("majorityHead said it dropped lines but kept all")
		}
	})
}
