package ingest

import (
	"io"
	"path/filepath"
	"strings"

	json "github.com/trajmine/trajmine/ingest/internal/jsonx"

	"github.com/trajmine/trajmine/schema"
)

// antigravity reads Antigravity CLI trajectory steps
// (~/.gemini/antigravity-cli/, step JSONL as agent-sessions reads it): one
// step {step_index, type, source, status, created_at, content, thinking,
// tool_calls, truncated_fields} per line.
//
// Steps:
//  1. Decode each step; a line that is not a JSON object or has no type is
//     rejected.
//  2. By type:
//     - USER_INPUT → user event; SYSTEM_MESSAGE → system event;
//     - PLANNER_RESPONSE (the model) → one model call: thinking →
//     reasoning, content → assistant text, tool_calls[{id, name (or
//     function_name), args}] → tool calls (args values are JSON-encoded
//     strings and are decoded; a call without an id is named call-<n>);
//     - any other step from the harness (source SYSTEM or SYSTEM_SDK:
//     EPHEMERAL_MESSAGE reminders injected into the prompt, …) → a system
//     event with its content, never a tool call (issue 30.7);
//     - action steps (RUN_COMMAND, VIEW_FILE, LIST_DIRECTORY, GREP_SEARCH,
//     CODE_ACTION, SEARCH_WEB, GENERIC and any other type) → the result of
//     a planner call (callLinker): the call the step's own tool_calls id
//     names, else the oldest open one. An action step with no open call
//     is a tool call of its own — named and keyed by the step's own
//     tool_calls where it has them, else by its type in lower case — in a
//     model call of its own (the planner step that chose it is not
//     logged), followed by its result. status ERROR or FAILED marks the
//     result an error;
//     - CHECKPOINT (the harness summarised the conversation and resumes
//     from it) → a compaction event with a compaction op;
//     CONVERSATION_HISTORY with content → a compaction event with a
//     summary op; without content it marks nothing and is skipped.
//  3. truncated_fields says the recorder cut a field of the log itself, not
//     the model's context: it is not a context op.
//  4. The run is the file (its name); there is no usage. A last step with
//     status CANCELED ends the run interrupted (explicit); otherwise the
//     end reason is inferred from the last event.
type antigravity struct{ formatInfo }

// Detect claims JSONL whose first step has step_index, an upper-case type
// and a source.
func (antigravity) Detect(name string, head []byte) bool {
	return anyJSONL(head, 1, func(s *agStep) bool {
		return s.StepIndex != nil && s.Source != "" && s.Type != "" && strings.ToUpper(s.Type) == s.Type
	})
}

type agStep struct {
	StepIndex *int64          `json:"step_index"`
	Type      string          `json:"type"`
	Source    string          `json:"source"`
	Status    string          `json:"status"`
	CreatedAt string          `json:"created_at"`
	Content   json.RawMessage `json:"content"`
	Thinking  string          `json:"thinking"`
	ToolCalls []agToolCall    `json:"tool_calls"`
}

type agToolCall struct {
	ID           string                     `json:"id"`
	Name         string                     `json:"name"`
	FunctionName string                     `json:"function_name"`
	Args         map[string]json.RawMessage `json:"args"`
}

// name is the call's tool name: name, else function_name.
func (tc *agToolCall) name() string { return firstNonEmpty(tc.Name, tc.FunctionName) }

// agSystemSource reports whether a step comes from the harness rather than
// the model or the user.
func agSystemSource(source string) bool { return source == "SYSTEM" || source == "SYSTEM_SDK" }

// agArgs decodes the planner's arguments, whose values are JSON texts held
// in strings ("\"/tmp/repo\"").
func agArgs(args map[string]json.RawMessage) string {
	out := make(map[string]json.RawMessage, len(args))
	for k, v := range args {
		var s string
		if json.Unmarshal(v, &s) == nil && json.Valid([]byte(s)) {
			v = json.RawMessage(s)
		}
		out[k] = v
	}
	b, err := json.Marshal(out)
	if err != nil {
		return "{}"
	}
	return string(b)
}

