package cmd

import (
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// termSafe makes text from a log safe to print on a terminal: every control
// character a terminal acts on (ESC and so CSI/OSC sequences, BEL,
// backspace, DEL, the C1 controls U+0080–U+009F, and the other C0 controls
// but newline and tab) becomes a visible escape such as \x1b or \u009b, so
// a session id cannot recolour the screen, retitle the window or rewrite
// what was printed before it. Carriage return is escaped too (it would let
// text overwrite its own line). Invalid UTF-8 bytes become \xNN.
func termSafe(s string) string {
	if !needsEscape(s, false) {
		return s
	}
	return escapeControls(s, false)
}

// needsEscape reports whether s holds a character termSafe escapes; keepCR
// lets carriage returns through (our own progress lines use them).
func needsEscape(s string, keepCR bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\n' && c != '\t' && !(keepCR && c == '\r') || c == 0x7f || c >= 0x80 {
			if c < 0x80 {
				return true
			}
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n <= 1 || r >= 0x80 && r <= 0x9f {
				return true
			}
			i += n - 1
		}
	}
	return false
}

func escapeControls(s string, keepCR bool) string {
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			b.WriteString(`\x` + strconv.FormatUint(uint64(s[i])|0x100, 16)[1:])
		case r < 0x20 && r != '\n' && r != '\t' && !(keepCR && r == '\r') || r == 0x7f:
			b.WriteString(`\x` + strconv.FormatUint(uint64(r)|0x100, 16)[1:])
		case r >= 0x80 && r <= 0x9f:
			b.WriteString(`\u00` + strconv.FormatUint(uint64(r), 16))
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// safeWriter passes writes to w with termSafe applied (carriage returns
// kept when keepCR: our progress line redraws itself with them). The
// commands' stderr always goes through one, and so does stdout when it is a
// terminal; output to a file or pipe keeps its bytes (CSV and JSON are data,
// and JSON escapes control characters itself).
type safeWriter struct {
	w      io.Writer
	keepCR bool
}

func (s safeWriter) Write(p []byte) (int, error) {
	str := string(p)
	if !needsEscape(str, s.keepCR) {
		return s.w.Write(p)
	}
	if _, err := io.WriteString(s.w, escapeControls(str, s.keepCR)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// rawWriter returns the writer under a safeWriter: for output that is ours
// alone and uses terminal controls on purpose (the progress bar).
func rawWriter(w io.Writer) io.Writer {
	if s, ok := w.(safeWriter); ok {
		return s.w
	}
	return w
}
