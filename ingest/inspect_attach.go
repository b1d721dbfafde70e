package ingest

// This file resolves an Inspect sample's attachment references
// (`attachment://<hash>`) where the run keeps their text, within a budget
// per file (issue 31: one attachment referenced a thousand times was
// copied into every reference). See inspectAI's doc.

import (
	"bytes"
	"math"
	"regexp"
	"strings"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"
)

// inspAttachPrefix begins a string that refers to one of the sample's
// attachments by its hash.
const inspAttachPrefix = "attachment://"

// inspAttachRe matches a JSON string that is a whole attachment reference.
var inspAttachRe = regexp.MustCompile(`"attachment://([A-Za-z0-9_-]+)"`)

// The text that a file's attachment references may resolve to, in all: at
// least inspAttachMin bytes, else inspAttachFactor times what the file
// decompresses to (see inspectAI).
const (
	inspAttachFactor = 2
	inspAttachMin    = 16 << 20
)

// inspAttachBudget is the budget of resolved attachment text of a file that
// decompresses to size bytes.
func inspAttachBudget(size uint64) int64 {
	if size > math.MaxInt64/inspAttachFactor {
		return math.MaxInt64
	}
	return max(inspAttachMin, inspAttachFactor*int64(size))
}

// inspAttach resolves the attachment references of one file's samples
// where their text is kept (message content, tool call arguments, tool
// results and errors, tool definitions, limit messages), within the file's
// budget of resolved text. A string that is a whole reference resolves to
// the attachment's own string, shared by every reference (no copy); a
// reference inside JSON kept as JSON (arguments, tool definitions) is
// written into a copy. Either way its text counts against the budget, and a
// reference whose text would overdraw it stays "attachment://<hash>" and is
// counted in left. A nil *inspAttach resolves nothing.
type inspAttach struct {
	att    map[string]string // the current sample's attachments
	budget int64             // resolved text the file may still add
	limit  int64             // the file's whole budget
	left   int               // references of the current sample left unresolved for the budget
	peek   bool              // resolve without counting, for comparisons only (no copies)
}

// newInspAttach returns the resolver of a file that decompresses to size
// bytes.
func newInspAttach(size uint64) *inspAttach {
	b := inspAttachBudget(size)
	return &inspAttach{budget: b, limit: b}
}

// sample starts a sample with attachments att, none of its references
// left unresolved yet.
func (a *inspAttach) sample(att map[string]string) {
	a.att, a.left = att, 0
}

// lookup returns the text of the attachment hash names, and whether the
// reference resolves: the attachment exists and the budget holds its text
// (peeking, any budget does). One the budget does not hold is counted in
// left.
func (a *inspAttach) lookup(hash string) (string, bool) {
	text, ok := a.att[hash]
	if !ok {
		return "", false
	}
	if a.peek {
		return text, true
	}
	if int64(len(text)) > a.budget {
		a.left++
		return "", false
	}
	a.budget -= int64(len(text))
	return text, true
}

// str returns s, or the attachment's text when s is a whole reference that
// resolves.
func (a *inspAttach) str(s string) string {
	if a == nil || len(a.att) == 0 || !strings.HasPrefix(s, inspAttachPrefix) {
		return s
	}
	if text, ok := a.lookup(s[len(inspAttachPrefix):]); ok {
		return text
	}
	return s
}

// json replaces the references in raw JSON that resolve by the
// attachment's text (as a JSON string), in a copy; raw itself when there are
// none. Peeking, it returns raw unchanged.
func (a *inspAttach) json(raw json.RawMessage) json.RawMessage {
	if a == nil || a.peek || len(a.att) == 0 || !bytes.Contains(raw, []byte(inspAttachPrefix)) {
		return raw
	}
	locs := inspAttachRe.FindAllSubmatchIndex(raw, -1)
	if len(locs) == 0 {
		return raw
	}
	var out bytes.Buffer
	last := 0
	for _, l := range locs {
		if l[0] > 0 && raw[l[0]-1] == '\\' {
			continue
		}
		text, ok := a.lookup(string(raw[l[2]:l[3]]))
		if !ok {
			continue
		}
		enc, err := json.Marshal(text)
		if err != nil {
			continue
		}
		out.Write(raw[last:l[0]])
		out.Write(enc)
		last = l[1]
	}
	if last == 0 {
		return raw
	}
	out.Write(raw[last:])
	return out.Bytes()
}

// text flattens message content (see inspParts), resolving references.
func (a *inspAttach) text(raw json.RawMessage) string {
	parts, ok := inspParts(raw)
	if !ok {
		return ContentText(a.json(raw))
	}
	for i, p := range parts {
		parts[i] = a.str(p)
	}
	return strings.Join(parts, "\n")
}

// sameText reports whether two contents flatten to the same text, their
// references resolved, without building either text.
func (a *inspAttach) sameText(x, y json.RawMessage) bool {
	if bytes.Equal(bytes.TrimSpace(x), bytes.TrimSpace(y)) {
		return true
	}
	if a != nil {
		a.peek = true
		defer func() { a.peek = false }()
	}
	flat := func(raw json.RawMessage) []string {
		parts, ok := inspParts(raw)
		if !ok {
			return []string{ContentText(raw)}
		}
		for i, p := range parts {
			parts[i] = a.str(p)
		}
		return parts
	}
	return joinedEqual(flat(x), flat(y), "\n")
}

// joinedEqual reports whether strings.Join(x, sep) == strings.Join(y, sep).
func joinedEqual(x, y []string, sep string) bool {
	piece := func(p []string, k int) string {
		if k%2 == 1 {
			return sep
		}
		return p[k/2]
	}
	nx, ny := max(2*len(x)-1, 0), max(2*len(y)-1, 0)
	kx, ky := 0, 0
	var sx, sy string
	for {
		for sx == "" && kx < nx {
			sx, kx = piece(x, kx), kx+1
		}
		for sy == "" && ky < ny {
			sy, ky = piece(y, ky), ky+1
		}
		if sx == "" || sy == "" {
			return sx == "" && sy == ""
		}
		n := min(len(sx), len(sy))
		if sx[:n] != sy[:n] {
			return false
		}
		sx, sy = sx[n:], sy[n:]
	}
}
