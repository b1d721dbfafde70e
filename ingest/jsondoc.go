package ingest

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"
)

// Whole-document JSON, for the importers that read a file as one JSON value
// and reject its problems at their lines: the document trimmed of a BOM and
// white space (jsonDoc), values split off with their offsets (jsonSpan,
// objectFields, arrayElems), offsets turned into lines (lineIndex), and
// decoding errors turned into a line and a short reason. Values are split with
// encoding/json's Decoder, whose syntax errors carry the offset; skipValue and
// skipRest pass over a value token by token, enter steps into an object or
// array and nextKey reads an object's keys (Detect, on a head cut short).

// jsonSpan is a JSON value and the byte offset where it starts in the file.
type jsonSpan struct {
	raw []byte
	off int
}

// jsonDoc is a file read as one JSON document.
type jsonDoc struct {
	data    []byte    // the file
	start   int       // offset of the document's first byte (after a BOM and white space)
	root    jsonSpan  // the document, without the white space around it; empty for a blank file
	ix      lineIndex // lines of data, once index made them
	indexed bool
}

// index returns the lines of the file, found on first use (a document
// read without a reject or a line to give needs none).
func (d *jsonDoc) index() lineIndex {
	if !d.indexed {
		d.ix, d.indexed = newLineIndex(d.data), true
	}
	return d.ix
}

// newJSONDoc finds the document in data.
func newJSONDoc(data []byte) *jsonDoc {
	d := &jsonDoc{data: data}
	if bytes.HasPrefix(data, utf8BOM) {
		d.start = len(utf8BOM)
	}
	d.start += len(data[d.start:]) - len(bytes.TrimLeft(data[d.start:], " \t\r\n"))
	d.root = jsonSpan{raw: bytes.TrimRight(data[d.start:], " \t\r\n"), off: d.start}
	return d
}

// line is the 1-based line of offset off of the file.
func (d *jsonDoc) line(off int) int64 { return d.index().line(off) }

// errLine is the line of err, a syntax error from splitting or decoding the
// document (its offset counts from the document's start): the error's line,
// the last line with data when the document is cut off, else 1.
func (d *jsonDoc) errLine(err error) int64 {
	var se *stdjson.SyntaxError
	var xe *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return d.line(d.start + int(se.Offset))
	case errors.As(err, &xe):
		return d.line(d.start + int(xe.Offset))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return d.line(d.start + len(d.root.raw) - 1)
	}
	return 1
}

// readDocument is reading primitive 2 of 2 (the other is lineReader,
// lines.go): it reads the whole file once into a jsonDoc, whose offsets
// give the line of any value (d.line) and of any decoding error
// (d.errLine, d.decode), so that what is wrong is rejected at its line. It
// does not check that the file is JSON (readJSONDoc does): a format that is
// not (aider's Markdown, CSV tables) reads d.data.
func readDocument(f *File, r io.Reader) (*jsonDoc, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", f.Path(), err)
	}
	return newJSONDoc(data), nil
}

// decode decodes the whole document into v. When it does not decode, the
// problem is rejected at its line ("invalid JSON: <why>", the exact offset
// of a syntax error found again with encoding/json) and ok is false.
func (d *jsonDoc) decode(f *File, v any) (ok bool, err error) {
	data, ix := trimBOM(d.data), d.index()
	derr := json.Unmarshal(data, v)
	if derr == nil {
		return true, nil
	}
	if len(data) < len(d.data) { // offsets count from after the BOM
		ix = newLineIndex(data)
	}
	derr = exactSyntaxErr(derr, data)
	return false, f.Reject(decodeErrLine(derr, data, ix), "invalid JSON: "+decodeErrText(derr), data)
}

// readJSONDoc is readDocument for a file that must be one JSON value. It
// returns nil for a file of white space only, and nil after rejecting a
// document that is not valid JSON (at the line of the syntax error). The
// document is decoded once in full to validate it: objectFields and
// arrayElems split values with a json.Decoder, which does not check the
// values it skips.
func readJSONDoc(f *File, r io.Reader) (*jsonDoc, error) {
	d, err := readDocument(f, r)
	if err != nil {
		return nil, err
	}
	if len(d.root.raw) == 0 {
		return nil, nil
	}
	var v any
	if err := json.Unmarshal(d.root.raw, &v); err != nil {
		return nil, d.syntax(f, err)
	}
	return d, nil
}

