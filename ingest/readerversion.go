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
	"grok-build":            3,

	"claude-code":                    2,
	"claude-code-web-export":         2,
	"claude-agent-sdk-stream-json":   2,
	"codex-exec-json":                2,
	"pi-coding-agent":                2,
	"kimi-cli-wire":                  2,
	"openclaw-telemetry":             2,
	"antigravity-cli":                2,
	"copilot-cli-events":             2,
	"cursor-agent-transcripts":       2,
	"factory-droid":                  2,
	"factory-droid-exec-stream-json": 2,
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
