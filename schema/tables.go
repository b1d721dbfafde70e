package schema

import (
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// ColType is a column's logical type.
type ColType int

// Column types.
const (
	Varchar ColType = iota
	BigInt
	Double
	Boolean
	Timestamp
)

func (t ColType) String() string {
	switch t {
	case Varchar:
		return "VARCHAR"
	case BigInt:
		return "BIGINT"
	case Double:
		return "DOUBLE"
	case Boolean:
		return "BOOLEAN"
	case Timestamp:
		return "TIMESTAMP"
	}
	return fmt.Sprintf("ColType(%d)", int(t))
}

// Arrow returns the Arrow data type of t.
func (t ColType) Arrow() arrow.DataType {
	switch t {
	case BigInt:
		return arrow.PrimitiveTypes.Int64
	case Double:
		return arrow.PrimitiveTypes.Float64
	case Boolean:
		return arrow.FixedWidthTypes.Boolean
	case Timestamp:
		return &arrow.TimestampType{Unit: arrow.Microsecond}
	}
	return arrow.BinaryTypes.String
}

// Column is one column of a table.
type Column struct {
	Name     string
	Type     ColType
	Nullable bool
	Doc      string
	// Compression names the DuckDB compression the column is stored with
	// ("" = DuckDB's choice). Long text is stored with zstd: DuckDB keeps
	// uncompressed strings over 4 KB in overflow blocks, and reading them
	// back costs 3–5× a zstd column's decompression (BENCHMARKS.md).
	Compression string
}

// Table is a named list of columns.
type Table struct {
	Name    string
	Columns []Column
	Doc     string
}

// Table names.
const (
	TableSources     = "sources"
	TableRuns        = "runs"
	TableEvents      = "events"
	TableUsage       = "usage"
	TableToolOutputs = "tool_outputs"
	TableContextOps  = "context_ops"
	TableRejects     = "rejects"
	TableOutcomes    = "outcomes"
)

// Column names that other packages refer to.
const (
	ColRunID        = "run_id"
	ColSeq          = "seq"
	ColTurn         = "turn"
	ColSourcePath   = "source_path"
	ColSourceSHA256 = "source_sha256"
	ColSourceFormat = "source_format"
	ColModelFamily  = "model_family"
)

func col(name string, t ColType, doc string) Column { return Column{Name: name, Type: t, Doc: doc} }
func nul(name string, t ColType, doc string) Column {
	return Column{Name: name, Type: t, Nullable: true, Doc: doc}
}

// zstd stores c compressed with zstd.
func zstd(c Column) Column { c.Compression = "zstd"; return c }

// Sources describes the sources table: one row per imported file.
var Sources = Table{Name: TableSources, Doc: "one row per imported file; a file whose sha256 is here is not imported again", Columns: []Column{
	col(ColSourcePath, Varchar, "path as given to ingest"),
	col(ColSourceSHA256, Varchar, "sha256 of the file's bytes"),
	col(ColSourceFormat, Varchar, "importer that read it"),
	col("bytes", BigInt, "file size"),
	col("ingested_at", Timestamp, "when it was imported"),
	col("n_runs", BigInt, "runs imported from it"),
	col("n_events", BigInt, "events imported from it"),
	col("n_rejects", BigInt, "records rejected"),
	col("n_repairs", BigInt, "text fields repaired: invalid UTF-8 replaced by U+FFFD, raw control characters in JSON strings escaped (the record was kept)"),
	nul("reader_version", BigInt, "the version of the importer that read it (ingest.ReaderVersion of source_format); a file read by an older version is read again by the next ingest, its rows replaced. NULL in databases imported before the column existed: version 1"),
	nul("n_outcomes", BigInt, "outcome rows imported from it (an outcome file: table outcomes); NULL in databases imported before the column existed"),
}}

// Runs describes the runs table.
var Runs = Table{Name: TableRuns, Doc: "one row per agent session, trajectory or sample", Columns: []Column{
	col(ColRunID, Varchar, "the log's own session id (suffixed @sha8 if another file already used it)"),
	nul("parent_run_id", Varchar, "the run that spawned this sub-agent run"),
	col(ColSourceFormat, Varchar, "importer name"),
	col(ColSourcePath, Varchar, "file the run came from"),
	col(ColSourceSHA256, Varchar, "sha256 of that file"),
	col("harness", Varchar, "agent harness (claude-code, codex-cli, …)"),
	col("model", Varchar, "model name as logged (most used if several)"),
	col(ColModelFamily, Varchar, "normalised model family"),
	col("task_id", Varchar, "task or instance id when known"),
	nul("resolved", Boolean, "task outcome when known"),
	nul("window_tokens", BigInt, "configured context window when logged"),
	nul("started_at", Timestamp, "first timestamp"),
	nul("ended_at", Timestamp, "last timestamp"),
	col("end_reason", Varchar, "finished, context_overflow, step_limit, cost_limit, error, interrupted, stalled (inferred only), unknown"),
	col("end_reason_source", Varchar, "explicit (the log says) or inferred"),
	col("end_reason_detail", Varchar, "the log's own words for the end"),
	col("n_turns", BigInt, "model calls"),
	col("input_tokens", BigInt, "logged prompt tokens summed over calls (or the log's own stated total when larger), including cache reads and writes; each API response counted once: a resumed or forked session's calls copied from the run it continues are left out (copied_input_tokens), so sum() over runs is right"),
	col("output_tokens", BigInt, "logged output tokens summed over calls, copied calls left out (copied_output_tokens)"),
	col("cache_read_tokens", BigInt, "logged cache-read tokens summed over calls, copied calls left out (copied_cache_read_tokens)"),
	col("cache_write_tokens", BigInt, "logged cache-write tokens summed over calls, copied calls left out (copied_cache_write_tokens)"),
	col("reasoning_tokens", BigInt, "logged reasoning tokens summed over calls, copied calls left out (copied_reasoning_tokens)"),
	col("usage_estimated", Boolean, "true when the log has no per-call usage"),
	col("usage_calls", BigInt, "model calls with logged usage; totals cover only these (= n_turns when complete)"),
	nul("cost_usd", Double, "logged cost"),
	col("est_tokens", BigInt, "sum of est_tokens over the run's events"),
	col("estimator", Varchar, "token estimator used for est_tokens"),
	nul("classified_by", Varchar, "fingerprint of the default action classifier (actions.DefaultFingerprint) that set its tool calls' action_class at import; NULL when none was set (databases imported before the column existed, or the run's harness changed after its first call)"),
	nul("system_mentions_manage_context", Boolean, "whether the text of one of its system events contains manage_context (DTOC's tool offered in the prompt), set at import; NULL in databases imported before the column existed"),
	nul("continues_run_id", Varchar, "the run this one resumed or forked: the run of its copied usage row with the largest turn (usage.copy_of_run_id); NULL when it copies none. parent_run_id is for sub-agents only"),
	col("copied_calls", BigInt, "usage rows of the run that are copies of another run's (usage.copy_of_run_id set): counted in that run, not in this run's token totals; n_turns and usage_calls include them"),
	col("copied_input_tokens", BigInt, "input tokens of the copied calls: the log's own total is input_tokens + copied_input_tokens"),
	col("copied_output_tokens", BigInt, "output tokens of the copied calls"),
	col("copied_cache_read_tokens", BigInt, "cache-read tokens of the copied calls"),
	col("copied_cache_write_tokens", BigInt, "cache-write tokens of the copied calls"),
	col("copied_reasoning_tokens", BigInt, "reasoning tokens of the copied calls"),
	nul("score", Double, "the run's outcome score from an outcome file (a reward, a pass rate; table outcomes), set by ingest after each import; NULL when none gives one"),
	nul("outcome_source", Varchar, "where resolved comes from: an outcome file's row as path:line (table outcomes; else the row that gave score), 'log' when it is what the run's own log states, NULL when no outcome is known. Set by ingest after each import (store.ApplyOutcomes)"),
	nul("log_resolved", Boolean, "the outcome the run's own log states (what resolved was at import); NULL when the log states none. An outcome file's row overrides it in resolved, and resolved returns to it when no row matches any more"),
}}

// Events describes the events table.
var Events = Table{Name: TableEvents, Doc: "ordered items of each run as the model saw them", Columns: []Column{
	col(ColRunID, Varchar, ""),
	col(ColSeq, BigInt, "0-based order within the run"),
	col(ColTurn, BigInt, "index of the model call the event belongs to"),
	nul("ts", Timestamp, "timestamp when logged"),
	col("kind", Varchar, "system, user, assistant, reasoning, tool_call, tool_result, context_op, compaction, error"),
	col("role", Varchar, "role as logged"),
	col("tool_name", Varchar, "tool of a call or result"),
	col("call_id", Varchar, "links a tool_call to its tool_result"),
	col("tool_key", Varchar, "tool_outputs key of a tool_result (DTOC key, else call id)"),
	col("target", Varchar, "normalised thing a tool call acted on"),
	zstd(col("args", Varchar, "canonical JSON arguments of a tool call")),
	col("chars", BigInt, "characters (runes) of text"),
	col("est_tokens", BigInt, "estimated tokens of text"),
	col("is_error", Boolean, "tool result or event marked as error"),
	nul("exit_code", BigInt, "exit code of a command when logged"),
	col("line", BigInt, "line or record number in the source file"),
	zstd(col("text", Varchar, "the text (tool results: the output as the model saw it)")),
	col("envelope_tokens", BigInt, "estimated tokens of the DTOC envelope {tool_key, tool_result, estimated_tokens} around a tool result, as logged (text holds the inner result); 0 when none, NULL in databases imported before the column existed"),
	nul("action_class", Varchar, "action class of a tool_call by the default rules (trajmine classes), set at import by the classifier its run's classified_by names; NULL for other events and when classified_by is NULL"),
	nul("error_rule", Varchar, "the text rule (actions.FailureRules: traceback, command-not-found, exit-code, …) by which a tool_result whose log has no error flag or exit code for it was inferred to have failed (is_error is then true); NULL when is_error is as logged, and in databases imported before the column existed"),
}}

// UsageTable describes the usage table.
var UsageTable = Table{Name: TableUsage, Doc: "one row per model call, as logged, de-duplicated; each API response's tokens counted once: on a copy (copy_of_run_id set) they are in the copied_* columns", Columns: []Column{
	col(ColRunID, Varchar, ""),
	col(ColTurn, BigInt, "model call index"),
	nul("ts", Timestamp, ""),
	col("model", Varchar, ""),
	col("request_id", Varchar, "the log's response/message id"),
	col("input_tokens", BigInt, "prompt tokens including cache reads and writes; 0 on a copy (copied_input_tokens)"),
	col("output_tokens", BigInt, "final output tokens; 0 on a copy"),
	col("cache_read_tokens", BigInt, "0 on a copy"),
	col("cache_write_tokens", BigInt, "0 on a copy"),
	col("reasoning_tokens", BigInt, "0 on a copy"),
	col("estimated", Boolean, "true when derived from run totals, not logged per call"),
	nul("copy_of_run_id", Varchar, "set when the row is a copy: another run holds a row with the same request id and the same input, output and cache tokens and ended first (store.CopiesSQL; a resumed or forked session's log repeats its origin's responses); the run it names counts the response. NULL for an original. Set by ingest after each import"),
	col("copied_input_tokens", BigInt, "a copy's logged input tokens (its input_tokens is 0); 0 on an original: the call's logged input is input_tokens + copied_input_tokens"),
	col("copied_output_tokens", BigInt, "a copy's logged output tokens; 0 on an original"),
	col("copied_cache_read_tokens", BigInt, "a copy's logged cache-read tokens; 0 on an original"),
	col("copied_cache_write_tokens", BigInt, "a copy's logged cache-write tokens; 0 on an original"),
	col("copied_reasoning_tokens", BigInt, "a copy's logged reasoning tokens; 0 on an original"),
}}

// ToolOutputs describes the tool_outputs table.
var ToolOutputs = Table{Name: TableToolOutputs, Doc: "one row per tool result: the unit context policies act on", Columns: []Column{
	col(ColRunID, Varchar, ""),
	col("tool_key", Varchar, "DTOC key when the log has one, else the call id, else run-local t<seq>"),
	col("call_id", Varchar, ""),
	col("tool_name", Varchar, ""),
	col("target", Varchar, "normalised target of the call"),
	col(ColTurn, BigInt, "first model call that sees the output"),
	col(ColSeq, BigInt, "seq of the tool_result event"),
	col("chars", BigInt, ""),
	col("est_tokens", BigInt, ""),
	col("is_error", Boolean, ""),
}}

// ContextOps describes the context_ops table.
var ContextOps = Table{Name: TableContextOps, Doc: "context-management acts found in logs", Columns: []Column{
	col(ColRunID, Varchar, ""),
	col(ColSeq, BigInt, "seq of the event that carries the op"),
	col(ColTurn, BigInt, ""),
	col("op", Varchar, "disable, enable, compaction, summary, masking, truncation, continuation"),
	nul("tool_key", Varchar, "the tool output acted on (DTOC)"),
	nul("tokens_before", BigInt, "prompt tokens before the op when logged"),
	nul("tokens_after", BigInt, "prompt tokens after the op when logged"),
	col("trigger", Varchar, "auto, manual, manage_context, …"),
	col("detail", Varchar, ""),
}}

// Rejects describes the rejects table.
var Rejects = Table{Name: TableRejects, Doc: "records that could not be imported", Columns: []Column{
	col(ColSourcePath, Varchar, ""),
	col("line", BigInt, "1-based line or record number"),
	col("reason", Varchar, ""),
	col("raw", Varchar, "the record, truncated"),
}}

// Tables lists every table in creation order.
var Tables = []Table{Sources, Runs, Events, UsageTable, ToolOutputs, ContextOps, Rejects, Outcomes}

// TableByName returns the named table.
func TableByName(name string) (Table, bool) {
	for _, t := range Tables {
		if t.Name == name {
			return t, true
		}
	}
	return Table{}, false
}

// ColumnNames returns t's column names in order.
func (t Table) ColumnNames() []string {
	out := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = c.Name
	}
	return out
}

