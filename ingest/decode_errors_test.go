package ingest_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/ingest"
)

// TestDecodeErrorsInPlainWords is issue 31's point 5: a record that does
// not decode was reported in the decoder's words ("json: cannot unmarshal
// number \" into Go struct field ccUsage.InputTokens of type int64"). The
// warning now names the JSON field and says what was expected and found,
// or what is wrong with the syntax, at the record's file:line.
func TestDecodeErrorsInPlainWords(t *testing.T) {
	fixture := func(path string, edit func(string) string) string {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return edit(string(data))
	}
	// line n of s changed by f
	onLine := func(n int, f func(string) string) func(string) string {
		return func(s string) string {
			lines := strings.Split(s, "\n")
			lines[n-1] = f(lines[n-1])
			return strings.Join(lines, "\n")
		}
	}
	for _, tc := range []struct {
		name, format, file, data string
		want                     []string
	}{
		{
			name: "issue 31 repro", format: "claude-code", file: "cc.jsonl",
			data: fixture("testdata/claude-code/split_responses.jsonl", onLine(3, func(l string) string {
				return strings.Replace(l, `"input_tokens":3`, `"input_tokens":"3"`, 1)
			})),
			want: []string{`cc.jsonl:3: invalid message: field usage.input_tokens: a number was expected, got "3"`},
		},
		{
			name: "a record cut off", format: "claude-code", file: "cc.jsonl",
			data: fixture("testdata/claude-code/split_responses.jsonl", onLine(2, func(l string) string { return l[:len(l)-10] })),
			want: []string{`cc.jsonl:2: invalid JSON: the JSON is cut off: it ends before its value is complete`},
		},
		{
			name: "a number as a string, encoding/json", format: "codex-cli", file: "cx.jsonl",
			data: fixture("testdata/tokens/fractional.codex-cli.jsonl", onLine(5, func(l string) string {
				return strings.Replace(l, `"output_tokens":1.5`, `"output_tokens":"2"`, 1)
			})),
			want: []string{`cx.jsonl:5: invalid token_count: field total_token_usage.output_tokens: a number was expected, got a string`},
		},
		{
			name: "syntax in a document", format: "gemini-cli", file: "gm.json",
			data: fixture("testdata/gemini-cli/session.json", func(s string) string {
				return strings.Replace(s, `"type": "user",`, `"type": "user"`, 1)
			}),
			want: []string{`gm.json:11: invalid JSON: ',' or '}' was expected, got '"'`},
		},
		{
			name: "a field of an element", format: "gemini-cli", file: "gm.json",
			data: fixture("testdata/gemini-cli/session.json", func(s string) string {
				return strings.Replace(s, `"content": "list the repo"`, `"content": "list the repo", "timestamp": 17`, 1)
			}),
			want: []string{
				`gm.json:7: messages[0]: field timestamp: a string was expected, got 17`,
				`gm.json:99: messages[4] is not an object`, // the fixture's own
			},
		},
		{
			name: "not an object", format: "openai-messages", file: "m.jsonl",
			data: "{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}\n{\"messages\": [}\n",
			want: []string{
				// line 1's run holds a user message only: nothing of the model
				`m.jsonl: run m#1: empty run (no model output, no usage read as openai-messages)`,
				`m.jsonl:2: invalid JSON record: a value was expected, got '}'`,
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var warns []string
			_, err := ingest.Parse(context.Background(), tc.format, tc.file, []byte(tc.data), &ingest.Options{
				Warn: func(err error) { warns = append(warns, err.Error()) },
			})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, warns); d != "" {
				t.Errorf("warnings (-want +got):\n%s", d)
			}
		})
	}
}
