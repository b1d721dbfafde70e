package ingest

import (
	"bytes"
	stdjson "encoding/json"
	"unicode/utf8"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"
)

// Every helper of Importer.Detect: the look at a JSONL head's first records
// (headLines, firstLines, anyJSONL, detectJSONL), the second look that one
// bad line cannot defeat (majorityHead), and the keys at the head of a
// document (headKeys, topKeys, firstElemKeys and the token steps).

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
//
// The lines are scanned once for all the detectors, each decoding only the
// members its T may read (detect_reduce.go).
func detectJSONL[T any](head []byte, n int, fn func(r *T) (claim, done bool)) bool {
	names := namesOf[T]()
	if !reduceLines || names == nil || n > spanLines {
		return headLines(head, n, func(line []byte) (bool, bool) {
			var r T
			if !lineDecodes(line, &r) {
				return false, false
			}
			return fn(&r)
		})
	}
	hs := spansOf(head)
	for i := range hs.lines[:min(n, len(hs.lines))] {
		sl := &hs.lines[i]
		var r T
		line := sl.line
		if sl.ok {
			line = sl.reduced(names)
		}
		ok := lineDecodes(line, &r)
		if checkReduced != nil && sl.ok {
			var whole T
			checkReduced(sl.line, line, lineDecodes(sl.line, &whole), ok, &whole, &r)
		}
		if !ok {
			continue
		}
		if claim, done := fn(&r); done {
			return claim
		}
	}
	return false
}

// lineDecodes reports whether a line of a head decodes into v (filled as
// json.Unmarshal fills it): json.Decodes, which skips the explanation of an
// error that detection passes over. Only TestDetectDecodesClaims sets it to
// json.Unmarshal's nil test, to show that no claim changes with it.
var lineDecodes = json.Decodes

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

// Keys at the head of a document, read without decoding it whole (a head
// may be cut off at HeadSize): headKeys on the byte scanner (jsonscan.go),
// topKeys and the token steps (skipValue, skipRest, enter, nextKey) on
// encoding/json's Decoder.

// headKey is one top-level key of a JSON object as headKeys saw it.
type headKey struct {
	name string
	kind byte   // first byte of the value
	str  string // the value, when it is a short string
	off  int    // offset of the value
}

// trimHead drops a BOM and leading white space.
func trimHead(head []byte) []byte {
	head = trimBOM(head)
	return head[jsonWS(head, 0):]
}

// headKeys reads the leading keys of the JSON object at the start of b (at
// most limit) without decoding values, so that a head cut off inside a long
// value still shows the keys before it. A cut-off value ends the scan after
// its key.
func headKeys(b []byte, limit int) []headKey {
	var out []headKey
	jsonEachField(b, 0, func(key []byte, val int) bool {
		var name string
		if len(out) >= limit || json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &name) != nil || val >= len(b) {
			return false
		}
		k := headKey{name: name, kind: b[val], off: val}
		end := jsonSkipValue(b, val)
		if end >= 0 && b[val] == '"' && end-val < 512 {
			_ = json.Unmarshal(b[val:end], &k.str)
		}
		out = append(out, k)
		return end >= 0 && len(out) < limit
	})
	return out
}

// headKeyNamed returns the head key named name, if the head shows it.
func headKeyNamed(keys []headKey, name string) (headKey, bool) {
	for _, k := range keys {
		if k.name == name {
			return k, true
		}
	}
	return headKey{}, false
}

// firstElemKeys returns the head keys of the first element of the array
// that key k of head h holds, when that element is an object the head
// shows; ok is false otherwise.
func firstElemKeys(h []byte, k headKey) (keys []headKey, ok bool) {
	if k.kind != '[' {
		return nil, false
	}
	first := -1
	jsonEachElem(h, k.off, func(val int) bool { first = val; return false })
	if first < 0 || first >= len(h) || h[first] != '{' {
		return nil, false
	}
	return headKeys(h[first:], 16), true
}

// isBoolKind reports whether a head key's value starts a JSON boolean.
func isBoolKind(c byte) bool { return c == 't' || c == 'f' }

// isNumberKind reports whether a head key's value starts a JSON number.
func isNumberKind(c byte) bool { return c == '-' || c >= '0' && c <= '9' }

// topKeys returns the keys of the top-level JSON object at the start of
// head, in order, up to the first value that cannot be read (head may be
// cut). It returns nil when head does not start with an object.
func topKeys(head []byte) []string {
	dec := stdjson.NewDecoder(bytes.NewReader(head))
	tok, err := dec.Token()
	if err != nil {
		return nil
	}
	if d, ok := tok.(stdjson.Delim); !ok || d != '{' {
		return nil
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return keys
		}
		k, _ := tok.(string)
		keys = append(keys, k)
		var skip stdjson.RawMessage
		if dec.Decode(&skip) != nil {
			return keys
		}
	}
	return keys
}

// hasKeys reports whether keys holds every one of want.
func hasKeys(keys []string, want ...string) bool {
	for _, w := range want {
		found := false
		for _, k := range keys {
			if k == w {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// skipValue consumes one JSON value and returns its first token.
func skipValue(dec *stdjson.Decoder) (stdjson.Token, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := t.(stdjson.Delim); ok && (d == '{' || d == '[') {
		return t, skipRest(dec)
	}
	return t, nil
}

// skipRest consumes the rest of an object or array whose opening delimiter
// was just read.
func skipRest(dec *stdjson.Decoder) error {
	for depth := 1; depth > 0; {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case stdjson.Delim('{'), stdjson.Delim('['):
			depth++
		case stdjson.Delim('}'), stdjson.Delim(']'):
			depth--
		}
	}
	return nil
}

// nextKey reads the next key of an object being read token by token, the
// decoder then at the key's value; ok is false at the object's '}' and on an
// error (err).
func nextKey(dec *stdjson.Decoder) (key string, ok bool, err error) {
	t, err := dec.Token()
	if err != nil || t == stdjson.Delim('}') {
		return "", false, err
	}
	key, _ = t.(string)
	return key, true, nil
}

// enter reads the first token of the next value and reports whether it is
// open ('{' or '['): the value is then entered, its first member next. Any
// other value is passed over whole.
func enter(dec *stdjson.Decoder, open stdjson.Delim) (bool, error) {
	t, err := dec.Token()
	if err != nil {
		return false, err
	}
	if t == open {
		return true, nil
	}
	if _, isDelim := t.(stdjson.Delim); isDelim {
		return false, skipRest(dec)
	}
	return false, nil
}
