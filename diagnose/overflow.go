package diagnose

import (
	"regexp"
	"strings"
)

// overflowPhrases are what providers and harnesses say when a prompt did
// not fit the window, lower-cased. Each names the overflow itself: "context
// window" alone does not (a test's "context window for gpt-4 should be
// 8192", a README's "the context window is 200K tokens").
var overflowPhrases = []string{
	"prompt is too long",                            // Anthropic API, Claude Code
	"context_length_exceeded",                       // OpenAI error code
	"context_window_exceeded",                       // Anthropic stop reason model_context_window_exceeded, xAI
	"contextwindowexceed",                           // LiteLLM ContextWindowExceededError, OpenHands LLMContextWindowExceedError
	"maximum context length",                        // OpenAI, vLLM: "This model's maximum context length is 128000 tokens"
	"input is too long",                             // Bedrock: "Input is too long for requested model"
	"exceeds the context window",                    // OpenAI Responses: "Your input exceeds the context window of this model"
	"exceed context limit",                          // Anthropic: "input length and `max_tokens` exceed context limit"
	"context window exceeded",                       // harnesses
	"context length exceeded",                       // harnesses
	"exceeds the maximum number of tokens allowed",  // Gemini: "The input token count (…) exceeds the maximum number of tokens allowed (…)"
	"ran out of room in the model's context window", // Codex CLI
}

// hasOverflowPhrase reports whether the lower-cased l holds an overflow phrase.
func hasOverflowPhrase(l string) bool {
	for _, p := range overflowPhrases {
		if strings.Contains(l, p) {
			return true
		}
	}
	return false
}

// IsOverflowError reports whether the text of an error event (the log marks
// it as an error) says the prompt did not fit: it holds an overflow phrase
// (overflowPhrases), anywhere.
func IsOverflowError(s string) bool { return hasOverflowPhrase(strings.ToLower(s)) }

// providerErrorLine matches a line that opens as a provider's or an SDK's
// error, lower-cased:
//
//   - "Error", "API Error" or "Error code", an optional 3-digit status, then
//     ':', '(', '[', '{', '-' or '"' (`Error: prompt is too long`, `API Error:
//     400 {…}`, `Error code: 400 - {'error': …}`);
//   - an error class of a provider SDK or gateway, optionally dotted
//     (openai.BadRequestError, litellm.ContextWindowExceededError,
//     anthropic.APIStatusError, google.genai.errors.ClientError,
//     ValidationException) — not any exception: a test's AssertionError or a
//     ValueError is the program under work talking;
//   - a JSON error body, optionally after a status: {"error": …},
//     {"type": "error", …}, {'error': …}.
var providerErrorLine = regexp.MustCompile(`^\W*(?:` +
	`(?:api\s+)?error(?:\s+code)?\s*(?:\d{3}\b)?\s*[:(\[{\-"]` +
	`|(?:[a-z_]\w*\.)*(?:badrequesterror|invalidrequesterror|apierror|apistatuserror|openaierror|anthropicerror|clienterror|validationexception|invalidargument|\w*contextwindowexceed\w*|\w*contextlengthexceed\w*)\b` +
	`)|^(?:\d{3}\s*)?[{\[]\s*["']?(?:type["']?\s*:\s*["']error["']|error["']?\s*:)`)

// IsProviderOverflow reports whether a text that may be ordinary output — an
// assistant message or a tool result — holds a provider's overflow error:
// one of its lines holds an overflow phrase (overflowPhrases) and either
// opens as a provider's error (providerErrorLine) or opens with the phrase
// itself (a harness's "Prompt is too long", "context_length_exceeded: …").
// A JSON error body spread over several lines counts as one line. Prose that
// mentions the context window, and a test's assertion about one, do not
// match.
func IsProviderOverflow(s string) bool {
	l := strings.ToLower(s)
	if !hasOverflowPhrase(l) {
		return false
	}
	for line := range strings.Lines(l) {
		if providerOverflowLine(strings.TrimSpace(line)) {
			return true
		}
	}
	if t := strings.TrimSpace(l); strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
		return providerOverflowLine(strings.Join(strings.Fields(t), " "))
	}
	return false
}

func providerOverflowLine(l string) bool {
	if l == "" || !hasOverflowPhrase(l) {
		return false
	}
	if providerErrorLine.MatchString(l) {
		return true
	}
	t := strings.TrimLeft(l, " \t\"'`*>#-_[({:")
	for _, p := range overflowPhrases {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// overflowReport matches an assistant's own report that the window is
// full, lower-cased and with typographic apostrophes made plain: "I've hit
// the context window limit", "we have exceeded the model's context length",
// "I'm running out of context", "my context window is full". A conditional
// ("if I hit the context limit") or a negation ("I have not hit …") does not
// match.
var overflowReport = regexp.MustCompile(
	`\b(?:i've|i have|we've|we have)\s+(?:now\s+|just\s+|already\s+)?(?:hit|reached|exceeded|exhausted|filled|used up|run out of)\s+(?:the\s+|my\s+|our\s+|your\s+)?(?:[\w']+\s+)?(?:context|token)(?:[ -]window)?(?:\s+(?:limit|length|size|budget|capacity))?\b` +
		`|\b(?:i'm|i am|we're|we are)\s+(?:now\s+)?(?:out of|running out of)\s+(?:the\s+|my\s+|our\s+)?(?:context|tokens?)\b` +
		`|\b(?:my|the|our)\s+context(?:[ -]window)?\s+(?:limit\s+)?(?:is|has been|was)\s+(?:now\s+)?(?:full|exhausted|exceeded|reached)\b`)

// IsOverflowReport reports whether an assistant message says, in the
// first person, that the run has filled its window (overflowReport).
func IsOverflowReport(s string) bool {
	l := strings.ReplaceAll(strings.ToLower(s), "’", "'")
	if !strings.Contains(l, "context") && !strings.Contains(l, "token") {
		return false
	}
	return overflowReport.MatchString(l)
}