func (antigravity) Import(f *File, r io.Reader) error {
	var b *RunBuilder
	var q callLinker
	var last schema.EventKind
	lastStatus := ""
	err := lineReader[agStep]{decode: jsonValue[agStep]}.read(f, r, func(line int64, raw []byte, s *agStep) error {
		if s.Type == "" {
			return f.Reject(line, "step without a type", raw)
		}
		if b == nil {
			var err error
			if b, err = f.NewRun(strings.TrimSuffix(filepath.Base(f.Path()), filepath.Ext(f.Path()))); err != nil {
				return err
			}
			b.Run.Harness = "antigravity"
		}
		lastStatus = s.Status
		ts := ParseTime(s.CreatedAt)
		add := eventAdder(b, ts, line, &last)
		text := jsonString(s.Content)
		isErr := s.Status == "ERROR" || s.Status == "FAILED"
		switch s.Type {
		case "USER_INPUT":
			q.drop()
			return add(schema.Event{Kind: schema.KindUser, Role: "user", Text: text})
		case "SYSTEM_MESSAGE":
			return add(schema.Event{Kind: schema.KindSystem, Role: "system", Text: text})
		case "PLANNER_RESPONSE":
			q.drop()
			b.NewCall()
			if strings.TrimSpace(s.Thinking) != "" {
				if err := add(schema.Event{Kind: schema.KindReasoning, Role: "assistant", Text: s.Thinking}); err != nil {
					return err
				}
			}
			if strings.TrimSpace(text) != "" {
				if err := add(schema.Event{Kind: schema.KindAssistant, Role: "assistant", Text: text}); err != nil {
					return err
				}
			}
			for _, tc := range s.ToolCalls {
				if err := add(schema.Event{Kind: schema.KindToolCall, Role: "assistant", ToolName: tc.name(), CallID: q.call(tc.ID), Args: agArgs(tc.Args)}); err != nil {
					return err
				}
			}
			return nil
		case "CHECKPOINT", "CONVERSATION_HISTORY":
			if strings.TrimSpace(text) == "" && s.Type == "CONVERSATION_HISTORY" {
				return nil
			}
			q.drop()
			if err := add(schema.Event{Kind: schema.KindCompaction, Role: "system", Text: text}); err != nil {
				return err
			}
			op := schema.OpCompaction
			if s.Type == "CONVERSATION_HISTORY" {
				op = schema.OpSummary
			}
			return b.Op(schema.ContextOp{Op: op, Trigger: "auto", Detail: s.Type})
		default:
			if agSystemSource(s.Source) {
				if strings.TrimSpace(text) == "" {
					return nil
				}
				return add(schema.Event{Kind: schema.KindSystem, Role: "system", Text: text})
			}
			// an action step: a tool's result
			own := agToolCall{Name: strings.ToLower(s.Type)}
			if len(s.ToolCalls) > 0 {
				own = s.ToolCalls[0]
				if own.name() == "" {
					own.Name = strings.ToLower(s.Type)
				}
			}
			if !q.hasOpen() {
				b.NewCall() // the planner step that chose this action is not in the log
				if err := add(schema.Event{Kind: schema.KindToolCall, Role: "assistant", ToolName: own.name(), CallID: q.call(own.ID), Args: agArgs(own.Args)}); err != nil {
					return err
				}
			}
			callID, _ := q.result(own.ID)
			return add(schema.Event{Kind: schema.KindToolResult, Role: "tool", CallID: callID, Text: text, IsError: isErr})
		}
	})
	if err != nil || b == nil {
		return err
	}
	if strings.EqualFold(lastStatus, "CANCELED") || strings.EqualFold(lastStatus, "CANCELLED") {
		b.SetEnd(schema.EndInterrupted, "last step "+lastStatus)
	}
	inferEnd(b, last)
	return b.Finish()
}
