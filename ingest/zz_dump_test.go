package ingest_test

import (
	"fmt"
	"path/filepath"
	"testing"
)

func TestZZDump(t *testing.T) {
	for _, c := range [][2]string{
		{"factory-droid", "factory-droid/agent-sessions__session_store_large.jsonl"},
		{"factory-droid", "factory-droid/droid-settings.jsonl"},
		{"factory-droid-exec-stream-json", "factory-droid-exec-stream-json/agent-sessions__stream_json_large.jsonl"},
		{"qwen-code", "qwen-code/agent-sessions__019f0000-0000-7000-8000-000000000001.jsonl"},
		{"qwen-code", "qwen-code/agent-sessions__019f0000-0000-7000-8000-000000000004.jsonl"},
		{"qwen-code", "qwen-code/compression.jsonl"},
		{"copilot-cli-events", "copilot-cli-events/agent-sessions__small.jsonl"},
		{"copilot-cli-events", "copilot-cli-events/agent-sessions__subdir_v1__events.jsonl"},
		{"cursor-agent-transcripts", "cursor-agent-transcripts/agent-sessions__large.jsonl"},
		{"cursor-agent-transcripts", "cursor-agent-transcripts/parent/subagents/child.jsonl"},
		{"grok-build", "grok-build/019f6000-0000-7000-8000-000000000001/chat_history.jsonl"},
		{"mistral-vibe", "mistral-vibe/session_with_tools/messages.jsonl"},
		{"gptme", "gptme/2026-06-13-write-hello-world/conversation.jsonl"},
		{"hermes-agent", "hermes-agent/agent-sessions__large.json"},
		{"antigravity-cli", "antigravity-cli/agent-sessions__cli_small.jsonl"},
		{"kiro-cli-sqlite-payload", "kiro-cli-sqlite-payload/agentsview__standard_payload.json"},
	} {
		p := filepath.Join("testdata", c[1])
		m := pkParse(t, c[0], p, p)
		fmt.Printf("== %s\nruns %+v\n", c[1], pkRuns(m))
		for _, e := range evs(m) {
			fmt.Printf("  %#v,\n", e)
		}
		fmt.Printf("lines:")
		for _, e := range m.Events {
			fmt.Printf(" %d,", e.Line)
		}
		fmt.Printf("\nusage %#v\nouts %#v\nops %#v\nrejects %#v\n", pkUses(m), outs(m), pkOps(m), pkRejects(m))
	}
}
