package diagnose

import (
	"encoding/json"
	"strings"

	"github.com/trajmine/trajmine/schema"
)

// ReReadKind says where the earlier output of a re-read target was when it was read again.
type ReReadKind int

// Re-read kinds.
const (
	// ReReadVisible: the earlier read's output was still in the prompt of the
	// call that read the target again.
	ReReadVisible ReReadKind = iota
	// ReReadHidden: the earlier output had been in a prompt but was compacted,
	// cut or hidden by the time of the re-reading call.
	ReReadHidden
	// ReReadPending: the earlier output had never been in a prompt yet (both
	// reads were made by the same call, or the earlier read has no result).
	ReReadPending
)

// String returns "visible", "hidden" or "pending".
func (k ReReadKind) String() string {
	switch k {
	case ReReadVisible:
		return "visible"
	case ReReadHidden:
		return "hidden"
	case ReReadPending:
		return "pending"
	}
	return "unknown"
}

// MarshalText encodes k as its String.
func (k ReReadKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// ReRead is one read of a target that an earlier read in the same run already read.
type ReRead struct {
	Target   string     `json:"target"`
	Tool     string     `json:"tool"`
	PrevSeq  int64      `json:"prev_seq"` // seq of the earlier read's tool_call
	Seq      int64      `json:"seq"`      // seq of this read's tool_call
	Call     int64      `json:"call"`     // the call that made this read
	Kind     ReReadKind `json:"kind"`
	PrevKey  string     `json:"prev_key"` // tool key of the earlier output; empty when it has none
	Visible  bool       `json:"visible"`  // Kind == ReReadVisible
	PrevTool string     `json:"prev_tool"`
}

// RunReReads is one run's re-reads.
type RunReReads struct {
	RunID   string   `json:"run_id"`
	Reads   int64    `json:"reads"` // tool calls classified as reads with a non-empty target
	Visible int64    `json:"visible"`
	Hidden  int64    `json:"hidden"`
	Pending int64    `json:"pending"`
	List    []ReRead `json:"list"` // in seq order
}

// Total returns the number of re-reads.
func (r RunReReads) Total() int64 { return r.Visible + r.Hidden + r.Pending }

// ReReads finds the run's re-reads: tool_call events classified as reads by
// isRead (DefaultIsRead when nil) whose non-empty target equals the target of
// an earlier read in the run. v is the run's Visibility (NewVisibility).
//
//  1. Each read is paired with its output: the tool_result with the same
//     call_id (or, failing that, the same tool_key as the call).
//  2. For a re-read made by call t, every earlier read of the target is
//     examined: if any earlier output is visible at t, the re-read is
//     ReReadVisible and PrevSeq is the latest such read; else if any earlier
//     output was carried by some call before t, it is ReReadHidden (PrevSeq the
//     latest such read); else ReReadPending (PrevSeq the latest earlier read).
//  3. A read made by a copied call (v's VisibilityOptions.Copied: a resumed
//     session's copy of the run it continues) is counted in that run, not
//     here (neither in Reads nor as a re-read); it is still an earlier read
//     of its target for the run's own calls.
func ReReads(events []schema.Event, v *Visibility, isRead func(toolName, args string) bool) RunReReads {
	if isRead == nil {
		isRead = DefaultIsRead
	}
	var res RunReReads
	if len(events) > 0 {
		res.RunID = events[0].RunID
	}
	resultKey := map[string]string{} // call_id → tool key of its result
	for _, e := range events {
		if e.Kind == schema.KindToolResult && e.CallID != "" {
			if _, ok := resultKey[e.CallID]; !ok {
				resultKey[e.CallID] = e.OutputKey()
			}
		}
	}
	type prior struct {
		seq  int64
		key  string
		tool string
	}
	seen := map[string][]prior{}
	for _, e := range events {
		if e.Kind != schema.KindToolCall || e.Target == "" || !isRead(e.ToolName, e.Args) {
			continue
		}
		copied := v != nil && v.copied[e.Turn]
		if !copied {
			res.Reads++
		}
		key := e.ToolKey
		if k, ok := resultKey[e.CallID]; ok && e.CallID != "" {
			key = k
		}
		if v != nil {
			if _, ok := v.Output(key); !ok {
				key = ""
			}
		}
		if prev := seen[e.Target]; len(prev) > 0 && !copied {
			rr := ReRead{Target: e.Target, Tool: e.ToolName, Seq: e.Seq, Call: e.Turn, Kind: ReReadPending}
			last := prev[len(prev)-1]
			rr.PrevSeq, rr.PrevKey, rr.PrevTool = last.seq, last.key, last.tool
			hiddenFound := false
			for i := len(prev) - 1; i >= 0; i-- {
				p := prev[i]
				if p.key == "" || v == nil {
					continue
				}
				o, _ := v.Output(p.key)
				if o.VisibleAt(e.Turn) {
					rr.Kind, rr.PrevSeq, rr.PrevKey, rr.PrevTool = ReReadVisible, p.seq, p.key, p.tool
					break
				}
				if !hiddenFound && len(o.Spans) > 0 && o.Spans[0].From < e.Turn {
					hiddenFound = true
					rr.Kind, rr.PrevSeq, rr.PrevKey, rr.PrevTool = ReReadHidden, p.seq, p.key, p.tool
				}
			}
			rr.Visible = rr.Kind == ReReadVisible
			switch rr.Kind {
			case ReReadVisible:
				res.Visible++
			case ReReadHidden:
				res.Hidden++
			default:
				res.Pending++
			}
			res.List = append(res.List, rr)
		}
		seen[e.Target] = append(seen[e.Target], prior{e.Seq, key, e.ToolName})
	}
	return res
}

// DefaultIsRead is the default read classifier: a tool whose lowercased name
// contains "read", "view", "cat" or "open", or a shell-like call whose command
// (the "command", "cmd" or "script" argument, unwrapped from `bash -lc …`)
// starts with cat, head, tail, nl, less, view or `sed -n`.
func DefaultIsRead(toolName, args string) bool {
	n := strings.ToLower(toolName)
	for _, w := range []string{"read", "view", "cat", "open"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	fields := strings.Fields(rrCommand(args))
	if len(fields) == 0 {
		return false
	}
	switch strings.Trim(fields[0], `"'`) {
	case "cat", "head", "tail", "nl", "less", "view":
		return true
	case "sed":
		return len(fields) > 1 && fields[1] == "-n"
	}
	return false
}

// rrCommand extracts the command text from a tool call's arguments.
func rrCommand(args string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(args), &m) != nil {
		return strings.TrimSpace(args)
	}
	for _, k := range []string{"command", "cmd", "script"} {
		raw, ok := m[k]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return rrUnwrap(strings.Fields(s), s)
		}
		var parts []string
		if json.Unmarshal(raw, &parts) == nil {
			if len(parts) >= 3 && rrIsShell(parts[0]) && strings.HasPrefix(parts[1], "-") && strings.Contains(parts[1], "c") {
				return strings.TrimSpace(parts[len(parts)-1])
			}
			return strings.Join(parts, " ")
		}
	}
	return ""
}

// rrUnwrap strips a leading `bash -lc` (or sh/zsh -c) from a command string.
func rrUnwrap(fields []string, s string) string {
	if len(fields) >= 3 && rrIsShell(fields[0]) && strings.HasPrefix(fields[1], "-") && strings.Contains(fields[1], "c") {
		rest := strings.TrimSpace(s[strings.Index(s, fields[1])+len(fields[1]):])
		return strings.Trim(rest, `"'`)
	}
	return strings.TrimSpace(s)
}

// rrIsShell reports whether name is a shell binary.
func rrIsShell(name string) bool {
	switch name {
	case "bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh":
		return true
	}
	return false
}
