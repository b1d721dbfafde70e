package schema

import "strings"

// overflowTexts are the words APIs and harnesses use for a prompt longer than
// the model's window (Anthropic "prompt is too long", OpenAI
// context_length_exceeded, LiteLLM ContextWindowExceededError, OpenHands
// LLMContextWindowExceedError, …), lower-cased.
var overflowTexts = []string{
	"prompt is too long",
	"context_length_exceeded",
	"context_window_exceeded",
	"contextwindowexceed",
	"maximum context length",
	"context window",
	"input is too long",
}

// IsOverflowText reports whether an error text says the prompt exceeded the
// window. The importers use it for explicit end reasons. It is meant for
// texts that are errors (a log's error field, a stop reason): any mention
// counts. Text that may be ordinary prose (assistant messages, tool output)
// needs the shape of a provider's error as well, which diagnose checks
// (diagnose.IsProviderOverflow).
func IsOverflowText(s string) bool {
	l := strings.ToLower(s)
	for _, t := range overflowTexts {
		if strings.Contains(l, t) {
			return true
		}
	}
	return false
}
