package diagnose

import "testing"

func TestIsProviderOverflow(t *testing.T) {
	tests := []struct {
		name string
		text string
		want bool
	}{
		{"error line", "Error: prompt is too long: 213004 tokens > 200000 maximum", true},
		{"api error with status and body", `API Error: 400 {"type":"error","error":{"message":"prompt is too long: 210000 tokens > 200000 maximum"}}`, true},
		{"bare Anthropic error body", `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 213004 tokens > 200000 maximum"}}`, true},
		{"bare body after a status", `400 {"type":"error","error":{"type":"invalid_request_error","message":"input length and max_tokens exceed context limit: 197626 + 21333 > 200000"}}`, true},
		{"OpenAI SDK error", `openai.BadRequestError: Error code: 400 - {'error': {'message': "This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 tokens.", 'type': 'invalid_request_error', 'code': 'context_length_exceeded'}}`, true},
		{"OpenAI Responses error body", `{"error": {"message": "Your input exceeds the context window of this model. Please adjust your input and try again.", "type": "invalid_request_error", "code": "context_length_exceeded"}}`, true},
		{"LiteLLM exception chain", "litellm.ContextWindowExceededError: litellm.BadRequestError: maximum context length is 128000", true},
		{"Gemini body", `{"error": {"code": 400, "message": "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", "status": "INVALID_ARGUMENT"}}`, true},
		{"Bedrock", "ValidationException: Input is too long for requested model.", true},
		{"bare harness text", "Prompt is too long", true},
		{"error on a later line", "Running the tests.\nError: input is too long for the model", true},
		{"error naming the context window", "Error: your input exceeds the context window of this model", true},
		{"pytest AssertionError about a context window", "AssertionError: context window for gpt-4 should be 8192", false},
		{"pytest summary line", "FAILED tests/test_models.py::test_window - AssertionError: context window for gpt-4 should be 8192", false},
		{"pytest's E line about a mocked overflow", "E   AssertionError: assert 'prompt is too long' in str(err)", false},
		{"any exception is not a provider's", "ValueError: prompt is too long for this test fixture", false},
		{"prose about the context window", "The context window is 200K tokens, so I'll read the file in chunks.", false},
		{"prose about the maximum context length", "GPT-4o has a maximum context length of 128,000 tokens.", false},
		{"an error naming the context window only", "Error: context window must be positive", false},
		{"bare context window opening a line", "Context window: 200,000 tokens", false},
		{"error that is not an overflow", "Error: file not found", false},
		{"empty", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := IsProviderOverflow(tc.text); got != tc.want {
				t.Errorf("IsProviderOverflow(%q) = %v, want %v", tc.text, got, tc.want)
			}
		})
	}
}

func TestIsOverflowError(t *testing.T) {
	for _, s := range []string{"Prompt is too long", "Error code: 400 - context_length_exceeded", "ContextWindowExceededError", "This model's maximum context length is 128000 tokens",
		"Input is too long for requested model", "Codex ran out of room in the model's context window. Start a new conversation or clear earlier history before retrying."} {
		if !IsOverflowError(s) {
			t.Errorf("IsOverflowError(%q) = false", s)
		}
	}
	for _, s := range []string{"", "rate limit exceeded", "file not found", "context window for gpt-4 should be 8192", "Request was aborted."} {
		if IsOverflowError(s) {
			t.Errorf("IsOverflowError(%q) = true", s)
		}
	}
}

func TestIsOverflowReport(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"I've hit the context window limit, so I'll stop here.", true},
		{"I’ve reached the context limit; here is what remains to do.", true},
		{"We have exceeded the model's context length.", true},
		{"I have run out of context window.", true},
		{"I'm running out of context, so a summary follows.", true},
		{"My context window is full.", true},
		{"If I hit the context limit, I will summarize first.", false},
		{"I have not hit the context window limit yet.", false},
		{"I haven't reached the context limit.", false},
		{"The context window is 200K tokens.", false},
		{"I've hit a bug in the tokenizer.", false},
		{"", false},
	}
	for _, tc := range tests {
		if got := IsOverflowReport(tc.text); got != tc.want {
			t.Errorf("IsOverflowReport(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}
