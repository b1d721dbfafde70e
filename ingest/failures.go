package ingest

import (
	"github.com/trajmine/trajmine/actions"
	"github.com/trajmine/trajmine/schema"
)

// textFailureFormats are the formats whose logs give a tool result neither
// an error flag nor an exit code (or give one only for some results), so
// that a failure is only in what the tool printed. RunBuilder.Add applies
// the text rules of actions.InferFailure to their tool results that carry
// neither (IsError false, ExitCode nil), and records the rule in ErrorRule.
// Formats whose results carry a flag, where its absence means success
// (Anthropic tool_result blocks, Codex and OpenHands exit codes, Gemini,
// Kimi and Copilot statuses …), are not listed: their logged flag wins.
var textFailureFormats = map[string]bool{
	formatSWEAgent:          true, // observations are plain text
	formatMiniSWEAgent:      true, // <returncode> on most observations (logged); not on timeouts
	"atif":                  true, // observation results: source_call_id and content only
	formatOpenAIMessages:    true, // role tool messages: tool_call_id and content
	"otel-genai-spans":      true, // an error status only when the instrumentation set one
	"langfuse-trace-export": true, // likewise (level/status)
	"gptme":                 true, // system messages answer the tool blocks
	"hermes-agent":          true, // OpenAI-shaped tool messages
	"mistral-vibe":          true, // tool messages: tool_call_id and content
	"grok-build":            true, // tool rows: tool_call_id and content
	"cline-task-folder":     true, // "[tool] Result:" text blocks, command_output records
	"vscode-copilot-chat":   true, // toolCallResults: content only
}

// inferFailure marks e, a tool result whose log gives it neither an error
// flag nor an exit code, failed when its text says so (actions.InferFailure).
func inferFailure(e *schema.Event) {
	if e.IsError || e.ExitCode != nil {
		return
	}
	if rule, failed := actions.InferFailure(e.Text); failed {
		e.IsError, e.ErrorRule = true, rule
	}
}
