package ingest

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"time"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// ampThread reads Amp's thread files (~/.local/share/amp/threads/T-<id>.json):
// one JSON object {v, id, created, title, messages, env, meta, usageLedger}
// per thread, one run.
//
// Steps:
//  1. Run id: the thread's id, else the file name's stem; start: created
//     (ms), else the first timestamp.
//  2. Messages {role: user|assistant, content, usage?, messageId?}; content
//     is a text or Anthropic-shaped blocks: text → user or assistant
//     events, thinking → reasoning, tool_use → a tool call with its id,
//     tool_result → the result of the call it names (tool_use_id and
//     content, or Amp's toolUseID and run {status, result, error}: an error
//     status is a failed result). A message that is not an object, has
//     another role, or content of another shape is rejected at its line.
//  3. Each assistant message is one model call. Its usage (the current
//     schema) is usage {model, inputTokens, outputTokens,
//     cacheCreationInputTokens, cacheReadInputTokens, totalInputTokens,
//     timestamp}: inputTokens leaves the cache out, so the call's input is
//     totalInputTokens, else the sum of the three.
//  4. When the thread has usageLedger.events (older threads), they are the
//     usage instead, as ccusage reads them (the messages' usage is then
//     ignored): each event {timestamp, model, tokens {input, output},
//     toMessageId} is the usage of the assistant message whose messageId
//     it names, with that message's cache reads and writes (which the
//     ledger does not count), else of the next assistant message without
//     an event, else a model call of its own.
//  5. End: inferred from the last event.
type ampThread struct{ formatInfo }

// ampName is an Amp thread file name: T-<id>.json.
var ampName = regexp.MustCompile(`^T-[0-9A-Za-z_-]+\.json$`)

// Detect claims a JSON object with a messages array that is named like an
// Amp thread (T-<id>.json) or has Amp's usageLedger.
func (ampThread) Detect(name string, head []byte) bool {
	h := trimHead(head)
	if len(h) == 0 || h[0] != '{' {
		return false
	}
	keys := headKeys(h, 32)
	msgs, ok := headKeyNamed(keys, "messages")
	if !ok || msgs.kind != '[' {
		return false
	}
	_, ledger := headKeyNamed(keys, "usageLedger")
	return ledger || ampName.MatchString(filepath.Base(name))
}

// ampHeader is the thread object without its messages.
type ampHeader struct {
	ID          string `json:"id"`
	Created     any    `json:"created"`
	UsageLedger *struct {
		Events []ampLedgerEvent `json:"events"`
	} `json:"usageLedger"`
}

// ampLedgerEvent is one usageLedger event.
type ampLedgerEvent struct {
	Timestamp string `json:"timestamp"`
	Model     string `json:"model"`
	Tokens    struct {
		Input  int64 `json:"input"`
		Output int64 `json:"output"`
	} `json:"tokens"`
	ToMessageID json.RawMessage `json:"toMessageId"`
}

// ampMessage is one message of a thread.
type ampMessage struct {
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	MessageID json.RawMessage `json:"messageId"`
	Usage     *ampUsage       `json:"usage"`
}

// ampUsage is an assistant message's usage.
type ampUsage struct {
	Model                    string `json:"model"`
	InputTokens              int64  `json:"inputTokens"`
	OutputTokens             int64  `json:"outputTokens"`
	CacheCreationInputTokens int64  `json:"cacheCreationInputTokens"`
	CacheReadInputTokens     int64  `json:"cacheReadInputTokens"`
	TotalInputTokens         *int64 `json:"totalInputTokens"`
	Timestamp                string `json:"timestamp"`
}

