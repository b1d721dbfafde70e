package dashboards

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
)

// Conversation is one run's trace as the drill-down's conversation view
// shows it: its events in seq order (messages, reasoning, tool calls with
// their arguments, tool outputs, compactions, context operations, errors),
// each model call's logged usage and cost, and what the run's context
// operations did to each tool output. The caller (analysis.Conversation)
// fills it from the store with the log text redacted as the rest of the
// page; dashboards only encodes it. The same type is trajmine serve's
// conversation endpoint's JSON.
type Conversation struct {
	RunID string `json:"run_id"`
	// Calls are the run's model calls with a logged usage row, by turn.
	Calls []ConvCall `json:"calls"`
	// Items are the run's events in seq order; a context operation logged
	// at no event's seq is an item of its own (Kind "context_op") at its
	// place.
	Items []ConvItem `json:"items"`
	// Events is how many events the run has; Limit the characters each
	// text (and each tool call's arguments) was cut at, 0 for whole; Cut
	// how many texts were cut.
	Events int `json:"events"`
	Limit  int `json:"limit"`
	Cut    int `json:"cut"`
	// Encoded is the conversation as the page carries it, once
	// ConversationSize has encoded it (Write then does not encode it
	// again); "" until then. Change the conversation after, and Encoded
	// must be cleared.
	Encoded string `json:"-"`
}

// ConvCall is one model call's logged usage (a usage row) and its cost.
type ConvCall struct {
	Turn       int64  `json:"turn"`
	Model      string `json:"model,omitempty"`
	Input      int64  `json:"input"` // including cache reads and writes
	Output     int64  `json:"output"`
	CacheRead  int64  `json:"cache_read"`
	CacheWrite int64  `json:"cache_write"`
	Reasoning  int64  `json:"reasoning"`
	Estimated  bool   `json:"estimated,omitempty"`
	// CostUSD is the call's tokens × the price table (diagnose's formula
	// for one usage row); nil when its model has no price.
	CostUSD *float64 `json:"cost_usd,omitempty"`
}

// ConvItem is one event of a run (or a context operation at no event).
type ConvItem struct {
	Seq    int64  `json:"seq"`
	Turn   int64  `json:"turn"`
	Kind   string `json:"kind"` // schema.EventKind, or context_op
	Role   string `json:"role,omitempty"`
	Tool   string `json:"tool,omitempty"`
	CallID string `json:"call_id,omitempty"`
	Key    string `json:"key,omitempty"`
	Target string `json:"target,omitempty"`
	Args   string `json:"args,omitempty"` // a tool call's arguments (JSON)
	Text   string `json:"text,omitempty"`
	Chars  int64  `json:"chars"`  // the text's length as logged (events.chars)
	Tokens int64  `json:"tokens"` // events.est_tokens
	// Cut: Text or Args is cut at Conversation.Limit characters.
	Cut   bool   `json:"cut,omitempty"`
	Error bool   `json:"error,omitempty"`
	Exit  *int64 `json:"exit,omitempty"`
	// Ops are the context operations logged at this event (its seq).
	Ops []ConvOp `json:"ops,omitempty"`
	// Fate is, for a tool output, what later context operations did to
	// it (a manage_context disable or enable naming its key, a masking or
	// truncation of it), in the order logged.
	Fate []ConvOp `json:"fate,omitempty"`
}

// ConvOp is one context operation (a context_ops row).
type ConvOp struct {
	Op      string `json:"op"`
	Seq     int64  `json:"seq"`
	Turn    int64  `json:"turn"`
	Key     string `json:"key,omitempty"`
	Before  *int64 `json:"before,omitempty"`
	After   *int64 `json:"after,omitempty"`
	Trigger string `json:"trigger,omitempty"`
	Detail  string `json:"detail,omitempty"`
}

// The page's conversation budget: trajmine report embeds the
// conversations of as many runs as fit ConversationBudget bytes of the page
// (compressed and base64-encoded, as the page carries them:
// ConversationSize), each text and tool-call argument cut at
// ConversationChars characters; trajmine serve shows every run's whole.
const (
	ConversationChars  = 500
	ConversationBudget = 8 << 20
)

// ConversationSize is how many bytes of the page c takes (its JSON,
// gzip-compressed and base64-encoded, as Write embeds it); it keeps the
// encoding in c.Encoded.
func ConversationSize(c *Conversation) (int, error) {
	if c.Encoded == "" {
		z, err := encodeConversation(c, nil)
		if err != nil {
			return 0, err
		}
		c.Encoded = z
	}
	return len(c.Encoded), nil
}

// encodeConversations is the page's conversations: per run, by its index
// in runs (the run list's records, Data.Runs: the key names no log text),
// its Conversation as gzip-compressed, base64-encoded JSON, which the
// page's script decodes (DecompressionStream) when the run is opened. Each
// run is compressed alone so that opening one decodes only its own. A
// conversation of a run not in runs is an error.
func encodeConversations(cs []Conversation, runs []RunRecord) (map[string]string, error) {
	if len(cs) == 0 {
		return nil, nil
	}
	index := make(map[string]int, len(runs))
	for i, r := range runs {
		index[r.RunID] = i
	}
	out := make(map[string]string, len(cs))
	var b bytes.Buffer
	for i := range cs {
		k, ok := index[cs[i].RunID]
		if !ok {
			return nil, fmt.Errorf("encode conversations: run %q is not in the run list", cs[i].RunID)
		}
		z := cs[i].Encoded
		if z == "" {
			var err error
			if z, err = encodeConversation(&cs[i], &b); err != nil {
				return nil, err
			}
		}
		out[strconv.Itoa(k)] = z
	}
	return out, nil
}

// encodeConversation is c as gzip-compressed (the default level, no name
// or time: deterministic), base64-encoded JSON; b is a scratch buffer (nil:
// a new one).
func encodeConversation(c *Conversation, b *bytes.Buffer) (string, error) {
	raw, err := json.Marshal(c)
	if err != nil {
		return "", fmt.Errorf("encode conversation %s: %w", c.RunID, err)
	}
	if b == nil {
		b = &bytes.Buffer{}
	}
	b.Reset()
	zw := gzip.NewWriter(b)
	if _, err := zw.Write(raw); err != nil {
		return "", fmt.Errorf("compress conversation %s: %w", c.RunID, err)
	}
	if err := zw.Close(); err != nil {
		return "", fmt.Errorf("compress conversation %s: %w", c.RunID, err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes()), nil
}

// Live says the page is served by trajmine serve: its script then fetches
// conversations, searches and filters from the server and follows new
// logs (it polls the generation endpoint every Poll milliseconds and
// reloads when the generation changes).
type Live struct {
	Generation int64
	// Poll is the watcher's interval in milliseconds (the page polls the
	// generation as often, at least every 250 ms); 0: logs are not
	// watched.
	Poll int64
	// Watching names what is watched, for the header ("3 paths under
	// ~/.claude/projects …").
	Watching string
	// Updated says when and what the last refresh imported.
	Updated string
	// Handles name the runs of the run list (Data.Runs, in its order) to
	// the server: the run= of its conversation and event endpoints, never
	// the run's id (which the page shows redacted).
	Handles []string
}

// liveJSON is Live in the runs block: what the script needs.
type liveJSON struct {
	Generation int64    `json:"generation"`
	Poll       int64    `json:"poll"`
	Handles    []string `json:"handles,omitempty"`
}
