package ingest

import (
	"bytes"
	"encoding/binary"
	"io"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/trajmine/trajmine/schema"
)

// repairTx is the importer boundary's guard on text: every record an
// importer hands over has its free-text fields (schema.Texts) repaired to
// valid UTF-8 (each run of invalid bytes becomes U+FFFD) before it reaches
// the sink, so one bad byte in a tool name or a session id costs that byte,
// never the record or the file. Repaired fields are counted into the
// source's Repairs.
type repairTx struct {
	Tx
	n *int64
}

func (t repairTx) fix(rec any) { *t.n += int64(schema.RepairUTF8(rec)) }

func (t repairTx) ClaimRunID(id string) (string, error) {
	if !utf8.ValidString(id) {
		id = strings.ToValidUTF8(id, "\uFFFD")
		*t.n++
	}
	return t.Tx.ClaimRunID(id)
}
func (t repairTx) Run(r *schema.Run) error               { t.fix(r); return t.Tx.Run(r) }
func (t repairTx) Event(e *schema.Event) error           { t.fix(e); return t.Tx.Event(e) }
func (t repairTx) Usage(u *schema.Usage) error           { t.fix(u); return t.Tx.Usage(u) }
func (t repairTx) ToolOutput(o *schema.ToolOutput) error { t.fix(o); return t.Tx.ToolOutput(o) }
func (t repairTx) ContextOp(c *schema.ContextOp) error   { t.fix(c); return t.Tx.ContextOp(c) }
func (t repairTx) Reject(r *schema.Reject) error         { t.fix(r); return t.Tx.Reject(r) }
func (t repairTx) Commit(src *schema.Source) error {
	// the path is the file's own name: repaired for the table, counted apart
	schema.RepairUTF8(src)
	src.Repairs = *t.n
	return t.Tx.Commit(src)
}

// Raw control characters in JSON text (issue 31). A byte below 0x20 inside
// a JSON string is invalid JSON, so one NUL in a message would cost its
// line, or the whole of a one-document file. The importer boundary repairs
// it before any importer sees the bytes: every input whose first character
// (after a BOM and white space) is '{' or '[' passes through jsonCtl, which
// replaces each raw control character inside a string by its JSON escape
// (\u0000, \u001b, or \t, \r, \b, \f), so that the string decodes to exactly
// the characters that were written; a control character after a backslash
// (`\` NUL, an escape of nothing) keeps the backslash as a literal one.
// Between values, a control character other than white space (\t, \r, \n)
// becomes a space: there it was no data, and the JSON around it is kept.
// Each string repaired, and each run of such bytes between values, counts
// as one repair in the source's Repairs (sources.n_repairs), with the
// strings repairTx makes valid UTF-8.
//
// The escape, not U+FFFD, because it keeps what was written: a file that
// wrote "\u0000" validly is stored the same way (DuckDB keeps U+0000 in a
// VARCHAR; trajmine's terminal output shows control characters safely).
// Where: the input of importOne (jsonInput), the head Detect sees
// (Candidates), and the JSON an importer reads beside its input, counted
// (File.repairJSON: Inspect archive members, OpenCode storage files) or
// not (innerJSON, a JSON text inside a string; the siblings of ATIF,
// LiteLLM and metadata files, each counted by its own import if any).
//
// A newline is never inside a string: it ends the string state, as it ends
// a JSONL record, so the repair never joins lines or moves a line number (a
// raw newline inside a string of a one-document file is left, and rejected
// at its line). Input that needs no repair is not copied: the common path
// is one scan of 8 bytes at a time for a byte below 0x20 other than '\n'
// (ctlIndex) and, for the string state, a look at the bytes after each
// piece's last newline.

// jsonCtl is the repair of raw control characters in a JSON text read in
// pieces: the string state carries over from one piece to the next.
type jsonCtl struct {
	mode  int8 // 0: not known yet (white space so far); 1: JSON text; -1: not JSON, left alone
	inStr bool // inside a string
	esc   bool // after a backslash inside a string
	fixed bool // the current string, or run of bytes between values, is counted
	n     int64
}

// next repairs b, the text's next piece. It returns ok false when b needs
// no change, else the repaired piece, appended to out[:0].
func (s *jsonCtl) next(b, out []byte) ([]byte, bool) {
	if s.mode == 0 {
		i := 0
		for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
			i++
		}
		switch {
		case i == len(b):
			return nil, false
		case b[i] == '{' || b[i] == '[':
			s.mode = 1
		default:
			s.mode = -1
		}
	}
	if s.mode < 0 {
		return nil, false
	}
	changed := false
	done := 0 // b[:done] is in out
	for pos := 0; ; {
		k := ctlIndex(b[pos:])
		if k < 0 {
			s.skip(b[pos:])
			break
		}
		i := pos + k
		s.skip(b[pos:i])
		pos = i + 1
		c := b[i]
		if !s.inStr && (c == '\t' || c == '\r') {
			s.fixed = false // white space between values
			continue
		}
		if !changed {
			out, changed = out[:0], true
		}
		out = append(out, b[done:i]...)
		done = pos
		if !s.fixed {
			s.fixed = true
			s.n++
		}
		if !s.inStr {
			out = append(out, ' ')
			continue
		}
		if s.esc {
			out = append(out, '\\') // with the backslash before it: a literal backslash
			s.esc = false
		}
		switch c {
		case '\t':
			out = append(out, `\t`...)
		case '\r':
			out = append(out, `\r`...)
		case '\b':
			out = append(out, `\b`...)
		case '\f':
			out = append(out, `\f`...)
		default:
			out = append(out, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
		}
	}
	if !changed {
		return nil, false
	}
	return append(out, b[done:]...), true
}

