package ingest

import (
	"bytes"
	"unicode/utf8"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"
)

// Helpers for Importer.Detect on JSONL formats, which look at the first few
// records of a file's head.

// headLines calls fn with each of the first n non-blank lines of head (white
// space trimmed) until fn says it is done; the result is fn's claim then, or
// false when the lines run out first.
func headLines(head []byte, n int, fn func(line []byte) (claim, done bool)) bool {
	seen := 0
	for line := range bytes.Lines(head) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if seen++; seen > n {
			break
		}
		if claim, done := fn(line); done {
			return claim
		}
	}
	return false
}

// firstLines returns up to n non-blank trimmed lines of head.
func firstLines(head []byte, n int) [][]byte {
	var out [][]byte
	headLines(head, n, func(line []byte) (bool, bool) {
		out = append(out, line)
		return false, false
	})
	return out
}

// anyJSONL claims a head when one of its first n lines decodes into a T that
// ok accepts; a line that does not decode is passed over (with n = 1: the
// first line decodes and ok accepts it).
func anyJSONL[T any](head []byte, n int, ok func(r *T) bool) bool {
	return detectJSONL(head, n, func(r *T) (bool, bool) {
		claim := ok(r)
		return claim, claim
	})
}

// detectJSONL is headLines over lines decoded into a fresh T each; a line
// that does not decode (the last one may be cut off by the head) is passed
// over.
func detectJSONL[T any](head []byte, n int, fn func(r *T) (claim, done bool)) bool {
	return headLines(head, n, func(line []byte) (bool, bool) {
		var r T
		if json.Unmarshal(line, &r) != nil {
			return false, false
		}
		return fn(&r)
	})
}

// Detection that one bad line cannot defeat (issue 30.12). A JSONL file
// whose first lines include one that is cut off, not JSON, carries a key
// with an invalid byte, or gives a field another JSON type than the other
// lines do ("role": 12345) would fail a detector that reads every line or
// only the first one. DetectFormat then looks again at majorityHead: the
// head without those lines, when most of its first lines agree.

// voteLines is how many of a head's first non-blank lines majorityHead
// judges.
const voteLines = 30

// majorityHead returns head without the lines, among its first voteLines
// non-blank ones, that are not a JSON object, hold a key that is not valid
// UTF-8, or give a top-level key a JSON type that fewer than half of the
// lines with that key give it (null agrees with every type). ok is false
// when it drops nothing, or when the objects are fewer than half of the
// lines judged (the head is then not JSONL: a pretty-printed document).
func majorityHead(head []byte) ([]byte, bool) {
	type line struct {
		raw    []byte
		judged bool            // one of the first voteLines non-blank lines
		obj    bool            // a JSON object with valid keys
		kinds  map[string]byte // its top-level keys' types (jsonKind)
	}
	var lines []line
	objs, judged := 0, 0
	for raw := range bytes.Lines(head) {
		l := line{raw: raw}
		if t := bytes.TrimSpace(raw); len(t) > 0 && judged < voteLines {
			judged++
			l.judged = true
			if l.kinds, l.obj = objectKinds(t); l.obj {
				objs++
			}
		}
		lines = append(lines, l)
	}
	if objs < 2 || objs*2 < judged {
		return nil, false
	}
	counts := map[string]map[byte]int{} // key → type → lines
	totals := map[string]int{}
	for _, l := range lines {
		for k, kind := range l.kinds {
			if kind == 'n' {
				continue
			}
			if counts[k] == nil {
				counts[k] = map[byte]int{}
			}
			counts[k][kind]++
			totals[k]++
		}
	}
	var out []byte
	for _, l := range lines {
		keep := !l.judged || l.obj
		for k, kind := range l.kinds {
			if kind != 'n' && counts[k][kind]*2 < totals[k] {
				keep = false
			}
		}
		if keep {
			out = append(out, l.raw...)
		}
	}
	return out, len(out) < len(head)
}

// objectKinds returns the type of each top-level value of the JSON object
// line (jsonKind); ok is false when line is not a valid JSON object or a
// key anywhere in it is not valid UTF-8.
func objectKinds(line []byte) (kinds map[string]byte, ok bool) {
	if line[0] != '{' || !json.Valid(line) || !keysValidUTF8(line, 0, 0) {
		return nil, false
	}
	kinds = map[string]byte{}
	jsonEachField(line, 0, func(key []byte, val int) bool {
		kinds[string(key)] = jsonKind(line[val])
		return true
	})
	return kinds, true
}

// jsonKind is the type of a JSON value by its first byte: '"', '{', '[',
// 'b' (true, false), 'n' (null) or '0' (a number).
func jsonKind(c byte) byte {
	switch c {
	case '"', '{', '[', 'n':
		return c
	case 't', 'f':
		return 'b'
	}
	return '0'
}

// keysValidUTF8 reports whether every key of the (valid) JSON value at i
// of b, at any depth up to 64, is valid UTF-8.
func keysValidUTF8(b []byte, i, depth int) bool {
	i = jsonWS(b, i)
	if i >= len(b) || depth > 64 {
		return true
	}
	ok := true
	switch b[i] {
	case '{':
		jsonEachField(b, i, func(key []byte, val int) bool {
			ok = utf8.Valid(key) && keysValidUTF8(b, val, depth+1)
			return ok
		})
	case '[':
		jsonEachElem(b, i, func(val int) bool {
			ok = keysValidUTF8(b, val, depth+1)
			return ok
		})
	}
	return ok
}
