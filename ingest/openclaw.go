package ingest

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// openClaw reads the JSONL written by OpenClaw's agent telemetry plugin:
// message.in / agent.start / tool.start / tool.end / message.sending /
// message.out records, keyed by sessionKey and agentId.
//
// The records carry no tool-call ids, no token usage, no tool output text and
// (except message.in) no timestamps. But an agent.start record may hold a
// "messages" snapshot: the session's history (pi "AgentMessage" values, OpenClaw runs
// on pi) before the prompt, with call ids, tool outputs and per-call usage.
// Steps:
//
//  1. Decode every line; malformed lines are rejected.
//  2. Route each record to a run: agent.start → its sessionKey (one run per
//     session; "…:subagent:…" sessions are sub-agent runs whose parent is the
//     run that last called sessions_spawn). Tool records whose sessionKey
//     never starts an agent (e.g. the channel alias
//     agent:main:telegram:default:direct:<peer> of agent:main:main) and the
//     channel records (message.*, which have no sessionKey) go to the agent's
//     latest non-sub-agent session.
//  3. Per run, take the largest history snapshot (the first one to reach that
//     size). It covers everything the run logged before the agent.start that
//     carries it: those records are dropped, and the snapshot's messages are
//     imported instead (as the pi importer does: one model call per assistant
//     message with its usage, tool results linked by toolCallId).
//  4. The remaining records become events: agent.start → user (the pair of
//     agent.start records each prompt produces is kept once; message.in only
//     lends its timestamp), tool.start → tool_call and tool.end → tool_result,
//     paired in order per sessionKey and toolName and linked by a synthetic
//     call id "tool.start:<line>" (the result text is empty: the telemetry has
//     none; success=false marks it an error), message.out → assistant.
//     A model call begins at each output that follows an input.
//  5. End reasons are inferred from how each run's log ends (agent.end with
//     an error, when logged, is explicit).
//
// Steps 2 and 3 need the whole file, so its records are held in memory
// (without the snapshots other than each run's largest): telemetry files are
// small, one per agent process.
type openClaw struct{ formatInfo }

// ocTypes are OpenClaw telemetry record types.
var ocTypes = map[string]bool{"message.in": true, "message.sending": true, "message.out": true, "agent.start": true,
	"agent.end": true, "tool.start": true, "tool.end": true}

// Detect claims JSONL whose first records are OpenClaw telemetry records (a
// known type with a sessionKey, agentId or channel).
func (openClaw) Detect(name string, head []byte) bool {
	return anyJSONL(head, 30, func(r *struct {
		Type       string  `json:"type"`
		SessionKey *string `json:"sessionKey"`
		AgentID    *string `json:"agentId"`
		Channel    *string `json:"channel"`
	}) bool {
		return ocTypes[r.Type] && (r.SessionKey != nil || r.AgentID != nil || r.Channel != nil)
	})
}

// ocRecord is one telemetry record.
type ocRecord struct {
	Type       string          `json:"type"`
	SessionKey string          `json:"sessionKey"`
	AgentID    string          `json:"agentId"`
	Timestamp  any             `json:"timestamp"`
	Prompt     string          `json:"prompt"`
	Messages   json.RawMessage `json:"messages"`
	ToolName   string          `json:"toolName"`
	Params     json.RawMessage `json:"params"`
	Success    *bool           `json:"success"`
	Content    json.RawMessage `json:"content"`
	Error      json.RawMessage `json:"error"`
	Result     json.RawMessage `json:"result"`

	line int64
	key  string // the run the record belongs to
}

// ocSnapshot is a run's largest history snapshot.
type ocSnapshot struct {
	line, cut int64 // line of the record; first line of its agent.start pair
	msgs      []json.RawMessage
}

// ocRun is the per-run state of the import.
type ocRun struct {
	conv        *piConv
	snap        *ocSnapshot
	snapDone    bool
	inOutput    bool
	lastPrompt  string
	sincePrompt int
}

// ocQueued is a tool.start waiting for its tool.end.
type ocQueued struct {
	id      string
	covered bool
}

