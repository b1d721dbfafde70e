package ingest

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/trajmine/trajmine/schema"
)

// TestValidRuneCount checks the rune count of valid UTF-8 against hand
// counts (runes placed across the eight-byte words it reads) and against
// utf8.RuneCountInString on longer texts.
func TestValidRuneCount(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want int
	}{
		{"", 0},
		{"a", 1},
		{"abcdefgh", 8},
		{"abcdefghi", 9},
		{"é", 1},
		{"aaaaaaaé", 8},          // é across the first word's end (bytes 7 and 8)
		{"aaaaaaé", 7},           // é the first word's last two bytes
		{"日本語", 3},               // 9 bytes
		{"😀😀😀", 3},               // 12 bytes, 4 each
		{"a😀bé日\u007f\u0080", 7}, // one rune of each width, DEL, U+0080
		{strings.Repeat("é", 9), 9},
		{strings.Repeat("日", 11), 11},
	} {
		if got := validRuneCount(tc.s); got != tc.want {
			t.Errorf("validRuneCount(%q) = %d, want %d", tc.s, got, tc.want)
		}
	}
	for _, s := range []string{strings.Repeat("hello é 日本 😀 ", 37), strings.Repeat("x", 1000) + "\U0010FFFF"} {
		for i := 0; i <= len(s); i += 7 {
			if !utf8.ValidString(s[:i]) {
				continue
			}
			if got, want := validRuneCount(s[:i]), utf8.RuneCountInString(s[:i]); got != want {
				t.Errorf("validRuneCount of %d bytes = %d, RuneCountInString %d", i, got, want)
			}
		}
	}
}

// FuzzValidRuneCount: on valid UTF-8, validRuneCount is
// utf8.RuneCountInString.
func FuzzValidRuneCount(f *testing.F) {
	for _, s := range []string{"", "abc", "aaaaaaaé", "日本語😀", "\x00\u0080\u07ff\u0800\uffff\U00010000\U0010ffff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		if got, want := validRuneCount(s), utf8.RuneCountInString(s); got != want {
			t.Errorf("validRuneCount(%q) = %d, RuneCountInString %d", s, got, want)
		}
	})
}

// countEst is an estimator of 100 tokens per text, whatever it is.
type countEst struct{}

func (countEst) Name() string         { return "hundred" }
func (countEst) Count(_ string) int64 { return 100 }

// TestAddCountsText checks the characters and tokens Add gives each event,
// and the text stored, against hand counts: valid text, text with a bad
// byte (repaired before it is counted), a tool call's text made of its
// name and arguments (counted as made, repaired as stored), a DTOC
// envelope's inner text; with chars/4 and with another estimator (whose
// own count is used).
func TestAddCountsText(t *testing.T) {
	type want struct {
		text  string
		chars int64
		est   int64
	}
	events := []schema.Event{
		{Kind: schema.KindAssistant, Text: "日本語 ok"},                                              // 6 runes
		{Kind: schema.KindUser, Text: "a\xffb"},                                                   // repaired first: a U+FFFD b
		{Kind: schema.KindToolCall, ToolName: "R\xff", Args: `{"a":1}`},                           // text "R\xff {"a":1}": 10 runes as made
		{Kind: schema.KindToolResult, CallID: "c1", Text: `{"tool_key":"k","tool_result":"été"}`}, // inner text été
		{Kind: schema.KindAssistant, Text: ""},
	}
	for _, tc := range []struct {
		name string
		est  Estimator
		want []want
	}{
		{"chars4", CharsPerToken{}, []want{
			{"日本語 ok", 6, 2}, {"a\uFFFDb", 3, 1}, {"R\uFFFD {\"a\":1}", 10, 3}, {"été", 3, 1}, {"", 0, 0}}},
		{"another estimator", countEst{}, []want{
			{"日本語 ok", 6, 100}, {"a\uFFFDb", 3, 100}, {"R\uFFFD {\"a\":1}", 10, 100}, {"été", 3, 100}, {"", 0, 100}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sink := &MemSink{}
			src := &schema.Source{Path: "t.jsonl", SHA256: "00ff", Format: "test"}
			tx, err := sink.Begin(context.Background(), src)
			if err != nil {
				t.Fatal(err)
			}
			var n int64
			f := &File{Ctx: context.Background(), path: src.Path, sha: src.SHA256, format: "test", est: tc.est, tx: repairTx{Tx: tx, n: &n}}
			b, err := f.NewRun("r1")
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range events {
				if err := b.Add(e); err != nil {
					t.Fatal(err)
				}
			}
			if err := b.Finish(); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(src); err != nil {
				t.Fatal(err)
			}
			if len(sink.Events) != len(tc.want) {
				t.Fatalf("%d events stored, want %d", len(sink.Events), len(tc.want))
			}
			for i, w := range tc.want {
				e := sink.Events[i]
				if e.Text != w.text || e.Chars != w.chars || e.EstTokens != w.est {
					t.Errorf("event %d: text %q chars %d est %d, want %q %d %d", i, e.Text, e.Chars, e.EstTokens, w.text, w.chars, w.est)
				}
			}
			if n != 2 { // the tool call's name and text; the user text was repaired by Add, before the boundary
				t.Errorf("%d repairs counted, want 2", n)
			}
		})
	}
}

// TestEventValidTextRepairsTheRest checks that eventValidText repairs and
// counts every free-text field of an event (schema.Texts) but its text:
// a field schema adds and eventValidText leaves out fails here.
func TestEventValidTextRepairsTheRest(t *testing.T) {
	var probe schema.Event
	fields := len(schema.Texts(&probe))
	for i := range fields {
		sink := &MemSink{}
		src := &schema.Source{Path: "t.jsonl", SHA256: "00ff", Format: "test"}
		tx, err := sink.Begin(context.Background(), src)
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		e := schema.Event{RunID: "r", Kind: schema.KindToolResult, IsError: true} // IsError: an error rule needs it
		p := schema.Texts(&e)[i]
		*p = "x\xff"
		isText := p == &e.Text
		if isText {
			e.Text = "fine" // the caller's promise: a valid text
		}
		if err := (repairTx{Tx: tx, n: &n}).eventValidText(&e); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(src); err != nil {
			t.Fatal(err)
		}
		if isText {
			if n != 0 {
				t.Errorf("valid text: %d repairs counted", n)
			}
			continue
		}
		got := schema.Texts(&sink.Events[0])[i]
		if *got != "x\uFFFD" || n != 1 {
			t.Errorf("field %d: stored %q with %d repairs, want %q and 1", i, *got, n, "x\uFFFD")
		}
	}
}
