package ingest

import (
	"io"
	"path/filepath"
	"strings"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// gptme reads gptme conversation logs
// (~/.local/share/gptme/logs/<date>-<name>/conversation.jsonl): one message
// {role, content, timestamp, pinned?, hide?, metadata?} per line.
//
// gptme's tool calls are not structured: the model writes them as fenced
// code blocks in its reply and gptme runs them. The rule used here:
//  1. A fenced block (a line opening with ``` and an info string, closed by
//     a line of at least as many backticks) is a tool call when the info
//     string's first word is a block type gptme's tools register: shell
//     (→ tool "shell", args {"command": body}); ipython, py (→ "ipython",
//     {"code": body}; gptme does not run ```python blocks, it asks the
//     model to repeat them as ```ipython); save, append, patch, morph (→
//     that tool, {"path": the second word, "content": body}); tmux, gh,
//     subagent (→ that tool, {"input": body}). Other blocks (```python,
//     ```bash, ```json …) are text. The reply's text, blocks included, is
//     also its assistant event.
//  2. Results: the system and tool messages that follow an assistant
//     message answer its calls in order (callLinker: the oldest open call
//     first); a user or assistant message closes the calls left open. A tool message with no call left is an unlinked tool result;
//     a system message with no call left is a system event.
//
// Other steps:
//   - a line that is not a JSON object or has no role is rejected;
//   - every assistant message is one model call; metadata.model names its
//     model, metadata.usage its usage and metadata.cost its cost (summed
//     into the run's cost). Usage keys are Anthropic's names: for a model
//     of gptme's anthropic provider ("anthropic/…") input_tokens excludes
//     the cache (input = input + cache read + cache creation); for other
//     providers (openai, openrouter …: OpenAI-compatible APIs) it includes
//     it;
//   - the run is the log directory (its name; else the file name);
//   - the end reason is inferred from the last event.
type gptme struct{ formatInfo }

const gptmeAnchor = "conversation.jsonl"

type gmeMessage struct {
	Role      string          `json:"role"`
	Content   *string         `json:"content"`
	Timestamp string          `json:"timestamp"`
	Pinned    json.RawMessage `json:"pinned"`
	Hide      json.RawMessage `json:"hide"`
	Metadata  *struct {
		Model string `json:"model"`
		Usage *struct {
			Input         int64 `json:"input_tokens"`
			Output        int64 `json:"output_tokens"`
			CacheRead     int64 `json:"cache_read_tokens"`
			CacheCreation int64 `json:"cache_creation_tokens"`
		} `json:"usage"`
		Cost *float64 `json:"cost"`
	} `json:"metadata"`
}

// Detect claims JSONL of {role, content (a string), timestamp} messages in a
// file named *conversation.jsonl, or in any file when a message of the head
// has gptme's pinned or hide flag.
func (gptme) Detect(name string, head []byte) bool {
	lines := firstLines(head, 30)
	named := strings.HasSuffix(filepath.Base(name), gptmeAnchor)
	for i, line := range lines {
		var m gmeMessage
		if !lineDecodes(line, &m) {
			return false
		}
		if m.Role == "" || m.Content == nil || m.Timestamp == "" {
			return false
		}
		if named && i == 0 || m.Pinned != nil || m.Hide != nil {
			return true
		}
	}
	return false
}

// gptmeBlock is one fenced tool block of a reply.
type gptmeBlock struct {
	tool, args string
}

var gptmeTools = map[string]string{"shell": "shell", "ipython": "ipython", "py": "ipython",
	"save": "save", "append": "append", "patch": "patch", "morph": "morph", "tmux": "tmux", "gh": "gh", "subagent": "subagent"}

// gptmeBlocks returns the tool blocks of text (rule 1 of the doc).
func gptmeBlocks(text string) []gptmeBlock {
	var out []gptmeBlock
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], " \t\r")
		if !strings.HasPrefix(l, "```") {
			continue
		}
		fence := len(l) - len(strings.TrimLeft(l, "`"))
		info := strings.Fields(l[fence:])
		var body []string
		j := i + 1
		for ; j < len(lines); j++ {
			c := strings.TrimSpace(lines[j])
			if strings.HasPrefix(c, strings.Repeat("`", fence)) && strings.Trim(c, "`") == "" {
				break
			}
			body = append(body, lines[j])
		}
		i = j
		if len(info) == 0 {
			continue
		}
		tool, ok := gptmeTools[info[0]]
		if !ok {
			continue
		}
		content := strings.Join(body, "\n")
		var args any
		switch tool {
		case "shell":
			args = map[string]string{"command": content}
		case "ipython":
			args = map[string]string{"code": content}
		case "save", "append", "patch", "morph":
			path := ""
			if len(info) > 1 {
				path = info[1]
			}
			args = map[string]string{"path": path, "content": content}
		default:
			args = map[string]string{"input": content}
		}
		b, _ := json.Marshal(args)
		out = append(out, gptmeBlock{tool, string(b)})
	}
	return out
}

func (gptme) Import(f *File, r io.Reader) error {
	path := f.Path()
	id := dirRunID(path, gptmeAnchor)
	var b *RunBuilder
	var q callLinker
	var last schema.EventKind
	var cost float64
	hasCost := false
	err := lineReader[gmeMessage]{decode: jsonValue[gmeMessage]}.read(f, r, func(line int64, raw []byte, m *gmeMessage) error {
		if m.Role == "" {
			return f.Reject(line, "message without a role", raw)
		}
		if b == nil {
			var err error
			if b, err = f.NewRun(id); err != nil {
				return err
			}
			b.Run.Harness = "gptme"
		}
		text := ""
		if m.Content != nil {
			text = *m.Content
		}
		ts := ParseTime(m.Timestamp)
		add := eventAdder(b, ts, line, &last)
		switch m.Role {
		case "assistant":
			q.drop() // results follow the reply that made the calls
			b.NewCall()
			if err := add(schema.Event{Kind: schema.KindAssistant, Role: "assistant", Text: text}); err != nil {
				return err
			}
			for _, blk := range gptmeBlocks(text) {
				if err := add(schema.Event{Kind: schema.KindToolCall, Role: "assistant", ToolName: blk.tool, CallID: q.call(""), Args: blk.args}); err != nil {
					return err
				}
			}
			if md := m.Metadata; md != nil {
				b.NoteModel(md.Model)
				if u := md.Usage; u != nil {
					in := u.Input
					if strings.HasPrefix(md.Model, "anthropic/") {
						in += u.CacheRead + u.CacheCreation
					}
					b.SetUsage(schema.Usage{TS: ts, Model: md.Model, InputTokens: in, OutputTokens: u.Output, CacheReadTokens: u.CacheRead, CacheWriteTokens: u.CacheCreation})
				}
				if md.Cost != nil {
					cost += *md.Cost
					hasCost = true
				}
			}
			return nil
		case "tool", "system":
			if m.Role == "tool" || q.hasOpen() {
				callID, key := q.result("")
				return add(schema.Event{Kind: schema.KindToolResult, Role: m.Role, CallID: callID, ToolKey: key, Text: text})
			}
			return add(schema.Event{Kind: schema.KindSystem, Role: "system", Text: text})
		default:
			q.drop()
			return add(schema.Event{Kind: schema.KindUser, Role: m.Role, Text: text})
		}
	})
	if err != nil || b == nil {
		return err
	}
	if hasCost {
		b.Run.CostUSD = &cost
	}
	inferEnd(b, last)
	return b.Finish()
}
