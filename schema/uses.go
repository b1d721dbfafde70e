package schema

// Tables of stored counterfactual uses: which later model call used each
// tool output of a run that disables outputs (counterfactual.Uses, content
// and target uses; a re-enable is not a use here). trajmine ingest writes
// them after an import for the runs that have disable ops, so that
// trajmine mine profiles those runs without reading their text; a reader
// trusts a run's rows only when its uses_runs row names the run's current
// source and the reader's counterfactual.UsesVersion. With them, every
// run's behaviour profile (run_profiles), so that mine reads no events for
// its profiles at all. They are derived data, not in Tables; their names
// are only in the Table values.

// UsesRuns describes the uses_runs table: one row per run whose uses are stored.
var UsesRuns = Table{Name: "uses_runs", Doc: "runs whose tool outputs' uses are stored in output_uses (trajmine ingest, for runs with disable ops)", Columns: []Column{
	col(ColRunID, Varchar, "the run (runs.run_id)"),
	col(ColSourceSHA256, Varchar, "the source the run was imported from when its uses were computed (runs.source_sha256)"),
	col("uses_version", BigInt, "counterfactual.UsesVersion of the code that computed them"),
	col("n_uses", BigInt, "its output_uses rows"),
}}

// OutputUses describes the output_uses table: one row per use of a tool output.
var OutputUses = Table{Name: "output_uses", Doc: "one row per use of a tool output by a later model call (counterfactual.Uses, content or target), for the runs in uses_runs", Columns: []Column{
	col(ColRunID, Varchar, "the run (runs.run_id)"),
	col("output_seq", BigInt, "seq of the tool_result event that was used"),
	col("call", BigInt, "the model call whose output used it (its prompt needed the output)"),
	col("kind", Varchar, "content (distinctive words reappear) or target (a later call acts on the same target)"),
}}

// RunProfiles describes the run_profiles table: one row per run, its
// context-management profile (behavior.RunProfile as JSON) as trajmine
// mine pools it, written by trajmine ingest after the uses (which the
// profiles of runs that disable outputs read). A reader trusts a row only
// when it names the run's current source and the reader's fingerprint
// (analysis.ProfileFingerprint: behavior.ProfileVersion,
// counterfactual.UsesVersion and the default action classifier's).
var RunProfiles = Table{Name: "run_profiles", Doc: "every run's context-management profile (behavior.RunProfile as JSON), for trajmine mine (trajmine ingest)", Columns: []Column{
	col(ColRunID, Varchar, "the run (runs.run_id)"),
	col(ColSourceSHA256, Varchar, "the source the run was imported from when its profile was computed (runs.source_sha256)"),
	col("profiled_by", Varchar, "analysis.ProfileFingerprint of the code that computed it"),
	col("profile", Varchar, "behavior.RunProfile as JSON (its json tags; DuckDB's json functions read it)"),
}}

// IngestDerived lists the tables trajmine ingest derives after an import,
// in the order it writes them (a lake's importer commits them with
// Tables).
var IngestDerived = []Table{UsesRuns, OutputUses, RunProfiles}
