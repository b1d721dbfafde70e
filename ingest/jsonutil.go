package ingest

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"time"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"
)

// ParseTime reads a logged timestamp: an RFC 3339 / ISO 8601 string, or a
// Unix time number in seconds (float) or milliseconds (> 1e12). It returns nil
// when v is absent or unreadable.
func ParseTime(v any) *time.Time {
	switch x := v.(type) {
	case string:
		s := strings.TrimSpace(x)
		if s == "" {
			return nil
		}
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999"} {
			if t, err := time.Parse(layout, s); err == nil {
				t = t.UTC()
				return &t
			}
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return ParseTime(f)
		}
	case float64:
		return unixTime(x)
	case int64:
		return unixTime(float64(x))
	case int:
		return unixTime(float64(x))
	case json.Number:
		if f, err := x.Float64(); err == nil {
			return unixTime(f)
		}
	}
	return nil
}

func unixTime(f float64) *time.Time {
	if f <= 0 || math.IsNaN(f) || math.IsInf(f, 0) || f > 1e17 {
		return nil
	}
	if f > 1e12 { // milliseconds
		f /= 1000
	}
	sec, frac := math.Modf(f)
	t := time.Unix(int64(sec), int64(math.Round(frac*1e6))*1e3).UTC()
	return &t
}

// stringValue reads raw, white space trimmed, as a JSON string: ok reports
// one (s its value; null or nothing is ""). Otherwise rest is the trimmed
// raw, for the caller's other forms of the value.
func stringValue(raw json.RawMessage) (s string, rest json.RawMessage, ok bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil, true
	}
	if raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return s, nil, true
	}
	return "", raw, false
}

// jsonString returns raw as a string: a JSON string's value, else the JSON
// text itself ("" for null or nothing).
func jsonString(raw json.RawMessage) string {
	s, rest, ok := stringValue(raw)
	if !ok {
		s = string(rest)
	}
	return s
}

// jsonArgs returns tool-call arguments as JSON text: an object as is, a
// string holding JSON as its content, anything else wrapped as
// {"input": value}.
func jsonArgs(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "{}"
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			t := strings.TrimSpace(s)
			if t == "" {
				return "{}"
			}
			if json.Valid([]byte(t)) {
				return t
			}
			b, _ := json.Marshal(map[string]string{"input": s})
			return string(b)
		}
	}
	if raw[0] == '{' {
		return string(raw)
	}
	return `{"input":` + string(raw) + `}`
}

// ContentText flattens a message content value: a string, or a list of
// blocks whose "text" (or nested "content") fields are joined with newlines.
// Non-text blocks (images …) are rendered as "[<type>]".
func ContentText(raw json.RawMessage) string {
	s, raw, ok := stringValue(raw)
	if ok {
		return s
	}
	var blocks []json.RawMessage
	if raw[0] == '[' && json.Unmarshal(raw, &blocks) == nil {
		parts := make([]string, 0, len(blocks))
		for _, b := range blocks {
			if t := blockText(b); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "\n")
	}
	if raw[0] == '{' {
		return blockText(raw)
	}
	return string(raw)
}

func blockText(b json.RawMessage) string {
	var blk struct {
		Type    string          `json:"type"`
		Text    *string         `json:"text"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(b, &blk) != nil {
		var s string
		if json.Unmarshal(b, &s) == nil {
			return s
		}
		return ""
	}
	if blk.Text != nil {
		return *blk.Text
	}
	if len(blk.Content) > 0 {
		return ContentText(blk.Content)
	}
	if blk.Type != "" {
		return "[" + blk.Type + "]"
	}
	return ""
}

// valueText renders a JSON string as its value and a list as ContentText does, and anything else as compact JSON.
func valueText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] == '"' || raw[0] == '[' {
		return ContentText(raw)
	}
	return compactJSON(raw)
}

// compactJSON returns raw as compact JSON.
func compactJSON(raw json.RawMessage) string {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	return buf.String()
}

// scalarString returns a JSON string's value or a JSON number's literal, as
// a key or id (a number id is kept as written); "" for anything else.
func scalarString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}
