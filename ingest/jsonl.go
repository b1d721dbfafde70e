package ingest

import (
	"io"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"
)

// Reading a JSONL file's records: the decoding and the rejection of a line
// that is not a record, which the line-by-line importers share.

// jsonLines is File.Lines over JSONL records: fn gets each line decoded into
// a fresh T. A line that does not decode is rejected as "invalid JSON:
// <error>" and fn does not see it.
func jsonLines[T any](f *File, r io.Reader, fn func(line int64, raw []byte, rec *T) error) error {
	return f.Lines(r, func(line int64, raw []byte) error {
		var rec T
		if err := json.Unmarshal(raw, &rec); err != nil {
			return f.Reject(line, "invalid JSON: "+clipErr(err), raw)
		}
		return fn(line, raw, &rec)
	})
}

// decodeRecord decodes a JSONL line that must hold an object into v. It
// returns why the line is to be rejected ("record is not a JSON object",
// "invalid JSON: <clipped error>"), or "" when it decoded.
func decodeRecord(raw []byte, v any) string {
	if len(raw) == 0 || raw[0] != '{' {
		return "record is not a JSON object"
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return "invalid JSON: " + clipErr(err)
	}
	return ""
}
