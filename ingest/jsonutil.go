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

// ContentText flattens a message content value: a string, or a list of
// blocks whose "text" (or nested "content") fields are joined with newlines.
// Non-text blocks (images …) are rendered as "[<type>]".
func ContentText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
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
