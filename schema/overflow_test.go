package schema

import "testing"

func TestIsOverflowText(t *testing.T) {
	for _, s := range []string{"Prompt is too long", "Error code: 400 - context_length_exceeded", "ContextWindowExceededError", "This model's maximum context length is 128000 tokens", "Input is too long for requested model"} {
		if !IsOverflowText(s) {
			t.Errorf("IsOverflowText(%q) = false", s)
		}
	}
	for _, s := range []string{"", "rate limit exceeded", "file not found"} {
		if IsOverflowText(s) {
			t.Errorf("IsOverflowText(%q) = true", s)
		}
	}
}
