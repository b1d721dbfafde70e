package ingest

// corpusFolders names, per importer, the folders of the shared corpus
// (../shared/corpus) its tests import, and those of ../shared/corpus-more
// as "corpus-more/<folder>"; importers without one are tested on
// hand-written fixtures only. TestCorpusFoldersListed and
// TestNoForeignClaims keep it complete.
var corpusFolders = map[string][]string{
	"claude-code":                    {"claude-code", "corpus-more/iflow-cli"},
	"codex-cli":                      {"codex-cli", "corpus-more/trae-cli"},
	"openai-messages":                {"openai-chat-messages"},
	"anthropic-messages":             nil,
	"atif":                           {"atif"},
	"inspect-ai":                     {"inspect-ai"},
	"opencode-sse-events":            {"opencode-sse-events"},
	"claude-agent-sdk-stream-json":   {"claude-agent-sdk-stream-json"},
	"claude-code-web-export":         {"claude-code-web-export"},
	"openhands-sdk-v1-events":        {"openhands-sdk-v1-events"},
	"cline-sdk-session":              {"cline-sdk-session"},
	"codex-exec-json":                {"codex-exec-json"},
	"gemini-cli":                     {"gemini-cli"},
	"kimi-cli-wire":                  {"kimi-cli-wire"},
	"mini-swe-agent":                 {"mini-swe-agent"},
	"openhands":                      {"openhands"},
	"otel-genai-spans":               {"otel-genai-spans", "corpus-more/visualstudio-copilot-traces"},
	"pi-coding-agent":                {"pi-coding-agent"},
	"swe-agent-traj":                 {"swe-agent-traj"},
	"aider-chat-history":             nil,
	"cline-http-cassette":            {"cline-http-cassette"},
	"langfuse-trace-export":          {"langfuse-trace-export"},
	"openclaw-telemetry":             {"openclaw-telemetry"},
	"qwen-code":                      {"corpus-more/qwen-code"},
	"copilot-cli-events":             {"corpus-more/copilot-cli-events"},
	"cursor-agent-transcripts":       {"corpus-more/cursor-agent-transcripts"},
	"factory-droid-exec-stream-json": {"corpus-more/factory-droid-exec-stream-json"},
	"grok-build":                     {"corpus-more/grok-build"},
	"mistral-vibe":                   {"corpus-more/mistral-vibe"},
	"gptme":                          {"corpus-more/gptme"},
	"hermes-agent":                   {"corpus-more/hermes-agent"},
	"antigravity-cli":                {"corpus-more/antigravity-cli"},
	"kiro-cli-sqlite-payload":        {"corpus-more/kiro-cli-sqlite-payload"},
	"factory-droid":                  {"corpus-more/factory-droid"},
}

// CorpusFolders returns the shared-corpus folders an importer is tested on
// (nil: hand-written fixtures only).
func CorpusFolders(format string) []string { return corpusFolders[format] }

// alsoReads names, per importer, the other agents whose logs it reads
// because they copy its layout (each tested on its corpus-more folder).
var alsoReads = map[string][]string{
	"claude-code":      {"iFlow CLI (~/.iflow/projects/*/session-*.jsonl)"},
	"codex-cli":        {"Trae CLI (~/.trae/cli/sessions/**/rollout-*.jsonl)"},
	"otel-genai-spans": {"Visual Studio GitHub Copilot traces (~/.cache/VSGitHubCopilotLogs/traces/*.jsonl)"},
}

// AlsoReads returns the other agents whose logs an importer reads because
// they copy its format (nil: none known).
func AlsoReads(format string) []string { return alsoReads[format] }
