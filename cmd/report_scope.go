package cmd

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/internal/store"
	"github.com/trajmine/trajmine/schema"
)

// reportScope is the set of runs trajmine report reports on and how its
// first line states it.
type reportScope struct {
	runs   []schema.Run // the runs reported on, in store.Runs order
	all    bool         // --all: every run of the database
	files  int          // distinct source files of runs
	dbRuns int          // runs the database holds
	from   string       // where the runs come from: "3 files under DIR", "a generated demo corpus …"
	note   string       // the parenthesis after it
	lead   string       // for the demo: why there is one, before "showing …"
}

// line is the report's first line.
func (s *reportScope) line() string {
	if s.lead != "" {
		return fmt.Sprintf("trajmine report: %s; showing %s of %s (%s)", s.lead, s.from, countOf(len(s.runs), "run"), s.note)
	}
	if s.all {
		return fmt.Sprintf("trajmine report: all %s of %s (%s)", countOf(len(s.runs), "run"), s.from, s.note)
	}
	return fmt.Sprintf("trajmine report: %s from %s (%s)", countOf(len(s.runs), "run"), s.from, s.note)
}

// source is the scope as the page's header and --json's "source" state it
// (after "N runs from").
func (s *reportScope) source() string {
	if s.lead != "" {
		return s.from + " (" + s.lead + "; " + s.note + ")"
	}
	return s.from + " (" + s.note + ")"
}

// scanOptions selects the scope's runs for the shared pass: every run
// when they are all the database holds (no list to join).
func (s *reportScope) scanOptions() store.ScanOptions {
	if s.all || len(s.runs) == s.dbRuns {
		return store.ScanOptions{}
	}
	ids := make([]string, len(s.runs))
	for i, r := range s.runs {
		ids[i] = r.RunID
	}
	return store.ScanOptions{RunIDs: ids}
}

// runsUnder returns the runs of st imported from the log files under paths
// (ingest.Expand of them), whether imported now or earlier: a run belongs
// to a file when its source_path names that file (both made absolute, a
// relative path against the working directory) or, for a file whose path
// matches no stored source, when the file has the content (sha256) of a
// stored source of the same size, which the importer skipped as a copy of
// it. The second count is how many source files the runs come from.
func runsUnder(ctx context.Context, st *store.Store, paths []string) ([]schema.Run, int, error) {
	files, err := ingest.Expand(paths, nil) // unreadable directories: ingest has said so
	if err != nil {
		return nil, 0, err
	}
	want := map[string]string{} // absolute path → path as expanded
	for _, f := range files {
		want[absPath(f)] = f
	}
	srcs, err := st.Sources(ctx)
	if err != nil {
		return nil, 0, err
	}
	keep := map[string]bool{} // source_path values in scope
	matched := map[string]bool{}
	bySize := map[int64][]schema.Source{}
	for _, s := range srcs {
		if a := absPath(s.Path); want[a] != "" {
			keep[s.Path], matched[a] = true, true
			continue
		}
		bySize[s.Bytes] = append(bySize[s.Bytes], s)
	}
	for a, f := range want {
		if matched[a] {
			continue
		}
		fi, err := os.Stat(f)
		if err != nil || !fi.Mode().IsRegular() || len(bySize[fi.Size()]) == 0 {
			continue // a FIFO or device is never read (it could block or never end)
		}
		sum, err := fileSHA256(f)
		if err != nil {
			continue // unreadable: ingest has said so
		}
		for _, s := range bySize[fi.Size()] {
			if s.SHA256 == sum {
				keep[s.Path] = true
			}
		}
	}
	all, err := st.Runs(ctx, store.RunFilter{})
	if err != nil {
		return nil, 0, err
	}
	runs := []schema.Run{}
	for _, r := range all {
		if keep[r.SourcePath] {
			runs = append(runs, r)
		}
	}
	return runs, sourceFiles(runs), nil
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

func fileSHA256(path string) (string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	h := sha256.New()
	if _, err := io.Copy(h, fh); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// displayPaths names paths for the first line: home as ~, at most three
// then how many more.
func displayPaths(home string, paths []string) string {
	var out []string
	for i, p := range paths {
		if i == 3 {
			out = append(out, fmt.Sprintf("and %d more", len(paths)-3))
			break
		}
		out = append(out, tildePath(home, p))
	}
	return strings.Join(out, ", ")
}

// tildePath writes a path under home as ~/….
func tildePath(home, p string) string {
	if home == "" {
		return p
	}
	if rel, err := filepath.Rel(home, p); err == nil && filepath.IsAbs(p) && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(filepath.Join("~", rel))
	}
	return p
}

// filesFrom is "3 files under DIR" or, when every path is a file, the
// files themselves.
func filesFrom(home string, paths []string, files int) string {
	allFiles := len(paths) > 0
	for _, p := range paths {
		if st, err := os.Stat(p); err != nil || st.IsDir() {
			allFiles = false
		}
	}
	switch {
	case allFiles && files == len(paths):
		return displayPaths(home, paths)
	case allFiles:
		return fmt.Sprintf("%d of %s: %s", files, countOf(len(paths), "file"), displayPaths(home, paths))
	}
	return countOf(files, "file") + " under " + displayPaths(home, paths)
}

// scanOptions selects the runs reported on.
func (o *ReportOptions) scanOptions() store.ScanOptions {
	if o.scope == nil {
		return store.ScanOptions{}
	}
	return o.scope.scanOptions()
}

// sourceText is where the runs reported on come from, for the page and
// --json.
func (o *ReportOptions) sourceText() string {
	if o.scope == nil {
		return "the database"
	}
	return o.scope.source()
}

// scopeStatement is the statement of the scope (in report --json).
type scopeStatement struct {
	Line         string `json:"line"`          // the first line printed
	Runs         int    `json:"runs"`          // runs reported on
	Files        int    `json:"files"`         // their source files
	DatabaseRuns int    `json:"database_runs"` // runs in the database
	All          bool   `json:"all"`           // --all: every run of the database
	Demo         bool   `json:"demo"`          // a generated demo corpus in a temporary database
}

func (o *ReportOptions) scopeStatement(runs int) scopeStatement {
	sc := o.scope
	if sc == nil {
		return scopeStatement{Runs: runs, DatabaseRuns: runs, All: true}
	}
	return scopeStatement{Line: sc.line(), Runs: len(sc.runs), Files: sc.files, DatabaseRuns: sc.dbRuns, All: sc.all, Demo: sc.lead != ""}
}

// sourceFiles counts the runs' distinct source files.
func sourceFiles(runs []schema.Run) int {
	seen := map[string]bool{}
	for _, r := range runs {
		seen[r.SourcePath] = true
	}
	return len(seen)
}

// shownPath marks a bare relative file name as one in the working
// directory: "./trajmine.duckdb".
func shownPath(p string) string {
	if filepath.IsAbs(p) || strings.HasPrefix(p, ".") || strings.ContainsRune(p, filepath.Separator) {
		return p
	}
	return "." + string(filepath.Separator) + p
}
