package ingest

import (
	"strconv"
	"strings"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"
)

// The one-pass decode of a Claude Code line (issue 33). decodeCCLineSteps
// decodes a line in steps, each with the JSON decoder: the record (its
// message kept raw), the message (its content kept raw), the content list
// (every block kept raw), then each block, so a large tool output is
// scanned five times and copied four. decodeCCLineFast reads the line once
// it is validated (validJSON), takes the spans of the fields the importer
// reads and decodes only those, each once.
//
// It yields what decodeCCLineSteps yields or nothing: any line it is not
// sure of (invalid JSON, a key the decoder could match by folding case, a
// repeated field, a value of another type than its field's, a number that
// is not a plain integer, a line to be rejected) makes it return false, and
// the caller decodes the line in steps. FuzzDecodeCCLineEquivalent checks
// the two against each other.

// The JSON names of ccRecord's, ccMessage's, ccUsage's, the compact
// metadata's and ccBlock's fields, in the order the decoders below index
// them.
var (
	ccRecordKeys = []string{"type", "subtype", "sessionId", "agentId", "isSidechain", "timestamp", "message",
		"requestId", "isCompactSummary", "isApiErrorMessage", "content", "compactMetadata", "summary", "leafUuid", "costUSD"}
	ccMessageKeys = []string{"id", "role", "model", "content", "stop_reason", "usage",
		"blocks", "-"} // ccMessage.Blocks is not decoded: its name is kept out of the fast path
	ccUsageKeys   = []string{"input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"}
	ccCompactKeys = []string{"trigger", "preTokens"}
	ccBlockKeys   = []string{"type", "text", "thinking", "id", "name", "input", "tool_use_id", "content", "is_error",
		"resultText"} // unexported: kept out of the fast path
)

// spanFields decodes the members of the valid object b[i] into fields:
// set(k, vs, ve) for each member whose key is exactly names[k]. It returns
// false when a key might be matched by folding, a field is repeated, or set
// returns false. t is b's tape (spanTape), or nil.
func spanFields(b []byte, t *spanTape, i int, names []string, set func(k, vs, ve int) bool) bool {
	var seen uint32
	return spanMembers(b, t, i, func(key []byte, vs, ve int) bool {
		k := spanKey(key, names)
		switch {
		case k == -1:
			return true
		case k < 0 || seen&(1<<k) != 0:
			return false
		}
		seen |= 1 << k
		return set(k, vs, ve)
	})
}

// spanSetString decodes a string field: null leaves it as it is.
func spanSetString(b []byte, vs, ve int, dst *string) bool {
	switch b[vs] {
	case '"':
		s, ok, _ := spanStr(b[vs:ve])
		*dst = s
		return ok
	case 'n':
		return true
	}
	return false
}

// spanSetText is spanSetString for a block's text: bit is set in valid
// when spanStr knows the value is valid UTF-8, cleared when it does not
// (null keeps both).
func spanSetText(b []byte, vs, ve int, dst *string, valid *uint8, bit uint8) bool {
	if b[vs] != '"' {
		return spanSetString(b, vs, ve, dst)
	}
	s, ok, v := spanStr(b[vs:ve])
	*dst = s
	*valid &^= bit
	if v {
		*valid |= bit
	}
	return ok
}

// spanSetBool decodes a bool field: null leaves it as it is.
func spanSetBool(b []byte, vs, ve int, dst *bool) bool {
	switch string(b[vs:ve]) {
	case "true":
		*dst = true
	case "false":
		*dst = false
	case "null":
	default:
		return false
	}
	return true
}

// spanSetInt decodes an int64 field: null leaves it as it is.
func spanSetInt(b []byte, vs, ve int, dst *int64) bool {
	if b[vs] == 'n' {
		return true
	}
	if b[vs] != '-' && (b[vs] < '0' || b[vs] > '9') {
		return false
	}
	n, ok := spanInt(b[vs:ve])
	*dst = n
	return ok
}

// spanRaw is a value's bytes as a json.RawMessage (no room to append into).
func spanRaw(b []byte, vs, ve int) json.RawMessage { return b[vs:ve:ve] }

