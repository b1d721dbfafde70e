package ingest

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/bits"
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
func (t repairTx) Outcome(o *schema.Outcome) error       { t.fix(o); return t.Tx.Outcome(o) }

// eventValidText is Event for an event whose Text the caller has made
// valid UTF-8 (RunBuilder.Add): its other fields are repaired, the text,
// often the longest by far, is not checked again.
func (t repairTx) eventValidText(e *schema.Event) error {
	*t.n += int64(schema.RepairUTF8Fields(&e.RunID, &e.Role, &e.ToolName, &e.CallID, &e.ToolKey, &e.Target, &e.Args,
		&e.ActionClass, &e.ErrorRule))
	return t.Tx.Event(e)
}

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
// at its line). Input that needs no repair is not copied, and the common
// path is one scan, 32 bytes at a time, for a byte below 0x20 other than
// '\n' (ctlIndex; ~15 GB/s, BenchmarkRepairJSONText): the string state is
// found only where such a byte is, by reading the text again from the last
// newline before it (jsonCtl.resolve; the readers importOne is given allow
// reads at offsets), or, for a reader that does not, followed through the
// bytes after each piece's last newline, eight at a time (jsonCtl.skip).

// jsonCtl is the repair of raw control characters in a JSON text read in
// pieces: the string state carries over from one piece to the next.
type jsonCtl struct {
	mode  int8 // 0: not known yet (white space so far); 1: JSON text; -1: not JSON, left alone
	inStr bool // inside a string
	esc   bool // after a backslash inside a string
	fixed bool // the current string, or run of bytes between values, is counted
	n     int64

	// With ra (the text, read at offsets), the state is followed only
	// where a control character needs it: the fields above are then the
	// state at offset mark unless known, and the bytes from mark on hold
	// no control character. Without ra it is followed through every byte.
	ra    io.ReaderAt
	at    int64 // offset of the piece next is given
	known bool
	mark  int64
	buf   []byte // for reading from mark
}

