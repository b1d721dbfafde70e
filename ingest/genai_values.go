package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strconv"
	"strings"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"
)

// Generic GenAI payload helpers (prefix gai), shared by the otel-genai-spans,
// langfuse-trace-export and opencode importers: splitting a file into JSON
// records, and reading the loosely typed values (numbers as strings, ids as
// hex or base64, JSON encoded as strings) those exports carry.

// gaiMaxTokens bounds one call's logged counts; larger values are not a real
// log and would overflow the run's sums.
const gaiMaxTokens = 1 << 40

// gaiRecord is one JSON record of a file: the whole document, or one line.
type gaiRecord struct {
	raw   []byte
	line  int64
	whole bool
}

// gaiRecords splits a file into JSON records: the whole file when it is one
// JSON document; else JSON lines (also server-sent-event "data: …" lines),
// rejecting lines that do not parse; else one reject at the syntax error and
// no records.
func gaiRecords(f *File, data []byte) ([]gaiRecord, error) {
	t := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	if len(t) == 0 {
		return nil, nil
	}
	if json.Valid(t) {
		line := int64(bytes.Count(data[:bytes.Index(data, t[:1])], []byte("\n"))) + 1
		return []gaiRecord{{raw: t, line: line, whole: true}}, nil
	}
	type cand struct {
		raw  []byte
		line int64
	}
	var lines []cand
	valid := 0
	for i, l := range bytes.Split(data, []byte("\n")) {
		l = bytes.TrimSpace(l)
		if len(l) == 0 || bytes.HasPrefix(l, []byte(":")) || bytes.HasPrefix(l, []byte("event:")) ||
			bytes.HasPrefix(l, []byte("id:")) || bytes.HasPrefix(l, []byte("retry:")) {
			continue
		}
		if p, ok := bytes.CutPrefix(l, []byte("data:")); ok {
			l = bytes.TrimSpace(p)
			if len(l) == 0 || string(l) == "[DONE]" {
				continue
			}
		}
		if len(lines) < 8 && len(l) > 0 && (l[0] == '{' || l[0] == '[') && json.Valid(l) {
			valid++
		}
		lines = append(lines, cand{l, int64(i + 1)})
	}
	if len(lines) < 2 || valid == 0 {
		var v any
		err := json.Unmarshal(t, &v)
		msg := "invalid JSON"
		if err != nil {
			msg += ": " + clipErr(json.Explain(err, t))
		}
		return nil, f.Reject(gaiSyntaxLine(data, err), msg, data)
	}
	out := make([]gaiRecord, 0, len(lines))
	for _, l := range lines {
		if !json.Valid(l.raw) {
			if err := f.Reject(l.line, "invalid JSON line", l.raw); err != nil {
				return nil, err
			}
			continue
		}
		out = append(out, gaiRecord{raw: l.raw, line: l.line})
	}
	return out, nil
}

// gaiEachValue reads a file's JSON records (gaiRecords) and calls fn with
// each, decoded into plain values (gaiDecodeAny); a record that does not
// decode is rejected and fn does not see it.
func gaiEachValue(f *File, r io.Reader, fn func(rec gaiRecord, v any) error) error {
	whole, err := readDocument(f, r)
	if err != nil {
		return err
	}
	data := whole.data
	recs, err := gaiRecords(f, data)
	if err != nil {
		return err
	}
	for _, rec := range recs {
		v, err := gaiDecodeAny(rec.raw)
		if err != nil {
			if err := f.Reject(rec.line, "invalid JSON: "+clipErr(json.Explain(err, rec.raw)), rec.raw); err != nil {
				return err
			}
			continue
		}
		if err := fn(rec, v); err != nil {
			return err
		}
	}
	return nil
}

// gaiSyntaxLine is the 1-based line of a JSON syntax error in data (1 when
// the error has no offset).
func gaiSyntaxLine(data []byte, err error) int64 {
	var se *json.SyntaxError
	if !errors.As(err, &se) || se.Offset <= 0 {
		return 1
	}
	off := min(int(se.Offset), len(data))
	return int64(bytes.Count(data[:off], []byte("\n"))) + 1
}

