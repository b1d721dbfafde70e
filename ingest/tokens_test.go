package ingest_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/ingest"
)

// TestTokenCounts is issue 19's repro for token fields: a negative output
// count was stored as is (a negative input became 0), and 1.5 or 1e308 was
// rejected as "expected comma after object element". A negative count of
// any kind is set to 0 and recorded as a reject naming the field and value;
// a number that is no token count is rejected saying what is wrong with it.
func TestTokenCounts(t *testing.T) {
	type tokens struct{ In, Out int64 }
	for _, tc := range []struct {
		file    string
		rejects []string // exact, "file:line: reason"
		usage   []tokens // the usage rows
		run     tokens   // the run's totals
	}{
		{
			file: "negative.codex-exec.jsonl",
			rejects: []string{
				"negative.codex-exec.jsonl:3: run negative.codex-exec, model call 1: negative input_tokens -3 set to 0",
				"negative.codex-exec.jsonl:3: run negative.codex-exec, model call 1: negative output_tokens -5 set to 0",
			},
			usage: []tokens{{0, 0}},
		},
		{
			file:    "negative.claude-code.jsonl",
			rejects: []string{"negative.claude-code.jsonl:2: run s1, model call 1: negative output_tokens -5 set to 0"},
			usage:   []tokens{{7, 0}},
			run:     tokens{7, 0},
		},
		{
			file:    "negative-totals.claude-stream.jsonl",
			rejects: []string{"negative-totals.claude-stream.jsonl:3: run sess-neg, logged totals: negative output_tokens -2 set to 0"},
			usage:   []tokens{{4, 8}},
			run:     tokens{4, 8},
		},
		// issue 31, point 6: Codex's token_count totals held negative
		// counts without a reject; the last call's usage stands
		{
			file: "negative-totals.codex-cli.jsonl",
			rejects: []string{
				"negative-totals.codex-cli.jsonl:5: run sess-negtot, total_token_usage: negative output_tokens -7 set to 0",
				"negative-totals.codex-cli.jsonl:5: run sess-negtot, total_token_usage: negative total_tokens -1 set to 0",
			},
			usage: []tokens{{100, 1}},
			run:   tokens{100, 1},
		},
		// a negative count of the call itself was "implausible token count"
		// for the whole line, the call left without usage
		{
			file: "negative-last.codex-cli.jsonl",
			rejects: []string{
				"negative-last.codex-cli.jsonl:5: run sess-neglast, last_token_usage: negative input_tokens -3 set to 0",
				"negative-last.codex-cli.jsonl:5: run sess-neglast, last_token_usage: negative reasoning_output_tokens -2 set to 0",
			},
			usage: []tokens{{0, 4}},
			run:   tokens{0, 4},
		},
		{
			file:    "fractional.codex-exec.jsonl",
			rejects: []string{"fractional.codex-exec.jsonl:3: invalid JSON: field usage.output_tokens: 1.5 is not a whole number"},
		},
		{
			file:    "huge.codex-exec.jsonl",
			rejects: []string{"huge.codex-exec.jsonl:3: invalid JSON: field usage.output_tokens: 1e308 is out of range for int64"},
		},
		{
			file:    "fractional.claude-code.jsonl",
			rejects: []string{"fractional.claude-code.jsonl:2: invalid message: field usage.output_tokens: 2.5 is not a whole number"},
		},
		{
			file:    "fractional.codex-cli.jsonl",
			rejects: []string{"fractional.codex-cli.jsonl:5: invalid token_count: field total_token_usage.output_tokens: 1.5 is not a whole number"},
		},
	} {
		t.Run(tc.file, func(t *testing.T) {
			var warns []string
			var sink ingest.MemSink
			dir := filepath.Join("testdata", "tokens")
			sum, err := ingest.Files(context.Background(), &sink, []string{filepath.Join(dir, tc.file)}, &ingest.Options{
				Warn: func(err error) { warns = append(warns, err.Error()) },
			})
			if err != nil || sum.Failed != 0 {
				t.Fatalf("%v %v", err, sum.Errors)
			}
			want := make([]string, len(tc.rejects))
			for i, r := range tc.rejects {
				want[i] = filepath.Join(dir, r)
			}
			if d := cmp.Diff(want, warns); d != "" {
				t.Errorf("warnings (-want +got):\n%s", d)
			}
			if sum.Rejects != int64(len(tc.rejects)) || len(sink.Rejects) != len(tc.rejects) {
				t.Errorf("%d rejects counted, %d stored; want %d", sum.Rejects, len(sink.Rejects), len(tc.rejects))
			}
			var got []tokens
			for _, u := range sink.Usage {
				got = append(got, tokens{u.InputTokens, u.OutputTokens})
			}
			if d := cmp.Diff(tc.usage, got); d != "" {
				t.Errorf("usage (-want +got):\n%s", d)
			}
			if len(sink.Runs) != 1 {
				t.Fatalf("%d runs", len(sink.Runs))
			}
			if r := sink.Runs[0]; (tokens{r.InputTokens, r.OutputTokens}) != tc.run {
				t.Errorf("run totals %d/%d, want %d/%d", r.InputTokens, r.OutputTokens, tc.run.In, tc.run.Out)
			}
		})
	}
}

// TestNegativeTokensStrict: in strict mode a negative count fails its file.
func TestNegativeTokensStrict(t *testing.T) {
	var sink ingest.MemSink
	path := filepath.Join("testdata", "tokens", "negative.claude-code.jsonl")
	sum, err := ingest.Files(context.Background(), &sink, []string{path}, &ingest.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	want := path + ":2: run s1, model call 1: negative output_tokens -5 set to 0"
	if sum.Failed != 1 || len(sum.Errors) != 1 || sum.Errors[0].Error() != want {
		t.Errorf("failed %d, errors %v; want [%s]", sum.Failed, sum.Errors, want)
	}
	if len(sink.Runs) != 0 {
		t.Errorf("%d runs kept", len(sink.Runs))
	}
}
