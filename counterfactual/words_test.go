package counterfactual_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trajmine/trajmine/counterfactual"
)

type tok struct {
	Off int
	Tok string
}

func collect(seq func(func(int, string) bool)) []tok {
	var got []tok
	seq(func(off int, t string) bool {
		got = append(got, tok{off, t})
		return true
	})
	return got
}

func TestWords(t *testing.T) {
	long := strings.Repeat("a_", 100) // 200 bytes
	tests := []struct {
		name string
		in   string
		args bool // scan with ArgWords
		want []tok
	}{
		{name: "plain words", in: "the quick brown fox returns Hello README"},
		{name: "short numbers", in: "42 7 99"},
		{name: "numbers of 3+ digits", in: "line 404 of 1142", want: []tok{{5, "404"}, {12, "1142"}}},
		{name: "number shapes (a leading - is kept)", in: "1.25 1-2-3 line 123: 2024-01-02 12:30 -500", want: []tok{{0, "1.25"}, {16, "123"}}},
		{name: "snake case", in: "call foo_bar now", want: []tok{{5, "foo_bar"}}},
		{name: "path", in: "open /repo/x.go", want: []tok{{5, "/repo/x.go"}}},
		{name: "file.ext and pkg.Func", in: "see main.go and fmt.Println", want: []tok{{4, "main.go"}, {16, "fmt.Println"}}},
		{name: "camelCase and TypeName", in: "parseArgs ValueError Title", want: []tok{{0, "parseArgs"}, {10, "ValueError"}}},
		{name: "all caps is not mixed case", in: "HTTP README TODO", want: nil},
		{name: "letters and digits", in: "sha256 utf-8 py3 x86_64", want: []tok{{0, "sha256"}, {7, "utf-8"}, {17, "x86_64"}}},
		{name: "trailing punctuation trimmed", in: "in foo.py: then bar_baz. and qux-- main.go...", want: []tok{{3, "foo.py"}, {16, "bar_baz"}, {35, "main.go"}}},
		{name: "leading dot is not inner", in: ".gitignore .bashrc ./run.sh", want: []tok{{19, "./run.sh"}}},
		{name: "trimmed below minimum", in: "abc. e.g. i.e.", want: nil},
		{name: "punctuation only", in: "---- .... ____ //// ::::"},
		{name: "URL", in: "fetch https://example.com/a?b=1", want: []tok{{6, "https://example.com/a"}}},
		{name: "non-ASCII separates", in: "naïve_x größe_yy", want: []tok{{4, "ve_x"}, {15, "e_yy"}}},
		{name: "max length kept", in: long + " x", want: []tok{{0, long}}},
		{name: "over max length dropped", in: long + "b_ c_de", want: []tok{{203, "c_de"}}},
		{name: "colon glues line numbers", in: "4:def division(a: float)\r\n5:    return a/b x.py:12", want: []tok{{0, "4:def"}, {43, "x.py:12"}}},
		{name: "text keeps backslash-letter", in: `x\nfoo_bar`, want: []tok{{2, "nfoo_bar"}}},
		{name: "args: escapes separate", args: true, in: `{"cmd":"cat\nfoo_bar\\nbaz_q\"qux_z\u00e9lan_d"}`, want: []tok{{13, "foo_bar"}, {22, "nbaz_q"}, {30, "qux_z"}, {41, "lan_d"}}},
		{name: "args: key and value", args: true, in: `{"path":"src/app.py"}`, want: []tok{{9, "src/app.py"}}},
		{name: "args: trailing backslash", args: true, in: `a_bc\`, want: []tok{{0, "a_bc"}}},
		{name: "args: short unicode escape", args: true, in: `a_bc\u12`, want: []tok{{0, "a_bc"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			seq := counterfactual.Words(tc.in)
			if tc.args {
				seq = counterfactual.ArgWords(tc.in)
			}
			got := collect(seq)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("tokens of %q (-want +got):\n%s", tc.in, diff)
			}
			for _, g := range got {
				if tc.in[g.Off:g.Off+len(g.Tok)] != g.Tok {
					t.Errorf("token %q not at offset %d", g.Tok, g.Off)
				}
			}
		})
	}
}

func TestWordsStop(t *testing.T) {
	n := 0
	for range counterfactual.Words("a_b1 c_d1 e_f1") {
		n++
		if n == 2 {
			break
		}
	}
	if n != 2 {
		t.Errorf("got %d tokens before break, want 2", n)
	}
}
