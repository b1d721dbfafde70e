package ingest

import (
	"bytes"
	"math"
	"strings"
	"time"

	"encoding/json"
)

// jsonObject is a leniently read JSON object: accessors return zero values for
// missing fields and fields of another type. It serves the importers of
// loosely typed chat logs (messages, LiteLLM, SWE-agent, mini-SWE-agent) and
// decodes with encoding/json.
type jsonObject map[string]json.RawMessage

func parseJSONObject(raw []byte) jsonObject {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	var o jsonObject
	if json.Unmarshal(raw, &o) != nil {
		return nil
	}
	return o
}

func isJSONNull(raw []byte) bool { return string(bytes.TrimSpace(raw)) == "null" }

func (o jsonObject) role() string { return strings.ToLower(o.str("role")) }

// str returns a string field, or a number field's literal (ids, task ids).
func (o jsonObject) str(key string) string {
	raw := bytes.TrimSpace(o[key])
	if len(raw) == 0 {
		return ""
	}
	var s string
	if raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

func (o jsonObject) obj(key string) jsonObject { return parseJSONObject(o[key]) }

func (o jsonObject) arr(key string) []json.RawMessage {
	raw := bytes.TrimSpace(o[key])
	if len(raw) == 0 || raw[0] != '[' {
		return nil
	}
	var a []json.RawMessage
	if json.Unmarshal(raw, &a) != nil {
		return nil
	}
	return a
}

func (o jsonObject) num(key string) (float64, bool) {
	var f float64
	if len(o[key]) == 0 || isJSONNull(o[key]) || json.Unmarshal(o[key], &f) != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// count returns a non-negative token count, clamped to msgMaxTokens.
func (o jsonObject) count(key string) (int64, bool) {
	f, ok := o.num(key)
	if !ok {
		return 0, false
	}
	return int64(min(max(f, 0), msgMaxTokens)), true
}

func (o jsonObject) boolean(key string) (bool, bool) {
	var b bool
	if len(o[key]) == 0 || isJSONNull(o[key]) || json.Unmarshal(o[key], &b) != nil {
		return false, false
	}
	return b, true
}

// ts returns the first of keys that holds a readable timestamp.
func (o jsonObject) ts(keys ...string) *time.Time {
	for _, k := range keys {
		var v any
		if len(o[k]) == 0 || json.Unmarshal(o[k], &v) != nil {
			continue
		}
		if t := ParseTime(v); t != nil {
			return t
		}
	}
	return nil
}

// toolCallFields reads an OpenAI tool call {id, function: {name,
// arguments}}, or a flat {id, name, arguments}: its id, name and arguments
// (a JSON string's value, else the JSON text). ok is false when tc is not
// an object.
func toolCallFields(tc json.RawMessage) (id, name, args string, ok bool) {
	c := parseJSONObject(tc)
	if c == nil {
		return "", "", "", false
	}
	fn := c.obj("function")
	name, rawArgs := fn.str("name"), fn["arguments"]
	if fn == nil {
		name, rawArgs = c.str("name"), c["arguments"]
	}
	return c.str("id"), name, jsonString(rawArgs), true
}
