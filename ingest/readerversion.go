package ingest

// readerVersions are the importers' reader versions where they are not 1.
// A format's version is raised when its importer reads the same bytes into
// other rows (a fix in how a log is read); the sources row of every file
// records the version that read it (schema.Source.ReaderVersion), and a
// file read by an older version is read again by the next ingest, its rows
// replaced (Sink.Seen and QuickSink.Unchanged say no for it), so that a
// store does not keep a reading trajmine knows to be wrong.
//
// Version 2 of each format below: issue 29's readings. SWE-agent and
// mini-swe-agent actions are linked to their outputs, elisions are no
// longer compactions and multi-agent histories are split; and the formats
// whose logs carry no error flag get failures inferred from text
// (textFailureFormats).
//
// Version 3 of atif, gptme, mistral-vibe and grok-build, version 2 of the
// other formats from claude-code on: issue 30.12's readings. A record
// with a key that is not valid UTF-8 is rejected at its line (badKey), not
// read with that field missing, in every format read through lineReader's
// decoders or decodeRecord; an ATIF traces JSONL file whose first line is
// not a record is read as JSONL (atifIsJSONL), not rejected whole.
//
// Version 3 of claude-code, claude-code-web-export, cursor-agent-transcripts,
// factory-droid, factory-droid-exec-stream-json, copilot-cli-events,
// antigravity-cli, pi-coding-agent and openclaw-telemetry, 2 of gemini-cli,
// 4 of grok-build: issue 30.1–30.8's readings. Claude Code's metadata
// records are skipped and a type not read is named once per file
// (unreadTypes), not rejected line by line; Cursor's (and Droid's, through
// the same blocks) tool_call and tool-result blocks and blocks with text
// are read, and a transcript line's model; Droid exec's sessionId and id
// keys are read and its completion usage is the run's total; Gemini CLI's
// model messages are model calls and a type not read is named once;
// Grok Build's legacy rows are read; Copilot CLI's modelMetrics input is
// not added to its cache again, an early tool.execution_start is one call,
// and the session's run leaves out its sub-agents' tokens; Antigravity's
// harness steps are not tool calls and its tool_calls ids are read; pi
// (and OpenClaw, which reads pi's messages) makes a model call of each
// assistant entry that does not continue the response logged just before.
var readerVersions = map[string]int64{
	formatSWEAgent:          2,
	formatMiniSWEAgent:      2,
	"atif":                  3,
	formatOpenAIMessages:    2,
	"otel-genai-spans":      2,
	"langfuse-trace-export": 2,
	"gptme":                 3,
	"hermes-agent":          2,
	"mistral-vibe":          3,
	"grok-build":            4,
	"gemini-cli":            2,

	"claude-code":                    3,
	"claude-code-web-export":         3,
	"claude-agent-sdk-stream-json":   2,
	"codex-exec-json":                2,
	"pi-coding-agent":                3,
	"kimi-cli-wire":                  2,
	"openclaw-telemetry":             3,
	"antigravity-cli":                3,
	"copilot-cli-events":             3,
	"cursor-agent-transcripts":       3,
	"factory-droid":                  3,
	"factory-droid-exec-stream-json": 3,
	formatOutcomeTable:               2,
	formatSWEBenchPreds:              2,
}

// ReaderVersion is the version of the named importer's reading (1 unless
// readerVersions says otherwise). A stored file whose sources row records
// an older version (NULL: 1) is imported again.
func ReaderVersion(format string) int64 {
	if v, ok := readerVersions[format]; ok {
		return v
	}
	return 1
}
