package ingest

import "bytes"

// Byte-level JSON scanning, for the importers that look into a document
// without decoding it: a head cut off at HeadSize (Detect), or the offsets of
// values in a whole file (for the lines of rejects). The scanner checks
// nesting, not full syntax; callers that need validity decode the value.

// jsonWS returns the offset of the first non-whitespace byte at or after i.
func jsonWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// jsonSkipString returns the offset just past the string starting at b[i]
// ('"'), or -1 when it is cut off. It looks for each quote with
// bytes.IndexByte (tool outputs are long strings) and counts the
// backslashes before it: an odd run escapes it.
func jsonSkipString(b []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		n := 0
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
		j++
	}
}

// jsonSkipValue returns the offset just past the JSON value at or after i,
// or -1 when it is malformed or cut off.
func jsonSkipValue(b []byte, i int) int {
	i = jsonWS(b, i)
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return jsonSkipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				j := jsonSkipString(b, i)
				if j < 0 {
					return -1
				}
				i = j
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	case '}', ']', ',', ':':
		return -1
	}
	j := i
	for j < len(b) {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return j
		}
		j++
	}
	return j
}

// jsonEachField calls fn with each key (raw, unescaped bytes) of the object
// at or after i and the offset of its value, until fn returns false. It
// returns false when the object is malformed or cut off before fn stopped.
func jsonEachField(b []byte, i int, fn func(key []byte, val int) bool) bool {
	i, more, ok := jsonFirstMember(b, i, '{', '}')
	if !more {
		return ok
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return false
		}
		end := jsonSkipString(b, i)
		if end < 0 {
			return false
		}
		key := b[i+1 : end-1]
		i = jsonWS(b, end)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		val := jsonWS(b, i+1)
		if !fn(key, val) {
			return true
		}
		if i, more, ok = jsonNextMember(b, val, '}'); !more {
			return ok
		}
	}
}

// jsonEachElem calls fn with the offset of each element of the array at or
// after i, until fn returns false.
func jsonEachElem(b []byte, i int, fn func(val int) bool) bool {
	i, more, ok := jsonFirstMember(b, i, '[', ']')
	if !more {
		return ok
	}
	for {
		if !fn(i) {
			return true
		}
		if i, more, ok = jsonNextMember(b, i, ']'); !more {
			return ok
		}
	}
}

// jsonFirstMember returns the offset of the first member of the object or
// array at or after i that open starts and close ends (more). An empty one
// has none (ok); when i is not at one, ok is false.
func jsonFirstMember(b []byte, i int, open, close byte) (first int, more, ok bool) {
	i = jsonWS(b, i)
	if i >= len(b) || b[i] != open {
		return 0, false, false
	}
	i = jsonWS(b, i+1)
	if i < len(b) && b[i] == close {
		return 0, false, true
	}
	return i, true, true
}

// jsonNextMember skips the value at val, a member of the object or array
// that close ends, and the comma after it: next is the offset of the next
// member when there is one (more). At close, ok is true; when the value or
// what follows it is malformed or cut off, false.
func jsonNextMember(b []byte, val int, close byte) (next int, more, ok bool) {
	i := jsonSkipValue(b, val)
	if i < 0 {
		return 0, false, false
	}
	if i = jsonWS(b, i); i >= len(b) {
		return 0, false, false
	}
	switch b[i] {
	case close:
		return 0, false, true
	case ',':
		return jsonWS(b, i+1), true, true
	}
	return 0, false, false
}

// jsonFieldAt returns the offset of key's value in the object at or after
// i, or -1.
func jsonFieldAt(b []byte, i int, key string) int {
	at := -1
	jsonEachField(b, i, func(k []byte, v int) bool {
		if string(k) == key {
			at = v
			return false
		}
		return true
	})
	return at
}