// ampBlock is a content block with Amp's own tool_result fields.
type ampBlock struct {
	tbBlock
	ToolUseID2 string `json:"toolUseID"`
	Run        *struct {
		Status string          `json:"status"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	} `json:"run"`
}

func (ampThread) Import(f *File, r io.Reader) error {
	var hd ampHeader
	d, _, elems, b, err := docRun(f, r, &hd, "thread", "messages", func() string { return hd.ID })
	if b == nil {
		return err
	}
	b.Run.Harness = "amp"
	b.Run.StartedAt = ParseTime(hd.Created)
	ledger := hd.UsageLedger != nil && len(hd.UsageLedger.Events) > 0
	a := &ampRun{b: b, byID: map[string]int64{}}
	err = decodeElems(f, d, elems, "messages[%d]", func(i int, line int64, el jsonSpan, m *ampMessage) error {
		if m.Role != "user" && m.Role != "assistant" {
			return f.Reject(line, fmt.Sprintf("messages[%d]: unknown role %s", i, clipQuote(m.Role)), el.raw)
		}
		blocks, ok := ampBlocks(m.Content)
		if !ok {
			return f.Reject(line, fmt.Sprintf("messages[%d]: content is neither text nor a list of blocks", i), el.raw)
		}
		return a.message(m, blocks, line, ledger)
	})
	if err != nil {
		return err
	}
	if ledger {
		a.ledger(hd.UsageLedger.Events)
	}
	inferEnd(b, a.last)
	return b.Finish()
}

// ampBlocks decodes message content: a string or a list of blocks.
func ampBlocks(raw json.RawMessage) ([]ampBlock, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, true
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, false
		}
		return []ampBlock{{tbBlock: tbBlock{Type: "text", Text: s}}}, true
	}
	var blocks []ampBlock
	if json.Unmarshal(raw, &blocks) != nil {
		return nil, false
	}
	return blocks, true
}

// ampRun is the state of a thread's run.
type ampRun struct {
	b     *RunBuilder
	q     callLinker
	last  schema.EventKind
	calls []int64          // the model call of each assistant message, in order
	cache []ampUsage       // each assistant message's usage (for the ledger's cache counts)
	byID  map[string]int64 // assistant message's messageId → its index in calls
}

// message adds one message's events (steps 2 and 3); with a ledger the
// message's usage is not the call's.
func (a *ampRun) message(m *ampMessage, blocks []ampBlock, line int64, ledger bool) error {
	var ts *time.Time
	if m.Role == "assistant" {
		a.b.NewCall()
		turn := a.b.Turns() - 1
		if id := scalarString(m.MessageID); id != "" {
			a.byID[id] = int64(len(a.calls))
		}
		a.calls = append(a.calls, turn)
		var u ampUsage
		if m.Usage != nil {
			u = *m.Usage
			ts = ParseTime(u.Timestamp)
			if !ledger {
				in := u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
				if u.TotalInputTokens != nil {
					in = *u.TotalInputTokens
				}
				a.b.SetUsageAt(turn, schema.Usage{TS: ts, Model: u.Model, InputTokens: in, OutputTokens: u.OutputTokens,
					CacheReadTokens: u.CacheReadInputTokens, CacheWriteTokens: u.CacheCreationInputTokens})
			}
		}
		a.cache = append(a.cache, u)
	}
	add := eventAdder(a.b, ts, line, &a.last)
	for _, blk := range blocks {
		if blk.Type == "tool_result" && blk.ToolUseID == "" && blk.ToolUseID2 != "" {
			if err := a.runResult(blk, add); err != nil {
				return err
			}
			continue
		}
		k, err := tbEmit(a.b, &a.q, m.Role, []tbBlock{blk.tbBlock}, ts, line)
		if k != "" {
			a.last = k
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// runResult adds a tool_result block in Amp's own shape: toolUseID and
// run {status, result, error}.
func (a *ampRun) runResult(blk ampBlock, add func(schema.Event) error) error {
	id, key := a.q.result(blk.ToolUseID2)
	e := schema.Event{Kind: schema.KindToolResult, Role: "tool", CallID: id, ToolKey: key}
	if blk.Run != nil {
		switch {
		case blk.Run.Status == "error":
			e.IsError = true
			if blk.Run.Error != nil {
				e.Text = blk.Run.Error.Message
			}
		case blk.Run.Status == "cancelled":
			e.Text = "[cancelled]"
		default:
			e.Text = valueText(blk.Run.Result)
		}
	}
	return add(e)
}

// ledger sets the calls' usage from the ledger's events (step 4).
func (a *ampRun) ledger(events []ampLedgerEvent) {
	used := make([]bool, len(a.calls))
	byTurn := map[int64]*schema.Usage{}
	var turns []int64
	next, extra := 0, int64(0)
	for _, ev := range events {
		var turn int64
		var cache *ampUsage
		if i, ok := a.byID[scalarString(ev.ToMessageID)]; ok {
			used[i], turn, cache = true, a.calls[i], &a.cache[i]
		} else {
			for next < len(used) && used[next] {
				next++
			}
			if next < len(used) {
				used[next], turn = true, a.calls[next]
			} else { // a call of its own, after the messages'
				turn = a.b.Turns() + extra
				extra++
			}
		}
		u := byTurn[turn]
		if u == nil {
			u = &schema.Usage{TS: ParseTime(ev.Timestamp), Model: ev.Model}
			byTurn[turn] = u
			turns = append(turns, turn)
		}
		u.InputTokens += ev.Tokens.Input
		u.OutputTokens += ev.Tokens.Output
		if cache != nil && u.CacheReadTokens+u.CacheWriteTokens == 0 { // a message's cache counts once
			u.CacheReadTokens, u.CacheWriteTokens = cache.CacheReadInputTokens, cache.CacheCreationInputTokens
			u.InputTokens += cache.CacheReadInputTokens + cache.CacheCreationInputTokens
		}
	}
	for _, t := range turns {
		a.b.SetUsageAt(t, *byTurn[t])
	}
}