// CreateTableSQL returns the DuckDB DDL for t, e.g.
//
//	CREATE TABLE IF NOT EXISTS rejects (
//	  source_path VARCHAR NOT NULL,
//	  line BIGINT NOT NULL,
//	  …
//	);
func (t Table) CreateTableSQL() string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE IF NOT EXISTS %s (\n", t.Name)
	for i, c := range t.Columns {
		fmt.Fprintf(&b, "  %s %s", c.Name, c.Type)
		if !c.Nullable {
			b.WriteString(" NOT NULL")
		}
		if c.Compression != "" {
			b.WriteString(" USING COMPRESSION " + c.Compression)
		}
		if i < len(t.Columns)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString(");")
	return b.String()
}

// ArrowSchema returns the Arrow schema of t.
func (t Table) ArrowSchema() *arrow.Schema {
	fields := make([]arrow.Field, len(t.Columns))
	for i, c := range t.Columns {
		md := arrow.Metadata{}
		if c.Doc != "" {
			md = arrow.NewMetadata([]string{"doc"}, []string{c.Doc})
		}
		fields[i] = arrow.Field{Name: c.Name, Type: c.Type.Arrow(), Nullable: c.Nullable, Metadata: md}
	}
	return arrow.NewSchema(fields, nil)
}

// nullable helpers turn zero-able Go values into driver values (nil = NULL).
func strOrNil(s string) any {
	if s == "" {
		return nil
	}
	return s
}
func ptrI(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}
func ptrF(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
func ptrB(p *bool) any {
	if p == nil {
		return nil
	}
	return *p
}
func ptrT(p *time.Time) any {
	if p == nil {
		return nil
	}
	return p.UTC()
}

// Values returns s's fields in Sources column order.
func (s *Source) Values() []any {
	return []any{s.Path, s.SHA256, s.Format, s.Bytes, s.IngestedAt.UTC(), s.Runs, s.Events, s.Rejects, s.Repairs, s.ReaderVersion, s.Outcomes}
}

// Values returns r's fields in Runs column order. A run whose
// OutcomeSource is "" is an importer's record: its Resolved is what its
// log states, stored as log_resolved too, with outcome_source 'log' when
// it is set.
func (r *Run) Values() []any {
	logResolved, source := r.LogResolved, r.OutcomeSource
	if source == "" {
		logResolved = r.Resolved
		if r.Resolved != nil {
			source = OutcomeFromLog
		}
	}
	return []any{r.RunID, strOrNil(r.ParentRunID), r.SourceFormat, r.SourcePath, r.SourceSHA256, r.Harness,
		r.Model, r.ModelFamily, r.TaskID, ptrB(r.Resolved), ptrI(r.WindowTokens), ptrT(r.StartedAt), ptrT(r.EndedAt),
		string(r.EndReason), string(r.EndReasonSource), r.EndReasonDetail, r.NTurns, r.InputTokens, r.OutputTokens,
		r.CacheReadTokens, r.CacheWriteTokens, r.ReasoningTokens, r.UsageEstimated, r.UsageCalls, ptrF(r.CostUSD), r.EstTokens, r.Estimator,
		strOrNil(r.ClassifiedBy), ptrB(r.SystemMentionsManageContext), strOrNil(r.ContinuesRunID), r.CopiedCalls,
		r.CopiedInputTokens, r.CopiedOutputTokens, r.CopiedCacheReadTokens, r.CopiedCacheWriteTokens, r.CopiedReasoningTokens,
		ptrF(r.Score), strOrNil(source), ptrB(logResolved)}
}

// Values returns e's fields in Events column order.
func (e *Event) Values() []any {
	return []any{e.RunID, e.Seq, e.Turn, ptrT(e.TS), string(e.Kind), e.Role, e.ToolName, e.CallID, e.ToolKey,
		e.Target, e.Args, e.Chars, e.EstTokens, e.IsError, ptrI(e.ExitCode), e.Line, e.Text, e.EnvelopeTokens, strOrNil(e.ActionClass), strOrNil(e.ErrorRule)}
}

// Values returns u's fields in UsageTable column order. A copy's tokens
// (CopyOf set) go to the copied_* columns and its counted ones are 0.
func (u *Usage) Values() []any {
	counted := [5]int64{u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.ReasoningTokens}
	var copied [5]int64
	if u.CopyOf != "" {
		counted, copied = copied, counted
	}
	return []any{u.RunID, u.Turn, ptrT(u.TS), u.Model, u.RequestID, counted[0], counted[1],
		counted[2], counted[3], counted[4], u.Estimated,
		strOrNil(u.CopyOf), copied[0], copied[1], copied[2], copied[3], copied[4]}
}

// Values returns o's fields in ToolOutputs column order.
func (o *ToolOutput) Values() []any {
	return []any{o.RunID, o.ToolKey, o.CallID, o.ToolName, o.Target, o.Turn, o.Seq, o.Chars, o.EstTokens, o.IsError}
}

// Values returns c's fields in ContextOps column order.
func (c *ContextOp) Values() []any {
	return []any{c.RunID, c.Seq, c.Turn, string(c.Op), strOrNil(c.ToolKey), ptrI(c.TokensBefore), ptrI(c.TokensAfter), c.Trigger, c.Detail}
}

// Values returns r's fields in Rejects column order.
func (r *Reject) Values() []any {
	return []any{r.SourcePath, r.Line, r.Reason, r.Raw}
}
