package ingest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/trajmine/trajmine/schema"
)

// OpenHands-SDK LiteLLM call logs: OpenHands writes one file per model call,
// <model prefix>-<unix ts>.json (e.g.
// litellm_proxy__anthropic__claude-sonnet-4-20250514-1757015046.707.json),
// into one directory per session, and each file's messages is the whole
// prompt so far. So that each message is stored once, importing a call log
// also reads the call logs of the same conversation beside it (f.Path()'s
// directory; files whose name has the same model prefix and that are JSON
// objects with a messages array, a response and a timestamp), sorted by the
// file name's ts, then the timestamp field, then the name:
//
//   - the earliest file imports the whole conversation as one run, named after
//     it: its messages and response, then for each later file the messages
//     beyond the longest prefix (by role, content text, tool_call_id and tool
//     call ids) its prompt shares with the previous file's prompt, less the
//     first of them when it is an assistant message and the previous file
//     logged a response (it is that response, already stored), then its
//     response as that call's output with its usage (ts: the file's
//     timestamp). A prompt that does not extend the previous one (the history
//     was condensed) adds a compaction event and a context_op (op compaction,
//     trigger history-rewrite) before its differing tail. The run's cost is
//     the sum of the files' costs and its end the last file's timestamp; the
//     events of a later file keep their line within that file;
//   - a later file imports nothing: the earliest file's import holds it.
//
// A sibling that cannot be read or is not such a call log is left out and
// imports on its own. One file is one import: the files joined are those on
// disk when the earliest is imported.

// litellmNameRe is a call log's file name: <model prefix>-<unix ts>.json.
var litellmNameRe = regexp.MustCompile(`^(.+)-([0-9]+(?:\.[0-9]+)?)\.json$`)

// litellmLog is a call log file.
type litellmLog struct {
	path, name string
	nameTS     float64
	ts         time.Time // the timestamp field (zero when unreadable)
	data       []byte
}

// before orders call logs: file name ts, timestamp field, name.
func (a *litellmLog) before(b *litellmLog) bool {
	if a.nameTS != b.nameTS {
		return a.nameTS < b.nameTS
	}
	if !a.ts.Equal(b.ts) {
		return a.ts.Before(b.ts)
	}
	return a.name < b.name
}

// litellmParse reports whether data, the file named name, is a LiteLLM call
// log: a JSON object with a messages array, a response and a timestamp, and
// a name <prefix>-<unix ts>.json. The same check decides for the file
// imported and for its siblings.
func litellmParse(path string, data []byte) (*litellmLog, string, bool) {
	name := filepath.Base(path)
	m := litellmNameRe.FindStringSubmatch(name)
	if m == nil {
		return nil, "", false
	}
	o := parseJSONObject(bytes.TrimPrefix(data, utf8BOM))
	if o == nil || o.obj("response") == nil || len(o["timestamp"]) == 0 || isJSONNull(o["timestamp"]) {
		return nil, "", false
	}
	msgs := o.arr("messages")
	if msgs == nil {
		return nil, "", false
	}
	for _, m := range msgs {
		if parseJSONObject(m) == nil && !isJSONNull(m) {
			return nil, "", false // the import rejects it
		}
	}
	l := &litellmLog{path: path, name: name, data: data}
	l.nameTS, _ = strconv.ParseFloat(m[2], 64)
	if t := o.ts("timestamp"); t != nil {
		l.ts = *t
	}
	return l, m[1], true
}

// litellmSiblings returns the call logs of the conversation of the call log
// self (its data as read by the import), sorted, self included; only self
// when its path is not a real path or it has no siblings. With firstOnly it
// stops as soon as it knows the earliest file (enough for a later file to
// know it imports nothing).
func litellmSiblings(self *litellmLog, prefix string, firstOnly bool) []*litellmLog {
	dir := filepath.Dir(self.path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return []*litellmLog{self}
	}
	type cand struct {
		name   string
		nameTS float64
	}
	var cands []cand
	seenSelf := false
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		m := litellmNameRe.FindStringSubmatch(e.Name())
		if m == nil || m[1] != prefix {
			continue
		}
		if e.Name() == self.name {
			seenSelf = true
			continue
		}
		ts, _ := strconv.ParseFloat(m[2], 64)
		cands = append(cands, cand{e.Name(), ts})
	}
	if !seenSelf { // not a real path: nothing is beside it
		return []*litellmLog{self}
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].nameTS != cands[j].nameTS {
			return cands[i].nameTS < cands[j].nameTS
		}
		return cands[i].name < cands[j].name
	})
	out := []*litellmLog{self}
	for _, c := range cands {
		if firstOnly && c.nameTS > self.nameTS {
			break // self sorts before every file left
		}
		path := filepath.Join(dir, c.name)
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		data, _ = repairJSONText(trimBOM(data)) // counted by the file's own import
		l, p, ok := litellmParse(path, data)
		if !ok || p != prefix {
			continue
		}
		out = append(out, l)
		if firstOnly && l.before(self) {
			break
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].before(out[j]) })
	return out
}