// syntax records the document's syntax error as one reject at its line.
func (d *jsonDoc) syntax(f *File, err error) error {
	return f.Reject(d.errLine(err), "invalid JSON: "+syntaxReason(err), d.data)
}

// object splits the document's top-level object into fields; ok is false
// (and the problem rejected) when it is not a valid object.
func (d *jsonDoc) object(f *File) (map[string]jsonSpan, bool, error) {
	if d.root.raw[0] != '{' {
		return nil, false, f.Reject(1, "expected a JSON object", d.data)
	}
	fields, err := objectFields(d.root)
	if err != nil {
		return nil, false, d.syntax(f, err)
	}
	return fields, true, nil
}

// array returns the elements of the top-level field key, which must be an
// array; ok is false (and the problem rejected) when it is not.
func (d *jsonDoc) array(f *File, fields map[string]jsonSpan, key string) ([]jsonSpan, bool, error) {
	s, found := fields[key]
	if !found || len(s.raw) == 0 || s.raw[0] != '[' {
		return nil, false, f.Reject(1, "no "+key+" array", d.data)
	}
	elems, err := arrayElems(s)
	if err != nil {
		return nil, false, d.syntax(f, err)
	}
	return elems, true, nil
}

// decodeElem decodes the array element el, named by the format what and
// its index i (e.g. "messages[%d]"), into v; ok is false when it is not an
// object or does not decode, and it has then been rejected at line.
func decodeElem(f *File, line int64, what string, i int, el jsonSpan, v any) (ok bool, err error) {
	if el.raw[0] != '{' {
		return false, f.Reject(line, fmt.Sprintf(what+" is not an object", i), el.raw)
	}
	if err := json.Unmarshal(el.raw, v); err != nil {
		return false, f.Reject(line, fmt.Sprintf(what+": %s", i, clipErr(err)), el.raw)
	}
	return true, nil
}

// decodeElems decodes each of the elements elems of document d into a fresh
// T and calls fn with its index, line and span and the value; an element
// that is not an object or does not decode is rejected (decodeElem, what
// naming it) and fn does not see it.
func decodeElems[T any](f *File, d *jsonDoc, elems []jsonSpan, what string, fn func(i int, line int64, el jsonSpan, v *T) error) error {
	for i, el := range elems {
		line := d.line(el.off)
		var v T
		if ok, err := decodeElem(f, line, what, i, el, &v); !ok {
			if err != nil {
				return err
			}
			continue
		}
		if err := fn(i, line, el, &v); err != nil {
			return err
		}
	}
	return nil
}

