package cmd

import (
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/trajmine/trajmine/ingest"
)

// standardPlaces returns the standard places of this system's agents that
// exist under the user's home (ingest.Discover: the home directory and the
// XDG and agent root variables as d gives them), and, when errw is not nil
// and some were found, says on it which.
func standardPlaces(d *Deps, errw io.Writer) (home string, paths []string) {
	home, _ = d.HomeDir()
	found := ingest.Discover(home, d.Getenv, runtime.GOOS)
	parts := make([]string, len(found))
	for i, f := range found {
		paths = append(paths, f.Path)
		parts[i] = f.Agent + " " + tildePath(home, f.Path)
	}
	if errw != nil && len(found) > 0 {
		fmt.Fprintf(errw, "standard places found: %s\n", strings.Join(parts, ", "))
	}
	return home, paths
}

// standardPlacesText names the standard places: the first two, and how
// many more (README, "Where trajmine looks", lists them all).
func standardPlacesText() string {
	ps := ingest.Places(runtime.GOOS)
	if len(ps) == 0 {
		return "the standard places (there are none on " + runtime.GOOS + ")"
	}
	var shown []string
	for _, p := range ps[:min(2, len(ps))] {
		shown = append(shown, placeText(p))
	}
	if n := len(ps) - len(shown); n > 0 {
		return fmt.Sprintf("%s and %d more standard places", strings.Join(shown, ", "), n)
	}
	return strings.Join(shown, ", ")
}

// placeText is a place's path as the user reads it: under ~, with its
// root variable's default (~/.claude for $CLAUDE_CONFIG_DIR …).
func placeText(p ingest.Place) string {
	return filepath.ToSlash(p.Resolve("~", func(string) string { return "" }))
}
