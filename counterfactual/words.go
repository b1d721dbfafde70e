package counterfactual

import "iter"

// Word length bounds (in bytes, after trimming): see Words.
const (
	MinWord = 4
	MaxWord = 200
)

// byte classes of the word scanner
const (
	clTok   = 1 << iota // [A-Za-z0-9_./:-]: part of a word
	clLower             // a-z
	clUpper             // A-Z
	clDigit             // 0-9
	clMark              // '_' or '/': makes a word specific
	clDot               // '.'
	clPunct             // ':' or '-'
)

var class = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = clTok | clLower
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = clTok | clUpper
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = clTok | clDigit
	}
	t['_'], t['/'] = clTok|clMark, clTok|clMark
	t['.'], t[':'], t['-'] = clTok|clDot, clTok|clPunct, clTok|clPunct
	return t
}()

// Words yields the byte offset in s and the text of every distinctive word
// of s, in order. A word is a maximal run of the bytes [A-Za-z0-9_./:-] with
// any trailing '.', ':' and '-' trimmed (so ':' glues positions: "x.py:12",
// and line-numbered listings: "4:def"). It is distinctive when it contains a
// letter or a digit, is at most MaxWord bytes long, and either is a number
// of 3 or more digits ("404", "1142"), or is at least MinWord bytes long
// and has one of
//
//   - a '_' or '/' (snake_case, a/path),
//   - a '.' after its first byte (file.ext, pkg.Func, 1.25; not ".bashrc"),
//   - a lowercase letter and an uppercase letter after its first byte
//     (camelCase, TypeName; not "Hello" or "README"),
//   - both letters and digits (sha256, utf-8, x86_64).
//
// Plain words ("return", "Hello"), short numbers ("42") and punctuation
// ("----", "____") are not distinctive. Bytes outside ASCII separate words.
// The yielded word is a substring of s.
func Words(s string) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) { scan(s, false, yield) }
}

// ArgWords is Words for JSON text such as a tool call's canonical Args: a
// backslash escape (\n, \", \\, \uXXXX, …) separates words, so that the
// words of an argument string are those of the decoded string (a "\n" in
// JSON does not glue an "n" to the next word).
func ArgWords(s string) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) { scan(s, true, yield) }
}

// scan is the byte scanner behind Words and ArgWords. It reports false when
// yield stopped it.
func scan(s string, jsonEscapes bool, yield func(int, string) bool) bool {
	n := len(s)
	for i := 0; i < n; {
		c := s[i]
		if class[c]&clTok == 0 {
			if jsonEscapes && c == '\\' && i+1 < n {
				if s[i+1] == 'u' {
					i += 6
				} else {
					i += 2
				}
				continue
			}
			i++
			continue
		}
		// the run [i, j) and the classes of its bytes after the first
		const trail = clDot | clPunct // '.', ':', '-'
		j, rest := i+1, uint8(0)
		for j < n {
			c := class[s[j]]
			if c&clTok == 0 {
				break
			}
			rest |= c
			j++
		}
		end := j
		if class[s[j-1]]&trail != 0 { // rare: trim, and the classes of the kept bytes only
			for end > i && class[s[end-1]]&trail != 0 {
				end--
			}
			rest = 0
			for k := i + 1; k < end; k++ {
				rest |= class[s[k]]
			}
		}
		if end-i > MaxWord {
			i = j
			continue
		}
		if specific(end-i, class[c], rest) && !yield(i, s[i:end]) {
			return false
		}
		i = j
	}
	return true
}

// specific applies the rules of Words to a trimmed run of n bytes whose
// first byte has class first and whose later bytes have the classes rest.
func specific(n int, first, rest uint8) bool {
	if n < 3 || n > MaxWord {
		return false
	}
	all := first | rest
	letter := all&(clLower|clUpper) != 0
	if all&(clLower|clUpper|clDigit) == 0 {
		return false
	}
	if isNumber(first, rest) {
		return true // a number of ≥ 3 digits
	}
	if n < MinWord {
		return false
	}
	return all&clMark != 0 || rest&clDot != 0 ||
		(all&clLower != 0 && rest&clUpper != 0) ||
		(letter && all&clDigit != 0)
}

// isNumber reports whether a run has only digits.
func isNumber(first, rest uint8) bool {
	const digit = clTok | clDigit
	return first == digit && rest&^digit == 0
}