// decodeCCLineFast is decodeCCLineSteps in one pass over raw, for a line
// that decodeCCLineSteps keeps; false leaves d to be reset and the line to
// be decoded in steps.
func decodeCCLineFast(raw []byte, d *ccLine) bool {
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	t := tapes.Get().(*spanTape)
	t.at, t.end = t.at[:0], t.end[:0]
	defer func() {
		if cap(t.at) <= 1<<16 { // a tape grown by a huge line is let go
			tapes.Put(t)
		}
	}()
	if !validJSONTape(raw, t) {
		return false
	}
	rec, msg := &d.rec, &d.msg
	msgAt, ok := ccRecordFast(raw, t, rec)
	if !ok {
		return false
	}
	if rec.Message != nil && rec.Message[0] != '{' && string(rec.Message) != "null" {
		return false // rejected: message is not an object
	}
	contentAt := 0
	if len(rec.Message) > 0 && rec.Message[0] == '{' {
		if contentAt, ok = ccMessageFast(raw, t, msgAt, msg); !ok {
			return false
		}
	}
	if rec.Type == "" && msg.Role != "" {
		rec.Type = msg.Role
	}
	if ccMetaTypes[rec.Type] {
		d.skip = true
		return true
	}
	switch rec.Type {
	case "user", "assistant":
		switch {
		case rec.Message == nil || msg.Content == nil && (rec.Type == "user" || msg.Usage == nil):
			return false // rejected
		case msg.Content == nil: // an assistant's usage alone
			d.blocks = []ccBlock{}
			return true
		}
		return ccBlocksFast(raw, t, contentAt, d)
	case "system", "summary":
		return true
	case "":
		return false // rejected: record without type
	}
	d.skip, d.unread = true, true
	return true
}

// ccRecordFast decodes the record's fields from the valid object raw
// (its tape t); msgAt is the offset of its message.
func ccRecordFast(raw []byte, t *spanTape, rec *ccRecord) (msgAt int, ok bool) {
	ok = spanFields(raw, t, 0, ccRecordKeys, func(k, vs, ve int) bool {
		switch k {
		case 0:
			return spanSetString(raw, vs, ve, &rec.Type)
		case 1:
			return spanSetString(raw, vs, ve, &rec.Subtype)
		case 2:
			return spanSetString(raw, vs, ve, &rec.SessionID)
		case 3:
			return spanSetString(raw, vs, ve, &rec.AgentID)
		case 4:
			return spanSetBool(raw, vs, ve, &rec.IsSidechain)
		case 5:
			return spanSetString(raw, vs, ve, &rec.Timestamp)
		case 6:
			rec.Message, msgAt = spanRaw(raw, vs, ve), vs
		case 7:
			return spanSetString(raw, vs, ve, &rec.RequestID)
		case 8:
			return spanSetBool(raw, vs, ve, &rec.IsCompactSummary)
		case 9:
			return spanSetBool(raw, vs, ve, &rec.IsAPIErrorMessage)
		case 10:
			rec.Content = spanRaw(raw, vs, ve)
		case 11:
			return ccCompactFast(raw, t, vs, rec)
		case 12:
			return spanSetString(raw, vs, ve, &rec.Summary)
		case 13:
			return spanSetString(raw, vs, ve, &rec.LeafUUID)
		case 14:
			switch raw[vs] {
			case 'n':
				return true
			case '{', '[', '"', 't', 'f':
				return false
			}
			v, err := strconv.ParseFloat(string(raw[vs:ve]), 64)
			if err != nil {
				return false
			}
			rec.CostUSD = &v
		}
		return true
	})
	return msgAt, ok
}

// ccCompactFast decodes compactMetadata.
func ccCompactFast(raw []byte, t *spanTape, vs int, rec *ccRecord) bool {
	switch raw[vs] {
	case 'n':
		return true
	case '{':
	default:
		return false
	}
	m := &struct {
		Trigger   string `json:"trigger"`
		PreTokens *int64 `json:"preTokens"`
	}{}
	rec.CompactMetadata = m
	return spanFields(raw, t, vs, ccCompactKeys, func(k, vs, ve int) bool {
		if k == 0 {
			return spanSetString(raw, vs, ve, &m.Trigger)
		}
		if raw[vs] == 'n' {
			return true
		}
		var n int64
		if !spanSetInt(raw, vs, ve, &n) {
			return false
		}
		m.PreTokens = &n
		return true
	})
}

