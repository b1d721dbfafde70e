package eventlog

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"
	"unicode/utf8"
)

// xmlChar reports whether r may appear in an XML 1.0 document (the Char
// production: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]).
func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		(r >= 0x20 && r <= 0xD7FF) ||
		(r >= 0xE000 && r <= 0xFFFD) ||
		(r >= 0x10000 && r <= 0x10FFFF)
}

// clean makes log text safe for both formats: every byte sequence that is
// not valid UTF-8 becomes U+FFFD (the replacement character), and every
// character XML 1.0 forbids (NUL and the other C0 controls but tab, newline
// and carriage return; U+FFFE, U+FFFF) is dropped. When limit > 0 the
// result is cut to its first limit characters. Text that needs none of this
// is returned as is, without allocating.
func clean(s string, limit int) string {
	n := 0
	ok := true
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != 0x09 && c != 0x0A && c != 0x0D {
				ok = false
				break
			}
			i++
		} else {
			r, w := utf8.DecodeRuneInString(s[i:])
			if (r == utf8.RuneError && w == 1) || !xmlChar(r) {
				ok = false
				break
			}
			i += w
		}
		n++
		if limit > 0 && n > limit {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	n = 0
	for i := 0; i < len(s); {
		if limit > 0 && n >= limit {
			break
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		i += w
		if r == utf8.RuneError && w == 1 {
			b.WriteRune(utf8.RuneError)
			n++
			continue
		}
		if !xmlChar(r) {
			continue
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// XES dates: RFC 3339 in UTC with millisecond precision and an explicit
// "+00:00" offset, e.g. 2025-01-02T03:04:05.000+00:00 (xs:dateTime).
const xesTime = "2006-01-02T15:04:05.000-07:00"

// OCEL times: the same, to the microsecond (estimated times differ from
// their anchor by whole microseconds, see ocel.go), e.g.
// 2025-01-02T03:04:05.000000+00:00.
const ocelTime = "2006-01-02T15:04:05.000000-07:00"

// epoch is 1970-01-01T00:00:00Z: the anchor of estimated OCEL times in runs
// with no time at all (see WriteOCEL).
var epoch = time.Unix(0, 0).UTC()

// idPart escapes one component of a composite id so that ids stay
// injective: "%" becomes "%25" and ":" (the separator) "%3A".
var idPart = strings.NewReplacer("%", "%25", ":", "%3A")

// digest is the first 16 hex digits (64 bits) of the SHA-256 of s: a short,
// stable id part for texts such as commands that can be kilobytes long.
func digest(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}
