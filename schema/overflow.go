package schema

import (
	"regexp"
	"strings"
)

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
// window. It is shared by the importers (explicit end reasons) and diagnose
// (inferred ones), so both read the same words. It is meant for texts that
// are errors (error events, a log's error field): any mention counts. For
// text that may be ordinary prose (assistant messages, tool output) use
// IsOverflowMessage.
func IsOverflowText(s string) bool {
	l := strings.ToLower(s)
	for _, t := range overflowTexts {
		if strings.Contains(l, t) {
			return true
		}
	}
	return false
}

// errorLine matches a line that opens as an error report: optional
// punctuation, then "Error", "API Error", a dotted exception name ending in
// Error or Exception (litellm.BadRequestError, ContextWindowExceededError),
// optionally a 3-digit status, then ':', '(', '[', '{', '-' or '"' — as in
// `Error: prompt is too long`, `API Error: 400 {…}`, `{"error": {…}}`.
var errorLine = regexp.MustCompile(`(?i)^\W*(?:api\s+)?[\w.]*(?:error|exception)"?\s*(?:\d{3}\b)?\s*[:(\[{\-"]`)

// IsOverflowMessage reports whether a text that may be ordinary prose — an
// assistant message or a tool result — reports an overflow: one of its lines
// holds an overflow text (IsOverflowText) and either opens as an error
// report (errorLine) or opens with the overflow text itself ("Prompt is too
// long", "context_length_exceeded: …"). Prose that mentions the context
// window ("The context window is 200K tokens, so I read in chunks") does
// not match.
func IsOverflowMessage(s string) bool {
	for line := range strings.Lines(s) {
		l := strings.ToLower(strings.TrimSpace(line))
		if l == "" || !IsOverflowText(l) {
			continue
		}
		if errorLine.MatchString(l) {
			return true
		}
		t := strings.TrimLeft(l, " \t\"'`*>#-_[({:")
		for _, o := range overflowTexts {
			if strings.HasPrefix(t, o) && o != "context window" {
				return true
			}
		}
	}
	return false
}
