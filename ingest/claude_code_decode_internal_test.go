package ingest

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/trajmine/trajmine/internal/testutil"
)

// ccLinesOf returns the non-blank lines of the Claude Code files matching
// the globs.
func ccLinesOf(t testing.TB, globs ...string) [][]byte {
	t.Helper()
	var out [][]byte
	for _, g := range globs {
		paths, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(nil, 64<<20)
			for sc.Scan() {
				if l := bytes.TrimSpace(sc.Bytes()); len(l) > 0 {
					out = append(out, bytes.Clone(l))
				}
			}
			if err := sc.Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out
}

// checkCCLineEquivalent fails when decodeCCLine (one pass, or steps when it
// is not sure) and decodeCCLineSteps disagree on line: the reject, or any
// field of the decoded line.
func checkCCLineEquivalent(t *testing.T, line []byte) {
	t.Helper()
	var fast, steps ccLine
	rf := decodeCCLine(1, line, &fast)
	rs := decodeCCLineSteps(1, line, &steps)
	if rf != rs {
		t.Fatalf("line %q: reject %q, steps reject %q", line, rf, rs)
	}
	checkCCValidFlags(t, line, &fast)
	if !reflect.DeepEqual(fast, steps) {
		t.Fatalf("line %q:\none pass %s\nsteps    %s", line, dumpCCLine(&fast), dumpCCLine(&steps))
	}
}

// checkCCValidFlags fails when the one-pass decode says a text is valid
// UTF-8 (ccLine.textValid, ccBlock.valid) and it is not; it then clears
// the flags, which the steps decode does not set.
func checkCCValidFlags(t *testing.T, line []byte, d *ccLine) {
	t.Helper()
	if d.textValid && !utf8.ValidString(d.text) {
		t.Fatalf("line %q: text %q said valid UTF-8", line, d.text)
	}
	d.textValid = false
	for i := range d.blocks {
		b := &d.blocks[i]
		for _, f := range []struct {
			bit uint8
			s   string
		}{{validText, b.Text}, {validThinking, b.Thinking}, {validResult, b.resultText}} {
			if b.valid&f.bit != 0 && !utf8.ValidString(f.s) {
				t.Fatalf("line %q: block %d's %q said valid UTF-8", line, i, f.s)
			}
		}
		b.valid = 0
	}
}

func dumpCCLine(d *ccLine) string {
	return fmt.Sprintf("%+v msg=%+v usage=%+v cm=%+v blocks=%+v text=%q", d.rec, d.msg, d.msg.Usage, d.rec.CompactMetadata, d.blocks, d.text)
}

// FuzzDecodeCCLineEquivalent checks that the one-pass decode of a Claude
// Code line accepts exactly the lines the decode in steps accepts, with
// the same reject words, and yields equal records. Seeds: every line of
// the Claude Code corpus and fixtures, and testdata/fuzz (the two lines
// on which a one-pass decode with goccy/go-json differed: invalid JSON
// inside a value decoded in place, a key in other case).
func FuzzDecodeCCLineEquivalent(f *testing.F) {
	lines := ccLinesOf(f, "testdata/claude-code/*.jsonl", "testdata/claude-code-split-output/*.jsonl",
		filepath.Join(testutil.RepoRoot(), "..", "shared", "corpus", "claude-code", "*.jsonl"))
	if len(lines) == 0 {
		f.Fatal("no seed lines")
	}
	for _, l := range lines {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkCCLineEquivalent(t, line)
	})
}

