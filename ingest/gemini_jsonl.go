package ingest

import (
	"bytes"
	"path/filepath"
	"strconv"
	"strings"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"
)

// Gemini CLI 0.40+ writes a session as session-*.jsonl beside the older
// session-*.json (issue 30.3): an operation log replayed line by line into
// the same conversation the .json holds.
//
//  1. A metadata record {sessionId, projectHash, startTime, lastUpdated,
//     kind} opens the file.
//  2. A message record {id, type, …} (a .json message) is appended; one
//     whose id was written before replaces that record in place (a
//     message is written again whole as its tool calls run and its tokens
//     come in: the last copy is what it says).
//  3. {"$set": {…}} updates the metadata (lastUpdated is the run's end); a
//     messages array in it is a checkpoint that replaces every message.
//  4. {"$rewindTo": "<id>"} drops that message and all after it (the user
//     rewound the conversation): the run is what the model was left with,
//     as for Qwen Code's rewinds. A rewind to an id never written is
//     rejected and changes nothing.
//
// The messages left are then read as the .json's are (gmRun.message); a
// line that is none of these records is rejected.

// gmRecord is one line of a session-*.jsonl: any of the four records.
type gmRecord struct {
	gmMessage
	SessionID   string  `json:"sessionId"`
	ProjectHash *string `json:"projectHash"`
	StartTime   string  `json:"startTime"`
	LastUpdated string  `json:"lastUpdated"`
	// Kind is main or subagent; not stored (a sub-agent's file names no
	// parent), but decoded so that a mistyped metadata record is rejected
	Kind string `json:"kind"`
	Set  *struct {
		LastUpdated string            `json:"lastUpdated"`
		Messages    []json.RawMessage `json:"messages"`
	} `json:"$set"`
	RewindTo *string `json:"$rewindTo"`

	raw []byte // the line, owned by the record (what it decoded from)
}

// decodeGMRecord decodes a line from a copy of it, which the record keeps:
// a message outlives its line (step 2), and decoded strings may share the
// bytes they were decoded from.
func decodeGMRecord(_ int64, raw []byte, rec *gmRecord) string {
	rec.raw = bytes.Clone(raw)
	return decodeRecord(rec.raw, rec)
}

// gmEntry is a message kept by the replay, with the line of its latest
// record.
type gmEntry struct {
	m    gmMessage
	line int64
	raw  []byte
}

// gmLog is the replay's state: the messages in order, by key (the id, or
// the line for a message without one).
type gmLog struct {
	order []string
	byKey map[string]*gmEntry
}

func (l *gmLog) put(key string, e *gmEntry) {
	if _, ok := l.byKey[key]; !ok {
		l.order = append(l.order, key)
	}
	l.byKey[key] = e
}

func (l *gmLog) reset() { l.order, l.byKey = nil, map[string]*gmEntry{} }

// rewind drops the message key and all after it; ok is false when there
// is no such message.
func (l *gmLog) rewind(key string) bool {
	for i, k := range l.order {
		if k == key {
			for _, d := range l.order[i:] {
				delete(l.byKey, d)
			}
			l.order = l.order[:i]
			return true
		}
	}
	return false
}

// gmIsJSONL reports whether data is a session-*.jsonl rather than a .json
// document: its first line is a JSON object without messages (a metadata
// or message record on its own line), or, when that line is not JSON and
// the file is not one JSON value either, one of its first lines is a
// record of the log (a log whose first line is bad, not a broken
// document).
func gmIsJSONL(data []byte) bool {
	data = bytes.TrimSpace(trimBOM(data))
	first, _, _ := bytes.Cut(data, []byte("\n"))
	first = bytes.TrimSpace(first)
	var doc struct {
		Messages json.RawMessage `json:"messages"`
	}
	if len(first) > 0 && first[0] == '{' && json.Valid(first) {
		return json.Unmarshal(first, &doc) == nil && doc.Messages == nil
	}
	if json.Valid(data) {
		return false
	}
	return anyJSONL(data[min(len(data), len(first)):], voteLines, func(r *struct {
		SessionID   string          `json:"sessionId"`
		ProjectHash *string         `json:"projectHash"`
		ID          string          `json:"id"`
		Type        string          `json:"type"`
		Set         json.RawMessage `json:"$set"`
	}) bool {
		return r.SessionID != "" && r.ProjectHash != nil || r.ID != "" && r.Type != "" || r.Set != nil
	})
}

