package redact

import (
	"strings"
)

// URLPasswordRule is the rule id of a password in a URL's userinfo
// (scheme://user:password@host), which gitleaks' default rules do not
// cover: the marker replaces the password only, so the scheme, the user
// and the host stay readable (postgres://app:[REDACTED:url-password]@db:5432/x).
const URLPasswordRule = "url-password"

// urlPasswords returns the spans of the passwords in the URLs of s, in
// order, named URLPasswordRule. A URL is read as follows:
//
//  1. It starts at "://" preceded by a scheme: a letter, then letters,
//     digits, '+', '-' or '.' (postgres, mongodb+srv, git+https).
//  2. Its authority runs from there to the first '/', '?', '#',
//     whitespace, quote, backquote, '<', '>' or '\'.
//  3. The userinfo is the authority up to its last '@' (a password may
//     hold an unencoded '@'); the password is the userinfo after its first
//     ':'. There is none without an '@' (http://host:8080), without a ':'
//     before it (ssh://git@host) or when it is empty (https://user:@host).
//  4. A placeholder is not a password: one that starts with '$', '{' or
//     '%' (${DB_PASSWORD}, {{ .Password }}, %s), and one made only of '*',
//     'x' or '•' (a password already masked). A marker ([REDACTED:…]) is
//     not one either, so redacting twice changes nothing.
//
// Text without "://" (user@host:path, a@b.com) has no URL; an '@' after
// the authority (https://example.com/@user) is not userinfo. A password
// holding an unencoded '/', '?', '#' or whitespace ends the authority
// early and is not found.
//
// The scan is linear: each authority is read once (the next "://" is
// looked for after it), and a scheme is read back to the end of the
// previous authority at most.
func urlPasswords(s string) []span {
	var out []span
	for off := 0; off < len(s); {
		i := strings.Index(s[off:], "://")
		if i < 0 {
			break
		}
		i += off
		start := i + len("://")
		off = start
		if !hasScheme(s, i) {
			continue
		}
		end := start
		for end < len(s) && !authorityEnd(s[end]) {
			end++
		}
		off = end
		auth := s[start:end]
		at := strings.LastIndexByte(auth, '@')
		if at < 0 {
			continue
		}
		colon := strings.IndexByte(auth[:at], ':')
		if colon < 0 || !isPassword(auth[colon+1:at]) {
			continue
		}
		out = append(out, span{start + colon + 1, start + at, URLPasswordRule})
	}
	return out
}

// hasScheme reports whether s[:i] ends in a URL scheme: a letter followed
// by letters, digits, '+', '-' or '.'.
func hasScheme(s string, i int) bool {
	j := i
	for j > 0 && schemeChar(s[j-1]) {
		j--
	}
	for j < i && !letter(s[j]) { // a scheme starts with a letter
		j++
	}
	return j < i
}

func letter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func schemeChar(c byte) bool {
	return letter(c) || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'
}

// authorityEnd reports whether c ends a URL's authority in log text.
func authorityEnd(c byte) bool {
	switch c {
	case '/', '?', '#', ' ', '\t', '\n', '\r', '\f', '\v', '"', '\'', '`', '<', '>', '\\':
		return true
	}
	return false
}

// isPassword reports whether p, a URL's password part, is one: not empty,
// not a placeholder, not a marker (step 4 of urlPasswords).
func isPassword(p string) bool {
	if p == "" || strings.HasPrefix(p, "[REDACTED:") {
		return false
	}
	switch p[0] {
	case '$', '{', '%':
		return false
	}
	return strings.Trim(p, "*x•") != ""
}
