package ingest

import (
	"bytes"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"
	"github.com/trajmine/trajmine/schema"
)

// Outcome files are the files users keep beside their logs that say which
// runs solved their task: a SWE-bench harness report.json per instance, a
// submission's results.json, predictions, Harbor and terminal-bench
// results, a plain CSV or JSONL. They make no run: their importers (the
// outcome formats, each in its own file: swebench_report.go,
// swebench_results.go, swebench_preds.go, harbor_result.go,
// terminal_bench_results.go, outcome_table.go) store one schema.Outcome
// row per outcome the file states (File.Outcome), keyed by what it names:
//
//   - a run id (schema.KeyRunID): a CSV or JSONL run_id column;
//   - a task or instance id (schema.KeyTaskID): ids in a report, a list or
//     a table;
//   - an id the file's place gives (schema.KeyPath): the folder of a flat
//     logs/<id>/report.json, a Harbor trial folder;
//   - a folder (schema.KeyScope): every run under it, for a results.json
//     that lists only the resolved ids (the others are not resolved).
//
// The store applies the rows to the runs after every import (an
// OutcomeSink: store.ApplyOutcomes has the rule), so a run and its outcome
// file may be imported in either order. Detection recognises an outcome
// file by its name and shape and never claims a log (TestNoForeignClaims,
// TestOutcomeCorpusDetection): a known outcome file is never an unknown
// format.

// outcomeFormat marks the importers of outcome files (IsOutcomeFormat).
type outcomeFormat interface{ outcomeFile() }

// outcomeInfo is embedded by the importers of outcome files.
type outcomeInfo struct{}

func (outcomeInfo) outcomeFile() {}

// pathKeyedFormat is implemented by the importers whose rows depend on
// where the file is as well as on its bytes (PathKeyed).
type pathKeyedFormat interface{ keyedByPath() }

// placeKeyed is embedded by the path-keyed importers.
type placeKeyed struct{}

func (placeKeyed) keyedByPath() {}

func isOutcome(im Importer) bool { _, ok := im.(outcomeFormat); return ok }

// IsOutcomeFormat reports whether the named importer reads outcome files
// (they make outcome rows, not runs).
func IsOutcomeFormat(format string) bool {
	im, err := Lookup(format)
	return err == nil && isOutcome(im)
}

// OutcomeFormats returns the names of the importers of outcome files, in
// detection order.
func OutcomeFormats() []string {
	var out []string
	for _, im := range registry {
		if isOutcome(im) {
			out = append(out, im.Name())
		}
	}
	return out
}

// PathKeyed reports whether the named importer's rows depend on the
// file's path as well as its bytes (a flat report.json whose instance is
// its folder's name, a Harbor reward.json): two such files with the same
// bytes at two paths are two imports, not one file seen twice.
func PathKeyed(format string) bool {
	im, err := Lookup(format)
	if err != nil {
		return false
	}
	_, ok := im.(pathKeyedFormat)
	return ok
}

// errNotOutcome is returned (wrapped) by prepare, under Options.Outcomes,
// for a file that is not an outcome file.
var errNotOutcome = errors.New("not an outcome file")

// tableExts are the name endings of the CSV and TSV outcome tables, which
// a walk considers under Options.Outcomes only (a directory of logs holds
// many CSV files that are no outcome table).
var tableExts = []string{".csv", ".tsv"}

// outcomeRow is one outcome before it is stored.
type outcomeRow struct {
	line     int64
	kind     schema.OutcomeKey
	key      string
	resolved *bool
	score    *float64
	detail   string
}

// emit stores r unless it has no key or states no outcome.
func (r outcomeRow) emit(f *File) error {
	if r.key == "" || r.resolved == nil && r.score == nil {
		return nil
	}
	return f.Outcome(&schema.Outcome{Line: r.line, KeyKind: r.kind, Key: r.key, Resolved: r.resolved, Score: r.score, Detail: r.detail})
}

func boolPtr(b bool) *bool { return &b }

// resolvedWords are the words a table or report writes for an outcome.
var resolvedWords = map[string]bool{
	"true": true, "t": true, "yes": true, "y": true, "1": true, "pass": true, "passed": true, "resolved": true, "success": true, "solved": true,
	"false": false, "f": false, "no": false, "n": false, "0": false, "fail": false, "failed": false, "unresolved": false, "failure": false, "unsolved": false,
}

// parseResolvedText reads an outcome written as text (a CSV cell, a JSON
// string): nil for an empty cell, ok false for a word it does not know.
func parseResolvedText(s string) (v *bool, ok bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" || s == "null" || s == "none" || s == "na" || s == "n/a" {
		return nil, true
	}
	b, known := resolvedWords[s]
	if !known {
		return nil, false
	}
	return &b, true
}

// parseResolvedJSON reads an outcome from a JSON value: a boolean, 1 or 0,
// or a word parseResolvedText knows; null is no outcome.
func parseResolvedJSON(raw []byte) (v *bool, ok bool) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return nil, true
	case string(raw) == "true":
		return boolPtr(true), true
	case string(raw) == "false":
		return boolPtr(false), true
	case raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, false
		}
		return parseResolvedText(s)
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f != 0 && f != 1 {
		return nil, false
	}
	return boolPtr(f == 1), true
}

// parseScoreText reads a score written as text: nil for an empty cell, ok
// false for what is not a finite number.
func parseScoreText(s string) (v *float64, ok bool) {
	s = strings.TrimSpace(s)
	if s == "" || strings.EqualFold(s, "null") || strings.EqualFold(s, "none") || strings.EqualFold(s, "na") {
		return nil, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, false
	}
	return &f, true
}

// parseScoreJSON reads a score from a JSON number or a numeric string;
// null is no score.
func parseScoreJSON(raw []byte) (v *float64, ok bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, false
		}
		return parseScoreText(s)
	}
	return parseScoreText(string(raw))
}

// rewardOutcome is the outcome of a reward (Harbor, terminal-bench): 1 or
// more is resolved, 0 or less is not, and in between only the score says.
func rewardOutcome(r float64) *bool {
	switch {
	case r >= 1:
		return boolPtr(true)
	case r <= 0:
		return boolPtr(false)
	}
	return nil
}

// genericOutcomeNames are outcome file names that say nothing of the run:
// a file so named takes its id from its folder (placeID).
var genericOutcomeNames = map[string]bool{"report.json": true, "result.json": true, "results.json": true, "reward.json": true}

// placeID is the id an outcome file's place gives: its folder's name for a
// generically named file (logs/<id>/report.json, <trial>/result.json), the
// folder above for one in a verifier/ folder (Harbor's
// <trial>/verifier/reward.json), else its file name up to the first dot
// (<id>.json).
func placeID(path string) string {
	base := filepath.Base(path)
	if !genericOutcomeNames[strings.ToLower(base)] {
		stem, _, _ := strings.Cut(base, ".")
		return stem
	}
	dir := filepath.Dir(path)
	if filepath.Base(dir) == "verifier" {
		dir = filepath.Dir(dir)
	}
	if d := filepath.Base(dir); d != "." && d != string(filepath.Separator) {
		return d
	}
	return ""
}

// sortedFields are an object's fields in the order of the document.
func sortedFields(fields map[string]jsonSpan) []namedSpan {
	out := make([]namedSpan, 0, len(fields))
	for k, v := range fields {
		out = append(out, namedSpan{k, v})
	}
	slices.SortFunc(out, func(a, b namedSpan) int { return a.off - b.off })
	return out
}

// namedSpan is an object's field: its key and value.
type namedSpan struct {
	name string
	jsonSpan
}