func (openClaw) Import(f *File, r io.Reader) error {
	base := strings.TrimSuffix(filepath.Base(f.Path()), filepath.Ext(f.Path()))
	var recs []*ocRecord
	started := map[string]bool{} // session keys that start an agent
	err := lineReader[ocRecord]{}.read(f, r, func(line int64, raw []byte, rec *ocRecord) error {
		rec.line = line
		if rec.Type == "" {
			return f.Reject(line, "record without type", raw)
		}
		if m := bytes.TrimSpace(rec.Messages); len(m) > 0 && m[0] != '[' && string(m) != "null" {
			return f.Reject(line, "agent.start messages is not an array", raw)
		}
		if rec.Type == "agent.start" {
			started[ocKey(rec, base)] = true
		}
		recs = append(recs, rec)
		return nil
	})
	if err != nil {
		return err
	}

	// route records to runs and find each run's largest snapshot
	snaps := map[string]*ocSnapshot{}
	parents := map[string]string{}
	var order []string
	seen := map[string]bool{}
	type startInfo struct {
		line   int64
		prompt string
		msgs   bool
	}
	lastStart := map[string]startInfo{}
	mainByAgent := map[string]string{}
	mainAny, spawner := "", ""
	for _, rec := range recs {
		switch rec.Type {
		case "agent.start":
			rec.key = ocKey(rec, base)
		case "message.out":
			rec.key = firstNonEmpty(mainAny, base)
		case "tool.start", "tool.end", "agent.end":
			rec.key = ocKey(rec, base)
			if !started[rec.key] {
				if m := mainByAgent[rec.AgentID]; m != "" {
					rec.key = m
				} else if mainAny != "" {
					rec.key = mainAny
				}
			}
		default:
			continue // message.in, message.sending and later types: no event of their own
		}
		if !seen[rec.key] {
			seen[rec.key] = true
			order = append(order, rec.key)
			if ocIsSub(rec.key) {
				parents[rec.key] = firstNonEmpty(spawner, mainAny)
			}
		}
		switch rec.Type {
		case "agent.start":
			if !ocIsSub(rec.key) {
				mainByAgent[rec.AgentID], mainAny = rec.key, rec.key
			}
			hasMsgs := len(bytes.TrimSpace(rec.Messages)) > 0 && string(bytes.TrimSpace(rec.Messages)) != "null"
			prev, ok := lastStart[rec.key]
			lastStart[rec.key] = startInfo{rec.line, rec.Prompt, hasMsgs}
			if !hasMsgs {
				break
			}
			var msgs []json.RawMessage
			if err := json.Unmarshal(rec.Messages, &msgs); err != nil {
				if err := f.Reject(rec.line, "invalid agent.start messages: "+clipErr(err), rec.Messages); err != nil {
					return err
				}
				break
			}
			if cur := snaps[rec.key]; cur == nil || len(msgs) > len(cur.msgs) {
				cut := rec.line
				if ok && !prev.msgs && prev.prompt == rec.Prompt {
					cut = prev.line
				}
				snaps[rec.key] = &ocSnapshot{line: rec.line, cut: cut, msgs: msgs}
			}
		case "tool.start":
			if rec.ToolName == "sessions_spawn" {
				spawner = rec.key
			}
		}
		rec.Messages = nil // only the kept snapshots stay in memory
	}

	runs := map[string]*ocRun{}
	for _, k := range order {
		b, err := f.NewRun(k)
		if err != nil {
			return err
		}
		b.Run.Harness = "openclaw"
		b.Run.ParentRunID = parents[k]
		rs := &ocRun{conv: &piConv{b: b}}
		if s := snaps[k]; s != nil && len(s.msgs) > 0 {
			rs.snap = s
		}
		runs[k] = rs
	}
	queues := map[string][]ocQueued{}
	var pendingTS *time.Time
	for i, rec := range recs {
		if i&1023 == 1023 && f.Ctx != nil {
			if err := f.Ctx.Err(); err != nil {
				return err
			}
		}
		switch rec.Type {
		case "message.in":
			pendingTS = ParseTime(rec.Timestamp)
			continue
		}
		rs := runs[rec.key]
		if rs == nil {
			continue // a record without an event of its own
		}
		qkey := rec.SessionKey + "\x00" + rec.ToolName
		var ts *time.Time // the channel message's time lends itself to the prompt it starts
		if rec.Type == "agent.start" && !ocIsSub(rec.key) {
			ts, pendingTS = pendingTS, nil
		}
		if rs.snap != nil && rec.line < rs.snap.cut { // covered by the snapshot
			switch rec.Type {
			case "tool.start":
				queues[qkey] = append(queues[qkey], ocQueued{covered: true})
			case "tool.end":
				if q := queues[qkey]; len(q) > 0 {
					queues[qkey] = q[1:]
				}
			}
			continue
		}
		if rs.snap != nil && !rs.snapDone {
			rs.snapDone = true
			if err := rs.snapshot(f); err != nil {
				return err
			}
		}
		b := rs.conv.b
		switch rec.Type {
		case "agent.start":
			if rec.Prompt == rs.lastPrompt && rs.sincePrompt == 0 {
				continue // the second record of the pair each prompt produces
			}
			if t := ParseTime(rec.Timestamp); t != nil {
				ts = t
			}
			if err := rs.add(schema.Event{Kind: schema.KindUser, Role: "user", TS: ts, Line: rec.line, Text: rec.Prompt}); err != nil {
				return err
			}
			rs.lastPrompt, rs.sincePrompt = strings.Clone(rec.Prompt), 0
		case "tool.start":
			id := "tool.start:" + strconv.FormatInt(rec.line, 10)
			queues[qkey] = append(queues[qkey], ocQueued{id: id})
			if err := rs.add(schema.Event{Kind: schema.KindToolCall, Role: "assistant", Line: rec.line,
				ToolName: rec.ToolName, CallID: id, Args: string(rec.Params)}); err != nil {
				return err
			}
		case "tool.end":
			var q ocQueued
			if qs := queues[qkey]; len(qs) > 0 {
				q, queues[qkey] = qs[0], qs[1:]
			}
			if q.covered {
				continue
			}
			e := schema.Event{Kind: schema.KindToolResult, Role: "tool", Line: rec.line, ToolName: rec.ToolName, CallID: q.id,
				IsError: rec.Success != nil && !*rec.Success, Text: firstNonEmpty(valueText(rec.Result), valueText(rec.Error))}
			if err := rs.add(e); err != nil {
				return err
			}
		case "message.out":
			if err := rs.add(schema.Event{Kind: schema.KindAssistant, Role: "assistant", TS: ParseTime(rec.Timestamp), Line: rec.line, Text: valueText(rec.Content)}); err != nil {
				return err
			}
		case "agent.end":
			if t := valueText(rec.Error); t != "" || rec.Success != nil && !*rec.Success {
				t = firstNonEmpty(t, "agent run failed")
				if err := rs.add(schema.Event{Kind: schema.KindError, Role: "system", Line: rec.line, IsError: true, Text: t}); err != nil {
					return err
				}
				if IsOverflowText(t) {
					b.SetEnd(schema.EndContextOverflow, t)
				} else {
					b.SetEnd(schema.EndError, t)
				}
			}
		}
	}
	for _, k := range order {
		rs := runs[k]
		if rs.snap != nil && !rs.snapDone {
			if err := rs.snapshot(f); err != nil {
				return err
			}
		}
		if err := rs.conv.finish(); err != nil {
			return err
		}
	}
	return nil
}

