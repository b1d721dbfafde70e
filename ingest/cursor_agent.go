package ingest

import (
	"io"
	"path/filepath"
	"strings"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// cursorAgent reads Cursor agent transcripts
// (~/.cursor/projects/<slug>/agent-transcripts/<id>.jsonl, sub-agents in
// <id>/subagents/*.jsonl): lines {role, message:{content:[…]}}, in current
// builds with keys beside them (metadata, model, …) and roleless
// {"type":"turn_ended"} lines closing a turn (issue 30.2).
//
// Steps per line:
//  1. Decode {role, message, model}; a roleless turn_ended line is passed
//     over (the next assistant output begins a new model call anyway); a
//     line that is not a JSON object, has no role, or whose message
//     content is neither text nor a list of blocks, is rejected.
//  2. Anthropic-like blocks: text → user or assistant events, thinking →
//     reasoning, tool_use (tool_call) → tool calls, tool_result
//     (tool-result) → tool results, another block with text → a user or
//     assistant event (tbEmit). The
//     transcripts carry no call ids on tool_use blocks, so calls and results
//     are linked by callLinker's rule: a call without an id is named
//     "call-<n>", and a result answers the oldest call still open (keeping
//     the log's tool_use_id as its tool key).
//  3. The run is the file: its id is the file name; a transcript in a
//     subagents/ directory is the sub-agent run "<id>/<name>" of the parent
//     transcript <id> (the directory that holds subagents/).
//  4. There are no timestamps or usage in the transcript (Cursor keeps
//     them in its SQLite store, not read): usage stays estimated. A line's
//     model, where given, is the run's model.
//  5. The end reason is inferred from the last event.
type cursorAgent struct{ formatInfo }

type cuLine struct {
	Type    string `json:"type"`
	Role    string `json:"role"`
	Model   string `json:"model"`
	Message *struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// cuTurnEnded is the type of the roleless line that closes a turn.
const cuTurnEnded = "turn_ended"

// Detect claims JSONL whose every line (of the first 30) is either
// {role: user|assistant, message: {content: [blocks]}} with no type (other
// keys beside them are allowed) or a roleless {"type": "turn_ended"}, with
// at least one of the first kind.
func (cursorAgent) Detect(name string, head []byte) bool {
	lines := firstLines(head, 30)
	msgs := 0
	for i, line := range lines {
		var keys map[string]json.RawMessage
		if !lineDecodes(line, &keys) {
			return msgs > 0 && i == len(lines)-1 // a last line cut by the head
		}
		var l cuLine
		if !lineDecodes(line, &l) {
			return false
		}
		if l.Type == cuTurnEnded && keys["role"] == nil && keys["message"] == nil {
			continue
		}
		if keys["type"] != nil || l.Role != "user" && l.Role != "assistant" || l.Message == nil || len(l.Message.Content) == 0 || l.Message.Content[0] != '[' {
			return false
		}
		msgs++
	}
	return msgs > 0
}

func (cursorAgent) Import(f *File, r io.Reader) error {
	path := f.Path()
	id := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	parent := ""
	if dir := filepath.Dir(path); filepath.Base(dir) == "subagents" {
		parent = filepath.Base(filepath.Dir(dir))
		id = parent + "/" + id
	}
	var b *RunBuilder
	var q callLinker
	var last schema.EventKind
	err := lineReader[cuLine]{decode: jsonValue[cuLine]}.read(f, r, func(line int64, raw []byte, l *cuLine) error {
		if l.Role == "" && l.Type == cuTurnEnded {
			return nil
		}
		if l.Role == "" || l.Message == nil {
			return f.Reject(line, "line without a role and a message", raw)
		}
		blocks, ok := tbBlocks(l.Message.Content)
		if !ok {
			return f.Reject(line, "message content is neither text nor a list of blocks", raw)
		}
		if b == nil {
			var err error
			if b, err = f.NewRun(id); err != nil {
				return err
			}
			b.Run.Harness = "cursor"
			b.Run.ParentRunID = parent
		}
		b.NoteModel(l.Model)
		k, err := tbEmit(b, &q, l.Role, blocks, nil, line)
		if k != "" {
			last = k
		}
		return err
	})
	if err != nil || b == nil {
		return err
	}
	inferEnd(b, last)
	return b.Finish()
}