// msgSameMessage reports whether two prompt messages are the same: role,
// content text, tool_call_id and tool call ids (so that moved cache_control
// markers and block-vs-string content do not count as a change).
func msgSameMessage(a, b jsonObject) bool {
	if a.role() != b.role() || ContentText(a["content"]) != ContentText(b["content"]) || a.str("tool_call_id") != b.str("tool_call_id") {
		return false
	}
	ids := func(o jsonObject) string {
		var s []string
		for _, tc := range o.arr("tool_calls") {
			s = append(s, parseJSONObject(tc).str("id"))
		}
		return strings.Join(s, "\x00")
	}
	return ids(a) == ids(b)
}

// litellmJoin imports the call log conv (already parsed, from the file at
// self) together with its later siblings as one run (see the comment at the
// top of this file). It reports false, having imported nothing, when self
// is a later file (the earliest one imports it) or has no siblings.
func (mi *msgImport) litellmJoin(conv *msgRun, data []byte) (handled bool, err error) {
	self, prefix, ok := litellmParse(mi.f.Path(), data)
	if !ok {
		return false, nil
	}
	first := litellmSiblings(self, prefix, true)
	if first[0] != self {
		return true, nil // imported with the earliest call log beside it
	}
	all := litellmSiblings(self, prefix, false)
	if len(all) < 2 || all[0] != self {
		return false, nil
	}
	joined := *conv
	joined.msgs = append([]msgItem(nil), conv.msgs...)
	prev, prevOut := conv.msgs[:conv.prompt], len(conv.msgs) > conv.prompt
	for _, l := range all[1:] {
		next, ok := mi.litellmRecord(l)
		if !ok {
			continue
		}
		p := next.msgs[:next.prompt]
		common := 0
		for common < len(p) && common < len(prev) && msgSameMessage(p[common].obj, prev[common].obj) {
			common++
		}
		tail := p[common:]
		if common < len(prev) {
			line := int64(1)
			if len(tail) > 0 {
				line = tail[0].line
			}
			joined.msgs = append(joined.msgs, msgItem{line: line, op: &schema.ContextOp{Op: schema.OpCompaction, Trigger: "history-rewrite",
				Detail: fmt.Sprintf("%s does not extend the previous prompt: %d of its %d messages kept", l.name, common, len(prev))}})
		} else if prevOut && len(tail) > 0 && msgIsAssistant(tail[0].obj.role()) {
			tail = tail[1:]
		}
		joined.msgs = append(joined.msgs, tail...)
		joined.msgs = append(joined.msgs, next.msgs[next.prompt:]...)
		prev, prevOut = p, len(next.msgs) > next.prompt
		if next.cost != nil {
			c := *next.cost
			if joined.cost != nil {
				c += *joined.cost
			}
			joined.cost = &c
		}
		if next.endedAt != nil {
			joined.endedAt = next.endedAt
		}
	}
	return true, mi.emit(&joined)
}

// litellmRecord parses a sibling call log; ok is false when it is not a
// valid record (it is then left out).
func (mi *msgImport) litellmRecord(l *litellmLog) (*msgRun, bool) {
	data := l.data
	doc := newJSONDoc(data)
	ix := doc.index()
	fields, err := objectFields(doc.root)
	if err != nil {
		return nil, false
	}
	sub := &msgImport{f: mi.f, m: mi.m, base: fileStem(l.path), used: map[string]bool{}}
	conv, err := sub.parseRecord(fields, ix.line, sub.base, 1)
	if err != nil {
		return nil, false
	}
	return conv, true
}
