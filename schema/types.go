package schema

import (
	"strconv"
	"strings"
	"time"
)

// EventKind is the closed set of event kinds.
type EventKind string

// Event kinds.
const (
	KindSystem     EventKind = "system"
	KindUser       EventKind = "user"
	KindAssistant  EventKind = "assistant"
	KindReasoning  EventKind = "reasoning"
	KindToolCall   EventKind = "tool_call"
	KindToolResult EventKind = "tool_result"
	KindContextOp  EventKind = "context_op"
	KindCompaction EventKind = "compaction"
	KindError      EventKind = "error"
)

// EventKinds lists every valid EventKind.
var EventKinds = []EventKind{KindSystem, KindUser, KindAssistant, KindReasoning, KindToolCall, KindToolResult, KindContextOp, KindCompaction, KindError}

// IsOutput reports whether events of kind k are produced by the model call
// they belong to (rather than being input to it).
func (k EventKind) IsOutput() bool {
	return k == KindAssistant || k == KindReasoning || k == KindToolCall
}

// OpKind is the closed set of context operations.
type OpKind string

// Context operations.
const (
	OpDisable      OpKind = "disable"
	OpEnable       OpKind = "enable"
	OpCompaction   OpKind = "compaction"
	OpSummary      OpKind = "summary"
	OpMasking      OpKind = "masking"
	OpTruncation   OpKind = "truncation"
	OpContinuation OpKind = "continuation"
)

// OpKinds lists every valid OpKind.
var OpKinds = []OpKind{OpDisable, OpEnable, OpCompaction, OpSummary, OpMasking, OpTruncation, OpContinuation}

// EndReason is why a run stopped.
type EndReason string

// End reasons.
const (
	EndFinished        EndReason = "finished"
	EndContextOverflow EndReason = "context_overflow"
	EndStepLimit       EndReason = "step_limit"
	EndCostLimit       EndReason = "cost_limit"
	EndError           EndReason = "error"
	EndInterrupted     EndReason = "interrupted"
	// EndStalled: the run stopped on a command that had already failed with
	// the same output (diagnose's stall rule; never explicit in a log).
	EndStalled EndReason = "stalled"
	EndUnknown EndReason = "unknown"
)

// EndReasons lists every valid EndReason.
var EndReasons = []EndReason{EndFinished, EndContextOverflow, EndStepLimit, EndCostLimit, EndError, EndInterrupted, EndStalled, EndUnknown}

// ReasonSource says how an end reason was determined.
type ReasonSource string

// Reason sources.
const (
	SourceExplicit ReasonSource = "explicit"
	SourceInferred ReasonSource = "inferred"
)

// Source is one imported file.
type Source struct {
	Path       string    `json:"path"`
	SHA256     string    `json:"sha256"`
	Format     string    `json:"format"`
	Bytes      int64     `json:"bytes"`
	IngestedAt time.Time `json:"ingested_at"`
	Runs       int64     `json:"runs"`
	Events     int64     `json:"events"`
	Rejects    int64     `json:"rejects"`
	Repairs    int64     `json:"repairs"` // text fields repaired: to valid UTF-8 (RepairUTF8), raw control characters escaped (ingest)
	// ReaderVersion is the version of the importer that read the file
	// (ingest.ReaderVersion of Format).
	ReaderVersion int64 `json:"reader_version"`
	// Outcomes are the outcome rows imported from it (an outcome file).
	Outcomes int64 `json:"outcomes"`
}