// gmDetectJSONL claims a head with a metadata record {sessionId,
// projectHash} without messages, or a message record of type gemini,
// among its first lines.
func gmDetectJSONL(head []byte) bool {
	return anyJSONL(head, voteLines, func(r *struct {
		SessionID   string          `json:"sessionId"`
		ProjectHash *string         `json:"projectHash"`
		Messages    json.RawMessage `json:"messages"`
		ID          string          `json:"id"`
		Type        string          `json:"type"`
		Message     json.RawMessage `json:"message"`
	}) bool {
		return r.SessionID != "" && r.ProjectHash != nil && r.Messages == nil && r.Message == nil ||
			r.ID != "" && r.Type == "gemini"
	})
}

// importJSONL replays a session-*.jsonl held in data and reads the
// messages left.
func (geminiCLI) importJSONL(f *File, data []byte) error {
	var hdr struct{ sessionID, start, updated string }
	log := &gmLog{}
	log.reset()
	err := lineReader[gmRecord]{decode: decodeGMRecord}.read(f, bytes.NewReader(data), func(line int64, raw []byte, rec *gmRecord) error {
		switch {
		case rec.Set != nil:
			if rec.Set.LastUpdated != "" {
				hdr.updated = rec.Set.LastUpdated
			}
			if rec.Set.Messages != nil {
				log.reset()
				for i, m := range rec.Set.Messages {
					e := &gmEntry{line: line, raw: m}
					if ok, err := decodeElem(f, line, "$set.messages[%d]", i, jsonSpan{raw: m}, &e.m); !ok {
						if err != nil {
							return err
						}
						continue
					}
					log.put(gmKey(&e.m, line, i), e)
				}
			}
		case rec.RewindTo != nil:
			if !log.rewind(*rec.RewindTo) {
				return f.Reject(line, "$rewindTo names no message written before: "+clipQuote(*rec.RewindTo), raw)
			}
		case rec.Type != "":
			log.put(gmKey(&rec.gmMessage, line, 0), &gmEntry{m: rec.gmMessage, line: line, raw: rec.raw})
		case rec.SessionID != "" && rec.ProjectHash != nil:
			hdr.sessionID, hdr.start = rec.SessionID, rec.StartTime
			if rec.LastUpdated != "" {
				hdr.updated = rec.LastUpdated
			}
		default:
			return f.Reject(line, "record is neither session metadata, a message, $set nor $rewindTo", raw)
		}
		return nil
	})
	if err != nil {
		return err
	}
	b, err := f.NewRun(firstNonEmpty(hdr.sessionID, strings.TrimSuffix(filepath.Base(f.Path()), filepath.Ext(f.Path()))))
	if err != nil {
		return err
	}
	b.Run.Harness = "gemini-cli"
	b.Run.StartedAt, b.Run.EndedAt = ParseTime(hdr.start), ParseTime(hdr.updated)
	g := &gmRun{b: b}
	for i, k := range log.order {
		if i&255 == 255 && f.Ctx != nil {
			if err := f.Ctx.Err(); err != nil {
				return err
			}
		}
		e := log.byKey[k]
		if err := g.message(f, e.line, &e.m, e.raw); err != nil {
			return err
		}
	}
	if err := g.unread.flush(f); err != nil {
		return err
	}
	g.finishEnd()
	return b.Finish()
}

// gmKey is the replay key of message m read at line (the i-th of a
// checkpoint): its id, else its place.
func gmKey(m *gmMessage, line int64, i int) string {
	if m.ID != "" {
		return m.ID
	}
	return "\x00" + strconv.FormatInt(line, 10) + "." + strconv.Itoa(i)
}
