package ingest

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestLineReader checks that lineReader hands the handler each kept line
// decoded, in file order, with its line number (blank lines counted), and
// rejects at its line a line the decoder refuses, sequentially and in
// parallel, with each decoder.
func TestLineReader(t *testing.T) {
	type rec struct {
		Type string `json:"type"`
	}
	tests := []struct {
		name, in string
		decode   func(int64, []byte, *rec) string
		want     []string // line:type seen by the handler
		rejects  []string // line: reason prefix
	}{
		{"records", "{\"type\":\"a\"}\n\n{\"type\":\"b\"}\n", nil, []string{"1:a", "3:b"}, nil},
		{"bad line", "{\"type\":\"a\"}\n{\"type\":\n{\"type\":\"c\"}", nil, []string{"1:a", "3:c"}, []string{"2: invalid JSON: "}},
		{"not an object", "[1]\nnull\n{\"type\":\"c\"}", nil, []string{"3:c"}, []string{"1: record is not a JSON object", "2: record is not a JSON object"}},
		{"key not UTF-8", "{\"ty\xffpe\":\"a\"}\n{\"type\":\"b\",\"v\":\"\xff\"}", nil, []string{"2:b"}, []string{"1: a key is not valid UTF-8"}},
		{"any value, key not UTF-8", "{\"m\":{\"k\xff\":1}}\n{\"type\":\"b\"}", jsonValue[rec], []string{"2:b"}, []string{"1: a key is not valid UTF-8"}},
		{"any value", "[1]\nnull\n{\"type\":\"c\"}", jsonValue[rec], []string{"2:", "3:c"}, []string{"1: invalid JSON: "}},
		{"own decoder", "{\"type\":\"a\"}\n{\"type\":\"\"}", func(_ int64, raw []byte, r *rec) string {
			if why := decodeRecord(raw, r); why != "" || r.Type != "" {
				return why
			}
			return "record without type"
		}, []string{"1:a"}, []string{"2: record without type"}},
	}
	for _, tc := range tests {
		for _, parallel := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/parallel=%v", tc.name, parallel), func(t *testing.T) {
				var rejects []string
				f := &File{path: "x.jsonl", tx: &memTx{m: &MemSink{}}, warn: func(err error) {
					var se *SyntaxError
					if errors.As(err, &se) {
						rejects = append(rejects, fmt.Sprintf("%d: %s", se.Line, se.Msg))
					}
				}}
				var got []string
				err := lineReader[rec]{decode: tc.decode, parallel: parallel}.read(f, strings.NewReader(tc.in), func(line int64, raw []byte, r *rec) error {
					got = append(got, fmt.Sprintf("%d:%s", line, r.Type))
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if strings.Join(got, ",") != strings.Join(tc.want, ",") {
					t.Errorf("handler saw %q, want %q", got, tc.want)
				}
				if len(rejects) != len(tc.rejects) {
					t.Fatalf("rejects %q, want %q", rejects, tc.rejects)
				}
				for i := range rejects {
					if !strings.HasPrefix(rejects[i], tc.rejects[i]) {
						t.Errorf("reject %d = %q, want %q…", i, rejects[i], tc.rejects[i])
					}
				}
			})
		}
	}
}

// TestLineReaderStrict checks that in strict mode the first rejection ends
// the read with a positioned error.
func TestLineReaderStrict(t *testing.T) {
	for _, parallel := range []bool{false, true} {
		f := &File{path: "x.jsonl", strict: true}
		n := 0
		err := lineReader[map[string]any]{parallel: parallel}.read(f, strings.NewReader("{}\n{\n{}"), func(int64, []byte, *map[string]any) error {
			n++
			return nil
		})
		var se *SyntaxError
		if !errors.As(err, &se) || !strings.HasPrefix(se.Error(), "x.jsonl:2: invalid JSON: ") || n != 1 {
			t.Errorf("parallel=%v: err %v after %d lines, want x.jsonl:2: invalid JSON after 1", parallel, err, n)
		}
	}
}