// Run is one agent session, trajectory or sample.
type Run struct {
	RunID            string       `json:"run_id"`
	ParentRunID      string       `json:"parent_run_id"` // empty unless the run is a sub-agent of another run
	SourceFormat     string       `json:"source_format"`
	SourcePath       string       `json:"source_path"`
	SourceSHA256     string       `json:"source_sha256"`
	Harness          string       `json:"harness"`
	Model            string       `json:"model"`
	ModelFamily      string       `json:"model_family"`
	TaskID           string       `json:"task_id"`
	Resolved         *bool        `json:"resolved,omitempty"`
	WindowTokens     *int64       `json:"window_tokens,omitempty"`
	StartedAt        *time.Time   `json:"started_at,omitempty"`
	EndedAt          *time.Time   `json:"ended_at,omitempty"`
	EndReason        EndReason    `json:"end_reason"`
	EndReasonSource  ReasonSource `json:"end_reason_source"`
	EndReasonDetail  string       `json:"end_reason_detail"`
	NTurns           int64        `json:"n_turns"`
	InputTokens      int64        `json:"input_tokens"` // logged, including cache reads and writes
	OutputTokens     int64        `json:"output_tokens"`
	CacheReadTokens  int64        `json:"cache_read_tokens"`
	CacheWriteTokens int64        `json:"cache_write_tokens"`
	ReasoningTokens  int64        `json:"reasoning_tokens"`
	UsageEstimated   bool         `json:"usage_estimated"` // true when per-call usage is missing and totals are estimates
	UsageCalls       int64        `json:"usage_calls"`     // model calls with logged usage (= n_turns when complete)
	CostUSD          *float64     `json:"cost_usd,omitempty"`
	EstTokens        int64        `json:"est_tokens"` // sum of est_tokens over the run's events
	Estimator        string       `json:"estimator"`
	// ClassifiedBy is the fingerprint of the default classifier
	// (actions.DefaultFingerprint) that set its tool calls' ActionClass at
	// import; "" when they carry none.
	ClassifiedBy string `json:"classified_by,omitempty"`
	// SystemMentionsManageContext: the text of one of its system events
	// contains manage_context (set at import; nil when not known).
	SystemMentionsManageContext *bool `json:"system_mentions_manage_context,omitempty"`
	// ContinuesRunID is the run a resumed or forked session continues:
	// the origin of its copied usage row with the largest turn ("" when
	// it copies none). Importers leave it and the Copied fields zero: the
	// store sets them after each import, across files (store.MarkCopies),
	// and the token totals above then leave the copied calls out.
	ContinuesRunID string `json:"continues_run_id,omitempty"`
	// CopiedCalls are the run's usage rows that copy another run's (Usage.CopyOf).
	CopiedCalls int64 `json:"copied_calls"`
	// Copied*Tokens are those rows' logged tokens: the log's own totals
	// are InputTokens + CopiedInputTokens, and so on.
	CopiedInputTokens      int64 `json:"copied_input_tokens"`
	CopiedOutputTokens     int64 `json:"copied_output_tokens"`
	CopiedCacheReadTokens  int64 `json:"copied_cache_read_tokens"`
	CopiedCacheWriteTokens int64 `json:"copied_cache_write_tokens"`
	CopiedReasoningTokens  int64 `json:"copied_reasoning_tokens"`
	// Score, OutcomeSource and LogResolved are set by the store when it
	// applies outcome files to the runs (store.ApplyOutcomes); importers
	// leave them zero and state the log's own outcome in Resolved. Score
	// is the outcome score an outcome file gives; OutcomeSource where
	// Resolved comes from (an outcome row as path:line, OutcomeFromLog,
	// or "" when unknown); LogResolved the outcome the log states.
	Score         *float64 `json:"score,omitempty"`
	OutcomeSource string   `json:"outcome_source,omitempty"`
	LogResolved   *bool    `json:"log_resolved,omitempty"`
}

// OutcomeFromLog is runs.outcome_source for a run whose resolved is what
// its own log states.
const OutcomeFromLog = "log"

// Event is one item of a run as the model saw it.
type Event struct {
	RunID     string     `json:"run_id"`
	Seq       int64      `json:"seq"`
	Turn      int64      `json:"turn"`
	TS        *time.Time `json:"ts,omitempty"`
	Kind      EventKind  `json:"kind"`
	Role      string     `json:"role"`
	ToolName  string     `json:"tool_name"`
	CallID    string     `json:"call_id"`
	ToolKey   string     `json:"tool_key"`
	Target    string     `json:"target"`
	Args      string     `json:"args"` // canonical JSON arguments of a tool call
	Chars     int64      `json:"chars"`
	EstTokens int64      `json:"est_tokens"`
	IsError   bool       `json:"is_error"`
	ExitCode  *int64     `json:"exit_code,omitempty"`
	Line      int64      `json:"line"` // 1-based line (or record index) in the source file
	Text      string     `json:"text"`
	// EnvelopeTokens are the estimated tokens of a DTOC envelope
	// {"tool_key", "tool_result", "estimated_tokens"} the log wraps a tool
	// result in: Text holds the inner result, the model saw the envelope
	// too. 0 when the log shows none.
	EnvelopeTokens int64 `json:"envelope_tokens,omitempty"`
	// ActionClass is a tool call's action class by the classifier its run's
	// ClassifiedBy names, set at import; "" for other events and when the
	// run's ClassifiedBy is "".
	ActionClass string `json:"action_class,omitempty"`
	// ErrorRule names the text rule (actions.FailureRules) by which a tool
	// result that its log gives neither an error flag nor an exit code was
	// inferred to have failed; IsError is then true. "" when IsError is as
	// logged.
	ErrorRule string `json:"error_rule,omitempty"`
}