// snapshot imports the run's history snapshot.
func (rs *ocRun) snapshot(f *File) error {
	s := rs.snap
	for i, raw := range s.msgs {
		var m piMessage
		var blocks []piBlock
		var text string
		raw = bytes.TrimSpace(raw)
		reason := "not an object"
		if len(raw) > 0 && raw[0] == '{' {
			reason = piDecodeMessage(raw, &m, &blocks, &text)
		}
		if reason != "" {
			if err := f.Reject(s.line, fmt.Sprintf("agent.start messages[%d]: %s", i, reason), raw); err != nil {
				return err
			}
			continue
		}
		if err := rs.conv.message(s.line, ParseTime(m.Timestamp), &m, blocks, text); err != nil {
			return err
		}
	}
	rs.inOutput = rs.conv.lastKind.IsOutput()
	rs.snap.msgs = nil
	return nil
}

// add adds a telemetry event, beginning a model call at an output that
// follows an input.
func (rs *ocRun) add(e schema.Event) error {
	out := e.Kind.IsOutput()
	if out && !rs.inOutput {
		rs.conv.b.NewCall()
	}
	rs.inOutput = out
	rs.sincePrompt++
	rs.conv.lastKind, rs.conv.lastStop = e.Kind, ""
	return rs.conv.b.Add(e)
}

// ocKey is the session a record names: its sessionKey, else the agent's main
// session, else the file's name.
func ocKey(rec *ocRecord, base string) string {
	switch {
	case rec.SessionKey != "":
		return rec.SessionKey
	case rec.AgentID != "":
		return "agent:" + rec.AgentID + ":main"
	}
	return base
}

func ocIsSub(key string) bool { return strings.Contains(key, ":subagent:") }
