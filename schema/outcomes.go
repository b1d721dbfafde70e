package schema

import (
	"fmt"
	"math"
)

// Outcome files: what users keep beside their logs to say which runs solved
// their task (a SWE-bench harness report.json, a submission's results.json,
// Harbor and terminal-bench results, a plain CSV). Each is imported into
// the outcomes table, one row per outcome it states, keyed by what the
// file names (a run id, a task id, an id its place in the tree gives, or a
// folder); the store applies the rows to the runs after every import
// (store.ApplyOutcomes), whichever was imported first.

// OutcomeKey is what an outcome row's key names.
type OutcomeKey string

// The keys of outcome rows.
const (
	// KeyRunID: a run's id (runs.run_id).
	KeyRunID OutcomeKey = "run_id"
	// KeyTaskID: a task or instance id (runs.task_id).
	KeyTaskID OutcomeKey = "task_id"
	// KeyPath: an id the outcome file's place gives (logs/<id>/report.json,
	// a Harbor trial folder): a run matches when a folder of its path, or
	// its file name up to the first dot, is the id, or its task id is.
	KeyPath OutcomeKey = "path"
	// KeyScope: a folder (as paths are stored): every run under it. A
	// results.json that lists only the resolved ids says so of the rest.
	KeyScope OutcomeKey = "scope"
)

// OutcomeKeys lists every OutcomeKey.
var OutcomeKeys = []OutcomeKey{KeyRunID, KeyTaskID, KeyPath, KeyScope}

// Outcome is one outcome an outcome file states.
type Outcome struct {
	SourcePath   string     `json:"source_path"`
	SourceSHA256 string     `json:"source_sha256"`
	Line         int64      `json:"line"` // 1-based line of the record in the file
	KeyKind      OutcomeKey `json:"key_kind"`
	Key          string     `json:"key"`
	Resolved     *bool      `json:"resolved,omitempty"`
	Score        *float64   `json:"score,omitempty"`
	Detail       string     `json:"detail"` // the file's own words for it: "resolved_ids", "no_generation", "reward 0.5"
	// NRuns and NApplied are set by the store (store.ApplyOutcomes): the
	// runs the row's key matches, and those whose outcome it is.
	NRuns    int64 `json:"n_runs"`
	NApplied int64 `json:"n_applied"`
}

// Outcomes describes the outcomes table.
var Outcomes = Table{Name: TableOutcomes, Doc: "one row per outcome an outcome file states (SWE-bench reports and results, Harbor and terminal-bench results, predictions, CSV/JSONL tables); applied to runs.resolved and runs.score after every import", Columns: []Column{
	col(ColSourcePath, Varchar, "the outcome file (sources.source_path)"),
	col(ColSourceSHA256, Varchar, "sha256 of that file"),
	col("line", BigInt, "1-based line of the record in the file"),
	col("key_kind", Varchar, "what key names: run_id (runs.run_id), task_id (runs.task_id), path (an id the file's place gives: a folder of a run's path, its file name up to the first dot, or its task id), scope (a folder: every run under it)"),
	col("key", Varchar, "the run id, task id, path id or folder"),
	nul("resolved", Boolean, "the outcome it states; NULL when it states only a score"),
	nul("score", Double, "the score it states (a reward, a pass rate); NULL when none"),
	col("detail", Varchar, "the file's own words for it (resolved_ids, no_generation, is_resolved, reward 0.5, …)"),
	col("n_runs", BigInt, "runs its key matches (0: it matches no run), set after every import"),
	col("n_applied", BigInt, "runs whose resolved or score it is (a nearer or more specific row wins the others), set after every import"),
}}

// Values returns o's fields in Outcomes column order.
func (o *Outcome) Values() []any {
	return []any{o.SourcePath, o.SourceSHA256, o.Line, string(o.KeyKind), o.Key, ptrB(o.Resolved), ptrF(o.Score), o.Detail, o.NRuns, o.NApplied}
}

// validateOutcome checks an outcome row: a file, a known key kind, a key,
// and an outcome (resolved or a finite score).
func validateOutcome(o *Outcome) error {
	if o.SourcePath == "" {
		return fmt.Errorf("outcome: empty source_path")
	}
	known := false
	for _, k := range OutcomeKeys {
		known = known || o.KeyKind == k
	}
	if !known {
		return fmt.Errorf("outcome %s:%d: invalid key_kind %q", o.SourcePath, o.Line, o.KeyKind)
	}
	if o.Key == "" {
		return fmt.Errorf("outcome %s:%d: empty key", o.SourcePath, o.Line)
	}
	if o.Resolved == nil && o.Score == nil {
		return fmt.Errorf("outcome %s:%d: neither resolved nor score", o.SourcePath, o.Line)
	}
	if o.Score != nil && (math.IsNaN(*o.Score) || math.IsInf(*o.Score, 0)) {
		return fmt.Errorf("outcome %s:%d: score %v not finite", o.SourcePath, o.Line, *o.Score)
	}
	if o.Line < 0 || o.NRuns < 0 || o.NApplied < 0 || o.NApplied > o.NRuns {
		return fmt.Errorf("outcome %s:%d: negative line or counts", o.SourcePath, o.Line)
	}
	return nil
}
