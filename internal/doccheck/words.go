package doccheck

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// WordKind says why a word of a doc comment is taken for code.
type WordKind int

// Word kinds.
const (
	Dotted    WordKind = iota // A.B or A.B.C
	DocLink                   // [Name], [A.B]
	Backquote                 // `Name`
	Camel                     // reportData, RecommendStore
)

func (k WordKind) String() string {
	switch k {
	case Dotted:
		return "dotted"
	case DocLink:
		return "doc link"
	case Backquote:
		return "backquoted"
	case Camel:
		return "camel-case"
	}
	return "?"
}

// Word is a word of a comment line that names code.
type Word struct {
	Text string
	Kind WordKind
}

// Words returns the words of one line of a doc comment (its text after
// "//") that stand where code would, in order, outside double quotes
// (plain or curly: quoted text is data, a name from outside Go written as
// it is logged):
//
//   - [Name] and [A.B] doc links (an optional leading '*' dropped), the
//     name starting with a capital or holding a dot, and the '[' not
//     right after a word or ']' (so list[Key] is an index, not a link);
//   - backquoted text that is one identifier or A.B chain, starting with
//     a capital or holding a dot or a capital after a lower-case letter;
//   - elsewhere, identifier chains A.B (each part a Go identifier) and
//     single words with a lower-case letter and a capital not at their
//     start ("reportData", "RecommendStore"), but not an acronym's plural
//     (IDs, URLs); a word right after '/', '-', '.', '@', ':', '$', '%',
//     '=', '#' or '\' (paths, URLs, flags, keys, escapes) or right
//     before '/' or '=' is none.
func Words(line string) []Word {
	var out []Word
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == '"' || strings.HasPrefix(line[i:], "“"):
			// quoted text is data (a JSON key, an event type, a value as
			// logged), not code
			open, close := `"`, `"`
			if c != '"' {
				open, close = "“", "”"
			}
			j := strings.Index(line[i+len(open):], close)
			if j < 0 {
				i += len(open)
				continue
			}
			i += len(open) + j + len(close)
		case c == '`':
			j := strings.IndexByte(line[i+1:], '`')
			if j < 0 {
				i++
				continue
			}
			inner := line[i+1 : i+1+j]
			if isChain(inner) && (strings.Contains(inner, ".") || startsUpper(inner) || camel(inner)) {
				out = append(out, Word{inner, Backquote})
			} else {
				out = append(out, Words(inner)...)
			}
			i += j + 2
		case c == '[':
			j := strings.IndexByte(line[i+1:], ']')
			if j < 0 {
				i++
				continue
			}
			inner := strings.TrimPrefix(line[i+1:i+1+j], "*")
			if (i == 0 || !identByte(line[i-1]) && line[i-1] != ']') && isChain(inner) && (strings.Contains(inner, ".") || startsUpper(inner)) {
				out = append(out, Word{inner, DocLink})
				i += j + 2
				continue
			}
			i++
		case identStart(c):
			j := i
			for j < len(line) && (identByte(line[j]) || line[j] == '.' && j+1 < len(line) && identStart(line[j+1])) {
				j++
			}
			if r, _ := utf8.DecodeRuneInString(line[j:]); j < len(line) && unicode.IsLetter(r) {
				// a word with a letter outside ASCII (naïve, café): not code
				i = skipWord(line, j)
				continue
			}
			w := line[i:j]
			before, after := byte(' '), byte(' ')
			if i > 0 {
				before = line[i-1]
			}
			if j < len(line) {
				after = line[j]
			}
			i = j
			if strings.IndexByte("/-.@:$%=#\\", before) >= 0 || after == '/' || after == '=' {
				continue
			}
			switch {
			case strings.Contains(w, "."):
				out = append(out, Word{w, Dotted})
			case camel(w):
				out = append(out, Word{w, Camel})
			}
		case c >= utf8.RuneSelf:
			r, w := utf8.DecodeRuneInString(line[i:])
			if unicode.IsLetter(r) {
				i = skipWord(line, i)
				continue
			}
			i += w
		case identByte(c): // a digit: the rest of a number or of 2xx
			for i < len(line) && identByte(line[i]) {
				i++
			}
		default:
			i++
		}
	}
	return out
}

// skipWord returns the end of the word of letters and digits (any
// script) at line[i:].
func skipWord(line string, i int) int {
	for i < len(line) {
		r, w := utf8.DecodeRuneInString(line[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' {
			break
		}
		i += w
	}
	return i
}

func identStart(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func identByte(c byte) bool  { return identStart(c) || '0' <= c && c <= '9' }

// isChain reports whether s is a Go identifier or a chain of them joined
// by dots.
func isChain(s string) bool {
	if s == "" {
		return false
	}
	for _, p := range strings.Split(s, ".") {
		if p == "" || !identStart(p[0]) {
			return false
		}
		for i := 1; i < len(p); i++ {
			if !identByte(p[i]) {
				return false
			}
		}
	}
	return true
}

func startsUpper(s string) bool { return s != "" && 'A' <= s[0] && s[0] <= 'Z' }

// camel reports whether w is shaped like a Go identifier written in
// camel case: a lower-case letter somewhere and a capital after its
// first letter, no underscore (p_A is maths), and not an acronym's plural
// (IDs, URLs, CIs).
func camel(w string) bool {
	if strings.Contains(w, "_") {
		return false
	}
	lower, inner := false, false
	for i, r := range w {
		switch {
		case unicode.IsLower(r):
			lower = true
		case unicode.IsUpper(r) && i > 0:
			inner = true
		}
	}
	if !lower || !inner {
		return false
	}
	s := strings.TrimSuffix(w, "s")
	return s != strings.ToUpper(s)
}