// gaiDecodeAny decodes JSON into plain values, numbers as json.Number.
func gaiDecodeAny(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// gaiRaw re-encodes a decoded value for a reject.
func gaiRaw(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte(fmt.Sprint(v))
	}
	return b
}

// gaiJSON encodes a value as canonical JSON.
func gaiJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return CanonicalJSON(b)
}

// gaiFirst returns the first of the keys that m has.
func gaiFirst(m map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := m[k]; ok && v != nil {
			return v
		}
	}
	return nil
}

// gaiString returns a string or number value as a string.
func gaiString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

// gaiNumber reads a JSON number or numeric string as json.Number.
func gaiNumber(v any) (json.Number, bool) {
	switch x := v.(type) {
	case json.Number:
		return x, true
	case string:
		s := strings.TrimSpace(x)
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return json.Number(s), true
		}
	case float64:
		return json.Number(strconv.FormatFloat(x, 'f', -1, 64)), true
	}
	return "", false
}

// gaiInt reads a token count: a non-negative integer below gaiMaxTokens.
func gaiInt(v any) (int64, bool) {
	n, ok := gaiNumber(v)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	if err != nil {
		f, ferr := n.Float64()
		if ferr != nil || f != f || f < 0 || f >= gaiMaxTokens {
			return 0, false
		}
		i = int64(f)
	}
	if i < 0 || i >= gaiMaxTokens {
		return 0, false
	}
	return i, true
}

// gaiFloat reads a number or numeric string.
func gaiFloat(v any) (float64, bool) {
	n, ok := gaiNumber(v)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil && f == f
}

// gaiAttrInt returns the first of the keys that holds a token count.
func gaiAttrInt(m map[string]any, keys ...string) (int64, bool) {
	for _, k := range keys {
		if i, ok := gaiInt(m[k]); ok {
			return i, true
		}
	}
	return 0, false
}

// gaiHexID normalises a trace or span id to lower-case hex: decimal integers
// (any-agent) are converted, "0x" prefixes dropped.
func gaiHexID(v any, width int) string {
	switch x := v.(type) {
	case json.Number:
		n, ok := new(big.Int).SetString(x.String(), 10)
		if !ok || n.Sign() <= 0 {
			return ""
		}
		h := n.Text(16)
		if len(h) < width {
			h = strings.Repeat("0", width-len(h)) + h
		}
		return h
	case string:
		s := strings.ToLower(strings.TrimSpace(x))
		s = strings.TrimPrefix(s, "0x")
		if strings.Trim(s, "0") == "" {
			return ""
		}
		return s
	}
	return ""
}

// gaiUnwrap decodes a value that is JSON text (possibly encoded several
// times over, as Langfuse stores some payloads); other values are returned
// as they are.
func gaiUnwrap(v any) any {
	for range 4 {
		s, ok := v.(string)
		if !ok {
			return v
		}
		t := strings.TrimSpace(s)
		if len(t) < 2 || t[0] != '{' && t[0] != '[' && t[0] != '"' {
			return v
		}
		d, err := gaiDecodeAny([]byte(t))
		if err != nil {
			return v
		}
		v = d
	}
	return v
}

// gaiUnwrapContent unwraps content logged as JSON text of a block list.
func gaiUnwrapContent(v any) any {
	if u := gaiUnwrap(v); u != nil {
		if _, ok := u.([]any); ok {
			return u
		}
		if _, ok := u.(string); ok {
			return u
		}
	}
	return v
}

// gaiArgs renders tool-call arguments as JSON text.
func gaiArgs(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	return gaiJSON(v)
}

// gaiText flattens a payload to the text a model would see: strings as
// they are, content blocks joined, other values as canonical JSON.
func gaiText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string, json.Number, bool:
		return gaiString(x)
	case []any:
		parts := make([]string, 0, len(x))
		for _, e := range x {
			if m, ok := e.(map[string]any); ok {
				if t, ok := m["text"].(string); ok {
					parts = append(parts, t)
					continue
				}
			}
			if t := gaiText(e); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "\n")
	case map[string]any:
		if t, ok := x["text"].(string); ok {
			return t
		}
		if c, ok := x["content"]; ok && c != nil {
			return gaiText(c)
		}
		return gaiJSON(x)
	}
	return fmt.Sprint(v)
}
