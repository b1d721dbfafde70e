package mining_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/mining"
)

func TestParseModel(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     string // canonical text, or the error
	}{
		{"chain", "start a\na -> b -> c\nend c\n", "start a\na -> b\nb -> c\nend c\n"},
		{"comments and blanks", "# model\n\nstart a # first\n  a -> b\t# step\nend b\n", "start a\na -> b\nend b\n"},
		{"several starts", "start b a\nend a b\na -> b\nb -> a\n", "start a b\na -> b\nb -> a\nend a b\n"},
		{"symbols", "▶ -> a\na -> ■\n", "start a\nend a\n"},
		{"duplicates", "start a\nstart a\na -> a\na -> a\nend a\n", "start a\na -> a\nend a\n"},
		{"quoted", "start \"read file\"\n\"read file\" -> \"say \\\"hi\\\"\"\nend \"say \\\"hi\\\"\"\n", "start \"read file\"\n\"read file\" -> \"say \\\"hi\\\"\"\nend \"say \\\"hi\\\"\"\n"},
		{"keyword as name", "start -> a\nstart \"start\"\nend a\n", "start \"start\"\n\"start\" -> a\nend a\n"},
		{"arrow name", "start \"->\"\nend \"->\"\n", "start \"->\"\nend \"->\"\n"},
		{"crlf", "start a\r\nend a\r\n", "start a\nend a\n"},

		{"empty", "", "m.txt:1: model has no start activity (add a line: start ACTIVITY)"},
		{"no end", "start a\na -> b\n", "m.txt:2: model has no end activity (add a line: end ACTIVITY)"},
		{"single", "start a\nb\n", "m.txt:2: single activity b (want A -> B, start A or end A)"},
		{"start alone", "start\n", "m.txt:1: start needs at least one activity"},
		{"missing arrow", "start a\na b\n", "m.txt:2: expected \"->\" between activities, got b"},
		{"missing arrow 3", "a b c\n", "m.txt:1: expected \"->\" after a, got b"},
		{"dangling arrow", "start a\na ->\n", "m.txt:2: \"->\" without an activity after it"},
		{"leading arrow", "-> a -> b\n", "m.txt:1: expected an activity, got \"->\""},
		{"arrow in start", "start a -> b c\n", "m.txt:1: unexpected \"->\" in a start line (want: start ACTIVITY...)"},
		{"unterminated", "start \"a\n", "m.txt:1: unterminated quoted name"},
		{"bad quote", "start \"\\q\"\n", "m.txt:1: invalid quoted name \"\\q\""},
		{"glued quote", "start \"a\"b\n", "m.txt:1: quoted name followed by 'b' without a space"},
		{"empty name", "start \"\"\n", "m.txt:1: empty activity name"},
		{"end starts", "start a\n■ -> a\n", "m.txt:2: ■ cannot start an arc"},
		{"start ends", "start a\na -> ▶\n", "m.txt:2: ▶ cannot end an arc"},
		{"empty case", "▶ -> ■\n", "m.txt:1: ▶ -> ■: an empty case is not a step"},
		{"start symbol", "start ▶\n", "m.txt:1: start ▶: not an activity"},
		{"end symbol", "start a\nend ■\n", "m.txt:2: end ■: not an activity"},
		{"line 3", "start a\n\na -> \"b\n", "m.txt:3: unterminated quoted name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := mining.ParseModel("m.txt", strings.NewReader(tc.in))
			var got string
			if err != nil {
				got = err.Error()
				var se *mining.SyntaxError
				if !errors.As(err, &se) {
					t.Errorf("error %v is not a *SyntaxError", err)
				}
			} else {
				var b bytes.Buffer
				must(t, m.WriteText(&b))
				got = b.String()
			}
			if got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestParseModelLongLine(t *testing.T) {
	in := "start a\n" + strings.Repeat("x", 2<<20) + "\n"
	_, err := mining.ParseModel("big", strings.NewReader(in))
	if err == nil || err.Error() != "big:2: line longer than 1048576 bytes" {
		t.Errorf("err = %v", err)
	}
}

func TestModelAllows(t *testing.T) {
	m := mining.NewModel([]mining.Arc{{From: "b", To: "c"}, {From: mining.Start, To: "a"}, {From: "a", To: "b"}, {From: "a", To: "b"}})
	if len(m.Arcs) != 3 || m.Arcs[0].From != mining.Start {
		t.Errorf("arcs %v", m.Arcs)
	}
	if !m.Allows("a", "b") || m.Allows("b", "a") || !m.Allows(mining.Start, "a") {
		t.Error("Allows")
	}
	d := mining.NewDFG(mining.NewLog(simple...))
	if got := len(d.Model(2).Arcs); got != 4 { // ▶→a 4, a→b 2, b→c 2, c→■ 2
		t.Errorf("DFG model with count >= 2: %d arcs, want 4", got)
	}
}

// FuzzParseModel: ParseModel never panics; what it accepts, written back
// canonically, parses to the same model (and the same text).
func FuzzParseModel(f *testing.F) {
	for _, s := range []string{
		"start a\na -> b -> c\nend c\n",
		"▶ -> a\na -> ■\n",
		"start \"read file\" \"x\\ty\"\n\"read file\" -> \"x\\ty\" # c\nend \"x\\ty\"\n",
		"start -> a\nend a\n",
		"a b\n",
		"start \"\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		m, err := mining.ParseModel("fuzz", strings.NewReader(in))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz:") {
				t.Fatalf("error without position: %v", err)
			}
			return
		}
		var b1 bytes.Buffer
		if err := m.WriteText(&b1); err != nil {
			t.Fatal(err)
		}
		m2, err := mining.ParseModel("again", bytes.NewReader(b1.Bytes()))
		if err != nil {
			t.Fatalf("canonical text does not parse: %v\n%s", err, b1.String())
		}
		var b2 bytes.Buffer
		if err := m2.WriteText(&b2); err != nil {
			t.Fatal(err)
		}
		if b1.String() != b2.String() || len(m.Arcs) != len(m2.Arcs) {
			t.Fatalf("round trip changed the model:\n%s\n---\n%s", b1.String(), b2.String())
		}
	})
}
