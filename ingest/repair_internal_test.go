package ingest

import (
	"bytes"
	stdjson "encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"
)

// ctlCases are JSON texts with raw control characters, as repaired (want)
// and the repairs counted (n).
var ctlCases = []struct {
	name, in, want string
	n              int64
}{
	{"clean", `{"a":"x","b":[1,2]}`, `{"a":"x","b":[1,2]}`, 0},
	{"NUL in a string", "{\"a\":\"x\x00y\"}", `{"a":"x\u0000y"}`, 1},
	{"two in one string", "{\"a\":\"\x01\x1f\"}", `{"a":"\u0001\u001f"}`, 1},
	{"two strings", "{\"a\":\"\x1b[0m\",\"b\":\"\x00\"}", `{"a":"\u001b[0m","b":"\u0000"}`, 2},
	{"in a key", "{\"a\x00\":1}", `{"a\u0000":1}`, 1},
	{"tab, CR, BS, FF in a string", "[\"\t\r\b\f\"]", `["\t\r\b\f"]`, 1},
	{"white space between values", "{\t\"a\" :\r\n 1 }\r\n", "{\t\"a\" :\r\n 1 }\r\n", 0},
	{"after a backslash", "{\"a\":\"x\\\x00\"}", `{"a":"x\\\u0000"}`, 1},
	{"after an escaped quote", "{\"a\":\"q\\\"\x00\"}", `{"a":"q\"\u0000"}`, 1},
	{"after an escaped backslash", "{\"a\":\"\\\\\"}\x00", `{"a":"\\"} `, 1},
	{"between values", "{\"a\":1,\x00\"b\":2}", `{"a":1, "b":2}`, 1},
	{"a run between values", "[1]\x00\x00\x00", `[1]   `, 1},
	{"JSON lines", "{\"a\":\"\x00\"}\n{\"b\":\"\x07\"}\n", "{\"a\":\"\\u0000\"}\n{\"b\":\"\\u0007\"}\n", 2},
	{"an open string ends at its line", "{\"a\":\"cut\n{\"b\":\"\x00\"}\n", "{\"a\":\"cut\n{\"b\":\"\\u0000\"}\n", 1},
	{"white space first", " \n\t[\"\x00\"]", " \n\t[\"\\u0000\"]", 1},
	{"not JSON", "# notes\x00 \"\x00\"", "# notes\x00 \"\x00\"", 0},
	{"DEL and UTF-8 are not control characters", "[\"\x7f é\"]", "[\"\x7f é\"]", 0},
}

// TestRepairJSONText checks the repair of a whole text, and that each
// repaired text is the JSON it is meant to be: it decodes, to the
// characters that were written.
func TestRepairJSONText(t *testing.T) {
	for _, tc := range ctlCases {
		t.Run(tc.name, func(t *testing.T) {
			got, n := repairJSONText([]byte(tc.in))
			if string(got) != tc.want || n != tc.n {
				t.Errorf("repairJSONText(%q) = %q, %d; want %q, %d", tc.in, got, n, tc.want, tc.n)
			}
		})
	}
	var v []string
	got, _ := repairJSONText([]byte("[\"a\x00b\", \"\\\x01\", \"\t\"]"))
	if err := stdjson.Unmarshal(got, &v); err != nil || len(v) != 3 || v[0] != "a\x00b" || v[1] != "\\\x01" || v[2] != "\t" {
		t.Errorf("%s decodes to %q, %v", got, v, err)
	}
}

// TestRepairJSONTextNoCopy: a text without control characters is returned
// as it is, not copied.
func TestRepairJSONTextNoCopy(t *testing.T) {
	in := []byte(`{"a":"x"}` + "\n" + `{"b":"\u0000"}`)
	if got, n := repairJSONText(in); &got[0] != &in[0] || n != 0 {
		t.Errorf("copied or counted (%d)", n)
	}
}

