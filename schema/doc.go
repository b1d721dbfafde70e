// Package schema is trajmine's canonical trajectory model: the record types every
// importer produces (Run, Event, Usage, ToolOutput, ContextOp, Reject, Source,
// and Outcome for the outcome files beside the logs),
// their closed enums, and the table definitions from which both the DuckDB DDL
// and the Arrow schemas are generated.
//
// One definition: each table is a []Column in Tables. CreateTableSQL and
// ArrowSchema derive from it, and each record type's Values method returns its
// fields in exactly that column order (a test checks count and Go types), so a
// column is added in one place and every consumer follows.
// DiagTables (diag_runs, diag_calls, diag_rent; rows DiagRun, DiagCall,
// DiagRentRow) are defined the same way; trajmine diagnose writes them, so
// they are not in Tables.
//
// Invariants (checked by Validate):
//   - every record names a run; seq is unique and increasing within a run;
//   - turn is the 0-based index of the model call an event belongs to: outputs
//     (assistant, reasoning, tool_call) carry the index of the call that produced
//     them, inputs (user, tool_result, …) the index of the first call that sees them;
//   - token counts are non-negative; logged usage is never mixed with estimates
//     (estimates live in est_tokens columns only).
//
// The package is a leaf: it imports nothing from trajmine and does no I/O.
package schema
