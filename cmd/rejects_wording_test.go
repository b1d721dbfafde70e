package cmd

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/schema"
)

// TestRejectTextRowsAndLines checks the summary's clause on rejects
// (issue 30.5): a SQLite store's rejected rows are called rows, not
// lines, and a mix names both; the counts are the warnings fed in.
func TestRejectTextRowsAndLines(t *testing.T) {
	line := func(file string, n int64) error { return &ingest.SyntaxError{File: file, Line: n, Msg: "bad"} }
	row := func(file string, n int64) error {
		return &ingest.SyntaxError{File: file, Where: fmt.Sprintf("table messages row %d", n), Msg: "bad"}
	}
	tests := []struct {
		name    string
		warns   []error
		rejects int64
		hint    bool
		want    string
	}{
		{"none", nil, 0, true, "no line rejected"},
		{"lines", []error{line("a.jsonl", 3), line("a.jsonl", 9)}, 2, false, "2 lines rejected in 1 file"},
		{"one row", []error{row("sessions.db", 2)}, 1, true, "1 store row rejected in 1 file (trajmine rejects lists it)"},
		{"rows and lines", []error{row("sessions.db", 2), row("sessions.db", 3), line("a.jsonl", 1)}, 3, false, "1 line and 2 store rows rejected in 2 files"},
		{"not a syntax error", []error{errors.New("x: unknown format")}, 1, false, "1 line rejected"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := newIngestLog(io.Discard, true)
			for _, w := range tc.warns {
				l.warn(w)
			}
			if got := l.rejectText(tc.rejects, tc.hint); got != tc.want {
				t.Errorf("rejectText = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestRejectLine checks how trajmine rejects prints one reject: a line's
// number after the file, a store row (line 0) by its table and row, which
// its reason names, with no ":0".
func TestRejectLine(t *testing.T) {
	tests := []struct {
		r    schema.Reject
		want string
	}{
		{schema.Reject{SourcePath: "a.jsonl", Line: 7, Reason: "not JSON"}, "a.jsonl:7: not JSON"},
		{schema.Reject{SourcePath: "sessions.db", Line: 0, Reason: "table messages row 2: content_json: not JSON"}, "sessions.db: table messages row 2: content_json: not JSON"},
	}
	for _, tc := range tests {
		if got := rejectLine(tc.r); got != tc.want {
			t.Errorf("rejectLine(%+v) = %q, want %q", tc.r, got, tc.want)
		}
	}
}
