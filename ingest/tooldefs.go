package ingest

import (
	"bytes"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// ToolDefinitions returns the event that records a run's tool definitions
// (schema.RoleToolDefinitions): a system event with role "tools" whose text
// is raw, a JSON array of tool definitions as the log has them (OpenAI
// {type, function{name, description, parameters}}, Anthropic {name,
// description, input_schema}, Inspect {name, description, parameters}, …),
// in canonical JSON. ok is false when raw is not a non-empty JSON array of
// objects (an empty list, or a list of tool names only as Claude's
// stream-json init has, shows no definitions): then there is no event.
//
// Importers add it once per run, before the first model call, where the
// format records the definitions the requests carried: openai-messages and
// anthropic-messages (a record's "tools", or LiteLLM's kwargs.tools),
// inspect-ai (the tools of the first model call), openhands (the system
// action's tools) and atif (agent.tool_definitions).
func ToolDefinitions(raw []byte, line int64) (e schema.Event, ok bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '[' {
		return e, false
	}
	var defs []json.RawMessage
	if json.Unmarshal(raw, &defs) != nil || len(defs) == 0 {
		return e, false
	}
	for _, d := range defs {
		if d = bytes.TrimSpace(d); len(d) == 0 || d[0] != '{' {
			return e, false
		}
	}
	return schema.Event{Kind: schema.KindSystem, Role: schema.RoleToolDefinitions, Line: line, Text: CanonicalJSON(raw)}, true
}
