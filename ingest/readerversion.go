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
var readerVersions = map[string]int64{
	formatSWEAgent:          2,
	formatMiniSWEAgent:      2,
	"atif":                  2,
	formatOpenAIMessages:    2,
	"otel-genai-spans":      2,
	"langfuse-trace-export": 2,
	"gptme":                 2,
	"hermes-agent":          2,
	"mistral-vibe":          2,
	"grok-build":            2,
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