// next repairs b, the text's next piece. It returns ok false when b needs
// no change, else the repaired piece, appended to out[:0].
func (s *jsonCtl) next(b, out []byte) ([]byte, bool) {
	base := s.at
	s.at += int64(len(b))
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
			s.pass(b[pos:], base+int64(pos))
			break
		}
		i := pos + k
		s.pass(b[pos:i], base+int64(pos))
		s.resolve(b[:i], base)
		pos = i + 1
		c := b[i]
		if !s.inStr && (c == '\t' || c == '\r') {
			s.fixed, s.esc = false, false // white space between values
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
			s.esc = false
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

// pass moves over b, at offset off of the text, which holds no control
// character other than '\n': with ra, only as far as its last newline
// (which ends the state), the rest left for resolve.
func (s *jsonCtl) pass(b []byte, off int64) {
	if s.ra == nil {
		s.skip(b)
		return
	}
	if len(b) == 0 {
		return
	}
	if k := lastNewline(b); k >= 0 {
		s.inStr, s.esc, s.fixed = false, false, false
		s.known, s.mark = k == len(b)-1, off+int64(k)+1
		return
	}
	if s.known {
		s.known, s.mark = false, off
	}
}

// resolve makes the state that at the end of b, the piece at offset base
// up to a control character, by following the text from mark: in b when
// mark is in it, else read again from mark to base first (once: the state
// is then known, and pass moves mark on from it).
func (s *jsonCtl) resolve(b []byte, base int64) {
	if s.ra == nil || s.known {
		return
	}
	if s.mark < base {
		if s.buf == nil {
			s.buf = make([]byte, 32<<10)
		}
		for off := s.mark; off < base; {
			n, _ := s.ra.ReadAt(s.buf[:min(int64(len(s.buf)), base-off)], off)
			if n == 0 {
				break // the text cannot be read again: the state at mark is the best known
			}
			s.skip(s.buf[:n])
			off += int64(n)
		}
		s.mark = base
	}
	s.skip(b[s.mark-base:])
	s.known = true
}

// skip moves the string state over b, which holds no control character
// other than '\n'. A newline ends the state (no string spans lines), so
// only the bytes after b's last one are looked at, eight at a time: each
// quote that no backslash escapes opens or closes a string, so the parity
// of a word's unescaped quotes is its change of state. A word whose
// escapes are not that simple (two backslashes in a row, one as its last
// byte, or one before it) is followed byte by byte. (A backslash escapes
// the next byte outside a string too: that is invalid JSON, read the same
// way whichever path reads it.)
func (s *jsonCtl) skip(b []byte) {
	if len(b) == 0 {
		return
	}
	if k := lastNewline(b); k >= 0 {
		s.inStr, s.esc = false, false
		b = b[k+1:]
	}
	s.fixed = s.fixed && s.inStr // a run of bytes between values ends here
	const quotes, backslashes = 0x2222222222222222, 0x5c5c5c5c5c5c5c5c
	for i := 0; i < len(b); {
		if !s.esc && i+8 <= len(b) {
			w := binary.LittleEndian.Uint64(b[i:])
			bs := zeroBytes(w ^ backslashes)
			if bs&(bs<<8) == 0 && bs>>63 == 0 {
				if q := zeroBytes(w^quotes) &^ (bs << 8); q != 0 {
					s.inStr = s.inStr != (bits.OnesCount64(q)&1 == 1)
					s.fixed = false
				}
				i += 8
				continue
			}
		}
		for end := min(i+8, len(b)); i < end; i++ {
			switch c := b[i]; {
			case s.esc:
				s.esc = false
			case c == '\\':
				s.esc = true
			case c == '"':
				s.inStr, s.fixed = !s.inStr, false
			}
		}
	}
}

// lastNewline is bytes.LastIndexByte(b, '\n'), which reads byte by byte
// from the end, made fast for a long line: it looks at the last 256 bytes
// so, and at the rest with bytes.IndexByte (vector instructions), forward.
func lastNewline(b []byte) int {
	tail := max(0, len(b)-256)
	if k := bytes.LastIndexByte(b[tail:], '\n'); k >= 0 {
		return tail + k
	}
	k := -1
	for {
		j := bytes.IndexByte(b[k+1:tail], '\n')
		if j < 0 {
			return k
		}
		k += j + 1
	}
}

// zeroBytes has the high bit set in exactly the bytes of x that are zero.
func zeroBytes(x uint64) uint64 {
	const low7 = 0x7f7f7f7f7f7f7f7f
	return ^((x&low7 + low7) | x | low7)
}

// ctlIndex is the index of the first byte of b below 0x20 other than '\n',
// or -1. Bytes are tested 32 at a time, as four words: (w - 0x20…) &^ w &
// 0x80… is non-zero exactly when a byte of w is below 0x20; the bytes of a
// block that has one are then looked at one by one (once a line for its
// '\n').
func ctlIndex(b []byte) int {
	const lo, hi = 0x2020202020202020, 0x8080808080808080
	i := 0
	for ; i+32 <= len(b); i += 32 {
		blk := b[i : i+32 : i+32]
		w0 := binary.LittleEndian.Uint64(blk[0:])
		w1 := binary.LittleEndian.Uint64(blk[8:])
		w2 := binary.LittleEndian.Uint64(blk[16:])
		w3 := binary.LittleEndian.Uint64(blk[24:])
		if ((w0-lo)&^w0|(w1-lo)&^w1|(w2-lo)&^w2|(w3-lo)&^w3)&hi == 0 {
			continue
		}
		for j, c := range blk {
			if c < 0x20 && c != '\n' {
				return i + j
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
	s := jsonCtl{ra: bytes.NewReader(data)}
	out, ok := s.next(data, nil)
	if !ok {
		return data, 0
	}
	return out, s.n
}

// ctlReader is an input passed through jsonCtl; its repairs are added to n.
// An input that is randomAccess is read again at offsets where the string
// state is needed (its stream starts at offset 0 of its ReadAt, as the
// readers importOne is given do).
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
		return &ctlReader{r: r, n: n, s: jsonCtl{ra: ra}}
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