// OutputKey is a tool_result's key in tool_outputs: its tool_key (the DTOC
// key, else the call id, else "t<seq>", as ingest sets it), else its
// call_id, else "t<seq>" (for events that did not come through ingest).
func (e *Event) OutputKey() string {
	switch {
	case e.ToolKey != "":
		return e.ToolKey
	case e.CallID != "":
		return e.CallID
	}
	return "t" + strconv.FormatInt(e.Seq, 10)
}

// SeenTokens is the event's estimated tokens as the model saw them: its
// text's and its envelope's (EstTokens + EnvelopeTokens).
func (e *Event) SeenTokens() int64 { return e.EstTokens + e.EnvelopeTokens }

// RoleToolDefinitions is the role of the event that holds the tool
// definitions (function names, descriptions and parameter schemas) a run's
// requests carried: a KindSystem event whose text is the definitions as
// logged, in canonical JSON, with est_tokens estimated from that text like
// any event. Importers whose log records the definitions emit one such event
// per run, before the first model call (turn 0); logs that do not record
// them (most CLI session logs) have none.
const RoleToolDefinitions = "tools"

// IsSystemPrompt reports whether e is part of the system prompt: a system
// event with role system or developer (any case).
func (e *Event) IsSystemPrompt() bool {
	return e.Kind == KindSystem && (strings.EqualFold(e.Role, "system") || strings.EqualFold(e.Role, "developer"))
}

// IsToolDefinitions reports whether e holds the tool definitions (see RoleToolDefinitions).
func (e *Event) IsToolDefinitions() bool {
	return e.Kind == KindSystem && e.Role == RoleToolDefinitions
}

// Usage is one model call's logged token usage.
type Usage struct {
	RunID            string     `json:"run_id"`
	Turn             int64      `json:"turn"`
	TS               *time.Time `json:"ts,omitempty"`
	Model            string     `json:"model"`
	RequestID        string     `json:"request_id"`
	InputTokens      int64      `json:"input_tokens"` // including cache reads and cache writes
	OutputTokens     int64      `json:"output_tokens"`
	CacheReadTokens  int64      `json:"cache_read_tokens"`
	CacheWriteTokens int64      `json:"cache_write_tokens"`
	ReasoningTokens  int64      `json:"reasoning_tokens"`
	Estimated        bool       `json:"estimated"`
	// CopyOf is the run whose row this one copies (a resumed or forked
	// session's log repeats the responses of the run it continues): that
	// run counts the response. "" for an original. Importers leave it
	// empty; the store sets it (store.MarkCopies). The token fields are
	// the call's as logged, a copy's too: in the usage table a copy's
	// are kept in the copied_* columns, so that sums count it once
	// (Values).
	CopyOf string `json:"copy_of_run_id,omitempty"`
}

// ToolOutput is one tool result: the unit context policies act on.
type ToolOutput struct {
	RunID     string `json:"run_id"`
	ToolKey   string `json:"tool_key"`
	CallID    string `json:"call_id"`
	ToolName  string `json:"tool_name"`
	Target    string `json:"target"`
	Turn      int64  `json:"turn"`
	Seq       int64  `json:"seq"`
	Chars     int64  `json:"chars"`
	EstTokens int64  `json:"est_tokens"`
	IsError   bool   `json:"is_error"`
}

// ContextOp is one context-management act found in a log.
type ContextOp struct {
	RunID        string `json:"run_id"`
	Seq          int64  `json:"seq"`
	Turn         int64  `json:"turn"`
	Op           OpKind `json:"op"`
	ToolKey      string `json:"tool_key"` // empty means NULL
	TokensBefore *int64 `json:"tokens_before,omitempty"`
	TokensAfter  *int64 `json:"tokens_after,omitempty"`
	Trigger      string `json:"trigger"` // e.g. "auto", "manual", "manage_context"
	Detail       string `json:"detail"`
}

// Reject is one record that could not be imported.
type Reject struct {
	SourcePath string `json:"source_path"`
	Line       int64  `json:"line"`
	Reason     string `json:"reason"`
	Raw        string `json:"raw"`
}

// MaxRejectRaw is how many bytes of a rejected record are kept.
const MaxRejectRaw = 2048