// TestCtlReaderPieces reads every case through jsonInput in pieces of one
// byte, and with reads of 1, 2 and 3 bytes, so that the state crosses every
// boundary and a repair longer than the read is held back: the result is
// the whole text's repair, and the count the same.
func TestCtlReaderPieces(t *testing.T) {
	for _, tc := range ctlCases {
		for _, size := range []int{1, 2, 3, 64} {
			var n atomic.Int64
			r := jsonInput(iotest.OneByteReader(strings.NewReader(tc.in)), &n)
			var got []byte
			buf := make([]byte, size)
			for {
				k, err := r.Read(buf)
				got = append(got, buf[:k]...)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if string(got) != tc.want || n.Load() != tc.n {
				t.Errorf("%s, reads of %d: %q, %d repairs; want %q, %d", tc.name, size, got, n.Load(), tc.want, tc.n)
			}
		}
	}
}

// TestJSONInputKeepsRandomAccess: an input that is not JSON text (an Inspect
// archive) is handed over as it is, so that an importer can still read it
// at offsets; JSON text is wrapped.
func TestJSONInputKeepsRandomAccess(t *testing.T) {
	var n atomic.Int64
	zip := bytes.NewReader([]byte("PK\x03\x04\x00\x00"))
	if r := jsonInput(zip, &n); r != io.Reader(zip) {
		t.Errorf("an archive was wrapped: %T", r)
	}
	if r := jsonInput(bytes.NewReader([]byte(" {}")), &n); r == nil {
		t.Error("nil reader")
	} else if _, ok := r.(*ctlReader); !ok {
		t.Errorf("JSON text not wrapped: %T", r)
	}
}

// TestCtlIndex checks the eight-bytes-at-a-time scan against a byte loop at
// every position and length.
func TestCtlIndex(t *testing.T) {
	base := []byte(`{"text":"abcdefghijklmnopqrstuvwxyz\u00e9","n":[1,2,3]}` + "\n")
	want := func(b []byte) int {
		for i, c := range b {
			if c < 0x20 && c != '\n' {
				return i
			}
		}
		return -1
	}
	for _, c := range []byte{0x00, 0x01, '\t', '\r', 0x1f, '\n', ' ', 0x80, 0xff} {
		for at := 0; at <= len(base); at++ {
			b := append(append(append([]byte{}, base[:at]...), c), base[at:]...)
			for start := 0; start < 9; start++ {
				if got, w := ctlIndex(b[start:]), want(b[start:]); got != w {
					t.Fatalf("ctlIndex(%q) = %d, want %d", b[start:], got, w)
				}
			}
		}
	}
}

// BenchmarkRepairJSONText is what a text without control characters costs
// (the common path): JSON lines of Claude Code's shape, and the same text
// as one line (a minified document, or a line longer than a read), where
// the string state is followed through every byte.
func BenchmarkRepairJSONText(b *testing.B) {
	line := []byte(`{"type":"assistant","message":{"id":"msg_1","content":[{"type":"text","text":"` +
		strings.Repeat(`I will read the file.\n\"quoted\" and more text `, 40) + `"}],"usage":{"input_tokens":3}}}` + "\n")
	lines := bytes.Repeat(line, 64)
	for _, bc := range []struct {
		name string
		data []byte
	}{{"lines", lines}, {"one line", bytes.ReplaceAll(lines, []byte("\n"), []byte(" "))}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.data)))
			for b.Loop() {
				if _, n := repairJSONText(bc.data); n != 0 {
					b.Fatal(n)
				}
			}
		})
	}
}

