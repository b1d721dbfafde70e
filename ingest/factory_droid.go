package ingest

import (
	"io"
	"path/filepath"
	"strings"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// factoryDroid reads Factory Droid's session store
// (~/.factory/sessions/<encoded-cwd>/<uuid>.jsonl, with <uuid>.settings.json
// next to it).
//
// Steps per line:
//  1. Decode the record; a line that is not a JSON object, has no type, or
//     a message line whose message is not an object with a role and
//     content blocks, is rejected.
//  2. session_start (the first line) names the run: id (else the file
//     name), title and cwd.
//  3. message lines hold an Anthropic-style message: text → user or
//     assistant events, thinking → reasoning, tool_use → tool calls,
//     tool_result → tool results linked by tool_use_id. Model calls are
//     found from the event order (each run of assistant output after an
//     input is one call): the store has no response ids.
//  4. Other record types (todo_state, …) are not part of what the model saw
//     and are skipped. The sample shows no compaction record, so none is
//     read (a compaction would go unnoticed).
//  5. Token usage and the model are not in the JSONL: the sibling
//     <uuid>.settings.json, when present, gives the model and the
//     session's token totals (tokenUsage: inputTokens, outputTokens,
//     cacheReadTokens, cacheCreationTokens, thinkingTokens), recorded as
//     logged totals (usage_estimated, since no call has its own usage).
//     The field names are those third-party Droid usage readers use; no
//     real settings file was available here. inputTokens is taken as
//     excluding the cache (those readers price the three separately):
//     input = input + cache read + cache creation; thinkingTokens is the
//     reasoning count, not added to output (whether outputTokens includes
//     it is not documented).
//  6. The end reason is inferred from the last event.
type factoryDroid struct{ formatInfo }

// Detect claims JSONL that opens with Droid's session_start header
// {"type":"session_start","id":…} carrying cwd, title or version, followed
// (if anything follows) by message lines.
func (factoryDroid) Detect(name string, head []byte) bool {
	return anyJSONL(head, 1, func(r *struct {
		Type    string          `json:"type"`
		ID      string          `json:"id"`
		Cwd     *string         `json:"cwd"`
		Title   *string         `json:"title"`
		Version json.RawMessage `json:"version"`
	}) bool {
		return r.Type == "session_start" && r.ID != "" && (r.Cwd != nil || r.Title != nil || r.Version != nil)
	})
}

type fdRecord struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Title     string          `json:"title"`
	Cwd       string          `json:"cwd"`
	Timestamp string          `json:"timestamp"`
	Message   json.RawMessage `json:"message"`
}

type fdSettings struct {
	Model      string `json:"model"`
	TokenUsage *struct {
		InputTokens         int64 `json:"inputTokens"`
		OutputTokens        int64 `json:"outputTokens"`
		CacheReadTokens     int64 `json:"cacheReadTokens"`
		CacheCreationTokens int64 `json:"cacheCreationTokens"`
		ThinkingTokens      int64 `json:"thinkingTokens"`
	} `json:"tokenUsage"`
}

func (factoryDroid) Import(f *File, r io.Reader) error {
	var b *RunBuilder
	var q callLinker
	var last schema.EventKind
	start := func(id string) error {
		if b != nil {
			return nil
		}
		if id == "" {
			id = strings.TrimSuffix(filepath.Base(f.Path()), filepath.Ext(f.Path()))
		}
		var err error
		b, err = f.NewRun(strings.Clone(id))
		if err != nil {
			return err
		}
		b.Run.Harness = "factory-droid"
		return nil
	}
	err := lineReader[fdRecord]{decode: jsonValue[fdRecord]}.read(f, r, func(line int64, raw []byte, rec *fdRecord) error {
		switch rec.Type {
		case "":
			return f.Reject(line, "record without a type", raw)
		case "session_start":
			return start(rec.ID)
		case "message":
			var msg struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			}
			if len(rec.Message) == 0 || rec.Message[0] != '{' || json.Unmarshal(rec.Message, &msg) != nil || msg.Role == "" {
				return f.Reject(line, "message is not an object with a role", raw)
			}
			blocks, ok := tbBlocks(msg.Content)
			if !ok {
				return f.Reject(line, "message content is neither text nor a list of blocks", raw)
			}
			if err := start(""); err != nil {
				return err
			}
			k, err := tbEmit(b, &q, msg.Role, blocks, ParseTime(rec.Timestamp), line)
			if k != "" {
				last = k
			}
			return err
		}
		return nil
	})
	if err != nil {
		return err
	}
	if b == nil {
		return nil
	}
	var s fdSettings
	if readSibling(siblingPath(f.Path(), ".jsonl", ".settings.json"), &s) {
		b.Run.Model = s.Model
		if u := s.TokenUsage; u != nil {
			b.SetLoggedTotals(schema.Usage{InputTokens: u.InputTokens + u.CacheReadTokens + u.CacheCreationTokens, OutputTokens: u.OutputTokens,
				CacheReadTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheCreationTokens, ReasoningTokens: u.ThinkingTokens})
		}
	}
	inferEnd(b, last)
	return b.Finish()
}
