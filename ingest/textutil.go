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
