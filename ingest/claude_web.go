package ingest

import (
	"fmt"
	"io"
	"regexp"
)

// claudeWeb reads Claude Code web session exports: one JSON object
// {loglines: [record, …]} whose records are Claude Code session records
// ({type: user|assistant|system|summary, timestamp, message: {role, content}}
// with Anthropic content blocks: text, thinking, tool_use {id, name, input},
// tool_result {tool_use_id, content, is_error}), as simonw's
// claude-code-transcripts reads them. The export keeps no usage in the
// sample, but records that carry message.id and usage are counted like
// Claude Code's own.
//
// Steps:
//  1. Parse the document; a syntax error is one reject at its line and
//     nothing is imported. Each logline is decoded and checked exactly as a
//     claude-code line (shared code); a malformed one is rejected at its
//     line and the rest imports.
//  2. Route records to runs: the record's sessionId (sub-agent records:
//     "<session>/agent-<agentId>"), else one run named after the file.
//  3. assistant and user records are handled by the claude-code code: each
//     message.id is one model call (records without an id are one call
//     each), tool_result blocks link to their tool_use by id,
//     isCompactSummary → a compaction event with a summary op,
//     compact_boundary → a compaction op, legacy summaries → summary ops,
//     "[Request interrupted by user" → interrupted.
//  4. Without an explicit end, the run is finished when it ends on an
//     assistant reply without a tool call (inferred).
type claudeWeb struct{ formatInfo }

var cwLoglines = regexp.MustCompile(`"loglines"\s*:\s*\[`)

// Detect claims a JSON object with a "loglines" array.
func (claudeWeb) Detect(_ string, head []byte) bool {
	t := trimHead(head)
	return len(t) > 0 && t[0] == '{' && cwLoglines.Match(t)
}

func (claudeWeb) Import(f *File, r io.Reader) error {
	doc, err := readDocument(f, r)
	if err != nil {
		return err
	}
	data := doc.data
	if len(doc.root.raw) == 0 {
		return nil
	}
	fields, ok, err := doc.object(f)
	if !ok {
		return err
	}
	ix := doc.index()
	ll, found := fields["loglines"]
	if !found {
		return f.Reject(1, "export without a loglines array", data)
	}
	elems, err := arrayElems(ll)
	if err != nil {
		return f.Reject(ix.line(ll.off), "loglines is not an array: "+clipErr(err), ll.raw)
	}
	runs := newCCRuns(f)
	var unread unreadTypes
	for i, el := range elems {
		if i&255 == 255 && f.Ctx != nil {
			if err := f.Ctx.Err(); err != nil {
				return err
			}
		}
		line := ix.line(el.off)
		d := &ccLine{}
		if why := decodeCCLine(line, el.raw, d); why != "" {
			if err := f.Reject(line, fmt.Sprintf("logline %d: %s", i+1, why), el.raw); err != nil {
				return err
			}
			continue
		}
		if d.skip {
			if d.unread {
				unread.add(line, d.rec.Type, el.raw)
			}
			continue
		}
		rec := &d.rec
		cr, err := runs.get(rec)
		if err != nil {
			return err
		}
		if rec.SessionID == "" || !rec.IsSidechain {
			runs.cur = cr
		}
		if err := cr.record(f, line, d, el.raw); err != nil {
			return err
		}
	}
	if err := unread.flush(f); err != nil {
		return err
	}
	return runs.finish()
}
