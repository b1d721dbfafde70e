package ingest

// AgentFixture is a folder of testdata/agents (issue 30): public sample
// logs of one agent — parser and session-viewer test fixtures, a few real
// sessions — each with its SOURCE.md (licence, provenance) and its hand
// counts (counts.json), and the importer whose tests read it.
type AgentFixture struct {
	Folder string `json:"folder"` // under ingest/testdata/agents
	Format string `json:"-"`      // the importer its tests read it with; "" none
	Agent  string `json:"agent"`  // the agent and the versions its logs state
	Source string `json:"source"` // the repositories the files come from, @ commit
}

// The repositories the fixtures come from (full commits in each SOURCE.md).
const (
	srcAgentSessions = "jazzyalex/agent-sessions @ 651e854f"
	srcAgentsview    = "kenn-io/agentsview @ 53860074"
	srcCCUsage       = "ryoppippi/ccusage @ 5816e640"
	srcSplitrail     = "Piebald-AI/splitrail @ 56e4be45"
	srcGooseAnalysis = "teck968/goose-session-analysis @ 9d43ec9d"
	srcGait          = "gait-ai/gait @ 85a221e7"
	srcQuesma        = "QuesmaOrg/quesma-shipper @ 10ec4ce1"
	srcCodeburn      = "getagentseal/codeburn @ ed8fa3af"
)

// agentFixtures names every folder of testdata/agents once per importer
// that reads it (TestAgentFixturesListed keeps it complete and in step
// with fixture_claims_test.go's agentFolderFormats); trajmine formats
// prints it, so that a format's "tested on" says which real logs it reads.
// Rows with no importer ("") record an agent with no licensed sample, in
// the folder whose SOURCE.md says what was searched.
var agentFixtures = []AgentFixture{
	{"claude-code-2.1", "claude-code", "Claude Code 2.1.80–2.1.220 (the 2.1.x metadata record types)", srcAgentSessions},
	{"cursor-turn-ended", "cursor-agent-transcripts", "Cursor agent CLI transcripts with turn_ended lines (no version stated)", srcAgentSessions},
	{"gemini-cli-jsonl", "gemini-cli", "Gemini CLI 0.40.x session-*.jsonl; a session-*.json with \"model\" messages (no version stated)", srcAgentSessions + "; " + srcAgentsview},
	{"grok-build", "grok-build", "Grok Build at xai-org/grok-build 7cfcb20d: the legacy chat_history.jsonl its chat-history-downgrade writes", srcAgentsview},
	{"factory-droid-exec", "factory-droid-exec-stream-json", "droid exec stream-json with sessionId and epoch milliseconds (no version stated)", srcAgentSessions},
	{"copilot-cli", "copilot-cli-events", "Copilot CLI events.jsonl: a 0.0.420 header with 1.0.x records", srcAgentSessions},
	{"antigravity-new", "antigravity-cli", "Antigravity CLI transcript steps with tool_calls (no version stated)", srcAgentSessions},
	{"pi", "pi-coding-agent", "pi 0.74.0, session format v3 (a real capture)", srcAgentSessions},
	{"amp", "amp-thread", "Amp threads, current and usageLedger (no version stated)", srcAgentsview + "; " + srcCCUsage},
	{"roo-code", "cline-task-folder", "Roo Code task folders (no version stated)", srcAgentsview},
	{"kilo-code", "cline-task-folder", "Kilo Code legacy extension task folder (no version stated)", srcAgentsview},
	{"vscode-copilot-chat", "vscode-copilot-chat", "VS Code Copilot Chat: a real session of chat format version 3 (November 2025); JSONL mutation logs", srcSplitrail + "; " + srcAgentsview},
	{"goose-jsonl", "goose-jsonl", "Goose sessions/<id>.jsonl of Goose 1.0–1.9 (no version stated): a parser's test session, and three records of an April 2025 session its tests quote", srcGooseAnalysis},
	{"goose", "goose-sessions-db", "Goose sessions.db, schema version 15 (as SQL)", srcAgentsview},
	{"opencode-sqlite", "opencode-db", "OpenCode 1.4+ opencode.db (as SQL)", srcAgentsview},
	{"hermes", "hermes-state-db", "Hermes Agent state.db (as SQL) and a transcript beside it", srcAgentsview},
	{"cursor-ide", "cursor-ide-db", "Cursor IDE state.vscdb: a real workspace composer.composerData of October 2024; global stores as parsers' tests build them (no version stated)", srcGait + "; " + srcQuesma + "; " + srcCodeburn},
	{"kiro", "kiro-cli-db", "Kiro CLI data.sqlite3, conversations_v2 (as SQL)", srcAgentsview},
	{"kiro", "kiro-cli-sqlite-payload", "Kiro CLI: one conversations row's value saved as JSON", srcAgentsview},
	{"kiro", "", "Kiro IDE (globalStorage/kiro.kiroagent: .chat files, workspace-sessions, execution logs; not read)", ""},
	{"cline", "", "Cline task folders (read by cline-task-folder, tested on Roo Code's layout)", ""},
}

// AgentFixtures returns the folders of testdata/agents an importer is
// tested on (nil: none); AgentFixtures("") the folders no importer reads.
func AgentFixtures(format string) []AgentFixture {
	var out []AgentFixture
	for _, f := range agentFixtures {
		if f.Format == format {
			out = append(out, f)
		}
	}
	return out
}

// AllAgentFixtures returns every row of the table, folders with no
// importer included.
func AllAgentFixtures() []AgentFixture { return append([]AgentFixture(nil), agentFixtures...) }
