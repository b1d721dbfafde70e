package ingest_test

import (
	"context"
	"testing"

	"github.com/trajmine/trajmine/ingest"
	"github.com/trajmine/trajmine/schema"
)

// TestDTOCEnvelopeTokens: a tool result logged in a DTOC envelope keeps the
// inner result as its text and the envelope's tokens in envelope_tokens
// (chars4: ceil(runes/4) of the whole text minus that of the inner result);
// a plain result has none.
func TestDTOCEnvelopeTokens(t *testing.T) {
	// the tool content, as the model saw it:
	//   {"tool_key": "k1", "tool_result": "abcdefgh", "estimated_tokens": 2}
	// is 68 characters: ceil(68/4) = 17 tokens; the inner "abcdefgh" is 8
	// characters, 2 tokens: the envelope is 17 − 2 = 15 tokens
	data := []byte(`{"run_id": "e", "messages": [` +
		`{"role": "user", "content": "go"},` +
		`{"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{}"}}, {"id": "c2", "type": "function", "function": {"name": "read", "arguments": "{}"}}]},` +
		`{"role": "tool", "tool_call_id": "c1", "content": "{\"tool_key\": \"k1\", \"tool_result\": \"abcdefgh\", \"estimated_tokens\": 2}"},` +
		`{"role": "tool", "tool_call_id": "c2", "content": "abcdefgh"}]}` + "\n")
	m, err := ingest.Parse(context.Background(), "openai-messages", "e.jsonl", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []schema.Event
	for _, e := range m.Events {
		if e.Kind == schema.KindToolResult {
			got = append(got, e)
		}
	}
	if len(got) != 2 {
		t.Fatalf("%d tool results, want 2", len(got))
	}
	tests := []struct {
		key           string
		est, envelope int64
	}{
		{"k1", 2, 15},
		{"c2", 2, 0},
	}
	for i, tc := range tests {
		e := got[i]
		if e.ToolKey != tc.key || e.Text != "abcdefgh" || e.EstTokens != tc.est || e.EnvelopeTokens != tc.envelope || e.SeenTokens() != tc.est+tc.envelope {
			t.Errorf("result %d: key %q text %q est %d envelope %d; want %q, abcdefgh, %d, %d", i, e.ToolKey, e.Text, e.EstTokens, e.EnvelopeTokens, tc.key, tc.est, tc.envelope)
		}
	}
}