// TestDecodeCCLineFast pins which lines the one-pass decode takes and what
// it yields there, each against a value written out by hand; the lines it
// leaves to the steps decode as the steps do.
func TestDecodeCCLineFast(t *testing.T) {
	const head = `"sessionId":"s1","timestamp":"2025-01-02T03:04:05Z"`
	tests := []struct {
		name string
		line string
		fast bool   // decodeCCLineFast takes the line
		want ccLine // with fast: the decoded line (raw fields compared as text)
		// without fast: the steps decode's reject ("" when it keeps the line)
		reject string
	}{
		{name: "user string content with escapes", fast: true,
			line: `{"type":"user",` + head + `,"message":{"role":"user","content":"a\"b\\c\/d\n\te"}}`,
			want: ccLine{rec: ccRecord{Type: "user", SessionID: "s1", Timestamp: "2025-01-02T03:04:05Z"},
				msg: ccMessage{Role: "user"}, text: "a\"b\\c/d\n\te", textValid: true}},
		{name: "assistant blocks, usage, tool use", fast: true,
			line: `{"type":"assistant",` + head + `,"requestId":"r","message":{"id":"m1","model":"claude","role":"assistant","stop_reason":"tool_use",` +
				`"usage":{"input_tokens":3,"output_tokens":-4,"cache_creation_input_tokens":5,"cache_read_input_tokens":6,"other":{"x":[1]}},` +
				`"content":[{"type":"text","text":"hi"},"plain",{"type":"thinking","thinking":"hmm"},{"type":"tool_use","id":"t1","name":"Bash","input":{ "command" : "ls" }}]}}`,
			want: ccLine{rec: ccRecord{Type: "assistant", SessionID: "s1", Timestamp: "2025-01-02T03:04:05Z", RequestID: "r"},
				msg: ccMessage{ID: "m1", Model: "claude", Role: "assistant", StopReason: "tool_use",
					Usage: &ccUsage{InputTokens: 3, OutputTokens: -4, CacheCreation: 5, CacheRead: 6}},
				blocks: []ccBlock{{tbBlock: tbBlock{Type: "text", Text: "hi"}, valid: validText}, {tbBlock: tbBlock{Type: "text", Text: "plain"}, valid: validText},
					{tbBlock: tbBlock{Type: "thinking", Thinking: "hmm"}, valid: validThinking}, {tbBlock: tbBlock{Type: "tool_use", ID: "t1", Name: "Bash", Input: []byte(`{ "command" : "ls" }`)}}},
				text: "hi\nplain", textValid: true}},
		{name: "tool result: string, list, \\u escape", fast: true,
			line: `{"type":"user",` + head + `,"message":{"role":"user","content":[` +
				`{"type":"tool_result","tool_use_id":"t1","content":"out\u00e9\ud83d\ude00","is_error":true},` +
				`{"type":"tool_result","tool_use_id":"t2","content":[{"type":"text","text":"a"},{"type":"image"}]}]}}`,
			want: ccLine{rec: ccRecord{Type: "user", SessionID: "s1", Timestamp: "2025-01-02T03:04:05Z"}, msg: ccMessage{Role: "user"},
				blocks: []ccBlock{
					{tbBlock: tbBlock{Type: "tool_result", ToolUseID: "t1", Content: []byte(`"out\u00e9\ud83d\ude00"`), IsError: true}, resultText: "outé😀"},
					{tbBlock: tbBlock{Type: "tool_result", ToolUseID: "t2", Content: []byte(`[{"type":"text","text":"a"},{"type":"image"}]`)}, resultText: "a\n[image]"}},
				text: "", textValid: true}}, // a result's \u escape is the decoder's: not known valid; a list's text is ContentText's
		{name: "texts with and without a \\u escape", fast: true,
			line: `{"type":"assistant",` + head + `,"message":{"role":"assistant","content":[` +
				`{"type":"text","text":"a\u00e9"},{"type":"text","text":"b\n"},{"type":"thinking","thinking":"\ud800"},"c\u0041"]}}`,
			want: ccLine{rec: ccRecord{Type: "assistant", SessionID: "s1", Timestamp: "2025-01-02T03:04:05Z"}, msg: ccMessage{Role: "assistant"},
				blocks: []ccBlock{{tbBlock: tbBlock{Type: "text", Text: "aé"}}, {tbBlock: tbBlock{Type: "text", Text: "b\n"}, valid: validText},
					{tbBlock: tbBlock{Type: "thinking", Thinking: "\uFFFD"}}, {tbBlock: tbBlock{Type: "text", Text: "cA"}}},
				text: "aé\nb\n\ncA"}}, // joined with a text not known valid: not known valid
		{name: "system compact boundary, cost, nulls", fast: true,
			line: `{"type":"system","subtype":"compact_boundary",` + head + `,"content":"Conversation compacted","isSidechain":null,"summary":null,` +
				`"compactMetadata":{"trigger":"manual","preTokens":155000},"costUSD":0.25,"message":null}`,
			want: ccLine{rec: ccRecord{Type: "system", Subtype: "compact_boundary", SessionID: "s1", Timestamp: "2025-01-02T03:04:05Z",
				Content: []byte(`"Conversation compacted"`), Message: []byte("null"), CostUSD: ptr(0.25),
				CompactMetadata: &struct {
					Trigger   string `json:"trigger"`
					PreTokens *int64 `json:"preTokens"`
				}{Trigger: "manual", PreTokens: ptr(int64(155000))}}}},
		{name: "type from the message's role", fast: true,
			line: `{` + head + `,"message":{"role":"user","content":"x"}}`,
			want: ccLine{rec: ccRecord{Type: "user", SessionID: "s1", Timestamp: "2025-01-02T03:04:05Z"}, msg: ccMessage{Role: "user"}, text: "x", textValid: true}},
		{name: "an assistant's usage alone", fast: true,
			line: `{"type":"assistant",` + head + `,"message":{"id":"m2","usage":{"input_tokens":7,"output_tokens":null}}}`,
			want: ccLine{rec: ccRecord{Type: "assistant", SessionID: "s1", Timestamp: "2025-01-02T03:04:05Z"},
				msg: ccMessage{ID: "m2", Usage: &ccUsage{InputTokens: 7}}, blocks: []ccBlock{}}},
		{name: "meta record skipped", fast: true,
			line: `{"type":"progress",` + head + `,"data":{"a":[1,2,{"b":"c"}]}}`,
			want: ccLine{rec: ccRecord{Type: "progress", SessionID: "s1", Timestamp: "2025-01-02T03:04:05Z"}, skip: true}},
		{name: "other type: skipped, named as unread", fast: true,
			line: `{"type":"marble-origami-commit",` + head + `}`,
			want: ccLine{rec: ccRecord{Type: "marble-origami-commit", SessionID: "s1", Timestamp: "2025-01-02T03:04:05Z"}, skip: true, unread: true}},
		// left to the steps decode
		{name: "counter-example 1: not an object", line: `[{"":[}]}]`, reject: "record is not a JSON object"},
		{name: "counter-example 2: key in other case", line: `{"tYpE":{}}`,
			reject: "invalid JSON: field type: a string was expected, got an object"},
		{name: "key in other case, a string: the steps decode matches it", line: `{"Type":"progress"}`},
		{name: "repeated field", line: `{"type":"user","type":"progress"}`},
		// the steps decode skips a field it does not read without checking
		// it; it takes a raw control character in a string, and so does the
		// one pass
		{name: "invalid JSON in a field not read", line: `{"type":"progress","data":[}]}`},
		{name: "control character in a string", fast: true,
			line: "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"a\x01\"}}",
			want: ccLine{rec: ccRecord{Type: "user"}, msg: ccMessage{Role: "user"}, text: "a\x01", textValid: true}},
		{name: "unknown escape in a string read: left to the decoder", line: `{"type":"user","message":{"role":"user","content":"a\qb"}}`,
			reject: "invalid message content: an invalid escape in a string: a backslash before 'q'"},
		{name: "NUL before an escape (fuzz)", line: "{\"\":{\"\":[{\"\":{\"\":\"\x00\\b\"}}]},\"type\":\"0\"}",
			reject: "invalid JSON: a raw control character '\\x00' inside a string (it must be escaped)"},
		{name: "control character before an escape", fast: true,
			line: "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"a\x01\\n\"}}",
			want: ccLine{rec: ccRecord{Type: "user"}, msg: ccMessage{Role: "user"}, text: "a\x01\n", textValid: true}},
		{name: "invalid UTF-8 in a value", line: "{\"type\":\"progress\",\"x\":\"\xff\"}"},
		{name: "number with a fraction in an integer field", line: `{"type":"assistant","message":{"role":"assistant","usage":{"input_tokens":1.5},"content":[]}}`,
			reject: "invalid message: field usage.input_tokens: 1.5 is not a whole number"},
		{name: "message not an object", line: `{"type":"user","message":"hi"}`, reject: "message is not an object"},
		{name: "user without content", line: `{"type":"user","message":{"role":"user"}}`, reject: "user message without content"},
		{name: "content null", line: `{"type":"user","message":{"role":"user","content":null}}`},
		{name: "record without type", line: `{"sessionId":"s"}`, reject: "record without type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := []byte(tt.line)
			var d ccLine
			if got := decodeCCLineFast(line, &d); got != tt.fast {
				t.Fatalf("decodeCCLineFast took the line: %v, want %v", got, tt.fast)
			}
			if tt.fast {
				if !reflect.DeepEqual(rawAsText(d), rawAsText(tt.want)) {
					t.Errorf("decoded\n%s\nwant\n%s", dumpCCLine(&d), dumpCCLine(&tt.want))
				}
			} else {
				var s ccLine
				if got := decodeCCLine(1, line, &s); got != tt.reject {
					t.Errorf("reject %q, want %q", got, tt.reject)
				}
			}
			checkCCLineEquivalent(t, line)
		})
	}
}