// ccMessageFast decodes the message, the valid object at raw[at];
// contentAt is the offset of its content.
func ccMessageFast(raw []byte, t *spanTape, at int, msg *ccMessage) (contentAt int, ok bool) {
	ok = spanFields(raw, t, at, ccMessageKeys, func(k, vs, ve int) bool {
		switch k {
		case 0:
			return spanSetString(raw, vs, ve, &msg.ID)
		case 1:
			return spanSetString(raw, vs, ve, &msg.Role)
		case 2:
			return spanSetString(raw, vs, ve, &msg.Model)
		case 3:
			msg.Content, contentAt = spanRaw(raw, vs, ve), vs
		case 4:
			return spanSetString(raw, vs, ve, &msg.StopReason)
		case 5:
			switch raw[vs] {
			case 'n':
				return true
			case '{':
			default:
				return false
			}
			u := &ccUsage{}
			msg.Usage = u
			return spanFields(raw, t, vs, ccUsageKeys, func(k, vs, ve int) bool {
				return spanSetInt(raw, vs, ve, [...]*int64{&u.InputTokens, &u.OutputTokens, &u.CacheCreation, &u.CacheRead}[k])
			})
		default:
			return false
		}
		return true
	})
	return contentAt, ok
}

// ccBlocksFast is parseBlocks of the valid content at raw[at]: a string
// or a list of strings and block objects (null and other values go the
// steps' way).
func ccBlocksFast(raw []byte, t *spanTape, at int, d *ccLine) bool {
	switch raw[at] {
	case '"':
		s, ok, valid := spanStr(raw[at:t.skip(raw, at)])
		d.text, d.textValid = s, valid
		return ok
	case '[':
	default:
		return false
	}
	out := make([]ccBlock, 0, 4)
	var texts []string
	textsValid := true
	ok := spanElems(raw, t, at, func(vs, ve int) bool {
		var blk ccBlock
		switch raw[vs] {
		case '"':
			s, ok, valid := spanStr(raw[vs:ve])
			if !ok {
				return false
			}
			blk.Type, blk.Text = "text", s
			if valid {
				blk.valid |= validText
			}
		case '{':
			if !ccBlockFast(raw, t, vs, &blk) {
				return false
			}
		default:
			return false
		}
		out = append(out, blk)
		if blk.Text != "" {
			texts = append(texts, blk.Text)
			textsValid = textsValid && blk.valid&validText != 0
		}
		return true
	})
	if !ok {
		return false
	}
	d.blocks, d.text, d.textValid = out, strings.Join(texts, "\n"), textsValid
	return true
}

// ccBlockFast decodes one block object at raw[at], and a tool result's
// text (ContentText of its content).
func ccBlockFast(raw []byte, t *spanTape, at int, blk *ccBlock) bool {
	ok := spanFields(raw, t, at, ccBlockKeys, func(k, vs, ve int) bool {
		switch k {
		case 0:
			return spanSetString(raw, vs, ve, &blk.Type)
		case 1:
			return spanSetText(raw, vs, ve, &blk.Text, &blk.valid, validText)
		case 2:
			return spanSetText(raw, vs, ve, &blk.Thinking, &blk.valid, validThinking)
		case 3:
			return spanSetString(raw, vs, ve, &blk.ID)
		case 4:
			return spanSetString(raw, vs, ve, &blk.Name)
		case 5:
			blk.Input = spanRaw(raw, vs, ve)
		case 6:
			return spanSetString(raw, vs, ve, &blk.ToolUseID)
		case 7:
			blk.Content = spanRaw(raw, vs, ve)
		case 8:
			return spanSetBool(raw, vs, ve, &blk.IsError)
		default:
			return false
		}
		return true
	})
	if !ok {
		return false
	}
	if blk.Type == "tool_result" {
		if c := blk.Content; len(c) > 0 && c[0] == '"' {
			s, ok, valid := spanStr(c)
			blk.resultText = s
			if valid {
				blk.valid |= validResult
			}
			return ok
		}
		blk.resultText = ContentText(blk.Content)
	}
	return true
}
