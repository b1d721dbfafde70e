package schema

import "testing"

func TestIsOverflowMessage(t *testing.T) {
	tests := []struct {
		name string
		text string
		want bool
	}{
		{"error line", "Error: prompt is too long: 213004 tokens > 200000 maximum", true},
		{"api error with status and body", `API Error: 400 {"type":"error","error":{"message":"prompt is too long: 210000 tokens > 200000 maximum"}}`, true},
		{"exception name", "litellm.ContextWindowExceededError: litellm.BadRequestError: maximum context length is 128000", true},
		{"json error body", `{"error": {"code": "context_length_exceeded", "message": "..."}}`, true},
		{"bare harness text", "Prompt is too long", true},
		{"error on a later line", "Running the tests.\nError: input is too long for the model", true},
		{"error naming the context window", "Error: your input exceeds the context window of this model", true},
		{"prose about the context window", "The context window is 200K tokens, so I'll read the file in chunks.", false},
		{"prose about the maximum context length", "GPT-4o has a maximum context length of 128,000 tokens.", false},
		{"bare context window opening a line", "Context window: 200,000 tokens", false},
		{"error that is not an overflow", "Error: file not found", false},
		{"empty", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := IsOverflowMessage(tc.text); got != tc.want {
				t.Errorf("IsOverflowMessage(%q) = %v, want %v", tc.text, got, tc.want)
			}
		})
	}
}