// TestLineReaderParallel checks the parallel option on 5,000 lines: every
// line decoded and handled once, in order; a handler error stops the read;
// a decoder panic is an error, not a crash.
func TestLineReaderParallel(t *testing.T) {
	var in strings.Builder
	for i := 1; i <= 5000; i++ {
		if i%7 == 0 {
			in.WriteString("\n") // blank lines are skipped but counted
			continue
		}
		fmt.Fprintf(&in, "line %d\n", i)
	}
	f := &File{path: "x.jsonl"}
	upper := func(_ int64, b []byte, v *string) string { *v = strings.ToUpper(string(b)); return "" }
	var got []int64
	err := lineReader[string]{decode: upper, parallel: true}.read(f, strings.NewReader(in.String()),
		func(line int64, b []byte, v *string) error {
			if *v != strings.ToUpper(string(b)) || *v != fmt.Sprintf("LINE %d", line) {
				return fmt.Errorf("line %d: got %q for %q", line, *v, b)
			}
			got = append(got, line)
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5000-5000/7 {
		t.Fatalf("handled %d lines", len(got))
	}
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] {
			t.Fatalf("out of order at %d: %d after %d", i, got[i], got[i-1])
		}
	}
	stop := errors.New("stop")
	n := 0
	zero := func(int64, []byte, *int) string { return "" }
	err = lineReader[int]{decode: zero, parallel: true}.read(f, strings.NewReader(in.String()),
		func(int64, []byte, *int) error {
			if n++; n == 1234 {
				return stop
			}
			return nil
		})
	if !errors.Is(err, stop) || n != 1234 {
		t.Errorf("handler error: err %v after %d lines", err, n)
	}
	boom := func(line int64, _ []byte, _ *int) string {
		if line == 3001 {
			panic("boom")
		}
		return ""
	}
	err = lineReader[int]{decode: boom, parallel: true}.read(f, strings.NewReader(in.String()),
		func(int64, []byte, *int) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "decoder failed: boom") {
		t.Errorf("decoder panic: err %v", err)
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

// TestEachOwnedLine: the lines parallelLines reads from blocks are the
// lines eachLine reads (white space trimmed, blank lines counted, a last
// line without its end), whatever the block size cuts, and each stays as
// it was read after the reader has gone on.
func TestEachOwnedLine(t *testing.T) {
	tests := []struct {
		name string
		in   string
		fail bool     // the reader fails after in
		want []string // line:text
	}{
		{"lines", "ab\ncd\n", false, []string{"1:ab", "2:cd"}},
		{"blank and white lines counted", "\n  \n\tab \r\n\r\ncd", false, []string{"3:ab", "5:cd"}},
		{"no line end at the end", "abc", false, []string{"1:abc"}},
		{"a line longer than any block", "x\n" + strings.Repeat("y", 40) + "\nz\n", false, []string{"1:x", "2:" + strings.Repeat("y", 40), "3:z"}},
		{"empty", "", false, nil},
		{"one line end", "\n", false, nil},
		{"read error: the lines before it, the cut one too", "ab\ncd", true, []string{"1:ab", "2:cd"}},
	}
	for _, tc := range tests {
		for _, block := range []int{1, 3, 7, 1 << 20} {
			t.Run(fmt.Sprintf("%s/block=%d", tc.name, block), func(t *testing.T) {
				var lines [][]byte
				var nums []int64
				f := &File{path: "x.jsonl"}
				var r io.Reader = strings.NewReader(tc.in)
				if tc.fail {
					r = io.MultiReader(r, iotest.ErrReader(errors.New("disk")))
				}
				err := f.eachOwnedLine(r, block, func(line int64, b []byte) error {
					lines, nums = append(lines, b), append(nums, line) // kept, not copied
					return nil
				})
				if want := map[bool]string{false: "<nil>", true: "read x.jsonl: disk"}[tc.fail]; fmt.Sprint(err) != want {
					t.Fatalf("error %v, want %s", err, want)
				}
				var got []string
				for i, l := range lines {
					got = append(got, fmt.Sprintf("%d:%s", nums[i], l))
				}
				if strings.Join(got, ",") != strings.Join(tc.want, ",") {
					t.Errorf("lines %q, want %q", got, tc.want)
				}
			})
		}
	}
}