// refRepair is jsonCtl's rule written byte by byte, the reference its
// faster reading (eight bytes at a time, in pieces) must agree with.
func refRepair(in []byte) ([]byte, int64) {
	i := 0
	for i < len(in) && strings.IndexByte(" \t\r\n", in[i]) >= 0 {
		i++
	}
	if i == len(in) || in[i] != '{' && in[i] != '[' {
		return in, 0
	}
	var out []byte
	var n int64
	inStr, esc, fixed := false, false, false
	for _, c := range in {
		switch {
		case c == '\n':
			inStr, esc, fixed = false, false, false
			out = append(out, c)
		case c < 0x20 && inStr:
			if !fixed {
				fixed = true
				n++
			}
			if esc {
				out = append(out, '\\')
				esc = false
			}
			switch c {
			case '\t':
				out = append(out, `\t`...)
			case '\r':
				out = append(out, `\r`...)
			case '\b':
				out = append(out, `\b`...)
			case '\f':
				out = append(out, `\f`...)
			default:
				out = append(out, fmt.Sprintf(`\u%04x`, c)...)
			}
		case c == '\t' || c == '\r':
			fixed, esc = false, false
			out = append(out, c)
		case c < 0x20:
			if !fixed {
				fixed = true
				n++
			}
			esc = false
			out = append(out, ' ')
		default:
			if !inStr {
				fixed = false
			}
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr, fixed = !inStr, false
			}
			out = append(out, c)
		}
	}
	return out, n
}

// TestRepairMatchesReference puts control characters (after a backslash
// too) at many places in every JSON fixture and checks that the repair of
// the whole text, and of the text read in pieces of 1 to 4096 bytes (the
// string state found by reading again at offsets, or followed through
// every byte), is the reference's.
func TestRepairMatchesReference(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "*", "*.json*"))
	more, _ := filepath.Glob(filepath.Join("testdata", "*", "*.traj"))
	paths = append(paths, more...)
	if len(paths) < 20 {
		t.Fatalf("%d fixtures", len(paths))
	}
	bad := [][]byte{{0}, {0x1b}, {'\t'}, {'\r'}, {'\\', 0}, {'\\', '\\', 0x01}, {0, 0, 0}}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		step := max(1, len(data)/25)
		for k := 0; k < len(data); k += step {
			in := append(append(append([]byte{}, data[:k]...), bad[k%len(bad)]...), data[k:]...)
			want, wn := refRepair(in)
			if got, n := repairJSONText(in); !bytes.Equal(got, want) || n != wn {
				t.Fatalf("%s, %q at %d: repairJSONText differs from the reference (%d, %d repairs)", p, bad[k%len(bad)], k, n, wn)
			}
			size := []int{1, 7, 64, 4096}[k%4]
			for _, src := range []struct {
				name string
				r    io.Reader
			}{
				{"read again at offsets", bytes.NewReader(in)},
				{"followed through", io.MultiReader(bytes.NewReader(in))}, // no ReadAt
			} {
				var cnt atomic.Int64
				got, err := io.ReadAll(iotest.HalfReader(&sizedReader{jsonInput(src.r, &cnt), size}))
				if err != nil || !bytes.Equal(got, want) || cnt.Load() != wn {
					t.Fatalf("%s, %q at %d, reads of %d, state %s: the pieces' repair differs from the reference (%v; %d, %d repairs)", p, bad[k%len(bad)], k, size, src.name, err, cnt.Load(), wn)
				}
			}
		}
	}
}

// sizedReader reads at most size bytes at a time.
type sizedReader struct {
	r    io.Reader
	size int
}

func (s *sizedReader) Read(p []byte) (int, error) { return s.r.Read(p[:min(len(p), s.size)]) }

// TestLastNewline checks lastNewline against bytes.LastIndexByte.
func TestLastNewline(t *testing.T) {
	for _, n := range []int{0, 1, 255, 256, 257, 1000} {
		b := bytes.Repeat([]byte("x"), n)
		for at := -1; at < n; at++ {
			c := append([]byte{}, b...)
			if at >= 0 {
				c[at] = '\n'
			}
			if got, want := lastNewline(c), bytes.LastIndexByte(c, '\n'); got != want {
				t.Fatalf("len %d, newline at %d: %d, want %d", n, at, got, want)
			}
		}
	}
}
