package ingest

import (
	"path/filepath"
	"strings"
)

// Small string helpers shared by importers.

// fileStem is a path's file name without its directory and extension (""
// for a path with no file name).
func fileStem(path string) string {
	b := filepath.Base(path)
	if b == "." || b == string(filepath.Separator) {
		return ""
	}
	return strings.TrimSuffix(b, filepath.Ext(b))
}

// firstNonEmpty returns the first of ss that is not empty.
func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// containsAnyFold reports whether s, lower-cased, contains one of words
// (which are lower case): an error text's mention of one of a format's
// phrases.
func containsAnyFold(s string, words []string) bool {
	l := strings.ToLower(s)
	for _, w := range words {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// clipQuote is s cut to 60 bytes (and "…") in double quotes, for a
// message that names a value.
func clipQuote(s string) string {
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return `"` + s + `"`
}

// clipText is s, white space trimmed, cut to 300 bytes (and "…"), for an
// error message or end-reason detail taken from a log.
func clipText(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