// objectFields splits a JSON object into its fields (last duplicate wins).
func objectFields(s jsonSpan) (map[string]jsonSpan, error) {
	out := map[string]jsonSpan{}
	err := eachMember(s, '{', "object", func(dec *stdjson.Decoder) error {
		kt, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := kt.(string)
		v, err := nextSpan(dec, s.off)
		if err != nil {
			return err
		}
		out[key] = v
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// arrayElems splits a JSON array into its elements.
func arrayElems(s jsonSpan) ([]jsonSpan, error) {
	var out []jsonSpan
	err := eachMember(s, '[', "array", func(dec *stdjson.Decoder) error {
		v, err := nextSpan(dec, s.off)
		if err != nil {
			return err
		}
		out = append(out, v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// eachMember reads the object or array s (open is its delimiter, kind its
// name in errors), calling member with the decoder at each of its members,
// and checks that nothing follows it.
func eachMember(s jsonSpan, open stdjson.Delim, kind string, member func(dec *stdjson.Decoder) error) error {
	dec := stdjson.NewDecoder(bytes.NewReader(s.raw))
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if t != open {
		return errors.New("not a JSON " + kind)
	}
	for dec.More() {
		if err := member(dec); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the JSON " + kind)
	}
	return nil
}

// nextSpan decodes the value at the decoder into a span; base is the offset
// of the value being split.
func nextSpan(dec *stdjson.Decoder, base int) (jsonSpan, error) {
	var v stdjson.RawMessage
	if err := dec.Decode(&v); err != nil {
		return jsonSpan{}, err
	}
	end := int(dec.InputOffset())
	return jsonSpan{raw: v, off: base + end - len(v)}, nil
}

// lineIndex maps byte offsets to 1-based line numbers.
type lineIndex []int

func newLineIndex(data []byte) lineIndex {
	var ix lineIndex
	for i, c := range data {
		if c == '\n' {
			ix = append(ix, i)
		}
	}
	return ix
}

// line is the line of the byte at off (1 for an offset before the data).
func (ix lineIndex) line(off int) int64 { return int64(sort.SearchInts(ix, off)) + 1 }

// exactSyntaxErr re-reads a document that failed to decode with
// encoding/json, whose syntax errors carry the exact offset, and returns that
// error (or err when the document is well-formed and the problem was a type).
func exactSyntaxErr(err error, data []byte) error {
	var v any
	if serr := stdjson.Unmarshal(data, &v); serr != nil {
		return serr
	}
	return err
}

// decodeErrLine is the line of an error decoding data as a whole (the byte
// before its offset when known; the last line with data when it is cut off).
func decodeErrLine(err error, data []byte, lines lineIndex) int64 {
	var se *json.SyntaxError
	if errors.As(err, &se) && se.Offset > 0 {
		return lines.line(int(min(se.Offset, int64(len(data)))) - 1)
	}
	var sse *stdjson.SyntaxError
	if errors.As(err, &sse) && sse.Offset > 0 {
		return lines.line(int(min(sse.Offset, int64(len(data)))) - 1)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return lines.line(len(bytes.TrimRight(data, " \t\r\n")) - 1)
	}
	return 1
}

// isJSONObject reports whether raw is a JSON object.
func isJSONObject(raw []byte) bool {
	return bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{"))
}

// explainDecodeErr describes why raw does not decode into v (a fresh value
// of the target type): a value that is not an object, or encoding/json's
// error, which names the JSON field, in plain words (jsonx.Explain).
func explainDecodeErr(err error, raw []byte, v any) string {
	if !isJSONObject(raw) {
		return "not a JSON object"
	}
	if serr := stdjson.Unmarshal(raw, v); serr != nil {
		err = serr
	}
	if err == nil {
		return "invalid record"
	}
	return decodeErrText(json.Explain(err, raw))
}

// decodeErrText shortens a decoding error for a reject reason (clipErr).
func decodeErrText(err error) string { return strings.TrimPrefix(clipErr(err), "json: ") }

// readJSONObject is readJSONDoc for a document that must be one object,
// split into its fields. ok is false when the import is done: the file
// holds nothing, or it is not a valid object (rejected at its line), or err.
func readJSONObject(f *File, r io.Reader) (d *jsonDoc, fields map[string]jsonSpan, ok bool, err error) {
	d, err = readJSONDoc(f, r)
	if err != nil || d == nil {
		return nil, nil, false, err
	}
	fields, ok, err = d.object(f)
	return d, fields, ok && err == nil, err
}

// docRun reads a whole-document log (hermes-agent, kiro-cli-sqlite-payload):
// its root object decoded into v (what names it in a reject), the elements
// of its array field key, and a run started under id(), else the file's
// stem. A nil builder with a nil error means the file was rejected (or
// holds nothing) and its import is done.
func docRun(f *File, r io.Reader, v any, what, key string, id func() string) (*jsonDoc, map[string]jsonSpan, []jsonSpan, *RunBuilder, error) {
	d, fields, ok, err := readJSONObject(f, r)
	if !ok {
		return nil, nil, nil, nil, err
	}
	if err := json.Unmarshal(d.root.raw, v); err != nil {
		return nil, nil, nil, nil, f.Reject(1, what+": "+clipErr(err), d.data)
	}
	elems, ok, err := d.array(f, fields, key)
	if err != nil || !ok {
		return nil, nil, nil, nil, err
	}
	b, err := f.NewRun(firstNonEmpty(id(), fileStem(f.Path())))
	if err != nil {
		return nil, nil, nil, nil, err
	}
	return d, fields, elems, b, nil
}