const hexDigits = "0123456789abcdef"

// skip moves the string state over b, which holds no control character
// other than '\n'. A newline ends the state (no string spans lines), so
// only the bytes after b's last one are looked at, by jumps to the next
// quote or backslash.
func (s *jsonCtl) skip(b []byte) {
	if len(b) == 0 {
		return
	}
	if k := bytes.LastIndexByte(b, '\n'); k >= 0 {
		s.inStr, s.esc = false, false
		b = b[k+1:]
	}
	s.fixed = s.fixed && s.inStr // a run of bytes between values ends here
	q := -1                      // index of the next quote at or after i, once looked for
	for i := 0; i < len(b); {
		switch {
		case s.esc:
			s.esc = false
			i++
		case !s.inStr:
			k := bytes.IndexByte(b[i:], '"')
			if k < 0 {
				return
			}
			s.inStr, s.fixed = true, false
			i += k + 1
		default:
			if q < i {
				q = len(b)
				if k := bytes.IndexByte(b[i:], '"'); k >= 0 {
					q = i + k
				}
			}
			if k := bytes.IndexByte(b[i:q], '\\'); k >= 0 {
				s.esc = true
				i += k + 1
				continue
			}
			if q == len(b) {
				return
			}
			s.inStr, s.fixed = false, false
			i = q + 1
		}
	}
}

// ctlIndex is the index of the first byte of b below 0x20 other than '\n',
// or -1. Eight bytes are tested at a time: (w - 0x20…) &^ w & 0x80… is
// non-zero exactly when a byte of w is below 0x20.
func ctlIndex(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		if (w-0x2020202020202020)&^w&0x8080808080808080 == 0 {
			continue
		}
		for j := i; j < i+8; j++ {
			if b[j] < 0x20 && b[j] != '\n' {
				return j
			}
		}
	}
	for ; i < len(b); i++ {
		if b[i] < 0x20 && b[i] != '\n' {
			return i
		}
	}
	return -1
}

// repairJSONText repairs the raw control characters of data, a whole JSON
// text (see jsonCtl); it returns data itself when there are none, and the
// number of repairs.
func repairJSONText(data []byte) ([]byte, int64) {
	var s jsonCtl
	out, ok := s.next(data, nil)
	if !ok {
		return data, 0
	}
	return out, s.n
}

// ctlReader is an input passed through jsonCtl; its repairs are added to n.
type ctlReader struct {
	r    io.Reader
	s    jsonCtl
	n    *atomic.Int64
	buf  []byte // the last piece repaired; pend is its part not yet read
	pend []byte
	err  error // the reader's error, held back while pend is read
}

func (c *ctlReader) Read(p []byte) (int, error) {
	if len(c.pend) > 0 {
		n := copy(p, c.pend)
		c.pend = c.pend[n:]
		return n, nil
	}
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.r.Read(p)
	if n == 0 {
		return 0, err
	}
	fixed, ok := c.s.next(p[:n], c.buf)
	if !ok {
		return n, err
	}
	c.n.Add(c.s.n)
	c.s.n = 0
	c.buf = fixed
	n = copy(p, fixed)
	if c.pend = fixed[n:]; len(c.pend) > 0 {
		c.err, err = err, nil
	}
	return n, err
}

// jsonInput is r as an importer is to read it: through a ctlReader counting
// into n, unless its first character is known not to start JSON text (an
// Inspect archive, Markdown, server-sent events), when it is r itself and
// keeps its random access.
func jsonInput(r io.Reader, n *atomic.Int64) io.Reader {
	if ra, ok := r.(randomAccess); ok {
		var head [512]byte
		k, _ := ra.ReadAt(head[:], 0)
		i := 0
		for i < k && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n') {
			i++
		}
		if i < k && head[i] != '{' && head[i] != '[' {
			return r
		}
	}
	return &ctlReader{r: r, n: n}
}

// repairJSON is repairJSONText for JSON an importer reads besides its
// input (an archive member, a storage file of the session it imports), the
// repairs counted as the file's.
func (f *File) repairJSON(data []byte) []byte {
	out, n := repairJSONText(data)
	f.jsonRepairs.Add(n)
	return out
}

// innerJSON is repairJSONText for JSON text that was itself a JSON string
// (a request body or an SSE stream a cassette recorded as a string), where
// a raw control character of the file, escaped by the repair, is raw again.
// Not counted: the string that held it was.
func innerJSON(b []byte) []byte {
	out, _ := repairJSONText(b)
	return out
}
