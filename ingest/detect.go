package ingest

import (
	"bytes"

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