// rawAsText is d with its raw JSON fields' slices made comparable by
// content alone (a slice of the line and a copy compare equal), and without
// the record's message and the message's content, which hold the rest of
// the line (checkCCLineEquivalent compares them with the steps decode's).
func rawAsText(d ccLine) ccLine {
	c := func(b []byte) []byte {
		if b == nil {
			return nil
		}
		return append([]byte{}, b...)
	}
	d.rec.Content = c(d.rec.Content)
	if string(d.rec.Message) != "null" {
		d.rec.Message = nil
	}
	d.msg.Content = nil
	bs := make([]ccBlock, len(d.blocks))
	for i, b := range d.blocks {
		b.Input, b.Content = c(b.Input), c(b.Content)
		bs[i] = b
	}
	if d.blocks != nil {
		d.blocks = bs
	}
	return d
}

func ptr[T any](v T) *T { return &v }

// TestValidJSON pins what the one-pass scan trusts: JSON's structure,
// literals and numbers; strings closed (escapes and control characters
// inside them are left to whoever decodes the string); no NUL; valid
// UTF-8; nesting up to validJSONDepth.
func TestValidJSON(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	tests := []struct {
		in   string
		want bool
	}{
		{`{}`, true}, {` { "a" : [ 1 , -2.5e+3 , 0 , true , false , null , "x" ] } `, true},
		{`{"a":"b\"c\\"}`, true}, {"{\"a\":\"\x01\\q\"}", true}, {`[]`, true}, {`"s"`, true}, {`-0.1E9`, true},
		{`{"a":1,}`, false}, {`{"a" 1}`, false}, {`{1:2}`, false}, {`[1 2]`, false}, {`[1,]`, false}, {`[}`, false},
		{`{"a":[}]}`, false}, {`{"a":"b}`, false}, {`{"a":"b\"}`, false}, {`{} {}`, false}, {``, false}, {`   `, false},
		{`tru`, false}, {`nul`, false}, {`truex`, false}, {`01`, false}, {`1.`, false}, {`.5`, false}, {`-`, false},
		{`1e`, false}, {`1e+`, false}, {`+1`, false}, {`NaN`, false},
		{"{\"a\":\"\x00\"}", false}, {"{\"a\":\"\xff\"}", false}, {"{\"a\":1}\u00a0", false},
		{deep(validJSONDepth), true}, {deep(validJSONDepth + 1), false},
	}
	for _, tt := range tests {
		if got := validJSON([]byte(tt.in)); got != tt.want {
			t.Errorf("validJSON(%.40q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// BenchmarkDecodeCCLine decodes every line of the Claude Code fixtures and
// corpus (or of the file $TRAJMINE_BENCH_FILE) in steps and in one pass.
//
//	go test ./ingest -run '^$' -bench DecodeCCLine
func BenchmarkDecodeCCLine(b *testing.B) {
	globs := []string{"testdata/claude-code/*.jsonl", filepath.Join(testutil.RepoRoot(), "..", "shared", "corpus", "claude-code", "*.jsonl")}
	if p := os.Getenv("TRAJMINE_BENCH_FILE"); p != "" {
		globs = []string{p}
	}
	lines := ccLinesOf(b, globs...)
	var size int64
	for _, l := range lines {
		size += int64(len(l))
	}
	for _, c := range []struct {
		name   string
		decode func(int64, []byte, *ccLine) string
	}{{"steps", decodeCCLineSteps}, {"onepass", decodeCCLine}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(size)
			for range b.N {
				for _, l := range lines {
					var d ccLine
					c.decode(1, l, &d)
				}
			}
		})
	}
}

// TestDecodeCCLineFastCorpus: every line of the Claude Code fixtures and
// corpus that the steps decode keeps is read in one pass (the steps are
// for the lines rejected, and for shapes the corpus does not have).
func TestDecodeCCLineFastCorpus(t *testing.T) {
	lines := ccLinesOf(t, "testdata/claude-code/*.jsonl", "testdata/claude-code-split-output/*.jsonl",
		filepath.Join(testutil.CorpusDir(t), "claude-code", "*.jsonl"))
	kept := 0
	for _, l := range lines {
		var steps, fast ccLine
		if decodeCCLineSteps(1, l, &steps) != "" {
			continue
		}
		kept++
		if !decodeCCLineFast(l, &fast) {
			t.Errorf("kept line left to the steps: %.200s", l)
		}
	}
	if kept < 1000 {
		t.Fatalf("%d lines kept: the corpus is missing", kept)
	}
}

// TestSpanTape checks what validJSONTape puts on the tape, against offsets
// counted by hand: every object and array, and the strings of at least
// tapeMinString bytes (quotes included), in the order they start; and that
// skip gives, for each value that starts at an offset, the offset past it.
func TestSpanTape(t *testing.T) {
	long := `"` + strings.Repeat("x", tapeMinString-2) + `"` // tapeMinString bytes
	short := `"` + strings.Repeat("y", tapeMinString-3) + `"`
	// offsets:   0 {   1 "a" 4 :  5 [  6 long (64 bytes) 70 ,  71 short (63) 134 , 135 {} 137 ] 138 }
	line := `{"a":[` + long + `,` + short + `,{}]}`
	tape := &spanTape{}
	if !validJSONTape([]byte(line), tape) {
		t.Fatal("valid JSON refused")
	}
	wantAt, wantEnd := []int{0, 5, 6, 135}, []int{139, 138, 70, 137}
	if !slices.Equal(tape.at, wantAt) || !slices.Equal(tape.end, wantEnd) {
		t.Fatalf("tape at %v end %v, want %v %v", tape.at, tape.end, wantAt, wantEnd)
	}
	for _, tc := range []struct{ at, want int }{{0, 139}, {5, 138}, {6, 70}, {71, 134}, {135, 137}} {
		if got := tape.skip([]byte(line), tc.at); got != tc.want {
			t.Errorf("skip(%d) = %d, want %d", tc.at, got, tc.want)
		}
	}
	if bad := (&spanTape{}); validJSONTape([]byte(`{"a":[1,}`), bad) {
		t.Error("invalid JSON taken")
	}
}
